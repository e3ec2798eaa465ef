#include "stream/project_set.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
#include "expr/table_function.h"
#include "stream/eval.h"

namespace freshet {

ProjectSetOperator::ProjectSetOperator(std::vector<ExprPtr> exprs, EvalContext eval, bool outer, ExprPtr condition)
    : exprs_(std::move(exprs)), eval_(std::move(eval)), outer_(outer), condition_(std::move(condition)) {
  for (const auto& e : exprs_) out_types_.push_back(e->type());
  out_types_.push_back(DataType::Int64());
  out_ = DataChunk(out_types_);
  staged_ = DataChunk(out_types_);
}

void ProjectSetOperator::Drain(Op op, bool* any_passed) {
  const size_t n = staged_.num_rows();
  if (n == 0) return;
  staged_.set_cardinality(n);
  std::vector<uint8_t> keep = ToMask(EvalRowTolerant(*condition_, staged_, eval_));
  for (size_t i = 0; i < n; i++) {
    if (!keep[i]) continue;
    *any_passed = true;
    out_.AppendRowFrom(staged_, i);
    ops_.push_back(op);
    if (ops_.size() >= kChunkSize) Flush();
  }
  staged_ = DataChunk(out_types_);
}

void ProjectSetOperator::Flush() {
  if (ops_.empty()) return;
  out_.set_cardinality(ops_.size());
  Emit(StreamChunk(std::move(ops_), std::move(out_)));
  ops_.clear();
  out_ = DataChunk(out_types_);
}

void ProjectSetOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  const size_t n = chunk.num_rows();
  // Plain expressions and the functions' arguments, once per chunk.
  std::vector<Vector> plain(exprs_.size());
  std::vector<std::vector<Vector>> args(exprs_.size());
  for (size_t e = 0; e < exprs_.size(); e++) {
    if (exprs_[e]->kind() == Expression::Kind::kSetFunction) {
      for (const auto& a : exprs_[e]->children()) args[e].push_back(EvalRowTolerant(*a, data, eval_));
    } else {
      plain[e] = EvalRowTolerant(*exprs_[e], data, eval_);
    }
  }
  for (size_t r = 0; r < n; r++) {
    const Op op = IsInsertOp(chunk.ops()[r]) ? Op::kInsert : Op::kDelete;
    // The row's functions, each with its current chunk of values.
    struct Running {
      std::unique_ptr<TableFunctionRows> rows;
      DataChunk chunk;
      size_t pos = 0;
      bool done = true;
    };
    std::vector<Running> fns(exprs_.size());
    bool passed = false;  // with a condition: a generated row passed it
    // A row of `into`: the plain expressions, each function's next value
    // (NULL once it is done), the row's number.
    auto append = [&](DataChunk& into, int64_t number) {
      for (size_t e = 0; e < exprs_.size(); e++) {
        Vector& col = into.column(e);
        if (exprs_[e]->kind() != Expression::Kind::kSetFunction) col.AppendFrom(plain[e], r);
        else if (fns[e].done) col.AppendNull();
        else col.AppendFrom(fns[e].chunk.column(0), fns[e].pos++);
      }
      into.column(exprs_.size()).AppendInt(number);
    };
    for (size_t e = 0; e < exprs_.size(); e++) {
      if (exprs_[e]->kind() != Expression::Kind::kSetFunction) continue;
      const auto& fn = static_cast<const SetFunctionExpr&>(*exprs_[e]);
      TableFunctionCall call{fn.name(), {}, {fn.type()}};
      for (const auto& a : args[e]) call.args.push_back(a.GetValue(r));
      try {
        fns[e].rows = MakeTableFunctionRows(call, eval_);
        fns[e].done = false;
      } catch (const SqlError& err) {
        // As any expression error in a stream: no rows from it, a warning.
        spdlog::warn("{} failed, giving no rows: {}", fn.ToString(), err.what());
      }
    }
    for (int64_t number = 0;; number++) {
      bool any = false;
      for (auto& f : fns) {
        if (f.done) continue;
        while (f.pos >= f.chunk.num_rows() && !f.done) {
          f.pos = 0;
          try {
            f.done = !f.rows->Next(&f.chunk);
          } catch (const SqlError& err) {
            spdlog::warn("a set-returning function failed, ending its rows: {}", err.what());
            f.done = true;
          }
        }
        any |= !f.done;
      }
      // Outer: a row without any gives one, the functions' columns NULL
      // (every function is done, so the loop below appends NULLs). With a
      // condition, that row comes once none of the generated ones passed.
      if (!any && !(outer_ && number == 0 && !condition_)) break;
      append(condition_ ? staged_ : out_, number);
      if (condition_) {
        if (staged_.num_rows() >= kChunkSize) Drain(op, &passed);
      } else {
        ops_.push_back(op);
        if (ops_.size() >= kChunkSize) Flush();
      }
      if (!any) break;  // the outer row
    }
    if (condition_) {
      Drain(op, &passed);
      if (outer_ && !passed) {
        append(out_, 0);  // every function is done: their columns NULL
        ops_.push_back(op);
        if (ops_.size() >= kChunkSize) Flush();
      }
    }
  }
  Flush();
}

}  // namespace freshet
