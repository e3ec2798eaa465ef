// HashAgg: incremental aggregation, grouped (GROUP BY) or global (no group
// keys: one row that exists even for an empty input).
//
// Each input row adds (+1) or retracts (-1) itself from its group. At each
// barrier the operator emits, for every group that changed, the difference
// between its previous and its new output row (Insert, Delete, or an
// UpdateDelete/UpdateInsert pair) and saves the group's state.
//
// State, per group, all of it kept in memory once touched and written
// through to the job's internal tables:
//   - the result table: group columns, the group's row count and the small
//     states of count/sum/avg (AggregateFunction::SaveState);
//   - one input table per call that needs its inputs to stay exact under
//     retraction: min/max/bool_and/bool_or (ordered by value: deleting the
//     current extreme finds the next one), string_agg/array_agg (ordered by
//     their ORDER BY) and DISTINCT calls (each value with its multiplicity).
// A group not in memory is loaded from those tables on first use; of the
// inputs of min/max/bool_and/bool_or only the most extreme ones are
// (TopNCache: 64, read back from the table when deletes use them up). Groups
// are cached within the process's state cache budget (state_cache.h): at a barrier,
// the least recently changed groups whose state is committed are dropped.
//
// A group key with a watermark (`window_column`) closes groups: once the
// watermark passes a group's value no row comes for it, and its state is
// deleted, so the state holds the open windows only (all of them in
// memory, loaded at start). With EMIT ON WINDOW CLOSE a group's row is
// emitted then, once, as an insert (the output is append-only), not as it
// changes.
//
// Over an append-only input (`input_append_only`) nothing is ever
// retracted, so multiplicities are not kept current: a DISTINCT (no calls)
// saves each group once, and a DISTINCT call saves each value once, when
// it first appears (later duplicates write nothing).
#pragma once

#include <map>
#include <unordered_map>

#include "expr/aggregate.h"
#include "planner/stream_plan.h"
#include "stream/operator.h"
#include "stream/state_cache.h"
#include "stream/top_n_cache.h"

namespace freshet {

class HashAggOperator : public StreamOperator {
 public:
  // `call_tables[i]` is the input table of call i (table_id 0 when none).
  HashAggOperator(std::vector<int> group_keys, std::vector<StreamAggCall> calls, std::vector<int> input_stream_key,
                  std::vector<DataType> output_types, StateTableDesc result_table,
                  std::vector<StateTableDesc> call_tables, EvalContext eval, bool input_append_only = false,
                  int window_column = -1, bool emit_on_window_close = false);
  std::string Name() const override { return group_keys_.empty() ? "SimpleAgg" : "HashAgg"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;
  // Group keys keep their input's watermarks (a group below one gets no
  // more rows); with EMIT ON WINDOW CLOSE the window column's closes
  // groups at the barrier.
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override;

 private:
  // kExtreme: min/max/bool_and/bool_or with retractions (their most
  // extreme inputs cached); kInputs: string_agg/array_agg (all inputs);
  // kDistinctInputs: string_agg/array_agg(DISTINCT ...): each distinct
  // argument tuple once in the inputs, with its multiplicity in `distinct`.
  enum class CallMode { kValue, kDistinct, kInputs, kExtreme, kDistinctInputs };
  struct Group {
    Row keys;
    std::string key;   // memcomparable group key
    uint16_t vnode = 0;
    int64_t row_count = 0;
    bool dirty = false;
    bool emitted = false;  // prev_output is in the downstream
    Row prev_output;
    // Per call: kInputs: ordered inputs -> argument values; kDistinct:
    // value key -> (value, multiplicity), hashed: a lookup per input row
    // and call, where a tree of millions of values cost a cache miss per
    // level (Nexmark q16: 8 DISTINCT calls per row).
    std::vector<std::map<std::string, Row>> inputs;
    std::vector<std::unordered_map<std::string, std::pair<Value, int64_t>>> distinct;
    // Per kExtreme call: its inputs, most extreme first (stored rows).
    std::vector<std::unique_ptr<TopNCache>> extremes;
    Epoch written = 0;  // the last epoch that changed it
    size_t bytes = 0;   // estimated memory, as of its last barrier
    LruOrder<std::string>::Handle lru;
  };

  uint32_t GroupOf(const DataChunk& data, size_t row, std::string* key);
  void LoadGroup(uint32_t g);
  Row OutputOf(uint32_t g);
  // The current min/max/bool_and/bool_or of call i (NULL without inputs).
  Value ExtremeOf(Group& grp, size_t i);
  void SaveGroup(uint32_t g);
  std::string ResultKey(const Group& grp) const;
  size_t EstimateBytes(const Group& grp) const;
  // Forgets group g (its state stays in the tables).
  void Drop(uint32_t g);
  void Evict();
  // Drops the groups left empty whose deletes are committed.
  void ForgetEmptied();
  // With a window column every open group is in memory (loaded at Open).
  // EMIT ON WINDOW CLOSE: at a barrier the changed groups are saved, not
  // emitted, and those whose window is below the watermark are emitted
  // once. Either way, groups below the watermark are then forgotten, their
  // state deleted (ForgetClosed).
  void LoadOpenWindows();
  void CloseWindows(const Barrier& barrier);
  void ForgetClosed(bool emit);
  void DeleteGroupState(uint32_t g);

  std::vector<int> group_keys_;
  std::vector<StreamAggCall> calls_;
  std::vector<CallMode> modes_;
  std::vector<int> input_stream_key_;
  std::vector<DataType> output_types_;
  StateTableDesc result_desc_;
  std::vector<StateTableDesc> call_descs_;
  EvalContext eval_;
  const bool input_append_only_;
  const bool distinct_append_only_;  // DISTINCT (no calls) over an append-only input

  std::vector<std::unique_ptr<AggregateFunction>> fns_;  // kValue and kDistinct calls
  std::shared_ptr<StateTable> result_table_;
  std::vector<std::shared_ptr<StateTable>> call_tables_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<Group> groups_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> dirty_;
  std::vector<uint32_t> emptied_;  // groups left empty, dropped once committed
  LruOrder<std::string> lru_;
  size_t bytes_ = 0;
  StateCacheShare share_;
  Epoch epoch_ = 0;  // of the writes since the last barrier (0: before the first)
  // The window column's position among the group keys (-1: none), the
  // watermark that arrived with the barrier being handled, and the one
  // below which windows are closed (rows for them are late: dropped and
  // counted).
  int window_key_ = -1;
  const bool emit_on_window_close_;
  Value pending_watermark_, closed_below_;
  int64_t late_rows_ = 0;
};

}  // namespace freshet
