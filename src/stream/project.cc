#include "stream/project.h"

#include "common/error.h"
#include "expr/monotonic.h"
#include "stream/eval.h"

namespace freshet {

void ProjectOperator::OnChunk(int, StreamChunk chunk) {
  DataChunk out;
  for (const auto& e : exprs_) {
    if (e->kind() == Expression::Kind::kColumnRef) {
      out.AddColumn(chunk.data().column(static_cast<const ColumnRefExpr&>(*e).index()));
      continue;
    }
    out.AddColumn(EvalRowTolerant(*e, chunk.data(), eval_));
  }
  out.set_cardinality(chunk.num_rows());
  Emit(StreamChunk(std::move(chunk.ops()), std::move(out)));
}

void ProjectOperator::OnWatermarks(int, const std::vector<Watermark>& watermarks) {
  std::vector<Watermark> out;
  for (size_t i = 0; i < exprs_.size(); i++)
    for (const Watermark& w : watermarks)
      if (IsMonotonicIn(*exprs_[i], w.column)) {
        try {
          out.push_back({int(i), EvalAtColumn(*exprs_[i], w.column, w.value, eval_)});
        } catch (const SqlError&) {
          // Out of the expression's range: an idle stream's greatest value
          // maps to the greatest of the result (a monotonic expression of
          // a stream without rows), any other leaves the column without one.
          const Value in = GreatestWatermark(w.value.type()), greatest = GreatestWatermark(exprs_[i]->type());
          if (!in.is_null() && !greatest.is_null() && Value::Compare(in, w.value) == 0) out.push_back({int(i), greatest});
        }
        break;
      }
  EmitWatermarks(out);
}

void FilterOperator::OnChunk(int, StreamChunk chunk) {
  Vector v = EvalRowTolerant(*predicate_, chunk.data(), eval_);
  std::vector<uint8_t> keep = ToMask(v);
  auto& ops = chunk.ops();
  const size_t n = ops.size();
  size_t kept = 0;
  for (size_t r = 0; r < n; r++) {
    kept += keep[r];
    if (ops[r] == Op::kUpdateDelete && r + 1 < n && keep[r] != keep[r + 1]) {
      if (keep[r]) ops[r] = Op::kDelete;
      else ops[r + 1] = Op::kInsert;
    }
  }
  if (kept == n) return Emit(std::move(chunk));
  if (kept == 0) return;
  std::vector<Op> out_ops;
  out_ops.reserve(kept);
  for (size_t r = 0; r < n; r++)
    if (keep[r]) out_ops.push_back(ops[r]);
  chunk.data().Filter(keep);
  Emit(StreamChunk(std::move(out_ops), std::move(chunk.data())));
}

}  // namespace freshet
