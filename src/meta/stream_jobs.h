// StreamJobs: creating, resuming and dropping stream jobs (materialized
// views, sinks and indexes) of every database.
//
// Creating a job: the catalog entries are written first (status Creating,
// internal tables included), then its actors are built and started by a
// barrier whose mutation attaches them to their upstreams; the job is
// Created once every backfill actor finished, that epoch is committed and
// every creating job it reads from is Created.
//
// With max_concurrent_creating_streaming_jobs = n > 0, at most n creating
// jobs run; the others wait in a queue (in the catalog already, as
// Creating) and a starter thread starts them in order as running ones
// complete or are dropped. A job on a queued job is queued after it.
// The same path resumes a Creating or Created job after a restart, from
// its persisted state: the stream plan it was created with, kept in its
// catalog entry, so that a job is never planned again from its SQL. Dropping stops the actors with a barrier, then
// deletes the catalog entries and the data.
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "catalog/catalog.h"
#include "common/procedures.h"
#include "meta/barrier_manager.h"
#include "planner/stream_plan.h"
#include "storage/change_log.h"
#include "stream/builder.h"

namespace freshet {

class StreamJobs {
 public:
  StreamJobs(Catalog* catalog, BarrierManager* barriers);
  ~StreamJobs();

  // Registers `job` (a materialized view) with the internal tables `plan`
  // asks for, starts it and, when `wait`, blocks until it is Created.
  // Cancellation (via *cancel) drops the job and throws 57014.
  // A job reading relations of other databases (cross-database scans)
  // first becomes a consumer of each such relation's change log
  // (CreateChangeLogs); it stops being one when it is dropped.
  TableRef Create(TableCatalog job, StreamPlan plan, const EvalContext& eval, int parallelism, bool wait,
                  const std::atomic<bool>* cancel);
  // A job created in a transaction block: its catalog entries (Creating,
  // internal tables, stream plan) go into the block's catalog now, so
  // that the block's later statements see it (a view on it, COMMENT, OWNER
  // TO), and are stored when the block commits; StartCommitted then
  // starts it. Until then it counts as queued (Wait waits for it). The
  // caller calls ForgetAwaitedStart if the block rolls it back.
  TableRef CreateInTransaction(Catalog* transaction, TableCatalog job, const StreamPlan& plan, int parallelism);
  void ForgetAwaitedStart(ObjectId job_id);
  // After the block's commit: starts the job from its stored entry (the
  // plan it was created with), unless its block dropped it or a recovery
  // started it already, and when `wait` blocks until it is Created (as
  // Create). A crash before this leaves a Creating job, which the next
  // start resumes.
  TableRef StartCommitted(ObjectId job_id, bool wait, const std::atomic<bool>* cancel);
  // The job and every still-creating job built on it, transitively: what
  // cancelling or dropping a creating job takes with it.
  std::vector<TableRef> CreatingClosure(const TableRef& job) const;
  // Blocks until the job (job_id != 0) or every job of the database
  // (job_id == 0) is Created or gone. Throws 57014 when cancelled via
  // *cancel (the jobs go on), 57P01 at shutdown, XX000 for a creating job
  // that is not running.
  void Wait(ObjectId database_id, ObjectId job_id, const std::atomic<bool>* cancel);
  // Changes a job's backfill rate limit ("<n>" or "default"), persisted and
  // applied to its running backfill at the next barrier.
  void SetBackfillRateLimit(const TableRef& job, const std::string& limit);
  // Starts the existing jobs of a database (after a restart) from their
  // persisted state, all with one barrier; upstreams before the jobs that
  // read them. A job that cannot be built is logged and left out.
  // Creating jobs all run, whatever max_concurrent_creating_streaming_jobs.
  struct ResumedJob {
    TableRef job;
    std::shared_ptr<StreamPlan> plan;
    EvalContext eval;
  };
  void ResumeAll(ObjectId database_id, std::vector<ResumedJob> jobs);
  // Recovery (the epoch loop's handler, see DatabaseEpochLoop): builds the
  // database's jobs again from their committed state and applies them as
  // the recovery's graph change. A job that cannot be built is marked
  // failed. Does not take registry_mu_: a statement holding it may be
  // waiting for a change that the recovery refuses.
  void Rebuild(ObjectId database_id, std::vector<ResumedJob> jobs);
  // The plan of a job created by a version that did not persist its plan
  // (planned again from its SQL: the frontend's binder and planner); it
  // may adjust `eval`. Throws when the job cannot be planned.
  using LegacyPlanner = std::function<std::shared_ptr<StreamPlan>(const TableCatalog& job, EvalContext* eval)>;
  void set_legacy_planner(LegacyPlanner planner) { legacy_planner_ = std::move(planner); }
  // Each job's creation (Create, StartCommitted) becomes a procedure
  // (CreateStreamJob) there, Done when the job is Created, Failed when it
  // fails for good or is dropped first. May stay unset.
  void set_procedures(Procedures* procedures) { procedures_ = procedures; }
  // The stream jobs of a database as persisted, upstreams first, each with
  // the plan it was created with (TableCatalog::stream_plan); failed jobs,
  // and jobs whose plan cannot be read, are left out (logged).
  std::vector<ResumedJob> StoredJobs(const DatabaseCatalog& db);
  // At start: every database's jobs from their persisted plans, after
  // DropOrphanChangeLogs.
  void ResumeStored();
  // Drops the log jobs without a consumer in the catalog and forgets the
  // records of consumers that are not in it: a crash between joining a log
  // and creating the consumer, or between dropping a consumer and its log.
  void DropOrphanChangeLogs();
  // At start: a subscription of session 41 wrote its log in the data
  // family, vnode first, which this version does not read; such a log is
  // deleted and recorded truncated through its database's committed epoch
  // (RetireOldLayoutChangeLog), so that a cursor resuming before the
  // upgrade gets 55000 instead of missing changes.
  void RetireOldLayoutLogs();
  // The epoch loop's recovery handler: records the failure
  // (rw_event_logs), backs off, marks a job that keeps failing failed, and
  // rebuilds the database's jobs from their persisted plans.
  void Recover(uint32_t database_id, const StreamRuntime::Failure& failure);
  // Counts a failure of the job and returns how many it had recently.
  int CountFailure(ObjectId job_id);
  // Marks the job and the stream jobs that read it, transitively, failed
  // (`code`: the error's SQLSTATE, which a CREATE waiting for it gets).
  void MarkFailed(ObjectId job_id, const std::string& failure, const std::string& code);
  // max_concurrent_creating_streaming_jobs (0 = unlimited).
  void set_max_concurrent_creating(int n);
  // Whether the job waits in the queue for a slot.
  bool IsQueued(ObjectId job_id) const;
  // Stops the jobs' actors (one barrier) and drops their catalog entries,
  // internal tables and data, together with `other_tables` (plain tables
  // being dropped in the same statement); then the change logs they read
  // lose them as consumers (ReleaseChangeLogs). `jobs` may hold
  // subscriptions (no actors) for that.
  void Drop(ObjectId database_id, const std::vector<TableRef>& jobs, const std::vector<ObjectId>& other_tables);
  // The log jobs whose logs a consumer reads: a cross-database view's (one
  // per relation of another database) or a subscription's.
  std::vector<TableRef> ChangeLogsOf(const TableCatalog& consumer) const;

  // Change logs (storage/change_log.h), one per relation that has
  // consumers: cross-database views and subscriptions. The log is written
  // by a log job in the relation's database (a subscription's plan without
  // retention, plan_settings "log_of"); each consumer records what it still
  // needs in the log, and the job truncates below the least.
  //
  // Makes `consumer` (its id and bound) a consumer of `relation`'s log,
  // creating the log job when the relation has none. Returns the log job,
  // which may still be being created (WaitChangeLog). 55000 when the log
  // job failed.
  TableRef AcquireChangeLog(const TableRef& relation, const ChangeLogConsumer& consumer, const EvalContext& eval,
                            int parallelism);
  // Blocks until the log job runs (Created); 55000 when it failed or was
  // dropped, 57014 on cancel (the log job goes on).
  void WaitChangeLog(const TableRef& log, const std::atomic<bool>* cancel);
  // Removes `consumer`'s records from the logs it reads (ChangeLogsOf) and
  // drops a log job left without consumers. Call after it is dropped.
  void ReleaseChangeLogs(const TableCatalog& consumer);
  // CREATE SUBSCRIPTION: `subscription` (depends_on[0]: its relation) as a
  // consumer of its relation's log keeping `retention_ms` of it; a catalog
  // entry, Created at once, whose changes start with the epochs committed
  // after it.
  TableRef CreateSubscription(TableCatalog subscription, int64_t retention_ms, const EvalContext& eval,
                              int parallelism, const std::atomic<bool>* cancel);
  // ALTER SUBSCRIPTION: the subscription becomes `next` (its name, owner,
  // definition, plan_settings["retention_ms"]); a new retention is
  // recorded in its log. 0A000 for a new retention of a subscription of an
  // older version (its own job, whose plan holds the retention).
  void AlterSubscription(const TableCatalog& next);
  // The log table (internal table of kind "changelog") of a log job.
  ObjectId LogTableOf(const TableCatalog& log_job) const;

 private:
  struct Pending {
    TableRef job;
    std::shared_ptr<StreamPlan> plan;
    EvalContext eval;
    int parallelism;
  };
  // For each relation of another database that `plan` reads: makes the job
  // a consumer of its change log (AcquireChangeLog, with B's committed
  // epoch as its bound), whose log the job's cross-database scans read
  // (stream/cross_db_scan.h). The job's id is reserved first (*reserved_id,
  // job->id) to name it in the logs. Sets the scans' log tables, adds the
  // log jobs to job->depends_on (a drop of one names the view) and lists
  // them in job->plan_settings["cross_database_logs"]. On an error the logs
  // acquired so far are released. Returns them.
  std::vector<TableRef> CreateChangeLogs(TableCatalog* job, StreamPlan* plan, const EvalContext& eval, int parallelism,
                                         ObjectId* reserved_id, const std::atomic<bool>* cancel);
  // Fills in `job`'s stream plan, status and parallelism, and returns the
  // internal tables `plan` asks for.
  static std::vector<TableCatalog> Entries(TableCatalog* job, const StreamPlan& plan, int parallelism);
  // Create's wait: until Created; a cancel drops it (57014), a failure is
  // its error.
  TableRef WaitCreated(const TableRef& created, const std::atomic<bool>* cancel);
  // The plan and evaluation settings a stored job is built from; throws
  // when it cannot be read.
  ResumedJob StoredJob(const TableRef& job);
  // Builds a job's actors and registers it with the runtime; the returned
  // actors and mutation still have to be applied with a barrier.
  BuiltJob Prepare(TableRef job, const StreamPlan& plan, const EvalContext& eval, int parallelism);
  void Start(TableRef job, const StreamPlan& plan, const EvalContext& eval, int parallelism);
  // Starts `p` now (true) or queues it (false); registry_mu_ held.
  bool StartOrQueue(Pending p);
  void OnCreated(ObjectId job_id);
  void StarterLoop();

  Catalog* catalog_;
  BarrierManager* barriers_;
  // Held while a job enters the catalog and the runtime together, and while
  // it leaves both, so that Wait never sees one without the other. Never
  // taken by code the epoch loop runs (job completion), since Start waits
  // for the loop while holding it.
  std::mutex registry_mu_;
  // The queue (order: registry_mu_ before queue_mu_).
  mutable std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  int max_concurrent_ = 0;
  std::set<ObjectId> running_creating_;
  std::deque<Pending> queued_;
  std::set<ObjectId> awaiting_start_;  // CreateInTransaction'd, not started yet
  bool stop_ = false;
  std::thread starter_;
  struct FailureCount {
    int count = 0;
    std::chrono::steady_clock::time_point last;
  };
  std::mutex failures_mu_;
  std::map<ObjectId, FailureCount> failures_;
  LegacyPlanner legacy_planner_;
  Procedures* procedures_ = nullptr;
  void StartProcedure(const TableRef& job);
  // Around a log's lookup or creation with a consumer's registration, and
  // a consumer's removal with the log's drop: a log is never dropped while
  // a consumer joins it. Recursive: creating a log job creates a job.
  std::recursive_mutex change_logs_mu_;
};

// The parallelism a job was planned with (plan_settings), default 1.
int JobParallelism(const TableCatalog& job);
// The job's backfill rate limit (plan_settings "backfill_rate_limit":
// "<rows per second per parallelism>" or "default" = none).
std::optional<int64_t> BackfillRateLimitOf(const TableCatalog& job);
// The job's memory limit in bytes (plan_settings "streaming_memory_limit",
// job_memory.h); 0 = none (jobs created before there was one).
int64_t JobMemoryLimit(const TableCatalog& job);

}  // namespace freshet
