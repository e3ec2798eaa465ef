// Bounded in-memory operator state.
//
// Stateful operators keep the state of the keys they touch in memory, as a
// write-through cache of their state tables (operator.h), and load a key's
// state from the committed store on a miss. Without a bound that cache is
// the whole state: Nexmark q18 at 10M events held 11-15 GB. A cache may
// drop a key only once everything written for it is committed, because
// state tables are drained with TakeWrites at each barrier and an epoch's
// writes are not readable from the store until it commits.
//
// The budget is one for the whole process: StateCacheBytes(), a quarter of
// the machine's memory unless set with ALTER SYSTEM SET
// streaming_state_cache_bytes (0 keeps nothing past its commit, which tests
// use to make every key go through the store). A per-operator budget was
// tried first: 64 MiB per actor bounded q18 but made q4, whose join state
// is a few GB, reload hot keys over and over (a timeout instead of 118 s).
// Each cache publishes its estimated size at every barrier (StateCacheShare);
// while the caches together are over the budget, each one shrinks to its
// proportional share, dropping its least recently written keys first
// (LruOrder) among those whose last write is committed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>

#include "stream/job_memory.h"

namespace freshet {

size_t StateCacheBytes();
void SetStateCacheBytes(size_t bytes);
// What all caches published last, together.
size_t StateCacheTotalBytes();
// The default: a quarter of physical memory.
size_t DefaultStateCacheBytes();

// One cache's part of the process-wide total.
class StateCacheShare {
 public:
  StateCacheShare() = default;
  ~StateCacheShare();
  StateCacheShare(const StateCacheShare&) = delete;
  StateCacheShare& operator=(const StateCacheShare&) = delete;
  // The job whose memory the cache counts toward (job_memory.h); null: none.
  void set_job(std::shared_ptr<JobMemory> job) { job_ = std::move(job); }
  // Records the cache's current size and returns what it should shrink to
  // (SIZE_MAX while the caches fit the budget and the job its limit).
  size_t Publish(size_t bytes);
  // Records the size after shrinking toward Publish's target. A cache
  // still over the job's share of its limit at two barriers in a row holds
  // state it cannot evict (job_memory.h): 53200.
  void Settle(size_t bytes);

 private:
  // Replaces the published size (in the process's total and the job's);
  // returns the process's new total.
  size_t Record(size_t bytes);
  size_t published_ = 0;
  std::shared_ptr<JobMemory> job_;
  size_t job_target_ = SIZE_MAX;  // the job's part of Publish's last target
  int over_barriers_ = 0;
};

// Keys (by pointer: the map that owns them must not move them, as
// std::unordered_map and std::map do not) in the order of their last use.
template <class Key>
class LruOrder {
 public:
  using Handle = typename std::list<const Key*>::iterator;
  Handle Add(const Key* key) { return order_.insert(order_.end(), key); }
  // Moves the key to the newest end.
  void Touch(Handle h) { order_.splice(order_.end(), order_, h); }
  void Remove(Handle h) { order_.erase(h); }
  bool empty() const { return order_.empty(); }
  const Key& oldest() const { return *order_.front(); }

 private:
  std::list<const Key*> order_;
};

// Shrinks a cache to its share of the budget: publishes its size `bytes`
// (which `drop` lowers), drops its least recently used keys while over the
// target, stopping at the first `keep` says must stay (written since the
// last commit: so were the newer ones), and settles.
template <class Key, class Keep, class Drop>
void ShrinkToShare(StateCacheShare& share, const LruOrder<Key>& lru, const size_t& bytes, Keep keep, Drop drop) {
  const size_t target = share.Publish(bytes);
  while (bytes > target && !lru.empty() && !keep(lru.oldest())) drop(lru.oldest());
  share.Settle(bytes);
}

}  // namespace freshet
