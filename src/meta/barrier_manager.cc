#include "meta/barrier_manager.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/table_engines.h"

namespace freshet {

GraphRecoveringError::GraphRecoveringError(uint32_t database_id)
    : SqlError(sqlstate::kInternalError,
               fmt::format("the stream graph of database {} is recovering from a failure; retry the statement",
                           database_id)) {}

namespace {

// A failed commit's error for a statement (53100 for a full disk), its
// message after `prefix`.
[[noreturn]] void ThrowCommitError(const Status& error, const std::string& prefix, const char* hint) {
  try {
    error.ThrowIfError();
  } catch (const SqlError& e) {
    throw SqlError(e.code(), prefix + e.message()).WithHint(hint);
  }
  throw SqlError(sqlstate::kInternalError, prefix + "no error");  // not reached: error is a failure
}

// Epochs are physical time in ms shifted left 16 bits, as in RisingWave, so
// they are meaningful to humans and increase across restarts.
Epoch NextEpoch(Epoch prev) {
  // Each epoch gets a millisecond of its own (ahead of the clock when
  // barriers come faster than one a millisecond): the millisecond alone
  // names an epoch, as a subscription's rw_timestamp does.
  Epoch now = static_cast<Epoch>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count())
              << 16;
  return std::max(((prev >> 16) + 1) << 16, now);
}
}  // namespace

DatabaseEpochLoop::DatabaseEpochLoop(StateStore* store, uint32_t database_id, int barrier_interval_ms)
    : store_(store), database_id_(database_id), interval_ms_(barrier_interval_ms),
      runtime_(std::make_unique<StreamRuntime>(store, database_id)) {
  committed_epoch_ = store_->CommittedEpoch(database_id).value_or(0);
  runtime_->OnCommitted(committed_epoch_);
  runtime_->set_request_barrier([this] {
    std::lock_guard lock(mu_);
    ++flush_requests_;
    cv_.notify_all();
  });
  current_epoch_ = NextEpoch(committed_epoch_);
  thread_ = std::thread([this] { Run(); });
}

DatabaseEpochLoop::~DatabaseEpochLoop() { Stop(); }

void DatabaseEpochLoop::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (recovery_thread_.joinable()) recovery_thread_.join();
  runtime_->Shutdown();
}

void DatabaseEpochLoop::set_recovery_handler(RecoveryHandler handler) {
  std::lock_guard lock(mu_);
  recovery_handler_ = std::move(handler);
}

bool DatabaseEpochLoop::recovering() const {
  std::lock_guard lock(mu_);
  return recovering_;
}

void DatabaseEpochLoop::NoteDmlLogEntry(Epoch epoch, uint64_t seq) {
  std::lock_guard lock(mu_);
  uint64_t& last = dml_log_seqs_[epoch];
  last = std::max(last, seq);
}

void DatabaseEpochLoop::WaitRecovered() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !recovering_ || stopping_; });
}

uint64_t DatabaseEpochLoop::recoveries() const {
  std::lock_guard lock(mu_);
  return recoveries_;
}

bool DatabaseEpochLoop::stopping() const {
  std::lock_guard lock(mu_);
  return stopping_;
}

void DatabaseEpochLoop::Register(std::shared_ptr<StateTable> table) {
  std::lock_guard lock(mu_);
  tables_[table->desc().table_id] = std::move(table);
}

void DatabaseEpochLoop::Unregister(TableId table_id) {
  std::unique_lock epoch_lock(epoch_mu_);
  std::lock_guard lock(mu_);
  tables_.erase(table_id);
}

void DatabaseEpochLoop::UnregisterAll() {
  std::unique_lock epoch_lock(epoch_mu_);
  std::lock_guard lock(mu_);
  tables_.clear();
}

std::shared_ptr<StateTable> DatabaseEpochLoop::Find(TableId table_id) const {
  std::lock_guard lock(mu_);
  auto it = tables_.find(table_id);
  return it == tables_.end() ? nullptr : it->second;
}

Epoch DatabaseEpochLoop::committed_epoch() const {
  std::lock_guard lock(mu_);
  return committed_epoch_;
}

bool DatabaseEpochLoop::WaitCommittedAfter(Epoch epoch, std::chrono::milliseconds timeout,
                                           const std::atomic<bool>* cancel) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  while (committed_epoch_ <= epoch && !stopping_) {
    if (cancel && cancel->load()) return false;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    cv_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(deadline - now, std::chrono::milliseconds(50)));
  }
  return committed_epoch_ > epoch;
}

void DatabaseEpochLoop::set_barrier_interval_ms(int ms) {
  std::lock_guard lock(mu_);
  interval_ms_ = ms;
  cv_.notify_all();
}

Epoch DatabaseEpochLoop::Flush() {
  std::unique_lock lock(mu_);
  uint64_t ticket = ++flush_requests_;
  cv_.notify_all();
  cv_.wait(lock, [&] { return flushes_done_ >= ticket || flushes_failed_ >= ticket || stopping_; });
  if (flushes_done_ < ticket && flushes_failed_ >= ticket)
    ThrowCommitError(commit_error_, "could not flush: ",
                     "Free disk space: the next commit (another FLUSH, or the next checkpoint) stores everything "
                     "written since the last one.");
  return committed_epoch_;
}

void DatabaseEpochLoop::CheckAcceptingWrites() const {
  std::lock_guard lock(mu_);
  if (commit_error_.ok()) return;
  ThrowCommitError(commit_error_,
                   fmt::format("database {} is not accepting writes: its last commit failed: ", database_id_),
                   "Free disk space: writes are accepted again once a commit succeeds (FLUSH tries one at once).");
}

uint64_t DatabaseEpochLoop::failed_commits() const {
  std::lock_guard lock(mu_);
  return failed_commits_;
}

void DatabaseEpochLoop::NoteCommit(Epoch epoch, const Status& s) {
  std::lock_guard lock(mu_);
  if (s.ok()) {
    recent_commits_.push_back(CommitRecord{epoch, NowMicros()});
    if (recent_commits_.size() > kCommitsKept) recent_commits_.pop_front();
    if (!commit_error_.ok())
      spdlog::warn("database {}: epoch {} committed; accepting writes again after {} failed commits", database_id_,
                   epoch, failed_commits_);
    commit_error_ = Status::OK();
    return;
  }
  // Logged when the database stops taking writes, not at every retry.
  if (commit_error_.ok())
    spdlog::error("database {}: commit of epoch {} failed, writes are refused until a commit succeeds: {}",
                  database_id_, epoch, s.ToString());
  else
    spdlog::debug("database {}: commit of epoch {} failed again: {}", database_id_, epoch, s.ToString());
  commit_error_ = s;
  failed_commits_++;
}

Epoch DatabaseEpochLoop::ApplyGraphChange(std::shared_ptr<Mutation> mutation,
                                          std::vector<std::unique_ptr<Actor>> new_actors, bool recovery) {
  std::unique_lock lock(mu_);
  if (stopping_) FRESHET_THROW(sqlstate::kAdminShutdown, "the server is shutting down");
  // A change built against the failed graph cannot be applied to the
  // rebuilt one (its actors attach to actors that are gone).
  if (recovering_ && !recovery) throw GraphRecoveringError(database_id_);
  // Changes ride on barriers in the order they were queued, one per barrier.
  uint64_t ticket = ++changes_queued_;
  graph_changes_.push_back(GraphChange{std::move(mutation), std::move(new_actors), ticket, recovery});
  cv_.notify_all();
  // The recovery's caller does not wait: the graph it applies may fail
  // again before the commit, and that recovery must not wait for this one.
  if (recovery) return committed_epoch_;
  cv_.wait(lock, [&] { return done_tickets_.count(ticket) || cancelled_tickets_.count(ticket) || stopping_; });
  done_tickets_.erase(ticket);
  if (cancelled_tickets_.erase(ticket)) throw GraphRecoveringError(database_id_);
  return committed_epoch_;
}

void DatabaseEpochLoop::Run() {
  std::unique_lock lock(mu_);
  auto recovery_queued = [&] {
    for (const auto& c : graph_changes_)
      if (c.recovery) return true;
    return false;
  };
  // Flushes not yet answered (by a commit, or by a commit's failure).
  auto flush_waiting = [&] { return flush_requests_ > std::max(flushes_done_, flushes_failed_); };
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [&] {
      return stopping_ || flush_waiting() || !graph_changes_.empty() || !recovery_requested_.empty();
    });
    if (stopping_) break;
    if (!recovery_requested_.empty() && recovering_) recovery_requested_.clear();  // one is under way
    if (!recovery_requested_.empty()) {
      StreamRuntime::Failure request;
      request.message = std::exchange(recovery_requested_, {});
      lock.unlock();
      StartRecovery(request);
      lock.lock();
      continue;
    }
    // While recovering, nothing runs but the recovery's barrier: a commit
    // now would store table writes that the views never saw.
    if (recovering_ && !recovery_queued()) {
      cv_.wait_for(lock, std::chrono::milliseconds(interval_ms_));
      continue;
    }
    uint64_t serving = flush_requests_;
    // A flush or a graph change needs its barrier committed.
    bool force = flush_waiting() || !graph_changes_.empty();
    lock.unlock();
    BarrierOutcome outcome = RunBarrier(force);
    lock.lock();
    // A flush is answered only by a barrier that committed, or with the
    // error of the commit that failed: not by the recovery's barrier, which
    // commits nothing (a flush waiting through a recovery returned before
    // the replayed writes were stored, and a view read after it missed
    // rows its table showed).
    if (outcome == BarrierOutcome::kCommitted && !recovering_) flushes_done_ = serving;
    if (outcome == BarrierOutcome::kCommitFailed) flushes_failed_ = serving;
    cv_.notify_all();
  }
  // Commit what is buffered so that a clean shutdown loses nothing (not
  // while recovering: the views would miss those writes).
  if (recovering_) return;
  lock.unlock();
  RunBarrier(/*force_checkpoint=*/true);
  lock.lock();
  flushes_done_ = flush_requests_;
  cv_.notify_all();
}

void DatabaseEpochLoop::set_checkpoint_frequency(int n) {
  std::lock_guard lock(mu_);
  checkpoint_frequency_ = std::max(1, n);
}

std::map<TableId, int64_t> DatabaseEpochLoop::RowCountsAfter(const CommitWrites& writes) {
  std::map<TableId, int64_t> deltas;
  for (const BulkRows* rows : writes.bulk) deltas[rows->table_id()] += static_cast<int64_t>(rows->size());
  for (const auto* part : writes.ops) {
    // An actor's or a table's writes come in runs of one table: sum a run,
    // then add it (no map lookup per row).
    TableId run_table = 0;
    int64_t run = 0;
    for (const WriteOp& op : *part) {
      if (!op.row_delta) continue;
      TableId id = TableIdOfKey(op.key);
      if (id != run_table) {
        if (run) deltas[run_table] += run;
        run_table = id;
        run = 0;
      }
      run += op.row_delta;
    }
    if (run) deltas[run_table] += run;
  }
  std::map<TableId, int64_t> counts;
  for (const auto& [id, delta] : deltas) {
    auto it = row_counts_.find(id);
    if (it == row_counts_.end()) {
      // Written as 0 when the relation was created; absent for relations
      // of older versions and dropped ones: those are not counted.
      std::optional<int64_t> stored = store_->RowCount(id);
      if (!stored) continue;
      it = row_counts_.emplace(id, *stored).first;
    }
    counts[id] = it->second + delta;
  }
  return counts;
}

DatabaseEpochLoop::BarrierOutcome DatabaseEpochLoop::RunBarrier(bool force_checkpoint) {
  Epoch epoch;
  bool checkpoint;
  bool recovery = false;
  std::vector<std::shared_ptr<StateTable>> tables;
  std::vector<StateTable::SealedWrites> sealed;
  {
    std::unique_lock epoch_lock(epoch_mu_);  // waits for in-flight writers
    GraphChange change;
    {
      std::lock_guard lock(mu_);
      for (auto& [id, t] : tables_) tables.push_back(t);
      // While recovering only the recovery's change goes; otherwise in order.
      for (auto it = graph_changes_.begin(); it != graph_changes_.end(); ++it) {
        if (recovering_ && !it->recovery) continue;
        change = std::move(*it);
        graph_changes_.erase(it);
        break;
      }
      recovery = change.recovery;
      if (change.ticket && !change.recovery) applied_tickets_.push_back(change.ticket);
      // The recovery barrier never commits (see ApplyGraphChange); the one
      // after it does.
      checkpoint = !recovery && (force_checkpoint || change.ticket || !applied_tickets_.empty() ||
                                 ++barriers_since_checkpoint_ >= checkpoint_frequency_);
      if (checkpoint) barriers_since_checkpoint_ = 0;
    }
    epoch = current_epoch_;
    current_epoch_ = NextEpoch(epoch);
    for (auto& t : tables) {
      StateTable::SealedWrites writes = t->Seal(epoch);
      if (!writes.empty()) sealed.push_back(std::move(writes));
    }
    Barrier barrier{epoch, current_epoch_, change.mutation, checkpoint};
    runtime_->InjectBarrier(barrier, std::move(change.actors));
    if (recovery) {
      // Still under the epoch lock: no DML interleaves with the replay.
      ReplayUncommittedChanges();
      std::lock_guard lock(mu_);
      recovering_ = false;
      if (!recent_recoveries_.empty()) recent_recoveries_.back().finished_at = NowMicros();
      ++flush_requests_;  // commit the recovery at once
      cv_.notify_all();
    }
  }
  std::vector<WriteLog> actor_writes = runtime_->WaitCollected(epoch);
  // Table writes are kept whatever happens (they are acknowledged DML).
  for (auto& w : sealed) pending_sealed_.push_back(std::move(w));
  if (auto failure = runtime_->failure()) {
    for (auto& w : actor_writes) RecycleWriteLog(std::move(w));
    StartRecovery(*failure);
    return BarrierOutcome::kActorFailed;
  }
  for (auto& w : actor_writes) pending_writes_.push_back(std::move(w));
  if (!checkpoint) return BarrierOutcome::kPassed;

  CommitWrites writes;
  for (auto& s : pending_sealed_) {
    writes.ops.push_back(s.ops.get());
    for (const auto& rows : s.bulk) writes.bulk.push_back(rows.get());
  }
  for (auto& w : pending_writes_) writes.ops.push_back(&w);
  StateStore::EpochCommit commit{database_id_, epoch, RowCountsAfter(writes), 0};
  // The DML log entries of the epochs this commit covers: covered from now
  // (entries are numbered in apply order, so the last epoch's is the highest).
  {
    std::lock_guard lock(mu_);
    auto after = dml_log_seqs_.upper_bound(epoch);
    if (after != dml_log_seqs_.begin()) commit.dml_log_covered = std::prev(after)->second;
  }
  Status s = store_->engines().CommitEpoch(writes, commit);
  NoteCommit(epoch, s);
  // Nothing of it is stored: the writes stay pending for the next commit,
  // which covers this epoch too (the graph changes and the DML log entries
  // it carries wait for it).
  if (!s.ok()) return BarrierOutcome::kCommitFailed;
  pending_sealed_.clear();
  for (auto& w : pending_writes_) RecycleWriteLog(std::move(w));
  pending_writes_.clear();
  for (const auto& [id, count] : commit.row_counts) row_counts_[id] = count;
  for (auto& t : tables) t->ReleaseSealed(epoch);
  {
    std::lock_guard lock(mu_);
    committed_epoch_ = epoch;
    dml_log_seqs_.erase(dml_log_seqs_.begin(), dml_log_seqs_.upper_bound(epoch));
  }
  // Only a synced commit makes the entries it covers unneeded.
  DmlLog* log = commit.dml_log_covered && store_->commits_synced() ? store_->DmlLogFor(database_id_) : nullptr;
  if (log) log->Retire(commit.dml_log_covered);
  runtime_->OnCommitted(epoch);
  {
    std::lock_guard lock(mu_);
    done_tickets_.insert(applied_tickets_.begin(), applied_tickets_.end());
    applied_tickets_.clear();
    cv_.notify_all();
  }
  return BarrierOutcome::kCommitted;
}

void DatabaseEpochLoop::RequestRecovery(const std::string& cause) {
  std::lock_guard lock(mu_);
  recovery_requested_ = cause.empty() ? "RECOVER" : cause;
  cv_.notify_all();
}

std::vector<DatabaseEpochLoop::CommitRecord> DatabaseEpochLoop::recent_commits() const {
  std::lock_guard lock(mu_);
  return {recent_commits_.begin(), recent_commits_.end()};
}

std::vector<DatabaseEpochLoop::RecoveryRecord> DatabaseEpochLoop::recent_recoveries() const {
  std::lock_guard lock(mu_);
  return {recent_recoveries_.begin(), recent_recoveries_.end()};
}

void DatabaseEpochLoop::StartRecovery(const StreamRuntime::Failure& failure) {
  if (failure.job_id)
    spdlog::error("database {}: stream job {} failed (actor {}): {}; recovering from epoch {}", database_id_,
                  failure.job_id, failure.actor, failure.message, committed_epoch());
  else
    spdlog::warn("database {}: {}; recovering from epoch {}", database_id_, failure.message, committed_epoch());
  // The actors' writes since the last commit are of a graph that no longer
  // exists; the rebuilt graph starts from the committed state.
  for (auto& w : pending_writes_) RecycleWriteLog(std::move(w));
  pending_writes_.clear();
  runtime_->ResetGraph();
  RecoveryHandler handler;
  std::vector<GraphChange> cancelled;
  {
    std::lock_guard lock(mu_);
    recovering_ = true;
    recoveries_++;
    std::string cause = failure.job_id ? fmt::format("stream job {} failed: {}", failure.job_id, failure.message)
                                       : failure.message;
    recent_recoveries_.push_back(RecoveryRecord{NowMicros(), 0, std::move(cause)});
    if (recent_recoveries_.size() > kRecoveriesKept) recent_recoveries_.pop_front();
    handler = recovery_handler_;
    // Changes queued against the failed graph are refused (see ApplyGraphChange).
    for (auto& c : graph_changes_) cancelled_tickets_.insert(c.ticket);
    cancelled.swap(graph_changes_);
    cv_.notify_all();
  }
  cancelled.clear();  // their actors never started
  if (recovery_thread_.joinable()) recovery_thread_.join();
  if (!handler) {
    // Nobody to rebuild the graph (unit tests): an empty graph is the
    // recovered state.
    std::lock_guard lock(mu_);
    graph_changes_.push_back(GraphChange{std::make_shared<Mutation>(), {}, ++changes_queued_, true});
    return;
  }
  recovery_thread_ = std::thread([this, handler, failure] {
    try {
      handler(failure);
    } catch (const std::exception& e) {
      spdlog::error("database {}: recovery failed: {}", database_id_, e.what());
    }
  });
}

void DatabaseEpochLoop::ReplayUncommittedChanges() {
  std::vector<std::shared_ptr<StateTable>> tables;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, t] : tables_) tables.push_back(t);
  }
  for (auto& t : tables) {
    TableId id = t->desc().table_id;
    if (!runtime_->HasSubscribers(id)) continue;
    const std::vector<DataType>& types = t->desc().column_types;
    std::vector<Op> ops;
    DataChunk rows(types);
    auto flush = [&] {
      runtime_->PushTableChanges(id, StreamChunk(std::move(ops), std::move(rows)));
      ops.clear();
      rows = DataChunk(types);
    };
    auto append = [&](Op op, const std::string& row) {
      if (!DecodeStoredRowInto(row, &rows, t->desc().missing_cells))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table change");
      ops.push_back(op);
    };
    t->ForEachUncommittedChange([&](const std::string* committed, const std::string* latest) {
      if (rows.num_rows() + 2 > kChunkSize) flush();
      if (committed && latest) {
        append(Op::kUpdateDelete, *committed);
        append(Op::kUpdateInsert, *latest);
      } else if (committed) {
        append(Op::kDelete, *committed);
      } else {
        append(Op::kInsert, *latest);
      }
    });
    if (!ops.empty()) flush();
  }
}

BarrierManager::~BarrierManager() { StopAll(); }

DatabaseEpochLoop* BarrierManager::ForDatabase(uint32_t database_id) {
  std::lock_guard lock(mu_);
  auto& loop = loops_[database_id];
  if (!loop) {
    loop = std::make_unique<DatabaseEpochLoop>(store_, database_id, IntervalFor(database_id));
    loop->set_checkpoint_frequency(FrequencyFor(database_id));
    if (recovery_handler_) {
      auto handler = recovery_handler_;
      loop->set_recovery_handler([handler, database_id](const StreamRuntime::Failure& f) { handler(database_id, f); });
    }
  }
  return loop.get();
}

DatabaseEpochLoop* BarrierManager::FindDatabase(uint32_t database_id) {
  std::lock_guard lock(mu_);
  auto it = loops_.find(database_id);
  return it == loops_.end() ? nullptr : it->second.get();
}

void BarrierManager::set_recovery_handler(
    std::function<void(uint32_t database_id, const StreamRuntime::Failure&)> handler) {
  std::lock_guard lock(mu_);
  recovery_handler_ = handler;
  for (auto& [id, loop] : loops_) {
    uint32_t database_id = id;
    loop->set_recovery_handler([handler, database_id](const StreamRuntime::Failure& f) { handler(database_id, f); });
  }
}

void BarrierManager::DropDatabase(uint32_t database_id) {
  std::unique_ptr<DatabaseEpochLoop> loop;
  {
    std::lock_guard lock(mu_);
    database_settings_.erase(database_id);
    auto it = loops_.find(database_id);
    if (it == loops_.end()) return;
    loop = std::move(it->second);
    loops_.erase(it);
  }
  loop->UnregisterAll();
  loop->Stop();
}

void BarrierManager::set_barrier_interval_ms(int ms) {
  std::lock_guard lock(mu_);
  interval_ms_ = ms;
  for (auto& [id, l] : loops_) l->set_barrier_interval_ms(IntervalFor(id));
}

void BarrierManager::set_checkpoint_frequency(int n) {
  std::lock_guard lock(mu_);
  checkpoint_frequency_ = std::max(1, n);
  for (auto& [id, l] : loops_) l->set_checkpoint_frequency(FrequencyFor(id));
}

void BarrierManager::SetDatabaseSettings(uint32_t database_id, int barrier_interval_ms, int checkpoint_frequency) {
  std::lock_guard lock(mu_);
  if (barrier_interval_ms || checkpoint_frequency)
    database_settings_[database_id] = DatabaseSettings{barrier_interval_ms, checkpoint_frequency};
  else
    database_settings_.erase(database_id);
  auto it = loops_.find(database_id);
  if (it == loops_.end()) return;
  it->second->set_barrier_interval_ms(IntervalFor(database_id));
  it->second->set_checkpoint_frequency(FrequencyFor(database_id));
}

int BarrierManager::IntervalFor(uint32_t database_id) const {
  auto it = database_settings_.find(database_id);
  return it != database_settings_.end() && it->second.barrier_interval_ms ? it->second.barrier_interval_ms
                                                                          : interval_ms_;
}

int BarrierManager::FrequencyFor(uint32_t database_id) const {
  auto it = database_settings_.find(database_id);
  return it != database_settings_.end() && it->second.checkpoint_frequency ? it->second.checkpoint_frequency
                                                                           : checkpoint_frequency_;
}

void BarrierManager::StopAll() {
  std::lock_guard lock(mu_);
  for (auto& [id, l] : loops_) l->Stop();
}

}  // namespace freshet
