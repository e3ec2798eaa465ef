#include "meta/stream_jobs.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "common/error.h"
#include "planner/stream_plan_codec.h"
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

int64_t JobMemoryLimit(const TableCatalog& job) {
  auto it = job.plan_settings.find("streaming_memory_limit");
  if (it == job.plan_settings.end()) return 0;
  try {
    return std::max<int64_t>(0, std::stoll(it->second));
  } catch (...) {
    return 0;
  }
}

std::optional<int64_t> BackfillRateLimitOf(const TableCatalog& job) {
  auto it = job.plan_settings.find("backfill_rate_limit");
  if (it == job.plan_settings.end() || it->second == "default") return std::nullopt;
  try {
    return std::max<int64_t>(0, std::stoll(it->second));
  } catch (...) {
    return std::nullopt;
  }
}

void StreamJobs::SetBackfillRateLimit(const TableRef& job, const std::string& limit) {
  catalog_->SetPlanSetting(job->id, "backfill_rate_limit", limit);
  TableRef updated = catalog_->GetTable(job->id);
  if (updated)
    barriers_->ForDatabase(job->database_id)->runtime()->SetBackfillRateLimit(job->id, BackfillRateLimitOf(*updated));
}

void StreamJobs::Start(TableRef job, const StreamPlan& plan, const EvalContext& eval, int parallelism) {
  DatabaseEpochLoop* loop = barriers_->ForDatabase(job->database_id);
  while (true) {
    loop->WaitRecovered();
    // A recovery that found the job in the catalog rebuilt it already.
    if (!loop->runtime()->JobActors(job->id).empty()) break;
    const uint64_t recoveries = loop->recoveries();
    BuiltJob built;
    try {
      built = Prepare(job, plan, eval, parallelism);
    } catch (const SqlError&) {
      // An upstream's actors were missing because a recovery was running.
      if (loop->recoveries() != recoveries || loop->recovering()) continue;
      throw;
    }
    try {
      loop->ApplyGraphChange(built.mutation, std::move(built.actors));
      break;
    } catch (const GraphRecoveringError&) {
      // Built against a graph that failed: the recovery rebuilds the job
      // when it was in the catalog in time, else it is built again here.
    }
  }
  loop->runtime()->ArmJob(job->id);
}

BuiltJob StreamJobs::Prepare(TableRef job, const StreamPlan& plan, const EvalContext& eval, int parallelism) {
  StreamRuntime* runtime = barriers_->ForDatabase(job->database_id)->runtime();
  BuildRequest req;
  req.plan = &plan;
  req.job = job;
  for (ObjectId id : job->internal_tables) {
    TableRef t = catalog_->GetTable(id);
    if (!t) FRESHET_THROW(sqlstate::kInternalError, "internal table {} of job {} is missing", id, job->id);
    req.internal_tables.push_back(t);
  }
  req.parallelism = parallelism;
  req.memory_limit = JobMemoryLimit(*job);
  req.eval = eval;
  req.catalog = catalog_;
  BuiltJob built = BuildJob(req, runtime);
  Catalog* catalog = catalog_;
  ObjectId id = job->id;
  // Jobs on jobs still being created complete after them.
  std::set<uint32_t> creating_upstream;
  for (ObjectId up : job->depends_on) {
    TableRef u = catalog_->GetTable(up);
    // (Of its own database: one of another database is read through its log.)
    if (u && u->status == JobStatus::kCreating && u->database_id == job->database_id) creating_upstream.insert(up);
  }
  runtime->RegisterJob(job->id, built.backfill_actors, std::move(creating_upstream), [this, catalog, id] {
    TableRef t = catalog->GetTable(id);
    // The epoch that completed the backfill is committed: snapshots from
    // now on hold every row.
    if (t && t->status != JobStatus::kCreated)
      catalog->SetJobStatus(id, JobStatus::kCreated, barriers_->store()->SnapshotSequence());
    OnCreated(id);
  });
  runtime->SetRelationOutputs(job->id, built.outputs);
  runtime->RegisterFragments(job->id, std::move(built.fragments));
  TableRef current = catalog_->GetTable(job->id);  // ALTER may have changed it while queued
  runtime->SetBackfillRateLimit(job->id, BackfillRateLimitOf(current ? *current : *job));
  return built;
}

StreamJobs::StreamJobs(Catalog* catalog, BarrierManager* barriers) : catalog_(catalog), barriers_(barriers) {
  starter_ = std::thread([this] { StarterLoop(); });
}

StreamJobs::~StreamJobs() {
  {
    std::lock_guard lock(queue_mu_);
    stop_ = true;
  }
  queue_cv_.notify_all();
  starter_.join();
}

void StreamJobs::set_max_concurrent_creating(int n) {
  {
    std::lock_guard lock(queue_mu_);
    max_concurrent_ = std::max(0, n);
  }
  queue_cv_.notify_all();
}

bool StreamJobs::IsQueued(ObjectId job_id) const {
  std::lock_guard lock(queue_mu_);
  if (awaiting_start_.count(job_id)) return true;
  for (const auto& p : queued_)
    if (p.job->id == job_id) return true;
  return false;
}

bool StreamJobs::StartOrQueue(Pending p) {
  {
    std::lock_guard lock(queue_mu_);
    bool upstream_queued = false;
    for (const auto& q : queued_)
      for (ObjectId up : p.job->depends_on) upstream_queued |= q.job->id == up;
    bool full = max_concurrent_ > 0 && int(running_creating_.size()) >= max_concurrent_;
    if (full || upstream_queued) {
      queued_.push_back(std::move(p));
      return false;
    }
    running_creating_.insert(p.job->id);
  }
  Start(p.job, *p.plan, p.eval, p.parallelism);
  return true;
}

void StreamJobs::OnCreated(ObjectId job_id) {
  {
    std::lock_guard lock(queue_mu_);
    running_creating_.erase(job_id);
  }
  queue_cv_.notify_all();
}

void StreamJobs::StarterLoop() {
  std::unique_lock lock(queue_mu_);
  while (true) {
    queue_cv_.wait(lock, [&] {
      return stop_ || (!queued_.empty() && (max_concurrent_ == 0 || int(running_creating_.size()) < max_concurrent_));
    });
    if (stop_) return;
    lock.unlock();
    {
      std::lock_guard registry(registry_mu_);
      std::unique_lock relock(queue_mu_);
      bool ready = !queued_.empty() && (max_concurrent_ == 0 || int(running_creating_.size()) < max_concurrent_);
      if (ready) {
        Pending p = std::move(queued_.front());
        queued_.pop_front();
        running_creating_.insert(p.job->id);
        relock.unlock();
        try {
          if (catalog_->GetTable(p.job->id)) Start(p.job, *p.plan, p.eval, p.parallelism);
        } catch (const std::exception& e) {
          spdlog::error("cannot start queued job {} (id {}): {}", p.job->name, p.job->id, e.what());
          std::lock_guard again(queue_mu_);
          running_creating_.erase(p.job->id);
        }
      }
    }
    lock.lock();
  }
}

std::vector<TableCatalog> StreamJobs::Entries(TableCatalog* job, const StreamPlan& plan, int parallelism) {
  // The graph as planned now is what the job is rebuilt from after a
  // restart or a failure: never planned again from its SQL.
  job->stream_plan = EncodeStreamPlan(plan);
  std::vector<TableCatalog> internals;
  for (const auto& spec : plan.internal_tables) {
    TableCatalog t;
    t.database_id = job->database_id;
    t.schema_id = job->schema_id;
    t.owner = job->owner;
    t.name = "__internal_" + job->name + "_" + spec.kind;
    t.kind = RelationKind::kInternal;
    t.columns = spec.columns;
    t.pk = spec.pk;
    t.dist_key = spec.dist_key;
    t.internal_kind = spec.kind;
    t.backfill_upstream = spec.upstream;
    internals.push_back(std::move(t));
  }
  job->status = JobStatus::kCreating;
  job->plan_settings["streaming_parallelism"] = std::to_string(parallelism);
  return internals;
}

namespace {

// The cross-database scans of a plan.
void CrossDatabaseScans(StreamNode* node, std::vector<StreamTableScanNode*>* out) {
  if (node->kind() == StreamNode::Kind::kTableScan && static_cast<StreamTableScanNode*>(node)->cross_database)
    out->push_back(static_cast<StreamTableScanNode*>(node));
  for (auto& input : node->inputs()) CrossDatabaseScans(input.get(), out);
}

std::vector<ObjectId> ParseIds(const std::string& list) {
  std::vector<ObjectId> ids;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    try {
      ids.push_back(static_cast<ObjectId>(std::stoul(list.substr(pos, comma - pos))));
    } catch (...) {
    }
    pos = comma + 1;
  }
  return ids;
}

}  // namespace

std::vector<TableRef> StreamJobs::ChangeLogsOf(const TableCatalog& job) const {
  std::vector<TableRef> logs;
  for (const char* key : {"cross_database_logs", "change_log"}) {
    auto it = job.plan_settings.find(key);
    if (it == job.plan_settings.end()) continue;
    for (ObjectId id : ParseIds(it->second))
      if (TableRef t = catalog_->GetTable(id)) logs.push_back(t);
  }
  return logs;
}

ObjectId StreamJobs::LogTableOf(const TableCatalog& log_job) const {
  for (ObjectId id : log_job.internal_tables)
    if (TableRef t = catalog_->GetTable(id); t && t->internal_kind == "changelog") return id;
  throw SqlError(sqlstate::kInternalError, fmt::format("the change log job {} has no log table", log_job.name));
}

TableRef StreamJobs::AcquireChangeLog(const TableRef& relation, const ChangeLogConsumer& consumer,
                                      const EvalContext& eval, int parallelism) {
  std::lock_guard lock(change_logs_mu_);
  TableRef log;
  for (const auto& t : catalog_->ListTables(relation->database_id)) {
    auto of = t->plan_settings.find("log_of");
    if (t->kind == RelationKind::kSubscription && of != t->plan_settings.end() && of->second == std::to_string(relation->id))
      log = t;
  }
  if (log && log->status == JobStatus::kFailed)
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "the change log of {} \"{}\" failed: {}",
                  RelationKindName(relation->kind), relation->name, log->failure);
  if (!log) {
    TableCatalog job;
    job.database_id = relation->database_id;
    job.schema_id = relation->schema_id;
    job.owner = relation->owner;
    job.kind = RelationKind::kSubscription;
    // Named for its relation; numbered when taken.
    const std::string base = fmt::format("__change_log_of_{}", relation->name).substr(0, 58);
    job.name = base;
    for (int n = 1; catalog_->FindTable(job.schema_id, job.name); n++) job.name = fmt::format("{}_{}", base, n);
    StreamPlan plan = PlanSubscription(relation, /*retention_ms=*/0);
    job.columns = plan.columns;
    job.pk = plan.pk;
    job.dist_key = plan.dist_key;
    job.depends_on = plan.depends_on;
    job.definition = fmt::format("-- the change log of {} {}, kept for its consumers", RelationKindName(relation->kind),
                                 relation->name);
    job.plan_settings["retention_ms"] = "0";
    job.plan_settings["log_of"] = std::to_string(relation->id);
    // Not waited for here: a log job over a relation still being created
    // runs once that relation is, and other consumers' creates and drops
    // must not wait for it meanwhile (WaitChangeLog).
    log = Create(std::move(job), std::move(plan), eval, parallelism, /*wait=*/false, nullptr);
  }
  // Registered before anything is read (change_log.h: a new consumer's bound).
  RegisterChangeLogConsumer(barriers_->store(), LogTableOf(*log), consumer).ThrowIfError();
  return log;
}

void StreamJobs::WaitChangeLog(const TableRef& log, const std::atomic<bool>* cancel) {
  Wait(log->database_id, log->id, cancel);
  TableRef now = catalog_->GetTable(log->id);
  if (!now) FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "the change log job {} was dropped", log->name);
  if (now->status != JobStatus::kCreated)
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "the change log job {} failed: {}", log->name,
                  now->failure);
}

void StreamJobs::ReleaseChangeLogs(const TableCatalog& consumer) {
  const std::vector<TableRef> logs = ChangeLogsOf(consumer);
  if (logs.empty()) return;
  std::lock_guard lock(change_logs_mu_);
  for (const auto& log : logs) {
    const ObjectId log_table = LogTableOf(*log);
    RemoveChangeLogConsumer(barriers_->store(), log_table, consumer.id).ThrowIfError();
    // The last consumer gone: the log goes too.
    if (ChangeLogReader(barriers_->store(), log_table).Consumers(nullptr).empty())
      Drop(log->database_id, {log}, {});
  }
}

void StreamJobs::AlterSubscription(const TableCatalog& next) {
  TableRef now = catalog_->GetTable(next.id);
  if (!now) FRESHET_THROW(sqlstate::kUndefinedObject, "subscription \"{}\" does not exist", next.name);
  auto retention = [](const TableCatalog& t) {
    auto it = t.plan_settings.find("retention_ms");
    return it == t.plan_settings.end() ? std::string() : it->second;
  };
  const bool retention_changed = retention(*now) != retention(next);
  if (retention_changed && !ReadsSharedChangeLog(*now))
    FRESHET_THROW(sqlstate::kFeatureNotSupported,
                  "subscription \"{}\" was created by an older version, with a change log of its own: drop it and "
                  "create it again to change its retention",
                  now->name);
  std::lock_guard lock(change_logs_mu_);
  if (retention_changed)
    for (const auto& log : ChangeLogsOf(next))
      RegisterChangeLogConsumer(barriers_->store(), LogTableOf(*log),
                                ChangeLogConsumer{next.id, 0, std::stoll(retention(next))})
          .ThrowIfError();
  catalog_->AlterTable(next);
}

std::vector<TableRef> StreamJobs::CreateChangeLogs(TableCatalog* job, StreamPlan* plan, const EvalContext& eval,
                                                   int parallelism, ObjectId* reserved_id,
                                                   const std::atomic<bool>* cancel) {
  std::vector<StreamTableScanNode*> scans;
  CrossDatabaseScans(plan->root.get(), &scans);
  if (scans.empty()) return {};
  // The job's id names it in the logs' records before it exists.
  job->id = *reserved_id = catalog_->NewObjectId();
  std::map<ObjectId, TableRef> log_of;  // relation -> its log job
  std::vector<TableRef> acquired;
  auto list_acquired = [&] {  // where ChangeLogsOf (and so ReleaseChangeLogs) finds them
    std::string ids;
    for (const auto& log : acquired) ids += (ids.empty() ? "" : ",") + std::to_string(log->id);
    job->plan_settings["cross_database_logs"] = ids;
  };
  try {
    for (StreamTableScanNode* scan : scans) {
      const TableRef& relation = scan->table;
      TableRef& log = log_of[relation->id];
      if (!log) {
        // The job reads the epochs after B's committed one.
        const Epoch committed = barriers_->store()->CommittedEpoch(relation->database_id).value_or(0);
        log = AcquireChangeLog(relation, ChangeLogConsumer{job->id, committed, 0}, eval, parallelism);
        acquired.push_back(log);
        job->depends_on.push_back(log->id);
      }
      scan->log_table = LogTableOf(*log);
    }
    // Each log running (its first commit done) before the job's first snapshot.
    for (const auto& log : acquired) WaitChangeLog(log, cancel);
  } catch (...) {
    list_acquired();
    ReleaseChangeLogs(*job);
    throw;
  }
  list_acquired();
  return acquired;
}

TableRef StreamJobs::CreateSubscription(TableCatalog subscription, int64_t retention_ms, const EvalContext& eval,
                                        int parallelism, const std::atomic<bool>* cancel) {
  TableRef relation = subscription.depends_on.empty() ? nullptr : catalog_->GetTable(subscription.depends_on[0]);
  if (!relation) throw SqlError(sqlstate::kUndefinedTable, "the subscription's relation does not exist");
  subscription.id = catalog_->NewObjectId();
  TableRef log = AcquireChangeLog(relation, ChangeLogConsumer{subscription.id, 0, retention_ms}, eval, parallelism);
  subscription.depends_on = {relation->id, log->id};
  subscription.plan_settings["change_log"] = std::to_string(log->id);
  subscription.plan_settings["retention_ms"] = std::to_string(retention_ms);
  subscription.status = JobStatus::kCreated;
  try {
    WaitChangeLog(log, cancel);
    // Its changes are those of the epochs committed from now on.
    subscription.finished_at_micros = NowMicros();
    return catalog_->CreateJob(subscription, {}, subscription.id).first;
  } catch (...) {
    ReleaseChangeLogs(subscription);
    throw;
  }
}

void StreamJobs::StartProcedure(const TableRef& job) {
  if (!procedures_) return;
  const Catalog* catalog = catalog_;
  const ObjectId id = job->id;
  procedures_->Start("CreateStreamJob", catalog->QualifiedName(id),
                     [catalog, id]() -> std::optional<Procedures::Outcome> {
                       TableRef t = catalog->GetTable(id);
                       if (!t) return Procedures::Outcome{false, "the job was dropped before it was created"};
                       if (t->status == JobStatus::kCreated) return Procedures::Outcome{};
                       if (t->status == JobStatus::kFailed) return Procedures::Outcome{false, t->failure};
                       return std::nullopt;
                     });
}

TableRef StreamJobs::Create(TableCatalog job, StreamPlan plan, const EvalContext& eval, int parallelism, bool wait,
                            const std::atomic<bool>* cancel) {
  ObjectId reserved_id = 0;
  CreateChangeLogs(&job, &plan, eval, parallelism, &reserved_id, cancel);
  std::vector<TableCatalog> internals = Entries(&job, plan, parallelism);
  TableRef created;
  try {
    std::lock_guard lock(registry_mu_);
    created = catalog_->CreateJob(job, std::move(internals), reserved_id).first;
    StartProcedure(created);
    StartOrQueue(Pending{created, std::make_shared<StreamPlan>(std::move(plan)), eval, parallelism});
  } catch (...) {
    if (created) Drop(created->database_id, {created}, {});
    else ReleaseChangeLogs(job);
    throw;
  }
  return wait ? WaitCreated(created, cancel) : created;
}

TableRef StreamJobs::CreateInTransaction(Catalog* transaction, TableCatalog job, const StreamPlan& plan,
                                         int parallelism) {
  std::vector<StreamTableScanNode*> scans;
  CrossDatabaseScans(plan.root.get(), &scans);
  if (!scans.empty())
    FRESHET_THROW(sqlstate::kActiveTransaction,
                  "{} \"{}\", which reads relation \"{}\" of another database, cannot be created in a transaction block",
                  RelationKindName(job.kind), job.name, scans[0]->table->name);
  std::vector<TableCatalog> internals = Entries(&job, plan, parallelism);
  TableRef entry = transaction->CreateJob(std::move(job), std::move(internals)).first;
  std::lock_guard lock(queue_mu_);
  awaiting_start_.insert(entry->id);
  return entry;
}

void StreamJobs::ForgetAwaitedStart(ObjectId job_id) {
  {
    std::lock_guard lock(queue_mu_);
    awaiting_start_.erase(job_id);
  }
  queue_cv_.notify_all();
}

TableRef StreamJobs::StartCommitted(ObjectId job_id, bool wait, const std::atomic<bool>* cancel) {
  TableRef job;
  try {
    std::lock_guard lock(registry_mu_);
    job = catalog_->GetTable(job_id);
    // Not dropped in its block, nor started already (a recovery of its
    // database since the commit builds it from the catalog).
    if (job && job->status == JobStatus::kCreating) {
      StreamRuntime* runtime = barriers_->ForDatabase(job->database_id)->runtime();
      bool queued = false;
      {
        std::lock_guard queue(queue_mu_);
        for (const auto& p : queued_) queued |= p.job->id == job_id;
      }
      if (!runtime->JobRegistered(job_id) && !queued) {
        StartProcedure(job);
        ResumedJob stored = StoredJob(job);
        StartOrQueue(Pending{job, stored.plan, stored.eval, JobParallelism(*job)});
      }
    }
  } catch (...) {
    ForgetAwaitedStart(job_id);
    // Not left Creating without a running job.
    if (job && job->status == JobStatus::kCreating) Drop(job->database_id, {job}, {});
    throw;
  }
  ForgetAwaitedStart(job_id);
  if (!job || job->status != JobStatus::kCreating) return job;
  return wait ? WaitCreated(job, cancel) : job;
}

TableRef StreamJobs::WaitCreated(const TableRef& created, const std::atomic<bool>* cancel) {
  try {
    Wait(created->database_id, created->id, cancel);
  } catch (const SqlError& e) {
    // Ctrl+C on a foreground CREATE cancels the job (and the jobs on it).
    if (e.code() == sqlstate::kQueryCanceled && cancel && cancel->load())
      Drop(created->database_id, CreatingClosure(created), {});
    throw;
  }
  TableRef now = catalog_->GetTable(created->id);
  if (!now)
    throw SqlError(sqlstate::kQueryCanceled,
                   fmt::format("{} \"{}\" was cancelled while being created", RelationKindName(created->kind),
                               created->name));
  if (now->status == JobStatus::kFailed)
    throw SqlError(now->failure_code, fmt::format("{} \"{}\" failed while being created: {}",
                                                  RelationKindName(now->kind), now->name, now->failure));
  return now;
}

std::vector<TableRef> StreamJobs::CreatingClosure(const TableRef& job) const {
  std::vector<TableRef> out = {job};
  std::set<ObjectId> seen = {job->id};
  for (size_t i = 0; i < out.size(); i++)
    for (const auto& dep : catalog_->Dependents(out[i]->id))
      if (dep->status == JobStatus::kCreating && seen.insert(dep->id).second) out.push_back(dep);
  return out;
}

void StreamJobs::Wait(ObjectId database_id, ObjectId job_id, const std::atomic<bool>* cancel) {
  StreamRuntime* runtime = barriers_->ForDatabase(database_id)->runtime();
  while (true) {
    TableRef waiting;
    for (const auto& t : catalog_->ListTables(database_id))
      if (t->status == JobStatus::kCreating && (job_id == 0 || t->id == job_id)) {
        waiting = t;
        break;
      }
    if (!waiting) return;
    bool running, queued;
    {
      std::lock_guard lock(registry_mu_);
      TableRef again = catalog_->GetTable(waiting->id);
      if (!again || again->status != JobStatus::kCreating) continue;
      running = runtime->JobRegistered(waiting->id);
      queued = !running && IsQueued(waiting->id);
    }
    if (queued) {
      // Until the starter starts it (or it is dropped).
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (cancel && cancel->load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
      continue;
    }
    if (!running)
      FRESHET_THROW(sqlstate::kInternalError, "{} \"{}\" is not running: its job could not be resumed (see the server log)",
                    RelationKindName(waiting->kind), waiting->name);
    // Returns early when the job is dropped (the catalog then tells), on
    // cancel, or at shutdown.
    if (runtime->WaitJob(waiting->id, cancel)) continue;
    if (cancel && cancel->load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    if (runtime->stopped()) throw SqlError(sqlstate::kAdminShutdown, "the server is shutting down");
  }
}

void StreamJobs::ResumeAll(ObjectId database_id, std::vector<ResumedJob> jobs) {
  // One barrier starts them all: a job started by an earlier barrier would
  // emit rows (a source, a resumed backfill) that the jobs reading it, not
  // attached yet, would never see.
  std::lock_guard lock(registry_mu_);
  auto mutation = std::make_shared<Mutation>();
  std::vector<std::unique_ptr<Actor>> actors;
  std::vector<ObjectId> started;
  for (auto& r : jobs) {
    try {
      BuiltJob built = Prepare(r.job, *r.plan, r.eval, JobParallelism(*r.job));
      for (auto& [target, outputs] : built.mutation->add_outputs) {
        auto& all = mutation->add_outputs[target];
        all.insert(all.end(), outputs.begin(), outputs.end());
      }
      for (auto& a : built.actors) actors.push_back(std::move(a));
      started.push_back(r.job->id);
      if (r.job->status == JobStatus::kCreating) {
        std::lock_guard queue(queue_mu_);
        running_creating_.insert(r.job->id);
      }
    } catch (const std::exception& e) {
      spdlog::error("cannot resume {} {} (id {}): {}", RelationKindName(r.job->kind), r.job->name, r.job->id, e.what());
    }
  }
  if (started.empty()) return;
  DatabaseEpochLoop* loop = barriers_->ForDatabase(database_id);
  loop->ApplyGraphChange(mutation, std::move(actors));
  for (ObjectId id : started) loop->runtime()->ArmJob(id);
}

void StreamJobs::Rebuild(ObjectId database_id, std::vector<ResumedJob> jobs) {
  auto mutation = std::make_shared<Mutation>();
  std::vector<std::unique_ptr<Actor>> actors;
  std::vector<ObjectId> started;
  for (auto& r : jobs) {
    TableRef now = catalog_->GetTable(r.job->id);
    if (!now || now->status == JobStatus::kFailed) continue;  // dropped or failed meanwhile
    try {
      BuiltJob built = Prepare(now, *r.plan, r.eval, JobParallelism(*now));
      for (auto& [target, outputs] : built.mutation->add_outputs) {
        auto& all = mutation->add_outputs[target];
        all.insert(all.end(), outputs.begin(), outputs.end());
      }
      for (auto& a : built.actors) actors.push_back(std::move(a));
      started.push_back(now->id);
    } catch (const SqlError& e) {
      spdlog::error("recovery cannot rebuild {} {} (id {}): {}", RelationKindName(now->kind), now->name, now->id,
                    e.what());
      MarkFailed(now->id, e.what(), e.code());
    } catch (const std::exception& e) {
      spdlog::error("recovery cannot rebuild {} {} (id {}): {}", RelationKindName(now->kind), now->name, now->id,
                    e.what());
      MarkFailed(now->id, e.what(), sqlstate::kInternalError);
    }
  }
  DatabaseEpochLoop* loop = barriers_->ForDatabase(database_id);
  // Armed at once: a job completes only once a commit covers the epoch its
  // backfill finished in, which is after the recovery's barrier.
  for (ObjectId id : started) loop->runtime()->ArmJob(id);
  loop->ApplyGraphChange(mutation, std::move(actors), /*recovery=*/true);
}

int StreamJobs::CountFailure(ObjectId job_id) {
  // Failures further apart than this start the count again.
  constexpr auto kWindow = std::chrono::minutes(10);
  std::lock_guard lock(failures_mu_);
  auto now = std::chrono::steady_clock::now();
  FailureCount& f = failures_[job_id];
  if (f.count && now - f.last > kWindow) f.count = 0;
  f.count++;
  f.last = now;
  return f.count;
}

void StreamJobs::MarkFailed(ObjectId job_id, const std::string& failure, const std::string& code) {
  std::vector<ObjectId> queue = {job_id};
  std::set<ObjectId> seen = {job_id};
  TableRef failed = catalog_->GetTable(job_id);
  const ObjectId failed_database = failed ? failed->database_id : 0;
  for (size_t i = 0; i < queue.size(); i++) {
    TableRef t = catalog_->GetTable(queue[i]);
    if (!t) continue;
    catalog_->SetJobFailed(t->id, i == 0 ? failure : fmt::format("an upstream job failed: {}", failure), code);
    barriers_->ForDatabase(t->database_id)->runtime()->ForgetJob(t->id);
    // A job of another database reading it (through a change log that is
    // no longer written): its database recovers without it.
    if (i > 0 && t->database_id != failed_database)
      barriers_->ForDatabase(t->database_id)
          ->RequestRecovery(fmt::format("{} \"{}\" failed: it reads a relation of another database that failed",
                                        RelationKindName(t->kind), t->name));
    for (const auto& dep : catalog_->Dependents(t->id))
      if (IsStreamJob(*dep) && seen.insert(dep->id).second) queue.push_back(dep->id);
  }
  std::lock_guard lock(queue_mu_);
  for (ObjectId id : seen) running_creating_.erase(id);
  queue_cv_.notify_all();
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
  {
    std::lock_guard lock(queue_mu_);
    for (const auto& j : jobs) {
      running_creating_.erase(j->id);
      for (auto it = queued_.begin(); it != queued_.end();) it = it->job->id == j->id ? queued_.erase(it) : std::next(it);
    }
  }
  queue_cv_.notify_all();
  // Stops the jobs' running actors; a recovery may rebuild a job while it
  // is being dropped, so this runs until none is left.
  auto stop_actors = [&] {
    while (true) {
      auto stop = std::make_shared<Mutation>();
      for (const auto& j : jobs)
        for (ActorId a : runtime->JobActors(j->id)) stop->stop.insert(a);
      if (stop->stop.empty()) return;
      try {
        loop->ApplyGraphChange(stop, {});
      } catch (const GraphRecoveringError&) {
        loop->WaitRecovered();
      }
    }
  };
  if (!mutation->stop.empty()) stop_actors();
  {
    std::lock_guard lock(registry_mu_);
    stop_actors();
    for (const auto& j : jobs) {
      runtime->ForgetJob(j->id);
      runtime->ForgetRelation(j->id);
    }
    catalog_->DropObjects({}, {}, ids);
  }
  // The change logs they read lose a consumer (and go with their last).
  for (const auto& j : jobs) ReleaseChangeLogs(*j);
}

StreamJobs::ResumedJob StreamJobs::StoredJob(const TableRef& job) {
  EvalContext eval;
  auto it = job->plan_settings.find("timezone");
  if (it != job->plan_settings.end())
    if (auto tz = TimeZone::Lookup(it->second)) eval.time_zone = *tz;
  std::shared_ptr<StreamPlan> plan;
  if (!job->stream_plan.empty()) {
    plan = std::make_shared<StreamPlan>(
        DecodeStreamPlan(job->stream_plan, [this](ObjectId id) { return catalog_->GetTable(id); }));
    if (plan->internal_tables.size() != job->internal_tables.size())
      throw SqlError(sqlstate::kDataCorrupted, "the stored plan does not match the job's state tables");
  } else if (IsConnectorTable(*job)) {
    plan = std::make_shared<StreamPlan>(PlanTableSource(job));
  } else if (legacy_planner_) {
    plan = legacy_planner_(*job, &eval);
  } else {
    throw SqlError(sqlstate::kInternalError, "the job has no stored plan");
  }
  return {job, std::move(plan), eval};
}

std::vector<StreamJobs::ResumedJob> StreamJobs::StoredJobs(const DatabaseCatalog& db) {
  std::vector<TableRef> jobs;
  for (const auto& t : catalog_->ListTables(db.id))
    if ((IsStreamJob(*t) || IsConnectorTable(*t)) && t->status != JobStatus::kFailed) jobs.push_back(t);
  // A job's upstreams were created before it: ids order them.
  std::sort(jobs.begin(), jobs.end(), [](const TableRef& a, const TableRef& b) { return a->id < b->id; });
  std::vector<ResumedJob> stored;
  for (const auto& job : jobs) {
    try {
      stored.push_back(StoredJob(job));
    } catch (const std::exception& e) {
      spdlog::error("cannot resume {} {} (id {}): {}", RelationKindName(job->kind), job->name, job->id, e.what());
    }
  }
  return stored;
}

void StreamJobs::ResumeStored() {
  DropOrphanChangeLogs();
  RetireOldLayoutLogs();
  for (const auto& db : catalog_->ListDatabases()) ResumeAll(db.id, StoredJobs(db));
}

void StreamJobs::RetireOldLayoutLogs() {
  for (const auto& db : catalog_->ListDatabases())
    for (const auto& t : catalog_->ListTables(db.id)) {
      // Session 41 made only subscriptions with logs of their own.
      if (t->kind != RelationKind::kSubscription || !IsStreamJob(*t) || IsChangeLogJob(*t)) continue;
      try {
        const Epoch committed = barriers_->store()->CommittedEpoch(db.id).value_or(0);
        if (RetireOldLayoutChangeLog(barriers_->store(), LogTableOf(*t), committed).ValueOrThrow())
          spdlog::warn("subscription {} (id {}): its change log of an older layout is not read by this version; "
                       "cursors resuming before epoch {} get an error",
                       t->name, t->id, committed);
      } catch (const std::exception& e) {
        spdlog::error("subscription {} (id {}): cannot check its change log: {}", t->name, t->id, e.what());
      }
    }
}

void StreamJobs::DropOrphanChangeLogs() {
  // The consumers in the catalog of each log job.
  std::map<ObjectId, std::set<ObjectId>> consumers;
  const std::vector<DatabaseCatalog> databases = catalog_->ListDatabases();
  for (const auto& db : databases)
    for (const auto& t : catalog_->ListTables(db.id))
      for (const auto& log : ChangeLogsOf(*t)) consumers[log->id].insert(t->id);
  std::vector<ObjectId> orphans;
  for (const auto& db : databases)
    for (const auto& log : catalog_->ListTables(db.id)) {
      if (!IsChangeLogJob(*log)) continue;
      const std::set<ObjectId>& in_catalog = consumers[log->id];
      if (in_catalog.empty()) {
        spdlog::warn("dropping change log job {} (id {}): it has no consumer", log->name, log->id);
        orphans.push_back(log->id);
        orphans.insert(orphans.end(), log->internal_tables.begin(), log->internal_tables.end());
        continue;
      }
      // Records of consumers that never entered the catalog (a crash while
      // one was being created) would hold the log back for ever.
      try {
        const ObjectId log_table = LogTableOf(*log);
        for (const auto& c : ChangeLogReader(barriers_->store(), log_table).Consumers(nullptr))
          if (!in_catalog.count(c.id)) {
            spdlog::warn("change log job {} (id {}): forgetting consumer {}, which does not exist", log->name,
                         log->id, c.id);
            RemoveChangeLogConsumer(barriers_->store(), log_table, c.id).ThrowIfError();
          }
      } catch (const std::exception& e) {  // a read-only store, a corrupt record: the start goes on
        spdlog::error("change log job {} (id {}): cannot check its consumers: {}", log->name, log->id, e.what());
      }
    }
  if (!orphans.empty()) catalog_->DropObjects({}, {}, orphans);
}

namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

void StreamJobs::Recover(uint32_t database_id, const StreamRuntime::Failure& failure) {
  // A job that keeps failing is retried with a growing pause, then marked
  // failed and left stopped; the database's other jobs go on.
  constexpr int kMaxFailures = 4;
  Catalog* catalog = catalog_;
  if (!failure.job_id) {
    // Asked for (RECOVER): no job failed, none is counted or paused for.
    auto db = catalog->GetDatabase(database_id);
    if (!db) return;
    Rebuild(database_id, StoredJobs(*db));
    catalog->RecordEvent("RECOVERY", fmt::format("{{\"database_id\": {}, \"cause\": {}}}", database_id,
                                                 JsonString(failure.message)));
    spdlog::info("database {}: stream graph recovered ({})", database_id, failure.message);
    return;
  }
  TableRef job = catalog->GetTable(failure.job_id);
  const std::string name = job ? job->name : "?";
  int failures = CountFailure(failure.job_id);
  catalog->RecordEvent("STREAM_FAILURE",
                       fmt::format("{{\"database_id\": {}, \"job_id\": {}, \"job\": {}, \"actor_id\": {}, "
                                   "\"error\": {}, \"failures\": {}}}",
                                   database_id, failure.job_id, JsonString(name), failure.actor,
                                   JsonString(failure.message), failures));
  if (job && failures >= kMaxFailures) {
    std::string why = fmt::format("failed {} times, last: {}", failures, failure.message);
    MarkFailed(job->id, why, failure.code);
    catalog->RecordEvent("JOB_FAILED", fmt::format("{{\"database_id\": {}, \"job_id\": {}, \"job\": {}, \"error\": {}}}",
                                                   database_id, job->id, JsonString(name), JsonString(why)));
  } else {
    DatabaseEpochLoop* loop = barriers_->ForDatabase(database_id);
    auto pause = std::chrono::milliseconds(100) * (1 << std::min(failures - 1, 6));
    for (auto waited = std::chrono::milliseconds(0); waited < pause && !loop->stopping();
         waited += std::chrono::milliseconds(20))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto db = catalog->GetDatabase(database_id);
  if (!db) return;
  Rebuild(database_id, StoredJobs(*db));
  catalog->RecordEvent("RECOVERY", fmt::format("{{\"database_id\": {}, \"after_failure_of_job_id\": {}}}",
                                               database_id, failure.job_id));
  spdlog::info("database {}: stream graph recovered", database_id);
}

}  // namespace freshet
