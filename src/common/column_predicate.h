// ColumnPredicate: "column op constant" (or "column IN (constants)"), the
// simple conditions a scan hands
// down to a table engine so that it may skip rows (storage/table_engine.h).
// The batch optimizer finds them in the filter above a scan; the filter
// stays, so an engine may ignore any of them.
#pragma once

#include <vector>

#include "common/value.h"

namespace freshet {

struct ColumnPredicate {
  enum class Op { kEq, kLt, kLe, kGt, kGe, kIn };
  int column = 0;  // index in the relation's columns
  Op op = Op::kEq;
  Value value;  // never NULL; of the column's type (not for kIn)
  std::vector<Value> values;  // kIn: the list, none NULL, of the column's type
};

using ColumnPredicates = std::vector<ColumnPredicate>;

}  // namespace freshet
