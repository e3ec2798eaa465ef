#include "stream/dynamic_filter.h"

#include "common/encoding.h"
#include "common/error.h"
#include "stream/eval.h"

namespace freshet {

DynamicFilterOperator::DynamicFilterOperator(int value_column, ExprPtr compare, std::vector<int> stream_key,
                                             std::vector<DataType> types, DataType threshold_type,
                                             StateTableDesc left_table, StateTableDesc right_table, EvalContext eval)
    : value_column_(value_column), compare_(std::move(compare)), stream_key_(std::move(stream_key)),
      types_(std::move(types)), threshold_type_(threshold_type), left_desc_(std::move(left_table)),
      right_desc_(std::move(right_table)), eval_(std::move(eval)) {}

void DynamicFilterOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  left_ = ctx->NewStateTable(left_desc_);
  right_ = ctx->NewStateTable(right_desc_);
  const std::string prefix = left_->KeyIn(0);
  for (auto i = left_->ScanCommittedPrefix(prefix); i.Valid(); i.Next())
    rows_.emplace_hint(rows_.end(), std::string(i.key().substr(prefix.size())), std::string(i.value()));
  std::string stored;
  if (right_->GetCommitted(right_->KeyIn(0), &stored).ok()) {
    DataChunk one({threshold_type_});
    std::string_view bytes = stored;
    if (!DecodeCellsInto(&bytes, &one, 0, 1)) throw SqlError(sqlstate::kDataCorrupted, "corrupt dynamic filter state");
    threshold_ = one.column(0).GetValue(0);
  }
}

std::string DynamicFilterOperator::RowKey(const DataChunk& data, size_t row) const {
  std::string key;
  EncodeKeyFromVector(data.column(value_column_), row, &key);
  for (int c : stream_key_) EncodeKeyFromVector(data.column(c), row, &key);
  return key;
}

std::vector<uint8_t> DynamicFilterOperator::Passes(const Vector& values, const std::optional<Value>& threshold) {
  const size_t n = values.size();
  if (!threshold || threshold->is_null()) return std::vector<uint8_t>(n, 0);
  DataChunk pair({values.type(), threshold_type_});
  pair.column(0) = values;
  pair.column(1) = Vector::Constant(*threshold, n);
  pair.set_cardinality(n);
  return ToMask(EvalRowTolerant(*compare_, pair, eval_));
}

void DynamicFilterOperator::OnChunk(int input, StreamChunk chunk) {
  if (input == 0) OnLeft(std::move(chunk));
  else OnThreshold(chunk);
}

void DynamicFilterOperator::OnLeft(StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  const std::string prefix = left_->KeyIn(0);
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string key = RowKey(data, r);
    if (IsInsertOp(chunk.ops()[r])) {
      std::string row;
      EncodeRow(data, r, &row);
      left_->Put(prefix + key, row);
      rows_[std::move(key)] = std::move(row);
    } else {
      left_->Delete(prefix + key);
      rows_.erase(key);
    }
  }
  // Pass on the rows (inserts and deletes alike) on the threshold's side.
  std::vector<uint8_t> keep = Passes(data.column(value_column_), threshold_);
  auto& ops = chunk.ops();
  std::vector<Op> out_ops;
  for (size_t r = 0; r < ops.size(); r++) {
    if (!keep[r]) continue;
    // An update pair split by the filter is not a pair any more.
    Op op = ops[r];
    if (op == Op::kUpdateDelete && !(r + 1 < ops.size() && keep[r + 1])) op = Op::kDelete;
    if (op == Op::kUpdateInsert && !(r > 0 && keep[r - 1])) op = Op::kInsert;
    out_ops.push_back(op);
  }
  if (out_ops.empty()) return;
  chunk.data().Filter(keep);
  Emit(StreamChunk(std::move(out_ops), std::move(chunk.data())));
}

void DynamicFilterOperator::OnThreshold(const StreamChunk& chunk) {
  std::optional<Value> next = threshold_;
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    if (IsInsertOp(chunk.ops()[r])) next = chunk.data().column(0).GetValue(r);
    else next.reset();
  }
  const std::optional<Value> before = threshold_;
  threshold_ = next;
  if (next) {
    std::string cells;
    EncodeRowValues({*next}, &cells);
    right_->Put(right_->KeyIn(0), cells);
  } else {
    right_->Delete(right_->KeyIn(0));
  }
  // The rows that may change sides: those with a value between the two
  // thresholds, or all when either is NULL or absent.
  auto absent = [](const std::optional<Value>& v) { return !v || v->is_null(); };
  auto first = rows_.begin(), last = rows_.end();
  if (!absent(before) && !absent(next)) {
    std::string a, b;
    EncodeKeyValue(*before, &a);
    EncodeKeyValue(*next, &b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    first = rows_.lower_bound(a);
    // Keys start with the value's (self-delimiting) encoding: those with b's
    // are the last to read.
    for (last = first; last != rows_.end() && last->first.compare(0, b.size(), b) <= 0; ++last) {
    }
  } else if (absent(before) && absent(next)) {
    return;
  }
  DataChunk rows(types_);
  for (auto it = first; it != last; ++it) {
    std::string_view cells = it->second;
    if (!DecodeCellsInto(&cells, &rows, 0, types_.size())) throw SqlError(sqlstate::kDataCorrupted, "corrupt dynamic filter state");
    rows.set_cardinality(rows.num_rows());
    if (rows.num_rows() >= kChunkSize || std::next(it) == last) {
      std::vector<uint8_t> was = Passes(rows.column(value_column_), before);
      std::vector<uint8_t> is = Passes(rows.column(value_column_), next);
      std::vector<Op> ops;
      std::vector<uint8_t> keep(rows.num_rows(), 0);
      for (size_t r = 0; r < rows.num_rows(); r++) {
        if (was[r] == is[r]) continue;
        keep[r] = 1;
        ops.push_back(is[r] ? Op::kInsert : Op::kDelete);
      }
      if (!ops.empty()) {
        rows.Filter(keep);
        Emit(StreamChunk(std::move(ops), std::move(rows)));
      }
      rows = DataChunk(types_);
    }
  }
}

}  // namespace freshet
