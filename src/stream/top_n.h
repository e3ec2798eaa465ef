// TopN: ORDER BY ... LIMIT/OFFSET over its whole input, on one actor.
//
// Every input row is kept, ordered by (sort key, stream key), in memory and
// in the state table (loaded when the actor starts); over an append-only
// input only the first offset + limit rows are, since a row ranked below
// them can never come back into the window (nothing is ever deleted). At
// each barrier, if anything changed, the rows ranked [offset, offset +
// limit) are compared with the ones emitted before, and the difference is
// emitted.
#pragma once

#include <map>

#include "planner/stream_plan.h"
#include "stream/operator.h"

namespace freshet {

class TopNOperator : public StreamOperator {
 public:
  TopNOperator(std::vector<StreamOrderKey> order, std::vector<int> stream_key, int64_t limit, int64_t offset,
               std::vector<DataType> types, StateTableDesc table, bool append_only_input);
  std::string Name() const override { return "TopN"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

 private:
  std::string RankKey(const DataChunk& data, size_t row) const;

  std::vector<StreamOrderKey> order_;
  std::vector<int> stream_key_;
  int64_t limit_, offset_;
  bool append_only_input_;
  std::vector<DataType> types_;
  StateTableDesc desc_;
  std::shared_ptr<StateTable> table_;
  std::map<std::string, Row> rows_;      // all rows by rank key
  std::map<std::string, Row> emitted_;   // the window last emitted, by rank key
  bool dirty_ = false;
};

}  // namespace freshet
