#include "planner/column_pruning.h"

#include <algorithm>

#include "common/error.h"
#include "planner/optimizer.h"

namespace freshet {

namespace {

bool HasSubquery(const Expression& e) {
  if (e.kind() == Expression::Kind::kSubquery) return true;
  for (const auto& c : e.children())
    if (HasSubquery(*c)) return true;
  return false;
}

// Where each column of a node's output went: its new position, or -1
// when it was dropped. Positions only move down, in order.
using ColumnMap = std::vector<int>;

ColumnMap Identity(size_t width) {
  ColumnMap map(width);
  for (size_t i = 0; i < width; i++) map[i] = static_cast<int>(i);
  return map;
}

void Renumber(Expression* e, const ColumnMap& map) {
  if (!e) return;
  if (e->kind() == Expression::Kind::kColumnRef) {
    auto* c = static_cast<ColumnRefExpr*>(e);
    const int to = c->index() >= 0 && static_cast<size_t>(c->index()) < map.size() ? map[static_cast<size_t>(c->index())] : -1;
    if (to < 0) throw SqlError(sqlstate::kInternalError, "column pruning dropped a column that is read");
    c->set_index(to);
  }
  for (auto& c : e->children()) Renumber(c.get(), map);
}

// The columns of `schema` that `map` keeps, in order.
std::vector<PlanColumn> Kept(const std::vector<PlanColumn>& schema, const ColumnMap& map) {
  std::vector<PlanColumn> out;
  for (size_t i = 0; i < schema.size(); i++)
    if (map[i] >= 0) out.push_back(schema[i]);
  return out;
}

ColumnMap Prune(PlanPtr& node, std::vector<bool> needed);

// `node`'s output, whose column i is at below[i] (-1: gone), narrowed by a
// projection to the columns ancestors read, when it has others.
ColumnMap Narrow(PlanPtr& node, const std::vector<bool>& needed, const ColumnMap& below) {
  bool narrower = false;
  for (size_t i = 0; i < below.size(); i++) narrower |= below[i] >= 0 && !needed[i];
  if (!narrower) return below;
  ColumnMap map(below.size(), -1);
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema;
  for (size_t i = 0; i < below.size(); i++) {
    if (!needed[i]) continue;
    const PlanColumn& c = node->schema()[static_cast<size_t>(below[i])];
    map[i] = static_cast<int>(exprs.size());
    exprs.push_back(std::make_unique<ColumnRefExpr>(below[i], c.type, c.name));
    schema.push_back(c);
  }
  node = std::make_unique<ProjectNode>(std::move(node), std::move(exprs), std::move(schema));
  return map;
}

ColumnMap PruneProject(ProjectNode* p, const std::vector<bool>& needed) {
  std::vector<bool> in(p->child()->schema().size(), false);
  for (size_t i = 0; i < p->exprs.size(); i++)
    if (needed[i]) MarkColumnsRead(p->exprs[i].get(), &in);
  // Over a scan the projection itself narrows: no second one below it.
  const ColumnMap below = p->child()->kind() == PlanNode::Kind::kScan ? Identity(in.size())
                                                                     : Prune(p->children()[0], std::move(in));
  ColumnMap map(p->exprs.size(), -1);
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema;
  for (size_t i = 0; i < p->exprs.size(); i++) {
    if (!needed[i]) continue;
    Renumber(p->exprs[i].get(), below);
    map[i] = static_cast<int>(exprs.size());
    exprs.push_back(std::move(p->exprs[i]));
    schema.push_back(p->schema()[i]);
  }
  p->exprs = std::move(exprs);
  p->mutable_schema() = std::move(schema);
  return map;
}

ColumnMap PruneAggregate(AggregateNode* a, const std::vector<bool>& needed) {
  // Dependent keys nothing reads are dropped: they split no group.
  ColumnMap map(a->schema().size(), -1);
  std::vector<ExprPtr> keys;
  std::vector<PlanColumn> schema;
  for (size_t i = 0; i < a->schema().size(); i++) {
    const bool key = i < a->group_keys.size();
    if (key && i >= a->dependent_keys_from && !needed[i]) continue;
    map[i] = static_cast<int>(schema.size());
    schema.push_back(a->schema()[i]);
    if (key) keys.push_back(std::move(a->group_keys[i]));
  }
  a->dependent_keys_from = std::min(a->dependent_keys_from, keys.size());
  a->group_keys = std::move(keys);
  a->mutable_schema() = std::move(schema);
  std::vector<bool> in(a->child()->schema().size(), false);
  for (const auto& k : a->group_keys) MarkColumnsRead(k.get(), &in);
  for (const auto& call : a->aggs) {
    for (const auto& arg : call.args) MarkColumnsRead(arg.get(), &in);
    MarkColumnsRead(call.filter.get(), &in);
    for (const auto& k : call.order_by) MarkColumnsRead(k.expr.get(), &in);
  }
  const ColumnMap below = Prune(a->children()[0], std::move(in));
  for (auto& k : a->group_keys) Renumber(k.get(), below);
  for (auto& call : a->aggs) {
    for (auto& arg : call.args) Renumber(arg.get(), below);
    Renumber(call.filter.get(), below);
    for (auto& k : call.order_by) Renumber(k.expr.get(), below);
  }
  return map;
}

ColumnMap PruneJoin(JoinNode* j, const std::vector<bool>& needed) {
  const size_t lw = j->child(0)->schema().size(), rw = j->child(1)->schema().size();
  std::vector<bool> joined(lw + rw, false);
  for (size_t i = 0; i < needed.size(); i++) joined[i] = needed[i];
  MarkColumnsRead(j->condition.get(), &joined);
  std::vector<bool> left(joined.begin(), joined.begin() + static_cast<std::ptrdiff_t>(lw));
  std::vector<bool> right(joined.begin() + static_cast<std::ptrdiff_t>(lw), joined.end());
  for (const auto& k : j->left_keys) MarkColumnsRead(k.get(), &left);
  for (const auto& k : j->right_keys) MarkColumnsRead(k.get(), &right);
  MarkColumnsRead(j->asof_left.get(), &left);
  MarkColumnsRead(j->asof_right.get(), &right);
  const ColumnMap left_map = Prune(j->children()[0], std::move(left));
  const ColumnMap right_map = Prune(j->children()[1], std::move(right));
  const int new_lw = static_cast<int>(j->child(0)->schema().size());
  ColumnMap both = left_map;
  for (int r : right_map) both.push_back(r < 0 ? -1 : new_lw + r);
  Renumber(j->condition.get(), both);
  for (auto& k : j->left_keys) Renumber(k.get(), left_map);
  for (auto& k : j->right_keys) Renumber(k.get(), right_map);
  if (j->asof_left) Renumber(j->asof_left.get(), left_map);
  if (j->asof_right) Renumber(j->asof_right.get(), right_map);
  const bool left_only = j->type == JoinType::kSemi || j->type == JoinType::kAnti;
  ColumnMap map = left_only ? left_map : both;
  j->mutable_schema() = Kept(j->schema(), map);
  return map;
}

ColumnMap PruneWindow(WindowNode* w, const std::vector<bool>& needed) {
  const size_t width = w->child()->schema().size();
  std::vector<bool> in(needed.begin(), needed.begin() + static_cast<std::ptrdiff_t>(width));
  auto each_expression = [&](auto&& fn) {
    for (auto& call : w->calls) {
      for (auto& a : call.args) fn(a.get());
      fn(call.filter.get());
      for (auto& p : call.partition_by) fn(p.get());
      for (auto& k : call.order_by) fn(k.expr.get());
      for (WindowFrameBound* b : {&call.frame.start, &call.frame.end}) {
        fn(b->offset.get());
        fn(b->range_value.get());
      }
    }
  };
  each_expression([&](const Expression* e) { MarkColumnsRead(e, &in); });
  ColumnMap map = Prune(w->children()[0], std::move(in));
  each_expression([&](Expression* e) { Renumber(e, map); });
  const int new_width = static_cast<int>(w->child()->schema().size());
  for (size_t i = 0; i < w->calls.size(); i++) map.push_back(new_width + static_cast<int>(i));
  w->mutable_schema() = Kept(w->schema(), map);
  return map;
}

// A filter reads its input's columns as well as passing them on; those
// only it reads are dropped by a projection above it (over a scan, that
// projection is the only one).
ColumnMap PruneFilter(PlanPtr& node, const std::vector<bool>& needed) {
  auto* f = static_cast<FilterNode*>(node.get());
  std::vector<bool> in = needed;
  MarkColumnsRead(f->predicate.get(), &in);
  const ColumnMap below = f->child()->kind() == PlanNode::Kind::kScan ? Identity(in.size())
                                                                      : Prune(f->children()[0], std::move(in));
  Renumber(f->predicate.get(), below);
  f->mutable_schema() = f->child()->schema();
  return Narrow(node, needed, below);
}

// `needed`: which of the node's output columns its ancestors read.
ColumnMap Prune(PlanPtr& node, std::vector<bool> needed) {
  switch (node->kind()) {
    case PlanNode::Kind::kScan: return Narrow(node, needed, Identity(needed.size()));
    case PlanNode::Kind::kFilter: return PruneFilter(node, needed);
    case PlanNode::Kind::kSort: {
      auto* s = static_cast<SortNode*>(node.get());
      for (const auto& k : s->keys) MarkColumnsRead(k.expr.get(), &needed);
      ColumnMap map = Prune(s->children()[0], std::move(needed));
      for (auto& k : s->keys) Renumber(k.expr.get(), map);
      s->mutable_schema() = s->child()->schema();
      return map;
    }
    case PlanNode::Kind::kLimit: {
      ColumnMap map = Prune(node->children()[0], std::move(needed));
      node->mutable_schema() = node->child()->schema();
      return map;
    }
    case PlanNode::Kind::kProject: return PruneProject(static_cast<ProjectNode*>(node.get()), needed);
    case PlanNode::Kind::kAggregate: return PruneAggregate(static_cast<AggregateNode*>(node.get()), needed);
    case PlanNode::Kind::kJoin: return PruneJoin(static_cast<JoinNode*>(node.get()), needed);
    case PlanNode::Kind::kWindow: return PruneWindow(static_cast<WindowNode*>(node.get()), needed);
    default:
      // Reads every column of its inputs, which therefore keep their layout.
      for (auto& c : node->children()) {
        const size_t width = c->schema().size();
        if (Prune(c, std::vector<bool>(width, true)) != Identity(width))
          throw SqlError(sqlstate::kInternalError, "column pruning changed a fully read input");
      }
      return Identity(node->schema().size());
  }
}

}  // namespace

void MarkColumnsRead(const Expression* e, std::vector<bool>* read) {
  if (!e) return;
  if (HasSubquery(*e)) {
    read->assign(read->size(), true);
    return;
  }
  std::vector<int> cols;
  CollectColumns(*e, &cols);
  for (int c : cols)
    if (c >= 0 && static_cast<size_t>(c) < read->size()) (*read)[static_cast<size_t>(c)] = true;
}

PlanPtr PruneColumns(PlanPtr plan) {
  const size_t width = plan->schema().size();
  if (Prune(plan, std::vector<bool>(width, true)) != Identity(width))
    throw SqlError(sqlstate::kInternalError, "column pruning changed a plan's output");
  return plan;
}

}  // namespace freshet
