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
#include "common/error.h"
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

}  // namespace freshet
