#include "storage/state_store.h"
#include "storage/table_engines.h"

#include "storage/info_log.h"
#include "storage/keys.h"

#include <optional>

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <numeric>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <thread>

namespace freshet {

namespace {

// The marker file that identifies a Freshet data directory and its format.
constexpr const char* kMarkerFile = "FRESHET";
constexpr const char* kMarkerContent = "freshet data directory, format 1\n";

Status ToStatus(const rocksdb::Status& s, const std::string& context) {
  if (s.ok()) return Status::OK();
  std::string msg = context + ": " + s.ToString();
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsNoSpace() || s.subcode() == rocksdb::Status::kSpaceLimit) return Status::NoSpace(msg);
  if (s.IsIOError()) {
    // RocksDB reports a held LOCK file as an IO error.
    if (s.ToString().find("lock") != std::string::npos || s.ToString().find("LOCK") != std::string::npos)
      return Status::Busy(msg);
    return Status::IoError(msg);
  }
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsBusy()) return Status::Busy(msg);
  return Status::IoError(msg);
}

Status CheckOrCreateDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path marker = fs::path(dir) / kMarkerFile;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return Status::InvalidArgument(dir + " exists and is not a directory");
    if (fs::exists(marker, ec)) {
      std::ifstream in(marker);
      std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (content != kMarkerContent)
        return Status::InvalidArgument(dir + " has an unknown Freshet data format (" + marker.string() + ")");
      return Status::OK();
    }
    if (!fs::is_empty(dir, ec))
      return Status::InvalidArgument(dir + " is not empty and is not a Freshet data directory (no " +
                                     std::string(kMarkerFile) + " file); refusing to use it");
  } else {
    fs::create_directories(dir, ec);
    if (ec) return Status::IoError("cannot create " + dir + ": " + ec.message());
  }
  std::ofstream out(marker);
  out << kMarkerContent;
  out.close();
  if (!out) return Status::IoError("cannot write " + marker.string());
  return Status::OK();
}

}  // namespace

std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    unsigned char c = static_cast<unsigned char>(prefix.back());
    if (c != 0xff) {
      prefix.back() = static_cast<char>(c + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

namespace {
// The process's limit on open files, raised to the hard limit first (the
// soft limit is often 1,024, the hard one far more).
uint64_t OpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = std::min<rlim_t>(limit.rlim_max, 1 << 20);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? (1 << 20) : static_cast<uint64_t>(limit.rlim_cur);
}
}  // namespace

Result<std::unique_ptr<StateStore>> StateStore::Open(const StoreOptions& options) {
  std::unique_ptr<StateStore> store(new StateStore());
  std::string path = options.dir;
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.paranoid_checks = true;
  db_options.max_background_jobs = 2;
  // A torn last record after kill -9 is expected and dropped; corruption
  // anywhere else in the log must stop the open, never lose rows silently.
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // RocksDB keeps every table file open unless told otherwise; a large
  // COPY alone makes 256 of them (bulk_rows.h). Files past this many are
  // closed and reopened as needed, so the process never runs out of
  // descriptors (the rest are for connections and loads in flight).
  db_options.max_open_files = static_cast<int>(std::max<uint64_t>(256, OpenFileLimit() / 2));
  if (options.in_memory) {
    store->mem_env_.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    db_options.env = store->mem_env_.get();
    path = "/freshet-playground";
  } else {
    Status s = CheckOrCreateDirectory(path);
    if (!s.ok()) return s;
    path += "/rocksdb";
    store->synced_files_ = std::make_unique<SyncedFiles>();
    db_options.env = store->synced_files_->env();
    // RocksDB's own LOG writer aborts after a failed write (info_log.h).
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    db_options.info_log = std::make_shared<InfoLog>(path + "/LOG", size_t(64) << 20);
  }

  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.compression = rocksdb::kLZ4Compression;
  cf_options.bottommost_compression = rocksdb::kZSTD;
  cf_options.write_buffer_size = 64 << 20;
  // A whole-key Bloom filter over each memtable (2% of its size, ~17 bits
  // per key of a full 64 MiB memtable of short rows): a point lookup of a
  // key the memtable does not hold skips the skip-list search, which over
  // a memtable of a few hundred thousand rows was half of a point SELECT's
  // time in user space (pgbench -S after a TPC-B run).
  cf_options.memtable_prefix_bloom_size_ratio = 0.02;
  cf_options.memtable_whole_key_filtering = true;
  rocksdb::BlockBasedTableOptions table_options;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Scans dominate batch queries: larger blocks and a cache that holds the
  // working set (RocksDB's default cache is 8 MiB).
  table_options.block_size = 32 << 10;
  table_options.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  // Whole-key lookups (a point SELECT, a unique check, an UPDATE's read):
  // a hash index in each data block finds the key without the binary
  // search over restart points. A key whose bucket another key shares
  // falls back to that search: with 32 KiB blocks of a few hundred rows,
  // 4 buckets per key (a byte each, ~1% of the block) leave ~20% of keys
  // colliding where RocksDB's default 0.75 left over half. (RocksDB's row
  // cache would skip the files entirely, but it ignores range deletions,
  // which DROP and TRUNCATE use: facebook/rocksdb#4122.)
  table_options.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  table_options.data_block_hash_table_util_ratio = 0.25;
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));

  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, cf_options},
      {"meta", cf_options},
      {"change_log", cf_options},
  };
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  if (!options.in_memory) {
    store->dir_ = options.dir;
    store->disk_reserve_ = DiskReserve(options);
    // Opening read-write writes (a new manifest and log, a flush of the
    // recovered log): on a disk short of the reserve the store opens
    // read-only instead, holding RocksDB's LOCK itself (RocksDB's read-only
    // mode takes no lock), so that a second server is still refused.
    std::error_code ec;
    if (std::filesystem::exists(path + "/CURRENT", ec) && store->FreeDiskBytes() < store->disk_reserve_)
      store->read_only_ = true;
  }
  auto open_read_only = [&]() -> rocksdb::Status {
    store->read_only_ = true;
    rocksdb::Status ls = db_options.env->LockFile(path + "/LOCK", &store->read_only_lock_);
    if (!ls.ok()) return rocksdb::Status::Busy("lock");
    // A data directory of a version without the change-log family (made
    // when the store opens read-write) opens without it.
    std::vector<std::string> existing;
    if (rocksdb::DB::ListColumnFamilies(db_options, path, &existing).ok() &&
        std::find(existing.begin(), existing.end(), "change_log") == existing.end())
      cfs.pop_back();
    return rocksdb::DB::OpenForReadOnly(db_options, path, cfs, &handles, &db);
  };
  rocksdb::Status rs;
  if (store->read_only_) {
    rs = open_read_only();
  } else {
    rs = rocksdb::DB::Open(db_options, path, cfs, &handles, &db);
    // The disk filled up while opening (or there is no reserve).
    if (rs.IsNoSpace() && std::filesystem::exists(path + "/CURRENT")) rs = open_read_only();
  }
  if (!rs.ok()) {
    Status s = ToStatus(rs, "cannot open data directory " + options.dir);
    if (s.IsBusy())
      return Status::Busy("data directory " + options.dir +
                          " is in use by another Freshet server (its lock is held)");
    return s;
  }
  store->db_.reset(db);
  store->data_cf_ = handles[0];
  store->meta_cf_ = handles[1];
  // (Opened read-only without it: the meta family stands in, which holds
  // no change-log keys, so every log reads empty and nothing is written.)
  store->change_log_cf_ = handles.size() > 2 ? handles[2] : handles[1];
  if (!options.in_memory) {
    // Files of an ingestion interrupted by a crash were never ingested.
    store->ingest_dir_ = options.dir + "/ingest";
    std::error_code ec;
    std::filesystem::remove_all(store->ingest_dir_, ec);
    std::filesystem::create_directories(store->ingest_dir_, ec);
    if (ec && !store->read_only_) return Status::IoError("cannot create " + store->ingest_dir_ + ": " + ec.message());
  }
  store->write_options_.sync = options.sync_commits && !options.in_memory;
  store->scan_cache_ = std::make_unique<ScanCache>(&store->versions_, options.scan_cache_bytes);
  store->engines_ = std::make_unique<TableEngines>(store.get());
  return store;
}

StateStore::~StateStore() {
  shared_snapshot_.store(nullptr);  // its release needs the DB
  if (db_) {
    // A clean shutdown leaves nothing to replay from the log.
    rocksdb::FlushOptions fo;
    fo.wait = true;
    if (!read_only_) db_->Flush(fo, {data_cf_, meta_cf_, change_log_cf_});
    if (data_cf_) db_->DestroyColumnFamilyHandle(data_cf_);
    if (meta_cf_) db_->DestroyColumnFamilyHandle(meta_cf_);
    if (change_log_cf_ && change_log_cf_ != meta_cf_) db_->DestroyColumnFamilyHandle(change_log_cf_);
    db_->Close();
    db_.reset();
  }
  if (read_only_lock_) rocksdb::Env::Default()->UnlockFile(read_only_lock_);
}

uint64_t StateStore::FreeDiskBytes() const {
  struct statvfs st {};
  if (dir_.empty() || statvfs(dir_.c_str(), &st) != 0) return UINT64_MAX;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

uint64_t StateStore::DiskReserve(const StoreOptions& options) {
  if (options.disk_reserve_bytes >= 0) return static_cast<uint64_t>(options.disk_reserve_bytes);
  struct statvfs st {};
  if (statvfs(options.dir.c_str(), &st) != 0) return 4 << 20;
  uint64_t size = static_cast<uint64_t>(st.f_blocks) * st.f_frsize;
  return std::clamp<uint64_t>(size / 100, 4 << 20, 256 << 20);
}

Status StateStore::CheckWritable(uint64_t bytes) {
  if (read_only_)
    return Status::NoSpace("the data directory " + dir_ +
                           " was opened read-only because its disk was full at start; free space and restart the server");
  const uint64_t reserve = disk_reserve_.load();
  uint64_t free = dir_.empty() || reserve == 0 ? UINT64_MAX : FreeDiskBytes();
  if (free < reserve || free - reserve < bytes)
    return Status::NoSpace(fmt::format("could not write {} bytes to {}: {} bytes free, {} kept in reserve", bytes, dir_,
                                       free, reserve));
  if (needs_resume_.load()) {
    std::lock_guard lock(resume_mu_);
    if (needs_resume_.load()) {
      // Flushes the memtables and starts a new log: RocksDB cannot trust
      // the log a write failed on.
      rocksdb::Status rs = db_->Resume();
      if (!rs.ok()) return ToStatus(rs, "resuming writes after a failed write");
      needs_resume_ = false;
    }
  }
  return Status::OK();
}

void StateStore::NoteWriteFailure(const rocksdb::Status& s) {
  if (s.IsIOError() || s.IsNoSpace()) needs_resume_ = true;
}

uint64_t StateStore::SnapshotSequence() const { return versions_.Now(); }

std::shared_ptr<const Snapshot> StateStore::GetSnapshot() const {
  uint64_t seq = versions_.Now();  // before the snapshot: see TableVersions
  // The shared snapshot serves when no write has been published since it
  // was taken (every write, ingestion included while a snapshot exists,
  // advances RocksDB's sequence): it then shows what a new one would.
  const rocksdb::SequenceNumber latest = db_->GetLatestSequenceNumber();
  std::shared_ptr<const Snapshot> shared = shared_snapshot_.load(std::memory_order_acquire);
  if (shared && shared->seq() == seq && shared->get()->GetSequenceNumber() == latest) return shared;
  auto fresh = std::make_shared<Snapshot>(db_.get(), db_->GetSnapshot(), seq);
  shared_snapshot_.store(fresh, std::memory_order_release);
  return fresh;
}

uint64_t StateStore::LatestWriteSequence() const { return db_->GetLatestSequenceNumber(); }

std::optional<uint64_t> StateStore::OldestLiveSnapshotSequence() const {
  uint64_t seq = 0;
  if (!db_->GetIntProperty("rocksdb.oldest-snapshot-sequence", &seq) || seq == 0) return std::nullopt;
  return seq;
}

namespace {

// The data tables a commit writes, for TableVersions. Keys start with the
// table id, and a commit's keys come in runs of one table, so only a change
// of id is recorded.
class ChangedTables {
 public:
  void AddKey(const rocksdb::Slice& key) {
    if (key.size() < 4) return;
    TableId id = TableIdOfKey(std::string_view(key.data(), key.size()));
    if (!tables.empty() && tables.back() == id) return;
    tables.push_back(id);
  }
  void Finish() {
    std::sort(tables.begin(), tables.end());
    tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
  }
  std::vector<TableId> tables;
  bool all = false;  // a range delete: treated as touching every table
};

class ChangedTablesOfBatch : public rocksdb::WriteBatch::Handler {
 public:
  ChangedTablesOfBatch(uint32_t data_cf, ChangedTables* out) : data_cf_(data_cf), out_(out) {}
  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key, const rocksdb::Slice&) override {
    if (cf == data_cf_) out_->AddKey(key);
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    if (cf == data_cf_) out_->AddKey(key);
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t cf, const rocksdb::Slice& key) override { return DeleteCF(cf, key); }
  rocksdb::Status DeleteRangeCF(uint32_t cf, const rocksdb::Slice&, const rocksdb::Slice&) override {
    if (cf == data_cf_) out_->all = true;
    return rocksdb::Status::OK();
  }
  rocksdb::Status MergeCF(uint32_t cf, const rocksdb::Slice& key, const rocksdb::Slice&) override {
    return DeleteCF(cf, key);
  }
  void LogData(const rocksdb::Slice&) override {}

 private:
  uint32_t data_cf_;
  ChangedTables* out_;
};

}  // namespace

DmlLog* StateStore::DmlLogFor(uint32_t database_id) {
  if (mem_env_) return nullptr;
  std::lock_guard lock(dml_logs_mu_);
  auto& log = dml_logs_[database_id];
  if (!log) {
    const uint64_t covered = MetaNumber(DmlLogCoveredKey(database_id), nullptr).value_or(0);
    log = std::make_unique<DmlLog>(DmlLogDirectory(database_id), covered,
                                   [this](uint64_t bytes) { return CheckWritable(bytes); });
  }
  return log.get();
}

void StateStore::DropDmlLog(uint32_t database_id) {
  if (mem_env_) return;
  std::lock_guard lock(dml_logs_mu_);
  dml_logs_.erase(database_id);
  std::error_code ec;
  std::filesystem::remove_all(DmlLogDirectory(database_id), ec);
}

void StateStore::RemoveDmlLogsExcept(const std::vector<uint32_t>& database_ids) {
  if (mem_env_ || read_only_) return;
  std::error_code ec;
  std::vector<std::string> stale;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/dml_log", ec)) {
    const std::string name = entry.path().filename().string();
    if (std::none_of(database_ids.begin(), database_ids.end(), [&](uint32_t id) { return std::to_string(id) == name; }))
      stale.push_back(entry.path().string());
  }
  for (const auto& path : stale) std::filesystem::remove_all(path, ec);
}

Status StateStore::Commit(rocksdb::WriteBatch* batch) {
  Status s = CheckWritable(batch->GetDataSize());
  if (!s.ok()) return s;
  ChangedTables changed;
  ChangedTablesOfBatch handler(data_cf_->GetID(), &changed);
  rocksdb::Status rs = batch->Iterate(&handler);
  if (!rs.ok()) return ToStatus(rs, "commit");
  changed.Finish();
  versions_.BeginChange(changed.tables, changed.all);
  rs = db_->Write(write_options_, batch);
  versions_.EndChange(changed.tables, changed.all);
  shared_snapshot_.store(nullptr, std::memory_order_release);
  if (!rs.ok()) NoteWriteFailure(rs);
  return ToStatus(rs, "commit");
}

namespace {

// The table and vnode a data key starts with, as one number.
uint64_t TableVnodeOfKey(std::string_view key) {
  uint64_t p = 0;
  for (size_t b = 0; b < 6; b++) p = p << 8 | (b < key.size() ? static_cast<uint8_t>(key[b]) : 0);
  return p;
}

// Positions of the writes in key order, stable for equal keys, as
// (part << 32 | index). Keys start with [table id][vnode]; a batch's rows of
// one vnode usually arrive already in key order (generated row ids
// increase), so the writes are bucketed by that 6-byte prefix (keeping
// arrival order) and only unsorted buckets are sorted.
using WritePos = uint64_t;
const WriteOp& At(const std::vector<const WriteLog*>& parts, WritePos p) {
  return (*parts[p >> 32])[p & 0xffffffffu];
}

std::vector<WritePos> SortedOrder(const std::vector<const WriteLog*>& parts) {
  std::unordered_map<uint64_t, std::vector<WritePos>> buckets;
  size_t total = 0;
  for (size_t part = 0; part < parts.size(); part++) {
    const auto& w = *parts[part];
    total += w.size();
    for (size_t i = 0; i < w.size(); i++) buckets[TableVnodeOfKey(w[i].key)].push_back(WritePos(part) << 32 | i);
  }
  std::vector<uint64_t> prefixes;
  prefixes.reserve(buckets.size());
  for (const auto& [p, rows] : buckets) prefixes.push_back(p);
  std::sort(prefixes.begin(), prefixes.end());
  auto less = [&](WritePos a, WritePos b) { return At(parts, a).key < At(parts, b).key; };
  std::vector<WritePos> order;
  order.reserve(total);
  for (uint64_t p : prefixes) {
    auto& rows = buckets[p];
    if (!std::is_sorted(rows.begin(), rows.end(), less)) std::stable_sort(rows.begin(), rows.end(), less);
    order.insert(order.end(), rows.begin(), rows.end());
  }
  return order;
}

}  // namespace

namespace {

// The ops of a commit in key order, seeing only the last write of a key.
class SortedOps {
 public:
  SortedOps(const std::vector<const WriteLog*>& parts, const std::vector<WritePos>& order)
      : parts_(parts), order_(order) {}
  void Seek(std::string_view target) {
    auto it = std::lower_bound(order_.begin(), order_.end(), target,
                               [&](WritePos p, std::string_view t) { return std::string_view(At(parts_, p).key) < t; });
    i_ = static_cast<size_t>(it - order_.begin());
    SkipShadowed();
  }
  bool Valid() const { return i_ < order_.size(); }
  const WriteOp& op() const { return At(parts_, order_[i_]); }
  void Next() {
    i_++;
    SkipShadowed();
  }

 private:
  // Moves to the last write of the current key (a later write wins).
  void SkipShadowed() {
    while (i_ + 1 < order_.size() && At(parts_, order_[i_]).key == At(parts_, order_[i_ + 1]).key) i_++;
  }
  const std::vector<const WriteLog*>& parts_;
  const std::vector<WritePos>& order_;
  size_t i_ = 0;
};

// A table that the commit writes at least this much of gets files of its
// own, cut before a key that skips at least one vnode once a file holds
// this much: a backfill's or a bulk load's writes of one epoch then make
// files of disjoint ranges (one per actor's run of vnodes) instead of one
// file spanning every earlier epoch's, which RocksDB could only put in
// level 0 and compact again. The other tables' writes share files (cut at
// a table once a file holds kSharedFileBytes): an epoch that changes a
// little in each of many state tables would otherwise add a file per table
// to level 0 (with TPC-H's 22 views, over a hundred per commit, and writes
// stalled on level 0's file count).
constexpr uint64_t kCutAtVnodeGapBytes = uint64_t(4) << 20;
constexpr uint64_t kSharedFileBytes = uint64_t(64) << 20;

// The tables the commit writes at least kCutAtVnodeGapBytes of.
std::unordered_set<uint64_t> TablesWithOwnFiles(const CommitWrites& writes) {
  std::unordered_map<uint64_t, uint64_t> bytes;
  for (const WriteLog* part : writes.ops)
    for (const WriteOp& op : *part) bytes[TableVnodeOfKey(op.key) >> 16] += op.key.size() + op.value.size();
  for (const BulkRows* rows : writes.bulk) bytes[rows->table_id()] += rows->bytes();
  std::unordered_set<uint64_t> own;
  for (const auto& [table, n] : bytes)
    if (n >= kCutAtVnodeGapBytes) own.insert(table);
  return own;
}

// Writes the commit's data keys in [lower, upper) (upper empty: no bound)
// into files named file_prefix + "-" + n + ".sst", merging the sorted ops
// with the bulk rows, cutting files as above; appends the files written
// (none when the range has no keys) to *files.
rocksdb::Status WriteDataRange(const CommitWrites& writes, const std::vector<WritePos>& order,
                               const std::unordered_set<uint64_t>& own_files, const rocksdb::Options& options,
                               rocksdb::ColumnFamilyHandle* cf, const std::string& lower, const std::string& upper,
                               const std::string& file_prefix, std::vector<std::string>* files) {
  SortedOps ops(writes.ops, order);
  ops.Seek(lower);
  std::vector<BulkRows::Cursor> bulk;
  for (const BulkRows* rows : writes.bulk) {
    bulk.emplace_back(rows);
    bulk.back().Seek(lower);
  }
  auto in_range = [&](std::string_view key) { return upper.empty() || key < std::string_view(upper); };
  // Buffered writes: with O_DIRECT the commit waits for the disk (2M rows:
  // 2.5 s instead of 0.45 s).
  std::unique_ptr<rocksdb::SstFileWriter> writer;
  rocksdb::Status rs;
  uint64_t last_prefix = 0;
  auto finish = [&] {
    if (writer && rs.ok()) rs = writer->Finish();
    writer.reset();
  };
  auto add = [&](std::string_view key, std::string_view value, bool is_delete) {
    uint64_t prefix = TableVnodeOfKey(key);
    if (writer) {
      const uint64_t table = prefix >> 16, last_table = last_prefix >> 16;
      const bool cut = table != last_table
                           ? own_files.count(table) || own_files.count(last_table) || writer->FileSize() >= kSharedFileBytes
                           : prefix > last_prefix + 1 && writer->FileSize() >= kCutAtVnodeGapBytes;
      if (cut) finish();
    }
    if (!rs.ok()) return;
    last_prefix = prefix;
    if (!writer) {
      files->push_back(file_prefix + "-" + std::to_string(files->size()) + ".sst");
      writer = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options, cf, /*invalidate_page_cache=*/false);
      rs = writer->Open(files->back());
      if (!rs.ok()) return;
    }
    rocksdb::Slice k(key.data(), key.size());
    rs = is_delete ? writer->Delete(k) : writer->Put(k, rocksdb::Slice(value.data(), value.size()));
  };
  while (rs.ok()) {
    int best = -1;
    for (size_t i = 0; i < bulk.size(); i++)
      if (bulk[i].Valid() && in_range(bulk[i].key()) && (best < 0 || bulk[i].key() < bulk[best].key()))
        best = static_cast<int>(i);
    bool has_op = ops.Valid() && in_range(ops.op().key);
    if (!has_op && best < 0) break;
    if (has_op && (best < 0 || std::string_view(ops.op().key) <= bulk[best].key())) {
      const WriteOp& op = ops.op();
      for (auto& c : bulk)  // the op was written after the bulk row
        while (c.Valid() && c.key() == std::string_view(op.key)) c.Next();
      add(op.key, op.value, op.is_delete);
      ops.Next();
    } else {
      add(bulk[best].key(), bulk[best].value(), false);
      bulk[best].Next();
    }
  }
  finish();
  if (!rs.ok()) {
    std::error_code ec;
    for (const auto& f : *files) std::filesystem::remove(f, ec);
    files->clear();
  }
  return rs;
}

// Commits at least this large are written by two threads.
constexpr size_t kParallelWriteThreshold = 200000;

// Where to split a large commit's keys in two: the middle vnode of the
// largest bulk load, else the middle op.
std::string SplitKey(const CommitWrites& writes, const std::vector<WritePos>& order) {
  const BulkRows* largest = nullptr;
  for (const BulkRows* rows : writes.bulk)
    if (!largest || rows->size() > largest->size()) largest = rows;
  if (largest && largest->size() * 2 >= writes.size()) return VnodePrefix(largest->table_id(), kVnodeCount / 2);
  if (order.empty()) return "";
  return std::string(At(writes.ops, order[order.size() / 2]).key);
}

}  // namespace

rocksdb::Options StateStore::BulkFileOptions(bool bloom) const {
  rocksdb::Options options(db_->GetDBOptions(), db_->GetOptions(data_cf_));
  // Written once and rewritten by compaction only if later writes overlap
  // them: compressing would slow every load for the sake of disk space.
  // (SstFileWriter compresses with bottommost_compression when it is set.)
  options.compression = rocksdb::kNoCompression;
  options.bottommost_compression = rocksdb::kDisableCompressionOption;
  if (!bloom) {
    const auto* table = options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    if (table) {
      rocksdb::BlockBasedTableOptions without = *table;
      without.filter_policy.reset();
      options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(without));
    }
  }
  return options;
}

namespace {
// A load holds at most this much in memory before moving it to its files
// (bulk_rows.h). The memory is reused from then on, so a larger load
// touches no fresh memory past this.
constexpr size_t kBulkSpillBytes = size_t(32) << 20;
}  // namespace

std::optional<BulkSpill> StateStore::NewBulkSpill() const {
  if (mem_env_) return std::nullopt;
  BulkSpill spill;
  spill.file_prefix = ingest_dir_ + "/load-" + std::to_string(++spill_seq_);
  spill.after_bytes = kBulkSpillBytes;
  // Keyed by generated row ids: no Bloom filters (see CommitBulkUnversioned).
  spill.options = std::make_shared<rocksdb::Options>(BulkFileOptions(/*bloom=*/false));
  return spill;
}

void StateStore::AddToBatch(const CommitWrites& writes, rocksdb::WriteBatch* batch) const {
  for (const BulkRows* rows : writes.bulk) {
    BulkRows::Cursor c(rows);
    for (c.Seek(""); c.Valid(); c.Next())
      batch->Put(data_cf_, rocksdb::Slice(c.key().data(), c.key().size()),
                 rocksdb::Slice(c.value().data(), c.value().size()));
  }
  for (const auto* part : writes.ops)
    for (const auto& op : *part) {
      rocksdb::ColumnFamilyHandle* cf = op.change_log ? change_log_cf_ : data_cf_;
      if (!op.range_end.empty()) batch->DeleteRange(cf, op.key, op.range_end);
      else if (op.is_delete) batch->Delete(cf, op.key);
      else batch->Put(cf, op.key, op.value);
    }
}

Status StateStore::CommitBulk(const CommitWrites& writes, MetaEntries meta) {
  Status checked = CheckWritable(writes.bytes());
  if (!checked.ok()) return checked;
  ChangedTables changed;
  for (const auto* part : writes.ops)
    for (const WriteOp& op : *part) changed.AddKey(op.key);
  for (const BulkRows* rows : writes.bulk) changed.tables.push_back(rows->table_id());
  changed.Finish();
  versions_.BeginChange(changed.tables, false);
  Status s = CommitBulkUnversioned(writes, std::move(meta));
  versions_.EndChange(changed.tables, false);
  return s;
}

namespace {
// Whether any op of the commit has a key in [lower, upper).
bool OpsIn(const CommitWrites& writes, const std::vector<WritePos>& order, const std::string& lower,
           const std::string& upper) {
  auto it = std::lower_bound(order.begin(), order.end(), lower, [&](WritePos p, const std::string& t) {
    return At(writes.ops, p).key < t;
  });
  return it != order.end() && At(writes.ops, *it).key < upper;
}
}  // namespace

Status StateStore::CommitBulkUnversioned(const CommitWrites& all_writes, MetaEntries meta) {
  std::vector<WritePos> order = SortedOrder(all_writes.ops);
  // A spilled load's files (one per vnode, written during the load) are
  // ingested as they are when nothing else of the commit falls among its
  // table's keys; otherwise its rows are merged with those writes into new
  // files like any other load's.
  std::vector<std::string> load_files;
  CommitWrites writes;
  writes.ops = all_writes.ops;
  for (const BulkRows* rows : all_writes.bulk) {
    auto same_table = [&](const BulkRows* other) { return other->table_id() == rows->table_id(); };
    bool alone = std::count_if(all_writes.bulk.begin(), all_writes.bulk.end(), same_table) == 1 &&
                 !OpsIn(all_writes, order, TablePrefix(rows->table_id()), PrefixSuccessor(TablePrefix(rows->table_id())));
    // Ingestion moves the files it is given: it gets names of their own
    // (hard links), so that the load's names stay readable until the load
    // is dropped (a reader may still be on them while this commit runs).
    std::vector<std::string> links;
    bool linked = rows->spilled() && alone;
    if (linked) {
      for (const std::string& f : rows->files()) {
        links.push_back(f + ".ingest");
        if (link(f.c_str(), links.back().c_str()) != 0) {
          links.pop_back();
          linked = false;
          break;
        }
      }
    }
    if (linked) {
      load_files.insert(load_files.end(), links.begin(), links.end());
    } else {
      for (const std::string& l : links) unlink(l.c_str());
      writes.bulk.push_back(rows);
    }
  }
  std::string base = ingest_dir_ + "/" + std::to_string(++ingest_seq_);
  rocksdb::Options data_options = BulkFileOptions(/*bloom=*/true);
  // Rows of bulk-loaded tables are keyed by generated row ids, which are
  // only ever looked up when they exist (UPDATE, DELETE): a Bloom filter
  // would never save a read there, and building it costs a sixth of the
  // commit. Their key ranges get files of their own, without filters.
  rocksdb::Options bulk_options = BulkFileOptions(/*bloom=*/false);
  std::vector<TableId> bulk_tables;
  for (const BulkRows* rows : writes.bulk) bulk_tables.push_back(rows->table_id());
  const std::unordered_set<uint64_t> own_files = TablesWithOwnFiles(writes);

  // Key ranges written by two threads, each into its own files (files of
  // one ingestion must not overlap); a bulk-loaded table's keys form
  // ranges of their own, written without filters.
  std::vector<std::string> bounds;
  if (writes.size() >= kParallelWriteThreshold) {
    std::string split = SplitKey(writes, order);
    if (!split.empty()) bounds.push_back(split);
  }
  for (TableId t : bulk_tables) {
    bounds.push_back(TablePrefix(t));
    bounds.push_back(PrefixSuccessor(TablePrefix(t)));
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  bounds.insert(bounds.begin(), "");  // from the first key
  bounds.push_back("");               // to the last
  size_t ranges = bounds.size() - 1;
  std::vector<std::vector<std::string>> range_files(ranges);
  std::vector<rocksdb::Status> statuses(ranges);
  std::atomic<size_t> next_range{0};
  auto write_ranges = [&] {
    for (size_t r; (r = next_range++) < ranges;) {
      bool bulk_range = false;
      for (TableId t : bulk_tables)
        bulk_range |= bounds[r] >= TablePrefix(t) && !bounds[r + 1].empty() &&
                      bounds[r + 1] <= PrefixSuccessor(TablePrefix(t));
      statuses[r] = WriteDataRange(writes, order, own_files, bulk_range ? bulk_options : data_options, data_cf_, bounds[r],
                                   bounds[r + 1], base + "-data-" + std::to_string(r), &range_files[r]);
    }
  };
  std::thread helper;
  if (ranges > 1) helper = std::thread(write_ranges);
  write_ranges();
  if (helper.joinable()) helper.join();
  rocksdb::Status rs;
  for (const auto& st : statuses)
    if (rs.ok() && !st.ok()) rs = st;
  std::vector<std::string> files;  // removed at the end: ingestion moves them
  for (const auto& fs : range_files) files.insert(files.end(), fs.begin(), fs.end());

  std::string meta_file = base + "-meta.sst";
  rocksdb::Options meta_options(db_->GetDBOptions(), db_->GetOptions(meta_cf_));
  rocksdb::SstFileWriter meta_writer(rocksdb::EnvOptions(), meta_options, meta_cf_);
  // In key order (an SST is written so).
  std::stable_sort(meta.begin(), meta.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (rs.ok()) rs = meta_writer.Open(meta_file);
  for (size_t i = 0; rs.ok() && i < meta.size(); i++) {
    if (i + 1 < meta.size() && meta[i].first == meta[i + 1].first) continue;  // the last one wins
    rs = meta_writer.Put(meta[i].first, meta[i].second);
  }
  if (rs.ok()) rs = meta_writer.Finish();
  if (rs.ok()) {
    std::vector<rocksdb::IngestExternalFileArg> args;
    rocksdb::IngestExternalFileArg data_arg, meta_arg;
    data_arg.column_family = data_cf_;
    for (const std::string& f : files)
      if (!f.empty()) data_arg.external_files.push_back(f);
    data_arg.external_files.insert(data_arg.external_files.end(), load_files.begin(), load_files.end());
    data_arg.options.move_files = true;
    // The sequence number goes to the manifest; the files are never
    // rewritten (load files are LoadFileWriter's: load_file_writer.h).
    data_arg.options.write_global_seqno = false;
    meta_arg.column_family = meta_cf_;
    meta_arg.external_files = {meta_file};
    meta_arg.options.move_files = true;
    meta_arg.options.write_global_seqno = false;
    if (!data_arg.external_files.empty()) args.push_back(data_arg);
    args.push_back(meta_arg);
    // Every one of them was synced when its writer finished.
    std::vector<std::string> synced = data_arg.external_files;
    synced.push_back(meta_file);
    auto registration = synced_files_ ? synced_files_->Register(synced) : nullptr;
    // Without a snapshot held by us, files that overlap nothing need no
    // sequence number of their own.
    shared_snapshot_.store(nullptr, std::memory_order_release);
    rs = db_->IngestExternalFiles(args);
    shared_snapshot_.store(nullptr, std::memory_order_release);
  }
  std::error_code ec;
  for (const auto& f : files) std::filesystem::remove(f, ec);
  for (const auto& f : load_files) std::filesystem::remove(f, ec);  // left only if ingestion failed
  std::filesystem::remove(meta_file, ec);
  if (!rs.ok()) NoteWriteFailure(rs);
  return ToStatus(rs, "bulk commit");
}

Status StateStore::Get(rocksdb::ColumnFamilyHandle* cf, const Snapshot* snapshot, const std::string& key,
                       std::string* value) const {
  rocksdb::ReadOptions ro;
  if (snapshot) ro.snapshot = snapshot->get();
  return ToStatus(db_->Get(ro, cf, key, value), "get");
}

Status StateStore::MultiGet(rocksdb::ColumnFamilyHandle* cf, const Snapshot* snapshot,
                            const std::vector<std::string_view>& keys,
                            std::vector<std::optional<std::string>>* values) const {
  values->assign(keys.size(), std::nullopt);
  if (keys.empty()) return Status::OK();
  rocksdb::ReadOptions ro;
  if (snapshot) ro.snapshot = snapshot->get();
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> found(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db_->MultiGet(ro, cf, keys.size(), slices.data(), found.data(), statuses.data());
  for (size_t i = 0; i < keys.size(); i++) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return ToStatus(statuses[i], "multiget");
    (*values)[i].emplace(found[i].data(), found[i].size());
  }
  return Status::OK();
}

std::unique_ptr<StateStore::Range> StateStore::NewRange(rocksdb::ColumnFamilyHandle* cf, const Snapshot* snapshot,
                                                       std::string lower, std::string upper,
                                                       ReadPattern pattern) const {
  auto r = std::make_unique<Range>();
  r->lower = std::move(lower);
  r->upper = std::move(upper);
  r->lower_slice = rocksdb::Slice(r->lower);
  r->upper_slice = rocksdb::Slice(r->upper);
  rocksdb::ReadOptions ro;
  if (snapshot) ro.snapshot = snapshot->get();
  ro.iterate_lower_bound = &r->lower_slice;
  if (pattern == ReadPattern::kScan) ro.readahead_size = 2 << 20;
  ro.fill_cache = pattern != ReadPattern::kOnce;
  if (!r->upper.empty()) ro.iterate_upper_bound = &r->upper_slice;
  r->it.reset(db_->NewIterator(ro, cf));
  r->it->Seek(r->lower_slice);
  return r;
}

uint64_t StateStore::ApproximateSize(rocksdb::ColumnFamilyHandle* cf, const std::string& lower,
                                     const std::string& upper) const {
  rocksdb::Range range(lower, upper);
  uint64_t size = 0;
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  if (!db_->GetApproximateSizes(options, cf, &range, 1, &size).ok()) return 0;
  return size;
}

uint64_t StateStore::ApproximateDataSize(const std::string& lower, const std::string& upper) const {
  return ApproximateSize(data_cf_, lower, upper);
}

uint64_t StateStore::ApproximateChangeLogSize(const std::string& lower, const std::string& upper) const {
  return ApproximateSize(change_log_cf_, lower, upper);
}

uint64_t StateStore::EstimateKeys(const std::string& lower, const std::string& upper) const {
  rocksdb::Range range(lower, upper);
  uint64_t mem_count = 0, mem_size = 0;
  db_->GetApproximateMemTableStats(data_cf_, range, &mem_count, &mem_size);
  uint64_t file_bytes = 0;
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = false;
  options.include_files = true;
  if (!db_->GetApproximateSizes(options, data_cf_, &range, 1, &file_bytes).ok() || file_bytes == 0) return mem_count;
  rocksdb::TablePropertiesCollection props;
  if (!db_->GetPropertiesOfTablesInRange(data_cf_, &range, 1, &props).ok()) return mem_count;
  uint64_t entries = 0, bytes = 0;
  for (const auto& [file, p] : props) {
    entries += p->num_entries;
    bytes += p->data_size + p->index_size + p->filter_size;
  }
  if (bytes == 0) return mem_count;
  return mem_count + static_cast<uint64_t>(double(file_bytes) * double(entries) / double(bytes));
}

void StateStore::ScanMeta(const std::string& prefix,
                          const std::function<void(const std::string&, const std::string&)>& fn) const {
  auto r = NewRange(meta_cf_, nullptr, prefix, PrefixSuccessor(prefix));
  for (; r->it->Valid(); r->it->Next()) fn(r->it->key().ToString(), r->it->value().ToString());
}

Status StateStore::GetMeta(const std::string& key, std::string* value) const {
  return Get(meta_cf_, nullptr, key, value);
}

Status StateStore::CommitMeta(const MetaWrite& write) {
  rocksdb::WriteBatch batch;
  for (const MetaWrite::Op& op : write.ops()) {
    switch (op.kind) {
      case MetaWrite::Op::kPut:
        batch.Put(meta_cf_, op.key, op.value);
        break;
      case MetaWrite::Op::kDelete:
        batch.Delete(meta_cf_, op.key);
        break;
      case MetaWrite::Op::kDropData: {
        std::string prefix = TablePrefix(op.relation_id);
        batch.DeleteRange(data_cf_, prefix, PrefixSuccessor(prefix));
        batch.DeleteRange(change_log_cf_, prefix, PrefixSuccessor(prefix));  // a change log's
        break;
      }
    }
  }
  Status s = Commit(&batch);
  if (s.ok())
    for (const MetaWrite::Op& op : write.ops())
      if (op.kind == MetaWrite::Op::kDropData) engines_->Dropped(op.relation_id);
  return s;
}

std::optional<uint64_t> StateStore::MetaNumber(const std::string& key, const Snapshot* snapshot) const {
  std::string value;
  if (!Get(meta_cf_, snapshot, key, &value).ok()) return std::nullopt;
  return std::strtoull(value.c_str(), nullptr, 10);
}

std::optional<uint64_t> StateStore::CommittedEpoch(uint32_t database_id, const Snapshot* snapshot) const {
  return MetaNumber(EpochMetaKey(database_id), snapshot);
}

std::optional<int64_t> StateStore::RowCount(uint32_t relation_id, const Snapshot* snapshot) const {
  std::optional<uint64_t> n = MetaNumber(RowCountMetaKey(relation_id), snapshot);
  if (!n) return std::nullopt;
  return static_cast<int64_t>(*n);
}

Status StateStore::CommitEpoch(const CommitWrites& writes, const EpochCommit& commit) {
  MetaEntries meta = {{EpochMetaKey(commit.database_id), std::to_string(commit.epoch)}};
  for (const auto& [id, count] : commit.row_counts) meta.emplace_back(RowCountMetaKey(id), std::to_string(count));
  if (commit.dml_log_covered)
    meta.emplace_back(DmlLogCoveredKey(commit.database_id), std::to_string(commit.dml_log_covered));
  meta.insert(meta.end(), commit.markers.begin(), commit.markers.end());
  const size_t pending = writes.size();
  // (Change-log writes are not written into ingested files: see WriteOp.)
  if (pending >= kBulkCommitThreshold && SupportsBulkCommit() && !writes.has_change_log_ops()) {
    auto t0 = std::chrono::steady_clock::now();
    Status s = CommitBulk(writes, std::move(meta));
    spdlog::debug("bulk commit of {} writes: {} ms", pending,
                  std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
    return s;
  }
  rocksdb::WriteBatch batch;
  AddToBatch(writes, &batch);
  for (const auto& [key, value] : meta) batch.Put(meta_cf_, key, value);
  return Commit(&batch);
}

}  // namespace freshet
