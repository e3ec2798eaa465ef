#include "server/session.h"

#include <unistd.h>

#include <pg_query/pg_query.pb-c.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "batch/executor_builder.h"
#include "batch/subquery_runner.h"
#include "catalog/pg_catalog.h"
#include "common/error.h"
#include "common/thread_memory.h"
#include "expr/cast.h"
#include "planner/optimizer.h"
#include "server/pg_binary.h"
#include "server/utf8_check.h"

namespace freshet {

namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Session variables: name (lower case) -> (canonical name, default, reported at startup).
struct VariableDef {
  const char* name;
  const char* default_value;
  bool reported;
  bool read_only;
};

const std::vector<VariableDef>& VariableDefs() {
  static const std::vector<VariableDef> kDefs = {
      {"application_name", "", true, false},
      {"client_encoding", "UTF8", true, false},
      {"DateStyle", "ISO, MDY", true, false},
      {"IntervalStyle", "postgres", true, false},
      {"TimeZone", "UTC", true, false},
      {"integer_datetimes", "on", true, true},
      {"server_version", "13.14.0", true, true},
      {"server_version_num", "130014", false, true},
      {"server_encoding", "UTF8", true, true},
      {"standard_conforming_strings", "on", true, false},
      {"is_superuser", "on", true, true},
      {"session_authorization", "root", true, true},
      {"extra_float_digits", "1", false, false},
      {"search_path", "\"$user\", public", false, false},
      {"transaction_isolation", "read committed", false, false},
      {"default_transaction_isolation", "read committed", false, false},
      {"statement_timeout", "0", false, false},
      {"lock_timeout", "0", false, false},
      {"idle_in_transaction_session_timeout", "0", false, false},
      {"client_min_messages", "notice", false, false},
      {"bytea_output", "hex", false, false},
      {"max_identifier_length", "63", false, true},
      {"rw_implicit_flush", "false", false, false},
      {"synchronous_commit", "on", false, false},
      {"statement_memory_limit", "0", false, false},
      {"streaming_parallelism", "0", false, false},
      {"streaming_memory_limit", "0", false, false},
      {"background_ddl", "false", false, false},
      {"backfill_rate_limit", "default", false, false},
      {"query_mode", "auto", false, false},
      {"visibility_mode", "default", false, false},
  };
  return kDefs;
}

const VariableDef* FindVariable(const std::string& name) {
  std::string l = Lower(name);
  for (const auto& d : VariableDefs())
    if (Lower(d.name) == l) return &d;
  return nullptr;
}

}  // namespace

std::optional<int64_t> ParseMemorySetting(const std::string& text) {
  size_t pos = 0;
  long long n;
  try {
    n = std::stoll(text, &pos);
  } catch (...) {
    return std::nullopt;
  }
  if (n < 0) return std::nullopt;
  std::string unit = text.substr(pos);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  int shift = unit.empty() || unit == "kB" ? 10 : unit == "MB" ? 20 : unit == "GB" ? 30 : unit == "TB" ? 40 : -1;
  if (shift < 0 || n > (INT64_MAX >> shift)) return std::nullopt;
  return int64_t(n) << shift;
}

int64_t DefaultMemoryLimit() {
  static const int64_t limit = int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGESIZE)) / 2;
  return limit;
}

std::string NormalizeRateLimit(const std::string& value, const std::string& what) {
  std::string l = Lower(value);
  if (l == "default" || l.empty()) return "default";
  try {
    size_t pos;
    long long n = std::stoll(l, &pos);
    if (pos == l.size() && n >= 0) return std::to_string(n);
  } catch (...) {
  }
  FRESHET_THROW(sqlstate::kInvalidParameterValue,
                "invalid value for {}: \"{}\" (rows per second per parallelism, 0 pauses, DEFAULT for no limit)", what,
                value);
}

bool ParseBoolSetting(const std::string& v, bool* out) {
  std::string l = Lower(v);
  if (l == "true" || l == "on" || l == "1" || l == "yes" || l == "t") { *out = true; return true; }
  if (l == "false" || l == "off" || l == "0" || l == "no" || l == "f") { *out = false; return true; }
  return false;
}

struct Session::Prepared {
  std::string sql;
  std::vector<ParsedStatement> statements;  // zero or one
  std::vector<DataType> param_types;
};

struct Session::Portal {
  std::shared_ptr<Prepared> prepared;  // shared: the statement may be closed or replaced
  std::vector<Value> params;
  std::vector<int16_t> result_formats;
  bool started = false;
  std::vector<ColumnDesc> columns;
  std::vector<DataChunk> buffered;  // results of a suspended portal
  size_t buffered_row = 0;
  StatementOutcome outcome;
};

Session::Session(Instance* instance, const std::string& user, const std::string& database)
    : instance_(instance), user_(user) {
  if (!instance_->catalog()->FindUser(user))
    throw SqlError("28000", "role \"" + user + "\" does not exist");
  auto db = instance_->catalog()->FindDatabase(database);
  if (!db) throw SqlError(sqlstate::kInvalidCatalogName, "database \"" + database + "\" does not exist");
  database_ = *db;
  for (const auto& d : VariableDefs()) variables_[Lower(d.name)] = d.default_value;
  variables_["session_authorization"] = user;
  auto ids = instance_->RegisterSession(&cancel_);
  pid_ = ids.first;
  secret_ = ids.second;
}

Session::~Session() { instance_->UnregisterSession(pid_); }

std::vector<std::pair<std::string, std::string>> Session::StartupParameters() {
  reported_.clear();
  return TakeChangedParameters();
}

char Session::TransactionStatus() const {
  switch (txn_) {
    case TxnState::kIdle: return 'I';
    case TxnState::kInBlock: return 'T';
    case TxnState::kFailed: return 'E';
  }
  return 'I';
}

std::string Session::GetVariable(const std::string& name) const {
  auto it = variables_.find(Lower(name));
  return it == variables_.end() ? "" : it->second;
}

std::vector<std::pair<std::string, std::string>> Session::TakeChangedParameters() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : VariableDefs()) {
    if (!d.reported) continue;
    std::string v = GetVariable(d.name);
    auto it = reported_.find(d.name);
    if (it == reported_.end() || it->second != v) {
      out.emplace_back(d.name, v);
      reported_[d.name] = v;
    }
  }
  return out;
}

void Session::SetVariable(const std::string& name, const std::string& value) {
  const VariableDef* def = FindVariable(name);
  if (!def) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
  if (def->read_only) FRESHET_THROW(sqlstate::kCantChangeRuntimeParam, "parameter \"{}\" cannot be changed", def->name);
  std::string v = value;
  std::string key = Lower(def->name);
  if (key == "timezone") {
    auto tz = TimeZone::Lookup(v);
    if (!tz) FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for parameter \"TimeZone\": \"{}\"", value);
  } else if (key == "rw_implicit_flush" || key == "background_ddl") {
    bool b;
    if (!ParseBoolSetting(v, &b))
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "parameter \"{}\" requires a Boolean value", def->name);
    v = b ? "true" : "false";
  } else if (key == "statement_memory_limit" || key == "streaming_memory_limit") {
    if (!ParseMemorySetting(v))
      FRESHET_THROW(sqlstate::kInvalidParameterValue,
                    "invalid value for parameter \"{}\": \"{}\" (a size such as 64MB, or 0 for the server's default)",
                    def->name, value);
  } else if (key == "synchronous_commit") {
    // PostgreSQL's values; without replicas, local and remote_* mean on.
    std::string l = Lower(v);
    bool b;
    if (l == "local" || l == "remote_write" || l == "remote_apply" || l == "on" || l == "off") v = l;
    else if (ParseBoolSetting(l, &b)) v = b ? "on" : "off";
    else
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("invalid value for parameter \"synchronous_commit\": \"{}\"", value))
          .WithHint("Available values: local, remote_write, remote_apply, on, off.");
  } else if (key == "backfill_rate_limit") {
    v = NormalizeRateLimit(v, def->name);
  } else if (key == "client_encoding") {
    std::string l = Lower(v);
    if (l != "utf8" && l != "utf-8" && l != "unicode")
      FRESHET_THROW(sqlstate::kFeatureNotSupported, "only client_encoding UTF8 is supported, not \"{}\"", value);
    v = "UTF8";
  } else if (key == "extra_float_digits" || key == "statement_timeout" || key == "streaming_parallelism") {
    try {
      size_t pos;
      (void)std::stoll(v, &pos);
      if (pos != v.size()) throw std::invalid_argument("x");
    } catch (...) {
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for parameter \"{}\": \"{}\"", def->name, value);
    }
  }
  variables_[key] = v;
}

void Session::ApplyStartupParameter(const std::string& name, const std::string& value) {
  const VariableDef* def = FindVariable(name);
  if (!def || def->read_only) return;
  SetVariable(def->name, value);
  reset_values_[Lower(def->name)] = variables_[Lower(def->name)];
}

std::vector<std::string> Session::SearchPath() const {
  std::vector<std::string> out;
  std::string path = GetVariable("search_path");
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t comma = path.find(',', pos);
    if (comma == std::string::npos) comma = path.size();
    std::string item = path.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.size() >= 2 && item.front() == '"' && item.back() == '"') item = item.substr(1, item.size() - 2);
    else item = Lower(item);
    if (item == "$user") item = user_;
    if (!item.empty()) out.push_back(item);
    pos = comma + 1;
  }
  return out;
}

void Session::PrepareEval() {
  auto tz = TimeZone::Lookup(GetVariable("timezone"));
  eval_.time_zone = tz ? *tz : TimeZone();
  eval_.statement_time = NowMicros();
  eval_.params = nullptr;
  eval_.outer_rows.clear();
  eval_.subquery_runner = nullptr;
  eval_.catalog = MakeCatalogLookup(instance_->catalog(), database_.id, SearchPath());
}

BinderContext Session::BinderContextFor(const ParsedStatement& stmt, std::vector<DataType>* param_types) {
  BinderContext ctx;
  ctx.catalog = instance_->catalog();
  ctx.database_id = database_.id;
  ctx.database_name = database_.name;
  ctx.user_name = user_;
  ctx.eval = &eval_;
  ctx.param_types = param_types;
  ctx.query_text = &current_query_;
  ctx.search_path = SearchPath();
  ctx.statement_offset = stmt.offset;
  return ctx;
}

PlanPtr Session::Plan(const ParsedStatement& stmt, std::vector<DataType>* param_types) {
  Binder binder(BinderContextFor(stmt, param_types));
  PlanPtr plan;
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT: plan = binder.BindQuery(stmt.node); break;
    case PG_QUERY__NODE__NODE_INSERT_STMT: plan = binder.BindInsert(stmt.node); break;
    case PG_QUERY__NODE__NODE_UPDATE_STMT: plan = binder.BindUpdate(stmt.node); break;
    case PG_QUERY__NODE__NODE_DELETE_STMT: plan = binder.BindDelete(stmt.node); break;
    default: return nullptr;
  }
  return OptimizePlan(std::move(plan));
}

std::shared_ptr<const Snapshot> Session::ReadSnapshot() {
  if (txn_snapshot_) return txn_snapshot_;
  // Read your own writes: wait until the epoch that holds them is committed.
  DatabaseEpochLoop* loop = instance_->barriers()->ForDatabase(database_.id);
  if (last_write_epoch_ > loop->committed_epoch()) {
    try {
      loop->Flush();
    } catch (const SqlError& e) {
      // The commit failed (a full disk): reads go on, from the last
      // committed epoch, which lacks this session's latest writes (kept,
      // and stored by the next commit that succeeds).
      spdlog::debug("reading the last committed epoch: {}", e.message());
    }
  }
  auto snap = instance_->store()->GetSnapshot();
  if (txn_ == TxnState::kInBlock) txn_snapshot_ = snap;
  return snap;
}

void Session::ApplyWrites(WriteSet&& writes) {
  if (writes.empty()) return;
  // synchronous_commit: the writes are in the DML log, on disk, when Apply
  // returns; bulk rows are not logged, so their commit is waited for.
  const bool durable = GetVariable("synchronous_commit") != "off";
  const bool bulk = !writes.bulk().empty();
  last_write_epoch_ = instance_->DmlFor(database_.id)->Apply(std::move(writes), durable);
  bool implicit_flush = false;
  ParseBoolSetting(GetVariable("rw_implicit_flush"), &implicit_flush);
  if (!implicit_flush && !(durable && bulk)) return;
  try {
    instance_->barriers()->ForDatabase(database_.id)->Flush();
  } catch (SqlError& e) {
    if (!bulk) throw;
    // The rows are written and seen by the views: they are not taken back
    // but kept, like every write of the epochs that failed to commit.
    throw SqlError(e.code(), "the loaded rows are not committed: " + e.message())
        .WithDetail("They are kept and stored by the next commit that succeeds (after disk space is freed).")
        .WithHint(e.hint());
  }
}

void Session::Write(WriteSet&& writes) {
  if (txn_ != TxnState::kInBlock) return ApplyWrites(std::move(writes));
  instance_->DmlFor(database_.id)->CheckUnique(txn_writes_, writes);
  txn_writes_.Append(std::move(writes));
}

void Session::OnError() {
  if (txn_ == TxnState::kInBlock) txn_ = TxnState::kFailed;
  if (implicit_txn_) {
    implicit_txn_ = false;
    txn_ = TxnState::kIdle;
    txn_writes_.Clear();
    txn_snapshot_.reset();
  }
}

void Session::Sync() {
  if (implicit_txn_) {
    implicit_txn_ = false;
    txn_ = TxnState::kIdle;
    txn_snapshot_.reset();
    WriteSet w = std::move(txn_writes_);
    txn_writes_.Clear();
    ApplyWrites(std::move(w));
  }
}

// ---- Simple query ----

void Session::ExecuteSimple(const std::string& sql, ResultSink* sink,
                            const std::function<void(const StatementOutcome&)>& done) {
  current_query_ = sql;
  std::vector<ParsedStatement> stmts = ParseSql(sql, &parse_cache_);
  if (stmts.empty()) {
    StatementOutcome empty;
    empty.empty_query = true;
    done(empty);
    return;
  }
  // Several statements in one message form one implicit transaction, as
  // in PostgreSQL: their writes apply together at the end, or not at all if
  // one fails (BEGIN/COMMIT inside the message take over).
  if (stmts.size() > 1 && txn_ == TxnState::kIdle) {
    txn_ = TxnState::kInBlock;
    implicit_txn_ = true;
  }
  for (const auto& stmt : stmts) {
    ResetCancel();
    done(RunStatement(stmt, nullptr, sink, nullptr, 0, nullptr));
  }
  Sync();
}

StatementOutcome Session::RunStatement(const ParsedStatement& stmt, const std::vector<Value>* params, ResultSink* sink,
                                       Portal* portal, int64_t max_rows, bool* suspended) {
  PrepareEval();
  bool is_txn_stmt = stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_TRANSACTION_STMT;
  if (txn_ == TxnState::kFailed && !is_txn_stmt)
    throw SqlError(sqlstate::kInFailedTransaction,
                   "current transaction is aborted, commands ignored until end of transaction block");
  if (stmt.extension.kind != ExtensionStatement::Kind::kNone) return RunExtension(stmt, sink);
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
    case PG_QUERY__NODE__NODE_INSERT_STMT:
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
    case PG_QUERY__NODE__NODE_DELETE_STMT: {
      std::vector<DataType> types;
      if (params)
        for (const auto& p : *params) types.push_back(p.type());
      PlanPtr plan = Plan(stmt, &types);
      const char* prefix = stmt.node->node_case == PG_QUERY__NODE__NODE_INSERT_STMT   ? "INSERT 0 "
                           : stmt.node->node_case == PG_QUERY__NODE__NODE_UPDATE_STMT ? "UPDATE "
                           : stmt.node->node_case == PG_QUERY__NODE__NODE_DELETE_STMT ? "DELETE "
                                                                                      : "SELECT ";
      return RunQuery(stmt, std::move(plan), prefix, params, sink, portal, max_rows, suspended);
    }
    case PG_QUERY__NODE__NODE_TRANSACTION_STMT: return RunTransaction(stmt);
    case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT: return RunSet(stmt);
    case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT: {
      std::string name = stmt.node->variable_show_stmt->name;
      return RunShow(name, sink);
    }
    case PG_QUERY__NODE__NODE_COPY_STMT: return RunCopy(stmt, sink);
    default: break;
  }
  bool handled = false;
  StatementOutcome out = RunUtility(stmt, sink, &handled);
  if (handled) return out;
  return RunDdl(stmt, sink);
}

StatementOutcome Session::RunQuery(const ParsedStatement& stmt, PlanPtr plan, const std::string& tag_prefix,
                                   const std::vector<Value>* params, ResultSink* sink, Portal* portal, int64_t max_rows,
                                   bool* suspended) {
  bool is_dml = plan->kind() == PlanNode::Kind::kInsert || plan->kind() == PlanNode::Kind::kUpdate ||
                plan->kind() == PlanNode::Kind::kDelete;
  bool returning = false;
  if (is_dml) {
    const auto* r = plan->kind() == PlanNode::Kind::kInsert   ? &static_cast<InsertNode*>(plan.get())->returning
                    : plan->kind() == PlanNode::Kind::kUpdate ? &static_cast<UpdateNode*>(plan.get())->returning
                                                              : &static_cast<DeleteNode*>(plan.get())->returning;
    returning = !r->empty();
  }
  std::vector<ColumnDesc> columns;
  for (const auto& c : plan->schema()) columns.push_back({c.name, c.type});

  ExecContext ctx;
  ctx.store = instance_->store();
  ctx.catalog = instance_->catalog();
  ctx.database_id = database_.id;
  ctx.user_name = user_;
  ctx.cancelled = &cancel_;
  ctx.memory_limit = *ParseMemorySetting(GetVariable("statement_memory_limit"));
  if (ctx.memory_limit == 0) ctx.memory_limit = DefaultMemoryLimit();
  ctx.memory_at_start = ThreadMemory::Net();
  WriteSet writes;
  ctx.writes = &writes;
  ctx.snapshot_source = [this] { return ReadSnapshot(); };
  if (txn_ == TxnState::kInBlock) ctx.pending = &txn_writes_;
  JobProgressTracker* progress = instance_->job_progress();
  ctx.job_progress = [progress](ObjectId database_id) { return progress->Compute(database_id); };
  BarrierManager* barriers = instance_->barriers();
  ctx.fragments = [barriers](ObjectId database_id) { return barriers->ForDatabase(database_id)->runtime()->Fragments(); };
  const StateStore* store = instance_->store();
  const ExecContext* exec_ctx = &ctx;
  ctx.row_count = [store, exec_ctx](ObjectId id) { return store->RowCount(id, exec_ctx->ReadSnapshot().get()); };
  ctx.eval = eval_;
  ctx.eval.params = params;
  BatchSubqueryRunner runner(&ctx);
  ctx.eval.subquery_runner = &runner;

  ExecutorPtr exec = BuildExecutor(*plan, ctx);
  int64_t rows = 0;
  bool send_rows = !is_dml || returning;
  if (send_rows && !portal) sink->Describe(columns);
  std::vector<DataChunk> buffered;
  DataChunk chunk;
  while (exec->Next(&chunk)) {
    if (is_dml && !returning) {
      rows = chunk.column(0).GetInt(0);
      continue;
    }
    rows += static_cast<int64_t>(chunk.num_rows());
    if (portal) buffered.push_back(std::move(chunk));
    else sink->Rows(chunk);
    chunk = DataChunk();
  }
  if (is_dml) Write(std::move(writes));
  StatementOutcome out;
  out.tag = tag_prefix + std::to_string(rows);
  if (portal) {
    portal->buffered = std::move(buffered);
    portal->buffered_row = 0;
    portal->outcome = out;
    portal->columns = columns;
  }
  return out;
}

// ---- Transactions and variables ----

StatementOutcome Session::RunTransaction(const ParsedStatement& stmt) {
  const PgQuery__TransactionStmt* t = stmt.node->transaction_stmt;
  switch (t->kind) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START:
      if (txn_ == TxnState::kFailed)
        throw SqlError(sqlstate::kInFailedTransaction,
                       "current transaction is aborted, commands ignored until end of transaction block");
      if (txn_ == TxnState::kInBlock && !implicit_txn_) {
        StatementOutcome o{"BEGIN"};
        return o;  // PostgreSQL warns "there is already a transaction in progress"
      }
      if (implicit_txn_) {
        // BEGIN within a multi-statement message makes the implicit
        // transaction explicit, keeping what it already wrote.
        implicit_txn_ = false;
      } else {
        txn_ = TxnState::kInBlock;
        txn_snapshot_.reset();
        txn_writes_.Clear();
      }
      return {t->kind == PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN ? "BEGIN" : "START TRANSACTION"};
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT: {
      bool failed = txn_ == TxnState::kFailed;
      txn_ = TxnState::kIdle;
      implicit_txn_ = false;
      txn_snapshot_.reset();
      WriteSet w = std::move(txn_writes_);
      txn_writes_.Clear();
      if (failed) return {"ROLLBACK"};
      ApplyWrites(std::move(w));
      return {"COMMIT"};
    }
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
      txn_ = TxnState::kIdle;
      implicit_txn_ = false;
      txn_snapshot_.reset();
      txn_writes_.Clear();
      return {"ROLLBACK"};
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "savepoints and two-phase commit are not supported yet");
}

StatementOutcome Session::RunSet(const ParsedStatement& stmt) {
  const PgQuery__VariableSetStmt* s = stmt.node->variable_set_stmt;
  std::string name = s->name ? s->name : "";
  if (name == "timezone") name = "TimeZone";
  switch (s->kind) {
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE: {
      std::string value;
      for (size_t i = 0; i < s->n_args; i++) {
        const PgQuery__Node* a = s->args[i];
        std::string part;
        if (a->node_case == PG_QUERY__NODE__NODE_A_CONST) {
          const auto* c = a->a_const;
          if (c->val_case == PG_QUERY__A__CONST__VAL_SVAL) part = c->sval->sval;
          else if (c->val_case == PG_QUERY__A__CONST__VAL_IVAL) part = std::to_string(c->ival->ival);
          else if (c->val_case == PG_QUERY__A__CONST__VAL_FVAL) part = c->fval->fval;
          else if (c->val_case == PG_QUERY__A__CONST__VAL_BOOLVAL) part = c->boolval->boolval ? "true" : "false";
        } else if (a->node_case == PG_QUERY__NODE__NODE_TYPE_CAST) {
          // SET TIME ZONE INTERVAL '+08:00' HOUR TO MINUTE
          const auto* arg = a->type_cast->arg;
          if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL)
            part = arg->a_const->sval->sval;
        }
        value += (i ? ", " : "") + part;
      }
      if (name == "transaction_isolation" || name == "transaction") return {"SET"};
      SetVariable(name, value);
      return {"SET"};
    }
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT:
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET: {
      const VariableDef* def = FindVariable(name);
      if (!def) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
      auto startup = reset_values_.find(Lower(def->name));
      variables_[Lower(def->name)] = startup != reset_values_.end() ? startup->second : def->default_value;
      return {s->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET ? "RESET" : "SET"};
    }
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET_ALL:
      for (const auto& d : VariableDefs()) {
        if (d.read_only) continue;
        auto startup = reset_values_.find(Lower(d.name));
        variables_[Lower(d.name)] = startup != reset_values_.end() ? startup->second : d.default_value;
      }
      return {"RESET"};
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_MULTI:
      // SET TRANSACTION ... / SET SESSION CHARACTERISTICS: accepted, no effect.
      return {"SET"};
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported SET statement");
}

void Session::SendTextRows(const std::vector<ColumnDesc>& cols, const std::vector<std::vector<std::string>>& rows,
                           ResultSink* sink) {
  sink->Describe(cols);
  DataChunk chunk(std::vector<DataType>(cols.size(), DataType::Varchar()));
  for (const auto& r : rows) {
    Row row;
    for (const auto& v : r) row.push_back(Value::Varchar(v));
    chunk.AppendRow(row);
  }
  if (!rows.empty()) sink->Rows(chunk);
}

StatementOutcome Session::RunShow(const std::string& name, ResultSink* sink) {
  std::string l = Lower(name);
  if (l == "all") {
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : VariableDefs()) rows.push_back({d.name, GetVariable(d.name), ""});
    SendTextRows({{"Name", DataType::Varchar()}, {"Setting", DataType::Varchar()}, {"Description", DataType::Varchar()}},
                 rows, sink);
    return {"SHOW"};
  }
  if (l == "time zone") l = "timezone";
  if (l == "transaction isolation level") l = "transaction_isolation";
  const VariableDef* def = FindVariable(l);
  if (!def) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
  SendTextRows({{Lower(def->name), DataType::Varchar()}}, {{GetVariable(def->name)}}, sink);
  return {"SHOW"};
}

// ---- Extended protocol ----

void Session::Parse(const std::string& name, const std::string& sql, const std::vector<uint32_t>& param_oids) {
  if (!name.empty() && prepared_.count(name))
    FRESHET_THROW(sqlstate::kDuplicatePreparedStatement, "prepared statement \"{}\" already exists", name);
  current_query_ = sql;
  auto p = std::make_shared<Prepared>();
  p->sql = sql;
  p->statements = ParseSql(sql);
  if (p->statements.size() > 1)
    throw SqlError(sqlstate::kSyntaxError, "cannot insert multiple commands into a prepared statement");
  for (uint32_t oid : param_oids) {
    DataType t = oid == 0 ? DataType::Unknown() : DataTypeFromPgOid(oid);
    if (oid != 0 && t.id == TypeId::kUnknown && oid != 705)
      FRESHET_THROW(sqlstate::kUndefinedObject, "type with OID {} does not exist", oid);
    p->param_types.push_back(t);
  }
  // Bind once now to report errors early and to infer parameter types.
  if (!p->statements.empty() && p->statements[0].node) {
    PrepareEval();
    Plan(p->statements[0], &p->param_types);
    for (auto& t : p->param_types)
      if (t.id == TypeId::kUnknown) t = DataType::Varchar();
  }
  prepared_[name] = std::move(p);
}

std::vector<DataType> Session::DescribeStatementParams(const std::string& statement) const {
  auto it = prepared_.find(statement);
  if (it == prepared_.end())
    FRESHET_THROW(sqlstate::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", statement);
  return it->second->param_types;
}

std::vector<ColumnDesc> Session::DescribeStatement(const std::string& statement) {
  auto it = prepared_.find(statement);
  if (it == prepared_.end())
    FRESHET_THROW(sqlstate::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", statement);
  return DescribePrepared(*it->second);
}

std::vector<ColumnDesc> Session::DescribePrepared(const Prepared& p) {
  if (p.statements.empty() || !p.statements[0].node) return {};
  PrepareEval();
  std::vector<DataType> types = p.param_types;
  current_query_ = p.sql;
  PlanPtr plan = Plan(p.statements[0], &types);
  if (!plan) return {};
  bool is_dml = plan->kind() == PlanNode::Kind::kInsert || plan->kind() == PlanNode::Kind::kUpdate ||
                plan->kind() == PlanNode::Kind::kDelete;
  if (is_dml) {
    bool returning = plan->kind() == PlanNode::Kind::kInsert   ? !static_cast<InsertNode*>(plan.get())->returning.empty()
                     : plan->kind() == PlanNode::Kind::kUpdate ? !static_cast<UpdateNode*>(plan.get())->returning.empty()
                                                               : !static_cast<DeleteNode*>(plan.get())->returning.empty();
    if (!returning) return {};
  }
  std::vector<ColumnDesc> cols;
  for (const auto& c : plan->schema()) cols.push_back({c.name, c.type});
  return cols;
}

void Session::Bind(const std::string& portal_name, const std::string& statement,
                   const std::vector<std::optional<std::string>>& params, const std::vector<int16_t>& param_formats,
                   const std::vector<int16_t>& result_formats) {
  // In exec_bind_message's order: the statement, then the number of
  // parameter formats (none, one for all, or one per parameter), then the
  // number of parameters.
  auto it = prepared_.find(statement);
  if (it == prepared_.end()) {
    if (statement.empty()) throw SqlError(sqlstate::kInvalidSqlStatementName, "unnamed prepared statement does not exist");
    FRESHET_THROW(sqlstate::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", statement);
  }
  std::shared_ptr<Prepared> p = it->second;
  if (param_formats.size() > 1 && param_formats.size() != params.size())
    FRESHET_THROW(sqlstate::kProtocolViolation, "bind message has {} parameter formats but {} parameters",
                  param_formats.size(), params.size());
  if (params.size() != p->param_types.size())
    FRESHET_THROW(sqlstate::kProtocolViolation, "bind message supplies {} parameters, but prepared statement \"{}\" requires {}",
                  params.size(), statement, p->param_types.size());
  if (txn_ == TxnState::kFailed)
    throw SqlError(sqlstate::kInFailedTransaction,
                   "current transaction is aborted, commands ignored until end of transaction block");
  PrepareEval();
  auto portal = std::make_unique<Portal>();
  portal->prepared = p;
  for (size_t i = 0; i < params.size(); i++) {
    const DataType& t = p->param_types[i];
    int16_t fmt = param_formats.empty() ? 0 : (param_formats.size() == 1 ? param_formats[0] : param_formats.at(i));
    // As exec_bind_message: the format is checked for NULLs too; text is
    // checked to be UTF-8 before its type reads it.
    if (fmt != 0 && fmt != 1) FRESHET_THROW(sqlstate::kInvalidParameterValue, "unsupported format code: {}", fmt);
    if (!params[i]) {
      portal->params.push_back(Value::Null(t));
      continue;
    }
    if (fmt == 1) {
      portal->params.push_back(DecodeBinaryParam(*params[i], t, static_cast<int>(i + 1)));
    } else {
      CheckUtf8(*params[i]);
      portal->params.push_back(ParseText(*params[i], t, eval_));
    }
  }
  // PortalSetResultFormat: one format for all columns or one per column,
  // for statements that return rows. (The codes themselves are checked
  // when rows are sent, as printtup does.)
  if (result_formats.size() > 1) {
    size_t columns = DescribePrepared(*p).size();
    if (columns > 0 && columns != result_formats.size())
      FRESHET_THROW(sqlstate::kProtocolViolation, "bind message has {} result formats but query has {} columns",
                    result_formats.size(), columns);
  }
  portal->result_formats = result_formats;
  portals_[portal_name] = std::move(portal);
}

std::vector<ColumnDesc> Session::DescribePortal(const std::string& name) {
  auto it = portals_.find(name);
  if (it == portals_.end()) FRESHET_THROW(sqlstate::kInvalidCursorName, "portal \"{}\" does not exist", name);
  return DescribePrepared(*it->second->prepared);
}

const std::vector<int16_t>& Session::PortalResultFormats(const std::string& name) const {
  static const std::vector<int16_t> kNone;
  auto it = portals_.find(name);
  return it == portals_.end() ? kNone : it->second->result_formats;
}

bool Session::Execute(const std::string& name, int64_t max_rows, ResultSink* sink, StatementOutcome* outcome) {
  auto it = portals_.find(name);
  if (it == portals_.end()) FRESHET_THROW(sqlstate::kInvalidCursorName, "portal \"{}\" does not exist", name);
  Portal* portal = it->second.get();
  Prepared* p = portal->prepared.get();
  if (p->statements.empty()) {
    outcome->empty_query = true;
    return false;
  }
  ResetCancel();
  current_query_ = p->sql;
  if (!portal->started) {
    portal->started = true;
    // The extended protocol runs statements up to Sync in an implicit
    // transaction; writes are applied at Sync (or at COMMIT).
    if (txn_ == TxnState::kIdle && !(p->statements[0].node &&
                                     p->statements[0].node->node_case == PG_QUERY__NODE__NODE_TRANSACTION_STMT)) {
      txn_ = TxnState::kInBlock;
      implicit_txn_ = true;
    }
    bool suspended = false;
    StatementOutcome out = RunStatement(p->statements[0], &portal->params, sink, portal, max_rows, &suspended);
    if (portal->buffered.empty() && portal->columns.empty()) {
      *outcome = out;
      return false;
    }
  }
  // Deliver buffered rows, max_rows at a time.
  int64_t sent = 0;
  while (!portal->buffered.empty()) {
    DataChunk& front = portal->buffered.front();
    size_t available = front.num_rows() - portal->buffered_row;
    size_t take = max_rows > 0 ? std::min<size_t>(available, static_cast<size_t>(max_rows - sent)) : available;
    if (take == 0) break;
    std::vector<uint32_t> sel;
    for (size_t i = 0; i < take; i++) sel.push_back(static_cast<uint32_t>(portal->buffered_row + i));
    DataChunk part = front.Take(sel);
    sink->Rows(part);
    sent += static_cast<int64_t>(take);
    portal->buffered_row += take;
    if (portal->buffered_row >= front.num_rows()) {
      portal->buffered.erase(portal->buffered.begin());
      portal->buffered_row = 0;
    }
    if (max_rows > 0 && sent >= max_rows) break;
  }
  if (!portal->buffered.empty()) return true;
  *outcome = portal->outcome;
  // PostgreSQL counts the rows of this Execute, not of the whole portal.
  if (outcome->tag.rfind("SELECT ", 0) == 0) outcome->tag = "SELECT " + std::to_string(sent);
  return false;
}

void Session::ClosePrepared(const std::string& name) { prepared_.erase(name); }

void Session::ClosePortal(const std::string& name) { portals_.erase(name); }

void Session::DiscardAll() {
  portals_.clear();
  prepared_.clear();
}

}  // namespace freshet
