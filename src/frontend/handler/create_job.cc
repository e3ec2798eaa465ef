// CREATE MATERIALIZED VIEW, CREATE SINK and CREATE INDEX: a stream job,
// planned from the statement (stream_job_planner.h) with the session's
// settings recorded for recovery, created by meta's StreamJobs in the
// foreground or, with SET BACKGROUND_DDL, in the background.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "catalog/index_definition.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "catalog/temp_schema.h"
#include "common/identifier.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"
#include "storage/keys.h"

namespace freshet {

namespace {

const PgQuery__CreateTableAsStmt* CreateMvNode(const ParsedStatement& stmt) {
  if (!stmt.node || stmt.node->node_case != PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT) return nullptr;
  return stmt.node->create_table_as_stmt;
}

// An expression index's values of the rows it will hold must be
// computable, as PostgreSQL's CREATE INDEX computes them (a ((a / b))
// index over a row with b = 0 fails): read by a nested query, each
// expression where the predicate holds (CASE keeps the others from
// computing it). Writes later check it row by row (Binder::BindChecks).
void CheckIndexExpressionsComputable(const HandlerArgs& args, const TableCatalog& table, const PgQuery__IndexStmt* ix) {
  const ConstraintCatalog elements = IndexElements(ix);
  if (!elements.HasExpressions()) return;
  std::string targets;
  for (const std::string& e : elements.expressions) {
    if (e.empty()) continue;
    std::string value = elements.predicate.empty() ? "(" + e + ")" : fmt::format("CASE WHEN {} THEN ({}) END", elements.predicate, e);
    targets += (targets.empty() ? "" : ", ") + ("count(" + value + ")");
  }
  auto schema = args.session->DdlCatalog()->GetSchema(table.schema_id);
  std::vector<ParsedStatement> stmts =
      ParseSql(fmt::format("SELECT {} FROM {}.{}", targets, QuoteIdent(schema ? schema->name : ""), QuoteIdent(table.name)));
  DiscardingSink sink;
  args.session->RunNested(stmts.at(0), &sink);
}

// CREATE INDEX without a name: the statement naming the index as
// PostgreSQL would (<table>_<elements>_idx, numbered when taken), so that
// the definition the index keeps names it (recovery and pg_dump read it).
std::optional<ParsedStatement> WithIndexName(const HandlerArgs& args, const JobDefinition& def) {
  const ParsedStatement& stmt = args.stmt;
  if (def.kind != RelationKind::kIndex || !stmt.node || (stmt.node->index_stmt->idxname && *stmt.node->index_stmt->idxname))
    return std::nullopt;
  Binder binder(args.session->BinderContextFor(stmt, nullptr));
  ObjectId schema_id = binder.ResolveSchemaId(def.name.size() > 1 ? def.name[0].c_str() : nullptr);
  std::string name = ChooseIndexName(*args.session->DdlCatalog(), args.session->database().id, schema_id, def.name.back());
  // Before the ON that precedes the table (a reserved word: no name is it).
  for (const Token& t : Tokenize(stmt.text)) {
    if (t.kind != Token::Kind::kKeyword || t.text != "on") continue;
    std::vector<ParsedStatement> named = ParseSql(stmt.text.substr(0, t.start) + QuoteIdent(name) + " " + stmt.text.substr(t.start));
    if (named.size() == 1) return std::move(named[0]);
    break;
  }
  throw SqlError(sqlstate::kInternalError, "could not name the index");
}

}  // namespace

StatementOutcome HandleCreateJob(const HandlerArgs& args, std::vector<std::string>* explain) {
  Session* session = args.session;
  const bool explain_only = explain != nullptr;
  JobDefinition def;
  DescribeJobDefinition(args.stmt, &def);
  if (!explain_only)
    if (std::optional<ParsedStatement> named = WithIndexName(args, def)) {
      // Planned as written first, so that errors point into the client's text.
      std::vector<std::string> plan_only;
      HandleCreateJob(args, &plan_only);
      return HandleCreateJob(HandlerArgs{args.session, *named, args.sink, args.params, args.portal, args.plan_cache}, nullptr);
    }
  const ParsedStatement& stmt = args.stmt;
  // An index: its table's DDL waits (RelationDdlLock), and it waits for
  // other DDL on its table, which may replace the table.
  std::optional<RelationDdlLock> ddl_lock;
  if (def.kind == RelationKind::kIndex && !explain_only && stmt.node) {
    Binder binder(session->BinderContextFor(stmt, nullptr));
    if (TableRef table = binder.ResolveRelation(stmt.node->index_stmt->relation, /*missing_ok=*/true)) {
      ddl_lock.emplace(args, table->schema_id, table->name);
      CheckIndexExpressionsComputable(args, *table, stmt.node->index_stmt);
    }
  }
  if (const auto* c = CreateMvNode(stmt)) {
    if (c->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW)
      throw SqlError(sqlstate::kFeatureNotSupported, "CREATE TABLE AS is not supported yet");
    // A materialized view is kept up to date from its creation: there is
    // no unpopulated state to leave it in (pg_dump writes WITH NO DATA,
    // then REFRESH, which has nothing to do).
    if (c->into->skip_data && !explain_only)
      args.sink->Notice(fmt::format("materialized view \"{}\" is kept up to date from its creation; WITH NO DATA has no effect",
                                    c->into->rel->relname));
  }
  // Materialized views and sinks have RisingWave's tags; an index
  // PostgreSQL's, which drivers and tools know.
  const bool flow = !stmt.flow_name.empty();
  const char* tag = flow                                      ? "CREATE_FLOW"
                    : def.kind == RelationKind::kSink           ? "CREATE_SINK"
                    : def.kind == RelationKind::kSubscription ? "CREATE_SUBSCRIPTION"
                    : def.kind == RelationKind::kIndex        ? "CREATE INDEX"
                                                              : "CREATE_MATERIALIZED_VIEW";
  // In a transaction block the job is planned now, against the block's
  // catalog (errors at once), enters the block's catalog and starts once
  // the block commits.
  const bool deferred = !explain_only && session->InDdlBlock();
  Catalog* catalog = deferred ? session->DdlCatalog() : session->catalog();
  Binder binder(session->BinderContextFor(stmt, nullptr));
  ObjectId schema_id = binder.ResolveSchemaId(def.name.size() > 1 ? def.name[0].c_str() : nullptr);
  const std::string& name = def.name.back();
  // GreptimeDB's CREATE FLOW f SINK TO out: the materialized view `out`,
  // named flow f (plan_settings "flow"); OR REPLACE drops the flow it
  // replaces (and its view) once the new one is planned.
  TableRef replaced_flow;
  if (flow && !explain_only)
    if (TableRef existing = FindFlow(*catalog, session->database().id, stmt.flow_name)) {
      if (stmt.flow_if_not_exists) {
        args.sink->Notice(fmt::format("flow \"{}\" already exists, skipping", stmt.flow_name));
        return {tag};
      }
      if (!stmt.flow_or_replace) FRESHET_THROW(sqlstate::kDuplicateObject, "Flow already exists: {}", stmt.flow_name);
      replaced_flow = existing;
    }
  if (TableRef existing = explain_only ? nullptr : catalog->FindTable(schema_id, name);
      existing && existing != replaced_flow) {
    const char* creating = existing->status == JobStatus::kCreating ? " and is still being created" : "";
    if (def.if_not_exists) {
      args.sink->Notice(fmt::format("relation \"{}\" already exists{}, skipping", name, creating));
      return {tag};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists{}", name, creating);
  }
  JobPlanContext ctx;
  ctx.catalog = catalog;
  ctx.database = session->database();
  ctx.user = session->user();
  ctx.search_path = session->SearchPath();
  ctx.temp_schema = TempSchemaName(session->process_id());
  ctx.eval.time_zone = session->eval().time_zone;
  std::vector<ObjectId> functions;
  ctx.referenced_functions = &functions;
  StreamPlan plan = PlanJob(ctx, stmt);
  if (replaced_flow &&
      std::find(plan.depends_on.begin(), plan.depends_on.end(), replaced_flow->id) != plan.depends_on.end())
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "flow \"{}\" cannot read the table \"{}\" it replaces",
                  stmt.flow_name, replaced_flow->name);
  if (explain_only) {
    *explain = ExplainStreamPlan(plan);
    return {"EXPLAIN"};
  }
  TableCatalog job;
  job.database_id = session->database().id;
  job.schema_id = schema_id;
  job.owner = catalog->FindUser(session->user())->id;
  job.name = name;
  job.kind = def.kind;
  job.columns = plan.columns;
  job.pk = plan.pk;
  job.dist_key = plan.dist_key;
  job.append_only = plan.root->append_only;
  job.stream_watermark_columns = WatermarkColumns(*plan.root);
  job.depends_on = plan.depends_on;
  std::sort(functions.begin(), functions.end());
  functions.erase(std::unique(functions.begin(), functions.end()), functions.end());
  job.function_deps = functions;
  // An index holds its table's columns as they are now, then its
  // expressions' values (catalog/index_definition.h).
  if (def.kind == RelationKind::kIndex && !job.depends_on.empty())
    if (TableRef table = catalog->GetTable(job.depends_on[0]))
      job.input_columns[table->id] = static_cast<int>(table->columns.size());
  if (ReadsTemporaryRelation(*catalog, plan.depends_on))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "{} must not use temporary tables or views",
                  def.kind == RelationKind::kMaterializedView ? "materialized views"
                  : def.kind == RelationKind::kSink         ? "sinks"
                  : def.kind == RelationKind::kSubscription ? "subscriptions"
                                                             : "indexes");
  job.definition = stmt.text;
  job.plan_settings["search_path"] = JoinSearchPath(ctx.search_path);
  job.plan_settings["timezone"] = session->variables().Get("timezone");
  if (!def.connector.empty()) job.plan_settings["connector"] = def.connector;
  if (flow) {
    job.plan_settings["flow"] = stmt.flow_name;
    if (!stmt.flow_comment.empty()) job.plan_settings["flow_comment"] = stmt.flow_comment;
  }
  if (def.kind == RelationKind::kSubscription) {
    job.plan_settings["retention_ms"] = std::to_string(SubscriptionRetentionMs(stmt));
    job.plan_settings["retention"] = stmt.with_options.at("retention");
  }
  int parallelism = 0;
  try {
    parallelism = std::stoi(session->variables().Get("streaming_parallelism"));
  } catch (...) {
  }
  if (parallelism <= 0) parallelism = int(std::max(1u, std::thread::hardware_concurrency()));
  // A fragment has at most one actor per vnode (more would own no vnodes),
  // as RisingWave's max parallelism: SET streaming_parallelism = 1000000
  // built a million actors per fragment and ran the server out of memory.
  if (parallelism > kVnodeCount)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "specified parallelism {} is greater than max parallelism {}",
                  parallelism, kVnodeCount);
  int64_t memory_limit = ParseMemorySetting(session->variables().Get("streaming_memory_limit")).value_or(0);
  job.plan_settings["streaming_memory_limit"] = std::to_string(memory_limit > 0 ? memory_limit : DefaultMemoryLimit());
  bool background = false;
  ParseBoolSetting(session->variables().Get("background_ddl"), &background);
  job.plan_settings["background_ddl"] = background ? "true" : "false";
  job.plan_settings["backfill_rate_limit"] = session->variables().Get("backfill_rate_limit");
  // A job on jobs still being created is built in the same pass: it reads
  // what they materialized so far plus their output, and completes after them.
  for (ObjectId up : plan.depends_on) {
    TableRef u = catalog->GetTable(up);
    if (u && u->status == JobStatus::kCreating && !catalog->MadeInTransaction(up))
      args.sink->Notice(fmt::format("{} \"{}\" is still being created; {} \"{}\" will be created together with it and "
                               "complete after it",
                               RelationKindName(u->kind), u->name, RelationKindName(def.kind), name));
  }
  if (replaced_flow) DropRelations(args, DropClosure(args, {replaced_flow}, /*cascade=*/false, "materialized view"));
  StreamJobs* jobs = args.instance()->jobs();
  if (def.kind == RelationKind::kSubscription) {
    // A consumer of its relation's shared change log, not a job of its own.
    // As PostgreSQL's CREATE SUBSCRIPTION that makes a replication slot.
    if (deferred)
      throw SqlError(sqlstate::kActiveTransaction, "CREATE SUBSCRIPTION cannot run inside a transaction block");
    jobs->CreateSubscription(std::move(job), SubscriptionRetentionMs(stmt), ctx.eval, parallelism,
                             session->cancel_flag());
    return {tag};
  }
  if (deferred) {
    // The block's later statements see it (a view on it, COMMENT, OWNER
    // TO); it starts once the block commits, and COMMIT waits for it
    // unless BACKGROUND_DDL.
    ObjectId id = jobs->CreateInTransaction(catalog, std::move(job), plan, parallelism)->id;
    session->OnDdlRollback([jobs, id] { jobs->ForgetAwaitedStart(id); });
    session->AfterDdlCommit([jobs, id, background, session] {
      jobs->StartCommitted(id, /*wait=*/!background, session->cancel_flag());
    });
    return {tag};
  }
  jobs->Create(std::move(job), std::move(plan), ctx.eval, parallelism, /*wait=*/!background, session->cancel_flag());
  return {tag};
}

}  // namespace freshet
