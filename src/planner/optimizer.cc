#include "planner/optimizer.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "expr/array.h"
#include "planner/column_pruning.h"
#include "planner/subquery_unnesting.h"

namespace freshet {

void SplitConjuncts(ExprPtr e, std::vector<ExprPtr>* out) {
  if (!e) return;
  if (e->kind() == Expression::Kind::kAnd) {
    for (auto& c : e->children()) SplitConjuncts(std::move(c), out);
    return;
  }
  out->push_back(std::move(e));
}

ExprPtr MakeConjunction(std::vector<ExprPtr> parts) {
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return std::move(parts[0]);
  return std::make_unique<OperatorExpr>(Expression::Kind::kAnd, DataType::Boolean(), std::move(parts));
}

void CollectColumns(const Expression& e, std::vector<int>* out) {
  if (auto* c = dynamic_cast<const ColumnRefExpr*>(&e)) out->push_back(c->index());
  for (const auto& ch : e.children()) CollectColumns(*ch, out);
}

bool ContainsSubquery(const Expression& e) {
  if (e.kind() == Expression::Kind::kSubquery) return true;
  for (const auto& ch : e.children())
    if (ContainsSubquery(*ch)) return true;
  return false;
}

void ShiftColumns(Expression* e, int delta) {
  if (auto* c = dynamic_cast<ColumnRefExpr*>(e)) c->set_index(c->index() + delta);
  for (auto& ch : e->children()) ShiftColumns(ch.get(), delta);
}

namespace {

PlanPtr AddFilter(PlanPtr plan, std::vector<ExprPtr> preds) {
  if (preds.empty()) return plan;
  return std::make_unique<FilterNode>(std::move(plan), MakeConjunction(std::move(preds)));
}

// Equality whose operands each read one side: a hash key.
bool IsEquiKey(const Expression& e, int left_width, bool* swapped) {
  if (e.kind() != Expression::Kind::kFunction) return false;
  const auto& fe = static_cast<const FunctionExpr&>(e);
  if (fe.function()->name != "=" || e.children().size() != 2) return false;
  if (ContainsSubquery(e)) return false;
  JoinSide a = SideOf(*e.children()[0], left_width), b = SideOf(*e.children()[1], left_width);
  if (a == JoinSide::kLeft && b == JoinSide::kRight) { *swapped = false; return true; }
  if (a == JoinSide::kRight && b == JoinSide::kLeft) { *swapped = true; return true; }
  return false;
}

PlanPtr Optimize(PlanPtr plan);

PlanPtr OptimizeJoin(std::unique_ptr<JoinNode> join, std::vector<ExprPtr> extra) {
  int left_width = static_cast<int>(join->child(0)->schema().size());
  std::vector<ExprPtr> conjuncts;
  SplitConjuncts(std::move(join->condition), &conjuncts);
  for (auto& e : extra) conjuncts.push_back(std::move(e));

  std::vector<ExprPtr> left_preds, right_preds, residual;
  bool inner = join->type == JoinType::kInner;
  for (auto& c : conjuncts) {
    bool swapped = false;
    if (IsEquiKey(*c, left_width, &swapped)) {
      ExprPtr l = std::move(c->children()[swapped ? 1 : 0]);
      ExprPtr r = std::move(c->children()[swapped ? 0 : 1]);
      ShiftColumns(r.get(), -left_width);
      join->left_keys.push_back(std::move(l));
      join->right_keys.push_back(std::move(r));
      continue;
    }
    JoinSide side = ContainsSubquery(*c) ? JoinSide::kBoth : SideOf(*c, left_width);
    // Only inner joins may filter either input before joining; a left join
    // may pre-filter its right side with an ON conjunct (it only removes
    // matches), and symmetrically for right joins.
    bool push_left = side == JoinSide::kLeft && (inner || join->type == JoinType::kRight);
    bool push_right = side == JoinSide::kRight && (inner || join->type == JoinType::kLeft ||
                                               join->type == JoinType::kSemi || join->type == JoinType::kAnti);
    if (push_left) {
      left_preds.push_back(std::move(c));
    } else if (push_right) {
      ShiftColumns(c.get(), -left_width);
      right_preds.push_back(std::move(c));
    } else {
      residual.push_back(std::move(c));
    }
  }
  join->condition = MakeConjunction(std::move(residual));
  PlanPtr left = AddFilter(std::move(join->children()[0]), std::move(left_preds));
  PlanPtr right = AddFilter(std::move(join->children()[1]), std::move(right_preds));
  join->children()[0] = Optimize(std::move(left));
  join->children()[1] = Optimize(std::move(right));
  return join;
}

// ---- Join order ----

bool SameExpression(const Expression& a, const Expression& b);

// Inner joins of several items flattened: the items in FROM order, where
// each item's columns start in the joins' concatenated row, and the
// conjuncts of their conditions over that row.
struct JoinGraph {
  std::vector<PlanPtr> items;
  std::vector<int> start;
  std::vector<ExprPtr> conjuncts;
};

bool IsPlainInnerJoin(const PlanNode& n) {
  if (n.kind() != PlanNode::Kind::kJoin) return false;
  const auto& j = static_cast<const JoinNode&>(n);
  return j.type == JoinType::kInner && j.left_keys.empty() && !j.null_aware && !j.process_time && !j.asof;
}

void FlattenJoins(PlanPtr node, int start, JoinGraph* g) {
  if (!IsPlainInnerJoin(*node)) {
    g->items.push_back(std::move(node));
    g->start.push_back(start);
    return;
  }
  auto* j = static_cast<JoinNode*>(node.get());
  const int left_width = int(j->child(0)->schema().size());
  ExprPtr condition = std::move(j->condition);
  FlattenJoins(std::move(j->children()[0]), start, g);
  FlattenJoins(std::move(j->children()[1]), start + left_width, g);
  if (condition) {
    ShiftColumns(condition.get(), start);
    SplitConjuncts(std::move(condition), &g->conjuncts);
  }
}

void RemapColumns(Expression* e, const std::vector<int>& to) {
  if (auto* c = dynamic_cast<ColumnRefExpr*>(e)) c->set_index(to[size_t(c->index())]);
  for (auto& ch : e->children()) RemapColumns(ch.get(), to);
}

// A FROM list (or chain of inner JOINs) whose order would join two items
// with no equality between them while another item could be joined by one
// (FROM part, supplier, partsupp WHERE p = ps AND s = ps: part x supplier
// first): the items reordered so that each joins the ones before it by an
// equality when any can, FROM order otherwise, and a projection restores
// the columns' order. Null when FROM order is already such an order.
PlanPtr ReorderJoins(PlanPtr join, std::vector<ExprPtr>* filter) {
  const std::vector<PlanColumn> schema = join->schema();
  JoinGraph g;
  FlattenJoins(std::move(join), 0, &g);
  const size_t n = g.items.size();
  for (auto& f : *filter) g.conjuncts.push_back(std::move(f));
  filter->clear();
  auto item_of = [&](int column) {
    size_t i = 0;
    while (i + 1 < n && g.start[i + 1] <= column) i++;
    return i;
  };
  // The items each equality conjunct joins (exactly two, one per side).
  std::vector<std::pair<size_t, size_t>> edges;
  for (const auto& c : g.conjuncts) {
    if (c->kind() != Expression::Kind::kFunction || c->children().size() != 2 ||
        static_cast<const FunctionExpr&>(*c).function()->name != "=" || ContainsSubquery(*c))
      continue;
    std::vector<int> a, b;
    CollectColumns(*c->children()[0], &a);
    CollectColumns(*c->children()[1], &b);
    if (a.empty() || b.empty()) continue;
    size_t ia = item_of(a[0]), ib = item_of(b[0]);
    bool one_each = ia != ib;
    for (int x : a) one_each &= item_of(x) == ia;
    for (int x : b) one_each &= item_of(x) == ib;
    if (one_each) edges.emplace_back(ia, ib);
  }
  std::vector<size_t> order{0};
  std::vector<bool> chosen(n, false);
  chosen[0] = true;
  bool changed = false;
  while (order.size() < n) {
    size_t pick = n;
    for (size_t i = 0; i < n && pick == n; i++) {
      if (chosen[i]) continue;
      for (const auto& [x, y] : edges)
        if ((x == i && chosen[y]) || (y == i && chosen[x])) pick = i;
    }
    if (pick == n)
      for (size_t i = 0; i < n && pick == n; i++)
        if (!chosen[i]) pick = i;
    changed |= pick != order.size();
    order.push_back(pick);
    chosen[pick] = true;
  }
  // Original column -> its position in the new order.
  std::vector<int> to(schema.size());
  int pos = 0;
  for (size_t i : order) {
    const int width = int(g.items[i]->schema().size());
    for (int c = 0; c < width; c++) to[size_t(g.start[i] + c)] = pos + c;
    pos += width;
  }
  PlanPtr tree = std::move(g.items[order[0]]);
  for (size_t k = 1; k < n; k++)
    tree = std::make_unique<JoinNode>(JoinType::kInner, std::move(tree), std::move(g.items[order[k]]), nullptr);
  for (auto& c : g.conjuncts) RemapColumns(c.get(), to);
  if (!changed) {
    *filter = std::move(g.conjuncts);  // the same order: the caller pushes them down
    return tree;
  }
  if (!g.conjuncts.empty()) tree = std::make_unique<FilterNode>(std::move(tree), MakeConjunction(std::move(g.conjuncts)));
  std::vector<ExprPtr> exprs;
  for (size_t c = 0; c < schema.size(); c++) exprs.push_back(std::make_unique<ColumnRefExpr>(to[c], schema[c].type, schema[c].name));
  return std::make_unique<ProjectNode>(std::move(tree), std::move(exprs), schema);
}

// How many items a tree of plain inner joins has.
size_t JoinItems(const PlanNode& n) {
  return IsPlainInnerJoin(n) ? JoinItems(*n.child(0)) + JoinItems(*n.child(1)) : 1;
}

// OR of branches that all have a conjunct in common (TPC-H Q19's
// p_partkey = l_partkey in each): the common conjuncts taken out, so that
// they can be join keys: (a AND x) OR (a AND y) is a AND (x OR y).
void FactorOr(ExprPtr e, std::vector<ExprPtr>* out) {
  if (e->kind() != Expression::Kind::kOr) return out->push_back(std::move(e));
  std::vector<std::vector<ExprPtr>> branches;
  for (auto& b : e->children()) {
    branches.emplace_back();
    SplitConjuncts(std::move(b), &branches.back());
  }
  std::vector<ExprPtr> common;
  for (auto& c : branches[0]) {
    bool everywhere = true;
    for (size_t b = 1; b < branches.size() && everywhere; b++)
      everywhere = std::any_of(branches[b].begin(), branches[b].end(), [&](const ExprPtr& x) { return x && SameExpression(*x, *c); });
    if (everywhere) common.push_back(c->Clone());
  }
  bool some_branch_empty = false;
  std::vector<ExprPtr> rest;
  for (auto& b : branches) {
    std::vector<ExprPtr> left;
    for (auto& x : b)
      if (!std::any_of(common.begin(), common.end(), [&](const ExprPtr& c) { return SameExpression(*x, *c); })) left.push_back(std::move(x));
    some_branch_empty |= left.empty();
    rest.push_back(MakeConjunction(std::move(left)));
  }
  for (auto& c : common) out->push_back(std::move(c));
  if (some_branch_empty) return;  // that branch is true once the common part holds
  out->push_back(rest.size() == 1 ? std::move(rest[0])
                                  : std::make_unique<OperatorExpr>(Expression::Kind::kOr, DataType::Boolean(), std::move(rest)));
}

PlanPtr Optimize(PlanPtr plan) {
  if (plan->kind() == PlanNode::Kind::kFilter && plan->child()->kind() == PlanNode::Kind::kJoin) {
    auto* filter = static_cast<FilterNode*>(plan.get());
    auto* join = static_cast<JoinNode*>(filter->child());
    // (Not an as-of join's: a WHERE condition on its right side applies to
    // the nearest row, an ON condition chooses among the rows.)
    if (join->type == JoinType::kInner && !join->asof) {
      std::vector<ExprPtr> split, preds;
      SplitConjuncts(std::move(filter->predicate), &split);
      for (auto& p : split) FactorOr(std::move(p), &preds);
      std::vector<ExprPtr> movable, kept;
      for (auto& p : preds) (ContainsSubquery(*p) ? kept : movable).push_back(std::move(p));
      if (JoinItems(*join) > 2 && IsPlainInnerJoin(*join)) {
        PlanPtr reordered = ReorderJoins(std::move(filter->children()[0]), &movable);
        if (reordered->kind() == PlanNode::Kind::kProject) {
          // Optimized below its projection; the filter with subqueries
          // stays above it, where its outer references point.
          reordered->children()[0] = Optimize(std::move(reordered->children()[0]));
          return AddFilter(std::move(reordered), std::move(kept));
        }
        filter->children()[0] = std::move(reordered);  // the same order, conditions in `movable`
      }
      std::unique_ptr<JoinNode> owned(static_cast<JoinNode*>(filter->children()[0].release()));
      PlanPtr result = OptimizeJoin(std::move(owned), std::move(movable));
      return AddFilter(std::move(result), std::move(kept));
    }
  }
  if (plan->kind() == PlanNode::Kind::kFilter && plan->child()->kind() == PlanNode::Kind::kLateralJoin) {
    // Conditions on the left items alone filter them before the lateral
    // side runs (as PostgreSQL's: FROM t, jsonb_each(t.j) WHERE
    // jsonb_typeof(t.j) = 'object' never calls jsonb_each on the others).
    auto* filter = static_cast<FilterNode*>(plan.get());
    auto* join = static_cast<LateralJoinNode*>(filter->child());
    if (join->type == JoinType::kInner || join->type == JoinType::kLeft) {
      int left_width = static_cast<int>(join->child(0)->schema().size());
      std::vector<ExprPtr> preds, left_preds, kept;
      SplitConjuncts(std::move(filter->predicate), &preds);
      for (auto& p : preds) {
        bool left_only = !ContainsSubquery(*p) && SideOf(*p, left_width) == JoinSide::kLeft;
        (left_only ? left_preds : kept).push_back(std::move(p));
      }
      if (!left_preds.empty()) {
        join->children()[0] = AddFilter(std::move(join->children()[0]), std::move(left_preds));
        return Optimize(AddFilter(std::move(filter->children()[0]), std::move(kept)));
      }
      filter->predicate = MakeConjunction(std::move(kept));
    }
  }
  if (plan->kind() == PlanNode::Kind::kFilter && plan->child()->kind() == PlanNode::Kind::kFilter) {
    // Merge stacked filters so the join rule above sees them together.
    auto* outer = static_cast<FilterNode*>(plan.get());
    auto* inner = static_cast<FilterNode*>(outer->child());
    std::vector<ExprPtr> preds;
    SplitConjuncts(std::move(inner->predicate), &preds);
    SplitConjuncts(std::move(outer->predicate), &preds);
    PlanPtr child = std::move(inner->children()[0]);
    return Optimize(AddFilter(std::move(child), std::move(preds)));
  }
  if (plan->kind() == PlanNode::Kind::kJoin) {
    std::vector<ExprPtr> conditions;
    if (JoinItems(*plan) > 2 && IsPlainInnerJoin(*plan)) {  // a chain of inner JOIN ... ON
      plan = ReorderJoins(std::move(plan), &conditions);
      if (plan->kind() == PlanNode::Kind::kProject) {
        plan->children()[0] = Optimize(std::move(plan->children()[0]));
        return plan;
      }
    }
    std::unique_ptr<JoinNode> owned(static_cast<JoinNode*>(plan.release()));
    return OptimizeJoin(std::move(owned), std::move(conditions));
  }
  for (auto& c : plan->children()) c = Optimize(std::move(c));
  return plan;
}

}  // namespace

namespace {

// Column usage analysis: which output columns of each node are read by its
// ancestors, so that scans decode only those. Conservative: anything it
// does not understand needs every column.
void MarkUsedColumns(PlanNode* node, std::vector<bool> needed) {
  auto all = [](const PlanNode* n) { return std::vector<bool>(n->schema().size(), true); };
  auto none = [](const PlanNode* n) { return std::vector<bool>(n->schema().size(), false); };
  switch (node->kind()) {
    case PlanNode::Kind::kScan:
      static_cast<ScanNode*>(node)->used_columns = needed;
      return;
    case PlanNode::Kind::kFilter: {
      auto* f = static_cast<FilterNode*>(node);
      MarkColumnsRead(f->predicate.get(), &needed);
      MarkUsedColumns(f->child(), needed);
      return;
    }
    case PlanNode::Kind::kProject: {
      auto* p = static_cast<ProjectNode*>(node);
      std::vector<bool> in = none(p->child());
      for (size_t i = 0; i < p->exprs.size(); i++)
        if (i >= needed.size() || needed[i]) MarkColumnsRead(p->exprs[i].get(), &in);
      MarkUsedColumns(p->child(), in);
      return;
    }
    case PlanNode::Kind::kAggregate: {
      auto* a = static_cast<AggregateNode*>(node);
      std::vector<bool> in = none(a->child());
      for (const auto& k : a->group_keys) MarkColumnsRead(k.get(), &in);
      for (const auto& call : a->aggs) {
        for (const auto& arg : call.args) MarkColumnsRead(arg.get(), &in);
        MarkColumnsRead(call.filter.get(), &in);
        for (const auto& k : call.order_by) MarkColumnsRead(k.expr.get(), &in);
      }
      MarkUsedColumns(a->child(), in);
      return;
    }
    case PlanNode::Kind::kSort: {
      auto* s = static_cast<SortNode*>(node);
      for (const auto& k : s->keys) MarkColumnsRead(k.expr.get(), &needed);
      MarkUsedColumns(s->child(), needed);
      return;
    }
    case PlanNode::Kind::kLimit:
      MarkUsedColumns(node->child(), needed);
      return;
    case PlanNode::Kind::kJoin: {
      auto* j = static_cast<JoinNode*>(node);
      size_t lw = j->child(0)->schema().size();
      std::vector<bool> joined(lw + j->child(1)->schema().size(), false);
      for (size_t i = 0; i < needed.size() && i < joined.size(); i++) joined[i] = needed[i];
      MarkColumnsRead(j->condition.get(), &joined);
      std::vector<bool> left(joined.begin(), joined.begin() + lw), right(joined.begin() + lw, joined.end());
      for (const auto& k : j->left_keys) MarkColumnsRead(k.get(), &left);
      for (const auto& k : j->right_keys) MarkColumnsRead(k.get(), &right);
      MarkUsedColumns(j->child(0), left);
      MarkUsedColumns(j->child(1), right);
      return;
    }
    default:
      // Distinct, set operations, DML and the rest read whole rows.
      for (auto& c : node->children()) MarkUsedColumns(c.get(), all(c.get()));
      return;
  }
}

// Which column of what a scan reads an expression is, if it is one: a
// column reference for the table; for an index, also an expression it
// holds the values of.
using ColumnOf = std::function<std::optional<int>(const Expression&)>;

std::optional<int> TableColumnOf(const Expression& e) {
  if (e.kind() != Expression::Kind::kColumnRef) return std::nullopt;
  return static_cast<const ColumnRefExpr&>(e).index();
}

// "column op value" (or "value op column"), the value made of constants
// and parameters ($n + 100), of the column's type: a condition a table
// engine may prune with.
std::optional<ScanNode::Condition> AsScanCondition(const Expression& e, const ColumnOf& column_of) {
  if (e.kind() != Expression::Kind::kFunction || e.children().size() != 2) return std::nullopt;
  const std::string& name = static_cast<const FunctionExpr&>(e).function()->name;
  static const std::pair<const char*, ColumnPredicate::Op> kOps[] = {
      {"=", ColumnPredicate::Op::kEq}, {"<", ColumnPredicate::Op::kLt}, {"<=", ColumnPredicate::Op::kLe},
      {">", ColumnPredicate::Op::kGt}, {">=", ColumnPredicate::Op::kGe}};
  const ColumnPredicate::Op* op = nullptr;
  for (const auto& [text, o] : kOps)
    if (name == text) op = &o;
  if (!op) return std::nullopt;
  const Expression* column = e.children()[0].get();
  const Expression* constant = e.children()[1].get();
  bool flipped = false;
  auto is_value = [](const Expression* x) { return x->IsKnownAtExecution(); };
  if (is_value(column)) {
    std::swap(column, constant);
    flipped = true;
  }
  if (!is_value(constant) || constant->type().id != column->type().id) return std::nullopt;
  std::optional<int> index = column_of(*column);
  if (!index) return std::nullopt;
  ScanNode::Condition p;
  p.column = *index;
  p.value = constant->Clone();
  p.op = *op;
  if (flipped) {  // 5 < x is x > 5
    switch (*op) {
      case ColumnPredicate::Op::kLt: p.op = ColumnPredicate::Op::kGt; break;
      case ColumnPredicate::Op::kLe: p.op = ColumnPredicate::Op::kGe; break;
      case ColumnPredicate::Op::kGt: p.op = ColumnPredicate::Op::kLt; break;
      case ColumnPredicate::Op::kGe: p.op = ColumnPredicate::Op::kLe; break;
      case ColumnPredicate::Op::kEq: break;
    }
  }
  return p;
}

// column IN (values known at execution), in the forms the binder leaves:
// an OR of equalities of one column (x IN ($1, $2), x = $1 OR x = $2),
// x = ANY(array) and x IN (constants).
std::optional<ScanNode::Condition> AsInCondition(const Expression& e, const ColumnOf& column_of) {
  ScanNode::Condition p;
  p.op = ColumnPredicate::Op::kIn;
  if (const auto* any_all = dynamic_cast<const ArrayAnyAllExpr*>(&e)) {
    const ArrayAnyAllExpr& any = *any_all;
    const Expression* column = any.children()[0].get();
    const Expression* array = any.children()[1].get();
    if (!any.any() || any.compare()->name != "=" || !array->IsKnownAtExecution() || !array->type().IsArray() ||
        array->type().ElementType().id != column->type().id)
      return std::nullopt;
    std::optional<int> index = column_of(*column);
    if (!index) return std::nullopt;
    p.column = *index;
    p.array = array->Clone();
    return p;
  }
  if (e.kind() == Expression::Kind::kInList) {
    const auto* in = static_cast<const InListExpr*>(&e);
    if (in->negated()) return std::nullopt;
    std::optional<int> index = column_of(*in->children()[0]);
    if (!index) return std::nullopt;
    p.column = *index;
    p.list = in->list();
    return p;
  }
  if (e.kind() != Expression::Kind::kOr) return std::nullopt;
  std::vector<const Expression*> terms{&e};
  std::optional<int> column;
  while (!terms.empty()) {
    const Expression* t = terms.back();
    terms.pop_back();
    if (t->kind() == Expression::Kind::kOr) {
      for (auto c = t->children().rbegin(); c != t->children().rend(); ++c) terms.push_back(c->get());
      continue;
    }
    std::optional<ScanNode::Condition> eq = AsScanCondition(*t, column_of);
    if (!eq || eq->op != ColumnPredicate::Op::kEq || (column && *column != eq->column)) return std::nullopt;
    column = eq->column;
    p.items.push_back(std::move(eq->value));
  }
  p.column = *column;
  return p;
}

// The conditions a scan may narrow its reads with, from a filter's conjuncts.
std::vector<ScanNode::Condition> ScanConditions(const std::vector<const Expression*>& conjuncts,
                                                const ColumnOf& column_of) {
  std::vector<ScanNode::Condition> out;
  for (const Expression* e : conjuncts) {
    if (auto p = AsScanCondition(*e, column_of)) out.push_back(std::move(*p));
    if (auto p = AsInCondition(*e, column_of)) out.push_back(std::move(*p));
  }
  return out;
}

// `e` with its column references unnamed, so that it prints the same
// whatever the references were called.
ExprPtr WithUnnamedColumns(const Expression& e) {
  if (e.kind() == Expression::Kind::kColumnRef)
    return std::make_unique<ColumnRefExpr>(static_cast<const ColumnRefExpr&>(e).index(), e.type());
  ExprPtr copy = e.Clone();
  for (size_t i = 0; i < e.children().size(); i++) copy->children()[i] = WithUnnamedColumns(*e.children()[i]);
  return copy;
}

bool SameShape(const Expression& a, const Expression& b) {
  if (a.kind() != b.kind() || !(a.type() == b.type()) || a.children().size() != b.children().size()) return false;
  if (a.kind() == Expression::Kind::kColumnRef &&
      static_cast<const ColumnRefExpr&>(a).index() != static_cast<const ColumnRefExpr&>(b).index())
    return false;
  for (size_t i = 0; i < a.children().size(); i++)
    if (!SameShape(*a.children()[i], *b.children()[i])) return false;
  return true;
}

// Whether two expressions over the same input compute the same value:
// the same tree of kinds, types and columns, printing alike.
bool SameExpression(const Expression& a, const Expression& b) {
  return SameShape(a, b) && WithUnnamedColumns(a)->ToString() == WithUnnamedColumns(b)->ToString();
}

constexpr int kPointLookups = 1 << 20;

// How far a relation's key order narrows a scan with these conditions:
// twice the leading key columns pinned by an equality or IN list, one
// more for a range on the next; a distribution key pinned by equalities
// counts as one (one vnode); the whole key pinned, kPointLookups. 0: the
// scan reads every row.
int KeyNarrowing(const TableCatalog& relation, const std::vector<ScanNode::Condition>& predicates) {
  auto has = [&](int column, bool range) {
    for (const auto& p : predicates)
      if (p.column == column && (range || p.op == ColumnPredicate::Op::kEq || p.op == ColumnPredicate::Op::kIn))
        return true;
    return false;
  };
  int score = 0;
  for (int column : relation.pk) {
    if (has(column, false)) {
      score += 2;
      continue;
    }
    if (has(column, true)) score += 1;
    break;
  }
  // The whole key pinned: point lookups, which nothing beats.
  if (!relation.pk.empty() && score == 2 * static_cast<int>(relation.pk.size())) return kPointLookups;
  if (score == 0 && !relation.dist_key.empty() &&
      std::all_of(relation.dist_key.begin(), relation.dist_key.end(), [&](int c) { return has(c, false); }))
    score = 1;
  return score;
}

// The index a scan reads instead of its table: the one whose key its
// conditions narrow most, when that is more than they narrow the table's
// (an equality on an index beats a range on the primary key). A partial
// index serves a scan whose filter has each conjunct of its predicate.
void ChooseIndex(ScanNode* scan, const std::vector<const Expression*>& conjuncts) {
  if (scan->indexes.empty() || conjuncts.empty()) return;
  int best = KeyNarrowing(*scan->table, scan->predicates);
  const size_t width = scan->table->columns.size();
  for (const ScanNode::IndexChoice& choice : scan->indexes) {
    // An index made before columns were added holds the columns before
    // them: it serves only a scan that reads none of the others.
    const std::vector<bool>& used = scan->used_columns;
    if (choice.table_columns < width &&
        (used.size() != width || std::any_of(used.begin() + static_cast<std::ptrdiff_t>(choice.table_columns),
                                             used.end(), [](bool u) { return u; })))
      continue;
    bool implied = std::all_of(choice.predicate.begin(), choice.predicate.end(), [&](const ExprPtr& p) {
      return std::any_of(conjuncts.begin(), conjuncts.end(), [&](const Expression* c) { return SameExpression(*p, *c); });
    });
    if (!implied) continue;
    std::vector<ScanNode::Condition> conditions = ScanConditions(conjuncts, [&](const Expression& e) -> std::optional<int> {
      std::optional<int> column = TableColumnOf(e);
      if (column && static_cast<size_t>(*column) < choice.table_columns) return column;
      for (size_t j = 0; j < choice.expressions.size(); j++)
        if (SameExpression(*choice.expressions[j], e)) return static_cast<int>(choice.table_columns + j);
      return std::nullopt;
    });
    int score = KeyNarrowing(*choice.index, conditions);
    if (score > best) {
      best = score;
      scan->index = choice.index;
      scan->index_predicates = std::move(conditions);
    }
  }
}

// Hands each scan under a filter the filter's simple conjuncts, and picks
// the index it reads.
void PushPredicatesToScans(PlanNode* node) {
  if (node->kind() == PlanNode::Kind::kFilter && node->child()->kind() == PlanNode::Kind::kScan) {
    auto* scan = static_cast<ScanNode*>(node->child());
    std::vector<const Expression*> conjuncts, pending{static_cast<FilterNode*>(node)->predicate.get()};
    while (!pending.empty()) {
      const Expression* e = pending.back();
      pending.pop_back();
      if (!e) continue;
      if (e->kind() == Expression::Kind::kAnd) {
        // Pushed last first, so that they are taken in the query's order.
        for (auto c = e->children().rbegin(); c != e->children().rend(); ++c) pending.push_back(c->get());
        continue;
      }
      conjuncts.push_back(e);
    }
    scan->predicates = ScanConditions(conjuncts, TableColumnOf);
    ChooseIndex(scan, conjuncts);
  }
  for (auto& c : node->children()) PushPredicatesToScans(c.get());
}

}  // namespace

JoinSide SideOf(const Expression& e, int left_width) {
  std::vector<int> cols;
  CollectColumns(e, &cols);
  bool l = false, r = false;
  for (int c : cols) (c < left_width ? l : r) = true;
  if (l && r) return JoinSide::kBoth;
  if (l) return JoinSide::kLeft;
  if (r) return JoinSide::kRight;
  return JoinSide::kNone;
}

PlanPtr OptimizePlan(PlanPtr plan) {
  plan = Optimize(UnnestSubqueries(std::move(plan)));
  MarkUsedColumns(plan.get(), std::vector<bool>(plan->schema().size(), true));
  PushPredicatesToScans(plan.get());
  return plan;
}

}  // namespace freshet
