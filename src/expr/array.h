// SQL arrays in expressions (the representation is in common/array.h):
// PostgreSQL's text format, casts between array types, the ARRAY[...]
// constructor, `x op ANY/ALL (array)`, subscripts, and the array functions
// (array_to_string, array_length, cardinality, array_cat, string_to_array,
// comparisons; registered by RegisterArrayFunctions).
//
// Functions over any array are registered with DataType::AnyArray()
// arguments; the binder gives calls returning AnyArray the concrete type
// of their array argument (PostgreSQL's anyarray polymorphism).
#pragma once

#include <string>
#include <string_view>

#include "expr/expression.h"

namespace freshet {

// array_out: {a,b,NULL,"x y"}; elements are quoted when empty, when they
// are "NULL" or contain whitespace, quotes, backslashes, braces or commas.
std::string FormatArrayText(std::string_view bytes, const DataType& array_type, const EvalContext& ctx);
// array_in for one dimension: '{1,2}', '{"a b",NULL}', '[1:2]={1,2}';
// returns the encoded array. 22P02 "malformed array literal" on bad input.
std::string ParseArrayText(std::string_view text, const DataType& array_type, EvalContext& ctx);
// Casts each array of `in` to array type `to`, element by element.
Vector CastArrayVector(const Vector& in, const DataType& to, EvalContext& ctx, bool assignment);

// ARRAY[e1, e2, ...]: children are the elements, already of the element type.
class ArrayConstructorExpr : public Expression {
 public:
  ArrayConstructorExpr(DataType array_type, std::vector<ExprPtr> elements);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<ArrayConstructorExpr>(type_, CloneChildren()); }
  std::string ToString() const override;
};

// x op ANY (array) / x op ALL (array). children: x, the array. `compare` is
// the operator over (x, element); the result follows SQL's three-valued
// logic like op ANY/ALL (subquery).
class ArrayAnyAllExpr : public Expression {
 public:
  ArrayAnyAllExpr(ExprPtr left, ExprPtr array, const ScalarFunction* compare, bool any);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override;
  std::string ToString() const override;
  const ScalarFunction* compare() const { return compare_; }
  bool any() const { return any_; }

 private:
  const ScalarFunction* compare_;
  bool any_;
};

// array[i] (1-based; NULL when i is out of range). children: array, int4 index.
class ArraySubscriptExpr : public Expression {
 public:
  ArraySubscriptExpr(ExprPtr array, ExprPtr index);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override;
  std::string ToString() const override;
};

}  // namespace freshet
