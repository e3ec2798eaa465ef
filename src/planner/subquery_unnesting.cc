#include "planner/subquery_unnesting.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "common/error.h"
#include "expr/cast.h"
#include "expr/function_registry.h"
#include "planner/optimizer.h"
#include "planner/subquery.h"

namespace freshet {

namespace {

// ---- What reads the outer query ----

void PlanOuterLevels(const PlanNode& n, int depth, std::set<int>* levels);

// The enclosing levels e reads, relative to the plan being examined (1: the
// query immediately around it); `depth` is how many subqueries deep e is.
void OuterLevels(const Expression& e, int depth, std::set<int>* levels) {
  if (const auto* o = dynamic_cast<const OuterRefExpr*>(&e)) {
    if (o->levels_up > depth) levels->insert(o->levels_up - depth);
    return;
  }
  if (e.kind() == Expression::Kind::kSubquery) PlanOuterLevels(*static_cast<const SubqueryExpr&>(e).plan, depth + 1, levels);
  for (const auto& c : e.children())
    if (c) OuterLevels(*c, depth, levels);
}

void ForEachExpression(const PlanNode& n, const std::function<void(const Expression&)>& fn) {
  auto each = [&](const std::vector<ExprPtr>& exprs) {
    for (const auto& e : exprs)
      if (e) fn(*e);
  };
  auto one = [&](const ExprPtr& e) {
    if (e) fn(*e);
  };
  auto keys = [&](const std::vector<SortKey>& ks) {
    for (const auto& k : ks) fn(*k.expr);
  };
  switch (n.kind()) {
    case PlanNode::Kind::kFilter: one(static_cast<const FilterNode&>(n).predicate); break;
    case PlanNode::Kind::kProject: each(static_cast<const ProjectNode&>(n).exprs); break;
    case PlanNode::Kind::kProjectSet: each(static_cast<const ProjectSetNode&>(n).exprs); break;
    case PlanNode::Kind::kAggregate: {
      const auto& a = static_cast<const AggregateNode&>(n);
      each(a.group_keys);
      for (const auto& call : a.aggs) {
        each(call.args);
        one(call.filter);
        keys(call.order_by);
      }
      break;
    }
    case PlanNode::Kind::kJoin: {
      const auto& j = static_cast<const JoinNode&>(n);
      one(j.condition);
      each(j.left_keys);
      each(j.right_keys);
      break;
    }
    case PlanNode::Kind::kLateralJoin: one(static_cast<const LateralJoinNode&>(n).condition); break;
    case PlanNode::Kind::kSort: keys(static_cast<const SortNode&>(n).keys); break;
    case PlanNode::Kind::kLimit: {
      const auto& l = static_cast<const LimitNode&>(n);
      one(l.limit_value);
      one(l.offset_value);
      break;
    }
    case PlanNode::Kind::kValues:
      for (const auto& row : static_cast<const ValuesNode&>(n).rows) each(row);
      break;
    case PlanNode::Kind::kTableFunction: each(static_cast<const TableFunctionNode&>(n).args); break;
    case PlanNode::Kind::kWindow:
      for (const auto& call : static_cast<const WindowNode&>(n).calls) {
        each(call.args);
        one(call.filter);
        each(call.partition_by);
        keys(call.order_by);
        for (const WindowFrameBound* b : {&call.frame.start, &call.frame.end}) {
          one(b->offset);
          one(b->range_value);
        }
      }
      break;
    default: break;
  }
}

void PlanOuterLevels(const PlanNode& n, int depth, std::set<int>* levels) {
  ForEachExpression(n, [&](const Expression& e) { OuterLevels(e, depth, levels); });
  for (size_t i = 0; i < n.children().size(); i++) {
    // A LATERAL item runs once per row of the items before it, one level down.
    bool lateral = n.kind() == PlanNode::Kind::kLateralJoin && i == 1;
    PlanOuterLevels(*n.child(i), depth + (lateral ? 1 : 0), levels);
  }
}

// The columns of the row evaluating e (`level` 0) that e reads, in its
// subqueries too (their references `level` + 1 up).
void PlanRowColumns(const PlanNode& n, int level, std::set<int>* out);
void RowColumns(const Expression& e, int level, std::set<int>* out) {
  if (const auto* o = dynamic_cast<const OuterRefExpr*>(&e)) {
    if (o->levels_up == level) out->insert(o->index);
    return;
  }
  if (const auto* c = dynamic_cast<const ColumnRefExpr*>(&e); c && level == 0) out->insert(c->index());
  if (e.kind() == Expression::Kind::kSubquery) PlanRowColumns(*static_cast<const SubqueryExpr&>(e).plan, level + 1, out);
  for (const auto& c : e.children())
    if (c) RowColumns(*c, level, out);
}

void PlanRowColumns(const PlanNode& n, int level, std::set<int>* out) {
  ForEachExpression(n, [&](const Expression& e) { RowColumns(e, level, out); });
  for (size_t i = 0; i < n.children().size(); i++)
    PlanRowColumns(*n.child(i), level + (n.kind() == PlanNode::Kind::kLateralJoin && i == 1 ? 1 : 0), out);
}

// Moves e's reads of the row evaluating it (`level` 0), in its subqueries
// too, by `delta` columns. Subquery plans are copied first (they may be
// shared by copies of the expression).
void ShiftPlanRowColumns(PlanNode& n, int level, int delta);
void ShiftRowColumns(Expression& e, int level, int delta) {
  if (auto* o = dynamic_cast<OuterRefExpr*>(&e)) {
    if (o->levels_up == level) o->index += delta;
    return;
  }
  if (auto* c = dynamic_cast<ColumnRefExpr*>(&e); c && level == 0) c->set_index(c->index() + delta);
  if (e.kind() == Expression::Kind::kSubquery) {
    auto& sq = static_cast<SubqueryExpr&>(e);
    sq.plan = std::shared_ptr<PlanNode>(ClonePlan(*sq.plan));
    ShiftPlanRowColumns(*sq.plan, level + 1, delta);
    if (level == 0)
      for (int& c : sq.outer_columns) c += delta;
  }
  for (auto& c : e.children())
    if (c) ShiftRowColumns(*c, level, delta);
}

void ShiftPlanRowColumns(PlanNode& n, int level, int delta) {
  // The node is this function's to change (a fresh copy); ForEachExpression
  // only reads.
  ForEachExpression(n, [&](const Expression& e) { ShiftRowColumns(const_cast<Expression&>(e), level, delta); });
  for (size_t i = 0; i < n.children().size(); i++)
    ShiftPlanRowColumns(*n.children()[i], level + (n.kind() == PlanNode::Kind::kLateralJoin && i == 1 ? 1 : 0), delta);
}

bool ReadsOuter(const Expression& e) {
  std::set<int> levels;
  OuterLevels(e, 0, &levels);
  return !levels.empty();
}

bool PlanReadsOuter(const PlanNode& n) {
  std::set<int> levels;
  PlanOuterLevels(n, 0, &levels);
  return !levels.empty();
}

bool HasColumnRef(const Expression& e) {
  if (dynamic_cast<const ColumnRefExpr*>(&e)) return true;
  for (const auto& c : e.children())
    if (c && HasColumnRef(*c)) return true;
  return false;
}

// ---- Expression rewriting ----

ExprPtr Column(int index, const DataType& type, const std::string& name = "") {
  return std::make_unique<ColumnRefExpr>(index, type, name);
}

std::vector<ExprPtr> Identity(const PlanNode& n) {
  std::vector<ExprPtr> out;
  for (size_t i = 0; i < n.schema().size(); i++) out.push_back(Column(int(i), n.schema()[i].type, n.schema()[i].name));
  return out;
}

// e with each column reference i replaced by a copy of values[i].
ExprPtr Substitute(const Expression& e, const std::vector<ExprPtr>& values) {
  if (const auto* c = dynamic_cast<const ColumnRefExpr*>(&e)) return values.at(size_t(c->index()))->Clone();
  ExprPtr copy = e.Clone();
  for (size_t i = 0; i < e.children().size(); i++)
    if (e.children()[i]) copy->children()[i] = Substitute(*e.children()[i], values);
  return copy;
}

// An expression over the outer row (OuterRefExprs one level up) and the
// subquery's row, moved onto a join's row: the outer row's columns first,
// then the subquery's from `outer_width` on. What it reads of queries
// further out is one level nearer there.
ExprPtr OntoJoinRow(ExprPtr e, int outer_width) {
  ShiftColumns(e.get(), outer_width);
  std::function<ExprPtr(ExprPtr)> resolve = [&](ExprPtr x) -> ExprPtr {
    if (const auto* o = dynamic_cast<const OuterRefExpr*>(x.get())) {
      if (o->levels_up > 1) return std::make_unique<OuterRefExpr>(o->levels_up - 1, o->index, o->type(), o->name);
      return Column(o->index, o->type(), o->name);
    }
    for (auto& c : x->children())
      if (c) c = resolve(std::move(c));
    return x;
  };
  return resolve(std::move(e));
}

ExprPtr Not(ExprPtr e) {
  std::vector<ExprPtr> c;
  c.push_back(std::move(e));
  return std::make_unique<OperatorExpr>(Expression::Kind::kNot, DataType::Boolean(), std::move(c));
}

ExprPtr Test(Expression::Kind kind, ExprPtr e) {
  std::vector<ExprPtr> c;
  c.push_back(std::move(e));
  return std::make_unique<OperatorExpr>(kind, DataType::Boolean(), std::move(c));
}

ExprPtr Call(const ScalarFunction* fn, ExprPtr a, ExprPtr b) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  return std::make_unique<FunctionExpr>(fn, std::move(args));
}

// `count op 0` for a bigint count.
ExprPtr CompareCount(ExprPtr count, const char* op) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(count));
  args.push_back(std::make_unique<ConstantExpr>(Value::Int64(0)));
  return CallExactly(op, std::move(args));
}

// The row comparison of an op ANY/ALL subquery with its left operands
// `lefts` and the subquery's columns `rights`: every column's (=), or any
// column's (<>, row_any_column).
ExprPtr RowComparison(const SubqueryExpr& sq, std::vector<ExprPtr> lefts, std::vector<ExprPtr> rights) {
  std::vector<ExprPtr> parts;
  for (size_t i = 0; i < sq.compares.size(); i++) parts.push_back(Call(sq.compares[i], std::move(lefts[i]), std::move(rights[i])));
  if (parts.size() == 1) return std::move(parts[0]);
  return std::make_unique<OperatorExpr>(sq.row_any_column ? Expression::Kind::kOr : Expression::Kind::kAnd, DataType::Boolean(),
                                        std::move(parts));
}

// ---- Pulling the correlation out of a subquery's plan ----

struct Pulled {
  PlanPtr plan;                     // reads nothing of the outer query
  std::vector<ExprPtr> conditions;  // over the outer row and plan's row
  std::vector<ExprPtr> outputs;     // the subquery's columns, over the same
  // The subquery is an aggregate without GROUP BY, grouped here by its
  // correlation keys: every outer row has exactly one row, and one that
  // matches no group sees each aggregate's value over no rows — NULL, but
  // for the plan columns listed here.
  bool one_row_per_outer = false;
  std::map<int, Value> empty_values;
  // At most one of plan's rows meets the conditions for any outer row (a
  // correlated LIMIT 1); the outer row may have none.
  bool at_most_one_per_outer = false;
};

std::optional<Pulled> Pull(PlanPtr node, const PlanNode& outer);
bool NeverNull(const PlanNode& n, int c);

// A pulled subquery that is one row of VALUES (SELECT of expressions
// without FROM) needs no join: its expressions replace its columns.
bool IsOneRowOfValues(const Pulled& p) {
  return p.plan->kind() == PlanNode::Kind::kValues && static_cast<const ValuesNode&>(*p.plan).rows.size() == 1 &&
         p.conditions.empty() && !p.one_row_per_outer;
}

void InlineValues(Pulled* p) {
  const auto& row = static_cast<const ValuesNode&>(*p->plan).rows[0];
  for (auto& e : p->outputs) e = Substitute(*e, row);
}

// Splits correlation conditions that are all equalities `outer = inner`
// (each side reading only one of the two) into their sides; false when
// one is not.
struct Equality {
  const ScalarFunction* fn;
  bool outer_first;
  ExprPtr outer, inner;
};

bool IsOuterInnerEquality(const Expression& c) {
  if (c.kind() != Expression::Kind::kFunction || c.children().size() != 2) return false;
  if (static_cast<const FunctionExpr&>(c).function()->name != "=") return false;
  const Expression& a = *c.children()[0];
  const Expression& b = *c.children()[1];
  auto outer_only = [](const Expression& e) { return ReadsOuter(e) && !HasColumnRef(e); };
  auto inner_only = [](const Expression& e) { return !ReadsOuter(e) && HasColumnRef(e); };
  return (outer_only(a) && inner_only(b)) || (inner_only(a) && outer_only(b));
}

bool AllEqualities(const std::vector<ExprPtr>& conditions) {
  return std::all_of(conditions.begin(), conditions.end(), [](const ExprPtr& c) { return IsOuterInnerEquality(*c); });
}

bool SplitEqualities(std::vector<ExprPtr> conditions, std::vector<Equality>* out) {
  for (auto& c : conditions) {
    if (c->kind() != Expression::Kind::kFunction || c->children().size() != 2) return false;
    const ScalarFunction* fn = static_cast<const FunctionExpr&>(*c).function();
    if (fn->name != "=") return false;
    ExprPtr& a = c->children()[0];
    ExprPtr& b = c->children()[1];
    auto outer_only = [](const Expression& e) { return ReadsOuter(e) && !HasColumnRef(e); };
    auto inner_only = [](const Expression& e) { return !ReadsOuter(e) && HasColumnRef(e); };
    if (outer_only(*a) && inner_only(*b)) out->push_back({fn, true, std::move(a), std::move(b)});
    else if (inner_only(*a) && outer_only(*b)) out->push_back({fn, false, std::move(b), std::move(a)});
    else return false;
  }
  return true;
}

ExprPtr EqualityOn(Equality& eq, ExprPtr inner) {
  return eq.outer_first ? Call(eq.fn, std::move(eq.outer), std::move(inner)) : Call(eq.fn, std::move(inner), std::move(eq.outer));
}

bool AnyReadsOuter(const std::vector<ExprPtr>& exprs) {
  for (const auto& e : exprs)
    if (e && ReadsOuter(*e)) return true;
  return false;
}

bool AnyContainsSubquery(const PlanNode& n) {
  bool found = false;
  ForEachExpression(n, [&](const Expression& e) { found |= ContainsSubquery(e); });
  return found;
}

// The outer columns (OuterRefExprs one level up) e reads.
void OuterColumns(const Expression& e, std::set<int>* out) {
  if (const auto* o = dynamic_cast<const OuterRefExpr*>(&e)) {
    if (o->levels_up == 1) out->insert(o->index);
    return;
  }
  for (const auto& c : e.children())
    if (c) OuterColumns(*c, out);
}

// Whether `condition` cannot be true when outer column c is NULL: a
// comparison one of whose operands reaches c through arithmetic and casts
// only (each NULL on a NULL input).
bool RejectsNullOuter(const Expression& condition, int c) {
  static const std::set<std::string> kStrict = {"=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%"};
  std::function<bool(const Expression&)> strict_path = [&](const Expression& e) {
    if (const auto* o = dynamic_cast<const OuterRefExpr*>(&e)) return o->levels_up == 1 && o->index == c;
    bool through = e.kind() == Expression::Kind::kCast ||
                   (e.kind() == Expression::Kind::kFunction && kStrict.count(static_cast<const FunctionExpr&>(e).function()->name));
    if (!through) return false;
    for (const auto& ch : e.children())
      if (ch && strict_path(*ch)) return true;
    return false;
  };
  if (condition.kind() != Expression::Kind::kFunction || condition.children().size() != 2) return false;
  const std::string& name = static_cast<const FunctionExpr&>(condition).function()->name;
  if (name != "=" && name != "<>" && name != "<" && name != "<=" && name != ">" && name != ">=") return false;
  return strict_path(*condition.children()[0]) || strict_path(*condition.children()[1]);
}

// Equality of two values of type t; null when there is none.
const ScalarFunction* EqualityOf(const DataType& t) {
  const auto* fns = FunctionRegistry::Instance().Lookup("=");
  if (!fns) return nullptr;
  for (const auto& f : *fns)
    if (!f.variadic && f.arg_types.size() == 2 &&
        ((f.arg_types[0] == t && f.arg_types[1] == t) || (t.IsArray() && f.arg_types[0].IsAnyArray())))
      return &f;
  return nullptr;
}

// Some value of type t that is not NULL (none: nullopt).
std::optional<Value> SomeValueOf(const DataType& t) {
  EvalContext ctx;
  for (const char* text : {"0", "", "{}", "f", "2000-01-01", "00:00"}) {
    try {
      return ParseText(text, t, ctx);
    } catch (const SqlError&) {
    }
  }
  return std::nullopt;
}

// Conditions under which outer column `c` equals `inner` (of its type),
// NULL matching NULL: `outer = inner` when the outer column is never NULL
// (or `null_rejected`: its NULL need not match), else `coalesce(outer, v)
// = coalesce(inner, v)` and `(outer IS NULL) = (inner IS NULL)`
// (equalities, so that joins and groupings key on them). Empty when the
// type has no equality.
std::vector<ExprPtr> SameValue(const PlanNode& outer, int c, ExprPtr inner, bool null_rejected = false) {
  const PlanColumn& col = outer.schema()[size_t(c)];
  const ScalarFunction* eq = EqualityOf(col.type);
  const ScalarFunction* bool_eq = EqualityOf(DataType::Boolean());
  std::vector<ExprPtr> out;
  ExprPtr o = std::make_unique<OuterRefExpr>(1, c, col.type, col.name);
  if (!eq) return out;
  if (null_rejected || NeverNull(outer, c)) {
    out.push_back(Call(eq, std::move(o), std::move(inner)));
    return out;
  }
  std::optional<Value> some = SomeValueOf(col.type);
  if (!some || !bool_eq) return out;
  auto coalesce = [&](ExprPtr e) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(e));
    args.push_back(std::make_unique<ConstantExpr>(*some));
    return std::make_unique<OperatorExpr>(Expression::Kind::kCoalesce, col.type, std::move(args));
  };
  out.push_back(Call(bool_eq, Test(Expression::Kind::kIsNull, o->Clone()), Test(Expression::Kind::kIsNull, inner->Clone())));
  out.push_back(Call(eq, coalesce(std::move(o)), coalesce(std::move(inner))));
  return out;
}

// The aggregation made per correlation key: grouped by its own keys, then
// by `extra` (correlation values over `input`); `condition(i, column)`
// relates the outer row to extra key i's output column.
Pulled AggregatePerKey(const AggregateNode& a, PlanPtr input, std::vector<ExprPtr> keys, std::vector<AggregateCall> calls,
                       std::vector<ExprPtr> extra, const std::function<ExprPtr(size_t, ExprPtr)>& condition) {
  const size_t k = keys.size(), m = extra.size();
  std::vector<PlanColumn> schema(a.schema().begin(), a.schema().begin() + std::ptrdiff_t(k));
  for (size_t i = 0; i < m; i++) {
    schema.push_back(PlanColumn{"_correlation" + std::to_string(i + 1), extra[i]->type(), "", true});
    keys.push_back(std::move(extra[i]));
  }
  schema.insert(schema.end(), a.schema().begin() + std::ptrdiff_t(k), a.schema().end());
  Pulled out;
  out.plan = std::make_unique<AggregateNode>(std::move(input), std::move(keys), std::move(calls), schema);
  for (size_t i = 0; i < a.schema().size(); i++) {
    int column = int(i < k ? i : i + m);
    out.outputs.push_back(Column(column, schema[size_t(column)].type, schema[size_t(column)].name));
  }
  for (size_t i = 0; i < m; i++) out.conditions.push_back(condition(i, Column(int(k + i), schema[k + i].type)));
  if (k == 0) {
    out.one_row_per_outer = true;
    for (size_t j = 0; j < a.aggs.size(); j++) {
      AggKind kind = a.aggs[j].sig.kind;
      if (kind == AggKind::kCount || kind == AggKind::kCountStar) out.empty_values[int(m + j)] = Value::Int64(0);
    }
  }
  return out;
}

// The join of a pulled subquery's plan with the domain of the outer
// columns `read` (their DISTINCT values in the outer plan) on its
// correlation conditions, as Neumann and Kemper's domain join: the plan's
// rows for each combination of outer values. The joined row is the
// domain's columns, then the plan's.
struct DomainJoin {
  std::vector<int> domain;  // the outer columns
  // Whether each domain column's NULL need not be matched: the conditions
  // reject it (an outer row with it sees no row of the subquery then).
  std::vector<bool> rejected;
  PlanPtr plan;

  // e, over the outer row and the subquery plan's row, onto the joined row.
  ExprPtr Onto(ExprPtr e) const {
    if (const auto* o = dynamic_cast<const OuterRefExpr*>(e.get())) {
      if (o->levels_up != 1) return e;
      int i = int(std::find(domain.begin(), domain.end(), o->index) - domain.begin());
      return Column(i, o->type(), o->name);
    }
    if (auto* col = dynamic_cast<ColumnRefExpr*>(e.get())) col->set_index(col->index() + int(domain.size()));
    for (auto& c : e->children())
      if (c) c = Onto(std::move(c));
    return e;
  }

  // The conditions under which the outer row's values equal the joined
  // row's domain columns (NULL matching NULL where it must, each term an
  // equality); empty when a type has no equality.
  std::vector<ExprPtr> Matches(const PlanNode& outer) const {
    std::vector<ExprPtr> out;
    for (size_t i = 0; i < domain.size(); i++) {
      const PlanColumn& col = outer.schema()[size_t(domain[i])];
      std::vector<ExprPtr> same = SameValue(outer, domain[i], Column(int(i), col.type), rejected[i]);
      if (same.empty()) return {};
      for (auto& m : same) out.push_back(std::move(m));
    }
    return out;
  }
};

std::optional<DomainJoin> JoinWithDomain(Pulled in, const std::set<int>& read, const PlanNode& outer) {
  if (read.empty()) return std::nullopt;
  DomainJoin out;
  out.domain.assign(read.begin(), read.end());
  for (int c : out.domain) {
    if (size_t(c) >= outer.schema().size() || !EqualityOf(outer.schema()[size_t(c)].type)) return std::nullopt;
    out.rejected.push_back(NeverNull(outer, c) || std::any_of(in.conditions.begin(), in.conditions.end(),
                                                              [&](const ExprPtr& e) { return RejectsNullOuter(*e, c); }));
  }
  std::vector<ExprPtr> values;
  std::vector<PlanColumn> schema;
  for (int c : out.domain) {
    const PlanColumn& col = outer.schema()[size_t(c)];
    values.push_back(Column(c, col.type, col.name));
    schema.push_back(PlanColumn{"_domain_" + col.name, col.type, "", true});
  }
  PlanPtr values_plan = std::make_unique<DistinctNode>(std::make_unique<ProjectNode>(ClonePlan(outer), std::move(values), schema));
  std::vector<ExprPtr> conditions;
  for (auto& c : in.conditions) conditions.push_back(out.Onto(std::move(c)));
  out.plan = std::make_unique<JoinNode>(JoinType::kInner, std::move(values_plan), std::move(in.plan),
                                        MakeConjunction(std::move(conditions)));
  return out;
}

// An aggregation whose input is correlated otherwise than by equalities
// (t.x < outer.x): made per value of the outer columns it reads, over
// their domain join with its input. The outer rows then find their group
// by equality with the domain's values.
std::optional<Pulled> AggregateOverDomain(const AggregateNode& a, Pulled in, std::vector<ExprPtr> keys,
                                          std::vector<AggregateCall> calls, const PlanNode& outer) {
  std::set<int> read;
  for (const auto& c : in.conditions) OuterColumns(*c, &read);
  for (const auto& e : keys) OuterColumns(*e, &read);
  for (const auto& call : calls) {
    for (const auto& e : call.args) OuterColumns(*e, &read);
    if (call.filter) OuterColumns(*call.filter, &read);
    for (const auto& o : call.order_by) OuterColumns(*o.expr, &read);
  }
  std::optional<DomainJoin> joined = JoinWithDomain(std::move(in), read, outer);
  if (!joined) return std::nullopt;
  for (auto& e : keys) e = joined->Onto(std::move(e));
  for (auto& call : calls) {
    for (auto& e : call.args) e = joined->Onto(std::move(e));
    if (call.filter) call.filter = joined->Onto(std::move(call.filter));
    for (auto& o : call.order_by) o.expr = joined->Onto(std::move(o.expr));
  }
  std::vector<ExprPtr> matches = joined->Matches(outer);
  if (matches.empty()) return std::nullopt;
  // Each match (outer side = inner side) keys the aggregation on its inner
  // side, a column over the joined row.
  std::vector<ExprPtr> extra;
  for (auto& m : matches) extra.push_back(m->children()[1]->Clone());
  return AggregatePerKey(a, std::move(joined->plan), std::move(keys), std::move(calls), std::move(extra),
                         [&](size_t i, ExprPtr column) {
                           ExprPtr m = std::move(matches[i]);
                           m->children()[1] = std::move(column);
                           return m;
                         });
}

bool ReadsVolatile(const Expression& e) {
  if (e.kind() == Expression::Kind::kFunction && IsVolatileFunction(static_cast<const FunctionExpr&>(e).function()->name))
    return true;
  for (const auto& c : e.children())
    if (c && ReadsVolatile(*c)) return true;
  return false;
}

// Whether the plan reads only one relation (with filters, projections...):
// a copy of it costs no join.
bool JoinFree(const PlanNode& p) {
  if (p.kind() == PlanNode::Kind::kJoin || p.kind() == PlanNode::Kind::kLateralJoin ||
      p.kind() == PlanNode::Kind::kSetOp || p.kind() == PlanNode::Kind::kRecursiveUnion)
    return false;
  for (size_t i = 0; i < p.children().size(); i++)
    if (!JoinFree(*p.child(i))) return false;
  return true;
}

// The rows of `input` whose correlation value (an equality's inner side)
// some outer row can have: a semi join with the distinct values of the
// outer column the equality reads, taken from the part of the outer plan
// below its (inner) joins that produces it, under the outer's conditions on
// that part alone (Neumann and Kemper's domain join, limited to the
// relation the column comes from). TPC-H Q17's average per part is then
// taken over the lineitems of the parts its filter keeps (0.1%), not all.
// Only when such conditions exist (else the domain is the whole relation);
// `input` unchanged otherwise.
PlanPtr WithinOuterDomain(PlanPtr input, const std::vector<Equality>& eqs, const PlanNode& outer) {
  for (const Equality& eq : eqs) {
    const auto* ref = dynamic_cast<const OuterRefExpr*>(eq.outer.get());
    if (!ref || ref->levels_up != 1) continue;
    int c = ref->index;
    const PlanNode* n = &outer;
    std::vector<ExprPtr> conditions;  // over n's columns
    // The conjuncts of `predicate` that read columns of n's row only (none
    // of the outer's, nothing volatile), kept.
    auto take = [&](const Expression& predicate) {
      std::vector<ExprPtr> parts;
      SplitConjuncts(predicate.Clone(), &parts);
      for (auto& p : parts)
        if (SideOf(*p, 0) == JoinSide::kRight && !ReadsOuter(*p) && !ReadsVolatile(*p) && !ContainsSubquery(*p))
          conditions.push_back(std::move(p));
    };
    for (;;) {
      if (n->kind() == PlanNode::Kind::kFilter) {
        take(*static_cast<const FilterNode&>(*n).predicate);
        n = n->child(0);
        continue;
      }
      if (n->kind() != PlanNode::Kind::kJoin || static_cast<const JoinNode&>(*n).type != JoinType::kInner) break;
      const auto& j = static_cast<const JoinNode&>(*n);
      if (j.condition) take(*j.condition);
      // Down to the side producing the column, with the conditions (over
      // the join's row) that read that side alone, moved onto it.
      const int left = int(j.child(0)->schema().size());
      const bool right = c >= left;
      std::vector<ExprPtr> kept;
      for (auto& e : conditions)
        if (SideOf(*e, left) == (right ? JoinSide::kRight : JoinSide::kLeft)) {
          if (right) ShiftColumns(e.get(), -left);
          kept.push_back(std::move(e));
        }
      conditions = std::move(kept);
      if (right) c -= left;
      n = j.child(right ? 1 : 0);
    }
    // A copy of a join (a view's, a LEFT join's) would cost as much again:
    // only a relation with its filters and projections.
    if (conditions.empty() || PlanReadsOuter(*n) || !JoinFree(*n)) continue;
    const PlanColumn& col = n->schema()[size_t(c)];
    PlanPtr values = std::make_unique<FilterNode>(ClonePlan(*n), MakeConjunction(std::move(conditions)));
    std::vector<ExprPtr> project;
    project.push_back(Column(c, col.type, col.name));
    values = std::make_unique<DistinctNode>(std::make_unique<ProjectNode>(
        std::move(values), std::move(project), std::vector<PlanColumn>{PlanColumn{"_domain_" + col.name, col.type, "", true}}));
    const int width = int(input->schema().size());
    ExprPtr on = eq.outer_first ? Call(eq.fn, Column(width, col.type), eq.inner->Clone())
                                : Call(eq.fn, eq.inner->Clone(), Column(width, col.type));
    return std::make_unique<JoinNode>(JoinType::kSemi, std::move(input), std::move(values), std::move(on));
  }
  return input;
}

std::optional<Pulled> PullAggregate(std::unique_ptr<AggregateNode> a, const PlanNode& outer) {
  std::optional<Pulled> in = Pull(std::move(a->children()[0]), outer);
  if (!in || in->one_row_per_outer) return std::nullopt;
  std::vector<ExprPtr> keys;
  for (const auto& k : a->group_keys) keys.push_back(Substitute(*k, in->outputs));
  std::vector<AggregateCall> calls;
  bool outer_free = !AnyReadsOuter(keys);
  for (const auto& call : a->aggs) {
    AggregateCall c{call.sig, {}, call.distinct, call.filter ? Substitute(*call.filter, in->outputs) : nullptr, {}};
    for (const auto& arg : call.args) c.args.push_back(Substitute(*arg, in->outputs));
    for (const auto& k : call.order_by) c.order_by.push_back({Substitute(*k.expr, in->outputs), k.descending, k.nulls_first});
    outer_free &= !AnyReadsOuter(c.args) && !(c.filter && ReadsOuter(*c.filter));
    for (const auto& k : c.order_by) outer_free &= !ReadsOuter(*k.expr);
    calls.push_back(std::move(c));
  }
  std::vector<Equality> eqs;
  if (!outer_free || !AllEqualities(in->conditions) || !SplitEqualities(std::move(in->conditions), &eqs))
    return AggregateOverDomain(*a, std::move(*in), std::move(keys), std::move(calls), outer);
  // Correlated by equalities only: grouped by their inner sides as well,
  // over the rows an outer row can find.
  PlanPtr input = WithinOuterDomain(std::move(in->plan), eqs, outer);
  std::vector<ExprPtr> extra;
  for (auto& eq : eqs) extra.push_back(std::move(eq.inner));
  return AggregatePerKey(*a, std::move(input), std::move(keys), std::move(calls), std::move(extra),
                         [&](size_t i, ExprPtr column) { return EqualityOn(eqs[i], std::move(column)); });
}

std::optional<Pulled> PullDistinct(PlanPtr node, const PlanNode& outer) {
  std::optional<Pulled> in = Pull(std::move(node->children()[0]), outer);
  if (!in || in->one_row_per_outer || AnyReadsOuter(in->outputs)) return std::nullopt;
  std::vector<Equality> eqs;
  if (!SplitEqualities(std::move(in->conditions), &eqs)) return std::nullopt;
  std::vector<PlanColumn> schema = node->schema();
  std::vector<ExprPtr> exprs = std::move(in->outputs);
  for (size_t i = 0; i < eqs.size(); i++) {
    schema.push_back(PlanColumn{"_correlation" + std::to_string(i + 1), eqs[i].inner->type(), "", true});
    exprs.push_back(std::move(eqs[i].inner));
  }
  Pulled out;
  out.plan = std::make_unique<DistinctNode>(std::make_unique<ProjectNode>(std::move(in->plan), std::move(exprs), schema));
  out.outputs = Identity(*node);
  const int width = int(node->schema().size());
  for (size_t i = 0; i < eqs.size(); i++)
    out.conditions.push_back(EqualityOn(eqs[i], Column(width + int(i), schema[size_t(width) + i].type)));
  return out;
}

bool PinsUniqueKey(const PlanNode& plan, const std::vector<ExprPtr>& conditions);
PlanPtr KeepColumns(PlanPtr plan, const std::vector<PlanColumn>& schema);

std::optional<Pulled> PullJoin(std::unique_ptr<JoinNode> j, const PlanNode& outer) {
  if (!j->left_keys.empty()) return std::nullopt;  // unnesting runs before the optimizer sets keys
  if (j->asof) return std::nullopt;
  const int right_width = int(j->child(1)->schema().size());
  if (j->type == JoinType::kInner) {
    std::optional<Pulled> l = Pull(std::move(j->children()[0]), outer);
    std::optional<Pulled> r = l ? Pull(std::move(j->children()[1]), outer) : std::nullopt;
    if (!r || l->one_row_per_outer || r->one_row_per_outer) return std::nullopt;
    const int lw = int(l->plan->schema().size());
    Pulled out;
    out.outputs = std::move(l->outputs);
    for (auto& e : r->outputs) {
      ShiftColumns(e.get(), lw);
      out.outputs.push_back(std::move(e));
    }
    out.conditions = std::move(l->conditions);
    for (auto& e : r->conditions) {
      ShiftColumns(e.get(), lw);
      out.conditions.push_back(std::move(e));
    }
    std::vector<ExprPtr> local;
    if (j->condition) {
      std::vector<ExprPtr> conjuncts;
      SplitConjuncts(Substitute(*j->condition, out.outputs), &conjuncts);
      for (auto& c : conjuncts) (ReadsOuter(*c) ? out.conditions : local).push_back(std::move(c));
    }
    auto joined = std::make_unique<JoinNode>(JoinType::kInner, std::move(l->plan), std::move(r->plan), MakeConjunction(std::move(local)));
    joined->process_time = j->process_time;
    out.plan = std::move(joined);
    return out;
  }
  // An outer or semi join: the correlation may only be on the left, the
  // side whose rows pass through (or are padded), or in the condition.
  if (j->type != JoinType::kLeft && j->type != JoinType::kSemi && j->type != JoinType::kAnti) return std::nullopt;
  if (PlanReadsOuter(*j->child(1))) return std::nullopt;
  std::optional<Pulled> l = Pull(std::move(j->children()[0]), outer);
  if (!l || l->one_row_per_outer) return std::nullopt;
  const int lw = int(l->plan->schema().size());
  const auto& right_schema = j->child(1)->schema();
  std::vector<ExprPtr> row = std::move(l->outputs);
  const size_t left_columns = row.size();
  for (int c = 0; c < right_width; c++) row.push_back(Column(lw + c, right_schema[size_t(c)].type, right_schema[size_t(c)].name));
  ExprPtr condition = j->condition ? Substitute(*j->condition, row) : nullptr;
  if (j->type != JoinType::kLeft) row.resize(left_columns);
  Pulled out;
  if (condition && ReadsOuter(*condition)) {
    // The condition reads the outer row (a subquery unnested below read two
    // levels out): the left's rows are made per value of the outer columns
    // the condition and the left's correlation read, over their domain
    // join, and joined with the right on the condition over those values;
    // the outer row finds its rows by equality with them.
    std::set<int> read;
    OuterColumns(*condition, &read);
    for (const auto& c : l->conditions) OuterColumns(*c, &read);
    std::optional<DomainJoin> domain = JoinWithDomain(std::move(*l), read, outer);
    if (!domain) return std::nullopt;
    out.conditions = domain->Matches(outer);
    if (out.conditions.empty()) return std::nullopt;
    condition = domain->Onto(std::move(condition));
    for (auto& e : row) e = domain->Onto(std::move(e));
    out.plan = std::make_unique<JoinNode>(j->type, std::move(domain->plan), std::move(j->children()[1]), std::move(condition));
    out.outputs = std::move(row);
    return out;
  }
  auto joined = std::make_unique<JoinNode>(j->type, std::move(l->plan), std::move(j->children()[1]), std::move(condition));
  joined->process_time = j->process_time;
  out.plan = std::move(joined);
  out.outputs = std::move(row);
  out.conditions = std::move(l->conditions);
  return out;
}

// A function in FROM over the outer row's values (FROM unnest(outer.a)):
// called once per distinct combination of the outer columns its arguments
// read (the domain: their DISTINCT values in the outer plan, joined
// LATERAL with the function), each generated row carrying its
// combination, which the outer row finds by equality (NULL matching NULL:
// the function is called with the NULL as the outer row would).
std::optional<Pulled> PullTableFunction(PlanPtr node, const PlanNode& outer) {
  auto* t = static_cast<TableFunctionNode*>(node.get());
  std::set<int> levels;
  for (const auto& a : t->args) OuterLevels(*a, 0, &levels);
  if (levels != std::set<int>{1}) return std::nullopt;
  std::set<int> read;
  for (const auto& a : t->args) OuterColumns(*a, &read);
  const std::vector<int> domain(read.begin(), read.end());
  std::vector<ExprPtr> values, conditions;
  std::vector<PlanColumn> schema;
  const int d = int(domain.size());
  for (int i = 0; i < d; i++) {
    const int c = domain[size_t(i)];
    if (size_t(c) >= outer.schema().size()) return std::nullopt;
    const PlanColumn& col = outer.schema()[size_t(c)];
    values.push_back(Column(c, col.type, col.name));
    schema.push_back(PlanColumn{"_domain_" + col.name, col.type, "", true});
    std::vector<ExprPtr> same = SameValue(outer, c, Column(i, col.type));
    if (same.empty()) return std::nullopt;
    for (auto& e : same) conditions.push_back(std::move(e));
  }
  PlanPtr values_plan = std::make_unique<DistinctNode>(std::make_unique<ProjectNode>(ClonePlan(outer), std::move(values), schema));
  // The arguments read the domain's row, the LATERAL item's left.
  std::function<ExprPtr(ExprPtr)> onto = [&](ExprPtr e) -> ExprPtr {
    if (auto* o = dynamic_cast<OuterRefExpr*>(e.get())) {
      o->index = int(std::find(domain.begin(), domain.end(), o->index) - domain.begin());
      return e;
    }
    for (auto& c : e->children())
      if (c) c = onto(std::move(c));
    return e;
  };
  for (auto& a : t->args) a = onto(std::move(a));
  const std::vector<PlanColumn> function_schema = node->schema();
  Pulled out;
  out.plan = std::make_unique<LateralJoinNode>(JoinType::kInner, std::move(values_plan), std::move(node), nullptr);
  for (size_t j = 0; j < function_schema.size(); j++)
    out.outputs.push_back(Column(d + int(j), function_schema[j].type, function_schema[j].name));
  out.conditions = std::move(conditions);
  return out;
}

// The first rows of the plan by `order` in each partition of the values
// of `partition` (all rows one partition when empty): row_number() (rank()
// with ties) OVER (PARTITION BY ... ORDER BY ...) past `offset` and within
// `limit` (-1: none), the number then dropped. A group top-N in streams.
PlanPtr FirstRowsPerPartition(PlanPtr plan, std::vector<ExprPtr> partition, std::vector<SortKey> order, int64_t offset,
                              int64_t limit, bool with_ties) {
  const std::vector<PlanColumn> schema = plan->schema();
  const int width = int(schema.size());
  WindowCall call;
  call.kind = with_ties ? WindowFunctionKind::kRank : WindowFunctionKind::kRowNumber;
  call.name = with_ties ? "rank" : "row_number";
  call.partition_by = std::move(partition);
  call.order_by = std::move(order);
  std::vector<WindowCall> calls;
  calls.push_back(std::move(call));
  plan = std::make_unique<WindowNode>(std::move(plan), std::move(calls));
  auto compare = [&](const char* op, int64_t bound) {
    std::vector<ExprPtr> args;
    args.push_back(Column(width, DataType::Int64(), with_ties ? "rank" : "row_number"));
    args.push_back(std::make_unique<ConstantExpr>(Value::Int64(bound)));
    return CallExactly(op, std::move(args));
  };
  // The bound first and alone, the shape the stream planner makes a top-N.
  if (limit >= 0) plan = std::make_unique<FilterNode>(std::move(plan), compare("<=", offset + limit));
  if (offset > 0) plan = std::make_unique<FilterNode>(std::move(plan), compare(">", offset));
  return KeepColumns(std::move(plan), schema);
}

// A correlated LIMIT / OFFSET (under its ORDER BY, if any): each outer
// row's first rows of the subquery. Over at most one row per outer row
// (an aggregate's, a lookup by a unique key) LIMIT n >= 1 changes nothing.
// Otherwise a top-N per correlation: correlated by equalities only (and
// ordered by the subquery's own columns), per value of their inner sides;
// else per combination of the outer values it reads, over their domain
// join with the subquery's rows. LIMIT 1 leaves at most one row per outer
// row, so that a scalar subquery can be joined.
std::optional<Pulled> PullLimit(std::unique_ptr<LimitNode> l, const PlanNode& outer) {
  if (l->limit_value || l->offset_value || l->limit == 0 || (l->with_ties && l->offset != 0)) return std::nullopt;
  PlanPtr below = std::move(l->children()[0]);
  std::vector<SortKey> order;
  if (below->kind() == PlanNode::Kind::kSort) {
    order = std::move(static_cast<SortNode&>(*below).keys);
    below = std::move(below->children()[0]);
  }
  if (l->with_ties && order.empty()) return std::nullopt;
  std::optional<Pulled> in = Pull(std::move(below), outer);
  if (!in) return std::nullopt;
  if (l->offset == 0 && l->limit >= 1 && (in->one_row_per_outer || in->at_most_one_per_outer ||
                                          PinsUniqueKey(*in->plan, in->conditions)))
    return in;
  if (in->one_row_per_outer) return std::nullopt;
  for (auto& k : order) k.expr = Substitute(*k.expr, in->outputs);
  bool order_reads_outer = false;
  for (const auto& k : order) order_reads_outer |= ReadsOuter(*k.expr);
  Pulled out;
  out.at_most_one_per_outer = l->limit == 1 && !l->with_ties;
  std::vector<Equality> eqs;
  if (!order_reads_outer && AllEqualities(in->conditions)) {
    std::vector<ExprPtr> conditions;
    for (const auto& c : in->conditions) conditions.push_back(c->Clone());
    // (AllEqualities held: the split succeeds.)
    SplitEqualities(std::move(conditions), &eqs);
    std::vector<ExprPtr> partition;
    for (const auto& eq : eqs) partition.push_back(eq.inner->Clone());
    PlanPtr input = WithinOuterDomain(std::move(in->plan), eqs, outer);
    out.plan = FirstRowsPerPartition(std::move(input), std::move(partition), std::move(order), l->offset, l->limit, l->with_ties);
    out.outputs = std::move(in->outputs);
    for (auto& eq : eqs) out.conditions.push_back(EqualityOn(eq, eq.inner->Clone()));
    return out;
  }
  std::set<int> read;
  for (const auto& c : in->conditions) OuterColumns(*c, &read);
  for (const auto& k : order) OuterColumns(*k.expr, &read);
  std::vector<ExprPtr> outputs = std::move(in->outputs);
  std::optional<DomainJoin> joined = JoinWithDomain(std::move(*in), read, outer);
  if (!joined) return std::nullopt;
  out.conditions = joined->Matches(outer);
  if (out.conditions.empty()) return std::nullopt;
  std::vector<ExprPtr> partition;
  for (size_t i = 0; i < joined->domain.size(); i++) {
    const PlanColumn& col = joined->plan->schema()[i];
    partition.push_back(Column(int(i), col.type, col.name));
  }
  for (auto& k : order) k.expr = joined->Onto(std::move(k.expr));
  for (auto& e : outputs) e = joined->Onto(std::move(e));
  out.outputs = std::move(outputs);
  out.plan = FirstRowsPerPartition(std::move(joined->plan), std::move(partition), std::move(order), l->offset, l->limit,
                                   l->with_ties);
  return out;
}

std::optional<Pulled> PullNode(PlanPtr node, const PlanNode& outer);

// Pulled's plan reads nothing outside it; a reference left in it (one two
// levels out that a rewrite moved into a plan) fails the pull.
std::optional<Pulled> Pull(PlanPtr node, const PlanNode& outer) {
  std::optional<Pulled> out = PullNode(std::move(node), outer);
  if (out && PlanReadsOuter(*out->plan)) return std::nullopt;
  return out;
}

std::optional<Pulled> PullNode(PlanPtr node, const PlanNode& outer) {
  if (!PlanReadsOuter(*node)) {
    Pulled out;
    out.outputs = Identity(*node);
    out.plan = std::move(node);
    return out;
  }
  if (AnyContainsSubquery(*node)) return std::nullopt;
  switch (node->kind()) {
    case PlanNode::Kind::kFilter: {
      auto* f = static_cast<FilterNode*>(node.get());
      std::optional<Pulled> in = Pull(std::move(f->children()[0]), outer);
      // A filter over a correlated aggregate without GROUP BY (HAVING) would
      // also have to judge the row an outer row without a group sees.
      if (!in || in->one_row_per_outer) return std::nullopt;
      std::vector<ExprPtr> conjuncts, local;
      SplitConjuncts(Substitute(*f->predicate, in->outputs), &conjuncts);
      for (auto& c : conjuncts) (ReadsOuter(*c) ? in->conditions : local).push_back(std::move(c));
      if (!local.empty()) in->plan = std::make_unique<FilterNode>(std::move(in->plan), MakeConjunction(std::move(local)));
      return in;
    }
    case PlanNode::Kind::kProject: {
      auto* p = static_cast<ProjectNode*>(node.get());
      std::optional<Pulled> in = Pull(std::move(p->children()[0]), outer);
      if (!in) return std::nullopt;
      std::vector<ExprPtr> outputs;
      for (const auto& e : p->exprs) outputs.push_back(Substitute(*e, in->outputs));
      in->outputs = std::move(outputs);
      return in;
    }
    case PlanNode::Kind::kSort:  // order does not matter to a subquery without LIMIT
      return Pull(std::move(node->children()[0]), outer);
    case PlanNode::Kind::kLimit: return PullLimit(std::unique_ptr<LimitNode>(static_cast<LimitNode*>(node.release())), outer);
    case PlanNode::Kind::kAggregate:
      return PullAggregate(std::unique_ptr<AggregateNode>(static_cast<AggregateNode*>(node.release())), outer);
    case PlanNode::Kind::kDistinct: return PullDistinct(std::move(node), outer);
    case PlanNode::Kind::kJoin: return PullJoin(std::unique_ptr<JoinNode>(static_cast<JoinNode*>(node.release())), outer);
    case PlanNode::Kind::kTableFunction: return PullTableFunction(std::move(node), outer);
    default: return std::nullopt;
  }
}

}  // namespace

bool AtMostOneRow(const PlanNode& n) {
  switch (n.kind()) {
    case PlanNode::Kind::kAggregate: return static_cast<const AggregateNode&>(n).group_keys.empty();
    case PlanNode::Kind::kProject:
    case PlanNode::Kind::kFilter:
    case PlanNode::Kind::kSort: return AtMostOneRow(*n.child());
    case PlanNode::Kind::kLimit: {
      const auto& l = static_cast<const LimitNode&>(n);
      return (!l.limit_value && !l.with_ties && l.limit >= 0 && l.limit <= 1) || AtMostOneRow(*n.child());
    }
    case PlanNode::Kind::kValues: return static_cast<const ValuesNode&>(n).rows.size() <= 1;
    default: return false;
  }
}

namespace {

// Whether column `c` of the plan's output can never be NULL (a table's
// primary key or NOT NULL column, passed on unchanged).
bool NeverNull(const PlanNode& n, int c) {
  switch (n.kind()) {
    case PlanNode::Kind::kScan: {
      const TableCatalog& t = *static_cast<const ScanNode&>(n).table;
      if (t.kind != RelationKind::kTable || size_t(c) >= t.columns.size()) return false;
      return t.columns[size_t(c)].not_null || t.columns[size_t(c)].hidden ||
             std::find(t.pk.begin(), t.pk.end(), c) != t.pk.end();
    }
    case PlanNode::Kind::kFilter:
    case PlanNode::Kind::kSort:
    case PlanNode::Kind::kLimit:
    case PlanNode::Kind::kDistinct: return NeverNull(*n.child(), c);
    case PlanNode::Kind::kProject: {
      const Expression& e = *static_cast<const ProjectNode&>(n).exprs[size_t(c)];
      if (const auto* col = dynamic_cast<const ColumnRefExpr*>(&e)) return NeverNull(*n.child(), col->index());
      return e.kind() == Expression::Kind::kConstant && !static_cast<const ConstantExpr&>(e).value().is_null();
    }
    case PlanNode::Kind::kJoin: {
      const auto& j = static_cast<const JoinNode&>(n);
      const int lw = int(n.child(0)->schema().size());
      if (c < lw) return (j.type == JoinType::kInner || j.type == JoinType::kLeft || j.type == JoinType::kSemi ||
                          j.type == JoinType::kAnti) && NeverNull(*n.child(0), c);
      return j.type == JoinType::kInner && NeverNull(*n.child(1), c - lw);
    }
    default: return false;
  }
}

bool NeverNull(const PlanNode& n, const Expression& e) {
  if (const auto* col = dynamic_cast<const ColumnRefExpr*>(&e)) return NeverNull(n, col->index());
  return e.kind() == Expression::Kind::kConstant && !static_cast<const ConstantExpr&>(e).value().is_null();
}

// Whether the plan's rows are unique on `columns` (a superset of a key: a
// table's or materialized view's primary key, an aggregation's group keys,
// every column of a DISTINCT).
bool UniqueOn(const PlanNode& n, const std::set<int>& columns) {
  auto covers = [&](const std::vector<int>& key) {
    return !key.empty() && std::all_of(key.begin(), key.end(), [&](int c) { return columns.count(c) > 0; });
  };
  switch (n.kind()) {
    case PlanNode::Kind::kScan: {
      const TableCatalog& t = *static_cast<const ScanNode&>(n).table;
      return (t.kind == RelationKind::kTable || t.kind == RelationKind::kMaterializedView) && covers(t.pk);
    }
    case PlanNode::Kind::kFilter:
    case PlanNode::Kind::kSort:
    case PlanNode::Kind::kLimit: return UniqueOn(*n.child(), columns);
    case PlanNode::Kind::kProject: {
      // The child's columns passed on unchanged.
      const auto& exprs = static_cast<const ProjectNode&>(n).exprs;
      std::set<int> below;
      for (int c : columns)
        if (const auto* col = dynamic_cast<const ColumnRefExpr*>(exprs[size_t(c)].get())) below.insert(col->index());
      return UniqueOn(*n.child(), below);
    }
    case PlanNode::Kind::kAggregate: {
      std::vector<int> keys;
      for (size_t i = 0; i < static_cast<const AggregateNode&>(n).group_keys.size(); i++) keys.push_back(int(i));
      return keys.empty() || covers(keys);
    }
    case PlanNode::Kind::kDistinct: {
      std::vector<int> all;
      for (size_t i = 0; i < n.schema().size(); i++) all.push_back(int(i));
      return covers(all);
    }
    case PlanNode::Kind::kJoin: {
      // Semi and anti joins keep some of the left's rows.
      const auto& j = static_cast<const JoinNode&>(n);
      return (j.type == JoinType::kSemi || j.type == JoinType::kAnti) && UniqueOn(*n.child(0), columns);
    }
    default: return false;
  }
}

// Whether the conditions pin a unique key of the plan: each an equality of
// an outer expression with a plan column, those columns covering a key. At
// most one of the plan's rows then matches an outer row.
bool PinsUniqueKey(const PlanNode& plan, const std::vector<ExprPtr>& conditions) {
  std::set<int> pinned;
  for (const auto& c : conditions) {
    if (c->kind() != Expression::Kind::kFunction || c->children().size() != 2 ||
        static_cast<const FunctionExpr&>(*c).function()->name != "=")
      continue;
    for (int i = 0; i < 2; i++) {
      const auto* col = dynamic_cast<const ColumnRefExpr*>(c->children()[size_t(i)].get());
      const Expression& other = *c->children()[size_t(1 - i)];
      if (col && ReadsOuter(other) && !HasColumnRef(other)) pinned.insert(col->index());
    }
  }
  return UniqueOn(plan, pinned);
}

PlanPtr Unnest(PlanPtr plan);

// The subquery's plan, ready to pull: a copy (the SubqueryExpr's plan may be
// shared by copies of the expression), its own subqueries unnested. What it
// reads of queries further out than the one around it is pulled like the
// rest of its correlation, and, once joined there, read one level less far
// (OntoJoinRow): the query around it is pulled in turn.
PlanPtr SubqueryPlan(const SubqueryExpr& sq) { return Unnest(ClonePlan(*sq.plan)); }

// ---- Semi and anti joins ----

// Whether a subquery row matches does not depend on duplicates or order
// (DISTINCT, ORDER BY), nor, for EXISTS, on the select list or a LIMIT that
// keeps a row: those are dropped from the top of its plan.
void StripForMatching(PlanPtr* plan, bool exists) {
  for (PlanPtr* at = plan;;) {
    PlanNode* n = at->get();
    auto* l = n->kind() == PlanNode::Kind::kLimit ? static_cast<LimitNode*>(n) : nullptr;
    bool keeps_one = l && !l->limit_value && !l->offset_value && !l->with_ties && l->offset == 0 && l->limit != 0;
    if (n->kind() == PlanNode::Kind::kDistinct || n->kind() == PlanNode::Kind::kSort ||
        (exists && (n->kind() == PlanNode::Kind::kProject || keeps_one)))
      *at = std::move(n->children()[0]);
    else if (n->kind() == PlanNode::Kind::kProject)
      at = &n->children()[0];
    else
      break;
  }
}

// A WHERE conjunct [NOT] EXISTS / IN / op ANY / op ALL over `input`, as a
// semi or anti join of input; null when it is not one, or cannot be.
PlanPtr AsSemiOrAntiJoin(PlanPtr& input, const Expression& conjunct) {
  const Expression* e = &conjunct;
  bool negated = false;
  if (e->kind() == Expression::Kind::kNot) {
    e = e->children()[0].get();
    negated = true;
  }
  if (e->kind() != Expression::Kind::kSubquery) return nullptr;
  const auto& sq = static_cast<const SubqueryExpr&>(*e);
  if (sq.subquery_kind != SubqueryKind::kExists && sq.subquery_kind != SubqueryKind::kAny &&
      sq.subquery_kind != SubqueryKind::kAll)
    return nullptr;
  PlanPtr plan = SubqueryPlan(sq);
  const bool exists = sq.subquery_kind == SubqueryKind::kExists;
  StripForMatching(&plan, exists);
  std::optional<Pulled> pulled = Pull(std::move(plan), *input);
  if (!pulled || pulled->one_row_per_outer) return nullptr;
  const int width = int(input->schema().size());
  std::vector<ExprPtr> conditions;
  for (auto& c : pulled->conditions) conditions.push_back(OntoJoinRow(std::move(c), width));
  JoinType type = negated ? JoinType::kAnti : JoinType::kSemi;
  if (exists && conditions.empty()) {
    // Uncorrelated: whether the subquery has a row at all, asked of its
    // row count once instead of pairing every row with every row.
    AggregateCall count{ResolveAggregate("count", {}, true), {}, false, nullptr, {}};
    std::vector<AggregateCall> calls;
    calls.push_back(std::move(count));
    std::vector<PlanColumn> schema{{"count", DataType::Int64(), ""}};
    pulled->plan = std::make_unique<AggregateNode>(std::move(pulled->plan), std::vector<ExprPtr>{}, std::move(calls), schema);
    conditions.push_back(CompareCount(Column(width, DataType::Int64()), ">"));
  }
  if (!exists) {
    std::vector<ExprPtr> lefts, rights;
    for (size_t i = 0; i < sq.compares.size(); i++) {
      lefts.push_back(sq.children()[i]->Clone());
      rights.push_back(OntoJoinRow(pulled->outputs[i]->Clone(), width));
    }
    ExprPtr cmp = RowComparison(sq, std::move(lefts), std::move(rights));
    const bool any = sq.subquery_kind == SubqueryKind::kAny;
    const bool not_in = any && negated && sq.compares.size() == 1 && sq.compares[0]->name == "=";
    if (not_in && NeverNull(*input, *sq.children()[0]) && NeverNull(*pulled->plan, *pulled->outputs[0])) {
      // NOT IN where neither side can be NULL: a plain (hashed) anti join.
      type = JoinType::kAnti;
      conditions.push_back(std::move(cmp));
    } else if (not_in && conditions.empty()) {
      // NOT IN: a hashed anti join, where a NULL on either side (once the
      // subquery has a row) drops the row.
      auto join = std::make_unique<JoinNode>(JoinType::kAnti, std::move(input), std::move(pulled->plan), nullptr);
      join->left_keys.push_back(sq.children()[0]->Clone());
      join->right_keys.push_back(pulled->outputs[0]->Clone());
      join->null_aware = true;
      return join;
    } else if (any && !negated) {
      conditions.push_back(std::move(cmp));  // x op ANY: a row where the comparison holds
    } else if (any) {
      // NOT (x op ANY): no row where the comparison holds or is unknown.
      type = JoinType::kAnti;
      conditions.push_back(Not(Test(Expression::Kind::kIsFalse, std::move(cmp))));
    } else if (!negated) {
      // x op ALL: no row where the comparison fails or is unknown.
      type = JoinType::kAnti;
      conditions.push_back(Not(Test(Expression::Kind::kIsTrue, std::move(cmp))));
    } else {
      // NOT (x op ALL): a row where the comparison fails.
      type = JoinType::kSemi;
      conditions.push_back(Test(Expression::Kind::kIsFalse, std::move(cmp)));
    }
  }
  return std::make_unique<JoinNode>(type, std::move(input), std::move(pulled->plan), MakeConjunction(std::move(conditions)));
}

// ---- Scalar subqueries ----

// plan with only the columns of `schema` (its first ones), when it has more.
PlanPtr KeepColumns(PlanPtr plan, const std::vector<PlanColumn>& schema) {
  if (plan->schema().size() == schema.size()) return plan;
  std::vector<ExprPtr> exprs;
  for (size_t i = 0; i < schema.size(); i++) exprs.push_back(Column(int(i), schema[i].type, schema[i].name));
  return std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), schema);
}

// A WHERE conjunct `expr op (uncorrelated scalar subquery of at most one
// row)` (either order) as an inner join of input with the subquery on that
// comparison, the subquery's column then dropped; null when it is not one.
PlanPtr AsComparisonJoin(PlanPtr& input, const Expression& conjunct) {
  static const std::set<std::string> kComparisons = {"=", "<>", "<", "<=", ">", ">="};
  if (conjunct.kind() != Expression::Kind::kFunction || conjunct.children().size() != 2) return nullptr;
  const ScalarFunction* fn = static_cast<const FunctionExpr&>(conjunct).function();
  if (!kComparisons.count(fn->name)) return nullptr;
  const int sub = conjunct.children()[0]->kind() == Expression::Kind::kSubquery ? 0 : 1;
  const Expression& other = *conjunct.children()[size_t(1 - sub)];
  if (conjunct.children()[size_t(sub)]->kind() != Expression::Kind::kSubquery || ContainsSubquery(other)) return nullptr;
  const auto& sq = static_cast<const SubqueryExpr&>(*conjunct.children()[size_t(sub)]);
  if (sq.subquery_kind != SubqueryKind::kScalar || PlanReadsOuter(*sq.plan) || !AtMostOneRow(*sq.plan)) return nullptr;
  PlanPtr plan = Unnest(ClonePlan(*sq.plan));
  const int width = int(input->schema().size());
  ExprPtr value = Column(width, plan->schema()[0].type, plan->schema()[0].name);
  ExprPtr condition = sub == 0 ? Call(fn, std::move(value), other.Clone()) : Call(fn, other.Clone(), std::move(value));
  std::vector<PlanColumn> schema = input->schema();
  auto join = std::make_unique<JoinNode>(JoinType::kInner, std::move(input), std::move(plan), std::move(condition));
  return KeepColumns(std::move(join), schema);
}

// Replaces each scalar subquery in e (not inside another subquery) that can
// be joined by the joined column's expression, joining `input` with it.
// The value of a subquery's first column for each row of input, joining
// input with the subquery (left, on its correlation), when the subquery
// has at most one row per input row; null (input untouched) when not.
ExprPtr JoinOneRow(PlanPtr plan, PlanPtr& input) {
  const bool at_most_one = AtMostOneRow(*plan);
  std::optional<Pulled> pulled = Pull(std::move(plan), *input);
  if (!pulled) return nullptr;
  // At most one row per outer row: uncorrelated and of one row, an
  // aggregate per correlation key, or a lookup by a unique key.
  const bool one_row = pulled->conditions.empty() ? at_most_one
                                                  : pulled->one_row_per_outer || pulled->at_most_one_per_outer ||
                                                        PinsUniqueKey(*pulled->plan, pulled->conditions);
  if (!one_row) return nullptr;
  const int width = int(input->schema().size());
  if (IsOneRowOfValues(*pulled)) {  // (SELECT outer.x + 1): no join
    InlineValues(&*pulled);
    return OntoJoinRow(std::move(pulled->outputs[0]), width);
  }
  // Padding gives NULL; an aggregate whose value over no rows is not
  // NULL (count) is given that value where the outer row had no group.
  std::vector<ExprPtr> columns = Identity(*pulled->plan);
  for (const auto& [column, value] : pulled->empty_values) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(columns[size_t(column)]));
    args.push_back(std::make_unique<ConstantExpr>(value));
    columns[size_t(column)] = std::make_unique<OperatorExpr>(Expression::Kind::kCoalesce, value.type(), std::move(args));
  }
  ExprPtr value = OntoJoinRow(Substitute(*pulled->outputs[0], columns), width);
  if (!pulled->one_row_per_outer && value->kind() != Expression::Kind::kColumnRef) {
    // A subquery that may have no row for an outer row (a lookup, one row
    // uncorrelated): its expression is NULL there, whatever it gives over
    // the padding's NULLs (coalesce, a constant, a row value). Its rows
    // carry a marker, NULL in the padding.
    std::vector<PlanColumn> schema = pulled->plan->schema();
    std::vector<ExprPtr> exprs = Identity(*pulled->plan);
    const int marker = width + int(schema.size());
    exprs.push_back(std::make_unique<ConstantExpr>(Value::Boolean(true)));
    schema.push_back(PlanColumn{"_matched", DataType::Boolean(), "", true});
    pulled->plan = std::make_unique<ProjectNode>(std::move(pulled->plan), std::move(exprs), std::move(schema));
    const DataType type = value->type();
    std::vector<ExprPtr> when_then;
    when_then.push_back(Column(marker, DataType::Boolean(), "_matched"));
    when_then.push_back(std::move(value));
    value = std::make_unique<CaseExpr>(type, std::move(when_then), /*has_else=*/false);
  }
  std::vector<ExprPtr> conditions;
  for (auto& c : pulled->conditions) conditions.push_back(OntoJoinRow(std::move(c), width));
  input = std::make_unique<JoinNode>(JoinType::kLeft, std::move(input), std::move(pulled->plan), MakeConjunction(std::move(conditions)));
  return value;
}

// The count of a subquery's rows (`null_of` non-null: of those whose column
// `null_of` is NULL) for each row of input, joined as JoinOneRow does.
ExprPtr JoinCount(PlanPtr plan, PlanPtr& input, const std::optional<int>& null_of) {
  AggregateCall count{ResolveAggregate("count", {}, true), {}, false, nullptr, {}};
  if (null_of) {
    const PlanColumn& c = plan->schema()[size_t(*null_of)];
    count.filter = Test(Expression::Kind::kIsNull, Column(*null_of, c.type, c.name));
  }
  std::vector<AggregateCall> calls;
  calls.push_back(std::move(count));
  std::vector<PlanColumn> schema{{"count", DataType::Int64(), ""}};
  return JoinOneRow(std::make_unique<AggregateNode>(std::move(plan), std::vector<ExprPtr>{}, std::move(calls), schema), input);
}

// x IN (subquery) where its three-valued result is needed (under OR, in a
// select list; correlated by equalities or not): a LEFT join with the
// subquery's DISTINCT values and correlation keys marks a match, and its
// row count and NULL count (per correlation key) say whether a miss is
// false or NULL. Null (input untouched) when not of that shape.
ExprPtr JoinIn(const SubqueryExpr& sq, PlanPtr& input) {
  if (sq.subquery_kind != SubqueryKind::kAny || sq.compares.size() != 1 || sq.compares[0]->name != "=" || sq.row_any_column)
    return nullptr;
  PlanPtr plan = SubqueryPlan(sq);
  StripForMatching(&plan, false);
  PlanPtr copy = ClonePlan(*plan);
  std::optional<Pulled> pulled = Pull(std::move(plan), *input);
  if (!pulled || pulled->one_row_per_outer || ReadsOuter(*pulled->outputs[0]) || !AllEqualities(pulled->conditions))
    return nullptr;
  std::vector<Equality> eqs;
  if (!SplitEqualities(std::move(pulled->conditions), &eqs)) return nullptr;
  const int width = int(input->schema().size());
  PlanPtr before = ClonePlan(*input);  // to give back if the counts cannot be joined
  // The matches: DISTINCT (value, correlation keys..., TRUE).
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema;
  exprs.push_back(std::move(pulled->outputs[0]));
  schema.push_back(PlanColumn{"_value", exprs[0]->type(), "", true});
  for (size_t i = 0; i < eqs.size(); i++) {
    schema.push_back(PlanColumn{"_correlation" + std::to_string(i + 1), eqs[i].inner->type(), "", true});
    exprs.push_back(std::move(eqs[i].inner));
  }
  exprs.push_back(std::make_unique<ConstantExpr>(Value::Boolean(true)));
  schema.push_back(PlanColumn{"_match", DataType::Boolean(), "", true});
  PlanPtr matches = std::make_unique<DistinctNode>(std::make_unique<ProjectNode>(std::move(pulled->plan), std::move(exprs), schema));
  std::vector<ExprPtr> conditions;
  conditions.push_back(Call(sq.compares[0], sq.children()[0]->Clone(), Column(width, schema[0].type)));
  for (size_t i = 0; i < eqs.size(); i++)
    conditions.push_back(OntoJoinRow(EqualityOn(eqs[i], Column(1 + int(i), schema[1 + i].type)), width));
  PlanPtr joined = std::make_unique<JoinNode>(JoinType::kLeft, std::move(input), std::move(matches), MakeConjunction(std::move(conditions)));
  ExprPtr matched = Test(Expression::Kind::kIsNotNull, Column(width + int(schema.size()) - 1, DataType::Boolean()));
  // The counts over the subquery's rows (per correlation key).
  ExprPtr rows = JoinCount(ClonePlan(*copy), joined, std::nullopt);
  ExprPtr nulls = rows ? JoinCount(std::move(copy), joined, 0) : nullptr;
  if (!rows || !nulls) {
    input = std::move(before);
    return nullptr;
  }
  std::vector<ExprPtr> unknown;  // x IS NULL OR the subquery has a NULL
  unknown.push_back(Test(Expression::Kind::kIsNull, sq.children()[0]->Clone()));
  unknown.push_back(CompareCount(std::move(nulls), ">"));
  std::vector<ExprPtr> arms;
  arms.push_back(std::move(matched));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Boolean(true)));
  arms.push_back(CompareCount(std::move(rows), "="));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Boolean(false)));
  arms.push_back(std::make_unique<OperatorExpr>(Expression::Kind::kOr, DataType::Boolean(), std::move(unknown)));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Null(DataType::Boolean())));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Boolean(false)));
  input = std::move(joined);
  return std::make_unique<CaseExpr>(DataType::Boolean(), std::move(arms), true);
}

// e over the outer row as seen from inside a subquery: its column
// references become references one level out.
ExprPtr AsOuterRefs(const Expression& e) {
  if (const auto* c = dynamic_cast<const ColumnRefExpr*>(&e)) return std::make_unique<OuterRefExpr>(1, c->index(), c->type(), c->name());
  ExprPtr copy = e.Clone();
  for (size_t i = 0; i < e.children().size(); i++)
    if (e.children()[i]) copy->children()[i] = AsOuterRefs(*e.children()[i]);
  return copy;
}

// x op ANY / ALL (subquery) where its three-valued result is needed (under
// OR, in a select list) and JoinIn does not apply (another operator,
// correlation by non-equalities, a row comparison): counts of the
// subquery's rows where the comparison with the outer row's x is true (or
// false, for ALL) and where it is NULL, an aggregate reading the outer row
// (made per outer value over a domain join, AggregateOverDomain), say
// which: ANY is true on a true one, else NULL on a NULL one, else false;
// ALL false on a false one, else NULL on a NULL one, else true.
ExprPtr JoinQuantified(const SubqueryExpr& sq, PlanPtr& input) {
  if (sq.subquery_kind != SubqueryKind::kAny && sq.subquery_kind != SubqueryKind::kAll) return nullptr;
  for (const auto& c : sq.children())
    if (ContainsSubquery(*c) || ReadsOuter(*c)) return nullptr;
  PlanPtr plan = SubqueryPlan(sq);
  StripForMatching(&plan, false);
  const bool any = sq.subquery_kind == SubqueryKind::kAny;
  std::vector<ExprPtr> lefts, rights;
  for (size_t i = 0; i < sq.compares.size(); i++) {
    lefts.push_back(AsOuterRefs(*sq.children()[i]));
    rights.push_back(Column(int(i), plan->schema()[i].type));
  }
  ExprPtr cmp = RowComparison(sq, std::move(lefts), std::move(rights));
  std::vector<AggregateCall> calls;
  calls.push_back({ResolveAggregate("count", {}, true), {}, false, Test(any ? Expression::Kind::kIsTrue : Expression::Kind::kIsFalse, cmp->Clone()), {}});
  calls.push_back({ResolveAggregate("count", {}, true), {}, false, Test(Expression::Kind::kIsNull, std::move(cmp)), {}});
  std::vector<PlanColumn> schema{{"decided", DataType::Int64(), ""}, {"unknown", DataType::Int64(), ""}};
  plan = std::make_unique<AggregateNode>(std::move(plan), std::vector<ExprPtr>{}, std::move(calls), schema);
  std::vector<ExprPtr> arms;
  arms.push_back(CompareCount(Column(0, DataType::Int64()), ">"));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Boolean(any)));
  arms.push_back(CompareCount(Column(1, DataType::Int64()), ">"));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Null(DataType::Boolean())));
  arms.push_back(std::make_unique<ConstantExpr>(Value::Boolean(!any)));
  std::vector<ExprPtr> value;
  value.push_back(std::make_unique<CaseExpr>(DataType::Boolean(), std::move(arms), true));
  plan = std::make_unique<ProjectNode>(std::move(plan), std::move(value),
                                       std::vector<PlanColumn>{PlanColumn{any ? "any" : "all", DataType::Boolean(), ""}});
  return JoinOneRow(std::move(plan), input);
}

// Replaces each scalar subquery in e (not inside another subquery) that can
// be joined by the joined column's expression, joining `input` with it; an
// EXISTS that is not a WHERE conjunct of its own (under OR, in a select
// list) likewise, as (SELECT count(*) ...) > 0, and an IN by JoinIn (other
// quantified comparisons by JoinQuantified).
void JoinScalarSubqueries(ExprPtr& e, PlanPtr& input) {
  if (e->kind() == Expression::Kind::kSubquery) {
    const auto& sq = static_cast<const SubqueryExpr&>(*e);
    for (auto& c : e->children()) JoinScalarSubqueries(c, input);  // ANY/ALL's left operands
    if (sq.subquery_kind == SubqueryKind::kAny || sq.subquery_kind == SubqueryKind::kAll) {
      if (ExprPtr value = JoinIn(sq, input)) e = std::move(value);
      else if (ExprPtr value = JoinQuantified(sq, input)) e = std::move(value);
      return;
    }
    if (sq.subquery_kind != SubqueryKind::kScalar && sq.subquery_kind != SubqueryKind::kExists) return;
    PlanPtr plan = SubqueryPlan(sq);
    if (sq.subquery_kind == SubqueryKind::kScalar) {
      if (ExprPtr value = JoinOneRow(std::move(plan), input)) e = std::move(value);
      return;
    }
    StripForMatching(&plan, true);
    std::vector<AggregateCall> calls;
    calls.push_back({ResolveAggregate("count", {}, true), {}, false, nullptr, {}});
    std::vector<PlanColumn> schema{{"count", DataType::Int64(), ""}};
    plan = std::make_unique<AggregateNode>(std::move(plan), std::vector<ExprPtr>{}, std::move(calls), schema);
    if (ExprPtr count = JoinOneRow(std::move(plan), input)) e = CompareCount(std::move(count), ">");
    return;
  }
  for (auto& c : e->children())
    if (c) JoinScalarSubqueries(c, input);
}

PlanPtr UnnestFilter(std::unique_ptr<FilterNode> f) {
  std::vector<ExprPtr> conjuncts, plain, rest;
  SplitConjuncts(std::move(f->predicate), &conjuncts);
  // Conjuncts without subqueries first, so that the joins see fewer rows.
  for (auto& c : conjuncts) (ContainsSubquery(*c) ? rest : plain).push_back(std::move(c));
  PlanPtr input = std::move(f->children()[0]);
  if (!plain.empty()) input = std::make_unique<FilterNode>(std::move(input), MakeConjunction(std::move(plain)));
  std::vector<ExprPtr> kept;
  for (auto& c : rest) {
    if (PlanPtr join = AsSemiOrAntiJoin(input, *c)) {
      input = std::move(join);
      continue;
    }
    if (PlanPtr join = AsComparisonJoin(input, *c)) {
      input = std::move(join);
      continue;
    }
    JoinScalarSubqueries(c, input);
    kept.push_back(std::move(c));
  }
  if (!kept.empty()) input = std::make_unique<FilterNode>(std::move(input), MakeConjunction(std::move(kept)));
  return KeepColumns(std::move(input), f->schema());
}

PlanPtr UnnestProject(std::unique_ptr<ProjectNode> p) {
  PlanPtr input = std::move(p->children()[0]);
  for (auto& e : p->exprs)
    if (ContainsSubquery(*e)) JoinScalarSubqueries(e, input);
  return std::make_unique<ProjectNode>(std::move(input), std::move(p->exprs), p->schema());
}

// Subqueries in a join's ON condition. An inner join's conjuncts holding
// them filter its rows instead (unnested as a WHERE's). A left join's that
// read the right side only filter the right side first; those that read
// the left side only become a column of the left (its rows stay, padded
// where the column is not true). Others stay (streams refuse them).
PlanPtr UnnestJoinCondition(std::unique_ptr<JoinNode> j) {
  if (!j->left_keys.empty() || j->asof || j->process_time ||
      (j->type != JoinType::kInner && j->type != JoinType::kLeft))
    return j;
  std::vector<ExprPtr> conjuncts, plain, with_subquery;
  SplitConjuncts(std::move(j->condition), &conjuncts);
  for (auto& c : conjuncts) (ContainsSubquery(*c) ? with_subquery : plain).push_back(std::move(c));
  if (j->type == JoinType::kInner) {
    j->condition = MakeConjunction(std::move(plain));
    return UnnestFilter(std::make_unique<FilterNode>(std::move(j), MakeConjunction(std::move(with_subquery))));
  }
  const std::vector<PlanColumn> schema = j->schema();
  const int lw = int(j->child(0)->schema().size());
  const int rw = int(j->child(1)->schema().size());
  std::vector<ExprPtr> right_filters, left_tests;
  for (auto& c : with_subquery) {
    std::set<int> read;
    RowColumns(*c, 0, &read);
    if (!read.empty() && *read.begin() >= lw) {
      ShiftRowColumns(*c, 0, -lw);
      right_filters.push_back(std::move(c));
    } else if (read.empty() || *read.rbegin() < lw) {
      left_tests.push_back(std::move(c));
    } else {
      plain.push_back(std::move(c));
    }
  }
  if (!right_filters.empty())
    j->children()[1] = UnnestFilter(std::make_unique<FilterNode>(std::move(j->children()[1]), MakeConjunction(std::move(right_filters))));
  if (left_tests.empty()) {
    j->condition = MakeConjunction(std::move(plain));
    return j;
  }
  // The left's tests as its last column, the right's columns one further.
  PlanPtr input = std::move(j->children()[0]);
  ExprPtr test = MakeConjunction(std::move(left_tests));
  JoinScalarSubqueries(test, input);
  std::vector<ExprPtr> left = Identity(*input);
  left.resize(size_t(lw));
  left.push_back(std::move(test));
  std::vector<PlanColumn> left_schema(schema.begin(), schema.begin() + lw);
  left_schema.push_back(PlanColumn{"_on", DataType::Boolean(), "", true});
  input = std::make_unique<ProjectNode>(std::move(input), std::move(left), left_schema);
  std::vector<ExprPtr> moved;  // the join row's columns, in the new row
  for (int i = 0; i < lw + rw; i++) moved.push_back(Column(i < lw ? i : i + 1, schema[size_t(i)].type, schema[size_t(i)].name));
  std::vector<ExprPtr> on;
  for (auto& c : plain) on.push_back(Substitute(*c, moved));
  on.push_back(Column(lw, DataType::Boolean(), "_on"));
  auto joined = std::make_unique<JoinNode>(JoinType::kLeft, std::move(input), std::move(j->children()[1]), MakeConjunction(std::move(on)));
  return std::make_unique<ProjectNode>(std::move(joined), std::move(moved), schema);
}

// Subqueries in an aggregation's group keys, arguments, FILTERs and
// ORDER BYs read its input row: joined to its input as a select list's
// are (the input's columns keep their places, the joined ones follow).
PlanPtr UnnestAggregate(std::unique_ptr<AggregateNode> a) {
  PlanPtr& input = a->children()[0];
  auto unnest = [&](ExprPtr& e) {
    if (e && ContainsSubquery(*e)) JoinScalarSubqueries(e, input);
  };
  for (auto& k : a->group_keys) unnest(k);
  for (auto& call : a->aggs) {
    for (auto& arg : call.args) unnest(arg);
    unnest(call.filter);
    for (auto& k : call.order_by) unnest(k.expr);
  }
  return a;
}

// LATERAL (subquery) as a join: the subquery's correlation conditions join
// it with the items on its left, its columns computed over the joined row.
// An aggregate without GROUP BY (one row for every left row) is joined
// LEFT, its empty-input values filled in. Unchanged when the subquery
// cannot be pulled (set-returning functions of the left's columns, ...).
PlanPtr UnnestLateral(std::unique_ptr<LateralJoinNode> j) {
  // A function of the left's columns stays LATERAL: run over each left
  // row (a ProjectSet in streams), not over their distinct values joined
  // back.
  const PlanNode* right = j->child(1);
  if (right->kind() == PlanNode::Kind::kProject) right = right->child();
  if (right->kind() == PlanNode::Kind::kTableFunction && PlanReadsOuter(*right)) return j;
  std::set<int> levels;
  PlanOuterLevels(*j->child(1), 0, &levels);
  if (!levels.empty() && *levels.rbegin() > 1) return j;
  std::optional<Pulled> pulled = Pull(Unnest(ClonePlan(*j->child(1))), *j->child(0));
  if (!pulled) return j;
  const bool trivial = !j->condition || (j->condition->kind() == Expression::Kind::kConstant &&
                                         !static_cast<const ConstantExpr&>(*j->condition).value().is_null() &&
                                         static_cast<const ConstantExpr&>(*j->condition).value().bool_value());
  if (pulled->one_row_per_outer && j->type != JoinType::kInner && !trivial) return j;
  const int width = int(j->child(0)->schema().size());
  std::vector<ExprPtr> columns = Identity(*pulled->plan);
  for (const auto& [column, value] : pulled->empty_values) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(columns[size_t(column)]));
    args.push_back(std::make_unique<ConstantExpr>(value));
    columns[size_t(column)] = std::make_unique<OperatorExpr>(Expression::Kind::kCoalesce, value.type(), std::move(args));
  }
  // The output row: the left's columns, then the subquery's.
  std::vector<ExprPtr> row = Identity(*j->child(0));
  if (IsOneRowOfValues(*pulled) && (trivial || j->type == JoinType::kInner)) {
    InlineValues(&*pulled);
    for (auto& e : pulled->outputs) row.push_back(OntoJoinRow(std::move(e), 0));
    std::vector<PlanColumn> schema = j->schema();
    PlanPtr out = std::make_unique<ProjectNode>(std::move(j->children()[0]), std::move(row), schema);
    return trivial ? std::move(out) : std::make_unique<FilterNode>(std::move(out), j->condition->Clone());
  }
  for (const auto& e : pulled->outputs) row.push_back(OntoJoinRow(Substitute(*e, columns), width));
  std::vector<ExprPtr> conditions;
  for (auto& c : pulled->conditions) conditions.push_back(OntoJoinRow(std::move(c), width));
  ExprPtr on = trivial ? nullptr : Substitute(*j->condition, row);
  if (on && !pulled->one_row_per_outer) conditions.push_back(std::move(on));
  const JoinType type = pulled->one_row_per_outer ? JoinType::kLeft : j->type;
  std::vector<PlanColumn> schema = j->schema();
  PlanPtr join = std::make_unique<JoinNode>(type, std::move(j->children()[0]), std::move(pulled->plan),
                                            MakeConjunction(std::move(conditions)));
  PlanPtr out = std::make_unique<ProjectNode>(std::move(join), std::move(row), schema);
  if (on) out = std::make_unique<FilterNode>(std::move(out), j->condition->Clone());  // one row each: ON filters
  return out;
}

PlanPtr Unnest(PlanPtr plan) {
  for (auto& c : plan->children()) c = Unnest(std::move(c));
  if (plan->kind() == PlanNode::Kind::kLateralJoin)
    return UnnestLateral(std::unique_ptr<LateralJoinNode>(static_cast<LateralJoinNode*>(plan.release())));
  if (plan->kind() == PlanNode::Kind::kFilter && ContainsSubquery(*static_cast<FilterNode&>(*plan).predicate))
    return UnnestFilter(std::unique_ptr<FilterNode>(static_cast<FilterNode*>(plan.release())));
  if (plan->kind() == PlanNode::Kind::kJoin && static_cast<JoinNode&>(*plan).condition &&
      ContainsSubquery(*static_cast<JoinNode&>(*plan).condition))
    return UnnestJoinCondition(std::unique_ptr<JoinNode>(static_cast<JoinNode*>(plan.release())));
  if (plan->kind() == PlanNode::Kind::kAggregate && AnyContainsSubquery(*plan))
    return UnnestAggregate(std::unique_ptr<AggregateNode>(static_cast<AggregateNode*>(plan.release())));
  if (plan->kind() == PlanNode::Kind::kProject) {
    bool any = false;
    for (const auto& e : static_cast<ProjectNode&>(*plan).exprs) any |= ContainsSubquery(*e);
    if (any) return UnnestProject(std::unique_ptr<ProjectNode>(static_cast<ProjectNode*>(plan.release())));
  }
  return plan;
}

}  // namespace

PlanPtr UnnestSubqueries(PlanPtr plan) { return Unnest(std::move(plan)); }

}  // namespace freshet
