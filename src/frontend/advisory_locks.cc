#include "frontend/advisory_locks.h"

#include <chrono>

#include "common/error.h"

namespace freshet {

bool AdvisoryLocks::Conflicts(const Holds& h, const void* holder, bool shared) const {
  // Another session's exclusive hold conflicts with both modes; another's
  // shared hold only with exclusive.
  for (const auto& [other, hold] : h.exclusive)
    if (other != holder && hold.count > 0) return true;
  if (shared) return false;
  for (const auto& [other, hold] : h.shared)
    if (other != holder && hold.count > 0) return true;
  return false;
}

bool AdvisoryLocks::Lock(const void* holder, int32_t pid, const AdvisoryKey& key, bool shared, bool wait,
                         const std::atomic<bool>* cancel, int64_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = timeout_ms > 0 ? Clock::now() + std::chrono::milliseconds(timeout_ms) : Clock::time_point::max();
  std::unique_lock lock(mu_);
  // Listed in pg_locks (granted = false) while it waits.
  struct Waiting {
    AdvisoryLocks* locks;
    const void* holder;
    bool listed = false;
    ~Waiting() {
      if (listed)
        std::erase_if(locks->waiters_, [&](const Waiter& w) { return w.holder == holder; });
    }
  } waiting{this, holder};
  while (true) {
    auto it = locks_.find(key);
    if (it == locks_.end() || !Conflicts(it->second, holder, shared)) break;
    if (!wait) return false;
    if (cancel && cancel->load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    if (Clock::now() >= deadline) throw SqlError(sqlstate::kLockNotAvailable, "canceling statement due to lock timeout");
    if (!waiting.listed) {
      const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
      waiters_.push_back({holder, AdvisoryLockInfo{key, pid, shared, /*granted=*/false, now}});
      waiting.listed = true;
    }
    // Woken by a release; the timeout also notices a cancel request.
    released_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(10)));
  }
  Holds& h = locks_[key];
  Hold& mine = (shared ? h.shared : h.exclusive)[holder];
  mine.count++;
  mine.pid = pid;
  return true;
}

bool AdvisoryLocks::Unlock(const void* holder, const AdvisoryKey& key, bool shared) {
  std::lock_guard lock(mu_);
  auto it = locks_.find(key);
  if (it == locks_.end()) return false;
  auto& holds = shared ? it->second.shared : it->second.exclusive;
  auto mine = holds.find(holder);
  if (mine == holds.end()) return false;
  if (--mine->second.count == 0) holds.erase(mine);
  if (it->second.exclusive.empty() && it->second.shared.empty()) locks_.erase(it);
  released_.notify_all();
  return true;
}

std::vector<AdvisoryLockInfo> AdvisoryLocks::List() const {
  std::lock_guard lock(mu_);
  std::vector<AdvisoryLockInfo> out;
  for (const auto& [key, h] : locks_) {
    for (const auto& [holder, hold] : h.exclusive) out.push_back({key, hold.pid, false, true, 0});
    for (const auto& [holder, hold] : h.shared) out.push_back({key, hold.pid, true, true, 0});
  }
  for (const Waiter& w : waiters_) out.push_back(w.info);
  return out;
}

}  // namespace freshet
