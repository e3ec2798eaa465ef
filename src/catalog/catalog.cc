#include "catalog/catalog.h"
#include "catalog/temp_schema.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

#include "catalog/system_tables.h"
#include "catalog/type_json.h"
#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

using json = nlohmann::json;

const char* RelationKindName(RelationKind k) {
  switch (k) {
    case RelationKind::kTable: return "table";
    case RelationKind::kMaterializedView: return "materialized view";
    case RelationKind::kIndex: return "index";
    case RelationKind::kSource: return "source";
    case RelationKind::kSink: return "sink";
    case RelationKind::kInternal: return "internal table";
    case RelationKind::kSystem: return "system table";
    case RelationKind::kView: return "view";
    case RelationKind::kSequence: return "sequence";
    case RelationKind::kSubscription: return "subscription";
  }
  return "relation";
}

std::vector<DataType> TableCatalog::types() const {
  std::vector<DataType> out;
  out.reserve(columns.size());
  for (const auto& c : columns) out.push_back(c.type);
  return out;
}

StateTableDesc TableCatalog::StorageDesc() const {
  StateTableDesc d;
  d.table_id = id;
  d.column_types = types();
  d.pk_indices = pk;
  d.dist_key_indices = dist_key;
  d.missing_cells = MissingCells();
  return d;
}

std::vector<std::string> TableCatalog::MissingCells() const {
  std::vector<std::string> out;
  for (size_t c = 0; c < columns.size(); c++)
    if (!columns[c].missing_cell.empty()) {
      out.resize(columns.size());
      out[c] = columns[c].missing_cell;
    }
  return out;
}

std::string ConstraintCatalog::ElementName(size_t k) const {
  if (!HasExpressions() || expressions[k].empty()) return columns[k];
  const std::string& e = expressions[k];
  size_t open = e.find('(');
  std::string name = open == std::string::npos ? "" : e.substr(0, open);
  bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_';
  });
  return ident ? name : "expr";
}

std::vector<int> TableCatalog::UniqueIndexColumns(const ConstraintCatalog& c) const {
  std::vector<int> out;
  for (size_t k = 0; k < c.columns.size(); k++) {
    if (c.HasExpressions() && !c.expressions[k].empty()) {
      out.push_back(-1);
      continue;
    }
    int i = ColumnIndex(c.columns[k]);
    if (i < 0) FRESHET_THROW(sqlstate::kInternalError, "unique constraint \"{}\" names a missing column", c.name);
    out.push_back(i);
  }
  out.insert(out.end(), pk.begin(), pk.end());
  return out;
}

StateTableDesc TableCatalog::UniqueIndexDesc(const ConstraintCatalog& c) const {
  StateTableDesc d;
  d.table_id = c.index_id;
  std::vector<int> index_columns = UniqueIndexColumns(c);
  for (size_t k = 0; k < index_columns.size(); k++)
    d.column_types.push_back(index_columns[k] >= 0 ? columns[index_columns[k]].type : c.expression_types.at(k));
  for (size_t k = 0; k < c.columns.size(); k++) d.pk_indices.push_back(static_cast<int>(k));
  d.dist_key_indices = d.pk_indices;
  return d;
}

int TableCatalog::ColumnIndex(const std::string& column_name) const {
  for (size_t i = 0; i < columns.size(); i++)
    if (columns[i].name == column_name) return static_cast<int>(i);
  return -1;
}

const ConstraintCatalog* TableCatalog::FindUniqueKey(const std::vector<std::string>& column_names) const {
  std::set<std::string> wanted(column_names.begin(), column_names.end());
  for (const auto& c : constraints)
    if (c.type == 'u' && c.predicate.empty() && !c.HasExpressions() && c.columns.size() == column_names.size() &&
        std::set<std::string>(c.columns.begin(), c.columns.end()) == wanted)
      return &c;
  return nullptr;
}

const ConstraintCatalog* TableCatalog::ReferencedUniqueKey(const ConstraintCatalog& fk) const {
  return fk.ref_columns.empty() ? nullptr : FindUniqueKey(fk.ref_columns);
}

std::vector<int> TableCatalog::ReferencedColumns(const ConstraintCatalog& fk) const {
  if (fk.ref_columns.empty()) return row_id_index < 0 ? pk : std::vector<int>{};
  std::vector<int> out;
  for (const auto& name : fk.ref_columns)
    if (int i = ColumnIndex(name); i >= 0) out.push_back(i);
  return out;
}

json TypeToJson(const DataType& t) {
  json j = {{"id", int(t.id)}, {"p", t.precision}, {"s", t.scale}};
  DataType base = t.IsArray() ? t.ElementType() : t;
  if (base.IsStruct() && !base.IsAnyStruct()) {
    json fields = json::array();
    for (const auto& [name, type] : base.StructFields()) fields.push_back({{"name", name}, {"type", TypeToJson(type)}});
    j["fields"] = std::move(fields);
  }
  return j;
}
DataType TypeFromJson(const json& j) {
  DataType t(static_cast<TypeId>(j.at("id").get<int>()), j.at("p").get<int>(), j.at("s").get<int>());
  if (j.contains("fields")) {
    std::vector<StructField> fields;
    for (const auto& f : j.at("fields")) fields.emplace_back(f.at("name").get<std::string>(), TypeFromJson(f.at("type")));
    DataType s = DataType::Struct(fields);
    t = t.IsArray() ? DataType::Array(s) : s;
  }
  return t;
}

json ColumnToJson(const ColumnCatalog& c) {
  json j = {{"name", c.name}, {"type", TypeToJson(c.type)}, {"not_null", c.not_null}, {"hidden", c.hidden},
            {"default", c.default_expr}};
  if (c.identity) j["identity"] = std::string(1, c.identity);
  if (!c.comment.empty()) j["comment"] = c.comment;
  if (!c.missing_cell.empty()) j["missing"] = HexEncode(c.missing_cell);
  if (!c.generated.empty()) j["generated"] = c.generated;
  if (c.domain) j["domain"] = c.domain;
  return j;
}

ColumnCatalog ColumnFromJson(const json& c) {
  ColumnCatalog col{c.at("name"), TypeFromJson(c.at("type")), c.at("not_null"), c.at("hidden"), c.at("default")};
  if (c.contains("identity")) col.identity = c.at("identity").get<std::string>().at(0);
  col.comment = c.value("comment", std::string());
  col.missing_cell = HexDecode(c.value("missing", std::string()));
  col.generated = c.value("generated", std::string());
  col.domain = c.value("domain", ObjectId{0});
  return col;
}

namespace {

json ConstraintsToJson(const std::vector<ConstraintCatalog>& constraints) {
  json out = json::array();
  for (const auto& c : constraints) {
    json types = json::array();
    for (const auto& t : c.expression_types) types.push_back(TypeToJson(t));
    out.push_back({{"name", c.name}, {"type", std::string(1, c.type)}, {"ordinal", c.ordinal}, {"columns", c.columns},
                   {"ref_table", c.ref_table}, {"ref_columns", c.ref_columns}, {"on_update", std::string(1, c.on_update)},
                   {"on_delete", std::string(1, c.on_delete)}, {"match", std::string(1, c.match)},
                   {"deferrable", c.deferrable}, {"deferred", c.deferred}, {"check", c.check}, {"check_is_operator", c.check_is_operator},
                   {"index_id", c.index_id}, {"nulls_not_distinct", c.nulls_not_distinct},
                   {"index_only", c.index_only}, {"predicate", c.predicate},
                   {"expressions", c.expressions}, {"expression_types", types}, {"include", c.include},
                   {"validated", c.validated}});
  }
  return out;
}

std::vector<ConstraintCatalog> ConstraintsFromJson(const json& j) {
  std::vector<ConstraintCatalog> out;
  for (const auto& c : j) {
    ConstraintCatalog k;
    k.name = c.at("name");
    k.type = c.at("type").get<std::string>().at(0);
    k.ordinal = c.at("ordinal");
    k.columns = c.at("columns").get<std::vector<std::string>>();
    k.ref_table = c.at("ref_table");
    if (c.contains("ref_columns")) k.ref_columns = c.at("ref_columns").get<std::vector<std::string>>();
    k.on_update = c.at("on_update").get<std::string>().at(0);
    k.on_delete = c.at("on_delete").get<std::string>().at(0);
    k.match = c.at("match").get<std::string>().at(0);
    k.deferrable = c.at("deferrable");
    k.deferred = c.at("deferred");
    k.check = c.value("check", std::string());
    k.check_is_operator = c.value("check_is_operator", false);
    k.index_id = c.value("index_id", ObjectId(0));
    k.nulls_not_distinct = c.value("nulls_not_distinct", false);
    k.index_only = c.value("index_only", false);
    k.predicate = c.value("predicate", std::string());
    if (c.contains("include")) k.include = c.at("include").get<std::vector<std::string>>();
    if (c.contains("expressions")) {
      k.expressions = c.at("expressions").get<std::vector<std::string>>();
      for (const auto& t : c.at("expression_types")) k.expression_types.push_back(TypeFromJson(t));
    }
    k.validated = c.value("validated", true);
    out.push_back(std::move(k));
  }
  return out;
}

// The relations holding a table's unique constraints' indexes.
std::vector<ObjectId> UniqueIndexIds(const TableCatalog& t) {
  std::vector<ObjectId> ids;
  for (const auto& c : t.constraints)
    if (c.type == 'u' && c.index_id) ids.push_back(c.index_id);
  return ids;
}

const std::string kNextIdKey = "catalog/next_id";
const std::string kToolDatabasesKey = "catalog/tool_databases_created";
std::string DatabaseKey(ObjectId id) { return "catalog/database/" + std::to_string(id); }

std::string DatabaseJson(const DatabaseCatalog& d) {
  json j{{"id", d.id}, {"name", d.name}, {"owner", d.owner}};
  if (d.barrier_interval_ms) j["barrier_interval_ms"] = d.barrier_interval_ms;
  if (d.checkpoint_frequency) j["checkpoint_frequency"] = d.checkpoint_frequency;
  if (!d.ttl.empty()) j["ttl"] = d.ttl;
  return j.dump();
}
std::string SchemaKey(ObjectId id) { return "catalog/schema/" + std::to_string(id); }
std::string TypeKey(ObjectId id) { return "catalog/type/" + std::to_string(id); }
std::string FunctionKey(ObjectId id) { return "catalog/function/" + std::to_string(id); }
std::string TableKey(ObjectId id) { return "catalog/table/" + std::to_string(id); }
std::string UserKey(ObjectId id) { return "catalog/user/" + std::to_string(id); }
std::string SequenceStateKey(ObjectId id) { return "catalog/sequence_state/" + std::to_string(id); }

json SequenceToJson(const SequenceOptions& q) {
  return {{"type", TypeToJson(q.type)}, {"start", q.start}, {"increment", q.increment}, {"min", q.min},
          {"max", q.max}, {"cache", q.cache}, {"cycle", q.cycle}, {"owned_by_table", q.owned_by_table},
          {"owned_by_column", q.owned_by_column}};
}

SequenceOptions SequenceFromJson(const json& j) {
  SequenceOptions q;
  q.type = TypeFromJson(j.at("type"));
  q.start = j.at("start");
  q.increment = j.at("increment");
  q.min = j.at("min");
  q.max = j.at("max");
  q.cache = j.at("cache");
  q.cycle = j.at("cycle");
  q.owned_by_table = j.at("owned_by_table");
  q.owned_by_column = j.at("owned_by_column");
  return q;
}

std::string TypeJson(const TypeCatalog& t) {
  json labels = json::array();
  for (const auto& l : t.labels) labels.push_back({{"position", l.position}, {"label", l.label}, {"oid", l.oid}});
  json j{{"id", t.id},         {"array_id", t.array_id}, {"database_id", t.database_id}, {"schema_id", t.schema_id},
         {"name", t.name},     {"owner", t.owner},       {"labels", labels}};
  if (!t.comment.empty()) j["comment"] = t.comment;
  if (t.IsDomain()) {
    j["kind"] = "d";
    j["base_type"] = TypeToJson(t.base_type);
    j["base_domain"] = t.base_domain;
    j["not_null"] = t.not_null;
    j["default"] = t.default_expr;
    j["checks"] = ConstraintsToJson(t.checks);
  }
  return j.dump();
}

TypeCatalog TypeFromJsonEntry(const json& j) {
  TypeCatalog t{j.at("id"), j.at("array_id"), j.at("database_id"), j.at("schema_id"), j.at("name"), j.at("owner")};
  for (const auto& l : j.at("labels")) t.labels.push_back({l.at("position"), l.at("label"), l.at("oid")});
  t.comment = j.value("comment", "");
  if (j.value("kind", std::string("e")) == "d") {
    t.kind = 'd';
    t.base_type = TypeFromJson(j.at("base_type"));
    t.base_domain = j.value("base_domain", ObjectId{0});
    t.not_null = j.value("not_null", false);
    t.default_expr = j.value("default", std::string());
    t.checks = ConstraintsFromJson(j.at("checks"));
  }
  return t;
}

std::string FunctionJson(const FunctionCatalog& f) {
  json args = json::array();
  auto argument = [](const FunctionArgument& a) {
    json arg{{"name", a.name}, {"type", TypeToJson(a.type)}, {"default", a.default_expr}};
    if (a.mode != 'i') arg["mode"] = std::string(1, a.mode);
    if (!a.polymorphic.empty()) arg["polymorphic"] = a.polymorphic;
    return arg;
  };
  for (const auto& a : f.args) args.push_back(argument(a));
  json params = json::array();
  for (const auto& a : f.params) params.push_back(argument(a));
  json columns = json::array();
  for (const auto& [name, type] : f.table_columns) columns.push_back({{"name", name}, {"type", TypeToJson(type)}});
  json j{{"id", f.id},
         {"database_id", f.database_id},
         {"schema_id", f.schema_id},
         {"name", f.name},
         {"owner", f.owner},
         {"args", args},
         {"return_type", TypeToJson(f.return_type)},
         {"returns_set", f.returns_set},
         {"table_columns", columns},
         {"returns_table", f.returns_table},
         {"volatility", std::string(1, f.volatility)},
         {"strict", f.strict},
         {"body", f.body},
         {"source", f.source},
         {"relation_deps", f.relation_deps},
         {"function_deps", f.function_deps}};
  if (!f.comment.empty()) j["comment"] = f.comment;
  if (!f.params.empty()) j["params"] = params;
  if (!f.polymorphic_result.empty()) j["polymorphic_result"] = f.polymorphic_result;
  return j.dump();
}

FunctionCatalog FunctionFromJson(const json& j) {
  FunctionCatalog f;
  f.id = j.at("id");
  f.database_id = j.at("database_id");
  f.schema_id = j.at("schema_id");
  f.name = j.at("name");
  f.owner = j.at("owner");
  auto argument = [](const json& a) {
    return FunctionArgument{a.at("name"), TypeFromJson(a.at("type")), a.at("default"),
                            a.value("mode", std::string("i")).at(0), a.value("polymorphic", std::string())};
  };
  for (const auto& a : j.at("args")) f.args.push_back(argument(a));
  if (j.contains("params"))
    for (const auto& a : j.at("params")) f.params.push_back(argument(a));
  f.return_type = TypeFromJson(j.at("return_type"));
  f.returns_set = j.at("returns_set");
  f.polymorphic_result = j.value("polymorphic_result", std::string());
  for (const auto& c : j.at("table_columns")) f.table_columns.emplace_back(c.at("name"), TypeFromJson(c.at("type")));
  f.returns_table = j.at("returns_table");
  f.volatility = j.at("volatility").get<std::string>().at(0);
  f.strict = j.at("strict");
  f.body = j.at("body");
  f.source = j.value("source", "");
  if (j.contains("relation_deps")) f.relation_deps = j.at("relation_deps").get<std::vector<ObjectId>>();
  if (j.contains("function_deps")) f.function_deps = j.at("function_deps").get<std::vector<ObjectId>>();
  f.comment = j.value("comment", "");
  return f;
}

std::string SchemaJson(const SchemaCatalog& s) {
  json j{{"id", s.id}, {"database_id", s.database_id}, {"name", s.name}, {"owner", s.owner}};
  if (!s.comment.empty()) j["comment"] = s.comment;
  return j.dump();
}

json TableToJson(const TableCatalog& t) {
  json cols = json::array();
  for (const auto& c : t.columns) cols.push_back(ColumnToJson(c));
  return {{"id", t.id},           {"database_id", t.database_id}, {"schema_id", t.schema_id},
          {"owner", t.owner},     {"name", t.name},               {"kind", int(t.kind)},
          {"columns", cols},      {"pk", t.pk},                   {"dist_key", t.dist_key},
          {"row_id_index", t.row_id_index}, {"append_only", t.append_only},
          {"watermark_column", t.watermark_column}, {"watermark_expr", t.watermark_expr},
          {"on_conflict", t.on_conflict}, {"version_column", t.version_column},
          {"stream_watermark_columns", t.stream_watermark_columns},
          {"definition", t.definition}, {"view_query", t.view_query}, {"depends_on", t.depends_on}, {"function_deps", t.function_deps},
          {"input_columns", t.input_columns},
          {"created_at", t.created_at_micros}, {"status", int(t.status)},
          {"internal_tables", t.internal_tables}, {"plan_settings", t.plan_settings},
          {"stream_plan", t.stream_plan},
          {"job_id", t.job_id}, {"internal_kind", t.internal_kind}, {"connector_options", t.connector_options},
          {"storage_options", t.storage_options}, {"comment", t.comment},
          {"constraints", ConstraintsToJson(t.constraints)},
          {"backfill_upstream", t.backfill_upstream}, {"finished_at", t.finished_at_micros},
          {"failure", t.failure}, {"failure_code", t.failure_code},
          {"sequence", t.kind == RelationKind::kSequence ? SequenceToJson(t.sequence) : json()},
          {"timeseries", t.IsTimeSeries() ? json{{"time_index", t.timeseries.time_index},
                                                 {"tags", t.timeseries.tags},
                                                 {"partition_columns", t.timeseries.partition_columns},
                                                 {"partition_rules", t.timeseries.partition_rules},
                                                 {"options", t.timeseries.options}}
                                          : json()}};
}

TableCatalog TableFromJson(const json& j) {
  TableCatalog t;
  t.id = j.at("id");
  t.database_id = j.at("database_id");
  t.schema_id = j.at("schema_id");
  t.owner = j.at("owner");
  t.name = j.at("name");
  t.kind = static_cast<RelationKind>(j.at("kind").get<int>());
  for (const auto& c : j.at("columns")) t.columns.push_back(ColumnFromJson(c));
  t.pk = j.at("pk").get<std::vector<int>>();
  t.dist_key = j.at("dist_key").get<std::vector<int>>();
  t.row_id_index = j.at("row_id_index");
  t.append_only = j.at("append_only");
  t.watermark_column = j.value("watermark_column", -1);
  t.watermark_expr = j.value("watermark_expr", std::string());
  t.on_conflict = j.value("on_conflict", std::string());
  t.version_column = j.value("version_column", -1);
  if (j.contains("stream_watermark_columns"))
    t.stream_watermark_columns = j.at("stream_watermark_columns").get<std::vector<int>>();
  t.definition = j.at("definition");
  t.view_query = j.value("view_query", std::string());
  t.depends_on = j.at("depends_on").get<std::vector<ObjectId>>();
  if (j.contains("function_deps")) t.function_deps = j.at("function_deps").get<std::vector<ObjectId>>();
  if (j.contains("input_columns")) t.input_columns = j.at("input_columns").get<std::map<ObjectId, int>>();
  t.created_at_micros = j.value("created_at", int64_t(0));
  t.status = static_cast<JobStatus>(j.value("status", 0));
  if (j.contains("internal_tables")) t.internal_tables = j.at("internal_tables").get<std::vector<ObjectId>>();
  if (j.contains("plan_settings")) t.plan_settings = j.at("plan_settings").get<std::map<std::string, std::string>>();
  t.stream_plan = j.value("stream_plan", std::string());
  t.job_id = j.value("job_id", ObjectId(0));
  t.internal_kind = j.value("internal_kind", std::string());
  t.backfill_upstream = j.value("backfill_upstream", ObjectId(0));
  t.finished_at_micros = j.value("finished_at", int64_t(0));
  t.failure = j.value("failure", std::string());
  t.failure_code = j.value("failure_code", std::string(sqlstate::kInternalError));
  if (j.contains("storage_options")) t.storage_options = j.at("storage_options").get<std::vector<std::string>>();
  t.comment = j.value("comment", std::string());
  if (j.contains("constraints")) t.constraints = ConstraintsFromJson(j.at("constraints"));
  if (t.kind == RelationKind::kSequence) t.sequence = SequenceFromJson(j.at("sequence"));
  if (j.contains("connector_options"))
    t.connector_options = j.at("connector_options").get<std::map<std::string, std::string>>();
  if (j.contains("timeseries") && j.at("timeseries").is_object()) {
    const json& ts = j.at("timeseries");
    t.timeseries.time_index = ts.at("time_index");
    t.timeseries.tags = ts.at("tags").get<std::vector<int>>();
    t.timeseries.partition_columns = ts.at("partition_columns").get<std::vector<std::string>>();
    t.timeseries.partition_rules = ts.at("partition_rules").get<std::vector<std::string>>();
    t.timeseries.options = ts.at("options").get<std::map<std::string, std::string>>();
  }
  return t;
}

}  // namespace

namespace {
// Catalog versions: one counter for every Catalog object (version()).
std::atomic<uint64_t> g_catalog_versions{0};
uint64_t NextCatalogVersion() { return ++g_catalog_versions; }
}  // namespace

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

std::unique_ptr<Catalog> Catalog::Load(MetaStore* store) {
  std::unique_ptr<Catalog> c(new Catalog(store));
  bool fresh = true;
  std::string value;
  Status s = store->GetMeta(kNextIdKey, &value);
  if (s.ok()) {
    fresh = false;
    c->next_id_ = static_cast<ObjectId>(std::stoul(value));
  } else if (!s.IsNotFound()) {
    s.ThrowIfError();
  }
  auto parse = [](const std::string& key, const std::string& v) {
    try {
      return json::parse(v);
    } catch (const std::exception& e) {
      throw SqlError(sqlstate::kDataCorrupted, "corrupt catalog entry " + key + ": " + e.what());
    }
  };
  store->ScanMeta("catalog/database/", [&](const std::string& k, const std::string& v) {
    json j = parse(k, v);
    DatabaseCatalog d{j.at("id"), j.at("name"), j.at("owner"), j.value("barrier_interval_ms", 0),
                      j.value("checkpoint_frequency", 0), j.value("ttl", std::string())};
    c->databases_[d.id] = d;
  });
  store->ScanMeta("catalog/schema/", [&](const std::string& k, const std::string& v) {
    json j = parse(k, v);
    SchemaCatalog sc{j.at("id"), j.at("database_id"), j.at("name"), j.at("owner"), j.value("comment", "")};
    c->schemas_[sc.id] = sc;
  });
  store->ScanMeta("catalog/table/", [&](const std::string& k, const std::string& v) {
    auto t = std::make_shared<TableCatalog>(TableFromJson(parse(k, v)));
    c->tables_[t->id] = t;
  });
  store->ScanMeta("catalog/type/", [&](const std::string& k, const std::string& v) {
    TypeCatalog t = TypeFromJsonEntry(parse(k, v));
    c->PublishTypeLocked(t);
    c->types_[t.id] = std::move(t);
  });
  store->ScanMeta("catalog/function/", [&](const std::string& k, const std::string& v) {
    FunctionCatalog f = FunctionFromJson(parse(k, v));
    c->functions_[f.id] = std::move(f);
  });
  store->ScanMeta("catalog/user/", [&](const std::string& k, const std::string& v) {
    json j = parse(k, v);
    UserCatalog u{j.at("id"), j.at("name"), j.at("superuser"), j.value("can_login", true)};
    c->users_[u.id] = u;
  });
  store->ScanMeta("catalog/event/", [&](const std::string& k, const std::string& v) {
    json j = parse(k, v);
    Event e{j.at("id"), j.at("at"), j.at("type"), j.at("info")};
    c->events_[e.id] = e;
  });
  c->version_ = NextCatalogVersion();
  if (fresh) c->Bootstrap();
  // The databases tools connect to first (psql -l, pgAdmin, createdb):
  // made once, by the first start of this version; dropping them is the
  // user's business.
  if (store->GetMeta(kToolDatabasesKey, &value).IsNotFound()) {
    for (const char* name : {"postgres", "template1"})
      if (!c->FindDatabase(name)) c->CreateDatabase(name, kRootUserId);
    MetaWrite batch;
    batch.Put(kToolDatabasesKey, "1");
    std::unique_lock lock(c->mu_);
    c->CommitLocked(&batch);
  }
  // An ALTER TABLE rewrite that a crash interrupted: its half-filled table
  // goes (the altered table was not touched); so do the temporary schemas
  // of sessions a crash ended, with their relations.
  std::vector<ObjectId> unfinished, temp_schemas;
  for (const auto& [id, s] : c->schemas_)
    if (IsTempSchemaName(s.name)) temp_schemas.push_back(id);
  for (const auto& [id, t] : c->tables_) {
    if (t->kind == RelationKind::kInternal && t->internal_kind == kRewriteKind) unfinished.push_back(id);
    if (std::find(temp_schemas.begin(), temp_schemas.end(), t->schema_id) != temp_schemas.end()) unfinished.push_back(id);
  }
  if (!unfinished.empty() || !temp_schemas.empty()) {
    try {
      c->DropObjects({}, temp_schemas, unfinished);
    } catch (const SqlError& e) {
      // A full disk: they stay, invisible, until a start with room.
      spdlog::warn("could not drop {} leftover relations of interrupted rewrites and ended sessions: {}",
                   unfinished.size(), e.message());
    }
  }
  return c;
}

void Catalog::Bootstrap() {
  std::unique_lock lock(mu_);
  MetaWrite batch;
  UserCatalog root{NextIdLocked(&batch), "root", true, true};
  batch.Put(UserKey(root.id), json{{"id", root.id}, {"name", root.name}, {"superuser", true}}.dump());
  DatabaseCatalog dev{NextIdLocked(&batch), kDefaultDatabase, root.id};
  batch.Put(DatabaseKey(dev.id), DatabaseJson(dev));
  std::vector<SchemaCatalog> schemas;
  CreateBuiltinSchemasLocked(dev.id, &batch, &schemas);
  CommitLocked(&batch);
  users_[root.id] = root;
  databases_[dev.id] = dev;
  for (auto& s : schemas) schemas_[s.id] = s;
}

ObjectId Catalog::NextIdLocked(MetaWrite* batch) {
  if (parent_) return parent_->ReserveId();
  ObjectId id = next_id_++;
  batch->Put(kNextIdKey, std::to_string(next_id_));
  return id;
}

ObjectId Catalog::ReserveId() {
  std::unique_lock lock(mu_);
  MetaWrite batch;
  ObjectId id = NextIdLocked(&batch);
  store_->CommitMeta(batch).ThrowIfError();
  return id;
}

void Catalog::CommitLocked(MetaWrite* batch) {
  store_->CommitMeta(*batch).ThrowIfError();
  version_ = NextCatalogVersion();
}

// What a transaction's catalog stores: kept in order, in memory; reads see
// it over the parent's store.
class Catalog::TransactionStore : public MetaStore {
 public:
  explicit TransactionStore(MetaStore* parent) : parent_(parent) {}
  Status GetMeta(const std::string& key, std::string* value) const override {
    for (auto it = kept_.ops().rbegin(); it != kept_.ops().rend(); ++it) {
      if (it->key != key || it->kind == MetaWrite::Op::kDropData) continue;
      if (it->kind == MetaWrite::Op::kDelete) return Status::NotFound(key);
      *value = it->value;
      return Status::OK();
    }
    return parent_->GetMeta(key, value);
  }
  // Only the catalog's loading scans, and a transaction's catalog is never
  // loaded.
  void ScanMeta(const std::string& prefix,
                const std::function<void(const std::string&, const std::string&)>& fn) const override {
    parent_->ScanMeta(prefix, fn);
  }
  Status CommitMeta(const MetaWrite& write) override {
    for (const auto& op : write.ops()) kept_.Append(op);
    return Status::OK();
  }
  const MetaWrite& kept() const { return kept_; }

 private:
  MetaStore* parent_;
  MetaWrite kept_;
};

std::unique_ptr<Catalog> Catalog::BeginTransaction() {
  std::shared_lock lock(mu_);
  auto store = std::make_shared<TransactionStore>(store_);
  std::unique_ptr<Catalog> txn(new Catalog(store.get()));
  txn->txn_store_ = std::move(store);
  txn->parent_ = this;
  txn->version_ = NextCatalogVersion();
  txn->databases_ = txn->began_databases_ = databases_;
  txn->schemas_ = txn->began_schemas_ = schemas_;
  txn->tables_ = txn->began_tables_ = tables_;
  txn->users_ = txn->began_users_ = users_;
  txn->types_ = txn->began_types_ = types_;
  txn->functions_ = txn->began_functions_ = functions_;
  return txn;
}

std::unique_ptr<Catalog> Catalog::CopyTransaction() const {
  std::shared_lock lock(mu_);
  auto store = std::make_shared<TransactionStore>(*txn_store_);
  std::unique_ptr<Catalog> copy(new Catalog(store.get()));
  copy->txn_store_ = std::move(store);
  copy->parent_ = parent_;
  copy->version_ = NextCatalogVersion();
  copy->databases_ = databases_;
  copy->schemas_ = schemas_;
  copy->tables_ = tables_;
  copy->users_ = users_;
  copy->types_ = types_;
  copy->began_types_ = began_types_;
  copy->functions_ = functions_;
  copy->began_functions_ = began_functions_;
  copy->pending_labels_ = pending_labels_;
  copy->began_databases_ = began_databases_;
  copy->began_schemas_ = began_schemas_;
  copy->began_tables_ = began_tables_;
  copy->began_users_ = began_users_;
  return copy;
}

void Catalog::AdoptIntoTransaction(const TableRef& table) {
  std::unique_lock lock(mu_);
  tables_[table->id] = table;
  began_tables_[table->id] = table;
  version_ = NextCatalogVersion();
}

std::vector<ObjectId> Catalog::DroppedByTransaction() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectId> out;
  for (const auto& [id, t] : began_tables_)
    if (!tables_.count(id)) out.push_back(id);
  return out;
}

namespace {

// The ids whose entry differs between `began` and `now`.
template <typename Map, typename Same>
std::vector<ObjectId> ChangedIds(const Map& began, const Map& now, Same same) {
  std::vector<ObjectId> out;
  for (const auto& [id, v] : now)
    if (auto it = began.find(id); it == began.end() || !same(it->second, v)) out.push_back(id);
  for (const auto& [id, v] : began)
    if (!now.count(id)) out.push_back(id);
  return out;
}

[[noreturn]] void ThrowConcurrentDdl(const std::string& what) {
  throw SqlError(sqlstate::kSerializationFailure,
                 fmt::format("could not serialize access due to concurrent DDL on {}", what))
      .WithHint("Run the transaction again.");
}

}  // namespace

bool Catalog::MadeInTransaction(ObjectId id) const {
  std::shared_lock lock(mu_);
  return is_transaction() && tables_.count(id) && !began_tables_.count(id);
}

void Catalog::CommitTransaction(const Catalog& txn) {
  std::shared_lock txn_lock(txn.mu_);
  std::unique_lock lock(mu_);
  auto same_table = [](const TableRef& a, const TableRef& b) { return a == b; };
  auto same_schema = [](const SchemaCatalog& a, const SchemaCatalog& b) { return a.name == b.name && a.owner == b.owner; };
  auto same_user = [](const UserCatalog& a, const UserCatalog& b) {
    return a.name == b.name && a.superuser == b.superuser && a.can_login == b.can_login;
  };
  auto same_database = [](const DatabaseCatalog& a, const DatabaseCatalog& b) { return DatabaseJson(a) == DatabaseJson(b); };
  std::vector<ObjectId> tables = ChangedIds(txn.began_tables_, txn.tables_, same_table);
  std::vector<ObjectId> schemas = ChangedIds(txn.began_schemas_, txn.schemas_, same_schema);
  std::vector<ObjectId> users = ChangedIds(txn.began_users_, txn.users_, same_user);
  std::vector<ObjectId> databases = ChangedIds(txn.began_databases_, txn.databases_, same_database);
  auto same_type = [](const TypeCatalog& a, const TypeCatalog& b) { return TypeJson(a) == TypeJson(b); };
  std::vector<ObjectId> types = ChangedIds(txn.began_types_, txn.types_, same_type);
  auto same_function = [](const FunctionCatalog& a, const FunctionCatalog& b) { return FunctionJson(a) == FunctionJson(b); };
  std::vector<ObjectId> functions = ChangedIds(txn.began_functions_, txn.functions_, same_function);
  // Each object it changed is here as it began, and no other object here
  // took a name it gives.
  std::set<ObjectId> changed(tables.begin(), tables.end());
  for (ObjectId id : tables) {
    auto began = txn.began_tables_.find(id);
    auto here = tables_.find(id);
    TableRef was = began == txn.began_tables_.end() ? nullptr : began->second;
    TableRef is = here == tables_.end() ? nullptr : here->second;
    if (was != is) ThrowConcurrentDdl(fmt::format("relation \"{}\"", (was ? was : is)->name));
    auto now = txn.tables_.find(id);
    if (now == txn.tables_.end()) continue;
    for (const auto& [other, t] : tables_)
      if (!changed.count(other) && t->schema_id == now->second->schema_id && t->name == now->second->name)
        ThrowConcurrentDdl(fmt::format("relation \"{}\"", t->name));
  }
  auto check_named = [&](const auto& ids, const auto& began, const auto& now, const auto& here, const char* kind,
                         auto same, auto same_namespace) {
    for (ObjectId id : ids) {
      auto b = began.find(id);
      auto h = here.find(id);
      if ((b == began.end()) != (h == here.end()) || (b != began.end() && !same(b->second, h->second)))
        ThrowConcurrentDdl(fmt::format("{} \"{}\"", kind, (b != began.end() ? b->second : h->second).name));
      auto n = now.find(id);
      if (n == now.end()) continue;
      for (const auto& [other, v] : here)
        if (other != id && v.name == n->second.name && same_namespace(v, n->second))
          ThrowConcurrentDdl(fmt::format("{} \"{}\"", kind, v.name));
    }
  };
  auto anywhere = [](const auto&, const auto&) { return true; };
  check_named(schemas, txn.began_schemas_, txn.schemas_, schemas_, "schema", same_schema,
              [](const SchemaCatalog& a, const SchemaCatalog& b) { return a.database_id == b.database_id; });
  check_named(users, txn.began_users_, txn.users_, users_, "role", same_user, anywhere);
  check_named(databases, txn.began_databases_, txn.databases_, databases_, "database", same_database, anywhere);
  check_named(types, txn.began_types_, txn.types_, types_, "type", same_type,
              [](const TypeCatalog& a, const TypeCatalog& b) { return a.schema_id == b.schema_id; });
  check_named(functions, txn.began_functions_, txn.functions_, functions_, "function", same_function,
              [](const FunctionCatalog& a, const FunctionCatalog& b) {
                return a.schema_id == b.schema_id && a.IdentityArguments() == b.IdentityArguments();
              });

  MetaWrite write = txn.txn_store_->kept();
  CommitLocked(&write);
  auto apply = [](const auto& ids, const auto& now, auto& here) {
    for (ObjectId id : ids) {
      auto n = now.find(id);
      if (n == now.end()) here.erase(id);
      else here[id] = n->second;
    }
  };
  apply(tables, txn.tables_, tables_);
  apply(schemas, txn.schemas_, schemas_);
  apply(users, txn.users_, users_);
  apply(databases, txn.databases_, databases_);
  apply(types, txn.types_, types_);
  apply(functions, txn.functions_, functions_);
  for (ObjectId id : types)
    if (auto it = types_.find(id); it != types_.end()) PublishTypeLocked(it->second);
}

void Catalog::CreateBuiltinSchemasLocked(ObjectId database_id, MetaWrite* batch,
                                         std::vector<SchemaCatalog>* created) {
  for (const char* name : {kDefaultSchema, kPgCatalogSchema, kInformationSchema, kRwCatalogSchema}) {
    SchemaCatalog s{NextIdLocked(batch), database_id, name, kRootUserId};
    // The comments initdb leaves.
    if (s.name == kDefaultSchema) s.comment = "standard public schema";
    if (s.name == kPgCatalogSchema) s.comment = "system catalog schema";
    batch->Put(SchemaKey(s.id),
               SchemaJson(s));
    created->push_back(s);
  }
}

std::optional<DatabaseCatalog> Catalog::FindDatabase(const std::string& name) const {
  std::shared_lock lock(mu_);
  for (const auto& [id, d] : databases_)
    if (d.name == name) return d;
  return std::nullopt;
}

std::optional<DatabaseCatalog> Catalog::GetDatabase(ObjectId id) const {
  std::shared_lock lock(mu_);
  auto it = databases_.find(id);
  if (it == databases_.end()) return std::nullopt;
  return it->second;
}

std::vector<DatabaseCatalog> Catalog::ListDatabases() const {
  std::shared_lock lock(mu_);
  std::vector<DatabaseCatalog> out;
  for (const auto& [id, d] : databases_) out.push_back(d);
  return out;
}

std::optional<SchemaCatalog> Catalog::FindSchema(ObjectId database_id, const std::string& name) const {
  std::shared_lock lock(mu_);
  for (const auto& [id, s] : schemas_)
    if (s.database_id == database_id && s.name == name) return s;
  return std::nullopt;
}

std::optional<SchemaCatalog> Catalog::GetSchema(ObjectId id) const {
  std::shared_lock lock(mu_);
  auto it = schemas_.find(id);
  if (it == schemas_.end()) return std::nullopt;
  return it->second;
}

std::vector<SchemaCatalog> Catalog::ListSchemas(ObjectId database_id) const {
  std::shared_lock lock(mu_);
  std::vector<SchemaCatalog> out;
  for (const auto& [id, s] : schemas_)
    if (s.database_id == database_id) out.push_back(s);
  return out;
}

TableRef Catalog::FindTable(ObjectId schema_id, const std::string& name) const {
  std::shared_lock lock(mu_);
  for (const auto& [id, t] : tables_)
    if (t->schema_id == schema_id && t->name == name) return t;
  return nullptr;
}

TableRef Catalog::GetTable(ObjectId id) const {
  std::shared_lock lock(mu_);
  auto it = tables_.find(id);
  return it == tables_.end() ? nullptr : it->second;
}

std::string Catalog::QualifiedName(ObjectId id) const {
  TableRef t = GetTable(id);
  if (!t) return std::to_string(id);
  auto db = GetDatabase(t->database_id);
  auto schema = GetSchema(t->schema_id);
  return (db ? db->name : "?") + "." + (schema ? schema->name : "?") + "." + t->name;
}

std::vector<TableRef> Catalog::ListTables(ObjectId database_id) const {
  std::shared_lock lock(mu_);
  std::vector<TableRef> out;
  for (const auto& [id, t] : tables_)
    if (t->database_id == database_id) out.push_back(t);
  return out;
}

std::vector<TableRef> Catalog::Dependents(ObjectId id) const {
  std::shared_lock lock(mu_);
  std::vector<TableRef> out;
  for (const auto& [tid, t] : tables_)
    for (ObjectId d : t->depends_on)
      if (d == id) out.push_back(t);
  return out;
}

std::optional<UserCatalog> Catalog::FindUser(const std::string& name) const {
  std::shared_lock lock(mu_);
  for (const auto& [id, u] : users_)
    if (u.name == name) return u;
  return std::nullopt;
}

std::optional<UserCatalog> Catalog::GetUser(ObjectId id) const {
  std::shared_lock lock(mu_);
  auto it = users_.find(id);
  if (it == users_.end()) return std::nullopt;
  return it->second;
}

std::vector<UserCatalog> Catalog::ListUsers() const {
  std::shared_lock lock(mu_);
  std::vector<UserCatalog> out;
  for (const auto& [id, u] : users_) out.push_back(u);
  return out;
}

DatabaseCatalog Catalog::CreateDatabase(const std::string& name, ObjectId owner, const DatabaseCatalog& settings) {
  std::unique_lock lock(mu_);
  for (const auto& [id, d] : databases_)
    if (d.name == name) FRESHET_THROW(sqlstate::kDuplicateDatabase, "database \"{}\" already exists", name);
  MetaWrite batch;
  DatabaseCatalog d = settings;
  d.id = NextIdLocked(&batch);
  d.name = name;
  d.owner = owner;
  batch.Put(DatabaseKey(d.id), DatabaseJson(d));
  std::vector<SchemaCatalog> schemas;
  CreateBuiltinSchemasLocked(d.id, &batch, &schemas);
  CommitLocked(&batch);
  databases_[d.id] = d;
  for (auto& s : schemas) schemas_[s.id] = s;
  return d;
}

SchemaCatalog Catalog::CreateSchema(ObjectId database_id, const std::string& name, ObjectId owner) {
  std::unique_lock lock(mu_);
  for (const auto& [id, s] : schemas_)
    if (s.database_id == database_id && s.name == name)
      FRESHET_THROW(sqlstate::kDuplicateSchema, "schema \"{}\" already exists", name);
  MetaWrite batch;
  SchemaCatalog s{NextIdLocked(&batch), database_id, name, owner};
  batch.Put(SchemaKey(s.id),
            SchemaJson(s));
  CommitLocked(&batch);
  schemas_[s.id] = s;
  return s;
}

void Catalog::SetSchemaOwner(ObjectId schema_id, ObjectId owner) {
  UpdateSchema(schema_id, [&](SchemaCatalog* s) { s->owner = owner; });
}

void Catalog::SetDatabaseOwner(ObjectId database_id, ObjectId owner) {
  UpdateDatabase(database_id, [&](DatabaseCatalog* d) { d->owner = owner; });
}

void Catalog::SetDatabaseBarrierSettings(ObjectId database_id, int barrier_interval_ms, int checkpoint_frequency) {
  UpdateDatabase(database_id, [&](DatabaseCatalog* d) {
    d->barrier_interval_ms = barrier_interval_ms;
    d->checkpoint_frequency = checkpoint_frequency;
  });
}

void Catalog::SetDatabaseTimeToLive(ObjectId database_id, const std::string& ttl) {
  UpdateDatabase(database_id, [&](DatabaseCatalog* d) { d->ttl = ttl; });
}

std::string Catalog::EffectiveTimeToLive(const TableCatalog& t) const {
  if (std::string own = t.timeseries.Option("ttl"); !own.empty()) return own;
  std::shared_lock lock(mu_);
  auto it = databases_.find(t.database_id);
  return it == databases_.end() ? std::string() : it->second.ttl;
}

void Catalog::UpdateDatabase(ObjectId database_id, const std::function<void(DatabaseCatalog*)>& change) {
  std::unique_lock lock(mu_);
  auto it = databases_.find(database_id);
  if (it == databases_.end()) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database with id {} was dropped", database_id);
  DatabaseCatalog d = it->second;
  change(&d);
  MetaWrite batch;
  batch.Put(DatabaseKey(d.id), DatabaseJson(d));
  CommitLocked(&batch);
  it->second = d;
}

void Catalog::SetSchemaComment(ObjectId schema_id, const std::string& comment) {
  UpdateSchema(schema_id, [&](SchemaCatalog* s) { s->comment = comment; });
}

void Catalog::UpdateSchema(ObjectId schema_id, const std::function<void(SchemaCatalog*)>& change) {
  std::unique_lock lock(mu_);
  auto it = schemas_.find(schema_id);
  if (it == schemas_.end()) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema with id {} was dropped", schema_id);
  SchemaCatalog s = it->second;
  change(&s);
  MetaWrite batch;
  batch.Put(SchemaKey(s.id), SchemaJson(s));
  CommitLocked(&batch);
  it->second = s;
}

TableRef Catalog::CreateTable(TableCatalog table, std::vector<TableCatalog> owned_sequences, ObjectId reserved_id) {
  std::unique_lock lock(mu_);
  for (const auto& [id, t] : tables_) {
    if (t->schema_id == table.schema_id && t->name == table.name)
      FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", table.name);
    for (const auto& q : owned_sequences)
      if (t->schema_id == q.schema_id && t->name == q.name)
        FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", q.name);
  }
  CheckTypeNameFreeLocked(table.schema_id, table.name, 0);
  MetaWrite batch;
  table.id = reserved_id ? reserved_id : NextIdLocked(&batch);
  for (auto& c : table.constraints)
    if (c.type == 'u') c.index_id = NextIdLocked(&batch);  // a new table: empty indexes
  if (table.created_at_micros == 0) table.created_at_micros = NowMicros();
  batch.Put(TableKey(table.id), TableToJson(table).dump());
  batch.Put(RowCountMetaKey(table.id), "0");
  for (auto& q : owned_sequences) {
    q.id = NextIdLocked(&batch);
    q.created_at_micros = table.created_at_micros;
    q.sequence.owned_by_table = table.id;
    batch.Put(TableKey(q.id), TableToJson(q).dump());
  }
  CommitLocked(&batch);
  auto ref = std::make_shared<const TableCatalog>(std::move(table));
  tables_[ref->id] = ref;
  for (auto& q : owned_sequences) {
    auto seq = std::make_shared<const TableCatalog>(std::move(q));
    tables_[seq->id] = seq;
  }
  return ref;
}

std::pair<TableRef, std::vector<TableRef>> Catalog::CreateJob(TableCatalog job, std::vector<TableCatalog> internals,
                                                             ObjectId reserved_id) {
  std::unique_lock lock(mu_);
  for (const auto& [id, t] : tables_) {
    if (t->schema_id == job.schema_id && t->name == job.name)
      FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", job.name);
  }
  CheckTypeNameFreeLocked(job.schema_id, job.name, 0);
  MetaWrite batch;
  job.id = reserved_id ? reserved_id : NextIdLocked(&batch);
  job.created_at_micros = NowMicros();
  job.internal_tables.clear();
  for (auto& t : internals) {
    t.id = NextIdLocked(&batch);
    t.name += "_" + std::to_string(t.id);
    t.job_id = job.id;
    t.created_at_micros = job.created_at_micros;
    job.internal_tables.push_back(t.id);
  }
  batch.Put(TableKey(job.id), TableToJson(job).dump());
  batch.Put(RowCountMetaKey(job.id), "0");
  for (const auto& t : internals) batch.Put(TableKey(t.id), TableToJson(t).dump());
  CommitLocked(&batch);
  auto ref = std::make_shared<const TableCatalog>(std::move(job));
  tables_[ref->id] = ref;
  std::vector<TableRef> refs;
  for (auto& t : internals) {
    auto r = std::make_shared<const TableCatalog>(std::move(t));
    tables_[r->id] = r;
    refs.push_back(r);
  }
  return {ref, refs};
}

void Catalog::UpdateTable(ObjectId id, const std::function<void(TableCatalog*)>& change) {
  std::unique_lock lock(mu_);
  auto it = tables_.find(id);
  if (it == tables_.end()) return;
  TableCatalog t = *it->second;
  change(&t);
  MetaWrite batch;
  batch.Put(TableKey(t.id), TableToJson(t).dump());
  CommitLocked(&batch);
  it->second = std::make_shared<const TableCatalog>(std::move(t));
}

TableRef Catalog::AlterTable(const TableCatalog& table) {
  std::unique_lock lock(mu_);
  auto it = tables_.find(table.id);
  if (it == tables_.end()) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", table.id);
  for (const auto& [id, t] : tables_)
    if (id != table.id && t->schema_id == table.schema_id && t->name == table.name)
      FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", table.name);
  // A unique constraint is only added with its index filled (by a rewrite,
  // or in place: DmlManager::FillUniqueIndex).
  std::vector<ObjectId> kept = UniqueIndexIds(table);
  for (const auto& c : table.constraints)
    if (c.type == 'u' && !c.index_id)
      throw SqlError(sqlstate::kInternalError, "a unique constraint cannot be added without a rewrite");
  MetaWrite batch;
  batch.Put(TableKey(table.id), TableToJson(table).dump());
  for (ObjectId index : UniqueIndexIds(*it->second))
    if (std::find(kept.begin(), kept.end(), index) == kept.end()) batch.DropRelationData(index);
  CommitLocked(&batch);
  it->second = std::make_shared<const TableCatalog>(table);
  return it->second;
}

TableRef Catalog::ReplaceTable(ObjectId old_id, const TableCatalog& table) {
  std::unique_lock lock(mu_);
  if (!tables_.count(old_id) || !tables_.count(table.id))
    FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", tables_.count(old_id) ? table.id : old_id);
  for (const auto& [id, t] : tables_)
    if (id != table.id && id != old_id && t->schema_id == table.schema_id && t->name == table.name)
      FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", table.name);
  MetaWrite batch;
  batch.Put(TableKey(table.id), TableToJson(table).dump());
  batch.Delete(TableKey(old_id));
  batch.Delete(RowCountMetaKey(old_id));
  batch.DropRelationData(old_id);
  for (ObjectId index : UniqueIndexIds(*tables_.at(old_id))) batch.DropRelationData(index);
  // What read the old relation (views) reads the new one.
  std::vector<std::shared_ptr<TableCatalog>> retargeted;
  for (const auto& [id, t] : tables_) {
    if (id == old_id || std::find(t->depends_on.begin(), t->depends_on.end(), old_id) == t->depends_on.end()) continue;
    auto copy = std::make_shared<TableCatalog>(*t);
    std::replace(copy->depends_on.begin(), copy->depends_on.end(), old_id, table.id);
    if (auto it = copy->input_columns.find(old_id); it != copy->input_columns.end()) {
      copy->input_columns[table.id] = it->second;
      copy->input_columns.erase(old_id);
    }
    batch.Put(TableKey(copy->id), TableToJson(*copy).dump());
    retargeted.push_back(std::move(copy));
  }
  CommitLocked(&batch);
  for (auto& t : retargeted) tables_[t->id] = std::move(t);
  tables_.erase(old_id);
  auto ref = std::make_shared<const TableCatalog>(table);
  tables_[table.id] = ref;
  return ref;
}

TableRef Catalog::ReplaceView(ObjectId id, const TableCatalog& view) {
  UpdateTable(id, [&](TableCatalog* t) {
    t->columns = view.columns;
    t->definition = view.definition;
    t->view_query = view.view_query;
    t->plan_settings = view.plan_settings;
    t->depends_on = view.depends_on;
    t->function_deps = view.function_deps;
    t->input_columns = view.input_columns;
  });
  return GetTable(id);
}

void Catalog::SetPlanSetting(ObjectId id, const std::string& key, const std::string& value) {
  UpdateTable(id, [&](TableCatalog* t) { t->plan_settings[key] = value; });
}

void Catalog::SetJobStatus(ObjectId id, JobStatus status, uint64_t snapshot_seq) {
  UpdateTable(id, [&](TableCatalog* t) {
    t->status = status;
    if (status == JobStatus::kCreated) {
      t->finished_at_micros = NowMicros();
      t->complete_from_snapshot = snapshot_seq;
    }
  });
}

void Catalog::SetJobFailed(ObjectId id, const std::string& failure, const std::string& code) {
  UpdateTable(id, [&](TableCatalog* t) {
    t->status = JobStatus::kFailed;
    t->failure = failure;
    t->failure_code = code;
  });
}

namespace {
std::string EventKey(uint64_t id) { return fmt::format("catalog/event/{:020}", id); }
}  // namespace

void Catalog::RecordEvent(const std::string& type, const std::string& info) {
  std::unique_lock lock(mu_);
  Event e{events_.empty() ? 1 : events_.rbegin()->first + 1, NowMicros(), type, info};
  MetaWrite batch;
  batch.Put(EventKey(e.id),
            json{{"id", e.id}, {"at", e.at_micros}, {"type", e.type}, {"info", e.info}}.dump());
  std::vector<uint64_t> dropped;
  for (auto it = events_.begin(); events_.size() - dropped.size() >= kMaxEvents && it != events_.end(); ++it) {
    batch.Delete(EventKey(it->first));
    dropped.push_back(it->first);
  }
  // An event that cannot be stored (a full disk) is still logged by the
  // caller and kept in memory.
  if (!store_->CommitMeta(batch).ok()) dropped.clear();
  for (uint64_t id : dropped) events_.erase(id);
  events_[e.id] = std::move(e);
}

std::vector<Catalog::Event> Catalog::ListEvents() const {
  std::shared_lock lock(mu_);
  std::vector<Event> out;
  for (const auto& [id, e] : events_) out.push_back(e);
  return out;
}

void Catalog::DropObjects(const std::vector<ObjectId>& database_ids, const std::vector<ObjectId>& schema_ids,
                          const std::vector<ObjectId>& table_ids) {
  std::unique_lock lock(mu_);
  MetaWrite batch;
  for (ObjectId id : table_ids) {
    batch.Delete(TableKey(id));
    batch.Delete(SequenceStateKey(id));
    batch.Delete(RowCountMetaKey(id));
    batch.DropRelationData(id);
    if (auto it = tables_.find(id); it != tables_.end())
      for (ObjectId index : UniqueIndexIds(*it->second)) batch.DropRelationData(index);
  }
  for (ObjectId id : schema_ids) batch.Delete(SchemaKey(id));
  std::vector<ObjectId> type_ids;
  for (const auto& [id, t] : types_)
    if (std::find(schema_ids.begin(), schema_ids.end(), t.schema_id) != schema_ids.end() ||
        std::find(database_ids.begin(), database_ids.end(), t.database_id) != database_ids.end()) {
      batch.Delete(TypeKey(id));
      type_ids.push_back(id);
    }
  std::vector<ObjectId> function_ids;
  for (const auto& [id, f] : functions_)
    if (std::find(schema_ids.begin(), schema_ids.end(), f.schema_id) != schema_ids.end() ||
        std::find(database_ids.begin(), database_ids.end(), f.database_id) != database_ids.end()) {
      batch.Delete(FunctionKey(id));
      function_ids.push_back(id);
    }
  for (ObjectId id : database_ids) {
    batch.Delete(DatabaseKey(id));
    batch.Delete(EpochMetaKey(id));
    batch.Delete(DmlLogCoveredKey(id));
  }
  CommitLocked(&batch);
  for (ObjectId id : table_ids) tables_.erase(id);
  for (ObjectId id : schema_ids) schemas_.erase(id);
  for (ObjectId id : database_ids) databases_.erase(id);
  for (ObjectId id : type_ids) types_.erase(id);
  for (ObjectId id : function_ids) functions_.erase(id);
}

Catalog::~Catalog() {
  if (!is_transaction() || pending_labels_.empty()) return;
  std::set<ObjectId> touched;
  for (const auto& [id, t] : types_)
    for (const auto& l : t.labels)
      if (pending_labels_.count(l.oid)) touched.insert(id);
  for (ObjectId id : touched)
    if (auto committed = parent_->GetType(id))
      PublishEnumType({committed->id, ObjectOid(committed->id), ObjectOid(committed->array_id), committed->name,
                       committed->labels});
}

void Catalog::PublishTypeLocked(const TypeCatalog& type) const {
  if (type.IsDomain()) return;  // values of its base type: nothing to publish
  if (!is_transaction()) {
    PublishEnumType({type.id, ObjectOid(type.id), ObjectOid(type.array_id), type.name, type.labels});
    return;
  }
  // In a transaction: labels it adds are pending (unusable until COMMIT,
  // as in PostgreSQL); other changes to a type it did not make wait for
  // COMMIT, so that a ROLLBACK leaves nothing behind.
  std::vector<EnumLabel> added;
  for (const auto& l : type.labels)
    if (pending_labels_.count(l.oid)) added.push_back(l);
  if (!began_types_.count(type.id)) {
    std::vector<EnumLabel> made;
    for (const auto& l : type.labels)
      if (!pending_labels_.count(l.oid)) made.push_back(l);
    PublishEnumType({type.id, ObjectOid(type.id), ObjectOid(type.array_id), type.name, made});
  }
  PublishPendingEnumLabels(type.id, added);
}

void Catalog::CheckTypeNameFreeLocked(ObjectId schema_id, const std::string& name, ObjectId except) const {
  for (const auto& [id, t] : types_)
    if (id != except && t.schema_id == schema_id && t.name == name)
      FRESHET_THROW(sqlstate::kDuplicateObject, "type \"{}\" already exists", name);
}

std::optional<TypeCatalog> Catalog::FindType(ObjectId schema_id, const std::string& name) const {
  std::shared_lock lock(mu_);
  for (const auto& [id, t] : types_)
    if (t.schema_id == schema_id && t.name == name) return t;
  return std::nullopt;
}

std::optional<TypeCatalog> Catalog::GetType(ObjectId id) const {
  std::shared_lock lock(mu_);
  auto it = types_.find(id);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

std::vector<TypeCatalog> Catalog::ListTypes(ObjectId database_id) const {
  std::shared_lock lock(mu_);
  std::vector<TypeCatalog> out;
  for (const auto& [id, t] : types_)
    if (t.database_id == database_id) out.push_back(t);
  return out;
}

TypeCatalog Catalog::CreateType(TypeCatalog type) {
  std::unique_lock lock(mu_);
  CheckTypeNameFreeLocked(type.schema_id, type.name, 0);
  for (const auto& [id, t] : tables_)
    if (t->schema_id == type.schema_id && t->name == type.name)
      FRESHET_THROW(sqlstate::kDuplicateObject, "type \"{}\" already exists", type.name);
  MetaWrite batch;
  type.id = NextIdLocked(&batch);
  type.array_id = NextIdLocked(&batch);
  for (auto& l : type.labels) l.oid = ObjectOid(NextIdLocked(&batch));
  batch.Put(TypeKey(type.id), TypeJson(type));
  CommitLocked(&batch);
  types_[type.id] = type;
  PublishTypeLocked(type);
  return type;
}

TypeCatalog Catalog::AlterType(TypeCatalog type) {
  std::unique_lock lock(mu_);
  if (!types_.count(type.id)) FRESHET_THROW(sqlstate::kUndefinedObject, "type with id {} was dropped", type.id);
  CheckTypeNameFreeLocked(type.schema_id, type.name, type.id);
  for (const auto& [id, t] : tables_)
    if (t->schema_id == type.schema_id && t->name == type.name)
      FRESHET_THROW(sqlstate::kDuplicateObject, "type \"{}\" already exists", type.name);
  MetaWrite batch;
  for (auto& l : type.labels)
    if (!l.oid) {
      l.oid = ObjectOid(NextIdLocked(&batch));
      if (is_transaction()) pending_labels_.insert(l.oid);
    }
  std::sort(type.labels.begin(), type.labels.end(), [](const EnumLabel& a, const EnumLabel& b) { return a.position < b.position; });
  batch.Put(TypeKey(type.id), TypeJson(type));
  CommitLocked(&batch);
  types_[type.id] = type;
  PublishTypeLocked(type);
  return type;
}

void Catalog::DropType(ObjectId id) {
  std::unique_lock lock(mu_);
  MetaWrite batch;
  batch.Delete(TypeKey(id));
  CommitLocked(&batch);
  types_.erase(id);
}

std::string FunctionCatalog::IdentityArguments() const {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ", ";
    out += a.TypeName();
  }
  return out;
}

uint32_t PolymorphicTypeOid(const std::string& name) {
  if (name == "anyelement") return 2283;
  if (name == "anyarray") return 2277;
  if (name == "anynonarray") return 2776;
  if (name == "anycompatible") return 5077;
  if (name == "anycompatiblearray") return 5078;
  return 0;
}

std::string FunctionCatalog::OutputColumnName() const {
  std::string name;
  int outputs = 0;
  for (const auto& p : params)
    if (p.mode == 'o' || p.mode == 'b') outputs++, name = p.name;
  return outputs == 1 ? name : "";
}

int FunctionCatalog::RequiredArguments() const {
  int n = 0;
  for (const auto& a : args) n += a.default_expr.empty();
  return n;
}

std::vector<FunctionCatalog> Catalog::FindFunctions(ObjectId schema_id, const std::string& name) const {
  std::shared_lock lock(mu_);
  std::vector<FunctionCatalog> out;
  for (const auto& [id, f] : functions_)
    if (f.schema_id == schema_id && f.name == name) out.push_back(f);
  return out;
}

std::optional<FunctionCatalog> Catalog::GetFunction(ObjectId id) const {
  std::shared_lock lock(mu_);
  auto it = functions_.find(id);
  if (it == functions_.end()) return std::nullopt;
  return it->second;
}

std::vector<FunctionCatalog> Catalog::ListFunctions(ObjectId database_id) const {
  std::shared_lock lock(mu_);
  std::vector<FunctionCatalog> out;
  for (const auto& [id, f] : functions_)
    if (f.database_id == database_id) out.push_back(f);
  return out;
}

std::vector<TableRef> Catalog::FunctionDependents(ObjectId id) const {
  std::shared_lock lock(mu_);
  std::vector<TableRef> out;
  for (const auto& [tid, t] : tables_)
    if (std::find(t->function_deps.begin(), t->function_deps.end(), id) != t->function_deps.end()) out.push_back(t);
  return out;
}

std::vector<FunctionCatalog> Catalog::FunctionsDependingOn(ObjectId id) const {
  std::shared_lock lock(mu_);
  std::vector<FunctionCatalog> out;
  for (const auto& [fid, f] : functions_)
    if (std::count(f.relation_deps.begin(), f.relation_deps.end(), id) ||
        std::count(f.function_deps.begin(), f.function_deps.end(), id))
      out.push_back(f);
  return out;
}

FunctionCatalog Catalog::CreateFunction(FunctionCatalog function) {
  std::unique_lock lock(mu_);
  for (const auto& [id, f] : functions_)
    if (f.schema_id == function.schema_id && f.name == function.name &&
        f.IdentityArguments() == function.IdentityArguments())
      FRESHET_THROW("42723", "function \"{}\" already exists with same argument types", function.name);
  MetaWrite batch;
  function.id = NextIdLocked(&batch);
  batch.Put(FunctionKey(function.id), FunctionJson(function));
  CommitLocked(&batch);
  functions_[function.id] = function;
  return function;
}

FunctionCatalog Catalog::ReplaceFunction(const FunctionCatalog& function) {
  std::unique_lock lock(mu_);
  if (!functions_.count(function.id))
    FRESHET_THROW(sqlstate::kUndefinedFunction, "function with id {} was dropped", function.id);
  MetaWrite batch;
  batch.Put(FunctionKey(function.id), FunctionJson(function));
  CommitLocked(&batch);
  functions_[function.id] = function;
  return function;
}

void Catalog::DropFunction(ObjectId id) {
  std::unique_lock lock(mu_);
  MetaWrite batch;
  batch.Delete(FunctionKey(id));
  CommitLocked(&batch);
  functions_.erase(id);
}

UserCatalog Catalog::CreateUser(const std::string& name, bool superuser) {
  std::unique_lock lock(mu_);
  for (const auto& [id, u] : users_)
    if (u.name == name) FRESHET_THROW(sqlstate::kDuplicateObject, "role \"{}\" already exists", name);
  MetaWrite batch;
  UserCatalog u{NextIdLocked(&batch), name, superuser, true};
  batch.Put(UserKey(u.id), json{{"id", u.id}, {"name", u.name}, {"superuser", superuser}}.dump());
  CommitLocked(&batch);
  users_[u.id] = u;
  return u;
}

void Catalog::DropUser(ObjectId id) {
  std::unique_lock lock(mu_);
  auto it = users_.find(id);
  if (it == users_.end()) return;
  size_t owned = 0;
  for (const auto& [did, d] : databases_) owned += d.owner == id;
  for (const auto& [sid, s] : schemas_) owned += s.owner == id;
  for (const auto& [tid, t] : tables_) owned += t->owner == id;
  if (owned)
    FRESHET_THROW(sqlstate::kDependentObjectsStillExist,
                  "role \"{}\" cannot be dropped because some objects depend on it ({} objects owned)", it->second.name,
                  owned);
  MetaWrite batch;
  batch.Delete(UserKey(id));
  CommitLocked(&batch);
  users_.erase(it);
}

std::optional<std::string> Catalog::SequenceState(ObjectId id) const {
  std::string value;
  Status s = store_->GetMeta(SequenceStateKey(id), &value);
  if (s.IsNotFound()) return std::nullopt;
  s.ThrowIfError();
  return value;
}

void Catalog::StoreSequenceState(ObjectId id, const std::string& state) {
  MetaWrite batch;
  batch.Put(SequenceStateKey(id), state);
  store_->CommitMeta(batch).ThrowIfError();
}

uint64_t Catalog::version() const {
  std::shared_lock lock(mu_);
  return version_;
}

}  // namespace freshet
