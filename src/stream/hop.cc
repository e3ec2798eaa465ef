#include "stream/hop.h"

#include <algorithm>

#include "expr/window.h"

namespace freshet {

void HopOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& in = chunk.data();
  const Vector& ts = in.column(time_column_);
  std::vector<uint32_t> sel;
  std::vector<Op> ops;
  Vector starts(ts.type()), ends(ts.type());
  std::vector<int64_t> windows;
  for (size_t r = 0; r < in.num_rows(); r++) {
    if (ts.IsNull(r)) continue;
    HopWindowStarts(ts.GetInt(r), slide_, size_, &windows);
    Op op = chunk.ops()[r];
    // The windows of an update's old and new rows may differ.
    if (op == Op::kUpdateDelete) op = Op::kDelete;
    if (op == Op::kUpdateInsert) op = Op::kInsert;
    for (int64_t s : windows) {
      sel.push_back(uint32_t(r));
      ops.push_back(op);
      starts.AppendInt(s);
      ends.AppendInt(WindowEnd(s, size_));
    }
  }
  if (sel.empty()) return;
  DataChunk out = in.Take(sel);
  out.AddColumn(std::move(starts));
  out.AddColumn(std::move(ends));
  Emit(StreamChunk(std::move(ops), std::move(out)));
}

void HopOperator::OnWatermarks(int, const std::vector<Watermark>& watermarks) {
  std::vector<Watermark> out = watermarks;
  for (const Watermark& w : watermarks) {
    if (w.column != time_column_) continue;
    std::vector<int64_t> starts;
    HopWindowStarts(w.value.int_value(), slide_, size_, &starts);
    if (starts.empty()) continue;
    const int64_t first = *std::min_element(starts.begin(), starts.end());
    out.push_back({input_width_, Value::FromInt(w.value.type(), first)});
    out.push_back({input_width_ + 1, Value::FromInt(w.value.type(), WindowEnd(first, size_))});
  }
  EmitWatermarks(out);
}

}  // namespace freshet
