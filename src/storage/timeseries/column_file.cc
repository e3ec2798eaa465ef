#include "storage/timeseries/column_file.h"

#include <xxhash.h>

#include <algorithm>

#include "common/error.h"
#include "storage/timeseries/little_endian.h"

namespace freshet {

namespace {

constexpr char kMagic[4] = {'F', 'T', 'F', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kTrailerBytes = 8 + 4 + 8 + 4 + 4;

[[noreturn]] void Corrupt(const std::string& what) {
  throw SqlError(sqlstate::kDataCorrupted, "corrupt time-series file: " + what);
}

uint64_t GetLE(std::string_view in, size_t* pos, int bytes) {
  if (static_cast<size_t>(bytes) > in.size() - *pos) Corrupt("its index ends early");
  const uint64_t v = GetLittleEndian(in, *pos, bytes);
  *pos += bytes;
  return v;
}

std::string GetString(std::string_view in, size_t* pos) {
  const uint64_t length = GetLE(in, pos, 4);
  if (length > in.size() - *pos) Corrupt("its index ends early");
  std::string s(in.substr(*pos, length));
  *pos += length;
  return s;
}

}  // namespace

void ColumnFileWriter::AddBlock(size_t rows, const std::vector<BlockColumn>& columns, size_t ts_column,
                                const std::vector<std::string>& series, BlockCompression compression) {
  if (ts_column >= columns.size() || columns[ts_column].kind != BlockColumn::Kind::kTimestamp ||
      columns[ts_column].ints.size() != rows || series.size() != rows)
    throw SqlError(sqlstate::kInternalError, "a time-series block needs a timestamp and a series key on every row");
  ColumnFileBlock block;
  block.offset = bytes_.size();
  block.rows = static_cast<uint32_t>(rows);
  WriteColumnBlock(rows, columns, compression, &bytes_);
  block.length = static_cast<uint32_t>(bytes_.size() - block.offset);
  if (rows > 0) {
    const auto& ts = columns[ts_column].ints;
    block.min_ts = *std::min_element(ts.begin(), ts.end());
    block.max_ts = *std::max_element(ts.begin(), ts.end());
    block.min_series = *std::min_element(series.begin(), series.end());
    block.max_series = *std::max_element(series.begin(), series.end());
  }
  blocks_.push_back(std::move(block));
}

std::string ColumnFileWriter::Finish() {
  std::string index;
  PutLittleEndian(blocks_.size(), 4, &index);
  for (const auto& b : blocks_) {
    PutLittleEndian(b.offset, 8, &index);
    PutLittleEndian(b.length, 4, &index);
    PutLittleEndian(b.rows, 4, &index);
    PutLittleEndian(static_cast<uint64_t>(b.min_ts), 8, &index);
    PutLittleEndian(static_cast<uint64_t>(b.max_ts), 8, &index);
    for (const std::string* s : {&b.min_series, &b.max_series}) {
      PutLittleEndian(s->size(), 4, &index);
      index.append(*s);
    }
  }
  std::string file = std::move(bytes_);
  const uint64_t index_offset = file.size();
  file.append(index);
  PutLittleEndian(index_offset, 8, &file);
  PutLittleEndian(index.size(), 4, &file);
  PutLittleEndian(XXH3_64bits(index.data(), index.size()), 8, &file);
  PutLittleEndian(kVersion, 4, &file);
  file.append(kMagic, 4);
  blocks_.clear();
  bytes_.clear();
  return file;
}

ColumnFileReader::ColumnFileReader(std::string_view file) : file_(file) {
  if (file.size() < kTrailerBytes) Corrupt("it is too short");
  size_t pos = file.size() - kTrailerBytes;
  const uint64_t index_offset = GetLE(file, &pos, 8);
  const uint64_t index_length = GetLE(file, &pos, 4);
  const uint64_t index_hash = GetLE(file, &pos, 8);
  const uint64_t version = GetLE(file, &pos, 4);
  if (file.substr(pos, 4) != std::string_view(kMagic, 4)) Corrupt("it has no trailer");
  if (version != kVersion) Corrupt("version " + std::to_string(version) + " is not one this build reads");
  if (index_offset > file.size() - kTrailerBytes || index_length != file.size() - kTrailerBytes - index_offset)
    Corrupt("its index is not where its trailer says");
  const std::string_view index = file.substr(index_offset, index_length);
  if (XXH3_64bits(index.data(), index.size()) != index_hash) Corrupt("its index's checksum does not match");
  pos = 0;
  const uint64_t count = GetLE(index, &pos, 4);
  uint64_t expected_offset = 0;
  for (uint64_t i = 0; i < count; i++) {
    ColumnFileBlock b;
    b.offset = GetLE(index, &pos, 8);
    b.length = static_cast<uint32_t>(GetLE(index, &pos, 4));
    b.rows = static_cast<uint32_t>(GetLE(index, &pos, 4));
    b.min_ts = static_cast<int64_t>(GetLE(index, &pos, 8));
    b.max_ts = static_cast<int64_t>(GetLE(index, &pos, 8));
    b.min_series = GetString(index, &pos);
    b.max_series = GetString(index, &pos);
    // Blocks follow each other from offset 0 up to the index.
    if (b.offset != expected_offset || b.length > index_offset - b.offset) Corrupt("its index names bytes it does not hold");
    expected_offset = b.offset + b.length;
    blocks_.push_back(std::move(b));
  }
  if (pos != index.size() || expected_offset != index_offset) Corrupt("its index does not cover its blocks");
}

std::vector<size_t> ColumnFileReader::BlocksInTimeRange(int64_t ts_begin, int64_t ts_end) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < blocks_.size(); i++)
    if (blocks_[i].rows > 0 && blocks_[i].max_ts >= ts_begin && blocks_[i].min_ts <= ts_end) out.push_back(i);
  return out;
}

ColumnBlockView ColumnFileReader::ReadBlock(size_t i, const std::optional<std::vector<size_t>>& projection,
                                            const BlockFilter& keep) const {
  if (i >= blocks_.size()) throw SqlError(sqlstate::kInternalError, "a block the file does not have was asked for");
  ColumnBlockView view = ReadColumnBlock(file_.substr(blocks_[i].offset, blocks_[i].length), projection, keep);
  if (view.rows != blocks_[i].rows) Corrupt("a block's row count differs from its index's");
  return view;
}

}  // namespace freshet
