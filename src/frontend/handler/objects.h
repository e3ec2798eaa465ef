// Finding, checking and dropping relations: shared by the handlers of DROP,
// CANCEL JOBS, WAIT, ALTER and SHOW.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "frontend/advisory_locks.h"
#include "frontend/handler/handler.h"

struct PgQuery__RangeVar;

namespace freshet {

// Whether `name` is taken in schema `schema_id`: by a relation, or by a
// unique index (which has no relation of its own). They share pg_class's
// namespace.
bool RelationNameTaken(const Catalog& catalog, ObjectId database_id, ObjectId schema_id, const std::string& name);

// PostgreSQL's name for an index made without one (ChooseRelationName):
// `base` (<table>_<elements>_idx), else base1, base2, ... whichever is free.
std::string ChooseIndexName(const Catalog& catalog, ObjectId database_id, ObjectId schema_id, const std::string& base);

// Serializes DDL on one relation, as PostgreSQL's table locks order it:
// ALTER TABLE and CREATE [UNIQUE] INDEX hold the relation's lock for the
// whole statement (pg_restore -j adds a table's key and its indexes from
// several connections at once, and a rewrite replaces the table). Locked
// by schema and name, which a rewrite keeps while the table's id changes:
// the holder resolves the relation again once it holds the lock. The
// session holding it takes it again freely (a rewrite makes the table's
// indexes again); others wait, ended by a cancel (57014) or lock_timeout
// (55P03).
class RelationDdlLock {
 public:
  RelationDdlLock(const HandlerArgs& args, ObjectId schema_id, const std::string& name);
  ~RelationDdlLock();
  RelationDdlLock(const RelationDdlLock&) = delete;
  RelationDdlLock& operator=(const RelationDdlLock&) = delete;

 private:
  AdvisoryLocks* locks_;
  const void* holder_;
  AdvisoryKey key_;
};

// The parts of a dotted name in a parse tree (a list of String nodes), and
// the name written back with dots (for messages).
std::vector<std::string> NameParts(PgQuery__Node* const* items, size_t n);
std::string JoinNameParts(const std::vector<std::string>& parts);

// [schema.]name: in that schema, or along the search path; null when absent.
TableRef FindRelation(const HandlerArgs& args, const std::vector<std::string>& name);
// GreptimeDB's flow `name` (CREATE FLOW): the materialized view it writes
// into, whose plan_settings name the flow; flows are named per database.
TableRef FindFlow(const Catalog& catalog, ObjectId database_id, const std::string& name);
// The job a statement names, of kind_name "materialized view", "sink" or
// "index"; 42P01 / 42704 when there is none of that kind.
TableRef FindJobByName(const HandlerArgs& args, const std::vector<std::string>& name, const std::string& kind_name);
// Throws 42501 unless the session's user owns `t` or is a superuser.
void CheckOwner(const HandlerArgs& args, const TableCatalog& t);
// The schema a statement names, in the session's database, when its user
// owns it or is a superuser: 3F000 when there is none, 42501 otherwise.
SchemaCatalog OwnedSchema(const HandlerArgs& args, const std::string& name);
// How a drop's error names a relation that depends on `of`: its name, or
// database.schema.name when it is of another database.
std::string DependentName(const Catalog& catalog, const TableCatalog& dependent, const TableCatalog& of);
// The named relations and, with cascade, everything depending on them
// (indexes always, and the jobs still being created on a job still being
// created, with a NOTICE); throws 2BP01 naming the dependents otherwise.
std::vector<ObjectId> DropClosure(const HandlerArgs& args, const std::vector<TableRef>& named, bool cascade,
                                  const std::string& kind_name);
// Drops relations (tables and jobs, with their internal tables and data).
void DropRelations(const HandlerArgs& args, const std::vector<ObjectId>& ids);
// Drops SQL functions (create_function.cc) and, with cascade, what depends
// on them (functions, views, stream jobs) but `relations_dropped` (which
// the caller drops); throws 2BP01 naming the dependents otherwise.
void DropFunctions(const HandlerArgs& args, std::vector<FunctionCatalog> functions, bool cascade,
                   const std::set<ObjectId>& relations_dropped);

// The schema a new relation named `rv` goes to: the session's temporary
// schema (made on first use, catalog/temp_schema.h) for TEMP relations and
// names qualified with pg_temp, else the named or first existing
// search_path schema.
ObjectId CreationSchema(const HandlerArgs& args, const PgQuery__RangeVar* rv, bool temporary);
// Whether any of the relations is temporary.
bool ReadsTemporaryRelation(const Catalog& catalog, const std::vector<ObjectId>& relations);

}  // namespace freshet
