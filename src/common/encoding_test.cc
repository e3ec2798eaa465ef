#include "common/encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace freshet {
namespace {

// Sorting by encoded key must agree with Value::Compare, for every type.
void ExpectOrderPreserved(std::vector<Value> values) {
  std::vector<std::pair<std::string, Value>> encoded;
  for (const auto& v : values) {
    std::string k;
    EncodeKeyValue(v, &k);
    encoded.emplace_back(k, v);
  }
  std::sort(encoded.begin(), encoded.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < encoded.size(); i++) {
    EXPECT_LE(Value::Compare(encoded[i - 1].second, encoded[i].second), 0)
        << encoded[i - 1].second.ToString() << " sorted before " << encoded[i].second.ToString();
    bool same_key = encoded[i - 1].first == encoded[i].first;
    bool same_value = Value::Compare(encoded[i - 1].second, encoded[i].second) == 0;
    EXPECT_EQ(same_key, same_value) << encoded[i - 1].second.ToString() << " vs " << encoded[i].second.ToString();
  }
}

TEST(EncodingTest, IntegersKeepOrder) {
  std::mt19937_64 rng(42);
  std::vector<Value> v = {Value::Int64(INT64_MIN), Value::Int64(INT64_MAX), Value::Int64(0), Value::Int64(-1),
                          Value::Null(DataType::Int64())};
  for (int i = 0; i < 500; i++) v.push_back(Value::Int64(static_cast<int64_t>(rng())));
  ExpectOrderPreserved(v);
}

TEST(EncodingTest, FloatsKeepOrderWithNegativeZeroAndNaN) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  std::vector<Value> v = {Value::Float64(0.0), Value::Float64(-0.0), Value::Float64(-1e300), Value::Float64(1e300),
                          Value::Float64(std::numeric_limits<double>::quiet_NaN()),
                          Value::Float64(-std::numeric_limits<double>::infinity())};
  for (int i = 0; i < 500; i++) v.push_back(Value::Float64(d(rng)));
  ExpectOrderPreserved(v);
}

TEST(EncodingTest, DecimalsOfDifferentScalesKeepOrder) {
  std::vector<Value> v;
  for (const char* s : {"0", "0.0", "1", "1.00", "-1", "-1.5", "10", "9.99", "0.001", "-0.001", "123456789.123",
                        "-123456789.1234", "100", "1e10", "99999999999999999999999999999999999999"}) {
    v.push_back(Value::Numeric(DecimalFromString(s)));
  }
  ExpectOrderPreserved(v);
}

TEST(EncodingTest, StringsKeepOrderIncludingPrefixesAndZeroBytes) {
  std::vector<Value> v;
  for (std::string s : std::vector<std::string>{"", "a", "ab", "abc", "b", std::string("a\0b", 3), std::string("a\0", 2), "\xff", "zz"})
    v.push_back(Value::Varchar(s));
  ExpectOrderPreserved(v);
}

TEST(EncodingTest, NullsSortLastAndDescendingReverses) {
  std::string null_key, one_key, one_desc, two_desc;
  EncodeKeyValue(Value::Null(DataType::Int32()), &null_key);
  EncodeKeyValue(Value::Int32(1), &one_key);
  EXPECT_LT(one_key, null_key);
  EncodeKeyValue(Value::Int32(1), &one_desc, true);
  EncodeKeyValue(Value::Int32(2), &two_desc, true);
  EXPECT_LT(two_desc, one_desc);
}

TEST(EncodingTest, RowsRoundTrip) {
  std::vector<DataType> types = {DataType::Boolean(), DataType::Int32(), DataType::Float64(), DataType::Numeric(),
                                 DataType::Varchar(), DataType::Interval(), DataType::Timestamp()};
  Row row = {Value::Boolean(true),
             Value::Int32(-7),
             Value::Float64(2.5),
             Value::Numeric(DecimalFromString("-12.340")),
             Value::Varchar(std::string("x\0y", 3)),
             Value::IntervalValue(Interval{1, 2, 3}),
             Value::Null(DataType::Timestamp())};
  std::string bytes;
  EncodeRowValues(row, &bytes);
  Row back;
  ASSERT_TRUE(DecodeRow(bytes, types, &back));
  ASSERT_EQ(back.size(), row.size());
  for (size_t i = 0; i < row.size(); i++) {
    EXPECT_EQ(back[i].is_null(), row[i].is_null());
    EXPECT_EQ(Value::Compare(back[i], row[i]), 0) << i;
  }
  EXPECT_EQ(DecimalToString(back[3].decimal_value()), "-12.340");
  // Truncated input is rejected, not read past its end.
  EXPECT_FALSE(DecodeRow(bytes.substr(0, bytes.size() - 3), types, &back));
}

// Stored rows written before columns were added read the columns' missing
// cells (NULL without one); a reader with fewer columns leaves the cells
// after them; a cell cut short is still an error.
TEST(EncodingTest, StoredRowsOfAnotherWidth) {
  std::string old_row;
  EncodeRowValues({Value::Int32(1), Value::Varchar("a")}, &old_row);
  std::string missing_int, missing_text;
  EncodeRowValues({Value::Int32(10)}, &missing_int);
  std::vector<DataType> wide = {DataType::Int32(), DataType::Varchar(), DataType::Int32(), DataType::Varchar(),
                                DataType::Int32()};
  std::vector<std::string> missing = {"", "", missing_int, "", missing_int};
  Row row;
  ASSERT_TRUE(DecodeStoredRow(old_row, wide, missing, &row));
  ASSERT_EQ(row.size(), 5u);
  EXPECT_EQ(row[0].int_value(), 1);
  EXPECT_EQ(row[1].string_value(), "a");
  EXPECT_EQ(row[2].int_value(), 10);
  EXPECT_TRUE(row[3].is_null());
  EXPECT_EQ(row[4].int_value(), 10);
  // No missing cells at all: NULLs.
  ASSERT_TRUE(DecodeStoredRow(old_row, wide, {}, &row));
  EXPECT_TRUE(row[2].is_null() && row[4].is_null());
  // A projection leaves unwanted missing columns NULL.
  DataChunk chunk(wide);
  std::vector<bool> wanted = {true, false, false, true, true};
  ASSERT_TRUE(DecodeStoredRowInto(old_row, &chunk, missing, &wanted));
  EXPECT_TRUE(chunk.column(1).IsNull(0) && chunk.column(2).IsNull(0));
  EXPECT_EQ(chunk.GetRow(0)[4].int_value(), 10);
  // A wider row read with fewer columns.
  std::string new_row;
  EncodeRowValues({Value::Int32(2), Value::Varchar("b"), Value::Int32(3)}, &new_row);
  ASSERT_TRUE(DecodeStoredRow(new_row, {DataType::Int32(), DataType::Varchar()}, {}, &row));
  EXPECT_EQ(row.size(), 2u);
  EXPECT_EQ(row[1].string_value(), "b");
  // Truncated inside a cell: refused.
  EXPECT_FALSE(DecodeStoredRow(new_row.substr(0, new_row.size() - 2), wide, missing, &row));
  // A malformed missing cell: refused.
  EXPECT_FALSE(DecodeStoredRow(old_row, wide, {"", "", std::string("\x01\x02", 2)}, &row));
}

// The column-by-column encoder of bulk loads writes exactly EncodeRow's
// bytes: every physical type, NULLs, strings long enough for a two-byte
// length.
TEST(EncodingTest, ColumnwiseRowsEqualRowByRow) {
  std::vector<DataType> types = {DataType::Boolean(), DataType::Int64(),   DataType::Float64(),
                                 DataType::Numeric(), DataType::Varchar(), DataType::Interval(),
                                 DataType::Timestamp(), DataType::Bytea()};
  DataChunk chunk(types);
  for (int i = 0; i < 300; i++) {
    auto maybe = [&](Value v, int every) { return i % every == 0 ? Value::Null(v.type()) : v; };
    chunk.AppendRow({maybe(Value::Boolean(i % 2), 5), maybe(Value::Int64(i * 1000003LL - 7), 7),
                     maybe(Value::Float64(i / 3.0), 11), maybe(Value::Numeric(DecimalFromString(std::to_string(i) + ".25")), 13),
                     maybe(Value::Varchar(std::string(i, 'v')), 17), maybe(Value::IntervalValue(Interval{i, -i, i * 7}), 3),
                     maybe(Value::Timestamp(i * 86400000000LL), 19), maybe(Value::Bytea(std::string(i % 200, '\0')), 23)});
  }
  std::vector<size_t> sizes;
  EncodedRowSizes(chunk, &sizes);
  ASSERT_EQ(sizes.size(), chunk.num_rows());
  std::vector<std::string> rows(chunk.num_rows());
  std::vector<char*> out(chunk.num_rows());
  for (size_t r = 0; r < rows.size(); r++) {
    rows[r].assign(sizes[r] + 1, '#');  // one byte more: nothing may be written past the size
    out[r] = rows[r].data();
  }
  EncodeRowsTo(chunk, out.data());
  for (size_t r = 0; r < rows.size(); r++) {
    std::string expected;
    EncodeRow(chunk, r, &expected);
    EXPECT_EQ(rows[r], expected + "#") << "row " << r;
    EXPECT_EQ(out[r], rows[r].data() + sizes[r]) << "row " << r;
  }
}

}  // namespace
}  // namespace freshet
