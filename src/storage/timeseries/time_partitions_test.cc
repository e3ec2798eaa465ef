#include "storage/timeseries/time_partitions.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "common/error.h"

namespace freshet {
namespace {

std::vector<TimeSeriesRow> Rows(const std::vector<int64_t>& timestamps, const std::string& fields = "f") {
  std::vector<TimeSeriesRow> rows;
  for (int64_t ts : timestamps) rows.push_back({"host1", ts, fields});
  return rows;
}

std::vector<int64_t> Timestamps(const TimeSeriesMemtable& m) {
  std::vector<int64_t> out;
  m.ForEach([&](const TimeSeriesRow& r) {
    out.push_back(r.ts);
    return true;
  });
  return out;
}

TimePartitions Make(std::optional<int64_t> window_seconds, bool append_mode = false) {
  return TimePartitions(window_seconds, TimeUnit::kMillisecond, append_mode, std::make_shared<std::atomic<uint64_t>>(1));
}

// The reference's three unit checks (../shared/reference/greptimedb.md).
TEST(TimePartitionsTest, WithoutAWindowOnePartitionHoldsEveryRowInOrder) {
  TimePartitions parts = Make(std::nullopt);
  EXPECT_TRUE(parts.is_empty());
  parts.Write(Rows({1000, 3000, 7000, 5000, 6000}));
  auto p = parts.partitions();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_TRUE(p[0].range.unbounded);
  EXPECT_EQ(Timestamps(*p[0].memtable), (std::vector<int64_t>{1000, 3000, 5000, 6000, 7000}));
  EXPECT_FALSE(parts.is_empty());
}

TEST(TimePartitionsTest, ATenSecondWindowKeepsBothBatchesInOnePartition) {
  TimePartitions parts = Make(10);
  parts.Write(Rows({5000, 2000, 0}));
  parts.Write(Rows({3000, 7000, 4000}));
  auto p = parts.partitions();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].range.start, 0);
  EXPECT_EQ(p[0].range.end, 10000);
  EXPECT_EQ(Timestamps(*p[0].memtable), (std::vector<int64_t>{0, 2000, 3000, 4000, 5000, 7000}));
}

TEST(TimePartitionsTest, AFiveSecondWindowSplitsASecondBatchOverTwoPartitions) {
  TimePartitions parts = Make(5);
  parts.Write(Rows({2000, 0}));
  parts.Write(Rows({3000, 7000, 4000, 5000}));
  auto p = parts.partitions();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].range.start, 0);
  EXPECT_EQ(p[0].range.end, 5000);
  EXPECT_EQ(Timestamps(*p[0].memtable), (std::vector<int64_t>{0, 2000, 3000, 4000}));
  EXPECT_EQ(p[1].range.start, 5000);
  EXPECT_EQ(p[1].range.end, 10000);
  EXPECT_EQ(Timestamps(*p[1].memtable), (std::vector<int64_t>{5000, 7000}));
}

TEST(TimePartitionsTest, StartsAreEuclideanFloorsInWholeSecondsInEveryUnit) {
  // -1 ms: the partition starting at -5000 ms for a 5 s window.
  TimePartitionRange r = PartitionRangeOf(-1, TimeUnit::kMillisecond, 5);
  EXPECT_EQ(r.start, -5000);
  EXPECT_EQ(r.end, 0);
  EXPECT_EQ(PartitionRangeOf(-5000, TimeUnit::kMillisecond, 5).start, -5000);
  EXPECT_EQ(PartitionRangeOf(-5001, TimeUnit::kMillisecond, 5).start, -10000);
  EXPECT_EQ(PartitionRangeOf(4999, TimeUnit::kMillisecond, 5).start, 0);
  // Whole seconds first: 1.9 s in a 1 s window starts at 1 s.
  EXPECT_EQ(PartitionRangeOf(1900, TimeUnit::kMillisecond, 1).start, 1000);
  EXPECT_EQ(PartitionRangeOf(3599, TimeUnit::kSecond, 3600).start, 0);
  EXPECT_EQ(PartitionRangeOf(-1, TimeUnit::kNanosecond, 3600).start, -3600LL * 1000000000);
  EXPECT_EQ(PartitionRangeOf(7200000001, TimeUnit::kMicrosecond, 3600).end, 10800000000);
}

TEST(TimePartitionsTest, ARangeOutOf64BitsFailsTheWholeBatch) {
  auto code = [](auto fn) {
    try {
      fn();
    } catch (const SqlError& e) {
      return std::string(e.code());
    }
    return std::string("none");
  };
  // The end of the last partition does not fit.
  EXPECT_EQ(code([] { PartitionRangeOf(INT64_MAX, TimeUnit::kSecond, 3600); }), "22008");
  // The start of the first one does not either.
  EXPECT_EQ(code([] { PartitionRangeOf(INT64_MIN, TimeUnit::kSecond, 3600); }), "22008");
  EXPECT_EQ(code([] { PartitionRangeOf(INT64_MIN, TimeUnit::kNanosecond, 3600); }), "22008");
  // The earliest hour that starts within 64 bits of nanoseconds.
  EXPECT_EQ(PartitionRangeOf(-9223369200LL * 1000000000, TimeUnit::kNanosecond, 3600).start, -9223369200LL * 1000000000);
  TimePartitions parts = Make(5);
  EXPECT_EQ(code([&] { parts.Write(Rows({1000, INT64_MAX})); }), "22008");
  EXPECT_TRUE(parts.partitions().empty());  // nothing of the batch was written
}

TEST(TimePartitionsTest, WindowsAreWholeSecondsOfOneSecondOrMore) {
  EXPECT_EQ(TimeWindowSeconds("1h"), 3600);
  EXPECT_EQ(TimeWindowSeconds("2 hours"), 7200);
  EXPECT_EQ(TimeWindowSeconds("30m"), 1800);
  EXPECT_EQ(TimeWindowSeconds("1d"), 86400);
  EXPECT_EQ(TimeWindowSeconds("1s"), 1);
  for (const char* bad : {"500ms", "0s", "-1h", "1.5s", "soon", ""}) {
    try {
      TimeWindowSeconds(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), "22023") << bad;
    }
  }
}

TEST(TimePartitionsTest, FreezeMakesEveryMemtableImmutableAndForksTheLatestPartitionOnly) {
  TimePartitions parts = Make(5);
  EXPECT_TRUE(parts.Fork()->partitions().empty());  // no partitions: an empty set
  parts.Write(Rows({0, 6000, 12000}));
  auto frozen = parts.Freeze();
  ASSERT_EQ(frozen.size(), 3u);
  for (const auto& m : frozen) EXPECT_TRUE(m->frozen());
  EXPECT_THROW(parts.Write(Rows({1})), SqlError);
  std::unique_ptr<TimePartitions> next = parts.Fork();
  auto p = next->partitions();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].range.start, 10000);
  EXPECT_EQ(p[0].range.end, 15000);
  EXPECT_NE(p[0].memtable->id(), frozen[2]->id());
  EXPECT_TRUE(next->is_empty());
  next->Write(Rows({13000, 1000}));
  EXPECT_EQ(next->partitions().size(), 2u);
  EXPECT_EQ(frozen[2]->num_rows(), 1u);  // the frozen one is untouched
}

TEST(TimePartitionsTest, ALaterWriteReplacesAnEarlierOneUnlessAppendMode) {
  TimePartitions replacing = Make(5);
  replacing.Write(Rows({1000}, "a"));
  replacing.Write(Rows({1000}, "b"));
  std::vector<std::string> seen;
  auto fields = [&](const TimePartitions& parts) {
    seen.clear();
    parts.partitions()[0].memtable->ForEach([&](const TimeSeriesRow& r) {
      seen.push_back(r.fields);
      return true;
    });
    return seen;
  };
  EXPECT_EQ(fields(replacing), (std::vector<std::string>{"b"}));
  TimePartitions appending = Make(5, /*append_mode=*/true);
  appending.Write(Rows({1000}, "a"));
  appending.Write(Rows({1000}, "b"));
  EXPECT_EQ(fields(appending), (std::vector<std::string>{"a", "b"}));
}

// Writers racing to make the same partition end up in one.
TEST(TimePartitionsTest, ConcurrentWritersShareANewPartition) {
  TimePartitions parts = Make(10);
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; w++)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 200; i++)
        parts.Write({TimeSeriesRow{"host" + std::to_string(w), int64_t(i) * 100 + (i % 3) * 10000, "f"}});
    });
  for (auto& t : writers) t.join();
  std::set<int64_t> starts;
  for (int i = 0; i < 200; i++) starts.insert((int64_t(i) * 100 + (i % 3) * 10000) / 10000 * 10000);
  auto p = parts.partitions();
  ASSERT_EQ(p.size(), starts.size());
  for (size_t i = 0; i < p.size(); i++) EXPECT_EQ(p[i].range.start, *std::next(starts.begin(), i));
  size_t rows = 0;
  for (const auto& x : p) rows += x.memtable->num_rows();
  EXPECT_EQ(rows, 800u);
}

}  // namespace
}  // namespace freshet
