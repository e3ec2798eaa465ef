// DmlLog (dml_log.h): entries come back from Replay in order after a
// restart, from the covered number on; a torn record ends the log; retired
// segments are reused and what they held before never comes back; a
// segment after a gap is invalidated, also once the covered number has
// moved past the gap; an oversized entry gets a segment of its own; a
// refused segment leaves no file; group commit from many threads.
#include "storage/dml_log.h"

#include "storage/test_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

namespace freshet {
namespace {

class DmlLogTest : public ::testing::Test {
 protected:

  std::unique_ptr<DmlLog> Open(uint64_t covered) {
    return std::make_unique<DmlLog>(dir_, covered, [this](uint64_t) { return space_; });
  }
  uint64_t Append(DmlLog* log, const std::string& entry) {
    Result<uint64_t> seq = log->Append(entry);
    EXPECT_TRUE(seq.ok()) << seq.status().ToString();
    EXPECT_TRUE(log->Sync(seq.ok() ? *seq : 0).ok());
    return seq.ok() ? *seq : 0;
  }
  // The entries Replay gives, as "seq:entry" (long entries by size).
  std::vector<std::string> Replayed(DmlLog* log) {
    std::vector<std::string> out;
    Result<size_t> n = log->Replay([&](uint64_t seq, std::string_view entry) {
      out.push_back(std::to_string(seq) + ":" +
                    (entry.size() > 64 ? std::to_string(entry.size()) + "B" + std::string(entry.substr(0, 1)) : std::string(entry)));
    });
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    if (n.ok()) {
      EXPECT_EQ(*n, out.size());
    }
    return out;
  }
  size_t Files() {
    size_t n = 0;
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(dir_, ec)) n += f.path().extension() == ".seg";
    return n;
  }
  // Overwrites one byte of a segment file at `offset`.
  void Corrupt(const std::string& file, uint64_t offset) {
    int fd = open((dir_ + "/" + file).c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    char c;
    ASSERT_EQ(pread(fd, &c, 1, offset), 1);
    c ^= 0x5a;
    ASSERT_EQ(pwrite(fd, &c, 1, offset), 1);
    close(fd);
  }

  TestDir root_{"freshet-dml-log-test"};
  const std::string dir_ = root_.path() + "/log";
  Status space_;
};

// 1.5 MiB: two entries fill a 4 MiB segment, the third starts the next.
std::string Big(char c) { return std::string(3 << 19, c); }

TEST_F(DmlLogTest, ReplaysFromTheCoveredNumberInOrder) {
  {
    auto log = Open(0);
    EXPECT_TRUE(Replayed(log.get()).empty());
    EXPECT_EQ(Append(log.get(), "a"), 1u);
    EXPECT_EQ(Append(log.get(), "b"), 2u);
    EXPECT_EQ(Append(log.get(), "c"), 3u);
  }
  EXPECT_EQ(Replayed(Open(0).get()), (std::vector<std::string>{"1:a", "2:b", "3:c"}));
  EXPECT_EQ(Replayed(Open(2).get()), (std::vector<std::string>{"3:c"}));
  EXPECT_TRUE(Replayed(Open(3).get()).empty());
  // Numbers go on after the replayed ones, in a new segment.
  {
    auto log = Open(1);
    EXPECT_EQ(Replayed(log.get()).size(), 2u);
    EXPECT_EQ(Append(log.get(), "d"), 4u);
    EXPECT_FALSE(log->Replay([](uint64_t, std::string_view) {}).ok());  // only once, before appends
  }
  EXPECT_EQ(Replayed(Open(1).get()), (std::vector<std::string>{"2:b", "3:c", "4:d"}));
  // Covered past everything: numbers go on from the covered one.
  auto log = Open(10);
  EXPECT_TRUE(Replayed(log.get()).empty());
  EXPECT_EQ(Append(log.get(), "e"), 11u);
}

TEST_F(DmlLogTest, ATornRecordEndsTheLog) {
  {
    auto log = Open(0);
    for (const char* e : {"one", "two", "three"}) Append(log.get(), e);
  }
  // Header 32 bytes, records 20 + length: "three" starts at 32 + 23 + 23.
  Corrupt("0.seg", 32 + 23 + 23 + 20 + 2);
  {
    auto log = Open(0);
    EXPECT_EQ(Replayed(log.get()), (std::vector<std::string>{"1:one", "2:two"}));
    EXPECT_EQ(Append(log.get(), "four"), 3u);
  }
  EXPECT_EQ(Replayed(Open(0).get()), (std::vector<std::string>{"1:one", "2:two", "3:four"}));
}

TEST_F(DmlLogTest, RetiredSegmentsAreReusedAndTheirOldEntriesNeverReturn) {
  {
    auto log = Open(0);
    for (char c : {'a', 'b', 'c', 'd', 'e'}) Append(log.get(), Big(c));  // segments [1,2] [3,4] [5]
    EXPECT_EQ(log->segments_in_use(), 3u);
    EXPECT_EQ(Files(), 3u);
    log->Retire(4);
    EXPECT_EQ(log->segments_in_use(), 1u);
    EXPECT_EQ(log->free_segments(), 2u);
    log->Retire(5);  // the segment appended to stays
    EXPECT_EQ(log->segments_in_use(), 1u);
    Append(log.get(), Big('f'));  // 6: fills segment [5, 6]
    Append(log.get(), Big('g'));  // 7: reuses a retired segment, which held a and b
    EXPECT_EQ(Files(), 3u);
    EXPECT_EQ(log->free_segments(), 1u);
  }
  EXPECT_EQ(Replayed(Open(4).get()), (std::vector<std::string>{"5:1572864Be", "6:1572864Bf", "7:1572864Bg"}));
  // Everything retired at a restart: all segments kept for reuse.
  {
    auto log = Open(7);
    EXPECT_TRUE(Replayed(log.get()).empty());
    EXPECT_EQ(log->segments_in_use(), 0u);
    EXPECT_EQ(log->free_segments(), 3u);
    EXPECT_EQ(Append(log.get(), "h"), 8u);
    EXPECT_EQ(Files(), 3u);
  }
  EXPECT_EQ(Replayed(Open(7).get()), (std::vector<std::string>{"8:h"}));
}

TEST_F(DmlLogTest, ASegmentAfterAGapIsInvalidated) {
  {
    auto log = Open(0);
    for (char c : {'a', 'b', 'c', 'd'}) Append(log.get(), Big(c));  // segments [1,2] [3,4]
  }
  // Entry 2 torn: 3 and 4 were never acknowledged (a sync covers all
  // entries before it), and the numbers 2, 3, ... are given again.
  Corrupt("0.seg", 32 + (3 << 19) + 20 + 100);
  {
    auto log = Open(0);
    EXPECT_EQ(Replayed(log.get()), (std::vector<std::string>{"1:1572864Ba"}));
    EXPECT_EQ(Append(log.get(), "x"), 2u);
    EXPECT_EQ(Append(log.get(), "y"), 3u);
    EXPECT_EQ(Append(log.get(), "z"), 4u);
  }
  EXPECT_EQ(Replayed(Open(0).get()), (std::vector<std::string>{"1:1572864Ba", "2:x", "3:y", "4:z"}));
  // With the covered number past the gap, the old segment [3,4] would
  // match the expected numbers if it had not been invalidated.
  EXPECT_EQ(Replayed(Open(2).get()), (std::vector<std::string>{"3:y", "4:z"}));
}

TEST_F(DmlLogTest, AnOversizedEntryGetsASegmentOfItsOwn) {
  const std::string huge(DmlLog::kSegmentBytes + 1000, 'h');
  {
    auto log = Open(0);
    Append(log.get(), "a");
    Append(log.get(), huge);
    Append(log.get(), "b");
    EXPECT_EQ(Files(), 3u);
  }
  auto log = Open(0);
  EXPECT_EQ(Replayed(log.get()),
            (std::vector<std::string>{"1:a", "2:" + std::to_string(huge.size()) + "Bh", "3:b"}));
  log->Retire(3);  // the oversized segment is deleted, the others kept for reuse
  EXPECT_EQ(Files(), 2u);
  EXPECT_EQ(log->free_segments(), 2u);
}

// The last entry a large COPY logged, in a segment of its own, goes as soon
// as it is retired (it stayed until the next write: on disk until restart
// when none came), and the log appends again after it.
TEST_F(DmlLogTest, ARetiredOversizedLastEntryIsDeletedAtOnce) {
  const std::string huge(DmlLog::kSegmentBytes + 1000, 'h');
  {
    auto log = Open(0);
    Append(log.get(), "a");
    Append(log.get(), huge);
    EXPECT_EQ(Files(), 2u);
    log->Retire(2);
    EXPECT_EQ(log->segments_in_use(), 0u);
    EXPECT_EQ(Files(), 1u);  // the first, kept for reuse
    Append(log.get(), "b");
    ASSERT_TRUE(log->Sync(3).ok());
  }
  EXPECT_EQ(Replayed(Open(2).get()), (std::vector<std::string>{"3:b"}));
}

TEST_F(DmlLogTest, ARefusedSegmentLeavesNoFile) {
  auto log = Open(0);
  space_ = Status::NoSpace("full");
  Result<uint64_t> seq = log->Append("a");
  EXPECT_TRUE(seq.status().IsNoSpace());
  EXPECT_EQ(Files(), 0u);
  space_ = Status::OK();
  EXPECT_EQ(Append(log.get(), "a"), 1u);  // the refused entry took no number
  EXPECT_EQ(Files(), 1u);
}

TEST_F(DmlLogTest, GroupCommitFromManyThreads) {
  constexpr int kThreads = 8, kPerThread = 300;
  {
    auto log = Open(0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; i++) {
          Result<uint64_t> seq = log->Append(std::to_string(t) + "/" + std::to_string(i));
          ASSERT_TRUE(seq.ok());
          ASSERT_TRUE(log->Sync(*seq).ok());
        }
      });
    for (auto& t : threads) t.join();
  }
  std::vector<std::string> entries = Replayed(Open(0).get());
  ASSERT_EQ(entries.size(), size_t(kThreads * kPerThread));
  std::vector<int> next(kThreads, 0);
  for (size_t i = 0; i < entries.size(); i++) {
    const std::string& e = entries[i];
    ASSERT_EQ(e.substr(0, e.find(':')), std::to_string(i + 1));
    int t = std::stoi(e.substr(e.find(':') + 1));
    EXPECT_EQ(e.substr(e.find('/') + 1), std::to_string(next[t]++)) << "entries of one thread in order";
  }
}

}  // namespace
}  // namespace freshet
