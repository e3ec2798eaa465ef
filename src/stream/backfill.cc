#include "stream/backfill.h"

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/table_engines.h"

namespace freshet {

namespace {
constexpr size_t kMaxHeldRows = 64 * 1024;
}

BackfillOperator::BackfillOperator(StateTableDesc upstream, std::vector<DataType> upstream_types,
                                   StateTableDesc progress, int level, bool changes_only)
    : upstream_(std::move(upstream)), types_(std::move(upstream_types)), progress_desc_(std::move(progress)),
      level_(level), changes_only_(changes_only), level_ready_(level == 0), held_(types_) {}

void BackfillOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  progress_table_ = ctx->NewStateTable(progress_desc_);
  // For the keys of upstream rows only: not registered for commits.
  upstream_table_ = std::make_unique<StateTable>(ctx->store, upstream_);
  const std::vector<DataType> types = {DataType::Int32(), DataType::Varchar(), DataType::Boolean(), DataType::Int64()};
  for (int v = ctx->vnodes.first; v < ctx->vnodes.second; v++) {
    VnodeProgress& p = vnodes_[v];
    std::string key = progress_table_->KeyIn(uint16_t(v));
    EncodeKeyValue(Value::Int32(v), &key);
    std::string value;
    Status s = progress_table_->GetCommitted(key, &value);
    if (s.IsNotFound()) {
      if (changes_only_) p.finished = p.dirty = true;  // recorded at the first barrier
      continue;
    }
    s.ThrowIfError();
    Row row;
    if (!DecodeRow(value, types, &row)) throw SqlError(sqlstate::kDataCorrupted, "corrupt backfill progress row");
    if (!row[1].is_null()) p.position = HexDecode(row[1].string_value());
    p.finished = row[2].bool_value();
    p.rows = row[3].int_value();
  }
  all_finished_ = true;
  for (auto& [v, p] : vnodes_) all_finished_ &= p.finished;
}

void BackfillOperator::FitColumns(DataChunk* data) const {
  auto& columns = data->columns();
  // Columns the table gained after the job was planned are not the job's.
  if (columns.size() > types_.size())
    columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(types_.size()), columns.end());
  // Rows decoded as the table was before it gained columns the job reads
  // (a writer's view from before the ALTER): those read their missing value.
  const size_t rows = data->num_rows();
  for (size_t c = columns.size(); c < types_.size(); c++) {
    Vector v(types_[c]);
    std::string_view cell = c < upstream_.missing_cells.size() ? std::string_view(upstream_.missing_cells[c]) : "";
    if (cell.empty() || !DecodeCell(&cell, &v)) {
      v = Vector(types_[c]);
      v.AppendNulls(rows);
    } else {
      Value missing = v.GetValue(0);
      for (size_t r = 1; r < rows; r++) v.Append(missing);
      if (rows == 0) v = Vector(types_[c]);
    }
    columns.push_back(std::move(v));
  }
  data->set_cardinality(rows);
}

BackfillOperator::VnodeProgress* BackfillOperator::ProgressOf(const std::string& key) {
  auto it = vnodes_.find(VnodeOfKey(key));
  return it == vnodes_.end() ? nullptr : &it->second;
}

bool BackfillOperator::Forwards(const std::string& key) {
  const VnodeProgress* p = ProgressOf(key);
  if (!p) return true;  // not ours to scan: cannot happen with hash dispatch
  return p->finished || (!p->position.empty() && key <= p->position);
}

void BackfillOperator::Drop(const std::string& key, Epoch epoch) {
  VnodeProgress* p = ProgressOf(key);
  if (!p) return;
  p->stale_until = std::max(p->stale_until, epoch);
  if (VnodeOfKey(key) == range_vnode_) range_.reset();  // its scan cannot go on with this snapshot
}

bool BackfillOperator::Scannable(const VnodeProgress& p) const {
  return !p.finished && p.stale_until <= snapshot_sees_;
}

bool BackfillOperator::AnyScannable() const {
  if (!snapshot_) return false;
  for (const auto& [v, p] : vnodes_)
    if (Scannable(p)) return true;
  return false;
}

void BackfillOperator::OnChunk(int, StreamChunk chunk) {
  FitColumns(&chunk.data());
  if (all_finished_) return Emit(std::move(chunk));
  const DataChunk& data = chunk.data();
  std::vector<uint32_t> forward;
  std::vector<Op> forward_ops;
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string key = upstream_table_->KeyIn(ComputeVnode(data, r, upstream_.dist_key_indices));
    for (int c : upstream_.pk_indices) EncodeKeyFromVector(data.column(c), r, &key);
    Op op = chunk.ops()[r];
    if (op == Op::kUpdateDelete) op = Op::kDelete;
    if (op == Op::kUpdateInsert) op = Op::kInsert;
    if (Forwards(key)) {
      forward.push_back(uint32_t(r));
      forward_ops.push_back(op);
    } else if (ProgressOf(key)->stale_until > snapshot_sees_) {
      Drop(key, current_epoch_);  // stale already: read again from a later snapshot anyway
    } else {
      held_vnodes_.insert(VnodeOfKey(key));
      held_keys_.push_back(std::move(key));
      held_ops_.push_back(op);
      held_.AppendRowFrom(data, r);
    }
  }
  if (!forward.empty()) Emit(StreamChunk(std::move(forward_ops), data.Take(forward)));
  // Too many to hold until the barrier: those the scan has passed since go
  // on, the others are dropped (their vnodes go stale), and the scan goes
  // on with the other vnodes.
  if (held_keys_.size() > kMaxHeldRows) ReleaseHeld(current_epoch_);
}

void BackfillOperator::ReleaseHeld(std::optional<Epoch> drop_as_of) {
  std::vector<uint32_t> forward, keep;
  std::vector<Op> ops;
  for (size_t i = 0; i < held_keys_.size(); i++) {
    if (Forwards(held_keys_[i])) {
      forward.push_back(uint32_t(i));
      ops.push_back(held_ops_[i]);
    } else if (drop_as_of) {
      Drop(held_keys_[i], *drop_as_of);
    } else {
      keep.push_back(uint32_t(i));
    }
  }
  if (forward.empty() && !drop_as_of) return;
  if (!forward.empty()) Emit(StreamChunk(std::move(ops), held_.Take(forward)));
  DataChunk still_held = held_.Take(keep);
  std::vector<std::string> keys;
  std::vector<Op> key_ops;
  for (uint32_t i : keep) {
    keys.push_back(std::move(held_keys_[i]));
    key_ops.push_back(held_ops_[i]);
  }
  held_keys_ = std::move(keys);
  held_ops_ = std::move(key_ops);
  held_ = keep.empty() ? DataChunk(types_) : std::move(still_held);
  held_vnodes_.clear();
  for (const std::string& key : held_keys_) held_vnodes_.insert(VnodeOfKey(key));
}

bool BackfillOperator::HasWork() const {
  return started_ && level_ready_ && !all_finished_ && !paused_ && budget_.Allows();
}

void BackfillOperator::DoWork() {
  if (!snapshot_) {
    if (!ctx_->services->WaitCommitted(snapshot_epoch_)) return;
    // Read before the snapshot is taken: the snapshot contains at least it.
    snapshot_sees_ = ctx_->services->committed_epoch();
    snapshot_ = ctx_->store->GetSnapshot();
  }
  if (!range_) {
    range_vnode_ = -1;
    bool unfinished = false;
    for (auto& [v, p] : vnodes_) {
      unfinished |= !p.finished;
      if (Scannable(p)) {
        range_vnode_ = v;
        break;
      }
    }
    if (!unfinished) {
      all_finished_ = true;
      ctx_->services->RequestBarrier();  // the job completes at the next one
      return;
    }
    if (range_vnode_ < 0) {
      paused_ = true;  // every unfinished vnode is stale: a later snapshot, after the barrier
      return;
    }
    // The vnode's rows in key order, past the position, read once through
    // the upstream relation's table engine.
    ScanSpec spec;
    spec.table = upstream_;
    spec.table.column_types = types_;
    spec.vnode_begin = range_vnode_;
    spec.vnode_end = range_vnode_ + 1;
    spec.start_after = vnodes_[range_vnode_].position;
    spec.resumable = true;
    spec.read_once = true;
    range_ = ctx_->store->engines().For(upstream_.table_id).Scan(snapshot_, std::move(spec));
  }
  VnodeProgress& p = vnodes_[range_vnode_];
  DataChunk out;
  size_t max_rows = budget_.Cap(kChunkSize);
  size_t n = 0;
  bool exhausted = false;
  if (max_rows > 0) {
    exhausted = !range_->Next(&out, max_rows);
    n = exhausted ? 0 : out.num_rows();
    if (n > 0) p.position = range_->last_key();
  }
  p.rows += int64_t(n);
  budget_.Spend(n);
  p.dirty = p.dirty || n > 0;
  if (exhausted) {
    p.finished = true;
    p.dirty = true;
    range_.reset();
  }
  const int vnode = range_vnode_;
  if (n > 0) Emit(StreamChunk(std::vector<Op>(n, Op::kInsert), std::move(out)));
  // Changes held for keys the scan has now passed go on at once, after the
  // rows just read: a later change to one of those keys is forwarded as it
  // arrives and must not overtake them.
  if ((n > 0 || exhausted) && held_vnodes_.count(vnode)) ReleaseHeld(std::nullopt);
}

void BackfillOperator::OnBarrier(const Barrier& barrier) {
  ReleaseHeld(barrier.prev_epoch);
  SaveProgress();
  started_ = true;
  current_epoch_ = barrier.curr_epoch;
  budget_.Refill(ctx_->services->BackfillRateLimit());
  paused_ = false;
  if (!level_ready_) level_ready_ = ctx_->services->BackfillLevelReady(level_);
  // (Waiting for lower levels, changes beyond the position are dropped as
  // ever: the snapshot taken once it may start has them.)
  if (level_ready_ && !all_finished_ && !AnyScannable()) {
    // No snapshot yet (the job's first barrier) or every unfinished vnode is
    // stale: the next snapshot reads the state as of this barrier, once it
    // is committed. Only a checkpoint barrier commits, so after the others
    // the scan waits for the next checkpoint (changes keep flowing).
    paused_ = !barrier.checkpoint;
    // Ask for that checkpoint now: with a high checkpoint_frequency the
    // next periodic one can be minutes away, and the job waits for it.
    if (paused_) ctx_->services->RequestBarrier();
    if (barrier.checkpoint) {
      snapshot_epoch_ = barrier.prev_epoch;
      snapshot_.reset();
      range_.reset();
    }
  }
  if (all_finished_ && !reported_) {
    reported_ = true;
    ctx_->services->ReportBackfillFinished(barrier.prev_epoch);
  }
}

void BackfillOperator::SaveProgress() {
  for (auto& [v, p] : vnodes_) {
    if (!p.dirty) continue;
    p.dirty = false;
    std::string key = progress_table_->KeyIn(uint16_t(v));
    EncodeKeyValue(Value::Int32(v), &key);
    Row row = {Value::Int32(v), p.position.empty() ? Value::Null(DataType::Varchar()) : Value::Varchar(HexEncode(p.position)),
               Value::Boolean(p.finished), Value::Int64(p.rows)};
    std::string value;
    EncodeRowValues(row, &value);
    progress_table_->Put(std::move(key), std::move(value));
  }
}

}  // namespace freshet
