#include "server/stream_ddl.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "binder/binder.h"
#include "common/error.h"
#include "planner/optimizer.h"
#include "server/session.h"
#include "storage/keys.h"

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
  return Binder(bctx);
}

std::vector<std::string> IndexColumns(const PgQuery__IndexStmt* ix) {
  std::vector<std::string> cols;
  for (size_t i = 0; i < ix->n_index_params; i++) {
    const PgQuery__IndexElem* e = ix->index_params[i]->index_elem;
    if (!e->name || !*e->name) throw SqlError(sqlstate::kFeatureNotSupported, "indexes on expressions are not supported yet");
    cols.push_back(e->name);
  }
  return cols;
}

}  // namespace

bool DescribeJobDefinition(const ParsedStatement& stmt, JobDefinition* out) {
  if (const auto* c = CreateMvNode(stmt)) {
    out->kind = RelationKind::kMaterializedView;
    if (c->into->rel->schemaname && *c->into->rel->schemaname) out->name.push_back(c->into->rel->schemaname);
    out->name.push_back(c->into->rel->relname);
    out->if_not_exists = c->if_not_exists;
    return true;
  }
  if (stmt.extension.kind == ExtensionStatement::Kind::kCreateSink) {
    out->kind = RelationKind::kSink;
    out->name = stmt.extension.name;
    out->if_not_exists = stmt.extension.if_not_exists;
    auto it = stmt.with_options.find("connector");
    out->connector = it == stmt.with_options.end() ? "" : it->second;
    return true;
  }
  if (const auto* ix = IndexNode(stmt)) {
    out->kind = RelationKind::kIndex;
    if (ix->relation->schemaname && *ix->relation->schemaname) out->name.push_back(ix->relation->schemaname);
    std::string name = ix->idxname ? ix->idxname : "";
    if (name.empty()) {
      name = ix->relation->relname;
      for (const auto& c : IndexColumns(ix)) name += "_" + c;
      name += "_idx";
    }
    out->name.push_back(name);
    out->if_not_exists = ix->if_not_exists;
    return true;
  }
  return false;
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
    return PlanStream(std::move(plan), c->into->rel->relname);
  }
  if (stmt.extension.kind == ExtensionStatement::Kind::kCreateSink) {
    JobDefinition def;
    DescribeJobDefinition(stmt, &def);
    if (def.connector.empty())
      throw SqlError(sqlstate::kInvalidParameterValue, "CREATE SINK needs WITH (connector = '...')");
    if (def.connector != "blackhole")
      throw SqlError(sqlstate::kFeatureNotSupported, "sink connector '" + def.connector + "' is not supported yet");
    std::vector<ParsedStatement> q = ParseSql(stmt.extension.query);
    if (q.size() != 1 || !q[0].node || q[0].node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
      throw SqlError(sqlstate::kSyntaxError, "CREATE SINK ... AS expects a query");
    Binder binder = MakeBinder(ctx, &q[0].text, &eval, &params);
    PlanPtr plan;
    try {
      plan = OptimizePlan(binder.BindQuery(q[0].node));
    } catch (SqlError& e) {
      // Positions count from the AS query; the client points into the statement.
      if (e.position() > 0) {
        if (stmt.extension.query_offset >= 0)
          e.WithPosition(e.position() + CharPosition(stmt.text, stmt.extension.query_offset) - 1);
        else
          e.WithPosition(0);  // CREATE SINK ... FROM: the query is ours
      }
      throw;
    }
    StreamRootOptions opts;
    opts.sink = true;
    opts.connector = def.connector;
    return PlanStream(std::move(plan), def.name.back(), opts);
  }
  if (const auto* ix = IndexNode(stmt)) {
    if (ix->unique) throw SqlError(sqlstate::kFeatureNotSupported, "unique indexes are not supported");
    if (ix->where_clause) throw SqlError(sqlstate::kFeatureNotSupported, "partial indexes are not supported");
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
    std::vector<PlanColumn> schema;
    for (const auto& c : table->columns) schema.push_back(PlanColumn{c.name, c.type, table->name, c.hidden});
    StreamRootOptions opts;
    for (const auto& name : IndexColumns(ix)) {
      int idx = table->ColumnIndex(name);
      if (idx < 0) FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" does not exist", name);
      opts.leading_key.push_back(idx);
    }
    JobDefinition def;
    DescribeJobDefinition(stmt, &def);
    return PlanStream(std::make_unique<ScanNode>(table, std::move(schema)), def.name.back(), opts);
  }
  throw SqlError(sqlstate::kInternalError, "not a stream job definition");
}

StatementOutcome Session::RunCreateJob(const ParsedStatement& stmt, ResultSink* sink, bool explain_only,
                                       std::vector<std::string>* explain) {
  JobDefinition def;
  DescribeJobDefinition(stmt, &def);
  if (const auto* c = CreateMvNode(stmt)) {
    if (c->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW)
      throw SqlError(sqlstate::kFeatureNotSupported, "CREATE TABLE AS is not supported yet");
    if (c->into->skip_data)
      throw SqlError(sqlstate::kFeatureNotSupported, "CREATE MATERIALIZED VIEW ... WITH NO DATA is not supported");
  }
  const char* tag = def.kind == RelationKind::kSink    ? "CREATE_SINK"
                    : def.kind == RelationKind::kIndex ? "CREATE_INDEX"
                                                       : "CREATE_MATERIALIZED_VIEW";
  Catalog* catalog = instance_->catalog();
  Binder binder(BinderContextFor(stmt, nullptr));
  ObjectId schema_id = binder.ResolveSchemaId(def.name.size() > 1 ? def.name[0].c_str() : nullptr);
  const std::string& name = def.name.back();
  if (TableRef existing = explain_only ? nullptr : catalog->FindTable(schema_id, name)) {
    const char* creating = existing->status == JobStatus::kCreating ? " and is still being created" : "";
    if (def.if_not_exists) {
      sink->Notice(fmt::format("relation \"{}\" already exists{}, skipping", name, creating));
      return {tag};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists{}", name, creating);
  }
  JobPlanContext ctx;
  ctx.catalog = catalog;
  ctx.database = database_;
  ctx.user = user_;
  ctx.search_path = SearchPath();
  ctx.eval.time_zone = eval_.time_zone;
  StreamPlan plan = PlanJob(ctx, stmt);
  if (explain_only) {
    *explain = ExplainStreamPlan(plan);
    return {"EXPLAIN"};
  }
  TableCatalog job;
  job.database_id = database_.id;
  job.schema_id = schema_id;
  job.owner = catalog->FindUser(user_)->id;
  job.name = name;
  job.kind = def.kind;
  job.columns = plan.columns;
  job.pk = plan.pk;
  job.dist_key = plan.dist_key;
  job.append_only = plan.root->append_only;
  job.depends_on = plan.depends_on;
  job.definition = stmt.text;
  job.plan_settings["search_path"] = JoinPath(ctx.search_path);
  job.plan_settings["timezone"] = GetVariable("timezone");
  if (!def.connector.empty()) job.plan_settings["connector"] = def.connector;
  int parallelism = 0;
  try {
    parallelism = std::stoi(GetVariable("streaming_parallelism"));
  } catch (...) {
  }
  if (parallelism <= 0) parallelism = int(std::max(1u, std::thread::hardware_concurrency()));
  // A fragment has at most one actor per vnode (more would own no vnodes),
  // as RisingWave's max parallelism: SET streaming_parallelism = 1000000
  // built a million actors per fragment and ran the server out of memory.
  if (parallelism > kVnodeCount)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "specified parallelism {} is greater than max parallelism {}",
                  parallelism, kVnodeCount);
  int64_t memory_limit = ParseMemorySetting(GetVariable("streaming_memory_limit")).value_or(0);
  job.plan_settings["streaming_memory_limit"] = std::to_string(memory_limit > 0 ? memory_limit : DefaultMemoryLimit());
  bool background = false;
  ParseBoolSetting(GetVariable("background_ddl"), &background);
  job.plan_settings["background_ddl"] = background ? "true" : "false";
  job.plan_settings["backfill_rate_limit"] = GetVariable("backfill_rate_limit");
  // A job on jobs still being created is built in the same pass: it reads
  // what they materialized so far plus their output, and completes after them.
  for (ObjectId up : plan.depends_on) {
    TableRef u = catalog->GetTable(up);
    if (u && u->status == JobStatus::kCreating)
      sink->Notice(fmt::format("{} \"{}\" is still being created; {} \"{}\" will be created together with it and "
                               "complete after it",
                               RelationKindName(u->kind), u->name, RelationKindName(def.kind), name));
  }
  instance_->jobs()->Create(std::move(job), std::move(plan), ctx.eval, parallelism, /*wait=*/!background, &cancel_);
  return {tag};
}

bool IsConnectorTable(const TableCatalog& t) {
  return t.kind == RelationKind::kTable && !t.connector_options.empty();
}

StreamPlan PlanTableSource(TableRef table) {
  StreamPlan plan;
  auto source = std::make_unique<StreamSourceNode>(table);
  plan.internal_tables.push_back(SourceOffsetsTable());
  source->offsets_table = 0;
  StreamNodePtr top = std::make_unique<StreamExchangeNode>(std::move(source), Distribution::Hash(table->dist_key));
  plan.root = std::make_unique<StreamMaterializeNode>(std::move(top));
  plan.columns = table->columns;
  plan.pk = table->pk;
  plan.dist_key = table->dist_key;
  return plan;
}

namespace {

// The stream jobs of a database planned again from their definitions,
// upstreams first; jobs marked failed, and jobs that cannot be planned, are
// left out (logged).
std::vector<StreamJobs::ResumedJob> PlanDatabaseJobs(Catalog* catalog, const DatabaseCatalog& db) {
  std::vector<TableRef> jobs;
  for (const auto& t : catalog->ListTables(db.id))
    if ((IsStreamJob(*t) || IsConnectorTable(*t)) && t->status != JobStatus::kFailed) jobs.push_back(t);
  // A job's upstreams were created before it: ids order them.
  std::sort(jobs.begin(), jobs.end(), [](const TableRef& a, const TableRef& b) { return a->id < b->id; });
  std::vector<StreamJobs::ResumedJob> planned;
  for (const auto& job : jobs) {
    if (IsConnectorTable(*job)) {
      planned.push_back({job, std::make_shared<StreamPlan>(PlanTableSource(job)), EvalContext()});
      continue;
    }
    try {
      std::vector<ParsedStatement> stmts = ParseSql(job->definition);
      JobDefinition def;
      if (stmts.size() != 1 || !DescribeJobDefinition(stmts[0], &def))
        throw SqlError(sqlstate::kInternalError, "definition is not a stream job");
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
      StreamPlan plan = PlanJob(ctx, stmts[0]);
      if (plan.internal_tables.size() != job->internal_tables.size())
        throw SqlError(sqlstate::kInternalError, "the plan no longer matches the job's state tables");
      planned.push_back({job, std::make_shared<StreamPlan>(std::move(plan)), ctx.eval});
    } catch (const std::exception& e) {
      spdlog::error("cannot resume {} {} (id {}): {}", RelationKindName(job->kind), job->name, job->id, e.what());
    }
  }
  return planned;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

void ResumeStreamJobs(Instance* instance) {
  Catalog* catalog = instance->catalog();
  for (const auto& db : catalog->ListDatabases()) instance->jobs()->ResumeAll(db.id, PlanDatabaseJobs(catalog, db));
}

void RecoverStreamJobs(Instance* instance, uint32_t database_id, const StreamRuntime::Failure& failure) {
  // A job that keeps failing is retried with a growing pause, then marked
  // failed and left stopped; the database's other jobs go on.
  constexpr int kMaxFailures = 4;
  Catalog* catalog = instance->catalog();
  TableRef job = catalog->GetTable(failure.job_id);
  const std::string name = job ? job->name : "?";
  int failures = instance->jobs()->CountFailure(failure.job_id);
  catalog->RecordEvent("STREAM_FAILURE",
                       fmt::format("{{\"database_id\": {}, \"job_id\": {}, \"job\": {}, \"actor_id\": {}, "
                                   "\"error\": {}, \"failures\": {}}}",
                                   database_id, failure.job_id, JsonString(name), failure.actor,
                                   JsonString(failure.message), failures));
  if (job && failures >= kMaxFailures) {
    std::string why = fmt::format("failed {} times, last: {}", failures, failure.message);
    instance->jobs()->MarkFailed(job->id, why, failure.code);
    catalog->RecordEvent("JOB_FAILED", fmt::format("{{\"database_id\": {}, \"job_id\": {}, \"job\": {}, \"error\": {}}}",
                                                   database_id, job->id, JsonString(name), JsonString(why)));
  } else {
    DatabaseEpochLoop* loop = instance->barriers()->ForDatabase(database_id);
    auto pause = std::chrono::milliseconds(100) * (1 << std::min(failures - 1, 6));
    for (auto waited = std::chrono::milliseconds(0); waited < pause && !loop->stopping();
         waited += std::chrono::milliseconds(20))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto db = catalog->GetDatabase(database_id);
  if (!db) return;
  instance->jobs()->Rebuild(database_id, PlanDatabaseJobs(catalog, *db));
  catalog->RecordEvent("RECOVERY", fmt::format("{{\"database_id\": {}, \"after_failure_of_job_id\": {}}}",
                                               database_id, failure.job_id));
  spdlog::info("database {}: stream graph recovered", database_id);
}

}  // namespace freshet
