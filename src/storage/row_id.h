// Row ids for tables without a declared primary key (the hidden _row_id).
//
// Like RisingWave's: 41 bits of milliseconds since 2020-01-01, 10 bits of
// generator id, 12 bits of sequence. Ids from one generator increase
// strictly; when the sequence runs out within a millisecond the generator
// borrows the next millisecond, so it never repeats an id even under bursts.
// After a restart the clock has moved on, so ids stay unique.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace freshet {

// A run of ids taken at once and written out later, where they are used
// (a bulk load takes a block's ids on one thread and fills them in on
// another).
struct RowIdRun {
  uint64_t first = 0;  // (ms << 12) | sequence of the first id
  size_t count = 0;
  uint32_t generator_id = 0;
  // Writes ids [offset, offset + n) of the run.
  void Fill(size_t offset, size_t n, int64_t* out) const;
};

class RowIdGenerator {
 public:
  explicit RowIdGenerator(uint32_t generator_id = 0) : generator_id_(generator_id & 0x3ff) {}
  int64_t Next();
  // n consecutive ids at once (one clock read and one atomic update).
  void NextN(size_t n, int64_t* out);
  RowIdRun Reserve(size_t n);

 private:
  uint32_t generator_id_;
  std::atomic<uint64_t> last_{0};  // (ms << 12) | sequence
};

}  // namespace freshet
