// ProjectSet: a projection with set-returning functions (SELECT a,
// unnest(b) FROM t), stateless. Each input row gives as many rows as its
// longest function (the plain expressions repeat, exhausted functions give
// NULL; no row when every function has none), each with the input row's
// op and, last, its number among them from 0 (a hidden stream key column).
// A delete generates the same rows as the insert did (the functions are
// immutable), so retractions need no state. Update pairs become a delete
// and an insert (the two rows may generate different numbers of rows).
#pragma once

#include "expr/expression.h"
#include "stream/operator.h"

namespace freshet {

class ProjectSetOperator : public StreamOperator {
 public:
  // `outer`: an input row whose functions give no row gives one, their
  // columns NULL (LEFT JOIN LATERAL of a function). `condition` (over the
  // output columns; LEFT JOIN LATERAL ... ON it): only the generated rows
  // that pass it are emitted, and count for `outer`.
  ProjectSetOperator(std::vector<ExprPtr> exprs, EvalContext eval, bool outer = false, ExprPtr condition = nullptr);
  std::string Name() const override { return "ProjectSet"; }
  void OnChunk(int input, StreamChunk chunk) override;

 private:
  void Flush();
  // Moves the staged rows that pass the condition to the output.
  void Drain(Op op, bool* any_passed);

  std::vector<ExprPtr> exprs_;
  EvalContext eval_;
  bool outer_;
  ExprPtr condition_;
  DataChunk staged_;  // with a condition: an input row's generated rows, to be checked
  std::vector<DataType> out_types_;
  DataChunk out_;
  std::vector<Op> ops_;
};

}  // namespace freshet
