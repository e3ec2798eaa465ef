// SHOW of objects (SHOW TABLES, ... FROM schema; SHOW CREATE ...) and of
// the stream jobs being created (SHOW JOBS [WHERE ...]).
#include <fmt/format.h>

#include <algorithm>

#include "catalog/system_tables.h"
#include "common/error.h"
#include "expr/function_registry.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "planner/optimizer.h"

namespace freshet {

StatementOutcome HandleShowObjects(const HandlerArgs& args) {
  const auto& show = std::get<ShowObjectsStatement>(args.stmt.extension);
  Catalog* catalog = args.session->catalog();
  const ObjectId database_id = args.session->database().id;
  std::vector<std::vector<std::string>> rows;
  if (show.object_kind == "flows") {
    for (const auto& t : catalog->ListTables(database_id))
      if (auto it = t->plan_settings.find("flow"); it != t->plan_settings.end()) rows.push_back({it->second});
    std::sort(rows.begin(), rows.end());
    SendTextRows(args, {{"Flows", DataType::Varchar()}}, rows);
    return {"SHOW"};
  }
  if (show.object_kind == "databases") {
    for (const auto& d : catalog->ListDatabases()) rows.push_back({d.name});
  } else if (show.object_kind == "schemas") {
    for (const auto& s : catalog->ListSchemas(database_id)) rows.push_back({s.name});
  } else {
    std::string schema = !show.schema.empty()
                             ? show.schema
                             : Binder(args.session->BinderContextFor(args.stmt, nullptr)).CurrentSchema();
    auto s = catalog->FindSchema(database_id, schema);
    if (!s) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", schema);
    RelationKind want = show.object_kind == "tables"               ? RelationKind::kTable
                        : show.object_kind == "materialized views" ? RelationKind::kMaterializedView
                        : show.object_kind == "sources"            ? RelationKind::kSource
                        : show.object_kind == "sinks"              ? RelationKind::kSink
                        : show.object_kind == "subscriptions"      ? RelationKind::kSubscription
                        : show.object_kind == "views"              ? RelationKind::kView
                                                                   : RelationKind::kSystem;
    for (const auto& t : catalog->ListTables(database_id))
      if (t->schema_id == s->id && t->kind == want && !IsChangeLogJob(*t)) rows.push_back({t->name});
  }
  std::sort(rows.begin(), rows.end());
  SendTextRows(args, {{"Name", DataType::Varchar()}}, rows);
  return {"SHOW"};
}

StatementOutcome HandleShowCreate(const HandlerArgs& args) {
  const auto& show = std::get<ShowCreateStatement>(args.stmt.extension);
  if (show.object_kind == "flow") {
    TableRef flow = FindFlow(*args.session->catalog(), args.session->database().id, show.name.back());
    if (!flow) FRESHET_THROW(sqlstate::kUndefinedObject, "Flow not found: {}", show.name.back());
    SendTextRows(args, {{"Flow", DataType::Varchar()}, {"Create Flow", DataType::Varchar()}},
                 {{show.name.back(), flow->definition}});
    return {"SHOW"};
  }
  TableRef t = FindRelation(args, show.name);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", show.name.back());
  std::string schema = args.session->catalog()->GetSchema(t->schema_id)->name;
  SendTextRows(args, {{"Name", DataType::Varchar()}, {"Create Sql", DataType::Varchar()}},
               {{schema + "." + t->name, t->definition}});
  return {"SHOW"};
}

// RisingWave's SHOW JOBS: rw_catalog.rw_ddl_progress with its columns
// renamed, the rate rounded and times to the second, filtered by the
// statement's condition over the renamed columns (relation "jobs"), by id.
StatementOutcome HandleShowJobs(const HandlerArgs& args) {
  const auto& show = std::get<ShowJobsStatement>(args.stmt.extension);
  const SystemTableDef* def = FindSystemTable(kRwCatalogSchema, "rw_ddl_progress");
  std::vector<PlanColumn> scan_schema;
  for (const auto& c : def->columns) scan_schema.push_back({c.name, c.type, def->name});
  PlanPtr plan = std::make_unique<SystemScanNode>(def->schema + "." + def->name, scan_schema);
  auto column = [&](const std::string& name) -> ExprPtr {
    for (size_t i = 0; i < scan_schema.size(); i++)
      if (scan_schema[i].name == name) return std::make_unique<ColumnRefExpr>(int(i), scan_schema[i].type, name);
    FRESHET_THROW(sqlstate::kInternalError, "rw_ddl_progress has no column {}", name);
  };
  auto to_second = [&](const std::string& name) {
    std::vector<ExprPtr> call_args;
    call_args.push_back(std::make_unique<ConstantExpr>(Value::Varchar("second")));
    call_args.push_back(column(name));
    return CallExactly("date_trunc", std::move(call_args));
  };
  std::vector<std::pair<std::string, ExprPtr>> outputs;
  outputs.emplace_back("Id", column("ddl_id"));
  outputs.emplace_back("Statement", column("ddl_statement"));
  outputs.emplace_back("Create Type", column("create_type"));
  outputs.emplace_back("Progress", column("progress"));
  outputs.emplace_back("Status", column("status"));
  outputs.emplace_back("Rows Backfilled", column("rows_backfilled"));
  outputs.emplace_back("Estimated Rows", column("estimated_rows"));
  std::vector<ExprPtr> rate;
  rate.push_back(column("rows_per_second"));
  outputs.emplace_back("Rows/s", CallExactly("round", std::move(rate)));
  outputs.emplace_back("Elapsed", to_second("elapsed"));
  outputs.emplace_back("ETA", to_second("eta"));
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema;
  for (auto& [name, e] : outputs) {
    schema.push_back({name, e->type(), "jobs"});
    exprs.push_back(std::move(e));
  }
  plan = std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), std::move(schema));
  if (show.where) plan = Binder(args.session->BinderContextFor(args.stmt, nullptr)).BindFilter(std::move(plan), "jobs", show.where);
  std::vector<SortKey> order;
  order.push_back(SortKey{std::make_unique<ColumnRefExpr>(0, DataType::Int64(), "Id")});
  plan = std::make_unique<SortNode>(std::move(plan), std::move(order));
  StatementOutcome out = RunPlan(args, *OptimizePlan(std::move(plan)), "SELECT ");
  out.tag = "SHOW";
  return out;
}

}  // namespace freshet
