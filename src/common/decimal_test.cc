// Unit tests for Decimal. Expected values in the tables were produced by
// PostgreSQL 15 (numeric); "ERR xxxxx" means PostgreSQL raised that SQLSTATE.
// Where PostgreSQL's unbounded numeric and our 38-digit Decimal differ, the
// test says so explicitly (see Overflow* tests).
#include "common/decimal.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/encoding.h"
#include "common/error.h"
#include "common/value.h"

namespace freshet {
namespace {

// Runs `f` and returns its result, or "ERR <sqlstate>" if it threw SqlError.
std::string Outcome(const std::function<std::string()>& f) {
  try {
    return f();
  } catch (const SqlError& e) {
    return "ERR " + e.code();
  }
}

Decimal D(const char* s) { return DecimalFromString(s); }
std::string S(const Decimal& d) { return DecimalToString(d); }

struct Unary {
  const char* in;
  const char* want;
};

struct Binary {
  const char* a;
  const char* b;
  const char* want;
};

// numeric input -> output text.
const Unary kParse[] = {
    {"0", "0"},
    {"-0", "0"},
    {"1.5e3", "1500"},
    {"1.50e1", "15.0"},
    {"1e-3", "0.001"},
    {"-0.001", "-0.001"},
    {" 12 ", "12"},
    {"abc", "ERR 22P02"},
    {"1e-38", "0.00000000000000000000000000000000000001"},
    {".5", "0.5"},
    {"5.", "5"},
    {".", "ERR 22P02"},
    {" -1.2300 ", "-1.2300"},
    {"+3", "3"},
    {"1e", "ERR 22P02"},
    {"1.2.3", "ERR 22P02"},
    {"1 2", "ERR 22P02"},
    {"0.000", "0.000"},
    {"00012.3400", "12.3400"},
    {"1E+2", "100"},
    {"12abc", "ERR 22P02"},
    {"0x10", "ERR 22P02"},
    {"", "ERR 22P02"},
    {"   ", "ERR 22P02"},
    {"1e-0", "1"},
    {"123456789012345678901234567890.12345678", "123456789012345678901234567890.12345678"},
    {"99999999999999999999999999999999999999", "99999999999999999999999999999999999999"},
    {"-99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"},
    {"0.00000000000000000000000000000000000001", "0.00000000000000000000000000000000000001"},
    {"1.5e+3", "1500"},
    {"-1.5E-3", "-0.0015"},
    {"+.5", "0.5"},
    {"-.5e1", "-5"},
    {"1e100000000", "ERR 22003"},
    {"1e-100000000", "ERR 22003"},
    {"--1", "ERR 22P02"},
    {"+-1", "ERR 22P02"},
    {"1.5e3.0", "ERR 22P02"},
    {"1_000", "ERR 22P02"},
    {"\u0661", "ERR 22P02"},
};

const Binary kAdd[] = {
    {"1", "3", "4"},
    {"1.0", "3", "4.0"},
    {"10", "4", "14"},
    {"1", "3e10", "30000000001"},
    {"123456789012345678", "7", "123456789012345685"},
    {"2", "3", "5"},
    {"-2", "3", "1"},
    {"2", "-3", "-1"},
    {"0", "3", "3"},
    {"0.00", "3.000", "3.000"},
    {"1", "0", "1"},
    {"1", "7", "8"},
    {"100", "7", "107"},
    {"1e20", "3", "100000000000000000003"},
    {"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "0"},
    {"12345.678", "0.001", "12345.679"},
    {"0.0001", "3", "3.0001"},
    {"1", "10000", "10001"},
    {"1", "9999", "10000"},
    {"9999", "1", "10000"},
    {"10000", "1", "10001"},
    {"5", "2", "7"},
    {"-5", "2", "-3"},
    {"7.5", "2.5", "10.0"},
    {"2.5", "-7.5", "-5.0"},
    {"1.23456789", "1.1", "2.33456789"},
    {"0.1", "0.2", "0.3"},
    {"1.10", "2.205", "3.305"},
    {"-0.5", "0.5", "0.0"},
    {"123.456", "-0.0001", "123.4559"},
    {"2", "0.5", "2.5"},
    {"1e10", "1e-10", "10000000000.0000000001"},
    {"5.5", "-2", "3.5"},
    {"-5.5", "-2", "-7.5"},
    {"0.30", "0.1", "0.40"},
    {"1", "1", "2"},
    {"3", "1.5", "4.5"},
    {"1e37", "10", "10000000000000000000000000000000000010"},
};

const Binary kSub[] = {
    {"1", "3", "-2"},
    {"1.0", "3", "-2.0"},
    {"10", "4", "6"},
    {"1", "3e10", "-29999999999"},
    {"123456789012345678", "7", "123456789012345671"},
    {"2", "3", "-1"},
    {"-2", "3", "-5"},
    {"2", "-3", "5"},
    {"0", "3", "-3"},
    {"0.00", "3.000", "-3.000"},
    {"1", "0", "1"},
    {"1", "7", "-6"},
    {"100", "7", "93"},
    {"1e20", "3", "99999999999999999997"},
    {"12345.678", "0.001", "12345.677"},
    {"0.0001", "3", "-2.9999"},
    {"1", "10000", "-9999"},
    {"1", "9999", "-9998"},
    {"9999", "1", "9998"},
    {"10000", "1", "9999"},
    {"5", "2", "3"},
    {"-5", "2", "-7"},
    {"7.5", "2.5", "5.0"},
    {"2.5", "-7.5", "10.0"},
    {"1.23456789", "1.1", "0.13456789"},
    {"0.1", "0.2", "-0.1"},
    {"1.10", "2.205", "-1.105"},
    {"-0.5", "0.5", "-1.0"},
    {"123.456", "-0.0001", "123.4561"},
    {"2", "0.5", "1.5"},
    {"1e10", "1e-10", "9999999999.9999999999"},
    {"5.5", "-2", "7.5"},
    {"-5.5", "-2", "-3.5"},
    {"0.30", "0.1", "0.20"},
    {"1", "1", "0"},
    {"3", "1.5", "1.5"},
    {"1e37", "10", "9999999999999999999999999999999999990"},
};

const Binary kMul[] = {
    {"1", "3", "3"},
    {"1.0", "3", "3.0"},
    {"10", "4", "40"},
    {"1", "3e10", "30000000000"},
    {"123456789012345678", "7", "864197523086419746"},
    {"2", "3", "6"},
    {"-2", "3", "-6"},
    {"2", "-3", "-6"},
    {"0", "3", "0"},
    {"0.00", "3.000", "0.00000"},
    {"1", "0", "0"},
    {"1", "7", "7"},
    {"100", "7", "700"},
    {"1e20", "3", "300000000000000000000"},
    {"12345.678", "0.001", "12.345678"},
    {"0.0001", "3", "0.0003"},
    {"1", "10000", "10000"},
    {"1", "9999", "9999"},
    {"9999", "1", "9999"},
    {"10000", "1", "10000"},
    {"5", "2", "10"},
    {"-5", "2", "-10"},
    {"7.5", "2.5", "18.75"},
    {"2.5", "-7.5", "-18.75"},
    {"1.23456789", "1.1", "1.358024679"},
    {"0.1", "0.2", "0.02"},
    {"1.10", "2.205", "2.42550"},
    {"-0.5", "0.5", "-0.25"},
    {"123.456", "-0.0001", "-0.0123456"},
    {"2", "0.5", "1.0"},
    {"1e10", "1e-10", "1.0000000000"},
    {"5.5", "-2", "-11.0"},
    {"-5.5", "-2", "11.0"},
    {"0.30", "0.1", "0.030"},
    {"1", "1", "1"},
    {"3", "1.5", "4.5"},
};

const Binary kDiv[] = {
    {"1", "3", "0.33333333333333333333"},
    {"1.0", "3", "0.33333333333333333333"},
    {"10", "4", "2.5000000000000000"},
    {"1", "3e10", "0.0000000000333333333333333333"},
    {"123456789012345678", "7", "17636684144620811"},
    {"2", "3", "0.66666666666666666667"},
    {"-2", "3", "-0.66666666666666666667"},
    {"2", "-3", "-0.66666666666666666667"},
    {"0", "3", "0.00000000000000000000"},
    {"0.00", "3.000", "0.00000000000000000000"},
    {"1", "0", "ERR 22012"},
    {"1", "7", "0.14285714285714285714"},
    {"100", "7", "14.2857142857142857"},
    {"1e20", "3", "33333333333333333333"},
    {"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
     "-1.00000000000000000000"},
    {"12345.678", "0.001", "12345678.000000000000"},
    {"0.0001", "3", "0.000033333333333333333333"},
    {"1", "10000", "0.000100000000000000000000"},
    {"1", "9999", "0.00010001000100010001"},
    {"9999", "1", "9999.0000000000000000"},
    {"10000", "1", "10000.0000000000000000"},
    {"5", "2", "2.5000000000000000"},
    {"-5", "2", "-2.5000000000000000"},
    {"7.5", "2.5", "3.0000000000000000"},
    {"2.5", "-7.5", "-0.33333333333333333333"},
    {"1.23456789", "1.1", "1.12233444545454545455"},
    {"0.1", "0.2", "0.50000000000000000000"},
    {"1.10", "2.205", "0.49886621315192743764"},
    {"-0.5", "0.5", "-1.00000000000000000000"},
    {"123.456", "-0.0001", "-1234560.000000000000"},
    {"2", "0.5", "4.0000000000000000"},
    {"1e10", "1e-10", "100000000000000000000.0000000000"},
    {"5.5", "-2", "-2.7500000000000000"},
    {"-5.5", "-2", "2.7500000000000000"},
    {"0.30", "0.1", "3.0000000000000000"},
    {"1", "1", "1.00000000000000000000"},
    {"3", "1.5", "2.0000000000000000"},
    {"1e37", "10", "1000000000000000000000000000000000000"},
};

const Binary kMod[] = {
    {"1", "3", "1"},
    {"1.0", "3", "1.0"},
    {"10", "4", "2"},
    {"1", "3e10", "1"},
    {"123456789012345678", "7", "1"},
    {"2", "3", "2"},
    {"-2", "3", "-2"},
    {"2", "-3", "2"},
    {"0", "3", "0"},
    {"0.00", "3.000", "0.000"},
    {"1", "0", "ERR 22012"},
    {"1", "7", "1"},
    {"100", "7", "2"},
    {"1e20", "3", "1"},
    {"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "0"},
    {"12345.678", "0.001", "0.000"},
    {"0.0001", "3", "0.0001"},
    {"1", "10000", "1"},
    {"1", "9999", "1"},
    {"9999", "1", "0"},
    {"10000", "1", "0"},
    {"5", "2", "1"},
    {"-5", "2", "-1"},
    {"7.5", "2.5", "0.0"},
    {"2.5", "-7.5", "2.5"},
    {"1.23456789", "1.1", "0.13456789"},
    {"0.1", "0.2", "0.1"},
    {"1.10", "2.205", "1.100"},
    {"-0.5", "0.5", "0.0"},
    {"123.456", "-0.0001", "0.0000"},
    {"2", "0.5", "0.0"},
    {"1e10", "1e-10", "0.0000000000"},
    {"5.5", "-2", "1.5"},
    {"-5.5", "-2", "-1.5"},
    {"0.30", "0.1", "0.00"},
    {"1", "1", "0"},
    {"3", "1.5", "0.0"},
    {"1e37", "10", "0"},
};

// round(a, b) and trunc(a, b).
const Binary kRound[] = {
    {"1.5", "0", "2"},
    {"2.5", "0", "3"},
    {"-2.5", "0", "-3"},
    {"-1.45", "1", "-1.5"},
    {"1.45", "1", "1.5"},
    {"1234.5678", "-2", "1200"},
    {"1234.5678", "2", "1234.57"},
    {"1.2", "5", "1.20000"},
    {"-0.4", "0", "0"},
    {"99999.5", "0", "100000"},
    {"5", "-1", "10"},
    {"4", "-1", "0"},
    {"-15", "-1", "-20"},
    {"0.5", "-1", "0"},
    {"123", "-5", "0"},
    {"9.99", "1", "10.0"},
    {"0.5", "0", "1"},
    {"-0.5", "0", "-1"},
    {"0.05", "1", "0.1"},
    {"-0.05", "1", "-0.1"},
    {"1.0000", "2", "1.00"},
    {"555", "-2", "600"},
    {"-555", "-2", "-600"},
    {"0", "3", "0.000"},
};

const Binary kTrunc[] = {
    {"1.5", "0", "1"},
    {"2.5", "0", "2"},
    {"-2.5", "0", "-2"},
    {"-1.45", "1", "-1.4"},
    {"1.45", "1", "1.4"},
    {"1234.5678", "-2", "1200"},
    {"1234.5678", "2", "1234.56"},
    {"1.2", "5", "1.20000"},
    {"-0.4", "0", "0"},
    {"99999.5", "0", "99999"},
    {"5", "-1", "0"},
    {"4", "-1", "0"},
    {"-15", "-1", "-10"},
    {"0.5", "-1", "0"},
    {"123", "-5", "0"},
    {"9.99", "1", "9.9"},
    {"0.5", "0", "0"},
    {"-0.5", "0", "0"},
    {"0.05", "1", "0.0"},
    {"-0.05", "1", "0.0"},
    {"1.0000", "2", "1.00"},
    {"555", "-2", "500"},
    {"-555", "-2", "-500"},
    {"0", "3", "0.000"},
};

const Unary kCeil[] = {
    {"1.5", "2"},  {"-1.5", "-1"}, {"1.0", "1"},     {"-1.0", "-1"},   {"0.1", "1"},
    {"-0.1", "0"}, {"0", "0"},     {"12.000", "12"}, {"-0.0001", "0"}, {"99.99", "100"},
};

const Unary kFloor[] = {
    {"1.5", "1"},   {"-1.5", "-2"}, {"1.0", "1"},     {"-1.0", "-1"},    {"0.1", "0"},
    {"-0.1", "-1"}, {"0", "0"},     {"12.000", "12"}, {"-0.0001", "-1"}, {"99.99", "99"},
};

// float8 -> numeric (the double is given as text).
const Unary kFromDouble[] = {
    {"0.1", "0.1"},
    {"1e20", "100000000000000000000"},
    {"1.5e-7", "0.00000015"},
    {"123456789.123456789", "123456789.123457"},
    {"3.141592653589793", "3.14159265358979"},
    {"1e15", "1000000000000000"},
    {"1e16", "10000000000000000"},
    {"123456789012345678", "123456789012346000"},
    {"1e-20", "0.00000000000000000001"},
    {"2.5", "2.5"},
    {"1e37", "10000000000000000000000000000000000000"},
    {"0.3333333333333333", "0.333333333333333"},
    {"-2.5e-5", "-0.000025"},
    {"100", "100"},
    {"12345678901234567890", "12345678901234600000"},
    {"0.000001", "0.000001"},
    {"1e-37", "0.0000000000000000000000000000000000001"},
};
TEST(DecimalTest, ParseAndFormatMatchPostgres) {
  for (const Unary& c : kParse) {
    EXPECT_EQ(Outcome([&] { return S(D(c.in)); }), c.want) << "input: '" << c.in << "'";
  }
}

TEST(DecimalTest, ParseKeepsScaleAsWritten) {
  Decimal d = D("1.50");
  EXPECT_EQ(d.value, 150);
  EXPECT_EQ(d.scale, 2);
  d = D("1.5e3");  // PostgreSQL: display scale max(0, 1 - 3)
  EXPECT_EQ(d.value, 1500);
  EXPECT_EQ(d.scale, 0);
  d = D("1.50e1");
  EXPECT_EQ(d.value, 150);
  EXPECT_EQ(d.scale, 1);
  d = D("-0.000");
  EXPECT_EQ(d.value, 0);
  EXPECT_EQ(d.scale, 3);
  EXPECT_EQ(S(D("\t 7 \n")), "7");
}

TEST(DecimalTest, ParseErrorsCarrySqlstateAndMessage) {
  try {
    D("abc");
    FAIL() << "expected an error";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), sqlstate::kInvalidTextRepresentation);
    EXPECT_EQ(e.message(), "invalid input syntax for type numeric: \"abc\"");
  }
  try {
    D("1e39");
    FAIL() << "expected an error";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), sqlstate::kNumericValueOutOfRange);
    EXPECT_EQ(e.message(), "value overflows numeric format");
  }
}

// PostgreSQL's numeric is unbounded; we stop at 38 significant digits and a
// scale of 38, and raise 22003 rather than round or wrap.
TEST(DecimalTest, OverflowBeyond38Digits) {
  for (const char* s : {"100000000000000000000000000000000000000", "1e38", "1e39", "-1e38", "1e-39",
                        "0.000000000000000000000000000000000000001",
                        "1.00000000000000000000000000000000000000", "0e-39"}) {
    EXPECT_EQ(Outcome([&] { return S(D(s)); }), "ERR 22003") << s;
  }
  EXPECT_EQ(S(D("9.9999999999999999999999999999999999999")), "9.9999999999999999999999999999999999999");
  EXPECT_EQ(S(D("0.99999999999999999999999999999999999999")), "0.99999999999999999999999999999999999999");
  const char* max = "99999999999999999999999999999999999999";
  EXPECT_EQ(Outcome([&] { return S(DecimalAdd(D(max), D("1"))); }), "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalSub(D("-99999999999999999999999999999999999999"), D("1"))); }),
            "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalMul(D(max), D("-99999999999999999999999999999999999999"))); }),
            "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalMul(D("1e37"), D("10"))); }), "ERR 22003");
  // The product's scale is the sum of the scales: 0.1^20 * 0.1^19 needs scale 39.
  EXPECT_EQ(Outcome([&] { return S(DecimalMul(D("0.00000000000000000001"), D("0.0000000000000000001"))); }),
            "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalFromDouble(1e38)); }), "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalFromDouble(1.7976931348623157e308)); }), "ERR 22003");
}

TEST(DecimalTest, AddSubtractMatchPostgres) {
  for (const Binary& c : kAdd)
    EXPECT_EQ(Outcome([&] { return S(DecimalAdd(D(c.a), D(c.b))); }), c.want) << c.a << " + " << c.b;
  for (const Binary& c : kSub)
    EXPECT_EQ(Outcome([&] { return S(DecimalSub(D(c.a), D(c.b))); }), c.want) << c.a << " - " << c.b;
}

TEST(DecimalTest, AddAlignsBeyond128BitsWhenTheResultFits) {
  // 17000000000000000000000000000000000000 aligned to scale 1 exceeds 2^127,
  // yet the sum fits in 38 digits.
  EXPECT_EQ(S(DecimalAdd(D("17000000000000000000000000000000000000"),
                         D("-9899999999999999999999999999999999999.9"))),
            "7100000000000000000000000000000000000.1");
  EXPECT_EQ(S(DecimalAdd(D("99999999999999999999999999999999999999"),
                         D("-99999999999999999999999999999999999999"))),
            "0");
  EXPECT_EQ(S(DecimalSub(D("1.5"), D("1.50"))), "0.00");
}

TEST(DecimalTest, MultiplyMatchesPostgres) {
  for (const Binary& c : kMul)
    EXPECT_EQ(Outcome([&] { return S(DecimalMul(D(c.a), D(c.b))); }), c.want) << c.a << " * " << c.b;
}

TEST(DecimalTest, DivideMatchesPostgres) {
  for (const Binary& c : kDiv)
    EXPECT_EQ(Outcome([&] { return S(DecimalDiv(D(c.a), D(c.b))); }), c.want) << c.a << " / " << c.b;
}

TEST(DecimalTest, DivideScaleRule) {
  // At least 16 significant digits (select_div_scale works on base-10000 digits).
  EXPECT_EQ(S(DecimalDiv(D("1"), D("3"))), "0.33333333333333333333");
  EXPECT_EQ(S(DecimalDiv(D("10"), D("4"))), "2.5000000000000000");
  EXPECT_EQ(S(DecimalDiv(D("10000"), D("3"))), "3333.3333333333333333");
  // Never below either input's scale.
  EXPECT_EQ(S(DecimalDiv(D("1.0000000000000000000000"), D("2"))), "0.5000000000000000000000");
  EXPECT_EQ(S(DecimalDiv(D("6"), D("2.00000000000000000000"))), "3.00000000000000000000");
  // Half away from zero.
  EXPECT_EQ(S(DecimalDiv(D("2"), D("3"))), "0.66666666666666666667");
  EXPECT_EQ(S(DecimalDiv(D("-2"), D("3"))), "-0.66666666666666666667");
  EXPECT_EQ(S(DecimalDiv(D("0.5"), D("1000000000000000000"))), "0.000000000000000000500000000000000000");
  EXPECT_EQ(S(DecimalDiv(D("1e30"), D("7"))), "142857142857142857142857142857");
}

// PostgreSQL would keep 16+ significant digits; with 38 digits at most we
// give up fractional digits instead of failing.
TEST(DecimalTest, DivideShrinksScaleToFit38Digits) {
  EXPECT_EQ(S(DecimalDiv(D("1"), D("99999999999999999999999999999999999999"))),
            "0.00000000000000000000000000000000000001");  // PostgreSQL: 56 fractional digits
  EXPECT_EQ(S(DecimalDiv(D("99999999999999999999999999999999999999"), D("3"))),
            "33333333333333333333333333333333333333");
  EXPECT_EQ(S(DecimalDiv(D("1"), D("1e-30"))), "1000000000000000000000000000000.0000000");
  EXPECT_EQ(S(DecimalDiv(D("99999999999999999999999999999999999999"),
                         D("9.9999999999999999999999999999999999999"))),
            "10000000000000000000000000000000000000");  // PostgreSQL: the same with 37 zero decimals
  EXPECT_EQ(S(DecimalDiv(D("2"), D("0.00000000000000000000000000000000000003"))),
            "66666666666666666666666666666666666667");  // 38 integer digits leave no decimals
  EXPECT_EQ(Outcome([&] { return S(DecimalDiv(D("99999999999999999999999999999999999999"), D("0.1"))); }),
            "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalDiv(D("1e37"), D("0.01"))); }), "ERR 22003");
}

TEST(DecimalTest, DivisionByZero) {
  for (const char* zero : {"0", "0.00", "-0"}) {
    try {
      DecimalDiv(D("1"), D(zero));
      FAIL();
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), sqlstate::kDivisionByZero);
      EXPECT_EQ(e.message(), "division by zero");
    }
    EXPECT_EQ(Outcome([&] { return S(DecimalMod(D("1"), D(zero))); }), "ERR 22012");
  }
}

TEST(DecimalTest, ModuloMatchesPostgres) {
  for (const Binary& c : kMod)
    EXPECT_EQ(Outcome([&] { return S(DecimalMod(D(c.a), D(c.b))); }), c.want) << c.a << " % " << c.b;
  // The sign follows the dividend; scale is max of the scales.
  EXPECT_EQ(S(DecimalMod(D("-7"), D("3"))), "-1");
  EXPECT_EQ(S(DecimalMod(D("7"), D("-3"))), "1");
  EXPECT_EQ(S(DecimalMod(D("-6"), D("3"))), "0");
  EXPECT_EQ(S(DecimalMod(D("5"), D("0.30"))), "0.20");
  // Operands whose alignment exceeds 128 bits.
  EXPECT_EQ(S(DecimalMod(D("99999999999999999999999999999999999999"),
                         D("0.0000000000000000000000000000000000007"))),
            "0.0000000000000000000000000000000000003");
  EXPECT_EQ(S(DecimalMod(D("0.5"), D("99999999999999999999999999999999999999"))), "0.5");
}

TEST(DecimalTest, RoundTruncCeilFloorMatchPostgres) {
  for (const Binary& c : kRound) {
    EXPECT_EQ(Outcome([&] { return S(DecimalRound(D(c.a), std::stoi(c.b))); }), c.want)
        << "round(" << c.a << "," << c.b << ")";
  }
  for (const Binary& c : kTrunc) {
    EXPECT_EQ(Outcome([&] { return S(DecimalTrunc(D(c.a), std::stoi(c.b))); }), c.want)
        << "trunc(" << c.a << "," << c.b << ")";
  }
  for (const Unary& c : kCeil)
    EXPECT_EQ(Outcome([&] { return S(DecimalCeil(D(c.in))); }), c.want) << "ceil " << c.in;
  for (const Unary& c : kFloor)
    EXPECT_EQ(Outcome([&] { return S(DecimalFloor(D(c.in))); }), c.want) << "floor " << c.in;
}

TEST(DecimalTest, RoundEdges) {
  EXPECT_EQ(S(DecimalRound(D("123.456"), -100)), "0");
  EXPECT_EQ(S(DecimalRound(D("123.456"), INT_MIN)), "0");
  EXPECT_EQ(S(DecimalTrunc(D("-123.456"), INT_MIN)), "0");
  EXPECT_EQ(S(DecimalRound(D("0.5"), 38)), "0.50000000000000000000000000000000000000");
  EXPECT_EQ(S(DecimalRound(D("1.5"), 37)), "1.5000000000000000000000000000000000000");
  EXPECT_EQ(Outcome([&] { return S(DecimalRound(D("1.5"), 38)); }), "ERR 22003");  // 39 digits
  EXPECT_EQ(Outcome([&] { return S(DecimalRound(D("0.5"), 39)); }), "ERR 22003");
  EXPECT_EQ(Outcome([&] { return S(DecimalRound(D("10.5"), 37)); }), "ERR 22003");
  EXPECT_EQ(S(DecimalRound(D("9.9999999999999999999999999999999999999"), 0)), "10");
  EXPECT_EQ(Outcome([&] { return S(DecimalRound(D("99999999999999999999999999999999999999"), -1)); }),
            "ERR 22003");
  EXPECT_EQ(S(DecimalRound(D("-0.0001"), 2)), "0.00");  // no negative zero
  EXPECT_EQ(S(DecimalCeil(D("-0.5"))), "0");
}

TEST(DecimalTest, FromDoubleMatchesPostgres) {
  for (const Unary& c : kFromDouble) {
    EXPECT_EQ(Outcome([&] { return S(DecimalFromDouble(std::stod(c.in))); }), c.want) << c.in;
  }
  EXPECT_EQ(S(DecimalFromDouble(-0.0)), "0");
  EXPECT_EQ(S(DecimalFromDouble(NAN)), "NaN");  // PostgreSQL 14 and later
  EXPECT_EQ(S(DecimalFromDouble(INFINITY)), "Infinity");
  EXPECT_EQ(S(DecimalFromDouble(-INFINITY)), "-Infinity");
  EXPECT_EQ(Outcome([&] { return S(DecimalFromDouble(1e-40)); }), "ERR 22003");  // needs scale 40
}

TEST(DecimalTest, ToDouble) {
  EXPECT_EQ(DecimalToDouble(D("0.1")), 0.1);
  EXPECT_EQ(DecimalToDouble(D("-2.5")), -2.5);
  EXPECT_EQ(DecimalToDouble(D("0")), 0.0);
  EXPECT_EQ(DecimalToDouble(D("1e30")), 1e30);
  EXPECT_EQ(DecimalToDouble(D("0.33333333333333333333")), 1.0 / 3);
  EXPECT_EQ(DecimalToDouble(D("99999999999999999999999999999999999999")), 1e38);
  EXPECT_EQ(DecimalToDouble(D("0.00000000000000000000000000000000000001")), 1e-38);
}

TEST(DecimalTest, ToIntRoundsHalfAwayFromZero) {
  EXPECT_EQ(DecimalToInt(D("2.5")), 3);
  EXPECT_EQ(DecimalToInt(D("-2.5")), -3);
  EXPECT_EQ(DecimalToInt(D("2.4999")), 2);
  EXPECT_EQ(DecimalToInt(D("-0.4")), 0);
  EXPECT_EQ(DecimalToInt(D("9223372036854775807")), INT64_MAX);
  EXPECT_EQ(DecimalToInt(D("-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(DecimalToInt(D("9223372036854775806.5")), INT64_MAX);
  auto message = [](const Decimal& d, int64_t lo, int64_t hi) {
    try {
      DecimalToInt(d, lo, hi);
      return std::string("no error");
    } catch (const SqlError& e) {
      return e.code() + " " + e.message();
    }
  };
  EXPECT_EQ(message(D("9223372036854775807.5"), INT64_MIN, INT64_MAX), "22003 bigint out of range");
  EXPECT_EQ(message(D("-9223372036854775809"), INT64_MIN, INT64_MAX), "22003 bigint out of range");
  EXPECT_EQ(message(D("2147483647.5"), INT32_MIN, INT32_MAX), "22003 integer out of range");
  EXPECT_EQ(message(D("-32768.5"), INT16_MIN, INT16_MAX), "22003 smallint out of range");
  EXPECT_EQ(DecimalToInt(D("2147483647.4"), INT32_MIN, INT32_MAX), INT32_MAX);
  EXPECT_EQ(DecimalToInt(D("-32768.4"), INT16_MIN, INT16_MAX), INT16_MIN);
  EXPECT_EQ(message(D("1e30"), INT64_MIN, INT64_MAX), "22003 bigint out of range");
}

TEST(DecimalTest, FromIntNegAbs) {
  EXPECT_EQ(S(DecimalFromInt(0)), "0");
  EXPECT_EQ(S(DecimalFromInt(INT64_MIN)), "-9223372036854775808");
  EXPECT_EQ(S(DecimalFromInt(INT64_MAX)), "9223372036854775807");
  EXPECT_EQ(S(DecimalNeg(D("1.50"))), "-1.50");
  EXPECT_EQ(S(DecimalNeg(D("0.0"))), "0.0");
  EXPECT_EQ(S(DecimalAbs(D("-1.50"))), "1.50");
  EXPECT_EQ(S(DecimalAbs(D("2"))), "2");
}

TEST(DecimalTest, ToStringPrintsExactlyScaleDigits) {
  EXPECT_EQ(S(Decimal{150, 2}), "1.50");
  EXPECT_EQ(S(Decimal{-1, 3}), "-0.001");
  EXPECT_EQ(S(Decimal{12, 0}), "12");
  EXPECT_EQ(S(Decimal{0, 4}), "0.0000");
  EXPECT_EQ(S(Decimal{-5, 1}), "-0.5");
  EXPECT_EQ(S(Decimal{1, 38}), "0.00000000000000000000000000000000000001");
}

TEST(DecimalTest, CompareByValue) {
  EXPECT_EQ(DecimalCompare(D("1.0"), D("1.00")), 0);
  EXPECT_LT(DecimalCompare(D("1.0"), D("1.01")), 0);
  EXPECT_GT(DecimalCompare(D("-1"), D("-1.5")), 0);
  EXPECT_LT(DecimalCompare(D("-0.1"), D("0")), 0);
  EXPECT_EQ(DecimalCompare(D("0"), D("-0.000")), 0);
  EXPECT_GT(DecimalCompare(D("99999999999999999999999999999999999999"),
                           D("9999999999999999999999999999999999999.9")),
            0);  // aligning these needs more than 128 bits
  EXPECT_LT(DecimalCompare(D("-99999999999999999999999999999999999999"),
                           D("-9999999999999999999999999999999999999.9")),
            0);
  EXPECT_LT(DecimalCompare(D("0.00000000000000000000000000000000000001"), D("1")), 0);
}

TEST(DecimalTest, NormalizeAndHashIgnoreTrailingZeros) {
  EXPECT_EQ(S(DecimalNormalize(D("1.500"))), "1.5");
  EXPECT_EQ(S(DecimalNormalize(D("100"))), "100");
  EXPECT_EQ(S(DecimalNormalize(D("-0.000"))), "0");
  EXPECT_EQ(S(DecimalNormalize(D("10.00"))), "10");
  EXPECT_EQ(DecimalHash(D("1.5")), DecimalHash(D("1.500")));
  EXPECT_EQ(DecimalHash(D("0")), DecimalHash(D("0.00")));
  EXPECT_EQ(DecimalHash(D("-2")), DecimalHash(D("-2.0000")));
  EXPECT_NE(DecimalHash(D("1.5")), DecimalHash(D("15")));
  EXPECT_NE(DecimalHash(D("1")), DecimalHash(D("-1")));
  std::unordered_set<uint64_t> hashes;
  for (int i = -500; i <= 500; i++) hashes.insert(DecimalHash(Decimal{i, 2}));
  EXPECT_EQ(hashes.size(), 1001u);
}

TEST(DecimalTest, RescaleLikeNumericTypmod) {
  EXPECT_EQ(S(DecimalRescale(D("123.456"), 5, 2)), "123.46");
  EXPECT_EQ(S(DecimalRescale(D("-123.455"), 5, 2)), "-123.46");
  EXPECT_EQ(S(DecimalRescale(D("1.5"), 5, 3)), "1.500");
  EXPECT_EQ(S(DecimalRescale(D("0.001"), 3, 5)), "0.00100");  // scale > precision
  EXPECT_EQ(S(DecimalRescale(D("1234"), 2, -2)), "1200");     // negative scale
  EXPECT_EQ(S(DecimalRescale(D("0"), 1, 0)), "0");
  EXPECT_EQ(S(DecimalRescale(D("9.4"), 1, 0)), "9");
  auto detail = [](const char* v, int p, int s) {
    try {
      DecimalRescale(DecimalFromString(v), p, s);
      return std::string("no error");
    } catch (const SqlError& e) {
      return e.code() + " " + e.message() + " / " + e.detail();
    }
  };
  EXPECT_EQ(
      detail("1500", 3, 0),
      "22003 numeric field overflow / A field with precision 3, scale 0 must round to an absolute value "
      "less than 10^3.");
  EXPECT_EQ(
      detail("1.5", 3, 3),
      "22003 numeric field overflow / A field with precision 3, scale 3 must round to an absolute value "
      "less than 1.");
  EXPECT_EQ(
      detail("9.95", 2, 1),  // rounds up to 10.0
      "22003 numeric field overflow / A field with precision 2, scale 1 must round to an absolute value "
      "less than 10^1.");
  EXPECT_EQ(
      detail("0.01", 3, 5),
      "22003 numeric field overflow / A field with precision 3, scale 5 must round to an absolute value "
      "less than 10^-2.");
  EXPECT_EQ(
      detail("99999", 2, -2),
      "22003 numeric field overflow / A field with precision 2, scale -2 must round to an absolute value "
      "less than 10^4.");
}

// NaN and +-Infinity: PostgreSQL 15's arithmetic, order and hashing.
TEST(DecimalTest, SpecialValues) {
  const Decimal nan = DecimalFromString("NaN"), inf = DecimalFromString(" +inf "), ninf = DecimalFromString("-Infinity");
  EXPECT_TRUE(DecimalIsNaN(nan));
  EXPECT_EQ(DecimalToString(inf), "Infinity");
  EXPECT_EQ(DecimalToString(ninf), "-Infinity");
  EXPECT_EQ(DecimalToString(DecimalSub(inf, inf)), "NaN");
  EXPECT_EQ(DecimalToString(DecimalMul(ninf, DecimalFromString("-2"))), "Infinity");
  EXPECT_EQ(DecimalToString(DecimalMul(inf, DecimalFromString("0.0"))), "NaN");
  EXPECT_EQ(DecimalToString(DecimalDiv(DecimalFromString("7"), ninf)), "0");
  EXPECT_THROW(DecimalDiv(inf, DecimalFromString("0")), SqlError);
  EXPECT_EQ(DecimalToString(DecimalDiv(nan, DecimalFromString("0"))), "NaN");
  EXPECT_EQ(DecimalToString(DecimalMod(DecimalFromString("-5.5"), inf)), "-5.5");
  // -Infinity < finite < Infinity < NaN; NaN equals itself.
  std::vector<Decimal> ordered = {ninf, DecimalFromString("-1e30"), DecimalFromString("0"), DecimalFromString("1e30"), inf, nan};
  for (size_t i = 0; i < ordered.size(); i++)
    for (size_t j = 0; j < ordered.size(); j++) {
      int expected = i < j ? -1 : i > j ? 1 : 0;
      EXPECT_EQ(DecimalCompare(ordered[i], ordered[j]), expected) << i << " " << j;
      std::string ki, kj;
      EncodeKeyValue(Value::Numeric(ordered[i]), &ki);
      EncodeKeyValue(Value::Numeric(ordered[j]), &kj);
      EXPECT_EQ(ki < kj ? -1 : ki > kj ? 1 : 0, expected) << "key order " << i << " " << j;
    }
  EXPECT_EQ(DecimalHash(nan), DecimalHash(DecimalFromString("nan")));
  EXPECT_NE(DecimalHash(inf), DecimalHash(ninf));
  EXPECT_TRUE(std::isinf(DecimalToDouble(ninf)) && DecimalToDouble(ninf) < 0);
  EXPECT_TRUE(DecimalIsNaN(DecimalFromDouble(std::nan(""))));
  EXPECT_THROW(DecimalToInt(nan), SqlError);
  EXPECT_THROW(DecimalRescale(inf, 10, 2), SqlError);
  EXPECT_TRUE(DecimalIsNaN(DecimalRescale(nan, 10, 2)));
}

}  // namespace
}  // namespace freshet
