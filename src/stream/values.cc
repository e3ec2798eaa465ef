#include "stream/values.h"

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/error.h"
#include "expr/table_function.h"

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

void ValuesOperator::SetFunction(std::string name, std::vector<ExprPtr> args, bool with_ordinality) {
  function_ = std::move(name);
  function_args_ = std::move(args);
  with_ordinality_ = with_ordinality;
}

void ValuesOperator::EmitFunctionRows() {
  const size_t width = types_.size() - 1;  // the row number last
  int64_t count = 0;
  try {
    TableFunctionCall call;
    call.name = function_;
    for (const auto& a : function_args_) call.args.push_back(a->EvalConstant(eval_));
    call.types.assign(types_.begin(), types_.begin() + static_cast<std::ptrdiff_t>(width - (with_ordinality_ ? 1 : 0)));
    std::unique_ptr<TableFunctionRows> rows = MakeTableFunctionRows(call, eval_);
    DataChunk out(call.types);
    while (rows->Next(&out)) {
      const size_t n = out.num_rows();
      if (n == 0) continue;
      Vector ordinals(DataType::Int64()), numbers(DataType::Int64());
      for (size_t i = 0; i < n; i++) {
        ++count;
        ordinals.AppendInt(count);
        numbers.AppendInt(count - 1);
      }
      if (with_ordinality_) out.AddColumn(std::move(ordinals));
      out.AddColumn(std::move(numbers));
      out.set_cardinality(n);
      Emit(StreamChunk(std::vector<Op>(n, Op::kInsert), std::move(out)));
      out = DataChunk(call.types);
    }
  } catch (const SqlError& e) {
    spdlog::warn("{} in FROM failed after {} rows (no more rows): {}", function_, count, e.what());
  }
}

void ValuesOperator::DoWork() {
  if (!function_.empty()) {
    EmitFunctionRows();
    emitted_ = true;
    std::string flag;
    EncodeRowValues({Value::Boolean(true)}, &flag);
    table_->Put(table_->KeyIn(0), flag);
    return;
  }
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
