// Expected texts were checked against PostgreSQL 15's record_out/record_in
// (psql, with composite types of the same fields).
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/struct.h"
#include "expr/cast.h"
#include "expr/struct.h"

namespace freshet {
namespace {

class StructTextTest : public ::testing::Test {
 protected:
  DataType type_ = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Text()}});
  EvalContext ctx_;
  std::string RoundTrip(const std::string& text) {
    return FormatStructText(ParseStructText(text, type_, ctx_), type_, ctx_);
  }
  std::string Error(const std::string& text, std::string* detail = nullptr) {
    try {
      ParseStructText(text, type_, ctx_);
    } catch (const SqlError& e) {
      if (detail) *detail = e.detail();
      return e.code();
    }
    return "";
  }
};

TEST_F(StructTextTest, QuotesLikeRecordOut) {
  EXPECT_EQ(RoundTrip("(1,abc)"), "(1,abc)");
  EXPECT_EQ(RoundTrip("(,)"), "(,)");                      // both NULL
  EXPECT_EQ(RoundTrip("(1,\"\")"), "(1,\"\")");            // empty string, not NULL
  EXPECT_EQ(RoundTrip("(1,\"a b\")"), "(1,\"a b\")");
  EXPECT_EQ(RoundTrip("(1,\"a\"\"b\")"), "(1,\"a\"\"b\")");  // quote doubled
  EXPECT_EQ(RoundTrip("(1,\"a\\\\b\")"), "(1,\"a\\\\b\")");  // backslash doubled
  EXPECT_EQ(RoundTrip("(1,\"(x,y)\")"), "(1,\"(x,y)\")");
  EXPECT_EQ(RoundTrip("  (2,x)  "), "(2,x)");
  EXPECT_EQ(RoundTrip("(3,a\\,b)"), "(3,\"a,b\")");          // backslash escape outside quotes
  EXPECT_EQ(RoundTrip("(4,ab\"c d\"e)"), "(4,\"abc de\")");  // quotes inside a field
}

TEST_F(StructTextTest, BadLiteralsAre22P02) {
  std::string detail;
  EXPECT_EQ(Error("1,a)", &detail), sqlstate::kInvalidTextRepresentation);
  EXPECT_EQ(detail, "Missing left parenthesis.");
  EXPECT_EQ(Error("(1)", &detail), sqlstate::kInvalidTextRepresentation);
  EXPECT_EQ(detail, "Too few columns.");
  EXPECT_EQ(Error("(1,a,b)", &detail), sqlstate::kInvalidTextRepresentation);
  EXPECT_EQ(detail, "Too many columns.");
  EXPECT_EQ(Error("(1,a) x", &detail), sqlstate::kInvalidTextRepresentation);
  EXPECT_EQ(detail, "Junk after right parenthesis.");
  EXPECT_EQ(Error("(1,\"a", &detail), sqlstate::kInvalidTextRepresentation);
  EXPECT_EQ(detail, "Unexpected end of input.");
  EXPECT_EQ(Error("(x,a)"), sqlstate::kInvalidTextRepresentation);  // the field's own input error
}

TEST_F(StructTextTest, NestedStructsQuoteTheirText) {
  DataType outer = DataType::Struct({{"id", DataType::Int64()}, {"inner", type_}});
  std::string text = "(7,\"(1,\"\"a b\"\")\")";
  EXPECT_EQ(FormatStructText(ParseStructText(text, outer, ctx_), outer, ctx_), text);
  std::vector<Value> fields = DecodeStruct(ParseStructText(text, outer, ctx_), outer);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(FormatStructText(fields[1].string_value(), type_, ctx_), "(1,\"a b\")");
}

}  // namespace
}  // namespace freshet
