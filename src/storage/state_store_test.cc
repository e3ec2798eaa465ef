// StateStore on a full disk (state_store.h): writes that would eat into
// the reserve are refused with NoSpace and leave nothing behind; a store
// opened with less free than the reserve is read-only, still serves reads
// and still locks the directory. The reserve stands in for the full disk
// here (a reserve above the free space is a disk that is full);
// tests/integration/disk_full_test.sh fills a real tmpfs. Also InfoLog,
// RocksDB's LOG, on a device where every write fails. And the snapshot
// readers share: one until a write, never one that misses a finished commit.
#include "storage/state_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <filesystem>
#include <thread>
#include <vector>

#include "storage/info_log.h"
#include "storage/test_dir.h"

namespace freshet {
namespace {

class StateStoreDiskTest : public ::testing::Test {
 protected:
  std::unique_ptr<StateStore> Open(int64_t reserve, bool sync_commits = true) {
    StoreOptions o;
    o.sync_commits = sync_commits;
    o.dir = dir_ + "/data";
    o.disk_reserve_bytes = reserve;
    o.block_cache_bytes = 8 << 20;
    o.scan_cache_bytes = 0;
    auto store = StateStore::Open(o);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  Status Put(StateStore* store, const std::string& key, const std::string& value) {
    rocksdb::WriteBatch batch;
    batch.Put(store->meta_cf(), key, value);
    return store->Commit(&batch);
  }
  std::string Get(StateStore* store, const std::string& key) {
    std::string value;
    Status s = store->Get(store->meta_cf(), nullptr, key, &value);
    return s.ok() ? value : "<" + s.ToString() + ">";
  }
  // More than the file system has free: the disk counts as full.
  int64_t AboveFree(StateStore* store) { return static_cast<int64_t>(store->FreeDiskBytes()) + (int64_t(1) << 30); }

  TestDir tmp_{"freshet-state-store-test"};
  const std::string dir_ = tmp_.path();
};

TEST_F(StateStoreDiskTest, WritesIntoTheReserveAreRefusedAndLeaveNothing) {
  auto store = Open(-1);
  ASSERT_TRUE(store);
  EXPECT_GE(store->disk_reserve_bytes(), uint64_t(4) << 20);
  EXPECT_LE(store->disk_reserve_bytes(), uint64_t(256) << 20);
  ASSERT_TRUE(Put(store.get(), "k1", "v1").ok());

  store->set_disk_reserve_bytes(static_cast<uint64_t>(AboveFree(store.get())));
  Status s = Put(store.get(), "k2", "v2");
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  // A DML log's first segment is refused too, and no file is left.
  DmlLog* log = store->DmlLogFor(1);
  EXPECT_TRUE(log->Append("entry").status().IsNoSpace());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/data/dml_log/1/0.seg"));
  EXPECT_TRUE(store->CheckWritable(1).IsNoSpace());
  try {
    s.ThrowIfError();
    ADD_FAILURE() << "no error";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), "53100");
  }
  EXPECT_EQ(Get(store.get(), "k1"), "v1");  // reads go on
  EXPECT_EQ(Get(store.get(), "k2").substr(0, 10), "<NotFound:");

  // Room again: the same write succeeds.
  store->set_disk_reserve_bytes(0);
  EXPECT_TRUE(Put(store.get(), "k2", "v2").ok());
  EXPECT_EQ(Get(store.get(), "k2"), "v2");
  EXPECT_TRUE(log->Append("entry").ok());
}

TEST_F(StateStoreDiskTest, OpenOnAFullDiskIsReadOnlyAndStillLocked) {
  {
    auto store = Open(0);
    ASSERT_TRUE(store);
    ASSERT_TRUE(Put(store.get(), "k1", "v1").ok());
  }
  int64_t full;
  {
    auto probe = Open(0);
    ASSERT_TRUE(probe);
    full = AboveFree(probe.get());
  }
  auto store = Open(full);
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->read_only());
  EXPECT_EQ(Get(store.get(), "k1"), "v1");
  Status s = Put(store.get(), "k2", "v2");
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();

  // A second server on the directory is refused as usual.
  StoreOptions o;
  o.dir = dir_ + "/data";
  o.disk_reserve_bytes = 0;
  auto second = StateStore::Open(o);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsBusy()) << second.status().ToString();

  store.reset();
  auto writable = Open(0);
  ASSERT_TRUE(writable);
  EXPECT_FALSE(writable->read_only());
  EXPECT_TRUE(Put(writable.get(), "k2", "v2").ok());
}

void Log(InfoLog* log, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  log->Logv(format, ap);
  va_end(ap);
}

TEST_F(StateStoreDiskTest, InfoLogDropsWhatItCannotWriteAndRotates) {
  // /dev/full fails every write with ENOSPC: lines are lost, nothing else.
  InfoLog full("/dev/full", 1 << 20);
  for (int i = 0; i < 1000; i++) Log(&full, "line %d of a log that cannot be written", i);

  std::string path = dir_ + "/LOG";
  InfoLog log(path, 4096);
  for (int i = 0; i < 200; i++) Log(&log, "line %d", i);
  log.Flush();
  EXPECT_TRUE(std::filesystem::exists(path + ".old"));
  EXPECT_LE(std::filesystem::file_size(path), 4096u);
  EXPECT_LE(std::filesystem::file_size(path + ".old"), 4096u);
}

using StateStoreSnapshotTest = StateStoreDiskTest;

TEST_F(StateStoreSnapshotTest, ReadersShareOneSnapshotUntilAWrite) {
  auto store = Open(0);
  ASSERT_TRUE(store);
  ASSERT_TRUE(Put(store.get(), "k", "1").ok());
  auto read = [&](const Snapshot* snapshot) {
    std::string value;
    Status s = store->Get(store->meta_cf(), snapshot, "k", &value);
    return s.ok() ? value : s.ToString();
  };
  auto first = store->GetSnapshot();
  auto second = store->GetSnapshot();
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(read(first.get()), "1");

  ASSERT_TRUE(Put(store.get(), "k", "2").ok());
  auto after_write = store->GetSnapshot();
  EXPECT_NE(after_write.get(), first.get());
  EXPECT_EQ(read(after_write.get()), "2");
  EXPECT_EQ(read(first.get()), "1");  // the old one still shows its state
  EXPECT_EQ(store->GetSnapshot().get(), after_write.get());

  // An ingested bulk commit, too, ends the sharing.
  ASSERT_TRUE(store->CommitBulk(CommitWrites{}, {{"k", "3"}}).ok());
  auto after_bulk = store->GetSnapshot();
  EXPECT_NE(after_bulk.get(), after_write.get());
  EXPECT_EQ(read(after_bulk.get()), "3");
  EXPECT_EQ(read(after_write.get()), "2");
  // A snapshot taken before a write is not handed out after it, even
  // when nobody else holds it.
  first.reset();
  second.reset();
  after_write.reset();
  ASSERT_TRUE(Put(store.get(), "k", "4").ok());
  EXPECT_EQ(read(store->GetSnapshot().get()), "4");
}

// A bulk commit's files: tables written a little share files (an epoch
// touching many state tables must not add a file per table to level 0),
// a table written much gets files of its own (which can go below level 0).
using StateStoreBulkFilesTest = StateStoreDiskTest;

TEST_F(StateStoreBulkFilesTest, SmallTablesShareFilesLargeOnesGetTheirOwn) {
  auto store = Open(0);
  ASSERT_TRUE(store);
  auto files = [&] {
    rocksdb::ColumnFamilyMetaData meta;
    store->db()->GetColumnFamilyMetaData(store->data_cf(), &meta);
    std::vector<rocksdb::SstFileMetaData> all;
    for (const auto& level : meta.levels) all.insert(all.end(), level.files.begin(), level.files.end());
    return all;
  };
  constexpr TableId kBig = 150;
  WriteLog log;
  const std::string value(40, 'v');
  for (TableId t = 100; t < 300; t++) {
    const int rows = t == kBig ? 120000 : 300;  // 120,000 rows of ~50 bytes: over 4 MiB
    for (int r = 0; r < rows; r++) log.Put(VnodePrefix(t, uint16_t(r % 7)) + std::to_string(1000000 + r), value);
  }
  CommitWrites writes;
  writes.ops = {&log};
  ASSERT_TRUE(store->CommitBulk(writes, {{"epoch", "1"}}).ok());
  const auto written = files();
  // The small tables before the big one share a file, those after it
  // another; the big one's 7 vnodes are contiguous: one file.
  EXPECT_LE(written.size(), 4u);
  bool big_alone = false;
  for (const auto& f : written)
    big_alone |= f.smallestkey.compare(0, 4, TablePrefix(kBig)) == 0 && f.largestkey.compare(0, 4, TablePrefix(kBig)) == 0;
  EXPECT_TRUE(big_alone);
  std::string got;
  ASSERT_TRUE(store->Get(store->data_cf(), nullptr, VnodePrefix(299, 3) + "1000003", &got).ok());
  EXPECT_EQ(got, value);
}

// Readers take snapshots while a writer commits: a snapshot taken after a
// commit finished shows it (a shared snapshot kept past a write would not).
TEST_F(StateStoreSnapshotTest, ASnapshotShowsEveryCommitFinishedBeforeIt) {
  auto store = Open(0, /*sync_commits=*/false);
  ASSERT_TRUE(store);
  ASSERT_TRUE(Put(store.get(), "k", "0").ok());
  constexpr int kCommits = 3000;
  std::atomic<int> finished{0};
  std::atomic<int> stale{0}, reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; r++) {
    readers.emplace_back([&] {
      while (finished.load() < kCommits) {
        const int before = finished.load();
        auto snapshot = store->GetSnapshot();
        std::string value;
        if (!store->Get(store->meta_cf(), snapshot.get(), "k", &value).ok() || std::stoi(value) < before) stale++;
        reads++;
      }
    });
  }
  for (int i = 1; i <= kCommits; i++) {
    if (i % 500 == 0) {
      ASSERT_TRUE(store->CommitBulk(CommitWrites{}, {{"k", std::to_string(i)}}).ok());
    } else {
      ASSERT_TRUE(Put(store.get(), "k", std::to_string(i)).ok());
    }
    finished.store(i);
  }
  for (auto& t : readers) t.join();
  EXPECT_EQ(stale.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_GT(reads.load(), 0);
}

}  // namespace
}  // namespace freshet
