#include "common/array.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "common/encoding.h"
#include "common/error.h"
#include "common/identifier.h"

namespace freshet {
namespace {

Vector Ints(const std::vector<std::optional<int64_t>>& v) {
  Vector out(DataType::Int32());
  for (const auto& x : v) {
    if (x) out.AppendInt(*x);
    else out.AppendNull();
  }
  return out;
}

Value IntArray(const std::vector<std::optional<int64_t>>& v) {
  return Value::FromString(DataType::Array(DataType::Int32()), EncodeArray(Ints(v)));
}

TEST(ArrayTest, TypeEncodesElement) {
  DataType t = DataType::Array(DataType::Text());
  EXPECT_TRUE(t.IsArray());
  EXPECT_FALSE(t.IsAnyArray());
  EXPECT_TRUE(t.ElementType().IsText());
  EXPECT_EQ(t.ToString(), "text[]");
  EXPECT_EQ(t.PgOid(), 1009u);
  EXPECT_EQ(DataType::Array(DataType(TypeId::kVarchar, 5, -1)).ToString(), "character varying(5)[]");
  EXPECT_EQ(DataType::Array(DataType::Varchar()).PgTypeMod(), -1);
  EXPECT_EQ(DataType::Array(DataType(TypeId::kVarchar, 5, -1)).PgTypeMod(), 9);
  EXPECT_EQ(DataType::Array(DataType::Int32()).PgOid(), 1007u);
  DataType n = DataType::Array(DataType(TypeId::kNumeric, 10, 2)).ElementType();
  EXPECT_TRUE(n.SameWithModifiers(DataType(TypeId::kNumeric, 10, 2)));
  EXPECT_EQ(DataType::Array(DataType(TypeId::kNumeric, 10, 2)).ToString(), "numeric(10,2)[]");
  EXPECT_EQ(DataType::Array(DataType::Numeric()).ElementType().precision, -1);
  EXPECT_EQ(DataTypeFromPgOid(1007), DataType::Array(DataType::Int32()));
  EXPECT_TRUE(DataTypeFromPgOid(1009).ElementType().IsText());
  EXPECT_EQ(DataTypeFromName("_int8"), DataType::Array(DataType::Int64()));
  EXPECT_EQ(PgTypeName(DataType::Array(DataType::Int16())), "_int2");
  // Arrays of different elements are different types; any array is neither.
  EXPECT_FALSE(DataType::Array(DataType::Int32()) == DataType::Array(DataType::Int64()));
  EXPECT_FALSE(DataType::AnyArray() == DataType::Array(DataType::Int64()));
  EXPECT_EQ(DataType::Array(DataType::Int32()).physical(), PhysicalType::kString);
}

TEST(ArrayTest, OidTypes) {
  EXPECT_EQ(DataType::Oid().ToString(), "oid");
  EXPECT_EQ(DataType::Oid(OidKind::kRegclass).ToString(), "regclass");
  EXPECT_EQ(DataType::Oid(OidKind::kRegclass).PgOid(), 2205u);
  EXPECT_EQ(DataType::Oid().PgTypeLen(), 4);
  EXPECT_EQ(DataTypeFromName("regtype").oid_kind(), OidKind::kRegtype);
  EXPECT_EQ(DataTypeFromPgOid(26), DataType::Oid());
  // oid and regclass are one TypeId (interchangeable), told apart by kind.
  EXPECT_TRUE(DataType::Oid() == DataType::Oid(OidKind::kRegclass));
  EXPECT_EQ(DataType::Array(DataType::Oid(OidKind::kRegclass)).ElementType().oid_kind(), OidKind::kRegclass);
}

TEST(ArrayTest, RoundTripsEveryPhysicalType) {
  std::vector<Vector> inputs;
  inputs.push_back(Ints({1, std::nullopt, -7, INT32_MAX}));
  Vector f(DataType::Float64());
  f.AppendFloat(1.5);
  f.AppendNull();
  f.AppendFloat(-0.0);
  inputs.push_back(f);
  Vector d(DataType::Numeric());
  d.AppendDecimal(DecimalFromString("12.340"));
  d.AppendDecimal(DecimalFromString("-1"));
  inputs.push_back(d);
  Vector iv(DataType::Interval());
  iv.AppendInterval(Interval{1, 2, 3});
  inputs.push_back(iv);
  Vector s(DataType::Text());
  s.AppendString("");
  s.AppendString(std::string("a\0b", 3));
  s.AppendNull();
  s.AppendString(std::string(300, 'x'));
  inputs.push_back(s);
  inputs.push_back(Vector(DataType::Text()));  // empty
  for (const Vector& in : inputs) {
    std::string bytes = EncodeArray(in);
    EXPECT_EQ(ArrayLength(bytes), in.size());
    Vector out = DecodeArray(bytes, in.type());
    ASSERT_EQ(out.size(), in.size());
    for (size_t i = 0; i < in.size(); i++) {
      EXPECT_EQ(out.IsNull(i), in.IsNull(i));
      if (!in.IsNull(i)) EXPECT_EQ(Value::Compare(out.GetValue(i), in.GetValue(i)), 0) << i;
    }
    EXPECT_EQ(EncodeArray(out), bytes);
  }
  EXPECT_EQ(DecodeArray(EncodeArray(d), DataType::Numeric()).GetDecimal(0).scale, 3);
}

TEST(ArrayTest, MalformedBytesAreAnError) {
  std::string bytes = EncodeArray(Ints({1, 2}));
  EXPECT_THROW(DecodeArray(bytes.substr(0, bytes.size() - 1), DataType::Int32()), SqlError);
  EXPECT_THROW(DecodeArray(bytes + "x", DataType::Int32()), SqlError);
  EXPECT_THROW(DecodeArray("", DataType::Int32()), SqlError);
}

TEST(ArrayTest, CompareLikePostgres) {
  DataType e = DataType::Int32();
  auto cmp = [&](const Value& a, const Value& b) { return CompareArrays(a.string_value(), b.string_value(), e); };
  EXPECT_EQ(cmp(IntArray({1, 2}), IntArray({1, 2})), 0);
  EXPECT_LT(cmp(IntArray({1, 2}), IntArray({1, 3})), 0);
  EXPECT_LT(cmp(IntArray({1}), IntArray({1, 0})), 0);      // a prefix sorts first
  EXPECT_GT(cmp(IntArray({2}), IntArray({1, 5})), 0);
  EXPECT_GT(cmp(IntArray({std::nullopt}), IntArray({1})), 0);  // NULL elements sort last
  EXPECT_EQ(cmp(IntArray({1, std::nullopt}), IntArray({1, std::nullopt})), 0);
  EXPECT_LT(cmp(IntArray({}), IntArray({std::nullopt})), 0);
  EXPECT_EQ(Value::Compare(IntArray({-1}), IntArray({1})), -1);  // by element, not by bytes
}

// Sorting by the memcomparable key agrees with CompareArrays, and equal
// arrays (numeric scales included) have equal keys.
TEST(ArrayTest, KeysKeepOrder) {
  std::mt19937 rng(3);
  std::vector<Value> values = {IntArray({}), IntArray({std::nullopt}), Value::Null(DataType::Array(DataType::Int32()))};
  for (int i = 0; i < 300; i++) {
    std::vector<std::optional<int64_t>> v;
    int n = static_cast<int>(rng() % 4);
    for (int k = 0; k < n; k++) {
      int r = static_cast<int>(rng() % 7);
      v.push_back(r == 0 ? std::nullopt : std::optional<int64_t>(r - 3));
    }
    values.push_back(IntArray(v));
  }
  std::vector<std::pair<std::string, Value>> encoded;
  for (const auto& v : values) {
    std::string k;
    EncodeKeyValue(v, &k);
    encoded.emplace_back(k, v);
  }
  std::sort(encoded.begin(), encoded.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < encoded.size(); i++) {
    int c = Value::Compare(encoded[i - 1].second, encoded[i].second);
    EXPECT_LE(c, 0) << encoded[i - 1].second.ToString() << " before " << encoded[i].second.ToString();
    EXPECT_EQ(encoded[i - 1].first == encoded[i].first, c == 0);
  }
  Vector a(DataType::Numeric()), b(DataType::Numeric());
  a.AppendDecimal(DecimalFromString("1.0"));
  b.AppendDecimal(DecimalFromString("1.00"));
  Vector va(DataType::Array(DataType::Numeric())), vb(DataType::Array(DataType::Numeric()));
  va.AppendString(EncodeArray(a));
  vb.AppendString(EncodeArray(b));
  std::string ka, kb;
  EncodeKeyFromVector(va, 0, &ka);
  EncodeKeyFromVector(vb, 0, &kb);
  EXPECT_EQ(ka, kb);
}

TEST(IdentifierTest, QuoteIdent) {
  EXPECT_EQ(QuoteIdent("abc_1"), "abc_1");
  EXPECT_EQ(QuoteIdent("Abc"), "\"Abc\"");
  EXPECT_EQ(QuoteIdent("1a"), "\"1a\"");
  EXPECT_EQ(QuoteIdent("select"), "\"select\"");
  EXPECT_EQ(QuoteIdent("name"), "name");  // unreserved keyword
  EXPECT_EQ(QuoteIdent("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdent(""), "\"\"");
}

TEST(IdentifierTest, SplitQualifiedName) {
  using V = std::vector<std::string>;
  EXPECT_EQ(SplitQualifiedName("t"), V{"t"});
  EXPECT_EQ(SplitQualifiedName(" Public . T "), (V{"public", "t"}));
  EXPECT_EQ(SplitQualifiedName("\"My \"\"T\"\"\".x"), (V{"My \"T\"", "x"}));
  EXPECT_EQ(SplitQualifiedName("db.s.t"), (V{"db", "s", "t"}));
  EXPECT_TRUE(SplitQualifiedName("").empty());
  EXPECT_TRUE(SplitQualifiedName("a.").empty());
  EXPECT_TRUE(SplitQualifiedName("\"unterminated").empty());
  EXPECT_TRUE(SplitQualifiedName("a b").empty());
}

}  // namespace
}  // namespace freshet
