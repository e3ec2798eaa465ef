#include "planner/stream_plan_codec.h"

#include <functional>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/type_json.h"
#include "common/encoding.h"
#include "common/error.h"
#include "expr/domain_check.h"
#include "expr/array.h"
#include "expr/function_registry.h"
#include "expr/struct.h"

namespace freshet {

namespace {

using json = nlohmann::json;

[[noreturn]] void Corrupt(const std::string& what) {
  throw SqlError(sqlstate::kDataCorrupted, "stored stream plan cannot be read: " + what);
}

std::string Unhex(const std::string& hex) {
  if (hex.size() % 2) Corrupt("odd hex length");
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) Corrupt("bad hex digit");
  return HexDecode(hex);
}

// AND, OR, NOT, IS [NOT] NULL/TRUE/FALSE, COALESCE, GREATEST, LEAST, NULLIF:
// the kinds an OperatorExpr has.
bool IsOperatorKind(Expression::Kind k) {
  switch (k) {
    case Expression::Kind::kAnd:
    case Expression::Kind::kOr:
    case Expression::Kind::kNot:
    case Expression::Kind::kIsNull:
    case Expression::Kind::kIsNotNull:
    case Expression::Kind::kIsTrue:
    case Expression::Kind::kIsFalse:
    case Expression::Kind::kCoalesce:
    case Expression::Kind::kGreatest:
    case Expression::Kind::kLeast:
    case Expression::Kind::kNullIf: return true;
    default: return false;
  }
}

// ---- Values, functions, columns ----

json ValueToJson(const Value& v) {
  json j = {{"t", TypeToJson(v.type())}};
  if (v.is_null()) {
    j["null"] = true;
  } else {
    std::string cells;
    EncodeRowValues({v}, &cells);
    j["cells"] = HexEncode(cells);
  }
  return j;
}

Value ValueFromJson(const json& j) {
  DataType t = TypeFromJson(j.at("t"));
  if (j.value("null", false)) return Value::Null(t);
  std::string cells = Unhex(j.at("cells").get<std::string>());
  std::string_view bytes(cells);
  DataChunk chunk({t});
  if (!DecodeCellsInto(&bytes, &chunk, 0, 1) || !bytes.empty()) Corrupt("bad constant");
  return chunk.column(0).GetValue(0);
}

json FunctionToJson(const ScalarFunction* f) {
  if (!f) return nullptr;
  json args = json::array();
  for (const auto& t : f->arg_types) args.push_back(TypeToJson(t));
  return {{"name", f->name}, {"args", args}, {"variadic", f->variadic}, {"ret", TypeToJson(f->return_type)}};
}

const ScalarFunction* FunctionFromJson(const json& j) {
  if (j.is_null()) return nullptr;
  const std::string name = j.at("name");
  std::vector<DataType> args;
  for (const auto& a : j.at("args")) args.push_back(TypeFromJson(a));
  const bool variadic = j.at("variadic");
  const DataType ret = TypeFromJson(j.at("ret"));
  const ScalarFunction* found = nullptr;
  if (const auto* all = FunctionRegistry::Instance().Lookup(name)) {
    for (const ScalarFunction& f : *all) {
      if (f.variadic != variadic || f.arg_types.size() != args.size()) continue;
      bool same = true;
      for (size_t i = 0; i < args.size(); i++) same &= f.arg_types[i].SameWithModifiers(args[i]);
      if (!same) continue;
      if (!found || f.return_type.SameWithModifiers(ret)) found = &f;
    }
  }
  if (!found) Corrupt(fmt::format("no function {} of {} arguments", name, args.size()));
  return found;
}

json PlanColumnToJson(const PlanColumn& c) {
  return {{"name", c.name}, {"type", TypeToJson(c.type)}, {"table", c.table}, {"hidden", c.hidden}};
}

PlanColumn PlanColumnFromJson(const json& j) {
  return PlanColumn{j.at("name"), TypeFromJson(j.at("type")), j.at("table"), j.at("hidden")};
}

json OrderToJson(const std::vector<StreamOrderKey>& keys) {
  json out = json::array();
  for (const auto& k : keys) out.push_back({{"c", k.column}, {"d", k.descending}, {"nf", k.nulls_first}});
  return out;
}

std::vector<StreamOrderKey> OrderFromJson(const json& j) {
  std::vector<StreamOrderKey> out;
  for (const auto& k : j) out.push_back({k.at("c"), k.at("d"), k.at("nf")});
  return out;
}

// ---- Expressions ----

json ExprToJson(const Expression& e) {
  json j = {{"k", int(e.kind())}, {"t", TypeToJson(e.type())}};
  json children = json::array();
  for (const auto& c : e.children()) children.push_back(ExprToJson(*c));
  j["c"] = std::move(children);
  if (IsOperatorKind(e.kind())) {
    j["cmp"] = FunctionToJson(static_cast<const OperatorExpr&>(e).compare());
    return j;
  }
  switch (e.kind()) {
    case Expression::Kind::kColumnRef: {
      const auto& c = static_cast<const ColumnRefExpr&>(e);
      j["i"] = c.index();
      j["n"] = c.name();
      break;
    }
    case Expression::Kind::kConstant: j["v"] = ValueToJson(static_cast<const ConstantExpr&>(e).value()); break;
    case Expression::Kind::kFunction: j["f"] = FunctionToJson(static_cast<const FunctionExpr&>(e).function()); break;
    case Expression::Kind::kCast: j["a"] = static_cast<const CastExpr&>(e).assignment(); break;
    case Expression::Kind::kCase: j["e"] = static_cast<const CaseExpr&>(e).has_else(); break;
    case Expression::Kind::kInList: {
      const auto& in = static_cast<const InListExpr&>(e);
      json list = json::array();
      for (const auto& v : in.list()) list.push_back(ValueToJson(v));
      j["l"] = std::move(list);
      j["neg"] = in.negated();
      break;
    }
    case Expression::Kind::kArray:
      if (dynamic_cast<const ArrayConstructorExpr*>(&e)) {
        j["x"] = "ctor";
      } else if (const auto* any = dynamic_cast<const ArrayAnyAllExpr*>(&e)) {
        j["x"] = "anyall";
        j["cmp"] = FunctionToJson(any->compare());
        j["any"] = any->any();
      } else {
        j["x"] = "sub";
      }
      break;
    case Expression::Kind::kStruct:
      if (const auto* f = dynamic_cast<const FieldSelectExpr*>(&e)) {
        j["x"] = "field";
        j["i"] = f->index();
      } else {
        j["x"] = "ctor";
      }
      break;
    case Expression::Kind::kSetFunction: j["name"] = static_cast<const SetFunctionExpr&>(e).name(); break;
    case Expression::Kind::kDomainCheck: {
      const auto& d = static_cast<const DomainCheckExpr&>(e);
      j["dom"] = d.domain();
      json constraints = json::array();
      for (const auto& c : d.constraints())
        constraints.push_back({{"d", c.domain}, {"s", c.schema}, {"n", c.name}, {"e", c.check ? ExprToJson(*c.check) : json(nullptr)}});
      j["cs"] = std::move(constraints);
      break;
    }
    default:
      // Parameters, subqueries, aggregates, set functions and window calls
      // never reach a stream plan (the planner refuses or rewrites them).
      throw SqlError(sqlstate::kInternalError, "expression kind " + std::to_string(int(e.kind())) + " in a stream plan");
  }
  return j;
}

ExprPtr ExprFromJson(const json& j) {
  const auto kind = static_cast<Expression::Kind>(j.at("k").get<int>());
  const DataType type = TypeFromJson(j.at("t"));
  std::vector<ExprPtr> children;
  for (const auto& c : j.at("c")) children.push_back(ExprFromJson(c));
  auto child = [&](size_t i) {
    if (i >= children.size()) Corrupt("missing operand");
    return std::move(children[i]);
  };
  ExprPtr e;
  if (IsOperatorKind(kind)) {
    auto op = std::make_unique<OperatorExpr>(kind, type, std::move(children));
    op->set_compare(FunctionFromJson(j.at("cmp")));
    return op;
  }
  switch (kind) {
    case Expression::Kind::kColumnRef: e = std::make_unique<ColumnRefExpr>(j.at("i").get<int>(), type, j.at("n")); break;
    case Expression::Kind::kConstant: e = std::make_unique<ConstantExpr>(ValueFromJson(j.at("v"))); break;
    case Expression::Kind::kFunction: e = std::make_unique<FunctionExpr>(FunctionFromJson(j.at("f")), std::move(children)); break;
    case Expression::Kind::kCast: e = std::make_unique<CastExpr>(child(0), type, j.at("a").get<bool>()); break;
    case Expression::Kind::kCase: e = std::make_unique<CaseExpr>(type, std::move(children), j.at("e").get<bool>()); break;
    case Expression::Kind::kInList: {
      std::vector<Value> list;
      for (const auto& v : j.at("l")) list.push_back(ValueFromJson(v));
      e = std::make_unique<InListExpr>(child(0), std::move(list), j.at("neg").get<bool>());
      break;
    }
    case Expression::Kind::kArray: {
      const std::string x = j.at("x");
      if (x == "ctor") e = std::make_unique<ArrayConstructorExpr>(type, std::move(children));
      else if (x == "anyall")
        e = std::make_unique<ArrayAnyAllExpr>(child(0), child(1), FunctionFromJson(j.at("cmp")), j.at("any").get<bool>());
      else if (x == "sub") e = std::make_unique<ArraySubscriptExpr>(child(0), child(1));
      else Corrupt("array expression " + x);
      break;
    }
    case Expression::Kind::kStruct: {
      const std::string x = j.at("x");
      if (x == "ctor") e = std::make_unique<StructConstructorExpr>(type, std::move(children));
      else if (x == "field") e = std::make_unique<FieldSelectExpr>(child(0), j.at("i").get<size_t>());
      else Corrupt("struct expression " + x);
      break;
    }
    case Expression::Kind::kSetFunction:
      e = std::make_unique<SetFunctionExpr>(j.at("name").get<std::string>(), type, std::move(children));
      break;
    case Expression::Kind::kDomainCheck: {
      std::vector<DomainCheckExpr::Constraint> constraints;
      for (const auto& c : j.at("cs"))
        constraints.push_back({c.at("d"), c.at("s"), c.at("n"), c.at("e").is_null() ? nullptr : ExprFromJson(c.at("e"))});
      e = std::make_unique<DomainCheckExpr>(child(0), j.at("dom"), std::move(constraints));
      break;
    }
    default: Corrupt("expression kind " + std::to_string(int(kind)));
  }
  e->set_type(type);  // polymorphic functions' result types, as bound
  return e;
}

json OptionalExpr(const ExprPtr& e) { return e ? ExprToJson(*e) : json(nullptr); }
ExprPtr OptionalExprFromJson(const json& j) { return j.is_null() ? nullptr : ExprFromJson(j); }

// ---- Window calls ----

json SortKeysToJson(const std::vector<SortKey>& keys) {
  json out = json::array();
  for (const auto& k : keys) out.push_back({{"e", ExprToJson(*k.expr)}, {"d", k.descending}, {"nf", k.nulls_first}});
  return out;
}

std::vector<SortKey> SortKeysFromJson(const json& j) {
  std::vector<SortKey> out;
  for (const auto& k : j) out.push_back({ExprFromJson(k.at("e")), k.at("d"), k.at("nf")});
  return out;
}

json ExprsToJson(const std::vector<ExprPtr>& exprs) {
  json out = json::array();
  for (const auto& e : exprs) out.push_back(ExprToJson(*e));
  return out;
}

std::vector<ExprPtr> ExprsFromJson(const json& j) {
  std::vector<ExprPtr> out;
  for (const auto& e : j) out.push_back(ExprFromJson(e));
  return out;
}

json FrameBoundToJson(const WindowFrameBound& b) {
  return {{"kind", int(b.kind)}, {"offset", OptionalExpr(b.offset)}, {"range_value", OptionalExpr(b.range_value)}};
}

WindowFrameBound FrameBoundFromJson(const json& j) {
  return {static_cast<WindowFrameBound::Kind>(j.at("kind").get<int>()), OptionalExprFromJson(j.at("offset")),
          OptionalExprFromJson(j.at("range_value"))};
}

json WindowCallToJson(const WindowCall& c) {
  json sig = {{"kind", int(c.agg.kind)}, {"arg", TypeToJson(c.agg.arg_type)}, {"ret", TypeToJson(c.agg.return_type)}};
  return {{"kind", int(c.kind)},
          {"name", c.name},
          {"args", ExprsToJson(c.args)},
          {"agg", sig},
          {"filter", OptionalExpr(c.filter)},
          {"type", TypeToJson(c.type)},
          {"partition_by", ExprsToJson(c.partition_by)},
          {"order_by", SortKeysToJson(c.order_by)},
          {"frame",
           {{"mode", int(c.frame.mode)}, {"start", FrameBoundToJson(c.frame.start)}, {"end", FrameBoundToJson(c.frame.end)},
            {"exclude", int(c.frame.exclude)}}}};
}

WindowCall WindowCallFromJson(const json& j) {
  WindowCall c;
  c.kind = static_cast<WindowFunctionKind>(j.at("kind").get<int>());
  c.name = j.at("name");
  c.args = ExprsFromJson(j.at("args"));
  const json& sig = j.at("agg");
  c.agg.kind = static_cast<AggKind>(sig.at("kind").get<int>());
  c.agg.arg_type = TypeFromJson(sig.at("arg"));
  c.agg.return_type = TypeFromJson(sig.at("ret"));
  c.filter = OptionalExprFromJson(j.at("filter"));
  c.type = TypeFromJson(j.at("type"));
  c.partition_by = ExprsFromJson(j.at("partition_by"));
  c.order_by = SortKeysFromJson(j.at("order_by"));
  const json& f = j.at("frame");
  c.frame.mode = static_cast<WindowFrame::Mode>(f.at("mode").get<int>());
  c.frame.start = FrameBoundFromJson(f.at("start"));
  c.frame.end = FrameBoundFromJson(f.at("end"));
  c.frame.exclude = static_cast<WindowFrame::Exclude>(f.at("exclude").get<int>());
  return c;
}

// ---- Nodes ----

json NodeToJson(const StreamNode& n) {
  json j;
  j["kind"] = int(n.kind());
  json schema = json::array();
  for (const auto& c : n.schema()) schema.push_back(PlanColumnToJson(c));
  j["schema"] = std::move(schema);
  j["stream_key"] = n.stream_key;
  j["dist"] = {{"kind", int(n.distribution.kind)}, {"keys", n.distribution.keys}};
  j["append_only"] = n.append_only;
  json inputs = json::array();
  for (const auto& in : n.inputs()) inputs.push_back(NodeToJson(*in));
  j["inputs"] = std::move(inputs);
  switch (n.kind()) {
    case StreamNode::Kind::kTableScan: {
      const auto& s = static_cast<const StreamTableScanNode&>(n);
      j.update({{"table", s.table->id}, {"progress_table", s.progress_table}});
      if (s.backfill_level > 0) j["backfill_level"] = s.backfill_level;
      if (s.changes_only) j["changes_only"] = true;
      if (s.cross_database) j.update({{"cross_database", true}, {"log_table", s.log_table}});
      break;
    }
    case StreamNode::Kind::kSource: {
      const auto& s = static_cast<const StreamSourceNode&>(n);
      j.update({{"source", s.source->id}, {"offsets_table", s.offsets_table}});
      if (s.backfill_level > 0) j["backfill_level"] = s.backfill_level;
      break;
    }
    case StreamNode::Kind::kFilter: j["pred"] = ExprToJson(*static_cast<const StreamFilterNode&>(n).predicate); break;
    case StreamNode::Kind::kTemporalFilter: {
      const auto& f = static_cast<const StreamTemporalFilterNode&>(n);
      j.update({{"pred", ExprToJson(*f.predicate)}, {"rows_table", f.rows_table}, {"time_table", f.time_table}});
      break;
    }
    case StreamNode::Kind::kProject: {
      json exprs = json::array();
      for (const auto& e : static_cast<const StreamProjectNode&>(n).exprs) exprs.push_back(ExprToJson(*e));
      j["exprs"] = std::move(exprs);
      break;
    }
    case StreamNode::Kind::kHop: {
      const auto& h = static_cast<const StreamHopNode&>(n);
      j.update({{"time_column", h.time_column}, {"slide", h.slide}, {"size", h.size}});
      break;
    }
    case StreamNode::Kind::kChangelog: {
      const auto& c = static_cast<const StreamChangelogNode&>(n);
      j.update({{"width", c.width}, {"state_table", c.state_table}});
      break;
    }
    case StreamNode::Kind::kHashAgg: {
      const auto& a = static_cast<const StreamHashAggNode&>(n);
      json calls = json::array();
      for (const auto& c : a.calls) {
        json sig = {{"kind", int(c.sig.kind)}, {"arg", TypeToJson(c.sig.arg_type)}, {"ret", TypeToJson(c.sig.return_type)}};
        calls.push_back({{"sig", sig}, {"args", c.args}, {"filter", c.filter}, {"distinct", c.distinct},
                         {"order_by", OrderToJson(c.order_by)}, {"input_table", c.input_table},
                         {"append_only", c.append_only}});
      }
      j.update({{"group_keys", a.group_keys}, {"calls", calls}, {"input_stream_key", a.input_stream_key},
                {"result_table", a.result_table}});
      if (a.window_column >= 0) {  // absent in plans persisted before it existed
        j["window_column"] = a.window_column;
        j["emit_on_window_close"] = a.emit_on_window_close;
      }
      break;
    }
    case StreamNode::Kind::kHashJoin: {
      const auto& h = static_cast<const StreamHashJoinNode&>(n);
      j.update({{"type", int(h.type)}, {"left_keys", h.left_keys}, {"right_keys", h.right_keys},
                {"condition", OptionalExpr(h.condition)}, {"left_table", h.left_table}, {"right_table", h.right_table}});
      if (h.process_time) j["process_time"] = true;
      if (h.process_time_keeps_left) j["process_time_keeps_left"] = true;
      if (h.asof)
        j["asof"] = {{"left_value", h.asof_left_value}, {"right_value", h.asof_right_value},
                     {"greatest", h.asof_greatest}, {"narrow", h.asof_narrow}};
      if (!h.cleanings.empty()) {  // absent in plans persisted before it existed
        json cleanings = json::array();
        for (const auto& c : h.cleanings)
          cleanings.push_back({{"side", c.side}, {"key", ExprToJson(*c.key)}, {"other_column", c.other_column},
                               {"bound", ExprToJson(*c.bound)}});
        j["cleanings"] = cleanings;
      }
      break;
    }
    case StreamNode::Kind::kValues: {
      const auto& v = static_cast<const StreamValuesNode&>(n);
      json rows = json::array();
      for (const auto& row : v.rows) rows.push_back(ExprsToJson(row));
      j.update({{"rows", rows}, {"state_table", v.state_table}});
      if (!v.function.empty())
        j.update({{"function", v.function}, {"function_args", ExprsToJson(v.function_args)}, {"ordinality", v.with_ordinality}});
      break;
    }
    case StreamNode::Kind::kProjectSet: {
      json exprs = json::array();
      for (const auto& e : static_cast<const StreamProjectSetNode&>(n).exprs) exprs.push_back(ExprToJson(*e));
      j["exprs"] = std::move(exprs);
      if (static_cast<const StreamProjectSetNode&>(n).outer) j["outer"] = true;
      if (const auto& c = static_cast<const StreamProjectSetNode&>(n).condition) j["condition"] = ExprToJson(*c);
      break;
    }
    case StreamNode::Kind::kOverWindow: {
      const auto& o = static_cast<const StreamOverWindowNode&>(n);
      json calls = json::array();
      for (const auto& c : o.calls) calls.push_back(WindowCallToJson(c));
      j.update({{"partition", o.partition}, {"calls", calls}, {"input_stream_key", o.input_stream_key},
                {"state_table", o.state_table}});
      if (o.window_column >= 0) j["window_column"] = o.window_column;  // absent in plans persisted before it existed
      break;
    }
    case StreamNode::Kind::kDynamicFilter: {
      const auto& d = static_cast<const StreamDynamicFilterNode&>(n);
      j.update({{"value_column", d.value_column}, {"compare", ExprToJson(*d.compare)}, {"left_table", d.left_table},
                {"right_table", d.right_table}});
      break;
    }
    case StreamNode::Kind::kTopN: {
      const auto& t = static_cast<const StreamTopNNode&>(n);
      j.update({{"order", OrderToJson(t.order)}, {"limit", t.limit}, {"offset", t.offset}, {"state_table", t.state_table}});
      break;
    }
    case StreamNode::Kind::kGroupTopN: {
      const auto& t = static_cast<const StreamGroupTopNNode&>(n);
      j.update({{"partition", t.partition}, {"order", OrderToJson(t.order)}, {"limit", t.limit},
                {"input_stream_key", t.input_stream_key}, {"state_table", t.state_table}});
      if (t.with_ties) j["with_ties"] = true;  // absent in plans persisted before it existed
      if (t.window_column >= 0) j["window_column"] = t.window_column;  // likewise
      break;
    }
    case StreamNode::Kind::kMaterialize: j["relation_name"] = static_cast<const StreamMaterializeNode&>(n).relation_name; break;
    case StreamNode::Kind::kSink: {
      const auto& s = static_cast<const StreamSinkNode&>(n);
      j["connector"] = s.connector;
      if (s.log_table >= 0) j.update({{"log_table", s.log_table}, {"retention_ms", s.retention_ms}});
      break;
    }
    case StreamNode::Kind::kUnion:
    case StreamNode::Kind::kExchange: break;
  }
  return j;
}

StreamNodePtr NodeFromJson(const json& j, const std::function<TableRef(ObjectId)>& resolve) {
  const auto kind = static_cast<StreamNode::Kind>(j.at("kind").get<int>());
  std::vector<StreamNodePtr> inputs;
  for (const auto& in : j.at("inputs")) inputs.push_back(NodeFromJson(in, resolve));
  std::vector<PlanColumn> schema;
  for (const auto& c : j.at("schema")) schema.push_back(PlanColumnFromJson(c));
  auto input = [&](size_t i) {
    if (i >= inputs.size() || !inputs[i]) Corrupt("missing input");
    return std::move(inputs[i]);
  };
  auto relation = [&](const char* field) {
    ObjectId id = j.at(field);
    TableRef t = resolve(id);
    if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} of a stored stream plan does not exist", id);
    return t;
  };
  StreamNodePtr n;
  switch (kind) {
    case StreamNode::Kind::kTableScan: {
      auto s = std::make_unique<StreamTableScanNode>(relation("table"));
      s->progress_table = j.at("progress_table");
      s->backfill_level = j.value("backfill_level", 0);
      s->changes_only = j.value("changes_only", false);
      s->cross_database = j.value("cross_database", false);
      s->log_table = j.value("log_table", ObjectId(0));
      n = std::move(s);
      break;
    }
    case StreamNode::Kind::kSource: {
      auto s = std::make_unique<StreamSourceNode>(relation("source"));
      s->offsets_table = j.at("offsets_table");
      s->backfill_level = j.value("backfill_level", 0);
      n = std::move(s);
      break;
    }
    case StreamNode::Kind::kFilter: n = std::make_unique<StreamFilterNode>(input(0), ExprFromJson(j.at("pred"))); break;
    case StreamNode::Kind::kTemporalFilter: {
      auto f = std::make_unique<StreamTemporalFilterNode>(input(0), ExprFromJson(j.at("pred")));
      f->rows_table = j.at("rows_table");
      f->time_table = j.at("time_table");
      n = std::move(f);
      break;
    }
    case StreamNode::Kind::kProject: {
      std::vector<ExprPtr> exprs;
      for (const auto& e : j.at("exprs")) exprs.push_back(ExprFromJson(e));
      n = std::make_unique<StreamProjectNode>(input(0), std::move(exprs), schema);
      break;
    }
    case StreamNode::Kind::kChangelog: {
      auto c = std::make_unique<StreamChangelogNode>(input(0), j.at("width").get<int>());
      c->state_table = j.at("state_table");
      n = std::move(c);
      break;
    }
    case StreamNode::Kind::kHop:
      n = std::make_unique<StreamHopNode>(input(0), j.at("time_column").get<int>(), j.at("slide").get<int64_t>(),
                                          j.at("size").get<int64_t>(), schema);
      break;
    case StreamNode::Kind::kHashAgg: {
      std::vector<StreamAggCall> calls;
      for (const auto& c : j.at("calls")) {
        StreamAggCall call;
        const json& sig = c.at("sig");
        call.sig.kind = static_cast<AggKind>(sig.at("kind").get<int>());
        call.sig.arg_type = TypeFromJson(sig.at("arg"));
        call.sig.return_type = TypeFromJson(sig.at("ret"));
        call.args = c.at("args").get<std::vector<int>>();
        call.filter = c.at("filter");
        call.distinct = c.at("distinct");
        call.order_by = OrderFromJson(c.at("order_by"));
        call.input_table = c.at("input_table");
        call.append_only = c.at("append_only");
        calls.push_back(std::move(call));
      }
      auto a = std::make_unique<StreamHashAggNode>(input(0), j.at("group_keys").get<std::vector<int>>(), std::move(calls),
                                                   schema);
      a->input_stream_key = j.at("input_stream_key").get<std::vector<int>>();
      a->result_table = j.at("result_table");
      a->window_column = j.value("window_column", -1);
      a->emit_on_window_close = j.value("emit_on_window_close", false);
      n = std::move(a);
      break;
    }
    case StreamNode::Kind::kHashJoin: {
      auto h = std::make_unique<StreamHashJoinNode>(static_cast<JoinType>(j.at("type").get<int>()), input(0), input(1),
                                                    j.at("left_keys").get<std::vector<int>>(),
                                                    j.at("right_keys").get<std::vector<int>>(),
                                                    OptionalExprFromJson(j.at("condition")));
      h->left_table = j.at("left_table");
      h->right_table = j.at("right_table");
      h->process_time = j.value("process_time", false);
      h->process_time_keeps_left = j.value("process_time_keeps_left", false);
      if (j.contains("asof")) {
        const json& a = j.at("asof");
        h->asof = true;
        h->asof_left_value = a.at("left_value");
        h->asof_right_value = a.at("right_value");
        h->asof_greatest = a.at("greatest");
        h->asof_narrow = a.at("narrow");
        h->append_only = false;
      }
      if (h->process_time) h->append_only = h->input(0)->append_only;
      if (j.contains("cleanings"))
        for (const auto& c : j.at("cleanings"))
          h->cleanings.push_back({c.at("side").get<int>(), ExprFromJson(c.at("key")), c.at("other_column").get<int>(),
                                  ExprFromJson(c.at("bound"))});
      n = std::move(h);
      break;
    }
    case StreamNode::Kind::kUnion:
      n = std::make_unique<StreamUnionNode>(std::move(inputs), schema, j.at("stream_key").get<std::vector<int>>());
      break;
    case StreamNode::Kind::kValues: {
      std::vector<std::vector<ExprPtr>> rows;
      for (const auto& row : j.at("rows")) rows.push_back(ExprsFromJson(row));
      std::vector<PlanColumn> columns(schema.begin(), schema.end() - 1);  // the node adds the row number
      auto v = std::make_unique<StreamValuesNode>(std::move(columns), std::move(rows));
      v->state_table = j.at("state_table");
      if (j.contains("function")) {
        v->function = j.at("function").get<std::string>();
        v->function_args = ExprsFromJson(j.at("function_args"));
        v->with_ordinality = j.at("ordinality").get<bool>();
      }
      n = std::move(v);
      break;
    }
    case StreamNode::Kind::kProjectSet: {
      std::vector<ExprPtr> exprs;
      for (const auto& e : j.at("exprs")) exprs.push_back(ExprFromJson(e));
      std::vector<PlanColumn> columns(schema.begin(), schema.end() - 1);  // the node adds the row number
      auto set = std::make_unique<StreamProjectSetNode>(input(0), std::move(exprs), std::move(columns));
      set->outer = j.value("outer", false);
      if (j.contains("condition")) set->condition = ExprFromJson(j.at("condition"));
      n = std::move(set);
      break;
    }
    case StreamNode::Kind::kOverWindow: {
      std::vector<WindowCall> calls;
      for (const auto& c : j.at("calls")) calls.push_back(WindowCallFromJson(c));
      auto o = std::make_unique<StreamOverWindowNode>(input(0), j.at("partition").get<std::vector<int>>(), std::move(calls));
      o->input_stream_key = j.at("input_stream_key").get<std::vector<int>>();
      o->state_table = j.at("state_table");
      o->window_column = j.value("window_column", -1);
      n = std::move(o);
      break;
    }
    case StreamNode::Kind::kDynamicFilter: {
      auto d = std::make_unique<StreamDynamicFilterNode>(input(0), input(1), j.at("value_column").get<int>(),
                                                         ExprFromJson(j.at("compare")));
      d->left_table = j.at("left_table");
      d->right_table = j.at("right_table");
      n = std::move(d);
      break;
    }
    case StreamNode::Kind::kTopN: {
      auto t = std::make_unique<StreamTopNNode>(input(0), OrderFromJson(j.at("order")), j.at("limit").get<int64_t>(),
                                                j.at("offset").get<int64_t>());
      t->state_table = j.at("state_table");
      n = std::move(t);
      break;
    }
    case StreamNode::Kind::kGroupTopN: {
      auto t = std::make_unique<StreamGroupTopNNode>(input(0), j.at("partition").get<std::vector<int>>(),
                                                     OrderFromJson(j.at("order")), j.at("limit").get<int64_t>(),
                                                     j.value("with_ties", false));
      t->input_stream_key = j.at("input_stream_key").get<std::vector<int>>();
      t->state_table = j.at("state_table");
      t->window_column = j.value("window_column", -1);
      n = std::move(t);
      break;
    }
    case StreamNode::Kind::kExchange: n = std::make_unique<StreamExchangeNode>(input(0), Distribution::Any()); break;
    case StreamNode::Kind::kMaterialize: {
      auto m = std::make_unique<StreamMaterializeNode>(input(0));
      m->relation_name = j.at("relation_name");
      n = std::move(m);
      break;
    }
    case StreamNode::Kind::kSink: {
      auto s = std::make_unique<StreamSinkNode>(input(0), j.at("connector"));
      s->log_table = j.value("log_table", -1);
      s->retention_ms = j.value("retention_ms", int64_t(0));
      n = std::move(s);
      break;
    }
    default: Corrupt("node kind " + std::to_string(int(kind)));
  }
  // What the planner set after constructing the node (a join side's
  // presence column in its key, an index's leading key) is stored as is.
  n->set_schema(std::move(schema));
  n->stream_key = j.at("stream_key").get<std::vector<int>>();
  n->distribution.kind = static_cast<Distribution::Kind>(j.at("dist").at("kind").get<int>());
  n->distribution.keys = j.at("dist").at("keys").get<std::vector<int>>();
  n->append_only = j.at("append_only");
  return n;
}

}  // namespace

std::string EncodeStreamPlan(const StreamPlan& plan) {
  json columns = json::array();
  for (const auto& c : plan.columns) columns.push_back(ColumnToJson(c));
  json tables = json::array();
  for (const auto& t : plan.internal_tables) {
    json cols = json::array();
    for (const auto& c : t.columns) cols.push_back(ColumnToJson(c));
    tables.push_back(
        {{"kind", t.kind}, {"columns", cols}, {"pk", t.pk}, {"dist_key", t.dist_key}, {"upstream", t.upstream}});
  }
  json j = {{"version", kStreamPlanFormatVersion},
            {"root", NodeToJson(*plan.root)},
            {"columns", columns},
            {"pk", plan.pk},
            {"dist_key", plan.dist_key},
            {"depends_on", plan.depends_on},
            {"internal_tables", tables}};
  return j.dump();
}

std::string RenameStreamPlanRelation(const std::string& text, const std::string& name) {
  if (text.empty()) return text;
  json j = json::parse(text);
  std::function<void(json&)> walk = [&](json& n) {
    if (n.is_object()) {
      if (n.contains("relation_name")) n["relation_name"] = name;
      for (auto& [key, value] : n.items()) walk(value);
    } else if (n.is_array()) {
      for (auto& value : n) walk(value);
    }
  };
  walk(j["root"]);
  return j.dump();
}

StreamPlan DecodeStreamPlan(const std::string& text, const std::function<TableRef(ObjectId)>& resolve) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) Corrupt("not a JSON object");
  if (j.value("version", 0) != kStreamPlanFormatVersion)
    Corrupt(fmt::format("format version {} (this server reads {})", j.value("version", 0), kStreamPlanFormatVersion));
  try {
    StreamPlan plan;
    plan.root = NodeFromJson(j.at("root"), resolve);
    for (const auto& c : j.at("columns")) plan.columns.push_back(ColumnFromJson(c));
    plan.pk = j.at("pk").get<std::vector<int>>();
    plan.dist_key = j.at("dist_key").get<std::vector<int>>();
    plan.depends_on = j.at("depends_on").get<std::vector<ObjectId>>();
    for (const auto& t : j.at("internal_tables")) {
      InternalTableSpec spec;
      spec.kind = t.at("kind");
      for (const auto& c : t.at("columns")) spec.columns.push_back(ColumnFromJson(c));
      spec.pk = t.at("pk").get<std::vector<int>>();
      spec.dist_key = t.at("dist_key").get<std::vector<int>>();
      spec.upstream = t.at("upstream");
      plan.internal_tables.push_back(std::move(spec));
    }
    return plan;
  } catch (const json::exception& e) {
    Corrupt(e.what());
  }
}

}  // namespace freshet
