// Vector: one column of a DataChunk.
//
// Stores values of a single DataType in the physical array that type uses
// (types.h) plus a validity byte per row (1 = not NULL). Appending is
// amortized O(1); random reads are O(1). A Vector is a value type (copyable,
// movable) and is not thread-safe.
#pragma once

#include <cstdint>
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
  size_t size() const { return validity_.size(); }
  void Reserve(size_t n);
  void Clear();

  bool IsNull(size_t i) const { return validity_[i] == 0; }
  bool HasNulls() const;
  int64_t GetInt(size_t i) const { return ints_[i]; }
  bool GetBool(size_t i) const { return ints_[i] != 0; }
  double GetFloat(size_t i) const { return floats_[i]; }
  const Decimal& GetDecimal(size_t i) const { return decimals_[i]; }
  const Interval& GetInterval(size_t i) const { return intervals_[i]; }
  const std::string& GetString(size_t i) const { return strings_[i]; }
  Value GetValue(size_t i) const;
  // Same as GetValue(i).Hash(), without building a Value.
  uint64_t HashAt(size_t i) const;

  void AppendNull();
  void AppendInt(int64_t v) { ints_.push_back(v); validity_.push_back(1); }
  void AppendBool(bool v) { AppendInt(v ? 1 : 0); }
  void AppendFloat(double v);
  void AppendDecimal(const Decimal& v) { decimals_.push_back(v); validity_.push_back(1); }
  void AppendInterval(const Interval& v) { intervals_.push_back(v); validity_.push_back(1); }
  void AppendString(std::string v) { strings_.push_back(std::move(v)); validity_.push_back(1); }
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
  std::vector<int64_t>& ints() { return ints_; }
  const std::vector<int64_t>& ints() const { return ints_; }
  std::vector<double>& floats() { return floats_; }
  const std::vector<double>& floats() const { return floats_; }
  std::vector<Decimal>& decimals() { return decimals_; }
  const std::vector<Decimal>& decimals() const { return decimals_; }
  std::vector<Interval>& intervals() { return intervals_; }
  const std::vector<Interval>& intervals() const { return intervals_; }
  std::vector<std::string>& strings() { return strings_; }
  const std::vector<std::string>& strings() const { return strings_; }
  std::vector<uint8_t>& validity() { return validity_; }
  const std::vector<uint8_t>& validity() const { return validity_; }

  // Builds a vector of n copies of v.
  static Vector Constant(const Value& v, size_t n);

 private:
  DataType type_;
  PhysicalType physical_ = PhysicalType::kString;
  std::vector<uint8_t> validity_;
  std::vector<int64_t> ints_;
  std::vector<double> floats_;
  std::vector<Decimal> decimals_;
  std::vector<Interval> intervals_;
  std::vector<std::string> strings_;
};

}  // namespace freshet
