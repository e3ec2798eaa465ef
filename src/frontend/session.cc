#include "frontend/session.h"

#include "frontend/subscription_cursor.h"

#include "frontend/cursor.h"
#include "frontend/result_sink.h"

#include "common/json.h"
#include "catalog/system_tables.h"

#include <pg_query/pg_query.pb-c.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>
#include <thread>
#include <utility>

#include "catalog/pg_catalog.h"
#include "catalog/temp_schema.h"
#include "storage/table_engines.h"
#include "common/error.h"
#include "common/identifier.h"
#include "expr/cast.h"
#include "pgproto/pg_binary.h"
#include "pgproto/utf8_check.h"

namespace freshet {

namespace {

// CREATE MATERIALIZED VIEW, SINK or (non-unique) INDEX, and tables and
// sources with connectors.
bool MakesStreamObject(const ParsedStatement& stmt) {
  if (stmt.is_extension())
    return std::holds_alternative<CreateSinkStatement>(stmt.extension) ||
           std::holds_alternative<CreateSubscriptionStatement>(stmt.extension);
  if (!stmt.node) return false;
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: return true;
    case PG_QUERY__NODE__NODE_INDEX_STMT: return !stmt.node->index_stmt->unique;
    case PG_QUERY__NODE__NODE_CREATE_STMT: return stmt.has_with_options;
    default: return false;
  }
}

// COMMIT, ROLLBACK, ROLLBACK TO SAVEPOINT or PREPARE TRANSACTION: what
// PostgreSQL still runs in an aborted transaction (IsTransactionExitStmt),
// by either protocol.
bool IsTransactionExit(const ParsedStatement& stmt) {
  if (!stmt.node || stmt.node->node_case != PG_QUERY__NODE__NODE_TRANSACTION_STMT) return false;
  switch (stmt.node->transaction_stmt->kind) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT:
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_PREPARE:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void ThrowInFailedTransaction() {
  throw SqlError(sqlstate::kInFailedTransaction,
                 "current transaction is aborted, commands ignored until end of transaction block");
}

}  // namespace

struct Session::Prepared {
  std::string sql;
  bool from_sql = false;  // SQL PREPARE
  int64_t prepare_time = 0;  // pg_prepared_statements
  std::vector<ParsedStatement> statements;  // zero or one
  std::vector<DataType> param_types;
  // Its plan, for Describe and every Execute (drivers describe before
  // each execution).
  mutable PlanCache plan_cache;
};

struct Session::Portal {
  std::shared_ptr<Prepared> prepared;  // shared: the statement may be closed or replaced
  std::vector<Value> params;
  std::vector<int16_t> result_formats;
  bool started = false;
  PortalRows rows;          // results of a statement that returns rows, sent max_rows at a time
  size_t sent_in_chunk = 0; // rows of rows.chunks.front() already sent
  StatementOutcome outcome;
};

namespace {
// Runs actions newest first; one that fails is logged (the rest still run).
void RunUndo(std::vector<std::function<void()>>* actions, size_t keep = 0) {
  while (actions->size() > keep) {
    std::function<void()> action = std::move(actions->back());
    actions->pop_back();
    try {
      action();
    } catch (const SqlError& e) {
      spdlog::warn("undoing a rolled-back transaction's DDL: {}", e.message());
    }
  }
}
}  // namespace

Session::Session(Instance* instance, const std::string& user, const std::string& database)
    : instance_(instance), user_(user), variables_(user) {
  if (!instance_->catalog()->FindUser(user))
    throw SqlError("28000", "role \"" + user + "\" does not exist");
  auto db = instance_->catalog()->FindDatabase(database);
  if (!db && database == kTemplate0)
    throw SqlError("55000", "database \"template0\" is not currently accepting connections");
  if (!db) throw SqlError(sqlstate::kInvalidCatalogName, "database \"" + database + "\" does not exist");
  database_ = *db;
  activity_.row.database_id = database_.id;
  activity_.row.database = database_.name;
  activity_.row.user = user;
  activity_.row.user_id = instance_->catalog()->FindUser(user)->id;
  activity_.row.backend_start = activity_.row.state_change = NowMicros();
  activity_.row.state = "idle";
  auto ids = instance_->RegisterSession(&cancel_, &activity_);
  pid_ = ids.first;
  secret_ = ids.second;
}

Session::~Session() {
  ReleaseAdvisoryLocks(/*transaction_only=*/false);
  // A client gone in a transaction block: its DDL's work outside the
  // block's catalog is undone (a rewrite's new relation would otherwise
  // stay until the next start, and its name block the next rewrite).
  RunUndo(&on_ddl_rollback_);
  DropTemporarySchema();
  instance_->UnregisterSession(pid_);
}

void Session::DropTemporarySchema() {
  if (!temp_schema_used_) return;
  temp_schema_used_ = false;
  try {
    if (txn_ != TxnState::kIdle) Rollback();
    DiscardingSink sink;
    ExecuteSimple("DROP SCHEMA IF EXISTS " + QuoteIdent(TempSchemaName(pid_)) + " CASCADE", &sink,
                  [](const StatementOutcome&) {});
  } catch (const std::exception& e) {
    // Dropped at the next start.
    spdlog::warn("session {}: could not drop its temporary relations: {}", pid_, e.what());
  }
}

void Session::SwitchDatabase(const std::string& name) {
  PreventInTransactionBlock("SET DATABASE");
  auto db = catalog()->FindDatabase(name);
  if (!db) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", name);
  if (db->id == database_.id) return;
  if (temp_schema_used_ && catalog()->FindSchema(database_.id, TempSchemaName(pid_)))
    throw SqlError(sqlstate::kFeatureNotSupported, "cannot switch databases while the session has temporary tables")
        .WithHint("Drop them first, or connect to the other database.");
  CloseAllCursors();
  ReleaseAdvisoryLocks(/*transaction_only=*/false);
  listener_.reset();
  // Its last write stays read-your-own, now in "another" database.
  if (last_write_epoch_ && !last_write_database_) last_write_database_ = database_.id;
  if (last_write_database_ == db->id) last_write_database_ = 0;
  database_ = *db;
  {
    std::lock_guard lock(activity_.mu);
    activity_.row.database_id = database_.id;
    activity_.row.database = database_.name;
  }
  variables_.ForgetReported();  // plans and derived settings are made again
  RefreshCatalogLookup();
}

namespace {

// The relation a writing statement names as its target, if it names one
// of another database (db.schema.relation).
const PgQuery__RangeVar* WriteTarget(const ParsedStatement& stmt) {
  if (!stmt.node) return nullptr;
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_INSERT_STMT: return stmt.node->insert_stmt->relation;
    case PG_QUERY__NODE__NODE_UPDATE_STMT: return stmt.node->update_stmt->relation;
    case PG_QUERY__NODE__NODE_DELETE_STMT: return stmt.node->delete_stmt->relation;
    case PG_QUERY__NODE__NODE_COPY_STMT:
      return stmt.node->copy_stmt->is_from ? stmt.node->copy_stmt->relation : nullptr;
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
      return stmt.node->truncate_stmt->n_relations ? stmt.node->truncate_stmt->relations[0]->range_var : nullptr;
    default: return nullptr;
  }
}

}  // namespace

void Session::EnterWriteDatabase(const ParsedStatement& stmt) {
  // Nothing written or locked yet in this transaction: back to the
  // session's database unless the statement names another.
  if (txn_writes_.empty() && !writer_) write_database_ = 0;
  const PgQuery__RangeVar* target = WriteTarget(stmt);
  if (!target) return;
  ObjectId database = database_.id;
  if (target->catalogname && *target->catalogname && database_.name != target->catalogname)
    if (auto db = catalog()->FindDatabase(target->catalogname)) database = db->id;  // else the binder says 3D000
  if (database == WriteDatabase()) return;
  if (!txn_writes_.empty() || writer_) {
    auto db = catalog()->GetDatabase(WriteDatabase());
    FRESHET_THROW(sqlstate::kFeatureNotSupported,
                  "this transaction has written to database \"{}\": a transaction writes one database",
                  db ? db->name : "?");
  }
  write_database_ = database == database_.id ? 0 : database;
}

void Session::CheckWriteDatabase(const WriteSet& writes) const {
  const ObjectId database = WriteDatabase();
  auto check = [&](TableId id) {
    TableRef t = instance_->catalog()->GetTable(id);
    if (t && t->database_id != database)
      FRESHET_THROW(sqlstate::kFeatureNotSupported,
                    "a statement writes one database: \"{}\" is of another database than the one it writes", t->name);
  };
  for (const auto& [id, table_writes] : writes.tables()) check(id);
  for (const auto& rows : writes.bulk()) check(rows->table_id());
}

void Session::SetClient(const std::string& addr, int32_t port) {
  std::lock_guard lock(activity_.mu);
  activity_.row.client_addr = addr;
  activity_.row.client_port = port;
}

void Session::SetWake(std::function<void()> wake) {
  std::lock_guard lock(activity_.mu);
  activity_.wake = std::move(wake);
}

void Session::NoteStatementStart() {
  const std::string& application_name = variables_.Get("application_name");
  int64_t now = NowMicros();
  std::lock_guard lock(activity_.mu);
  if (activity_.row.application_name != application_name) activity_.row.application_name = application_name;
  activity_.row.state = "active";
  // As PostgreSQL with track_activity_query_size = 1024: the first 1,023
  // bytes, cut at a character's start.
  size_t length = std::min<size_t>(current_query_.size(), 1023);
  while (length < current_query_.size() && length > 0 && (current_query_[length] & 0xC0) == 0x80) length--;
  activity_.row.query.assign(current_query_, 0, length);
  activity_.row.query_start = activity_.row.state_change = now;
  if (!activity_.row.xact_start) activity_.row.xact_start = now;
}

void Session::NoteStatementEnd() {
  const char* state = txn_ == TxnState::kIdle       ? "idle"
                      : txn_ == TxnState::kInBlock ? "idle in transaction"
                                                   : "idle in transaction (aborted)";
  int64_t now = NowMicros();
  std::lock_guard lock(activity_.mu);
  activity_.row.state = state;
  activity_.row.state_change = now;
  if (txn_ == TxnState::kIdle) activity_.row.xact_start = 0;
}

void Session::Sleep(double seconds) {
  using Clock = std::chrono::steady_clock;
  if (!(seconds > 0)) return;
  const auto end = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::min(seconds, 1e9) * 1e6));
  while (Clock::now() < end) {
    if (cancel_.load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    std::this_thread::sleep_for(std::min<Clock::duration>(end - Clock::now(), std::chrono::milliseconds(10)));
  }
}

bool Session::AdvisoryLock(int64_t key, bool two_keys, bool shared, bool transaction, bool wait) {
  AdvisoryKey k{database_.id, key, two_keys};
  if (!instance_->advisory_locks()->Lock(this, pid_, k, shared, wait, &cancel_, settings().lock_timeout_ms))
    return false;
  advisory_holds_.push_back({k, shared, transaction});
  return true;
}

bool Session::AdvisoryUnlock(int64_t key, bool two_keys, bool shared) {
  AdvisoryKey k{database_.id, key, two_keys};
  // Only a session-level hold can be given back (a transaction's stay to its end).
  for (auto it = advisory_holds_.rbegin(); it != advisory_holds_.rend(); ++it) {
    if (it->transaction || it->shared != shared || !(it->key == k)) continue;
    instance_->advisory_locks()->Unlock(this, k, shared);
    advisory_holds_.erase(std::next(it).base());
    return true;
  }
  return false;
}

void Session::AdvisoryUnlockAll() { ReleaseAdvisoryLocks(/*transaction_only=*/false); }

void Session::ReleaseAdvisoryLocks(bool transaction_only) {
  if (advisory_holds_.empty()) return;
  std::vector<AdvisoryHold> kept;
  for (const AdvisoryHold& h : advisory_holds_) {
    if (transaction_only && !h.transaction) {
      kept.push_back(h);
      continue;
    }
    instance_->advisory_locks()->Unlock(this, h.key, h.shared);
  }
  advisory_holds_ = std::move(kept);
}

bool Session::SignalBackend(int32_t pid, bool terminate) {
  // As PostgreSQL: a superuser's sessions only by superusers, others' by
  // their own role or a superuser (42501).
  auto me = instance_->catalog()->FindUser(user_);
  const bool superuser = me && me->superuser;
  std::optional<std::string> refused_user;
  std::optional<std::string> target = instance_->SignalSession(pid, terminate, [&](const std::string& user) {
    if (superuser || user == user_) return true;
    refused_user = user;
    return false;
  });
  if (!target) return false;
  if (refused_user) {  // PostgreSQL 15's messages
    auto other = instance_->catalog()->FindUser(*refused_user);
    if (other && other->superuser)
      FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be a superuser to {}",
                    terminate ? "terminate superuser process" : "cancel superuser query");
    FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be a member of the role whose {} or member of pg_signal_backend",
                  terminate ? "process is being terminated" : "query is being canceled");
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> Session::StartupParameters() {
  variables_.ForgetReported();
  return TakeChangedParameters();
}

std::vector<std::pair<std::string, std::string>> Session::TakeChangedParameters() {
  return variables_.TakeChangedReported();
}

void Session::ApplyStartupParameter(const std::string& name, const std::string& value) {
  variables_.ApplyStartup(name, value);
}

char Session::TransactionStatus() const {
  switch (txn_) {
    case TxnState::kIdle: return 'I';
    case TxnState::kInBlock: return 'T';
    case TxnState::kFailed: return 'E';
  }
  return 'I';
}

std::vector<std::string> Session::SearchPath() const {
  const std::string& path = variables_.Get("search_path");
  if (path == search_path_text_) return search_path_;  // parsed once per value
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t comma = path.find(',', pos);
    if (comma == std::string::npos) comma = path.size();
    std::string item = path.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.size() >= 2 && item.front() == '"' && item.back() == '"') item = item.substr(1, item.size() - 2);
    else item = LowerAscii(item);
    if (item == "$user") item = user_;
    if (!item.empty()) out.push_back(item);
    pos = comma + 1;
  }
  search_path_text_ = path;
  search_path_ = out;
  return out;
}

void Session::PrepareEval() {
  if (time_zone_generation_ != variables_.generation()) {
    auto tz = TimeZone::Lookup(variables_.Get("timezone"));
    eval_.time_zone = tz ? *tz : TimeZone();
    eval_.interval_style = ParseIntervalStyle(variables_.Get("IntervalStyle")).value_or(IntervalStyle::kPostgres);
    time_zone_generation_ = variables_.generation();
  }
  eval_.statement_time = NowMicros();
  eval_.params = nullptr;
  eval_.outer_rows.clear();
  eval_.subquery_runner = nullptr;
  // Made again only when what it depends on changed (it was a tenth of a
  // point SELECT's server time).
  if (!eval_.catalog || lookup_catalog_ != catalog() || lookup_generation_ != variables_.generation())
    RefreshCatalogLookup();
  eval_.sequences = this;
  eval_.session = this;
  eval_.notices = &warnings_;
}

const Session::StatementSettings& Session::settings() const {
  if (settings_.generation == variables_.generation()) return settings_;
  StatementSettings s;
  s.generation = variables_.generation();
  s.read_after_write_all = variables_.Get("read_after_write") == "all";
  ParseBoolSetting(variables_.Get("default_transaction_read_only"), &s.default_read_only);
  s.use_indexes = variables_.Get("enable_indexscan") == "on" && variables_.Get("enable_index_selection") == "true";
  s.durable_commit = variables_.Get("synchronous_commit") != "off";
  ParseBoolSetting(variables_.Get("rw_implicit_flush"), &s.implicit_flush);
  s.statement_timeout_ms = variables_.DurationMs("statement_timeout");
  s.lock_timeout_ms = variables_.DurationMs("lock_timeout");
  s.statement_memory_limit = ParseMemorySetting(variables_.Get("statement_memory_limit")).value_or(0);
  if (s.statement_memory_limit == 0) s.statement_memory_limit = DefaultMemoryLimit();
  s.parallel_batch =
      variables_.Get("batch_parallelism") != "1" && variables_.Get("max_parallel_workers_per_gather") != "0";
  s.client_min_messages = ParseMessageLevel(variables_.Get("client_min_messages")).value_or(MessageLevel::kNotice);
  settings_ = s;
  return settings_;
}

// ---- Sequences ----

namespace {
ObjectId SequenceId(uint32_t oid) { return oid >= kObjectOidBase ? oid - kObjectOidBase : 0; }
}  // namespace

int64_t Session::NextVal(uint32_t oid) {
  CheckWritable("nextval()");
  int64_t v = instance_->sequences()->NextVal(SequenceId(oid), txn_catalog_.get());
  sequence_values_[SequenceId(oid)] = v;
  last_sequence_value_ = v;
  return v;
}

int64_t Session::CurrVal(uint32_t oid) {
  instance_->sequences()->Peek(SequenceId(oid), txn_catalog_.get());  // 42P01 when not a sequence
  auto it = sequence_values_.find(SequenceId(oid));
  if (it == sequence_values_.end()) {
    auto t = catalog()->GetTable(SequenceId(oid));
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "currval of sequence \"{}\" is not yet defined in this session",
                  t ? t->name : std::to_string(oid));
  }
  return it->second;
}

int64_t Session::LastVal() {
  if (!last_sequence_value_)
    throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "lastval is not yet defined in this session");
  return *last_sequence_value_;
}

void Session::SetVal(uint32_t oid, int64_t value, bool is_called) {
  CheckWritable("setval()");
  instance_->sequences()->SetVal(SequenceId(oid), value, is_called, txn_catalog_.get());
  // As PostgreSQL: currval reads the value set only when it counts as called.
  if (is_called) {
    sequence_values_[SequenceId(oid)] = value;
    last_sequence_value_ = value;
  }
}

std::pair<int64_t, bool> Session::Peek(uint32_t oid) {
  return instance_->sequences()->Peek(SequenceId(oid), txn_catalog_.get());
}

BinderContext Session::BinderContextFor(const ParsedStatement& stmt, std::vector<DataType>* param_types) {
  BinderContext ctx;
  ctx.catalog = catalog();
  ctx.database_id = database_.id;
  ctx.database_name = database_.name;
  ctx.user_name = user_;
  ctx.eval = &eval_;
  ctx.param_types = param_types;
  ctx.query_text = &current_query_;
  ctx.search_path = SearchPath();
  ctx.temp_schema = TempSchemaName(pid_);
  ctx.statement_offset = stmt.offset;
  ctx.use_indexes = settings().use_indexes;
  return ctx;
}

// ---- Transactions ----

std::shared_ptr<const Snapshot> Session::ReadSnapshot() {
  if (txn_snapshot_) return txn_snapshot_;
  // Read your own writes, and with read_after_write = all (the default, as
  // PostgreSQL) every write acknowledged before in the session's database:
  // wait until the epoch that holds them is committed. Other databases are
  // read at their latest committed epoch, but for this session's own last
  // write into one and, for the writer lock's holder, every write applied
  // before it in the database it writes.
  auto wait_for = [&](ObjectId database, Epoch needed) {
    DatabaseEpochLoop* loop = instance_->barriers()->ForDatabase(database);
    if (needed <= loop->committed_epoch()) return;
    try {
      loop->Flush();
    } catch (const SqlError& e) {
      // The commit failed (a full disk): reads go on, from the last
      // committed epoch, which lacks this session's latest writes (kept,
      // and stored by the next commit that succeeds).
      spdlog::debug("reading the last committed epoch of database {}: {}", database, e.message());
    }
  };
  Epoch needed = last_write_database_ ? 0 : last_write_epoch_;
  if (writer_ || settings().read_after_write_all)
    needed = std::max(needed, instance_->DmlFor(database_.id)->LastAppliedEpoch());
  wait_for(database_.id, needed);
  if (last_write_database_) wait_for(last_write_database_, last_write_epoch_);
  if (writer_ && WriteDatabase() != database_.id)
    wait_for(WriteDatabase(), instance_->DmlFor(WriteDatabase())->LastAppliedEpoch());
  auto snap = instance_->store()->GetSnapshot();
  if (txn_ == TxnState::kInBlock) txn_snapshot_ = snap;
  return snap;
}

void Session::ApplyWrites(WriteSet&& writes, std::shared_ptr<void> writer, const DmlManager::WithDdl* ddl) {
  if (writes.empty()) return;
  // synchronous_commit: the writes are in the DML log, on disk, when Apply
  // returns; bulk rows are not logged, so their commit is waited for.
  const bool durable = settings().durable_commit;
  const bool bulk = !writes.bulk().empty();
  DmlManager::WaitLimits wait{&cancel_, settings().lock_timeout_ms, this};
  CheckWriteDatabase(writes);
  const ObjectId database = WriteDatabase();
  last_write_epoch_ =
      instance_->DmlFor(database)->Apply(std::move(writes), durable, [&] { writer.reset(); }, ddl, &wait);
  last_write_database_ = database == database_.id ? 0 : database;
  if (!settings().implicit_flush && !(durable && bulk)) return;
  try {
    instance_->barriers()->ForDatabase(database)->Flush();
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
  // Outside a block a statement writes once, at its end: the writer lock
  // goes with its writes.
  if (txn_ != TxnState::kInBlock) return ApplyWrites(std::move(writes), std::move(writer_));
  CheckWriteDatabase(writes);
  instance_->DmlFor(WriteDatabase())->CheckUnique(txn_writes_, writes, txn_catalog_.get());
  txn_writes_.Append(std::move(writes));
}

// ---- DDL in transaction blocks ----

Catalog* Session::catalog() { return txn_catalog_ ? txn_catalog_.get() : instance_->catalog(); }

Catalog* Session::DdlCatalog() {
  if (InDdlBlock() && !txn_catalog_) {
    txn_catalog_ = instance_->catalog()->BeginTransaction();
    RefreshCatalogLookup();  // the running statement's expressions (regclass, nextval) look there too
  }
  return catalog();
}

void Session::RefreshCatalogLookup() {
  // Relations are looked up in the session's temporary schema first.
  std::vector<std::string> path = SearchPath();
  path.insert(path.begin(), TempSchemaName(pid_));
  lookup_catalog_ = catalog();
  lookup_generation_ = variables_.generation();
  eval_.catalog = MakeCatalogLookup(lookup_catalog_, database_.id, std::move(path));
}

void Session::PreventInTransactionBlock(std::string_view command) const {
  if (InDdlBlock()) FRESHET_THROW(sqlstate::kActiveTransaction, "{} cannot run inside a transaction block", command);
}

void Session::AfterDdlCommit(std::function<void()> action) {
  if (!txn_catalog_) return action();
  after_ddl_commit_.push_back(std::move(action));
}

void Session::OnDdlRollback(std::function<void()> action) {
  if (txn_catalog_) on_ddl_rollback_.push_back(std::move(action));
}

void Session::HoldUntilBlockEnds(std::shared_ptr<void> guard) {
  if (txn_catalog_ || txn_ == TxnState::kInBlock) block_guards_.push_back(std::move(guard));
}

void Session::CommitWithDdl(WriteSet&& writes, std::shared_ptr<void> writer, std::shared_ptr<Catalog> txn_catalog) {
  Catalog* catalog = instance_->catalog();
  // Writes to a table the block then dropped, or rewrote (ALTER TABLE: the
  // new relation holds what they wrote), go with it.
  std::erase_if(writes.mutable_tables(), [&](const auto& entry) { return !txn_catalog->GetTable(entry.first); });
  if (writes.empty()) {
    catalog->CommitTransaction(*txn_catalog);
    return;
  }
  DmlManager::WithDdl ddl;
  ddl.catalog = txn_catalog.get();
  ddl.commit = [&] { catalog->CommitTransaction(*txn_catalog); };
  ddl.owner = this;
  ApplyWrites(std::move(writes), std::move(writer), &ddl);
}

void Session::OnError() {
  if (txn_ == TxnState::kInBlock) txn_ = TxnState::kFailed;
  if (implicit_txn_) {
    // The implicit block ends: its writes and DDL are dropped.
    writer_.reset();
    EndBlock(false);
  }
  NoteStatementEnd();  // pg_stat_activity: aborted
}

void Session::Sync() {
  if (!implicit_txn_) return;
  if (txn_ == TxnState::kInBlock) RunOnCommitActions(/*delete_rows=*/true);
  if (txn_catalog_) {
    CommitBlock();  // the message's DDL with its writes, then its deferred stream jobs
    return;
  }
  implicit_txn_ = false;
  multi_statement_ = false;
  txn_ = TxnState::kIdle;
  txn_snapshot_.reset();
  WriteSet w = std::move(txn_writes_);
  txn_writes_.Clear();
  PendingNotifications pending = std::exchange(pending_, {});
  // Released once the writes are applied, even if applying them fails.
  ApplyWrites(std::move(w), std::move(writer_));
  PublishCommitted(pending);
}

StatementOutcome Session::Begin(bool start_transaction, std::optional<bool> read_only) {
  if (txn_ == TxnState::kFailed) ThrowInFailedTransaction();
  if (txn_ == TxnState::kInBlock && !implicit_txn_)
    return {"BEGIN"};  // PostgreSQL warns "there is already a transaction in progress"
  if (implicit_txn_) {
    // BEGIN within a multi-statement message makes the implicit
    // transaction explicit, keeping what it already wrote.
    implicit_txn_ = false;
    multi_statement_ = false;
  } else {
    txn_ = TxnState::kInBlock;
    txn_snapshot_.reset();
    txn_writes_.Clear();
  }
  block_read_only_ = read_only;
  return {start_transaction ? "START TRANSACTION" : "BEGIN"};
}

bool Session::TransactionReadOnly() const {
  if (InExplicitBlock() && block_read_only_) return *block_read_only_;
  return settings().default_read_only;
}

void Session::SetTransactionReadOnly(bool read_only) {
  if (!InExplicitBlock()) return;
  // As PostgreSQL: a read-only transaction cannot become read-write once
  // it has run a query (here: once it holds writes or a snapshot).
  if (!read_only && TransactionReadOnly() && (txn_snapshot_ || !txn_writes_.empty()))
    throw SqlError(sqlstate::kActiveTransaction, "transaction read-write mode must be set before any query");
  block_read_only_ = read_only;
}

void Session::CheckWritable(std::string_view command) const {
  if (TransactionReadOnly())
    FRESHET_THROW(sqlstate::kReadOnlySqlTransaction, "cannot execute {} in a read-only transaction", command);
}

// ---- LISTEN / NOTIFY ----

void Session::Listen(const std::string& channel) {
  if (txn_ != TxnState::kIdle) pending_.listens.emplace_back(true, channel);
  else ApplyListen(true, channel);
}

void Session::Unlisten(const std::string& channel) {
  if (txn_ != TxnState::kIdle) pending_.listens.emplace_back(false, channel);
  else ApplyListen(false, channel);
}

void Session::ApplyListen(bool listen, const std::string& channel) {
  NotificationHub* hub = instance_->notifications();
  if (!listener_) {
    if (!listen) return;
    listener_ = hub->Register(database_.id);
  }
  if (listen) hub->Listen(listener_.get(), channel);
  else hub->Unlisten(listener_.get(), channel);
}

std::string Session::ExportSnapshot() {
  return instance_->exported_snapshots()->Export(pid_, database_.id, ReadSnapshot());
}

void Session::ImportSnapshot(const std::string& id) {
  if (!InExplicitBlock()) throw SqlError("25P01", "SET TRANSACTION can only be used in transaction blocks");
  if (txn_snapshot_ || !txn_writes_.empty())
    throw SqlError(sqlstate::kActiveTransaction, "SET TRANSACTION SNAPSHOT must be called before any query");
  txn_snapshot_ = instance_->exported_snapshots()->Import(id, database_.id);
}

void Session::Notify(const std::string& channel, const std::string& payload) {
  if (channel.empty()) throw SqlError(sqlstate::kInvalidParameterValue, "channel name cannot be empty");
  if (channel.size() >= 64) throw SqlError(sqlstate::kInvalidParameterValue, "channel name too long");
  if (payload.size() >= 8000) throw SqlError(sqlstate::kInvalidParameterValue, "payload string too long");
  Notification n{process_id(), channel, payload};
  if (txn_ == TxnState::kIdle) {
    instance_->notifications()->Publish(database_.id, {n});
    return;
  }
  // A transaction sends each distinct notification once, in the order first made.
  for (const Notification& p : pending_.notifies)
    if (p.channel == channel && p.payload == payload) return;
  pending_.notifies.push_back(std::move(n));
}

void Session::PublishCommitted(const PendingNotifications& committed) {
  for (const auto& [listen, channel] : committed.listens) ApplyListen(listen, channel);
  instance_->notifications()->Publish(database_.id, committed.notifies);
}

std::vector<std::string> Session::ListeningChannels() const {
  return listener_ ? listener_->Channels() : std::vector<std::string>{};
}

std::vector<Notification> Session::TakeNotifications() {
  if (!listener_ || txn_ != TxnState::kIdle) return {};
  return listener_->Take();
}

void Session::EndBlock(bool committed) {
  // A cursor ends with its transaction unless WITH HOLD; a held one
  // declared in a block that rolls back goes too.
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    bool keep = it->second.cursor->options().hold && (committed || !it->second.declared_in_block);
    it->second.declared_in_block = false;
    it = keep ? std::next(it) : cursors_.erase(it);
  }
  writer_.reset();
  ReleaseAdvisoryLocks(/*transaction_only=*/true);
  block_read_only_.reset();
  savepoints_.clear();
  fresh_tables_.clear();
  txn_ = TxnState::kIdle;
  implicit_txn_ = false;
  multi_statement_ = false;
  txn_snapshot_.reset();
  txn_writes_.Clear();
  // A block's DDL not committed (Commit takes it first) is undone.
  txn_catalog_.reset();
  RefreshCatalogLookup();
  after_ddl_commit_.clear();
  RunUndo(&on_ddl_rollback_);
  block_guards_.clear();
  // LISTEN, UNLISTEN and NOTIFY not committed (Commit takes them first) go.
  pending_ = {};
}

void Session::RunOnCommitActions(bool delete_rows) {
  if (on_commit_.empty() || running_on_commit_) return;
  running_on_commit_ = true;
  struct Done {
    bool* running;
    ~Done() { *running = false; }
  } done{&running_on_commit_};
  DiscardingSink sink;
  for (auto it = on_commit_.begin(); it != on_commit_.end();) {
    TableRef t = catalog()->GetTable(it->first);
    if (!t) {
      it = on_commit_.erase(it);
      continue;
    }
    const bool drop = it->second;
    if (drop || delete_rows) {
      std::string name = QuoteIdent(TempSchemaName(pid_)) + "." + QuoteIdent(t->name);
      std::vector<ParsedStatement> stmts = ParseSql((drop ? "DROP TABLE " : "TRUNCATE ") + name);
      RunStatement(stmts[0], nullptr, &sink, nullptr);
    }
    it = drop ? on_commit_.erase(it) : std::next(it);
  }
}

StatementOutcome Session::Commit() {
  if (txn_ == TxnState::kInBlock) RunOnCommitActions(/*delete_rows=*/true);
  return CommitBlock();
}

StatementOutcome Session::CommitBlock() {
  bool failed = txn_ == TxnState::kFailed;
  WriteSet w = std::move(txn_writes_);
  // The writer lock is released once the writes are applied (the next
  // holder reads them).
  std::shared_ptr<void> writer = std::move(writer_);
  std::shared_ptr<Catalog> txn_catalog = failed ? nullptr : std::move(txn_catalog_);
  std::vector<std::function<void()>> after_commit = std::move(after_ddl_commit_);
  std::vector<std::function<void()>> on_rollback = std::move(on_ddl_rollback_);
  std::vector<std::shared_ptr<void>> guards = std::move(block_guards_);  // held until stored
  PendingNotifications pending = std::exchange(pending_, {});
  after_ddl_commit_.clear();
  on_ddl_rollback_.clear();
  block_guards_.clear();
  EndBlock(!failed);
  if (failed) {
    RunUndo(&on_rollback);
    return {"ROLLBACK"};
  }
  if (!txn_catalog) {
    ApplyWrites(std::move(w), std::move(writer));
    PublishCommitted(pending);
    return {"COMMIT"};
  }
  try {
    CommitWithDdl(std::move(w), std::move(writer), std::move(txn_catalog));
  } catch (...) {
    RunUndo(&on_rollback);
    throw;
  }
  PublishCommitted(pending);
  // Each runs; the first failure (a deferred stream job that could not be
  // created) is COMMIT's error, the block's changes being stored.
  std::exception_ptr failure;
  for (auto& action : after_commit) {
    try {
      action();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return {"COMMIT"};
}

StatementOutcome Session::Rollback() {
  EndBlock(false);
  return {"ROLLBACK"};
}

namespace {
[[noreturn]] void ThrowNoSavepoint(const std::string& name) {
  throw SqlError(sqlstate::kInvalidSavepointSpecification, "savepoint \"" + name + "\" does not exist");
}
}  // namespace

StatementOutcome Session::Savepoint(const std::string& name) {
  if (txn_ == TxnState::kFailed) ThrowInFailedTransaction();
  if (txn_ != TxnState::kInBlock || implicit_txn_)
    throw SqlError(sqlstate::kNoActiveTransaction, "SAVEPOINT can only be used in transaction blocks");
  savepoints_.push_back({name, txn_writes_.CurrentPosition(),
                         txn_catalog_ ? std::shared_ptr<Catalog>(txn_catalog_->CopyTransaction()) : nullptr,
                         after_ddl_commit_.size(), on_ddl_rollback_.size(), pending_.notifies.size(),
                         pending_.listens.size()});
  fresh_tables_.clear();  // another subtransaction
  return {"SAVEPOINT"};
}

StatementOutcome Session::ReleaseSavepoint(const std::string& name) {
  if (txn_ == TxnState::kFailed) ThrowInFailedTransaction();
  if (txn_ != TxnState::kInBlock || implicit_txn_)
    throw SqlError(sqlstate::kNoActiveTransaction, "RELEASE SAVEPOINT can only be used in transaction blocks");
  // The newest savepoint of that name goes, with every one set after it;
  // their writes stay in the block.
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (savepoints_[i].name != name) continue;
    savepoints_.resize(i);
    fresh_tables_.clear();  // another subtransaction
    return {"RELEASE"};
  }
  ThrowNoSavepoint(name);
}

StatementOutcome Session::RollbackToSavepoint(const std::string& name) {
  if (txn_ == TxnState::kIdle || implicit_txn_)
    throw SqlError(sqlstate::kNoActiveTransaction, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks");
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (savepoints_[i].name != name) continue;
    savepoints_.resize(i + 1);  // the savepoint itself stays
    fresh_tables_.clear();  // another subtransaction
    txn_writes_.TruncateTo(savepoints_[i].position);
    // The block's DDL as it was then (a copy: the savepoint stays).
    const SavepointMark& mark = savepoints_[i];
    txn_catalog_ = mark.catalog ? std::shared_ptr<Catalog>(mark.catalog->CopyTransaction()) : nullptr;
    RefreshCatalogLookup();
    after_ddl_commit_.resize(std::min(after_ddl_commit_.size(), mark.after_commit));
    RunUndo(&on_ddl_rollback_, mark.on_rollback);
    pending_.notifies.resize(std::min(pending_.notifies.size(), mark.notifies));
    pending_.listens.resize(std::min(pending_.listens.size(), mark.listens));
    txn_ = TxnState::kInBlock;
    return {"ROLLBACK"};
  }
  ThrowNoSavepoint(name);
}

// ---- Simple query ----

void Session::ExecuteSimple(const std::string& sql, ResultSink* sink,
                            const std::function<void(const StatementOutcome&)>& done) {
  current_query_ = sql;
  for (const std::string& notice : TruncatedIdentifierNotices(sql)) sink->NoticeWithCode("42622", notice);
  std::vector<ParsedStatement> stmts = ParseSql(sql, &parse_cache_);
  if (stmts.empty()) {
    StatementOutcome empty;
    empty.empty_query = true;
    done(empty);
    return;
  }
  // Several statements in one message form one implicit transaction, as
  // in PostgreSQL: their writes and DDL apply together at the end, or not
  // at all if one fails (BEGIN/COMMIT inside the message take over).
  auto begin_implicit = [this] {
    txn_ = TxnState::kInBlock;
    implicit_txn_ = true;
    multi_statement_ = true;
  };
  if (stmts.size() > 1 && txn_ == TxnState::kIdle) begin_implicit();
  for (size_t i = 0; i < stmts.size(); i++) {
    // A stream job or connector takes effect at once, since the statements
    // after it read it or build on it (CREATE MATERIALIZED VIEW a ...;
    // CREATE MATERIALIZED VIEW b AS SELECT ... FROM a): the implicit block
    // so far is committed, the statement runs on its own, and those after
    // it form a new implicit block.
    const bool alone = implicit_txn_ && multi_statement_ && MakesStreamObject(stmts[i]);
    if (alone) Sync();
    ResetCancel();
    done(RunStatement(stmts[i], nullptr, sink, nullptr));
    if (alone && i + 1 < stmts.size() && txn_ == TxnState::kIdle) begin_implicit();
  }
  Sync();
}

namespace {

// Statements that write from the rows they read, which PostgreSQL makes
// wait for each other's row or table locks: they take the writer lock
// (DmlManager::AcquireWriter).
bool WritesFromWhatItReads(const ParsedStatement& stmt) {
  if (!stmt.node) return false;
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
    case PG_QUERY__NODE__NODE_DELETE_STMT:
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT: return true;
    case PG_QUERY__NODE__NODE_SELECT_STMT: return stmt.node->select_stmt->n_locking_clause > 0;
    case PG_QUERY__NODE__NODE_INSERT_STMT: return stmt.node->insert_stmt->on_conflict_clause != nullptr;
    // LOCK in a mode that conflicts with writes: a block holding the writer
    // lock (with writes not yet applied) is waited for first, so that its
    // COMMIT is not then held back by this lock while this block waits for
    // the writer lock (NOWAIT does not wait for it).
    case PG_QUERY__NODE__NODE_LOCK_STMT:
      return stmt.node->lock_stmt->mode > kRowExclusiveLockMode && !stmt.node->lock_stmt->nowait;
    default: return false;
  }
}

// How a statement that writes is named in 25006, as PostgreSQL's
// PreventCommandIfReadOnly names it (its command tag); empty for the
// statements a read-only transaction may run. EXECUTE's statement is
// checked when it runs.
std::string WritingCommand(const ParsedStatement& stmt) {
  if (stmt.is_extension()) {
    const auto& e = stmt.extension;
    if (std::holds_alternative<FlushStatement>(e) || std::holds_alternative<WaitStatement>(e) ||
        std::holds_alternative<ShowObjectsStatement>(e) || std::holds_alternative<ShowCreateStatement>(e) ||
        std::holds_alternative<ShowParametersStatement>(e) || std::holds_alternative<ShowJobsStatement>(e) ||
        std::holds_alternative<UseDatabaseStatement>(e) ||
        std::holds_alternative<DeclareSubscriptionCursorStatement>(e))
      return "";
  } else if (!stmt.node) {
    return "";
  } else {
    switch (stmt.node->node_case) {
      case PG_QUERY__NODE__NODE_SELECT_STMT: {
        const PgQuery__SelectStmt* s = stmt.node->select_stmt;
        if (s->into_clause) return "SELECT INTO";
        if (s->n_locking_clause == 0) return "";
        bool update = false;
        for (size_t i = 0; i < s->n_locking_clause; i++) {
          auto strength = s->locking_clause[i]->locking_clause->strength;
          update = update || strength == PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE ||
                   strength == PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE;
        }
        return update ? "SELECT FOR UPDATE" : "SELECT FOR SHARE";
      }
      case PG_QUERY__NODE__NODE_INSERT_STMT: return "INSERT";
      case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
        return stmt.node->create_table_as_stmt->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE ? "CREATE TABLE AS"
                                                                                               : "CREATE MATERIALIZED VIEW";
      case PG_QUERY__NODE__NODE_UPDATE_STMT: return "UPDATE";
      case PG_QUERY__NODE__NODE_DELETE_STMT: return "DELETE";
      case PG_QUERY__NODE__NODE_TRUNCATE_STMT: return "TRUNCATE TABLE";
      case PG_QUERY__NODE__NODE_LOCK_STMT: return stmt.node->lock_stmt->mode > kRowExclusiveLockMode ? "LOCK TABLE" : "";
      case PG_QUERY__NODE__NODE_COPY_STMT: return stmt.node->copy_stmt->is_from ? "COPY FROM" : "";
      case PG_QUERY__NODE__NODE_EXPLAIN_STMT:
      case PG_QUERY__NODE__NODE_TRANSACTION_STMT:
      case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT:
      case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT:
      case PG_QUERY__NODE__NODE_PREPARE_STMT:
      case PG_QUERY__NODE__NODE_EXECUTE_STMT:
      case PG_QUERY__NODE__NODE_DEALLOCATE_STMT:
      case PG_QUERY__NODE__NODE_DISCARD_STMT:
      case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT:
      case PG_QUERY__NODE__NODE_FETCH_STMT:
      case PG_QUERY__NODE__NODE_CLOSE_PORTAL_STMT:
      case PG_QUERY__NODE__NODE_LISTEN_STMT:
      case PG_QUERY__NODE__NODE_UNLISTEN_STMT:
      case PG_QUERY__NODE__NODE_NOTIFY_STMT:
      case PG_QUERY__NODE__NODE_VACUUM_STMT:
      case PG_QUERY__NODE__NODE_CHECK_POINT_STMT:
      case PG_QUERY__NODE__NODE_DO_STMT: return "";  // its statements are checked one by one
      default: break;
    }
  }
  // DDL: its leading keywords, without modifiers (CREATE OR REPLACE VIEW
  // is CREATE VIEW; CREATE UNIQUE INDEX is CREATE INDEX).
  static const std::set<std::string> kModifiers = {"OR", "REPLACE", "TEMP", "TEMPORARY", "UNIQUE", "UNLOGGED",
                                                   "GLOBAL", "LOCAL", "IF", "NOT", "EXISTS"};
  std::vector<std::string> words;
  std::string word;
  for (char ch : stmt.text + " ") {
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      word += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      continue;
    }
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
    if (words.size() >= 6 || !(std::isspace(static_cast<unsigned char>(ch)))) break;
  }
  if (words.empty()) return "this statement";
  std::string command = words[0];
  if (command != "CREATE" && command != "ALTER" && command != "DROP" && command != "REFRESH") return command;
  size_t i = 1;
  while (i < words.size() && kModifiers.count(words[i])) i++;
  if (i < words.size()) command += " " + words[i];
  if (i + 1 < words.size() && words[i] == "MATERIALIZED") command += " " + words[i + 1];
  return command;
}

}  // namespace

StatementOutcome Session::RunStatement(const ParsedStatement& stmt, const std::vector<Value>* params, ResultSink* sink,
                                       PortalRows* portal, PlanCache* plan_cache) {
  PrepareEval();
  NoteStatementStart();
  struct NoteEnd {
    Session* session;
    ResultSink* sink;
    ~NoteEnd() {
      session->NoteStatementEnd();
      for (const std::string& w : session->warnings_) sink->Warning(w);
      session->warnings_.clear();
    }
  } note_end{this, sink};
  if (txn_ == TxnState::kFailed && !IsTransactionExit(stmt)) ThrowInFailedTransaction();
  StatementTimeout timeout(instance_->statement_timer(), settings().statement_timeout_ms, &cancel_);
  // Outside a transaction the lock is the statement's alone.
  struct ReleaseWhenIdle {
    Session* session;
    ~ReleaseWhenIdle() {
      if (session->txn_ != TxnState::kIdle) return;
      session->writer_.reset();
      session->ReleaseAdvisoryLocks(/*transaction_only=*/true);  // the statement was the transaction
    }
  } release{this};
  try {
    if (TransactionReadOnly())
      if (std::string command = WritingCommand(stmt); !command.empty()) CheckWritable(command);
    EnterWriteDatabase(stmt);
    if (!writer_ && WritesFromWhatItReads(stmt)) {
      writer_ = instance_->DmlFor(WriteDatabase())->AcquireWriter(&cancel_, settings().lock_timeout_ms);
      txn_snapshot_.reset();  // from here the block reads every write applied before
    }
    const bool outside_block = txn_ == TxnState::kIdle;
    StatementOutcome outcome = HandleStatement(HandlerArgs{this, stmt, sink, params, portal, plan_cache});
    // The statement was its own transaction: its commit's ON COMMIT actions
    // (rows can only have come from an INSERT or COPY).
    if (outside_block && txn_ == TxnState::kIdle && !on_commit_.empty())
      RunOnCommitActions(stmt.node && (stmt.node->node_case == PG_QUERY__NODE__NODE_INSERT_STMT ||
                                       stmt.node->node_case == PG_QUERY__NODE__NODE_COPY_STMT));
    return outcome;
  } catch (const SqlError& e) {
    if (timeout.fired() && e.code() == sqlstate::kQueryCanceled)
      throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to statement timeout");
    throw;
  }
}

StatementOutcome Session::RunNested(const ParsedStatement& stmt, ResultSink* sink) {
  if (TransactionReadOnly())
    if (std::string command = WritingCommand(stmt); !command.empty()) CheckWritable(command);
  EnterWriteDatabase(stmt);
  if (!writer_ && WritesFromWhatItReads(stmt)) {
    writer_ = instance_->DmlFor(WriteDatabase())->AcquireWriter(&cancel_, settings().lock_timeout_ms);
    txn_snapshot_.reset();
  }
  return HandleStatement(HandlerArgs{this, stmt, sink, nullptr, nullptr, nullptr});
}

void Session::LockWrites(ObjectId id, const std::string& relation, bool nowait) {
  DmlManager::WaitLimits wait{&cancel_, settings().lock_timeout_ms, this};
  std::shared_ptr<void> guard = instance_->DmlFor(database_.id)->LockWrites(id, this, wait, nowait);
  if (!guard) FRESHET_THROW(sqlstate::kLockNotAvailable, "could not obtain lock on relation \"{}\"", relation);
  block_guards_.push_back(std::move(guard));
}

// ---- Extended protocol ----

void Session::Parse(const std::string& name, const std::string& sql, const std::vector<uint32_t>& param_oids,
                    ResultSink* notices) {
  if (!name.empty() && prepared_.count(name))
    FRESHET_THROW(sqlstate::kDuplicatePreparedStatement, "prepared statement \"{}\" already exists", name);
  current_query_ = sql;
  auto p = std::make_shared<Prepared>();
  p->sql = sql;
  if (notices)
    for (const std::string& notice : TruncatedIdentifierNotices(sql)) notices->NoticeWithCode("42622", notice);
  p->statements = ParseSql(sql);
  if (p->statements.size() > 1)
    throw SqlError(sqlstate::kSyntaxError, "cannot insert multiple commands into a prepared statement");
  // As exec_parse_message: before any binding, which may read the catalog.
  if (txn_ == TxnState::kFailed && !p->statements.empty() && !IsTransactionExit(p->statements[0]))
    ThrowInFailedTransaction();
  for (uint32_t oid : param_oids) {
    DataType t = oid == 0 ? DataType::Unknown() : DataTypeFromPgOid(oid);
    if (oid != 0 && t.id == TypeId::kUnknown && oid != 705)
      FRESHET_THROW(sqlstate::kUndefinedObject, "type with OID {} does not exist", oid);
    p->param_types.push_back(t);
  }
  AddPrepared(name, std::move(p));
}

void Session::AddPrepared(const std::string& name, std::shared_ptr<Prepared> p) {
  // Bind once now to report errors early and to infer parameter types.
  if (!p->statements.empty() && p->statements[0].node) {
    PrepareEval();
    // EXPLAIN's parameters are its query's.
    ParsedStatement planned = p->statements[0];
    if (planned.node->node_case == PG_QUERY__NODE__NODE_EXPLAIN_STMT && planned.node->explain_stmt->query)
      planned.node = planned.node->explain_stmt->query;
    PlanStatement(this, planned, &p->param_types);
    for (auto& t : p->param_types)
      if (t.id == TypeId::kUnknown) t = DataType::Varchar();
  }
  p->prepare_time = NowMicros();
  prepared_[name] = std::move(p);
}

std::vector<PreparedStatementInfo> Session::PreparedStatements() const {
  std::vector<PreparedStatementInfo> out;
  for (const auto& [name, p] : prepared_)
    if (!name.empty()) out.push_back({name, p->sql, p->prepare_time, p->param_types, p->from_sql});
  return out;
}

void Session::PrepareSql(const std::string& name, const ParsedStatement& stmt, std::vector<DataType> param_types) {
  if (prepared_.count(name))
    FRESHET_THROW(sqlstate::kDuplicatePreparedStatement, "prepared statement \"{}\" already exists", name);
  auto p = std::make_shared<Prepared>();
  p->sql = stmt.text;
  p->from_sql = true;
  p->statements.push_back(stmt);
  p->statements[0].node = stmt.node->prepare_stmt->query;
  p->param_types = std::move(param_types);
  AddPrepared(name, std::move(p));
}

const ParsedStatement& Session::PreparedStatement(const std::string& name, std::vector<DataType>* param_types) const {
  std::shared_ptr<Prepared> p = FindPrepared(name);
  if (p->statements.empty())  // Parse of an empty query
    throw SqlError(sqlstate::kFeatureNotSupported, "EXPLAIN of this statement is not supported");
  *param_types = p->param_types;
  return p->statements[0];
}

StatementOutcome Session::ExecutePrepared(const std::string& name, const std::vector<Value>& params, ResultSink* sink,
                                          PortalRows* portal) {
  std::shared_ptr<Prepared> p = FindPrepared(name);  // kept alive if DEALLOCATE runs meanwhile
  if (p->statements.empty()) {  // Parse of an empty query
    StatementOutcome empty;
    empty.empty_query = true;
    return empty;
  }
  return RunStatement(p->statements[0], &params, sink, portal, &p->plan_cache);
}

std::shared_ptr<Session::Prepared> Session::FindPrepared(const std::string& name) const {
  auto it = prepared_.find(name);
  if (it == prepared_.end())
    FRESHET_THROW(sqlstate::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", name);
  return it->second;
}

std::vector<DataType> Session::DescribeStatementParams(const std::string& statement) const {
  return FindPrepared(statement)->param_types;
}

std::vector<ColumnDesc> Session::DescribeStatement(const std::string& statement) {
  return DescribePrepared(*FindPrepared(statement));
}

std::vector<ColumnDesc> Session::DescribePrepared(const Prepared& p) {
  if (p.statements.empty()) return {};
  PrepareEval();
  std::vector<DataType> types = p.param_types;
  current_query_ = p.sql;
  std::shared_ptr<const PlanNode> plan =
      p.statements[0].node ? CachedPlanStatement(this, p.statements[0], &types, &p.plan_cache) : nullptr;
  std::vector<ColumnDesc> columns = plan ? ResultColumns(*plan) : DescribeUtility(this, p.statements[0], nullptr);
  // As exec_describe_*_message: rows cannot be described in an aborted
  // transaction (a statement without rows still can).
  if (txn_ == TxnState::kFailed && !columns.empty()) ThrowInFailedTransaction();
  return columns;
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
  if (txn_ == TxnState::kFailed && !(!p->statements.empty() && IsTransactionExit(p->statements[0])))
    ThrowInFailedTransaction();
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
  if (it == portals_.end()) {
    // A cursor is a portal too (psycopg 3 describes its named cursors so).
    if (auto c = cursors_.find(name); c != cursors_.end()) return c->second.cursor->columns();
    FRESHET_THROW(sqlstate::kInvalidCursorName, "portal \"{}\" does not exist", name);
  }
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
  if (!StartPortal(portal, sink)) {
    *outcome = portal->outcome;
    return false;
  }
  // Deliver buffered rows, max_rows at a time.
  const int64_t sent = TakePortalRows(portal, max_rows, [sink](const DataChunk& rows) { sink->Rows(rows); });
  if (!portal->rows.chunks.empty()) return true;
  *outcome = portal->outcome;
  // PostgreSQL counts the rows of this Execute, not of the whole portal.
  if (outcome->tag.rfind("SELECT ", 0) == 0) outcome->tag = "SELECT " + std::to_string(sent);
  return false;
}

bool Session::StartPortal(Portal* portal, ResultSink* sink) {
  if (portal->started) return portal->rows.filled;
  portal->started = true;
  Prepared* p = portal->prepared.get();
  // The extended protocol runs statements up to Sync in an implicit
  // transaction; writes are applied at Sync (or at COMMIT).
  if (txn_ == TxnState::kIdle &&
      !(p->statements[0].node && p->statements[0].node->node_case == PG_QUERY__NODE__NODE_TRANSACTION_STMT)) {
    txn_ = TxnState::kInBlock;
    implicit_txn_ = true;
  }
  portal->outcome = RunStatement(p->statements[0], &portal->params, sink, &portal->rows, &p->plan_cache);
  return portal->rows.filled;
}

int64_t Session::TakePortalRows(Portal* portal, int64_t max_rows, const std::function<void(const DataChunk&)>& emit) {
  int64_t sent = 0;
  while (!portal->rows.chunks.empty()) {
    DataChunk& front = portal->rows.chunks.front();
    size_t available = front.num_rows() - portal->sent_in_chunk;
    size_t take = max_rows > 0 ? std::min<size_t>(available, static_cast<size_t>(max_rows - sent)) : available;
    if (take == 0) break;
    if (portal->sent_in_chunk == 0 && take == front.num_rows()) {
      emit(front);  // the whole chunk (a point query's one row)
    } else {
      std::vector<uint32_t> sel;
      for (size_t i = 0; i < take; i++) sel.push_back(static_cast<uint32_t>(portal->sent_in_chunk + i));
      emit(front.Take(sel));
    }
    sent += static_cast<int64_t>(take);
    portal->sent_in_chunk += take;
    if (portal->sent_in_chunk >= front.num_rows()) {
      portal->rows.chunks.erase(portal->rows.chunks.begin());
      portal->sent_in_chunk = 0;
    }
    if (max_rows > 0 && sent >= max_rows) break;
  }
  return sent;
}

std::optional<int64_t> Session::FetchFromPortal(const std::string& name, int64_t count, ResultSink* sink,
                                                DataChunk* rows) {
  auto it = portals_.find(name);
  if (it == portals_.end() || name.empty()) return std::nullopt;
  Portal* portal = it->second.get();
  if (portal->prepared->statements.empty() || !StartPortal(portal, sink)) return 0;
  if (count <= 0) return 0;
  return TakePortalRows(portal, count == INT64_MAX ? 0 : count, [rows](const DataChunk& taken) {
    if (!rows) return;
    for (size_t i = 0; i < taken.num_rows(); i++) rows->AppendRowFrom(taken, i);
  });
}

std::optional<std::vector<ColumnDesc>> Session::PortalColumns(const std::string& name) {
  auto it = portals_.find(name);
  if (it == portals_.end() || name.empty()) return std::nullopt;
  const Portal& portal = *it->second;
  if (portal.started && portal.rows.filled) return portal.rows.columns;  // as its rows were made
  return DescribePrepared(*portal.prepared);
}

bool Session::ClosePrepared(const std::string& name) { return prepared_.erase(name) > 0; }

void Session::CloseAllPrepared() { prepared_.clear(); }

void Session::ClosePortal(const std::string& name) { portals_.erase(name); }

void Session::DiscardAll() {
  ApplyListen(false, "");  // UNLISTEN *, as PostgreSQL's DISCARD ALL
  ReleaseAdvisoryLocks(/*transaction_only=*/false);  // as PostgreSQL's DISCARD ALL
  portals_.clear();
  prepared_.clear();
  cursors_.clear();
}

// ---- SessionAccess ----

std::optional<std::string> Session::Setting(const std::string& name) {
  const VariableDef* def = FindVariable(name);
  if (!def) return std::nullopt;
  if (LowerAscii(def->name) == "transaction_read_only") return TransactionReadOnly() ? "on" : "off";
  return variables_.Get(def->name);
}

std::string Session::SetSetting(const std::string& name, const std::string& value) {
  const VariableDef* def = FindVariable(name);
  if (def && LowerAscii(def->name) == "transaction_read_only") {
    bool on = false;
    if (!ParseBoolSetting(value, &on))
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "parameter \"transaction_read_only\" requires a Boolean value");
    SetTransactionReadOnly(on);
  } else {
    variables_.Set(def ? def->name : name, value);  // SET's checks and errors
  }
  return Setting(name).value_or(value);
}

namespace {

// What a relation takes in storage, as its engine estimates it (views and
// sequences take none).
int64_t StorageBytes(Instance* instance, const TableCatalog& t) {
  if (t.kind == RelationKind::kView || t.kind == RelationKind::kSequence) return 0;
  return static_cast<int64_t>(instance->store()->engines().For(t.id).Statistics(t.id, nullptr).bytes);
}

int64_t DatabaseStorageBytes(Instance* instance, ObjectId database_id) {
  int64_t bytes = 0;
  for (const auto& t : instance->catalog()->ListTables(database_id)) bytes += StorageBytes(instance, *t);
  return bytes;
}

}  // namespace

namespace {

// `region`: flush_region / compact_region's (regions.h).
int64_t RunTimeSeriesAction(Instance* instance, SessionAccess::TimeSeriesAction action, const TableCatalog& t,
                            std::optional<uint32_t> region = std::nullopt) {
  if (!t.IsTimeSeries())
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a time-series table (only a table with a TIME INDEX is {})",
                  t.name, action == SessionAccess::TimeSeriesAction::kFlush ? "flushed" : "compacted");
  // Every acknowledged write to it first reaches the engine (its epoch
  // commits), as GreptimeDB flushes what was written.
  DatabaseEpochLoop* loop = instance->barriers()->ForDatabase(t.database_id);
  if (instance->DmlFor(t.database_id)->LastAppliedEpoch() > loop->committed_epoch()) loop->Flush();
  TimeSeriesEngine* engine = instance->timeseries();
  Result<size_t> rows = size_t{0};
  if (action == SessionAccess::TimeSeriesAction::kFlush) {
    rows = engine->FlushTable(t.id, /*background=*/false, region);
  } else if (region) {
    rows = engine->CompactTable(t.id, /*all=*/true, /*background=*/false, region);
  } else {
    // The rows TTL removed and those of the files merged.
    rows = engine->ExpireTable(t.id, std::chrono::duration_cast<std::chrono::microseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
    if (rows.ok()) {
      Result<size_t> merged = engine->CompactTable(t.id, /*all=*/true);
      rows = merged.ok() ? Result<size_t>(*rows + *merged) : merged;
    }
  }
  if (!rows.ok()) throw SqlError(sqlstate::kIoError, "\"" + t.name + "\": " + rows.status().message());
  return static_cast<int64_t>(*rows);
}

}  // namespace

int64_t Session::TimeSeriesTableAction(TimeSeriesAction action, const std::string& name) {
  // GreptimeDB's forms: table, schema.table, catalog.schema.table (the
  // catalog is the database).
  std::vector<std::string> parts = SplitQualifiedName(name);
  if (parts.empty() || parts.size() > 3) FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid table name \"{}\"", name);
  // The catalog part names the database (any of this instance's).
  ObjectId database_id = database().id;
  if (parts.size() == 3) {
    auto db = catalog()->FindDatabase(parts[0]);
    if (!db) FRESHET_THROW(sqlstate::kUndefinedTable, "Table not found: {}", name);
    database_id = db->id;
  }
  TableRef t;
  if (parts.size() >= 2) {
    auto schema = catalog()->FindSchema(database_id, parts[parts.size() - 2]);
    if (schema) t = catalog()->FindTable(schema->id, parts.back());
  } else {
    for (const std::string& schema_name : SearchPath()) {
      auto schema = catalog()->FindSchema(database().id, schema_name);
      if (schema && (t = catalog()->FindTable(schema->id, parts.back()))) break;
    }
  }
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "Table not found: {}", name);
  return RunTimeSeriesAction(instance(), action, *t);
}

int64_t Session::TimeSeriesRegionAction(TimeSeriesAction action, int64_t region_id) {
  const ObjectId table_id = static_cast<ObjectId>(static_cast<uint64_t>(region_id) >> 32);
  TableRef t = catalog()->GetTable(table_id);
  if (!t || !t->IsTimeSeries()) FRESHET_THROW(sqlstate::kUndefinedObject, "Region not found: {}", region_id);
  const uint64_t number = static_cast<uint64_t>(region_id) & 0xffffffffu;
  const size_t regions = t->timeseries.partition_rules.empty() ? 1 : t->timeseries.partition_rules.size() + 1;
  if (number >= regions) FRESHET_THROW(sqlstate::kUndefinedObject, "Region not found: {}", region_id);
  if (action == TimeSeriesAction::kMigrate)
    FRESHET_THROW(sqlstate::kFeatureNotSupported,
                  "Cannot migrate region {}: this is a single-node deployment, there is no other peer to migrate it to",
                  region_id);
  return RunTimeSeriesAction(instance(), action, *t, static_cast<uint32_t>(number));
}

std::optional<std::string> Session::ProcedureStateJson(const std::string& id) {
  std::optional<ProcedureInfo> p = instance()->procedures()->Find(id);
  if (!p) return std::nullopt;
  std::string json = fmt::format("{{\"status\":\"{}\",\"error\":", ProcedureStateName(p->state));
  if (p->error.empty()) json += "null";
  else AppendJsonString(&json, p->error);
  return json + "}";
}

std::optional<int64_t> Session::RelationBytes(uint32_t oid) {
  if (!eval_.catalog || !eval_.catalog->RelationName(oid)) return std::nullopt;
  // System catalogs and the indexes behind primary keys take no storage
  // of their own.
  if (oid < kObjectOidBase || oid >= kPrimaryKeyIndexOidBase) return 0;
  ObjectId id = oid - kObjectOidBase;
  TableRef t = catalog()->GetTable(id);
  return t ? StorageBytes(instance_, *t) : 0;
}


int64_t Session::DatabaseBytes(const std::string& name) {
  if (name == kTemplate0) return 0;
  auto db = instance_->catalog()->FindDatabase(name);
  if (!db) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", name);
  return DatabaseStorageBytes(instance_, db->id);
}

std::optional<int64_t> Session::DatabaseBytes(uint32_t oid) {
  if (oid == kTemplate0Oid) return 0;
  for (const auto& d : instance_->catalog()->ListDatabases())
    if (ObjectOid(d.id) == oid) return DatabaseStorageBytes(instance_, d.id);
  return std::nullopt;
}

// ---- Cursors ----

void Session::DeclareCursor(const std::string& name, std::unique_ptr<Cursor> cursor) {
  if (cursors_.count(name) || subscription_cursors_.count(name))
    FRESHET_THROW(sqlstate::kDuplicateCursor, "cursor \"{}\" already exists", name);
  cursors_[name] = CursorEntry{std::move(cursor), InExplicitBlock()};
}

Cursor& Session::FindCursor(const std::string& name) {
  auto it = cursors_.find(name);
  if (it == cursors_.end()) FRESHET_THROW(sqlstate::kInvalidCursorName, "cursor \"{}\" does not exist", name);
  return *it->second.cursor;
}

void Session::CloseCursor(const std::string& name) {
  if (!cursors_.erase(name) && !subscription_cursors_.erase(name))
    FRESHET_THROW(sqlstate::kInvalidCursorName, "cursor \"{}\" does not exist", name);
}

void Session::CloseAllCursors() {
  cursors_.clear();
  subscription_cursors_.clear();
}

void Session::DeclareSubscriptionCursor(const std::string& name, std::unique_ptr<SubscriptionCursor> cursor) {
  if (cursors_.count(name) || subscription_cursors_.count(name))
    FRESHET_THROW(sqlstate::kDuplicateCursor, "cursor \"{}\" already exists", name);
  subscription_cursors_[name] = std::move(cursor);
}

SubscriptionCursor* Session::FindSubscriptionCursor(const std::string& name) {
  auto it = subscription_cursors_.find(name);
  return it == subscription_cursors_.end() ? nullptr : it->second.get();
}

std::vector<CursorInfo> Session::Cursors() const {
  std::vector<CursorInfo> out;
  for (const auto& [name, entry] : cursors_) {
    const Cursor& c = *entry.cursor;
    out.push_back({name, c.statement(), c.options().hold, c.options().binary, !c.options().no_scroll,
                   c.creation_time()});
  }
  return out;
}

}  // namespace freshet
