// Scans over a real (in-memory) RocksDB store: the serial and the parallel
// scan return every committed row exactly once, and the scan cache
// (storage/scan_cache.h) never serves a state the snapshot does not show.
#include <gtest/gtest.h>

#include <filesystem>

#include "batch/executors.h"
#include "common/encoding.h"
#include "storage/keys.h"
#include "storage/state_store.h"

namespace freshet {
namespace {

// Writes `rows` rows (id, payload) of table 7 spread over all vnodes.
std::unique_ptr<StateStore> MakeStore(int64_t rows, size_t payload_bytes) {
  StoreOptions options;
  options.in_memory = true;
  auto store = std::move(StateStore::Open(options)).value();
  rocksdb::WriteBatch batch;
  std::vector<DataType> types = {DataType::Int64(), DataType::Varchar()};
  for (int64_t i = 0; i < rows; i++) {
    DataChunk row(types);
    row.AppendRow({Value::Int64(i), Value::Varchar(std::string(payload_bytes, 'x'))});
    std::string key = VnodePrefix(7, static_cast<uint16_t>(i % kVnodeCount));
    EncodeKeyFromVector(row.column(0), 0, &key);
    std::string value;
    EncodeRow(row, 0, &value);
    batch.Put(store->data_cf(), key, value);
  }
  EXPECT_TRUE(store->Commit(&batch).ok());
  return store;
}

// Count of rows and sum of id (when `wanted` includes column 0) of table 7
// read at `snapshot` (default: a new one).
std::pair<int64_t, int64_t> CountAndSum(StateStore* store, std::shared_ptr<const Snapshot> snapshot = nullptr,
                                        std::vector<bool> wanted = {}) {
  TableCatalog table;
  table.id = 7;
  table.columns = {{"id", DataType::Int64()}, {"payload", DataType::Varchar()}};
  auto ref = std::make_shared<const TableCatalog>(table);
  ScanNode node(ref, {{"id", DataType::Int64()}, {"payload", DataType::Varchar()}});
  node.used_columns = wanted;
  ExecContext ctx;
  ctx.store = store;
  ctx.snapshot = snapshot ? snapshot : store->GetSnapshot();
  ExecutorPtr scan = MakeScan(node, ctx);
  int64_t count = 0, sum = 0;
  DataChunk chunk;
  while (scan->Next(&chunk)) {
    if (wanted.empty() || wanted[0])
      for (size_t r = 0; r < chunk.num_rows(); r++) sum += chunk.column(0).GetInt(r);
    count += static_cast<int64_t>(chunk.num_rows());
  }
  return {count, sum};
}

std::pair<int64_t, int64_t> Pair(int64_t a, int64_t b) { return {a, b}; }

void PutRow(StateStore* store, int64_t id) {
  rocksdb::WriteBatch batch;
  DataChunk row({DataType::Int64(), DataType::Varchar()});
  row.AppendRow({Value::Int64(id), Value::Varchar("new")});
  std::string key = VnodePrefix(7, static_cast<uint16_t>(id % kVnodeCount));
  EncodeKeyFromVector(row.column(0), 0, &key);
  std::string value;
  EncodeRow(row, 0, &value);
  batch.Put(store->data_cf(), key, value);
  ASSERT_TRUE(store->Commit(&batch).ok());
}

TEST(ScanTest, SmallTableSerial) {
  auto store = MakeStore(1000, 10);
  auto [count, sum] = CountAndSum(store.get());
  EXPECT_EQ(count, 1000);
  EXPECT_EQ(sum, 999 * 1000 / 2);
}

TEST(ScanTest, LargeTableParallelSeesEveryRowOnce) {
  // 60,000 rows of ~1,000 bytes: well above the 16 MiB parallel-scan
  // threshold even for RocksDB's estimate of a memtable's size (at ~400
  // bytes the assertion below failed once in a full run).
  const int64_t n = 60000;
  auto store = MakeStore(n, 1000);
  std::string prefix = TablePrefix(7);
  ASSERT_GE(store->ApproximateDataSize(prefix, PrefixSuccessor(prefix)), uint64_t(16) << 20);
  auto [count, sum] = CountAndSum(store.get());
  EXPECT_EQ(count, n);
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(ScanTest, ParallelScanStopsEarlyWithoutLeaking) {
  auto store = MakeStore(60000, 1000);
  TableCatalog table;
  table.id = 7;
  table.columns = {{"id", DataType::Int64()}, {"payload", DataType::Varchar()}};
  ScanNode node(std::make_shared<const TableCatalog>(table), {{"id", DataType::Int64()}, {"payload", DataType::Varchar()}});
  ExecContext ctx;
  ctx.store = store.get();
  ctx.snapshot = store->GetSnapshot();
  ExecutorPtr scan = MakeScan(node, ctx);
  DataChunk chunk;
  ASSERT_TRUE(scan->Next(&chunk));
  scan.reset();  // the worker thread must stop and join
  SUCCEED();
}

TEST(ScanCacheTest, RepeatedScanIsServedFromTheCacheUntilTheTableChanges) {
  auto store = MakeStore(3000, 10);
  EXPECT_EQ(CountAndSum(store.get()), Pair(3000, 2999 * 3000 / 2));
  auto seq = store->GetSnapshot()->seq();
  ASSERT_NE(store->scan_cache()->Lookup(7, seq), nullptr);  // the full scan filled it
  EXPECT_EQ(CountAndSum(store.get()), Pair(3000, 2999 * 3000 / 2));
  PutRow(store.get(), 5000);
  EXPECT_EQ(store->scan_cache()->Lookup(7, store->GetSnapshot()->seq()), nullptr);
  EXPECT_EQ(CountAndSum(store.get()), Pair(3001, 2999 * 3000 / 2 + 5000));
}

TEST(ScanCacheTest, OlderSnapshotNeverSeesNewerCachedRows) {
  auto store = MakeStore(1000, 10);
  auto before = store->GetSnapshot();
  PutRow(store.get(), 7000);
  EXPECT_EQ(CountAndSum(store.get()).first, 1001);  // caches the new state
  EXPECT_EQ(CountAndSum(store.get(), before).first, 1000);
  // And the other way round: an entry built at the old snapshot is not
  // cached for the newer state.
  auto store2 = MakeStore(1000, 10);
  auto old = store2->GetSnapshot();
  PutRow(store2.get(), 7000);
  EXPECT_EQ(CountAndSum(store2.get(), old).first, 1000);
  EXPECT_EQ(CountAndSum(store2.get()).first, 1001);
}

TEST(ScanCacheTest, CountOnlyEntryGrowsWhenColumnsAreNeeded) {
  auto store = MakeStore(2000, 10);
  EXPECT_EQ(CountAndSum(store.get(), nullptr, {false, false}).first, 2000);
  auto entry = store->scan_cache()->Lookup(7, store->GetSnapshot()->seq());
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->Covers({true, false}));
  EXPECT_EQ(CountAndSum(store.get(), nullptr, {true, false}), Pair(2000, 1999 * 2000 / 2));
  entry = store->scan_cache()->Lookup(7, store->GetSnapshot()->seq());
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->Covers({true, false}));
}

TEST(ScanCacheTest, RangeDeleteAndBulkCommitInvalidate) {
  auto store = MakeStore(1000, 10);
  EXPECT_EQ(CountAndSum(store.get()).first, 1000);
  rocksdb::WriteBatch drop;
  std::string prefix = TablePrefix(7);
  drop.DeleteRange(store->data_cf(), prefix, PrefixSuccessor(prefix));
  ASSERT_TRUE(store->Commit(&drop).ok());
  EXPECT_EQ(CountAndSum(store.get()).first, 0);

  auto disk_dir = testing::TempDir() + "/scan_cache_bulk";
  std::filesystem::remove_all(disk_dir);
  StoreOptions options;
  options.dir = disk_dir;
  options.sync_commits = false;
  auto disk = std::move(StateStore::Open(options)).value();
  EXPECT_EQ(CountAndSum(disk.get()).first, 0);
  WriteLog ops;
  for (int64_t i = 0; i < 10; i++) {
    DataChunk row({DataType::Int64(), DataType::Varchar()});
    row.AppendRow({Value::Int64(i), Value::Varchar("x")});
    std::string key = VnodePrefix(7, 0), value;
    EncodeKeyFromVector(row.column(0), 0, &key);
    EncodeRow(row, 0, &value);
    ops.Put(key, value);
  }
  CommitWrites writes;
  writes.ops = {&ops};
  ASSERT_TRUE(disk->CommitBulk(writes, {{"epoch/1", "1"}}).ok());
  EXPECT_EQ(CountAndSum(disk.get()).first, 10);
  disk.reset();
  std::filesystem::remove_all(disk_dir);
}

TEST(ScanCacheTest, DisabledWithZeroCapacity) {
  StoreOptions options;
  options.in_memory = true;
  options.scan_cache_bytes = 0;
  auto store = std::move(StateStore::Open(options)).value();
  PutRow(store.get(), 1);
  EXPECT_EQ(CountAndSum(store.get()).first, 1);
  EXPECT_EQ(store->scan_cache()->Lookup(7, store->GetSnapshot()->seq()), nullptr);
}

TEST(VectorTest, CopiesShareUntilWritten) {
  Vector a(DataType::Varchar());
  a.AppendString("one");
  Vector b = a;
  b.AppendString("two");
  b.strings()[0] = "uno";
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a.GetString(0), "one");
  EXPECT_EQ(b.GetString(0), "uno");
  Vector d(DataType::Varchar());
  d.AppendRange(a, 0, 1);  // shares a's arrays
  d.Filter({0});
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(a.size(), 1u);
  a.AppendFrom(a, 0);  // appending from itself
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.GetString(1), "one");
}

}  // namespace
}  // namespace freshet
