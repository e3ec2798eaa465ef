// Vector: one column of a DataChunk.
//
// Stores values of a single DataType in the physical array that type uses
// (types.h) plus a validity byte per row (1 = not NULL). Appending is
// amortized O(1); random reads are O(1). A Vector is a value type (copyable,
// movable) and is not thread-safe.
//
// Copies share their arrays until one of them is modified (copy on write),
// so passing a column through (projections, cached scans) costs no copy of
// its rows. Any non-const method, the mutable accessors included, first
// makes the arrays this vector's own: do not keep a reference from a
// mutable accessor across a copy of the vector.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/value.h"

namespace freshet {

class Vector {
 public:
  Vector() = default;
  explicit Vector(DataType type) : type_(type), physical_(type.physical()) {}

  const DataType& type() const { return type_; }
  PhysicalType physical() const { return physical_; }
  size_t size() const { return data_ ? data_->validity.size() : 0; }
  void Reserve(size_t n);
  void Clear();

  bool IsNull(size_t i) const { return data_->validity[i] == 0; }
  bool HasNulls() const;
  int64_t GetInt(size_t i) const { return data_->ints[i]; }
  bool GetBool(size_t i) const { return data_->ints[i] != 0; }
  double GetFloat(size_t i) const { return data_->floats[i]; }
  const Decimal& GetDecimal(size_t i) const { return data_->decimals[i]; }
  const Interval& GetInterval(size_t i) const { return data_->intervals[i]; }
  const std::string& GetString(size_t i) const { return data_->strings[i]; }
  Value GetValue(size_t i) const;
  // Same as GetValue(i).Hash(), without building a Value.
  uint64_t HashAt(size_t i) const;

  void AppendNull();
  void AppendNulls(size_t n);
  void AppendInt(int64_t v) {
    Buffers& d = mut();
    d.ints.push_back(v);
    d.validity.push_back(1);
  }
  void AppendBool(bool v) { AppendInt(v ? 1 : 0); }
  void AppendFloat(double v);
  void AppendDecimal(const Decimal& v) {
    Buffers& d = mut();
    d.decimals.push_back(v);
    d.validity.push_back(1);
  }
  void AppendInterval(const Interval& v) {
    Buffers& d = mut();
    d.intervals.push_back(v);
    d.validity.push_back(1);
  }
  void AppendString(std::string v) {
    Buffers& d = mut();
    d.strings.push_back(std::move(v));
    d.validity.push_back(1);
  }
  // Appends v, which must have this vector's physical type (or be NULL).
  void Append(const Value& v);
  // Appends row i of other (same physical type).
  void AppendFrom(const Vector& other, size_t i);
  // Appends rows [begin, end) of other.
  void AppendRange(const Vector& other, size_t begin, size_t end);
  // Keeps only rows where keep[i] != 0.
  void Filter(const std::vector<uint8_t>& keep);
  // Reorders/selects rows: result[i] = this[sel[i]].
  Vector Take(const std::vector<uint32_t>& sel) const;

  // Direct access for tight loops in executors and expressions.
  std::vector<int64_t>& ints() { return mut().ints; }
  const std::vector<int64_t>& ints() const { return buf().ints; }
  std::vector<double>& floats() { return mut().floats; }
  const std::vector<double>& floats() const { return buf().floats; }
  std::vector<Decimal>& decimals() { return mut().decimals; }
  const std::vector<Decimal>& decimals() const { return buf().decimals; }
  std::vector<Interval>& intervals() { return mut().intervals; }
  const std::vector<Interval>& intervals() const { return buf().intervals; }
  std::vector<std::string>& strings() { return mut().strings; }
  const std::vector<std::string>& strings() const { return buf().strings; }
  std::vector<uint8_t>& validity() { return mut().validity; }
  const std::vector<uint8_t>& validity() const { return buf().validity; }

  // Builds a vector of n copies of v.
  static Vector Constant(const Value& v, size_t n);

 private:
  DataType type_;
  PhysicalType physical_ = PhysicalType::kString;
  struct Buffers {
    std::vector<uint8_t> validity;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    std::vector<Decimal> decimals;
    std::vector<Interval> intervals;
    std::vector<std::string> strings;
  };
  // The arrays for reading (an empty set when there are none yet).
  const Buffers& buf() const { return data_ ? *data_ : kNoBuffers; }
  // The arrays for writing: made this vector's own first when shared.
  Buffers& mut() {
    if (!data_ || data_.use_count() != 1) Unshare();
    // Sole owner now: another thread's reads of the arrays (before it
    // dropped its copy) happen before the writes that follow.
    std::atomic_thread_fence(std::memory_order_acquire);
    return *data_;
  }
  void Unshare();
  static void ResizeWithNulls(PhysicalType physical, size_t size, Buffers* d);
  static const Buffers kNoBuffers;
  std::shared_ptr<Buffers> data_;
};

}  // namespace freshet
