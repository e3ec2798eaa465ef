// Statement handlers: what each statement does.
//
// HandleStatement dispatches a parsed statement to the handler of its
// family, one file each in this folder: queries and DML (query.cc), CREATE
// TABLE and SOURCE (create_table.cc), CREATE MATERIALIZED VIEW, SINK and
// INDEX (create_job.cc), DROP (drop.cc), databases and schemas
// (database.cc), roles (role.cc), ALTER SYSTEM (alter_system.cc), FLUSH,
// WAIT, CANCEL JOBS and ALTER ... SET BACKFILL_RATE_LIMIT (jobs.cc), SHOW
// of objects and jobs (show.cc), SET/RESET/SHOW of variables (variable.cc),
// transactions (transaction.cc), prepared statements (prepared.cc), COPY
// (copy.cc), ALTER TABLE and renames (alter_table.cc), TRUNCATE, VACUUM and
// ANALYZE (table_maintenance.cc).
//
// A handler takes the statement with its session (HandlerArgs), does its
// work through the catalog, the stream jobs and the session's transaction,
// sends what it returns through the ResultSink, and returns the command's
// tag. Handlers never build SQL text to parse again: plans are built by the
// binder from the statement's parse tree, or directly.
//
// Errors are thrown as SqlError; the session marks the transaction failed.
#pragma once

#include <string>
#include <vector>

#include "common/value.h"
#include "frontend/result_sink.h"
#include "planner/plan.h"
#include "sql/parser.h"

struct PgQuery__FetchStmt;

namespace freshet {

class Instance;
class Session;
class WriteSet;
struct ExecContext;

// The rows of a statement run for a portal of the extended protocol: kept
// here for Execute to send max_rows at a time, instead of sent at once.
struct PortalRows {
  std::vector<ColumnDesc> columns;
  std::vector<DataChunk> chunks;
  bool filled = false;  // the statement returned rows into it
};

// A prepared statement's plan, kept for its next executions: parameters
// are evaluated when the plan runs, so one plan serves every execution
// while the catalog, search_path and TimeZone (which constants were cast
// under) are those it was bound under. (PostgreSQL's plan cache also
// keeps a literal such as 'now' as it was cast when the plan was made.)
struct PlanCache {
  uint64_t catalog_version = 0;
  // The session's settings it was planned with (search_path, TimeZone and
  // enable_indexscan shape a plan; any SET makes it again).
  uint64_t settings_generation = 0;
  std::shared_ptr<const PlanNode> plan;  // null: nothing kept
};

struct HandlerArgs {
  Session* session;
  const ParsedStatement& stmt;
  ResultSink* sink;
  const std::vector<Value>* params = nullptr;  // $n values (extended protocol)
  PortalRows* portal = nullptr;                // rows go here instead of to the sink
  PlanCache* plan_cache = nullptr;             // a prepared statement's

  Instance* instance() const;
};

// Runs one statement. The session has checked the transaction state and
// set the statement's evaluation settings.
StatementOutcome HandleStatement(const HandlerArgs& args);

// ---- Handlers, by family ----

// SELECT, INSERT, UPDATE, DELETE (query.cc).
StatementOutcome HandleQuery(const HandlerArgs& args);
StatementOutcome HandleExplain(const HandlerArgs& args);
StatementOutcome HandleCreateTable(const HandlerArgs& args);  // create_table.cc
StatementOutcome HandleCreateSequence(const HandlerArgs& args);  // sequence.cc
StatementOutcome HandleAlterSequence(const HandlerArgs& args);   // sequence.cc
StatementOutcome HandleCreateView(const HandlerArgs& args);   // create_view.cc
// create_table_as.cc: CREATE TABLE ... AS `query` (into: the new table),
// and SELECT ... INTO.
StatementOutcome HandleCreateTableAs(const HandlerArgs& args, const PgQuery__IntoClause* into, PgQuery__Node* query,
                                     bool if_not_exists);
StatementOutcome HandleSelectInto(const HandlerArgs& args);
// CREATE MATERIALIZED VIEW / SINK / INDEX (create_job.cc); with `explain`,
// only the EXPLAIN lines of its stream plan.
StatementOutcome HandleCreateJob(const HandlerArgs& args, std::vector<std::string>* explain = nullptr);
StatementOutcome HandleDrop(const HandlerArgs& args);         // drop.cc: DROP TABLE/MV/INDEX/SCHEMA
// create_type.cc: enum types (CREATE TYPE ... AS ENUM, ALTER TYPE, DROP
// TYPE; ALTER TYPE ... RENAME TO and OWNER TO come through HandleRename
// and HandleAlterOwner).
StatementOutcome HandleCreateEnum(const HandlerArgs& args);
StatementOutcome HandleAlterEnum(const HandlerArgs& args);
StatementOutcome HandleCreateDomain(const HandlerArgs& args);
StatementOutcome HandleAlterDomain(const HandlerArgs& args);
StatementOutcome HandleDropType(const HandlerArgs& args);
// create_function.cc: SQL functions (CREATE [OR REPLACE] FUNCTION ...
// LANGUAGE sql, DROP FUNCTION).
StatementOutcome HandleCreateFunction(const HandlerArgs& args);
StatementOutcome HandleDropFunction(const HandlerArgs& args);
// ALTER FUNCTION ... OWNER TO / RENAME TO / SET SCHEMA, COMMENT ON FUNCTION
// (their statements' handlers pass function objects on).
StatementOutcome HandleAlterFunction(const HandlerArgs& args);
StatementOutcome RenameType(const HandlerArgs& args);
StatementOutcome AlterTypeOwner(const HandlerArgs& args);
StatementOutcome CommentOnType(const HandlerArgs& args);
bool SchemaHasTypes(const Catalog& catalog, ObjectId database_id, ObjectId schema_id);
StatementOutcome HandleAlterTable(const HandlerArgs& args);   // alter_table.cc: ALTER TABLE
// alter_table.cc: ALTER TABLE t DROP COLUMN c [, ...] CASCADE, for what
// drops columns with other objects (DROP TYPE ... CASCADE).
void DropColumns(const HandlerArgs& args, const TableRef& t, const std::vector<std::string>& columns);
// alter_table.cc: CREATE UNIQUE INDEX (an index the table's writes keep,
// without a constraint, made by rewriting the table) and DROP INDEX of one.
StatementOutcome HandleCreateUniqueIndex(const HandlerArgs& args);
// Drops the unique index `name` of schema `schema_id` if there is one
// (true); 2BP01 when a unique constraint owns it, or foreign keys reference
// it without `cascade` (with it, they are dropped).
bool DropUniqueIndex(const HandlerArgs& args, ObjectId schema_id, const std::string& name, bool cascade);
StatementOutcome HandleRename(const HandlerArgs& args);       // alter_table.cc: ALTER ... RENAME
StatementOutcome HandleAlterObjectSchema(const HandlerArgs& args);  // alter_table.cc: ALTER ... SET SCHEMA
StatementOutcome HandleTruncate(const HandlerArgs& args);     // table_maintenance.cc
StatementOutcome HandleVacuum(const HandlerArgs& args);       // table_maintenance.cc: VACUUM, ANALYZE
StatementOutcome HandleReindex(const HandlerArgs& args);      // table_maintenance.cc
StatementOutcome HandleCluster(const HandlerArgs& args);      // table_maintenance.cc
StatementOutcome HandleDropObject(const HandlerArgs& args);   // drop.cc: DROP SINK/SOURCE
StatementOutcome HandleCreateDatabase(const HandlerArgs& args);  // database.cc
StatementOutcome HandleAlterDatabase(const HandlerArgs& args);
StatementOutcome HandleRecover(const HandlerArgs& args);
// ALTER TABLE / DATABASE ... SET 'key' = value | UNSET 'key' (alter_options.cc).
StatementOutcome HandleAlterOptions(const HandlerArgs& args);
StatementOutcome HandleDropDatabase(const HandlerArgs& args);
StatementOutcome HandleCreateSchema(const HandlerArgs& args);
StatementOutcome HandleCreateExtension(const HandlerArgs& args);  // extension.cc
StatementOutcome HandleNotification(const HandlerArgs& args);     // notify.cc: LISTEN, UNLISTEN, NOTIFY
StatementOutcome HandleDo(const HandlerArgs& args);               // do_block.cc: DO (PL/pgSQL)
StatementOutcome HandleAlterOwner(const HandlerArgs& args);  // ALTER SCHEMA ... OWNER TO
// subscription.cc: ALTER SUBSCRIPTION ... SET (retention = ...), and the
// subscriptions' RENAME TO and OWNER TO (from HandleRename, HandleAlterOwner).
StatementOutcome HandleAlterSubscription(const HandlerArgs& args);
StatementOutcome RenameSubscription(const HandlerArgs& args, const std::string& name, const std::string& new_name);
StatementOutcome AlterSubscriptionOwner(const HandlerArgs& args, const std::string& name, const std::string& owner);
StatementOutcome HandleCreateRole(const HandlerArgs& args);   // role.cc
StatementOutcome HandleDropRole(const HandlerArgs& args);
StatementOutcome HandleAlterSystem(const HandlerArgs& args);  // alter_system.cc
// A setting's value given as an integer (or a string of one): 22023 otherwise.
int64_t IntegerSettingValue(const std::string& name, const PgQuery__Node* arg);
int64_t ParseIntegerSetting(const std::string& name, const std::string& text);
// barrier_interval_ms and checkpoint_frequency, of the system or of a
// database: 22023 outside their ranges.
void CheckBarrierSetting(const std::string& name, int64_t value);
StatementOutcome HandleFlush(const HandlerArgs& args);        // jobs.cc
StatementOutcome HandleWait(const HandlerArgs& args);
StatementOutcome HandleRefreshMaterializedView(const HandlerArgs& args);
StatementOutcome HandleCancelJobs(const HandlerArgs& args);
StatementOutcome HandleAlterBackfillRateLimit(const HandlerArgs& args);
StatementOutcome HandleShowObjects(const HandlerArgs& args);  // show.cc
StatementOutcome HandleShowCreate(const HandlerArgs& args);
StatementOutcome HandleShowJobs(const HandlerArgs& args);
StatementOutcome HandleSet(const HandlerArgs& args);          // variable.cc
// SHOW name; SHOW ALL and SHOW PARAMETERS with name "all".
StatementOutcome HandleShowVariable(const HandlerArgs& args, const std::string& name);
StatementOutcome HandleTransaction(const HandlerArgs& args);  // transaction.cc
StatementOutcome HandleLock(const HandlerArgs& args);         // transaction.cc: LOCK TABLE
// LOCK TABLE's modes are PostgreSQL's lock levels (1 ACCESS SHARE ... 8
// ACCESS EXCLUSIVE); those above ROW EXCLUSIVE conflict with writes.
inline constexpr int kRowExclusiveLockMode = 3;
// READ ONLY / READ WRITE among BEGIN's or SET TRANSACTION's options.
std::optional<bool> ReadOnlyOption(PgQuery__Node* const* options, size_t n);
StatementOutcome HandleComment(const HandlerArgs& args);        // comment.cc
StatementOutcome HandleDeclareCursor(const HandlerArgs& args);  // cursor.cc
StatementOutcome HandleFetch(const HandlerArgs& args);          // FETCH and MOVE
// DECLARE name SUBSCRIPTION CURSOR FOR subscription ... (subscription_cursor.cc)
StatementOutcome HandleDeclareSubscriptionCursor(const HandlerArgs& args);
StatementOutcome HandleCloseCursor(const HandlerArgs& args);
// The columns FETCH returns from its cursor (none for MOVE).
std::vector<ColumnDesc> DescribeFetch(Session* session, const PgQuery__FetchStmt* fetch);
StatementOutcome HandlePrepare(const HandlerArgs& args);      // prepared.cc
StatementOutcome HandleExecute(const HandlerArgs& args);
StatementOutcome HandleDeallocate(const HandlerArgs& args);
StatementOutcome HandleDiscard(const HandlerArgs& args);
StatementOutcome HandleCopy(const HandlerArgs& args);         // copy.cc

// ---- Shared by handlers and the session ----

// The bound and optimized plan of a SELECT, INSERT, UPDATE or DELETE
// (null for other statements); `param_types` are filled where unknown.
PlanPtr PlanStatement(Session* session, const ParsedStatement& stmt, std::vector<DataType>* param_types);
// The same through a prepared statement's cache (planned again when the
// catalog, search_path or TimeZone changed since).
std::shared_ptr<const PlanNode> CachedPlanStatement(Session* session, const ParsedStatement& stmt,
                                                   std::vector<DataType>* param_types, PlanCache* cache);
// Runs a batch plan at the session's snapshot: its rows go to the sink (or
// the portal), DML's writes to the session's transaction; the tag is
// tag_prefix and the number of rows.
StatementOutcome RunPlan(const HandlerArgs& args, const PlanNode& plan, const std::string& tag_prefix);
// Fills `ctx` (which must stay where it is: its callbacks point at it) to
// run a batch plan for `args`' statement: the store and catalog, the
// session's snapshot with its transaction block's writes overlaid, the
// cancel flag, the statement memory limit, the parameters, the sources of
// the system tables; a DML plan's writes go to `writes`. The caller adds
// a subquery runner bound to ctx.
void PrepareExecContext(const HandlerArgs& args, WriteSet* writes, ExecContext* ctx);
// The columns a plan returns to the client: none for DML without RETURNING.
std::vector<ColumnDesc> ResultColumns(const PlanNode& plan);
// Sends the rows of a statement that computes them itself (SHOW, EXPLAIN
// and the like): described and sent to the client, or, when a portal runs
// the statement (described by the Describe message), into the portal.
void SendRows(const HandlerArgs& args, const std::vector<ColumnDesc>& columns, const DataChunk& chunk);
// The same for rows of text values (every column VARCHAR).
void SendTextRows(const HandlerArgs& args, const std::vector<ColumnDesc>& columns,
                  const std::vector<std::vector<std::string>>& rows);
// The columns a statement without a plan returns to the client (SHOW,
// EXPLAIN, Freshet's SHOW statements, CANCEL JOBS), for the extended
// protocol's Describe; empty for statements that return no rows. The
// statements that compute their rows without side effects are run to
// learn them, so the description is always that of their rows.
std::vector<ColumnDesc> DescribeUtility(Session* session, const ParsedStatement& stmt,
                                        const std::vector<Value>* params);

}  // namespace freshet
