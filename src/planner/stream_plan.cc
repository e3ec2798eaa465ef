// The stream plan's nodes (their schemas, keys and descriptions) and
// EXPLAIN; the planner is in stream_planner.cc, the checker in
// stream_plan_check.cc.
#include "planner/stream_plan.h"

#include "expr/monotonic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <set>

#include "common/error.h"
#include "expr/function_registry.h"
#include "planner/optimizer.h"
#include "planner/subquery.h"

#include "planner/stream_plan_internal.h"

namespace freshet {

namespace stream_plan_detail {

std::vector<PlanColumn> CopySchema(const StreamNode& n) { return n.schema(); }

bool IsSubset(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) return false;
  return true;
}

std::string ColumnList(const std::vector<PlanColumn>& schema, const std::vector<int>& cols) {
  std::vector<std::string> names;
  for (int c : cols) names.push_back(schema[c].name);
  return fmt::format("[{}]", fmt::join(names, ", "));
}

[[noreturn]] void Unsupported(const std::string& what) {
  throw SqlError(sqlstate::kFeatureNotSupported,
                 fmt::format("{} in a materialized view is not supported yet", what));
}

bool IsNowFunction(const Expression& e) {
  if (e.kind() != Expression::Kind::kFunction) return false;
  const auto& name = static_cast<const FunctionExpr&>(e).function()->name;
  return name == "now" || name == "current_timestamp" || name == "transaction_timestamp" ||
         name == "statement_timestamp" || name == "localtimestamp" || name == "current_date";
}

bool ReadsNow(const Expression& e) {
  if (IsNowFunction(e)) return true;
  for (const auto& c : e.children())
    if (ReadsNow(*c)) return true;
  return false;
}

// The conjuncts of an AND tree.
void SplitConjuncts(const Expression& e, std::vector<const Expression*>* out) {
  if (e.kind() == Expression::Kind::kAnd) {
    for (const auto& c : e.children()) SplitConjuncts(*c, out);
    return;
  }
  out->push_back(&e);
}

// Rejects what a stream cannot evaluate row by row. With `allow_now`, now()
// (and its relatives) pass: a temporal filter evaluates them.
void CheckStreamable(const Expression& e, bool allow_now) {
  if (e.kind() == Expression::Kind::kSubquery) {
    // What subquery_unnesting.h could not turn into a join.
    if (static_cast<const SubqueryExpr&>(e).subquery_kind == SubqueryKind::kScalar)
      Unsupported("this scalar subquery (one that may return more than one row for an outer row, or that reads a query "
                  "two levels out or both sides of an outer join's ON; aggregates, lookups by a unique key and LIMIT 1 "
                  "are supported)");
    Unsupported("a subquery here (one that reads a query two levels out or both sides of an outer join's ON, or whose "
                "correlation cannot be turned into a join)");
  }
  if (e.kind() == Expression::Kind::kParameter) Unsupported("a parameter");
  if (IsNowFunction(e)) {
    if (!allow_now)
      Unsupported(static_cast<const FunctionExpr&>(e).function()->name + "() outside a temporal filter");
  } else if (e.kind() == Expression::Kind::kFunction) {
    const auto& name = static_cast<const FunctionExpr&>(e).function()->name;
    if (IsVolatileFunction(name)) Unsupported(name + "()");
  }
  if (dynamic_cast<const OuterRefExpr*>(&e)) Unsupported("a correlated subquery");
  for (const auto& c : e.children()) CheckStreamable(*c, allow_now);
}

}  // namespace stream_plan_detail

using namespace stream_plan_detail;

InternalTableSpec BackfillProgressTable(ObjectId upstream) {
  InternalTableSpec spec;
  spec.kind = "backfill";
  spec.columns = {{"vnode", DataType::Int32()},
                  {"position", DataType::Varchar()},
                  {"finished", DataType::Boolean()},
                  {"row_count", DataType::Int64()}};
  spec.pk = {0};
  spec.upstream = upstream;
  return spec;
}

InternalTableSpec CrossDbProgressTable(ObjectId upstream) {
  InternalTableSpec spec = BackfillProgressTable(upstream);
  spec.kind = "crossdb";
  spec.columns.insert(spec.columns.begin() + 1, ColumnCatalog{"epoch", DataType::Int64()});
  return spec;
}

InternalTableSpec SourceOffsetsTable() {
  InternalTableSpec spec;
  spec.kind = "source";
  spec.columns = {{"split", DataType::Int32()}, {"offset", DataType::Int64()}, {"row_count", DataType::Int64()}};
  spec.pk = {0};
  return spec;
}

std::string Distribution::ToString() const {
  switch (kind) {
    case Kind::kSingle: return "Single";
    case Kind::kAny: return "Any";
    case Kind::kHash: return fmt::format("Hash({})", fmt::join(keys, ", "));
  }
  return "?";
}

std::vector<DataType> StreamNode::types() const {
  std::vector<DataType> t;
  for (const auto& c : schema_) t.push_back(c.type);
  return t;
}

StreamTableScanNode::StreamTableScanNode(TableRef t) : StreamNode(Kind::kTableScan, {}), table(std::move(t)) {
  for (const auto& c : table->columns) schema_.push_back(PlanColumn{c.name, c.type, table->name, c.hidden});
  stream_key = table->pk;
  distribution = table->dist_key.empty() ? Distribution::Single() : Distribution::Hash(table->dist_key);
  append_only = table->append_only;
}

std::string StreamTableScanNode::Describe() const {
  std::vector<std::string> names;
  for (const auto& c : schema_) names.push_back(c.name);
  return fmt::format("{} {{ table: {}, columns: [{}], stream_key: {}{} }}",
                     cross_database ? "StreamCrossDbScan" : "StreamTableScan", table->name,
                     fmt::join(names, ", "), ColumnList(schema_, stream_key),
                     backfill_level > 0 ? fmt::format(", backfill_level: {}", backfill_level) : "");
}

StreamSourceNode::StreamSourceNode(TableRef t) : StreamNode(Kind::kSource, {}), source(std::move(t)) {
  for (const auto& c : source->columns) schema_.push_back(PlanColumn{c.name, c.type, source->name, c.hidden});
  stream_key = source->pk;
  distribution = Distribution::Any();
  append_only = true;
}

std::string StreamSourceNode::Describe() const {
  auto it = source->connector_options.find("connector");
  return fmt::format("StreamSource {{ source: {}, connector: {} }}", source->name,
                     it == source->connector_options.end() ? "?" : it->second);
}

StreamFilterNode::StreamFilterNode(StreamNodePtr input, ExprPtr pred)
    : StreamNode(Kind::kFilter, CopySchema(*input)), predicate(std::move(pred)) {
  stream_key = input->stream_key;
  distribution = input->distribution;
  append_only = input->append_only;
  inputs_.push_back(std::move(input));
}

std::string StreamFilterNode::Describe() const {
  return fmt::format("StreamFilter {{ predicate: {} }}", predicate->ToString());
}

StreamTemporalFilterNode::StreamTemporalFilterNode(StreamNodePtr input, ExprPtr pred)
    : StreamNode(Kind::kTemporalFilter, CopySchema(*input)), predicate(std::move(pred)) {
  stream_key = input->stream_key;
  distribution = input->distribution;
  inputs_.push_back(std::move(input));
}

std::string StreamTemporalFilterNode::Describe() const {
  return fmt::format("StreamTemporalFilter {{ predicate: {} }}", predicate->ToString());
}

namespace {

// A projection's stream key and distribution: the input's, through plain
// column references (-1 in the key for a column not passed on).
void KeysThroughColumns(const StreamNode& input, const std::vector<ExprPtr>& exprs, StreamNode* out) {
  auto map_col = [&](int c) {
    for (size_t i = 0; i < exprs.size(); i++) {
      if (exprs[i]->kind() == Expression::Kind::kColumnRef && static_cast<ColumnRefExpr&>(*exprs[i]).index() == c)
        return int(i);
    }
    return -1;
  };
  for (int k : input.stream_key) out->stream_key.push_back(map_col(k));
  const Distribution& d = input.distribution;
  out->distribution = Distribution::Any();
  if (d.kind == Distribution::Kind::kSingle) {
    out->distribution = d;
  } else if (d.kind == Distribution::Kind::kHash) {
    std::vector<int> keys;
    for (int k : d.keys) keys.push_back(map_col(k));
    if (std::find(keys.begin(), keys.end(), -1) == keys.end()) out->distribution = Distribution::Hash(keys);
  }
  out->append_only = input.append_only;
}

}  // namespace

StreamProjectNode::StreamProjectNode(StreamNodePtr input, std::vector<ExprPtr> e, std::vector<PlanColumn> schema)
    : StreamNode(Kind::kProject, std::move(schema)), exprs(std::move(e)) {
  KeysThroughColumns(*input, exprs, this);
  inputs_.push_back(std::move(input));
}

StreamProjectSetNode::StreamProjectSetNode(StreamNodePtr input, std::vector<ExprPtr> e, std::vector<PlanColumn> schema)
    : StreamNode(Kind::kProjectSet, std::move(schema)), exprs(std::move(e)) {
  schema_.push_back(PlanColumn{"_projected_row_id", DataType::Int64(), "", true});
  KeysThroughColumns(*input, exprs, this);
  stream_key.push_back(int(exprs.size()));
  inputs_.push_back(std::move(input));
}

StreamValuesNode::StreamValuesNode(std::vector<PlanColumn> schema, std::vector<std::vector<ExprPtr>> r)
    : StreamNode(Kind::kValues, std::move(schema)), rows(std::move(r)) {
  schema_.push_back(PlanColumn{"_row", DataType::Int64(), "", true});
  stream_key = {int(schema_.size()) - 1};
  distribution = Distribution::Single();
  append_only = true;
}

std::string StreamValuesNode::Describe() const {
  if (function.empty()) return fmt::format("StreamValues {{ rows: {} }}", rows.size());
  std::vector<std::string> args;
  for (const auto& a : function_args) args.push_back(a->ToString());
  return fmt::format("StreamValues {{ function: {}({}){} }}", function, fmt::join(args, ", "),
                     with_ordinality ? " WITH ORDINALITY" : "");
}

std::string StreamProjectSetNode::Describe() const {
  std::vector<std::string> parts;
  for (const auto& e : exprs) parts.push_back(e->ToString());
  return fmt::format("StreamProjectSet {{ exprs: [{}]{}{} }}", fmt::join(parts, ", "), outer ? ", outer" : "",
                     condition ? ", condition: " + condition->ToString() : "");
}

std::string StreamProjectNode::Describe() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < exprs.size(); i++) parts.push_back(exprs[i]->ToString());
  return fmt::format("StreamProject {{ exprs: [{}] }}", fmt::join(parts, ", "));
}

StreamHopNode::StreamHopNode(StreamNodePtr input, int tc, int64_t sl, int64_t sz, std::vector<PlanColumn> schema)
    : StreamNode(Kind::kHop, std::move(schema)), time_column(tc), slide(sl), size(sz) {
  stream_key = input->stream_key;
  stream_key.push_back(int(input->schema().size()));  // window_start
  distribution = input->distribution;
  append_only = input->append_only;
  inputs_.push_back(std::move(input));
}

StreamChangelogNode::StreamChangelogNode(StreamNodePtr input, int w) : StreamNode(Kind::kChangelog, {}), width(w) {
  schema_.assign(input->schema().begin(), input->schema().begin() + width);
  schema_.push_back(PlanColumn{"changelog_op", DataType::Int16(), ""});
  PlanColumn row_id{"_changelog_row_id", DataType::Int64(), ""};
  row_id.hidden = true;
  schema_.push_back(row_id);
  stream_key = {width + 1};
  const Distribution& in = input->distribution;
  const bool kept = in.kind == Distribution::Kind::kSingle ||
                    (in.kind == Distribution::Kind::kHash &&
                     std::all_of(in.keys.begin(), in.keys.end(), [&](int k) { return k < width; }));
  distribution = kept ? in : Distribution::Any();
  append_only = true;
  inputs_.push_back(std::move(input));
}

std::string StreamHopNode::Describe() const {
  return fmt::format("StreamHopWindow {{ time_col: {}, slide: {}us, size: {}us }}", schema_[time_column].name, slide, size);
}

std::string StreamAggCall::ToString(const std::vector<PlanColumn>& input) const {
  std::string s = AggregateName(sig.kind);
  s += "(";
  if (distinct) s += "distinct ";
  if (sig.kind == AggKind::kCountStar) s += "*";
  for (size_t i = 0; i < args.size(); i++) s += (i ? ", " : "") + input[args[i]].name;
  if (!order_by.empty()) {
    s += " order by ";
    for (size_t i = 0; i < order_by.size(); i++)
      s += (i ? ", " : "") + input[order_by[i].column].name + (order_by[i].descending ? " desc" : "");
  }
  s += ")";
  if (filter >= 0) s += " filter(where " + input[filter].name + ")";
  return s;
}

StreamHashAggNode::StreamHashAggNode(StreamNodePtr input, std::vector<int> keys, std::vector<StreamAggCall> c,
                                     std::vector<PlanColumn> schema)
    : StreamNode(Kind::kHashAgg, std::move(schema)), group_keys(std::move(keys)), calls(std::move(c)) {
  for (size_t i = 0; i < group_keys.size(); i++) stream_key.push_back(int(i));
  distribution = group_keys.empty() ? Distribution::Single() : Distribution::Hash(stream_key);
  input_stream_key = input->stream_key;
  // DISTINCT (groups without aggregates) over an append-only input: a group,
  // once there, never changes or goes away, so only inserts come out.
  append_only = input->append_only && calls.empty() && !group_keys.empty();
  inputs_.push_back(std::move(input));
}

std::string StreamHashAggNode::Describe() const {
  std::vector<std::string> parts;
  for (const auto& c : calls) parts.push_back(c.ToString(input()->schema()));
  if (group_keys.empty()) return fmt::format("StreamSimpleAgg {{ aggs: [{}] }}", fmt::join(parts, ", "));
  return fmt::format("StreamHashAgg {{ group_key: {}, aggs: [{}]{} }}", ColumnList(input()->schema(), group_keys),
                     fmt::join(parts, ", "),
                     window_column < 0            ? ""
                     : emit_on_window_close ? ", emit on window close: " + ColumnList(input()->schema(), {window_column})
                                            : ", state cleaned by watermark: " + ColumnList(input()->schema(), {window_column}));
}

StreamHashJoinNode::StreamHashJoinNode(JoinType t, StreamNodePtr left, StreamNodePtr right, std::vector<int> lk,
                                       std::vector<int> rk, ExprPtr cond)
    : StreamNode(Kind::kHashJoin, {}), type(t), left_keys(std::move(lk)), right_keys(std::move(rk)),
      condition(std::move(cond)) {
  const int nl = int(left->schema().size());
  const bool filtering = t == JoinType::kSemi || t == JoinType::kAnti;  // the left's columns only
  schema_ = left->schema();
  if (!filtering)
    for (const auto& c : right->schema()) schema_.push_back(c);
  auto add_key = [&](int c) {
    if (std::find(stream_key.begin(), stream_key.end(), c) == stream_key.end()) stream_key.push_back(c);
  };
  for (int k : left->stream_key) add_key(k);
  if (!filtering)
    for (int k : right->stream_key) add_key(nl + k);
  for (int k : left_keys) add_key(k);
  if (!filtering)
    for (int k : right_keys) add_key(nl + k);
  std::vector<int> rkeys;
  for (int k : right_keys) rkeys.push_back(nl + k);
  if (left_keys.empty()) distribution = Distribution::Single();
  else if (type != JoinType::kRight && type != JoinType::kFull) distribution = Distribution::Hash(left_keys);
  else if (type == JoinType::kRight) distribution = Distribution::Hash(rkeys);
  else distribution = Distribution::Any();
  append_only = (type == JoinType::kInner || type == JoinType::kSemi) && left->append_only && right->append_only;
  inputs_.push_back(std::move(left));
  inputs_.push_back(std::move(right));
}

std::string StreamHashJoinNode::Describe() const {
  std::vector<std::string> eq;
  const auto& l = input(0)->schema();
  const auto& r = input(1)->schema();
  for (size_t i = 0; i < left_keys.size(); i++) eq.push_back(l[left_keys[i]].name + " = " + r[right_keys[i]].name);
  // State cleaning: which side's rows a watermark of the other expires.
  std::vector<std::string> clean;
  for (const auto& c : cleanings)
    clean.push_back(fmt::format("{} rows with {} below the watermark of {} as {}", c.side == 0 ? "left" : "right",
                                c.key->ToString(), (c.side == 0 ? r : l)[c.other_column].name, c.bound->ToString()));
  if (asof)
    return fmt::format("StreamAsOfJoin {{ type: {}, predicate: [{}], nearest: {} {}{} }}", JoinTypeName(type),
                       fmt::join(eq, " AND "), asof_greatest ? "greatest" : "least", r[asof_right_value].name,
                       condition ? ", condition: " + condition->ToString() : "");
  return fmt::format("{} {{ type: {}, predicate: [{}]{}{} }}", process_time ? "StreamTemporalJoin" : "StreamHashJoin",
                     JoinTypeName(type), fmt::join(eq, " AND "),
                     condition ? ", condition: " + condition->ToString() : "",
                     clean.empty() ? "" : ", clean: [" + fmt::format("{}", fmt::join(clean, "; ")) + "]");
}

StreamUnionNode::StreamUnionNode(std::vector<StreamNodePtr> in, std::vector<PlanColumn> schema, std::vector<int> key)
    : StreamNode(Kind::kUnion, std::move(schema)) {
  stream_key = std::move(key);
  distribution = Distribution::Hash(stream_key);
  append_only = true;
  for (auto& i : in) {
    append_only &= i->append_only;
    inputs_.push_back(std::move(i));
  }
}

StreamDynamicFilterNode::StreamDynamicFilterNode(StreamNodePtr left, StreamNodePtr right, int value, ExprPtr cmp)
    : StreamNode(Kind::kDynamicFilter, CopySchema(*left)), value_column(value), compare(std::move(cmp)) {
  stream_key = left->stream_key;
  distribution = Distribution::Single();
  inputs_.push_back(std::move(left));
  inputs_.push_back(std::move(right));
}

std::string StreamDynamicFilterNode::Describe() const {
  return fmt::format("StreamDynamicFilter {{ value: {}, compare: {} }}", schema_[value_column].name, compare->ToString());
}

namespace {

// A node over partitions (group top-N, over-window): hashed by the partition
// columns (one actor without), which join the input's stream key, so that a
// row moving to another partition (another actor) is another output row.
void KeyedByPartition(const std::vector<int>& partition, const StreamNode& input, StreamNode* out) {
  out->stream_key = partition;
  for (int k : input.stream_key)
    if (std::find(out->stream_key.begin(), out->stream_key.end(), k) == out->stream_key.end()) out->stream_key.push_back(k);
  out->distribution = partition.empty() ? Distribution::Single() : Distribution::Hash(partition);
}

}  // namespace

StreamOverWindowNode::StreamOverWindowNode(StreamNodePtr input, std::vector<int> p, std::vector<WindowCall> c)
    : StreamNode(Kind::kOverWindow, CopySchema(*input)), partition(std::move(p)), calls(std::move(c)) {
  for (const auto& call : calls) schema_.push_back(PlanColumn{call.ToString(), call.type, "", false});
  KeyedByPartition(partition, *input, this);
  input_stream_key = input->stream_key;
  inputs_.push_back(std::move(input));
}

std::string StreamOverWindowNode::Describe() const {
  std::vector<std::string> calls_text;
  for (const auto& c : calls) calls_text.push_back(c.ToString());
  return fmt::format("StreamOverWindow {{ partition_by: {}, calls: [{}]{} }}", ColumnList(schema_, partition),
                     fmt::join(calls_text, ", "),
                     window_column < 0 ? "" : ", emit on window close: " + ColumnList(schema_, {window_column}));
}

StreamTopNNode::StreamTopNNode(StreamNodePtr input, std::vector<StreamOrderKey> o, int64_t l, int64_t off)
    : StreamNode(Kind::kTopN, CopySchema(*input)), order(std::move(o)), limit(l), offset(off) {
  stream_key = input->stream_key;
  distribution = Distribution::Single();
  inputs_.push_back(std::move(input));
}

std::string StreamTopNNode::Describe() const {
  std::vector<std::string> keys;
  for (const auto& k : order)
    keys.push_back(schema_[k.column].name + (k.descending ? " DESC" : " ASC") + (k.nulls_first ? " NULLS FIRST" : " NULLS LAST"));
  return fmt::format("StreamTopN {{ order: [{}], limit: {}, offset: {} }}", fmt::join(keys, ", "), limit, offset);
}

StreamGroupTopNNode::StreamGroupTopNNode(StreamNodePtr input, std::vector<int> p, std::vector<StreamOrderKey> o,
                                         int64_t l, bool ties)
    : StreamNode(Kind::kGroupTopN, CopySchema(*input)), partition(std::move(p)), order(std::move(o)), limit(l),
      with_ties(ties) {
  schema_.push_back(PlanColumn{with_ties ? "rank" : "row_number", DataType::Int64(), "", false});
  input_stream_key = input->stream_key;
  KeyedByPartition(partition, *input, this);
  inputs_.push_back(std::move(input));
}

std::string StreamGroupTopNNode::Describe() const {
  std::vector<std::string> keys;
  for (const auto& k : order) keys.push_back(schema_[k.column].name + (k.descending ? " DESC" : " ASC"));
  return fmt::format("StreamGroupTopN {{ partition_by: {}, order: [{}], limit: {}{}{} }}", ColumnList(schema_, partition),
                     fmt::join(keys, ", "), limit, with_ties ? ", with_ties" : "",
                     window_column < 0 ? "" : ", emit on window close: " + ColumnList(schema_, {window_column}));
}

StreamExchangeNode::StreamExchangeNode(StreamNodePtr input, Distribution to)
    : StreamNode(Kind::kExchange, CopySchema(*input)) {
  stream_key = input->stream_key;
  distribution = std::move(to);
  append_only = input->append_only;
  inputs_.push_back(std::move(input));
}

std::string StreamExchangeNode::Describe() const {
  return fmt::format("StreamExchange {{ dist: {} }}", distribution.ToString());
}

StreamMaterializeNode::StreamMaterializeNode(StreamNodePtr input) : StreamNode(Kind::kMaterialize, CopySchema(*input)) {
  stream_key = input->stream_key;
  distribution = input->distribution;
  append_only = input->append_only;
  inputs_.push_back(std::move(input));
}

std::string StreamMaterializeNode::Describe() const {
  std::vector<std::string> names;
  for (const auto& c : schema_) names.push_back(c.hidden ? c.name + "(hidden)" : c.name);
  return fmt::format("StreamMaterialize {{ columns: [{}], stream_key: {}, pk_columns: {} }}", fmt::join(names, ", "),
                     ColumnList(schema_, stream_key), ColumnList(schema_, stream_key));
}

StreamSinkNode::StreamSinkNode(StreamNodePtr input, std::string c) : StreamNode(Kind::kSink, CopySchema(*input)), connector(std::move(c)) {
  stream_key = input->stream_key;
  distribution = input->distribution;
  append_only = input->append_only;
  inputs_.push_back(std::move(input));
}

std::string StreamSinkNode::Describe() const { return fmt::format("StreamSink {{ connector: {} }}", connector); }

namespace {

void ExplainNode(const StreamNode& n, int depth, std::vector<std::string>* lines,
                 std::vector<const StreamNode*>* fragments) {
  std::string indent(depth * 2, ' ');
  std::string prefix = depth ? indent.substr(2) + "└─" : "";
  if (n.kind() == StreamNode::Kind::kExchange) {
    fragments->push_back(n.input());
    lines->push_back(prefix + fmt::format("{} from fragment {}", n.Describe(), fragments->size()));
    return;
  }
  lines->push_back(prefix + n.Describe());
  for (const auto& in : n.inputs()) ExplainNode(*in, depth + 1, lines, fragments);
}

}  // namespace

std::vector<std::string> ExplainStreamPlan(const StreamPlan& plan) {
  std::vector<std::string> lines;
  std::vector<const StreamNode*> fragments;
  lines.push_back("Fragment 0");
  ExplainNode(*plan.root, 0, &lines, &fragments);
  for (size_t i = 0; i < fragments.size(); i++) {
    lines.push_back("");
    lines.push_back(fmt::format("Fragment {}", i + 1));
    ExplainNode(*fragments[i], 0, &lines, &fragments);
  }
  return lines;
}

}  // namespace freshet

namespace freshet {

std::vector<int> WatermarkColumns(const StreamNode& n) {
  switch (n.kind()) {
    case StreamNode::Kind::kTableScan: {
      const auto& scan = static_cast<const StreamTableScanNode&>(n);
      if (scan.cross_database) return {};  // the scan passes on no watermarks
      const auto& t = scan.table;
      if (t->watermark_column >= 0) return {t->watermark_column};
      return t->stream_watermark_columns;  // a materialized view's
    }
    case StreamNode::Kind::kSource: {
      const auto& t = static_cast<const StreamSourceNode&>(n).source;
      if (t->watermark_column >= 0) return {t->watermark_column};
      return {};
    }
    case StreamNode::Kind::kFilter:
    case StreamNode::Kind::kExchange:
    case StreamNode::Kind::kMaterialize:
      return WatermarkColumns(*n.input());
    case StreamNode::Kind::kProject: {
      const auto& p = static_cast<const StreamProjectNode&>(n);
      std::vector<int> in = WatermarkColumns(*n.input()), out;
      for (size_t i = 0; i < p.exprs.size(); i++)
        for (int c : in)
          if (IsMonotonicIn(*p.exprs[i], c)) {
            out.push_back(int(i));
            break;
          }
      return out;
    }
    case StreamNode::Kind::kUnion: {
      std::vector<int> out = WatermarkColumns(*n.input(0));
      for (size_t i = 1; i < n.inputs().size(); i++) {
        std::vector<int> in = WatermarkColumns(*n.input(i)), kept;
        for (int c : out)
          if (std::find(in.begin(), in.end(), c) != in.end()) kept.push_back(c);
        out = std::move(kept);
      }
      return out;
    }
    case StreamNode::Kind::kHop: {
      const auto& h = static_cast<const StreamHopNode&>(n);
      std::vector<int> out = WatermarkColumns(*n.input());
      if (std::find(out.begin(), out.end(), h.time_column) != out.end()) {
        const int width = int(n.input()->schema().size());
        out.push_back(width);      // window_start
        out.push_back(width + 1);  // window_end
      }
      return out;
    }
    case StreamNode::Kind::kHashJoin: {
      const auto& j = static_cast<const StreamHashJoinNode&>(n);
      std::vector<int> left = WatermarkColumns(*n.input(0)), right = WatermarkColumns(*n.input(1)), out;
      const bool filtering = j.type == JoinType::kSemi || j.type == JoinType::kAnti;
      for (size_t k = 0; k < j.left_keys.size(); k++)
        if (std::find(left.begin(), left.end(), j.left_keys[k]) != left.end() &&
            std::find(right.begin(), right.end(), j.right_keys[k]) != right.end()) {
          out.push_back(j.left_keys[k]);
          if (!filtering) out.push_back(int(n.input(0)->schema().size()) + j.right_keys[k]);
        }
      return out;
    }
    case StreamNode::Kind::kGroupTopN: {
      // The partition columns' (a new row changes its own partition only).
      const auto& t = static_cast<const StreamGroupTopNNode&>(n);
      std::vector<int> out;
      for (int c : WatermarkColumns(*n.input()))
        if (std::find(t.partition.begin(), t.partition.end(), c) != t.partition.end()) out.push_back(c);
      return out;
    }
    case StreamNode::Kind::kOverWindow: {
      // The partition columns' (a new row changes its own partition only);
      // the order column's once rows are emitted only when closed.
      const auto& o = static_cast<const StreamOverWindowNode&>(n);
      std::vector<int> out;
      for (int c : WatermarkColumns(*n.input()))
        if (c == o.window_column || std::find(o.partition.begin(), o.partition.end(), c) != o.partition.end())
          out.push_back(c);
      return out;
    }
    case StreamNode::Kind::kHashAgg: {
      const auto& a = static_cast<const StreamHashAggNode&>(n);
      std::vector<int> in = WatermarkColumns(*n.input()), out;
      for (size_t k = 0; k < a.group_keys.size(); k++)
        if (std::find(in.begin(), in.end(), a.group_keys[k]) != in.end()) out.push_back(int(k));
      return out;
    }
    default: return {};
  }
}

}  // namespace freshet

namespace freshet {

namespace {

// The one column a monotonic expression reads (-1 when none).
int OnlyColumn(const Expression& e) {
  if (e.kind() == Expression::Kind::kColumnRef) return static_cast<const ColumnRefExpr&>(e).index();
  for (const auto& c : e.children())
    if (int col = OnlyColumn(*c); col >= 0) return col;
  return -1;
}

// A copy of e with every column reference moved to `to` (e reads one column).
ExprPtr Rebased(const Expression& e, int to) {
  ExprPtr copy = e.Clone();
  std::function<void(Expression*)> walk = [&](Expression* x) {
    if (x->kind() == Expression::Kind::kColumnRef) static_cast<ColumnRefExpr*>(x)->set_index(to);
    for (auto& c : x->children()) walk(c.get());
  };
  walk(copy.get());
  return copy;
}

}  // namespace

std::vector<JoinStateCleaning> DeriveJoinStateCleaning(const StreamHashJoinNode& join) {
  std::vector<JoinStateCleaning> out;
  if (join.type != JoinType::kInner || !join.condition) return out;
  const int left_width = int(join.input(0)->schema().size());
  const std::vector<int> watermarked[2] = {WatermarkColumns(*join.input(0)), WatermarkColumns(*join.input(1))};
  std::vector<const Expression*> conjuncts;
  SplitConjuncts(*join.condition, &conjuncts);
  for (const Expression* c : conjuncts) {
    if (c->kind() != Expression::Kind::kFunction || c->children().size() != 2) continue;
    const std::string& op = static_cast<const FunctionExpr*>(c)->function()->name;
    if (op != ">=" && op != ">" && op != "<=" && op != "<") continue;
    // g >= l: a row's g must reach l of the rows it meets.
    const Expression& g = *c->children()[op[0] == '>' ? 0 : 1];
    const Expression& l = *c->children()[op[0] == '>' ? 1 : 0];
    const int gc = OnlyColumn(g), lc = OnlyColumn(l);
    if (gc < 0 || lc < 0 || !IsMonotonicIn(g, gc) || !IsMonotonicIn(l, lc)) continue;
    const int side = gc < left_width ? 0 : 1, other = 1 - side;
    if ((lc < left_width ? 0 : 1) != other) continue;
    const int other_column = other == 0 ? lc : lc - left_width;
    const auto& wm = watermarked[other];
    if (std::find(wm.begin(), wm.end(), other_column) == wm.end()) continue;
    out.push_back({side, Rebased(g, side == 0 ? gc : gc - left_width), other_column, Rebased(l, 0)});
  }
  return out;
}

}  // namespace freshet

namespace freshet {

std::optional<TemporalConjuncts> SplitTemporalCondition(const Expression& predicate) {
  TemporalConjuncts out;
  std::vector<const Expression*> conjuncts;
  SplitConjuncts(predicate, &conjuncts);
  for (const Expression* c : conjuncts) {
    if (!ReadsNow(*c)) {
      out.plain.push_back(c->Clone());
      continue;
    }
    if (c->kind() != Expression::Kind::kFunction || c->children().size() != 2) return std::nullopt;
    const std::string& op = static_cast<const FunctionExpr*>(c)->function()->name;
    if (op != ">=" && op != ">" && op != "<=" && op != "<") return std::nullopt;
    // greater op lesser: which side reads now() (growing with it, reading no column)?
    const Expression& greater = *c->children()[op[0] == '>' ? 0 : 1];
    const Expression& lesser = *c->children()[op[0] == '>' ? 1 : 0];
    auto grows_with_now = [](const Expression& e) {
      std::vector<int> columns;
      CollectColumns(e, &columns);
      return columns.empty() && IsMonotonic(e, [](const Expression& x) { return IsNowFunction(x); });
    };
    if (!ReadsNow(greater) && grows_with_now(lesser)) out.expiring.push_back(c->Clone());
    else if (!ReadsNow(lesser) && grows_with_now(greater)) out.maturing.push_back(c->Clone());
    else return std::nullopt;
  }
  return out;
}

}  // namespace freshet
