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
// StateCacheBytes() is the budget of one operator instance (one actor's
// group top-N, say), set with ALTER SYSTEM SET streaming_state_cache_bytes
// (default 64 MiB; 0 keeps nothing past its commit, which tests use to make
// every key go through the store).
//
// LruOrder keeps the keys of a cache in the order they were last written,
// oldest first; the operator records the epoch of each key's last write
// next to its state and, at a barrier, drops the oldest keys while it is
// over budget and their last write is committed.
#pragma once

#include <cstddef>
#include <list>

namespace freshet {

size_t StateCacheBytes();
void SetStateCacheBytes(size_t bytes);
constexpr size_t kDefaultStateCacheBytes = size_t(64) << 20;

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

}  // namespace freshet
