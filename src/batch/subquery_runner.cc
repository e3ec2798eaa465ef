#include "batch/subquery_runner.h"

#include "batch/executor_builder.h"
#include "common/array.h"
#include "common/encoding.h"
#include "common/error.h"
#include "common/limits.h"

namespace freshet {

DataChunk BatchSubqueryRunner::Run(const SubqueryExpr& expr, size_t max_rows) {
  ExecutorPtr exec = BuildExecutor(*expr.plan, *ctx_);
  DataChunk all(expr.plan->types());
  DataChunk chunk;
  size_t rows = 0;
  while (rows < max_rows && exec->Next(&chunk)) {
    for (size_t c = 0; c < all.num_columns(); c++) all.column(c).AppendRange(chunk.column(c), 0, chunk.num_rows());
    rows += chunk.num_rows();
    // ARRAY(subquery) is one value: no more rows than an array may have.
    if (expr.subquery_kind == SubqueryKind::kArray) CheckArrayElements(rows);
  }
  all.set_cardinality(rows);
  return all;
}

bool BatchSubqueryRunner::CanHash(const SubqueryExpr& expr) {
  if (expr.correlated || expr.compares.size() != 1) return false;
  const std::string& op = expr.compares[0]->name;
  if (!(expr.subquery_kind == SubqueryKind::kAny && op == "=") && !(expr.subquery_kind == SubqueryKind::kAll && op == "<>"))
    return false;
  const DataType& left = expr.children()[0]->type();
  if (!(left == expr.plan->schema()[0].type)) return false;
  // Equal values have equal keys (NaN, -0, numeric scales and intervals
  // are normalized), as the hash join relies on too; arrays and structs
  // keep the row-by-row comparison.
  return !left.IsArray() && left.id != TypeId::kStruct;
}

const BatchSubqueryRunner::HashedRows& BatchSubqueryRunner::Hashed(const SubqueryExpr& expr) {
  auto [it, inserted] = hashed_.try_emplace(&expr);
  if (!inserted) return it->second;
  HashedRows& h = it->second;
  DataChunk rows = Run(expr, SIZE_MAX);
  const Vector& col = rows.column(0);
  h.rows = rows.num_rows();
  std::string key;
  for (size_t i = 0; i < h.rows; i++) {
    if (col.IsNull(i)) {
      h.has_null = true;
      continue;
    }
    key.clear();
    EncodeKeyFromVector(col, i, &key);
    h.keys.insert(key);
  }
  return h;
}

Vector BatchSubqueryRunner::Evaluate(const SubqueryExpr& expr, const DataChunk& input, EvalContext& eval) {
  size_t n = input.num_rows();
  if (CanHash(expr)) {
    // IN: true when found, else NULL if the subquery had a NULL, else
    // false. NOT IN (<> ALL): the negation. A NULL x gives NULL, and an
    // empty subquery false for IN, true for NOT IN, whatever x is.
    bool any = expr.subquery_kind == SubqueryKind::kAny;
    const HashedRows& h = Hashed(expr);
    Vector left = expr.children()[0]->Eval(input, eval);
    Vector out(expr.type());
    out.Reserve(n);
    std::string key;
    for (size_t r = 0; r < n; r++) {
      if (h.rows == 0) {
        out.AppendBool(!any);
        continue;
      }
      if (left.IsNull(r)) {
        out.AppendNull();
        continue;
      }
      key.clear();
      EncodeKeyFromVector(left, r, &key);
      if (h.keys.count(key)) out.AppendBool(any);
      else if (h.has_null) out.AppendNull();
      else out.AppendBool(!any);
    }
    return out;
  }
  // Left operands of ANY/ALL: one, or a row compared column by column.
  std::vector<Vector> lefts;
  if (expr.subquery_kind == SubqueryKind::kAny || expr.subquery_kind == SubqueryKind::kAll)
    for (const auto& c : expr.children()) lefts.push_back(c->Eval(input, eval));
  size_t max_rows = expr.subquery_kind == SubqueryKind::kExists ? 1
                    : expr.subquery_kind == SubqueryKind::kScalar ? 2
                                                                  : SIZE_MAX;
  auto& cache = cache_[&expr];
  Vector out(expr.type());
  out.Reserve(n);
  std::string key;
  for (size_t r = 0; r < n; r++) {
    ctx_->CheckCancelled();  // each row may run a query or scan all the subquery's rows
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
        // Per subquery row: the row comparison (AND of the column
        // comparisons for =, OR for <>), three-valued.
        size_t m = rows.num_rows();
        std::vector<int8_t> row_result(m, expr.row_any_column ? 0 : 1);  // 1 true, 0 false, -1 NULL
        for (size_t c = 0; c < lefts.size(); c++) {
          Vector l = Vector::Constant(lefts[c].GetValue(r), m);
          Vector cmp(DataType::Boolean());
          std::vector<const Vector*> args = {&l, &rows.column(c)};
          expr.compares[c]->fn(args, m, &cmp, eval);
          for (size_t i = 0; i < m; i++) {
            int8_t v = cmp.IsNull(i) ? -1 : (cmp.GetBool(i) ? 1 : 0);
            int8_t& acc = row_result[i];
            if (expr.row_any_column) acc = (acc == 1 || v == 1) ? 1 : (acc == -1 || v == -1) ? -1 : 0;
            else acc = (acc == 0 || v == 0) ? 0 : (acc == -1 || v == -1) ? -1 : 1;
          }
        }
        Vector result(DataType::Boolean());
        for (int8_t v : row_result) {
          if (v < 0) result.AppendNull();
          else result.AppendBool(v == 1);
        }
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
