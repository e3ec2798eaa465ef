// SQL data types.
//
// A DataType is a TypeId plus the modifiers PostgreSQL keeps in typmod
// (precision and scale of numeric, length of varchar). Values of each type
// have one physical representation, shared by Value, Vector and the row
// encodings:
//
//   boolean, smallint, integer, bigint  -> int64_t
//   date                                -> int64_t days since 1970-01-01
//   time                                -> int64_t microseconds since midnight
//   timestamp, timestamptz              -> int64_t microseconds since 1970-01-01 00:00 UTC
//   real, double precision              -> double (real rounded to float on every store)
//   numeric                             -> Decimal (128-bit, 38 digits)
//   interval                            -> Interval (months, days, microseconds)
//   varchar, bytea                      -> std::string
//   oid, regclass, regtype, ...         -> int64_t holding the unsigned 32-bit oid
//   arrays                              -> std::string: the encoded element list (common/array.h)
//   structs                             -> std::string: the encoded field list (common/struct.h)
//   enums                               -> int64_t: the label's sort position (common/enum_type.h)
//
// oid and the reg* types (regclass, regtype, regnamespace, regrole,
// regproc) are one TypeId, kOid, told apart by `precision` (an OidKind), so
// that they are interchangeable in function resolution (PostgreSQL's
// binary-coercible casts) while keeping their own text format: a regclass
// prints as the relation's name, an oid as a number.
//
// Arrays are one-dimensional with lower bound 1 (PostgreSQL's common case;
// multidimensional literals are refused). A DataType of id kArray keeps
// the element's TypeId in `precision` and the element's own `precision` in
// `scale` (varchar length, the text marker, the OidKind; numeric(p,s) as
// p * 1000 + s). precision < 0 is "any array" (a polymorphic argument type
// of registered functions).
//
// Structs (RisingWave's STRUCT<name type, ...>, PostgreSQL's anonymous
// records) have named, typed fields. A DataType of id kStruct keeps in
// `precision` the number of its field list in a process-wide registry that
// interns each distinct list once (StructFields), so DataType stays a small
// value type; precision < 0 is "any struct" (polymorphic arguments). The
// catalog stores the fields themselves, never the registry number.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace freshet {

enum class TypeId : uint8_t {
  kUnknown = 0,  // an untyped NULL or string literal before coercion
  kBoolean,
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kNumeric,
  kVarchar,
  kBytea,
  kDate,
  kTime,
  kTimestamp,
  kTimestamptz,
  kInterval,
  // Appended: catalog JSON stores TypeIds as numbers.
  kOid,
  kArray,
  kStruct,
  kEnum,
  // timestamp(7..9): nanoseconds since 1970-01-01 00:00:00 (no zone), so
  // 1677-09-21 00:12:43.145224192 .. 2262-04-11 23:47:16.854775807 and no
  // infinity; precision 7, 8 or 9 (GreptimeDB's TIMESTAMP(9)). Its own
  // type so that no function meant for microseconds takes its values: it
  // casts implicitly to timestamp and timestamptz (rounding to
  // microseconds), which is how every datetime function reaches it.
  kTimestampNs,
};

// Which of oid / regclass / regtype / ... a kOid DataType is (its precision).
enum class OidKind : int32_t { kOid = -1, kRegclass = 1, kRegtype, kRegnamespace, kRegrole, kRegproc, kRegprocedure };

enum class PhysicalType : uint8_t { kInt64, kDouble, kDecimal, kInterval, kString };

struct DataType;
using StructField = std::pair<std::string, DataType>;

struct DataType {
  TypeId id = TypeId::kUnknown;
  int32_t precision = -1;  // numeric precision, varchar length; -1 = unconstrained
  int32_t scale = -1;      // numeric scale; -1 = unconstrained

  DataType() = default;
  DataType(TypeId i) : id(i) {}  // NOLINT: implicit on purpose
  DataType(TypeId i, int32_t p, int32_t s) : id(i), precision(p), scale(s) {}

  static DataType Boolean() { return TypeId::kBoolean; }
  static DataType Int16() { return TypeId::kInt16; }
  static DataType Int32() { return TypeId::kInt32; }
  static DataType Int64() { return TypeId::kInt64; }
  static DataType Float32() { return TypeId::kFloat32; }
  static DataType Float64() { return TypeId::kFloat64; }
  static DataType Numeric() { return TypeId::kNumeric; }
  static DataType Varchar() { return TypeId::kVarchar; }
  // text is varchar without a length limit that remembers its name, so that
  // catalogs and RowDescription say "text" (oid 25) as PostgreSQL does.
  static constexpr int32_t kTextMarker = -2;
  static DataType Text() { return DataType(TypeId::kVarchar, kTextMarker, -1); }
  bool IsText() const { return id == TypeId::kVarchar && precision == kTextMarker; }
  // json and jsonb: text checked to be JSON (jsonb normalized, see
  // common/json.h), kept as varchar; their names and oids are PostgreSQL's.
  static constexpr int32_t kJsonMarker = -3, kJsonbMarker = -4;
  static DataType Json() { return DataType(TypeId::kVarchar, kJsonMarker, -1); }
  static DataType Jsonb() { return DataType(TypeId::kVarchar, kJsonbMarker, -1); }
  bool IsJson() const { return id == TypeId::kVarchar && (precision == kJsonMarker || precision == kJsonbMarker); }
  bool IsJsonb() const { return id == TypeId::kVarchar && precision == kJsonbMarker; }
  // uuid: its canonical text (common/uuid.h), kept as varchar likewise.
  static constexpr int32_t kUuidMarker = -5;
  static DataType Uuid() { return DataType(TypeId::kVarchar, kUuidMarker, -1); }
  bool IsUuid() const { return id == TypeId::kVarchar && precision == kUuidMarker; }
  // Text whose input function checks it: json, jsonb, uuid.
  bool IsCheckedText() const { return IsJson() || IsUuid(); }
  // character(n) / bpchar: blank-padded text (precision: n, or -1 for bpchar
  // without a length). Values are kept without their trailing blanks, which
  // PostgreSQL ignores in comparisons, hashing, length() and casts to text, so
  // keys, joins and grouping are varchar's; the output functions (text,
  // binary, JSON) and the few functions that see the blanks (LIKE,
  // octet_length, concat) pad them back to n (common/character.h).
  static constexpr int32_t kBpcharMarker = -6;  // in scale
  static DataType Bpchar(int32_t length = -1) { return DataType(TypeId::kVarchar, length, kBpcharMarker); }
  bool IsBpchar() const { return id == TypeId::kVarchar && scale == kBpcharMarker; }
  // void: what functions called for their effect return (pg_sleep,
  // pg_advisory_lock): an empty text, oid 2278, as PostgreSQL's.
  static constexpr int32_t kVoidMarker = -7;
  static DataType Void() { return DataType(TypeId::kVarchar, kVoidMarker, -1); }
  bool IsVoid() const { return id == TypeId::kVarchar && precision == kVoidMarker; }
  // name: the catalogs' identifiers (relname, attname...; current_user),
  // text under PostgreSQL's oid 19 (drivers leave name[] unparsed: node-
  // postgres hands Sequelize array_agg(attname) as its text).
  static constexpr int32_t kNameMarker = -8;
  static DataType Name() { return DataType(TypeId::kVarchar, kNameMarker, -1); }
  bool IsName() const { return id == TypeId::kVarchar && precision == kNameMarker; }
  // "char": the catalogs' one-letter codes (relkind, contype...), text
  // under PostgreSQL's oid 18 (asyncpg reads it as a byte).
  static constexpr int32_t kCharMarker = -9;
  static DataType Char() { return DataType(TypeId::kVarchar, kCharMarker, -1); }
  bool IsChar() const { return id == TypeId::kVarchar && precision == kCharMarker; }
  static DataType Bytea() { return TypeId::kBytea; }
  static DataType Date() { return TypeId::kDate; }
  static DataType Time() { return TypeId::kTime; }
  static DataType Timestamp() { return TypeId::kTimestamp; }
  static DataType Timestamptz() { return TypeId::kTimestamptz; }
  // timestamp(p) / timestamptz(p): p fractional digits of the second,
  // 0..6 (values rounded to them, as PostgreSQL's typmod), -1 = 6 without
  // a modifier; timestamp(7..9) is TimestampNs.
  static DataType Timestamp(int32_t p) { return DataType(TypeId::kTimestamp, p, -1); }
  static DataType Timestamptz(int32_t p) { return DataType(TypeId::kTimestamptz, p, -1); }
  // Without a precision (functions' signatures): 9, and no rounding cast
  // from 7 or 8.
  static DataType TimestampNs(int32_t p = -1) { return DataType(TypeId::kTimestampNs, p, -1); }
  // Fractional digits of a timestamp type's values (6 for timestamp,
  // timestamptz without a modifier, 9 for TimestampNs without one).
  int32_t FractionalDigits() const {
    if (precision >= 0) return precision;
    return id == TypeId::kTimestampNs ? 9 : 6;
  }
  static DataType Interval() { return TypeId::kInterval; }
  static DataType Unknown() { return TypeId::kUnknown; }
  static DataType Oid(OidKind k = OidKind::kOid) { return DataType(TypeId::kOid, static_cast<int32_t>(k), -1); }
  OidKind oid_kind() const { return static_cast<OidKind>(precision); }
  // One-dimensional array of `element` (itself not an array).
  static DataType Array(const DataType& element);
  static DataType AnyArray() { return TypeId::kArray; }
  bool IsArray() const { return id == TypeId::kArray; }
  bool IsAnyArray() const { return id == TypeId::kArray && precision < 0; }
  // int2vector and oidvector (pg_index.indkey, pg_proc.proargtypes...):
  // arrays whose text form is space-separated ("1 3") and whose subscripts
  // (like PostgreSQL's) start at 0.
  static constexpr int32_t kVectorMarker = -100;
  static DataType Int2Vector() { return DataType(TypeId::kArray, static_cast<int32_t>(TypeId::kInt16), kVectorMarker); }
  static DataType OidVector() { return DataType(TypeId::kArray, static_cast<int32_t>(TypeId::kOid), kVectorMarker); }
  bool IsVector() const { return id == TypeId::kArray && precision >= 0 && scale == kVectorMarker; }
  // The element type of an array type (Unknown for AnyArray).
  DataType ElementType() const;
  // A struct of these fields (names as given: unquoted SQL names arrive
  // lower-cased).
  static DataType Struct(const std::vector<StructField>& fields);
  static DataType AnyStruct() { return TypeId::kStruct; }
  bool IsStruct() const { return id == TypeId::kStruct; }
  bool IsAnyStruct() const { return id == TypeId::kStruct && precision < 0; }
  // The fields of a struct type (empty for AnyStruct and other types).
  const std::vector<StructField>& StructFields() const;
  // An enum type (CREATE TYPE ... AS ENUM), by its catalog id
  // (common/enum_type.h); AnyEnum is PostgreSQL's anyenum.
  static DataType Enum(uint32_t type_id) { return DataType(TypeId::kEnum, static_cast<int32_t>(type_id), -1); }
  static DataType AnyEnum() { return TypeId::kEnum; }
  bool IsEnum() const { return id == TypeId::kEnum; }
  bool IsAnyEnum() const { return id == TypeId::kEnum && precision < 0; }

  PhysicalType physical() const;
  bool IsInteger() const { return id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64; }
  bool IsFloat() const { return id == TypeId::kFloat32 || id == TypeId::kFloat64; }
  bool IsNumeric() const { return IsInteger() || IsFloat() || id == TypeId::kNumeric; }
  bool IsString() const { return id == TypeId::kVarchar; }
  bool IsTemporal() const {
    return id == TypeId::kDate || id == TypeId::kTime || id == TypeId::kTimestamp ||
           id == TypeId::kTimestamptz || id == TypeId::kInterval || id == TypeId::kTimestampNs;
  }

  // Equality of the base type only (modifiers ignored); arrays are equal
  // when their element types are; structs and enums are equal when they
  // are the same struct or enum type.
  bool operator==(const DataType& o) const {
    if (id != o.id) return false;
    if (id == TypeId::kStruct || id == TypeId::kEnum) return precision == o.precision;
    if (id != TypeId::kArray) return true;
    return precision == o.precision && (precision != static_cast<int32_t>(TypeId::kEnum) || scale == o.scale);
  }
  bool SameWithModifiers(const DataType& o) const {
    return id == o.id && precision == o.precision && scale == o.scale;
  }

  // PostgreSQL's name, e.g. "integer", "numeric(10,2)", "character varying".
  std::string ToString() const;
  // PostgreSQL type OID, length and typmod as sent in RowDescription.
  uint32_t PgOid() const;
  int16_t PgTypeLen() const;
  int32_t PgTypeMod() const;
};

// Maps a PostgreSQL type name (as spelled in SQL or as the catalog name,
// e.g. "int4", "integer", "varchar", "timestamptz") to a TypeId;
// kUnknown when the name is not a supported type.
TypeId TypeIdFromName(const std::string& name);
// The full type for a name: TypeIdFromName plus the names that carry
// modifiers ("text", "oid", "regclass", ...; "_int4" is int4[]). Unknown()
// when the name is not a supported type.
DataType DataTypeFromName(const std::string& name);
DataType DataTypeFromPgOid(uint32_t oid);
// PostgreSQL's pg_type.typname ("int4", "varchar", "_text", "regclass").
std::string PgTypeName(const DataType& t);

}  // namespace freshet
