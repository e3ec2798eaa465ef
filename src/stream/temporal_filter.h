// TemporalFilter: a filter whose condition reads now() (WHERE ts > now() -
// INTERVAL '1 hour'), kept exact as time passes.
//
// now() is the time of the last barrier (its epoch's physical time). Every
// input row that may change outcome is kept, with whether it currently
// passes; at each barrier the condition is evaluated again, with the
// barrier's time, for the kept rows that may have changed (below), and rows
// that start or stop passing are inserted or deleted downstream.
// One actor holds all rows (loaded from the state table at start, with the
// time of the last barrier).
//
// When the condition is an AND of comparisons with now() that move one way
// (planner's SplitTemporalCondition: ts > now() - INTERVAL '1 hour'
// expires rows, ts <= now() matures them), a row whose outcome can no
// longer change leaves the state: one that expired, or failed a conjunct
// without now(), fails for good; one that passes with nothing left to
// expire passes for good. A retraction of a row no longer kept is emitted
// when the row passes now. So the state holds only the rows still waiting
// to enter or to expire: bounded under an endless stream.
//
// Rows ordered by expiry: when every such conjunct compares a value of the
// row with a bound computed from now() alone (the usual shape), the kept
// rows are also indexed by that value, per conjunct. The bound only grows,
// so at a barrier exactly the rows at the front of an index, up to the new
// bound, can change outcome: only they are evaluated again. A barrier costs
// the rows whose bound passed, not every kept row. Other conditions (or a
// bound that is NULL) evaluate every kept row at every barrier, which is
// exact for any condition.
#pragma once

#include <map>
#include <set>

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

 // Kept rows evaluated again at the last barrier (tests: a barrier visits
  // only the rows whose bound passed).
  size_t rows_visited_at_last_barrier() const { return visited_at_last_barrier_; }

 private:
  struct Entry {
    Row row;
    bool passes = false;
    std::vector<Value> values;  // the row's side of each moving bound
  };
  using Rows = std::map<std::string, Entry>;  // by encoded stream key

  // A conjunct `row value > bound` (expiring) or `row value <= bound`
  // (maturing, either comparison strict or not) whose bound is computed
  // from now() alone and grows with it. `waiting` holds the kept rows
  // whose value the bound has not reached, ordered by value: a row leaves
  // it when the bound crosses it, which is when its conjunct changes.
  struct MovingBound {
    ExprPtr row_side, now_side;
    bool crossed_at_equal = false;  // the conjunct changes when value == bound
    Value bound;                    // now_side at the time of the last barrier
    struct Less {
      bool operator()(const std::pair<Value, std::string>& a, const std::pair<Value, std::string>& b) const {
        int c = Value::Compare(a.first, b.first);
        return c != 0 ? c < 0 : a.second < b.second;
      }
    };
    std::set<std::pair<Value, std::string>, Less> waiting;
    bool Crossed(const Value& v) const {
      int c = Value::Compare(v, bound);
      return c < 0 || (c == 0 && crossed_at_equal);
    }
  };

  // Whether each row of `rows` passes at the current time (none before
  // the first barrier gives one), and in *settled (when given) whether its
  // outcome can no longer change (never without a split condition).
  std::vector<uint8_t> Evaluate(const DataChunk& rows, std::vector<uint8_t>* settled = nullptr);
  // The moving bounds of the split condition, when every temporal conjunct
  // has that shape (else none: every barrier evaluates every row).
  void FindMovingBounds();
  // Evaluates each bound's now side at the current time; false (and no
  // bounds from then on) when one is NULL.
  bool ComputeBounds();
  // The row side of each bound for each row of `rows`.
  std::vector<std::vector<Value>> BoundValues(const DataChunk& rows);
  // Enters a kept row into the waiting set of each bound it has not crossed.
  void Track(const std::string& key, const Entry& e);
  void Untrack(const std::string& key, const Entry& e);
  // Evaluates `entries` at the current time: emits the rows whose outcome
  // changed, forgets those whose outcome is final.
  void Reevaluate(const std::vector<Rows::iterator>& entries);

  ExprPtr predicate_;
  std::vector<int> stream_key_;
  std::vector<DataType> types_;
  StateTableDesc desc_, time_desc_;
  EvalContext eval_;
  std::shared_ptr<StateTable> table_, time_table_;
  Rows rows_;
  bool have_time_ = false;
  std::optional<TemporalConjuncts> split_;
  std::vector<MovingBound> bounds_;
  size_t visited_at_last_barrier_ = 0;
};

}  // namespace freshet
