// TopNCache: the best-ranked rows of one top-N partition, in memory, while
// all of its rows are in the operator's state table.
//
// A top-N operator over an input with deletes must keep every row (any of
// them can move into the window when a better one is deleted), but it only
// needs the first offset + limit of them at a time. This cache holds a
// prefix of the partition's rows in rank order, at most `capacity` of them
// (RisingWave keeps a like-sized "high" cache past the window). Rows ranked
// after the prefix are only in the state table. When deletes shrink the
// prefix below what the window needs, Ensure() reads the next rows back.
//
// The state table is drained at every barrier (StateTable::TakeWrites), so
// the committed store lacks the writes of epochs not yet committed. The
// cache therefore remembers every write that is not reflected in the prefix
// (inserts ranked after it, deletes, rows evicted from it) with its epoch,
// overlays them on the store when it reads back, and forgets them once
// their epoch is committed (Prune).
//
// Keys are rank keys (order key, then stream key, memcomparable); the
// storage key of a row is `prefix + rank key`. Rows are opaque bytes. A
// descending cache ranks greater keys first (the largest inputs of max()).
// Not thread-safe: owned by one operator on one actor.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "storage/keys.h"

namespace freshet {

class StateTable;

class TopNCache {
 public:
  // Rank order of keys: ascending, or descending.
  struct RankOrder {
    bool descending = false;
    bool operator()(const std::string& a, const std::string& b) const { return descending ? b < a : a < b; }
  };
  using RankedRows = std::map<std::string, std::string, RankOrder>;

  // `prefix`: [table][vnode][partition key] of the partition's storage keys.
  TopNCache(std::string prefix, size_t capacity, bool descending = false)
      : prefix_(std::move(prefix)), capacity_(capacity), rows_(RankOrder{descending}), writes_(RankOrder{descending}) {}

  // Loads the first rows from the committed store (at open or on a miss,
  // when nothing of the partition is uncommitted).
  void Load(const StateTable& table);

  // Records an inserted (or replaced) row, already written to the table in
  // `epoch` (0: before the operator's first barrier, epoch not known yet).
  void Insert(std::string rank_key, std::string row, Epoch epoch);
  // Records a deleted row, already deleted from the table in `epoch`.
  void Erase(const std::string& rank_key, Epoch epoch);
  // Makes sure the first n rows are cached, or all there are.
  void Ensure(size_t n, const StateTable& table);
  // Lets the cache hold at least `capacity` rows from now on (a window of
  // ties longer than it was made for).
  void Grow(size_t capacity) { capacity_ = std::max(capacity_, capacity); }

  // Gives the writes recorded with epoch 0 their epoch (at the first barrier).
  void StampUnknown(Epoch epoch);
  // Forgets the remembered writes of epochs up to `committed`.
  void Prune(Epoch committed);

  // The cached rows, best first: the first rows of the partition.
  const RankedRows& rows() const { return rows_; }
  // Whether the cached rows are all of the partition's rows.
  bool complete() const { return complete_; }
  // Estimated heap bytes of the cache.
  size_t bytes() const { return bytes_; }

 private:
  struct Write {
    Epoch epoch = 0;                 // 0: before the first barrier
    std::optional<std::string> row;  // nullopt: deleted
  };
  void Remember(const std::string& rank_key, std::optional<std::string> row, Epoch epoch);
  void EvictLast(Epoch epoch);
  // Appends up to n rows ranked after the cached ones (store + writes).
  void ReadAfter(size_t n, const StateTable& table);

  std::string prefix_;
  size_t capacity_;
  RankedRows rows_;
  bool complete_ = true;
  std::map<std::string, Write, RankOrder> writes_;  // not reflected in rows_, not yet committed
  size_t bytes_ = 0;
};

// How many rows a partition's cache holds for a window of `window` rows:
// twice the window, at least 64; the window and one row more when the
// state cache budget is 0 (tests use that to make refills happen). Never
// less than that: over an append-only input the operator deletes the row
// past the window as it arrives, before the cache would evict it.
size_t TopNCacheCapacity(int64_t window);

}  // namespace freshet
