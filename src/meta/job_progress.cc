#include "meta/job_progress.h"

#include <algorithm>

#include "storage/table_engines.h"

namespace freshet {

namespace {

// A job's fraction while its own backfill is not finished: a row count can
// reach the estimate early (the estimate errs either way), and 100% is kept
// for done.
constexpr double kMaxUnfinishedFraction = 0.99;

}  // namespace

JobProgressTracker::JobProgressTracker(const StateStore* store, const Catalog* catalog, BarrierManager* barriers,
                                       const StreamJobs* jobs)
    : store_(store), catalog_(catalog), barriers_(barriers), jobs_(jobs) {
  sampler_ = std::thread([this] { SamplerLoop(); });
}

JobProgressTracker::~JobProgressTracker() {
  {
    std::lock_guard lock(sampler_mu_);
    stop_ = true;
  }
  sampler_cv_.notify_all();
  sampler_.join();
}

void JobProgressTracker::SamplerLoop() {
  std::unique_lock lock(sampler_mu_);
  while (!sampler_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_; })) {
    lock.unlock();
    try {
      for (const auto& db : catalog_->ListDatabases()) {
        bool creating = false;
        for (const auto& t : catalog_->ListTables(db.id)) creating |= IsStreamJob(*t) && t->status == JobStatus::kCreating;
        if (creating) Compute(db.id);
      }
    } catch (const std::exception&) {
      // A database or job dropped meanwhile: the next round sees the new state.
    }
    lock.lock();
  }
}

int64_t JobProgressTracker::ExpectedRows(ObjectId relation, const Snapshot& snapshot, ObjectId database_id,
                                         std::map<ObjectId, Backfilled>* memo) {
  int64_t now = RowCount(relation, snapshot);
  TableRef t = catalog_->GetTable(relation);
  if (!t || t->status != JobStatus::kCreating || !IsStreamJob(*t)) return now;
  // Still being created: it grows until it has read what it expects to.
  return std::max(now, ReadBackfill(*t, snapshot, database_id, memo).expected);
}

int64_t JobProgressTracker::RowCount(ObjectId relation, const Snapshot& snapshot) const {
  return store_->engines().For(relation).Statistics(relation, &snapshot).rows;
}

JobProgressTracker::Backfilled JobProgressTracker::ReadBackfill(const TableCatalog& job, const Snapshot& snapshot,
                                                                ObjectId database_id,
                                                                std::map<ObjectId, Backfilled>* memo) {
  auto it = memo->find(job.id);
  if (it != memo->end()) return it->second;
  (*memo)[job.id] = Backfilled{};  // a cycle cannot happen, but must not recurse forever either
  Backfilled out;
  int backfills = 0, finished_backfills = 0;
  std::vector<ObjectId> unattributed;
  for (ObjectId id : job.internal_tables) {
    TableRef table = catalog_->GetTable(id);
    if (!table || (table->internal_kind != "backfill" && table->internal_kind != "crossdb")) continue;
    // One row per vnode started: (vnode, position, finished, row_count),
    // a cross-database scan's with its upstream's epoch after the vnode.
    const int finished_column = table->ColumnIndex("finished"), rows_column = table->ColumnIndex("row_count");
    if (finished_column < 0 || rows_column < 0) continue;
    backfills++;
    auto shared = std::shared_ptr<const Snapshot>(&snapshot, [](const Snapshot*) {});
    ScanSpec spec;
    spec.table = table->StorageDesc();
    std::unique_ptr<ChunkScan> scan = store_->engines().For(table->id).Scan(shared, std::move(spec));
    DataChunk chunk;
    int finished = 0;
    while (scan->Next(&chunk)) {
      for (size_t r = 0; r < chunk.num_rows(); r++) {
        const auto& done = chunk.column(size_t(finished_column));
        const auto& count = chunk.column(size_t(rows_column));
        if (!done.IsNull(r) && done.GetBool(r)) finished++;
        if (!count.IsNull(r)) out.rows += count.GetInt(r);
      }
    }
    if (finished >= kVnodeCount) finished_backfills++;
    ObjectId upstream = table->backfill_upstream;
    if (upstream == 0 && job.depends_on.size() == 1) upstream = job.depends_on[0];  // jobs of older versions
    if (upstream != 0) out.expected += ExpectedRows(upstream, snapshot, database_id, memo);
  }
  if (backfills == 0) {
    // Nothing to backfill (a view on a source only): done once running.
    DatabaseEpochLoop* loop = barriers_->FindDatabase(database_id);
    out.done = loop && loop->runtime()->JobBackfillDone(job.id);
  } else {
    out.done = finished_backfills == backfills;
  }
  out.expected = std::max(out.expected, out.rows);
  (*memo)[job.id] = out;
  return out;
}

std::optional<double> JobProgressTracker::Rate(ObjectId job, int64_t rows) {
  constexpr auto kWindow = std::chrono::seconds(10);
  constexpr auto kMinSpan = std::chrono::milliseconds(500);
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  auto& samples = shown_[job].samples;
  if (!samples.empty() && samples.back().rows > rows) samples.clear();  // restarted from an older state
  samples.push_back({now, rows});
  while (samples.size() > 2 && now - samples[1].at > kWindow) samples.pop_front();
  const Sample& first = samples.front();
  auto span = now - first.at;
  if (span < kMinSpan) return std::nullopt;
  return double(rows - first.rows) / std::chrono::duration<double>(span).count();
}

std::vector<JobProgress> JobProgressTracker::Compute(ObjectId database_id) {
  std::shared_ptr<const Snapshot> snapshot = store_->GetSnapshot();
  std::map<ObjectId, Backfilled> memo;
  std::vector<TableRef> creating;
  for (const auto& t : catalog_->ListTables(database_id))
    if (IsStreamJob(*t) && t->status == JobStatus::kCreating) creating.push_back(t);
  // Upstream jobs first (ids follow creation order), so that a job's
  // fraction can be capped by its upstream's.
  std::sort(creating.begin(), creating.end(), [](const TableRef& a, const TableRef& b) { return a->id < b->id; });
  std::map<ObjectId, JobProgress> by_id;
  std::vector<JobProgress> out;
  for (const auto& t : creating) {
    Backfilled b = ReadBackfill(*t, *snapshot, database_id, &memo);
    JobProgress p;
    p.job_id = t->id;
    p.rows_backfilled = b.rows;
    p.estimated_rows = b.expected;
    p.backfill_done = b.done;
    p.queued = jobs_->IsQueued(t->id);
    p.fraction = b.done ? 1.0 : b.expected > 0 ? std::min(kMaxUnfinishedFraction, double(b.rows) / double(b.expected)) : 0;
    std::optional<int64_t> upstream_eta;
    for (ObjectId up : t->depends_on) {
      auto u = by_id.find(up);
      if (u == by_id.end()) continue;  // not creating
      TableRef upstream = catalog_->GetTable(up);
      p.waiting_for.push_back(upstream ? upstream->name : std::to_string(up));
      p.fraction = std::min(p.fraction, u->second.fraction);
      if (u->second.eta_micros) upstream_eta = std::max(upstream_eta.value_or(0), *u->second.eta_micros);
    }
    {
      std::lock_guard lock(mu_);
      double& shown = shown_[t->id].fraction;
      shown = std::max(shown, p.fraction);
      p.fraction = shown;
    }
    if (!b.done) p.rows_per_second = Rate(t->id, b.rows);
    if (p.rows_per_second && *p.rows_per_second > 0)
      p.eta_micros = static_cast<int64_t>(double(std::max<int64_t>(0, b.expected - b.rows)) / *p.rows_per_second * 1e6);
    else if (b.done)
      p.eta_micros = upstream_eta;
    if (p.eta_micros && upstream_eta) p.eta_micros = std::max(*p.eta_micros, *upstream_eta);
    if (p.backfill_done && p.waiting_for.empty()) p.eta_micros = 0;  // completes at the next commit
    by_id[t->id] = p;
    out.push_back(std::move(p));
  }
  // Forget the jobs that are no longer creating.
  std::lock_guard lock(mu_);
  for (auto it = shown_.begin(); it != shown_.end();) {
    TableRef t = catalog_->GetTable(it->first);
    it = t && t->status == JobStatus::kCreating ? std::next(it) : shown_.erase(it);
  }
  return out;
}

}  // namespace freshet
