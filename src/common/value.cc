#include "common/value.h"

#include "common/enum_type.h"

#include "common/json.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "common/array.h"
#include "common/struct.h"

namespace freshet {

Value Value::Float32(double f) {
  Value v;
  v.type_ = DataType::Float32();
  v.null_ = false;
  v.f_ = static_cast<double>(static_cast<float>(f));
  return v;
}

namespace {
template <typename T>
int Cmp(const T& a, const T& b) { return a < b ? -1 : (b < a ? 1 : 0); }

// PostgreSQL orders NaN above every other float and equal to itself.
int CompareDouble(double a, double b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return Cmp(a, b);
}
}  // namespace

int Value::Compare(const Value& a, const Value& b) {
  if (a.null_ || b.null_) return a.null_ == b.null_ ? 0 : (a.null_ ? 1 : -1);
  switch (a.type_.physical()) {
    case PhysicalType::kInt64:
      if (b.type_.physical() == PhysicalType::kDouble) return CompareDouble(double(a.i_), b.f_);
      return Cmp(a.i_, b.i_);
    case PhysicalType::kDouble:
      if (b.type_.physical() == PhysicalType::kInt64) return CompareDouble(a.f_, double(b.i_));
      return CompareDouble(a.f_, b.f_);
    case PhysicalType::kDecimal: return DecimalCompare(a.d_, b.d_);
    case PhysicalType::kInterval: return IntervalCompare(a.iv_, b.iv_);
    case PhysicalType::kString: {
      if (a.type_.IsArray() && b.type_.IsArray()) return CompareArrays(a.s_, b.s_, a.type_.ElementType());
      if (a.type_.IsStruct() && a.type_ == b.type_) return CompareStructs(a.s_, b.s_, a.type_);
      if (a.type_.IsJsonb() && b.type_.IsJsonb() && a.s_ != b.s_) {
        int c = JsonbSortKey(a.s_).compare(JsonbSortKey(b.s_));
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      int c = a.s_.compare(b.s_);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
  }
  return 0;
}

uint64_t Value::Hash() const {
  if (null_) return 0x9e3779b97f4a7c15ULL;
  switch (type_.physical()) {
    case PhysicalType::kInt64: return XXH3_64bits(&i_, sizeof(i_));
    case PhysicalType::kDouble: {
      // -0.0 == 0.0, and every NaN is one value (PostgreSQL's float8 hash;
      // the key encoding agrees: EncodeDouble), else equal keys would go
      // to different vnodes.
      double f = f_ == 0.0 ? 0.0 : std::isnan(f_) ? std::numeric_limits<double>::quiet_NaN() : f_;
      return XXH3_64bits(&f, sizeof(f));
    }
    case PhysicalType::kDecimal: return DecimalHash(d_);
    case PhysicalType::kInterval: {
      __int128 k = IntervalCompareKey(iv_);
      return XXH3_64bits(&k, sizeof(k));
    }
    case PhysicalType::kString: {
      if (type_.IsJsonb()) {  // equal values (1.0 and 1) hash alike
        std::string key = JsonbSortKey(s_);
        return XXH3_64bits(key.data(), key.size());
      }
      return XXH3_64bits(s_.data(), s_.size());
    }
  }
  return 0;
}

std::string Value::ToString() const {
  if (null_) return "NULL";
  if (type_.IsArray()) {  // {a,b} without the quoting of the text format
    Vector elems = DecodeArray(s_, type_.ElementType());
    std::string out = "{";
    for (size_t i = 0; i < elems.size(); i++) out += (i ? "," : "") + elems.GetValue(i).ToString();
    return out + "}";
  }
  if (type_.IsStruct()) {  // (a,b) without the quoting of the text format
    std::string out = "(";
    bool first = true;
    for (const Value& f : DecodeStruct(s_, type_)) {
      out += (first ? "" : ",") + (f.is_null() ? std::string() : f.ToString());
      first = false;
    }
    return out + ")";
  }
  switch (type_.id) {
    case TypeId::kBoolean: return i_ ? "t" : "f";
    case TypeId::kDate: return FormatDate(i_);
    case TypeId::kTime: return FormatTime(i_);
    case TypeId::kTimestamp: return FormatTimestamp(i_);
    case TypeId::kTimestampNs: return FormatTimestampNanos(i_);
    case TypeId::kTimestamptz: return FormatTimestamptz(i_, TimeZone());
    case TypeId::kEnum: {
      EnumTypeRef e = type_.IsAnyEnum() ? nullptr : FindEnumType(static_cast<uint32_t>(type_.precision));
      const EnumLabel* l = e ? e->ByPosition(i_) : nullptr;
      return l ? l->label : std::to_string(i_);
    }
    case TypeId::kBytea: {
      // byteaout's hex form: the raw bytes need not be UTF-8, and this text
      // ends up in names, plans and messages (a GROUP BY over a bytea
      // constant put them in the catalog's JSON, which refused them: XX000).
      static const char kHex[] = "0123456789abcdef";
      std::string out = "\\x";
      for (unsigned char c : s_) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
      return out;
    }
    default: break;
  }
  switch (type_.physical()) {
    case PhysicalType::kInt64: return std::to_string(i_);
    case PhysicalType::kDouble: return fmt::format("{}", f_);
    case PhysicalType::kDecimal: return DecimalToString(d_);
    case PhysicalType::kInterval: return FormatInterval(iv_);
    case PhysicalType::kString: return s_;
  }
  return "";
}

bool RowsIdentical(const Row& a, const Row& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (a[i].is_null() != b[i].is_null()) return false;
    if (!a[i].is_null() && Value::Compare(a[i], b[i]) != 0) return false;
  }
  return true;
}

}  // namespace freshet
