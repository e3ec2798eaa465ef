// EvalContext: per-statement settings that expression evaluation needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/datetime.h"
#include "common/value.h"

namespace freshet {

class SubqueryRunner;

// Catalog lookups that a few types and functions need at evaluation time:
// the text I/O of regclass/regnamespace/regrole, pg_get_userbyid,
// pg_table_is_visible, pg_get_indexdef... Implemented over the catalog and
// the session's search path (catalog/pg_catalog.h); EvalContext::catalog
// is null where no catalog is at hand, and those functions then fail or
// fall back to numbers. Oids are PostgreSQL's (catalog/system_tables.h).
class CatalogLookup {
 public:
  virtual ~CatalogLookup() = default;
  // A relation's name as regclass prints it: schema-qualified when the
  // search path does not find it first; nullopt when there is no such oid.
  virtual std::optional<std::string> RelationName(uint32_t oid) const = 0;
  // regclass input: "t", "s.t", "\"Mixed\"" (throws 42P01 when absent).
  virtual uint32_t RelationOid(std::string_view name) const = 0;
  virtual std::optional<std::string> NamespaceName(uint32_t oid) const = 0;
  virtual uint32_t NamespaceOid(std::string_view name) const = 0;  // throws 42704
  virtual std::optional<std::string> RoleName(uint32_t oid) const = 0;
  virtual uint32_t RoleOid(std::string_view name) const = 0;       // throws 42704
  // pg_class.relkind of a relation ('r', 'i', 'm'...); nullopt when unknown.
  virtual std::optional<char> RelKindOf(uint32_t oid) const = 0;
  // pg_table_is_visible: found first along the search path.
  virtual bool TableIsVisible(uint32_t oid) const = 0;
  // An enum type's name (its array type's with "[]") as format_type and
  // regtype print it: schema-qualified when the search path does not find
  // it first; nullopt for other oids.
  virtual std::optional<std::string> UserTypeName(uint32_t oid) const = 0;
  // regtype input of an enum type's name ("mood", "s.mood", "mood[]",
  // quoted parts as SQL quotes them); nullopt when there is none.
  virtual std::optional<uint32_t> UserTypeOid(std::string_view name) const = 0;
  // pg_get_indexdef(oid, column, pretty) / pg_get_constraintdef(oid);
  // nullopt for unknown oids. `pretty` qualifies the table name only when
  // it is not visible, as PostgreSQL does.
  virtual std::optional<std::string> IndexDef(uint32_t oid, int column, bool pretty) const = 0;
  virtual std::optional<std::string> ConstraintDef(uint32_t oid, bool pretty) const = 0;
  // pg_get_viewdef(oid, pretty): a view's or materialized view's query;
  // nullopt for other oids.
  virtual std::optional<std::string> ViewDef(uint32_t oid, bool pretty) const = 0;
  // pg_get_serial_sequence: the qualified name of the sequence column
  // `column` of relation `oid` owns; nullopt when none (42703 when there
  // is no such column).
  virtual std::optional<std::string> OwnedSequence(uint32_t oid, const std::string& column) const = 0;
  // obj_description(oid, catalog) (attnum 0) and col_description(oid,
  // attnum): the comment COMMENT ON gave an object of `catalog`
  // ("pg_class": relations and their columns, "pg_namespace": schemas);
  // nullopt when none.
  virtual std::optional<std::string> Description(uint32_t oid, std::string_view catalog, int attnum) const = 0;
  // A column default as the catalog keeps it: each relation it names by a
  // regclass literal ('s'::regclass, nextval('s')) written schema.name as
  // this search path finds it, so that the default reads that relation
  // whatever path a later insert has (PostgreSQL keeps its oid).
  virtual std::string StoredDefault(const std::string& expr) const = 0;
  // pg_get_expr of a kept default: those names as regclass prints them
  // along this search path (qualified only when not found first).
  virtual std::string DefaultForDisplay(const std::string& expr) const = 0;
  // A SQL function's (CREATE FUNCTION) signature as
  // pg_get_function_arguments, pg_get_function_identity_arguments and
  // pg_get_function_result print it, and whether the search path finds it
  // first (pg_function_is_visible); nullopt for other oids.
  struct FunctionSignature {
    std::string arguments, identity_arguments, result;
    bool visible = true;
    // As regproc prints it (schema-qualified when not visible), and the
    // input types as regprocedure lists them ("integer[], text").
    std::string name, types;
    // pg_get_functiondef's text: CREATE OR REPLACE FUNCTION ... as
    // PostgreSQL 15 prints it.
    std::string definition;
  };
  virtual std::optional<FunctionSignature> SqlFunctionSignature(uint32_t oid) const = 0;
  // The SQL functions regproc / regprocedure input may name: those called
  // `name` ("f", "s.f") in its schema, else along the search path (the
  // first schema that has one).
  virtual std::vector<uint32_t> SqlFunctionOids(std::string_view name) const = 0;
};

// The session's sequence functions (nextval, currval, setval, lastval):
// values from the instance's sequences (meta/sequences.h), the last one per
// sequence remembered by the session. Oids are relation oids (regclass).
class SequenceAccess {
 public:
  virtual ~SequenceAccess() = default;
  virtual int64_t NextVal(uint32_t oid) = 0;
  // 55000 when nextval was not called for it in this session.
  virtual int64_t CurrVal(uint32_t oid) = 0;
  virtual int64_t LastVal() = 0;  // 55000 when nextval was not called yet
  virtual void SetVal(uint32_t oid, int64_t value, bool is_called) = 0;
  // The sequence's position: (last_value, is_called).
  virtual std::pair<int64_t, bool> Peek(uint32_t oid) = 0;
};

// The session's own state that functions read or change: its settings
// (current_setting, set_config), its backend pid, and the sizes of
// relations in storage (pg_relation_size & co.).
class SessionAccess {
 public:
  virtual ~SessionAccess() = default;
  // A setting as SHOW prints it; nullopt when there is no such setting.
  virtual std::optional<std::string> Setting(const std::string& name) = 0;
  // SET name = value (SET's errors); returns the value now in force.
  virtual std::string SetSetting(const std::string& name, const std::string& value) = 0;
  virtual int32_t BackendPid() const = 0;
  // pg_cancel_backend / pg_terminate_backend(pid): false (and a warning)
  // when there is no such session; 42501 when not allowed.
  virtual bool SignalBackend(int32_t pid, bool terminate) = 0;
  // pg_sleep: waits, ending early with 57014 when the statement is
  // cancelled (a cancel request, statement_timeout, pg_cancel_backend).
  virtual void Sleep(double seconds) = 0;
  // Bytes relation `oid` takes in storage (approximate, as the engine
  // tells); nullopt when no relation has that oid.
  virtual std::optional<int64_t> RelationBytes(uint32_t oid) = 0;
  // The sum over a database's relations (pg_database_size): by name (3D000
  // when there is none) or by oid (nullopt when there is none).
  virtual int64_t DatabaseBytes(const std::string& name) = 0;
  virtual std::optional<int64_t> DatabaseBytes(uint32_t oid) = 0;
  // Advisory locks (pg_advisory_lock & co.) of the session's database: a
  // bigint key, or two integers (`two_keys`, packed high and low). Lock
  // waits for other sessions' conflicting holds unless !wait (then false
  // at once); `transaction` locks are released when the transaction ends.
  // Unlock gives back one session-level hold, false when there is none.
  virtual bool AdvisoryLock(int64_t key, bool two_keys, bool shared, bool transaction, bool wait) = 0;
  virtual bool AdvisoryUnlock(int64_t key, bool two_keys, bool shared) = 0;
  virtual void AdvisoryUnlockAll() = 0;
  // pg_notify(channel, payload): NOTIFY's (Session::Notify); the channels
  // LISTENed to (pg_listening_channels).
  virtual void Notify(const std::string& channel, const std::string& payload) = 0;
  virtual std::vector<std::string> ListeningChannels() const = 0;
  // pg_export_snapshot(): the id of the transaction's snapshot, which
  // other sessions may take (SET TRANSACTION SNAPSHOT).
  virtual std::string ExportSnapshot() = 0;
  // GreptimeDB's admin functions (expr/admin_functions.cc) on a
  // time-series table named `t`, `schema.t` or `database.schema.t`, or on
  // a region by its id: kFlush returns the rows flushed, kCompact the rows
  // its TTL removed.
  // kMigrate (migrate_region) checks that the region exists, then fails:
  // a single-node deployment has no other peer.
  enum class TimeSeriesAction { kFlush, kCompact, kMigrate };
  virtual int64_t TimeSeriesTableAction(TimeSeriesAction action, const std::string& name) = 0;
  virtual int64_t TimeSeriesRegionAction(TimeSeriesAction action, int64_t region_id) = 0;
  // procedure_state(id): the procedure's status (common/procedures.h) as
  // GreptimeDB's JSON; nullopt when no procedure has that id.
  virtual std::optional<std::string> ProcedureStateJson(const std::string& id) = 0;
};

struct EvalContext {
  TimeZone time_zone;           // session TimeZone: timestamptz formatting and arithmetic
  IntervalStyle interval_style = IntervalStyle::kPostgres;  // session IntervalStyle: interval output
  int64_t statement_time = 0;   // now(): micros since epoch, fixed for the statement
  std::vector<std::string>* notices = nullptr;  // warnings to report to the client (may be null)
  const std::vector<Value>* params = nullptr;  // $1.. of the extended protocol
  // Rows of the enclosing queries while a correlated subquery runs;
  // back() is the nearest enclosing query.
  std::vector<const std::vector<Value>*> outer_rows;
  // Runs subquery plans (set by the batch engine; see planner/subquery.h).
  class SubqueryRunner* subquery_runner = nullptr;
  // Catalog access for regclass & co. (may be null; see CatalogLookup).
  std::shared_ptr<const CatalogLookup> catalog;
  SequenceAccess* sequences = nullptr;  // may be null (no session)
  SessionAccess* session = nullptr;      // may be null (no session)
};

}  // namespace freshet
