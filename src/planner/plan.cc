#include "planner/plan.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

std::vector<DataType> PlanNode::types() const {
  std::vector<DataType> out;
  for (const auto& c : schema_) out.push_back(c.type);
  return out;
}

namespace {
void ExplainInto(const PlanNode& node, int depth, std::vector<std::string>* out) {
  out->push_back(std::string(depth * 2, ' ') + (depth ? "└─" : "") + node.Describe());
  for (const auto& c : node.children()) ExplainInto(*c, depth + 1, out);
}

std::string JoinExprs(const std::vector<ExprPtr>& exprs) {
  std::string s;
  for (const auto& e : exprs) s += (s.empty() ? "" : ", ") + e->ToString();
  return s;
}
}  // namespace

std::vector<std::string> ExplainPlan(const PlanNode& root) {
  std::vector<std::string> out;
  ExplainInto(root, 0, &out);
  return out;
}

std::string ScanNode::Describe() const {
  std::string cols;
  for (const auto& c : schema_) cols += (cols.empty() ? "" : ", ") + c.name;
  std::string out = fmt::format("Scan {}{} [{}]", table->name, index ? " using " + index->name : "", cols);
  // The conditions the table's (or index's) engine is given to skip rows
  // with (a key lookup or range when they pin the key); an index's
  // expression is named by its text.
  const IndexChoice* read = nullptr;
  for (const auto& choice : indexes)
    if (index && choice.index == index) read = &choice;
  auto column_name = [&](int column) -> std::string {
    size_t held = read ? read->table_columns : schema_.size();
    if (column < 0) return "?";
    if (static_cast<size_t>(column) < held && static_cast<size_t>(column) < schema_.size()) return schema_[column].name;
    size_t j = static_cast<size_t>(column) - held;
    return read && j < read->expressions.size() ? read->expressions[j]->ToString() : "?";
  };
  std::string conditions;
  for (const auto& p : read ? index_predicates : predicates) {
    std::string column = column_name(p.column);
    std::string text;
    if (p.op == ColumnPredicate::Op::kIn) {
      if (p.array) {
        text = column + " = ANY(" + p.array->ToString() + ")";
      } else {
        std::string items;
        for (const auto& v : p.list) items += (items.empty() ? "" : ", ") + v.ToString();
        for (const auto& e : p.items) items += (items.empty() ? "" : ", ") + e->ToString();
        text = column + " IN (" + items + ")";
      }
    } else {
      text = column + " " + ColumnPredicateOpName(p.op) + " " + (p.value ? p.value->ToString() : "?");
    }
    conditions += (conditions.empty() ? "" : " AND ") + text;
  }
  if (!conditions.empty()) out += " storage filter: " + conditions;
  return out;
}

std::string ValuesNode::Describe() const { return fmt::format("Values ({} rows)", rows.size()); }

FilterNode::FilterNode(PlanPtr child, ExprPtr pred) : PlanNode(Kind::kFilter, child->schema()), predicate(std::move(pred)) {
  children_.push_back(std::move(child));
}

ProjectNode::ProjectNode(PlanPtr child, std::vector<ExprPtr> exprs, std::vector<PlanColumn> schema)
    : PlanNode(Kind::kProject, std::move(schema)), exprs(std::move(exprs)) {
  children_.push_back(std::move(child));
}

std::string ProjectNode::Describe() const { return "Project " + JoinExprs(exprs); }

std::string AggregateCall::ToString() const {
  if (sig.kind == AggKind::kCountStar) return "count(*)";
  const std::string name = AggregateName(sig.kind);
  return name + "(" + (distinct ? "DISTINCT " : "") + JoinExprs(args) + ")" +
         (filter ? " FILTER (WHERE " + filter->ToString() + ")" : "");
}

AggregateNode::AggregateNode(PlanPtr child, std::vector<ExprPtr> group_keys, std::vector<AggregateCall> aggs,
                             std::vector<PlanColumn> schema)
    : PlanNode(Kind::kAggregate, std::move(schema)), group_keys(std::move(group_keys)), aggs(std::move(aggs)) {
  children_.push_back(std::move(child));
}

std::string AggregateNode::Describe() const {
  std::string a;
  for (const auto& c : aggs) a += (a.empty() ? "" : ", ") + c.ToString();
  return fmt::format("HashAggregate group by [{}] aggs [{}]", JoinExprs(group_keys), a);
}

const char* JoinTypeName(JoinType t) {
  switch (t) {
    case JoinType::kInner: return "Inner";
    case JoinType::kLeft: return "LeftOuter";
    case JoinType::kRight: return "RightOuter";
    case JoinType::kFull: return "FullOuter";
    case JoinType::kSemi: return "LeftSemi";
    case JoinType::kAnti: return "LeftAnti";
  }
  return "?";
}

namespace {
std::vector<PlanColumn> JoinSchema(JoinType type, const PlanNode& l, const PlanNode& r) {
  std::vector<PlanColumn> s = l.schema();
  if (type == JoinType::kSemi || type == JoinType::kAnti) return s;
  s.insert(s.end(), r.schema().begin(), r.schema().end());
  return s;
}
}  // namespace

JoinNode::JoinNode(JoinType type, PlanPtr left, PlanPtr right, ExprPtr condition)
    : PlanNode(Kind::kJoin, JoinSchema(type, *left, *right)), type(type), condition(std::move(condition)) {
  children_.push_back(std::move(left));
  children_.push_back(std::move(right));
}

ChangelogNode::ChangelogNode(PlanPtr child) : PlanNode(Kind::kChangelog, child->schema()) {
  schema_.push_back(PlanColumn{"changelog_op", DataType::Int16(), ""});
  PlanColumn row_id{"_changelog_row_id", DataType::Int64(), ""};
  row_id.hidden = true;
  schema_.push_back(row_id);
  children_.push_back(std::move(child));
}

std::string JoinNode::Describe() const {
  std::string keys;
  for (size_t i = 0; i < left_keys.size(); i++)
    keys += (i ? ", " : "") + left_keys[i]->ToString() + " = " + right_keys[i]->ToString();
  if (asof)
    return fmt::format("AsOfJoin {} keys [{}] nearest {} {}{}", JoinTypeName(type), keys,
                       asof_greatest ? "greatest" : "least", asof_right->ToString(),
                       condition ? " condition " + condition->ToString() : "");
  if (!left_keys.empty())
    return fmt::format("HashJoin {} keys [{}]{}", JoinTypeName(type), keys,
                       condition ? " condition " + condition->ToString() : "");
  return fmt::format("NestedLoopJoin {}{}", JoinTypeName(type), condition ? " condition " + condition->ToString() : "");
}

LateralJoinNode::LateralJoinNode(JoinType type, PlanPtr left, PlanPtr right, ExprPtr condition)
    : PlanNode(Kind::kLateralJoin, JoinSchema(type, *left, *right)), type(type), condition(std::move(condition)) {
  children_.push_back(std::move(left));
  children_.push_back(std::move(right));
}

std::string LateralJoinNode::Describe() const {
  return fmt::format("LateralJoin {}{}", JoinTypeName(type), condition ? " condition " + condition->ToString() : "");
}

SortNode::SortNode(PlanPtr child, std::vector<SortKey> keys) : PlanNode(Kind::kSort, child->schema()), keys(std::move(keys)) {
  children_.push_back(std::move(child));
}

std::string SortNode::Describe() const {
  std::string s;
  for (const auto& k : keys)
    s += (s.empty() ? "" : ", ") + k.expr->ToString() + (k.descending ? " DESC" : "") + (k.nulls_first ? " NULLS FIRST" : "");
  return "Sort " + s;
}

LimitNode::LimitNode(PlanPtr child, int64_t limit, int64_t offset)
    : PlanNode(Kind::kLimit, child->schema()), limit(limit), offset(offset) {
  children_.push_back(std::move(child));
}

std::string LimitNode::Describe() const {
  return fmt::format("Limit {} offset {}{}", limit_value ? limit_value->ToString() : std::to_string(limit),
                     offset_value ? offset_value->ToString() : std::to_string(offset), with_ties ? " with ties" : "");
}

int64_t LimitArgument(const Value& v, bool is_limit) {
  if (v.is_null()) return is_limit ? -1 : 0;
  if (!v.type().IsInteger())
    throw SqlError(sqlstate::kDatatypeMismatch, fmt::format("argument of {} must be type bigint", is_limit ? "LIMIT" : "OFFSET"));
  if (v.int_value() < 0)
    throw SqlError(is_limit ? "2201W" : "2201X", fmt::format("{} must not be negative", is_limit ? "LIMIT" : "OFFSET"));
  return v.int_value();
}

DistinctNode::DistinctNode(PlanPtr child) : PlanNode(Kind::kDistinct, child->schema()) {
  children_.push_back(std::move(child));
}

SetOpNode::SetOpNode(SetOpKind op, bool all, PlanPtr left, PlanPtr right)
    : PlanNode(Kind::kSetOp, left->schema()), op(op), all(all) {
  children_.push_back(std::move(left));
  children_.push_back(std::move(right));
}

std::string SetOpNode::Describe() const {
  const char* name = op == SetOpKind::kUnion ? "Union" : op == SetOpKind::kIntersect ? "Intersect" : "Except";
  return std::string(name) + (all ? " All" : "");
}

std::string HopNode::Describe() const {
  return fmt::format("Hop {} slide {}us size {}us", child()->schema()[time_column].name, slide, size);
}

std::string WindowFrame::ToString() const {
  if (mode == Mode::kRange && start.kind == WindowFrameBound::Kind::kUnboundedPreceding &&
      end.kind == WindowFrameBound::Kind::kCurrentRow && exclude == Exclude::kNone)
    return "";
  auto bound = [](const WindowFrameBound& b) -> std::string {
    switch (b.kind) {
      case WindowFrameBound::Kind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
      case WindowFrameBound::Kind::kPreceding: return b.offset->ToString() + " PRECEDING";
      case WindowFrameBound::Kind::kCurrentRow: return "CURRENT ROW";
      case WindowFrameBound::Kind::kFollowing: return b.offset->ToString() + " FOLLOWING";
      case WindowFrameBound::Kind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
    }
    return "?";
  };
  std::string s = mode == Mode::kRange ? "RANGE" : mode == Mode::kRows ? "ROWS" : "GROUPS";
  s += " BETWEEN " + bound(start) + " AND " + bound(end);
  if (exclude == Exclude::kCurrentRow) s += " EXCLUDE CURRENT ROW";
  if (exclude == Exclude::kGroup) s += " EXCLUDE GROUP";
  if (exclude == Exclude::kTies) s += " EXCLUDE TIES";
  return s;
}

std::string WindowCall::ToString() const {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); i++) s += (i ? ", " : "") + args[i]->ToString();
  if (kind == WindowFunctionKind::kAggregate && agg.kind == AggKind::kCountStar) s += "*";
  s += ")";
  if (filter) s += " FILTER (WHERE " + filter->ToString() + ")";
  s += " OVER (";
  if (!partition_by.empty()) {
    s += "PARTITION BY ";
    for (size_t i = 0; i < partition_by.size(); i++) s += (i ? ", " : "") + partition_by[i]->ToString();
  }
  if (!order_by.empty()) {
    s += partition_by.empty() ? "ORDER BY " : " ORDER BY ";
    for (size_t i = 0; i < order_by.size(); i++)
      s += (i ? ", " : "") + order_by[i].expr->ToString() + (order_by[i].descending ? " DESC" : "");
  }
  std::string frame_text = frame.ToString();
  if (!frame_text.empty()) s += (partition_by.empty() && order_by.empty() ? "" : " ") + frame_text;
  return s + ")";
}

WindowCall CloneWindowCall(const WindowCall& w) {
  auto bound = [](const WindowFrameBound& b) {
    return WindowFrameBound{b.kind, b.offset ? b.offset->Clone() : nullptr, b.range_value ? b.range_value->Clone() : nullptr};
  };
  WindowCall c;
  c.kind = w.kind;
  for (const auto& a : w.args) c.args.push_back(a->Clone());
  c.agg = w.agg;
  c.filter = w.filter ? w.filter->Clone() : nullptr;
  c.type = w.type;
  for (const auto& p : w.partition_by) c.partition_by.push_back(p->Clone());
  for (const auto& k : w.order_by) c.order_by.push_back({k.expr->Clone(), k.descending, k.nulls_first});
  c.frame.mode = w.frame.mode;
  c.frame.start = bound(w.frame.start);
  c.frame.end = bound(w.frame.end);
  c.frame.exclude = w.frame.exclude;
  c.name = w.name;
  return c;
}

WindowNode::WindowNode(PlanPtr child, std::vector<WindowCall> c) : PlanNode(Kind::kWindow, child->schema()), calls(std::move(c)) {
  for (const auto& call : calls) schema_.push_back(PlanColumn{call.ToString(), call.type, ""});
  children_.push_back(std::move(child));
}

std::string WindowNode::Describe() const {
  std::string s = "Window";
  for (const auto& c : calls) s += " " + c.ToString();
  return s;
}

namespace {

std::vector<ExprPtr> CloneAll(const std::vector<ExprPtr>& exprs) {
  std::vector<ExprPtr> out;
  for (const auto& e : exprs) out.push_back(e ? e->Clone() : nullptr);
  return out;
}

ExprPtr CloneOrNull(const ExprPtr& e) { return e ? e->Clone() : nullptr; }

std::vector<SortKey> CloneKeys(const std::vector<SortKey>& keys) {
  std::vector<SortKey> out;
  for (const auto& k : keys) out.push_back({k.expr->Clone(), k.descending, k.nulls_first});
  return out;
}

ScanNode::Condition CloneCondition(const ScanNode::Condition& c) {
  ScanNode::Condition out;
  out.column = c.column;
  out.op = c.op;
  out.value = CloneOrNull(c.value);
  out.list = c.list;
  out.items = CloneAll(c.items);
  out.array = CloneOrNull(c.array);
  return out;
}

}  // namespace

PlanPtr ClonePlan(const PlanNode& node) {
  auto child = [&](size_t i) { return ClonePlan(*node.child(i)); };
  PlanPtr out;
  switch (node.kind()) {
    case PlanNode::Kind::kScan: {
      const auto& n = static_cast<const ScanNode&>(node);
      auto c = std::make_unique<ScanNode>(n.table, n.schema());
      c->used_columns = n.used_columns;
      for (const auto& p : n.predicates) c->predicates.push_back(CloneCondition(p));
      for (const auto& choice : n.indexes)
        c->indexes.push_back({choice.index, choice.table_columns, CloneAll(choice.expressions), CloneAll(choice.predicate)});
      c->index = n.index;
      for (const auto& p : n.index_predicates) c->index_predicates.push_back(CloneCondition(p));
      out = std::move(c);
      break;
    }
    case PlanNode::Kind::kSystemScan:
      out = std::make_unique<SystemScanNode>(static_cast<const SystemScanNode&>(node).name, node.schema());
      break;
    case PlanNode::Kind::kValues: {
      std::vector<std::vector<ExprPtr>> rows;
      for (const auto& r : static_cast<const ValuesNode&>(node).rows) rows.push_back(CloneAll(r));
      out = std::make_unique<ValuesNode>(node.schema(), std::move(rows));
      break;
    }
    case PlanNode::Kind::kFilter:
      out = std::make_unique<FilterNode>(child(0), static_cast<const FilterNode&>(node).predicate->Clone());
      break;
    case PlanNode::Kind::kProject:
      out = std::make_unique<ProjectNode>(child(0), CloneAll(static_cast<const ProjectNode&>(node).exprs), node.schema());
      break;
    case PlanNode::Kind::kProjectSet:
      out = std::make_unique<ProjectSetNode>(child(0), CloneAll(static_cast<const ProjectSetNode&>(node).exprs), node.schema());
      static_cast<ProjectSetNode&>(*out).ordinality = static_cast<const ProjectSetNode&>(node).ordinality;
      static_cast<ProjectSetNode&>(*out).outer = static_cast<const ProjectSetNode&>(node).outer;
      static_cast<ProjectSetNode&>(*out).outer_condition =
          CloneOrNull(static_cast<const ProjectSetNode&>(node).outer_condition);
      break;
    case PlanNode::Kind::kAggregate: {
      const auto& n = static_cast<const AggregateNode&>(node);
      std::vector<AggregateCall> aggs;
      for (const auto& a : n.aggs)
        aggs.push_back({a.sig, CloneAll(a.args), a.distinct, CloneOrNull(a.filter), CloneKeys(a.order_by)});
      out = std::make_unique<AggregateNode>(child(0), CloneAll(n.group_keys), std::move(aggs), node.schema());
      static_cast<AggregateNode&>(*out).dependent_keys_from = n.dependent_keys_from;
      break;
    }
    case PlanNode::Kind::kJoin: {
      const auto& n = static_cast<const JoinNode&>(node);
      auto c = std::make_unique<JoinNode>(n.type, child(0), child(1), CloneOrNull(n.condition));
      c->left_keys = CloneAll(n.left_keys);
      c->right_keys = CloneAll(n.right_keys);
      c->null_aware = n.null_aware;
      c->process_time = n.process_time;
      c->asof = n.asof;
      c->asof_left = CloneOrNull(n.asof_left);
      c->asof_right = CloneOrNull(n.asof_right);
      c->asof_greatest = n.asof_greatest;
      out = std::move(c);
      break;
    }
    case PlanNode::Kind::kLateralJoin: {
      const auto& n = static_cast<const LateralJoinNode&>(node);
      out = std::make_unique<LateralJoinNode>(n.type, child(0), child(1), CloneOrNull(n.condition));
      break;
    }
    case PlanNode::Kind::kSort:
      out = std::make_unique<SortNode>(child(0), CloneKeys(static_cast<const SortNode&>(node).keys));
      break;
    case PlanNode::Kind::kLimit: {
      const auto& n = static_cast<const LimitNode&>(node);
      auto c = std::make_unique<LimitNode>(child(0), n.limit, n.offset);
      c->limit_value = CloneOrNull(n.limit_value);
      c->offset_value = CloneOrNull(n.offset_value);
      c->with_ties = n.with_ties;
      out = std::move(c);
      break;
    }
    case PlanNode::Kind::kDistinct: out = std::make_unique<DistinctNode>(child(0)); break;
    case PlanNode::Kind::kSetOp: {
      const auto& n = static_cast<const SetOpNode&>(node);
      out = std::make_unique<SetOpNode>(n.op, n.all, child(0), child(1));
      break;
    }
    case PlanNode::Kind::kRecursiveUnion: {
      const auto& n = static_cast<const RecursiveUnionNode&>(node);
      out = std::make_unique<RecursiveUnionNode>(child(0), child(1), n.all, n.work_table);
      break;
    }
    case PlanNode::Kind::kChangelog: out = std::make_unique<ChangelogNode>(child(0)); break;
    case PlanNode::Kind::kWorkTableScan:
      out = std::make_unique<WorkTableScanNode>(static_cast<const WorkTableScanNode&>(node).work_table, node.schema());
      break;
    case PlanNode::Kind::kTableFunction: {
      const auto& n = static_cast<const TableFunctionNode&>(node);
      auto c = std::make_unique<TableFunctionNode>(n.name, CloneAll(n.args), node.schema());
      c->with_ordinality = n.with_ordinality;
      c->value_type = n.value_type;
      out = std::move(c);
      break;
    }
    case PlanNode::Kind::kWindow: {
      const auto& n = static_cast<const WindowNode&>(node);
      std::vector<WindowCall> calls;
      for (const auto& w : n.calls) calls.push_back(CloneWindowCall(w));
      auto c = std::make_unique<WindowNode>(child(0), std::move(calls));
      c->first_per_partition = n.first_per_partition;
      out = std::move(c);
      break;
    }
    case PlanNode::Kind::kHop: {
      const auto& n = static_cast<const HopNode&>(node);
      out = std::make_unique<HopNode>(child(0), n.time_column, n.slide, n.size, node.schema());
      break;
    }
    case PlanNode::Kind::kInsert:
    case PlanNode::Kind::kUpdate:
    case PlanNode::Kind::kDelete:
      throw SqlError(sqlstate::kInternalError, "cannot copy a data-modifying plan");
  }
  out->mutable_schema() = node.schema();
  return out;
}

}  // namespace freshet
