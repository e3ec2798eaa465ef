#include "batch/subquery_runner.h"

#include "batch/executor_builder.h"
#include "common/array.h"
#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

DataChunk BatchSubqueryRunner::Run(const SubqueryExpr& expr, size_t max_rows) {
  ExecutorPtr exec = BuildExecutor(*expr.plan, *ctx_);
  DataChunk all(expr.plan->types());
  DataChunk chunk;
  size_t rows = 0;
  while (rows < max_rows && exec->Next(&chunk)) {
    for (size_t c = 0; c < all.num_columns(); c++) all.column(c).AppendRange(chunk.column(c), 0, chunk.num_rows());
    rows += chunk.num_rows();
  }
  all.set_cardinality(rows);
  return all;
}

Vector BatchSubqueryRunner::Evaluate(const SubqueryExpr& expr, const DataChunk& input, EvalContext& eval) {
  size_t n = input.num_rows();
  Vector left;
  if (!expr.children().empty()) left = expr.children()[0]->Eval(input, eval);
  size_t max_rows = expr.subquery_kind == SubqueryKind::kExists ? 1
                    : expr.subquery_kind == SubqueryKind::kScalar ? 2
                                                                  : SIZE_MAX;
  auto& cache = cache_[&expr];
  Vector out(expr.type());
  out.Reserve(n);
  std::string key;
  for (size_t r = 0; r < n; r++) {
    key.clear();
    std::vector<Value> outer;
    if (expr.correlated) {
      // The result may depend on every enclosing row, not just this one.
      for (const auto* enclosing : ctx_->eval.outer_rows)
        for (const auto& v : *enclosing) EncodeKeyValue(v, &key);
      outer = input.GetRow(r);
      for (const auto& v : outer) EncodeKeyValue(v, &key);
    }
    auto it = cache.find(key);
    if (it == cache.end()) {
      if (expr.correlated) ctx_->eval.outer_rows.push_back(&outer);
      try {
        it = cache.emplace(key, Run(expr, max_rows)).first;
      } catch (...) {
        if (expr.correlated) ctx_->eval.outer_rows.pop_back();
        throw;
      }
      if (expr.correlated) ctx_->eval.outer_rows.pop_back();
    }
    const DataChunk& rows = it->second;
    switch (expr.subquery_kind) {
      case SubqueryKind::kExists: out.AppendBool(rows.num_rows() > 0); break;
      case SubqueryKind::kArray: out.AppendString(EncodeArray(rows.column(0))); break;
      case SubqueryKind::kScalar:
        if (rows.num_rows() > 1)
          throw SqlError(sqlstate::kCardinalityViolation, "more than one row returned by a subquery used as an expression");
        if (rows.num_rows() == 0) out.AppendNull();
        else out.AppendFrom(rows.column(0), 0);
        break;
      case SubqueryKind::kAny:
      case SubqueryKind::kAll: {
        // x op ANY: true if any comparison is true, else NULL if any is
        // NULL, else false. ALL: the dual.
        bool any = expr.subquery_kind == SubqueryKind::kAny;
        if (rows.num_rows() == 0) {
          out.AppendBool(!any);
          break;
        }
        if (left.IsNull(r)) {
          out.AppendNull();
          break;
        }
        Vector l = Vector::Constant(left.GetValue(r), rows.num_rows());
        Vector result(DataType::Boolean());
        std::vector<const Vector*> args = {&l, &rows.column(0)};
        expr.compare->fn(args, rows.num_rows(), &result, eval);
        bool decided = false, saw_null = false;
        for (size_t i = 0; i < result.size(); i++) {
          if (result.IsNull(i)) saw_null = true;
          else if (result.GetBool(i) == any) decided = true;
        }
        if (decided) out.AppendBool(any);
        else if (saw_null) out.AppendNull();
        else out.AppendBool(!any);
        break;
      }
    }
  }
  return out;
}

}  // namespace freshet
