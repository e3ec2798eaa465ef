#include "meta/stream_jobs.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
#include "stream/builder.h"

namespace freshet {

int JobParallelism(const TableCatalog& job) {
  auto it = job.plan_settings.find("streaming_parallelism");
  if (it == job.plan_settings.end()) return 1;
  try {
    return std::max(1, std::stoi(it->second));
  } catch (...) {
    return 1;
  }
}

void StreamJobs::Start(TableRef job, const StreamPlan& plan, const EvalContext& eval, int parallelism) {
  DatabaseEpochLoop* loop = barriers_->ForDatabase(job->database_id);
  StreamRuntime* runtime = loop->runtime();
  BuildRequest req;
  req.plan = &plan;
  req.job = job;
  for (ObjectId id : job->internal_tables) {
    TableRef t = catalog_->GetTable(id);
    if (!t) FRESHET_THROW(sqlstate::kInternalError, "internal table {} of job {} is missing", id, job->id);
    req.internal_tables.push_back(t);
  }
  req.parallelism = parallelism;
  req.eval = eval;
  req.catalog = catalog_;
  BuiltJob built = BuildJob(req, runtime);
  Catalog* catalog = catalog_;
  ObjectId id = job->id;
  runtime->RegisterJob(job->id, built.backfill_actors, [catalog, id] {
    TableRef t = catalog->GetTable(id);
    if (t && t->status != JobStatus::kCreated) catalog->SetJobStatus(id, JobStatus::kCreated);
  });
  runtime->SetRelationOutputs(job->id, built.outputs);
  loop->ApplyGraphChange(built.mutation, std::move(built.actors));
  runtime->ArmJob(job->id);
}

TableRef StreamJobs::Create(TableCatalog job, const StreamPlan& plan, const EvalContext& eval, int parallelism,
                            bool wait, const std::atomic<bool>* cancel) {
  std::vector<TableCatalog> internals;
  for (const auto& spec : plan.internal_tables) {
    TableCatalog t;
    t.database_id = job.database_id;
    t.schema_id = job.schema_id;
    t.owner = job.owner;
    t.name = "__internal_" + job.name + "_" + spec.kind;
    t.kind = RelationKind::kInternal;
    t.columns = spec.columns;
    t.pk = spec.pk;
    t.dist_key = spec.dist_key;
    t.internal_kind = spec.kind;
    internals.push_back(std::move(t));
  }
  job.status = JobStatus::kCreating;
  job.plan_settings["streaming_parallelism"] = std::to_string(parallelism);
  TableRef created = catalog_->CreateJob(std::move(job), std::move(internals)).first;
  try {
    Start(created, plan, eval, parallelism);
  } catch (...) {
    Drop(created->database_id, {created}, {});
    throw;
  }
  if (!wait) return created;
  StreamRuntime* runtime = barriers_->ForDatabase(created->database_id)->runtime();
  if (!runtime->WaitJob(created->id, cancel)) {
    if (cancel && cancel->load()) {
      Drop(created->database_id, {created}, {});
      throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    }
    throw SqlError(sqlstate::kAdminShutdown, "the server is shutting down");
  }
  return catalog_->GetTable(created->id);
}

void StreamJobs::Resume(TableRef job, const StreamPlan& plan, const EvalContext& eval) {
  Start(job, plan, eval, JobParallelism(*job));
}

void StreamJobs::Drop(ObjectId database_id, const std::vector<TableRef>& jobs,
                      const std::vector<ObjectId>& other_tables) {
  DatabaseEpochLoop* loop = barriers_->ForDatabase(database_id);
  StreamRuntime* runtime = loop->runtime();
  auto mutation = std::make_shared<Mutation>();
  std::vector<ObjectId> ids = other_tables;
  for (const auto& j : jobs) {
    for (ActorId a : runtime->JobActors(j->id)) mutation->stop.insert(a);
    ids.push_back(j->id);
    ids.insert(ids.end(), j->internal_tables.begin(), j->internal_tables.end());
  }
  if (!mutation->stop.empty()) loop->ApplyGraphChange(mutation, {});
  for (const auto& j : jobs) {
    runtime->ForgetJob(j->id);
    runtime->ForgetRelation(j->id);
  }
  catalog_->DropObjects({}, {}, ids);
}

}  // namespace freshet
