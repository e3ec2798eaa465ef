#include "frontend/statement_timer.h"

namespace freshet {

StatementTimer::StatementTimer() : thread_([this] { Run(); }) {}

StatementTimer::~StatementTimer() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t StatementTimer::Arm(Clock::time_point deadline, std::atomic<bool>* cancel, std::atomic<bool>* fired) {
  std::lock_guard lock(mu_);
  uint64_t id = next_id_++;
  bool earliest = armed_.empty() || deadline < armed_.begin()->first;
  armed_.emplace(deadline, Armed{id, cancel, fired});
  if (earliest) cv_.notify_all();
  return id;
}

void StatementTimer::Disarm(uint64_t id) {
  std::lock_guard lock(mu_);
  for (auto it = armed_.begin(); it != armed_.end(); ++it)
    if (it->second.id == id) {
      armed_.erase(it);
      return;
    }
}

void StatementTimer::Run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (armed_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = armed_.begin();
    if (Clock::now() < first->first) {
      cv_.wait_until(lock, first->first);
      continue;
    }
    // Under the lock: Disarm waits for it, so the flags are still alive.
    first->second.fired->store(true);
    first->second.cancel->store(true);
    armed_.erase(first);
  }
}

StatementTimeout::StatementTimeout(StatementTimer* timer, int64_t timeout_ms, std::atomic<bool>* cancel) {
  if (!timer || timeout_ms <= 0) return;
  timer_ = timer;
  id_ = timer->Arm(StatementTimer::Clock::now() + std::chrono::milliseconds(timeout_ms), cancel, &fired_);
}

StatementTimeout::~StatementTimeout() {
  if (timer_) timer_->Disarm(id_);
}

}  // namespace freshet
