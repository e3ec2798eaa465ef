// Barrier manager: one epoch loop per database (DESIGN.md §3).
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
// DML writers hold an EpochGuard while they write (and push their changes
// into the table change streams); the guard pins the epoch so that all of a
// statement's (or a transaction's) writes land in the same epoch.
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "storage/keys.h"
#include "storage/state_store.h"
#include "storage/state_table.h"
#include "stream/runtime.h"

namespace freshet {

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
  Epoch Flush();
  // Applies a change of the stream graph at the next barrier (started now):
  // the new actors start and receive it, the mutation rides on it. Returns
  // once that barrier's epoch is committed.
  Epoch ApplyGraphChange(std::shared_ptr<Mutation> mutation, std::vector<std::unique_ptr<Actor>> new_actors);
  StreamRuntime* runtime() { return runtime_.get(); }
  Epoch committed_epoch() const;
  void set_barrier_interval_ms(int ms);
  // Every n-th barrier commits (n >= 1); the others only move the epoch.
  void set_checkpoint_frequency(int n);

  void Stop();

 private:
  void Run();
  // One barrier: seal, inject, collect and, for a checkpoint barrier (every
  // checkpoint_frequency-th, or forced by a flush or graph change), commit
  // everything collected since the last checkpoint.
  void RunBarrier(bool force_checkpoint);

  StateStore* store_;
  uint32_t database_id_;
  std::shared_mutex epoch_mu_;  // writers shared, the barrier exclusive
  Epoch current_epoch_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Epoch committed_epoch_ = 0;
  uint64_t flush_requests_ = 0;
  uint64_t flushes_done_ = 0;
  struct GraphChange {
    std::shared_ptr<Mutation> mutation;
    std::vector<std::unique_ptr<Actor>> actors;
    uint64_t ticket = 0;
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
  uint64_t changes_done_ = 0;
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
  void DropDatabase(uint32_t database_id);
  void set_barrier_interval_ms(int ms);
  int barrier_interval_ms() const { return interval_ms_; }
  void set_checkpoint_frequency(int n);
  int checkpoint_frequency() const { return checkpoint_frequency_; }
  void StopAll();

 private:
  StateStore* store_;
  int interval_ms_;
  int checkpoint_frequency_ = 1;
  std::mutex mu_;
  std::map<uint32_t, std::unique_ptr<DatabaseEpochLoop>> loops_;
};

}  // namespace freshet
