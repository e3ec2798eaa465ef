// The stream plan checker: every column a node reads exists in its input
// and has the physical type the node expects.
#include <fmt/format.h>

#include "common/error.h"
#include "planner/stream_plan_internal.h"

namespace freshet::stream_plan_detail {

namespace {

// Checks that every column a node reads exists in its input and has the
// physical type the node expects. The planner keeps a stream node's columns
// laid out as [logical..., hidden...]; a slip in that bookkeeping (a column
// index off by an input's hidden columns) would otherwise make an operator
// read a VARCHAR as a BIGINT at run time. Refusing the plan ends one
// statement; a wrong operator would have crashed the server at every start.
class StreamPlanChecker {
 public:
  void Check(const StreamNode& n) {
    for (const auto& in : n.inputs()) Check(*in);
    const auto& out = n.schema();
    for (int k : n.stream_key) Column(out, k, "stream key");
    if (n.distribution.kind == Distribution::Kind::kHash)
      for (int k : n.distribution.keys) Column(out, k, "distribution key");
    switch (n.kind()) {
      case StreamNode::Kind::kFilter:
        Expr(n.input()->schema(), *static_cast<const StreamFilterNode&>(n).predicate);
        break;
      case StreamNode::Kind::kTemporalFilter:
        Expr(n.input()->schema(), *static_cast<const StreamTemporalFilterNode&>(n).predicate);
        break;
      case StreamNode::Kind::kProject: {
        const auto& p = static_cast<const StreamProjectNode&>(n);
        if (p.exprs.size() != out.size()) Fail(n, "has a different number of expressions and columns");
        for (size_t i = 0; i < p.exprs.size(); i++) {
          Expr(n.input()->schema(), *p.exprs[i]);
          if (p.exprs[i]->type().physical() != out[i].type.physical()) Fail(n, "computes a column of another type");
        }
        break;
      }
      case StreamNode::Kind::kHashJoin: {
        const auto& j = static_cast<const StreamHashJoinNode&>(n);
        const auto& l = n.input(0)->schema();
        const auto& r = n.input(1)->schema();
        if (j.left_keys.size() != j.right_keys.size()) Fail(n, "has join keys of different lengths");
        for (size_t i = 0; i < j.left_keys.size(); i++) {
          Column(l, j.left_keys[i], "left join key");
          Column(r, j.right_keys[i], "right join key");
          if (l[j.left_keys[i]].type.physical() != r[j.right_keys[i]].type.physical())
            Fail(n, "joins keys of different types");
        }
        std::vector<PlanColumn> pair = l;
        pair.insert(pair.end(), r.begin(), r.end());
        const bool filtering = j.type == JoinType::kSemi || j.type == JoinType::kAnti;
        if (out.size() != (filtering ? l.size() : pair.size())) Fail(n, "does not output its inputs' columns");
        if (j.condition) Expr(pair, *j.condition);
        break;
      }
      case StreamNode::Kind::kHashAgg: {
        const auto& a = static_cast<const StreamHashAggNode&>(n);
        const auto& in = n.input()->schema();
        for (int k : a.group_keys) Column(in, k, "group key");
        for (const auto& c : a.calls) {
          for (int arg : c.args) Column(in, arg, "aggregate argument");
          if (c.filter >= 0) Column(in, c.filter, "aggregate filter");
          for (const auto& o : c.order_by) Column(in, o.column, "aggregate order key");
        }
        break;
      }
      case StreamNode::Kind::kProjectSet: {
        const auto& p = static_cast<const StreamProjectSetNode&>(n);
        if (p.exprs.size() + 1 != out.size()) Fail(n, "has a different number of expressions and columns");
        for (const auto& e : p.exprs) Expr(n.input()->schema(), *e);
        break;
      }
      case StreamNode::Kind::kOverWindow: {
        const auto& o = static_cast<const StreamOverWindowNode&>(n);
        const auto& in = n.input()->schema();
        for (int k : o.partition) Column(in, k, "partition key");
        for (const auto& c : o.calls) {
          for (const auto& a : c.args) Expr(in, *a);
          if (c.filter) Expr(in, *c.filter);
          for (const auto& k : c.order_by) Expr(in, *k.expr);
          for (const WindowFrameBound* b : {&c.frame.start, &c.frame.end})
            if (b->range_value) Expr(in, *b->range_value);
        }
        break;
      }
      case StreamNode::Kind::kDynamicFilter: {
        const auto& d = static_cast<const StreamDynamicFilterNode&>(n);
        const auto& l = n.input(0)->schema();
        const auto& r = n.input(1)->schema();
        Column(l, d.value_column, "compared column");
        if (r.empty()) Fail(n, "has a threshold input without columns");
        Expr({l[size_t(d.value_column)], r[0]}, *d.compare);
        break;
      }
      case StreamNode::Kind::kTopN:
        for (const auto& o : static_cast<const StreamTopNNode&>(n).order) Column(out, o.column, "order key");
        break;
      case StreamNode::Kind::kGroupTopN: {
        const auto& g = static_cast<const StreamGroupTopNNode&>(n);
        for (int k : g.partition) Column(out, k, "partition key");
        for (const auto& o : g.order) Column(out, o.column, "order key");
        break;
      }
      case StreamNode::Kind::kHop:
        Column(n.input()->schema(), static_cast<const StreamHopNode&>(n).time_column, "time column");
        break;
      case StreamNode::Kind::kUnion:
        for (const auto& in : n.inputs()) {
          if (in->schema().size() != out.size()) Fail(n, "has inputs of another width");
          for (size_t c = 0; c < out.size(); c++)
            if (in->schema()[c].type.physical() != out[c].type.physical()) Fail(n, "has inputs of other types");
        }
        break;
      default:
        break;
    }
  }

 private:
  [[noreturn]] static void Fail(const StreamNode& n, const std::string& what) {
    throw SqlError(sqlstate::kInternalError, fmt::format("stream plan check failed: {} {}", n.Describe(), what));
  }
  [[noreturn]] static void Fail(const std::string& what) {
    throw SqlError(sqlstate::kInternalError, "stream plan check failed: " + what);
  }
  static void Column(const std::vector<PlanColumn>& schema, int c, const char* what) {
    if (c < 0 || c >= int(schema.size()))
      Fail(fmt::format("{} {} is outside its input of {} columns", what, c, schema.size()));
  }
  static void Expr(const std::vector<PlanColumn>& schema, const Expression& e) {
    if (e.kind() == Expression::Kind::kColumnRef) {
      int c = static_cast<const ColumnRefExpr&>(e).index();
      Column(schema, c, "column reference");
      if (e.type().physical() != schema[c].type.physical())
        Fail(fmt::format("column reference {} reads a {} column as {}", c, schema[c].type.ToString(), e.type().ToString()));
    }
    for (const auto& child : e.children()) Expr(schema, *child);
  }
};

}  // namespace

void CheckStreamPlan(const StreamNode& root) { StreamPlanChecker().Check(root); }

}  // namespace freshet::stream_plan_detail
