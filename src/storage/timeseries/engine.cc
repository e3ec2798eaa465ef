#include "storage/timeseries/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <set>

#include "common/encoding.h"
#include <spdlog/spdlog.h>
#include "storage/keys.h"
#include "storage/timeseries/little_endian.h"
#include "storage/timeseries/run_file.h"
#include "storage/timeseries/scan.h"
#include "storage/timeseries/series_key.h"

namespace freshet {

namespace {

constexpr size_t kRowIdKeyBytes = kBigintKeySize;
// How often the flusher applies TTLs.
constexpr std::chrono::seconds kExpiryInterval{60};

void PutBytes(std::string_view bytes, std::string* out) {
  PutLittleEndian(bytes.size(), 4, out);
  out->append(bytes);
}

// Reads a length-prefixed string at *pos; false when cut short.
bool GetBytes(std::string_view in, size_t* pos, std::string* out) {
  if (in.size() - *pos < 4) return false;
  uint64_t len = GetLittleEndian(in, *pos, 4);
  *pos += 4;
  if (in.size() - *pos < len) return false;
  out->assign(in.data() + *pos, len);
  *pos += len;
  return true;
}

}  // namespace

std::string TimeSeriesWalMarkerKey(uint32_t database_id) { return "tswal/" + std::to_string(database_id); }

namespace {

// The last log segment of a database removed after flushes.
std::string TrimmedKey(uint32_t database_id) { return "tswaltrim/" + std::to_string(database_id); }

}  // namespace

namespace {

// The files a sorted stream of rows (a memtable's, a merge's) becomes: one
// per region the rows fall in, each with the window of `window`.
class RegionFileBuilders {
 public:
  RegionFileBuilders(const RegionRules& rules, const StateTableDesc& desc, const RunFileInfo& window,
                     std::atomic<uint64_t>* next_file_id)
      : rules_(rules), desc_(desc), window_(window), next_file_id_(next_file_id) {}

  void Add(TimeSeriesRow row) {
    if (!current_ || row.series != last_series_) {
      const uint32_t region = rules_.RegionOf(row.series);
      auto& part = parts_[region];
      if (!part) {
        part = std::make_unique<Part>();
        part->info = window_;
        part->info.id = (*next_file_id_)++;
        part->info.region = region;
        part->builder = std::make_unique<RunFileBuilder>(desc_, &part->info);
      }
      current_ = part.get();
      last_series_ = row.series;
    }
    current_->builder->Add(std::move(row));
  }

  // Each region's file: its info (rows, time range, ...) and bytes.
  std::vector<std::pair<RunFileInfo, std::string>> Finish() {
    std::vector<std::pair<RunFileInfo, std::string>> out;
    for (auto& [region, part] : parts_) {
      std::string bytes = part->builder->Finish();
      out.emplace_back(part->info, std::move(bytes));
    }
    return out;
  }

 private:
  struct Part {
    RunFileInfo info;
    std::unique_ptr<RunFileBuilder> builder;
  };
  const RegionRules& rules_;
  const StateTableDesc& desc_;
  const RunFileInfo window_;
  std::atomic<uint64_t>* next_file_id_;
  std::map<uint32_t, std::unique_ptr<Part>> parts_;
  Part* current_ = nullptr;
  std::string last_series_;
};

}  // namespace

struct TimeSeriesEngine::Table {
  TableId id = 0;
  TimeSeriesTableOptions options;
  // The regions, fixed when the table is added (options.regions as given
  // then): flushes and compactions use them without the table's lock while
  // UpdateTable replaces the options.
  std::shared_ptr<const RegionRules> regions;
  size_t tail_bytes = 0;
  std::shared_ptr<std::atomic<uint64_t>> next_memtable_id = std::make_shared<std::atomic<uint64_t>>(1);
  mutable std::mutex mu;
  std::unique_ptr<TimePartitions> partitions;  // the mutable memtables
  std::vector<std::shared_ptr<TimeSeriesMemtable>> frozen;  // read only, newest first
  std::vector<std::shared_ptr<RunFile>> files;  // flushed
  uint64_t flushed_epoch = 0;  // the files hold every write of epochs up to it
  std::mutex flush_mu;  // one flush at a time
  std::mutex compact_mu;  // one compaction or expiry at a time

  // Every memtable, under mu.
  std::vector<std::shared_ptr<TimeSeriesMemtable>> Memtables() const {
    std::lock_guard lock(mu);
    std::vector<std::shared_ptr<TimeSeriesMemtable>> out;
    for (const auto& p : partitions->partitions()) out.push_back(p.memtable);
    out.insert(out.end(), frozen.begin(), frozen.end());
    return out;
  }
  // Every sorted run to read (memtables and files), taken together.
  std::vector<std::shared_ptr<const TimeSeriesRowSource>> Sources() const {
    std::lock_guard lock(mu);
    std::vector<std::shared_ptr<const TimeSeriesRowSource>> out;
    for (const auto& p : partitions->partitions()) out.push_back(p.memtable);
    out.insert(out.end(), frozen.begin(), frozen.end());
    out.insert(out.end(), files.begin(), files.end());
    return out;
  }
};

struct TimeSeriesEngine::Database {
  uint32_t id = 0;
  // Held from PrepareEpoch to FinishEpoch: one commit at a time.
  std::mutex commit_mu;
  std::unique_ptr<TimeSeriesWal> wal;  // null in memory
  std::atomic<uint64_t> committed{0};  // the latest committed epoch with writes here
  // The log's segments before the current one, with the last epoch each
  // holds: removed once every table's files hold those epochs.
  std::vector<std::pair<uint64_t, uint64_t>> sealed_segments;
  // The epoch being prepared.
  Epoch pending_epoch = 0;
  std::optional<WalPosition> pending_end;
  std::vector<std::shared_ptr<Table>> pending_tables;
  // Commits of this process: (RocksDB's sequence right after the commit's
  // write, epoch), oldest first; a snapshot at or past the sequence sees
  // the epoch. Trimmed to what live snapshots need (Horizon).
  mutable std::mutex history_mu;
  std::deque<std::pair<uint64_t, uint64_t>> commit_history;
};

TimeSeriesEngine::TimeSeriesEngine(StateStore* store, std::string dir, TimeSeriesConfig config)
    : store_(store), dir_(std::move(dir)), config_(std::move(config)) {}

TimeSeriesEngine::~TimeSeriesEngine() { StopFlusher(); }

void TimeSeriesEngine::StartFlusher() {
  if (dir_.empty() || flusher_.joinable()) return;
  flusher_stop_ = false;
  flusher_ = std::thread([this] { FlusherLoop(); });
}

void TimeSeriesEngine::StopFlusher() {
  {
    std::lock_guard lock(flusher_mu_);
    flusher_stop_ = true;
  }
  flusher_cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
}

void TimeSeriesEngine::WaitFlusherIdle() {
  std::unique_lock lock(flusher_mu_);
  flusher_wake_ = true;  // one more look, in case no commit woke it
  flusher_cv_.notify_all();
  flusher_idle_cv_.wait(lock, [&] { return flusher_stop_ || !flusher_.joinable() || (!flusher_busy_ && !flusher_wake_); });
}

size_t TimeSeriesEngine::MemtableBytes() const {
  std::vector<std::shared_ptr<Table>> tables;
  {
    std::shared_lock lock(mu_);
    for (const auto& [id, t] : tables_) tables.push_back(t);
  }
  size_t total = 0;
  for (const auto& t : tables)
    for (const auto& m : t->Memtables()) total += m->bytes();
  return total;
}

void TimeSeriesEngine::Compact(TableId id) {
  Result<size_t> merged = CompactTable(id, false, /*background=*/true);
  if (!merged.ok() && !merged.status().IsNotFound())
    spdlog::error("time-series table {}: background compaction failed: {}", id, merged.status().message());
}

std::optional<TableId> TimeSeriesEngine::NextTableToFlush() const {
  std::vector<std::pair<size_t, TableId>> sizes;
  size_t total = 0;
  {
    std::shared_lock lock(mu_);
    for (const auto& [id, t] : tables_) {
      size_t bytes = 0;
      for (const auto& m : t->Memtables()) bytes += m->bytes();
      sizes.emplace_back(bytes, id);
      total += bytes;
    }
  }
  if (sizes.empty()) return std::nullopt;
  const auto largest = *std::max_element(sizes.begin(), sizes.end());
  if (largest.first == 0) return std::nullopt;
  if (largest.first >= config_.table_write_buffer_bytes || total >= config_.write_buffer_bytes) return largest.second;
  return std::nullopt;
}

void TimeSeriesEngine::FlusherLoop() {
  std::unique_lock lock(flusher_mu_);
  auto last_expiry = std::chrono::steady_clock::now();
  for (;;) {
    flusher_cv_.wait_for(lock, kExpiryInterval, [&] { return flusher_stop_ || flusher_wake_; });
    if (flusher_stop_) break;
    flusher_wake_ = false;
    flusher_busy_ = true;
    lock.unlock();
    // TTL about once a minute, whether or not tables receive writes.
    if (std::chrono::steady_clock::now() - last_expiry >= kExpiryInterval) {
      last_expiry = std::chrono::steady_clock::now();
      ExpireAll(std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count());
      // Also compacts files whose versions no reader needs any more.
      std::vector<TableId> ids;
      {
        std::shared_lock tables(mu_);
        for (const auto& [id, t] : tables_) ids.push_back(id);
      }
      for (TableId id : ids) Compact(id);
    }
    // Flush until every size is within its limit (a failed flush is tried
    // again at the next wake-up).
    for (int round = 0; round < 64; round++) {
      std::optional<TableId> table = NextTableToFlush();
      if (!table) break;
      Result<size_t> flushed = FlushTable(*table, /*background=*/true);
      if (!flushed.ok()) {
        spdlog::error("time-series table {}: background flush failed: {}", *table, flushed.status().message());
        break;
      }
      Compact(*table);
    }
    lock.lock();
    flusher_busy_ = false;
    flusher_idle_cv_.notify_all();
  }
  flusher_busy_ = false;
  flusher_idle_cv_.notify_all();
}

void TimeSeriesEngine::AddTable(TableId id, TimeSeriesTableOptions options) {
  auto table = std::make_shared<Table>();
  table->id = id;
  table->tail_bytes = options.append_mode ? kRowIdKeyBytes : 0;
  if (!options.window_seconds) options.window_seconds = config_.default_window_seconds;
  table->partitions = std::make_unique<TimePartitions>(options.window_seconds, options.unit, /*append_mode=*/false,
                                                       table->next_memtable_id);
  table->regions = std::make_shared<const RegionRules>(options.regions);
  table->options = std::move(options);
  std::unique_lock lock(mu_);
  tables_[id] = std::move(table);
}

void TimeSeriesEngine::UpdateTable(TableId id, TimeSeriesTableOptions options) {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return;
  Database& db = DatabaseOf(table->options.database_id);
  if (!options.window_seconds) options.window_seconds = config_.default_window_seconds;
  std::lock_guard commit(db.commit_mu);  // no epoch half applied to the memtables
  std::lock_guard lock(table->mu);
  if (options.window_seconds != table->options.window_seconds) {
    std::vector<std::shared_ptr<TimeSeriesMemtable>> frozen = table->partitions->Freeze();
    table->frozen.insert(table->frozen.begin(), frozen.rbegin(), frozen.rend());
    table->partitions = std::make_unique<TimePartitions>(options.window_seconds, options.unit, /*append_mode=*/false,
                                                         table->next_memtable_id);
  }
  table->options = std::move(options);
}

void TimeSeriesEngine::DropTable(TableId id) {
  std::shared_ptr<Table> table;
  {
    std::unique_lock lock(mu_);
    auto it = tables_.find(id);
    if (it == tables_.end()) return;
    table = it->second;
    tables_.erase(it);
  }
  if (dir_.empty()) return;
  MetaWrite w;
  {
    std::lock_guard lock(table->mu);
    for (const auto& f : table->files) {
      w.Delete(fmt::format("tsfile/{}/{:020}", id, f->info().id));
      f->MarkObsolete();  // deleted once no scan reads it
    }
    w.Delete(fmt::format("tsflushed/{}", id));
  }
  // A failure leaves entries of a table that is gone: the next start drops them.
  if (Status s = store_->CommitMeta(w); !s.ok())
    spdlog::warn("time-series table {}: its files' entries stay until the next start: {}", id, s.message());
}

size_t TimeSeriesEngine::FileCount(TableId id) const {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return 0;
  std::lock_guard lock(table->mu);
  return table->files.size();
}

std::string TimeSeriesEngine::FileDirectory(TableId id) const { return fmt::format("{}/files/{}", dir_, id); }

Result<size_t> TimeSeriesEngine::AsProcedure(const char* type, TableId id, bool background,
                                             const std::function<Result<size_t>()>& action) {
  if (!procedures_) return action();
  const std::string pid = procedures_->Start(type, table_name_ ? table_name_(id) : std::to_string(id));
  Result<size_t> result = action();
  if (background && result.ok() && *result == 0) procedures_->Forget(pid);
  else procedures_->Finish(pid, {result.ok(), result.ok() ? std::string() : result.status().message()});
  return result;
}

Result<size_t> TimeSeriesEngine::FlushTable(TableId id, bool background, std::optional<uint32_t> region) {
  return AsProcedure(region ? "FlushRegion" : "FlushTable", id, background, [&] { return Flush(id, region); });
}

Result<size_t> TimeSeriesEngine::CompactTable(TableId id, bool all, bool background, std::optional<uint32_t> region) {
  return AsProcedure(region ? "CompactRegion" : "CompactTable", id, background, [&] { return Merge(id, all, region); });
}

Result<size_t> TimeSeriesEngine::Flush(TableId id, std::optional<uint32_t> region) {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return Status::NotFound(fmt::format("table {} is not a time-series table", id));
  std::lock_guard flush(table->flush_mu);
  Database& db = DatabaseOf(table->options.database_id);
  std::vector<std::shared_ptr<TimeSeriesMemtable>> to_flush;
  uint64_t through = 0;
  {
    // Between two commits: no epoch is half in the memtables.
    std::lock_guard commit(db.commit_mu);
    std::lock_guard lock(table->mu);
    if (!table->partitions->is_empty()) {
      std::vector<std::shared_ptr<TimeSeriesMemtable>> frozen = table->partitions->Freeze();
      table->partitions = table->partitions->Fork();
      table->frozen.insert(table->frozen.begin(), frozen.rbegin(), frozen.rend());
    }
    to_flush = table->frozen;
    through = db.committed;
    // The log's records so far are in older segments from now on, removed
    // once every table is flushed past them (TrimLog).
    if (db.wal && db.wal->position().offset > 0) {
      const uint64_t sealed = db.wal->position().segment;
      if (db.wal->Rotate().ok()) db.sealed_segments.emplace_back(sealed, through);
    }
  }
  // The rows flushed: a region's (flush_region; the table's memtables hold
  // every region's rows and are flushed together) or all.
  const RegionRules& rules = *table->regions;
  size_t rows = 0;
  if (!region) {
    for (const auto& m : to_flush) rows += m->num_rows();
  } else {
    std::string last;  // a series' rows are together: its region is looked up once
    bool in_region = false;
    for (const auto& m : to_flush)
      m->ForEachVersion([&](const TimeSeriesRow& row) {
        if (row.series != last) in_region = rules.RegionOf(row.series) == *region, last = row.series;
        rows += in_region;
      });
  }
  if (dir_.empty() || to_flush.empty()) return rows;
  const StateTableDesc desc = CurrentDescription(*table);
  std::error_code ec;
  std::filesystem::create_directories(FileDirectory(id), ec);
  if (ec) return Status::IoError("cannot create " + FileDirectory(id) + ": " + ec.message());
  MetaWrite w;
  std::vector<std::shared_ptr<RunFile>> made;
  for (const auto& m : to_flush) {
    if (m->empty()) continue;
    RunFileInfo window;
    SetWindow(*table, m->TimeRange().first, &window);
    std::vector<std::pair<RunFileInfo, std::string>> files;
    try {
      RegionFileBuilders builders(rules, desc, window, &next_file_id_);
      m->ForEachVersion([&](TimeSeriesRow& row) { builders.Add(std::move(row)); });
      files = builders.Finish();
    } catch (const SqlError& e) {
      return Status::Corruption(e.message());
    }
    for (auto& [info, bytes] : files) {
      const std::string path = fmt::format("{}/{:020}.ftf", FileDirectory(id), info.id);
      if (Status s = WriteRunFile(path, bytes); !s.ok()) return s;
      Result<std::shared_ptr<RunFile>> file = RunFile::Open(path, info);
      if (!file.ok()) return file.status();
      made.push_back(*file);
      w.Put(fmt::format("tsfile/{}/{:020}", id, info.id), info.ToJson());
    }
  }
  w.Put(fmt::format("tsflushed/{}", id), std::to_string(through));
  if (Status s = store_->CommitMeta(w); !s.ok()) {
    for (const auto& f : made) f->MarkObsolete();
    return s;
  }
  {
    std::lock_guard lock(table->mu);
    std::erase_if(table->frozen, [&](const std::shared_ptr<TimeSeriesMemtable>& m) {
      return std::find(to_flush.begin(), to_flush.end(), m) != to_flush.end();
    });
    table->files.insert(table->files.end(), made.begin(), made.end());
    table->flushed_epoch = through;
  }
  TrimLog(db);
  return rows;
}

Result<size_t> TimeSeriesEngine::ExpireTable(TableId id, int64_t now_micros) {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return Status::NotFound(fmt::format("table {} is not a time-series table", id));
  std::optional<int64_t> ttl;
  TimeUnit unit;
  {
    std::lock_guard lock(table->mu);
    ttl = table->options.ttl_seconds;
    unit = table->options.unit;
  }
  if (!ttl) return 0;
  std::lock_guard compacting(table->compact_mu);  // no compaction merges what expires
  // The expiry bound in the time index's unit: rows before it are expired.
  const __int128 per_second = UnitsPerSecond(unit);
  const __int128 bound = __int128(now_micros) * per_second / 1000000 - __int128(*ttl) * per_second;
  if (bound <= INT64_MIN) return 0;
  const int64_t cutoff = bound >= INT64_MAX ? INT64_MAX : static_cast<int64_t>(bound);
  bool in_memory = false;
  for (const auto& m : table->Memtables()) {
    auto [lo, hi] = m->TimeRange();
    in_memory = in_memory || (lo <= hi && lo < cutoff);
  }
  if (in_memory && !dir_.empty())
    if (Result<size_t> flushed = FlushTable(id, /*background=*/true); !flushed.ok()) return flushed.status();
  std::vector<std::shared_ptr<RunFile>> expired;
  {
    std::lock_guard lock(table->mu);
    for (const auto& f : table->files)
      if (f->info().max_ts < cutoff) expired.push_back(f);
  }
  if (expired.empty()) return 0;
  MetaWrite w;
  size_t rows = 0;
  for (const auto& f : expired) {
    w.Delete(fmt::format("tsfile/{}/{:020}", id, f->info().id));
    rows += f->info().rows;
  }
  if (Status s = store_->CommitMeta(w); !s.ok()) return s;
  std::lock_guard lock(table->mu);
  std::erase_if(table->files, [&](const std::shared_ptr<RunFile>& f) {
    return std::find(expired.begin(), expired.end(), f) != expired.end();
  });
  for (const auto& f : expired) f->MarkObsolete();  // gone once no scan reads it
  return rows;
}

StateTableDesc TimeSeriesEngine::CurrentDescription(Table& table) const {
  if (desc_source_)
    if (std::optional<StateTableDesc> desc = desc_source_(table.id)) return *desc;
  std::lock_guard lock(table.mu);  // UpdateTable replaces the options
  return table.options.desc;
}

void TimeSeriesEngine::SetWindow(Table& table, int64_t ts, RunFileInfo* info) const {
  std::optional<int64_t> window_seconds;
  TimeUnit unit;
  {
    std::lock_guard lock(table.mu);
    window_seconds = table.options.window_seconds;
    unit = table.options.unit;
  }
  info->unbounded = !window_seconds;
  info->window_start = info->window_end = 0;
  if (!window_seconds) return;
  try {
    const TimePartitionRange range = PartitionRangeOf(ts, unit, *window_seconds);
    info->unbounded = range.unbounded;
    info->window_start = range.start;
    info->window_end = range.end;
  } catch (const SqlError&) {
    info->unbounded = true;  // a window past 64 bits: none
  }
}

uint64_t TimeSeriesEngine::Horizon(Database& db) const {
  // The latest commit before the oldest snapshot: a snapshot taken after
  // that look sees at least this epoch.
  const uint64_t committed = db.committed;
  const std::optional<uint64_t> oldest = store_->OldestLiveSnapshotSequence();
  std::lock_guard lock(db.history_mu);
  auto& history = db.commit_history;
  if (!oldest) {
    // No snapshot: later ones are past every commit recorded.
    if (history.size() > 1) history.erase(history.begin(), history.end() - 1);
    return committed;
  }
  // The newest commit at or below the oldest snapshot; the older ones are
  // needed by no snapshot any more.
  while (history.size() >= 2 && history[1].first <= *oldest) history.pop_front();
  return !history.empty() && history.front().first <= *oldest ? history.front().second : 0;
}

Result<size_t> TimeSeriesEngine::Merge(TableId id, bool all, std::optional<uint32_t> region) {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return Status::NotFound(fmt::format("table {} is not a time-series table", id));
  if (dir_.empty()) return 0;
  std::lock_guard compacting(table->compact_mu);
  const uint64_t horizon = Horizon(DatabaseOf(table->options.database_id));
  std::vector<std::shared_ptr<RunFile>> files;
  {
    std::lock_guard lock(table->mu);
    files = table->files;
  }
  // compact_region: that region's files (and those written before
  // regions, which may hold its rows).
  std::erase_if(files, [&](const auto& f) {
    return f->info().rows == 0 || (region && f->info().region >= 0 && f->info().region != int64_t{*region});
  });
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a->info().min_ts < b->info().min_ts; });
  // Groups: files whose time ranges overlap (by their first time, a sweep),
  // and the files of a window that holds too many; both within a region
  // (two regions never share a key), a file written before regions with
  // the files of every region.
  std::vector<size_t> group(files.size());
  for (size_t i = 0; i < files.size(); i++) group[i] = i;
  std::function<size_t(size_t)> root = [&](size_t i) { return group[i] == i ? i : group[i] = root(group[i]); };
  // A table of one region sweeps all its files together, whatever regions
  // they name (files of rules no longer used).
  const bool one_region = table->regions->single();
  auto region_of = [&](const RunFileInfo& f) { return one_region ? int64_t{0} : f.region; };
  std::set<int64_t> regions;
  for (const auto& f : files) regions.insert(region_of(f->info()));
  for (int64_t r : regions) {
    if (r < 0 && regions.size() > 1) continue;  // swept with each region
    int64_t reach = INT64_MIN;
    std::optional<size_t> previous;
    for (size_t i = 0; i < files.size(); i++) {
      if (region_of(files[i]->info()) != r && region_of(files[i]->info()) >= 0) continue;
      if (previous && files[i]->info().min_ts <= reach) group[root(i)] = root(*previous);
      reach = previous ? std::max(reach, files[i]->info().max_ts) : files[i]->info().max_ts;
      previous = i;
    }
  }
  std::map<std::tuple<int64_t, bool, int64_t, int64_t>, std::vector<size_t>> windows;
  for (size_t i = 0; i < files.size(); i++) {
    RunFileInfo window = files[i]->info();
    if (!window.unbounded && window.window_start == window.window_end)  // a file of session 44
      SetWindow(*table, window.min_ts, &window);
    windows[{region_of(window), window.unbounded, window.window_start, window.window_end}].push_back(i);
  }
  for (const auto& [window, members] : windows)
    if (all || members.size() > kMaxFilesPerWindow)
      for (size_t i : members) group[root(i)] = root(members[0]);
  std::map<size_t, std::vector<std::shared_ptr<RunFile>>> groups;
  for (size_t i = 0; i < files.size(); i++) groups[root(i)].push_back(files[i]);
  size_t rows = 0;
  for (const auto& [g, inputs] : groups) {
    // A file alone is rewritten only to resolve its versions, when no
    // reader needs any but the newest of each key (it becomes plain).
    const bool resolvable =
        inputs.size() == 1 && !inputs[0]->info().plain && inputs[0]->info().max_epoch <= horizon;
    if (inputs.size() < 2 && !resolvable) continue;
    if (Status s = MergeFiles(*table, inputs, horizon); !s.ok()) return s;
    for (const auto& f : inputs) rows += f->info().rows;
  }
  return rows;
}

Status TimeSeriesEngine::MergeFiles(Table& table, const std::vector<std::shared_ptr<RunFile>>& inputs,
                                    uint64_t horizon) {
  const StateTableDesc desc = CurrentDescription(table);
  // The window of the inputs (of their first time: each file is within
  // one, unless the window changed since).
  RunFileInfo info;
  for (size_t i = 0; i < inputs.size(); i++) {
    RunFileInfo window;
    SetWindow(table, inputs[i]->info().min_ts, &window);
    info.unbounded = info.unbounded || window.unbounded;
    info.window_start = i == 0 ? window.window_start : std::min(info.window_start, window.window_start);
    info.window_end = i == 0 ? window.window_end : std::max(info.window_end, window.window_end);
  }
  // One output per region (inputs written before regions split by them).
  std::vector<std::pair<RunFileInfo, std::string>> outputs;
  try {
    // A k-way merge by (key, epoch): each key's versions together, oldest
    // first.
    struct Head {
      TimeSeriesRow row;
      size_t input;
    };
    auto later = [](const Head& a, const Head& b) {
      return std::tie(a.row.series, a.row.ts, a.row.tail, a.row.epoch, a.input) >
             std::tie(b.row.series, b.row.ts, b.row.tail, b.row.epoch, b.input);
    };
    std::vector<RunFile::VersionCursor> cursors;
    std::vector<Head> heap;
    for (size_t i = 0; i < inputs.size(); i++) {
      cursors.emplace_back(inputs[i]);
      Head h{{}, i};
      if (cursors[i].Next(&h.row)) heap.push_back(std::move(h));
    }
    std::make_heap(heap.begin(), heap.end(), later);
    RegionFileBuilders builder(*table.regions, desc, info, &next_file_id_);
    std::vector<TimeSeriesRow> versions;  // of one key, oldest first
    auto resolve = [&] {
      // Every version past the horizon, and the newest at or below it
      // unless it is a delete (nothing older is read then).
      size_t first = 0;
      for (size_t v = 0; v < versions.size(); v++)
        if (versions[v].epoch <= horizon) first = v;
      if (versions[first].epoch <= horizon && versions[first].deleted) first++;
      for (size_t v = first; v < versions.size(); v++)
        if (v + 1 == versions.size() || versions[v + 1].epoch != versions[v].epoch) builder.Add(versions[v]);
      versions.clear();
    };
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Head h = std::move(heap.back());
      heap.pop_back();
      if (!versions.empty() && (versions.back().series != h.row.series || versions.back().ts != h.row.ts ||
                                versions.back().tail != h.row.tail))
        resolve();
      const size_t input = h.input;
      versions.push_back(std::move(h.row));
      Head next{{}, input};
      if (cursors[input].Next(&next.row)) {
        heap.push_back(std::move(next));
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
    if (!versions.empty()) resolve();
    outputs = builder.Finish();
  } catch (const SqlError& e) {
    return Status::Corruption(fmt::format("time-series table {}: a compaction's input: {}", table.id, e.message()));
  }
  MetaWrite w;
  std::vector<std::shared_ptr<RunFile>> made;
  auto discard = [&] {
    for (const auto& f : made) f->MarkObsolete();
  };
  for (auto& [out, bytes] : outputs) {
    if (out.rows == 0) continue;
    const std::string path = fmt::format("{}/{:020}.ftf", FileDirectory(table.id), out.id);
    if (Status s = WriteRunFile(path, bytes); !s.ok()) return discard(), s;
    Result<std::shared_ptr<RunFile>> file = RunFile::Open(path, out);
    if (!file.ok()) return discard(), file.status();
    made.push_back(*file);
    w.Put(fmt::format("tsfile/{}/{:020}", table.id, out.id), out.ToJson());
  }
  for (const auto& f : inputs) w.Delete(fmt::format("tsfile/{}/{:020}", table.id, f->info().id));
  if (Status s = store_->CommitMeta(w); !s.ok()) return discard(), s;
  std::lock_guard lock(table.mu);
  std::erase_if(table.files, [&](const std::shared_ptr<RunFile>& f) {
    return std::find(inputs.begin(), inputs.end(), f) != inputs.end();
  });
  table.files.insert(table.files.end(), made.begin(), made.end());
  for (const auto& f : inputs) f->MarkObsolete();  // gone once no scan reads it
  return Status::OK();
}

size_t TimeSeriesEngine::ExpireAll(int64_t now_micros) {
  std::vector<TableId> ids;
  {
    std::shared_lock lock(mu_);
    for (const auto& [id, t] : tables_) ids.push_back(id);
  }
  size_t rows = 0;
  for (TableId id : ids) {
    Result<size_t> r = ExpireTable(id, now_micros);
    if (r.ok()) rows += *r;
    else spdlog::error("time-series table {}: TTL expiry failed: {}", id, r.status().message());
  }
  return rows;
}

void TimeSeriesEngine::TrimLog(Database& db) {
  // The epochs every table of the database holds in files: a table whose
  // memtables are empty has all its logged writes there.
  uint64_t flushed = UINT64_MAX;
  std::vector<std::shared_ptr<Table>> tables;
  {
    std::shared_lock lock(mu_);
    for (const auto& [id, table] : tables_)
      if (table->options.database_id == db.id) tables.push_back(table);
  }
  for (const auto& table : tables) {
    bool unflushed = false;
    for (const auto& m : table->Memtables()) unflushed = unflushed || !m->empty();
    std::lock_guard lock(table->mu);
    if (unflushed) flushed = std::min(flushed, table->flushed_epoch);
  }
  uint64_t removable = 0;
  {
    std::lock_guard commit(db.commit_mu);
    for (const auto& [segment, last] : db.sealed_segments)
      if (last <= flushed) removable = std::max(removable, segment);
  }
  if (removable == 0 || !db.wal) return;
  MetaWrite w;
  w.Put(TrimmedKey(db.id), std::to_string(removable));
  if (!store_->CommitMeta(w).ok()) return;  // tried again at the next flush
  std::lock_guard commit(db.commit_mu);
  db.wal->RemoveBefore(removable + 1);
  std::erase_if(db.sealed_segments, [&](const auto& seg) { return seg.first <= removable; });
}

bool TimeSeriesEngine::HasTable(TableId id) const {
  std::shared_lock lock(mu_);
  return tables_.count(id) > 0;
}

std::shared_ptr<TimeSeriesEngine::Table> TimeSeriesEngine::TableOf(TableId id) const {
  std::shared_lock lock(mu_);
  auto it = tables_.find(id);
  return it == tables_.end() ? nullptr : it->second;
}

TimeSeriesEngine::Database& TimeSeriesEngine::DatabaseOf(uint32_t database_id) {
  {
    std::shared_lock lock(mu_);
    if (auto it = databases_.find(database_id); it != databases_.end()) return *it->second;
  }
  std::unique_lock lock(mu_);
  auto& db = databases_[database_id];
  if (!db) {
    db = std::make_unique<Database>();
    db->id = database_id;
    db->committed = store_->CommittedEpoch(database_id).value_or(0);
  }
  return *db;
}

std::vector<TimeSeriesEngine::RegionStatistics> TimeSeriesEngine::RegionStatisticsOf(TableId id) const {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return {};
  const RegionRules& rules = *table->regions;
  std::vector<RegionStatistics> out(rules.count());
  for (uint32_t r = 0; r < out.size(); r++) out[r].region = r;
  // Memtables hold every region's rows: their bytes are shared out by rows.
  for (const auto& m : table->Memtables()) {
    std::vector<uint64_t> rows(out.size(), 0);
    if (rules.single()) {
      rows[0] = m->num_rows();
    } else {
      std::string last;
      uint32_t region = 0;
      m->ForEachVersion([&](const TimeSeriesRow& row) {
        if (row.series != last) region = rules.RegionOf(row.series), last = row.series;
        rows[region]++;
      });
    }
    uint64_t total = 0;
    for (uint64_t n : rows) total += n;
    for (size_t r = 0; r < out.size(); r++) {
      out[r].rows += rows[r];
      if (total > 0) out[r].memtable_bytes += static_cast<uint64_t>(static_cast<double>(m->bytes()) * rows[r] / total);
    }
  }
  std::lock_guard lock(table->mu);
  for (const auto& f : table->files) {
    // A file written before regions may hold rows of any: counted in region 0.
    RegionStatistics& s = out[f->info().region >= 0 && static_cast<size_t>(f->info().region) < out.size()
                                  ? static_cast<size_t>(f->info().region)
                                  : 0];
    s.rows += f->info().rows;
    s.file_bytes += f->info().bytes;
    s.files++;
  }
  return out;
}

size_t TimeSeriesEngine::MemtableRows(TableId id) const {
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return 0;
  size_t n = 0;
  for (const auto& m : table->Memtables()) n += m->num_rows();
  return n;
}

// ---- Epoch commits ----

Status TimeSeriesEngine::PrepareEpoch(const EngineEpochWrites& writes, EpochCommitBatch* batch) {
  Database& db = DatabaseOf(writes.database_id);
  db.commit_mu.lock();  // released by FinishEpoch, which follows every PrepareEpoch
  db.pending_epoch = writes.epoch;
  db.pending_end.reset();
  db.pending_tables.clear();
  if (!writes.writes.bulk.empty())
    return Status::InvalidArgument("a bulk load of a time-series table (its rows come as ordinary writes)");
  // The epoch's rows per table, and the log record holding them all.
  std::map<TableId, std::pair<std::shared_ptr<Table>, std::vector<TimeSeriesRow>>> rows;
  std::string record;
  PutLittleEndian(writes.epoch, 8, &record);
  for (const WriteLog* log : writes.writes.ops) {
    for (const WriteOp& op : *log) {
      TableId id = TableIdOfKey(op.key);
      auto& [table, table_rows] = rows[id];
      if (!table) table = TableOf(id);
      if (!table) return Status::InvalidArgument(fmt::format("table {} is not a time-series table", id));
      if (table->options.ttl_seconds == 0) continue;  // 'instant': nothing is kept
      SeriesKey k;
      if (!SplitSeriesKey(op.key, table->tail_bytes, &k))
        return Status::InvalidArgument(fmt::format("a key of table {} without a time index", id));
      TimeSeriesRow row;
      row.series = std::move(k.series);
      row.ts = k.ts;
      row.tail = std::move(k.tail);
      row.epoch = writes.epoch;
      row.deleted = op.is_delete;
      if (!op.is_delete) row.fields.assign(op.value);
      PutLittleEndian(id, 4, &record);
      record.push_back(row.deleted ? 1 : 0);
      PutLittleEndian(static_cast<uint64_t>(row.ts), 8, &record);
      PutBytes(row.series, &record);
      PutBytes(row.tail, &record);
      PutBytes(row.fields, &record);
      table_rows.push_back(std::move(row));
    }
  }
  if (!dir_.empty() && !db.wal) {
    // The database's first time-series writes (Recover opened the logs
    // that hold committed records).
    auto wal = TimeSeriesWal::Open(fmt::format("{}/wal/{}", dir_, writes.database_id), std::nullopt, 0,
                                   store_->commits_synced(), [](uint64_t, std::string_view) {}, nullptr);
    if (!wal.ok()) return wal.status();
    db.wal = std::move(*wal);
  }
  if (db.wal) {
    Result<WalPosition> end = db.wal->Append(record);
    if (!end.ok()) return end.status();
    db.pending_end = *end;
    batch->markers.emplace_back(TimeSeriesWalMarkerKey(writes.database_id), end->Encode());
  }
  for (auto& [id, entry] : rows) {
    if (entry.second.empty()) continue;
    db.pending_tables.push_back(entry.first);
    try {
      std::lock_guard lock(entry.first->mu);
      entry.first->partitions->Write(entry.second);
    } catch (const SqlError& e) {
      return Status::InvalidArgument(e.message());
    }
  }
  return Status::OK();
}

void TimeSeriesEngine::FinishEpoch(uint32_t database_id, Epoch epoch, bool committed) {
  Database& db = DatabaseOf(database_id);
  if (committed) {
    if (db.wal && db.pending_end) db.wal->Commit(*db.pending_end);
    db.committed = std::max<uint64_t>(db.committed, epoch);
    {
      std::lock_guard lock(db.history_mu);
      db.commit_history.emplace_back(store_->LatestWriteSequence(), epoch);
    }
    if (flusher_.joinable()) {
      // The flusher looks at the sizes after each commit with writes.
      std::lock_guard lock(flusher_mu_);
      flusher_wake_ = true;
      flusher_cv_.notify_one();
    }
  } else {
    for (const auto& table : db.pending_tables)
      for (const auto& m : table->Memtables()) m->DiscardFrom(epoch);
  }
  db.pending_tables.clear();
  db.pending_end.reset();
  db.commit_mu.unlock();
}

void TimeSeriesEngine::ApplyRecord(std::string_view payload, uint64_t committed_epoch) {
  if (payload.size() < 8) return;
  const uint64_t epoch = GetLittleEndian(payload, 0, 8);
  if (epoch > committed_epoch) return;  // cannot be: the marker is committed with its epoch
  std::map<TableId, std::vector<TimeSeriesRow>> rows;
  size_t pos = 8;
  while (pos < payload.size()) {
    if (payload.size() - pos < 13) return;
    TableId id = static_cast<TableId>(GetLittleEndian(payload, pos, 4));
    TimeSeriesRow row;
    row.deleted = payload[pos + 4] != 0;
    row.ts = static_cast<int64_t>(GetLittleEndian(payload, pos + 5, 8));
    pos += 13;
    row.epoch = epoch;
    if (!GetBytes(payload, &pos, &row.series) || !GetBytes(payload, &pos, &row.tail) ||
        !GetBytes(payload, &pos, &row.fields))
      return;
    rows[id].push_back(std::move(row));
  }
  for (auto& [id, table_rows] : rows) {
    std::shared_ptr<Table> table = TableOf(id);
    if (!table) continue;  // dropped
    if (epoch <= table->flushed_epoch) continue;  // in its files
    try {
      std::lock_guard lock(table->mu);
      table->partitions->Write(table_rows);
    } catch (const SqlError& e) {
      spdlog::error("time-series table {}: a logged write does not apply again: {}", id, e.message());
    }
  }
}

Status TimeSeriesEngine::LoadFiles(const MetaStore& meta) {
  MetaWrite forget;  // entries of tables that are gone
  std::map<TableId, std::set<uint64_t>> named;
  meta.ScanMeta("tsflushed/", [&](const std::string& key, const std::string& value) {
    TableId id = static_cast<TableId>(std::strtoul(key.c_str() + 10, nullptr, 10));
    if (std::shared_ptr<Table> table = TableOf(id)) table->flushed_epoch = std::strtoull(value.c_str(), nullptr, 10);
    else forget.Delete(key);
  });
  meta.ScanMeta("tsfile/", [&](const std::string& key, const std::string& value) {
    const TableId id = static_cast<TableId>(std::strtoul(key.c_str() + 7, nullptr, 10));
    std::shared_ptr<Table> table = TableOf(id);
    std::optional<RunFileInfo> info = RunFileInfo::FromJson(value);
    if (!table || !info) {
      forget.Delete(key);
      return;
    }
    next_file_id_ = std::max<uint64_t>(next_file_id_, info->id + 1);
    named[id].insert(info->id);
    Result<std::shared_ptr<RunFile>> file =
        RunFile::Open(fmt::format("{}/{:020}.ftf", FileDirectory(id), info->id), *info);
    if (!file.ok()) {
      // The server still starts: the table reads without the file, which
      // stays on disk for whoever repairs it.
      spdlog::error("time-series table {}: file {} is left out: {}", id, info->id, file.status().message());
      return;
    }
    table->files.push_back(*file);
  });
  if (!forget.ops().empty())
    if (Status s = store_->CommitMeta(forget); !s.ok()) return s;
  // Files no entry names: a flush that crashed before its meta write, or a
  // dropped table's.
  std::error_code ec;
  for (const auto& table_dir : std::filesystem::directory_iterator(dir_ + "/files", ec)) {
    const std::string name = table_dir.path().filename().string();
    const TableId id = static_cast<TableId>(std::strtoul(name.c_str(), nullptr, 10));
    if (!TableOf(id)) {
      std::filesystem::remove_all(table_dir.path(), ec);
      continue;
    }
    for (const auto& f : std::filesystem::directory_iterator(table_dir.path(), ec)) {
      const std::string file = f.path().filename().string();
      const uint64_t file_id = std::strtoull(file.c_str(), nullptr, 10);
      if (!named[id].count(file_id) || file.size() < 4 || file.substr(file.size() - 4) != ".ftf")
        std::filesystem::remove(f.path(), ec);
    }
  }
  return Status::OK();
}

Status TimeSeriesEngine::Recover(const MetaStore& meta) {
  if (dir_.empty()) return Status::OK();
  if (Status s = LoadFiles(meta); !s.ok()) return s;
  const std::string wal_dir = dir_ + "/wal";
  std::map<uint32_t, WalPosition> committed;
  meta.ScanMeta("tswal/", [&](const std::string& key, const std::string& value) {
    uint32_t db = 0;
    try {
      db = static_cast<uint32_t>(std::stoul(key.substr(6)));
    } catch (...) {
      return;
    }
    if (auto p = WalPosition::Decode(value)) committed[db] = *p;
  });
  // Logs of databases without a committed marker hold nothing committed.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(wal_dir, ec)) {
    std::string name = entry.path().filename().string();
    bool known = name.find_first_not_of("0123456789") == std::string::npos && !name.empty() && name.size() < 11 &&
                 committed.count(static_cast<uint32_t>(std::stoul(name)));
    if (!known) std::filesystem::remove_all(entry.path(), ec);
  }
  for (const auto& [database_id, position] : committed) {
    Database& db = DatabaseOf(database_id);
    const uint64_t committed_epoch = store_->CommittedEpoch(database_id).value_or(0);
    std::string trimmed_text;
    uint64_t trimmed = 0;
    if (meta.GetMeta(TrimmedKey(database_id), &trimmed_text).ok()) trimmed = std::strtoull(trimmed_text.c_str(), nullptr, 10);
    std::string damaged;
    std::map<uint64_t, uint64_t> last_epoch;  // per segment replayed
    auto wal = TimeSeriesWal::Open(
        fmt::format("{}/{}", wal_dir, database_id), position, trimmed, store_->commits_synced(),
        [&](uint64_t segment, std::string_view payload) {
          if (payload.size() >= 8) last_epoch[segment] = std::max(last_epoch[segment], GetLittleEndian(payload, 0, 8));
          ApplyRecord(payload, committed_epoch);
        },
        &damaged);
    if (!wal.ok()) return wal.status();
    if (!damaged.empty()) spdlog::error("time-series log of database {}: {}", database_id, damaged);
    db.wal = std::move(*wal);
    for (const auto& [segment, epoch] : last_epoch)
      if (segment < db.wal->position().segment) db.sealed_segments.emplace_back(segment, epoch);
  }
  return Status::OK();
}

// ---- Reads ----

std::unique_ptr<ChunkScan> TimeSeriesEngine::Scan(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec) const {
  std::shared_ptr<Table> table = TableOf(spec.table.table_id);
  if (!table) throw SqlError(sqlstate::kUndefinedTable, fmt::format("table {} is not stored", spec.table.table_id));
  const uint64_t visible = store_->CommittedEpoch(table->options.database_id, snapshot.get()).value_or(0);
  TimeSeriesScanTable layout;
  layout.tail_bytes = table->tail_bytes;
  {
    std::lock_guard lock(table->mu);
    layout.time_index = table->options.time_index;
  }
  std::vector<std::shared_ptr<const TimeSeriesRowSource>> runs = table->Sources();
  if (!table->regions->single() && !spec.predicates.empty()) {
    // Files of regions the predicates rule out are not read (memtables
    // hold every region's rows).
    const std::vector<bool> reachable = table->regions->Reachable(spec.predicates);
    std::erase_if(runs, [&](const std::shared_ptr<const TimeSeriesRowSource>& run) {
      auto* file = dynamic_cast<const RunFile*>(run.get());
      return file && file->info().region >= 0 && static_cast<size_t>(file->info().region) < reachable.size() &&
             !reachable[static_cast<size_t>(file->info().region)];
    });
  }
  return MakeTimeSeriesScan(std::move(runs), visible, std::move(spec), layout);
}

Status TimeSeriesEngine::GetCommitted(const std::string& key, std::string* value) const {
  std::vector<std::optional<std::string>> values;
  if (Status s = GetCommittedMany({key}, &values); !s.ok()) return s;
  if (!values[0]) return Status::NotFound("no row");
  *value = std::move(*values[0]);
  return Status::OK();
}

Status TimeSeriesEngine::GetCommittedMany(const std::vector<std::string_view>& keys,
                                          std::vector<std::optional<std::string>>* values) const {
  values->assign(keys.size(), std::nullopt);
  // Each table's runs and visible epoch, taken once: the runs before the
  // epoch (a compaction in between resolved versions at a horizon no newer
  // than the epoch read after it), their time ranges after it.
  struct TableRuns {
    std::shared_ptr<Table> table;
    std::vector<std::shared_ptr<const TimeSeriesRowSource>> runs;
    std::vector<std::pair<int64_t, int64_t>> times;                // each run's time range
    std::vector<std::unique_ptr<RunFile::PointReader>> readers;  // per run, for files
    uint64_t visible = 0;
  };
  std::map<TableId, TableRuns> tables;
  auto runs_of = [&](TableId id) -> TableRuns* {
    auto [it, fresh] = tables.try_emplace(id);
    TableRuns& t = it->second;
    if (fresh && (t.table = TableOf(id))) {
      t.runs = t.table->Sources();
      {
        std::shared_lock lock(mu_);
        auto db = databases_.find(t.table->options.database_id);
        t.visible = db != databases_.end() ? db->second->committed.load()
                                           : store_->CommittedEpoch(t.table->options.database_id).value_or(0);
      }
      // The time ranges after the epoch: a memtable's holds every row of
      // epochs up to it by then.
      for (const auto& run : t.runs) {
        t.times.push_back(run->TimeRange());
        auto file = std::dynamic_pointer_cast<const RunFile>(run);
        t.readers.push_back(file ? std::make_unique<RunFile::PointReader>(file) : nullptr);
      }
    }
    return t.table ? &t : nullptr;
  };
  // The keys some run may hold by its time range (time-ordered ingest
  // reads none), in key order, so that a file's point reads go through its
  // blocks once (RunFile::PointReader).
  std::vector<size_t> order;
  for (size_t i = 0; i < keys.size(); i++) {
    TableRuns* t = runs_of(TableIdOfKey(keys[i]));
    if (!t) continue;
    const size_t tail = t->table->tail_bytes;
    if (keys[i].size() < 4 + 2 + kSeriesTimeKeyBytes + tail) continue;
    const char* at = keys[i].data() + keys[i].size() - tail - kSeriesTimeKeyBytes;
    const int64_t ts = static_cast<int64_t>(GetFixed64BE(at + 1) ^ (uint64_t(1) << 63));
    if (std::any_of(t->times.begin(), t->times.end(), [&](const auto& range) { return ts >= range.first && ts <= range.second; }))
      order.push_back(i);
  }
  if (!std::is_sorted(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; }))
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  for (size_t i : order) {
    TableRuns& t = *runs_of(TableIdOfKey(keys[i]));
    SeriesKey k;
    if (!SplitSeriesKey(keys[i], t.table->tail_bytes, &k)) continue;
    std::optional<TimeSeriesRow> newest;
    const TimeSeriesKey wanted{k.series, k.ts, k.tail, 0};
    for (size_t r = 0; r < t.runs.size(); r++) {
      if (!t.runs[r]->MayHoldTime(k.ts)) continue;  // another window's file: not read
      std::optional<TimeSeriesRow> row =
          t.readers[r] ? t.readers[r]->Get(wanted, t.visible) : t.runs[r]->Get(wanted, t.visible);
      if (row && (!newest || row->epoch > newest->epoch)) newest = std::move(row);
    }
    if (newest && !newest->deleted) (*values)[i] = std::move(newest->fields);
  }
  return Status::OK();
}

TableStatistics TimeSeriesEngine::Statistics(TableId id, const Snapshot*) const {
  TableStatistics stats;
  std::shared_ptr<Table> table = TableOf(id);
  if (!table) return stats;
  for (const auto& m : table->Memtables()) {
    stats.rows += static_cast<int64_t>(m->num_rows());
    stats.bytes += m->bytes();
  }
  std::lock_guard lock(table->mu);
  for (const auto& f : table->files) {
    stats.rows += static_cast<int64_t>(f->info().rows);
    stats.bytes += f->info().bytes;
  }
  return stats;
}

std::shared_ptr<BulkRows> TimeSeriesEngine::NewBulkRows(TableId table, int, std::vector<int>) const {
  throw SqlError(sqlstate::kInternalError,
                 fmt::format("table {} is a time-series table: its rows are not bulk-loaded as row-store files", table));
}

}  // namespace freshet
