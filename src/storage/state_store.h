// StateStore: the durable key-value store under everything (docs/architecture.md, Invariants).
//
// One RocksDB instance per data directory, with two column families:
//   "default" - table and state-table data, keys [table_id][vnode][pk]
//   "meta"    - the catalog and per-database committed epochs
//
// Writes are never applied piecemeal: the barrier manager collects all
// writes of an epoch and calls CommitEpoch once (one WriteBatch, or SST
// files ingested for large epochs) that also records the new committed
// epoch, so an epoch is either entirely visible or not at all, across
// crashes. Readers take a Snapshot, which pins a RocksDB
// snapshot and therefore sees a set of whole committed epochs.
//
// Opening takes an exclusive lock on the directory (RocksDB's LOCK file), so
// a second server on the same directory is refused.
//
// A full disk. Every write first checks that the data directory's file
// system keeps a reserve free after it (StoreOptions::disk_reserve_bytes),
// and is refused with Status::NoSpace (53100) otherwise: RocksDB's own
// flushes, compactions and recovery then still have room, and a write never
// fails halfway. A write that RocksDB itself fails (the disk filled up
// behind the check) stops RocksDB's writes; the next write resumes it
// (DB::Resume) once the reserve is free again. A store opened on a disk
// that is already short of the reserve opens read-only: reads are served,
// every write gets NoSpace until the server restarts with room.
//
// A directory that exists but is not a Freshet data directory, or whose
// format version is unknown, is refused rather than re-initialized.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>
#include <string>

#include "common/error.h"
#include "storage/bulk_rows.h"
#include "storage/dml_log.h"
#include "storage/meta_store.h"
#include "storage/scan_cache.h"
#include "storage/synced_files.h"
#include "storage/write_set.h"

namespace freshet {

struct StoreOptions {
  std::string dir;         // ignored when in_memory
  bool in_memory = false;  // playground: nothing touches the disk
  bool sync_commits = true;  // fsync the WAL on every commit
  size_t block_cache_bytes = size_t(2) << 30;  // shared by both column families
  size_t scan_cache_bytes = size_t(2) << 30;   // decoded columns for batch scans; 0 = off
  // Free space kept on the data directory's file system (see the top of
  // this file): -1 = 1% of the file system, between 4 MiB and 256 MiB;
  // 0 = none (writes go on until the disk itself refuses them).
  int64_t disk_reserve_bytes = -1;
};

class StateStore;
class TableEngines;

// Meta-family entries committed together with data (key, value).
using MetaEntries = std::vector<std::pair<std::string, std::string>>;

// The data-family writes of one commit: write ops, in parts that need not
// be sorted (for a repeated key the last write wins: parts in order, then
// ops in order), and bulk rows, which are sorted and come before every op
// (an op on a bulk row's key wins).
struct CommitWrites {
  std::vector<const WriteLog*> ops;
  std::vector<const BulkRows*> bulk;
  size_t size() const {
    size_t n = 0;
    for (const auto* p : ops) n += p->size();
    for (const auto* b : bulk) n += b->size();
    return n;
  }
  bool has_change_log_ops() const {
    for (const auto* p : ops)
      if (p->has_change_log_ops()) return true;
    return false;
  }
  // Bytes the commit writes, to check free space against.
  size_t bytes() const {
    size_t n = 0;
    for (const auto* p : ops) n += p->bytes();
    for (const auto* b : bulk) n += b->unwritten_bytes();
    return n;
  }
};

// A consistent read view; releases the RocksDB snapshot on destruction.
// `seq` is the TableVersions sequence read just before it was taken.
// Readers may share one (StateStore::GetSnapshot).
class Snapshot {
 public:
  Snapshot(rocksdb::DB* db, const rocksdb::Snapshot* snap, uint64_t seq) : db_(db), snap_(snap), seq_(seq) {}
  ~Snapshot() { db_->ReleaseSnapshot(snap_); }
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  const rocksdb::Snapshot* get() const { return snap_; }
  uint64_t seq() const { return seq_; }

 private:
  rocksdb::DB* db_;
  const rocksdb::Snapshot* snap_;
  uint64_t seq_;
};

class StateStore : public MetaStore {
 public:
  static Result<std::unique_ptr<StateStore>> Open(const StoreOptions& options);
  ~StateStore();

  // A view of everything committed before the call. Readers share one
  // until the next write, so that a point query does not take and release
  // a RocksDB snapshot (each locks the DB's mutex: under concurrent point
  // queries that mutex was contended, and a session blocked on it slept and
  // was woken from the other core).
  std::shared_ptr<const Snapshot> GetSnapshot() const;
  // The seq() a snapshot taken now gets: every snapshot with a seq at least
  // this sees every commit finished before this call.
  uint64_t SnapshotSequence() const;
  // RocksDB's sequence number: of the latest write (every write so far is
  // at or below it), and of the oldest snapshot alive (nullopt: none). A
  // snapshot sees exactly the writes at or below its sequence number; the
  // time-series engine keeps the row versions a live snapshot may read
  // (timeseries/engine.h "Compaction").
  uint64_t LatestWriteSequence() const;
  std::optional<uint64_t> OldestLiveSnapshotSequence() const;

  // Applies the batch atomically (and durably when sync_commits).
  Status Commit(rocksdb::WriteBatch* batch);

  // Commits a large set of data-family writes together with meta-family
  // entries (the epoch marker, row counts) by writing them as sorted SST
  // files and ingesting all of them atomically: far cheaper than a
  // WriteBatch for bulk loads (no WAL, no memtable inserts). Large commits
  // are split at a key and written by two threads into two files.
  Status CommitBulk(const CommitWrites& writes, MetaEntries meta);

  // The DML log of a database (synchronous_commit; dml_log.h), nullptr for
  // in-memory stores. Entries up to the number the last commit stored under
  // DmlLogCoveredKey are covered: Replay skips them.
  DmlLog* DmlLogFor(uint32_t database_id);
  // Deletes a dropped database's log.
  void DropDmlLog(uint32_t database_id);
  // At start: deletes the logs of databases that no longer exist (dropped
  // just before a crash).
  void RemoveDmlLogsExcept(const std::vector<uint32_t>& database_ids);
  // Where a bulk load of the data family spills its rows (see BulkSpill);
  // nullopt for in-memory stores, whose loads stay in memory.
  std::optional<BulkSpill> NewBulkSpill() const;
  // Adds the writes to a WriteBatch for Commit (bulk rows first).
  void AddToBatch(const CommitWrites& writes, rocksdb::WriteBatch* batch) const;
  // Whether a returned Commit is on disk (StoreOptions::sync_commits).
  bool commits_synced() const { return write_options_.sync; }
  // Whether CommitBulk is available (on-disk stores only).
  bool SupportsBulkCommit() const { return !mem_env_; }

  // Whether `bytes` more can be written: the store is not read-only, the
  // reserve stays free after them, and RocksDB is not stopped by a failed
  // write (if it is, it is resumed here). Every write method checks this
  // itself; callers use it to refuse work early.
  Status CheckWritable(uint64_t bytes);
  // Opened read-only because the disk was full at start.
  bool read_only() const { return read_only_; }
  // Free bytes on the data directory's file system (max for in-memory stores).
  uint64_t FreeDiskBytes() const;
  uint64_t disk_reserve_bytes() const { return disk_reserve_.load(); }
  void set_disk_reserve_bytes(uint64_t bytes) { disk_reserve_ = bytes; }

  rocksdb::ColumnFamilyHandle* data_cf() const { return data_cf_; }
  rocksdb::ColumnFamilyHandle* meta_cf() const { return meta_cf_; }
  // Change logs (storage/change_log.h): a family of their own, so that
  // their churn (every change written, read once, deleted by range) leaves
  // the data family's memtables, files, compactions and caches alone.
  rocksdb::ColumnFamilyHandle* change_log_cf() const { return change_log_cf_; }

  // Point read; `snapshot` may be null for the latest committed state.
  Status Get(rocksdb::ColumnFamilyHandle* cf, const Snapshot* snapshot, const std::string& key,
             std::string* value) const;
  // Point reads of many keys at once (RocksDB's batched MultiGet: the
  // keys sorted, each file's bloom filter and blocks visited once for all
  // the keys they hold): (*values)[i] is keys[i]'s value, nullopt when none.
  Status MultiGet(rocksdb::ColumnFamilyHandle* cf, const Snapshot* snapshot, const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) const;
  // Iterator over [lower, upper) (upper empty = unbounded). The bound
  // strings must outlive the iterator; Range keeps them together.
  // The pattern decides caching and readahead:
  //  - kShort (the default): ranges of a few keys (an operator loading one
  //    group or join key); RocksDB's own readahead, which starts small and
  //    grows only on sequential reads (a fixed 2 MiB readahead made each
  //    such load read 2 MiB);
  //  - kScan: long ranges read to the end, possibly again (batch scans):
  //    2 MiB readahead;
  //  - kOnce: ranges read once from start to end (backfill snapshots, one
  //    vnode at a time, so often under a megabyte): RocksDB's growing
  //    readahead (a fixed 2 MiB one was a tenth of a background pipeline's
  //    CPU, copying what the range never reached), and their blocks do not
  //    enter the block cache, whose fills would evict what is read again and
  //    cost fresh memory for every block read.
  struct Range {
    std::string lower, upper;
    rocksdb::Slice lower_slice, upper_slice;
    std::unique_ptr<rocksdb::Iterator> it;
  };
  enum class ReadPattern { kShort, kScan, kOnce };
  std::unique_ptr<Range> NewRange(rocksdb::ColumnFamilyHandle* cf, const Snapshot* snapshot,
                                  std::string lower, std::string upper,
                                  ReadPattern pattern = ReadPattern::kShort) const;

  // Approximate bytes stored in [lower, upper) of the data family
  // (files and memtables); cheap, for planning.
  uint64_t ApproximateDataSize(const std::string& lower, const std::string& upper) const;
  uint64_t ApproximateChangeLogSize(const std::string& lower, const std::string& upper) const;
  // Approximate number of keys in [lower, upper) of the data family:
  // memtable entries plus the range's share of the SST bytes times the
  // entries per byte of the files that overlap it. Counts overwritten
  // versions not yet compacted away, so it errs high. Cheap (no scan).
  uint64_t EstimateKeys(const std::string& lower, const std::string& upper) const;

  // MetaStore (meta_store.h), over the meta family.
  Status GetMeta(const std::string& key, std::string* value) const override;
  void ScanMeta(const std::string& prefix,
                const std::function<void(const std::string&, const std::string&)>& fn) const override;
  Status CommitMeta(const MetaWrite& write) override;

  // What the epoch commits record: a database's committed epoch, and a
  // relation's row count at `snapshot` (null: the latest commit); nullopt
  // when none is stored (a new database; a relation of an older version).
  std::optional<uint64_t> CommittedEpoch(uint32_t database_id, const Snapshot* snapshot = nullptr) const;
  std::optional<int64_t> RowCount(uint32_t relation_id, const Snapshot* snapshot = nullptr) const;

  // One epoch's commit of one database, in one atomic write: its data
  // writes, the new committed epoch, the row counts of the relations it
  // changed and the DML log number it covers (0: none). Large commits are
  // ingested as files (CommitBulk), the others written as a batch.
  struct EpochCommit {
    uint32_t database_id = 0;
    uint64_t epoch = 0;
    std::map<uint32_t, int64_t> row_counts;
    uint64_t dml_log_covered = 0;
    MetaEntries markers;  // the table engines' commit markers (table_engine.h)
  };
  static constexpr size_t kBulkCommitThreshold = 100000;  // writes
  Status CommitEpoch(const CommitWrites& writes, const EpochCommit& commit);

  rocksdb::DB* db() const { return db_.get(); }

  // Decoded columns of unchanged tables, for batch scans (scan_cache.h).
  ScanCache* scan_cache() const { return scan_cache_.get(); }

  // The table engines over this store (table_engines.h): how relations'
  // rows are read and how an epoch's writes are committed.
  TableEngines& engines() const { return *engines_; }

 private:
  StateStore() = default;
  // After a failed RocksDB write: an I/O error or a full disk stops
  // RocksDB's writes until DB::Resume (see CheckWritable).
  void NoteWriteFailure(const rocksdb::Status& s);
  static uint64_t DiskReserve(const StoreOptions& options);
  Status CommitBulkUnversioned(const CommitWrites& writes, MetaEntries meta);
  std::string DmlLogDirectory(uint32_t database_id) const { return dir_ + "/dml_log/" + std::to_string(database_id); }
  // A number stored as text under a meta key (nullopt when absent).
  std::optional<uint64_t> MetaNumber(const std::string& key, const Snapshot* snapshot) const;
  std::mutex dml_logs_mu_;
  std::map<uint32_t, std::unique_ptr<DmlLog>> dml_logs_;
  // Options of the SST files a bulk commit or a bulk load writes (with or
  // without Bloom filters).
  rocksdb::Options BulkFileOptions(bool bloom) const;
  std::unique_ptr<rocksdb::Env> mem_env_;
  std::unique_ptr<SyncedFiles> synced_files_;  // on disk: the store's Env
  std::unique_ptr<rocksdb::DB> db_;
  std::string dir_;             // the data directory (empty in memory)
  std::atomic<uint64_t> disk_reserve_{0};
  bool read_only_ = false;
  rocksdb::FileLock* read_only_lock_ = nullptr;  // the LOCK file, held by us when read-only
  std::atomic<bool> needs_resume_{false};
  std::mutex resume_mu_;
  rocksdb::ColumnFamilyHandle* data_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* change_log_cf_ = nullptr;
  uint64_t ApproximateSize(rocksdb::ColumnFamilyHandle* cf, const std::string& lower, const std::string& upper) const;
  rocksdb::WriteOptions write_options_;
  std::string ingest_dir_;
  uint64_t ingest_seq_ = 0;
  mutable std::atomic<uint64_t> spill_seq_{0};
  TableVersions versions_;
  // The snapshot GetSnapshot hands out while nothing has been written
  // since it was taken; dropped after each write so that it does not keep
  // overwritten versions from compaction.
  mutable std::atomic<std::shared_ptr<const Snapshot>> shared_snapshot_;
  std::unique_ptr<ScanCache> scan_cache_;
  std::unique_ptr<TableEngines> engines_;
};

// Smallest string greater than every string with the given prefix ("" if none).
std::string PrefixSuccessor(std::string prefix);

}  // namespace freshet
