// SELECT, INSERT, UPDATE and DELETE, and EXPLAIN: bound, optimized and run
// by the batch engine at the session's snapshot; DML's writes go to the
// session's transaction.
#include <pg_query/pg_query.pb-c.h>

#include "batch/executor_builder.h"
#include "batch/subquery_runner.h"
#include "common/error.h"
#include "common/thread_memory.h"
#include "storage/table_engines.h"
#include "frontend/handler/create_table_as.h"
#include "frontend/handler/handler.h"
#include "storage/change_log.h"
#include "frontend/session.h"
#include "stream/watermark_filter.h"
#include "meta/dml_manager.h"
#include "planner/optimizer.h"

namespace freshet {

namespace {

bool IsDml(const PlanNode& plan) {
  return plan.kind() == PlanNode::Kind::kInsert || plan.kind() == PlanNode::Kind::kUpdate ||
         plan.kind() == PlanNode::Kind::kDelete;
}

bool HasReturning(const PlanNode& plan) {
  switch (plan.kind()) {
    case PlanNode::Kind::kInsert: return !static_cast<const InsertNode&>(plan).returning.empty();
    case PlanNode::Kind::kUpdate: return !static_cast<const UpdateNode&>(plan).returning.empty();
    case PlanNode::Kind::kDelete: return !static_cast<const DeleteNode&>(plan).returning.empty();
    default: return false;
  }
}

const char* TagPrefix(const PgQuery__Node* node) {
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_INSERT_STMT: return "INSERT 0 ";
    case PG_QUERY__NODE__NODE_UPDATE_STMT: return "UPDATE ";
    case PG_QUERY__NODE__NODE_DELETE_STMT: return "DELETE ";
    default: return "SELECT ";
  }
}

}  // namespace

PlanPtr PlanStatement(Session* session, const ParsedStatement& stmt, std::vector<DataType>* param_types) {
  Binder binder(session->BinderContextFor(stmt, param_types));
  PlanPtr plan;
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
      if (stmt.node->select_stmt->into_clause) {
        // SELECT ... INTO makes a table and returns no rows: its query is
        // bound for its parameters' types only.
        SelectWithoutInto query(*stmt.node->select_stmt);
        binder.BindQuery(&query.node);
        return nullptr;
      }
      plan = binder.BindQuery(stmt.node);
      break;
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: {
      // Likewise CREATE TABLE ... AS (a materialized view's query is
      // planned as a stream job, with no parameters).
      const PgQuery__CreateTableAsStmt* c = stmt.node->create_table_as_stmt;
      if (c->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE && c->query->node_case == PG_QUERY__NODE__NODE_SELECT_STMT)
        binder.BindQuery(c->query);
      return nullptr;
    }
    case PG_QUERY__NODE__NODE_INSERT_STMT: plan = binder.BindInsert(stmt.node); break;
    case PG_QUERY__NODE__NODE_UPDATE_STMT: plan = binder.BindUpdate(stmt.node); break;
    case PG_QUERY__NODE__NODE_DELETE_STMT: plan = binder.BindDelete(stmt.node); break;
    default: return nullptr;
  }
  return OptimizePlan(std::move(plan));
}

std::shared_ptr<const PlanNode> CachedPlanStatement(Session* session, const ParsedStatement& stmt,
                                                   std::vector<DataType>* param_types, PlanCache* cache) {
  const uint64_t catalog_version = session->catalog()->version();
  const uint64_t settings_generation = session->variables().generation();
  if (cache->plan && cache->catalog_version == catalog_version && cache->settings_generation == settings_generation)
    return cache->plan;
  std::shared_ptr<const PlanNode> plan = PlanStatement(session, stmt, param_types);
  // Kept only if nothing changed while it was planned.
  if (plan && session->catalog()->version() == catalog_version)
    *cache = PlanCache{catalog_version, settings_generation, plan};
  return plan;
}

std::vector<ColumnDesc> ResultColumns(const PlanNode& plan) {
  if (IsDml(plan) && !HasReturning(plan)) return {};
  std::vector<ColumnDesc> columns;
  for (const auto& c : plan.schema()) columns.push_back({c.name, c.type, c.origin_table, c.origin_column});
  return columns;
}

StatementOutcome HandleQuery(const HandlerArgs& args) {
  std::vector<DataType> types;
  if (args.params)
    for (const auto& p : *args.params) types.push_back(p.type());
  std::shared_ptr<const PlanNode> plan = args.plan_cache
                                            ? CachedPlanStatement(args.session, args.stmt, &types, args.plan_cache)
                                            : PlanStatement(args.session, args.stmt, &types);
  return RunPlan(args, *plan, TagPrefix(args.stmt.node));
}

void PrepareExecContext(const HandlerArgs& args, WriteSet* writes, ExecContext* ctx) {
  Session* session = args.session;
  Instance* instance = args.instance();
  ctx->store = instance->store();
  ctx->catalog = session->catalog();
  ctx->database_id = session->database().id;
  ctx->user_name = session->user();
  ctx->cancelled = session->cancel_flag();
  ctx->memory_limit = session->settings().statement_memory_limit;
  ctx->memory_at_start = ThreadMemory::Net();
  ctx->parallel = session->settings().parallel_batch;
  ctx->writes = writes;
  ctx->snapshot_source = [session] { return session->ReadSnapshot(); };
  ctx->pending = session->PendingWrites();
  if (session->holds_writer_lock()) {
    DmlManager* dml = instance->DmlFor(session->WriteDatabase());
    ctx->latest_rows = [dml](TableId id) { return dml->LatestRows(id); };
  }
  JobProgressTracker* progress = instance->job_progress();
  ctx->job_progress = [progress](ObjectId database_id) { return progress->Compute(database_id); };
  BarrierManager* barriers = instance->barriers();
  ctx->fragments = [barriers](ObjectId database_id) { return barriers->ForDatabase(database_id)->runtime()->Fragments(); };
  ctx->watermarks = [instance](ObjectId database_id) { return instance->DmlFor(database_id)->Watermarks(); };
  ctx->late_rows = LateRowsOf;
  const Catalog* catalog = instance->catalog();
  ctx->database_status = [barriers, catalog] {
    std::vector<DatabaseStatus> out;
    for (const auto& db : catalog->ListDatabases()) {
      DatabaseEpochLoop* loop = barriers->FindDatabase(db.id);
      if (!loop) continue;
      DatabaseStatus st{db.id, loop->recovering(), loop->committed_epoch(), loop->recoveries(), {}};
      for (const auto& r : loop->recent_recoveries()) st.recent.push_back({r.started_at, r.finished_at, r.cause});
      for (const auto& c : loop->recent_commits()) st.commits.push_back({c.epoch, c.committed_at});
      out.push_back(std::move(st));
    }
    return out;
  };
  Procedures* procedures = instance->procedures();
  ctx->procedures = [procedures] { return procedures->List(); };
  TimeSeriesEngine* timeseries = instance->timeseries();
  ctx->region_statistics = [timeseries](ObjectId table) {
    std::vector<RegionStatisticsInfo> out;
    for (const auto& s : timeseries->RegionStatisticsOf(table))
      out.push_back({s.region, s.rows, s.memtable_bytes, s.file_bytes, s.files});
    return out;
  };
  const StateStore* store = instance->store();
  const ExecContext* exec_ctx = ctx;
  ctx->change_log = [store, exec_ctx](ObjectId log_id) {
    ChangeLogReader reader(store, log_id);
    ChangeLogReader::Stats stats = reader.Count(exec_ctx->ReadSnapshot().get());
    ChangeLogInfo info{stats.entries, stats.oldest, reader.ApproximateBytes(), {}};
    for (const auto& c : reader.Consumers(exec_ctx->ReadSnapshot().get()))
      info.consumers.push_back({c.id, c.read_through, c.retention_ms});
    return info;
  };
  ctx->row_count = [store, exec_ctx](ObjectId id) -> std::optional<int64_t> {
    TableStatistics stats = store->engines().For(id).Statistics(id, exec_ctx->ReadSnapshot().get());
    if (!stats.rows_exact) return std::nullopt;
    return stats.rows;
  };
  ctx->settings = [session] {
    // As pg_settings shows them: durations as a number of their unit.
    const SessionVariables& vars = session->variables();
    // Sizes as a number of their unit (kB or 8kB pages), durations of ms.
    auto raw = [](const VariableDef& d, const std::string& v) {
      const std::string kind = d.kind;
      if (kind == "memory") {
        int64_t bytes = ParseMemorySetting(v).value_or(0);
        return std::to_string(bytes / (std::string(d.unit) == "8kB" ? 8192 : 1024));
      }
      if (kind == "int" || kind == "real" || !*d.unit) return v;
      return std::to_string(ParseDurationMs(v).value_or(0));
    };
    auto vartype = [](const VariableDef& d) -> std::string {
      const std::string kind = d.kind;
      if (kind == "bool" || kind == "real") return kind;
      if (kind == "int" || kind == "memory") return "integer";
      if (kind.rfind("enum:", 0) == 0) return "enum";
      return "";
    };
    std::vector<SettingInfo> out;
    for (const VariableDef& d : VariableDefs())
      out.push_back({d.name, raw(d, vars.Get(d.name)), raw(d, vars.ResetValue(d.name)), raw(d, d.default_value),
                     d.read_only, d.unit, vartype(d)});
    return out;
  };
  ctx->prepared_statements = [session] { return session->PreparedStatements(); };
  ctx->cursors = [session] { return session->Cursors(); };
  ctx->activity = [instance] { return instance->ListActivity(); };
  ctx->locks = [instance] {
    std::vector<LockInfo> out;
    for (const AdvisoryLockInfo& l : instance->advisory_locks()->List())
      out.push_back({l.key.database_id, static_cast<uint32_t>(static_cast<uint64_t>(l.key.value) >> 32),
                     static_cast<uint32_t>(l.key.value), static_cast<int16_t>(l.key.two_keys ? 2 : 1), l.pid, l.shared,
                     l.granted, l.wait_start_micros});
    return out;
  };
  ctx->eval = session->eval();
  ctx->eval.params = args.params;
}

StatementOutcome RunPlan(const HandlerArgs& args, const PlanNode& plan, const std::string& tag_prefix) {
  Session* session = args.session;
  const bool is_dml = IsDml(plan);
  const bool returning = HasReturning(plan);
  std::vector<ColumnDesc> columns;
  for (const auto& c : plan.schema()) columns.push_back({c.name, c.type, c.origin_table, c.origin_column});

  ExecContext ctx;
  WriteSet writes;
  PrepareExecContext(args, &writes, &ctx);
  BatchSubqueryRunner runner(&ctx);
  ctx.eval.subquery_runner = &runner;

  ExecutorPtr exec = BuildExecutor(plan, ctx);
  int64_t rows = 0;
  const bool send_rows = !is_dml || returning;
  if (send_rows && !args.portal) args.sink->Describe(columns);
  std::vector<DataChunk> buffered;
  DataChunk chunk;
  while (exec->Next(&chunk)) {
    if (is_dml && !returning) {
      rows = chunk.column(0).GetInt(0);
      continue;
    }
    rows += static_cast<int64_t>(chunk.num_rows());
    if (args.portal) buffered.push_back(std::move(chunk));
    else args.sink->Rows(chunk);
    chunk = DataChunk();
  }
  if (is_dml) session->Write(std::move(writes));
  if (args.portal) {
    args.portal->chunks = std::move(buffered);
    args.portal->columns = columns;
    args.portal->filled = true;
  }
  return {tag_prefix + std::to_string(rows)};
}

StatementOutcome HandleExplain(const HandlerArgs& args) {
  const PgQuery__ExplainStmt* e = args.stmt.node->explain_stmt;
  for (size_t i = 0; i < e->n_options; i++) {
    std::string opt = e->options[i]->def_elem->defname;
    if (opt == "analyze") throw SqlError(sqlstate::kFeatureNotSupported, "EXPLAIN ANALYZE is not supported yet");
  }
  ParsedStatement inner = args.stmt;
  inner.node = e->query;
  std::vector<std::string> lines;
  if (inner.node->node_case == PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT ||
      inner.node->node_case == PG_QUERY__NODE__NODE_INDEX_STMT) {
    HandleCreateJob(HandlerArgs{args.session, inner, args.sink}, &lines);
  } else {
    std::vector<DataType> types;
    // EXPLAIN EXECUTE name(...): the prepared statement's plan (its
    // parameters stay $n: the plan is the one every execution uses).
    if (inner.node->node_case == PG_QUERY__NODE__NODE_EXECUTE_STMT)
      inner = args.session->PreparedStatement(inner.node->execute_stmt->name, &types);
    PlanPtr plan = PlanStatement(args.session, inner, &types);
    if (!plan) throw SqlError(sqlstate::kFeatureNotSupported, "EXPLAIN of this statement is not supported");
    lines = ExplainPlan(*plan);
  }
  std::vector<std::vector<std::string>> rows;
  for (auto& line : lines) rows.push_back({line});
  SendTextRows(args, {{"QUERY PLAN", DataType::Varchar()}}, rows);
  return {"EXPLAIN"};
}

}  // namespace freshet
