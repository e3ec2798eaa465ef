// WriteLog (write_log.h): writes keep their order and bytes, views survive
// moves, a cleared or recycled log reuses its blocks, and the pool of logs
// stays bounded.
#include "storage/write_log.h"

#include <gtest/gtest.h>

namespace freshet {
namespace {

TEST(WriteLogTest, KeepsWritesInOrderWithTheirBytes) {
  WriteLog log;
  std::string key(40, 'k'), value(3000000, 'v');  // a value larger than a block
  log.Put(key, "short", 1, true);
  log.Delete("gone", -1);
  log.Put("big", value);
  log.Put("", "");
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0].key, key);
  EXPECT_EQ(log[0].value, "short");
  EXPECT_TRUE(log[0].check_unique);
  EXPECT_EQ(log[0].row_delta, 1);
  EXPECT_TRUE(log[1].is_delete);
  EXPECT_EQ(log[1].key, "gone");
  EXPECT_EQ(log[1].row_delta, -1);
  EXPECT_EQ(log[2].value, value);
  EXPECT_TRUE(log[3].key.empty());
  EXPECT_EQ(log.bytes(), key.size() + 5 + 4 + 3 + value.size());
  // The caller's buffers are not referenced: the log holds copies.
  key.assign(40, 'x');
  EXPECT_EQ(log[0].key, std::string(40, 'k'));
  // Views survive moving the log.
  const char* where = log[0].key.data();
  WriteLog moved = std::move(log);
  EXPECT_EQ(moved[0].key.data(), where);
  EXPECT_TRUE(log.empty());  // NOLINT(bugprone-use-after-move): moved-from logs are empty and usable
  log.Put("reused", "after the move");
  EXPECT_EQ(log[0].value, "after the move");
  WriteLog other;
  other.Put("a", "b");
  other.Append(moved);
  ASSERT_EQ(other.size(), 5u);
  EXPECT_EQ(other[3].value, value);
  EXPECT_NE(other[1].key.data(), where);  // copied
}

TEST(WriteLogTest, ClearReusesBlocks) {
  WriteLog log;
  for (int i = 0; i < 1000; i++) log.Put("key" + std::to_string(i), std::string(100, 'v'));
  size_t blocks = log.block_bytes();
  const char* first = log[0].key.data();
  log.Clear();
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.bytes(), 0u);
  log.Put("again", "x");
  EXPECT_EQ(log[0].key.data(), first);  // written where the old writes were
  EXPECT_EQ(log.block_bytes(), blocks);
}

TEST(WriteLogPoolTest, RecyclesAndTakesTheSmallestThatFits) {
  ClearWriteLogPool();  // earlier tests' epochs recycled their logs into it
  for (size_t cap : {size_t(4096), size_t(8192)}) {
    WriteLog log;
    log.Reserve(cap);
    log.Put("k", "v");
    RecycleWriteLog(std::move(log));
  }
  WriteLog got = TakeWriteLog(5000);
  EXPECT_TRUE(got.empty());
  EXPECT_GE(got.capacity(), 8192u);  // 4096 does not fit 5000
  EXPECT_LT(got.capacity(), 16384u);
  EXPECT_GT(got.block_bytes(), 0u);  // its block came back with it
  // Nothing large enough pooled: a new log with the room asked for.
  WriteLog fresh = TakeWriteLog(200000);
  EXPECT_GE(fresh.capacity(), 200000u);
  EXPECT_EQ(fresh.block_bytes(), 0u);
  // Logs beyond the bound are not kept.
  WriteLog huge;
  huge.Reserve(kMaxPooledWriteOps + 1);
  RecycleWriteLog(std::move(huge));
  WriteLog after = TakeWriteLog(kMaxPooledWriteOps);
  EXPECT_LT(after.capacity(), kMaxPooledWriteOps + 1);
}

}  // namespace
}  // namespace freshet
