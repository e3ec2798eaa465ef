// StreamRuntime: the running stream graph of one database, in three parts
// with locks of their own:
//
//   ActorRegistry    (actor_registry.h) its actors, the tables' change
//                    streams, the relations' output actors, the fragments;
//   BarrierInjector  (barrier_injector.h) barriers in and out: injection,
//                    collection of the actors' writes, the committed epoch,
//                    failures and resets;
//   JobTracker       (job_tracker.h) completion of the jobs being created,
//                    in dependency order, and backfill rate limits.
//
// The epoch loop (meta/barrier_manager.h) and StreamJobs (meta/
// stream_jobs.h) use it through the methods below; actors only through the
// ActorHost each gets (MakeActorHost), and their operators through its
// narrower ActorServices (operator.h).
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stream/actor_registry.h"
#include "stream/barrier_injector.h"
#include "stream/job_tracker.h"

namespace freshet {

class StreamRuntime {
 public:
  StreamRuntime(StateStore* store, uint32_t database_id)
      : store_(store), database_id_(database_id), barriers_(&actors_) {}
  ~StreamRuntime();

  StateStore* store() const { return store_; }
  uint32_t database_id() const { return database_id_; }

  // DML: whether a table has downstream jobs, and pushing its changes.
  // Called with the epoch guard held, so a change never straddles a barrier.
  bool HasSubscribers(TableId table_id) const { return actors_.HasSubscribers(table_id); }
  // Which of its columns they read (empty: every one; ActorRegistry's).
  std::vector<bool> TableColumnsRead(TableId table_id) const { return actors_.TableColumnsRead(table_id); }
  void PushTableChanges(TableId table_id, const StreamChunk& chunk) { actors_.PushTableChanges(table_id, chunk); }
  void SetTableWatermark(TableId table_id, Watermark watermark) {
    actors_.SetTableWatermark(table_id, std::move(watermark));
  }

  // Epoch loop (barrier_injector.h). OnCommitted also completes the jobs
  // whose backfill finished by that epoch.
  void InjectBarrier(const Barrier& barrier, std::vector<std::unique_ptr<Actor>> new_actors) {
    barriers_.Inject(barrier, std::move(new_actors));
  }
  std::vector<WriteLog> WaitCollected(Epoch prev_epoch) { return barriers_.WaitCollected(prev_epoch); }
  void OnCommitted(Epoch epoch);
  size_t num_actors() const { return actors_.size(); }
  Epoch committed_epoch() const { return barriers_.committed_epoch(); }

  // The host of a new actor of a job: its reports go to this runtime's
  // current graph (generation).
  std::shared_ptr<ActorHost> MakeActorHost(uint32_t job_id, ActorId actor);

  // Jobs (job_tracker.h).
  void RegisterJob(uint32_t job_id, std::map<ActorId, int> backfill_actors, std::set<uint32_t> upstream_jobs,
                   std::function<void()> on_complete) {
    jobs_.Register(job_id, std::move(backfill_actors), std::move(upstream_jobs), std::move(on_complete));
  }
  bool JobBackfillDone(uint32_t job_id) const { return jobs_.BackfillDone(job_id); }
  bool WaitJob(uint32_t job_id, const std::atomic<bool>* cancel) { return jobs_.Wait(job_id, cancel); }
  bool JobComplete(uint32_t job_id) const { return jobs_.Complete(job_id); }
  bool JobRegistered(uint32_t job_id) const { return jobs_.Registered(job_id); }
  // Forgets the job's tracking, rate limit and fragments.
  void ForgetJob(uint32_t job_id);
  // Called once the barrier that started the job is committed: from then on
  // the job can complete (at once, if its backfill already finished).
  void ArmJob(uint32_t job_id);
  std::set<ActorId> JobActors(uint32_t job_id) const { return actors_.JobActors(job_id); }
  void SetBackfillRateLimit(uint32_t job_id, std::optional<int64_t> rows_per_second) {
    jobs_.SetBackfillRateLimit(job_id, rows_per_second);
  }

  // Relations' output actors and fragments (actor_registry.h).
  using OutputActor = ActorRegistry::OutputActor;
  void SetRelationOutputs(TableId relation, std::vector<OutputActor> actors) {
    actors_.SetRelationOutputs(relation, std::move(actors));
  }
  std::vector<OutputActor> RelationOutputs(TableId relation) const { return actors_.RelationOutputs(relation); }
  void ForgetRelation(TableId relation) { actors_.ForgetRelation(relation); }
  ActorId NextActorId() { return actors_.NextActorId(); }
  uint32_t NextFragmentId() { return actors_.NextFragmentId(); }
  void RegisterFragments(uint32_t job_id, std::vector<FragmentInfo> fragments) {
    actors_.RegisterFragments(job_id, std::move(fragments));
  }
  std::vector<FragmentInfo> Fragments() const { return actors_.Fragments(); }

  // Asks for a barrier now rather than at the next interval (a backfill
  // that just finished, so its job completes without waiting).
  void RequestBarrier() {
    if (request_barrier_) request_barrier_();
  }
  void set_request_barrier(std::function<void()> fn) { request_barrier_ = std::move(fn); }

  // Failures (barrier_injector.h). ResetGraph stops and joins every actor
  // and forgets the graph; registered jobs stay registered (waiters keep
  // waiting) until their rebuilt actors register them again or they are
  // forgotten.
  using Failure = BarrierInjector::Failure;
  std::optional<Failure> failure() const { return barriers_.failure(); }
  void ResetGraph() { barriers_.Reset(); }

  void Shutdown();
  bool stopped() const { return barriers_.stopped(); }

 private:
  class Host;

  StateStore* store_;
  uint32_t database_id_;
  ActorRegistry actors_;
  BarrierInjector barriers_;
  JobTracker jobs_;
  std::function<void()> request_barrier_;
};

}  // namespace freshet
