#include "stream/job_memory.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

size_t JobMemory::StateTarget(size_t bytes) const {
  int64_t total = state_bytes();
  if (limit_ <= 0 || total <= limit_ || total <= 0) return SIZE_MAX;
  return static_cast<size_t>(static_cast<double>(bytes) * (static_cast<double>(limit_) / static_cast<double>(total)));
}

void JobMemory::Exceeded(const std::string& detail) const {
  throw SqlError(sqlstate::kOutOfMemory, fmt::format("stream job {} exceeds its memory limit", job_id_))
      .WithDetail(detail + " (streaming_memory_limit when it was created).");
}

void JobMemory::StateExceeded() const {
  Exceeded(fmt::format("Its operators hold {} MB of state that cannot be evicted; the limit is {} MB",
                       state_bytes() >> 20, limit_ >> 20));
}

void JobMemory::CheckMessage(int64_t grown) const {
  if (limit_ <= 0 || grown <= limit_) return;
  Exceeded(fmt::format("One message took more than {} MB", limit_ >> 20));
}

void JobMemory::CheckEpochWrites(int64_t bytes) const {
  if (limit_ <= 0 || bytes <= limit_) return;
  Exceeded(fmt::format("One epoch's writes of one actor, held until they are committed, take {} MB; the limit is {} MB",
                       bytes >> 20, limit_ >> 20));
}

}  // namespace freshet
