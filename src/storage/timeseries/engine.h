// TimeSeriesEngine: the TableEngine (table_engine.h) of time-series tables
// (issue 21): tables with a TIME INDEX, stored apart from the row store.
//
// Layout. A time-series table's storage key is the row store's
// ([table][vnode][pk]) with the primary key's columns in this order: the
// tags (the declared PRIMARY KEY, which identifies a series), then the
// time index, then, in an append-only table, the hidden row id (the
// `tail`). The engine splits each key into series ([vnode][tags]), time
// and tail, and keeps each table's rows in memtables partitioned by time
// window (time_partitions.h); the row's value is kept as the row store
// encodes it. Rows of the same (series, time, tail) replace each other:
// the stream layer above keeps a table's primary key unique (an append-only
// table's row ids never repeat).
//
// Epochs (the two-phase commit of table_engine.h). PrepareEpoch takes one
// database's time-series writes of an epoch, appends them as one record to
// the database's write-ahead log (wal.h) and syncs it, adds them to the
// memtables as versions of that epoch, and adds the log's new end to the
// commit batch as the engine's marker ("tswal/<database>"). FinishEpoch
// makes the end the log's committed position, or, when the commit failed,
// removes the epoch's versions again. A reader sees a version only when its
// epoch is at most the committed epoch of the table's database at the
// reader's snapshot (StateStore::CommittedEpoch): the epoch becomes visible
// with the store's one atomic write, together with the row store's writes
// of the same epoch. A database's PrepareEpoch and FinishEpoch are
// serialized (one commit at a time, as the barrier manager makes them).
//
// Recovery. Tables are registered (AddTable) before the engine joins the
// store (TableEngines::Add calls Recover): Recover replays each database's
// log up to its committed marker into the memtables of the tables still
// registered, and discards what follows (log records of epochs that never
// committed). A database whose log lost committed records (damage) starts
// with what was read, and the loss is logged.
//
// Reads. Scan merges a table's memtables and files in storage-key order, of each key
// the newest version visible at the snapshot, deletes hiding the rows they
// delete, merging a transaction's overlay over them; a scan of a vnode
// range reads only those vnodes. GetCommitted serves the point reads of the
// table's StateTable (primary-key checks, old rows of updates) at the
// latest commit.
//
// Files. FlushTable turns a table's memtables into files, one per time
// window (run_file.h): <dir>/files/<table>/<id>.ftf, each named by a meta
// entry "tsfile/<table>/<id>" (its RunFileInfo), with "tsflushed/<table>"
// the epoch the files hold everything through. A scan merges the files
// with the memtables, as one more sorted run each.
//
// A flush also starts a new log segment; the older ones are removed once
// every table of the database is flushed past their last epoch (a table
// with empty memtables is), "tswaltrim/<database>" recording how far.
//
// Memory. A background flusher (StartFlusher) flushes a table whose
// memtables pass table_write_buffer_bytes, and the largest tables while all
// of them pass write_buffer_bytes (TimeSeriesConfig); commits wake it.
// Writes are not held back meanwhile: memory stays near the limits as long
// as flushes keep up with ingest.
//
// TTL. ExpireTable drops the files whose every row is past a table's TTL
// (its own, or its database's) without reading them, flushing memtables
// that hold expired rows first; the flusher runs it about once a minute.
//
// Compaction. CompactTable merges groups of a table's files into one file
// each: files whose time ranges overlap (a key's versions may be spread
// over them: out-of-order writes, rewrites), the files of a time window
// once it holds more than kMaxFilesPerWindow, and a file whose versions can
// be resolved. Merging keeps, of each key, every version a reader may
// still read: those newer than the horizon (the epoch the oldest live
// snapshot of the store sees, from the commits' RocksDB sequence numbers)
// and the newest at or below it, unless that is a delete. The new file
// replaces its inputs in one meta write; scans that hold the inputs keep
// reading them, and they are deleted when the last lets go. Writes, flushes
// and reads go on meanwhile. The flusher compacts a table after flushing
// it, and every table about once a minute; compact_table also merges every
// window's files into one.
//
// Regions (regions.h). A table's PARTITION ON COLUMNS rules make its
// regions; a series is in one. The memtables hold every region's rows; a
// flush and a compaction write a file per time window and region
// (RunFileInfo.region), compaction groups never mix regions (but files
// written before regions, which may hold any region's rows, merge with
// every region's and are split by region), and a scan skips the files of
// the regions its predicates rule out.
//
// Thread safety: every method may be called concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/procedures.h"
#include "storage/table_engine.h"
#include "storage/timeseries/regions.h"
#include "storage/timeseries/run_file.h"
#include "storage/timeseries/time_partitions.h"
#include "storage/timeseries/wal.h"

namespace freshet {

// What the engine needs to know of one table.
struct TimeSeriesTableOptions {
  uint32_t database_id = 0;
  StateTableDesc desc;
  int time_index = -1;  // the time index column
  TimeUnit unit = TimeUnit::kMicrosecond;
  std::optional<int64_t> window_seconds;  // compaction.twcs.time_window
  bool append_mode = false;  // the key ends with a row id after the time index
  // How long rows are kept after their time: none = for ever, 0 = not
  // stored at all ('instant': the table only feeds its views).
  std::optional<int64_t> ttl_seconds;
  RegionRules regions;  // PARTITION ON COLUMNS (regions.h)
};

// The meta key of a database's committed log position.
std::string TimeSeriesWalMarkerKey(uint32_t database_id);

// [storage.timeseries] of the configuration file (config/freshet.example.toml).
struct TimeSeriesConfig {
  // A table's memtables are flushed once they hold this many bytes.
  size_t table_write_buffer_bytes = size_t(64) << 20;
  // All tables' memtables: past it the largest table is flushed, then the
  // next largest, until they are below it again.
  size_t write_buffer_bytes = size_t(512) << 20;
  // The time window of tables that set no compaction.twcs.time_window
  // (none: one partition for every timestamp, which TTL then drops only
  // once every row expired).
  std::optional<int64_t> default_window_seconds = 86400;
};

class TimeSeriesEngine : public TableEngine {
 public:
  // `dir`: where the logs go (<dir>/wal/<database>/); empty: in memory only
  // (an in-memory store: nothing survives the process anyway).
  TimeSeriesEngine(StateStore* store, std::string dir, TimeSeriesConfig config = {});
  ~TimeSeriesEngine() override;
  const char* name() const override { return "timeseries"; }

  // Registers a table (at start before Recover, or when created). Its key
  // layout must be as the top of this file says.
  void AddTable(TableId id, TimeSeriesTableOptions options);
  // A table's options changed (ALTER TABLE ... SET): a new time window
  // applies to the memtables made from now on (the current ones are
  // frozen: they keep their partitions).
  void UpdateTable(TableId id, TimeSeriesTableOptions options);
  // Forgets a dropped table and its rows.
  void DropTable(TableId id);
  bool HasTable(TableId id) const;

  std::unique_ptr<ChunkScan> Scan(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec) const override;
  TableStatistics Statistics(TableId table, const Snapshot* snapshot) const override;
  std::shared_ptr<BulkRows> NewBulkRows(TableId table, int key_column, std::vector<int> dist_key) const override;
  Status GetCommitted(const std::string& key, std::string* value) const override;
  // The runs and the visible epoch looked up once per table for all keys.
  Status GetCommittedMany(const std::vector<std::string_view>& keys,
                          std::vector<std::optional<std::string>>* values) const override;
  void DropRelation(TableId id) override { DropTable(id); }

  Status PrepareEpoch(const EngineEpochWrites& writes, EpochCommitBatch* batch) override;
  void FinishEpoch(uint32_t database_id, Epoch epoch, bool committed) override;
  Status Recover(const MetaStore& meta) override;

  // The rows a table's memtables hold (every version; for tests and
  // statistics).
  size_t MemtableRows(TableId id) const;
  // Each region's rows (versions, in memtables and files), its share of
  // the memtables' bytes, and its files (information_schema.
  // region_statistics).
  struct RegionStatistics {
    uint32_t region = 0;
    uint64_t rows = 0, memtable_bytes = 0, file_bytes = 0, files = 0;
  };
  std::vector<RegionStatistics> RegionStatisticsOf(TableId id) const;
  size_t FileCount(TableId id) const;

  // Flushes the table's memtables: each (one time window) becomes a file
  // (run_file.h), written and synced, then named in the meta store together
  // with the epoch the table is flushed through, so that a restart reads
  // the files and replays only later log records. Returns the rows
  // flushed (keys; 0 in memory, where nothing is flushed). Writes and
  // reads go on meanwhile: the memtables are frozen at once (between two
  // commits of the table's database) and read until the files replace
  // them. Each flush is a procedure (SetProcedures); `background` (the
  // flusher's) ones that flushed nothing are not kept.
  // With `region` (flush_region): the table's memtables are flushed as
  // always (they hold every region's rows, and a flush writes a file per
  // window and region), and the rows of that region are returned.
  Result<size_t> FlushTable(TableId id, bool background = false, std::optional<uint32_t> region = std::nullopt);

  // Starts the background flusher, which flushes tables whose memtables
  // pass the configured sizes (TimeSeriesConfig), woken by commits; Stop
  // ends it (before the store closes). Without it, only FlushTable flushes.
  void StartFlusher();
  void StopFlusher();
  // Waits until the flusher has nothing to do (tests).
  void WaitFlusherIdle();
  // Bytes held by every table's memtables.
  size_t MemtableBytes() const;

  // TTL: drops the files of each table with a TTL whose every row is older
  // than `now_micros` (Unix time) minus the TTL, without reading them;
  // memtables holding such rows are flushed first. Rows of a window that
  // is only partly expired stay until all of it is. Returns the rows
  // dropped. The flusher runs it about once a minute, also for tables that
  // receive no writes; compact_table runs it at once.
  Result<size_t> ExpireTable(TableId id, int64_t now_micros);

  // Compaction (see the top of this file); `all` (compact_table, a major
  // compaction): the files of each time window merged into one, else only
  // what the policy asks for. Returns the rows (versions) of the files
  // merged. Each compaction is a procedure, as FlushTable's.
  // With `region` (compact_region): only that region's files.
  Result<size_t> CompactTable(TableId id, bool all, bool background = false,
                              std::optional<uint32_t> region = std::nullopt);
  // A time window with more files than this is merged.
  static constexpr size_t kMaxFilesPerWindow = 16;
  size_t ExpireAll(int64_t now_micros);

  // Where a flush gets a table's current description (its columns grow
  // with ALTER TABLE ... ADD COLUMN); unset: the one it was added with.
  void SetDescriptionSource(std::function<std::optional<StateTableDesc>(TableId)> source) {
    desc_source_ = std::move(source);
  }

  // Records each flush and compaction in `procedures` (may be null: none
  // recorded); `name` gives a table's qualified name, the procedure's lock
  // keys.
  void SetProcedures(Procedures* procedures, std::function<std::string(TableId)> name) {
    procedures_ = procedures;
    table_name_ = std::move(name);
  }

  struct Table;
  struct Database;

 private:
  Result<size_t> Flush(TableId id, std::optional<uint32_t> region);
  Result<size_t> Merge(TableId id, bool all, std::optional<uint32_t> region);
  // Runs `action` as a procedure of `type` on table `id`.
  Result<size_t> AsProcedure(const char* type, TableId id, bool background,
                             const std::function<Result<size_t>()>& action);
  std::shared_ptr<Table> TableOf(TableId id) const;
  Database& DatabaseOf(uint32_t database_id);
  // Decodes one log record (or a prepared epoch's writes) into rows per table.
  void ApplyRecord(std::string_view payload, uint64_t committed_epoch);
  std::string FileDirectory(TableId id) const;
  // Removes the log segments whose every record the database's tables hold
  // in files (after a flush).
  void TrimLog(Database& db);
  // The epoch the oldest live snapshot of the database sees (0: unknown,
  // which keeps every version).
  uint64_t Horizon(Database& db) const;
  // The table's columns now (they grow with ADD COLUMN): what flushes and
  // compactions write.
  StateTableDesc CurrentDescription(Table& table) const;
  // Sets info's window: the table's time window holding `ts`.
  void SetWindow(Table& table, int64_t ts, RunFileInfo* info) const;
  // Merges one group of files (CompactTable).
  Status MergeFiles(Table& table, const std::vector<std::shared_ptr<RunFile>>& inputs, uint64_t horizon);
  // Loads the files the meta store names (Recover); drops those of tables
  // no longer registered and files it does not name.
  Status LoadFiles(const MetaStore& meta);

  StateStore* store_;
  const std::string dir_;
  mutable std::shared_mutex mu_;  // tables_, databases_
  std::map<TableId, std::shared_ptr<Table>> tables_;
  std::map<uint32_t, std::unique_ptr<Database>> databases_;
  std::atomic<uint64_t> next_file_id_{1};
  const TimeSeriesConfig config_;
  // The background flusher: a table to flush, or none; woken by commits.
  void FlusherLoop();
  std::optional<TableId> NextTableToFlush() const;
  void Compact(TableId id);  // the policy's compaction, errors logged
  std::mutex flusher_mu_;
  std::condition_variable flusher_cv_, flusher_idle_cv_;
  bool flusher_stop_ = false, flusher_busy_ = false, flusher_wake_ = false;
  std::thread flusher_;
  std::function<std::optional<StateTableDesc>(TableId)> desc_source_;
  Procedures* procedures_ = nullptr;
  std::function<std::string(TableId)> table_name_;
};

}  // namespace freshet
