// TopN: ORDER BY ... LIMIT/OFFSET over its whole input, on one actor.
//
// Every input row is kept in the state table, ordered by (sort key, stream
// key); over an append-only input only the first offset + limit rows are,
// since a row ranked below them can never come back into the window
// (nothing is ever deleted). In memory there is only the best-ranked part
// of them (TopNCache: twice the window, read back from the table when
// deletes eat into it). At each barrier, if anything changed, the rows
// ranked [offset, offset + limit) are compared with the ones emitted
// before, and the difference is emitted.
#pragma once

#include <map>
#include <memory>

#include "planner/stream_plan.h"
#include "stream/operator.h"
#include "stream/top_n_cache.h"

namespace freshet {

class TopNOperator : public StreamOperator {
 public:
  TopNOperator(std::vector<StreamOrderKey> order, std::vector<int> stream_key, int64_t limit, int64_t offset,
               std::vector<DataType> types, StateTableDesc table, bool append_only_input);
  std::string Name() const override { return "TopN"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

  // Rows held in memory (for tests of the cache).
  size_t cached_rows() const { return cache_->rows().size(); }

 private:
  std::string RankKey(const DataChunk& data, size_t row) const;
  // The rows ranked [offset, offset + limit), from the cache.
  std::map<std::string, std::string> Window() const;

  std::vector<StreamOrderKey> order_;
  std::vector<int> stream_key_;
  int64_t limit_, offset_;
  bool append_only_input_;
  std::vector<DataType> types_;
  StateTableDesc desc_;
  std::shared_ptr<StateTable> table_;
  std::unique_ptr<TopNCache> cache_;
  std::map<std::string, std::string> emitted_;  // the window last emitted: rank key -> encoded row
  Epoch epoch_ = 0;  // of the writes since the last barrier (0: before the first)
  bool dirty_ = false;
};

}  // namespace freshet
