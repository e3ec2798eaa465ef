// Value: one SQL value of any type, possibly NULL.
//
// Used where values travel one at a time: literals, parameters, rows of
// small results, hash-table keys. Bulk data lives in Vector (vector.h).
// Physical representation per type is documented in types.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/datetime.h"
#include "common/decimal.h"
#include "common/types.h"

namespace freshet {

class Value {
 public:
  Value() = default;  // NULL of unknown type
  static Value Null(DataType t) { Value v; v.type_ = t; return v; }
  static Value Boolean(bool b) { return FromInt(DataType::Boolean(), b ? 1 : 0); }
  static Value Int16(int64_t i) { return FromInt(DataType::Int16(), i); }
  static Value Int32(int64_t i) { return FromInt(DataType::Int32(), i); }
  static Value Int64(int64_t i) { return FromInt(DataType::Int64(), i); }
  static Value Date(int64_t days) { return FromInt(DataType::Date(), days); }
  static Value Time(int64_t micros) { return FromInt(DataType::Time(), micros); }
  static Value Timestamp(int64_t micros) { return FromInt(DataType::Timestamp(), micros); }
  static Value Timestamptz(int64_t micros) { return FromInt(DataType::Timestamptz(), micros); }
  static Value Float32(double f);
  static Value Float64(double f) { Value v; v.type_ = DataType::Float64(); v.null_ = false; v.f_ = f; return v; }
  static Value Numeric(const Decimal& d) { Value v; v.type_ = DataType::Numeric(); v.null_ = false; v.d_ = d; return v; }
  static Value IntervalValue(const Interval& iv) { Value v; v.type_ = DataType::Interval(); v.null_ = false; v.iv_ = iv; return v; }
  static Value Varchar(std::string s) { return FromString(DataType::Varchar(), std::move(s)); }
  static Value Bytea(std::string s) { return FromString(DataType::Bytea(), std::move(s)); }
  static Value FromInt(DataType t, int64_t i) { Value v; v.type_ = t; v.null_ = false; v.i_ = i; return v; }
  static Value FromString(DataType t, std::string s) { Value v; v.type_ = t; v.null_ = false; v.s_ = std::move(s); return v; }

  const DataType& type() const { return type_; }
  void set_type(const DataType& t) { type_ = t; }
  bool is_null() const { return null_; }

  bool bool_value() const { return i_ != 0; }
  int64_t int_value() const { return i_; }
  double float_value() const { return f_; }
  const Decimal& decimal_value() const { return d_; }
  const Interval& interval_value() const { return iv_; }
  const std::string& string_value() const { return s_; }

  // Total order used by ORDER BY and sorting: NULLs last; values of the
  // same type compare by value. Returns <0, 0, >0.
  static int Compare(const Value& a, const Value& b);
  bool operator==(const Value& o) const { return Compare(*this, o) == 0 && null_ == o.null_; }
  uint64_t Hash() const;

  // Debug/diagnostic text (not the pgwire text format, which needs session
  // settings; see common/format.h).
  std::string ToString() const;

 private:
  DataType type_;
  bool null_ = true;
  // Separate fields rather than a union: Decimal and Interval have default
  // member initializers, and Values are not used for bulk data.
  int64_t i_ = 0;
  double f_ = 0;
  Decimal d_;
  Interval iv_;
  std::string s_;
};

using Row = std::vector<Value>;

// Same values in every column (NULL equals NULL): whether a row changed.
bool RowsIdentical(const Row& a, const Row& b);

}  // namespace freshet
