#include "stream/cross_db_scan.h"

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
}

bool CrossDbScanOperator::HasWork() const {
  Epoch committed = ctx_->store->CommittedEpoch(upstream_database_).value_or(0);
  for (const auto& [v, p] : vnodes_)
    if (!p.finished || p.epoch < committed) return true;
  return false;
}

bool CrossDbScanOperator::CaughtUp(Epoch epoch) const {
  for (const auto& [v, p] : vnodes_)
    if (!p.finished || p.epoch < epoch) return false;
  return true;
}

void CrossDbScanOperator::DoWork() {
  if (vnodes_.empty()) return;
  auto it = vnodes_.lower_bound(next_vnode_);
  if (it == vnodes_.end()) it = vnodes_.begin();
  next_vnode_ = it->first + 1;
  Step(it->first, &it->second);
  FlushOut();
}

void CrossDbScanOperator::Step(int vnode, VnodeProgress* p) {
  std::shared_ptr<const Snapshot> snapshot = ctx_->store->GetSnapshot();
  const Epoch committed = ctx_->store->CommittedEpoch(upstream_database_, snapshot.get()).value_or(0);
  if (committed == 0) return;  // B has committed nothing yet
  // 1. The log's changes since the vnode's epoch, for the keys already
  // emitted (all of them once finished). A vnode not read at all yet has
  // emitted no key: it starts at the snapshot.
  if (p->epoch != 0 && p->epoch < committed) {
    ChangeLogReader log(ctx_->store, log_id_);
    const std::string_view position_pk =
        p->position.size() > 6 ? std::string_view(p->position).substr(6) : std::string_view();
    Epoch e = p->epoch;
    while (auto next = log.NextEpoch(snapshot.get(), static_cast<uint16_t>(vnode), e)) {
      if (*next > committed) break;
      log.ReadEpoch(snapshot.get(), static_cast<uint16_t>(vnode), *next, std::nullopt,
                    [&](const ChangeLogEntry& c, const ChangeLogReader::Position&) {
                      if (p->finished || (!p->position.empty() && c.pk <= position_pk)) EmitRow(OpOf(c.op), c.row);
                      return true;
                    });
      e = *next;
    }
  }
  // 2. Exact at B's committed epoch from here.
  p->epoch = committed;
  p->dirty = true;
  // 3. The next rows of the snapshot.
  if (p->finished) return;
  ScanSpec spec;
  spec.table = upstream_;
  spec.vnode_begin = vnode;
  spec.vnode_end = vnode + 1;
  spec.start_after = p->position;
  spec.resumable = true;
  spec.read_once = true;
  std::unique_ptr<ChunkScan> scan = ctx_->store->engines().For(upstream_.table_id).Scan(snapshot, std::move(spec));
  DataChunk rows(upstream_.column_types);
  const bool more = scan->Next(&rows, rows_per_step_);
  std::string encoded;
  for (size_t r = 0; r < rows.num_rows(); r++) {
    encoded.clear();
    EncodeRow(rows, r, &encoded);
    EmitRow(Op::kInsert, encoded);
  }
  p->rows += static_cast<int64_t>(rows.num_rows());
  if (rows.num_rows() > 0) p->position = scan->last_key();
  if (!more || rows.num_rows() == 0) p->finished = true;
}

void CrossDbScanOperator::EmitRow(Op op, std::string_view encoded_row) {
  if (!out_) out_ = std::make_unique<DataChunk>(upstream_.column_types);
  if (!DecodeRowInto(encoded_row, out_.get()))
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

void CrossDbScanOperator::OnBarrier(const Barrier&) {
  FlushOut();
  for (auto& [v, p] : vnodes_) {
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
}

}  // namespace freshet
