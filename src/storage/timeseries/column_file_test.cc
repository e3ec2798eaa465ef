#include "storage/timeseries/column_file.h"

#include <gtest/gtest.h>

#include <random>

#include "common/error.h"

namespace freshet {
namespace {

// A block of `rows` rows of series "host_<h>" starting at `t0` (ms), one
// every 10 s: a tag, the time and a float field.
void AddHostBlock(ColumnFileWriter* w, int host, int64_t t0, size_t rows, std::mt19937_64& rng) {
  std::vector<BlockColumn> cols(3);
  cols[0].kind = BlockColumn::Kind::kString;
  cols[1].kind = BlockColumn::Kind::kTimestamp;
  cols[2].kind = BlockColumn::Kind::kFloat;
  std::vector<std::string> series;
  for (size_t r = 0; r < rows; r++) {
    cols[0].strings.push_back("host_" + std::to_string(host));
    cols[1].ints.push_back(t0 + static_cast<int64_t>(r) * 10000);
    cols[2].floats.push_back(static_cast<double>(rng() % 1000) / 10);
    series.push_back("host_" + std::to_string(host));
  }
  w->AddBlock(rows, cols, 1, series, BlockCompression::kZstd);
}

TEST(ColumnFileTest, BlocksAreFoundByTheirTimeRangeAndReadBack) {
  std::mt19937_64 rng(2026120708);
  ColumnFileWriter writer;
  // Three hosts, each a block of 360 rows (an hour), the third an hour later.
  AddHostBlock(&writer, 1, 0, 360, rng);
  AddHostBlock(&writer, 2, 0, 360, rng);
  AddHostBlock(&writer, 3, 3600000, 360, rng);
  const std::string file = writer.Finish();
  ColumnFileReader reader(file);
  ASSERT_EQ(reader.blocks().size(), 3u);
  EXPECT_EQ(reader.blocks()[0].min_ts, 0);
  EXPECT_EQ(reader.blocks()[0].max_ts, 3590000);
  EXPECT_EQ(reader.blocks()[2].min_series, "host_3");
  EXPECT_EQ(reader.BlocksInTimeRange(0, 1000), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(reader.BlocksInTimeRange(3590000, 3600000), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(reader.BlocksInTimeRange(3600001, INT64_MAX), (std::vector<size_t>{2}));
  EXPECT_TRUE(reader.BlocksInTimeRange(-100, -1).empty());
  ColumnBlockView block = reader.ReadBlock(2, std::vector<size_t>{1});
  EXPECT_EQ(block.rows, 360u);
  EXPECT_EQ(block.columns[1]->ints.front(), 3600000);
  EXPECT_FALSE(block.columns[0].has_value());
}

TEST(ColumnFileTest, AnEmptyFileHasNoBlocks) {
  ColumnFileWriter writer;
  const std::string file = writer.Finish();
  ColumnFileReader reader(file);
  EXPECT_TRUE(reader.blocks().empty());
  EXPECT_TRUE(reader.BlocksInTimeRange(INT64_MIN, INT64_MAX).empty());
}

// A damaged trailer or index is refused when the file is opened; a damaged
// block when it is read. Never a crash, never a wrong row.
TEST(ColumnFileTest, DamagedFilesAreRefused) {
  std::mt19937_64 rng(2026120709);
  ColumnFileWriter writer;
  AddHostBlock(&writer, 1, 0, 100, rng);
  AddHostBlock(&writer, 2, 0, 100, rng);
  const std::string file = writer.Finish();
  auto refused = [](const std::string& f) {
    try {
      ColumnFileReader reader(f);
      for (size_t i = 0; i < reader.blocks().size(); i++) reader.ReadBlock(i, std::nullopt);
    } catch (const SqlError& e) {
      return e.code() == std::string("XX001");
    }
    return false;
  };
  EXPECT_FALSE(refused(file));
  for (size_t cut = 0; cut < file.size(); cut += 5) EXPECT_TRUE(refused(file.substr(0, cut))) << cut;
  for (int round = 0; round < 1000; round++) {
    std::string flipped = file;
    flipped[rng() % flipped.size()] ^= static_cast<char>(1 << (rng() % 8));
    EXPECT_TRUE(refused(flipped));
  }
  std::string other_version = file;
  other_version[other_version.size() - 8] = 2;
  EXPECT_TRUE(refused(other_version));
}

}  // namespace
}  // namespace freshet
