#include "common/types.h"

#include <fmt/format.h>

#include <unordered_map>

namespace freshet {

PhysicalType DataType::physical() const {
  switch (id) {
    case TypeId::kFloat32:
    case TypeId::kFloat64: return PhysicalType::kDouble;
    case TypeId::kNumeric: return PhysicalType::kDecimal;
    case TypeId::kInterval: return PhysicalType::kInterval;
    case TypeId::kVarchar:
    case TypeId::kBytea:
    case TypeId::kUnknown: return PhysicalType::kString;
    default: return PhysicalType::kInt64;
  }
}

std::string DataType::ToString() const {
  switch (id) {
    case TypeId::kUnknown: return "unknown";
    case TypeId::kBoolean: return "boolean";
    case TypeId::kInt16: return "smallint";
    case TypeId::kInt32: return "integer";
    case TypeId::kInt64: return "bigint";
    case TypeId::kFloat32: return "real";
    case TypeId::kFloat64: return "double precision";
    case TypeId::kNumeric:
      if (precision >= 0) return fmt::format("numeric({},{})", precision, scale < 0 ? 0 : scale);
      return "numeric";
    case TypeId::kVarchar:
      if (IsText()) return "text";
      if (precision >= 0) return fmt::format("character varying({})", precision);
      return "character varying";
    case TypeId::kBytea: return "bytea";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time without time zone";
    case TypeId::kTimestamp: return "timestamp without time zone";
    case TypeId::kTimestamptz: return "timestamp with time zone";
    case TypeId::kInterval: return "interval";
  }
  return "unknown";
}

uint32_t DataType::PgOid() const {
  switch (id) {
    case TypeId::kUnknown: return 705;
    case TypeId::kBoolean: return 16;
    case TypeId::kInt16: return 21;
    case TypeId::kInt32: return 23;
    case TypeId::kInt64: return 20;
    case TypeId::kFloat32: return 700;
    case TypeId::kFloat64: return 701;
    case TypeId::kNumeric: return 1700;
    case TypeId::kVarchar: return IsText() ? 25 : 1043;
    case TypeId::kBytea: return 17;
    case TypeId::kDate: return 1082;
    case TypeId::kTime: return 1083;
    case TypeId::kTimestamp: return 1114;
    case TypeId::kTimestamptz: return 1184;
    case TypeId::kInterval: return 1186;
  }
  return 705;
}

int16_t DataType::PgTypeLen() const {
  switch (id) {
    case TypeId::kBoolean: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32: return 4;
    case TypeId::kInt64: return 8;
    case TypeId::kFloat32: return 4;
    case TypeId::kFloat64: return 8;
    case TypeId::kDate: return 4;
    case TypeId::kTime: return 8;
    case TypeId::kTimestamp: return 8;
    case TypeId::kTimestamptz: return 8;
    case TypeId::kInterval: return 16;
    default: return -1;
  }
}

int32_t DataType::PgTypeMod() const {
  if (id == TypeId::kNumeric && precision >= 0) return ((precision << 16) | (scale < 0 ? 0 : scale)) + 4;
  if (id == TypeId::kVarchar && precision >= 0) return precision + 4;
  return -1;
}

TypeId TypeIdFromName(const std::string& name) {
  static const std::unordered_map<std::string, TypeId> kNames = {
      {"bool", TypeId::kBoolean},        {"boolean", TypeId::kBoolean},
      {"int2", TypeId::kInt16},          {"smallint", TypeId::kInt16},
      {"int4", TypeId::kInt32},          {"int", TypeId::kInt32},
      {"integer", TypeId::kInt32},       {"int8", TypeId::kInt64},
      {"bigint", TypeId::kInt64},        {"float4", TypeId::kFloat32},
      {"real", TypeId::kFloat32},        {"float8", TypeId::kFloat64},
      {"float", TypeId::kFloat64},       {"double precision", TypeId::kFloat64},
      {"numeric", TypeId::kNumeric},     {"decimal", TypeId::kNumeric},
      {"varchar", TypeId::kVarchar},     {"text", TypeId::kVarchar},
      {"character varying", TypeId::kVarchar}, {"string", TypeId::kVarchar},
      {"bpchar", TypeId::kVarchar},      {"char", TypeId::kVarchar},
      {"character", TypeId::kVarchar},   {"name", TypeId::kVarchar},
      {"bytea", TypeId::kBytea},         {"date", TypeId::kDate},
      {"time", TypeId::kTime},           {"time without time zone", TypeId::kTime},
      {"timestamp", TypeId::kTimestamp}, {"timestamp without time zone", TypeId::kTimestamp},
      {"timestamptz", TypeId::kTimestamptz}, {"timestamp with time zone", TypeId::kTimestamptz},
      {"interval", TypeId::kInterval},
  };
  auto it = kNames.find(name);
  return it == kNames.end() ? TypeId::kUnknown : it->second;
}

DataType DataTypeFromPgOid(uint32_t oid) {
  switch (oid) {
    case 16: return DataType::Boolean();
    case 21: return DataType::Int16();
    case 23: return DataType::Int32();
    case 20: return DataType::Int64();
    case 700: return DataType::Float32();
    case 701: return DataType::Float64();
    case 1700: return DataType::Numeric();
    case 25: return DataType::Text();
    case 1043:
    case 1042:
    case 19: return DataType::Varchar();
    case 17: return DataType::Bytea();
    case 1082: return DataType::Date();
    case 1083: return DataType::Time();
    case 1114: return DataType::Timestamp();
    case 1184: return DataType::Timestamptz();
    case 1186: return DataType::Interval();
    default: return DataType::Unknown();
  }
}

}  // namespace freshet
