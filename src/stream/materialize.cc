#include "stream/materialize.h"

#include "common/encoding.h"

namespace freshet {

void MaterializeOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  table_ = ctx->NewStateTable(desc_);
}

void MaterializeOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string key = table_->KeyOf(data, r);
    if (IsInsertOp(chunk.ops()[r])) {
      std::string value;
      EncodeRow(data, r, &value);
      table_->Put(std::move(key), std::move(value), +1);
    } else {
      table_->Delete(std::move(key), -1);
    }
  }
  Emit(std::move(chunk));
}

}  // namespace freshet
