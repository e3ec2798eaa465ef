#include "stream/change_log_sink.h"

#include "common/encoding.h"

namespace freshet {

void ChangeLogSinkOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  relation_ = std::make_unique<StateTable>(ctx->store, relation_desc_);
  log_ = ctx->NewStateTable(log_desc_);
}

void ChangeLogSinkOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    row_.clear();
    EncodeRow(data, r, &row_);
    epoch_.AddKeyed(relation_->KeyOf(data, r), IsInsertOp(chunk.ops()[r]), row_);
  }
}

void ChangeLogSinkOperator::OnBarrier(const Barrier& barrier) {
  WriteLog writes;
  epoch_.WriteTo(log_desc_.table_id, barrier.prev_epoch, &writes);
  const int64_t now_ms = static_cast<int64_t>(barrier.curr_epoch >> 16);
  if (retention_ms_ > 0 && now_ms - last_truncation_ms_ >= 1000 && now_ms > retention_ms_) {
    last_truncation_ms_ = now_ms;
    const Epoch before = static_cast<Epoch>(now_ms - retention_ms_) << 16;
    ChangeLogReader(ctx_->store, log_desc_.table_id)
        .Truncate(nullptr, before, &writes);  // every vnode's: each actor deletes the same range
  }
  if (!writes.empty()) log_->Write(std::move(writes));
}

}  // namespace freshet
