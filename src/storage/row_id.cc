#include "storage/row_id.h"

#include <chrono>

namespace freshet {

namespace {
constexpr int64_t kEpochMillis = 1577836800000;  // 2020-01-01T00:00:00Z
}

int64_t RowIdGenerator::Next() {
  uint64_t now_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count() - kEpochMillis);
  uint64_t prev = last_.load(std::memory_order_relaxed);
  uint64_t next;
  do {
    next = std::max(prev + 1, now_ms << 12);
  } while (!last_.compare_exchange_weak(prev, next, std::memory_order_relaxed));
  uint64_t ms = next >> 12, seq = next & 0xfff;
  return static_cast<int64_t>((ms << 22) | (uint64_t(generator_id_) << 12) | seq);
}

}  // namespace freshet
