// Bound scalar expressions, evaluated a chunk at a time.
//
// An Expression is produced by the binder with every name resolved and every
// type known; Eval() computes one value per row of the input chunk. The
// tree is immutable after binding and may be evaluated by several threads
// at once (all per-evaluation state lives in the EvalContext).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/data_chunk.h"
#include "expr/eval_context.h"
#include "expr/function_registry.h"

namespace freshet {

class Expression;
using ExprPtr = std::unique_ptr<Expression>;

class Expression {
 public:
  enum class Kind {
    kColumnRef, kConstant, kParameter, kFunction, kCast, kAnd, kOr, kNot, kIsNull, kIsNotNull,
    kIsTrue, kIsFalse, kCase, kCoalesce, kGreatest, kLeast, kInList, kSubquery, kNullIf, kAggregate, kSetFunction,
    kArray,  // ARRAY[...], x op ANY/ALL (array), subscripts (expr/array.h)
    kStruct,  // ROW(...), field selection (expr/struct.h)
    kWindow,  // a window function call, before the binder replaces it by a column
    kDomainCheck,  // a value cast to a domain, checked against its constraints (expr/domain_check.h)
    kGrouping  // grouping(...), before the binder replaces it by the grouping sets' bits
  };

  Expression(Kind kind, DataType type) : kind_(kind), type_(type) {}
  virtual ~Expression() = default;

  Kind kind() const { return kind_; }
  const DataType& type() const { return type_; }
  void set_type(const DataType& t) { type_ = t; }

  // One value per row of input (input.num_rows() values).
  virtual Vector Eval(const DataChunk& input, EvalContext& ctx) const = 0;
  virtual ExprPtr Clone() const = 0;
  // Text for EXPLAIN and for matching GROUP BY expressions.
  virtual std::string ToString() const = 0;

  std::vector<ExprPtr>& children() { return children_; }
  const std::vector<ExprPtr>& children() const { return children_; }

  // Evaluates an expression without input columns (constants, parameters).
  Value EvalConstant(EvalContext& ctx) const;
  bool IsConstant() const;  // no column refs, parameters or subqueries
  // Known when the statement runs: constants and parameters ($n) only (no
  // column refs, subqueries, aggregates or window functions).
  bool IsKnownAtExecution() const;

 protected:
  std::vector<ExprPtr> CloneChildren() const;
  Kind kind_;
  DataType type_;
  std::vector<ExprPtr> children_;
};

class ColumnRefExpr : public Expression {
 public:
  ColumnRefExpr(int index, DataType type, std::string name = "")
      : Expression(Kind::kColumnRef, type), index_(index), name_(std::move(name)) {}
  int index() const { return index_; }
  void set_index(int i) { index_ = i; }
  const std::string& name() const { return name_; }
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<ColumnRefExpr>(index_, type_, name_); }
  std::string ToString() const override;

 private:
  int index_;
  std::string name_;
};

class ConstantExpr : public Expression {
 public:
  explicit ConstantExpr(Value v) : Expression(Kind::kConstant, v.type()), value_(std::move(v)) {}
  const Value& value() const { return value_; }
  // The value repeated once per input row. For a full chunk of a value of
  // at most 15 bytes the vector is kept and handed out again (a copy
  // shares its arrays until modified); safe on several threads at once.
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<ConstantExpr>(value_); }
  std::string ToString() const override;

 private:
  Value value_;
  mutable std::atomic<std::shared_ptr<const Vector>> repeated_;
};

// $n of the extended protocol; its value comes from EvalContext::params.
class ParameterExpr : public Expression {
 public:
  ParameterExpr(int index, DataType type) : Expression(Kind::kParameter, type), index_(index) {}
  int index() const { return index_; }
  // Its value in this execution, of its type.
  Value ValueIn(EvalContext& ctx) const;
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<ParameterExpr>(index_, type_); }
  std::string ToString() const override { return "$" + std::to_string(index_ + 1); }

 private:
  int index_;
};

class FunctionExpr : public Expression {
 public:
  FunctionExpr(const ScalarFunction* fn, std::vector<ExprPtr> args);
  const ScalarFunction* function() const { return fn_; }
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  // Keeps type_, which the binder sets for polymorphic (anyarray) functions.
  ExprPtr Clone() const override;
  std::string ToString() const override;

 private:
  const ScalarFunction* fn_;
};

class CastExpr : public Expression {
 public:
  CastExpr(ExprPtr child, DataType to, bool assignment = false);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<CastExpr>(children_[0]->Clone(), type_, assignment_); }
  std::string ToString() const override;
  bool assignment() const { return assignment_; }

 private:
  bool assignment_;
};

// AND, OR (three-valued), NOT, IS [NOT] NULL, IS TRUE/FALSE, COALESCE,
// GREATEST, LEAST, NULLIF: fixed-shape operators over their children.
class OperatorExpr : public Expression {
 public:
  OperatorExpr(Kind kind, DataType type, std::vector<ExprPtr> children);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override;
  std::string ToString() const override;
  // For GREATEST/LEAST/NULLIF: the comparison function of the common type.
  void set_compare(const ScalarFunction* f) { compare_ = f; }
  const ScalarFunction* compare() const { return compare_; }

 private:
  const ScalarFunction* compare_ = nullptr;
};

// CASE WHEN c1 THEN r1 ... ELSE e END (children: c1, r1, c2, r2, ..., [else]).
class CaseExpr : public Expression {
 public:
  CaseExpr(DataType type, std::vector<ExprPtr> children, bool has_else);
  bool has_else() const { return has_else_; }
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<CaseExpr>(type_, CloneChildren(), has_else_); }
  std::string ToString() const override;

 private:
  bool has_else_;
};

// x [NOT] IN (constants...), with SQL's NULL semantics, via a hash set.
class InListExpr : public Expression {
 public:
  InListExpr(ExprPtr child, std::vector<Value> list, bool negated);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override;
  std::string ToString() const override;
  const std::vector<Value>& list() const { return list_; }
  bool negated() const { return negated_; }

 private:
  std::vector<Value> list_;
  std::unordered_set<std::string> keys_;  // memcomparable encodings
  bool has_null_ = false;
  bool negated_;
};

// generate_series(...) / unnest(...) in a select list: produces several rows
// per input row, so it is evaluated by the ProjectSet executor, never by Eval.
class SetFunctionExpr : public Expression {
 public:
  SetFunctionExpr(std::string name, DataType type, std::vector<ExprPtr> args) : Expression(Kind::kSetFunction, type), name_(std::move(name)) {
    children_ = std::move(args);
  }
  const std::string& name() const { return name_; }
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<SetFunctionExpr>(name_, type_, CloneChildren()); }
  std::string ToString() const override;

 private:
  std::string name_;
};

// Evaluates a bool vector as a filter mask: 1 where true (not NULL, not false).
std::vector<uint8_t> ToMask(const Vector& v);

}  // namespace freshet
