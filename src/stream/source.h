// Source: the head of an actor that reads a source connector.
//
// The actor reads the splits assigned to it (split s goes to actor
// s % parallelism), a chunk per step, round robin, at most at the
// connector's rate. Each row gets a hidden _row_id built from its split and
// its number within the split, so it is the same if the row is read again
// after a restart. Per split, the offset and the number of rows read are
// saved in the job's state table at every barrier; a restarted source goes
// on from there, so no row is lost or repeated across a crash.
#pragma once

#include <chrono>

#include "connector/connector.h"
#include "stream/operator.h"
#include "stream/watermark_filter.h"

namespace freshet {

class SourceOperator : public StreamOperator {
 public:
  // `watermark`: the source's WATERMARK FOR (null: none). Late rows are
  // dropped before they are emitted; the watermark goes down with each
  // barrier and is saved with the offsets (under split -(actor index + 1):
  // its column is an integer, date or timestamp, an int64 as offsets are).
  SourceOperator(std::map<std::string, std::string> options, std::vector<SourceColumn> columns,
                 std::vector<DataType> output_types, int row_id_index, StateTableDesc offsets,
                 std::unique_ptr<WatermarkFilter> watermark = nullptr, int level = 0);
  std::string Name() const override { return "Source"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int, StreamChunk) override {}
  void OnBarrier(const Barrier& barrier) override;
  bool HasWork() const override;
  void DoWork() override;

 private:
  std::string WatermarkKey() const;
  struct Split {
    int id;
    std::unique_ptr<SplitReader> reader;
    int64_t rows = 0;
    bool exhausted = false;
    bool dirty = false;
  };
  std::map<std::string, std::string> options_;
  std::vector<SourceColumn> columns_;
  std::vector<DataType> source_types_;
  std::vector<DataType> output_types_;
  int row_id_index_;
  StateTableDesc offsets_desc_;
  std::shared_ptr<StateTable> offsets_;
  std::unique_ptr<SourceConnector> connector_;
  std::vector<Split> splits_;
  size_t next_split_ = 0;
  int level_;  // read once the job's backfills below it finished (job_tracker.h)
  bool started_ = false;
  // Rate limit: rows allowed so far since `rate_start_`.
  double rows_per_second_ = 0;
  std::chrono::steady_clock::time_point rate_start_;
  int64_t rows_since_start_ = 0;
  std::unique_ptr<WatermarkFilter> watermark_;
  bool watermark_dirty_ = false;
  int64_t late_rows_ = 0;
};

}  // namespace freshet
