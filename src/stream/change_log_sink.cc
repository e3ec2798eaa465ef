#include "stream/change_log_sink.h"

#include "common/encoding.h"

namespace freshet {

void ChangeLogSinkOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  relation_ = std::make_unique<StateTable>(ctx->store, relation_desc_);
  log_ = ctx->NewStateTable(log_desc_);
  truncated_ = ChangeLogReader(ctx->store, log_desc_.table_id).TruncatedThrough(nullptr);
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
  if (ctx_->vnodes.first == 0 && now_ms - last_truncation_ms_ >= 1000) {
    last_truncation_ms_ = now_ms;
    ChangeLogReader log(ctx_->store, log_desc_.table_id);
    std::optional<Epoch> before = retention_ms_ > 0 ? ChangeLogConsumer{0, 0, retention_ms_}.Needs(now_ms)
                                                    : log.TruncationBound(nullptr, now_ms);
    if (before && *before > truncated_ + 1) {
      log.Truncate(nullptr, *before, &writes);  // every vnode's
      truncated_ = *before - 1;
    }
  }
  if (!writes.empty()) log_->Write(std::move(writes));
}

}  // namespace freshet
