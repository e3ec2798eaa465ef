#include "common/limits.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

void ThrowRequestedLengthTooLarge() {
  throw SqlError(sqlstate::kProgramLimitExceeded, "requested length too large");
}

void CheckValueSize(uint64_t bytes) {
  if (bytes <= kMaxValueBytes) return;
  throw SqlError(sqlstate::kProgramLimitExceeded,
                 fmt::format("invalid memory alloc request size {}", SaturatingAdd(bytes, kVarHeaderSize)));
}

void ThrowCannotEnlarge(uint64_t have, uint64_t more) {
  throw SqlError(sqlstate::kProgramLimitExceeded, "out of memory")
      .WithDetail(fmt::format("Cannot enlarge string buffer containing {} bytes by {} more bytes.", have, more));
}

void CheckArrayElements(uint64_t count) {
  if (count <= kMaxArrayElements) return;
  throw SqlError(sqlstate::kProgramLimitExceeded,
                 fmt::format("array size exceeds the maximum allowed ({})", kMaxArrayElements));
}

void CheckArrayBytes(uint64_t bytes) {
  if (bytes <= kMaxValueBytes) return;
  throw SqlError(sqlstate::kProgramLimitExceeded,
                 fmt::format("array size exceeds the maximum allowed ({})", kMaxAllocSize));
}

}  // namespace freshet
