// TableEngine: how a relation's rows are stored, read and committed. The
// batch engine, the stream engine's readers, meta and the bulk loader reach
// a relation's stored rows only through its engine; which engine stores a
// relation is TableEngines' business (table_engines.h). Today's engine is
// the RocksDB row store (row_store_engine.h); the columnar time-series
// engine is meant to be a second implementation, with nothing above
// storage changing.
//
// The contract every engine keeps:
//
// Rows. A relation is described by a StateTableDesc (its column types, its
// primary key and its distribution key, which spreads rows over 256
// vnodes). Changes reach an engine in the engine-neutral change format:
// WriteOps (write_log.h: the storage key of a row, its row-encoded value or
// a delete) and BulkRows (bulk_rows.h: inserts of new keys, in key order).
// An engine may store them in any layout; it must give back, at a snapshot,
// exactly the rows the committed changes leave.
//
// Scans. Scan reads the committed rows of one relation at a Snapshot, as
// DataChunks with every column of the relation (the columns outside the
// projection are NULL, so column indices never shift). The key range is a
// range of vnodes [vnode_begin, vnode_end), starting past a storage key
// when `start_after` is set; rows come out in no order the caller may rely
// on, except in a resumable scan (a backfill), whose rows come in
// storage-key order and which tells the key of the last row it returned,
// to start after next time. The predicates (column op constant, ANDed) only let
// the engine skip rows: it may return rows that fail them, never leave out
// one that passes; the caller filters. A scan may run on another thread
// than the one that made it, and reads nothing newer than its snapshot.
//
// Epoch commits, in two phases. One database's epoch is committed by one
// atomic write of the shared store (StateStore::CommitEpoch): the row
// store's data, the new committed epoch, the relations' row counts and
// every engine's commit markers. Each engine with writes in the epoch is
// first asked to PrepareEpoch: it makes what it needs durable without making
// it visible (a columnar engine writes and syncs its column files) and adds
// to the batch what makes it visible (the row store adds its writes; a
// columnar engine adds meta entries naming its new files: its markers).
// Then the store writes the batch, and every prepared engine hears
// FinishEpoch with whether the write happened. Visibility therefore switches
// for all engines at once, with the one write: two engines' writes of one
// epoch are both committed or both not.
//
// Recovery. An engine is recovered (Recover) when it joins the store,
// before any scan or commit, from the committed meta entries alone. What a
// crash left prepared but not committed (files no committed marker names)
// must be discarded, and what the markers name must be readable; a failed
// write (FinishEpoch(false)) leaves the engine as if PrepareEpoch had not
// run, and the same epoch's writes are prepared again by the next commit.
// The committed state is then exactly that of the last committed epoch of
// each database: the barrier manager restarts the streams from there.
//
// Latest-value lookups. LookupLatest reads the keys a scan pins from the
// writes applied to the relation, committed or not (`latest`, the
// relation's StateTable, which keeps the applied writes until their epoch
// commits), instead of from a snapshot: the holder of a database's writer
// lock reads every write applied before it without waiting for a commit.
// Only a scan whose predicates pin whole keys is served; for any other the
// engine returns null and the caller scans a snapshot.
//
// Bulk ingest. NewBulkRows gives a bulk load (COPY into a table keyed by
// generated row ids) the container it fills; the rows reach the engine in
// its epoch's writes (CommitWrites::bulk) and are committed like any other.
//
// Statistics. Rows and bytes of a relation at a snapshot, cheap (no scan):
// the row count is exact when the commits recorded it (every relation
// created by this version), an estimate otherwise; bytes are approximate.
//
// Thread safety: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/column_predicate.h"
#include "common/data_chunk.h"
#include "storage/meta_store.h"
#include "storage/state_store.h"
#include "storage/state_table_desc.h"

namespace freshet {

class StateTable;

// Uncommitted writes to merge over the committed rows, keyed by storage
// key (nullopt = deleted): a transaction reading its own writes.
using Overlay = std::map<std::string, std::optional<std::string>>;

struct ScanSpec {
  StateTableDesc table;
  std::vector<bool> projection;  // columns to fill; empty = all
  int vnode_begin = 0, vnode_end = kVnodeCount;
  ColumnPredicates predicates;
  Overlay overlay;
  std::string start_after;  // a storage key: only rows after it; empty = all
  bool resumable = false;   // key order and last_key() (see the top of this file)
  bool read_once = false;   // read once, start to end: caches need not keep it
};

// The chunks of one scan.
class ChunkScan {
 public:
  virtual ~ChunkScan() = default;
  // Fills `out` with up to max_rows rows; false when exhausted.
  virtual bool Next(DataChunk* out, size_t max_rows = kChunkSize) = 0;
  // Whether the scan reads every row of its vnode range (it skipped none
  // by its predicates): only such a scan may fill a cache of the table.
  virtual bool complete() const = 0;
  // Whether reading the vnode range in parts, one thread each, may pay: a
  // scan its predicates did not narrow to a few keys (a time-series scan,
  // which skips files and blocks instead, always).
  virtual bool splittable() const { return complete(); }
  // The storage key of the last row returned (resumable scans only).
  virtual const std::string& last_key() const = 0;
};

struct TableStatistics {
  int64_t rows = 0;
  bool rows_exact = false;  // recorded by the commits, not estimated
  uint64_t bytes = 0;
};

// What one atomic write of an epoch commit holds: the row store's data and
// every engine's markers (meta entries).
struct EpochCommitBatch {
  CommitWrites data;
  MetaEntries markers;
};

// The writes of one epoch commit that belong to one engine's relations.
struct EngineEpochWrites {
  uint32_t database_id = 0;
  Epoch epoch = 0;
  CommitWrites writes;
};

class TableEngine {
 public:
  virtual ~TableEngine() = default;
  virtual const char* name() const = 0;

  virtual std::unique_ptr<ChunkScan> Scan(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec) const = 0;
  virtual TableStatistics Statistics(TableId table, const Snapshot* snapshot) const = 0;
  virtual std::shared_ptr<BulkRows> NewBulkRows(TableId table, int key_column, std::vector<int> dist_key) const = 0;
  // See "Latest-value lookups" above; the default serves none.
  virtual std::unique_ptr<ChunkScan> LookupLatest(std::shared_ptr<const StateTable> /*latest*/, ScanSpec /*spec*/) const {
    return nullptr;
  }

  // The row under a storage key of one of the engine's relations at the
  // latest commit (a StateTable's committed reads: state_table.h);
  // NotFound when there is none.
  virtual Status GetCommitted(const std::string& key, std::string* value) const = 0;
  // GetCommitted of many keys: (*values)[i] the row of keys[i], nullopt
  // when there is none; errors other than NotFound are returned. An engine
  // may read them together (the time-series engine looks its runs up once).
  virtual Status GetCommittedMany(const std::vector<std::string_view>& keys,
                                  std::vector<std::optional<std::string>>* values) const {
    values->assign(keys.size(), std::nullopt);
    std::string value;
    for (size_t i = 0; i < keys.size(); i++) {
      Status s = GetCommitted(std::string(keys[i]), &value);
      if (s.ok()) (*values)[i] = std::move(value);
      else if (!s.IsNotFound()) return s;
    }
    return Status::OK();
  }

  // The relation was dropped (its catalog entry and, in the row store, its
  // rows deleted in one meta write): the engine forgets its rows.
  virtual void DropRelation(TableId /*table*/) {}

  virtual Status PrepareEpoch(const EngineEpochWrites& writes, EpochCommitBatch* batch) = 0;
  virtual void FinishEpoch(uint32_t database_id, Epoch epoch, bool committed) = 0;
  virtual Status Recover(const MetaStore& meta) = 0;
};

}  // namespace freshet
