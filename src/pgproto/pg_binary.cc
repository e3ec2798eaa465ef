#include "pgproto/pg_binary.h"

#include "common/json.h"
#include "common/uuid.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "common/array.h"
#include "common/character.h"
#include "common/enum_type.h"
#include "common/error.h"
#include "common/struct.h"
#include "pgproto/utf8_check.h"

namespace freshet {

namespace {

// PostgreSQL's epoch (2000-01-01) relative to ours (1970-01-01).
constexpr int64_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = kPgEpochDays * kMicrosPerDay;

template <typename T>
void PutBE(std::string* out, T v) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(v);
  for (int i = sizeof(T) - 1; i >= 0; i--) out->push_back(static_cast<char>(u >> (8 * i)));
}

template <typename T>
T GetBE(const std::string& s, size_t pos) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (size_t i = 0; i < sizeof(T); i++) u = static_cast<U>(u << 8) | static_cast<uint8_t>(s[pos + i]);
  return static_cast<T>(u);
}

std::string EncodeNumeric(const Decimal& d) {
  if (DecimalIsSpecial(d)) {  // no digits, the sign word says which (NUMERIC_NAN, _PINF, _NINF)
    std::string out;
    PutBE<int16_t>(&out, 0);
    PutBE<int16_t>(&out, 0);
    PutBE<uint16_t>(&out, DecimalIsNaN(d) ? 0xC000 : DecimalSign(d) > 0 ? 0xD000 : 0xF000);
    PutBE<int16_t>(&out, 0);
    return out;
  }
  unsigned __int128 mag = d.value < 0 ? static_cast<unsigned __int128>(-d.value) : static_cast<unsigned __int128>(d.value);
  std::string digits;
  while (mag > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  }
  int scale = d.scale;
  if (static_cast<int>(digits.size()) <= scale) digits.insert(0, scale - digits.size() + 1, '0');
  std::string int_part = digits.substr(0, digits.size() - scale);
  std::string frac_part = digits.substr(digits.size() - scale);
  // Align to groups of four around the decimal point.
  while (int_part.size() % 4) int_part.insert(int_part.begin(), '0');
  while (frac_part.size() % 4) frac_part.push_back('0');
  std::vector<int16_t> groups;
  for (size_t i = 0; i < int_part.size(); i += 4) groups.push_back(static_cast<int16_t>(std::stoi(int_part.substr(i, 4))));
  int weight = static_cast<int>(groups.size()) - 1;
  for (size_t i = 0; i < frac_part.size(); i += 4) groups.push_back(static_cast<int16_t>(std::stoi(frac_part.substr(i, 4))));
  size_t lead = 0;
  while (lead < groups.size() && groups[lead] == 0) {
    lead++;
    weight--;
  }
  groups.erase(groups.begin(), groups.begin() + lead);
  while (!groups.empty() && groups.back() == 0) groups.pop_back();
  if (groups.empty()) weight = 0;
  std::string out;
  PutBE<int16_t>(&out, static_cast<int16_t>(groups.size()));
  PutBE<int16_t>(&out, static_cast<int16_t>(weight));
  PutBE<uint16_t>(&out, d.value < 0 ? 0x4000 : 0x0000);
  PutBE<int16_t>(&out, static_cast<int16_t>(scale));
  for (int16_t g : groups) PutBE<int16_t>(&out, g);
  return out;
}

}  // namespace

std::string EncodeBinary(const Vector& v, size_t i) {
  std::string out;
  switch (v.type().id) {
    case TypeId::kBoolean: out.push_back(v.GetBool(i) ? 1 : 0); break;
    case TypeId::kInt16: PutBE<int16_t>(&out, static_cast<int16_t>(v.GetInt(i))); break;
    case TypeId::kInt32: PutBE<int32_t>(&out, static_cast<int32_t>(v.GetInt(i))); break;
    case TypeId::kInt64: PutBE<int64_t>(&out, v.GetInt(i)); break;
    case TypeId::kFloat32: {
      float f = static_cast<float>(v.GetFloat(i));
      uint32_t u;
      std::memcpy(&u, &f, 4);
      PutBE<uint32_t>(&out, u);
      break;
    }
    case TypeId::kFloat64: {
      double f = v.GetFloat(i);
      uint64_t u;
      std::memcpy(&u, &f, 8);
      PutBE<uint64_t>(&out, u);
      break;
    }
    case TypeId::kNumeric: out = EncodeNumeric(v.GetDecimal(i)); break;
    case TypeId::kDate: {  // infinities are int32's extremes on the wire (DATEVAL_NOEND)
      int64_t d = v.GetInt(i);
      PutBE<int32_t>(&out, d == kDatetimeInfinity        ? INT32_MAX
                           : d == kDatetimeMinusInfinity ? INT32_MIN
                                                         : static_cast<int32_t>(d - kPgEpochDays));
      break;
    }
    case TypeId::kTime: PutBE<int64_t>(&out, v.GetInt(i)); break;
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz: {
      int64_t t = v.GetInt(i);
      PutBE<int64_t>(&out, IsFiniteDatetime(t) ? t - kPgEpochMicros : t);
      break;
    }
    case TypeId::kTimestampNs:  // PostgreSQL's binary timestamp holds microseconds
      PutBE<int64_t>(&out, TimestampNanosToMicros(v.GetInt(i)) - kPgEpochMicros);
      break;
    case TypeId::kInterval: {
      const Interval& iv = v.GetInterval(i);
      PutBE<int64_t>(&out, iv.micros);
      PutBE<int32_t>(&out, iv.days);
      PutBE<int32_t>(&out, iv.months);
      break;
    }
    case TypeId::kOid: PutBE<uint32_t>(&out, static_cast<uint32_t>(v.GetInt(i))); break;
    case TypeId::kEnum: out = EnumLabelText(static_cast<uint32_t>(v.type().precision), v.GetInt(i)); break;  // enum_send: the label
    case TypeId::kArray: {
      // ndim, has-nulls flag, element type, (size, lower bound) per
      // dimension, then each element as length + binary value (-1: NULL).
      Vector elems = DecodeArray(v.GetString(i), v.type().ElementType());
      PutBE<int32_t>(&out, elems.size() == 0 ? 0 : 1);
      PutBE<int32_t>(&out, elems.HasNulls() ? 1 : 0);
      PutBE<uint32_t>(&out, v.type().ElementType().PgOid());
      if (elems.size() > 0) {
        PutBE<int32_t>(&out, static_cast<int32_t>(elems.size()));
        PutBE<int32_t>(&out, v.type().IsVector() ? 0 : 1);  // int2vector/oidvector start at 0
      }
      for (size_t k = 0; k < elems.size(); k++) {
        if (elems.IsNull(k)) {
          PutBE<int32_t>(&out, -1);
          continue;
        }
        std::string e = EncodeBinary(elems, k);
        PutBE<int32_t>(&out, static_cast<int32_t>(e.size()));
        out += e;
      }
      break;
    }
    case TypeId::kStruct: {
      // record_send: field count, then per field its type oid and its
      // length + binary value (-1: NULL).
      std::vector<Value> fields = DecodeStruct(v.GetString(i), v.type());
      PutBE<int32_t>(&out, static_cast<int32_t>(fields.size()));
      for (const Value& f : fields) {
        PutBE<uint32_t>(&out, f.type().PgOid());
        if (f.is_null()) {
          PutBE<int32_t>(&out, -1);
          continue;
        }
        Vector one(f.type());
        one.Append(f);
        std::string e = EncodeBinary(one, 0);
        PutBE<int32_t>(&out, static_cast<int32_t>(e.size()));
        out += e;
      }
      break;
    }
    default:
      if (v.type().IsUuid()) {  // uuid_send: the 16 bytes
        out += UuidToBytes(v.GetString(i));
        break;
      }
      if (v.type().IsJsonb()) out.push_back('\1');  // jsonb_send's version
      if (v.type().IsBpchar()) {
        out += BpcharPadded(v.GetString(i), v.type());
        break;
      }
      out += v.GetString(i);
      break;
  }
  return out;
}

// ---- Receiving: PostgreSQL's typreceive functions ----

namespace {

constexpr int64_t CivilDays(int64_t y, unsigned m, unsigned d) {  // days since 1970-01-01
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// The ranges the text input accepts (common/datetime.cc): dates from Julian
// day 0 (4714-11-24 BC) to 5874897-12-31, as PostgreSQL; timestamps from
// the same day to 294247-01-01 (PostgreSQL's go on to 294277, past what
// microseconds since 1970 hold in 64 bits).
constexpr int64_t kUnixEpochJulian = 2440588;
constexpr int64_t kMinDay = -kUnixEpochJulian;
constexpr int64_t kEndDay = 2147483494 - kUnixEpochJulian;  // DATE_END_JULIAN
constexpr int64_t kMinTimestamp = kMinDay * kMicrosPerDay;
constexpr int64_t kEndTimestamp = CivilDays(294247, 1, 1) * kMicrosPerDay;
// PostgreSQL's array limits (MAXDIM, MaxArraySize).
constexpr int32_t kMaxArrayDims = 6;
constexpr int64_t kMaxArraySize = 134217727;

// PostgreSQL's numeric sign words (NUMERIC_POS ... NUMERIC_NINF) and
// NUMERIC_DSCALE_MASK.
constexpr uint16_t kNumericPos = 0x0000, kNumericNeg = 0x4000, kNumericNaN = 0xC000, kNumericPInf = 0xD000,
                   kNumericNInf = 0xF000;
constexpr uint16_t kNumericDscaleMask = 0x3FFF;

[[noreturn]] void InsufficientData() {
  // pq_copymsgbytes: a protocol violation, though only the statement ends.
  throw SqlError(sqlstate::kProtocolViolation, "insufficient data left in message");
}

// The bytes of one value, read as PostgreSQL's pq_getmsg* functions do.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  template <typename T>
  T Get() {
    if (s_.size() - pos_ < sizeof(T)) InsufficientData();
    using U = std::make_unsigned_t<T>;
    U u = 0;
    for (size_t i = 0; i < sizeof(T); i++) u = static_cast<U>(u << 8) | static_cast<uint8_t>(s_[pos_ + i]);
    pos_ += sizeof(T);
    return static_cast<T>(u);
  }
  std::string_view Bytes(size_t n) {
    if (s_.size() - pos_ < n) InsufficientData();
    std::string_view out = s_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view Rest() { return Bytes(left()); }
  size_t left() const { return s_.size() - pos_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

// numeric_recv: the sign, scale and digits are checked (22P03); digits the
// scale hides are truncated away, as PostgreSQL does.
Decimal ReceiveNumeric(Reader* r) {
  uint16_t ndigits = r->Get<uint16_t>();
  int weight = r->Get<int16_t>();
  uint16_t sign = r->Get<uint16_t>();
  if (sign != kNumericPos && sign != kNumericNeg && sign != kNumericNaN && sign != kNumericPInf &&
      sign != kNumericNInf)
    throw SqlError(sqlstate::kInvalidBinaryRepresentation, "invalid sign in external \"numeric\" value");
  uint16_t dscale = r->Get<uint16_t>();
  if ((dscale & kNumericDscaleMask) != dscale)
    throw SqlError(sqlstate::kInvalidBinaryRepresentation, "invalid scale in external \"numeric\" value");
  std::string int_digits, frac_digits;
  for (int i = 0; i < ndigits; i++) {
    int g = r->Get<int16_t>();
    if (g < 0 || g > 9999) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "invalid digit in external \"numeric\" value");
    char digits[8];
    std::snprintf(digits, sizeof(digits), "%04d", g);
    if (weight - i >= 0) int_digits += digits;
    else if (frac_digits.size() < dscale + 4u) frac_digits += digits;  // the rest is truncated anyway
  }
  if (sign == kNumericNaN) return DecimalSpecial(kDecimalNaN);
  if (sign == kNumericPInf) return DecimalSpecial(kDecimalInfinity);
  if (sign == kNumericNInf) return DecimalSpecial(kDecimalNegInfinity);
  for (int i = ndigits; i <= weight; i++) int_digits += "0000";
  if (weight < -1) frac_digits.insert(0, std::min<size_t>(static_cast<size_t>(4 * (-1 - weight)), dscale + 4u), '0');
  if (int_digits.empty()) int_digits = "0";
  frac_digits.resize(dscale, '0');
  std::string text = sign == kNumericNeg ? "-" : "";
  text += int_digits;
  if (dscale > 0) text += "." + frac_digits;
  return DecimalFromString(text);
}

Value Receive(Reader* r, const DataType& t);

// array_recv, for the one-dimensional arrays Freshet has.
Value ReceiveArray(Reader* r, const DataType& t) {
  int32_t ndim = r->Get<int32_t>();
  if (ndim < 0) throw SqlError(sqlstate::kInvalidBinaryRepresentation, fmt::format("invalid number of dimensions: {}", ndim));
  if (ndim > kMaxArrayDims)
    throw SqlError(sqlstate::kProgramLimitExceeded,
                   fmt::format("number of array dimensions ({}) exceeds the maximum allowed ({})", ndim, kMaxArrayDims));
  int32_t flags = r->Get<int32_t>();
  if (flags != 0 && flags != 1) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "invalid array flags");
  DataType elem = t.ElementType();
  uint32_t elem_oid = r->Get<uint32_t>();
  if (elem_oid != elem.PgOid()) {
    DataType sent = DataTypeFromPgOid(elem_oid);
    throw SqlError(sqlstate::kDatatypeMismatch,
                   fmt::format("binary data has array element type {} ({}) instead of expected {} ({})", elem_oid,
                               sent.id == TypeId::kUnknown ? "???" : sent.ToString(), elem.PgOid(), elem.ToString()));
  }
  int64_t items = ndim > 0 ? 1 : 0;
  int32_t lower_bound = 1;
  for (int32_t d = 0; d < ndim; d++) {
    int32_t size = r->Get<int32_t>();
    int32_t lower = r->Get<int32_t>();
    if (d == 0) lower_bound = lower;
    // ArrayGetNItems and ArrayCheckBounds.
    if (size < 0 || (items *= size) > kMaxArraySize)
      throw SqlError(sqlstate::kProgramLimitExceeded,
                     fmt::format("array size exceeds the maximum allowed ({})", kMaxArraySize));
    int32_t sum;
    if (__builtin_add_overflow(size, lower, &sum))
      throw SqlError(sqlstate::kProgramLimitExceeded, fmt::format("array lower bound is too large: {}", lower));
  }
  Vector elems(elem);
  if (items > 0 && ndim > 1) throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
  // As the text input: Freshet's arrays start at 1 (dropping the bound
  // would shift every subscript).
  if (items > 0 && lower_bound != (t.IsVector() ? 0 : 1))
    throw SqlError(sqlstate::kFeatureNotSupported, "arrays with a lower bound other than 1 are not supported");
  for (int64_t k = 0; k < items; k++) {
    int32_t len = r->Get<int32_t>();
    if (len < -1 || static_cast<int64_t>(len) > static_cast<int64_t>(r->left()))
      throw SqlError(sqlstate::kInvalidBinaryRepresentation, "insufficient data left in message");
    if (len == -1) {
      elems.AppendNull();
      continue;
    }
    Reader item(r->Bytes(static_cast<size_t>(len)));
    elems.Append(Receive(&item, elem));
    if (item.left() != 0)
      throw SqlError(sqlstate::kInvalidBinaryRepresentation, fmt::format("improper binary format in array element {}", k + 1));
  }
  return Value::FromString(t, EncodeArray(elems));
}

// What each type's receive function reads: fixed-size values their bytes,
// variable-length ones the rest of the data. Range checks as PostgreSQL's.
Value Receive(Reader* r, const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: return Value::Boolean(r->Get<uint8_t>() != 0);  // boolrecv: any non-zero byte
    case TypeId::kInt16: return Value::Int16(r->Get<int16_t>());
    case TypeId::kInt32: return Value::Int32(r->Get<int32_t>());
    case TypeId::kInt64: return Value::Int64(r->Get<int64_t>());
    case TypeId::kFloat32: {
      uint32_t u = r->Get<uint32_t>();
      float f;
      std::memcpy(&f, &u, 4);
      return Value::Float32(f);
    }
    case TypeId::kFloat64: {
      uint64_t u = r->Get<uint64_t>();
      double f;
      std::memcpy(&f, &u, 8);
      return Value::Float64(f);
    }
    case TypeId::kNumeric: return Value::Numeric(ReceiveNumeric(r));
    case TypeId::kDate: {
      int32_t d = r->Get<int32_t>();
      if (d == INT32_MAX) return Value::Date(kDatetimeInfinity);
      if (d == INT32_MIN) return Value::Date(kDatetimeMinusInfinity);
      int64_t days = static_cast<int64_t>(d) + kPgEpochDays;
      if (days < kMinDay || days >= kEndDay) throw SqlError(sqlstate::kDatetimeFieldOverflow, "date out of range");
      return Value::Date(days);
    }
    case TypeId::kTime: {
      int64_t micros = r->Get<int64_t>();
      if (micros < 0 || micros > kMicrosPerDay) throw SqlError(sqlstate::kDatetimeFieldOverflow, "time out of range");
      return Value::Time(micros);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz: {
      int64_t v = r->Get<int64_t>();
      int64_t micros = v;
      if (!IsFiniteDatetime(v)) return t.id == TypeId::kTimestamp ? Value::Timestamp(v) : Value::Timestamptz(v);
      if (__builtin_add_overflow(v, kPgEpochMicros, &micros) || micros < kMinTimestamp || micros >= kEndTimestamp)
        throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
      return t.id == TypeId::kTimestamp ? Value::Timestamp(micros) : Value::Timestamptz(micros);
    }
    case TypeId::kTimestampNs: {
      int64_t micros;
      if (__builtin_add_overflow(r->Get<int64_t>(), kPgEpochMicros, &micros))
        throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
      return Value::FromInt(t, TimestampMicrosToNanos(micros));
    }
    case TypeId::kInterval: {
      int64_t micros = r->Get<int64_t>();
      int32_t days = r->Get<int32_t>();
      int32_t months = r->Get<int32_t>();
      return Value::IntervalValue(Interval{months, days, micros});
    }
    case TypeId::kBytea: return Value::Bytea(std::string(r->Rest()));
    case TypeId::kStruct:
      throw SqlError(sqlstate::kFeatureNotSupported, "binary input of struct (record) parameters is not supported");
    case TypeId::kOid: return Value::FromInt(t, r->Get<uint32_t>());
    case TypeId::kEnum: {  // enum_recv: the label
      if (t.IsAnyEnum()) throw SqlError(sqlstate::kFeatureNotSupported, "binary input of anyenum is not supported");
      std::string_view label = r->Rest();
      CheckUtf8(label);
      return Value::FromInt(t, EnumPositionOf(static_cast<uint32_t>(t.precision), label));
    }
    case TypeId::kArray: return ReceiveArray(r, t);
    default: {
      // textrecv and varcharrecv: the client's text, checked as text is;
      // json's is JSON text, jsonb's a version byte (1) and JSON text.
      std::string_view text = r->Rest();
      if (t.IsUuid()) return Value::FromString(t, UuidFromBytes(text));  // uuid_recv
      if (t.IsJsonb()) {
        if (text.empty() || text[0] != 1)
          throw SqlError(sqlstate::kInvalidBinaryRepresentation, "unsupported jsonb version number");
        text.remove_prefix(1);
      }
      CheckUtf8(text);
      if (t.IsJson()) return Value::FromString(t, t.IsJsonb() ? NormalizeJsonb(text) : (CheckJsonText(text), std::string(text)));
      if (t.IsBpchar()) {  // bpcharrecv: character(n)'s length rules
        std::string s(text);
        ApplyCharacterLength(&s, t, /*assignment=*/true);
        return Value::FromString(t, std::move(s));
      }
      return Value::Varchar(std::string(text));
    }
  }
}

}  // namespace

Value DecodeBinaryParam(const std::string& s, const DataType& t, int param_no) {
  Reader r(s);
  Value v = Receive(&r, t);
  // Trouble if the receive function did not eat the whole value.
  if (r.left() != 0)
    throw SqlError(sqlstate::kInvalidBinaryRepresentation,
                   param_no > 0 ? fmt::format("incorrect binary data format in bind parameter {}", param_no)
                                : std::string("incorrect binary data format"));
  return v;
}
}  // namespace freshet
