// ColumnBlock: a block of a time-series file (issue 21, item 4) — up to a
// few thousand rows of one region and time window, sorted by series and
// time, stored column by column so that a scan reads only the columns it
// projects and skips blocks by their statistics.
//
// Layout (little-endian integers; version 1):
//
//   u32 magic "FTB1"   u32 row count   u16 column count
//   per column:
//     u8  kind (0 timestamp, 1 integer, 2 float, 3 string)
//     u8  compression (0 none, 1 lz4, 2 zstd) of the payload in the low
//         four bits; the encoding in the high four (0 the kind's own;
//         for floats 1: the integral encoding, column_encoding.h,
//         stored uncompressed: the bit-packing is the compression)
//     u32 null count; when > 0, ceil(rows / 8) bytes of validity bitmap
//         (bit i of byte i / 8, least significant first: 1 = row i has a value)
//     u8  has statistics (0 when every row is NULL), then min and max:
//         8 bytes each for timestamps, integers (int64) and floats (IEEE
//         754 double, NaN ignored unless every value is NaN), or a u32
//         length and the bytes for strings
//     u32 encoded length (before compression)
//     u32 stored length, then the stored payload: the non-NULL values,
//         encoded as column_encoding.h says, compressed as named
//   u64 XXH3-64 of every byte before it
//
// A block that fails its checksum, or whose lengths or encodings do not
// add up, is refused with XX001 (data_corrupted) naming what is wrong:
// never a crash or a wrong row.
//
// Thread safety: the functions are reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace freshet {

// One column of a block in memory.
struct BlockColumn {
  enum class Kind : uint8_t { kTimestamp = 0, kInteger = 1, kFloat = 2, kString = 3 };
  Kind kind = Kind::kInteger;
  std::vector<bool> valid;  // per row; empty: every row has a value
  // The non-NULL values, in row order, in the member of the kind.
  std::vector<int64_t> ints;  // kTimestamp, kInteger
  std::vector<double> floats;
  std::vector<std::string> strings;

  size_t num_values() const;
};

enum class BlockCompression : uint8_t { kNone = 0, kLz4 = 1, kZstd = 2 };

// A column's minimum and maximum value (as its kind holds them).
struct BlockColumnStats {
  bool has = false;  // false: every row NULL
  int64_t min_int = 0, max_int = 0;
  double min_float = 0, max_float = 0;
  std::string min_string, max_string;
};

// Appends the block of `rows` rows to `out`. Each column's payload is
// compressed with `compression` unless that does not make it smaller.
void WriteColumnBlock(size_t rows, const std::vector<BlockColumn>& columns, BlockCompression compression,
                      std::string* out);

// A block read back: its row count and columns' statistics from the
// header; the columns asked for decoded.
struct ColumnBlockView {
  size_t rows = 0;
  std::vector<BlockColumn::Kind> kinds;
  std::vector<BlockColumnStats> stats;
  std::vector<std::optional<BlockColumn>> columns;  // decoded: only those projected
  bool skipped = false;  // the filter refused the block: nothing decoded
};
// Looks at a block's row count and statistics (the view has no columns
// yet): false skips decoding it.
using BlockFilter = std::function<bool(const ColumnBlockView&)>;
// Checks the block's checksum and layout and decodes the columns in
// `projection` (column indexes; nullopt: all), unless `keep` (when set)
// refuses the block by its statistics. Throws XX001 when the block is
// corrupt.
ColumnBlockView ReadColumnBlock(std::string_view block, const std::optional<std::vector<size_t>>& projection,
                                const BlockFilter& keep = nullptr);

}  // namespace freshet
