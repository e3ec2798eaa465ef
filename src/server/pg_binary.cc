#include "server/pg_binary.h"

#include <cstring>

#include <fmt/format.h>

#include "common/array.h"
#include "common/error.h"
#include "common/struct.h"

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

Decimal DecodeNumeric(const std::string& s) {
  if (s.size() < 8) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "insufficient data left in message");
  int ndigits = GetBE<int16_t>(s, 0), weight = GetBE<int16_t>(s, 2);
  uint16_t sign = GetBE<uint16_t>(s, 4);
  int dscale = GetBE<int16_t>(s, 6);
  if (sign == 0xC000) throw SqlError(sqlstate::kFeatureNotSupported, "numeric NaN is not supported");
  if (s.size() < 8 + 2 * static_cast<size_t>(ndigits))
    throw SqlError(sqlstate::kInvalidBinaryRepresentation, "insufficient data left in message");
  std::string text = sign == 0x4000 ? "-" : "";
  std::string int_digits, frac_digits;
  for (int i = 0; i < ndigits; i++) {
    int g = GetBE<int16_t>(s, 8 + 2 * i);
    if (g < 0 || g > 9999) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "invalid digit in external \"numeric\" value");
    std::string digits = fmt::format("{:04}", g);
    if (weight - i >= 0) int_digits += digits;
    else frac_digits += digits;
  }
  for (int i = ndigits; i <= weight; i++) int_digits += "0000";
  if (weight < -1) frac_digits.insert(0, static_cast<size_t>(4 * (-1 - weight)), '0');
  if (int_digits.empty()) int_digits = "0";
  frac_digits.resize(static_cast<size_t>(dscale), '0');
  text += int_digits;
  if (dscale > 0) text += "." + frac_digits;
  return DecimalFromString(text);
}

void ExpectSize(const std::string& s, size_t n) {
  if (s.size() != n)
    throw SqlError(sqlstate::kInvalidBinaryRepresentation, "incorrect binary data format in bind parameter");
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
    case TypeId::kDate: PutBE<int32_t>(&out, static_cast<int32_t>(v.GetInt(i) - kPgEpochDays)); break;
    case TypeId::kTime: PutBE<int64_t>(&out, v.GetInt(i)); break;
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz: PutBE<int64_t>(&out, v.GetInt(i) - kPgEpochMicros); break;
    case TypeId::kInterval: {
      const Interval& iv = v.GetInterval(i);
      PutBE<int64_t>(&out, iv.micros);
      PutBE<int32_t>(&out, iv.days);
      PutBE<int32_t>(&out, iv.months);
      break;
    }
    case TypeId::kOid: PutBE<uint32_t>(&out, static_cast<uint32_t>(v.GetInt(i))); break;
    case TypeId::kArray: {
      // ndim, has-nulls flag, element type, (size, lower bound) per
      // dimension, then each element as length + binary value (-1: NULL).
      Vector elems = DecodeArray(v.GetString(i), v.type().ElementType());
      PutBE<int32_t>(&out, elems.size() == 0 ? 0 : 1);
      PutBE<int32_t>(&out, elems.HasNulls() ? 1 : 0);
      PutBE<uint32_t>(&out, v.type().ElementType().PgOid());
      if (elems.size() > 0) {
        PutBE<int32_t>(&out, static_cast<int32_t>(elems.size()));
        PutBE<int32_t>(&out, 1);
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
    default: out = v.GetString(i); break;
  }
  return out;
}

Value DecodeBinaryParam(const std::string& s, const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: ExpectSize(s, 1); return Value::Boolean(s[0] != 0);
    case TypeId::kInt16: ExpectSize(s, 2); return Value::Int16(GetBE<int16_t>(s, 0));
    case TypeId::kInt32: ExpectSize(s, 4); return Value::Int32(GetBE<int32_t>(s, 0));
    case TypeId::kInt64: ExpectSize(s, 8); return Value::Int64(GetBE<int64_t>(s, 0));
    case TypeId::kFloat32: {
      ExpectSize(s, 4);
      uint32_t u = GetBE<uint32_t>(s, 0);
      float f;
      std::memcpy(&f, &u, 4);
      return Value::Float32(f);
    }
    case TypeId::kFloat64: {
      ExpectSize(s, 8);
      uint64_t u = GetBE<uint64_t>(s, 0);
      double f;
      std::memcpy(&f, &u, 8);
      return Value::Float64(f);
    }
    case TypeId::kNumeric: return Value::Numeric(DecodeNumeric(s));
    case TypeId::kDate: ExpectSize(s, 4); return Value::Date(GetBE<int32_t>(s, 0) + kPgEpochDays);
    case TypeId::kTime: ExpectSize(s, 8); return Value::Time(GetBE<int64_t>(s, 0));
    case TypeId::kTimestamp: ExpectSize(s, 8); return Value::Timestamp(GetBE<int64_t>(s, 0) + kPgEpochMicros);
    case TypeId::kTimestamptz: ExpectSize(s, 8); return Value::Timestamptz(GetBE<int64_t>(s, 0) + kPgEpochMicros);
    case TypeId::kInterval: {
      ExpectSize(s, 16);
      Interval iv{GetBE<int32_t>(s, 12), GetBE<int32_t>(s, 8), GetBE<int64_t>(s, 0)};
      return Value::IntervalValue(iv);
    }
    case TypeId::kBytea: return Value::Bytea(s);
    case TypeId::kStruct:
      throw SqlError(sqlstate::kFeatureNotSupported, "binary input of struct (record) parameters is not supported");
    case TypeId::kOid: ExpectSize(s, 4); return Value::FromInt(t, GetBE<uint32_t>(s, 0));
    case TypeId::kArray: {
      auto need = [&](size_t pos, size_t n) {
        if (s.size() < pos + n) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "insufficient data left in message");
      };
      need(0, 12);
      int32_t ndim = GetBE<int32_t>(s, 0);
      if (ndim < 0 || ndim > 1)
        throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
      DataType elem = t.ElementType();
      if (GetBE<uint32_t>(s, 8) != elem.PgOid())
        throw SqlError(sqlstate::kDatatypeMismatch, "wrong element type");
      size_t pos = 12;
      int32_t n = 0;
      if (ndim == 1) {
        need(pos, 8);
        n = GetBE<int32_t>(s, pos);
        pos += 8;  // size, lower bound (ignored)
      }
      Vector elems(elem);
      for (int32_t k = 0; k < n; k++) {
        need(pos, 4);
        int32_t len = GetBE<int32_t>(s, pos);
        pos += 4;
        if (len < 0) {
          elems.AppendNull();
          continue;
        }
        need(pos, static_cast<size_t>(len));
        elems.Append(DecodeBinaryParam(s.substr(pos, static_cast<size_t>(len)), elem));
        pos += static_cast<size_t>(len);
      }
      if (pos != s.size()) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "incorrect binary data format in bind parameter");
      return Value::FromString(t, EncodeArray(elems));
    }
    default: return Value::Varchar(s);
  }
}

}  // namespace freshet
