// HashAggregate: groups rows by key and folds aggregates per group.
//
// Group keys are encoded memcomparably into one string per row, which is
// the hash-table key (one integer-like key is hashed as the integer); the
// key values of each group are kept once in `group_values_`. Without GROUP
// BY there is exactly one group, even on empty input (count(*) of nothing
// is 0).
//
// Next() reads the whole input at its first call (Consume), finalizes the
// aggregates (Finish) and then returns the groups. A partitioned
// aggregation (parallel_aggregate.cc) instead calls Consume() on two of
// them over parts of the input, on two threads, and Absorb()s one into
// the other (when Mergeable()) before the first Next().
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "batch/executor.h"
#include "expr/aggregate.h"
#include "planner/plan.h"

namespace freshet {

class HashAggregateExecutor : public Executor {
 public:
  HashAggregateExecutor(const AggregateNode& node, ExecutorPtr child, ExecContext& ctx);

  bool Next(DataChunk* out) override;

  // Reads the whole input into groups (once).
  void Consume();
  // Whether every aggregate's partial state can be merged (no DISTINCT or
  // ORDER BY; each AggregateFunction::Mergeable).
  static bool Mergeable(const AggregateNode& node);
  // Folds other's groups (of the same node, Consumed, Mergeable) into this
  // one's, as if this one had consumed other's input too.
  void Absorb(const HashAggregateExecutor& other);

 private:
  void Finish();
  // The group of row `row` of the key columns, added when new.
  uint32_t GroupOf(const DataChunk& keys, size_t row, std::string* key);
  static void MarkKeyChanges(const DataChunk& keys, std::vector<uint8_t>* changed);
  uint32_t AddGroup(const std::string& key, const DataChunk* keys, size_t row);
  void Update(size_t a, const DataChunk& in, const std::vector<uint32_t>& groups);

  // Rows of an aggregate with ORDER BY, held until the input ends.
  struct OrderedRows {
    DataChunk args;
    std::vector<uint32_t> groups;
    std::vector<std::string> keys;
  };
  static bool Ordered(const AggregateCall& call);
  void BufferOrdered(size_t a, const DataChunk& in, const std::vector<uint32_t>& groups,
                     const std::vector<Vector>& args, const std::vector<uint8_t>& keep);
  void ReplayOrdered(size_t a);

  const AggregateNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  std::vector<std::unique_ptr<AggregateFunction>> aggs_;
  std::vector<std::unordered_set<std::string>> distinct_seen_;
  std::vector<OrderedRows> ordered_;
  std::unordered_map<std::string, uint32_t> index_;
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  std::unordered_map<int64_t, uint32_t> int_index_;
  uint32_t null_group_ = kNoGroup;
  DataChunk group_values_;
  size_t num_groups_ = 0;
  std::vector<Vector> results_;
  bool consumed_ = false, finished_ = false;
  size_t emitted_ = 0;
};

}  // namespace freshet
