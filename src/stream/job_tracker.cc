#include "stream/job_tracker.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace freshet {

void JobTracker::Register(uint32_t job_id, std::map<ActorId, int> backfill_actors, std::set<uint32_t> upstream_jobs,
                          std::function<void()> on_complete) {
  std::lock_guard lock(mu_);
  Job& j = jobs_[job_id];
  j.pending = std::move(backfill_actors);
  j.upstream = std::move(upstream_jobs);
  j.complete = j.completing = false;
  j.finished_epoch = 0;
  j.on_complete = std::move(on_complete);
}

void JobTracker::Forget(uint32_t job_id) {
  std::lock_guard lock(mu_);
  jobs_.erase(job_id);
  rate_limits_.erase(job_id);
  cv_.notify_all();
}

bool JobTracker::Registered(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  return jobs_.count(job_id) > 0;
}

bool JobTracker::BackfillDone(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && it->second.pending.empty();
}

bool JobTracker::Complete(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && it->second.complete;
}

void JobTracker::ReportBackfillFinished(uint32_t job_id, ActorId actor, Epoch epoch) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  if (it->second.pending.erase(actor)) it->second.finished_epoch = std::max(it->second.finished_epoch, epoch);
}

bool JobTracker::BackfillLevelReady(uint32_t job_id, int level) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return true;
  for (const auto& [actor, actor_level] : it->second.pending)
    if (actor_level < level) return false;
  return true;
}

void JobTracker::Arm(uint32_t job_id) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end()) it->second.armed = true;
}

void JobTracker::CompleteReady(Epoch committed) {
  // Completing a job can make the jobs that wait for it ready: repeat.
  while (true) {
    std::vector<std::pair<uint32_t, std::function<void()>>> completing;
    {
      std::lock_guard lock(mu_);
      for (auto& [id, job] : jobs_) {
        if (!job.armed || job.complete || job.completing || !job.pending.empty() || job.finished_epoch > committed)
          continue;
        bool upstream_done = true;
        for (uint32_t up : job.upstream) {
          auto it = jobs_.find(up);
          if (it != jobs_.end() && !it->second.complete) upstream_done = false;
        }
        if (!upstream_done) continue;
        job.completing = true;
        completing.emplace_back(id, job.on_complete);
      }
      cv_.notify_all();
    }
    if (completing.empty()) return;
    for (auto& [id, fn] : completing)
      if (fn) fn();
    std::lock_guard lock(mu_);
    for (auto& [id, fn] : completing) {
      auto it = jobs_.find(id);
      if (it != jobs_.end()) it->second.complete = true;
    }
    cv_.notify_all();
  }
}

bool JobTracker::Wait(uint32_t job_id, const std::atomic<bool>* cancel) {
  std::unique_lock lock(mu_);
  while (true) {
    if (shutdown_) return false;
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return false;
    if (it->second.complete) return true;
    if (cancel && cancel->load()) return false;
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
}

void JobTracker::SetBackfillRateLimit(uint32_t job_id, std::optional<int64_t> rows_per_second) {
  std::lock_guard lock(mu_);
  if (rows_per_second) rate_limits_[job_id] = *rows_per_second;
  else rate_limits_.erase(job_id);
}

std::optional<int64_t> JobTracker::BackfillRateLimit(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  auto it = rate_limits_.find(job_id);
  if (it == rate_limits_.end()) return std::nullopt;
  return it->second;
}

void JobTracker::Shutdown() {
  std::lock_guard lock(mu_);
  shutdown_ = true;
  cv_.notify_all();
}

}  // namespace freshet
