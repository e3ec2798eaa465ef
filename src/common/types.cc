#include "common/types.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

#include "common/enum_type.h"
#include "common/identifier.h"

namespace freshet {

namespace {
constexpr int32_t kBpcharElementBase = -1000;
}  // namespace

DataType DataType::Array(const DataType& element) {
  DataType t(TypeId::kArray);
  t.precision = static_cast<int32_t>(element.id);
  t.scale = element.precision;
  // numeric(p,s) elements: both modifiers in one field.
  if (element.id == TypeId::kNumeric && element.precision >= 0) t.scale = element.precision * 1000 + std::max(element.scale, 0);
  // character(n) elements: n (or -1) below kBpcharElementBase.
  if (element.IsBpchar()) t.scale = kBpcharElementBase - (element.precision + 1);
  return t;
}

DataType DataType::ElementType() const {
  if (id != TypeId::kArray || precision < 0) return DataType::Unknown();
  auto elem = static_cast<TypeId>(precision);
  if (IsVector()) return elem == TypeId::kOid ? DataType::Oid() : DataType(elem);
  if (elem == TypeId::kNumeric && scale >= 0) return DataType(elem, scale / 1000, scale % 1000);
  if (elem == TypeId::kVarchar && scale <= kBpcharElementBase) return Bpchar(kBpcharElementBase - scale - 1);
  return DataType(elem, scale, -1);
}

namespace {

// Interned struct field lists. A deque keeps every list at a fixed address,
// so StructFields can hand out references without holding the lock.
struct StructRegistry {
  std::mutex mu;
  std::deque<std::vector<StructField>> lists;
  std::map<std::string, int32_t> by_signature;
};

StructRegistry& Structs() {
  static StructRegistry* registry = new StructRegistry();  // never destroyed: types outlive static teardown
  return *registry;
}

// Identifies a field list exactly: names, type ids and modifiers.
std::string Signature(const std::vector<StructField>& fields) {
  std::string sig;
  for (const auto& [name, type] : fields)
    sig += fmt::format("{}:{}:{}:{};", name, int(type.id), type.precision, type.scale);
  return sig;
}

}  // namespace

DataType DataType::Struct(const std::vector<StructField>& fields) {
  StructRegistry& r = Structs();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.by_signature.try_emplace(Signature(fields), int32_t(r.lists.size()));
  if (inserted) r.lists.push_back(fields);
  return DataType(TypeId::kStruct, it->second, -1);
}

const std::vector<StructField>& DataType::StructFields() const {
  static const std::vector<StructField> kNone;
  if (id != TypeId::kStruct || precision < 0) return kNone;
  StructRegistry& r = Structs();
  std::lock_guard<std::mutex> lock(r.mu);
  return precision < int32_t(r.lists.size()) ? r.lists[size_t(precision)] : kNone;
}

PhysicalType DataType::physical() const {
  switch (id) {
    case TypeId::kFloat32:
    case TypeId::kFloat64: return PhysicalType::kDouble;
    case TypeId::kNumeric: return PhysicalType::kDecimal;
    case TypeId::kInterval: return PhysicalType::kInterval;
    case TypeId::kVarchar:
    case TypeId::kBytea:
    case TypeId::kArray:
    case TypeId::kStruct:
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
      if (IsJson()) return IsJsonb() ? "jsonb" : "json";
      if (IsUuid()) return "uuid";
      if (IsVoid()) return "void";
      if (IsName()) return "name";
      if (IsChar()) return "\"char\"";
      if (IsBpchar()) return precision >= 0 ? fmt::format("character({})", precision) : "bpchar";
      if (precision >= 0) return fmt::format("character varying({})", precision);
      return "character varying";
    case TypeId::kBytea: return "bytea";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time without time zone";
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
      if (precision >= 0) return fmt::format("timestamp({}) without time zone", precision);
      return id == TypeId::kTimestampNs ? "timestamp(9) without time zone" : "timestamp without time zone";
    case TypeId::kTimestamptz:
      if (precision >= 0) return fmt::format("timestamp({}) with time zone", precision);
      return "timestamp with time zone";
    case TypeId::kInterval: return "interval";
    case TypeId::kOid:
      switch (oid_kind()) {
        case OidKind::kRegclass: return "regclass";
        case OidKind::kRegtype: return "regtype";
        case OidKind::kRegnamespace: return "regnamespace";
        case OidKind::kRegrole: return "regrole";
        case OidKind::kRegproc: return "regproc";
        case OidKind::kRegprocedure: return "regprocedure";
        default: return "oid";
      }
    case TypeId::kArray:
      if (IsVector()) return ElementType().id == TypeId::kOid ? "oidvector" : "int2vector";
      return IsAnyArray() ? "anyarray" : ElementType().ToString() + "[]";
    case TypeId::kEnum: {
      if (IsAnyEnum()) return "anyenum";
      EnumTypeRef e = FindEnumType(static_cast<uint32_t>(precision));
      return e ? QuoteIdent(e->name) : fmt::format("enum {}", precision);
    }
    case TypeId::kStruct: {
      if (IsAnyStruct()) return "record";
      std::string out = "struct<";
      bool first = true;
      for (const auto& [name, type] : StructFields()) {
        out += (first ? "" : ", ") + name + " " + type.ToString();
        first = false;
      }
      return out + ">";
    }
  }
  return "unknown";
}

namespace {

// Element type oid -> array type oid (pg_type.typarray).
constexpr std::pair<uint32_t, uint32_t> kArrayOids[] = {
    {16, 1000},  {17, 1001},  {18, 1002},     {19, 1003},     {20, 1016},     {21, 1005},     {23, 1007},
    {24, 1008},  {25, 1009},  {26, 1028},     {700, 1021},    {701, 1022},    {1042, 1014},   {1043, 1015},
    {1082, 1182}, {1083, 1183}, {1114, 1115}, {1184, 1185}, {1186, 1187}, {1700, 1231}, {2205, 2210},
    {2206, 2211}, {4089, 4090}, {4096, 4097}, {2249, 2287}, {2202, 2207}, {114, 199}, {3802, 3807}, {2950, 2951},
};

}  // namespace

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
    case TypeId::kVarchar:
      return IsText()     ? 25
             : IsJsonb()  ? 3802
             : IsJson()   ? 114
             : IsUuid()   ? 2950
             : IsBpchar() ? 1042
             : IsVoid()   ? 2278
             : IsName()   ? 19
             : IsChar()   ? 18
                          : 1043;
    case TypeId::kBytea: return 17;
    case TypeId::kDate: return 1082;
    case TypeId::kTime: return 1083;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs: return 1114;
    case TypeId::kTimestamptz: return 1184;
    case TypeId::kInterval: return 1186;
    case TypeId::kOid:
      switch (oid_kind()) {
        case OidKind::kRegclass: return 2205;
        case OidKind::kRegtype: return 2206;
        case OidKind::kRegnamespace: return 4089;
        case OidKind::kRegrole: return 4096;
        case OidKind::kRegproc: return 24;
        case OidKind::kRegprocedure: return 2202;
        default: return 26;
      }
    case TypeId::kArray: {
      if (IsVector()) return ElementType().id == TypeId::kOid ? 30 : 22;
      if (ElementType().IsEnum()) {
        EnumTypeRef e = FindEnumType(static_cast<uint32_t>(scale));
        return e ? e->array_oid : 2277;
      }
      uint32_t elem = ElementType().PgOid();
      for (const auto& [e, a] : kArrayOids)
        if (e == elem) return a;
      return 2277;  // anyarray
    }
    case TypeId::kStruct: return 2249;  // record
    case TypeId::kEnum: {
      if (IsAnyEnum()) return 3500;  // anyenum
      EnumTypeRef e = FindEnumType(static_cast<uint32_t>(precision));
      return e ? e->oid : 3500;
    }
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
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
    case TypeId::kTimestamptz: return 8;
    case TypeId::kInterval: return 16;
    case TypeId::kOid: return 4;
    case TypeId::kEnum: return 4;
    case TypeId::kVarchar: return IsUuid() ? 16 : IsVoid() ? 4 : IsName() ? 64 : IsChar() ? 1 : -1;
    default: return -1;
  }
}

int32_t DataType::PgTypeMod() const {
  if (id == TypeId::kArray) return ElementType().PgTypeMod();
  // Not PostgreSQL's (records have none): lets format_type(2249, typmod)
  // name the struct's fields, for psql's \d.
  if (id == TypeId::kStruct) return precision;
  if (id == TypeId::kNumeric && precision >= 0) return ((precision << 16) | (scale < 0 ? 0 : scale)) + 4;
  if (id == TypeId::kVarchar && precision >= 0) return precision + 4;
  if (id == TypeId::kTimestamp || id == TypeId::kTimestamptz) return precision;
  if (id == TypeId::kTimestampNs) return FractionalDigits();
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
      {"double", TypeId::kFloat64},  // GreptimeDB's (and MySQL's) spelling
      {"numeric", TypeId::kNumeric},     {"decimal", TypeId::kNumeric},
      {"varchar", TypeId::kVarchar},     {"text", TypeId::kVarchar},
      {"character varying", TypeId::kVarchar}, {"string", TypeId::kVarchar},
      {"char", TypeId::kVarchar},        {"name", TypeId::kVarchar},
      {"bytea", TypeId::kBytea},         {"date", TypeId::kDate},
      {"time", TypeId::kTime},           {"time without time zone", TypeId::kTime},
      {"timestamp", TypeId::kTimestamp}, {"timestamp without time zone", TypeId::kTimestamp},
      {"timestamptz", TypeId::kTimestamptz}, {"timestamp with time zone", TypeId::kTimestamptz},
      {"interval", TypeId::kInterval},
  };
  auto it = kNames.find(name);
  return it == kNames.end() ? TypeId::kUnknown : it->second;
}

DataType DataTypeFromName(const std::string& name) {
  if (name == "text") return DataType::Text();
  if (name == "json") return DataType::Json();
  if (name == "jsonb") return DataType::Jsonb();
  if (name == "uuid") return DataType::Uuid();
  if (name == "name") return DataType::Name();
  // The parser names char(n) and character(n) pg_catalog.bpchar; "char"
  // is a quoted "char", PostgreSQL's one-byte type.
  if (name == "char") return DataType::Char();
  if (name == "bpchar" || name == "character") return DataType::Bpchar();
  if (name == "oid") return DataType::Oid();
  if (name == "regclass") return DataType::Oid(OidKind::kRegclass);
  if (name == "regtype") return DataType::Oid(OidKind::kRegtype);
  if (name == "regnamespace") return DataType::Oid(OidKind::kRegnamespace);
  if (name == "regrole") return DataType::Oid(OidKind::kRegrole);
  if (name == "regproc") return DataType::Oid(OidKind::kRegproc);
  if (name == "regprocedure") return DataType::Oid(OidKind::kRegprocedure);
  if (name == "int2vector") return DataType::Int2Vector();
  if (name == "oidvector") return DataType::OidVector();
  if (name.size() > 1 && name[0] == '_') {
    DataType elem = DataTypeFromName(name.substr(1));
    if (elem.id == TypeId::kUnknown || elem.IsArray()) return DataType::Unknown();
    return DataType::Array(elem);
  }
  return DataType(TypeIdFromName(name));
}

std::string PgTypeName(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "bool";
    case TypeId::kInt16: return "int2";
    case TypeId::kInt32: return "int4";
    case TypeId::kInt64: return "int8";
    case TypeId::kFloat32: return "float4";
    case TypeId::kFloat64: return "float8";
    case TypeId::kNumeric: return "numeric";
    case TypeId::kVarchar:
      if (t.IsBpchar()) return "bpchar";
      if (t.IsChar()) return "char";
      return t.IsText() || t.IsCheckedText() || t.IsVoid() || t.IsName() ? t.ToString() : "varchar";
    case TypeId::kBytea: return "bytea";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time";
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs: return "timestamp";
    case TypeId::kTimestamptz: return "timestamptz";
    case TypeId::kInterval: return "interval";
    case TypeId::kOid: return t.ToString();
    case TypeId::kArray:
      if (t.IsVector()) return t.ToString();
      return t.IsAnyArray() ? "anyarray" : "_" + PgTypeName(t.ElementType());
    case TypeId::kStruct: return "record";
    case TypeId::kEnum: {
      EnumTypeRef e = t.IsAnyEnum() ? nullptr : FindEnumType(static_cast<uint32_t>(t.precision));
      return e ? e->name : "anyenum";
    }
    case TypeId::kUnknown: return "unknown";
  }
  return "unknown";
}

DataType DataTypeFromPgOid(uint32_t oid) {
  if (oid >= 16384) {  // PostgreSQL's first user oid: a type CREATE TYPE made
    bool array = false;
    if (EnumTypeRef e = FindEnumTypeByOid(oid, &array)) {
      DataType t = DataType::Enum(e->id);
      return array ? DataType::Array(t) : t;
    }
  }
  for (const auto& [e, a] : kArrayOids) {
    if (a == oid) {
      DataType elem = DataTypeFromPgOid(e);
      return elem.id == TypeId::kUnknown ? DataType::Unknown() : DataType::Array(elem);
    }
  }
  switch (oid) {
    case 22: return DataType::Int2Vector();
    case 30: return DataType::OidVector();
    case 26: return DataType::Oid();
    case 2249: return DataType::AnyStruct();
    case 2205: return DataType::Oid(OidKind::kRegclass);
    case 2206: return DataType::Oid(OidKind::kRegtype);
    case 4089: return DataType::Oid(OidKind::kRegnamespace);
    case 4096: return DataType::Oid(OidKind::kRegrole);
    case 24: return DataType::Oid(OidKind::kRegproc);
    case 2202: return DataType::Oid(OidKind::kRegprocedure);
    case 18: return DataType::Char();
    case 16: return DataType::Boolean();
    case 21: return DataType::Int16();
    case 23: return DataType::Int32();
    case 20: return DataType::Int64();
    case 700: return DataType::Float32();
    case 701: return DataType::Float64();
    case 1700: return DataType::Numeric();
    case 25: return DataType::Text();
    case 114: return DataType::Json();
    case 3802: return DataType::Jsonb();
    case 2950: return DataType::Uuid();
    case 2278: return DataType::Void();
    case 1042: return DataType::Bpchar();
    case 1043: return DataType::Varchar();
    case 19: return DataType::Name();
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
