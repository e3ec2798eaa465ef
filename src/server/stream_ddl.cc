#include "server/stream_ddl.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "binder/binder.h"
#include "common/error.h"
#include "planner/optimizer.h"
#include "server/session.h"

namespace freshet {

namespace {

std::string JoinPath(const std::vector<std::string>& path) {
  std::string s;
  for (size_t i = 0; i < path.size(); i++) s += (i ? "," : "") + path[i];
  return s;
}

std::vector<std::string> SplitPath(const std::string& s) {
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

const PgQuery__CreateTableAsStmt* CreateMvNode(const ParsedStatement& stmt) {
  if (!stmt.node || stmt.node->node_case != PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT) return nullptr;
  return stmt.node->create_table_as_stmt;
}

}  // namespace

StreamPlan PlanMaterializedView(const JobPlanContext& ctx, const ParsedStatement& stmt) {
  const PgQuery__CreateTableAsStmt* c = CreateMvNode(stmt);
  BinderContext bctx;
  bctx.catalog = ctx.catalog;
  bctx.database_id = ctx.database.id;
  bctx.database_name = ctx.database.name;
  bctx.user_name = ctx.user;
  EvalContext eval = ctx.eval;
  bctx.eval = &eval;
  std::vector<DataType> params;
  bctx.param_types = &params;
  bctx.query_text = &stmt.text;
  bctx.search_path = ctx.search_path;
  Binder binder(bctx);
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
  return PlanStream(std::move(plan), c->into->rel->relname);
}

StatementOutcome Session::RunCreateMaterializedView(const ParsedStatement& stmt, ResultSink* sink, bool explain_only,
                                                    std::vector<std::string>* explain) {
  const PgQuery__CreateTableAsStmt* c = CreateMvNode(stmt);
  if (c->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW)
    throw SqlError(sqlstate::kFeatureNotSupported, "CREATE TABLE AS is not supported yet");
  if (c->into->skip_data)
    throw SqlError(sqlstate::kFeatureNotSupported, "CREATE MATERIALIZED VIEW ... WITH NO DATA is not supported");
  Catalog* catalog = instance_->catalog();
  Binder binder(BinderContextFor(stmt, nullptr));
  ObjectId schema_id = binder.ResolveSchemaId(c->into->rel->schemaname);
  std::string name = c->into->rel->relname;
  if (!explain_only && catalog->FindTable(schema_id, name)) {
    if (c->if_not_exists) {
      sink->Notice(fmt::format("relation \"{}\" already exists, skipping", name));
      return {"CREATE_MATERIALIZED_VIEW"};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", name);
  }
  JobPlanContext ctx;
  ctx.catalog = catalog;
  ctx.database = database_;
  ctx.user = user_;
  ctx.search_path = SearchPath();
  ctx.eval.time_zone = eval_.time_zone;
  StreamPlan plan = PlanMaterializedView(ctx, stmt);
  if (explain_only) {
    *explain = ExplainStreamPlan(plan);
    return {"EXPLAIN"};
  }
  TableCatalog mv;
  mv.database_id = database_.id;
  mv.schema_id = schema_id;
  mv.owner = catalog->FindUser(user_)->id;
  mv.name = name;
  mv.kind = RelationKind::kMaterializedView;
  mv.columns = plan.columns;
  mv.pk = plan.pk;
  mv.dist_key = plan.dist_key;
  mv.append_only = plan.root->append_only;
  mv.depends_on = plan.depends_on;
  mv.definition = stmt.text;
  mv.plan_settings["search_path"] = JoinPath(ctx.search_path);
  mv.plan_settings["timezone"] = GetVariable("timezone");
  int parallelism = 0;
  try {
    parallelism = std::stoi(GetVariable("streaming_parallelism"));
  } catch (...) {
  }
  if (parallelism <= 0) parallelism = int(std::max(1u, std::thread::hardware_concurrency()));
  instance_->jobs()->Create(std::move(mv), plan, ctx.eval, parallelism, /*wait=*/true, &cancel_);
  return {"CREATE_MATERIALIZED_VIEW"};
}

void ResumeStreamJobs(Instance* instance) {
  Catalog* catalog = instance->catalog();
  for (const auto& db : catalog->ListDatabases()) {
    std::vector<TableRef> jobs;
    for (const auto& t : catalog->ListTables(db.id))
      if (t->kind == RelationKind::kMaterializedView) jobs.push_back(t);
    // A job's upstreams were created before it: ids order them.
    std::sort(jobs.begin(), jobs.end(), [](const TableRef& a, const TableRef& b) { return a->id < b->id; });
    for (const auto& job : jobs) {
      try {
        std::vector<ParsedStatement> stmts = ParseSql(job->definition);
        if (stmts.size() != 1 || !CreateMvNode(stmts[0]))
          throw SqlError(sqlstate::kInternalError, "definition is not a CREATE MATERIALIZED VIEW");
        JobPlanContext ctx;
        ctx.catalog = catalog;
        ctx.database = db;
        auto owner = catalog->GetUser(job->owner);
        if (owner) ctx.user = owner->name;
        auto it = job->plan_settings.find("search_path");
        if (it != job->plan_settings.end()) ctx.search_path = SplitPath(it->second);
        it = job->plan_settings.find("timezone");
        if (it != job->plan_settings.end())
          if (auto tz = TimeZone::Lookup(it->second)) ctx.eval.time_zone = *tz;
        StreamPlan plan = PlanMaterializedView(ctx, stmts[0]);
        if (plan.internal_tables.size() != job->internal_tables.size())
          throw SqlError(sqlstate::kInternalError, "the plan no longer matches the job's state tables");
        instance->jobs()->Resume(job, plan, ctx.eval);
      } catch (const std::exception& e) {
        spdlog::error("cannot resume materialized view {} (id {}): {}", job->name, job->id, e.what());
      }
    }
  }
}

}  // namespace freshet
