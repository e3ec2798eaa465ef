// OverWindow: window functions of one PARTITION BY and ORDER BY, kept up to
// date (RisingWave's OverWindow). The input arrives hashed on the partition
// columns, so each partition lives on one actor.
//
// Every input row is kept in the state table, keyed by (partition, ORDER
// BY key, stream key), with the calls' values last emitted for it; a
// partition's rows are loaded into memory at its first use. Changes are
// applied to the partition as they come; at the barrier the rows of each
// changed partition whose values may have changed are evaluated again
// (planner/window_evaluator.h) and compared with what was emitted: rows
// whose values changed are emitted as update pairs, new rows as inserts,
// gone rows as deletes (deletes first, so a row moving within its
// partition is one key downstream).
//
// Which rows: when every call reads a bounded number of rows around the
// current one, independently of its position (lag/lead by a constant
// offset, ROWS frames with constant offsets, without EXCLUDE GROUP/TIES),
// a change at a row can only change the rows within that reach of it, and
// those are evaluated over the rows within reach of them (RisingWave's
// range-limited recomputation): a change costs its neighbourhood, not its
// partition. Otherwise (ranks, row_number, ntile, percent_rank,
// cume_dist, unbounded, RANGE and GROUPS frames) the partition is
// evaluated whole, which suits the partitions such windows are used over
// (per key, per user); one huge partition is evaluated whole at each
// barrier that changes it.
//
// Partitions in memory are a cache of the state table within the process's
// operator-state budget (stream/state_cache.h): past its share, the least
// recently changed partitions whose writes are committed are dropped, and
// loaded again at their next change. EMIT ON WINDOW CLOSE keeps every
// partition (a watermark may close rows of any of them).
//
// Output: the input's columns, then one column per call.
#pragma once

#include <map>
#include <set>
#include <unordered_map>

#include "planner/plan.h"
#include "stream/operator.h"
#include "stream/state_cache.h"

namespace freshet {

class OverWindowOperator : public StreamOperator {
 public:
  // `window_column` (EMIT ON WINDOW CLOSE): the ORDER BY column; a row
  // is emitted once, as an insert, at the first barrier whose watermark on
  // it passes it, never updated (the planner lets no call read later rows).
  // Every partition is in memory (loaded at Open); rows are saved as they
  // come and keep their values once emitted.
  OverWindowOperator(std::vector<int> partition, std::vector<WindowCall> calls, std::vector<int> stream_key,
                     std::vector<DataType> types, StateTableDesc table, EvalContext eval, int window_column = -1);
  std::string Name() const override { return "OverWindow"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;
  // The order column's watermark passes on, and closes rows (EMIT ON
  // WINDOW CLOSE); the partition columns' pass on.
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override;
  // Rows whose calls' values were computed since Open (tests: a change
  // costs its neighbourhood where the calls allow it).
  uint64_t rows_evaluated() const { return rows_evaluated_; }

 private:
  struct Row {
    std::string cells;    // the input row, encoded
    std::string values;   // the calls' values last emitted (empty: never emitted)
    bool saved = true;    // EMIT ON WINDOW CLOSE: in the state table
  };
  struct Partition {
    uint16_t vnode = 0;
    std::map<std::string, Row> rows;     // by ORDER BY key, then stream key
    std::map<std::string, Row> removed;  // emitted rows deleted since the barrier
    std::set<std::string> touched;       // keys inserted or deleted since the barrier
    bool dirty = false;
    Epoch written = 0;  // the last epoch that wrote its rows
    size_t bytes = 0;   // estimated memory, as of its last barrier
    LruOrder<std::string>::Handle lru;
  };
  Partition& PartitionOf(const std::string& key, uint16_t vnode);
  void Refresh(const std::string& key, Partition& p, Epoch epoch);
  void Append(DataChunk* out, const Row& row, bool new_values, const std::string& values) const;
  using RowIt = std::map<std::string, Row>::iterator;
  // The calls' values over the rows [first, last) of a partition, in its
  // order.
  DataChunk Evaluate(RowIt first, RowIt last) const;
  // EMIT ON WINDOW CLOSE: saves the rows taken, then emits those below the
  // watermark that arrived with the barrier.
  void CloseRows();
  size_t EstimateBytes(const std::string& key, const Partition& p) const;
  // Forgets the partition (its state stays in the table).
  void Drop(std::unordered_map<std::string, Partition>::iterator it);
  // Shrinks the partitions in memory to the cache's share.
  void Evict();

  std::vector<int> partition_;
  std::vector<WindowCall> calls_;
  std::vector<int> stream_key_;
  std::vector<DataType> types_;    // the input's
  std::vector<DataType> value_types_;  // the calls'
  std::vector<DataType> out_types_;
  StateTableDesc desc_;
  EvalContext eval_;
  std::shared_ptr<StateTable> table_;
  std::unordered_map<std::string, Partition> partitions_;
  std::vector<std::string> dirty_;
  // Emptied partitions, dropped from memory once their deletes are
  // committed (loading one earlier would bring its rows back).
  std::vector<std::string> emptied_;
  int window_column_ = -1;
  // How many rows before and after the current one the calls read at
  // most, whatever its position (kUnbounded: the partition is evaluated
  // whole).
  static constexpr int64_t kUnbounded = -1;
  int64_t reach_before_ = 0, reach_after_ = 0;
  mutable uint64_t rows_evaluated_ = 0;  // for tests: rows whose values were computed
  Value pending_watermark_;
  LruOrder<std::string> lru_;  // partitions by their last change
  size_t bytes_ = 0;           // the partitions' estimated memory
  StateCacheShare share_;
};

}  // namespace freshet
