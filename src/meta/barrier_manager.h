// Barrier manager: one epoch loop per database (docs/architecture.md, Invariants).
//
// Every barrier_interval_ms (or at once on Flush() or a graph change), a
// database's loop closes the current epoch E: it waits for in-flight DML
// writers of E to finish, seals the registered tables' writes of E, injects
// a barrier (E -> E+1) into the database's stream graph (StreamRuntime) and
// opens E+1, so DML continues at once. When every actor has collected the
// barrier, the loop commits the tables' and all actors' writes of E with
// the database's committed-epoch marker in one atomic write. Nothing written
// in E is visible to readers before that commit; everything is after.
// Databases never share a loop, a batch or a lock, so one database's
// failure or load does not stall another.
//
// A failed commit (a full disk, an I/O error) stores nothing of the epoch:
// everything collected stays pending, as after a barrier that does not
// checkpoint, and the next checkpoint barrier tries again with it (a
// FLUSH forces one at once). Until a commit succeeds the database refuses
// writes (CheckAcceptingWrites: 53100 for a full disk) and each FLUSH gets
// the commit's error; reads go on from the last committed epoch. When room
// is made, the next commit stores everything and writes are accepted again.
//
// DML writers hold an EpochGuard while they write (and push their changes
// into the table change streams); the guard pins the epoch so that all of a
// statement's (or a transaction's) writes land in the same epoch.
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <functional>
#include <set>
#include <thread>

#include "storage/keys.h"
#include "storage/state_store.h"
#include "storage/state_table.h"
#include "stream/runtime.h"

namespace freshet {

// ApplyGraphChange refused a change: the database is recovering (or just
// recovered) from a failure, and the change was built against the failed
// graph. Build it again once WaitRecovered returns.
class GraphRecoveringError : public SqlError {
 public:
  explicit GraphRecoveringError(uint32_t database_id);
};

class DatabaseEpochLoop {
 public:
  DatabaseEpochLoop(StateStore* store, uint32_t database_id, int barrier_interval_ms);
  ~DatabaseEpochLoop();

  // Pins the current epoch for writing until destroyed.
  class EpochGuard {
   public:
    explicit EpochGuard(DatabaseEpochLoop* loop) : lock_(loop->epoch_mu_), epoch_(loop->current_epoch_) {}
    Epoch epoch() const { return epoch_; }

   private:
    std::shared_lock<std::shared_mutex> lock_;
    Epoch epoch_;
  };
  EpochGuard BeginWrite() { return EpochGuard(this); }

  // Adds/removes a state table whose buffered writes commit with each epoch.
  void Register(std::shared_ptr<StateTable> table);
  void Unregister(TableId table_id);
  // Forgets every table and its buffered writes (the database is dropped).
  void UnregisterAll();
  // Discards buffered writes of a table (used when it is dropped).
  std::shared_ptr<StateTable> Find(TableId table_id) const;

  // Closes the current epoch now and waits until it is committed; returns
  // the committed epoch (which covers every write that happened before).
  // Throws the commit's error (53100 for a full disk) if that commit failed.
  Epoch Flush();
  // Throws (53100 for a full disk) while the last commit has failed: the
  // database takes no writes until a commit succeeds again.
  void CheckAcceptingWrites() const;
  // How many commits have failed so far (tests, monitoring).
  uint64_t failed_commits() const;
  // Applies a change of the stream graph at the next barrier (started now):
  // the new actors start and receive it, the mutation rides on it. Returns
  // once that barrier's epoch is committed.
  //
  // `recovery`: the graph rebuilt after a failure (see Recovery below); the
  // only change applied while the database recovers, and the barrier that
  // carries it does not commit: the tables' uncommitted changes are
  // replayed into the new graph right after it, and the next barrier
  // commits them together with the new graph's writes. A recovery's change
  // returns at once, without waiting for that commit.
  Epoch ApplyGraphChange(std::shared_ptr<Mutation> mutation, std::vector<std::unique_ptr<Actor>> new_actors,
                         bool recovery = false);

  // The DML log entry `seq` (synchronous_commit; storage/dml_log.h) holds
  // writes made in `epoch`: the commit that covers the epoch stores, in the
  // same atomic write, that the log is covered up to there, and then
  // retires the log's entries up to it.
  void NoteDmlLogEntry(Epoch epoch, uint64_t seq);

  // Recovery. When an actor fails, the epoch does not commit: the graph is
  // stopped and forgotten (StreamRuntime::ResetGraph), the actors' writes
  // since the last commit are discarded and the tables' writes kept; no
  // barrier runs (FLUSH waits) until the handler, on a thread of its own,
  // has rebuilt the graph from the committed state and applied it with
  // ApplyGraphChange(..., recovery = true). DML goes on meanwhile.
  using RecoveryHandler = std::function<void(const StreamRuntime::Failure&)>;
  void set_recovery_handler(RecoveryHandler handler);
  bool recovering() const;
  // Blocks while the database recovers.
  void WaitRecovered();
  // How many recoveries started so far (a statement that failed while one
  // ran can tell and try again).
  uint64_t recoveries() const;
  // Recovers the database as after a failure, at once (RECOVER): its
  // graph is rebuilt from the committed state; `cause` is recorded.
  void RequestRecovery(const std::string& cause);
  // The latest recoveries since the start (at most kRecoveriesKept), oldest
  // first; finished_at 0 while one runs. Times are micros since the Unix
  // epoch.
  struct RecoveryRecord {
    int64_t started_at = 0, finished_at = 0;
    std::string cause;
  };
  static constexpr size_t kRecoveriesKept = 16;
  std::vector<RecoveryRecord> recent_recoveries() const;
  // The latest committed epochs (at most kCommitsKept), oldest first, with
  // the wall-clock time of each commit (micros since the Unix epoch). An
  // epoch's own high bits are the time it started, i.e. the time the
  // barrier closing the epoch before it was injected.
  struct CommitRecord {
    Epoch epoch = 0;
    int64_t committed_at = 0;
  };
  static constexpr size_t kCommitsKept = 512;
  std::vector<CommitRecord> recent_commits() const;
  bool stopping() const;
  StreamRuntime* runtime() { return runtime_.get(); }
  uint32_t database_id() const { return database_id_; }
  Epoch committed_epoch() const;
  // Blocks until an epoch after `epoch` is committed, `timeout` passes,
  // `*cancel` is set (checked every 50 ms) or the loop stops; returns
  // whether one was committed.
  bool WaitCommittedAfter(Epoch epoch, std::chrono::milliseconds timeout, const std::atomic<bool>* cancel);
  void set_barrier_interval_ms(int ms);
  // Every n-th barrier commits (n >= 1); the others only move the epoch.
  void set_checkpoint_frequency(int n);

  void Stop();

 private:
  void Run();
  // One barrier: seal, inject, collect and, for a checkpoint barrier (every
  // checkpoint_frequency-th, or forced by a flush or graph change), commit
  // everything collected since the last checkpoint.
  enum class BarrierOutcome {
    kCommitted,     // a checkpoint: everything collected is stored
    kPassed,        // not a checkpoint (or the recovery's barrier): nothing stored
    kActorFailed,   // nothing committed; recovery started
    kCommitFailed,  // nothing committed; everything stays pending
  };
  BarrierOutcome RunBarrier(bool force_checkpoint);
  // A commit failed or (ok) succeeded: enters or leaves the state where
  // writes are refused.
  void NoteCommit(Epoch epoch, const Status& s);
  // After a failed barrier: resets the graph and starts the handler.
  void StartRecovery(const StreamRuntime::Failure& failure);
  // Right after the recovery barrier: the tables' changes since the last
  // commit go to the rebuilt graph.
  void ReplayUncommittedChanges();

  StateStore* store_;
  uint32_t database_id_;
  std::shared_mutex epoch_mu_;  // writers shared, the barrier exclusive
  Epoch current_epoch_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Epoch committed_epoch_ = 0;
  uint64_t flush_requests_ = 0;
  uint64_t flushes_done_ = 0;
  uint64_t flushes_failed_ = 0;  // requests up to this one got commit_error_
  Status commit_error_;          // of the last commit, if it failed
  uint64_t failed_commits_ = 0;
  struct GraphChange {
    std::shared_ptr<Mutation> mutation;
    std::vector<std::unique_ptr<Actor>> actors;
    uint64_t ticket = 0;
    bool recovery = false;
  };
  std::vector<GraphChange> graph_changes_;
  int checkpoint_frequency_ = 1;
  int barriers_since_checkpoint_ = 0;
  // Collected since the last checkpoint (loop thread only).
  std::vector<StateTable::SealedWrites> pending_sealed_;
  std::vector<WriteLog> pending_writes_;
  // Committed row counts of the relations this loop has changed (loaded
  // from the meta family on first use); epoch loop thread only.
  std::map<TableId, int64_t> row_counts_;
  // The row counts after applying the row deltas of `parts`.
  std::map<TableId, int64_t> RowCountsAfter(const CommitWrites& writes);
  uint64_t changes_queued_ = 0;
  // Graph changes applied by a barrier, done once a commit covers them (not
  // in ticket order: a recovery goes before changes queued earlier).
  std::vector<uint64_t> applied_tickets_;
  std::set<uint64_t> done_tickets_;
  std::set<uint64_t> cancelled_tickets_;  // refused by a recovery
  std::map<Epoch, uint64_t> dml_log_seqs_;  // the last DML log entry of each epoch
  bool recovering_ = false;
  uint64_t recoveries_ = 0;
  std::string recovery_requested_;  // RequestRecovery's cause, until the loop starts it
  std::deque<RecoveryRecord> recent_recoveries_;
  std::deque<CommitRecord> recent_commits_;
  RecoveryHandler recovery_handler_;
  std::thread recovery_thread_;
  int interval_ms_;
  bool stopping_ = false;
  std::map<TableId, std::shared_ptr<StateTable>> tables_;
  std::unique_ptr<StreamRuntime> runtime_;
  std::thread thread_;
};

class BarrierManager {
 public:
  BarrierManager(StateStore* store, int barrier_interval_ms) : store_(store), interval_ms_(barrier_interval_ms) {}
  ~BarrierManager();

  // The loop of a database, started on first use.
  DatabaseEpochLoop* ForDatabase(uint32_t database_id);
  // The loop if it exists, without starting one.
  DatabaseEpochLoop* FindDatabase(uint32_t database_id);
  // Gives every database's loop, present and future, its recovery handler.
  void set_recovery_handler(std::function<void(uint32_t database_id, const StreamRuntime::Failure&)> handler);
  void DropDatabase(uint32_t database_id);
  // The system's barrier settings (ALTER SYSTEM), for every database that
  // does not set its own.
  void set_barrier_interval_ms(int ms);
  int barrier_interval_ms() const { return interval_ms_; }
  StateStore* store() const { return store_; }
  void set_checkpoint_frequency(int n);
  int checkpoint_frequency() const { return checkpoint_frequency_; }
  // A database's own barrier settings (CREATE/ALTER DATABASE); 0: the
  // system's. Applies to its loop now, or when it starts.
  void SetDatabaseSettings(uint32_t database_id, int barrier_interval_ms, int checkpoint_frequency);
  void StopAll();

 private:
  struct DatabaseSettings {
    int barrier_interval_ms = 0;
    int checkpoint_frequency = 0;
  };
  // The settings in force for a database (mu_ held).
  int IntervalFor(uint32_t database_id) const;
  int FrequencyFor(uint32_t database_id) const;

  StateStore* store_;
  int interval_ms_;
  int checkpoint_frequency_ = 1;
  std::map<uint32_t, DatabaseSettings> database_settings_;
  std::mutex mu_;
  std::map<uint32_t, std::unique_ptr<DatabaseEpochLoop>> loops_;
  std::function<void(uint32_t, const StreamRuntime::Failure&)> recovery_handler_;
};

}  // namespace freshet
