#include "common/array.h"

#include <cstring>

#include "common/encoding.h"
#include "common/error.h"
#include "common/limits.h"

namespace freshet {

namespace {

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(char(v | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}

[[noreturn]] void Malformed() { throw SqlError(sqlstate::kInternalError, "malformed array or struct value"); }

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}

uint64_t GetVarint(std::string_view* in) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint8_t b = uint8_t(in->front());
    in->remove_prefix(1);
    result |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return result;
  }
  Malformed();
}



}  // namespace

void AppendEncodedElement(const Vector& v, size_t i, std::string* out) { EncodeCell(v, i, out); }

void DecodeElementInto(std::string_view* in, Vector* v) {
  if (!DecodeCell(in, v)) Malformed();
}

void SkipElement(std::string_view* in, PhysicalType physical) {
  if (!SkipCell(in, physical)) Malformed();
}

void AppendElementCount(uint64_t n, std::string* out) { PutVarint(out, n); }

// EncodeCell's bytes for a string: tag 1, varint length, the bytes.
void AppendEncodedStringElement(std::string_view s, std::string* out) {
  out->push_back(1);
  PutVarint(out, s.size());
  out->append(s);
}

size_t EncodedStringElementSize(std::string_view s) { return 1 + VarintSize(s.size()) + s.size(); }

uint64_t ReadElementCount(std::string_view* in) { return GetVarint(in); }

namespace {

// The bytes of EncodeArray(v), counted without writing them.
uint64_t EncodedArraySize(const Vector& v) {
  uint64_t size = VarintSize(v.size()) + v.size();  // the count and a tag byte per element
  if (v.physical() != PhysicalType::kString) {
    size_t value_bytes = v.physical() == PhysicalType::kDecimal    ? sizeof(Decimal::value) + sizeof(Decimal::scale)
                         : v.physical() == PhysicalType::kInterval ? sizeof(Interval)
                                                                   : sizeof(int64_t);
    size_t values = 0;
    for (size_t i = 0; i < v.size(); i++) values += !v.IsNull(i);
    return size + values * value_bytes;
  }
  for (size_t i = 0; i < v.size(); i++) {
    if (v.IsNull(i)) continue;
    size_t len = v.GetString(i).size();
    size += VarintSize(len) + len;
  }
  return size;
}

}  // namespace

// Refuses an array beyond PostgreSQL's limits before anything is written.
std::string EncodeArray(const Vector& v) {
  CheckArrayElements(v.size());
  uint64_t size = EncodedArraySize(v);
  CheckArrayBytes(size);
  std::string out;
  out.reserve(size);
  PutVarint(&out, v.size());
  for (size_t i = 0; i < v.size(); i++) AppendEncodedElement(v, i, &out);
  return out;
}

Vector DecodeArray(std::string_view in, const DataType& element) {
  Vector v(element);
  uint64_t n = GetVarint(&in);
  if (n > in.size()) Malformed();  // every element takes at least one byte
  v.Reserve(n);
  for (uint64_t i = 0; i < n; i++) DecodeElementInto(&in, &v);
  if (!in.empty()) Malformed();
  return v;
}

size_t ArrayLength(std::string_view bytes) { return GetVarint(&bytes); }

void EncodeArrayKey(std::string_view bytes, const DataType& element, std::string* out) {
  Vector v = DecodeArray(bytes, element);
  // Each element key starts with 0x01 (value) or 0x02 (NULL), so the 0x00
  // terminator sorts a prefix before its extensions.
  for (size_t i = 0; i < v.size(); i++) EncodeKeyFromVector(v, i, out);
  out->push_back(0);
}

int CompareArrays(std::string_view a, std::string_view b, const DataType& element) {
  Vector x = DecodeArray(a, element), y = DecodeArray(b, element);
  size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; i++) {
    int c = Value::Compare(x.GetValue(i), y.GetValue(i));
    if (c != 0) return c;
  }
  return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
}

}  // namespace freshet
