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

// The operator as SQL writes it ("IN" for kIn).
inline const char* ColumnPredicateOpName(ColumnPredicate::Op op) {
  switch (op) {
    case ColumnPredicate::Op::kEq: return "=";
    case ColumnPredicate::Op::kLt: return "<";
    case ColumnPredicate::Op::kLe: return "<=";
    case ColumnPredicate::Op::kGt: return ">";
    case ColumnPredicate::Op::kGe: return ">=";
    case ColumnPredicate::Op::kIn: return "IN";
  }
  return "?";
}

}  // namespace freshet
