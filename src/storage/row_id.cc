#include "storage/row_id.h"

#include <chrono>

namespace freshet {

namespace {
constexpr int64_t kEpochMillis = 1577836800000;  // 2020-01-01T00:00:00Z
}

int64_t RowIdGenerator::Next() {
  int64_t id;
  NextN(1, &id);
  return id;
}

void RowIdGenerator::NextN(size_t n, int64_t* out) { Reserve(n).Fill(0, n, out); }

void RowIdRun::Fill(size_t offset, size_t n, int64_t* out) const {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = first + offset + i, ms = v >> 12, seq = v & 0xfff;
    out[i] = static_cast<int64_t>((ms << 22) | (uint64_t(generator_id) << 12) | seq);
  }
}

RowIdRun RowIdGenerator::Reserve(size_t n) {
  RowIdRun run;
  run.count = n;
  run.generator_id = generator_id_;
  if (n == 0) return run;
  uint64_t now_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count() - kEpochMillis);
  // last_ counts (ms << 12 | sequence): taking n values at once carries
  // into the next milliseconds when the sequence runs out, as Next does.
  uint64_t prev = last_.load(std::memory_order_relaxed);
  uint64_t first;
  do {
    first = std::max(prev + 1, now_ms << 12);
  } while (!last_.compare_exchange_weak(prev, first + n - 1, std::memory_order_relaxed));
  run.first = first;
  return run;
}

}  // namespace freshet
