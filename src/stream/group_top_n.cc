#include "stream/group_top_n.h"

#include <algorithm>

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

namespace {
// Rough heap cost of a partition and of one row in it (map and hash
// nodes, string headers), on top of the bytes of keys and rows.
constexpr size_t kPartitionOverhead = 192;
constexpr size_t kRowOverhead = 96;

size_t RowBytes(const std::string& rank_key, const std::string& row) {
  return kRowOverhead + rank_key.size() + row.size();
}
}  // namespace

GroupTopNOperator::GroupTopNOperator(std::vector<int> partition, std::vector<StreamOrderKey> order,
                                     std::vector<int> stream_key, int64_t limit, std::vector<DataType> input_types,
                                     StateTableDesc table, bool append_only_input, bool with_ties, int window_column)
    : partition_(std::move(partition)), order_(std::move(order)), stream_key_(std::move(stream_key)), limit_(limit),
      append_only_input_(append_only_input && !with_ties), with_ties_(with_ties), input_types_(std::move(input_types)),
      desc_(std::move(table)), window_column_(window_column) {
  output_types_ = input_types_;
  output_types_.push_back(DataType::Int64());
}

void GroupTopNOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  share_.set_job(ctx->memory);
  table_ = ctx->NewStateTable(desc_);
  if (window_column_ >= 0) LoadOpenWindows();
}

void GroupTopNOperator::LoadOpenWindows() {
  for (int v = ctx_->vnodes.first; v < ctx_->vnodes.second; v++) {
    for (auto i = table_->ScanCommittedPrefix(table_->KeyIn(uint16_t(v))); i.Valid(); i.Next()) {
      std::string_view cells = i.value();
      DataChunk row(input_types_);
      if (!DecodeCellsInto(&cells, &row, 0, input_types_.size()))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt group top-n state");
      std::string pkey;
      for (int c : partition_) EncodeKeyFromVector(row.column(c), 0, &pkey);
      if (partitions_.count(pkey)) continue;
      PartitionOf(pkey, uint16_t(v)).window = row.column(window_column_).GetValue(0);
    }
  }
}

void GroupTopNOperator::OnWatermarks(int, const std::vector<Watermark>& watermarks) {
  std::vector<Watermark> out;
  for (const Watermark& w : watermarks) {
    if (std::find(partition_.begin(), partition_.end(), w.column) == partition_.end()) continue;
    out.push_back(w);
    if (w.column == window_column_) pending_watermark_ = w.value;
  }
  EmitWatermarks(out);
}

void GroupTopNOperator::CloseWindows(const Barrier& barrier) {
  for (const auto& pkey : dirty_) {
    auto it = partitions_.find(pkey);
    if (it == partitions_.end()) continue;
    it->second.dirty = false;
    it->second.written = barrier.prev_epoch;
  }
  dirty_.clear();
  if (pending_watermark_.is_null()) return;
  std::vector<std::string> closed;
  for (const auto& [pkey, p] : partitions_)
    if (!p.window.is_null() && Value::Compare(p.window, pending_watermark_) < 0) closed.push_back(pkey);
  pending_watermark_ = Value();
  std::sort(closed.begin(), closed.end());  // output in key order, not the hash table's
  DataChunk out(output_types_);
  for (const auto& pkey : closed) {
    auto it = partitions_.find(pkey);
    Partition& p = it->second;
    std::vector<int64_t> ranks;
    RankedRows window = Window(p, &ranks);
    for (size_t i = 0; i < window.size(); i++) AppendOutput(window[i], ranks[i], &out);
    // An append-only input's partition holds its top rows only, all cached.
    for (const auto& [rank_key, row] : p.rows->rows()) table_->Delete(table_->KeyIn(p.vnode, pkey + rank_key));
    bytes_ -= p.bytes;
    lru_.Remove(p.lru);
    partitions_.erase(it);
    if (out.num_rows() >= kChunkSize) {
      Emit(StreamChunk(std::vector<Op>(out.num_rows(), Op::kInsert), std::move(out)));
      out = DataChunk(output_types_);
    }
  }
  if (out.num_rows()) Emit(StreamChunk(std::vector<Op>(out.num_rows(), Op::kInsert), std::move(out)));
  share_.Publish(bytes_);
  share_.Settle(bytes_);
}

void GroupTopNOperator::Account(const std::string& key, Partition& p) {
  size_t bytes = kPartitionOverhead + 2 * key.size() + p.rows->bytes() + p.emitted_bytes;
  bytes_ = bytes_ - p.bytes + bytes;
  p.bytes = bytes;
}

std::string GroupTopNOperator::OrderKeyOf(const std::string& row) const {
  DataChunk decoded(input_types_);
  std::string_view cells = row;
  if (!DecodeCellsInto(&cells, &decoded, 0, input_types_.size()))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt group top-n state");
  decoded.set_cardinality(1);
  std::string key;
  for (const auto& k : order_) EncodeOrderKeyFromVector(decoded.column(k.column), 0, k.descending, k.nulls_first, &key);
  return key;
}

GroupTopNOperator::RankedRows GroupTopNOperator::Window(Partition& p, std::vector<int64_t>* ranks) {
  RankedRows window;
  ranks->clear();
  const auto& rows = p.rows->rows();
  if (!with_ties_) {
    for (const auto& kv : rows) {
      if (limit_ >= 0 && static_cast<int64_t>(window.size()) >= limit_) break;
      window.push_back(kv);
      ranks->push_back(static_cast<int64_t>(window.size()));
    }
    return window;
  }
  std::string last_order;
  for (auto it = rows.begin();; ++it) {
    if (it == rows.end()) {
      // Ties may go on past the cached rows: read more of them.
      if (p.rows->complete() || window.empty()) break;
      const std::string last_key = window.back().first;
      p.rows->Grow(2 * rows.size());
      p.rows->Ensure(2 * rows.size(), *table_);
      it = rows.upper_bound(last_key);
      if (it == rows.end()) break;
    }
    std::string order = OrderKeyOf(it->second);
    const auto n = static_cast<int64_t>(window.size());
    const bool tie = n > 0 && order == last_order;
    if (limit_ >= 0 && n >= limit_ && !tie) break;
    window.push_back(*it);
    ranks->push_back(tie ? ranks->back() : n + 1);
    last_order = std::move(order);
  }
  return window;
}

GroupTopNOperator::Partition& GroupTopNOperator::PartitionOf(const std::string& key, uint16_t vnode) {
  auto [it, inserted] = partitions_.try_emplace(key);
  Partition& p = it->second;
  if (!inserted) return p;
  p.vnode = vnode;
  p.lru = lru_.Add(&it->first);
  // Loaded from the committed store: a partition is only ever dropped
  // once everything written for it is committed.
  p.rows = std::make_unique<TopNCache>(table_->KeyIn(vnode, key), TopNCacheCapacity(limit_));
  p.rows->Load(*table_);
  // What it emitted before: its first `limit` rows, ranked.
  p.emitted = Window(p, &p.emitted_ranks);
  for (const auto& [k, row] : p.emitted) p.emitted_bytes += RowBytes(k, row);
  Account(it->first, p);
  return p;
}

void GroupTopNOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string pkey;
    for (int c : partition_) EncodeKeyFromVector(data.column(c), r, &pkey);
    uint16_t vnode = partition_.empty() ? 0 : ComputeVnode(data, r, partition_);
    Partition& p = PartitionOf(pkey, vnode);
    if (window_column_ >= 0) p.window = data.column(window_column_).GetValue(r);
    std::string rank_key;
    for (const auto& k : order_) EncodeOrderKeyFromVector(data.column(k.column), r, k.descending, k.nulls_first, &rank_key);
    for (int c : stream_key_) EncodeKeyFromVector(data.column(c), r, &rank_key);
    std::string storage_key = table_->KeyIn(p.vnode, pkey + rank_key);
    if (IsInsertOp(chunk.ops()[r])) {
      std::string row;
      EncodeRow(data, r, &row);
      table_->Put(storage_key, row);
      p.rows->Insert(std::move(rank_key), std::move(row), epoch_);
      const auto& rows = p.rows->rows();
      if (append_only_input_ && limit_ >= 0 && rows.size() > static_cast<size_t>(limit_)) {
        std::string last = std::prev(rows.end())->first;
        table_->Delete(table_->KeyIn(p.vnode, pkey + last));
        p.rows->Erase(last, epoch_);
      }
    } else {
      table_->Delete(storage_key);
      p.rows->Erase(rank_key, epoch_);
    }
    if (!p.dirty) {
      p.dirty = true;
      dirty_.push_back(pkey);
    }
    Account(pkey, p);
  }
}

void GroupTopNOperator::AppendOutput(const std::pair<std::string, std::string>& row, int64_t rank,
                                     DataChunk* out) const {
  std::string_view cells = row.second;
  if (!DecodeCellsInto(&cells, out, 0, input_types_.size()))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt group top-n state");
  out->column(input_types_.size()).AppendInt(rank);
  out->set_cardinality(out->num_rows());
}

void GroupTopNOperator::OnBarrier(const Barrier& barrier) {
  if (epoch_ == 0)
    for (auto& [key, p] : partitions_) p.rows->StampUnknown(barrier.prev_epoch);
  epoch_ = barrier.curr_epoch;
  if (window_column_ >= 0) return CloseWindows(barrier);
  const Epoch committed = ctx_->services->committed_epoch();
  std::vector<Op> ops;
  DataChunk out(output_types_);
  auto flush = [&] {
    if (ops.empty()) return;
    Emit(StreamChunk(std::move(ops), std::move(out)));
    ops.clear();
    out = DataChunk(output_types_);
  };
  for (const auto& pkey : dirty_) {
    auto pit = partitions_.find(pkey);
    Partition& p = pit->second;
    p.dirty = false;
    p.written = barrier.prev_epoch;
    lru_.Touch(p.lru);
    p.rows->Prune(committed);
    if (limit_ >= 0) p.rows->Ensure(static_cast<size_t>(limit_), *table_);
    std::vector<int64_t> ranks;
    RankedRows window = Window(p, &ranks);
    // Position i is unchanged when the same row (same rank key, same
    // values) holds it before and after, with the same rank; else the old
    // row is retracted and the new one inserted. All retractions go first:
    // a row that moves from rank 2 to rank 1 is one key downstream,
    // inserted anew only after its old version is deleted.
    auto same = [&](size_t i) {
      return i < window.size() && i < p.emitted.size() && window[i] == p.emitted[i] && ranks[i] == p.emitted_ranks[i];
    };
    for (size_t i = 0; i < p.emitted.size(); i++) {
      if (same(i)) continue;
      ops.push_back(Op::kDelete);
      AppendOutput(p.emitted[i], p.emitted_ranks[i], &out);
    }
    for (size_t i = 0; i < window.size(); i++) {
      if (same(i)) continue;
      ops.push_back(Op::kInsert);
      AppendOutput(window[i], ranks[i], &out);
    }
    p.emitted_ranks = std::move(ranks);
    p.emitted_bytes = 0;
    for (const auto& [k, row] : window) p.emitted_bytes += RowBytes(k, row);
    p.emitted = std::move(window);
    Account(pkey, p);
    if (p.rows->rows().empty() && p.rows->complete()) emptied_.push_back(pkey);
    if (ops.size() >= kChunkSize) flush();
  }
  dirty_.clear();
  flush();
  ForgetEmptied(committed);
  Evict();
}

void GroupTopNOperator::ForgetEmptied(Epoch committed) {
  // An empty partition is forgotten once its deletes are committed: loaded
  // again before that, it would find its old rows in the store.
  std::vector<std::string> later;
  for (auto& pkey : emptied_) {
    auto it = partitions_.find(pkey);
    if (it == partitions_.end()) continue;
    Partition& p = it->second;
    if (p.dirty || !p.rows->rows().empty() || !p.rows->complete()) continue;  // in use again
    if (p.written > committed) {
      later.push_back(std::move(pkey));
      continue;
    }
    bytes_ -= p.bytes;
    lru_.Remove(p.lru);
    partitions_.erase(it);
  }
  emptied_ = std::move(later);
}

void GroupTopNOperator::Evict() {
  const size_t target = share_.Publish(bytes_);
  if (bytes_ <= target) return share_.Settle(bytes_);
  const Epoch committed = ctx_->services->committed_epoch();
  while (bytes_ > target && !lru_.empty()) {
    auto it = partitions_.find(lru_.oldest());
    Partition& p = it->second;
    if (p.dirty || p.written > committed) break;  // newer ones are not committed either
    bytes_ -= p.bytes;
    lru_.Remove(p.lru);
    partitions_.erase(it);
  }
  share_.Settle(bytes_);
}

}  // namespace freshet
