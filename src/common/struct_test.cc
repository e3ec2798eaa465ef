#include "common/struct.h"

#include <gtest/gtest.h>

#include <random>

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {
namespace {

DataType Point() { return DataType::Struct({{"x", DataType::Int64()}, {"label", DataType::Varchar()}}); }

std::string Encode(const std::vector<Value>& fields) {
  StructWriter w(fields.size());
  for (const Value& v : fields) w.Add(v);
  return w.Finish();
}

TEST(StructTypeTest, InternsFieldLists) {
  DataType a = Point(), b = Point();
  EXPECT_TRUE(a.IsStruct());
  EXPECT_FALSE(a.IsAnyStruct());
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a.SameWithModifiers(b));
  DataType other = DataType::Struct({{"x", DataType::Int64()}, {"name", DataType::Varchar()}});
  EXPECT_FALSE(a == other);
  DataType modifiers = DataType::Struct({{"x", DataType::Int64()}, {"label", DataType(TypeId::kVarchar, 5, -1)}});
  EXPECT_FALSE(a == modifiers);
  ASSERT_EQ(a.StructFields().size(), 2u);
  EXPECT_EQ(a.StructFields()[1].first, "label");
  EXPECT_EQ(a.ToString(), "struct<x bigint, label character varying>");
  EXPECT_EQ(a.PgOid(), 2249u);
  EXPECT_EQ(a.physical(), PhysicalType::kString);
  EXPECT_TRUE(DataType::AnyStruct().StructFields().empty());
  EXPECT_EQ(DataType::AnyStruct().ToString(), "record");
  // Arrays of structs keep the struct.
  EXPECT_TRUE(DataType::Array(a).ElementType() == a);
}

TEST(StructCodecTest, RoundTripsFieldsAndNulls) {
  DataType t = DataType::Struct({{"i", DataType::Int32()},
                                 {"f", DataType::Float64()},
                                 {"s", DataType::Text()},
                                 {"n", DataType::Numeric()},
                                 {"iv", DataType::Interval()},
                                 {"inner", Point()}});
  std::string inner = Encode({Value::Int64(7), Value::Null(DataType::Varchar())});
  std::vector<Value> fields = {Value::Int32(-3),
                               Value::Float64(2.5),
                               Value::Null(DataType::Text()),
                               Value::Numeric(DecimalFromString("12.345")),
                               Value::IntervalValue(Interval{1, 2, 3}),
                               Value::FromString(Point(), inner)};
  std::string bytes = Encode(fields);
  std::vector<Value> back = DecodeStruct(bytes, t);
  ASSERT_EQ(back.size(), fields.size());
  for (size_t i = 0; i < fields.size(); i++) {
    EXPECT_EQ(back[i].is_null(), fields[i].is_null()) << i;
    if (!fields[i].is_null()) EXPECT_EQ(Value::Compare(back[i], fields[i]), 0) << i;
  }
  // One field alone, without decoding the others.
  for (size_t k = 0; k < fields.size(); k++) {
    Vector one(t.StructFields()[k].second);
    AppendStructField(bytes, t.StructFields(), k, &one);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one.IsNull(0), fields[k].is_null()) << k;
    if (!fields[k].is_null()) EXPECT_EQ(Value::Compare(one.GetValue(0), fields[k]), 0) << k;
  }
}

TEST(StructCodecTest, MalformedBytesAreInternalErrors) {
  std::string bytes = Encode({Value::Int64(1), Value::Varchar("abc")});
  for (size_t cut = 0; cut < bytes.size(); cut++) {
    try {
      DecodeStruct(bytes.substr(0, cut), Point());
      ADD_FAILURE() << "decoded a value cut at " << cut;
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), std::string(sqlstate::kInternalError));
    }
  }
  EXPECT_THROW(DecodeStruct(bytes + "x", Point()), SqlError);
  EXPECT_THROW(DecodeStruct(Encode({Value::Int64(1)}), Point()), SqlError);  // too few fields
}

// The memcomparable key orders structs as CompareStructs does: field by
// field, NULL fields after values.
TEST(StructCodecTest, KeyOrderAgreesWithCompare) {
  std::mt19937 rng(42);
  std::vector<std::string> values;
  for (int i = 0; i < 300; i++) {
    Value x = rng() % 5 == 0 ? Value::Null(DataType::Int64()) : Value::Int64(int64_t(rng() % 7) - 3);
    Value label = rng() % 5 == 0 ? Value::Null(DataType::Varchar())
                                 : Value::Varchar(std::string(rng() % 3, char('a' + rng() % 3)));
    values.push_back(Encode({x, label}));
  }
  for (size_t i = 0; i < values.size(); i++) {
    for (size_t j = 0; j < values.size(); j += 7) {
      std::string ki, kj;
      EncodeStructKey(values[i], Point(), &ki);
      EncodeStructKey(values[j], Point(), &kj);
      int by_key = ki < kj ? -1 : (ki > kj ? 1 : 0);
      EXPECT_EQ(by_key, CompareStructs(values[i], values[j], Point())) << i << " " << j;
    }
  }
  // NULL fields after values; equal NULL fields compare equal.
  std::string one_null = Encode({Value::Null(DataType::Int64()), Value::Varchar("a")});
  std::string one = Encode({Value::Int64(100), Value::Varchar("a")});
  EXPECT_GT(CompareStructs(one_null, one, Point()), 0);
  EXPECT_EQ(CompareStructs(one_null, one_null, Point()), 0);
}

}  // namespace
}  // namespace freshet
