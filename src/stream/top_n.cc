#include "stream/top_n.h"

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

TopNOperator::TopNOperator(std::vector<StreamOrderKey> order, std::vector<int> stream_key, int64_t limit,
                           int64_t offset, std::vector<DataType> types, StateTableDesc table, bool append_only_input)
    : order_(std::move(order)), stream_key_(std::move(stream_key)), limit_(limit), offset_(offset),
      append_only_input_(append_only_input), types_(std::move(types)), desc_(std::move(table)) {}

std::string TopNOperator::RankKey(const DataChunk& data, size_t row) const {
  std::string key;
  for (const auto& k : order_) EncodeOrderKeyFromVector(data.column(k.column), row, k.descending, k.nulls_first, &key);
  for (int c : stream_key_) EncodeKeyFromVector(data.column(c), row, &key);
  return key;
}

void TopNOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  table_ = ctx->NewStateTable(desc_);
  // One actor holds the whole input: load it, and the window it emitted.
  StateStore* store = ctx->store;
  std::string prefix = TablePrefix(desc_.table_id);
  auto range = store->NewRange(store->data_cf(), nullptr, prefix, PrefixSuccessor(prefix));
  for (auto& it = range->it; it->Valid(); it->Next()) {
    Row row;
    if (!DecodeRow(std::string_view(it->value().data(), it->value().size()), types_, &row))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt top-n state");
    rows_[std::string(it->key().data() + prefix.size() + 2, it->key().size() - prefix.size() - 2)] = std::move(row);
  }
  int64_t rank = 0;
  for (auto& [k, row] : rows_) {
    if (limit_ >= 0 && rank >= offset_ + limit_) break;
    if (rank++ >= offset_) emitted_[k] = row;
  }
}

void TopNOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string key = RankKey(data, r);
    std::string storage_key = VnodePrefix(desc_.table_id, 0) + key;
    if (IsInsertOp(chunk.ops()[r])) {
      Row row = data.GetRow(r);
      std::string v;
      EncodeRowValues(row, &v);
      table_->Put(std::move(storage_key), std::move(v));
      rows_[key] = std::move(row);
      if (append_only_input_ && limit_ >= 0 && rows_.size() > static_cast<size_t>(offset_ + limit_)) {
        auto last = std::prev(rows_.end());
        table_->Delete(VnodePrefix(desc_.table_id, 0) + last->first);
        rows_.erase(last);
      }
    } else {
      rows_.erase(key);
      table_->Delete(std::move(storage_key));
    }
  }
  dirty_ = true;
}

void TopNOperator::OnBarrier(const Barrier&) {
  if (!dirty_) return;
  dirty_ = false;
  std::map<std::string, Row> window;
  int64_t rank = 0;
  for (auto& [k, row] : rows_) {
    if (limit_ >= 0 && rank >= offset_ + limit_) break;
    if (rank++ >= offset_) window[k] = row;
  }
  std::vector<Op> ops;
  DataChunk out(types_);
  // A row that stays in the window may still have changed in columns
  // outside the sort and stream keys: it is replaced too.
  for (auto& [k, row] : emitted_) {
    auto it = window.find(k);
    if (it != window.end() && RowsIdentical(row, it->second)) continue;
    ops.push_back(Op::kDelete);
    out.AppendRow(row);
  }
  for (auto& [k, row] : window) {
    auto it = emitted_.find(k);
    if (it != emitted_.end() && RowsIdentical(row, it->second)) continue;
    ops.push_back(Op::kInsert);
    out.AppendRow(row);
  }
  emitted_ = std::move(window);
  // Chunks of at most kChunkSize rows.
  size_t n = ops.size();
  for (size_t begin = 0; begin < n; begin += kChunkSize) {
    size_t end = std::min(n, begin + kChunkSize);
    std::vector<uint32_t> sel;
    for (size_t i = begin; i < end; i++) sel.push_back(uint32_t(i));
    Emit(StreamChunk(std::vector<Op>(ops.begin() + begin, ops.begin() + end), begin == 0 && end == n ? std::move(out) : out.Take(sel)));
  }
}

}  // namespace freshet
