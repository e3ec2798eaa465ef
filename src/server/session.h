// Session: one client connection's state and statement execution.
//
// The pgwire layer (pgwire.h) decodes messages and calls the Session; the
// Session parses, binds, plans and executes statements, and reports
// results through a ResultSink. It owns the session variables, the
// transaction state (idle, in a block, failed) with its buffered writes and
// pinned snapshot, and the prepared statements and portals of the extended
// protocol.
//
// A Session is used by one thread at a time; only its cancel flag is
// touched from other threads (CancelRequest).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binder/binder.h"
#include "planner/plan.h"
#include "server/instance.h"
#include "sql/parse_cache.h"
#include "sql/parser.h"

namespace freshet {

struct ColumnDesc {
  std::string name;
  DataType type;
};

// Receives what a statement produces. Implemented by the pgwire layer.
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Row description, sent before the first row of a statement that returns
  // rows (skipped by the caller for portals already described).
  virtual void Describe(const std::vector<ColumnDesc>& columns) = 0;
  virtual void Rows(const DataChunk& chunk) = 0;
  virtual void Notice(const std::string& message) = 0;
  // COPY FROM STDIN: announces the copy (in the binary format or text),
  // then pulls data until the client finishes. ReadCopyData returns false at CopyDone; throws on CopyFail.
  virtual void BeginCopyIn(size_t columns, bool binary) = 0;
  virtual bool ReadCopyData(std::string* data) = 0;
  // COPY TO STDOUT.
  virtual void BeginCopyOut(size_t columns, bool binary) = 0;
  virtual void CopyData(const std::string& data) = 0;
  virtual void EndCopyOut() = 0;
};

struct StatementOutcome {
  std::string tag;          // CommandComplete tag, e.g. "SELECT 3", "INSERT 0 1"
  bool empty_query = false; // EmptyQueryResponse instead of CommandComplete
};

class Session {
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

  // Simple query protocol: runs each statement of the string in order;
  // calls `done` after each. Throws SqlError for the failing statement.
  void ExecuteSimple(const std::string& sql, ResultSink* sink,
                     const std::function<void(const StatementOutcome&)>& done);

  // Extended protocol.
  void Parse(const std::string& name, const std::string& sql, const std::vector<uint32_t>& param_oids);
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
  void ClosePrepared(const std::string& name);
  void ClosePortal(const std::string& name);
  // DISCARD ALL: forgets prepared statements and portals.
  void DiscardAll();
  // Called at Sync: ends an implicit transaction of the extended protocol.
  void Sync();
  // Marks the transaction failed after an error (PostgreSQL's 25P02 mode).
  void OnError();

  std::atomic<bool>* cancel_flag() { return &cancel_; }
  void ResetCancel() { cancel_.store(false); }
  const EvalContext& eval_settings() const { return eval_; }

 private:
  struct Prepared;
  struct Portal;

  StatementOutcome RunStatement(const ParsedStatement& stmt, const std::vector<Value>* params, ResultSink* sink,
                                Portal* portal, int64_t max_rows, bool* suspended);
  StatementOutcome RunQuery(const ParsedStatement& stmt, PlanPtr plan, const std::string& tag_prefix,
                            const std::vector<Value>* params, ResultSink* sink, Portal* portal, int64_t max_rows,
                            bool* suspended);
  PlanPtr Plan(const ParsedStatement& stmt, std::vector<DataType>* param_types);
  StatementOutcome RunDdl(const ParsedStatement& stmt, ResultSink* sink);
  // CREATE MATERIALIZED VIEW / SINK / INDEX (or, with explain_only, the
  // EXPLAIN lines of its stream plan).
  StatementOutcome RunCreateJob(const ParsedStatement& stmt, ResultSink* sink, bool explain_only = false,
                                std::vector<std::string>* explain = nullptr);
  // The named relations and, with cascade, everything depending on them
  // (indexes always); throws 2BP01 naming the dependents otherwise.
  // The job a statement names, of kind_name "materialized view", "sink" or
  // "index"; 42P01 / 42704 when there is none of that kind.
  TableRef FindJobByName(const ParsedStatement& stmt, const std::vector<std::string>& name,
                         const std::string& kind_name);
  // Throws 42501 unless the session's user owns `t` or is a superuser.
  void CheckOwner(const TableCatalog& t);
  std::vector<ObjectId> DropClosure(const std::vector<TableRef>& named, bool cascade, const std::string& kind_name,
                                    ResultSink* sink);
  // Drops relations (tables and jobs, with their internal tables and data).
  void DropRelations(const std::vector<ObjectId>& ids);
  StatementOutcome RunUtility(const ParsedStatement& stmt, ResultSink* sink, bool* handled);
  StatementOutcome RunExtension(const ParsedStatement& stmt, ResultSink* sink);
  StatementOutcome RunCopy(const ParsedStatement& stmt, ResultSink* sink);
  StatementOutcome RunTransaction(const ParsedStatement& stmt);
  StatementOutcome RunSet(const ParsedStatement& stmt);
  StatementOutcome RunShow(const std::string& name, ResultSink* sink);
  std::vector<ColumnDesc> DescribePrepared(const Prepared& p);
  void SendTextRows(const std::vector<ColumnDesc>& cols, const std::vector<std::vector<std::string>>& rows,
                    ResultSink* sink);

  // Applies writes now (autocommit) or buffers them (transaction block).
  void Write(WriteSet&& writes);
  void ApplyWrites(WriteSet&& writes);
  std::shared_ptr<const Snapshot> ReadSnapshot();
  void PrepareEval();
  std::string GetVariable(const std::string& name) const;
  std::vector<std::string> SearchPath() const;
  void SetVariable(const std::string& name, const std::string& value);
  BinderContext BinderContextFor(const ParsedStatement& stmt, std::vector<DataType>* param_types);

  Instance* instance_;
  std::string user_;
  DatabaseCatalog database_;
  int32_t pid_ = 0, secret_ = 0;
  std::atomic<bool> cancel_{false};
  EvalContext eval_;
  std::map<std::string, std::string> variables_;
  std::map<std::string, std::string> reset_values_;  // startup parameters
  std::map<std::string, std::string> reported_;      // last ParameterStatus values
  std::string current_query_;
  ParseCache parse_cache_;  // simple-protocol statements sent again with other constants

  enum class TxnState { kIdle, kInBlock, kFailed } txn_ = TxnState::kIdle;
  bool implicit_txn_ = false;  // extended protocol without BEGIN
  WriteSet txn_writes_;
  std::shared_ptr<const Snapshot> txn_snapshot_;
  Epoch last_write_epoch_ = 0;

  std::map<std::string, std::shared_ptr<Prepared>> prepared_;
  std::map<std::string, std::unique_ptr<Portal>> portals_;
};

// A boolean setting's value as SET accepts it (true/on/1/yes/t, false/...);
// false when it is not one.
bool ParseBoolSetting(const std::string& v, bool* out);
// A memory size as PostgreSQL writes them (a number of kB, or with kB, MB,
// GB or TB); nullopt when it is not one.
std::optional<int64_t> ParseMemorySetting(const std::string& text);
// What statement_memory_limit and streaming_memory_limit mean by 0: half of
// the machine's memory (past that, one statement or job would starve
// everything else).
int64_t DefaultMemoryLimit();

// A backfill rate limit as SET/ALTER accept it: a count >= 0 or DEFAULT
// (no limit), normalized to "<n>" or "default"; 22023 otherwise.
std::string NormalizeRateLimit(const std::string& value, const std::string& what);

}  // namespace freshet
