#include "stream/values.h"

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

ValuesOperator::ValuesOperator(std::vector<std::vector<ExprPtr>> rows, std::vector<DataType> types, StateTableDesc table,
                               EvalContext eval)
    : rows_(std::move(rows)), types_(std::move(types)), desc_(std::move(table)), eval_(std::move(eval)) {}

void ValuesOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  table_ = ctx->NewStateTable(desc_);
  std::string stored;
  emitted_ = table_->GetCommitted(table_->KeyIn(0), &stored).ok();
}

void ValuesOperator::OnBarrier(const Barrier&) { started_ = true; }

void ValuesOperator::DoWork() {
  DataChunk out(types_);
  const size_t width = types_.size() - 1;
  for (size_t r = 0; r < rows_.size(); r++) {
    for (size_t c = 0; c < width; c++) {
      Value v;
      try {
        v = rows_[r][c]->EvalConstant(eval_);
      } catch (const SqlError& e) {
        // As any expression error in a stream: NULL, and a warning.
        spdlog::warn("VALUES expression {} failed (value set to NULL): {}", rows_[r][c]->ToString(), e.what());
        v = Value::Null(types_[c]);
      }
      out.column(c).Append(v);
    }
    out.column(width).AppendInt(int64_t(r));
  }
  out.set_cardinality(rows_.size());
  emitted_ = true;
  std::string flag;
  EncodeRowValues({Value::Boolean(true)}, &flag);
  table_->Put(table_->KeyIn(0), flag);
  if (!rows_.empty()) Emit(StreamChunk(std::vector<Op>(rows_.size(), Op::kInsert), std::move(out)));
}

}  // namespace freshet
