// Values: the rows of VALUES (or of a SELECT without FROM) in a stream job,
// emitted once. The head of its actor (it has no input; barriers are
// injected as into sources). After the first barrier it emits its rows,
// each with its number (a hidden stream key column), and records that it
// did in its state table: the record commits with the epoch that carries
// the rows, so a job restarted after that emits nothing again, and one
// restarted before it emits them again (exactly once either way).
//
// For a function in FROM over constants (generate_series(1, 10)) the rows
// are the function's (expr/table_function.h), a chunk at a time between
// barriers (a series of billions is as a source, not one epoch), and the
// state table holds how many were emitted and whether that was all: a
// restarted job makes the rows again and skips those. A function that fails
// (a zero step; the planner tries its first rows at CREATE) logs a warning
// and ends its rows there, as a failing VALUES expression is NULL. The job
// counts the function's rows as its backfill: CREATE returns (and SHOW JOBS
// stops listing it) once they are all emitted.
#pragma once

#include <memory>

#include "expr/expression.h"
#include "expr/table_function.h"
#include "stream/operator.h"

namespace freshet {

class ValuesOperator : public StreamOperator {
 public:
  ValuesOperator(std::vector<std::vector<ExprPtr>> rows, std::vector<DataType> types, StateTableDesc table, EvalContext eval);
  std::string Name() const override { return "Values"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int, StreamChunk) override {}
  void OnBarrier(const Barrier& barrier) override;
  bool HasWork() const override { return started_ && !emitted_; }
  void DoWork() override;
  // Rows from a function in FROM instead (`rows` is then empty).
  void SetFunction(std::string name, std::vector<ExprPtr> args, bool with_ordinality);

 private:
  // Emits the function's next chunk and records how far it got.
  void EmitFunctionChunk();
  std::string function_;
  std::vector<ExprPtr> function_args_;
  bool with_ordinality_ = false;
  std::vector<DataType> function_types_;
  std::unique_ptr<TableFunctionRows> generator_;
  int64_t rows_emitted_ = 0;
  bool reported_ = false;
  std::vector<std::vector<ExprPtr>> rows_;
  std::vector<DataType> types_;  // the rows' columns, then the row number
  StateTableDesc desc_;
  EvalContext eval_;
  std::shared_ptr<StateTable> table_;
  bool started_ = false;
  bool emitted_ = false;
};

}  // namespace freshet
