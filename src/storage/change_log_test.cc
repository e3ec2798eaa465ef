#include "storage/change_log.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "storage/state_store.h"
#include "storage/test_store.h"

namespace freshet {
namespace {

constexpr TableId kLog = 4242;

void Commit(StateStore* store, WriteLog* log, Epoch epoch) {
  CommitWrites w;
  w.ops.push_back(log);
  ASSERT_TRUE(store->CommitEpoch(w, StateStore::EpochCommit{1, epoch, {}, 0}).ok());
}

struct Change {
  std::string op, pk, row;
};

std::vector<Change> ReadAll(const ChangeLogReader& reader, uint16_t vnode, Epoch epoch) {
  std::vector<Change> out;
  reader.ReadEpoch(nullptr, epoch, vnode, vnode + 1, std::nullopt, [&](const ChangeLogEntry& e, const ChangeLogReader::Position&) {
    out.push_back({ChangeLogOpName(e.op), std::string(e.pk), std::string(e.row)});
    return true;
  });
  return out;
}

TEST(ChangeLogTest, AnEpochsChangesOfAKeyAreNetted) {
  auto store = OpenTestStore();
  ChangeLogEpoch epoch;
  epoch.Add(3, "a", true, "a1");     // inserted
  epoch.Add(3, "b", false, "b0");    // updated twice: b0 -> b1 -> b2
  epoch.Add(3, "b", true, "b1");
  epoch.Add(3, "b", false, "b1");
  epoch.Add(3, "b", true, "b2");
  epoch.Add(3, "c", false, "c0");    // deleted
  epoch.Add(3, "d", true, "d1");     // inserted and deleted: nothing
  epoch.Add(3, "d", false, "d1");
  epoch.Add(3, "e", false, "e0");    // deleted and inserted again: an update
  epoch.Add(3, "e", true, "e1");
  WriteLog log;
  EXPECT_EQ(epoch.WriteTo(kLog, 100, &log), 6u);
  EXPECT_TRUE(epoch.empty());
  Commit(store.get(), &log, 100);
  ChangeLogReader reader(store.get(), kLog);
  std::vector<Change> got = ReadAll(reader, 3, 100);
  ASSERT_EQ(got.size(), 6u);  // a Insert; b UpdateDelete, UpdateInsert; c Delete; e UpdateDelete, UpdateInsert
  EXPECT_EQ(got[0].op + got[0].pk + got[0].row, "Inserta" "a1");
  EXPECT_EQ(got[1].op + got[1].row, "UpdateDeleteb0");
  EXPECT_EQ(got[2].op + got[2].row, "UpdateInsertb2");
  EXPECT_EQ(got[3].op + got[3].row, "Deletec0");
  EXPECT_EQ(got[4].op + got[4].row, "UpdateDeletee0");
  EXPECT_EQ(got[5].op + got[5].row, "UpdateInserte1");
}

TEST(ChangeLogTest, ReadersFindTheNextEpochAndReadVnodeRangesResumingWithinOne) {
  auto store = OpenTestStore();
  ChangeLogReader reader(store.get(), kLog);
  EXPECT_EQ(reader.WrittenThrough(nullptr), 0u);
  for (Epoch e : {Epoch(10), Epoch(20), Epoch(30), Epoch(40)}) {
    ChangeLogEpoch epoch;
    if (e != 20 && e != 40) epoch.Add(0, "k" + std::to_string(e), true, "x" + std::to_string(e));
    if (e != 40) {
      epoch.Add(255, "k1", true, "r" + std::to_string(e));
      epoch.Add(255, "k2", true, "s" + std::to_string(e));
    }
    WriteLog log;
    epoch.WriteTo(kLog, e, &log);  // epoch 40: no changes, still written through
    Commit(store.get(), &log, e);
  }
  EXPECT_EQ(reader.WrittenThrough(nullptr), 40u);
  EXPECT_EQ(reader.NextEpoch(nullptr, 0), std::optional<Epoch>(10));
  EXPECT_EQ(reader.NextEpoch(nullptr, 10), std::optional<Epoch>(20));
  EXPECT_EQ(reader.NextEpoch(nullptr, 15), std::optional<Epoch>(20));
  EXPECT_EQ(reader.NextEpoch(nullptr, 30), std::nullopt);  // 40 had no changes
  // A vnode range of an epoch, in (vnode, key) order.
  auto rows = [&](Epoch e, int begin, int end) {
    std::vector<std::string> out;
    reader.ReadEpoch(nullptr, e, begin, end, std::nullopt, [&](const ChangeLogEntry& c, const ChangeLogReader::Position& p) {
      EXPECT_EQ(c.vnode, p.vnode);
      out.push_back(std::to_string(c.vnode) + ":" + std::string(c.row));
      return true;
    });
    return out;
  };
  EXPECT_EQ(rows(30, 0, 256), (std::vector<std::string>{"0:x30", "255:r30", "255:s30"}));
  EXPECT_EQ(rows(30, 0, 1), (std::vector<std::string>{"0:x30"}));
  EXPECT_EQ(rows(30, 1, 255), std::vector<std::string>{});
  EXPECT_EQ(rows(20, 0, 1), std::vector<std::string>{});
  // Resuming after the first entry of an epoch reads the rest.
  std::optional<ChangeLogReader::Position> at;
  reader.ReadEpoch(nullptr, 30, 0, 256, std::nullopt, [&](const ChangeLogEntry&, const ChangeLogReader::Position& p) {
    at = p;
    return false;
  });
  ASSERT_TRUE(at);
  std::vector<std::string> rest;
  reader.ReadEpoch(nullptr, 30, 0, 256, at, [&](const ChangeLogEntry& e, const ChangeLogReader::Position&) {
    rest.emplace_back(e.row);
    return true;
  });
  EXPECT_EQ(rest, (std::vector<std::string>{"r30", "s30"}));
  EXPECT_EQ(reader.OldestEpoch(nullptr), std::optional<Epoch>(10));
  EXPECT_EQ(reader.Count(nullptr).entries, 8u);
  // Truncation drops the epochs below the bound, of every vnode, and
  // records the epoch it is through.
  EXPECT_EQ(reader.TruncatedThrough(nullptr), 0u);
  WriteLog deletes;
  reader.Truncate(nullptr, 30, &deletes);
  EXPECT_TRUE(deletes.has_change_log_ops());
  Commit(store.get(), &deletes, 50);
  EXPECT_EQ(reader.OldestEpoch(nullptr), std::optional<Epoch>(30));
  EXPECT_EQ(reader.NextEpoch(nullptr, 0), std::optional<Epoch>(30));
  EXPECT_EQ(reader.TruncatedThrough(nullptr), 29u);
  EXPECT_EQ(reader.Count(nullptr).entries, 3u);
  EXPECT_EQ(reader.WrittenThrough(nullptr), 40u);  // the records stay
  EXPECT_EQ(rows(30, 255, 256), (std::vector<std::string>{"255:r30", "255:s30"}));
  // A lower bound later does not lower the record.
  WriteLog again;
  reader.Truncate(nullptr, 20, &again);
  Commit(store.get(), &again, 60);
  EXPECT_EQ(reader.TruncatedThrough(nullptr), 29u);
  EXPECT_EQ(reader.OldestEpoch(nullptr), std::optional<Epoch>(30));
}

// Random changes over many epochs: applying each epoch's logged changes to
// the relation as it was before the epoch gives it as it is after, and an
// entry of the log is never a no-op (a Delete of an absent key, an Insert
// of a present one).
TEST(ChangeLogTest, ReplayingTheLogRebuildsTheRelationAtEveryEpoch) {
  auto store = OpenTestStore();
  std::mt19937 rng(20261206);
  std::map<std::pair<uint16_t, std::string>, std::string> relation, replayed;
  ChangeLogReader reader(store.get(), kLog);
  for (Epoch e = 1; e <= 60; e++) {
    ChangeLogEpoch epoch;
    for (int i = 0; i < 40; i++) {
      uint16_t vnode = static_cast<uint16_t>(rng() % 4);
      std::string pk = "k" + std::to_string(rng() % 12);
      auto it = relation.find({vnode, pk});
      std::string row = "v" + std::to_string(rng() % 1000);
      if (it == relation.end()) {
        epoch.Add(vnode, pk, true, row);
        relation[{vnode, pk}] = row;
      } else if (rng() % 2) {
        epoch.Add(vnode, pk, false, it->second);
        relation.erase(it);
      } else {
        epoch.Add(vnode, pk, false, it->second);
        epoch.Add(vnode, pk, true, row);
        it->second = row;
      }
    }
    WriteLog log;
    epoch.WriteTo(kLog, e * 10, &log);
    Commit(store.get(), &log, e * 10);
    for (uint16_t vnode = 0; vnode < 4; vnode++) {
      std::optional<Epoch> next = reader.NextEpoch(nullptr, (e - 1) * 10);
      if (!next) continue;
      ASSERT_EQ(*next, e * 10);
      reader.ReadEpoch(nullptr, *next, vnode, vnode + 1, std::nullopt, [&](const ChangeLogEntry& c, const ChangeLogReader::Position&) {
        EXPECT_EQ(c.vnode, vnode);
        auto key = std::make_pair(vnode, std::string(c.pk));
        bool present = replayed.count(key) > 0;
        if (c.op == ChangeLogOp::kInsert || c.op == ChangeLogOp::kUpdateInsert) {
          EXPECT_FALSE(present) << "insert of a present key";  // an UpdateInsert follows its UpdateDelete
          replayed[key] = std::string(c.row);
        } else {
          EXPECT_TRUE(present) << "delete of an absent key";
          if (present) EXPECT_EQ(replayed[key], c.row);
          replayed.erase(key);
        }
        return true;
      });
    }
    ASSERT_EQ(replayed, relation) << "after epoch " << e;
  }
}

// The consumers' records: each replaces its own, the bound is the least
// of what they need (a view: the epochs after the one it read through; a
// subscription: its retention back from now), none means no truncation,
// and the records survive truncations.
TEST(ChangeLogTest, ConsumersRecordWhatTheyNeedAndTheLeastBoundsTruncation) {
  auto store = OpenTestStore();
  ChangeLogReader reader(store.get(), kLog);
  EXPECT_EQ(reader.TruncationBound(nullptr, 5000), std::nullopt);
  for (Epoch e = 1; e <= 5; e++) {
    ChangeLogEpoch epoch;
    epoch.Add(0, "k" + std::to_string(e), true, "row");
    WriteLog log;
    epoch.WriteTo(kLog, (Epoch(1000) * e) << 16, &log);
    Commit(store.get(), &log, (Epoch(1000) * e) << 16);
  }
  const Epoch second = Epoch(2000) << 16, fourth = Epoch(4000) << 16;
  ASSERT_TRUE(RegisterChangeLogConsumer(store.get(), kLog, ChangeLogConsumer{7, second, 0}).ok());
  EXPECT_EQ(reader.TruncationBound(nullptr, 5000), std::optional<Epoch>(second + 1));
  // A view's commit moves its record on.
  WriteLog moved;
  PutChangeLogConsumer(kLog, ChangeLogConsumer{7, fourth, 0}, &moved);
  Commit(store.get(), &moved, Epoch(6000) << 16);
  EXPECT_EQ(reader.TruncationBound(nullptr, 5000), std::optional<Epoch>(fourth + 1));
  // A subscription keeping 2.5 s at 5.0 s needs the epochs from 2.5 s on.
  ASSERT_TRUE(RegisterChangeLogConsumer(store.get(), kLog, ChangeLogConsumer{9, 0, 2500}).ok());
  EXPECT_EQ(reader.TruncationBound(nullptr, 5000), std::optional<Epoch>(Epoch(2500) << 16));
  auto consumers = reader.Consumers(nullptr);
  ASSERT_EQ(consumers.size(), 2u);
  EXPECT_EQ(consumers[0].id, 7u);
  EXPECT_EQ(consumers[0].read_through, fourth);
  EXPECT_EQ(consumers[1].id, 9u);
  EXPECT_EQ(consumers[1].retention_ms, 2500);
  WriteLog truncation;
  reader.Truncate(nullptr, *reader.TruncationBound(nullptr, 5000), &truncation);
  Commit(store.get(), &truncation, Epoch(7000) << 16);
  EXPECT_EQ(reader.OldestEpoch(nullptr), std::optional<Epoch>(Epoch(3000) << 16));
  EXPECT_EQ(reader.Consumers(nullptr).size(), 2u);
  // The subscription dropped: the view's bound alone.
  ASSERT_TRUE(RemoveChangeLogConsumer(store.get(), kLog, 9).ok());
  EXPECT_EQ(reader.TruncationBound(nullptr, 5000), std::optional<Epoch>(fourth + 1));
  ASSERT_TRUE(RemoveChangeLogConsumer(store.get(), kLog, 7).ok());
  EXPECT_EQ(reader.TruncationBound(nullptr, 5000), std::nullopt);
  EXPECT_TRUE(reader.Consumers(nullptr).empty());
}

// A log of session 41's layout (entries in the data family under the log's
// id) is deleted at the upgrade and recorded truncated through the epoch
// before the oldest this layout holds (or the given one), once.
TEST(ChangeLogTest, AnOldLayoutLogIsRetiredAsTruncated) {
  auto store = OpenTestStore();
  ChangeLogReader reader(store.get(), kLog);
  WriteLog old_layout;
  std::string key = TablePrefix(kLog);
  key.append("\x00\x01old entry", 11);
  old_layout.Put(key, "row", 0);
  Commit(store.get(), &old_layout, 100);
  ChangeLogEpoch epoch;
  epoch.Add(0, "k", true, "row");
  WriteLog current;
  epoch.WriteTo(kLog, 200, &current);
  Commit(store.get(), &current, 200);
  auto retired = RetireOldLayoutChangeLog(store.get(), kLog, 250);
  ASSERT_TRUE(retired.ok());
  EXPECT_TRUE(*retired);
  EXPECT_EQ(reader.TruncatedThrough(nullptr), 199u);
  std::string value;
  EXPECT_TRUE(store->Get(store->data_cf(), nullptr, key, &value).IsNotFound());
  EXPECT_EQ(reader.OldestEpoch(nullptr), std::optional<Epoch>(200));  // the new layout's entries stay
  auto again = RetireOldLayoutChangeLog(store.get(), kLog, 300);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(reader.TruncatedThrough(nullptr), 199u);
}

}  // namespace
}  // namespace freshet
