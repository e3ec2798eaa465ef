// Session: one client connection's state.
//
// The pgwire layer (server/pgwire.h) decodes messages and calls the
// Session. The Session owns what lives as long as the connection: its
// variables (variables.h), its transaction (idle, in a block, failed, with
// the block's buffered writes and pinned snapshot) and the prepared
// statements and portals of the extended protocol. It parses statements
// and hands each one to the statement handlers (handler/handler.h), which
// do the work through the Session's public methods below and report
// results through a ResultSink.
//
// A Session is used by one thread at a time; only its cancel flag is
// touched from other threads (CancelRequest).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binder/binder.h"
#include "frontend/handler/handler.h"
#include "frontend/instance.h"
#include "frontend/notifications.h"
#include "meta/dml_manager.h"
#include "frontend/result_sink.h"
#include "frontend/variables.h"
#include "sql/parse_cache.h"
#include "sql/parser.h"

namespace freshet {

class SubscriptionCursor;

class Cursor;

class Session : public SequenceAccess, public SessionAccess {
 public:
  // Throws 3D000 when the database does not exist, 28000 for unknown users.
  Session(Instance* instance, const std::string& user, const std::string& database);
  ~Session();

  int32_t process_id() const { return pid_; }
  int32_t secret_key() const { return secret_; }
  // Parameters reported to the client at startup (ParameterStatus).
  std::vector<std::pair<std::string, std::string>> StartupParameters();
  // Reported parameters whose value changed since last reported (SET
  // DateStyle ...): sent as ParameterStatus before ReadyForQuery.
  std::vector<std::pair<std::string, std::string>> TakeChangedParameters();
  // A startup packet parameter: sets the variable and makes it the value
  // RESET returns to. Unknown names are ignored; bad values throw.
  void ApplyStartupParameter(const std::string& name, const std::string& value);
  // 'I' idle, 'T' in a transaction block, 'E' in a failed block.
  char TransactionStatus() const;

  // SessionAccess (expr/eval_context.h).
  std::optional<std::string> Setting(const std::string& name) override;
  std::string SetSetting(const std::string& name, const std::string& value) override;
  int32_t BackendPid() const override { return pid_; }
  bool SignalBackend(int32_t pid, bool terminate) override;
  void Sleep(double seconds) override;
  std::optional<int64_t> RelationBytes(uint32_t oid) override;
  int64_t TimeSeriesTableAction(TimeSeriesAction action, const std::string& name) override;
  int64_t TimeSeriesRegionAction(TimeSeriesAction action, int64_t region_id) override;
  std::optional<std::string> ProcedureStateJson(const std::string& id) override;
  int64_t DatabaseBytes(const std::string& name) override;
  std::optional<int64_t> DatabaseBytes(uint32_t oid) override;
  bool AdvisoryLock(int64_t key, bool two_keys, bool shared, bool transaction, bool wait) override;
  bool AdvisoryUnlock(int64_t key, bool two_keys, bool shared) override;
  void AdvisoryUnlockAll() override;
  void Notify(const std::string& channel, const std::string& payload) override;
  std::string ExportSnapshot() override;
  // SET TRANSACTION SNAPSHOT 'id': the block reads the snapshot another
  // transaction exported (before it has read or written anything).
  void ImportSnapshot(const std::string& id);

  // ---- Protocol ----

  // Simple query protocol: runs each statement of the string in order;
  // calls `done` after each. Throws SqlError for the failing statement.
  void ExecuteSimple(const std::string& sql, ResultSink* sink,
                     const std::function<void(const StatementOutcome&)>& done);

  // A statement run by another one (a DO block's), in this session's
  // transaction: the checks RunStatement makes for it (read-only, the
  // writer lock), without its own activity, timeout or transaction.
  StatementOutcome RunNested(const ParsedStatement& stmt, ResultSink* sink);

  // Extended protocol.
  // `notices` hears what parsing says (identifiers cut to 63 bytes).
  void Parse(const std::string& name, const std::string& sql, const std::vector<uint32_t>& param_oids,
             ResultSink* notices = nullptr);
  void Bind(const std::string& portal, const std::string& statement, const std::vector<std::optional<std::string>>& params,
            const std::vector<int16_t>& param_formats, const std::vector<int16_t>& result_formats);
  // Describe: parameter types (for statements) and result columns (empty
  // for statements that return no rows).
  std::vector<DataType> DescribeStatementParams(const std::string& statement) const;
  std::vector<ColumnDesc> DescribeStatement(const std::string& statement);
  std::vector<ColumnDesc> DescribePortal(const std::string& portal);
  const std::vector<int16_t>& PortalResultFormats(const std::string& portal) const;
  // Runs (or continues) a portal; returns true when it was suspended after
  // max_rows rows (PortalSuspended), false when complete (outcome filled).
  bool Execute(const std::string& portal, int64_t max_rows, ResultSink* sink, StatementOutcome* outcome);
  // SQL PREPARE name [(types)] AS statement (`stmt` is the PREPARE; an
  // unknown type in `param_types` is inferred) and EXECUTE name (params):
  // the same prepared statements as the protocol's named ones.
  void PrepareSql(const std::string& name, const ParsedStatement& stmt, std::vector<DataType> param_types);
  StatementOutcome ExecutePrepared(const std::string& name, const std::vector<Value>& params, ResultSink* sink,
                                   PortalRows* portal);
  // The statement prepared as `name` and its parameter types (26000 when
  // there is none); valid until the statement is closed.
  const ParsedStatement& PreparedStatement(const std::string& name, std::vector<DataType>* param_types) const;
  // SQL cursors (cursor.h): DECLARE keeps one (42P03 when the name is
  // taken), FETCH and MOVE find it, CLOSE drops it (34000 when there is
  // none). A cursor ends with its transaction unless WITH HOLD; a held one
  // declared in a block that rolls back goes too.
  void DeclareCursor(const std::string& name, std::unique_ptr<Cursor> cursor);
  Cursor& FindCursor(const std::string& name);
  bool HasCursor(const std::string& name) const { return cursors_.count(name) > 0; }
  void CloseCursor(const std::string& name);
  void CloseAllCursors();
  // Subscription cursors (subscription_cursor.h): the session's until
  // CLOSE, whatever its transactions do; they share the cursors' names.
  void DeclareSubscriptionCursor(const std::string& name, std::unique_ptr<SubscriptionCursor> cursor);
  SubscriptionCursor* FindSubscriptionCursor(const std::string& name);  // null when none
  std::vector<CursorInfo> Cursors() const;  // pg_cursors
  // The named prepared statements (pg_prepared_statements).
  std::vector<PreparedStatementInfo> PreparedStatements() const;
  // Close (protocol) and DEALLOCATE name; true when it existed.
  bool ClosePrepared(const std::string& name);
  // DEALLOCATE ALL.
  void CloseAllPrepared();
  void ClosePortal(const std::string& name);
  // SQL FETCH / MOVE on a portal the protocol bound (PostgreSQL's portals
  // and SQL cursors share one namespace; asyncpg's cursors MOVE over
  // theirs): the next `count` rows (INT64_MAX: all), run first if need be,
  // forward only. `rows` null for MOVE. nullopt when there is no such
  // portal; otherwise the number of rows passed over.
  std::optional<int64_t> FetchFromPortal(const std::string& name, int64_t count, ResultSink* sink, DataChunk* rows);
  // The columns of portal `name`'s rows; nullopt when there is no such portal.
  std::optional<std::vector<ColumnDesc>> PortalColumns(const std::string& name);
  // DISCARD ALL: forgets prepared statements and portals.
  void DiscardAll();
  // Called at Sync: ends an implicit transaction of the extended protocol
  // (applies its writes).
  void Sync();
  // Marks the transaction failed after an error (PostgreSQL's 25P02 mode).
  void OnError();

  std::atomic<bool>* cancel_flag() { return &cancel_; }
  // pg_stat_activity: the client's address and port (a TCP client), and
  // how the connection's wait for the client is ended (pg_terminate_backend).
  void SetClient(const std::string& addr, int32_t port);
  void SetWake(std::function<void()> wake);
  // pg_terminate_backend asked this session to end.
  bool terminated() const { return activity_.terminate.load(); }
  void ResetCancel() { cancel_.store(false); }
  const EvalContext& eval_settings() const { return eval_; }

  // ---- Sequence functions (SequenceAccess; nextval & co. in expressions) ----
  int64_t NextVal(uint32_t oid) override;
  int64_t CurrVal(uint32_t oid) override;
  int64_t LastVal() override;
  void SetVal(uint32_t oid, int64_t value, bool is_called) override;
  std::pair<int64_t, bool> Peek(uint32_t oid) override;

  // ---- For statement handlers ----

  Instance* instance() const { return instance_; }
  const std::string& user() const { return user_; }
  const DatabaseCatalog& database() const { return database_; }
  // The database this transaction writes: the session's, or another's
  // that a statement wrote (INSERT INTO db.schema.t ...). A transaction
  // writes one database: its DML manager, epochs and writer lock.
  ObjectId WriteDatabase() const { return write_database_ ? write_database_ : database_.id; }
  // The statement's evaluation settings: time zone, statement time.
  EvalContext& eval() { return eval_; }
  SessionVariables& variables() { return variables_; }
  // The settings every statement reads, parsed once per change of the
  // session's variables (a point SELECT would otherwise parse a dozen).
  struct StatementSettings {
    uint64_t generation = UINT64_MAX;  // of variables() they were read at
    bool read_after_write_all = true;  // read_after_write = all
    bool default_read_only = false;    // default_transaction_read_only
    bool use_indexes = true;           // enable_indexscan
    bool durable_commit = true;        // synchronous_commit is not off
    bool implicit_flush = false;       // rw_implicit_flush
    int64_t statement_timeout_ms = 0, lock_timeout_ms = 0;
    int64_t statement_memory_limit = 0;  // bytes (the default when 0 was set)
    // A second thread for large scans and aggregations: off with
    // batch_parallelism = 1 or max_parallel_workers_per_gather = 0.
    bool parallel_batch = true;
    MessageLevel client_min_messages = MessageLevel::kNotice;
  };
  const StatementSettings& settings() const;
  // search_path as a list of schemas, "$user" replaced.
  std::vector<std::string> SearchPath() const;
  BinderContext BinderContextFor(const ParsedStatement& stmt, std::vector<DataType>* param_types);

  // BEGIN / START TRANSACTION, COMMIT (a failed block rolls back),
  // ROLLBACK: the outcome's tag is the command's.
  // `read_only`: BEGIN READ ONLY / READ WRITE; unset: the block takes
  // default_transaction_read_only.
  StatementOutcome Begin(bool start_transaction, std::optional<bool> read_only = std::nullopt);
  // Whether the current (or next) transaction is read only: a block's own
  // mode, else default_transaction_read_only. Statements that write get
  // 25006 in it (RunStatement), as nextval and setval do.
  bool TransactionReadOnly() const;
  // SET TRANSACTION READ ONLY / READ WRITE, SET transaction_read_only:
  // changes the block's mode (no effect outside a block).
  void SetTransactionReadOnly(bool read_only);
  bool InExplicitBlock() const { return txn_ != TxnState::kIdle && !implicit_txn_; }
  // A block whose DDL is transactional: an explicit one, or the implicit
  // block of a simple-query message of several statements (PostgreSQL
  // rolls back all of "CREATE TABLE t ...; INSERT ...; SELECT 1/0").
  bool InDdlBlock() const { return InExplicitBlock() || (implicit_txn_ && multi_statement_); }
  // 25006 naming `command` when the transaction is read only.
  void CheckWritable(std::string_view command) const;
  // LISTEN / UNLISTEN (an empty channel: UNLISTEN *) and NOTIFY
  // (notifications.h): in a transaction block they take effect when it
  // commits, and go with it when it rolls back (or with a savepoint);
  // otherwise at once. NOTIFY checks the channel (non-empty) and payload
  // (under 8000 bytes), 22023; all three run in read-only transactions.
  // (Notify is SessionAccess's, above: pg_notify calls it too.)
  void Listen(const std::string& channel);
  void Unlisten(const std::string& channel);
  std::vector<std::string> ListeningChannels() const override;
  // For the connection: a descriptor readable while notifications wait
  // (-1 when the session listens to nothing, or while a transaction block
  // is open: they wait for its end), and the notifications to send.
  int NotificationWakeFd() const { return listener_ && txn_ == TxnState::kIdle ? listener_->wake_fd() : -1; }
  std::vector<Notification> TakeNotifications();
  StatementOutcome Commit();
  StatementOutcome Rollback();
  // SAVEPOINT, RELEASE [SAVEPOINT], ROLLBACK TO [SAVEPOINT], as in
  // PostgreSQL: only in a transaction block (25P01); a name used again
  // hides the older savepoint until it is released; ROLLBACK TO drops the
  // block's writes made since the savepoint, keeps the savepoint, and ends a
  // failed state; an unknown name is 3B001.
  StatementOutcome Savepoint(const std::string& name);
  StatementOutcome ReleaseSavepoint(const std::string& name);
  StatementOutcome RollbackToSavepoint(const std::string& name);
  // In a transaction block (explicit, or the implicit one of several
  // statements in one message, or of the extended protocol up to Sync).
  bool InTransactionBlock() const { return txn_ == TxnState::kInBlock; }
  // idle_in_transaction_session_timeout while a transaction block (also a
  // failed one) waits for the client; 0 otherwise or when not set.
  int64_t IdleInTransactionTimeoutMs() const {
    if (txn_ == TxnState::kIdle || implicit_txn_) return 0;
    return variables_.DurationMs("idle_in_transaction_session_timeout");
  }
  // idle_session_timeout outside a transaction block, else 0.
  int64_t IdleSessionTimeoutMs() const {
    if (txn_ != TxnState::kIdle && !implicit_txn_) return 0;
    return variables_.DurationMs("idle_session_timeout");
  }
  // Tables created or truncated in the current (sub)transaction of a block:
  // COPY FREEZE needs one, as in PostgreSQL. Forgotten at savepoints and
  // when the block ends; outside a block nothing is noted.
  void NoteCreatedOrTruncated(ObjectId table_id) {
    if (txn_ == TxnState::kInBlock) fresh_tables_.insert(table_id);
  }
  bool CreatedOrTruncatedInTransaction(ObjectId table_id) const { return fresh_tables_.count(table_id) > 0; }
  // CREATE TEMP TABLE ... ON COMMIT DROP (`drop`) | DELETE ROWS: what the
  // commit of the session's transactions does to the table before it is
  // stored (RunOnCommitActions): the block's COMMIT, a multi-statement
  // message's end, or a statement outside a block.
  void NoteOnCommit(ObjectId table_id, bool drop) { on_commit_[table_id] = drop; }
  // The block's writes so far (null outside a block): its reads see them.
  const WriteSet* PendingWrites() const { return txn_ == TxnState::kInBlock ? &txn_writes_ : nullptr; }
  // Whether the session holds its database's writer lock (see RunStatement).
  bool holds_writer_lock() const { return writer_ != nullptr; }
  // Holds back other sessions' writes to table `id` to the end of the
  // block (LOCK TABLE in a mode that conflicts with writes), once no other
  // session holds them back: waits up to lock_timeout, or not at all with
  // `nowait` (55P03 naming `relation`).
  void LockWrites(ObjectId id, const std::string& relation, bool nowait);
  // Applies writes now (outside a block, per synchronous_commit) or keeps
  // them for the block's COMMIT.
  void Write(WriteSet&& writes);
  // The snapshot reads see: the block's, or the latest committed one after
  // this session's own writes have committed.
  std::shared_ptr<const Snapshot> ReadSnapshot();

  // ---- DDL in transaction blocks ----
  //
  // In an explicit transaction block, DDL goes to the block's own catalog
  // (Catalog::BeginTransaction, begun at its first DDL): the block's
  // statements see it, no other session does, and COMMIT stores it with
  // the block's writes (DmlManager::Apply's WithDdl) or ROLLBACK drops it;
  // ROLLBACK TO SAVEPOINT sets it back as it was at the savepoint. Outside
  // an explicit block (also in the implicit block of a multi-statement
  // message) DDL is stored at once.
  //
  // The catalog statements read: the block's once it has run DDL.
  Catalog* catalog();
  // The catalog a DDL statement changes (begins the block's, in a block).
  Catalog* DdlCatalog();
  // Whether `catalog()` is a block's own.
  bool InDdlTransaction() const { return txn_catalog_ != nullptr; }
  // DDL that cannot be part of a transaction block (databases, ALTER
  // SYSTEM, connectors...): 25001 in a block (InDdlBlock), as PostgreSQL's
  // PreventInTransactionBlock words it.
  void PreventInTransactionBlock(std::string_view command) const;
  // The session made its temporary schema (dropped when it ends).
  void NoteTemporarySchema() { temp_schema_used_ = true; }
  // SET DATABASE TO name, USE name (RisingWave's): the session continues in
  // another database, as a new connection to it would, but for its settings
  // and prepared statements (planned again). Its cursors close and its
  // advisory locks and LISTENs (which are per database) end; 25001 in a
  // transaction block, 3D000 for an unknown database, 0A000 while it has
  // temporary tables.
  void SwitchDatabase(const std::string& name);
  // What the block's DDL makes the rest of the system do once stored
  // (forgetting dropped tables' buffers...): run after COMMIT stores it, at
  // once outside a block.
  void AfterDdlCommit(std::function<void()> action);
  // What undoes a block's DDL work done outside its catalog (a rewrite's
  // new relation): run if the block (or its savepoint) rolls back.
  void OnDdlRollback(std::function<void()> action);
  // Keeps `guard` (DmlManager::BlockWrites) until the block (explicit, or
  // a multi-statement message's) ends; released at once outside one.
  void HoldUntilBlockEnds(std::shared_ptr<void> guard);

  // The text of the statement being run (or last run), for the server log.
  const std::string& current_query() const { return current_query_; }

 private:
  struct Prepared;
  struct Portal;
  // Runs the portal's statement the first time (rows kept in it); false
  // when it returns no rows (its outcome is then in portal->outcome).
  bool StartPortal(Portal* portal, ResultSink* sink);
  // Passes up to `max_rows` (<= 0: all) of the portal's rows to `emit`, in
  // order; returns how many.
  int64_t TakePortalRows(Portal* portal, int64_t max_rows, const std::function<void(const DataChunk&)>& emit);

  StatementOutcome RunStatement(const ParsedStatement& stmt, const std::vector<Value>* params, ResultSink* sink,
                                PortalRows* portal, PlanCache* plan_cache = nullptr);
  std::vector<ColumnDesc> DescribePrepared(const Prepared& p);
  // The prepared statement `name`; 26000 when there is none.
  std::shared_ptr<Prepared> FindPrepared(const std::string& name) const;
  // Binds `p` once (errors, parameter types) and keeps it as `name`.
  void AddPrepared(const std::string& name, std::shared_ptr<Prepared> p);
  // Applies writes now; `writer` (the writer lock's guard, or null) is
  // released as soon as they are applied, before the DML log's sync.
  void ApplyWrites(WriteSet&& writes, std::shared_ptr<void> writer, const DmlManager::WithDdl* ddl = nullptr);
  // COMMIT of a block that ran DDL: its catalog stored with its writes.
  void CommitWithDdl(WriteSet&& writes, std::shared_ptr<void> writer, std::shared_ptr<Catalog> txn_catalog);
  void PrepareEval();
  // pg_stat_activity: a statement starts (active) or ends (the state the
  // transaction is in).
  void NoteStatementStart();
  void NoteStatementEnd();
  // Points the evaluation settings' catalog lookup at catalog() (the
  // block's, or the instance's): whenever that changes.
  void RefreshCatalogLookup();
  // What eval_.catalog was made for (PrepareEval makes it again when either changed).
  const Catalog* lookup_catalog_ = nullptr;
  uint64_t lookup_generation_ = UINT64_MAX;  // of variables_
  uint64_t time_zone_generation_ = UINT64_MAX;  // eval_.time_zone and interval_style read at
  mutable StatementSettings settings_;
  // Ends the transaction block, dropping its writes and snapshot (and the
  // cursors that end with it).
  void EndBlock(bool committed);

  Instance* instance_;
  std::string user_;
  DatabaseCatalog database_;
  int32_t pid_ = 0, secret_ = 0;
  std::atomic<bool> cancel_{false};
  SessionActivity activity_;  // registered with the instance, see SetClient
  EvalContext eval_;
  // Warnings functions raised (eval_.notices), sent when their statement ends.
  std::vector<std::string> warnings_;
  SessionVariables variables_;
  std::string current_query_;
  ParseCache parse_cache_;  // simple-protocol statements sent again with other constants

  // Drops the temporary schema (catalog/temp_schema.h) at the session's end.
  void DropTemporarySchema();
  bool temp_schema_used_ = false;  // set by NoteTemporarySchema
  enum class TxnState { kIdle, kInBlock, kFailed } txn_ = TxnState::kIdle;
  bool implicit_txn_ = false;  // several statements in one message, or the extended protocol up to Sync
  bool multi_statement_ = false;  // the implicit block is a message's several statements
  std::optional<bool> block_read_only_;  // the block's mode when set by BEGIN or SET TRANSACTION
  WriteSet txn_writes_;
  // The block's savepoints, oldest first: each with how far the block's
  // writes had got when it was set.
  struct SavepointMark {
    std::string name;
    WriteSet::Position position;
    std::shared_ptr<Catalog> catalog;  // a copy of the block's catalog then (null: none yet)
    size_t after_commit = 0, on_rollback = 0;  // how many DDL actions there were then
    size_t notifies = 0, listens = 0;          // pending NOTIFY and LISTEN/UNLISTEN then
  };
  // LISTEN/UNLISTEN (true: listen) and NOTIFY of the open block, applied
  // when it commits (PublishCommitted); taken whole at commit, dropped at
  // rollback.
  struct PendingNotifications {
    std::vector<std::pair<bool, std::string>> listens;
    std::vector<Notification> notifies;
  };
  PendingNotifications pending_;
  std::shared_ptr<NotificationHub::Listener> listener_;  // once the session has listened
  void ApplyListen(bool listen, const std::string& channel);
  void PublishCommitted(const PendingNotifications& committed);
  std::vector<SavepointMark> savepoints_;
  std::set<ObjectId> fresh_tables_;  // NoteCreatedOrTruncated
  // NoteOnCommit's tables: drop (else delete rows). Each commit drops the
  // first kind (and forgets them) and, with `delete_rows`, truncates the
  // second, as statements of the transaction; tables gone are forgotten.
  std::map<ObjectId, bool> on_commit_;
  bool running_on_commit_ = false;
  void RunOnCommitActions(bool delete_rows);
  // Commit() after the ON COMMIT actions (Sync runs them itself first).
  StatementOutcome CommitBlock();
  // The block's DDL: its catalog, and AfterDdlCommit / OnDdlRollback /
  // HoldUntilBlockEnds.
  std::shared_ptr<Catalog> txn_catalog_;
  std::vector<std::function<void()>> after_ddl_commit_, on_ddl_rollback_;
  std::vector<std::shared_ptr<void>> block_guards_;
  // Advisory locks held, one entry per hold (a lock taken twice is there
  // twice); transaction-level ones go when the transaction ends.
  struct AdvisoryHold {
    AdvisoryKey key;
    bool shared, transaction;
  };
  std::vector<AdvisoryHold> advisory_holds_;
  void ReleaseAdvisoryLocks(bool transaction_only);
  std::map<ObjectId, int64_t> sequence_values_;  // nextval's last value per sequence (currval)
  std::optional<int64_t> last_sequence_value_;   // lastval
  mutable std::string search_path_text_;  // SearchPath's last input
  mutable std::vector<std::string> search_path_;  // and result
  // The database's writer lock (DmlManager::AcquireWriter), held from a
  // statement that writes from what it reads to the end of its transaction.
  std::shared_ptr<void> writer_;
  std::shared_ptr<const Snapshot> txn_snapshot_;
  Epoch last_write_epoch_ = 0;
  ObjectId last_write_database_ = 0;  // where last_write_epoch_ is (0: the session's database)
  ObjectId write_database_ = 0;       // WriteDatabase(); 0: the session's
  // Before a statement runs: the database it writes becomes the
  // transaction's (0A000 when the transaction already wrote another).
  void EnterWriteDatabase(const ParsedStatement& stmt);
  // Every table of `writes` is of WriteDatabase() (0A000 otherwise).
  void CheckWriteDatabase(const WriteSet& writes) const;

  std::map<std::string, std::shared_ptr<Prepared>> prepared_;
  struct CursorEntry {
    std::unique_ptr<Cursor> cursor;
    bool declared_in_block = false;  // in the open transaction block
  };
  std::map<std::string, CursorEntry> cursors_;
  std::map<std::string, std::unique_ptr<SubscriptionCursor>> subscription_cursors_;
  std::map<std::string, std::unique_ptr<Portal>> portals_;
};

}  // namespace freshet
