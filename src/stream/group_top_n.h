// GroupTopN: row_number() OVER (PARTITION BY p ORDER BY o) <= N, kept up to
// date (Nexmark q9, q18, q19). With ties (rank() <= N, FETCH FIRST N ROWS
// WITH TIES): also the rows equal on the order keys to the Nth, each with
// its rank (1 + the rows ordered strictly before it) instead of its row
// number; every row is then kept, even over an append-only input.
//
// Per partition, every input row is kept ordered by (order key, stream
// key) in the state table; over an append-only input only the first N rows
// are (a row ranked below them can never rise: nothing is deleted). Output:
// the rows ranked 1..N of each partition with their rank (row_number)
// appended; at each barrier, the changed partitions' windows are compared
// with what was emitted and the difference is emitted (a row whose rank
// changed is replaced).
//
// In memory, a partition keeps only its best-ranked rows (TopNCache: twice
// N, read back from the table when deletes eat into them), in the row
// encoding (the state table's value bytes). Partitions themselves are
// cached within the process's state cache budget (state_cache.h): a
// partition not in memory is loaded from the state table, and what it
// emitted is then its first N rows, which is what it had emitted when it
// was dropped (only partitions whose changes were emitted and committed are
// dropped).
//
// With EMIT ON WINDOW CLOSE (`window_column`, a watermarked partition
// column) nothing is emitted until the watermark passes a partition's
// window; then its rows are emitted once, as inserts, and its state is
// deleted.
#pragma once

#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "planner/stream_plan.h"
#include "stream/operator.h"
#include "stream/state_cache.h"
#include "stream/top_n_cache.h"

namespace freshet {

class GroupTopNOperator : public StreamOperator {
 public:
  GroupTopNOperator(std::vector<int> partition, std::vector<StreamOrderKey> order, std::vector<int> stream_key,
                    int64_t limit, std::vector<DataType> input_types, StateTableDesc table, bool append_only_input,
                    bool with_ties = false, int window_column = -1);
  std::string Name() const override { return "GroupTopN"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;
  // Partition columns keep their watermarks; with EMIT ON WINDOW CLOSE the
  // window column's closes partitions.
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override;

  // Partitions in memory (for tests of the cache).
  size_t cached_partitions() const { return partitions_.size(); }

 private:
  using RankedRows = std::vector<std::pair<std::string, std::string>>;  // (rank key, row) in rank order
  struct Partition {
    uint16_t vnode = 0;
    bool dirty = false;
    Epoch written = 0;  // the epoch of its last change
    size_t bytes = 0;   // estimated memory
    std::unique_ptr<TopNCache> rows;
    RankedRows emitted;  // the rows last emitted, in rank order
    std::vector<int64_t> emitted_ranks;  // their ranks (row numbers unless with ties)
    size_t emitted_bytes = 0;
    LruOrder<std::string>::Handle lru;
    Value window;  // EMIT ON WINDOW CLOSE: its window column's value
  };
  Partition& PartitionOf(const std::string& key, uint16_t vnode);
  // EMIT ON WINDOW CLOSE (over an append-only input without ties: a
  // partition holds its top rows only, all in memory, loaded at Open): the
  // partitions below the watermark emit their rows and are deleted.
  void LoadOpenWindows();
  void CloseWindows(const Barrier& barrier);
  // The partition's rows in the window and their ranks (reads more rows
  // from the state table when ties run past the cached ones).
  RankedRows Window(Partition& p, std::vector<int64_t>* ranks);
  // The memcomparable order key of an encoded row.
  std::string OrderKeyOf(const std::string& row) const;
  // Updates the partition's estimated memory and the operator's total.
  void Account(const std::string& key, Partition& p);
  void AppendOutput(const std::pair<std::string, std::string>& row, int64_t rank, DataChunk* out) const;
  void Evict();
  void ForgetEmptied(Epoch committed);

  std::vector<int> partition_;
  std::vector<StreamOrderKey> order_;
  std::vector<int> stream_key_;
  int64_t limit_;
  bool append_only_input_;
  bool with_ties_;
  std::vector<DataType> input_types_, output_types_;
  StateTableDesc desc_;
  std::shared_ptr<StateTable> table_;
  std::unordered_map<std::string, Partition> partitions_;
  std::vector<std::string> dirty_;
  std::vector<std::string> emptied_;  // partitions left empty, forgotten once committed
  LruOrder<std::string> lru_;
  size_t bytes_ = 0;
  StateCacheShare share_;
  Epoch epoch_ = 0;  // of the writes since the last barrier (0: before the first)
  int window_column_ = -1;
  Value pending_watermark_;
};

}  // namespace freshet
