#include "stream/asof_join.h"

#include <optional>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/state_table.h"
#include "stream/eval.h"

namespace freshet {

AsOfJoinOperator::AsOfJoinOperator(JoinType type, Side left, Side right, ExprPtr condition, bool greatest, bool narrow,
                                   EvalContext eval)
    : type_(type), sides_{std::move(left), std::move(right)}, condition_(std::move(condition)), greatest_(greatest),
      narrow_(narrow), eval_(std::move(eval)) {
  pair_types_ = sides_[0].types;
  pair_types_.insert(pair_types_.end(), sides_[1].types.begin(), sides_[1].types.end());
  out_ = DataChunk(pair_types_);
}

void AsOfJoinOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  share_.set_job(ctx->memory);
  for (int s = 0; s < 2; s++) tables_[s] = ctx->NewStateTable(sides_[s].table);
}

bool AsOfJoinOperator::KeysOf(int side, const DataChunk& data, size_t row, std::string* join_key, RowKey* key) const {
  const Side& me = sides_[side];
  join_key->clear();
  for (int k : me.keys) {
    if (data.column(k).IsNull(row)) return false;
    EncodeKeyFromVector(data.column(k), row, join_key);
  }
  if (data.column(me.value).IsNull(row)) return false;
  key->first.clear();
  key->second.clear();
  EncodeKeyFromVector(data.column(me.value), row, &key->first);
  for (int k : me.stream_key) EncodeKeyFromVector(data.column(k), row, &key->second);
  return true;
}

std::string AsOfJoinOperator::StorageKey(int side, const Bucket& b, const std::string& join_key,
                                         const RowKey& key) const {
  return tables_[side]->KeyIn(b.vnode, join_key + key.first + key.second);
}

AsOfJoinOperator::Bucket& AsOfJoinOperator::BucketOf(const std::string& join_key, uint16_t vnode) {
  auto [it, inserted] = buckets_.try_emplace(join_key);
  Bucket& b = it->second;
  if (!b.dirty) {
    b.dirty = true;
    dirty_.push_back(&it->first);
  }
  if (!inserted) return b;
  // Not in memory: the key's rows from storage (a bucket leaves memory
  // only once its writes are committed).
  b.vnode = vnode;
  b.lru = lru_.Add(&it->first);
  for (int s = 0; s < 2; s++) {
    for (auto i = tables_[s]->ScanCommittedPrefix(tables_[s]->KeyIn(vnode, join_key)); i.Valid(); i.Next()) {
      std::string_view cells = i.value();
      DataChunk row(sides_[s].types);
      if (!DecodeCellsInto(&cells, &row, 0, sides_[s].types.size()))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt as-of join state");
      std::string jk;
      RowKey key;
      if (!KeysOf(s, row, 0, &jk, &key)) throw SqlError(sqlstate::kDataCorrupted, "corrupt as-of join state");
      b.rows[s][std::move(key)] = std::string(i.value());
    }
  }
  b.bytes = EstimateBytes(join_key, b);
  bytes_ += b.bytes;
  return b;
}

namespace {
// Per key and per row: hash and tree nodes, string headers.
constexpr size_t kBucketOverhead = 192;
constexpr size_t kRowOverhead = 160;
}  // namespace

size_t AsOfJoinOperator::EstimateBytes(const std::string& key, const Bucket& b) const {
  size_t bytes = kBucketOverhead + key.size();
  for (const Rows& rows : b.rows)
    for (const auto& [k, cells] : rows) bytes += kRowOverhead + k.first.size() + k.second.size() + cells.size();
  return bytes;
}

void AsOfJoinOperator::Drop(std::unordered_map<std::string, Bucket>::iterator it) {
  bytes_ -= it->second.bytes;
  lru_.Remove(it->second.lru);
  buckets_.erase(it);
}

void AsOfJoinOperator::OnBarrier(const Barrier& barrier) {
  for (const std::string* key : dirty_) {
    auto it = buckets_.find(*key);
    Bucket& b = it->second;
    b.dirty = false;
    b.written = barrier.prev_epoch;
    const size_t bytes = EstimateBytes(*key, b);
    bytes_ = bytes_ - b.bytes + bytes;
    b.bytes = bytes;
    lru_.Touch(b.lru);
    if (b.rows[0].empty() && b.rows[1].empty()) emptied_.push_back(*key);
  }
  dirty_.clear();
  const Epoch committed = ctx_->services->committed_epoch();
  std::vector<std::string> waiting;
  for (const std::string& key : emptied_) {
    auto it = buckets_.find(key);
    if (it == buckets_.end() || !it->second.rows[0].empty() || !it->second.rows[1].empty()) continue;
    if (it->second.dirty || it->second.written > committed) waiting.push_back(key);
    else Drop(it);
  }
  emptied_ = std::move(waiting);
  ShrinkToShare(
      share_, lru_, bytes_,
      [&](const std::string& key) {
        const Bucket& b = buckets_.at(key);
        return b.dirty || b.written > committed;
      },
      [&](const std::string& key) { Drop(buckets_.find(key)); });
}

bool AsOfJoinOperator::Passes(const std::string& left_cells, const std::string& right_cells) const {
  if (!condition_) return true;
  DataChunk pair(pair_types_);
  std::string_view l(left_cells), r(right_cells);
  if (!DecodeCellsInto(&l, &pair, 0, sides_[0].types.size()) ||
      !DecodeCellsInto(&r, &pair, sides_[0].types.size(), sides_[1].types.size()))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt as-of join state");
  return ToMask(EvalRowTolerant(*condition_, pair, eval_))[0] != 0;
}

AsOfJoinOperator::Rows::const_iterator AsOfJoinOperator::Nearest(const Bucket& b, const std::string& value,
                                                                 const std::string& left_cells) const {
  const Rows& right = b.rows[1];
  if (!greatest_) {
    // Values at or above the left's, ascending.
    for (auto it = right.lower_bound(RowKey{value, ""}); it != right.end(); ++it)
      if (Passes(left_cells, it->second)) return it;
    return right.end();
  }
  // Values at or below the left's, descending; one value's rows from its
  // least stream key.
  auto end = right.lower_bound(RowKey{value, ""});
  while (end != right.end() && end->first.first == value) ++end;
  while (end != right.begin()) {
    auto first = std::prev(end);
    while (first != right.begin() && std::prev(first)->first.first == first->first.first) --first;
    for (auto it = first; it != end; ++it)
      if (Passes(left_cells, it->second)) return it;
    end = first;
  }
  return right.end();
}

void AsOfJoinOperator::EmitRow(Op op, const std::string& left_cells, const std::string* right_cells) {
  out_ops_.push_back(op);
  std::string_view l(left_cells);
  if (!DecodeCellsInto(&l, &out_, 0, sides_[0].types.size()))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt as-of join state");
  const size_t first = sides_[0].types.size();
  if (right_cells) {
    std::string_view r(*right_cells);
    if (!DecodeCellsInto(&r, &out_, first, sides_[1].types.size()))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt as-of join state");
  } else {
    for (size_t c = 0; c < sides_[1].types.size(); c++) out_.column(first + c).AppendNull();
  }
  if (out_ops_.size() >= kChunkSize) FlushOutput();
}

void AsOfJoinOperator::FlushOutput() {
  if (out_ops_.empty()) return;
  Emit(StreamChunk(std::move(out_ops_), std::move(out_)));
  out_ops_.clear();
  out_ = DataChunk(pair_types_);
}

void AsOfJoinOperator::OnLeftRow(bool insert, const DataChunk& data, size_t row) {
  const Op op = insert ? Op::kInsert : Op::kDelete;
  std::string cells;
  EncodeRow(data, row, &cells);
  std::string join_key;
  RowKey key;
  if (!KeysOf(0, data, row, &join_key, &key)) {
    if (type_ == JoinType::kLeft) EmitRow(op, cells, nullptr);
    return;
  }
  const uint16_t vnode = sides_[0].keys.empty() ? 0 : ComputeVnode(data, row, sides_[0].keys);
  Bucket& b = BucketOf(join_key, vnode);
  auto nearest = Nearest(b, key.first, cells);
  if (nearest != b.rows[1].end()) EmitRow(op, cells, &nearest->second);
  else if (type_ == JoinType::kLeft) EmitRow(op, cells, nullptr);
  const std::string storage_key = StorageKey(0, b, join_key, key);
  if (insert) {
    tables_[0]->Put(storage_key, cells);
    b.rows[0][std::move(key)] = std::move(cells);
  } else if (b.rows[0].erase(key)) {
    tables_[0]->Delete(storage_key);
  }
}

void AsOfJoinOperator::OnRightRow(bool insert, const DataChunk& data, size_t row) {
  std::string join_key;
  RowKey key;
  if (!KeysOf(1, data, row, &join_key, &key)) return;  // matches nothing
  const uint16_t vnode = sides_[1].keys.empty() ? 0 : ComputeVnode(data, row, sides_[1].keys);
  Bucket& b = BucketOf(join_key, vnode);
  Rows& right = b.rows[1];
  Rows& left = b.rows[0];
  // The left rows whose nearest row may change: between the right values
  // next to this one (all of them when the condition has more than the
  // comparison, as rows in between may fail it).
  auto from = left.begin(), to = left.end();
  if (narrow_) {
    auto at = right.lower_bound(RowKey{key.first, ""});
    if (at != right.begin()) from = left.lower_bound(RowKey{std::prev(at)->first.first, ""});
    auto after = at;
    while (after != right.end() && after->first.first == key.first) ++after;
    if (after != right.end()) {
      to = left.lower_bound(RowKey{after->first.first, ""});
      while (to != left.end() && to->first.first == after->first.first) ++to;
    }
  }
  struct Affected {
    const std::string* left_cells;
    const std::string* left_value;  // encoded
    std::optional<std::string> before;  // the nearest right row's cells
    std::optional<RowKey> before_key;
  };
  std::vector<Affected> affected;
  for (auto it = from; it != to; ++it) {
    Affected a{&it->second, &it->first.first, std::nullopt, std::nullopt};
    auto nearest = Nearest(b, it->first.first, it->second);
    if (nearest != right.end()) a.before = nearest->second, a.before_key = nearest->first;
    affected.push_back(std::move(a));
  }
  const std::string storage_key = StorageKey(1, b, join_key, key);
  if (insert) {
    std::string cells;
    EncodeRow(data, row, &cells);
    tables_[1]->Put(storage_key, cells);
    right[std::move(key)] = std::move(cells);
  } else {
    if (!right.erase(key)) return;  // a row never kept: nothing changes
    tables_[1]->Delete(storage_key);
  }
  for (const Affected& a : affected) {
    auto nearest = Nearest(b, *a.left_value, *a.left_cells);
    const bool now = nearest != right.end();
    if (now == a.before_key.has_value() && (!now || nearest->first == *a.before_key)) continue;
    if (a.before) EmitRow(Op::kDelete, *a.left_cells, &*a.before);
    else if (type_ == JoinType::kLeft) EmitRow(Op::kDelete, *a.left_cells, nullptr);
    if (now) EmitRow(Op::kInsert, *a.left_cells, &nearest->second);
    else if (type_ == JoinType::kLeft) EmitRow(Op::kInsert, *a.left_cells, nullptr);
  }
}

void AsOfJoinOperator::OnChunk(int side, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    const bool insert = IsInsertOp(chunk.ops()[r]);
    if (side == 0) OnLeftRow(insert, data, r);
    else OnRightRow(insert, data, r);
  }
  FlushOutput();
}

}  // namespace freshet
