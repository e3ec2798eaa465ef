#include "stream/cross_db_scan.h"

#include <fmt/format.h>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/table_engines.h"

namespace freshet {

namespace {

// The progress row's columns: vnode, epoch, position (hex), finished, rows.
const std::vector<DataType>& ProgressTypes() {
  static const std::vector<DataType> types = {DataType::Int32(), DataType::Int64(), DataType::Varchar(),
                                              DataType::Boolean(), DataType::Int64()};
  return types;
}

Op OpOf(ChangeLogOp op) {
  switch (op) {
    case ChangeLogOp::kInsert: return Op::kInsert;
    case ChangeLogOp::kDelete: return Op::kDelete;
    case ChangeLogOp::kUpdateDelete: return Op::kUpdateDelete;
    case ChangeLogOp::kUpdateInsert: return Op::kUpdateInsert;
  }
  return Op::kInsert;
}

}  // namespace

void CrossDbScanOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  progress_ = ctx->NewStateTable(progress_desc_);
  log_ = ctx->NewStateTable(log_desc_);
  for (int v = ctx->vnodes.first; v < ctx->vnodes.second; v++) {
    VnodeProgress& p = vnodes_[v];
    std::string key = progress_->KeyIn(uint16_t(v));
    EncodeKeyValue(Value::Int32(v), &key);
    std::string value;
    Status s = progress_->GetCommitted(key, &value);
    if (s.IsNotFound()) continue;
    s.ThrowIfError();
    Row row;
    if (!DecodeRow(value, ProgressTypes(), &row)) throw SqlError(sqlstate::kDataCorrupted, "corrupt cross-database scan progress");
    p.epoch = static_cast<Epoch>(row[1].int_value());
    if (!row[2].is_null()) p.position = HexDecode(row[2].string_value());
    p.finished = row[3].bool_value();
    p.rows = row[4].int_value();
  }
  next_vnode_ = ctx->vnodes.first;
  level_ready_ = level_ == 0 || (ctx->services && ctx->services->BackfillLevelReady(level_));
  const View view = ReadView();
  committed_ = view.committed;
  logged_ = view.logged;
}

CrossDbScanOperator::View CrossDbScanOperator::ReadView() const {
  View view;
  view.snapshot = ctx_->store->GetSnapshot();
  view.committed = ctx_->store->CommittedEpoch(upstream_database_, view.snapshot.get()).value_or(0);
  view.logged = ChangeLogReader(ctx_->store, log_desc_.table_id).WrittenThrough(view.snapshot.get());
  return view;
}

bool CrossDbScanOperator::NeedsStep(const VnodeProgress& p, Epoch committed, Epoch logged) const {
  if (p.finished) return p.epoch < std::min(committed, logged);
  // The snapshot is read at B's committed epoch, which the log must reach.
  return level_ready_ && committed != 0 && logged >= committed;
}

bool CrossDbScanOperator::HasWork() const {
  // From the first barrier on, which sets the rate limit's budget.
  if (!started_ || !budget_.Allows()) return false;
  for (const auto& [v, p] : vnodes_)
    if (!p.finished && NeedsStep(p, committed_, logged_)) return true;
  return false;
}

bool CrossDbScanOperator::CaughtUp(Epoch epoch) const {
  for (const auto& [v, p] : vnodes_)
    if (!p.finished || p.epoch < epoch) return false;
  return true;
}

void CrossDbScanOperator::DoWork() {
  // The next vnode, round robin, still reading its snapshot (finished ones
  // follow the log at barriers).
  auto it = vnodes_.lower_bound(next_vnode_);
  for (size_t tried = 0; tried < vnodes_.size(); tried++, ++it) {
    if (it == vnodes_.end()) it = vnodes_.begin();
    if (!it->second.finished && NeedsStep(it->second, committed_, logged_)) break;
  }
  if (it == vnodes_.end() || it->second.finished) return;
  next_vnode_ = it->first + 1;
  StepSnapshot(it->first, &it->second, ReadView());
  FlushOut();
}

void CrossDbScanOperator::CheckRetained(const ChangeLogReader& log, const Snapshot* snapshot, Epoch read_through) const {
  const Epoch truncated = log.TruncatedThrough(snapshot);
  if (truncated > read_through)
    throw SqlError(sqlstate::kDataCorrupted,
                   fmt::format("the change log of a relation of another database lost changes this view needs "
                               "(truncated through epoch {}, read through {})",
                               truncated, read_through));
}

void CrossDbScanOperator::StepSnapshot(int vnode, VnodeProgress* p, const View& view) {
  if (p->finished || !NeedsStep(*p, view.committed, view.logged)) return;
  const Snapshot* snapshot = view.snapshot.get();
  // 1. The log's changes since the vnode's epoch, for the keys already
  // emitted. A vnode not read at all yet has emitted no key: it starts at
  // the snapshot.
  if (p->epoch != 0 && p->epoch < view.committed && !p->position.empty()) {
    ChangeLogReader log(ctx_->store, log_desc_.table_id);
    CheckRetained(log, snapshot, p->epoch);
    const std::string_view position_pk = PkOfKey(p->position);
    for (auto e = log.NextEpoch(snapshot, p->epoch); e && *e <= view.committed; e = log.NextEpoch(snapshot, *e))
      log.ReadEpoch(snapshot, *e, vnode, vnode + 1, std::nullopt,
                    [&](const ChangeLogEntry& c, const ChangeLogReader::Position&) {
                      if (c.pk <= position_pk) EmitRow(OpOf(c.op), c.row);
                      return true;
                    });
  }
  // 2. Exact at B's committed epoch from here.
  p->epoch = view.committed;
  p->dirty = true;
  // 3. The next rows of the snapshot, at that epoch.
  FlushOut();  // the log's changes of keys before the position go first
  ScanSpec spec;
  spec.table = upstream_;
  spec.vnode_begin = vnode;
  spec.vnode_end = vnode + 1;
  spec.start_after = p->position;
  spec.resumable = true;
  spec.read_once = true;
  std::unique_ptr<ChunkScan> scan = ctx_->store->engines().For(upstream_.table_id).Scan(view.snapshot, std::move(spec));
  DataChunk rows(upstream_.column_types);
  const size_t wanted = budget_.Cap(rows_per_step_);
  if (wanted == 0) return;
  const bool more = scan->Next(&rows, wanted);
  const size_t n = rows.num_rows();
  budget_.Spend(n);
  p->rows += static_cast<int64_t>(n);
  if (n > 0) {
    p->position = scan->last_key();
    Emit(StreamChunk(std::vector<Op>(n, Op::kInsert), std::move(rows)));
  }
  if (!more || n == 0) p->finished = true;
}

void CrossDbScanOperator::FollowLog(const View& view) {
  // Up to B's committed epoch, as far as the log is written.
  const Epoch target = std::min(view.committed, view.logged);
  Epoch from = target;  // the least epoch a finished vnode has read through
  int first = -1, last = -1;
  for (const auto& [v, p] : vnodes_) {
    if (!p.finished || p.epoch >= target) continue;
    from = std::min(from, p.epoch);
    if (first < 0) first = v;
    last = v;
  }
  if (first < 0) return;
  const Snapshot* snapshot = view.snapshot.get();
  ChangeLogReader log(ctx_->store, log_desc_.table_id);
  CheckRetained(log, snapshot, from);
  // Epoch by epoch, the changes of the owned vnodes: each to the vnodes
  // that have not read that epoch yet.
  for (auto e = log.NextEpoch(snapshot, from); e && *e <= target; e = log.NextEpoch(snapshot, *e))
    log.ReadEpoch(snapshot, *e, first, last + 1, std::nullopt,
                  [&](const ChangeLogEntry& c, const ChangeLogReader::Position&) {
                    auto it = vnodes_.find(c.vnode);
                    if (it != vnodes_.end() && it->second.finished && it->second.epoch < *e) EmitRow(OpOf(c.op), c.row);
                    return true;
                  });
  for (auto& [v, p] : vnodes_) {
    if (!p.finished || p.epoch >= target) continue;
    p.epoch = target;
    p.dirty = true;
  }
}

void CrossDbScanOperator::RecordProgressInLog() {
  // The least epoch over every vnode's committed progress (this actor's
  // and the other actors'): no vnode reads the log's epochs up to it
  // again, whatever happens to the epochs in flight.
  std::shared_ptr<const Snapshot> snapshot = ctx_->store->GetSnapshot();
  ScanSpec spec;
  spec.table = progress_desc_;
  spec.read_once = true;
  std::unique_ptr<ChunkScan> scan = ctx_->store->engines().For(progress_desc_.table_id).Scan(snapshot, std::move(spec));
  DataChunk rows(progress_desc_.column_types);
  size_t vnodes = 0;
  Epoch least = UINT64_MAX;
  while (scan->Next(&rows)) {
    for (size_t r = 0; r < rows.num_rows(); r++) {
      vnodes++;
      least = std::min(least, static_cast<Epoch>(rows.column(1).GetInt(r)));
    }
    rows = DataChunk(progress_desc_.column_types);
  }
  // Until every vnode started, the bound registered when the job was
  // created (B's committed epoch then) stands.
  if (vnodes < kVnodeCount || least == 0 || least <= recorded_) return;
  WriteLog record;
  PutChangeLogConsumer(log_desc_.table_id, ChangeLogConsumer{ctx_->job_id, least, 0}, &record);
  log_->Write(std::move(record));
  recorded_ = least;
}

void CrossDbScanOperator::EmitRow(Op op, std::string_view encoded_row) {
  if (!out_) out_ = std::make_unique<DataChunk>(upstream_.column_types);
  // As B stored it: with fewer cells than the job reads when written before
  // B's table gained a column, more when it gained one since the job began.
  if (!DecodeStoredRowInto(encoded_row, out_.get(), upstream_.missing_cells))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt row of a relation of another database");
  out_ops_.push_back(op);
  if (out_ops_.size() >= kChunkSize) FlushOut();
}

void CrossDbScanOperator::FlushOut() {
  if (!out_ || out_ops_.empty()) return;
  Emit(StreamChunk(std::move(out_ops_), std::move(*out_)));
  out_ops_.clear();
  out_.reset();
}

void CrossDbScanOperator::OnBarrier(const Barrier& barrier) {
  // The epoch ending here holds every change B committed before it to the
  // vnodes past their snapshot: a FLUSH in A then shows what B committed.
  const View view = ReadView();
  FollowLog(view);
  FlushOut();
  bool all_finished = true;
  for (auto& [v, p] : vnodes_) {
    all_finished = all_finished && p.finished;
    if (!p.dirty) continue;
    p.dirty = false;
    std::string key = progress_->KeyIn(uint16_t(v));
    EncodeKeyValue(Value::Int32(v), &key);
    Row row = {Value::Int32(v), Value::Int64(static_cast<int64_t>(p.epoch)),
               p.position.empty() ? Value::Null(DataType::Varchar()) : Value::Varchar(HexEncode(p.position)),
               Value::Boolean(p.finished), Value::Int64(p.rows)};
    std::string value;
    EncodeRowValues(row, &value);
    progress_->Put(std::move(key), std::move(value));
  }
  // About once a second (epochs carry their milliseconds).
  const int64_t now_ms = static_cast<int64_t>(barrier.curr_epoch >> 16);
  if (ctx_->vnodes.first == 0 && now_ms - last_record_ms_ >= 1000) {
    last_record_ms_ = now_ms;
    RecordProgressInLog();
  }
  if (!level_ready_) level_ready_ = ctx_->services->BackfillLevelReady(level_);
  budget_.Refill(ctx_->services->BackfillRateLimit());
  started_ = true;
  if (all_finished && !reported_) {
    reported_ = true;
    ctx_->services->ReportBackfillFinished(barrier.prev_epoch);
  }
  committed_ = view.committed;
  logged_ = view.logged;
}

}  // namespace freshet
