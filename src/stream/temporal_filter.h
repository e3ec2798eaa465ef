// TemporalFilter: a filter whose condition reads now() (WHERE ts > now() -
// INTERVAL '1 hour'), kept exact as time passes.
//
// now() is the time of the last barrier (its epoch's physical time). Every
// input row is kept, with whether it currently passes; at each barrier the
// condition is evaluated again for every kept row with the barrier's time,
// and rows that start or stop passing are inserted or deleted downstream.
// One actor holds all rows (loaded from the state table at start, with the
// time of the last barrier). Re-evaluating every row at every barrier is
// exact for any condition; for large inputs a time-ordered index that only
// visits rows near the moving bound would be the next step.
//
// When the condition is an AND of comparisons with now() that move one way
// (planner's SplitTemporalCondition: ts > now() - INTERVAL '1 hour'
// expires rows, ts <= now() matures them), a row whose outcome can no
// longer change leaves the state: one that expired, or failed a conjunct
// without now(), fails for good; one that passes with nothing left to
// expire passes for good. A retraction of a row no longer kept is emitted
// when the row passes now. So the state holds only the rows still waiting
// to enter or to expire: bounded under an endless stream.
#pragma once

#include <map>

#include "expr/expression.h"
#include "planner/stream_plan.h"
#include "stream/operator.h"

namespace freshet {

class TemporalFilterOperator : public StreamOperator {
 public:
  // `rows` keeps the input rows; `time` the time of the last barrier.
  TemporalFilterOperator(ExprPtr predicate, std::vector<int> stream_key, std::vector<DataType> types,
                         StateTableDesc rows, StateTableDesc time, EvalContext eval);
  std::string Name() const override { return "TemporalFilter"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

 private:
  struct Entry {
    Row row;
    bool passes = false;
  };
  // Whether each row of `rows` passes at the current time (none before
  // the first barrier gives one), and in *settled (when given) whether its
  // outcome can no longer change (never without a split condition).
  std::vector<uint8_t> Evaluate(const DataChunk& rows, std::vector<uint8_t>* settled = nullptr);

  ExprPtr predicate_;
  std::vector<int> stream_key_;
  std::vector<DataType> types_;
  StateTableDesc desc_, time_desc_;
  EvalContext eval_;
  std::shared_ptr<StateTable> table_, time_table_;
  std::map<std::string, Entry> rows_;  // by encoded stream key
  bool have_time_ = false;
  std::optional<TemporalConjuncts> split_;
};

}  // namespace freshet
