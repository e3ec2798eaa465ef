// BarrierInjector: where barriers enter and leave one database's stream
// graph (its actors are in an ActorRegistry).
//
//   Inject          (epoch loop, holding the exclusive epoch lock, so no
//                   DML runs) starts the actors the barrier adds, applies
//                   its mutation to the table change streams and sends the
//                   barrier to them and to every source actor;
//   Collect         (actors) hands over an actor's state writes of the epoch;
//   WaitCollected   (epoch loop) returns once every actor that existed at
//                   injection collected the barrier, with all their writes,
//                   and joins the actors the barrier stopped;
//   OnCommitted     (epoch loop) after the writes are durable: wakes actors
//                   waiting for the commit.
//
// Failures: an actor whose operator threw reports it and stops;
// WaitCollected then returns at once (without that epoch's writes) and the
// epoch loop recovers: Reset stops every actor and forgets the graph, and
// the jobs are built again from their committed state. Each Reset starts a
// new generation; an actor waiting for a commit (WaitCommitted) for an
// older generation is released.
//
// Thread safety: all methods are safe to call concurrently. Its lock is
// taken before the registry's, never after.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stream/actor_registry.h"

namespace freshet {

class BarrierInjector {
 public:
  explicit BarrierInjector(ActorRegistry* actors) : actors_(actors) {}

  void Inject(const Barrier& barrier, std::vector<std::unique_ptr<Actor>> new_actors);
  void Collect(ActorId actor, const Barrier& barrier, WriteLog&& writes);
  std::vector<WriteLog> WaitCollected(Epoch prev_epoch);
  void OnCommitted(Epoch epoch);
  Epoch committed_epoch() const;
  // Blocks until `epoch` is committed; false when shutting down or the
  // graph of `generation` was reset.
  bool WaitCommitted(Epoch epoch, uint64_t generation);
  uint64_t generation() const;

  struct Failure {
    ActorId actor = 0;
    uint32_t job_id = 0;
    std::string message;
    std::string code = "XX000";  // the error's SQLSTATE
  };
  void ReportFailure(Failure failure);
  std::optional<Failure> failure() const;

  // Stops and joins every actor, forgets the registry's graph and the
  // pending collections, and clears the failure.
  void Reset();
  void Shutdown();
  bool stopped() const;

 private:
  struct Collection {
    std::set<ActorId> expected;
    std::set<ActorId> arrived;
    std::vector<WriteLog> writes;
    std::set<ActorId> stopping;
  };
  // Stops (closing every inbox first: that wakes actors blocked pushing
  // into another's) and joins actors.
  static void StopAll(std::vector<std::unique_ptr<Actor>> actors);

  ActorRegistry* actors_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool shutdown_ = false;
  std::map<Epoch, Collection> collections_;
  Epoch committed_epoch_ = 0;
  std::optional<Failure> failure_;
  uint64_t resets_ = 0;
};

}  // namespace freshet
