#include "storage/timeseries/column_encoding.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

namespace freshet {
namespace {

std::vector<std::vector<int64_t>> IntegerCases(std::mt19937_64& rng) {
  std::vector<std::vector<int64_t>> cases = {
      {},
      {42},
      {INT64_MIN, INT64_MAX, INT64_MIN, 0, -1, INT64_MAX},
      {INT64_MAX, INT64_MAX - 1, INT64_MIN + 1},
  };
  // Regular samples every 10 s (in ms) with occasional gaps and jitter, as TSBS's.
  std::vector<int64_t> regular;
  int64_t t = 1451606400000;
  for (int i = 0; i < 5000; i++) {
    t += 10000 + (rng() % 50 == 0 ? static_cast<int64_t>(rng() % 100000) : 0) - (rng() % 10 == 0 ? 3 : 0);
    regular.push_back(t);
  }
  cases.push_back(regular);
  std::vector<int64_t> random;
  for (int i = 0; i < 2000; i++) random.push_back(static_cast<int64_t>(rng()));
  cases.push_back(random);
  std::vector<int64_t> small;
  for (int i = 0; i < 2000; i++) small.push_back(static_cast<int64_t>(rng() % 200) - 100);
  cases.push_back(small);
  return cases;
}

TEST(ColumnEncodingTest, TimestampsAndIntegersRoundTripAnyInt64Sequence) {
  std::mt19937_64 rng(2026120701);
  for (const auto& values : IntegerCases(rng)) {
    for (bool timestamps : {true, false}) {
      std::string bytes;
      std::vector<int64_t> back;
      if (timestamps) {
        EncodeTimestampColumn(values, &bytes);
        ASSERT_TRUE(DecodeTimestampColumn(bytes, values.size(), &back));
      } else {
        EncodeIntegerColumn(values, &bytes);
        ASSERT_TRUE(DecodeIntegerColumn(bytes, values.size(), &back));
      }
      EXPECT_EQ(back, values);
    }
  }
}

TEST(ColumnEncodingTest, RegularTimestampsTakeAboutAByteEach) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 10000; i++) values.push_back(1451606400000 + i * 10000);
  std::string bytes;
  EncodeTimestampColumn(values, &bytes);
  EXPECT_LT(bytes.size(), values.size() + 16);
}

TEST(ColumnEncodingTest, FloatsRoundTripBitExactly) {
  std::mt19937_64 rng(2026120702);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> cases = {
      {},
      {1.5},
      {0.0, -0.0, 0.0, inf, -inf, std::nan(""), std::nan("7"), std::numeric_limits<double>::denorm_min(),
       std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(), 1.0, 1.0},
  };
  // cpu usage-like: a random walk in [0, 100] with two decimals, values repeat.
  std::vector<double> walk;
  double v = 50;
  for (int i = 0; i < 5000; i++) {
    if (rng() % 4) v = std::clamp(v + static_cast<double>(static_cast<int64_t>(rng() % 201) - 100) / 100, 0.0, 100.0);
    walk.push_back(std::round(v * 100) / 100);
  }
  cases.push_back(walk);
  std::vector<double> bits;
  for (int i = 0; i < 2000; i++) bits.push_back(std::bit_cast<double>(rng()));
  cases.push_back(bits);
  for (const auto& values : cases) {
    std::string bytes;
    EncodeFloatColumn(values, &bytes);
    std::vector<double> back;
    ASSERT_TRUE(DecodeFloatColumn(bytes, values.size(), &back));
    ASSERT_EQ(back.size(), values.size());
    for (size_t i = 0; i < values.size(); i++)
      ASSERT_EQ(std::bit_cast<uint64_t>(back[i]), std::bit_cast<uint64_t>(values[i])) << i;
  }
  // A constant series: one bit per value after the first.
  std::string bytes;
  EncodeFloatColumn(std::vector<double>(8001, 3.25), &bytes);
  EXPECT_EQ(bytes.size(), 8u + 1000u);
}

// Whole numbers (TSBS's metrics, percentages, counts) bit-packed from
// their smallest value; anything else (a fraction, -0.0, NaN, an
// infinity, beyond 2^53) is left to Gorilla.
TEST(ColumnEncodingTest, IntegralFloatsRoundTripBitPacked) {
  std::mt19937_64 rng(2026120706);
  const double two53 = 9007199254740992.0;
  std::vector<std::vector<double>> cases = {
      {}, {7}, {0, 0, 0}, {-5, 3, 100, -5}, {two53, -two53, 0}, {-1e15, 1e15},
  };
  std::vector<double> usage, constant(4096, 42), walk;
  double w = 1e12;
  for (int i = 0; i < 4096; i++) {
    usage.push_back(static_cast<double>(rng() % 101));
    w += static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000);
    walk.push_back(w);
  }
  cases.push_back(usage);
  cases.push_back(constant);
  cases.push_back(walk);
  // Every width up to 12 bits (1..8 decode eight at a time), counts around
  // multiples of eight, from a negative base.
  for (int width = 1; width <= 12; width++)
    for (size_t count : {1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1001}) {
      std::vector<double> values;
      const int64_t span = (int64_t{1} << width) - 1;
      for (size_t i = 0; i < count; i++) values.push_back(static_cast<double>(-37 + static_cast<int64_t>(rng() % (span + 1))));
      values[rng() % count] = static_cast<double>(-37 + span);  // the width exactly
      values[rng() % count] = -37;
      cases.push_back(values);
    }
  for (const auto& values : cases) {
    std::string bytes = "prefix";
    ASSERT_TRUE(EncodeIntegralFloatColumn(values, &bytes));
    std::vector<double> back;
    ASSERT_TRUE(DecodeIntegralFloatColumn(std::string_view(bytes).substr(6), values.size(), &back));
    ASSERT_EQ(back.size(), values.size());
    for (size_t i = 0; i < values.size(); i++)
      ASSERT_EQ(std::bit_cast<uint64_t>(back[i]), std::bit_cast<uint64_t>(values[i])) << i;
  }
  // 0..100 takes 7 bits a value; a constant column none.
  std::string bytes;
  EncodeIntegralFloatColumn(usage, &bytes);
  EXPECT_EQ(bytes.size(), 1u + 1u + 4096u * 7 / 8 + 7u);
  bytes.clear();
  EncodeIntegralFloatColumn(constant, &bytes);
  EXPECT_EQ(bytes.size(), 1u + 1u + 7u);
  for (double bad : {0.5, -0.0, std::nan(""), std::numeric_limits<double>::infinity(), two53 * 2, -two53 - 2}) {
    std::string out;
    EXPECT_FALSE(EncodeIntegralFloatColumn({1, bad, 2}, &out)) << bad;
    EXPECT_TRUE(out.empty());
  }
  // Damaged: cut, padded, a wrong count, a width past 55.
  std::vector<double> back;
  bytes.clear();
  EncodeIntegralFloatColumn(usage, &bytes);
  for (size_t cut = 0; cut < bytes.size(); cut++)
    EXPECT_FALSE(DecodeIntegralFloatColumn(bytes.substr(0, cut), usage.size(), &back));
  EXPECT_FALSE(DecodeIntegralFloatColumn(bytes + "x", usage.size(), &back));
  EXPECT_FALSE(DecodeIntegralFloatColumn(bytes, usage.size() + 9, &back));
  EXPECT_FALSE(DecodeIntegralFloatColumn(bytes, SIZE_MAX / 2, &back));
  std::string wide = bytes;
  wide[1] = 56;
  EXPECT_FALSE(DecodeIntegralFloatColumn(wide, usage.size(), &back));
  std::string zero_width = "\x02";
  zero_width += std::string(1, '\0') + std::string(7, '\0');
  ASSERT_TRUE(DecodeIntegralFloatColumn(zero_width, 100000, &back));
  EXPECT_EQ(back, std::vector<double>(100000, 1.0));
}

TEST(ColumnEncodingTest, StringsRoundTripThroughADictionary) {
  std::mt19937_64 rng(2026120703);
  std::vector<std::string> tags;
  for (int i = 0; i < 5000; i++) tags.push_back("host_" + std::to_string(rng() % 100));
  std::vector<std::vector<std::string>> cases = {
      {}, {""}, {"a", "", "a", std::string("\0\xff\x80", 3)}, tags};
  for (const auto& values : cases) {
    std::string bytes;
    EncodeStringColumn(values, &bytes);
    std::vector<std::string> back;
    ASSERT_TRUE(DecodeStringColumn(bytes, values.size(), &back));
    EXPECT_EQ(back, values);
  }
  std::string bytes;
  EncodeStringColumn(tags, &bytes);
  EXPECT_LT(bytes.size(), tags.size() + 100 * 10);  // an index byte per row and the dictionary
}

// Cut short, padded or with a wrong count, a column never decodes (the
// block's checksum catches flipped bits; these must not crash either).
TEST(ColumnEncodingTest, DamagedColumnsAreRefusedOrDecodeWithoutCrashing) {
  std::mt19937_64 rng(2026120704);
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  for (int i = 0; i < 300; i++) {
    ints.push_back(1000 * i + static_cast<int64_t>(rng() % 7));
    floats.push_back(static_cast<double>(rng() % 1000) / 10);
    strings.push_back("tag" + std::to_string(rng() % 9));
  }
  std::string t, n, f, s;
  EncodeTimestampColumn(ints, &t);
  EncodeIntegerColumn(ints, &n);
  EncodeFloatColumn(floats, &f);
  EncodeStringColumn(strings, &s);
  std::vector<int64_t> i_out;
  std::vector<double> f_out;
  std::vector<std::string> s_out;
  for (size_t cut = 0; cut < t.size(); cut++) EXPECT_FALSE(DecodeTimestampColumn(t.substr(0, cut), ints.size(), &i_out));
  for (size_t cut = 0; cut < n.size(); cut++) EXPECT_FALSE(DecodeIntegerColumn(n.substr(0, cut), ints.size(), &i_out));
  for (size_t cut = 0; cut < f.size(); cut++) EXPECT_FALSE(DecodeFloatColumn(f.substr(0, cut), floats.size(), &f_out));
  for (size_t cut = 0; cut < s.size(); cut++) EXPECT_FALSE(DecodeStringColumn(s.substr(0, cut), strings.size(), &s_out));
  EXPECT_FALSE(DecodeTimestampColumn(t + "x", ints.size(), &i_out));
  EXPECT_FALSE(DecodeFloatColumn(f + "x", floats.size(), &f_out));
  EXPECT_FALSE(DecodeStringColumn(s, strings.size() + 1, &s_out));
  EXPECT_FALSE(DecodeIntegerColumn(n, ints.size() - 1, &i_out));
  // Random bytes and flipped bits: any answer, no crash, no huge allocation.
  for (int round = 0; round < 2000; round++) {
    std::string junk(rng() % 64, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    DecodeTimestampColumn(junk, rng() % 100, &i_out);
    DecodeFloatColumn(junk, rng() % 100, &f_out);
    DecodeStringColumn(junk, rng() % 100, &s_out);
    std::string flipped = f;
    flipped[rng() % flipped.size()] ^= static_cast<char>(1 << (rng() % 8));
    DecodeFloatColumn(flipped, floats.size(), &f_out);
    flipped = s;
    flipped[rng() % flipped.size()] ^= static_cast<char>(1 << (rng() % 8));
    DecodeStringColumn(flipped, strings.size(), &s_out);
  }
}

}  // namespace
}  // namespace freshet
