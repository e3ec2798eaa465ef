#include "planner/subquery.h"

#include "common/error.h"

namespace freshet {

Vector SubqueryExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  if (!ctx.subquery_runner) throw SqlError(sqlstate::kFeatureNotSupported, "subqueries are not supported here");
  return ctx.subquery_runner->Evaluate(*this, input, ctx);
}

ExprPtr SubqueryExpr::Clone() const {
  auto e = std::make_unique<SubqueryExpr>(subquery_kind, plan, type_, correlated);
  e->compares = compares;
  e->row_any_column = row_any_column;
  e->outer_columns = outer_columns;
  for (const auto& c : children_) e->children().push_back(c->Clone());
  return e;
}

std::string SubqueryExpr::ToString() const {
  switch (subquery_kind) {
    case SubqueryKind::kScalar: return "(subquery)";
    case SubqueryKind::kExists: return "EXISTS(subquery)";
    case SubqueryKind::kAny: return children_[0]->ToString() + " = ANY(subquery)";
    case SubqueryKind::kAll: return children_[0]->ToString() + " op ALL(subquery)";
    case SubqueryKind::kArray: return "ARRAY(subquery)";
  }
  return "(subquery)";
}

Vector OuterRefExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t depth = ctx.outer_rows.size();
  if (levels_up > static_cast<int>(depth)) throw SqlError(sqlstate::kInternalError, "outer reference without outer row");
  const std::vector<Value>& row = *ctx.outer_rows[depth - levels_up];
  return Vector::Constant(row[index], input.num_rows());
}

}  // namespace freshet
