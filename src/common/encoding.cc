#include "common/encoding.h"

#include "common/json.h"

#include <cmath>
#include <cstring>

#include "common/array.h"
#include "common/struct.h"

namespace freshet {

void PutFixed32BE(std::string* out, uint32_t v) {
  char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out->append(b, 4);
}
void PutFixed16BE(std::string* out, uint16_t v) {
  char b[2] = {char(v >> 8), char(v)};
  out->append(b, 2);
}
void PutFixed64BE(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; i++) b[i] = char(v >> (56 - 8 * i));
  out->append(b, 8);
}
uint32_t GetFixed32BE(const char* p) {
  auto u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t(u[0]) << 24 | uint32_t(u[1]) << 16 | uint32_t(u[2]) << 8 | u[3];
}
uint16_t GetFixed16BE(const char* p) {
  auto u = reinterpret_cast<const uint8_t*>(p);
  return uint16_t(u[0] << 8 | u[1]);
}
uint64_t GetFixed64BE(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | uint8_t(p[i]);
  return v;
}

namespace {

constexpr char kNotNull = 0x01;
constexpr char kNull = 0x02;  // sorts after every non-null value

void EncodeInt(int64_t v, std::string* out) { PutFixed64BE(out, uint64_t(v) ^ (1ULL << 63)); }

void EncodeDouble(double d, std::string* out) {
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();  // canonical NaN, sorts last
  if (d == 0.0) d = 0.0;                                             // -0 == 0
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  bits = (bits & (1ULL << 63)) ? ~bits : bits | (1ULL << 63);
  PutFixed64BE(out, bits);
}

void EncodeInt128(__int128 v, std::string* out) {
  unsigned __int128 u = static_cast<unsigned __int128>(v) ^ (static_cast<unsigned __int128>(1) << 127);
  PutFixed64BE(out, uint64_t(u >> 64));
  PutFixed64BE(out, uint64_t(u));
}

// Decimals of different scales must order by value: encode sign, then the
// decimal exponent and the significant digits, as in RisingWave/CockroachDB.
void EncodeDecimal(const Decimal& d0, std::string* out) {
  // -Infinity, negatives, zero, positives, Infinity, NaN.
  if (DecimalIsSpecial(d0)) {
    out->push_back(DecimalIsNaN(d0) ? 0x05 : DecimalSign(d0) > 0 ? 0x04 : 0x00);
    return;
  }
  Decimal d = DecimalNormalize(d0);
  if (d.value == 0) {
    out->push_back(0x02);
    return;
  }
  bool neg = d.value < 0;
  unsigned __int128 mag = neg ? static_cast<unsigned __int128>(-d.value) : static_cast<unsigned __int128>(d.value);
  std::string digits;
  while (mag > 0) {
    digits.insert(digits.begin(), char('0' + int(mag % 10)));
    mag /= 10;
  }
  // value = 0.digits * 10^exponent
  int exponent = int(digits.size()) - d.scale;
  std::string body;
  body.push_back(char(uint8_t(exponent + 128)));
  for (char c : digits) body.push_back(char(c - '0' + 1));  // 1..10, 0 terminates
  body.push_back(0);
  if (neg) {
    out->push_back(0x01);
    for (char& c : body) c = char(~uint8_t(c));
  } else {
    out->push_back(0x03);
  }
  out->append(body);
}


template <typename Fn>
void EncodeWithDirection(std::string* out, bool descending, Fn fn) {
  size_t start = out->size();
  fn();
  if (descending) {
    for (size_t i = start; i < out->size(); i++) (*out)[i] = char(~uint8_t((*out)[i]));
  }
}

}  // namespace

void EncodeStringKey(std::string_view s, std::string* out) {
  for (char c : s) {
    out->push_back(c);
    if (c == 0) out->push_back(char(0xFF));
  }
  out->push_back(0);
  out->push_back(1);
}

void EncodeKeyFromVector(const Vector& col, size_t i, std::string* out, bool descending) {
  EncodeWithDirection(out, descending, [&] {
    if (col.IsNull(i)) {
      out->push_back(kNull);
      return;
    }
    out->push_back(kNotNull);
    switch (col.physical()) {
      case PhysicalType::kInt64: EncodeInt(col.GetInt(i), out); break;
      case PhysicalType::kDouble: EncodeDouble(col.GetFloat(i), out); break;
      case PhysicalType::kDecimal: EncodeDecimal(col.GetDecimal(i), out); break;
      case PhysicalType::kInterval: EncodeInt128(IntervalCompareKey(col.GetInterval(i)), out); break;
      case PhysicalType::kString:
        if (col.type().IsArray()) EncodeArrayKey(col.GetString(i), col.type().ElementType(), out);
        else if (col.type().IsStruct()) EncodeStructKey(col.GetString(i), col.type(), out);
        else if (col.type().IsJsonb()) EncodeStringKey(JsonbSortKey(col.GetString(i)), out);
        else EncodeStringKey(col.GetString(i), out);
        break;
    }
  });
}

void EncodeBigintKey(int64_t v, std::string* out) {
  out->push_back(kNotNull);
  EncodeInt(v, out);
}

char* EncodeBigintKeyTo(int64_t v, char* out) {
  *out++ = kNotNull;
  uint64_t u = uint64_t(v) ^ (1ULL << 63);  // EncodeInt: big-endian, sign flipped
  for (int i = 7; i >= 0; i--) *out++ = static_cast<char>(u >> (8 * i));
  return out;
}

void EncodeKeyValue(const Value& v, std::string* out, bool descending) {
  EncodeWithDirection(out, descending, [&] {
    if (v.is_null()) {
      out->push_back(kNull);
      return;
    }
    out->push_back(kNotNull);
    switch (v.type().physical()) {
      case PhysicalType::kInt64: EncodeInt(v.int_value(), out); break;
      case PhysicalType::kDouble: EncodeDouble(v.float_value(), out); break;
      case PhysicalType::kDecimal: EncodeDecimal(v.decimal_value(), out); break;
      case PhysicalType::kInterval: EncodeInt128(IntervalCompareKey(v.interval_value()), out); break;
      case PhysicalType::kString:
        if (v.type().IsArray()) EncodeArrayKey(v.string_value(), v.type().ElementType(), out);
        else if (v.type().IsStruct()) EncodeStructKey(v.string_value(), v.type(), out);
        else if (v.type().IsJsonb()) EncodeStringKey(JsonbSortKey(v.string_value()), out);
        else EncodeStringKey(v.string_value(), out);
        break;
    }
  });
}

// ---- Row encoding ----

namespace {

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(char(v | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}

bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint8_t b = uint8_t(in->front());
    in->remove_prefix(1);
    result |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

template <typename T>
void PutRaw(std::string* out, const T& v) { out->append(reinterpret_cast<const char*>(&v), sizeof(T)); }

template <typename T>
bool GetRaw(std::string_view* in, T* v) {
  if (in->size() < sizeof(T)) return false;
  std::memcpy(v, in->data(), sizeof(T));
  in->remove_prefix(sizeof(T));
  return true;
}

}  // namespace

void EncodeCell(const Vector& c, size_t i, std::string* out) {
  if (c.IsNull(i)) {
    out->push_back(0);
    return;
  }
  out->push_back(1);
  switch (c.physical()) {
    case PhysicalType::kInt64: PutRaw(out, c.GetInt(i)); break;
    case PhysicalType::kDouble: PutRaw(out, c.GetFloat(i)); break;
    case PhysicalType::kDecimal:
      PutRaw(out, c.GetDecimal(i).value);
      PutRaw(out, c.GetDecimal(i).scale);
      break;
    case PhysicalType::kInterval: PutRaw(out, c.GetInterval(i)); break;
    case PhysicalType::kString:
      PutVarint(out, c.GetString(i).size());
      out->append(c.GetString(i));
      break;
  }
}

bool DecodeCell(std::string_view* in, Vector* c) {
  if (in->empty()) return false;
  char tag = in->front();
  in->remove_prefix(1);
  if (tag == 0) {
    c->AppendNull();
    return true;
  }
  switch (c->physical()) {
    case PhysicalType::kInt64: {
      int64_t v;
      if (!GetRaw(in, &v)) return false;
      c->AppendInt(v);
      return true;
    }
    case PhysicalType::kDouble: {
      double v;
      if (!GetRaw(in, &v)) return false;
      c->floats().push_back(v);
      c->validity().push_back(1);
      return true;
    }
    case PhysicalType::kDecimal: {
      Decimal d;
      if (!GetRaw(in, &d.value) || !GetRaw(in, &d.scale)) return false;
      c->AppendDecimal(d);
      return true;
    }
    case PhysicalType::kInterval: {
      Interval iv;
      if (!GetRaw(in, &iv)) return false;
      c->AppendInterval(iv);
      return true;
    }
    case PhysicalType::kString: {
      uint64_t n;
      if (!GetVarint(in, &n) || in->size() < n) return false;
      c->AppendString(std::string(in->substr(0, n)));
      in->remove_prefix(n);
      return true;
    }
  }
  return false;
}


void EncodeRow(const DataChunk& chunk, size_t row, std::string* out) {
  for (const auto& c : chunk.columns()) EncodeCell(c, row, out);
}

namespace {
size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

// A column's cells written at out[r], NULLs as the byte 0.
template <typename Put>
void EncodeColumnTo(const Vector& c, size_t n, Put put, char** out) {
  for (size_t r = 0; r < n; r++) {
    if (c.IsNull(r)) *out[r]++ = 0;
    else out[r] = put(r, out[r]);
  }
}
}  // namespace

void EncodedRowSizes(const DataChunk& chunk, std::vector<size_t>* sizes) {
  const size_t n = chunk.num_rows();
  sizes->assign(n, 0);
  size_t* size = sizes->data();
  for (const Vector& c : chunk.columns()) {
    size_t value_size = 0;  // a non-NULL value's bytes after the tag, when fixed
    switch (c.physical()) {
      case PhysicalType::kInt64:
      case PhysicalType::kDouble: value_size = 8; break;
      case PhysicalType::kDecimal: value_size = sizeof(__int128) + sizeof(int32_t); break;
      case PhysicalType::kInterval: value_size = sizeof(Interval); break;
      case PhysicalType::kString:
        for (size_t r = 0; r < n; r++) {
          size_t len = c.IsNull(r) ? 0 : c.GetString(r).size();
          size[r] += c.IsNull(r) ? 1 : 1 + VarintLength(len) + len;
        }
        continue;
    }
    for (size_t r = 0; r < n; r++) size[r] += c.IsNull(r) ? 1 : 1 + value_size;
  }
}

void EncodeRowsTo(const DataChunk& chunk, char** out) {
  const size_t n = chunk.num_rows();
  for (const Vector& c : chunk.columns()) {
    switch (c.physical()) {
      case PhysicalType::kInt64:
        EncodeColumnTo(c, n, [&](size_t r, char* p) { return EncodeInt64CellTo(c.GetInt(r), p); }, out);
        break;
      case PhysicalType::kDouble:
        EncodeColumnTo(c, n, [&](size_t r, char* p) { return EncodeDoubleCellTo(c.GetFloat(r), p); }, out);
        break;
      case PhysicalType::kString:
        EncodeColumnTo(c, n, [&](size_t r, char* p) { return EncodeStringCellTo(c.GetString(r), p); }, out);
        break;
      default: {
        std::string cell;
        for (size_t r = 0; r < n; r++) {
          cell.clear();
          EncodeCell(c, r, &cell);
          std::memcpy(out[r], cell.data(), cell.size());
          out[r] += cell.size();
        }
      }
    }
  }
}

void EncodeRowValues(const Row& row, std::string* out) {
  for (const auto& v : row) {
    Vector tmp(v.type());
    tmp.Append(v);
    EncodeCell(tmp, 0, out);
  }
}

bool SkipCell(std::string_view* in, PhysicalType physical) {
  if (in->empty()) return false;
  char tag = in->front();
  in->remove_prefix(1);
  if (tag == 0) return true;
  size_t n = 0;
  switch (physical) {
    case PhysicalType::kInt64:
    case PhysicalType::kDouble: n = 8; break;
    case PhysicalType::kDecimal: n = sizeof(__int128) + sizeof(int32_t); break;
    case PhysicalType::kInterval: n = sizeof(Interval); break;
    case PhysicalType::kString: {
      uint64_t len;
      if (!GetVarint(in, &len)) return false;
      n = len;
      break;
    }
  }
  if (in->size() < n) return false;
  in->remove_prefix(n);
  return true;
}

bool DecodeRowInto(std::string_view bytes, DataChunk* chunk, const std::vector<bool>& wanted) {
  auto& cols = chunk->columns();
  for (size_t i = 0; i < cols.size(); i++) {
    if (i < wanted.size() && !wanted[i]) {
      if (!SkipCell(&bytes, cols[i].physical())) return false;
      cols[i].AppendNull();
      continue;
    }
    if (!DecodeCell(&bytes, &cols[i])) return false;
  }
  chunk->set_cardinality(chunk->num_rows());
  return bytes.empty();
}

bool DecodeStoredRowInto(std::string_view bytes, DataChunk* chunk, const std::vector<std::string>& missing,
                         const std::vector<bool>* wanted) {
  auto& cols = chunk->columns();
  for (size_t i = 0; i < cols.size(); i++) {
    if (bytes.empty()) {
      // A column added after the row was written.
      std::string_view cell = i < missing.size() ? std::string_view(missing[i]) : std::string_view();
      if (cell.empty() || (wanted && i < wanted->size() && !(*wanted)[i])) cols[i].AppendNull();
      else if (!DecodeCell(&cell, &cols[i]) || !cell.empty()) return false;
      continue;
    }
    if (wanted && i < wanted->size() && !(*wanted)[i]) {
      if (!SkipCell(&bytes, cols[i].physical())) return false;
      cols[i].AppendNull();
      continue;
    }
    if (!DecodeCell(&bytes, &cols[i])) return false;
  }
  chunk->set_cardinality(chunk->num_rows());
  return true;
}

bool DecodeStoredRow(std::string_view bytes, const std::vector<DataType>& types,
                     const std::vector<std::string>& missing, Row* row) {
  DataChunk chunk(types);
  if (!DecodeStoredRowInto(bytes, &chunk, missing)) return false;
  *row = chunk.GetRow(0);
  return true;
}

bool DecodeRowInto(std::string_view bytes, DataChunk* chunk) {
  for (auto& c : chunk->columns()) {
    if (!DecodeCell(&bytes, &c)) return false;
  }
  chunk->set_cardinality(chunk->num_rows());
  return bytes.empty();
}

bool DecodeCellsInto(std::string_view* bytes, DataChunk* chunk, size_t first_column, size_t count) {
  auto& cols = chunk->columns();
  for (size_t i = first_column; i < first_column + count; i++)
    if (!DecodeCell(bytes, &cols[i])) return false;
  return true;
}

bool SkipCells(std::string_view* bytes, const std::vector<DataType>& types) {
  for (const auto& t : types)
    if (!SkipCell(bytes, t.physical())) return false;
  return true;
}

bool DecodeRow(std::string_view bytes, const std::vector<DataType>& types, Row* row) {
  DataChunk chunk(types);
  if (!DecodeRowInto(bytes, &chunk)) return false;
  *row = chunk.GetRow(0);
  return true;
}

std::string HexEncode(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string HexDecode(std::string_view hex) {
  auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(char(digit(hex[i]) << 4 | digit(hex[i + 1])));
  return out;
}

void EncodeOrderKeyFromVector(const Vector& col, size_t i, bool descending, bool nulls_first, std::string* out) {
  bool null = col.IsNull(i);
  out->push_back(char(null == nulls_first ? 0 : 1));
  if (!null) EncodeKeyFromVector(col, i, out, descending);
}

}  // namespace freshet
