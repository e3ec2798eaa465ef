#include "stream/group_top_n.h"

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

GroupTopNOperator::GroupTopNOperator(std::vector<int> partition, std::vector<StreamOrderKey> order,
                                     std::vector<int> stream_key, int64_t limit, std::vector<DataType> input_types,
                                     StateTableDesc table, bool append_only_input)
    : partition_(std::move(partition)), order_(std::move(order)), stream_key_(std::move(stream_key)), limit_(limit),
      append_only_input_(append_only_input), input_types_(std::move(input_types)), desc_(std::move(table)) {
  output_types_ = input_types_;
  output_types_.push_back(DataType::Int64());
}

void GroupTopNOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  table_ = ctx->NewStateTable(desc_);
}

GroupTopNOperator::Partition& GroupTopNOperator::PartitionOf(const std::string& key, uint16_t vnode) {
  auto [it, inserted] = partitions_.try_emplace(key);
  Partition& p = it->second;
  if (!inserted) return p;
  p.vnode = vnode;
  StateStore* store = ctx_->store;
  std::string prefix = VnodePrefix(desc_.table_id, vnode) + key;
  auto range = store->NewRange(store->data_cf(), nullptr, prefix, PrefixSuccessor(prefix));
  for (auto& i = range->it; i->Valid(); i->Next()) {
    Row row;
    if (!DecodeRow(std::string_view(i->value().data(), i->value().size()), input_types_, &row))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt group top-n state");
    p.rows[std::string(i->key().data() + prefix.size(), i->key().size() - prefix.size())] = std::move(row);
  }
  // What was emitted before: the first `limit` rows, ranked.
  int64_t rank = 0;
  for (auto& [k, row] : p.rows) {
    if (rank >= limit_) break;
    Row out = row;
    out.push_back(Value::Int64(++rank));
    p.emitted[k] = std::move(out);
  }
  return p;
}

void GroupTopNOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string pkey;
    for (int c : partition_) EncodeKeyFromVector(data.column(c), r, &pkey);
    uint16_t vnode = partition_.empty() ? 0 : ComputeVnode(data, r, partition_);
    Partition& p = PartitionOf(pkey, vnode);
    std::string rank_key;
    for (const auto& k : order_) EncodeOrderKeyFromVector(data.column(k.column), r, k.descending, k.nulls_first, &rank_key);
    for (int c : stream_key_) EncodeKeyFromVector(data.column(c), r, &rank_key);
    std::string storage_key = VnodePrefix(desc_.table_id, p.vnode) + pkey + rank_key;
    if (IsInsertOp(chunk.ops()[r])) {
      Row row = data.GetRow(r);
      std::string v;
      EncodeRowValues(row, &v);
      table_->Put(std::move(storage_key), std::move(v));
      p.rows[rank_key] = std::move(row);
      if (append_only_input_ && limit_ >= 0 && p.rows.size() > static_cast<size_t>(limit_)) {
        auto last = std::prev(p.rows.end());
        table_->Delete(VnodePrefix(desc_.table_id, p.vnode) + pkey + last->first);
        p.rows.erase(last);
      }
    } else {
      p.rows.erase(rank_key);
      table_->Delete(std::move(storage_key));
    }
    if (!p.dirty) {
      p.dirty = true;
      dirty_.push_back(pkey);
    }
  }
}

void GroupTopNOperator::OnBarrier(const Barrier&) {
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
    std::map<std::string, Row> window;
    int64_t rank = 0;
    for (auto& [k, row] : p.rows) {
      if (rank >= limit_) break;
      Row o = row;
      o.push_back(Value::Int64(++rank));
      window[k] = std::move(o);
    }
    for (auto& [k, row] : p.emitted) {
      auto it = window.find(k);
      if (it != window.end() && RowsIdentical(row, it->second)) continue;
      ops.push_back(Op::kDelete);
      out.AppendRow(row);
    }
    for (auto& [k, row] : window) {
      auto it = p.emitted.find(k);
      if (it != p.emitted.end() && RowsIdentical(row, it->second)) continue;
      ops.push_back(Op::kInsert);
      out.AppendRow(row);
    }
    p.emitted = std::move(window);
    // An empty partition is forgotten (its state is already deleted).
    if (p.rows.empty()) partitions_.erase(pit);
    if (ops.size() >= kChunkSize) flush();
  }
  dirty_.clear();
  flush();
}

}  // namespace freshet
