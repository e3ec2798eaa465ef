#include "frontend/instance.h"

#include <spdlog/spdlog.h>

#include <random>

#include "binder/binder.h"
#include "catalog/timeseries_table.h"
#include "storage/table_engines.h"
#include "frontend/stream_job_planner.h"
#include "meta/table_watermark.h"
#include "meta/unique_index.h"
#include "stream/state_cache.h"

namespace freshet {

Result<std::unique_ptr<Instance>> Instance::Open(const ServerOptions& options) {
  std::unique_ptr<Instance> inst(new Instance());
  inst->options_ = options;
  StoreOptions so;
  so.dir = options.data_dir;
  so.in_memory = options.in_memory;
  so.block_cache_bytes = static_cast<size_t>(options.block_cache_mb) << 20;
  so.scan_cache_bytes = static_cast<size_t>(options.scan_cache_mb) << 20;
  so.disk_reserve_bytes = options.disk_reserve_mb < 0 ? -1 : options.disk_reserve_mb << 20;
  auto store = StateStore::Open(so);
  if (!store.ok()) return store.status();
  inst->store_ = std::move(store).value();
  try {
    inst->catalog_ = Catalog::Load(inst->store_.get());
  } catch (const SqlError& e) {
    return Status::Corruption(e.message());
  }
  // Time-series tables are stored by their engine, which recovers them
  // from its logs before anything reads or writes them.
  inst->timeseries_ = std::make_shared<TimeSeriesEngine>(
      inst->store_.get(), options.in_memory ? std::string() : options.data_dir + "/timeseries", options.timeseries);
  std::vector<ObjectId> timeseries_tables;
  try {
    for (const auto& db : inst->catalog_->ListDatabases())
      for (const auto& t : inst->catalog_->ListTables(db.id))
        if (t->IsTimeSeries()) {
          inst->timeseries_->AddTable(t->id, EngineOptionsOf(*t, *inst->catalog_));
          timeseries_tables.push_back(t->id);
        }
  } catch (const SqlError& e) {
    return Status::Corruption(e.message());
  }
  {
    const Catalog* catalog = inst->catalog_.get();
    inst->timeseries_->SetDescriptionSource([catalog](TableId id) -> std::optional<StateTableDesc> {
      TableRef t = catalog->GetTable(id);
      if (!t) return std::nullopt;
      return t->StorageDesc();
    });
    inst->timeseries_->SetProcedures(&inst->procedures_, [catalog](TableId id) { return catalog->QualifiedName(id); });
  }
  if (Status s = inst->store_->engines().Add(inst->timeseries_); !s.ok()) return s;
  for (ObjectId id : timeseries_tables) inst->store_->engines().Assign(id, inst->timeseries_.get());
  inst->timeseries_->StartFlusher();
  inst->barriers_ = std::make_unique<BarrierManager>(inst->store_.get(), options.barrier_interval_ms);
  inst->jobs_ = std::make_unique<StreamJobs>(inst->catalog_.get(), inst->barriers_.get());
  inst->store_->ScanMeta(kSystemParameterPrefix, [&](const std::string& key, const std::string& value) {
    inst->ApplySystemParameter(key.substr(std::string_view(kSystemParameterPrefix).size()), std::stoll(value));
  });
  StreamJobs* jobs = inst->jobs_.get();
  jobs->set_procedures(&inst->procedures_);
  const Catalog* catalog = inst->catalog_.get();
  jobs->set_legacy_planner(
      [catalog](const TableCatalog& job, EvalContext* eval) { return ReplanLegacyJob(catalog, job, eval); });
  // Partial unique indexes' predicates and expression elements, for the
  // writes that keep them.
  SetIndexExpressionBinder([](const TableCatalog& table, const std::string& text, bool condition) {
    EvalContext eval;
    BinderContext ctx;
    ctx.eval = &eval;
    ctx.database_id = table.database_id;
    Binder binder(ctx);
    return condition ? binder.BindStoredCondition(table, text, /*index_predicate=*/true)
                     : binder.BindStoredIndexExpression(table, text);
  });
  SetWatermarkExpressionBinder([](const TableCatalog& table) {
    EvalContext eval;
    BinderContext ctx;
    ctx.eval = &eval;
    ctx.database_id = table.database_id;
    return Binder(ctx).BindWatermarkExpression(table);
  });
  inst->barriers_->set_recovery_handler(
      [jobs](uint32_t database_id, const StreamRuntime::Failure& f) { jobs->Recover(database_id, f); });
  // Start every database's epoch loop, with its own barrier settings, so
  // their committed epochs are known.
  for (const auto& db : inst->catalog_->ListDatabases()) {
    inst->barriers_->SetDatabaseSettings(db.id, db.barrier_interval_ms, db.checkpoint_frequency);
    inst->barriers_->ForDatabase(db.id);
  }
  inst->job_progress_ =
      std::make_unique<JobProgressTracker>(inst->store_.get(), inst->catalog_.get(), inst->barriers_.get(), inst->jobs_.get());
  inst->sequences_ = std::make_unique<SequenceManager>(inst->catalog_.get());
  if (inst->store_->read_only()) {
    // Nothing can commit: the jobs would build state that is never stored,
    // and the DML log stays for the next start with room. Reads of tables
    // and views are served from the committed state.
    spdlog::warn("the disk of {} is full ({} bytes free, {} kept in reserve): opened read-only; stream jobs are "
                 "not started and writes are refused until the server restarts with free space",
                 options.data_dir, inst->store_->FreeDiskBytes(), inst->store_->disk_reserve_bytes());
    return inst;
  }
  inst->jobs_->ResumeStored();
  // Writes acknowledged under synchronous_commit whose epoch did not commit
  // before the server stopped: applied again, into the running jobs too,
  // and committed before any session starts.
  std::vector<uint32_t> database_ids;
  for (const auto& db : inst->catalog_->ListDatabases()) database_ids.push_back(db.id);
  inst->store_->RemoveDmlLogsExcept(database_ids);
  for (const auto& db : inst->catalog_->ListDatabases()) {
    size_t replayed = inst->DmlFor(db.id)->ReplayLog();
    if (replayed) {
      inst->barriers_->ForDatabase(db.id)->Flush();
      spdlog::info("database {}: replayed {} write sets from the DML log", db.name, replayed);
    }
  }
  return inst;
}

Instance::~Instance() { Shutdown(); }

TableRef Instance::CreateTimeSeriesTable(Catalog* catalog, TableCatalog t, std::vector<TableCatalog> owned_sequences) {
  const ObjectId id = catalog->NewObjectId();
  t.id = id;
  timeseries_->AddTable(id, EngineOptionsOf(t, *catalog));
  store_->engines().Assign(id, timeseries_.get());
  try {
    return catalog->CreateTable(std::move(t), std::move(owned_sequences), id);
  } catch (...) {
    store_->engines().Assign(id, &store_->engines().row_store());
    timeseries_->DropTable(id);
    throw;
  }
}

void Instance::Shutdown() {
  if (barriers_) barriers_->StopAll();
  if (timeseries_) timeseries_->StopFlusher();
}

void Instance::ApplySystemParameter(const std::string& name, int64_t value) {
  if (name == "barrier_interval_ms") barriers_->set_barrier_interval_ms(int(value));
  else if (name == "checkpoint_frequency") barriers_->set_checkpoint_frequency(int(value));
  else if (name == "max_concurrent_creating_streaming_jobs") jobs_->set_max_concurrent_creating(int(value));
  else if (name == "streaming_state_cache_bytes") SetStateCacheBytes(static_cast<size_t>(value));
}

void Instance::ResetSystemParameter(const std::string& name) {
  MetaWrite write;
  write.Delete(SystemParameterKey(name));
  store_->CommitMeta(write).ThrowIfError();
  if (name == "barrier_interval_ms") ApplySystemParameter(name, options_.barrier_interval_ms);
  else if (name == "checkpoint_frequency") ApplySystemParameter(name, 1);
  else if (name == "max_concurrent_creating_streaming_jobs") ApplySystemParameter(name, 0);
  else if (name == "streaming_state_cache_bytes") SetStateCacheBytes(DefaultStateCacheBytes());
}

void Instance::SetSystemParameter(const std::string& name, int64_t value) {
  MetaWrite write;
  write.Put(SystemParameterKey(name), std::to_string(value));
  store_->CommitMeta(write).ThrowIfError();
  ApplySystemParameter(name, value);
}

DmlManager* Instance::DmlFor(ObjectId database_id) {
  std::lock_guard lock(mu_);
  auto& m = dml_[database_id];
  if (!m) m = std::make_unique<DmlManager>(store_.get(), catalog_.get(), barriers_->ForDatabase(database_id));
  return m.get();
}

void Instance::DropDatabase(ObjectId database_id) {
  {
    std::lock_guard lock(mu_);
    dml_.erase(database_id);
  }
  barriers_->DropDatabase(database_id);
  store_->DropDmlLog(database_id);
}

std::pair<int32_t, int32_t> Instance::RegisterSession(std::atomic<bool>* cancel_flag, SessionActivity* activity) {
  static thread_local std::mt19937 rng(std::random_device{}());
  std::lock_guard lock(mu_);
  int32_t pid = next_pid_++;
  int32_t secret = static_cast<int32_t>(rng());
  sessions_[pid] = {secret, cancel_flag, activity};
  return {pid, secret};
}

std::vector<BackendActivity> Instance::ListActivity() {
  std::lock_guard lock(mu_);
  std::vector<BackendActivity> out;
  for (auto& [pid, entry] : sessions_) {
    std::lock_guard row_lock(entry.activity->mu);
    out.push_back(entry.activity->row);
    out.back().pid = pid;
  }
  return out;
}

std::optional<std::string> Instance::SignalSession(int32_t pid, bool terminate,
                                                   const std::function<bool(const std::string& user)>& allowed) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(pid);
  if (it == sessions_.end()) return std::nullopt;
  SessionActivity* activity = it->second.activity;
  std::lock_guard row_lock(activity->mu);
  std::string user = activity->row.user;
  if (!allowed(user)) return user;
  if (terminate) activity->terminate.store(true);
  it->second.cancel->store(true);
  // Under mu_: the session (and its connection) cannot go meanwhile.
  if (terminate && activity->wake) activity->wake();
  return user;
}

void Instance::UnregisterSession(int32_t pid) {
  std::lock_guard lock(mu_);
  sessions_.erase(pid);
}

void Instance::Cancel(int32_t pid, int32_t secret) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(pid);
  if (it != sessions_.end() && it->second.secret == secret) it->second.cancel->store(true);
}

void Instance::CancelAll() {
  std::lock_guard lock(mu_);
  for (auto& [pid, entry] : sessions_) entry.cancel->store(true);
}

}  // namespace freshet
