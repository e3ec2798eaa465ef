// Scalar functions called through FunctionRegistry. Expected values were
// checked against PostgreSQL 15 (psql), except GreptimeDB's mod/clamp/
// to_timezone, which follow GreptimeDB.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "expr/cast.h"
#include "expr/function_registry.h"

namespace freshet {
namespace {

Value I2(int64_t v) { return Value::Int16(v); }
Value I4(int64_t v) { return Value::Int32(v); }
Value I8(int64_t v) { return Value::Int64(v); }
Value F4(double v) { return Value::Float32(v); }
Value F8(double v) { return Value::Float64(v); }
Value Num(const char* s) { return Value::Numeric(DecimalFromString(s)); }
Value Str(std::string s) { return Value::Varchar(std::move(s)); }
Value Null(DataType t) { return Value::Null(t); }

class FunctionsTest : public ::testing::Test {
 protected:
  // The signature of `name` whose argument types are exactly `types`.
  const ScalarFunction& Find(const std::string& name, const std::vector<DataType>& types) {
    const auto* fns = FunctionRegistry::Instance().Lookup(name);
    if (fns != nullptr) {
      for (const auto& f : *fns) {
        bool match = f.variadic ? !types.empty() : f.arg_types.size() == types.size();
        for (size_t i = 0; match && i < types.size(); i++) {
          match = types[i].id == (f.variadic ? f.arg_types[0] : f.arg_types[i]).id;
        }
        if (match) return f;
      }
    }
    std::string sig;
    for (const auto& t : types) sig += t.ToString() + ",";
    throw std::runtime_error("no signature " + name + "(" + sig + ")");
  }

  Vector CallVectors(const std::string& name, const std::vector<Vector>& args, size_t n) {
    std::vector<DataType> types;
    std::vector<const Vector*> ptrs;
    for (const auto& a : args) {
      types.push_back(a.type());
      ptrs.push_back(&a);
    }
    const ScalarFunction& f = Find(name, types);
    Vector out(f.return_type);
    f.fn(ptrs, n, &out, ctx_);
    EXPECT_EQ(out.size(), n);
    return out;
  }

  Value Call(const std::string& name, const std::vector<Value>& args) {
    std::vector<Vector> vecs;
    for (const auto& a : args) vecs.push_back(Vector::Constant(a, 1));
    return CallVectors(name, vecs, 1).GetValue(0);
  }

  // Text of name(args...) for one row, "NULL" for NULL.
  std::string Eval(const std::string& name, const std::vector<Value>& args) {
    Value v = Call(name, args);
    return v.is_null() ? "NULL" : FormatValueText(v, ctx_);
  }

  // SQLSTATE of the error name(args...) raises ("" if none); *message gets its text.
  std::string Error(const std::string& name, const std::vector<Value>& args, std::string* message = nullptr) {
    try {
      Call(name, args);
    } catch (const SqlError& e) {
      if (message) *message = e.message();
      return e.code();
    }
    return "";
  }

  Value Date(const char* s) { return ParseText(s, DataType::Date(), ctx_); }
  Value Time(const char* s) { return ParseText(s, DataType::Time(), ctx_); }
  Value Ts(const char* s) { return ParseText(s, DataType::Timestamp(), ctx_); }
  Value Tstz(const char* s) { return ParseText(s, DataType::Timestamptz(), ctx_); }
  Value Iv(const char* s) { return ParseText(s, DataType::Interval(), ctx_); }

  EvalContext ctx_;
};

// ---- Arithmetic ----------------------------------------------------------------

TEST_F(FunctionsTest, IntegerArithmetic) {
  EXPECT_EQ(Eval("+", {I4(1), I4(2)}), "3");
  EXPECT_EQ(Eval("-", {I8(1), I8(5)}), "-4");
  EXPECT_EQ(Eval("*", {I2(-3), I2(7)}), "-21");
  EXPECT_EQ(Eval("/", {I4(7), I4(2)}), "3");
  EXPECT_EQ(Eval("/", {I4(-7), I4(2)}), "-3");
  EXPECT_EQ(Eval("/", {I4(7), I4(-2)}), "-3");
  EXPECT_EQ(Eval("%", {I4(7), I4(-3)}), "1");
  EXPECT_EQ(Eval("%", {I4(-7), I4(3)}), "-1");
  EXPECT_EQ(Eval("%", {I4(INT32_MIN), I4(-1)}), "0");
  EXPECT_EQ(Eval("neg", {I4(5)}), "-5");
  EXPECT_EQ(Eval("+", {I4(1), Null(DataType::Int32())}), "NULL");
}

TEST_F(FunctionsTest, IntegerOverflow) {
  std::string msg;
  EXPECT_EQ(Error("+", {I4(INT32_MAX), I4(1)}, &msg), "22003");
  EXPECT_EQ(msg, "integer out of range");
  EXPECT_EQ(Error("+", {I2(32767), I2(1)}, &msg), "22003");
  EXPECT_EQ(msg, "smallint out of range");
  EXPECT_EQ(Error("*", {I8(INT64_MAX), I8(2)}, &msg), "22003");
  EXPECT_EQ(msg, "bigint out of range");
  EXPECT_EQ(Error("-", {I8(INT64_MIN), I8(1)}), "22003");
  EXPECT_EQ(Error("*", {I4(65536), I4(65536)}), "22003");
  EXPECT_EQ(Error("/", {I4(INT32_MIN), I4(-1)}, &msg), "22003");
  EXPECT_EQ(msg, "integer out of range");
  EXPECT_EQ(Error("neg", {I2(-32768)}, &msg), "22003");
  EXPECT_EQ(msg, "smallint out of range");
  EXPECT_EQ(Error("neg", {I8(INT64_MIN)}), "22003");
}

TEST_F(FunctionsTest, DivisionByZero) {
  std::string msg;
  EXPECT_EQ(Error("/", {I4(1), I4(0)}, &msg), "22012");
  EXPECT_EQ(msg, "division by zero");
  EXPECT_EQ(Error("%", {I8(5), I8(0)}), "22012");
  EXPECT_EQ(Error("/", {F8(1), F8(0)}), "22012");
  EXPECT_EQ(Error("/", {F4(1), F4(0)}), "22012");
  EXPECT_EQ(Error("/", {Num("1"), Num("0")}), "22012");
  EXPECT_EQ(Error("%", {Num("1"), Num("0")}), "22012");
  EXPECT_EQ(Error("mod", {I4(5), I4(0)}), "22012");
  EXPECT_EQ(Error("mod", {F8(5.5), F8(0)}), "22012");
  EXPECT_EQ(Eval("/", {F8(NAN), F8(0)}), "NaN");  // PostgreSQL lets NaN through
}

TEST_F(FunctionsTest, ModTruncatesTowardZero) {
  EXPECT_EQ(Eval("mod", {I4(18), I4(4)}), "2");
  EXPECT_EQ(Eval("mod", {I4(-17), I4(8)}), "-1");
  EXPECT_EQ(Eval("mod", {I4(5), I4(-5)}), "0");
  EXPECT_EQ(Eval("mod", {I4(-6), I4(-5)}), "-1");
  EXPECT_EQ(Eval("mod", {I2(-7), I2(3)}), "-1");
  EXPECT_EQ(Eval("mod", {I8(INT64_MIN), I8(-1)}), "0");
  EXPECT_EQ(Eval("mod", {F8(18.0), F8(4.0)}), "2");
  EXPECT_EQ(Eval("mod", {F8(-17.5), F8(8)}), "-1.5");
  EXPECT_EQ(Eval("mod", {F4(5.5), F4(2)}), "1.5");
  EXPECT_EQ(Eval("mod", {Num("-17"), Num("8")}), "-1");
  EXPECT_EQ(Eval("mod", {Num("5.5"), Num("2")}), "1.5");
}

TEST_F(FunctionsTest, FloatArithmetic) {
  EXPECT_EQ(Eval("+", {F8(0.1), F8(0.2)}), "0.30000000000000004");
  EXPECT_EQ(Eval("/", {F4(1), F4(3)}), "0.33333334");
  EXPECT_EQ(Eval("-", {F8(INFINITY), F8(INFINITY)}), "NaN");
  EXPECT_EQ(Eval("*", {F4(INFINITY), F4(2)}), "Infinity");
  EXPECT_EQ(Eval("neg", {F8(1.5)}), "-1.5");
  std::string msg;
  EXPECT_EQ(Error("*", {F8(1e300), F8(1e300)}, &msg), "22003");
  EXPECT_EQ(msg, "value out of range: overflow");
  EXPECT_EQ(Error("*", {F8(1e-300), F8(1e-300)}, &msg), "22003");
  EXPECT_EQ(msg, "value out of range: underflow");
  EXPECT_EQ(Error("+", {F4(3e38), F4(3e38)}), "22003");
}

TEST_F(FunctionsTest, NumericArithmetic) {
  EXPECT_EQ(Eval("+", {Num("1.5"), Num("2.25")}), "3.75");
  EXPECT_EQ(Eval("*", {Num("1.5"), Num("2.25")}), "3.375");
  EXPECT_EQ(Eval("neg", {Num("1.50")}), "-1.50");
  EXPECT_EQ(Eval("-", {Num("1"), Null(DataType::Numeric())}), "NULL");
}

TEST_F(FunctionsTest, DateTimeArithmetic) {
  EXPECT_EQ(Eval("+", {Date("2024-01-31"), I4(1)}), "2024-02-01");
  EXPECT_EQ(Eval("+", {I4(1), Date("2024-01-31")}), "2024-02-01");
  EXPECT_EQ(Eval("-", {Date("2024-03-01"), I4(1)}), "2024-02-29");
  EXPECT_EQ(Eval("-", {Date("2024-03-01"), Date("2024-01-01")}), "60");
  EXPECT_EQ(Eval("+", {Date("2024-01-31"), Iv("1 month")}), "2024-02-29 00:00:00");
  EXPECT_EQ(Eval("-", {Date("2024-03-31"), Iv("1 month")}), "2024-02-29 00:00:00");
  EXPECT_EQ(Eval("+", {Date("2024-01-01"), Time("10:00")}), "2024-01-01 10:00:00");
  EXPECT_EQ(Eval("+", {Time("23:00"), Iv("2 hours")}), "01:00:00");
  EXPECT_EQ(Eval("-", {Time("01:00"), Iv("2 hours")}), "23:00:00");
  EXPECT_EQ(Eval("-", {Time("10:00"), Time("12:30")}), "-02:30:00");
  EXPECT_EQ(Eval("+", {Ts("2024-01-31 10:00"), Iv("1 month 1 hour")}), "2024-02-29 11:00:00");
  EXPECT_EQ(Eval("-", {Ts("2024-01-01 10:00"), Ts("2023-12-30 09:00")}), "2 days 01:00:00");
  EXPECT_EQ(Eval("+", {Iv("1 day"), Iv("2 hours")}), "1 day 02:00:00");
  EXPECT_EQ(Eval("-", {Iv("1 day"), Iv("2 hours")}), "1 day -02:00:00");
  EXPECT_EQ(Eval("*", {Iv("1 day 2 hours"), F8(1.5)}), "1 day 15:00:00");
  EXPECT_EQ(Eval("*", {F8(2), Iv("1 hour")}), "02:00:00");
  EXPECT_EQ(Eval("/", {Iv("3 days"), F8(2)}), "1 day 12:00:00");
  EXPECT_EQ(Eval("neg", {Iv("1 day")}), "-1 days");
  EXPECT_EQ(Error("/", {Iv("1 day"), F8(0)}), "22012");
  std::string msg;
  EXPECT_EQ(Error("+", {Date("5874897-12-31"), I4(1)}, &msg), "22008");
  EXPECT_EQ(msg, "date out of range");
}

TEST_F(FunctionsTest, TimestamptzArithmeticUsesSessionZone) {
  ctx_.time_zone = *TimeZone::Lookup("America/New_York");
  // A day across the spring-forward gap keeps the wall-clock time.
  EXPECT_EQ(Eval("+", {Tstz("2024-03-09 12:00"), Iv("1 day")}), "2024-03-10 12:00:00-04");
  EXPECT_EQ(Eval("+", {Tstz("2024-03-09 12:00"), Iv("24 hours")}), "2024-03-10 13:00:00-04");
  EXPECT_EQ(Eval("-", {Tstz("2024-03-11 12:00"), Tstz("2024-03-09 12:00")}), "1 day 23:00:00");
}

// ---- Comparison ------------------------------------------------------------------

TEST_F(FunctionsTest, Comparisons) {
  EXPECT_EQ(Eval("<", {I4(1), I4(2)}), "t");
  EXPECT_EQ(Eval(">=", {I8(1), I8(2)}), "f");
  EXPECT_EQ(Eval("<>", {I2(1), I2(2)}), "t");
  EXPECT_EQ(Eval("=", {F8(NAN), F8(NAN)}), "t");
  EXPECT_EQ(Eval(">", {F8(NAN), F8(INFINITY)}), "t");
  EXPECT_EQ(Eval("<", {F4(-INFINITY), F4(NAN)}), "t");
  EXPECT_EQ(Eval("=", {Num("1.0"), Num("1.00")}), "t");
  EXPECT_EQ(Eval("<", {Num("-1.5"), Num("1")}), "t");
  EXPECT_EQ(Eval("=", {Iv("1 day"), Iv("24 hours")}), "t");
  EXPECT_EQ(Eval("<", {Iv("1 mon"), Iv("31 days")}), "t");
  EXPECT_EQ(Eval("<", {Str("a"), Str("b")}), "t");
  EXPECT_EQ(Eval("<", {Str("B"), Str("a")}), "t");       // bytewise (C collation)
  EXPECT_EQ(Eval(">", {Str("\xc3\xa9"), Str("z")}), "t");  // é after z
  EXPECT_EQ(Eval("<", {Str("ab"), Str("abc")}), "t");
  EXPECT_EQ(Eval("=", {Value::Boolean(true), Value::Boolean(true)}), "t");
  EXPECT_EQ(Eval("<", {Date("2024-01-01"), Date("2024-01-02")}), "t");
  EXPECT_EQ(Eval("<=", {Value::Bytea("\x01"), Value::Bytea("\xff")}), "t");
  EXPECT_EQ(Eval("=", {Null(DataType::Int32()), I4(1)}), "NULL");
  EXPECT_EQ(Eval("not", {Value::Boolean(true)}), "f");
  EXPECT_EQ(Eval("not", {Null(DataType::Boolean())}), "NULL");
}

TEST_F(FunctionsTest, Like) {
  auto like = [&](const char* s, const char* p) { return Eval("~~", {Str(s), Str(p)}); };
  EXPECT_EQ(like("abc", "a\\%"), "f");
  EXPECT_EQ(like("a%", "a\\%"), "t");
  EXPECT_EQ(like("a_c", "a\\_c"), "t");
  EXPECT_EQ(like("abc", "a\\_c"), "f");
  EXPECT_EQ(like("a\\b", "a\\\\b"), "t");
  EXPECT_EQ(like("x%y", "x%y"), "t");
  EXPECT_EQ(like("h\xc3\xa9llo", "h_llo"), "t");  // '_' is one UTF-8 character
  EXPECT_EQ(like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "_\xe6\x9c\xac_"), "t");
  EXPECT_EQ(like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "%\xe8\xaa\x9e"), "t");
  EXPECT_EQ(like("abc", "%"), "t");
  EXPECT_EQ(like("", "%"), "t");
  EXPECT_EQ(like("", "_"), "f");
  EXPECT_EQ(like("", ""), "t");
  EXPECT_EQ(like("a", ""), "f");
  EXPECT_EQ(like("a", "a%%"), "t");
  EXPECT_EQ(like("abc", "_b_"), "t");
  EXPECT_EQ(like("abc", "__"), "f");
  EXPECT_EQ(like("abc", "abc"), "t");
  EXPECT_EQ(like("abc", "ab"), "f");
  EXPECT_EQ(like("abc", "ab%"), "t");
  EXPECT_EQ(like("abc", "%bc"), "t");
  EXPECT_EQ(like("abc", "%b%"), "t");
  EXPECT_EQ(like("abc", "%x%"), "f");
  EXPECT_EQ(like("aaa", "%a%a%a%"), "t");
  EXPECT_EQ(like("aa", "%a%a%a%"), "f");
  EXPECT_EQ(like("abcbc", "a%bc"), "t");
  EXPECT_EQ(like("abcxbc", "%bc%bc"), "t");
  EXPECT_EQ(like("abab", "%ab"), "t");
  EXPECT_EQ(like("ab", "a%b%"), "t");
  EXPECT_EQ(like("ab", "a%b_"), "f");
  EXPECT_EQ(like("Abc", "a%"), "f");
  EXPECT_EQ(Eval("!~~", {Str("abc"), Str("a%")}), "f");
  EXPECT_EQ(Eval("~~", {Str("abc"), Null(DataType::Varchar())}), "NULL");
  std::string msg;
  EXPECT_EQ(Error("~~", {Str("abcd"), Str("a\\")}, &msg), "22025");
  EXPECT_EQ(msg, "LIKE pattern must not end with escape character");
}

TEST_F(FunctionsTest, ILike) {
  EXPECT_EQ(Eval("~~*", {Str("\xc3\x80" "BC"), Str("\xc3\xa0" "bc")}), "t");  // ÀBC ILIKE àbc
  EXPECT_EQ(Eval("~~*", {Str("ABC"), Str("a%c")}), "t");
  EXPECT_EQ(Eval("!~~*", {Str("x"), Str("X")}), "f");
  EXPECT_EQ(Eval("!~~*", {Str("x"), Str("y")}), "t");
}

TEST_F(FunctionsTest, LikeOverManyRowsAndPatterns) {
  Vector text(DataType::Varchar()), pat(DataType::Varchar());
  const char* rows[][3] = {{"apple", "a%", "t"},  {"banana", "a%", "f"}, {"cherry", "%rr%", "t"},
                           {"date", "a%", "f"},   {"apricot", "a%", "t"}, {"fig", "f_g", "t"},
                           {"grape", "%rr%", "f"}, {"kiwi", "a%", "f"}};
  for (auto& r : rows) {
    text.AppendString(r[0]);
    pat.AppendString(r[1]);
  }
  text.AppendNull();
  pat.AppendString("%");
  Vector out = CallVectors("~~", {text, pat}, 9);
  for (size_t i = 0; i < 8; i++) EXPECT_EQ(out.GetBool(i), rows[i][2][0] == 't') << rows[i][0];
  EXPECT_TRUE(out.IsNull(8));
}

TEST_F(FunctionsTest, Regex) {
  EXPECT_EQ(Eval("~", {Str("abc"), Str("b")}), "t");
  EXPECT_EQ(Eval("~*", {Str("abc"), Str("B")}), "t");
  EXPECT_EQ(Eval("!~", {Str("abc"), Str("^b")}), "t");
  EXPECT_EQ(Eval("!~*", {Str("abc"), Str("A")}), "f");
  EXPECT_EQ(Error("~", {Str("abc"), Str("(")}), "2201B");
  EXPECT_EQ(Eval("regexp_replace", {Str("foobarbaz"), Str("b(..)"), Str("X\\1Y"), Str("g")}), "fooXarYXazY");
  EXPECT_EQ(Eval("regexp_replace", {Str("foobarbaz"), Str("b(..)"), Str("X\\1Y")}), "fooXarYbaz");
  EXPECT_EQ(Eval("regexp_replace", {Str("Hello"), Str("l"), Str("[\\&]"), Str("g")}), "He[l][l]o");
  EXPECT_EQ(Eval("regexp_replace", {Str("ABC"), Str("b"), Str("x"), Str("i")}), "AxC");
}

// ---- Strings ---------------------------------------------------------------------

TEST_F(FunctionsTest, Lengths) {
  EXPECT_EQ(Eval("length", {Str("h\xc3\xa9llo")}), "5");
  EXPECT_EQ(Eval("char_length", {Str("\xe6\x97\xa5\xe6\x9c\xac")}), "2");
  EXPECT_EQ(Eval("character_length", {Str("")}), "0");
  EXPECT_EQ(Eval("octet_length", {Str("h\xc3\xa9llo")}), "6");
  EXPECT_EQ(Eval("length", {Null(DataType::Varchar())}), "NULL");
  EXPECT_EQ(Eval("length", {Value::Bytea("\x01\x02")}), "2");
}

TEST_F(FunctionsTest, CaseMapping) {
  EXPECT_EQ(Eval("lower", {Str("ABC \xc3\x80\xc3\x89\xc3\x8e \xce\xa9\xcf\x83")}), "abc \xc3\xa0\xc3\xa9\xc3\xae \xcf\x89\xcf\x83");
  EXPECT_EQ(Eval("upper", {Str("stra\xc3\x9f" "e \xc3\xa0\xc3\xa9")}), "STRA\xc3\x9f" "E \xc3\x80\xc3\x89");
  EXPECT_EQ(Eval("upper", {Str("\xd0\xbf\xd1\x80\xd0\xb8")}), "\xd0\x9f\xd0\xa0\xd0\x98");  // при -> ПРИ
  EXPECT_EQ(Eval("initcap", {Str("hi THERE_you x1y")}), "Hi There_You X1y");
  EXPECT_EQ(Eval("initcap", {Str("hello wORLD foo-bar 3abc \xc3\xa9")}), "Hello World Foo-Bar 3abc \xc3\x89");
}

TEST_F(FunctionsTest, Substr) {
  EXPECT_EQ(Eval("substr", {Str("hello"), I4(0), I4(3)}), "he");
  EXPECT_EQ(Eval("substr", {Str("hello"), I4(-1), I4(3)}), "h");
  EXPECT_EQ(Eval("substr", {Str("hello"), I4(2)}), "ello");
  EXPECT_EQ(Eval("substring", {Str("h\xc3\xa9llo"), I4(2), I4(2)}), "\xc3\xa9l");
  EXPECT_EQ(Eval("substr", {Str("hello"), I4(10)}), "");
  EXPECT_EQ(Eval("substr", {Str("hello"), I4(-5), I4(10)}), "hell");
  EXPECT_EQ(Eval("substr", {Str("hello"), I4(2), I4(0)}), "");
  std::string msg;
  EXPECT_EQ(Error("substr", {Str("hello"), I4(1), I4(-1)}, &msg), "22011");
  EXPECT_EQ(msg, "negative substring length not allowed");
}

TEST_F(FunctionsTest, Concat) {
  EXPECT_EQ(Eval("concat", {Str("a"), Null(DataType::Varchar()), Str("b")}), "ab");
  EXPECT_EQ(Eval("concat", {Null(DataType::Varchar())}), "");
  EXPECT_EQ(Eval("concat_ws", {Str(","), Str("a"), Null(DataType::Varchar()), Str("b")}), "a,b");
  EXPECT_EQ(Eval("concat_ws", {Null(DataType::Varchar()), Str("a")}), "NULL");
  EXPECT_EQ(Eval("concat_ws", {Str(",")}), "");
  EXPECT_EQ(Eval("||", {Str("a"), Str("b")}), "ab");
  EXPECT_EQ(Eval("||", {Str("a"), Null(DataType::Varchar())}), "NULL");
}

TEST_F(FunctionsTest, SplitPart) {
  EXPECT_EQ(Eval("split_part", {Str("a,b,c"), Str(","), I4(2)}), "b");
  EXPECT_EQ(Eval("split_part", {Str("a,b,c"), Str(","), I4(-1)}), "c");
  EXPECT_EQ(Eval("split_part", {Str("a,b,c"), Str(","), I4(-3)}), "a");
  EXPECT_EQ(Eval("split_part", {Str("a,b,c"), Str(","), I4(4)}), "");
  EXPECT_EQ(Eval("split_part", {Str("a,b,c"), Str(","), I4(-4)}), "");
  EXPECT_EQ(Eval("split_part", {Str("abc"), Str(""), I4(1)}), "abc");
  EXPECT_EQ(Eval("split_part", {Str("abc"), Str(""), I4(2)}), "");
  EXPECT_EQ(Eval("split_part", {Str(""), Str(","), I4(1)}), "");
  EXPECT_EQ(Eval("split_part", {Str("a,,b"), Str(","), I4(2)}), "");
  EXPECT_EQ(Eval("split_part", {Str("a::b::c"), Str("::"), I4(3)}), "c");
  std::string msg;
  EXPECT_EQ(Error("split_part", {Str("a,b"), Str(","), I4(0)}, &msg), "22023");
  EXPECT_EQ(msg, "field position must not be zero");
}

TEST_F(FunctionsTest, SearchAndSlice) {
  EXPECT_EQ(Eval("strpos", {Str("h\xc3\xa9llo"), Str("l")}), "3");
  EXPECT_EQ(Eval("position", {Str("abc"), Str("")}), "1");
  EXPECT_EQ(Eval("strpos", {Str("abc"), Str("x")}), "0");
  EXPECT_EQ(Eval("starts_with", {Str("abc"), Str("ab")}), "t");
  EXPECT_EQ(Eval("starts_with", {Str("abc"), Str("b")}), "f");
  EXPECT_EQ(Eval("left", {Str("h\xc3\xa9llo"), I4(2)}), "h\xc3\xa9");
  EXPECT_EQ(Eval("left", {Str("hello"), I4(-2)}), "hel");
  EXPECT_EQ(Eval("left", {Str("hello"), I4(-9)}), "");
  EXPECT_EQ(Eval("right", {Str("hello"), I4(2)}), "lo");
  EXPECT_EQ(Eval("right", {Str("hello"), I4(-2)}), "llo");
  EXPECT_EQ(Eval("right", {Str("hello"), I4(9)}), "hello");
  EXPECT_EQ(Eval("repeat", {Str("ab"), I4(3)}), "ababab");
  EXPECT_EQ(Eval("repeat", {Str("x"), I4(-1)}), "");
  EXPECT_EQ(Eval("reverse", {Str("h\xc3\xa9llo")}), "oll\xc3\xa9h");
  EXPECT_EQ(Eval("replace", {Str("abcabc"), Str("b"), Str("XX")}), "aXXcaXXc");
  EXPECT_EQ(Eval("replace", {Str("abc"), Str(""), Str("X")}), "abc");
}

TEST_F(FunctionsTest, PadAndTrim) {
  EXPECT_EQ(Eval("lpad", {Str("hi"), I4(5)}), "   hi");
  EXPECT_EQ(Eval("lpad", {Str("hi"), I4(5), Str("xy")}), "xyxhi");
  EXPECT_EQ(Eval("lpad", {Str("hello"), I4(2)}), "he");
  EXPECT_EQ(Eval("rpad", {Str("hi"), I4(5), Str("xy")}), "hixyx");
  EXPECT_EQ(Eval("rpad", {Str("hello"), I4(2)}), "he");
  EXPECT_EQ(Eval("lpad", {Str("hi"), I4(5), Str("")}), "hi");
  EXPECT_EQ(Eval("lpad", {Str("hi"), I4(-1)}), "");
  EXPECT_EQ(Eval("lpad", {Str("x"), I4(3), Str("\xc3\xa9")}), "\xc3\xa9\xc3\xa9x");
  EXPECT_EQ(Eval("trim", {Str("  a  ")}), "a");
  EXPECT_EQ(Eval("btrim", {Str("xxaxx"), Str("x")}), "a");
  EXPECT_EQ(Eval("ltrim", {Str("  a ")}), "a ");
  EXPECT_EQ(Eval("rtrim", {Str(" a  ")}), " a");
  EXPECT_EQ(Eval("ltrim", {Str("xyaxy"), Str("yx")}), "axy");
  EXPECT_EQ(Eval("rtrim", {Str("xyaxy"), Str("yx")}), "xya");
  EXPECT_EQ(Eval("btrim", {Str("\xc3\xa9" "a\xc3\xa9"), Str("\xc3\xa9")}), "a");
}

TEST_F(FunctionsTest, CodesAndHashes) {
  EXPECT_EQ(Eval("md5", {Str("abc")}), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Eval("md5", {Str("")}), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Eval("ascii", {Str("\xc3\xa9")}), "233");
  EXPECT_EQ(Eval("ascii", {Str("A")}), "65");
  EXPECT_EQ(Eval("ascii", {Str("")}), "0");
  EXPECT_EQ(Eval("chr", {I4(233)}), "\xc3\xa9");
  EXPECT_EQ(Eval("chr", {I4(65)}), "A");
  EXPECT_EQ(Eval("chr", {I4(0x1F600)}), "\xf0\x9f\x98\x80");
  EXPECT_EQ(Error("chr", {I4(0)}), "54000");
  EXPECT_EQ(Error("chr", {I4(-1)}), "22023");
  EXPECT_EQ(Error("chr", {I4(1114112)}), "54000");
  EXPECT_EQ(Error("chr", {I4(55296)}), "54000");
  EXPECT_EQ(Eval("to_hex", {I4(255)}), "ff");
  EXPECT_EQ(Eval("to_hex", {I4(-1)}), "ffffffff");
  EXPECT_EQ(Eval("to_hex", {I8(-1)}), "ffffffffffffffff");
}

// ---- Math ------------------------------------------------------------------------

TEST_F(FunctionsTest, AbsAndRounding) {
  EXPECT_EQ(Eval("abs", {I4(-5)}), "5");
  EXPECT_EQ(Eval("abs", {F8(-2.5)}), "2.5");
  EXPECT_EQ(Eval("abs", {Num("-2.50")}), "2.50");
  std::string msg;
  EXPECT_EQ(Error("abs", {I4(INT32_MIN)}, &msg), "22003");
  EXPECT_EQ(msg, "integer out of range");
  EXPECT_EQ(Eval("round", {F8(2.5)}), "2");  // rint: half to even
  EXPECT_EQ(Eval("round", {F8(3.5)}), "4");
  EXPECT_EQ(Eval("round", {F8(-0.5)}), "-0");
  EXPECT_EQ(Eval("round", {Num("2.5")}), "3");  // numeric: half away from zero
  EXPECT_EQ(Eval("round", {Num("-2.5")}), "-3");
  EXPECT_EQ(Eval("round", {Num("1.2345"), I4(2)}), "1.23");
  EXPECT_EQ(Eval("round", {Num("1234.5"), I4(-2)}), "1200");
  EXPECT_EQ(Eval("round", {Num("1.5"), I4(5)}), "1.50000");
  EXPECT_EQ(Eval("trunc", {Num("1.999"), I4(2)}), "1.99");
  EXPECT_EQ(Eval("trunc", {Num("-1.5")}), "-1");
  EXPECT_EQ(Eval("trunc", {F8(-1.5)}), "-1");
  EXPECT_EQ(Eval("ceil", {Num("-1.5")}), "-1");
  EXPECT_EQ(Eval("ceiling", {F8(1.5)}), "2");
  EXPECT_EQ(Eval("floor", {Num("-1.5")}), "-2");
  EXPECT_EQ(Eval("floor", {F8(-0.5)}), "-1");
  EXPECT_EQ(Eval("sign", {Num("-2.5")}), "-1");
  EXPECT_EQ(Eval("sign", {F8(0)}), "0");
  EXPECT_EQ(Eval("sign", {F8(3)}), "1");
}

TEST_F(FunctionsTest, FloatMath) {
  EXPECT_EQ(Eval("sqrt", {F8(2)}), "1.4142135623730951");
  EXPECT_EQ(Eval("cbrt", {F8(8)}), "2");
  EXPECT_EQ(Eval("exp", {F8(1)}), "2.718281828459045");
  EXPECT_EQ(Eval("ln", {F8(10)}), "2.302585092994046");
  EXPECT_EQ(Eval("log", {F8(100)}), "2");
  EXPECT_EQ(Eval("power", {F8(2), F8(10)}), "1024");
  EXPECT_EQ(Eval("pow", {F8(2), F8(0.5)}), "1.4142135623730951");
  EXPECT_EQ(Eval("pi", {}), "3.141592653589793");
  std::string msg;
  EXPECT_EQ(Error("sqrt", {F8(-1)}, &msg), "2201F");
  EXPECT_EQ(msg, "cannot take square root of a negative number");
  EXPECT_EQ(Error("ln", {F8(0)}, &msg), "2201E");
  EXPECT_EQ(msg, "cannot take logarithm of zero");
  EXPECT_EQ(Error("log", {F8(-1)}, &msg), "2201E");
  EXPECT_EQ(msg, "cannot take logarithm of a negative number");
  EXPECT_EQ(Error("power", {F8(0), F8(-1)}, &msg), "2201F");
  EXPECT_EQ(msg, "zero raised to a negative power is undefined");
  EXPECT_EQ(Error("power", {F8(-1), F8(0.5)}), "2201F");
  EXPECT_EQ(Error("exp", {F8(1000)}, &msg), "22003");
  EXPECT_EQ(msg, "value out of range: overflow");
  EXPECT_EQ(Error("exp", {F8(-1000)}), "22003");
  EXPECT_EQ(Error("power", {F8(10), F8(-400)}), "22003");
  Value r = Call("random", {});
  EXPECT_GE(r.float_value(), 0.0);
  EXPECT_LT(r.float_value(), 1.0);
}

TEST_F(FunctionsTest, NumericMath) {
  EXPECT_EQ(Eval("sqrt", {Num("2")}), "1.414213562373095");
  EXPECT_EQ(Eval("sqrt", {Num("100")}), "10.000000000000000");
  EXPECT_EQ(Eval("sqrt", {Num("1.21")}), "1.100000000000000");
  EXPECT_EQ(Eval("sqrt", {Num("0.0001")}), "0.01000000000000000");
  EXPECT_EQ(Eval("sqrt", {Num("1e-10")}), "0.000010000000000000000");
  EXPECT_EQ(Eval("sqrt", {Num("123456789012")}), "351364.18288152252");
  EXPECT_EQ(Error("sqrt", {Num("-1")}), "2201F");
  EXPECT_EQ(Eval("power", {Num("2"), Num("10")}), "1024.0000000000000000");
  EXPECT_EQ(Eval("power", {Num("2"), Num("-20")}), "0.0000009536743164");
  EXPECT_EQ(Eval("power", {Num("1.5"), Num("3")}), "3.3750000000000000");
  EXPECT_EQ(Eval("power", {Num("3"), Num("-1")}), "0.3333333333333333");
  EXPECT_EQ(Eval("power", {Num("0.25"), Num("-0.5")}), "2.0000000000000000");
  EXPECT_EQ(Eval("power", {Num("1.23456"), Num("2.5")}), "1.6934816848325965");
  EXPECT_EQ(Error("power", {Num("0"), Num("-1")}), "2201F");
  EXPECT_EQ(Error("power", {Num("-8"), Num("0.5")}), "2201F");
  EXPECT_EQ(Eval("log", {Num("2"), Num("8")}), "3.0000000000000000");
  EXPECT_EQ(Eval("log", {Num("2.5"), Num("10")}), "2.5129415947320601");
  EXPECT_EQ(Eval("log", {Num("1000")}), "3.0000000000000000");
  EXPECT_EQ(Eval("ln", {Num("2.0")}), "0.6931471805599453");
  EXPECT_EQ(Eval("exp", {Num("1.0")}), "2.7182818284590452");
  EXPECT_EQ(Eval("exp", {Num("0.5")}), "1.6487212707001281");
  EXPECT_EQ(Error("ln", {Num("0")}), "2201E");
  EXPECT_EQ(Error("log", {Num("10"), Num("-1")}), "2201E");
}

TEST_F(FunctionsTest, GcdLcm) {
  EXPECT_EQ(Eval("gcd", {I4(12), I4(18)}), "6");
  EXPECT_EQ(Eval("gcd", {I8(-12), I8(0)}), "12");
  EXPECT_EQ(Eval("gcd", {I4(0), I4(0)}), "0");
  EXPECT_EQ(Eval("lcm", {I4(4), I4(6)}), "12");
  EXPECT_EQ(Eval("lcm", {I4(0), I4(5)}), "0");
  EXPECT_EQ(Eval("lcm", {I4(-4), I4(6)}), "12");
  EXPECT_EQ(Eval("gcd", {Num("12.5"), Num("5")}), "2.5");
  EXPECT_EQ(Eval("lcm", {Num("1.5"), Num("2")}), "6.0");
  EXPECT_EQ(Error("gcd", {I4(INT32_MIN), I4(0)}), "22003");
  EXPECT_EQ(Error("lcm", {I4(2147483647), I4(2147483646)}), "22003");
}

TEST_F(FunctionsTest, Clamp) {
  EXPECT_EQ(Eval("clamp", {I4(5), I4(2), I4(4)}), "4");
  EXPECT_EQ(Eval("clamp", {I4(1), I4(2), I4(4)}), "2");
  EXPECT_EQ(Eval("clamp", {I4(3), I4(2), I4(4)}), "3");
  EXPECT_EQ(Eval("clamp", {I2(-9), I2(-5), I2(5)}), "-5");
  EXPECT_EQ(Eval("clamp", {I8(10), I8(10), I8(10)}), "10");
  EXPECT_EQ(Eval("clamp", {F8(0.5), F8(0), F8(0.25)}), "0.25");
  EXPECT_EQ(Eval("clamp", {F4(-1.5), F4(-1), F4(1)}), "-1");
  EXPECT_EQ(Eval("clamp", {Num("1.55"), Num("1.5"), Num("1.6")}), "1.55");
  EXPECT_EQ(Eval("clamp", {Num("9"), Num("1.5"), Num("1.6")}), "1.6");
  EXPECT_EQ(Eval("clamp", {Null(DataType::Int32()), I4(2), I4(4)}), "NULL");
  std::string msg;
  EXPECT_EQ(Error("clamp", {I4(5), I4(4), I4(2)}, &msg), "22023");
  EXPECT_EQ(msg, "clamp: min must be less than or equal to max");
  EXPECT_EQ(Error("clamp", {I4(5), Null(DataType::Int32()), I4(2)}, &msg), "22023");
  EXPECT_EQ(msg, "clamp: min and max must not be NULL");
}

// ---- Date/time ------------------------------------------------------------------

TEST_F(FunctionsTest, Now) {
  ctx_.statement_time = 1'700'000'000 * kMicrosPerSecond;
  Value v = Call("now", {});
  EXPECT_EQ(v.type().id, TypeId::kTimestamptz);
  EXPECT_EQ(v.int_value(), ctx_.statement_time);
  EXPECT_EQ(Call("current_timestamp", {}).int_value(), ctx_.statement_time);
  EXPECT_EQ(Eval("current_date", {}), "2023-11-14");
}

TEST_F(FunctionsTest, DateTrunc) {
  EXPECT_EQ(Eval("date_trunc", {Str("month"), Ts("2024-03-15 10:30")}), "2024-03-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {Str("week"), Ts("2024-03-15 10:30")}), "2024-03-11 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {Str("Hour"), Ts("2024-01-01 05:30")}), "2024-01-01 05:00:00");
  EXPECT_EQ(Eval("date_trunc", {Str("hours"), Ts("2024-01-01 05:30")}), "2024-01-01 05:00:00");
  EXPECT_EQ(Eval("date_trunc", {Str("hour"), Iv("1 day 02:30:00")}), "1 day 02:00:00");
  EXPECT_EQ(Eval("date_trunc", {Str("day"), Tstz("2024-03-15 03:00+00")}), "2024-03-15 00:00:00+00");
  std::string msg;
  EXPECT_EQ(Error("date_trunc", {Str("FOO"), Ts("2024-01-01")}, &msg), "22023");
  EXPECT_EQ(msg, "unit \"foo\" not recognized for type timestamp without time zone");
}

TEST_F(FunctionsTest, DateTruncTimestamptzInSessionZone) {
  ctx_.time_zone = *TimeZone::Lookup("America/New_York");
  EXPECT_EQ(Eval("date_trunc", {Str("day"), Tstz("2024-03-15 03:00+00")}), "2024-03-14 00:00:00-04");
  EXPECT_EQ(Eval("date_trunc", {Str("day"), Tstz("2024-03-15 03:00+00"), Str("Asia/Tokyo")}),
            "2024-03-14 11:00:00-04");
}

TEST_F(FunctionsTest, ExtractReturnsNumeric) {
  Value ts = Ts("2024-03-05 12:00:01.5");
  EXPECT_EQ(Eval("extract", {Str("second"), ts}), "1.500000");
  EXPECT_EQ(Eval("extract", {Str("milliseconds"), ts}), "1500.000");
  EXPECT_EQ(Eval("extract", {Str("microseconds"), ts}), "1500000");
  EXPECT_EQ(Eval("extract", {Str("epoch"), ts}), "1709640001.500000");
  EXPECT_EQ(Eval("extract", {Str("year"), ts}), "2024");
  EXPECT_EQ(Eval("extract", {Str("dow"), ts}), "2");
  EXPECT_EQ(Eval("extract", {Str("doy"), ts}), "65");
  EXPECT_EQ(Eval("extract", {Str("julian"), ts}), "2460375.50001736111111111111");
  EXPECT_EQ(Eval("extract", {Str("HOURS"), Ts("2024-01-01 05:00")}), "5");
  EXPECT_EQ(Eval("extract", {Str("epoch"), Tstz("2024-03-05 12:00:01.5+00")}), "1709640001.500000");
  EXPECT_EQ(Eval("extract", {Str("timezone"), Tstz("2024-03-05 12:00:01.5+00")}), "0");
  EXPECT_EQ(Eval("extract", {Str("epoch"), Date("2024-03-05")}), "1709596800");
  EXPECT_EQ(Eval("extract", {Str("day"), Date("2024-03-05")}), "5");
  EXPECT_EQ(Eval("extract", {Str("julian"), Date("2024-03-05")}), "2460375");
  EXPECT_EQ(Eval("extract", {Str("second"), Time("12:00:01.5")}), "1.500000");
  EXPECT_EQ(Eval("extract", {Str("epoch"), Time("12:00:01.5")}), "43201.500000");
  Value iv = Iv("1 year 2 mons 3 days 04:05:06.5");
  EXPECT_EQ(Eval("extract", {Str("epoch"), iv}), "37015506.500000");
  EXPECT_EQ(Eval("extract", {Str("month"), iv}), "2");
  EXPECT_EQ(Eval("extract", {Str("second"), iv}), "6.500000");
  EXPECT_EQ(Eval("extract", {Str("epoch"), Iv("-1 year -1 mon")}), "-34149600.000000");
  std::string msg;
  EXPECT_EQ(Error("extract", {Str("hour"), Date("2024-03-05")}, &msg), "0A000");
  EXPECT_EQ(msg, "unit \"hour\" not supported for type date");
}

TEST_F(FunctionsTest, DatePartReturnsFloat8) {
  Value ts = Ts("2024-03-05 12:00:01.5");
  EXPECT_EQ(Eval("date_part", {Str("second"), ts}), "1.5");
  EXPECT_EQ(Eval("date_part", {Str("epoch"), ts}), "1709640001.5");
  EXPECT_EQ(Eval("date_part", {Str("julian"), ts}), "2460375.5000173612");
  EXPECT_EQ(Eval("date_part", {Str("hrs"), ts}), "12");
  EXPECT_EQ(Eval("date_part", {Str("hour"), Date("2024-03-05")}), "0");  // via timestamp
  EXPECT_EQ(Eval("date_part", {Str("epoch"), Date("2024-03-05")}), "1709596800");
  EXPECT_EQ(Eval("date_part", {Str("secs"), Time("00:00:03")}), "3");
  EXPECT_EQ(Eval("date_part", {Str("epoch"), Iv("1 year 2 mons 3 days 04:05:06.5")}), "37015506.5");
  EXPECT_EQ(Error("date_part", {Str("foo"), ts}), "22023");
}

TEST_F(FunctionsTest, ToTimestampAndConstructors) {
  EXPECT_EQ(Eval("to_timestamp", {F8(1.5)}), "1970-01-01 00:00:01.5+00");
  std::string msg;
  EXPECT_EQ(Error("to_timestamp", {F8(NAN)}, &msg), "22008");
  EXPECT_EQ(msg, "timestamp cannot be NaN");
  EXPECT_EQ(Error("to_timestamp", {F8(1e20)}, &msg), "22008");
  EXPECT_EQ(msg, "timestamp out of range: \"1e+20\"");
  EXPECT_EQ(Eval("make_date", {I4(2024), I4(2), I4(29)}), "2024-02-29");
  EXPECT_EQ(Eval("make_date", {I4(-1), I4(1), I4(1)}), "0001-01-01 BC");
  EXPECT_EQ(Error("make_date", {I4(2023), I4(2), I4(29)}, &msg), "22008");
  EXPECT_EQ(msg, "date field value out of range: 2023-02-29");
  EXPECT_EQ(Error("make_date", {I4(0), I4(1), I4(1)}), "22008");
  EXPECT_EQ(Eval("make_timestamp", {I4(2024), I4(1), I4(1), I4(12), I4(30), F8(1.5)}), "2024-01-01 12:30:01.5");
  EXPECT_EQ(Error("make_timestamp", {I4(2024), I4(1), I4(1), I4(25), I4(0), F8(0)}), "22008");
}

TEST_F(FunctionsTest, Age) {
  EXPECT_EQ(Eval("age", {Ts("2024-03-01"), Ts("2023-01-31")}), "1 year 1 mon 1 day");
  EXPECT_EQ(Eval("age", {Ts("2023-01-31"), Ts("2024-03-01")}), "-1 years -1 mons -1 days");
  EXPECT_EQ(Eval("age", {Ts("2024-01-01 10:00"), Ts("2024-01-02 09:00")}), "-23:00:00");
}

TEST_F(FunctionsTest, TimezoneFunctions) {
  EXPECT_EQ(Eval("timezone", {Str("America/New_York"), Tstz("2024-01-01 00:00+00")}), "2023-12-31 19:00:00");
  EXPECT_EQ(Eval("timezone", {Str("Asia/Tokyo"), Ts("2024-01-01 00:00")}), "2023-12-31 15:00:00+00");
  std::string msg;
  EXPECT_EQ(Error("timezone", {Str("Foo/Bar"), Tstz("2024-01-01 00:00+00")}, &msg), "22023");
  EXPECT_EQ(msg, "time zone \"Foo/Bar\" not recognized");
}

TEST_F(FunctionsTest, ToTimezone) {
  Value t = Call("to_timestamp", {F8(1)});
  EXPECT_EQ(Eval("to_timezone", {t, Str("America/New_York")}), "1969-12-31 19:00:01");
  EXPECT_EQ(Eval("to_timezone", {t, Str("Europe/Moscow")}), "1970-01-01 03:00:01");
  EXPECT_EQ(Eval("to_timezone", {t, Str("+08:00")}), "1970-01-01 08:00:01");
  EXPECT_EQ(Eval("to_timezone", {Value::Timestamp(kMicrosPerSecond), Str("Asia/Shanghai")}), "1970-01-01 08:00:01");
  EXPECT_EQ(Eval("to_timezone", {Null(DataType::Timestamptz()), Str("UTC")}), "NULL");
  // NULL or unknown zones fall back to the session zone.
  ctx_.time_zone = *TimeZone::Lookup("Asia/Tokyo");
  EXPECT_EQ(Eval("to_timezone", {t, Null(DataType::Varchar())}), "1970-01-01 09:00:01");
  EXPECT_EQ(Eval("to_timezone", {t, Str("No/Such_Zone")}), "1970-01-01 09:00:01");
}

TEST_F(FunctionsTest, RegistryLookup) {
  const auto& reg = FunctionRegistry::Instance();
  EXPECT_EQ(reg.Lookup("no_such_function"), nullptr);
  ASSERT_NE(reg.Lookup("+"), nullptr);
  EXPECT_GT(reg.Lookup("+")->size(), 10u);
  for (const char* name : {"=", "<>", "<", "<=", ">", ">="}) {
    // One per type (oid, jsonb, timestamp(9), any array, any struct and any
    // enum included), and timestamp(9) with timestamp both ways round.
    EXPECT_EQ(reg.Lookup(name)->size(), 22u) << name;
  }
  const auto* concat = reg.Lookup("concat");
  ASSERT_NE(concat, nullptr);
  EXPECT_TRUE(concat->front().variadic);
}

TEST_F(FunctionsTest, StrictFunctionsOverVectors) {
  Vector a(DataType::Int32()), b(DataType::Int32());
  for (int i = 0; i < 1024; i++) {
    if (i % 7 == 0) {
      a.AppendNull();
    } else {
      a.AppendInt(i);
    }
    b.AppendInt(2);
  }
  Vector out = CallVectors("*", {a, b}, 1024);
  for (size_t i = 0; i < 1024; i++) {
    if (i % 7 == 0) {
      EXPECT_TRUE(out.IsNull(i));
    } else {
      EXPECT_EQ(out.GetInt(i), static_cast<int64_t>(i) * 2);
    }
  }
}

}  // namespace
}  // namespace freshet
