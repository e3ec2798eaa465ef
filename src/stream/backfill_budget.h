// BackfillBudget: the rows a backfilling head (a backfill, a
// cross-database scan) may read under the job's backfill rate limit
// (SET backfill_rate_limit, ALTER ... SET BACKFILL_RATE_LIMIT): refilled at
// each barrier by the limit times the time since the last refill, at most
// one second's worth banked so that a lifted pause does not burst; a limit
// of 0 pauses; no limit, no budget.
//
// Not thread-safe: used by its actor's thread only.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace freshet {

class BackfillBudget {
 public:
  // At a barrier, with the limit the job has now (rows per second per
  // actor; nullopt: none).
  void Refill(std::optional<int64_t> limit) {
    auto now = std::chrono::steady_clock::now();
    if (!limit) {
      budget_.reset();
    } else {
      double seconds = budget_ ? std::chrono::duration<double>(now - last_refill_).count() : 1.0;
      budget_ = std::min<int64_t>(budget_.value_or(0) + int64_t(double(*limit) * seconds), std::max<int64_t>(*limit, 1));
      if (*limit == 0) budget_ = 0;
    }
    last_refill_ = now;
  }
  // Whether a row may be read now.
  bool Allows() const { return !budget_ || *budget_ > 0; }
  // How many of `wanted` rows may be read now.
  size_t Cap(size_t wanted) const {
    return budget_ ? std::min<size_t>(wanted, size_t(std::max<int64_t>(*budget_, 0))) : wanted;
  }
  void Spend(size_t rows) {
    if (budget_) *budget_ -= int64_t(rows);
  }

 private:
  std::optional<int64_t> budget_;
  std::chrono::steady_clock::time_point last_refill_;
};

}  // namespace freshet
