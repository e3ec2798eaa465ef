// StateStore on a full disk (state_store.h): writes that would eat into
// the reserve are refused with NoSpace and leave nothing behind; a store
// opened with less free than the reserve is read-only, still serves reads
// and still locks the directory. The reserve stands in for the full disk
// here (a reserve above the free space is a disk that is full);
// tests/integration/disk_full_test.sh fills a real tmpfs. Also InfoLog,
// RocksDB's LOG, on a device where every write fails.
#include "storage/state_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdarg>
#include <filesystem>

#include "storage/info_log.h"
#include "storage/test_dir.h"

namespace freshet {
namespace {

class StateStoreDiskTest : public ::testing::Test {
 protected:
  std::unique_ptr<StateStore> Open(int64_t reserve) {
    StoreOptions o;
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

}  // namespace
}  // namespace freshet
