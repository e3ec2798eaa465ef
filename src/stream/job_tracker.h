// JobTracker: when the stream jobs being created complete, and their
// backfill rate limits.
//
// A job registers its backfill actors and the still-creating jobs it reads
// from; each backfill actor reports when all its vnodes are finished. A
// job is complete when all did, the epoch of the last report is committed,
// it is armed (the barrier that started it is committed) and every
// upstream job it registered is complete: so jobs complete in dependency
// order, whatever order their own backfills finish in. A job's completion
// callback runs outside the tracker's lock, before WaitJob returns.
//
// Each backfill actor has a level (StreamTableScanNode::backfill_level):
// one of level L starts reading once every actor of a lower level of its
// job has finished (BackfillLevelReady).
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "stream/message.h"

namespace freshet {

class JobTracker {
 public:
  void Register(uint32_t job_id, std::map<ActorId, int> backfill_actors, std::set<uint32_t> upstream_jobs,
                std::function<void()> on_complete);
  void Forget(uint32_t job_id);
  bool Registered(uint32_t job_id) const;
  // Whether every backfill actor of the job reported (its own backfill is
  // done, though it may still wait for upstream jobs).
  bool BackfillDone(uint32_t job_id) const;
  bool Complete(uint32_t job_id) const;
  void ReportBackfillFinished(uint32_t job_id, ActorId actor, Epoch epoch);
  // Whether every backfill actor of the job below `level` has finished.
  bool BackfillLevelReady(uint32_t job_id, int level) const;
  // From now on the job may complete.
  void Arm(uint32_t job_id);
  // Completes every armed job whose backfill finished by `committed`
  // (and then the jobs that waited for those).
  void CompleteReady(Epoch committed);
  // Blocks until the job is complete (true), cancelled via *cancel, gone,
  // or the tracker shuts down (false).
  bool Wait(uint32_t job_id, const std::atomic<bool>* cancel);

  // Rows per second per backfill actor (0 pauses); nullopt = no limit.
  void SetBackfillRateLimit(uint32_t job_id, std::optional<int64_t> rows_per_second);
  std::optional<int64_t> BackfillRateLimit(uint32_t job_id) const;

  void Shutdown();

 private:
  struct Job {
    std::map<ActorId, int> pending;  // backfill actors not finished, with their levels
    std::set<uint32_t> upstream;  // creating jobs it waits for
    Epoch finished_epoch = 0;     // the epoch of the last report
    bool complete = false;
    bool completing = false;
    bool armed = false;
    std::function<void()> on_complete;
  };

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool shutdown_ = false;
  std::map<uint32_t, Job> jobs_;
  std::map<uint32_t, int64_t> rate_limits_;
};

}  // namespace freshet
