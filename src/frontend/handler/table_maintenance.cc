// TRUNCATE, VACUUM and ANALYZE.
//
// TRUNCATE deletes every row of the named tables at once: a DELETE of each
// (so that the views reading them see the deletes, and in a transaction
// block it rolls back with the block), the tables noted as truncated for
// COPY FREEZE. VACUUM and ANALYZE check their tables and do nothing else:
// the row store keeps no dead tuples to reclaim (RocksDB's compactions drop
// deleted rows) and row counts are kept exactly as rows are written.
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "batch/executor_builder.h"
#include "binder/binder.h"
#include "catalog/system_tables.h"
#include "common/error.h"
#include "common/identifier.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"
#include "planner/optimizer.h"
#include "storage/write_set.h"

namespace freshet {

StatementOutcome HandleTruncate(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__TruncateStmt* t = args.stmt.node->truncate_stmt;
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  std::vector<PlanPtr> plans;
  std::set<ObjectId> seen;
  std::vector<ObjectId> truncated;
  for (size_t i = 0; i < t->n_relations; i++) {
    const PgQuery__RangeVar* rv = t->relations[i]->range_var;
    TableRef table = binder.ResolveRelation(rv);
    if (!seen.insert(table->id).second) continue;  // named twice: once is enough
    if (table->kind != RelationKind::kTable)
      FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table", table->name);
    plans.push_back(OptimizePlan(binder.BindTruncate(rv)));
    truncated.push_back(table->id);
  }
  // All tables' deletes in one write set: applied together or not at all.
  WriteSet writes;
  ExecContext ctx;
  PrepareExecContext(args, &writes, &ctx);
  for (const auto& plan : plans) {
    ExecutorPtr exec = BuildExecutor(*plan, ctx);
    DataChunk chunk;
    while (exec->Next(&chunk)) {
    }
  }
  session->Write(std::move(writes));
  for (ObjectId id : truncated) session->NoteCreatedOrTruncated(id);
  return {"TRUNCATE TABLE"};
}

StatementOutcome HandleVacuum(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__VacuumStmt* v = args.stmt.node->vacuum_stmt;
  const char* command = v->is_vacuumcmd ? "VACUUM" : "ANALYZE";
  if (v->is_vacuumcmd && session->InTransactionBlock())
    FRESHET_THROW(sqlstate::kActiveTransaction, "{} cannot run inside a transaction block", command);
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  for (size_t i = 0; i < v->n_rels; i++) {
    const PgQuery__VacuumRelation* r = v->rels[i]->vacuum_relation;
    if (!r->relation) continue;
    // A system catalog (vacuumdb names pg_catalog's): nothing to do.
    const std::string schema = r->relation->schemaname && *r->relation->schemaname ? r->relation->schemaname : "pg_catalog";
    if (r->n_va_cols == 0 && FindSystemTable(schema, r->relation->relname)) continue;
    TableRef table = binder.ResolveRelation(r->relation);
    for (size_t k = 0; k < r->n_va_cols; k++) {
      std::string column = StringOf(r->va_cols[k]);
      int idx = table->ColumnIndex(column);
      if (idx < 0 || table->columns[idx].hidden)
        FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", column,
                      table->name);
    }
  }
  return {command};
}

namespace {

// [schema.]name of a RangeVar, as regclass text takes it.
std::string QualifiedName(const PgQuery__RangeVar* rv) {
  std::string name = QuoteIdent(rv->relname);
  return rv->schemaname && *rv->schemaname ? QuoteIdent(rv->schemaname) + "." + name : name;
}

bool HasOption(PgQuery__Node* const* params, size_t n, const char* option) {
  for (size_t i = 0; i < n; i++)
    if (params[i]->node_case == PG_QUERY__NODE__NODE_DEF_ELEM && params[i]->def_elem->defname &&
        LowerAscii(params[i]->def_elem->defname) == option)
      return true;
  return false;
}

}  // namespace

// REINDEX: an index here is kept by the writes (unique indexes) or the
// stream (CREATE INDEX) and never needs rebuilding; what is named is
// checked as PostgreSQL checks it (reindexdb runs this on every database).
StatementOutcome HandleReindex(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__ReindexStmt* r = args.stmt.node->reindex_stmt;
  const bool concurrently = HasOption(r->params, r->n_params, "concurrently");
  const char* what = "";
  switch (r->kind) {
    case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_INDEX: {
      const CatalogLookup* lookup = session->eval().catalog.get();
      uint32_t oid = lookup->RelationOid(QualifiedName(r->relation));
      if (lookup->RelKindOf(oid) != 'i')
        FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not an index", r->relation->relname);
      break;
    }
    case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_TABLE: {
      TableRef t = Binder(session->BinderContextFor(args.stmt, nullptr)).ResolveRelation(r->relation);
      if (t->kind != RelationKind::kTable && t->kind != RelationKind::kMaterializedView)
        FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table or materialized view", t->name);
      break;
    }
    case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SCHEMA:
      what = "REINDEX SCHEMA";
      if (!session->DdlCatalog()->FindSchema(session->database().id, r->name))
        FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", r->name);
      break;
    case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SYSTEM:
    case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_DATABASE:
      what = r->kind == PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SYSTEM ? "REINDEX SYSTEM" : "REINDEX DATABASE";
      if (r->name && *r->name && r->name != session->database().name)
        throw SqlError(sqlstate::kFeatureNotSupported, "can only reindex the currently open database");
      break;
    default: throw SqlError(sqlstate::kFeatureNotSupported, "this form of REINDEX is not supported");
  }
  if (session->InTransactionBlock() && (concurrently || *what))
    FRESHET_THROW(sqlstate::kActiveTransaction, "{} cannot run inside a transaction block",
                  concurrently ? "REINDEX CONCURRENTLY" : what);
  return {"REINDEX"};
}

// CLUSTER: rows are kept in key order already and no table is clustered
// on an index (pg_index.indisclustered is false), so CLUSTER alone has
// nothing to do (clusterdb runs it on every database) and CLUSTER t
// without USING has no index to use, as in PostgreSQL.
StatementOutcome HandleCluster(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__ClusterStmt* c = args.stmt.node->cluster_stmt;
  if (!c->relation) {
    if (session->InTransactionBlock())
      throw SqlError(sqlstate::kActiveTransaction, "CLUSTER cannot run inside a transaction block");
    return {"CLUSTER"};
  }
  TableRef t = Binder(session->BinderContextFor(args.stmt, nullptr)).ResolveRelation(c->relation);
  if (t->kind != RelationKind::kTable && t->kind != RelationKind::kMaterializedView)
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table or materialized view", t->name);
  if (!c->indexname || !*c->indexname)
    FRESHET_THROW(sqlstate::kUndefinedObject, "there is no previously clustered index for table \"{}\"", t->name);
  const CatalogLookup* lookup = session->eval().catalog.get();
  std::string index = QuoteIdent(c->indexname);
  if (auto schema = session->DdlCatalog()->GetSchema(t->schema_id)) index = QuoteIdent(schema->name) + "." + index;
  uint32_t oid = 0;
  try {
    oid = lookup->RelationOid(index);
  } catch (const SqlError& e) {
    if (e.code() != std::string(sqlstate::kUndefinedTable)) throw;
    FRESHET_THROW(sqlstate::kUndefinedObject, "index \"{}\" for table \"{}\" does not exist", c->indexname, t->name);
  }
  if (lookup->RelKindOf(oid) != 'i')
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not an index for table \"{}\"", c->indexname, t->name);
  return {"CLUSTER"};
}

}  // namespace freshet
