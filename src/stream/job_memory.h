// JobMemory: the memory of one stream job, held to the job's limit
// (streaming_memory_limit, fixed when the job is created; by default half
// of the machine's memory).
//
// Three things are counted, because they grow in different ways:
//   - operator state in memory: every state cache of the job (hash
//     aggregation groups, join keys, group top-N) publishes its estimated
//     size at each barrier (StateCacheShare). While the job is over its
//     limit the caches shrink to their share of it, dropping committed
//     keys; state that cannot be dropped (written in epochs not yet
//     committed, or one key larger than the limit) keeps the job over it;
//   - what one message costs: the allocations of an actor's thread while it
//     handles one chunk or barrier, net of what it frees (ThreadMemory),
//     checked before each output chunk leaves the actor and after the
//     message: a join fanning out or a HOP window explosion is stopped
//     while it happens (when it happens on one thread);
//   - one epoch's writes of an actor (its state tables' and its view's
//     rows), held in memory until the epoch commits, checked at each
//     barrier: what a fan-out spread over many threads and messages still
//     piles up in one place.
// A cache still over its share of the limit after two barriers in a row,
// or one message past the limit, fails the job with 53200: the database recovers, and after repeated failures
// the job is marked Failed (meta/stream_jobs.h), droppable, the rest of the
// instance up.
//
// Thread safety: the job's actors share one; all methods are thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace freshet {

class JobMemory {
 public:
  JobMemory(uint32_t job_id, int64_t limit) : job_id_(job_id), limit_(limit) {}
  uint32_t job_id() const { return job_id_; }
  int64_t limit() const { return limit_; }

  // A state cache's size changed by `delta` bytes.
  void AddState(int64_t delta) { state_.fetch_add(delta, std::memory_order_relaxed); }
  int64_t state_bytes() const { return state_.load(std::memory_order_relaxed); }
  // What a cache of `bytes` shrinks to for the job to fit (SIZE_MAX: it fits).
  size_t StateTarget(size_t bytes) const;

  // Throws 53200: a cache of the job could not shrink to its share of the
  // limit at two barriers in a row (StateCacheShare::Settle).
  [[noreturn]] void StateExceeded() const;
  // Throws 53200 when one message grew the thread's memory past the limit.
  void CheckMessage(int64_t grown) const;
  // Throws 53200 when one epoch's writes of one actor pass the limit.
  void CheckEpochWrites(int64_t bytes) const;

 private:
  [[noreturn]] void Exceeded(const std::string& detail) const;
  const uint32_t job_id_;
  const int64_t limit_;
  std::atomic<int64_t> state_{0};
};

}  // namespace freshet
