// Expected values were checked against PostgreSQL 15 (psql).
#include "expr/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "common/error.h"

namespace freshet {
namespace {

class CastTest : public ::testing::Test {
 protected:
  // Text of CAST(v AS to), or "NULL".
  std::string Cast(const Value& v, const DataType& to, bool assignment = false) {
    Value r = CastValue(v, to, ctx_, assignment);
    EXPECT_EQ(r.type().id, to.id);
    return r.is_null() ? "NULL" : FormatValueText(r, ctx_);
  }
  std::string CastText(const std::string& text, const DataType& to) {
    return Cast(Value::Varchar(text), to);
  }
  // SQLSTATE raised by CAST(v AS to), or "" if none.
  std::string CastError(const Value& v, const DataType& to, bool assignment = false,
                        std::string* message = nullptr) {
    try {
      CastValue(v, to, ctx_, assignment);
    } catch (const SqlError& e) {
      if (message) *message = e.message();
      return e.code();
    }
    return "";
  }
  std::string Float8(double d) { return FormatValueText(Value::Float64(d), ctx_); }
  std::string Float4(double d) { return FormatValueText(Value::Float32(d), ctx_); }

  EvalContext ctx_;
};

TEST_F(CastTest, FloatOutputIsShortestRoundTrip) {
  EXPECT_EQ(Float8(0.1), "0.1");
  EXPECT_EQ(Float8(1e20), "1e+20");
  EXPECT_EQ(Float8(1.5e-7), "1.5e-07");
  EXPECT_EQ(Float8(1e14), "100000000000000");
  EXPECT_EQ(Float8(1e15), "1e+15");
  EXPECT_EQ(Float8(123456789012345.6), "123456789012345.6");
  EXPECT_EQ(Float8(0.0001), "0.0001");
  EXPECT_EQ(Float8(0.00001), "1e-05");
  EXPECT_EQ(Float8(1e100), "1e+100");
  EXPECT_EQ(Float8(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Float8(-0.0), "-0");
  EXPECT_EQ(Float8(0), "0");
  EXPECT_EQ(Float8(-2.5), "-2.5");
  EXPECT_EQ(Float8(std::nan("")), "NaN");
  EXPECT_EQ(Float8(INFINITY), "Infinity");
  EXPECT_EQ(Float8(-INFINITY), "-Infinity");
  EXPECT_EQ(Float8(5e-324), "5e-324");
  // PostgreSQL avoids decimals that read back only through round-half-even
  // (std::to_chars would print -6.45390701000767e+16 and -6.175951e+07).
  EXPECT_EQ(Float8(-6.45390701000767e+16), "-6.4539070100076704e+16");
  EXPECT_EQ(Float8(4.265628272231874e+16), "4.2656282722318736e+16");
  // real uses float precision.
  EXPECT_EQ(Float4(0.1), "0.1");
  EXPECT_EQ(Float4(1e6), "1e+06");
  EXPECT_EQ(Float4(123456), "123456");
  EXPECT_EQ(Float4(1234567), "1.234567e+06");
  EXPECT_EQ(Float4(1.0 / 3), "0.33333334");
  EXPECT_EQ(Float4(-61759512.044), "-6.1759512e+07");
  EXPECT_EQ(Float4(44916927.4), "4.4916928e+07");
}

TEST_F(CastTest, FormatText) {
  EXPECT_EQ(FormatValueText(Value::Boolean(true), ctx_), "t");
  EXPECT_EQ(FormatValueText(Value::Boolean(false), ctx_), "f");
  EXPECT_EQ(FormatValueText(Value::Int64(INT64_MIN), ctx_), "-9223372036854775808");
  EXPECT_EQ(FormatValueText(Value::Bytea(std::string("\x01\x02\xff", 3)), ctx_), "\\x0102ff");
  EXPECT_EQ(FormatValueText(Value::Bytea(""), ctx_), "\\x");
  EXPECT_EQ(FormatValueText(Value::Numeric(DecimalFromString("1.50")), ctx_), "1.50");
  EXPECT_EQ(FormatValueText(Value::Date(0), ctx_), "1970-01-01");
  EXPECT_EQ(FormatValueText(Value::Timestamptz(0), ctx_), "1970-01-01 00:00:00+00");

  Vector v(DataType::Float32());
  v.AppendFloat(0.1);
  EXPECT_EQ(FormatText(v, 0, ctx_), "0.1");
}

TEST_F(CastTest, TimestamptzFormatsInSessionZone) {
  ctx_.time_zone = *TimeZone::Lookup("Asia/Shanghai");
  EXPECT_EQ(FormatValueText(Value::Timestamptz(0), ctx_), "1970-01-01 08:00:00+08");
}

TEST_F(CastTest, ParseBoolean) {
  for (const char* t : {"t", "true", "TRUE", " yes ", "on", "1", "tr", "y", "On"}) {
    EXPECT_EQ(CastText(t, DataType::Boolean()), "t") << t;
  }
  for (const char* t : {"f", "false", "no", "off", "of", "0", "n", " FALSE"}) {
    EXPECT_EQ(CastText(t, DataType::Boolean()), "f") << t;
  }
  std::string msg;
  EXPECT_EQ(CastError(Value::Varchar("o"), DataType::Boolean(), false, &msg), "22P02");
  EXPECT_EQ(msg, "invalid input syntax for type boolean: \"o\"");
  EXPECT_EQ(CastError(Value::Varchar("truex"), DataType::Boolean()), "22P02");
  EXPECT_EQ(CastError(Value::Varchar(""), DataType::Boolean()), "22P02");
}

TEST_F(CastTest, ParseIntegers) {
  EXPECT_EQ(CastText(" 12 ", DataType::Int32()), "12");
  EXPECT_EQ(CastText("  +7", DataType::Int64()), "7");
  EXPECT_EQ(CastText("-2147483648", DataType::Int32()), "-2147483648");
  EXPECT_EQ(CastText("-9223372036854775808", DataType::Int64()), "-9223372036854775808");
  EXPECT_EQ(CastText("32767", DataType::Int16()), "32767");
  std::string msg;
  EXPECT_EQ(CastError(Value::Varchar("99999999999"), DataType::Int32(), false, &msg), "22003");
  EXPECT_EQ(msg, "value \"99999999999\" is out of range for type integer");
  EXPECT_EQ(CastError(Value::Varchar("32768"), DataType::Int16(), false, &msg), "22003");
  EXPECT_EQ(msg, "value \"32768\" is out of range for type smallint");
  EXPECT_EQ(CastError(Value::Varchar("9223372036854775808"), DataType::Int64()), "22003");
  EXPECT_EQ(CastError(Value::Varchar("abc"), DataType::Int16(), false, &msg), "22P02");
  EXPECT_EQ(msg, "invalid input syntax for type smallint: \"abc\"");
  EXPECT_EQ(CastError(Value::Varchar("1.5"), DataType::Int32()), "22P02");
  EXPECT_EQ(CastError(Value::Varchar(""), DataType::Int32()), "22P02");
  EXPECT_EQ(CastError(Value::Varchar("-"), DataType::Int32()), "22P02");
  EXPECT_EQ(CastError(Value::Varchar("1 2"), DataType::Int32()), "22P02");
}

TEST_F(CastTest, ParseFloats) {
  EXPECT_EQ(CastText("nan", DataType::Float64()), "NaN");
  EXPECT_EQ(CastText("-inf", DataType::Float64()), "-Infinity");
  EXPECT_EQ(CastText(" Infinity ", DataType::Float32()), "Infinity");
  EXPECT_EQ(CastText("-Infinity", DataType::Float64()), "-Infinity");
  EXPECT_EQ(CastText("4.9e-324", DataType::Float64()), "5e-324");
  EXPECT_EQ(CastText("0.1", DataType::Float32()), "0.1");
  EXPECT_EQ(CastText("1e3", DataType::Float64()), "1000");
  std::string msg;
  EXPECT_EQ(CastError(Value::Varchar("1e400"), DataType::Float64(), false, &msg), "22003");
  EXPECT_EQ(msg, "\"1e400\" is out of range for type double precision");
  EXPECT_EQ(CastError(Value::Varchar("1e-400"), DataType::Float64()), "22003");
  EXPECT_EQ(CastError(Value::Varchar("1e40"), DataType::Float32(), false, &msg), "22003");
  EXPECT_EQ(msg, "\"1e40\" is out of range for type real");
  EXPECT_EQ(CastError(Value::Varchar("x"), DataType::Float64(), false, &msg), "22P02");
  EXPECT_EQ(msg, "invalid input syntax for type double precision: \"x\"");
}

TEST_F(CastTest, ParseNumericAndTypmod) {
  EXPECT_EQ(CastText(" 1.50 ", DataType::Numeric()), "1.50");
  EXPECT_EQ(CastText("1.555", DataType(TypeId::kNumeric, 5, 2)), "1.56");
  EXPECT_EQ(Cast(Value::Int32(7), DataType(TypeId::kNumeric, 5, 2)), "7.00");
  EXPECT_EQ(Cast(Value::Float64(2.345), DataType(TypeId::kNumeric, 10, 1)), "2.3");
  EXPECT_EQ(CastError(Value::Int32(1000), DataType(TypeId::kNumeric, 5, 2)), "22003");
  EXPECT_EQ(CastError(Value::Varchar("abc"), DataType::Numeric()), "22P02");
  // PostgreSQL 14 and later: float NaN and infinities are numeric's own.
  EXPECT_EQ(Cast(Value::Float64(std::nan("")), DataType::Numeric()), "NaN");
  EXPECT_EQ(Cast(Value::Float64(-INFINITY), DataType::Numeric()), "-Infinity");
  EXPECT_EQ(CastError(Value::Float64(INFINITY), DataType(TypeId::kNumeric, 5, 2)), "22003");
}

TEST_F(CastTest, ParseBytea) {
  EXPECT_EQ(CastText("\\x0102", DataType::Bytea()), "\\x0102");
  EXPECT_EQ(CastText("\\x 01 02", DataType::Bytea()), "\\x0102");
  EXPECT_EQ(CastText("abc\\001\\\\", DataType::Bytea()), "\\x616263015c");
  std::string msg;
  EXPECT_EQ(CastError(Value::Varchar("\\x0"), DataType::Bytea(), false, &msg), "22023");
  EXPECT_EQ(msg, "invalid hexadecimal data: odd number of digits");
  EXPECT_EQ(CastError(Value::Varchar("\\x0z"), DataType::Bytea(), false, &msg), "22023");
  EXPECT_EQ(msg, "invalid hexadecimal digit: \"z\"");
  EXPECT_EQ(CastError(Value::Varchar("a\\9"), DataType::Bytea(), false, &msg), "22P02");
  EXPECT_EQ(msg, "invalid input syntax for type bytea");
}

TEST_F(CastTest, ParseTextFunction) {
  Value v = ParseText("42", DataType::Int16(), ctx_);
  EXPECT_EQ(v.type().id, TypeId::kInt16);
  EXPECT_EQ(v.int_value(), 42);
  EXPECT_EQ(ParseText("2024-01-31", DataType::Date(), ctx_).int_value(), DaysFromCivil(2024, 1, 31));
  EXPECT_EQ(FormatValueText(ParseText("1 day 02:00:00", DataType::Interval(), ctx_), ctx_), "1 day 02:00:00");
  EXPECT_EQ(ParseText("abc", DataType(TypeId::kVarchar, 3, -1), ctx_).string_value(), "abc");
  EXPECT_THROW(ParseText("abcd", DataType(TypeId::kVarchar, 3, -1), ctx_), SqlError);
  Value n = ParseText("1.234", DataType(TypeId::kNumeric, 4, 2), ctx_);
  EXPECT_EQ(FormatValueText(n, ctx_), "1.23");
}

TEST_F(CastTest, IntegerNarrowing) {
  std::string msg;
  EXPECT_EQ(CastError(Value::Int32(32768), DataType::Int16(), false, &msg), "22003");
  EXPECT_EQ(msg, "smallint out of range");
  EXPECT_EQ(CastError(Value::Int64(int64_t{1} << 31), DataType::Int32(), false, &msg), "22003");
  EXPECT_EQ(msg, "integer out of range");
  EXPECT_EQ(Cast(Value::Int64(-32768), DataType::Int16()), "-32768");
  EXPECT_EQ(Cast(Value::Int16(5), DataType::Int64()), "5");
}

TEST_F(CastTest, FloatToIntRoundsHalfToEven) {
  EXPECT_EQ(Cast(Value::Float64(1.5), DataType::Int32()), "2");
  EXPECT_EQ(Cast(Value::Float64(2.5), DataType::Int32()), "2");
  EXPECT_EQ(Cast(Value::Float64(-2.5), DataType::Int32()), "-2");
  EXPECT_EQ(Cast(Value::Float64(-0.5), DataType::Int32()), "0");
  EXPECT_EQ(Cast(Value::Float32(2.5), DataType::Int32()), "2");
  EXPECT_EQ(Cast(Value::Float64(-2147483648.0), DataType::Int32()), "-2147483648");
  std::string msg;
  EXPECT_EQ(CastError(Value::Float64(32767.5), DataType::Int16(), false, &msg), "22003");
  EXPECT_EQ(msg, "smallint out of range");
  EXPECT_EQ(CastError(Value::Float64(2147483647.5), DataType::Int32()), "22003");
  EXPECT_EQ(CastError(Value::Float64(9.3e18), DataType::Int64(), false, &msg), "22003");
  EXPECT_EQ(msg, "bigint out of range");
  EXPECT_EQ(CastError(Value::Float64(std::nan("")), DataType::Int32()), "22003");
}

TEST_F(CastTest, NumericToIntRoundsHalfAwayFromZero) {
  EXPECT_EQ(Cast(Value::Numeric(DecimalFromString("2.5")), DataType::Int32()), "3");
  EXPECT_EQ(Cast(Value::Numeric(DecimalFromString("-2.5")), DataType::Int32()), "-3");
  EXPECT_EQ(Cast(Value::Numeric(DecimalFromString("2.4")), DataType::Int16()), "2");
  std::string msg;
  EXPECT_EQ(CastError(Value::Numeric(DecimalFromString("32767.5")), DataType::Int16(), false, &msg), "22003");
  EXPECT_EQ(msg, "smallint out of range");
  EXPECT_EQ(CastError(Value::Numeric(DecimalFromString("1e30")), DataType::Int64(), false, &msg), "22003");
  EXPECT_EQ(msg, "bigint out of range");
}

TEST_F(CastTest, FloatConversions) {
  EXPECT_EQ(Cast(Value::Float64(0.1), DataType::Float32()), "0.1");
  EXPECT_EQ(Cast(Value::Numeric(DecimalFromString("1.25")), DataType::Float64()), "1.25");
  EXPECT_EQ(Cast(Value::Int64(INT64_MAX), DataType::Float64()), "9.223372036854776e+18");
  std::string msg;
  EXPECT_EQ(CastError(Value::Float64(1e40), DataType::Float32(), false, &msg), "22003");
  EXPECT_EQ(msg, "value out of range: overflow");
  EXPECT_EQ(CastError(Value::Float64(1e-50), DataType::Float32(), false, &msg), "22003");
  EXPECT_EQ(msg, "value out of range: underflow");
  EXPECT_EQ(Cast(Value::Float64(INFINITY), DataType::Float32()), "Infinity");
}

TEST_F(CastTest, ToText) {
  EXPECT_EQ(Cast(Value::Boolean(true), DataType::Varchar()), "true");  // booltext, not boolout
  EXPECT_EQ(Cast(Value::Boolean(false), DataType::Varchar()), "false");
  EXPECT_EQ(Cast(Value::Int32(-5), DataType::Varchar()), "-5");
  EXPECT_EQ(Cast(Value::Float64(1e20), DataType::Varchar()), "1e+20");
  EXPECT_EQ(Cast(Value::Numeric(DecimalFromString("-0.010")), DataType::Varchar()), "-0.010");
  EXPECT_EQ(Cast(Value::Bytea("\x01"), DataType::Varchar()), "\\x01");
  EXPECT_EQ(Cast(Value::Null(DataType::Int32()), DataType::Varchar()), "NULL");
}

TEST_F(CastTest, VarcharLength) {
  DataType v3(TypeId::kVarchar, 3, -1);
  EXPECT_EQ(Cast(Value::Varchar("abcdef"), v3), "abc");  // explicit cast truncates
  EXPECT_EQ(Cast(Value::Int32(12345), v3), "123");
  EXPECT_EQ(Cast(Value::Varchar("héllo"), v3), "hél");  // characters, not bytes
  EXPECT_EQ(Cast(Value::Varchar("ab"), v3, true), "ab");
  EXPECT_EQ(Cast(Value::Varchar("abc   "), v3, true), "abc");  // only spaces cut: allowed
  EXPECT_EQ(Cast(Value::Varchar("héé"), v3, true), "héé");
  std::string msg;
  EXPECT_EQ(CastError(Value::Varchar("abcd"), v3, true, &msg), "22001");
  EXPECT_EQ(msg, "value too long for type character varying(3)");
  EXPECT_EQ(CastError(Value::Int32(12345), v3, true), "22001");
}

TEST_F(CastTest, BooleanAndInt) {
  EXPECT_EQ(Cast(Value::Int32(0), DataType::Boolean()), "f");
  EXPECT_EQ(Cast(Value::Int32(5), DataType::Boolean()), "t");
  EXPECT_EQ(Cast(Value::Boolean(true), DataType::Int32()), "1");
  EXPECT_TRUE(CanExplicitCast(DataType::Boolean(), DataType::Int32()));
  EXPECT_TRUE(CanExplicitCast(DataType::Int32(), DataType::Boolean()));
  EXPECT_FALSE(CanImplicitCast(DataType::Int32(), DataType::Boolean()));
  EXPECT_FALSE(CanExplicitCast(DataType::Int64(), DataType::Boolean()));
  EXPECT_FALSE(CanExplicitCast(DataType::Boolean(), DataType::Date()));
}

TEST_F(CastTest, DateTimeConversions) {
  int64_t day = DaysFromCivil(2024, 3, 5);
  int64_t ts = day * kMicrosPerDay + 13 * kMicrosPerHour + 30 * kMicrosPerMinute;
  EXPECT_EQ(Cast(Value::Date(day), DataType::Timestamp()), "2024-03-05 00:00:00");
  EXPECT_EQ(Cast(Value::Timestamp(ts), DataType::Date()), "2024-03-05");
  EXPECT_EQ(Cast(Value::Timestamp(-1), DataType::Date()), "1969-12-31");  // floors
  EXPECT_EQ(Cast(Value::Timestamp(ts), DataType::Time()), "13:30:00");
  EXPECT_EQ(Cast(Value::Timestamp(-kMicrosPerHour), DataType::Time()), "23:00:00");
  EXPECT_EQ(Cast(Value::Time(kMicrosPerHour), DataType::Interval()), "01:00:00");
  EXPECT_EQ(Cast(Value::IntervalValue(Interval{0, 1, 25 * kMicrosPerHour}), DataType::Time()), "01:00:00");

  ctx_.time_zone = *TimeZone::Lookup("America/New_York");
  EXPECT_EQ(Cast(Value::Date(day), DataType::Timestamptz()), "2024-03-05 00:00:00-05");
  Value tstz = CastValue(Value::Timestamp(ts), DataType::Timestamptz(), ctx_);
  EXPECT_EQ(tstz.int_value(), ts + 5 * kMicrosPerHour);
  EXPECT_EQ(Cast(tstz, DataType::Timestamp()), "2024-03-05 13:30:00");
  EXPECT_EQ(Cast(Value::Timestamptz(day * kMicrosPerDay + kMicrosPerHour), DataType::Date()), "2024-03-04");
  EXPECT_EQ(Cast(Value::Timestamptz(day * kMicrosPerDay + kMicrosPerHour), DataType::Time()), "20:00:00");
  EXPECT_EQ(Cast(Value::Varchar("2024-03-05 10:00:00+00"), DataType::Timestamptz()), "2024-03-05 05:00:00-05");
  EXPECT_EQ(Cast(Value::Varchar("2024-03-05 10:00"), DataType::Timestamptz()), "2024-03-05 10:00:00-05");
}

TEST_F(CastTest, TextRoundTrips) {
  EXPECT_EQ(CastText("1 year 2 mons", DataType::Interval()), "1 year 2 mons");
  EXPECT_EQ(CastText("13:45", DataType::Time()), "13:45:00");
  EXPECT_EQ(CastText("2024-01-31 13:45:00.5", DataType::Timestamp()), "2024-01-31 13:45:00.5");
  EXPECT_EQ(Cast(Value::IntervalValue(Interval{14, 3, 0}), DataType::Varchar()), "1 year 2 mons 3 days");
  EXPECT_EQ(CastError(Value::Varchar("nope"), DataType::Date()), "22007");
}

TEST_F(CastTest, VectorCastKeepsNulls) {
  Vector in(DataType::Varchar());
  in.AppendString("1");
  in.AppendNull();
  in.AppendString(" -3 ");
  Vector out = CastVector(in, DataType::Int32(), ctx_);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out.type().id, TypeId::kInt32);
  EXPECT_EQ(out.GetInt(0), 1);
  EXPECT_TRUE(out.IsNull(1));
  EXPECT_EQ(out.GetInt(2), -3);
}

TEST_F(CastTest, UnknownCastsLikeText) {
  Value lit = Value::FromString(DataType::Unknown(), "42");
  EXPECT_EQ(Cast(lit, DataType::Int64()), "42");
  EXPECT_EQ(Cast(lit, DataType::Varchar()), "42");
}

TEST_F(CastTest, ImplicitCastRules) {
  const DataType i2 = DataType::Int16(), i4 = DataType::Int32(), i8 = DataType::Int64(),
                 num = DataType::Numeric(), f4 = DataType::Float32(), f8 = DataType::Float64();
  EXPECT_TRUE(CanImplicitCast(i2, i4));
  EXPECT_TRUE(CanImplicitCast(i4, i8));
  EXPECT_TRUE(CanImplicitCast(i8, num));
  EXPECT_TRUE(CanImplicitCast(num, f4));
  EXPECT_TRUE(CanImplicitCast(f4, f8));
  EXPECT_TRUE(CanImplicitCast(i2, f8));
  EXPECT_FALSE(CanImplicitCast(f8, num));
  EXPECT_FALSE(CanImplicitCast(i8, i4));
  EXPECT_TRUE(CanImplicitCast(DataType::Unknown(), DataType::Date()));
  EXPECT_TRUE(CanImplicitCast(DataType::Date(), DataType::Timestamp()));
  EXPECT_TRUE(CanImplicitCast(DataType::Date(), DataType::Timestamptz()));
  EXPECT_TRUE(CanImplicitCast(DataType::Timestamp(), DataType::Timestamptz()));
  EXPECT_FALSE(CanImplicitCast(DataType::Timestamptz(), DataType::Timestamp()));
  EXPECT_TRUE(CanImplicitCast(DataType::Time(), DataType::Interval()));
  EXPECT_FALSE(CanImplicitCast(DataType::Int32(), DataType::Varchar()));
  EXPECT_TRUE(CanImplicitCast(DataType(TypeId::kVarchar, 5, -1), DataType::Varchar()));
  EXPECT_TRUE(CanExplicitCast(DataType::Float64(), DataType::Int16()));
  EXPECT_TRUE(CanExplicitCast(DataType::Interval(), DataType::Varchar()));
  EXPECT_TRUE(CanExplicitCast(DataType::Varchar(), DataType::Interval()));
  EXPECT_TRUE(CanExplicitCast(DataType::Timestamptz(), DataType::Date()));
  EXPECT_FALSE(CanExplicitCast(DataType::Date(), DataType::Time()));
}

TEST_F(CastTest, CommonSuperType) {
  auto common = [](DataType a, DataType b) { return CommonSuperType(a, b).id; };
  EXPECT_EQ(common(DataType::Int32(), DataType::Int64()), TypeId::kInt64);
  EXPECT_EQ(common(DataType::Int64(), DataType::Int32()), TypeId::kInt64);
  EXPECT_EQ(common(DataType::Int32(), DataType::Numeric()), TypeId::kNumeric);
  EXPECT_EQ(common(DataType::Numeric(), DataType::Float32()), TypeId::kFloat32);
  EXPECT_EQ(common(DataType::Float64(), DataType::Int16()), TypeId::kFloat64);
  EXPECT_EQ(common(DataType::Unknown(), DataType::Date()), TypeId::kDate);
  EXPECT_EQ(common(DataType::Unknown(), DataType::Unknown()), TypeId::kVarchar);
  EXPECT_EQ(common(DataType::Date(), DataType::Timestamptz()), TypeId::kTimestamptz);
  EXPECT_EQ(common(DataType::Timestamp(), DataType::Date()), TypeId::kTimestamp);
  EXPECT_EQ(common(DataType::Int32(), DataType::Varchar()), TypeId::kUnknown);
  EXPECT_EQ(common(DataType::Date(), DataType::Time()), TypeId::kUnknown);
  EXPECT_EQ(common(DataType::Time(), DataType::Interval()), TypeId::kUnknown);
  EXPECT_EQ(common(DataType::Boolean(), DataType::Int32()), TypeId::kUnknown);
  // Modifiers survive only when equal.
  DataType n52(TypeId::kNumeric, 5, 2), n61(TypeId::kNumeric, 6, 1);
  EXPECT_TRUE(CommonSuperType(n52, n52).SameWithModifiers(n52));
  EXPECT_EQ(CommonSuperType(n52, n61).precision, -1);
}

// COPY's text parsing (AppendParsedText) of doubles (from_chars) and
// integers (a fast path for plain digits) gives strtod's and strtoll's
// results: random decimals of every length, and the cases the fast path
// hands on to the general one.
TEST_F(CastTest, ParsedTextNumbersEqualTheCLibrary) {
  std::mt19937_64 rng(7);
  std::vector<std::string> texts = {"0", "-0", "1.", ".5", "-.5", "0.1", "9007199254740993", "123456789012345",
                                    "1234567890123456", "0.0000000000000000000001", "1e5", "000000000000000000001.25",
                                    "-99999999999999.9", "3.14159265358979", "1.000000000000000000000"};
  for (int i = 0; i < 20000; i++) {
    std::string t = rng() % 4 == 0 ? "-" : "";
    int before = static_cast<int>(rng() % 18), after = static_cast<int>(rng() % 24);
    for (int d = 0; d < before; d++) t += static_cast<char>('0' + rng() % 10);
    if (after || before == 0) t += ".";
    for (int d = 0; d < after; d++) t += static_cast<char>('0' + rng() % 10);
    if (before == 0 && after == 0) t += "0";
    texts.push_back(t);
  }
  for (const std::string& t : texts) {
    Vector out(DataType::Float64());
    AppendParsedText(t, DataType::Float64(), ctx_, &out);
    double expected = std::strtod(t.c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&expected, &out.floats()[0], sizeof(double)), 0) << t;  // bit for bit (-0 too)
  }
  for (const char* t : {"0", "-0", "+7", "007", "-9223372036854775808", "9223372036854775807", "123456789012345678"}) {
    Vector out(DataType::Int64());
    AppendParsedText(t, DataType::Int64(), ctx_, &out);
    EXPECT_EQ(out.GetInt(0), std::strtoll(t, nullptr, 10)) << t;
  }
  for (const char* bad : {"", "-", "+", "1 2", "12a", "9223372036854775808", "--1"}) {
    Vector out(DataType::Int64());
    EXPECT_THROW(AppendParsedText(bad, DataType::Int64(), ctx_, &out), SqlError) << bad;
  }
  Vector small(DataType::Int16());
  EXPECT_THROW(AppendParsedText("32768", DataType::Int16(), ctx_, &small), SqlError);
  AppendParsedText("-32768", DataType::Int16(), ctx_, &small);
  EXPECT_EQ(small.GetInt(0), -32768);
}

}  // namespace
}  // namespace freshet
