// Instance: everything one Freshet process serves from one data directory:
// the state store, the catalog, the barrier manager (one epoch loop per
// database), the DML managers, and the registry of live sessions used by
// CancelRequest. Sessions hold a pointer to it; it outlives them.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "frontend/advisory_locks.h"
#include "frontend/exported_snapshots.h"
#include "frontend/notifications.h"
#include "frontend/statement_timer.h"
#include "catalog/catalog.h"
#include "catalog/system_tables.h"
#include "meta/barrier_manager.h"
#include "meta/dml_manager.h"
#include "meta/sequences.h"
#include "meta/stream_jobs.h"
#include "meta/job_progress.h"
#include "storage/state_store.h"
#include "storage/timeseries/engine.h"

namespace freshet {

struct ServerOptions {
  std::string data_dir = "./freshet-data";
  bool in_memory = false;
  std::string listen_address = "0.0.0.0";
  int port = 4566;
  int http_port = 5691;
  int barrier_interval_ms = 1000;
  // Sessions at once (PostgreSQL's max_connections), of which the last
  // superuser_reserved_connections are for superusers only; beyond them a
  // connection is refused with 53300 after its startup packet.
  int max_connections = 1000;
  int superuser_reserved_connections = 3;
  // A connection that has not completed its startup (and authentication)
  // within this time is closed (PostgreSQL's authentication_timeout).
  int authentication_timeout_ms = 60000;
  int64_t block_cache_mb = 2048;  // RocksDB's block cache
  int64_t scan_cache_mb = 2048;   // decoded columns of unchanged tables for batch scans; 0 = off
  // Free space kept on the data directory's disk: writes that would eat
  // into it are refused (53100); -1 = 1% of the disk, 4 to 256 MiB.
  int64_t disk_reserve_mb = -1;
  // [storage.timeseries]: the time-series engine's memtable sizes and
  // default time window (storage/timeseries/engine.h).
  TimeSeriesConfig timeseries;
};

// What a session shows of itself to others (pg_stat_activity) and how they
// end it (pg_terminate_backend): written by the session, read and
// signalled from other threads, under `mu`.
struct SessionActivity {
  std::mutex mu;
  BackendActivity row;
  // Set by the connection: ends its wait for the client's next message.
  std::function<void()> wake;
  std::atomic<bool> terminate{false};
};

class Instance {
 public:
  // Opens (or initializes) the data directory. Errors: Busy (another server
  // holds it), InvalidArgument (not a Freshet directory), Corruption.
  static Result<std::unique_ptr<Instance>> Open(const ServerOptions& options);
  ~Instance();

  const ServerOptions& options() const { return options_; }
  StateStore* store() const { return store_.get(); }
  Catalog* catalog() const { return catalog_.get(); }
  BarrierManager* barriers() const { return barriers_.get(); }
  StreamJobs* jobs() const { return jobs_.get(); }
  JobProgressTracker* job_progress() const { return job_progress_.get(); }
  SequenceManager* sequences() const { return sequences_.get(); }
  // Cancels statements past their statement_timeout.
  StatementTimer* statement_timer() { return &statement_timer_; }
  // pg_advisory_lock & co., shared by every session.
  AdvisoryLocks* advisory_locks() { return &advisory_locks_; }
  // The DDL locks of relations (handler/objects.h RelationDdlLock): the
  // same keyed locks, one per relation name, not listed in pg_locks.
  AdvisoryLocks* relation_ddl_locks() { return &relation_ddl_locks_; }
  // pg_export_snapshot / SET TRANSACTION SNAPSHOT.
  ExportedSnapshots* exported_snapshots() { return &exported_snapshots_; }
  // LISTEN / NOTIFY between sessions.
  NotificationHub* notifications() { return &notifications_; }
  DmlManager* DmlFor(ObjectId database_id);
  // Flushes, compactions and job creations by id (procedure_state).
  Procedures* procedures() { return &procedures_; }
  // The engine of time-series tables (storage/timeseries/engine.h).
  TimeSeriesEngine* timeseries() const { return timeseries_.get(); }
  // Creates time-series table `t` (catalog/timeseries_table.h) in `catalog`:
  // its engine stores it before the catalog names it, so no write can
  // reach the row store first.
  TableRef CreateTimeSeriesTable(Catalog* catalog, TableCatalog t, std::vector<TableCatalog> owned_sequences);
  // barrier_interval_ms, checkpoint_frequency: applied at once and kept in
  // the store (they override the configuration file after a restart).
  void SetSystemParameter(const std::string& name, int64_t value);
  // Forgets the stored value (ALTER SYSTEM SET name TO DEFAULT / RESET name)
  // and applies the default: the configuration file's or the built-in one.
  void ResetSystemParameter(const std::string& name);
  void DropDatabase(ObjectId database_id);

  // Session registry: each session gets a (process id, secret key) pair
  // and shows its activity (pg_stat_activity) through `activity`, which it
  // keeps until it unregisters.
  std::pair<int32_t, int32_t> RegisterSession(std::atomic<bool>* cancel_flag, SessionActivity* activity);
  void UnregisterSession(int32_t pid);
  void Cancel(int32_t pid, int32_t secret);
  std::vector<BackendActivity> ListActivity();
  // pg_cancel_backend / pg_terminate_backend: cancels the session's
  // running statement and, with `terminate`, ends the session (its
  // connection's wait for the client is woken). nullopt when there is no
  // such session; else its user, which the caller may check first
  // (`allowed`: false leaves it alone).
  std::optional<std::string> SignalSession(int32_t pid, bool terminate,
                                           const std::function<bool(const std::string& user)>& allowed);
  // Cancels the running statement of every session (at shutdown).
  void CancelAll();

  void Shutdown();

 private:
  Instance() = default;
  void ApplySystemParameter(const std::string& name, int64_t value);
  ServerOptions options_;
  Procedures procedures_;  // before the engines and jobs that record in it
  std::unique_ptr<StateStore> store_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<BarrierManager> barriers_;
  std::unique_ptr<StreamJobs> jobs_;
  std::unique_ptr<JobProgressTracker> job_progress_;
  std::unique_ptr<SequenceManager> sequences_;
  std::shared_ptr<TimeSeriesEngine> timeseries_;
  std::mutex mu_;
  std::map<ObjectId, std::unique_ptr<DmlManager>> dml_;
  struct SessionEntry {
    int32_t secret;
    std::atomic<bool>* cancel;
    SessionActivity* activity;
  };
  std::map<int32_t, SessionEntry> sessions_;
  int32_t next_pid_ = 1000;
  // Last, so destroyed first: its thread stops before anything it could
  // touch (the sessions' cancel flags) goes.
  StatementTimer statement_timer_;
  AdvisoryLocks advisory_locks_;
  AdvisoryLocks relation_ddl_locks_;
  ExportedSnapshots exported_snapshots_;
  NotificationHub notifications_;
};

}  // namespace freshet
