#include "frontend/stream_job_planner.h"

#include "common/datetime.h"

#include "catalog/pg_catalog.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <functional>
#include <map>
#include <thread>

#include "binder/binder.h"
#include "catalog/index_definition.h"
#include "catalog/pg_catalog.h"
#include "common/error.h"
#include "frontend/handler/table_definition.h"
#include "planner/optimizer.h"
#include "planner/stream_plan_codec.h"
#include "storage/keys.h"

namespace freshet {

namespace {

const PgQuery__CreateTableAsStmt* CreateMvNode(const ParsedStatement& stmt) {
  if (!stmt.node || stmt.node->node_case != PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT) return nullptr;
  return stmt.node->create_table_as_stmt;
}

const PgQuery__IndexStmt* IndexNode(const ParsedStatement& stmt) {
  if (!stmt.node || stmt.node->node_case != PG_QUERY__NODE__NODE_INDEX_STMT) return nullptr;
  return stmt.node->index_stmt;
}

Binder MakeBinder(const JobPlanContext& ctx, const std::string* text, EvalContext* eval, std::vector<DataType>* params) {
  BinderContext bctx;
  bctx.catalog = ctx.catalog;
  bctx.database_id = ctx.database.id;
  bctx.database_name = ctx.database.name;
  bctx.user_name = ctx.user;
  bctx.eval = eval;
  bctx.param_types = params;
  bctx.query_text = text;
  bctx.search_path = ctx.search_path;
  bctx.temp_schema = ctx.temp_schema;
  bctx.use_indexes = false;
  bctx.name_uses = ctx.name_uses;
  bctx.referenced_functions = ctx.referenced_functions;
  return Binder(bctx);
}

}  // namespace

std::vector<std::string> SplitSearchPath(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    if (comma > pos) out.push_back(s.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

std::vector<std::string> PlanSearchPath(const TableCatalog& relation) {
  auto it = relation.plan_settings.find("search_path");
  return it == relation.plan_settings.end() ? std::vector<std::string>{"public"} : SplitSearchPath(it->second);
}

std::string JoinSearchPath(const std::vector<std::string>& path) {
  std::string s;
  for (size_t i = 0; i < path.size(); i++) s += (i ? "," : "") + path[i];
  return s;
}

bool DescribeJobDefinition(const ParsedStatement& stmt, JobDefinition* out) {
  if (const auto* c = CreateMvNode(stmt)) {
    out->kind = RelationKind::kMaterializedView;
    if (c->into->rel->schemaname && *c->into->rel->schemaname) out->name.push_back(c->into->rel->schemaname);
    out->name.push_back(c->into->rel->relname);
    out->if_not_exists = c->if_not_exists;
    return true;
  }
  if (const auto* sink = std::get_if<CreateSinkStatement>(&stmt.extension)) {
    out->kind = RelationKind::kSink;
    out->name = sink->name;
    out->if_not_exists = sink->if_not_exists;
    auto it = stmt.with_options.find("connector");
    out->connector = it == stmt.with_options.end() ? "" : it->second;
    return true;
  }
  if (const auto* sub = std::get_if<CreateSubscriptionStatement>(&stmt.extension)) {
    out->kind = RelationKind::kSubscription;
    out->name = sub->name;
    out->if_not_exists = sub->if_not_exists;
    return true;
  }
  if (const auto* ix = IndexNode(stmt)) {
    out->kind = RelationKind::kIndex;
    if (ix->relation->schemaname && *ix->relation->schemaname) out->name.push_back(ix->relation->schemaname);
    std::string name = ix->idxname ? ix->idxname : "";
    if (name.empty()) name = DefaultIndexName(ix->relation->relname, IndexElements(ix));
    out->name.push_back(name);
    out->if_not_exists = ix->if_not_exists;
    return true;
  }
  return false;
}

int64_t ParseRetentionMs(const std::string& text) {
  Interval iv;
  try {
    iv = ParseInterval(text);
  } catch (const SqlError&) {
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid retention \"{}\": an interval such as '1D' or '12 hours'",
                  text);
  }
  __int128 micros = IntervalCompareKey(iv);
  if (micros <= 0) FRESHET_THROW(sqlstate::kInvalidParameterValue, "retention must be positive, not \"{}\"", text);
  return static_cast<int64_t>(std::min<__int128>(micros / 1000, INT64_MAX / 2));
}

int64_t SubscriptionRetentionMs(const ParsedStatement& stmt) {
  for (const auto& [key, value] : stmt.with_options)
    if (key != "retention")
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "unknown subscription option \"{}\"", key);
  auto it = stmt.with_options.find("retention");
  if (it == stmt.with_options.end())
    throw SqlError(sqlstate::kInvalidParameterValue, "CREATE SUBSCRIPTION needs WITH (retention = '...')")
        .WithHint("How long its changes are kept, an interval such as '1D' or '12 hours'.");
  return ParseRetentionMs(it->second);
}

StreamPlan PlanJob(const JobPlanContext& ctx, const ParsedStatement& stmt) {
  EvalContext eval = ctx.eval;
  std::vector<DataType> params;
  if (const auto* c = CreateMvNode(stmt)) {
    Binder binder = MakeBinder(ctx, &stmt.text, &eval, &params);
    PlanPtr plan = OptimizePlan(binder.BindQuery(c->query));
    // CREATE MATERIALIZED VIEW m (a, b) AS ...: names for the visible columns.
    auto& schema = plan->mutable_schema();
    size_t visible = 0;
    for (auto& col : schema) {
      if (col.hidden) continue;
      if (visible < c->into->n_col_names) col.name = c->into->col_names[visible]->string->sval;
      visible++;
    }
    if (c->into->n_col_names > visible)
      throw SqlError(sqlstate::kSyntaxError, "too many column names were specified");
    StreamRootOptions opts;
    opts.database_id = ctx.database.id;
    opts.emit_on_window_close = stmt.emit_on_window_close;
    return PlanStream(std::move(plan), c->into->rel->relname, opts);
  }
  if (const auto* sink = std::get_if<CreateSinkStatement>(&stmt.extension)) {
    JobDefinition def;
    DescribeJobDefinition(stmt, &def);
    if (def.connector.empty())
      throw SqlError(sqlstate::kInvalidParameterValue, "CREATE SINK needs WITH (connector = '...')");
    if (def.connector != "blackhole")
      throw SqlError(sqlstate::kFeatureNotSupported, "sink connector '" + def.connector + "' is not supported yet");
    Binder binder = MakeBinder(ctx, &stmt.text, &eval, &params);
    PlanPtr plan;
    if (sink->query) {
      plan = OptimizePlan(binder.BindQuery(sink->query));
    } else {
      // CREATE SINK ... FROM relation: its rows as SELECT * gives them.
      PgQuery__RangeVar from;
      pg_query__range_var__init(&from);
      from.relname = const_cast<char*>(sink->from.back().c_str());
      if (sink->from.size() > 1) from.schemaname = const_cast<char*>(sink->from[sink->from.size() - 2].c_str());
      from.inh = true;
      from.location = -1;
      plan = OptimizePlan(binder.BindRelationColumns(&from, {}));
    }
    StreamRootOptions opts;
    opts.database_id = ctx.database.id;
    opts.sink = true;
    opts.connector = def.connector;
    opts.emit_on_window_close = sink->emit_on_window_close;
    return PlanStream(std::move(plan), def.name.back(), opts);
  }
  if (const auto* sub = std::get_if<CreateSubscriptionStatement>(&stmt.extension)) {
    Binder binder = MakeBinder(ctx, &stmt.text, &eval, &params);
    PgQuery__RangeVar from;
    pg_query__range_var__init(&from);
    from.relname = const_cast<char*>(sub->from.back().c_str());
    if (sub->from.size() > 1) from.schemaname = const_cast<char*>(sub->from[sub->from.size() - 2].c_str());
    if (sub->from.size() > 2) from.catalogname = const_cast<char*>(sub->from[sub->from.size() - 3].c_str());
    from.location = -1;
    TableRef relation = binder.ResolveRelation(&from);
    if (relation->database_id != ctx.database.id)
      FRESHET_THROW(sqlstate::kFeatureNotSupported,
                    "a subscription is created in the database of the relation it follows: connect to database \"{}\"",
                    from.catalogname);
    return PlanSubscription(relation, SubscriptionRetentionMs(stmt));
  }
  if (const auto* ix = IndexNode(stmt)) {
    if (ix->unique) throw SqlError(sqlstate::kFeatureNotSupported, "unique indexes are not supported");
    Binder binder = MakeBinder(ctx, &stmt.text, &eval, &params);
    TableRef table;
    if (ix->relation->schemaname && *ix->relation->schemaname) {
      auto schema = ctx.catalog->FindSchema(ctx.database.id, ix->relation->schemaname);
      if (schema) table = ctx.catalog->FindTable(schema->id, ix->relation->relname);
    } else {
      table = binder.FindInSearchPath(ix->relation->relname);
    }
    if (!table) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", ix->relation->relname);
    if (table->kind != RelationKind::kTable && table->kind != RelationKind::kMaterializedView)
      FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table or materialized view", table->name);
    // The index's rows: the table's columns, then its expression elements'
    // values (catalog/index_definition.h), of the rows its predicate is
    // true for. Both must give the same value for the same row whenever
    // they are computed (PostgreSQL's IMMUTABLE).
    std::vector<PlanColumn> schema;
    std::vector<ExprPtr> row;
    for (size_t i = 0; i < table->columns.size(); i++) {
      const ColumnCatalog& c = table->columns[i];
      schema.push_back(PlanColumn{c.name, c.type, table->name, c.hidden});
      row.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), c.type, c.name));
    }
    PlanPtr plan = std::make_unique<ScanNode>(table, schema);
    if (ix->where_clause) {
      ExprPtr predicate = binder.BindCheckExpression(*table, ix->where_clause, nullptr, /*index_predicate=*/true);
      CheckImmutableInIndex(*predicate, "predicate");
      plan = std::make_unique<FilterNode>(std::move(plan), std::move(predicate));
    }
    const ConstraintCatalog elements = IndexElements(ix);
    for (const std::string& column : elements.include)  // held anyway: every column is
      if (table->ColumnIndex(column) < 0)
        FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" does not exist", column);
    StreamRootOptions opts;
    opts.database_id = ctx.database.id;
    for (size_t k = 0; k < elements.columns.size(); k++) {
      if (!elements.columns[k].empty()) {
        int idx = table->ColumnIndex(elements.columns[k]);
        if (idx < 0) FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" does not exist", elements.columns[k]);
        opts.leading_key.push_back(idx);
        continue;
      }
      ExprPtr value = binder.BindIndexExpression(*table, ix->index_params[k]->index_elem->expr);
      CheckImmutableInIndex(*value, "expression");
      opts.leading_key.push_back(static_cast<int>(row.size()));
      schema.push_back(PlanColumn{elements.ElementName(k), value->type(), "", /*hidden=*/true});
      row.push_back(std::move(value));
    }
    if (row.size() > table->columns.size()) plan = std::make_unique<ProjectNode>(std::move(plan), std::move(row), schema);
    JobDefinition def;
    DescribeJobDefinition(stmt, &def);
    return PlanStream(std::move(plan), def.name.back(), opts);
  }
  throw SqlError(sqlstate::kInternalError, "not a stream job definition");
}

namespace {

// The width at which a plan reads each table it scans.
void ScanWidths(const StreamNode& node, std::map<ObjectId, size_t>* out) {
  if (node.kind() == StreamNode::Kind::kTableScan) {
    const auto& scan = static_cast<const StreamTableScanNode&>(node);
    (*out)[scan.table->id] = scan.schema().size();
  }
  for (const auto& input : node.inputs()) ScanWidths(*input, out);
}

// A plan's encoding without the names and hidden flags of its columns
// (node schemas, state tables, column references) and varchar lengths: what it computes, by column position. A
// column dropped since it was planned is hidden under another name.
nlohmann::json WithoutColumnNames(nlohmann::json j) {
  if (j.is_object()) {
    if (j.contains("hidden")) {
      j.erase("name");
      j.erase("table");
      j.erase("hidden");
    }
    // A column reference's name is what it printed as (EXPLAIN).
    if (j.contains("k") && j.contains("i") && j.contains("n")) j.erase("n");
    // A varchar's length (and text's marker), an integer's or a float's
    // width: values are stored alike, and ALTER TYPE lengthens or widens a
    // column without planning the jobs holding it again (those computing
    // with it refuse it).
    if (j.contains("id") && j.contains("p") && j.contains("s") && j.size() == 3) {
      if (j["id"] == static_cast<int>(TypeId::kVarchar)) {
        int p = j["p"].get<int>();
        if (p > 0 || p == DataType::kTextMarker) j["p"] = -1;
      }
      if (j["id"] == static_cast<int>(TypeId::kInt16) || j["id"] == static_cast<int>(TypeId::kInt32))
        j["id"] = static_cast<int>(TypeId::kInt64);
      if (j["id"] == static_cast<int>(TypeId::kFloat32)) j["id"] = static_cast<int>(TypeId::kFloat64);
    }
    for (auto& [key, value] : j.items()) value = WithoutColumnNames(std::move(value));
  } else if (j.is_array()) {
    for (auto& value : j) value = WithoutColumnNames(std::move(value));
  }
  return j;
}

}  // namespace

bool JobReadsColumn(Catalog& altered, const TableCatalog& job, const EvalContext& eval) {
  return !JobPlansAsStored(altered, job, eval);
}

bool JobPlansAsStored(Catalog& catalog, const TableCatalog& job, const EvalContext& eval,
                      std::vector<NameUse>* name_uses) {
  if (job.stream_plan.empty()) return false;
  try {
    StreamPlan stored = DecodeStreamPlan(job.stream_plan, [&](ObjectId id) { return catalog.GetTable(id); });
    std::map<ObjectId, size_t> widths;
    ScanWidths(*stored.root, &widths);
    std::unique_ptr<Catalog> as_planned = catalog.BeginTransaction();
    for (const auto& [id, width] : widths) {
      TableRef t = as_planned->GetTable(id);
      if (!t || t->columns.size() <= width) continue;
      TableCatalog narrower = *t;
      narrower.columns.resize(width);
      as_planned->AlterTable(narrower);
    }
    EvalContext settings = eval;
    // 'name'::regclass in the definition resolves against this catalog too.
    settings.catalog = MakeCatalogLookup(as_planned.get(), job.database_id, PlanSearchPath(job));
    std::shared_ptr<StreamPlan> again = ReplanLegacyJob(as_planned.get(), job, &settings, name_uses);
    return WithoutColumnNames(nlohmann::json::parse(EncodeStreamPlan(stored))) ==
           WithoutColumnNames(nlohmann::json::parse(EncodeStreamPlan(*again)));
  } catch (const SqlError&) {
    return false;  // it names something that is gone (or no longer plans at all)
  }
}

std::shared_ptr<StreamPlan> ReplanLegacyJob(const Catalog* catalog, const TableCatalog& job, EvalContext* eval,
                                            std::vector<NameUse>* name_uses) {
  auto db = catalog->GetDatabase(job.database_id);
  if (!db) throw SqlError(sqlstate::kInternalError, "the job's database is gone");
  std::vector<ParsedStatement> stmts = ParseSql(job.definition);
  JobDefinition def;
  if (stmts.size() != 1 || !DescribeJobDefinition(stmts[0], &def))
    throw SqlError(sqlstate::kInternalError, "definition is not a stream job");
  JobPlanContext ctx;
  ctx.catalog = catalog;
  ctx.database = *db;
  auto owner = catalog->GetUser(job.owner);
  if (owner) ctx.user = owner->name;
  ctx.search_path = PlanSearchPath(job);
  ctx.eval = *eval;
  ctx.name_uses = name_uses;
  auto plan = std::make_shared<StreamPlan>(PlanJob(ctx, stmts[0]));
  if (plan->internal_tables.size() != job.internal_tables.size())
    throw SqlError(sqlstate::kInternalError, "the plan no longer matches the job's state tables");
  return plan;
}

}  // namespace freshet
