// GroupTopN: row_number() OVER (PARTITION BY p ORDER BY o) <= N, kept up to
// date (Nexmark q9, q18, q19).
//
// Per partition, every input row is kept ordered by (order key, stream
// key), in memory and in the state table (a partition is loaded on first
// use); over an append-only input only the first N rows are (a row ranked
// below them can never rise: nothing is deleted). Output: the rows ranked 1..N of each partition with their rank
// (row_number) appended; at each barrier, the changed partitions' windows
// are compared with what was emitted and the difference is emitted (a row
// whose rank changed is replaced).
#pragma once

#include <map>
#include <unordered_map>

#include "planner/stream_plan.h"
#include "stream/operator.h"

namespace freshet {

class GroupTopNOperator : public StreamOperator {
 public:
  GroupTopNOperator(std::vector<int> partition, std::vector<StreamOrderKey> order, std::vector<int> stream_key,
                    int64_t limit, std::vector<DataType> input_types, StateTableDesc table, bool append_only_input);
  std::string Name() const override { return "GroupTopN"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

 private:
  struct Partition {
    uint16_t vnode = 0;
    std::map<std::string, Row> rows;     // by rank key
    std::map<std::string, Row> emitted;  // rank key -> output row (with rank)
    bool dirty = false;
  };
  Partition& PartitionOf(const std::string& key, uint16_t vnode);

  std::vector<int> partition_;
  std::vector<StreamOrderKey> order_;
  std::vector<int> stream_key_;
  int64_t limit_;
  bool append_only_input_;
  std::vector<DataType> input_types_, output_types_;
  StateTableDesc desc_;
  std::shared_ptr<StateTable> table_;
  std::unordered_map<std::string, Partition> partitions_;
  std::vector<std::string> dirty_;
};

}  // namespace freshet
