#include "stream/state_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace freshet {

namespace {
std::atomic<size_t> budget{DefaultStateCacheBytes()};
std::atomic<size_t> total{0};  // published sizes of all caches
}  // namespace

size_t DefaultStateCacheBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return size_t(1) << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page) / 4;
}

size_t StateCacheBytes() { return budget.load(std::memory_order_relaxed); }
void SetStateCacheBytes(size_t bytes) { budget.store(bytes, std::memory_order_relaxed); }
size_t StateCacheTotalBytes() { return total.load(std::memory_order_relaxed); }

StateCacheShare::~StateCacheShare() { Record(0); }

size_t StateCacheShare::Record(size_t bytes) {
  size_t now = total.fetch_add(bytes - published_, std::memory_order_relaxed) + bytes - published_;
  if (job_) job_->AddState(static_cast<int64_t>(bytes) - static_cast<int64_t>(published_));
  published_ = bytes;
  return now;
}

size_t StateCacheShare::Publish(size_t bytes) {
  const size_t now = Record(bytes);
  const size_t job_target = job_ ? job_->StateTarget(bytes) : SIZE_MAX;
  job_target_ = job_target;
  const size_t limit = StateCacheBytes();
  if (now <= limit) return job_target;
  // Proportional shares: every cache over the budget shrinks by the same
  // factor, so one large job does not empty the small ones.
  return std::min(job_target, static_cast<size_t>(static_cast<double>(bytes) *
                                                  (static_cast<double>(limit) / static_cast<double>(now))));
}

void StateCacheShare::Settle(size_t bytes) {
  Record(bytes);
  if (!job_) return;
  over_barriers_ = bytes > job_target_ ? over_barriers_ + 1 : 0;
  if (over_barriers_ >= 2) job_->StateExceeded();
}

}  // namespace freshet
