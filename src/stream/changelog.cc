#include "stream/changelog.h"

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

namespace {
// Counter bits below the vnode (vnodes < 2^8: ids stay positive).
constexpr int kCounterBits = 54;
}  // namespace

int16_t ChangelogOperator::OpCode(Op op) {
  switch (op) {
    case Op::kInsert: return 1;
    case Op::kDelete: return 2;
    case Op::kUpdateInsert: return 3;
    case Op::kUpdateDelete: return 4;
  }
  return 0;
}

std::string ChangelogOperator::CounterKey() const { return table_->KeyIn(uint16_t(ctx_->vnodes.first)); }

void ChangelogOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  table_ = ctx->NewStateTable(desc_);
  std::string stored;
  if (table_->GetCommitted(CounterKey(), &stored).ok()) {
    Row row;
    if (!DecodeRow(stored, {DataType::Int64()}, &row) || row.size() != 1 || row[0].is_null())
      throw SqlError(sqlstate::kDataCorrupted, "corrupt changelog row id counter");
    next_ = row[0].int_value();
  }
}

void ChangelogOperator::OnChunk(int, StreamChunk chunk) {
  const size_t n = chunk.num_rows();
  if (n == 0) return;
  DataChunk& in = chunk.data();
  std::vector<Vector> columns(std::make_move_iterator(in.columns().begin()),
                              std::make_move_iterator(in.columns().begin() + width_));
  Vector ops(DataType::Int16()), ids(DataType::Int64());
  const int64_t base = int64_t(ctx_->vnodes.first) << kCounterBits;
  for (size_t r = 0; r < n; r++) {
    ops.AppendInt(OpCode(chunk.ops()[r]));
    ids.AppendInt(base | next_++);
  }
  columns.push_back(std::move(ops));
  columns.push_back(std::move(ids));
  dirty_ = true;
  Emit(StreamChunk(std::vector<Op>(n, Op::kInsert), DataChunk(std::move(columns))));
}

void ChangelogOperator::OnBarrier(const Barrier&) {
  if (!dirty_) return;
  dirty_ = false;
  std::string value;
  EncodeRowValues({Value::Int64(next_)}, &value);
  table_->Put(CounterKey(), value);
}

}  // namespace freshet
