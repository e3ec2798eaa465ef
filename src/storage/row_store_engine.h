// RowStoreEngine: the TableEngine (table_engine.h) of rows in the store's
// RocksDB data family, one key-value pair per row: key [table][vnode][pk,
// memcomparable], value the row encoding. Every relation is stored here
// unless TableEngines assigns it elsewhere, and every stream operator's
// state table is.
//
// Scans. A scan iterates its vnodes' key ranges at the snapshot and
// decodes the projected columns. Predicates narrow those ranges: equalities
// on a leading run of the primary key's columns, then at most one range on
// the next column, become key bounds within each vnode, and equalities on
// every distribution-key column pin the one vnode that can hold matches. An
// IN list on such a column is a probe per distinct value; the key ranges of
// all probes are read in key order with one iterator.
// Only columns of types whose key encoding orders values as SQL compares
// them are used (integers, booleans, dates, times, timestamps, strings:
// not floating point, where -0 equals 0, nor numeric, where 1.0 equals
// 1.00, nor intervals); a descending key column ends the run. A scan that
// merges a transaction's own writes (an overlay) ignores its predicates.
// LookupLatest serves the scans whose probes are all whole keys in one
// vnode, the overlay first, then StateTable::Get (the applied writes, then
// the latest commit).
//
// Epoch commits: PrepareEpoch adds the epoch's writes to the batch's data;
// nothing is prepared outside the one atomic write, so FinishEpoch and
// Recover have nothing to do (RocksDB's write is all or nothing).
#pragma once

#include "storage/table_engine.h"

namespace freshet {

// The storage-key bounds within each vnode, and the one vnode, that the
// predicates of a scan of `table` allow (see the top of this file).
struct RowKeyBounds {
  std::string lower;  // after the [table][vnode] prefix; empty = from the start
  std::string upper;  // exclusive; empty = to the end of the vnode
  std::optional<uint16_t> vnode;  // the only vnode that can hold a match
  bool exact = false;  // every key column pinned: `lower` is the one key that can match
  bool empty() const { return lower.empty() && upper.empty() && !vnode; }
};
// Ignores IN lists (kIn).
RowKeyBounds RowKeyBoundsOf(const StateTableDesc& table, const ColumnPredicates& predicates);
// The same with one IN list on a key or distribution-key column expanded:
// one bounds per distinct value (at most kMaxRanges, else the list is
// ignored). Empty when the predicates narrow nothing.
std::vector<RowKeyBounds> RowKeyProbesOf(const StateTableDesc& table, const ColumnPredicates& predicates);
// The most key ranges a scan reads (probes times the vnodes each may be
// in); past it the scan reads its whole vnode range, filtered. A range
// costs a seek or a lookup, a few microseconds: 65,536 of them cost about
// what a full scan of a million rows does. (TPC-H's refresh deletes 1,500
// orders' lineitems by an IN list at SF 1.)
inline constexpr size_t kMaxRanges = 1 << 16;

class RowStoreEngine : public TableEngine {
 public:
  explicit RowStoreEngine(StateStore* store) : store_(store) {}
  const char* name() const override { return "row"; }

  std::unique_ptr<ChunkScan> Scan(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec) const override;
  TableStatistics Statistics(TableId table, const Snapshot* snapshot) const override;
  std::shared_ptr<BulkRows> NewBulkRows(TableId table, int key_column, std::vector<int> dist_key) const override;
  std::unique_ptr<ChunkScan> LookupLatest(std::shared_ptr<const StateTable> latest, ScanSpec spec) const override;

  Status GetCommitted(const std::string& key, std::string* value) const override;
  Status PrepareEpoch(const EngineEpochWrites& writes, EpochCommitBatch* batch) override;
  void FinishEpoch(uint32_t, Epoch, bool) override {}
  Status Recover(const MetaStore&) override { return Status::OK(); }

 private:
  StateStore* store_;
};

}  // namespace freshet
