// Statements about stream jobs and epochs: FLUSH, WAIT, CANCEL JOBS,
// REFRESH MATERIALIZED VIEW and ALTER {MATERIALIZED VIEW | SINK | INDEX}
// ... SET BACKFILL_RATE_LIMIT.
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "binder/binder.h"

#include "common/error.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"

namespace freshet {

StatementOutcome HandleFlush(const HandlerArgs& args) {
  // Writes of an implicit transaction before FLUSH must be flushed too.
  args.session->Sync();
  args.instance()->barriers()->ForDatabase(args.session->database().id)->Flush();
  return {"FLUSH"};
}

// REFRESH MATERIALIZED VIEW: a materialized view is kept up to date by its
// job, so there is nothing to recompute; a view still being created is
// waited for, so that afterwards it holds every row, as after PostgreSQL's
// REFRESH. CONCURRENTLY is the same.
StatementOutcome HandleRefreshMaterializedView(const HandlerArgs& args) {
  const PgQuery__RefreshMatViewStmt* r = args.stmt.node->refresh_mat_view_stmt;
  if (r->skip_data)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "REFRESH MATERIALIZED VIEW ... WITH NO DATA is not supported: materialized views are always kept up to date");
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  TableRef t = binder.ResolveRelation(r->relation);
  if (t->kind != RelationKind::kMaterializedView)
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a materialized view", t->name);
  // (One a transaction block made is created at its COMMIT: nothing to wait for yet.)
  TableRef running = args.instance()->catalog()->GetTable(t->id);
  if (running && running->status == JobStatus::kCreating)
    args.instance()->jobs()->Wait(args.session->database().id, t->id, args.session->cancel_flag());
  return {"REFRESH MATERIALIZED VIEW"};
}

StatementOutcome HandleWait(const HandlerArgs& args) {
  const auto& wait = std::get<WaitStatement>(args.stmt.extension);
  ObjectId job_id = wait.name.empty() ? 0 : FindJobByName(args, wait.name, wait.object_kind)->id;
  // Ctrl+C ends the wait, not the jobs.
  args.instance()->jobs()->Wait(args.session->database().id, job_id, args.session->cancel_flag());
  return {"WAIT"};
}

StatementOutcome HandleAlterBackfillRateLimit(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("ALTER ... SET BACKFILL_RATE_LIMIT");
  const auto& alter = std::get<AlterBackfillRateLimitStatement>(args.stmt.extension);
  TableRef t = FindJobByName(args, alter.name, alter.object_kind);
  CheckOwner(args, *t);
  args.instance()->jobs()->SetBackfillRateLimit(t, NormalizeRateLimit(alter.value, "BACKFILL_RATE_LIMIT"));
  return {alter.object_kind == "sink"    ? "ALTER_SINK"
          : alter.object_kind == "index" ? "ALTER_INDEX"
                                         : "ALTER_MATERIALIZED_VIEW"};
}

StatementOutcome HandleCancelJobs(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("CANCEL JOBS");
  const auto& cancel = std::get<CancelJobsStatement>(args.stmt.extension);
  Catalog* catalog = args.session->catalog();
  // Each job with the still-creating jobs built on it; one row per job
  // cancelled, as RisingWave returns them.
  std::vector<TableRef> named;
  for (int64_t id : cancel.ids) {
    TableRef t = id > 0 && id <= INT32_MAX ? catalog->GetTable(static_cast<ObjectId>(id)) : nullptr;
    if (!t || t->database_id != args.session->database().id || t->status != JobStatus::kCreating || !IsStreamJob(*t))
      FRESHET_THROW(sqlstate::kUndefinedObject, "no job with id {} is being created", id);
    CheckOwner(args, *t);
    named.push_back(t);
  }
  std::vector<ObjectId> ids;
  std::set<ObjectId> seen;
  for (const auto& t : named)
    for (const auto& j : args.instance()->jobs()->CreatingClosure(t))
      if (seen.insert(j->id).second) ids.push_back(j->id);
  DropRelations(args, ids);
  DataChunk rows({DataType::Int64()});
  for (ObjectId id : ids) rows.AppendRow({Value::Int64(id)});
  SendRows(args, {{"Id", DataType::Int64()}}, rows);
  return {"CANCEL_JOBS"};
}

}  // namespace freshet
