// Subqueries inside expressions: scalar `(SELECT ...)`, `EXISTS (...)`,
// `x IN (SELECT ...)`, `x op ANY/ALL (SELECT ...)`, `ARRAY(SELECT ...)`.
//
// A SubqueryExpr holds the subquery's plan. An uncorrelated subquery is run
// once per statement (its result is cached in the runner); a correlated one
// (whose plan contains OuterRefExprs) is run once per distinct outer row.
// Running plans is the batch engine's job, reached through the
// SubqueryRunner interface so that the planner does not depend on it.
#pragma once

#include <memory>

#include "planner/plan.h"

namespace freshet {

class SubqueryExpr;

class SubqueryRunner {
 public:
  virtual ~SubqueryRunner() = default;
  // Evaluates the subquery for each row of input.
  virtual Vector Evaluate(const SubqueryExpr& expr, const DataChunk& input, EvalContext& ctx) = 0;
};

enum class SubqueryKind { kScalar, kExists, kAny, kAll, kArray };

class SubqueryExpr : public Expression {
 public:
  SubqueryExpr(SubqueryKind kind, std::shared_ptr<PlanNode> plan, DataType type, bool correlated)
      : Expression(Kind::kSubquery, type), subquery_kind(kind), plan(std::move(plan)), correlated(correlated) {}
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override;
  std::string ToString() const override;

  SubqueryKind subquery_kind;
  std::shared_ptr<PlanNode> plan;
  bool correlated;
  // kAny/kAll: children() are the left operands (one, or a row); compares[i]
  // compares children()[i] with the subquery's column i. A row matches a
  // subquery row when every column comparison is true (=), or, for <>, when
  // any is (row_any_column).
  std::vector<const ScalarFunction*> compares;
  bool row_any_column = false;
  // Outer columns the plan reads (indices into the input chunk), for the
  // outer row handed to correlated runs.
  std::vector<int> outer_columns;
};

// A column of an enclosing query, read from EvalContext::outer_rows
// (`levels_up` = 1 is the immediately enclosing query).
class OuterRefExpr : public Expression {
 public:
  OuterRefExpr(int levels_up, int index, DataType type, std::string name)
      : Expression(Kind::kColumnRef, type), levels_up(levels_up), index(index), name(std::move(name)) {}
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override { return std::make_unique<OuterRefExpr>(levels_up, index, type_, name); }
  std::string ToString() const override { return "outer." + name; }
  int levels_up;
  int index;
  std::string name;
};

}  // namespace freshet
