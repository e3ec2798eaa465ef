// Scans over a real (in-memory) RocksDB store: the serial and the parallel
// scan return every committed row exactly once.
#include <gtest/gtest.h>

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

std::pair<int64_t, int64_t> CountAndSum(StateStore* store) {
  TableCatalog table;
  table.id = 7;
  table.columns = {{"id", DataType::Int64()}, {"payload", DataType::Varchar()}};
  auto ref = std::make_shared<const TableCatalog>(table);
  ScanNode node(ref, {{"id", DataType::Int64()}, {"payload", DataType::Varchar()}});
  ExecContext ctx;
  ctx.store = store;
  ctx.snapshot = store->GetSnapshot();
  ExecutorPtr scan = MakeScan(node, ctx);
  int64_t count = 0, sum = 0;
  DataChunk chunk;
  while (scan->Next(&chunk)) {
    for (size_t r = 0; r < chunk.num_rows(); r++) sum += chunk.column(0).GetInt(r);
    count += static_cast<int64_t>(chunk.num_rows());
  }
  return {count, sum};
}

TEST(ScanTest, SmallTableSerial) {
  auto store = MakeStore(1000, 10);
  auto [count, sum] = CountAndSum(store.get());
  EXPECT_EQ(count, 1000);
  EXPECT_EQ(sum, 999 * 1000 / 2);
}

TEST(ScanTest, LargeTableParallelSeesEveryRowOnce) {
  // 60,000 rows of ~400 bytes: above the 16 MiB parallel-scan threshold.
  const int64_t n = 60000;
  auto store = MakeStore(n, 400);
  std::string prefix = TablePrefix(7);
  ASSERT_GE(store->ApproximateDataSize(prefix, PrefixSuccessor(prefix)), uint64_t(16) << 20);
  auto [count, sum] = CountAndSum(store.get());
  EXPECT_EQ(count, n);
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(ScanTest, ParallelScanStopsEarlyWithoutLeaking) {
  auto store = MakeStore(60000, 400);
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

}  // namespace
}  // namespace freshet
