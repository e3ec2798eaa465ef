#include "stream/job_memory.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

size_t JobMemory::StateTarget(size_t bytes) const {
  int64_t total = state_bytes();
  if (limit_ <= 0 || total <= limit_ || total <= 0) return SIZE_MAX;
  return static_cast<size_t>(static_cast<double>(bytes) * (static_cast<double>(limit_) / static_cast<double>(total)));
}

void JobMemory::StateExceeded() const {
  throw SqlError(sqlstate::kOutOfMemory, fmt::format("stream job {} exceeds its memory limit", job_id_))
      .WithDetail(fmt::format("Its operators hold {} MB of state that cannot be evicted; the limit is {} MB "
                              "(streaming_memory_limit when it was created).",
                              state_bytes() >> 20, limit_ >> 20));
}

void JobMemory::CheckMessage(int64_t grown) const {
  if (limit_ <= 0 || grown <= limit_) return;
  throw SqlError(sqlstate::kOutOfMemory, fmt::format("stream job {} exceeds its memory limit", job_id_))
      .WithDetail(fmt::format("One message took more than {} MB (streaming_memory_limit when it was created).",
                              limit_ >> 20));
}

void JobMemory::CheckEpochWrites(int64_t bytes) const {
  if (limit_ <= 0 || bytes <= limit_) return;
  throw SqlError(sqlstate::kOutOfMemory, fmt::format("stream job {} exceeds its memory limit", job_id_))
      .WithDetail(fmt::format("One epoch's writes of one actor, held until they are committed, take {} MB; the "
                              "limit is {} MB (streaming_memory_limit when it was created).",
                              bytes >> 20, limit_ >> 20));
}

}  // namespace freshet
