// StatementTimer: ends statements that run past their statement_timeout.
// One thread for the instance keeps the armed deadlines; when one passes,
// it sets the statement's session cancel flag (what a CancelRequest sets:
// executors, COPY and job creation check it between chunks) and marks the
// timer fired, so that the session reports PostgreSQL's "canceling
// statement due to statement timeout" rather than a user's cancel.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace freshet {

class StatementTimer {
 public:
  using Clock = std::chrono::steady_clock;
  StatementTimer();
  ~StatementTimer();
  StatementTimer(const StatementTimer&) = delete;
  StatementTimer& operator=(const StatementTimer&) = delete;

  // At `deadline`, unless disarmed before: *fired = true, then *cancel = true.
  // Both must outlive the arming (Disarm, or the deadline).
  uint64_t Arm(Clock::time_point deadline, std::atomic<bool>* cancel, std::atomic<bool>* fired);
  // After it returns, the timer no longer touches the flags of `id`.
  void Disarm(uint64_t id);

 private:
  struct Armed {
    uint64_t id;
    std::atomic<bool>* cancel;
    std::atomic<bool>* fired;
  };
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<Clock::time_point, Armed> armed_;
  uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

// Arms the timer for one statement and disarms it when it goes; nothing
// when the timeout is 0 (none).
class StatementTimeout {
 public:
  StatementTimeout(StatementTimer* timer, int64_t timeout_ms, std::atomic<bool>* cancel);
  ~StatementTimeout();
  StatementTimeout(const StatementTimeout&) = delete;
  StatementTimeout& operator=(const StatementTimeout&) = delete;
  bool fired() const { return fired_.load(); }

 private:
  StatementTimer* timer_ = nullptr;
  uint64_t id_ = 0;
  std::atomic<bool> fired_{false};
};

}  // namespace freshet
