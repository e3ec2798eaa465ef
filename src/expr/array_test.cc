// Expected values were checked against PostgreSQL 15 (psql).
#include "expr/array.h"

#include <gtest/gtest.h>

#include "common/array.h"
#include "common/error.h"
#include "expr/cast.h"
#include "expr/oid.h"

namespace freshet {
namespace {

class ArrayTextTest : public ::testing::Test {
 protected:
  // The text of `text` read as type t[] and printed back.
  std::string RoundTrip(const std::string& text, const DataType& elem = DataType::Text()) {
    DataType t = DataType::Array(elem);
    return FormatArrayText(ParseArrayText(text, t, ctx_), t, ctx_);
  }
  std::string Error(const std::string& text, const DataType& elem = DataType::Int32(), std::string* detail = nullptr) {
    try {
      ParseArrayText(text, DataType::Array(elem), ctx_);
    } catch (const SqlError& e) {
      if (detail) *detail = e.detail();
      return e.code();
    }
    return "";
  }
  std::string Format(const Vector& elems) {
    return FormatArrayText(EncodeArray(elems), DataType::Array(elems.type()), ctx_);
  }
  EvalContext ctx_;
};

TEST_F(ArrayTextTest, OutputQuotesLikePostgres) {
  Vector s(DataType::Text());
  for (const char* x : {"a", "b c", "", "NULL", "null", "x\"y", "a\\b", "{}", "p,q", "tab\there", "ü"}) s.AppendString(x);
  s.AppendNull();
  EXPECT_EQ(Format(s), R"({a,"b c","","NULL","null","x\"y","a\\b","{}","p,q","tab	here",ü,NULL})");
  EXPECT_EQ(Format(Vector(DataType::Int32())), "{}");
  Vector b(DataType::Boolean());
  b.AppendBool(true);
  b.AppendBool(false);
  EXPECT_EQ(Format(b), "{t,f}");
  Vector by(DataType::Bytea());
  by.AppendString("\x01");
  EXPECT_EQ(Format(by), R"({"\\x01"})");
  Vector f(DataType::Float64());
  f.AppendFloat(0.1);
  f.AppendFloat(-2.5e-10);
  EXPECT_EQ(Format(f), "{0.1,-2.5e-10}");
  Vector iv(DataType::Interval());
  iv.AppendInterval(Interval{0, 1, 0});
  EXPECT_EQ(Format(iv), R"({"1 day"})");
}

TEST_F(ArrayTextTest, Input) {
  EXPECT_EQ(RoundTrip("{}"), "{}");
  EXPECT_EQ(RoundTrip("  { }  "), "{}");
  EXPECT_EQ(RoundTrip("{a,b}"), "{a,b}");
  EXPECT_EQ(RoundTrip("{ a , b c ,\"d \" }"), R"({a,"b c","d "})");
  EXPECT_EQ(RoundTrip("{NULL,null,\"NULL\",nULl}"), R"({NULL,NULL,"NULL",NULL})");
  EXPECT_EQ(RoundTrip(R"({"a\"b",c\,d,"e\\f",\N})"), R"({"a\"b","c,d","e\\f",N})");
  EXPECT_EQ(RoundTrip(R"({\NULL})"), R"({"NULL"})");  // an escaped NULL is a string
  EXPECT_EQ(RoundTrip(R"({a\ })"), R"({"a "})");      // escaped trailing space is kept
  EXPECT_EQ(RoundTrip("{\"\"}"), R"({""})");
  EXPECT_EQ(RoundTrip("[1:2]={x,y}"), "{x,y}");
  EXPECT_EQ(RoundTrip("{1, -2 ,3}", DataType::Int32()), "{1,-2,3}");
  EXPECT_EQ(RoundTrip("{1.50,2}", DataType::Numeric()), "{1.50,2}");
  EXPECT_EQ(RoundTrip("{t,false}", DataType::Boolean()), "{t,f}");
}

TEST_F(ArrayTextTest, MalformedInput) {
  std::string detail;
  EXPECT_EQ(Error("1,2", DataType::Int32(), &detail), "22P02");
  EXPECT_EQ(detail, "Array value must start with \"{\" or dimension information.");
  EXPECT_EQ(Error("{1,2", DataType::Int32(), &detail), "22P02");
  EXPECT_EQ(detail, "Unexpected end of input.");
  EXPECT_EQ(Error("{1,,2}", DataType::Int32(), &detail), "22P02");
  EXPECT_EQ(detail, "Unexpected \",\" character.");
  EXPECT_EQ(Error("{1} 2", DataType::Int32(), &detail), "22P02");
  EXPECT_EQ(detail, "Junk after closing right brace.");
  EXPECT_EQ(Error("{\"a}"), "22P02");
  EXPECT_EQ(Error("{a\"b\"}", DataType::Text()), "22P02");
  EXPECT_EQ(Error("{x}"), "22P02");           // not an integer
  EXPECT_EQ(Error("{{1},{2}}"), "0A000");     // multidimensional
  EXPECT_EQ(Error("[0:1]={1,2}"), "0A000");   // lower bound other than 1
  EXPECT_EQ(Error(""), "22P02");
}

TEST_F(ArrayTextTest, CastsBetweenArrayTypes) {
  DataType ints = DataType::Array(DataType::Int32()), texts = DataType::Array(DataType::Text());
  Value v = Value::FromString(texts, ParseArrayText("{1,NULL,3}", texts, ctx_));
  Value c = CastValue(v, ints, ctx_);
  EXPECT_EQ(FormatValueText(c, ctx_), "{1,NULL,3}");
  EXPECT_EQ(FormatValueText(CastValue(c, DataType::Text(), ctx_), ctx_), "{1,NULL,3}");
  EXPECT_EQ(FormatValueText(CastValue(Value::Varchar("{4,5}"), ints, ctx_), ctx_), "{4,5}");
  Value bad = Value::FromString(texts, ParseArrayText("{x}", texts, ctx_));
  EXPECT_THROW(CastValue(bad, ints, ctx_), SqlError);
  EXPECT_TRUE(CanImplicitCast(ints, DataType::Array(DataType::Int64())));
  EXPECT_FALSE(CanImplicitCast(DataType::Array(DataType::Int64()), ints));
  EXPECT_TRUE(CanExplicitCast(DataType::Array(DataType::Int64()), ints));
  EXPECT_FALSE(CanImplicitCast(DataType::Int32(), ints));
}

TEST_F(ArrayTextTest, AnyArrayNeedsAType) {
  try {
    ParseArrayText("{1}", DataType::AnyArray(), ctx_);
    FAIL();
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), "42804");
  }
}

// oid and the reg* types without a catalog: numbers both ways.
TEST(OidTextTest, NumbersAndTypeNames) {
  EvalContext ctx;
  EXPECT_EQ(ParseOidText("4294967295", OidKind::kOid, ctx), 4294967295LL);
  EXPECT_EQ(ParseOidText(" -1 ", OidKind::kOid, ctx), 4294967295LL);
  EXPECT_THROW(ParseOidText("4294967296", OidKind::kOid, ctx), SqlError);
  EXPECT_THROW(ParseOidText("abc", OidKind::kOid, ctx), SqlError);
  EXPECT_EQ(FormatOidText(4294967295LL, OidKind::kOid, ctx), "4294967295");
  EXPECT_EQ(FormatOidText(0, OidKind::kRegclass, ctx), "-");
  EXPECT_EQ(FormatOidText(12345, OidKind::kRegclass, ctx), "12345");  // unknown relation
  EXPECT_EQ(ParseOidText("16386", OidKind::kRegclass, ctx), 16386);
  EXPECT_THROW(ParseOidText("t", OidKind::kRegclass, ctx), SqlError);  // needs a catalog
  EXPECT_EQ(ParseOidText("integer", OidKind::kRegtype, ctx), 23);
  EXPECT_EQ(ParseOidText("pg_catalog.int4", OidKind::kRegtype, ctx), 23);
  EXPECT_EQ(ParseOidText("character varying(10)", OidKind::kRegtype, ctx), 1043);
  EXPECT_EQ(ParseOidText("text[]", OidKind::kRegtype, ctx), 1009);
  EXPECT_THROW(ParseOidText("nosuchtype", OidKind::kRegtype, ctx), SqlError);
  EXPECT_EQ(FormatOidText(1043, OidKind::kRegtype, ctx), "character varying");
  EXPECT_EQ(FormatOidText(1007, OidKind::kRegtype, ctx), "integer[]");
  EXPECT_EQ(FormatOidText(999999, OidKind::kRegtype, ctx), "999999");
}

TEST(OidTextTest, FormatType) {
  EXPECT_EQ(FormatTypeName(23, -1), "integer");
  EXPECT_EQ(FormatTypeName(1043, 24), "character varying(20)");
  EXPECT_EQ(FormatTypeName(1700, ((10 << 16) | 2) + 4), "numeric(10,2)");
  EXPECT_EQ(FormatTypeName(1700, -1), "numeric");
  EXPECT_EQ(FormatTypeName(1114, -1), "timestamp without time zone");
  EXPECT_EQ(FormatTypeName(1015, 14), "character varying(10)[]");
  EXPECT_EQ(FormatTypeName(25, -1), "text");
  EXPECT_EQ(FormatTypeName(19, -1), "name");
  EXPECT_EQ(FormatTypeName(18, -1), "\"char\"");
  EXPECT_EQ(FormatTypeName(1042, 9), "character(5)");
  EXPECT_EQ(FormatTypeName(2205, -1), "regclass");
  EXPECT_FALSE(FormatTypeName(424242, -1).has_value());
}

}  // namespace
}  // namespace freshet
