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
  int64_t window = limit_ < 0 ? -1 : offset_ + limit_;
  cache_ = std::make_unique<TopNCache>(table_->KeyIn(0), TopNCacheCapacity(window));
  cache_->Load(*table_);
  emitted_ = Window();  // what was emitted before a restart
}

std::map<std::string, std::string> TopNOperator::Window() const {
  std::map<std::string, std::string> window;
  int64_t rank = 0;
  for (const auto& [k, row] : cache_->rows()) {
    if (limit_ >= 0 && rank >= offset_ + limit_) break;
    if (rank++ >= offset_) window.emplace_hint(window.end(), k, row);
  }
  return window;
}

void TopNOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  const std::string prefix = table_->KeyIn(0);
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string key = RankKey(data, r);
    if (IsInsertOp(chunk.ops()[r])) {
      std::string row;
      EncodeRow(data, r, &row);
      table_->Put(prefix + key, row);
      cache_->Insert(std::move(key), std::move(row), epoch_);
      const auto& rows = cache_->rows();
      if (append_only_input_ && limit_ >= 0 && rows.size() > static_cast<size_t>(offset_ + limit_)) {
        std::string last = std::prev(rows.end())->first;
        table_->Delete(prefix + last);
        cache_->Erase(last, epoch_);
      }
    } else {
      table_->Delete(prefix + key);
      cache_->Erase(key, epoch_);
    }
  }
  dirty_ = true;
}

void TopNOperator::OnBarrier(const Barrier& barrier) {
  if (epoch_ == 0) cache_->StampUnknown(barrier.prev_epoch);
  epoch_ = barrier.curr_epoch;
  cache_->Prune(ctx_->services->committed_epoch());
  if (!dirty_) return;
  dirty_ = false;
  if (limit_ >= 0) cache_->Ensure(static_cast<size_t>(offset_ + limit_), *table_);
  std::map<std::string, std::string> window = Window();
  std::vector<Op> ops;
  DataChunk out(types_);
  auto append = [&](Op op, const std::string& row) {
    std::string_view cells = row;
    if (!DecodeCellsInto(&cells, &out, 0, types_.size()))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt top-n state");
    out.set_cardinality(out.num_rows());
    ops.push_back(op);
  };
  // A row that stays in the window may still have changed in columns
  // outside the sort and stream keys: it is replaced too.
  for (const auto& [k, row] : emitted_) {
    auto it = window.find(k);
    if (it == window.end() || it->second != row) append(Op::kDelete, row);
  }
  for (const auto& [k, row] : window) {
    auto it = emitted_.find(k);
    if (it == emitted_.end() || it->second != row) append(Op::kInsert, row);
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
