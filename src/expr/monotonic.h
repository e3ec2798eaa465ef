// Monotonic expressions: how a watermark on a column carries through an
// expression of it.
//
// A watermark W on column c says no later row has c < W. For an expression
// e that reads c alone (its other operands constants) and never decreases
// as c grows, no later row has e < e(W): e(W) is the watermark of e's
// output column. Projections and the planner use this to carry watermarks
// through TUMBLE's window_start/window_end, `ts - INTERVAL ...`,
// date_trunc and the like.
#pragma once

#include <functional>

#include "expr/expression.h"

namespace freshet {

// Whether `e` is made of `is_leaf` expressions (one value, a column or
// now()) and constants by operations that never decrease as the leaf
// grows (NULL in, NULL out aside).
bool IsMonotonic(const Expression& e, const std::function<bool(const Expression&)>& is_leaf);
// The same with column `column` as the leaf (reading no other column).
bool IsMonotonicIn(const Expression& e, int column);

// e's value with `column` set to `value` (e monotonic in it).
Value EvalAtColumn(const Expression& e, int column, const Value& value, EvalContext& ctx);

}  // namespace freshet
