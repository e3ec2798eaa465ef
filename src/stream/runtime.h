// StreamRuntime: the running stream graph of one database.
//
// It owns the database's actors and its table change streams (the outputs
// of DML: every change to a table with downstream jobs is pushed here and
// dispatched to the jobs' backfill actors), and it is where barriers enter
// and leave the graph:
//
//   InjectBarrier   (epoch loop, holding the exclusive epoch lock, so no
//                   DML runs) starts the actors the barrier adds, applies
//                   its mutation to the table change streams and sends the
//                   barrier to them and to every source actor;
//   Collect         (actors) hands over an actor's state writes of the epoch;
//   WaitCollected   (epoch loop) returns once every actor that existed at
//                   injection collected the barrier, with all their writes,
//                   and joins the actors the barrier stopped;
//   OnCommitted     (epoch loop) after the writes are durable: wakes actors
//                   waiting for the commit and completes jobs whose backfill
//                   finished in that epoch.
//
// Jobs: a job registers its backfill actors and the still-creating jobs it
// reads from; each backfill actor reports when all its vnodes are finished.
// A job is complete when all did, that epoch is committed, and every
// upstream job it registered is complete: so jobs complete in dependency
// order, whatever order their own backfills finish in.
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/system_tables.h"
#include "stream/actor.h"

namespace freshet {

class StreamRuntime {
 public:
  StreamRuntime(StateStore* store, uint32_t database_id) : store_(store), database_id_(database_id) {}
  ~StreamRuntime();

  StateStore* store() const { return store_; }
  uint32_t database_id() const { return database_id_; }

  // DML: whether a table has downstream jobs, and pushing its changes.
  // Called with the epoch guard held, so a change never straddles a barrier.
  bool HasSubscribers(TableId table_id) const;
  void PushTableChanges(TableId table_id, const StreamChunk& chunk);

  // Epoch loop.
  void InjectBarrier(const Barrier& barrier, std::vector<std::unique_ptr<Actor>> new_actors);
  std::vector<WriteLog> WaitCollected(Epoch prev_epoch);
  void OnCommitted(Epoch epoch);
  size_t num_actors() const;

  // Actors.
  void Collect(ActorId actor, const Barrier& barrier, WriteLog&& writes);
  // Blocks until `epoch` is committed; false when the runtime shuts down or
  // the graph the caller's actor was built for (`generation`) was reset.
  bool WaitCommitted(Epoch epoch, uint64_t generation);
  // Counts ResetGraph calls: actors built now belong to this generation.
  uint64_t generation() const;
  Epoch committed_epoch() const;

  // Jobs.
  // `on_complete` runs (outside the runtime's lock) when the job completes,
  // before WaitJob returns.
  void RegisterJob(uint32_t job_id, std::set<ActorId> backfill_actors, std::set<uint32_t> upstream_jobs,
                   std::function<void()> on_complete);
  // Whether every backfill actor of the job reported (its own backfill is
  // done, though it may still wait for upstream jobs).
  bool JobBackfillDone(uint32_t job_id) const;
  void ReportBackfillFinished(uint32_t job_id, ActorId actor, Epoch epoch);
  // Blocks until the job is complete (true), cancelled via *cancel or the
  // runtime stops (false).
  bool WaitJob(uint32_t job_id, const std::atomic<bool>* cancel);
  bool JobComplete(uint32_t job_id) const;
  bool JobRegistered(uint32_t job_id) const;
  void ForgetJob(uint32_t job_id);
  // Called once the barrier that started the job is committed: from then on
  // the job can complete (at once, if its backfill already finished).
  void ArmJob(uint32_t job_id);
  std::set<ActorId> JobActors(uint32_t job_id) const;
  // Backfill rate limit of a job: rows per second per backfill actor
  // (0 pauses); nullopt = none. Backfill actors read it at each barrier.
  void SetBackfillRateLimit(uint32_t job_id, std::optional<int64_t> rows_per_second);
  std::optional<int64_t> BackfillRateLimit(uint32_t job_id) const;

  // The actors whose output is a relation's change stream (an MV's
  // materialize actors), with the vnodes each owns; a table's change
  // stream is kTableStreamActor | table id.
  struct OutputActor {
    ActorId actor;
    std::pair<int, int> vnodes;
  };
  void SetRelationOutputs(TableId relation, std::vector<OutputActor> actors);
  std::vector<OutputActor> RelationOutputs(TableId relation) const;
  void ForgetRelation(TableId relation);

  ActorId NextActorId() { return next_actor_id_.fetch_add(1); }
  uint32_t NextFragmentId() { return next_fragment_id_.fetch_add(1); }
  // The fragments of running jobs; a job's are forgotten with the job.
  void RegisterFragments(uint32_t job_id, std::vector<FragmentInfo> fragments);
  std::vector<FragmentInfo> Fragments() const;

  // Asks for a barrier now rather than at the next interval (a backfill
  // that just finished, so its job completes without waiting).
  void RequestBarrier() {
    if (request_barrier_) request_barrier_();
  }
  void set_request_barrier(std::function<void()> fn) { request_barrier_ = std::move(fn); }

  // Failures. An actor whose operator threw reports it here and stops;
  // WaitCollected then returns at once (without that epoch's writes) and
  // the epoch loop recovers: ResetGraph stops every actor and forgets the
  // graph, and the jobs are built again from their committed state.
  struct Failure {
    ActorId actor = 0;
    uint32_t job_id = 0;
    std::string message;
    std::string code = "XX000";  // the error's SQLSTATE
  };
  void ReportFailure(ActorId actor, uint32_t job_id, std::string message, std::string code);
  std::optional<Failure> failure() const;
  // Stops and joins every actor, forgets table streams, pending barrier
  // collections, fragments and relation outputs, and clears the failure.
  // Registered jobs stay registered (waiters keep waiting) until they are
  // registered again by their rebuilt actors or forgotten.
  void ResetGraph();

  void Shutdown();
  bool stopped() const;

 private:
  struct Collection {
    std::set<ActorId> expected;
    std::set<ActorId> arrived;
    std::vector<WriteLog> writes;
    std::set<ActorId> stopping;
  };
  struct Job {
    std::set<ActorId> pending;             // backfill actors not finished
    std::set<uint32_t> upstream;           // creating jobs it waits for
    Epoch finished_epoch = 0;              // the epoch of the last report
    bool complete = false;
    bool completing = false;
    bool armed = false;
    std::function<void()> on_complete;
  };

  // Runs the completion of every armed job whose backfill finished in a
  // committed epoch.
  void CompleteReadyJobs();

  StateStore* store_;
  uint32_t database_id_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool shutdown_ = false;
  std::map<ActorId, std::unique_ptr<Actor>> actors_;
  std::map<TableId, std::vector<std::shared_ptr<Dispatcher>>> table_streams_;
  std::map<Epoch, Collection> collections_;
  Epoch committed_epoch_ = 0;
  std::map<uint32_t, Job> jobs_;
  std::map<uint32_t, int64_t> rate_limits_;
  std::map<TableId, std::vector<OutputActor>> relation_outputs_;
  std::atomic<ActorId> next_actor_id_{1};
  std::atomic<uint32_t> next_fragment_id_{1};
  std::map<uint32_t, std::vector<FragmentInfo>> fragments_;  // by job
  std::function<void()> request_barrier_;
  std::optional<Failure> failure_;
  uint64_t resets_ = 0;  // ResetGraph calls
};

}  // namespace freshet
