#include "expr/monotonic.h"

#include "expr/function_registry.h"

namespace freshet {

namespace {

bool IsOrderedScalar(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64: case TypeId::kNumeric:
    case TypeId::kFloat32: case TypeId::kFloat64: case TypeId::kDate: case TypeId::kTimestamp:
    case TypeId::kTimestamptz: case TypeId::kTimestampNs:
      return true;
    default: return false;
  }
}

}  // namespace

bool IsMonotonicIn(const Expression& e, int column) {
  return IsMonotonic(e, [column](const Expression& x) {
    return x.kind() == Expression::Kind::kColumnRef && static_cast<const ColumnRefExpr&>(x).index() == column;
  });
}

bool IsMonotonic(const Expression& e, const std::function<bool(const Expression&)>& is_leaf) {
  if (is_leaf(e)) return true;
  if (e.kind() != Expression::Kind::kFunction) return false;
  const std::string& name = static_cast<const FunctionExpr&>(e).function()->name;
  const auto& args = e.children();
  auto constant = [&](size_t i) { return i < args.size() && args[i]->IsConstant(); };
  auto grows = [&](size_t i) { return i < args.size() && IsMonotonic(*args[i], is_leaf); };
  if (!IsOrderedScalar(e.type())) return false;
  if (name == "+" && args.size() == 2) return (grows(0) && constant(1)) || (constant(0) && grows(1));
  if (name == "-" && args.size() == 2) return grows(0) && constant(1) && args[0]->type().id != TypeId::kInterval;
  // Bucketing integers: x / n and x * n for a positive constant n (x / 10).
  auto positive = [&](size_t i) {
    if (i >= args.size() || args[i]->kind() != Expression::Kind::kConstant) return false;
    const Value& v = static_cast<const ConstantExpr&>(*args[i]).value();
    return !v.is_null() && Value::Compare(v, Value::Int64(0)) > 0;
  };
  if (name == "/" && args.size() == 2) return grows(0) && positive(1);
  if (name == "*" && args.size() == 2) return (grows(0) && positive(1)) || (positive(0) && grows(1));
  // TUMBLE's window_start and window_end; date_trunc(unit, ts); date_bin(stride, ts[, origin]).
  if (name == "tumble_start" || name == "window_end") return args.size() == 2 && grows(0) && constant(1);
  if (name == "date_trunc") return args.size() == 2 && constant(0) && grows(1);
  if (name == "date_bin") return (args.size() == 2 || args.size() == 3) && constant(0) && grows(1) && (args.size() == 2 || constant(2));
  return false;
}

namespace {

ExprPtr Substitute(const Expression& e, int column, const Value& value) {
  if (e.kind() == Expression::Kind::kColumnRef) return std::make_unique<ConstantExpr>(value);
  ExprPtr copy = e.Clone();
  for (size_t i = 0; i < copy->children().size(); i++)
    copy->children()[i] = Substitute(*e.children()[i], column, value);
  return copy;
}

}  // namespace

Value EvalAtColumn(const Expression& e, int column, const Value& value, EvalContext& ctx) {
  return Substitute(e, column, value)->EvalConstant(ctx);
}

}  // namespace freshet
