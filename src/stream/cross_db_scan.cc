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
  ChangeLogReader log(ctx->store, log_desc_.table_id);
  for (const auto& [v, p] : vnodes_) truncated_[v] = log.LastTruncated(nullptr, static_cast<uint16_t>(v));
  next_vnode_ = ctx->vnodes.first;
  level_ready_ = level_ == 0 || (ctx->services && ctx->services->BackfillLevelReady(level_));
  ReadEpochs();
}

CrossDbScanOperator::View CrossDbScanOperator::ReadView() const {
  View view;
  view.snapshot = ctx_->store->GetSnapshot();
  view.committed = ctx_->store->CommittedEpoch(upstream_database_, view.snapshot.get()).value_or(0);
  view.logged = ChangeLogReader(ctx_->store, log_desc_.table_id).WrittenThrough(view.snapshot.get());
  return view;
}

void CrossDbScanOperator::ReadEpochs() {
  View view = ReadView();
  committed_ = view.committed;
  logged_ = view.logged;
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
  Step(it->first, &it->second, ReadView());
  FlushOut();
}

void CrossDbScanOperator::Step(int vnode, VnodeProgress* p, const View& view) {
  if (!NeedsStep(*p, view.committed, view.logged)) return;
  const Snapshot* snapshot = view.snapshot.get();
  ChangeLogReader log(ctx_->store, log_desc_.table_id);
  // How far this step takes the vnode: B's committed epoch, or for a
  // finished vnode as far as the log is written if that is less.
  const Epoch target = p->finished ? std::min(view.committed, view.logged) : view.committed;
  // 1. The log's changes since the vnode's epoch, for the keys already
  // emitted (all of them once finished). A vnode not read at all yet has
  // emitted no key: it starts at the snapshot.
  if (p->epoch != 0 && p->epoch < target) {
    if (log.LastTruncated(snapshot, static_cast<uint16_t>(vnode)) > p->epoch)
      throw SqlError(sqlstate::kDataCorrupted,
                     fmt::format("the change log of a relation of another database lost changes this view needs "
                                 "(vnode {}, after epoch {})",
                                 vnode, p->epoch));
    const std::string_view position_pk =
        p->position.size() > 6 ? std::string_view(p->position).substr(6) : std::string_view();
    Epoch e = p->epoch;
    while (auto next = log.NextEpoch(snapshot, static_cast<uint16_t>(vnode), e)) {
      if (*next > target) break;
      log.ReadEpoch(snapshot, static_cast<uint16_t>(vnode), *next, std::nullopt,
                    [&](const ChangeLogEntry& c, const ChangeLogReader::Position&) {
                      if (p->finished || (!p->position.empty() && c.pk <= position_pk)) EmitRow(OpOf(c.op), c.row);
                      return true;
                    });
      e = *next;
    }
  }
  // 2. Exact at `target` from here.
  p->epoch = target;
  p->dirty = true;
  // 3. The next rows of the snapshot, at `target` (B's committed epoch).
  if (p->finished) return;
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
  for (auto& [v, p] : vnodes_)
    if (p.finished) Step(v, &p, view);
  FlushOut();
  WriteLog truncation;
  ChangeLogReader log(ctx_->store, log_desc_.table_id);
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
    // Once this progress commits, the vnode never reads the log's epochs
    // up to its epoch again: they go with the same commit.
    Epoch& truncated = truncated_[v];
    if (p.epoch > truncated) {
      log.Truncate(nullptr, p.epoch + 1, &truncation, v, v + 1, truncated + 1);
      truncated = p.epoch;
    }
  }
  if (!truncation.empty()) log_->Write(std::move(truncation));
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
