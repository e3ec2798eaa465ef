// ColumnFile: an immutable file of the time-series engine (issue 21, item
// 4) — the rows of one region and one time window at a flush or a
// compaction, sorted by series and time, as a sequence of ColumnBlocks
// (column_block.h) followed by an index of the blocks, so that a scan reads
// only the blocks whose time range and series range it needs.
//
// Layout (little-endian integers; version 1):
//
//   blocks      ColumnBlock after ColumnBlock, from offset 0
//   index       u32 block count; per block: u64 offset, u32 length,
//               u32 rows, i64 smallest and largest timestamp, then the
//               smallest and largest series key (each u32 length + bytes)
//   trailer     u64 index offset, u32 index length, u64 XXH3-64 of the
//               index, u32 version (1), the magic "FTF1" (28 bytes)
//
// A reader checks the trailer and the index when it opens the file and each
// block's own checksum when it reads it: a damaged file is XX001 naming what
// is wrong, never a crash or a wrong row.
//
// The writer builds the file in memory; the engine writes and syncs it (and
// names it in its epoch's commit marker). Thread safety: a reader is
// immutable once open.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/timeseries/column_block.h"

namespace freshet {

// What the index says of one block.
struct ColumnFileBlock {
  uint64_t offset = 0;
  uint32_t length = 0;
  uint32_t rows = 0;
  int64_t min_ts = 0, max_ts = 0;
  std::string min_series, max_series;
};

class ColumnFileWriter {
 public:
  // Appends a block of `rows` rows; `ts_column` is the index of the time
  // index column (its statistics give the block's time range) and `series`
  // the series key of each row (the smallest and the largest are kept).
  void AddBlock(size_t rows, const std::vector<BlockColumn>& columns, size_t ts_column,
                const std::vector<std::string>& series, BlockCompression compression);
  // The whole file: the blocks, the index and the trailer.
  std::string Finish();

 private:
  std::string bytes_;
  std::vector<ColumnFileBlock> blocks_;
};

class ColumnFileReader {
 public:
  // Checks the trailer and the index of `file` (which must outlive the
  // reader). Throws XX001 when they are damaged.
  explicit ColumnFileReader(std::string_view file);

  const std::vector<ColumnFileBlock>& blocks() const { return blocks_; }
  // The blocks that may hold rows with timestamps in [ts_begin, ts_end].
  std::vector<size_t> BlocksInTimeRange(int64_t ts_begin, int64_t ts_end) const;
  // Reads block `i` (its checksum checked), decoding the projected columns
  // unless `keep` refuses it (column_block.h).
  ColumnBlockView ReadBlock(size_t i, const std::optional<std::vector<size_t>>& projection,
                            const BlockFilter& keep = nullptr) const;

 private:
  std::string_view file_;
  std::vector<ColumnFileBlock> blocks_;
};

}  // namespace freshet
