// System tables: read-only relations generated from the catalog when read.
//
// pg_catalog (enough for psql's \l, \dn, \dt, \d, \d+ and drivers'
// metadata queries; catalog/pg_catalog.h), information_schema (tables,
// columns, schemata) and rw_catalog (RisingWave's names). They are resolved by the binder like stored
// relations and scanned by the batch engine's SystemScan, which calls
// GenerateSystemRows with the catalog as it is at that moment.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/procedures.h"
#include "catalog/catalog.h"
#include "common/value.h"

namespace freshet {

struct SystemColumn {
  std::string name;
  DataType type;
};

struct SystemTableDef {
  std::string schema;
  std::string name;
  std::vector<SystemColumn> columns;
};

// Null when schema.name is not a system table.
const SystemTableDef* FindSystemTable(const std::string& schema, const std::string& name);
// Every system table: information_schema, rw_catalog, then pg_catalog.
const std::vector<SystemTableDef>& AllSystemTables();
// A system table's pg_class oid: PostgreSQL's own for the pg_catalog tables
// that are tables there (pg_class is 1259, so 'pg_class'::regclass and
// pg_description.classoid match what drivers expect); the others (views in
// PostgreSQL, information_schema, rw_catalog) get fixed oids from 12000 on,
// below PostgreSQL's first user oid (16384) like PostgreSQL's own views.
uint32_t SystemTableOid(const SystemTableDef& def);
// Null when no system table has that oid.
const SystemTableDef* SystemTableByOid(uint32_t oid);
// pg_class.relkind of a system table: 'r' for PostgreSQL's catalog tables,
// 'v' for the views.
char SystemTableRelKind(const SystemTableDef& def);
bool IsSystemSchema(const std::string& schema);

// A creating job's progress, as SHOW JOBS and rw_ddl_progress show it;
// computed by the server from the job's backfill state tables.
struct JobProgress {
  ObjectId job_id = 0;
  double fraction = 0;                   // 0..1
  int64_t rows_backfilled = 0;           // rows the backfill read so far
  int64_t estimated_rows = 0;            // rows it is expected to read in all
  std::optional<double> rows_per_second; // over the last few seconds
  std::optional<int64_t> eta_micros;
  bool queued = false;                   // waits for max_concurrent_creating_streaming_jobs
  bool backfill_done = false;            // its own backfill is done...
  std::vector<std::string> waiting_for;  // ...but these upstream jobs are still creating
};
using JobProgressFn = std::function<std::vector<JobProgress>(ObjectId database_id)>;

// One fragment of a running job (rw_catalog.rw_fragments / rw_actors).
struct FragmentInfo {
  uint32_t id = 0;
  uint32_t job_id = 0;
  std::string operators;                    // head first, e.g. "Backfill -> Project -> Materialize"
  std::string distribution;                 // "HASH" or "SINGLE"
  std::vector<uint32_t> upstream_fragments; // fragments of the same job feeding it
  std::vector<uint32_t> upstream_relations; // tables / views a backfill reads
  std::vector<uint32_t> state_tables;
  std::vector<uint32_t> actors;
  std::vector<std::pair<int, int>> actor_vnodes;
};
using FragmentsFn = std::function<std::vector<FragmentInfo>(ObjectId database_id)>;

// A table's watermark as the DML manager keeps it, and the rows a table or
// source dropped as late since the start (rw_catalog.rw_watermarks).
struct WatermarkInfo {
  ObjectId relation = 0;
  Value watermark;  // null: no row has given one since the start
};
using WatermarksFn = std::function<std::vector<WatermarkInfo>(ObjectId database_id)>;
using LateRowsFn = std::function<int64_t(ObjectId relation)>;

// A database's epoch loop as rw_catalog.rw_database_status and
// rw_recoveries show it (times: micros since the Unix epoch; 0 for none).
struct DatabaseStatus {
  ObjectId database_id = 0;
  bool recovering = false;
  uint64_t committed_epoch = 0;  // its high 48 bits are the commit's wall-clock milliseconds
  uint64_t recoveries = 0;       // since the start
  struct Recovery {
    int64_t started_at = 0, finished_at = 0;  // finished_at 0: still running
    std::string cause;
  };
  std::vector<Recovery> recent;  // the latest, oldest first
  struct Commit {
    uint64_t epoch = 0;
    int64_t committed_at = 0;
  };
  std::vector<Commit> commits;  // the latest committed epochs, oldest first
};
using DatabaseStatusFn = std::function<std::vector<DatabaseStatus>()>;

// A change log's size (rw_catalog.rw_change_logs), by the log's internal
// relation id.
struct ChangeLogInfo {
  uint64_t entries = 0;
  uint64_t oldest_epoch = 0;  // 0: empty
  uint64_t approximate_bytes = 0;
  struct Consumer {
    uint32_t id = 0;
    uint64_t read_through = 0;  // an epoch (a view's)
    int64_t retention_ms = 0;   // or a retention (a subscription's)
  };
  std::vector<Consumer> consumers;  // recorded in the log
};
using ChangeLogInfoFn = std::function<ChangeLogInfo(ObjectId log_id)>;
// information_schema.procedure_info: the procedures kept (common/procedures.h).
using ProceduresFn = std::function<std::vector<ProcedureInfo>()>;
// information_schema.region_statistics: a time-series table's regions
// (storage/timeseries/engine.h, RegionStatistics).
struct RegionStatisticsInfo {
  uint32_t region = 0;
  uint64_t rows = 0, memtable_bytes = 0, file_bytes = 0, files = 0;
};
using RegionStatisticsFn = std::function<std::vector<RegionStatisticsInfo>(ObjectId table)>;

// One setting as pg_settings shows it.
struct SettingInfo {
  std::string name;
  std::string value;
  std::string reset_value;  // what RESET returns to
  std::string boot_value;   // the built-in default
  bool read_only = false;   // context "internal": fixed, SET refuses it
  std::string unit;         // "ms" for durations, "kB" for sizes..., else empty
  std::string vartype;      // pg_settings.vartype (bool, integer, real, string, enum); empty: guessed from boot_value
};
using SettingsFn = std::function<std::vector<SettingInfo>()>;

// One of the session's named prepared statements (pg_prepared_statements).
struct PreparedStatementInfo {
  std::string name;
  std::string statement;  // the text given to Parse, or the PREPARE statement
  int64_t prepare_time = 0;  // microseconds since 2000-01-01 (timestamptz)
  std::vector<DataType> parameter_types;
  bool from_sql = false;  // PREPARE rather than the protocol's Parse
};
using PreparedStatementsFn = std::function<std::vector<PreparedStatementInfo>()>;

// One of the session's SQL cursors (pg_cursors).
struct CursorInfo {
  std::string name;
  std::string statement;
  bool is_holdable = false, is_binary = false, is_scrollable = false;
  int64_t creation_time = 0;  // as PreparedStatementInfo::prepare_time
};
using CursorsFn = std::function<std::vector<CursorInfo>()>;

// One session (PostgreSQL: one backend) as pg_stat_activity shows it.
// Times are micros since the epoch, 0 for none.
struct BackendActivity {
  int32_t pid = 0;
  ObjectId database_id = 0, user_id = 0;
  std::string database, user, application_name;
  std::string client_addr;  // empty: not a TCP client
  int32_t client_port = -1;
  int64_t backend_start = 0, xact_start = 0, query_start = 0, state_change = 0;
  std::string state;  // active, idle, idle in transaction, idle in transaction (aborted)
  std::string query;  // the running or last statement
};
using ActivityFn = std::function<std::vector<BackendActivity>()>;

// A lock as pg_locks shows it: advisory locks (PostgreSQL's lock tag of
// one: the key in classid/objid, objsubid 1 for a bigint key, 2 for two
// integers), held or awaited.
struct LockInfo {
  ObjectId database_id = 0;
  uint32_t classid = 0, objid = 0;
  int16_t objsubid = 1;
  int32_t pid = 0;
  bool shared = false;
  bool granted = true;
  int64_t wait_start = 0;  // micros since the epoch, 0 when granted
};
using LocksFn = std::function<std::vector<LockInfo>()>;

class CatalogLookup;  // expr/eval_context.h

struct SystemTableContext {
  const Catalog* catalog;
  ObjectId database_id;
  std::string user_name;
  JobProgressFn job_progress;  // null: no job shows progress
  FragmentsFn fragments;       // null: no fragments listed
  // A relation's committed row count (statistics), if it has one.
  std::function<std::optional<int64_t>(ObjectId)> row_count;
  // The session's settings (pg_settings), in SHOW ALL's order; null: none.
  SettingsFn settings;
  PreparedStatementsFn prepared_statements;  // null: none
  CursorsFn cursors;                         // null: none
  ActivityFn activity;                       // every session's (pg_stat_activity); null: none
  LocksFn locks;                             // pg_locks; null: none
  // The reader's catalog functions (pg_views.definition is its
  // pg_get_viewdef); null: those of an empty search path.
  const CatalogLookup* lookup = nullptr;
  WatermarksFn watermarks;  // rw_watermarks; null: none known
  LateRowsFn late_rows;     // rw_watermarks; null: none counted
  DatabaseStatusFn database_status;  // rw_database_status, rw_recoveries; null: none known
  ChangeLogInfoFn change_log;        // rw_change_logs; null: none listed
  ProceduresFn procedures;           // information_schema.procedure_info; null: none
  RegionStatisticsFn region_statistics;  // information_schema.region_statistics; null: none
  // rw_batch_counters: (name, value) of each batch counter; null: none.
  std::function<std::vector<std::pair<std::string, int64_t>>()> batch_counters;
};

std::vector<Row> GenerateSystemRows(const SystemTableDef& def, const SystemTableContext& ctx);

// PostgreSQL OIDs we expose for catalog objects: our object ids shifted
// above PostgreSQL's reserved range, so drivers never confuse them. Users
// keep their ids as oids.
inline constexpr uint32_t kObjectOidBase = 100000;
inline uint32_t ObjectOid(ObjectId id) { return kObjectOidBase + id; }

// Objects that exist only as pg_catalog rows get oids derived from their
// table's id, so they are as stable as the table's: the index behind a
// declared primary key (pg_class/pg_index "<table>_pkey") and its
// constraint (pg_constraint).
inline constexpr uint32_t kPrimaryKeyIndexOidBase = 1000000000;
inline constexpr uint32_t kPrimaryKeyConstraintOidBase = 1200000000;
inline uint32_t PrimaryKeyIndexOid(ObjectId table) { return kPrimaryKeyIndexOidBase + table; }
inline uint32_t PrimaryKeyConstraintOid(ObjectId table) { return kPrimaryKeyConstraintOidBase + table; }
// Other constraints (catalog.h ConstraintCatalog), by their ordinal within
// the table (at most 32 per table keep distinct oids).
inline constexpr uint32_t kConstraintOidBase = 1600000000;
inline uint32_t ConstraintOid(ObjectId table, int ordinal) { return kConstraintOidBase + table * 32 + ordinal % 32; }
// A column default's pg_attrdef row.
inline int64_t AttrDefOid(ObjectId table, int attnum) { return 1400000000LL + int64_t(table) * 1600 + attnum; }

// Fixed oids, as in PostgreSQL.
inline constexpr uint32_t kHeapAmOid = 2;
inline constexpr uint32_t kBtreeAmOid = 403;
inline constexpr uint32_t kDefaultCollationOid = 100;

}  // namespace freshet
