// AdvisoryLocks: PostgreSQL's advisory locks (pg_advisory_lock & co.),
// which migration tools (Rails, Flyway, Liquibase...) take so that two of
// them never migrate one database at once.
//
// A lock is named by a key (one bigint, or two integers: PostgreSQL keeps
// the forms apart) within a database, and held by sessions in one of two
// modes: shared (any number of sessions) or exclusive (one session, no
// shared holders besides itself). Holding is counted per session and mode:
// a session that locked twice must unlock twice. Locks taken for the
// session last until unlocked or the session ends; locks taken for the
// transaction are released together when it ends and cannot be unlocked
// one by one (Session keeps that distinction; here both are holds).
//
// Thread safety: all methods may be called concurrently; a waiting Lock
// ends on the holder's release, the cancel flag (57014) or the timeout
// (55P03, lock_timeout).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace freshet {

struct AdvisoryKey {
  uint32_t database_id = 0;
  int64_t value = 0;  // the bigint, or the two integers as (first << 32) | second
  bool two_keys = false;
  bool operator<(const AdvisoryKey& o) const {
    return std::tie(database_id, value, two_keys) < std::tie(o.database_id, o.value, o.two_keys);
  }
  bool operator==(const AdvisoryKey& o) const {
    return database_id == o.database_id && value == o.value && two_keys == o.two_keys;
  }
};

// A hold or a wait, as pg_locks lists it.
struct AdvisoryLockInfo {
  AdvisoryKey key;
  int32_t pid = 0;  // the session's
  bool shared = false;
  bool granted = true;
  int64_t wait_start_micros = 0;  // since the epoch; waits only
};

class AdvisoryLocks {
 public:
  // Takes the lock for `holder` (the session `pid`) in the mode asked.
  // Without `wait`, returns false at once when another session's hold
  // conflicts; with it, waits.
  bool Lock(const void* holder, int32_t pid, const AdvisoryKey& key, bool shared, bool wait,
            const std::atomic<bool>* cancel, int64_t timeout_ms);
  // Gives back one hold of the mode; false when the holder has none.
  bool Unlock(const void* holder, const AdvisoryKey& key, bool shared);
  // Every hold (one per session and mode) and every wait.
  std::vector<AdvisoryLockInfo> List() const;

 private:
  struct Hold {
    int64_t count = 0;
    int32_t pid = 0;
  };
  struct Holds {
    std::map<const void*, Hold> exclusive, shared;  // per session
  };
  struct Waiter {
    const void* holder;
    AdvisoryLockInfo info;
  };
  bool Conflicts(const Holds& h, const void* holder, bool shared) const;

  mutable std::mutex mu_;
  std::condition_variable released_;
  std::map<AdvisoryKey, Holds> locks_;
  std::vector<Waiter> waiters_;
};

}  // namespace freshet
