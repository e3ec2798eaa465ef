// SQL structs in expressions (the representation is in common/struct.h):
// PostgreSQL's record text format, casts between struct types, ROW(...)
// constructors, field selection `(s).f`, and comparisons (registered by
// RegisterStructFunctions over DataType::AnyStruct()).
#pragma once

#include <string>
#include <string_view>

#include "expr/expression.h"

namespace freshet {

// record_out: (a,b,,"x y"); a NULL field is empty, and a field is quoted
// when it is empty or contains quotes, backslashes, parentheses, commas or
// whitespace (quotes and backslashes doubled inside).
std::string FormatStructText(std::string_view bytes, const DataType& struct_type, const EvalContext& ctx);
// record_in: '(1,abc)', '(,"a b")'; returns the encoded struct. 22P02
// "malformed record literal" on bad input.
std::string ParseStructText(std::string_view text, const DataType& struct_type, EvalContext& ctx);
// Casts each struct of `in` to struct type `to` field by field (the field
// counts must agree; the binder checks).
Vector CastStructVector(const Vector& in, const DataType& to, EvalContext& ctx, bool assignment);

// ROW(e1, e2, ...): children are the fields, already of the fields' types.
class StructConstructorExpr : public Expression {
 public:
  StructConstructorExpr(DataType struct_type, std::vector<ExprPtr> fields);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<StructConstructorExpr>(type_, CloneChildren()); }
  std::string ToString() const override;
};

// (s).f: field `index` of the struct child; NULL when the struct is NULL.
class FieldSelectExpr : public Expression {
 public:
  FieldSelectExpr(ExprPtr input, size_t index);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<FieldSelectExpr>(children_[0]->Clone(), index_); }
  std::string ToString() const override;
  size_t index() const { return index_; }

 private:
  size_t index_;
};

}  // namespace freshet
