// Batch executors: the vectorized, pull-based engine behind SELECT and DML.
//
// An Executor produces DataChunks on demand: Next(out) fills `out` with
// the next chunk (at most kChunkSize rows, never empty) and returns true, or
// returns false when exhausted. Executors form a tree built from a plan by
// BuildExecutor (executor_builder.h); each owns its children. They run on
// the thread of the statement (but for the second thread of a large scan or
// of a partitioned aggregation, which keep to their own executors), read storage at the statement's snapshot
// (ExecContext), and report errors as SqlError. An executor checks the
// statement's cancel flag between chunks, so CancelRequest stops a query
// within one chunk's work.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "catalog/system_tables.h"
#include "common/data_chunk.h"
#include "expr/eval_context.h"
#include "storage/state_store.h"
#include "storage/table_engine.h"
#include "storage/write_set.h"

namespace freshet {

struct ExecContext {
  const StateStore* store = nullptr;
  // The statement's read snapshot: `snapshot` when set, else taken from
  // `snapshot_source` on the first read (ReadSnapshot), so that a statement
  // that reads no table (INSERT ... VALUES) does not take one: taking one
  // waits for the session's own previous writes to commit.
  mutable std::shared_ptr<const Snapshot> snapshot;
  std::function<std::shared_ptr<const Snapshot>()> snapshot_source;
  const std::shared_ptr<const Snapshot>& ReadSnapshot() const {
    if (!snapshot && snapshot_source) snapshot = snapshot_source();
    return snapshot;
  }
  const Catalog* catalog = nullptr;
  ObjectId database_id = 0;
  std::string user_name;
  EvalContext eval;
  const std::atomic<bool>* cancelled = nullptr;
  WriteSet* writes = nullptr;  // DML appends its writes here
  // The transaction's earlier, not yet applied writes: scans see them.
  const WriteSet* pending = nullptr;
  // Set while the session holds its database's writer lock: the rows every
  // applied write leaves in a table, committed or not
  // (DmlManager::LatestRows), which whole-key lookups read instead of the
  // snapshot, so that the holder need not wait for an epoch's commit.
  std::function<std::shared_ptr<const StateTable>(TableId)> latest_rows;
  // Progress of the jobs being created (rw_ddl_progress, and the error a
  // scan of a creating view gets); may be null.
  JobProgressFn job_progress;
  FragmentsFn fragments;  // the running stream graph (rw_fragments, rw_actors); may be null
  WatermarksFn watermarks;  // tables' watermarks (rw_watermarks); may be null
  LateRowsFn late_rows;     // rows dropped as late per relation (rw_watermarks); may be null
  DatabaseStatusFn database_status;  // every database's epoch loop (rw_database_status); may be null
  ChangeLogInfoFn change_log;        // a change log's size (rw_change_logs); may be null
  ProceduresFn procedures;           // information_schema.procedure_info; may be null
  RegionStatisticsFn region_statistics;  // information_schema.region_statistics; may be null
  std::function<std::optional<int64_t>(ObjectId)> row_count;  // rw_table_stats; may be null
  SettingsFn settings;  // pg_settings; may be null
  PreparedStatementsFn prepared_statements;  // pg_prepared_statements; may be null
  CursorsFn cursors;                         // pg_cursors; may be null
  ActivityFn activity;                       // pg_stat_activity; may be null
  LocksFn locks;                             // pg_locks; may be null

  // WITH RECURSIVE: the rows each work table holds for the run of its
  // recursive term being built (RecursiveUnionNode).
  std::map<int, std::shared_ptr<const DataChunk>> work_tables;

  // The statement's memory limit in bytes (0: none) and the thread's net
  // allocation when it started (common/thread_memory.h).
  int64_t memory_limit = 0;
  int64_t memory_at_start = 0;

  // Whether the statement may use a second thread (large scans, aggregation
  // partitioned by vnodes): off with batch_parallelism = 1 or
  // max_parallel_workers_per_gather = 0.
  bool parallel = true;
  // Set in the context of one partition of a partitioned plan
  // (parallel_aggregate.cc): its scans read only vnodes [begin, end), on
  // the partition's thread; `aborted` ends the partition early (its
  // sibling failed or the consumer stopped).
  struct VnodeRange {
    int begin = 0, end = 0;
  };
  std::optional<VnodeRange> vnode_partition;
  const std::atomic<bool>* aborted = nullptr;

  // The rows of a relation the statement reads (the spec's table): with
  // latest_rows, a whole-key lookup reads the latest applied rows
  // (TableEngine::LookupLatest); otherwise the read snapshot.
  std::unique_ptr<ChunkScan> Scan(ScanSpec spec) const;

  // Throws 57014 when the client cancelled the statement, and 53200 when the
  // statement's thread grew by more than memory_limit since it started.
  void CheckCancelled() const;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual bool Next(DataChunk* out) = 0;
};

using ExecutorPtr = std::unique_ptr<Executor>;

// Evaluates expressions over a chunk into a new chunk.
DataChunk EvalExpressions(const std::vector<std::unique_ptr<class Expression>>& exprs, const DataChunk& input,
                          EvalContext& ctx);
// Pulls every chunk of an executor into one chunk of the given types.
DataChunk Materialize(Executor* exec, const std::vector<DataType>& types, ExecContext& ctx);

}  // namespace freshet
