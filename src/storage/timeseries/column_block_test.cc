#include "storage/timeseries/column_block.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "common/error.h"

namespace freshet {
namespace {

// A TSBS cpu-like block: hostname and region tags, the time, two float
// fields (one with NULLs) and an integer field.
std::vector<BlockColumn> CpuBlock(size_t rows, std::mt19937_64& rng) {
  std::vector<BlockColumn> cols(6);
  cols[0].kind = cols[1].kind = BlockColumn::Kind::kString;
  cols[2].kind = BlockColumn::Kind::kTimestamp;
  cols[3].kind = cols[4].kind = BlockColumn::Kind::kFloat;
  cols[5].kind = BlockColumn::Kind::kInteger;
  for (size_t r = 0; r < rows; r++) {
    const size_t host = r / (rows / 4 + 1);
    cols[0].strings.push_back("host_" + std::to_string(host));
    cols[1].strings.push_back(host % 2 ? "eu-west-1" : "us-east-1");
    cols[2].ints.push_back(1451606400000 + static_cast<int64_t>(r % (rows / 4 + 1)) * 10000);
    cols[3].floats.push_back(static_cast<double>(rng() % 10000) / 100);
    const bool present = rng() % 5 != 0;
    cols[4].valid.push_back(present);
    if (present) cols[4].floats.push_back(static_cast<double>(rng() % 100));
    cols[5].ints.push_back(static_cast<int64_t>(rng() % 1000));
  }
  return cols;
}

void ExpectSame(const BlockColumn& a, const BlockColumn& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.ints, b.ints);
  EXPECT_EQ(a.strings, b.strings);
  ASSERT_EQ(a.floats.size(), b.floats.size());
  for (size_t i = 0; i < a.floats.size(); i++)
    EXPECT_EQ(std::bit_cast<uint64_t>(a.floats[i]), std::bit_cast<uint64_t>(b.floats[i]));
}

TEST(ColumnBlockTest, ABlockRoundTripsUnderEachCompressionWithItsStatistics) {
  std::mt19937_64 rng(2026120705);
  const std::vector<BlockColumn> cols = CpuBlock(4096, rng);
  size_t sizes[3] = {};
  for (BlockCompression how : {BlockCompression::kNone, BlockCompression::kLz4, BlockCompression::kZstd}) {
    std::string bytes;
    WriteColumnBlock(4096, cols, how, &bytes);
    sizes[static_cast<int>(how)] = bytes.size();
    ColumnBlockView view = ReadColumnBlock(bytes, std::nullopt);
    ASSERT_EQ(view.rows, 4096u);
    ASSERT_EQ(view.columns.size(), cols.size());
    for (size_t c = 0; c < cols.size(); c++) {
      ASSERT_TRUE(view.columns[c].has_value());
      ExpectSame(*view.columns[c], cols[c]);
    }
    EXPECT_EQ(view.stats[0].min_string, "host_0");
    EXPECT_EQ(view.stats[0].max_string, "host_3");
    EXPECT_EQ(view.stats[2].min_int, 1451606400000);
    EXPECT_EQ(view.stats[2].max_int, 1451606400000 + 1024 * 10000);
    EXPECT_GE(view.stats[3].min_float, 0.0);
    EXPECT_LT(view.stats[3].max_float, 100.0);
  }
  // Compression never makes a block larger; zstd helps these columns.
  EXPECT_LE(sizes[2], sizes[0]);
  EXPECT_LE(sizes[1], sizes[0]);
}

// A float column of whole numbers takes the bit-packed encoding (the high
// bits of its compression byte), one with fractions Gorilla's; NULLs and
// both read back the same under each compression.
TEST(ColumnBlockTest, WholeNumberFloatColumnsAreBitPacked) {
  std::mt19937_64 rng(2026120707);
  BlockColumn whole, fractions;
  whole.kind = fractions.kind = BlockColumn::Kind::kFloat;
  for (int r = 0; r < 4096; r++) {
    whole.valid.push_back(r % 10 != 3);
    if (r % 10 != 3) whole.floats.push_back(static_cast<double>(rng() % 101));
    fractions.floats.push_back(static_cast<double>(rng() % 10001) / 100);
  }
  for (BlockCompression how : {BlockCompression::kNone, BlockCompression::kZstd}) {
    std::string bytes;
    WriteColumnBlock(4096, {whole, fractions}, how, &bytes);
    ColumnBlockView view = ReadColumnBlock(bytes, std::nullopt);
    ExpectSame(*view.columns[0], whole);
    ExpectSame(*view.columns[1], fractions);
    EXPECT_EQ(view.stats[0].max_float, 100.0);
    // The first column's header: kind, then compression 0 | encoding 1 << 4.
    EXPECT_EQ(static_cast<uint8_t>(bytes[10]), 2);
    EXPECT_EQ(static_cast<uint8_t>(bytes[11]), 0x10);
  }
}

TEST(ColumnBlockTest, AProjectionDecodesOnlyItsColumns) {
  std::mt19937_64 rng(2026120706);
  const std::vector<BlockColumn> cols = CpuBlock(1000, rng);
  std::string bytes;
  WriteColumnBlock(1000, cols, BlockCompression::kZstd, &bytes);
  ColumnBlockView view = ReadColumnBlock(bytes, std::vector<size_t>{2, 4});
  for (size_t c = 0; c < cols.size(); c++) EXPECT_EQ(view.columns[c].has_value(), c == 2 || c == 4) << c;
  ExpectSame(*view.columns[4], cols[4]);
  EXPECT_EQ(view.stats.size(), cols.size());  // every column's statistics
}

TEST(ColumnBlockTest, AllNullAndEmptyColumns) {
  BlockColumn nulls;
  nulls.kind = BlockColumn::Kind::kFloat;
  nulls.valid = {false, false, false};
  BlockColumn nans;
  nans.kind = BlockColumn::Kind::kFloat;
  nans.floats = {std::nan(""), std::nan(""), 1.0};
  std::string bytes;
  WriteColumnBlock(3, {nulls, nans}, BlockCompression::kZstd, &bytes);
  ColumnBlockView view = ReadColumnBlock(bytes, std::nullopt);
  EXPECT_FALSE(view.stats[0].has);
  ExpectSame(*view.columns[0], nulls);
  EXPECT_EQ(view.stats[1].min_float, 1.0);  // NaN left out of the range
  std::string empty;
  WriteColumnBlock(0, {}, BlockCompression::kLz4, &empty);
  EXPECT_EQ(ReadColumnBlock(empty, std::nullopt).rows, 0u);
}

// Every cut and every flipped bit is refused (XX001), never a crash or a
// wrong row.
TEST(ColumnBlockTest, DamagedBlocksAreRefused) {
  std::mt19937_64 rng(2026120707);
  const std::vector<BlockColumn> cols = CpuBlock(200, rng);
  std::string bytes;
  WriteColumnBlock(200, cols, BlockCompression::kZstd, &bytes);
  auto refused = [](std::string_view b) {
    try {
      ReadColumnBlock(b, std::nullopt);
    } catch (const SqlError& e) {
      return e.code() == std::string("XX001");
    }
    return false;
  };
  for (size_t cut = 0; cut < bytes.size(); cut += 7) EXPECT_TRUE(refused(bytes.substr(0, cut))) << cut;
  for (int round = 0; round < 500; round++) {
    std::string flipped = bytes;
    flipped[rng() % flipped.size()] ^= static_cast<char>(1 << (rng() % 8));
    EXPECT_TRUE(refused(flipped));
  }
  EXPECT_TRUE(refused(bytes + "x"));
}

}  // namespace
}  // namespace freshet
