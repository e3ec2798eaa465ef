// Catalog: databases, schemas, relations (tables, materialized views,
// indexes, sources, sinks, internal tables) and users.
//
// The catalog lives in memory and is persisted through a MetaStore
// (storage/meta_store.h), one JSON document per object under
// "catalog/<kind>/<id>". Every mutation writes through to the store in one
// atomic MetaWrite before it becomes visible, so a crash never leaves a
// half-applied DDL. Object ids come from one counter shared by every kind.
//
// Readers get immutable snapshots of objects (shared_ptr<const T>), so a
// statement keeps a consistent view while DDL runs concurrently.
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/enum_type.h"
#include "common/types.h"
#include "storage/keys.h"
#include "storage/meta_store.h"
#include "storage/state_table_desc.h"

namespace freshet {

using ObjectId = uint32_t;

inline constexpr ObjectId kRootUserId = 1;
inline constexpr const char* kDefaultDatabase = "dev";
inline constexpr const char* kDefaultSchema = "public";

// Schemas every database has; the three system ones are read-only views
// generated from the catalog (catalog/system_tables.h).
inline constexpr const char* kPgCatalogSchema = "pg_catalog";
inline constexpr const char* kInformationSchema = "information_schema";
inline constexpr const char* kRwCatalogSchema = "rw_catalog";

// Persisted as numbers: new kinds go at the end.
enum class RelationKind : uint8_t { kTable, kMaterializedView, kIndex, kSource, kSink, kInternal, kSystem, kView, kSequence, kSubscription };
const char* RelationKindName(RelationKind k);

// kFailed: the job failed again and again (see DatabaseEpochLoop's
// recovery) and is left stopped with its error in `failure`; its relation
// keeps the rows of its last committed epoch until it is dropped.
enum class JobStatus : uint8_t { kCreated = 0, kCreating = 1, kFailed = 2 };

struct ColumnCatalog {
  std::string name;
  DataType type;
  bool not_null = false;
  bool hidden = false;        // _row_id: not in SELECT *
  std::string default_expr;   // SQL text of DEFAULT, empty when none
  // Identity columns (GENERATED ... AS IDENTITY): 'a' ALWAYS, 'd' BY
  // DEFAULT, '\0' none, as pg_attribute.attidentity; their values come
  // from the sequence they own, through default_expr.
  char identity = '\0';
  std::string comment;  // COMMENT ON COLUMN (pg_description); empty: none
  // A column ALTER TABLE ... ADD COLUMN added without rewriting the stored
  // rows: the value those rows read for it (its default when added,
  // evaluated once; PostgreSQL's attmissingval), as an encoded cell
  // (common/encoding.h); empty: NULL, or every row holds the column.
  std::string missing_cell;
  // GENERATED ALWAYS AS (expression) STORED: the expression's SQL text
  // (deparsed; over the table's other, not generated, columns), whose
  // value every write stores (pg_attribute.attgenerated 's'); empty: none.
  std::string generated;
  // A column declared with a domain (CREATE DOMAIN): `type` is the
  // domain's base type, this the domain's id, whose NOT NULL, CHECKs and
  // DEFAULT apply to the column's values as well (pg_attribute.atttypid
  // names it); 0 when none.
  ObjectId domain = 0;
};

// A table constraint besides the primary key (pg_constraint): FOREIGN KEY
// ('f'), recorded and listed but not enforced; CHECK ('c'), enforced on
// every row written (batch/dml.h CheckConstraints); UNIQUE ('u'), enforced
// by DmlManager with an index it maintains in the writes' epoch (a
// relation of its own, `index_id`, whose keys are the constrained columns
// and whose values the rows' storage keys). Its columns are named (RENAME
// COLUMN renames them, DROP COLUMN drops the constraint); a foreign key's
// referenced columns are the referenced table's primary key, a check's
// columns those its expression reads, a unique constraint's its key in
// order. A foreign key references the referenced table's primary key
// (`ref_columns` empty: its columns then in the key's order) or the
// columns of one of its unique constraints or unique indexes
// (`ref_columns`, paired with `columns`). The catalog gives a unique constraint its index id when the
// table is created (a unique constraint is only ever added by creating or
// rewriting a table, which fills the index) and drops the index's data
// with the constraint or the table.
struct ConstraintCatalog {
  std::string name;
  char type = 'f';                   // pg_constraint.contype
  int ordinal = 0;                   // its oid: ConstraintOid(table, ordinal)
  std::vector<std::string> columns;  // conkey
  ObjectId ref_table = 0;            // confrelid; 0: the table itself
  std::vector<std::string> ref_columns;  // FOREIGN KEY to a unique key: the referenced columns; empty: the primary key
  char on_update = 'a', on_delete = 'a', match = 's';  // confupdtype, confdeltype, confmatchtype
  bool deferrable = false, deferred = false;
  std::string check;                 // CHECK: the expression's SQL text (deparsed)
  bool check_is_operator = false;    // its outermost node is an operator (pg_get_constraintdef)
  bool validated = true;             // convalidated: false after ADD ... NOT VALID
  ObjectId index_id = 0;             // UNIQUE: its index's relation id (0: not assigned yet)
  bool nulls_not_distinct = false;   // UNIQUE NULLS NOT DISTINCT: rows with NULLs conflict too
  bool index_only = false;           // CREATE UNIQUE INDEX: a unique index, not a constraint
  // CREATE UNIQUE INDEX ... WHERE: the rows the index holds (SQL text over
  // the table's columns, deparsed; empty: every row). Such an index is no
  // key a foreign key may reference.
  std::string predicate;
  // CREATE UNIQUE INDEX ... ((expression)): an element that is an
  // expression over the table's columns (its SQL text, deparsed, and its
  // type) has "" in `columns` at its place; both vectors are as long as
  // `columns` when the index has one, else empty. Such an index is no key
  // a foreign key may reference.
  std::vector<std::string> expressions;
  std::vector<DataType> expression_types;
  bool HasExpressions() const { return !expressions.empty(); }
  // CREATE [UNIQUE] INDEX ... INCLUDE (columns): columns the index holds
  // beside its key (not part of it; a CREATE INDEX index holds every
  // column anyway), by name.
  std::vector<std::string> include;
  // What element k is called (pg_attribute of the index, its default
  // name): a column's name; an expression's function name, or "expr", as
  // PostgreSQL names it.
  std::string ElementName(size_t k) const;
};

// CREATE SEQUENCE's parameters, as pg_sequence holds them.
struct SequenceOptions {
  DataType type = DataType::Int64();  // smallint, integer or bigint
  int64_t start = 1, increment = 1, min = 1, max = INT64_MAX, cache = 1;
  bool cycle = false;
  // A serial or identity column's sequence: the column it is owned by
  // (dropped with it); 0 when owned by none (OWNED BY NONE).
  ObjectId owned_by_table = 0;
  int owned_by_column = -1;
};

// A plain table's distribution key (the columns whose hash picks a row's
// vnode) for its primary key: the key's first column. Rows sharing it share
// a vnode, so that a condition on it alone (an order's lineitems,
// `WHERE l_orderkey IN (...)`) reads one vnode per value rather than every
// vnode, and jobs joining or grouping on it need no exchange after the
// table. The price: a first column with few values spreads the table's rows
// over few vnodes. Tables created before it hash their whole key, which
// their catalog keeps (`dist_key` is stored, never derived).
inline std::vector<int> TableDistributionKey(const std::vector<int>& pk) {
  return pk.empty() ? std::vector<int>{} : std::vector<int>{pk.front()};
}

// A time-series table's definition beyond its columns (issue 21;
// storage/timeseries/engine.h): the TIME INDEX column, the series' columns
// (its PRIMARY KEY, "tags"), the partition rules (each a region) and the
// table options, as GreptimeDB's CREATE TABLE names them.
struct TimeSeriesCatalog {
  int time_index = -1;  // -1: not a time-series table (the row store's)
  std::vector<int> tags;
  std::vector<std::string> partition_columns;  // PARTITION ON COLUMNS (...)
  std::vector<std::string> partition_rules;    // each rule's text, in order
  // WITH options, keys lower-cased: ttl, compaction.type,
  // compaction.twcs.time_window, append_mode ("true"/"false").
  std::map<std::string, std::string> options;
  std::string Option(const std::string& key) const {
    auto it = options.find(key);
    return it == options.end() ? std::string() : it->second;
  }
  bool append_mode() const { return Option("append_mode") == "true"; }
};

struct TableCatalog {
  ObjectId id = 0;
  ObjectId database_id = 0;
  ObjectId schema_id = 0;
  ObjectId owner = kRootUserId;
  std::string name;
  RelationKind kind = RelationKind::kTable;
  std::vector<ColumnCatalog> columns;
  std::vector<int> pk;          // primary key column indices
  std::vector<int> dist_key;    // distribution key (vnode hashing)
  int row_id_index = -1;        // hidden _row_id column, -1 when a key is declared
  bool append_only = false;
  // WATERMARK FOR column AS expr (append-only tables and sources): the
  // column (-1: none) and the expression's SQL text, bound against the
  // relation's columns. Rows whose column is below the watermark (the
  // largest expr of the rows before) are dropped as late.
  int watermark_column = -1;
  std::string watermark_expr;
  // Tables with a primary key: RisingWave's conflict behaviour (CREATE
  // TABLE ... ON CONFLICT ...; meta/table_conflict.h): "" (a duplicate key
  // is 23505, as PostgreSQL), "overwrite", "ignore" or "do update if not
  // null"; and its version column (-1: none).
  std::string on_conflict;
  int version_column = -1;
  // Materialized views: the columns whose watermarks the view's job passes
  // on (planner's WatermarkColumns at CREATE), so that jobs reading it can
  // close windows on them.
  std::vector<int> stream_watermark_columns;
  std::string definition;       // the CREATE statement text
  // Views (CREATE VIEW): the query, as PostgreSQL's pg_get_viewdef shows it
  // (deparsed from the definition's parse tree). The binder expands a view
  // from `definition`, with the search_path in plan_settings.
  std::string view_query;
  std::vector<ObjectId> depends_on;  // relations this one reads
  // Views and stream jobs: the SQL functions (FunctionCatalog) their query
  // calls, inlined when it was bound; DROP FUNCTION refuses (2BP01) or,
  // with CASCADE, drops them.
  std::vector<ObjectId> function_deps;
  // Views: how many columns each relation the query names had when the
  // view was created (or replaced). Columns a table gained since (ADD
  // COLUMN) are not the view's: `*` does not reach them, as PostgreSQL
  // expands `*` when it stores a view.
  std::map<ObjectId, int> input_columns;
  int64_t created_at_micros = 0;

  // Stream jobs (materialized views, sinks, indexes): whether the job is
  // still being created (backfilling), its internal state tables in the
  // order its stream plan asks for them, and the settings its definition
  // was planned with (search_path, TimeZone, parallelism), so that recovery
  // plans it again identically.
  JobStatus status = JobStatus::kCreated;
  std::vector<ObjectId> internal_tables;
  std::map<std::string, std::string> plan_settings;
  // Stream jobs: the stream plan as created (planner/stream_plan_codec.h),
  // from which recovery builds the job; its state tables are
  // internal_tables in the plan's order. Empty for jobs of versions before
  // it was kept (they are planned again from `definition`).
  std::string stream_plan;
  ObjectId job_id = 0;  // internal tables: the job that owns them
  // Sources: the WITH options (connector = ..., ...).
  std::map<std::string, std::string> connector_options;
  // Plain tables: PostgreSQL storage parameters as pg_class.reloptions
  // lists them ("fillfactor=100"; catalog/storage_parameters.h).
  std::vector<std::string> storage_options;
  std::string comment;  // COMMENT ON TABLE, VIEW, ... (pg_description); empty: none
  std::vector<ConstraintCatalog> constraints;  // plain tables: FOREIGN KEY
  SequenceOptions sequence;   // kSequence: its parameters (its values: Catalog::SequenceState)
  std::string internal_kind;  // internal tables: what the state is ("backfill", "aggresult"...)
  ObjectId backfill_upstream = 0;  // "backfill" tables: the relation the backfill reads
  int64_t finished_at_micros = 0;  // jobs: when it became Created
  // Jobs, in memory only: the first store snapshot (Snapshot::seq) that
  // holds all of the job's rows: the store's sequence when the job became
  // Created in this process; 0 when it was Created before this process
  // started, so every snapshot holds them. A batch read of an index at an
  // older snapshot (a transaction's) would miss rows still being backfilled.
  uint64_t complete_from_snapshot = 0;
  std::string failure;             // jobs with status kFailed: why
  std::string failure_code = "XX000";  // and the error's SQLSTATE
  TimeSeriesCatalog timeseries;    // tables with a TIME INDEX
  bool IsTimeSeries() const { return timeseries.time_index >= 0; }
  // Whether the rows are keyed by a generated row id alone (what a bulk
  // load needs: bulk_rows.h).
  bool KeyedByRowId() const { return row_id_index >= 0 && pk.size() == 1 && pk[0] == row_id_index && !IsTimeSeries(); }

  std::vector<DataType> types() const;
  // How the relation's rows are keyed in storage.
  StateTableDesc StorageDesc() const;
  // What stored rows written before columns were added read for them
  // (StateTableDesc::missing_cells); empty when no column was added so.
  std::vector<std::string> MissingCells() const;
  // The index relation of unique constraint `c` (its index_id): the
  // constrained columns, keyed, then this table's key columns.
  StateTableDesc UniqueIndexDesc(const ConstraintCatalog& c) const;
  // The columns of the index rows of `c`, as indexes into this table's
  // (-1 for an element that is an expression).
  std::vector<int> UniqueIndexColumns(const ConstraintCatalog& c) const;
  int ColumnIndex(const std::string& column_name) const;  // -1 when absent
  // The unique constraint or index over exactly `column_names` (any
  // order), or null.
  const ConstraintCatalog* FindUniqueKey(const std::vector<std::string>& column_names) const;
  // What foreign key `fk` (of another table, or of this one) references in
  // this table: its columns paired with fk's, and the unique constraint
  // holding them (null: the primary key).
  std::vector<int> ReferencedColumns(const ConstraintCatalog& fk) const;
  const ConstraintCatalog* ReferencedUniqueKey(const ConstraintCatalog& fk) const;
  bool IsUserVisible() const { return kind != RelationKind::kInternal; }
};

struct SchemaCatalog {
  ObjectId id = 0;
  ObjectId database_id = 0;
  std::string name;
  ObjectId owner = kRootUserId;
  std::string comment;  // COMMENT ON SCHEMA (pg_description); empty: none
};

// A database is a failure domain: its own epoch loop, barriers, commits
// and recovery (meta/barrier_manager.h). Its barrier settings override the
// system's (ALTER SYSTEM) when set; 0 means "the system's".
struct DatabaseCatalog {
  ObjectId id = 0;
  std::string name;
  ObjectId owner = kRootUserId;
  int barrier_interval_ms = 0;   // CREATE/ALTER DATABASE ... barrier_interval_ms
  int checkpoint_frequency = 0;  // CREATE/ALTER DATABASE ... checkpoint_frequency
  // CREATE DATABASE ... WITH (ttl = '7d') / ALTER DATABASE ... SET 'ttl' =
  // ...: the TTL of its time-series tables that set none ("" = none).
  std::string ttl;
};

// A user-defined type: an enum (CREATE TYPE ... AS ENUM) or a domain
// (CREATE DOMAIN). Schema-scoped; its name is shared with relations, as
// PostgreSQL's row types share pg_type's names. An enum's labels keep the
// position values of the type are stored as (common/enum_type.h) and an
// oid of their own (pg_enum.oid); the type has a second id for its array
// type (pg_type.typarray). A domain is its base type with constraints:
// its values are the base type's, stored and computed as them, and a
// value given for a column of the domain or cast to it must satisfy NOT
// NULL and each CHECK (its text over VALUE, deparsed).
struct TypeCatalog {
  ObjectId id = 0;
  ObjectId array_id = 0;
  ObjectId database_id = 0;
  ObjectId schema_id = 0;
  std::string name;
  ObjectId owner = kRootUserId;
  std::vector<EnumLabel> labels;  // by position
  std::string comment;            // COMMENT ON TYPE; empty: none
  // Domains (kind 'd', pg_type.typtype; 'e' an enum).
  char kind = 'e';
  DataType base_type;           // the values' type (a domain over a domain: that one's)
  ObjectId base_domain = 0;     // a domain over a domain: that one (its constraints apply too)
  bool not_null = false;        // NOT NULL (pg_type.typnotnull)
  std::string default_expr;     // DEFAULT's SQL text; empty: none
  std::vector<ConstraintCatalog> checks;  // CHECK (type 'c': name, check, validated), in order
  bool IsDomain() const { return kind == 'd'; }
};

// A SQL function (CREATE FUNCTION ... LANGUAGE sql): its body is one query,
// inlined into the plans that call it (binder/sql_function_binder.cc).
// Schema-scoped and overloaded by the types of its arguments; a scalar
// function returns the first column of the body's first row (NULL for no
// row), a set-returning one (RETURNS SETOF / TABLE) every row.
struct FunctionArgument {
  std::string name;         // "" when unnamed (then only $n reads it)
  DataType type;
  std::string default_expr;  // DEFAULT's SQL text; "" when none
  char mode = 'i';           // pg_proc.proargmodes: 'i' IN, 'o' OUT, 'b' INOUT, 'v' VARIADIC (the last input, an array)
  // A polymorphic parameter: "anyelement", "anyarray", "anynonarray",
  // "anycompatible" or "anycompatiblearray" (`type` is then unknown until a
  // call resolves it, PolymorphicTypes); "" for a concrete type.
  std::string polymorphic;
  // The type as declared ("integer", "anyelement").
  std::string TypeName() const { return polymorphic.empty() ? type.ToString() : polymorphic; }
};
// The pg_type OID of a polymorphic pseudo-type's name (0: not one).
uint32_t PolymorphicTypeOid(const std::string& name);
struct FunctionCatalog {
  ObjectId id = 0;
  ObjectId database_id = 0;
  ObjectId schema_id = 0;
  std::string name;
  ObjectId owner = kRootUserId;
  std::vector<FunctionArgument> args;  // the input parameters (IN and INOUT)
  // Functions with OUT or INOUT parameters: every parameter as declared,
  // in order (empty otherwise). One output parameter is the result; more
  // are its columns (table_columns), a record: a row value in a select
  // list, its columns in FROM.
  std::vector<FunctionArgument> params;
  DataType return_type;      // scalar result, or SETOF's element type
  std::string polymorphic_result;  // the result's polymorphic type ("anyelement"...), "" when concrete
  bool returns_set = false;
  // RETURNS TABLE (...) or SETOF a relation's row: the result columns
  // (empty for a scalar or SETOF scalar result).
  std::vector<std::pair<std::string, DataType>> table_columns;
  bool returns_table = false;  // declared RETURNS TABLE (pg_proc's 't' argument modes)
  char volatility = 'v';     // 'i'mmutable, 's'table, 'v'olatile (pg_proc.provolatile)
  bool strict = false;       // RETURNS NULL ON NULL INPUT
  std::string body;          // the query: one SELECT's SQL text, as deparsed
  std::string source;        // pg_proc.prosrc: the AS string as written ("" for RETURN / BEGIN ATOMIC)
  std::string comment;       // COMMENT ON FUNCTION; empty: none
  // What it depends on, as PostgreSQL records it: the relation whose row
  // type it returns (SETOF t), and the functions a RETURN or BEGIN ATOMIC
  // body calls (a body given AS a string is bound only when called).
  std::vector<ObjectId> relation_deps;
  std::vector<ObjectId> function_deps;
  // The argument types as PostgreSQL spells a signature: "integer, text".
  std::string IdentityArguments() const;
  int RequiredArguments() const;  // those without a DEFAULT
  // A record of OUT parameters' columns, one row (not SETOF): the result is
  // a row value (DataType::Struct of table_columns).
  bool ReturnsOneRecord() const { return !returns_set && !table_columns.empty(); }
  // The one OUT (or INOUT) parameter's name, which names the result's
  // column in FROM; "" when there is not exactly one or it is unnamed.
  std::string OutputColumnName() const;
};

struct UserCatalog {
  ObjectId id = 0;
  std::string name;
  bool superuser = false;
  bool can_login = true;
};

using TableRef = std::shared_ptr<const TableCatalog>;

class Catalog {
 public:
  // Loads the catalog from the store; on a fresh store, creates user root,
  // database dev and its schemas. Creates databases postgres and template1
  // (the ones tools connect to first) once, at the first start of a store
  // that has never had them.
  static std::unique_ptr<Catalog> Load(MetaStore* store);
  // A transaction's catalog that added enum labels takes them back out of
  // the enum registry (its parent's definitions are in force again).
  ~Catalog();

  // Lookups (names are exact; the binder lowercases unquoted identifiers).
  std::optional<DatabaseCatalog> FindDatabase(const std::string& name) const;
  std::optional<DatabaseCatalog> GetDatabase(ObjectId id) const;
  std::vector<DatabaseCatalog> ListDatabases() const;
  std::optional<SchemaCatalog> FindSchema(ObjectId database_id, const std::string& name) const;
  std::optional<SchemaCatalog> GetSchema(ObjectId id) const;
  std::vector<SchemaCatalog> ListSchemas(ObjectId database_id) const;
  TableRef FindTable(ObjectId schema_id, const std::string& name) const;
  TableRef GetTable(ObjectId id) const;
  // database.schema.relation of a relation; its id as text when it is gone.
  std::string QualifiedName(ObjectId id) const;
  std::vector<TableRef> ListTables(ObjectId database_id) const;  // all kinds
  std::vector<TableRef> Dependents(ObjectId id) const;           // relations that depend on id
  // Sets one entry of a table's plan_settings (persisted).
  void SetPlanSetting(ObjectId id, const std::string& key, const std::string& value);
  std::optional<TypeCatalog> FindType(ObjectId schema_id, const std::string& name) const;
  std::optional<TypeCatalog> GetType(ObjectId id) const;
  std::vector<TypeCatalog> ListTypes(ObjectId database_id) const;
  // SQL functions: all overloads of `name` in a schema; one by id; a
  // database's.
  std::vector<FunctionCatalog> FindFunctions(ObjectId schema_id, const std::string& name) const;
  std::optional<FunctionCatalog> GetFunction(ObjectId id) const;
  std::vector<FunctionCatalog> ListFunctions(ObjectId database_id) const;
  // Relations whose query calls function `id` (TableCatalog::function_deps).
  std::vector<TableRef> FunctionDependents(ObjectId id) const;
  // Functions whose definition depends on function or relation `id`.
  std::vector<FunctionCatalog> FunctionsDependingOn(ObjectId id) const;
  std::optional<UserCatalog> FindUser(const std::string& name) const;
  std::optional<UserCatalog> GetUser(ObjectId id) const;
  std::vector<UserCatalog> ListUsers() const;

  // Mutations: persisted atomically, then visible. They throw SqlError on
  // conflicts (duplicate names, 42P04/42P06/42P07) or storage failures.
  // `settings` supplies the barrier settings (its id, name and owner are
  // ignored).
  DatabaseCatalog CreateDatabase(const std::string& name, ObjectId owner, const DatabaseCatalog& settings = {});
  // Sets a database's barrier settings (0: the system's).
  // A database's TTL for its time-series tables ("" = none).
  void SetDatabaseTimeToLive(ObjectId database_id, const std::string& ttl);
  // The TTL a time-series table keeps its rows by: its own ttl option, else
  // its database's ("" = forever).
  std::string EffectiveTimeToLive(const TableCatalog& t) const;
  void SetDatabaseBarrierSettings(ObjectId database_id, int barrier_interval_ms, int checkpoint_frequency);
  SchemaCatalog CreateSchema(ObjectId database_id, const std::string& name, ObjectId owner);
  void SetSchemaOwner(ObjectId schema_id, ObjectId owner);
  void SetDatabaseOwner(ObjectId database_id, ObjectId owner);
  void SetSchemaComment(ObjectId schema_id, const std::string& comment);  // "": none
  // Assigns table->id; returns the stored object.
  // With the sequences of its serial and identity columns (their
  // owned_by_table set to the new table's id), in one write.
  // `reserved_id`: the table's id, one NewObjectId returned (0: a new one).
  TableRef CreateTable(TableCatalog table, std::vector<TableCatalog> owned_sequences = {}, ObjectId reserved_id = 0);
  // Creates a stream job's relation and its internal tables in one atomic
  // write; assigns ids (the job's first, or `reserved_id`: one NewObjectId
  // gave, for a job that had to be named before it existed) and sets the
  // internal tables' job_id and the job's internal_tables. Throws 42P07 on
  // a name conflict.
  std::pair<TableRef, std::vector<TableRef>> CreateJob(TableCatalog job, std::vector<TableCatalog> internals,
                                                      ObjectId reserved_id = 0);
  // CREATE OR REPLACE VIEW: the view `id` takes the columns, definition,
  // query, settings and dependencies of `view`.
  TableRef ReplaceView(ObjectId id, const TableCatalog& view);
  // ALTER without a rewrite (renames, defaults, NOT NULL, options, unique
  // constraints whose index was filled in place): the relation `table.id`
  // becomes `table`. Throws 42P07 when its name is taken.
  TableRef AlterTable(const TableCatalog& table);
  // A fresh object id, stored at once (never given twice): the index of a
  // unique constraint filled before the constraint is stored.
  ObjectId NewObjectId() { return ReserveId(); }
  // ALTER TABLE with a rewrite. `table` is the rewritten relation: created
  // by CreateTable as a kInternal table of internal_kind kRewriteKind under
  // a temporary name, filled, and here given its final form (the old name,
  // kind table). In one atomic write it replaces relation `old_id`, whose
  // entry and data are dropped. Rewrite tables left by a crash before this
  // are dropped when the catalog is loaded.
  static constexpr const char* kRewriteKind = "rewrite";
  TableRef ReplaceTable(ObjectId old_id, const TableCatalog& table);
  // `snapshot_seq`: for kCreated, TableCatalog::complete_from_snapshot.
  void SetJobStatus(ObjectId id, JobStatus status, uint64_t snapshot_seq = 0);
  void SetJobFailed(ObjectId id, const std::string& failure, const std::string& code);

  // The event log (rw_catalog.rw_event_logs): what happened to stream jobs
  // (failures, recoveries), persisted; the newest kMaxEvents are kept.
  struct Event {
    uint64_t id = 0;
    int64_t at_micros = 0;
    std::string type;  // e.g. "STREAM_FAILURE", "RECOVERY", "JOB_FAILED"
    std::string info;  // JSON text
  };
  static constexpr size_t kMaxEvents = 1000;
  void RecordEvent(const std::string& type, const std::string& info);
  std::vector<Event> ListEvents() const;
  // Removes the objects and deletes the data of the given relations
  // (DeleteRange over their key prefixes) in one batch.
  void DropObjects(const std::vector<ObjectId>& database_ids, const std::vector<ObjectId>& schema_ids,
                   const std::vector<ObjectId>& table_ids);
  // CREATE TYPE: assigns the type's ids and its labels' oids (positions
  // are the caller's). 42710 when a type or relation of its schema has its
  // name. Every mutation of a type publishes it (common/enum_type.h).
  TypeCatalog CreateType(TypeCatalog type);
  // ALTER TYPE: `type.id` becomes `type`; labels without an oid get one.
  // 42710 when another type or relation of its schema has its name.
  TypeCatalog AlterType(TypeCatalog type);
  void DropType(ObjectId id);
  // CREATE FUNCTION: assigns the id; 42723 when its schema has a function
  // of that name and argument types. CREATE OR REPLACE: `function.id`
  // becomes `function`.
  FunctionCatalog CreateFunction(FunctionCatalog function);
  FunctionCatalog ReplaceFunction(const FunctionCatalog& function);
  void DropFunction(ObjectId id);
  UserCatalog CreateUser(const std::string& name, bool superuser);
  // Throws 2BP01 when the user still owns databases, schemas or relations.
  void DropUser(ObjectId id);

  // Changes with every mutation (for plan caches): values come from one
  // counter shared by every Catalog object, so that a transaction's
  // catalog and this one never have the same version with other contents.
  uint64_t version() const;

  // ---- Transactions: DDL in a transaction block ----
  //
  // A transaction's catalog starts as a snapshot of this one and takes the
  // block's DDL like any catalog (same checks, same results), but what it
  // would store is kept in memory (its reads see it): nothing of it is
  // visible to other sessions or survives a crash until CommitTransaction
  // stores it all in one atomic write. Ids are taken from this catalog
  // (stored at once, so never given twice, even by a transaction that
  // rolls back). Object data it drops (DROP TABLE, a rewrite's old table)
  // is dropped by that write too.
  std::unique_ptr<Catalog> BeginTransaction();
  // A copy of this transaction's catalog as it is now (a savepoint).
  std::unique_ptr<Catalog> CopyTransaction() const;
  bool is_transaction() const { return parent_ != nullptr; }
  // Makes `table`, created in this (parent) catalog after the transaction
  // began, part of the transaction's snapshot (ALTER TABLE's rewrite
  // creates the new relation outside the transaction, then replaces the
  // old one within it).
  void AdoptIntoTransaction(const TableRef& table);
  // Stores transaction `txn` (begun on this catalog) and makes its changes
  // visible here. 40001 when an object it changed, or a name it took, was
  // changed here since it began; nothing is stored then.
  void CommitTransaction(const Catalog& txn);
  // The relations `txn` dropped (for what follows them: buffered writes,
  // sequences).
  std::vector<ObjectId> DroppedByTransaction() const;
  // In a transaction's catalog: whether relation `id` was made by it.
  bool MadeInTransaction(ObjectId id) const;

  // A sequence's position, stored apart from its definition (not a catalog
  // change: the version stays): what the next nextval continues from
  // (meta/sequences.h keeps it). nullopt when never stored.
  std::optional<std::string> SequenceState(ObjectId id) const;
  void StoreSequenceState(ObjectId id, const std::string& state);

 private:
  // Persists a change to one table's entry (no-op when it is gone).
  void UpdateTable(ObjectId id, const std::function<void(TableCatalog*)>& change);
  void UpdateSchema(ObjectId schema_id, const std::function<void(SchemaCatalog*)>& change);
  void UpdateDatabase(ObjectId database_id, const std::function<void(DatabaseCatalog*)>& change);
  explicit Catalog(MetaStore* store) : store_(store) {}
  class TransactionStore;
  ObjectId NextIdLocked(MetaWrite* batch);
  void Bootstrap();
  void CreateBuiltinSchemasLocked(ObjectId database_id, MetaWrite* batch,
                                  std::vector<SchemaCatalog>* created);
  void CommitLocked(MetaWrite* batch);

  MetaStore* store_;
  mutable std::shared_mutex mu_;
  ObjectId next_id_ = 1;
  uint64_t version_ = 0;
  std::map<ObjectId, DatabaseCatalog> databases_;
  std::map<ObjectId, SchemaCatalog> schemas_;
  std::map<ObjectId, TableRef> tables_;
  std::map<ObjectId, UserCatalog> users_;
  std::map<ObjectId, TypeCatalog> types_;
  std::map<ObjectId, FunctionCatalog> functions_;
  std::map<uint64_t, Event> events_;  // by id, oldest first

  // A transaction's catalog: the catalog it began on, what it keeps
  // instead of storing (store_ points to it) and the objects as they were
  // when it began.
  Catalog* parent_ = nullptr;
  std::shared_ptr<TransactionStore> txn_store_;
  std::map<ObjectId, TableRef> began_tables_;
  std::map<ObjectId, SchemaCatalog> began_schemas_;
  std::map<ObjectId, DatabaseCatalog> began_databases_;
  std::map<ObjectId, UserCatalog> began_users_;
  std::map<ObjectId, TypeCatalog> began_types_;
  std::map<ObjectId, FunctionCatalog> began_functions_;
  std::set<uint32_t> pending_labels_;  // oids of the enum labels this transaction added
  // Publishes an enum type's current definition: always here, in a
  // transaction only for a type it made (the committed definitions of
  // others stay in force until it commits).
  void PublishTypeLocked(const TypeCatalog& type) const;
  // 42710 when a type or relation of `schema_id` other than `except` is
  // called `name`.
  void CheckTypeNameFreeLocked(ObjectId schema_id, const std::string& name, ObjectId except) const;
  // Takes an id in this (parent) catalog and stores the counter at once.
  ObjectId ReserveId();
};

// A subscription reading its relation's shared change log (the log job's
// id in plan_settings "change_log"): a catalog entry, no stream job. One
// of an older version ran a job of its own writing its own log.
inline bool ReadsSharedChangeLog(const TableCatalog& t) {
  return t.kind == RelationKind::kSubscription && t.plan_settings.count("change_log");
}
// The job writing a relation's change log for its consumers in other
// databases and its subscriptions (plan_settings "log_of": the relation's
// id; "consumer": a log of an older version made for one view), kept out of
// the user's subscriptions.
inline bool IsChangeLogJob(const TableCatalog& t) {
  return t.kind == RelationKind::kSubscription && (t.plan_settings.count("log_of") || t.plan_settings.count("consumer"));
}
// Materialized views, sinks, indexes, change log jobs (and subscriptions of
// an older version): the relations a stream job creates (tables a connector
// fills are jobs too, see IsConnectorTable).
inline bool IsStreamJob(const TableCatalog& t) {
  return t.kind == RelationKind::kMaterializedView || t.kind == RelationKind::kSink || t.kind == RelationKind::kIndex ||
         (t.kind == RelationKind::kSubscription && !ReadsSharedChangeLog(t));
}
// A table created WITH (connector = ...): a job reads the source into it.
inline bool IsConnectorTable(const TableCatalog& t) {
  return t.kind == RelationKind::kTable && !t.connector_options.empty();
}

// Wall-clock time in microseconds since the Unix epoch.
int64_t NowMicros();

}  // namespace freshet
