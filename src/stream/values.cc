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
  const bool found = table_->GetCommitted(table_->KeyIn(0), &stored).ok();
  emitted_ = found;
  if (found && !function_.empty()) {  // (rows emitted, done)
    Row progress;
    if (!DecodeRow(stored, {DataType::Int64(), DataType::Boolean()}, &progress) || progress.size() != 2)
      throw SqlError(sqlstate::kDataCorrupted, "corrupt function-in-FROM progress");
    rows_emitted_ = progress[0].is_null() ? 0 : progress[0].int_value();
    emitted_ = !progress[1].is_null() && progress[1].bool_value();
  }
}

void ValuesOperator::OnBarrier(const Barrier& barrier) {
  started_ = true;
  // A function's rows count as the job's backfill (stream/builder.cc):
  // reported once all are emitted, with the epoch that carried the last.
  if (!function_.empty() && emitted_ && !reported_) {
    reported_ = true;
    ctx_->services->ReportBackfillFinished(barrier.prev_epoch);
  }
}

void ValuesOperator::SetFunction(std::string name, std::vector<ExprPtr> args, bool with_ordinality) {
  function_ = std::move(name);
  function_args_ = std::move(args);
  with_ordinality_ = with_ordinality;
  // The function's own columns: before the ordinal and the row number.
  const size_t own = types_.size() - 1 - (with_ordinality ? 1 : 0);
  function_types_.assign(types_.begin(), types_.begin() + static_cast<std::ptrdiff_t>(own));
}

void ValuesOperator::EmitFunctionChunk() {
  const std::vector<DataType>& types = function_types_;
  bool done = false;
  try {
    if (!generator_) {
      TableFunctionCall call;
      call.name = function_;
      for (const auto& a : function_args_) call.args.push_back(a->EvalConstant(eval_));
      call.types = types;
      generator_ = MakeTableFunctionRows(call, eval_);
      // A restarted job: the rows emitted before are made again, unsent.
      int64_t skipped = 0;
      DataChunk discard(types);
      while (skipped < rows_emitted_ && generator_->Next(&discard)) {
        const auto n = static_cast<int64_t>(discard.num_rows());
        if (skipped + n > rows_emitted_) {
          // (Chunks are cut the same way every time: never reached.)
          throw SqlError(sqlstate::kInternalError, "a function in FROM made its rows differently after a restart");
        }
        skipped += n;
        discard = DataChunk(types);
      }
    }
    DataChunk out(types);
    if (!generator_->Next(&out)) {
      done = true;
    } else if (const size_t n = out.num_rows(); n > 0) {
      Vector ordinals(DataType::Int64()), numbers(DataType::Int64());
      for (size_t i = 0; i < n; i++) {
        ordinals.AppendInt(rows_emitted_ + int64_t(i) + 1);
        numbers.AppendInt(rows_emitted_ + int64_t(i));
      }
      if (with_ordinality_) out.AddColumn(std::move(ordinals));
      out.AddColumn(std::move(numbers));
      out.set_cardinality(n);
      rows_emitted_ += int64_t(n);
      Emit(StreamChunk(std::vector<Op>(n, Op::kInsert), std::move(out)));
    }
  } catch (const SqlError& e) {
    spdlog::warn("{} in FROM failed after {} rows (no more rows): {}", function_, rows_emitted_, e.what());
    done = true;
  }
  emitted_ = done;
  std::string progress;
  EncodeRowValues({Value::Int64(rows_emitted_), Value::Boolean(done)}, &progress);
  table_->Put(table_->KeyIn(0), progress);
}

void ValuesOperator::DoWork() {
  if (!function_.empty()) return EmitFunctionChunk();
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
