#include "common/vector.h"

#include <algorithm>
#include <map>

#include <xxhash.h>

namespace freshet {

const Vector::Buffers Vector::kNoBuffers;

void Vector::Unshare() {
  data_ = data_ ? std::make_shared<Buffers>(*data_) : std::make_shared<Buffers>();
}

void Vector::Reserve(size_t n) {
  Buffers& d = mut();
  d.validity.reserve(n);
  switch (physical_) {
    case PhysicalType::kInt64: d.ints.reserve(n); break;
    case PhysicalType::kDouble: d.floats.reserve(n); break;
    case PhysicalType::kDecimal: d.decimals.reserve(n); break;
    case PhysicalType::kInterval: d.intervals.reserve(n); break;
    case PhysicalType::kString: d.strings.reserve(n); break;
  }
}

void Vector::Clear() { data_.reset(); }

bool Vector::HasNulls() const {
  const auto& validity = buf().validity;
  return std::find(validity.begin(), validity.end(), 0) != validity.end();
}

Value Vector::GetValue(size_t i) const {
  if (IsNull(i)) return Value::Null(type_);
  const Buffers& d = *data_;
  switch (physical_) {
    case PhysicalType::kInt64: return Value::FromInt(type_, d.ints[i]);
    case PhysicalType::kDouble: {
      Value v = Value::Float64(d.floats[i]);
      v.set_type(type_);
      return v;
    }
    case PhysicalType::kDecimal: {
      Value v = Value::Numeric(d.decimals[i]);
      v.set_type(type_);
      return v;
    }
    case PhysicalType::kInterval: return Value::IntervalValue(d.intervals[i]);
    case PhysicalType::kString: return Value::FromString(type_, d.strings[i]);
  }
  return Value::Null(type_);
}

uint64_t Vector::HashAt(size_t i) const {
  if (IsNull(i)) return 0x9e3779b97f4a7c15ULL;
  switch (physical_) {
    case PhysicalType::kInt64: return XXH3_64bits(&data_->ints[i], sizeof(int64_t));
    case PhysicalType::kString:
      if (type_.IsJsonb()) return GetValue(i).Hash();  // by value: 1.0 and 1 alike
      return XXH3_64bits(data_->strings[i].data(), data_->strings[i].size());
    default: return GetValue(i).Hash();
  }
}

void Vector::AppendFloat(double v) {
  if (type_.id == TypeId::kFloat32) v = static_cast<double>(static_cast<float>(v));
  Buffers& d = mut();
  d.floats.push_back(v);
  d.validity.push_back(1);
}

void Vector::AppendNull() {
  Buffers& d = mut();
  d.validity.push_back(0);
  switch (physical_) {
    case PhysicalType::kInt64: d.ints.push_back(0); break;
    case PhysicalType::kDouble: d.floats.push_back(0); break;
    case PhysicalType::kDecimal: d.decimals.push_back({}); break;
    case PhysicalType::kInterval: d.intervals.push_back({}); break;
    case PhysicalType::kString: d.strings.emplace_back(); break;
  }
}

void Vector::AppendNulls(size_t n) {
  if (size() == 0 && n >= 64) {
    // A column of NULLs only (one a scan does not read): one read-only
    // array per type and size is shared instead of each filling its own;
    // writing to it copies it first (mut()).
    thread_local std::map<std::pair<PhysicalType, size_t>, std::shared_ptr<Buffers>> shared;
    const std::pair<PhysicalType, size_t> key{physical_, n};
    auto it = shared.find(key);
    if (it == shared.end()) {
      if (shared.size() >= 64) shared.clear();
      auto nulls = std::make_shared<Buffers>();
      ResizeWithNulls(physical_, n, nulls.get());
      it = shared.emplace(key, std::move(nulls)).first;
    }
    data_ = it->second;
    return;
  }
  Buffers& d = mut();
  ResizeWithNulls(physical_, d.validity.size() + n, &d);
}

// Grows the arrays to `size` rows, the new ones NULL.
void Vector::ResizeWithNulls(PhysicalType physical, size_t size, Buffers* d) {
  d->validity.resize(size, 0);
  switch (physical) {
    case PhysicalType::kInt64: d->ints.resize(size); break;
    case PhysicalType::kDouble: d->floats.resize(size); break;
    case PhysicalType::kDecimal: d->decimals.resize(size); break;
    case PhysicalType::kInterval: d->intervals.resize(size); break;
    case PhysicalType::kString: d->strings.resize(size); break;
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

void Vector::AppendFrom(const Vector& other, size_t i) {
  const Buffers& o = *other.data_;
  Buffers& d = mut();  // after reading `other`: it may be this vector
  d.validity.push_back(o.validity[i]);
  switch (physical_) {
    case PhysicalType::kInt64: d.ints.push_back(o.ints[i]); break;
    case PhysicalType::kDouble: d.floats.push_back(o.floats[i]); break;
    case PhysicalType::kDecimal: d.decimals.push_back(o.decimals[i]); break;
    case PhysicalType::kInterval: d.intervals.push_back(o.intervals[i]); break;
    case PhysicalType::kString: d.strings.push_back(o.strings[i]); break;
  }
}

namespace {
template <typename T>
void AppendArrayRange(std::vector<T>& to, const std::vector<T>& from, size_t b, size_t e) {
  to.insert(to.end(), from.begin() + static_cast<ptrdiff_t>(b), from.begin() + static_cast<ptrdiff_t>(e));
}
}  // namespace

void Vector::AppendRange(const Vector& other, size_t b, size_t e) {
  if (b == e) return;
  if (size() == 0 && b == 0 && e == other.size() && other.physical_ == physical_) {
    data_ = other.data_;  // the whole of other: share its arrays
    return;
  }
  std::shared_ptr<Buffers> keep = other.data_;  // stays valid if other is this vector
  const Buffers& o = *keep;
  Buffers& d = mut();
  AppendArrayRange(d.validity, o.validity, b, e);
  switch (physical_) {
    case PhysicalType::kInt64: AppendArrayRange(d.ints, o.ints, b, e); break;
    case PhysicalType::kDouble: AppendArrayRange(d.floats, o.floats, b, e); break;
    case PhysicalType::kDecimal: AppendArrayRange(d.decimals, o.decimals, b, e); break;
    case PhysicalType::kInterval: AppendArrayRange(d.intervals, o.intervals, b, e); break;
    case PhysicalType::kString: AppendArrayRange(d.strings, o.strings, b, e); break;
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
  if (!data_) return;
  if (data_.use_count() != 1) {  // shared: build the kept rows rather than copy everything first
    std::vector<uint32_t> sel;
    for (size_t i = 0; i < size(); i++)
      if (keep[i]) sel.push_back(static_cast<uint32_t>(i));
    *this = Take(sel);
    return;
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // sole owner (see mut())
  Buffers& d = *data_;
  FilterArray(d.validity, keep);
  switch (physical_) {
    case PhysicalType::kInt64: FilterArray(d.ints, keep); break;
    case PhysicalType::kDouble: FilterArray(d.floats, keep); break;
    case PhysicalType::kDecimal: FilterArray(d.decimals, keep); break;
    case PhysicalType::kInterval: FilterArray(d.intervals, keep); break;
    case PhysicalType::kString: FilterArray(d.strings, keep); break;
  }
}

Vector Vector::Take(const std::vector<uint32_t>& sel) const {
  Vector out(type_);
  if (sel.empty()) return out;
  const Buffers& d = *data_;
  Buffers& o = out.mut();
  o.validity = TakeArray(d.validity, sel);
  switch (physical_) {
    case PhysicalType::kInt64: o.ints = TakeArray(d.ints, sel); break;
    case PhysicalType::kDouble: o.floats = TakeArray(d.floats, sel); break;
    case PhysicalType::kDecimal: o.decimals = TakeArray(d.decimals, sel); break;
    case PhysicalType::kInterval: o.intervals = TakeArray(d.intervals, sel); break;
    case PhysicalType::kString: o.strings = TakeArray(d.strings, sel); break;
  }
  return out;
}

Vector Vector::Constant(const Value& v, size_t n) {
  Vector out(v.type());
  if (v.is_null()) {
    out.AppendNulls(n);
    return out;
  }
  // Filled array by array: constants are evaluated for every chunk of a
  // scan (a filter's bounds, date_trunc's unit), so this is a hot path.
  Buffers& d = out.mut();
  d.validity.assign(n, 1);
  switch (out.physical_) {
    case PhysicalType::kInt64: d.ints.assign(n, v.int_value()); break;
    case PhysicalType::kDouble: {
      double f = v.float_value();
      if (out.type_.id == TypeId::kFloat32) f = static_cast<double>(static_cast<float>(f));
      d.floats.assign(n, f);
      break;
    }
    case PhysicalType::kDecimal: d.decimals.assign(n, v.decimal_value()); break;
    case PhysicalType::kInterval: d.intervals.assign(n, v.interval_value()); break;
    case PhysicalType::kString: d.strings.assign(n, v.string_value()); break;
  }
  return out;
}

}  // namespace freshet
