#include "common/vector.h"

#include <algorithm>

#include <xxhash.h>

namespace freshet {

void Vector::Reserve(size_t n) {
  validity_.reserve(n);
  switch (physical_) {
    case PhysicalType::kInt64: ints_.reserve(n); break;
    case PhysicalType::kDouble: floats_.reserve(n); break;
    case PhysicalType::kDecimal: decimals_.reserve(n); break;
    case PhysicalType::kInterval: intervals_.reserve(n); break;
    case PhysicalType::kString: strings_.reserve(n); break;
  }
}

void Vector::Clear() {
  validity_.clear();
  ints_.clear();
  floats_.clear();
  decimals_.clear();
  intervals_.clear();
  strings_.clear();
}

bool Vector::HasNulls() const {
  return std::find(validity_.begin(), validity_.end(), 0) != validity_.end();
}

Value Vector::GetValue(size_t i) const {
  if (IsNull(i)) return Value::Null(type_);
  switch (physical_) {
    case PhysicalType::kInt64: return Value::FromInt(type_, ints_[i]);
    case PhysicalType::kDouble: {
      Value v = Value::Float64(floats_[i]);
      v.set_type(type_);
      return v;
    }
    case PhysicalType::kDecimal: {
      Value v = Value::Numeric(decimals_[i]);
      v.set_type(type_);
      return v;
    }
    case PhysicalType::kInterval: return Value::IntervalValue(intervals_[i]);
    case PhysicalType::kString: return Value::FromString(type_, strings_[i]);
  }
  return Value::Null(type_);
}

uint64_t Vector::HashAt(size_t i) const {
  if (IsNull(i)) return 0x9e3779b97f4a7c15ULL;
  switch (physical_) {
    case PhysicalType::kInt64: return XXH3_64bits(&ints_[i], sizeof(int64_t));
    case PhysicalType::kString: return XXH3_64bits(strings_[i].data(), strings_[i].size());
    default: return GetValue(i).Hash();
  }
}

void Vector::AppendFloat(double v) {
  if (type_.id == TypeId::kFloat32) v = static_cast<double>(static_cast<float>(v));
  floats_.push_back(v);
  validity_.push_back(1);
}

void Vector::AppendNull() {
  validity_.push_back(0);
  switch (physical_) {
    case PhysicalType::kInt64: ints_.push_back(0); break;
    case PhysicalType::kDouble: floats_.push_back(0); break;
    case PhysicalType::kDecimal: decimals_.push_back({}); break;
    case PhysicalType::kInterval: intervals_.push_back({}); break;
    case PhysicalType::kString: strings_.emplace_back(); break;
  }
}

void Vector::Append(const Value& v) {
  if (v.is_null()) return AppendNull();
  switch (physical_) {
    case PhysicalType::kInt64: AppendInt(v.int_value()); break;
    case PhysicalType::kDouble: AppendFloat(v.float_value()); break;
    case PhysicalType::kDecimal: AppendDecimal(v.decimal_value()); break;
    case PhysicalType::kInterval: AppendInterval(v.interval_value()); break;
    case PhysicalType::kString: AppendString(v.string_value()); break;
  }
}

void Vector::AppendFrom(const Vector& o, size_t i) {
  validity_.push_back(o.validity_[i]);
  switch (physical_) {
    case PhysicalType::kInt64: ints_.push_back(o.ints_[i]); break;
    case PhysicalType::kDouble: floats_.push_back(o.floats_[i]); break;
    case PhysicalType::kDecimal: decimals_.push_back(o.decimals_[i]); break;
    case PhysicalType::kInterval: intervals_.push_back(o.intervals_[i]); break;
    case PhysicalType::kString: strings_.push_back(o.strings_[i]); break;
  }
}

void Vector::AppendRange(const Vector& o, size_t b, size_t e) {
  validity_.insert(validity_.end(), o.validity_.begin() + b, o.validity_.begin() + e);
  switch (physical_) {
    case PhysicalType::kInt64: ints_.insert(ints_.end(), o.ints_.begin() + b, o.ints_.begin() + e); break;
    case PhysicalType::kDouble: floats_.insert(floats_.end(), o.floats_.begin() + b, o.floats_.begin() + e); break;
    case PhysicalType::kDecimal: decimals_.insert(decimals_.end(), o.decimals_.begin() + b, o.decimals_.begin() + e); break;
    case PhysicalType::kInterval: intervals_.insert(intervals_.end(), o.intervals_.begin() + b, o.intervals_.begin() + e); break;
    case PhysicalType::kString: strings_.insert(strings_.end(), o.strings_.begin() + b, o.strings_.begin() + e); break;
  }
}

namespace {
template <typename T>
void FilterArray(std::vector<T>& v, const std::vector<uint8_t>& keep) {
  size_t out = 0;
  for (size_t i = 0; i < v.size(); i++) {
    if (keep[i]) {
      if (out != i) v[out] = std::move(v[i]);
      out++;
    }
  }
  v.resize(out);
}
template <typename T>
std::vector<T> TakeArray(const std::vector<T>& v, const std::vector<uint32_t>& sel) {
  std::vector<T> out;
  out.reserve(sel.size());
  for (uint32_t i : sel) out.push_back(v[i]);
  return out;
}
}  // namespace

void Vector::Filter(const std::vector<uint8_t>& keep) {
  FilterArray(validity_, keep);
  switch (physical_) {
    case PhysicalType::kInt64: FilterArray(ints_, keep); break;
    case PhysicalType::kDouble: FilterArray(floats_, keep); break;
    case PhysicalType::kDecimal: FilterArray(decimals_, keep); break;
    case PhysicalType::kInterval: FilterArray(intervals_, keep); break;
    case PhysicalType::kString: FilterArray(strings_, keep); break;
  }
}

Vector Vector::Take(const std::vector<uint32_t>& sel) const {
  Vector out(type_);
  out.validity_ = TakeArray(validity_, sel);
  switch (physical_) {
    case PhysicalType::kInt64: out.ints_ = TakeArray(ints_, sel); break;
    case PhysicalType::kDouble: out.floats_ = TakeArray(floats_, sel); break;
    case PhysicalType::kDecimal: out.decimals_ = TakeArray(decimals_, sel); break;
    case PhysicalType::kInterval: out.intervals_ = TakeArray(intervals_, sel); break;
    case PhysicalType::kString: out.strings_ = TakeArray(strings_, sel); break;
  }
  return out;
}

Vector Vector::Constant(const Value& v, size_t n) {
  Vector out(v.type());
  out.Reserve(n);
  for (size_t i = 0; i < n; i++) out.Append(v);
  return out;
}

}  // namespace freshet
