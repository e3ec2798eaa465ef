// Little-endian fixed-width integers of the time-series file formats
// (column_block.h, column_file.h); the row store's keys are big-endian
// (common/encoding.h) because they must sort, these need not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace freshet {

// Appends the low `bytes` bytes of v, least significant first.
inline void PutLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// The `bytes`-byte integer at in[pos]; the caller checked the bytes are there.
inline uint64_t GetLittleEndian(std::string_view in, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[pos + i])) << (8 * i);
  return v;
}

}  // namespace freshet
