#include "stream/cross_db_scan.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "common/encoding.h"
#include "stream/test_actor_context.h"

namespace freshet {
namespace {

// Database b (id 2) changes a relation (k int primary key, v int) epoch by
// epoch, its change log written with each commit as the log job writes it
// (truncated below what its consumers recorded); the scan in database a (id 1, the test context's) runs steps
// and barriers in between, and now and then "crashes": its uncommitted
// output and progress are lost and it starts again from what a committed.
// Applying what it emitted must give b's relation: every row once, every
// change once, whatever the interleaving.
TEST(CrossDbScanTest, ItsOutputFollowsTheOtherDatabaseExactlyThroughItsChangesAndRestarts) {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    SCOPED_TRACE(seed);
    TestActorContext a;
    std::mt19937 rng(seed);
    StateTableDesc relation;
    relation.table_id = 50;
    relation.column_types = {DataType::Int32(), DataType::Int32()};
    relation.pk_indices = {0};
    relation.dist_key_indices = {0};
    constexpr TableId kLog = 51;
    StateTableDesc log_desc;
    log_desc.table_id = kLog;
    log_desc.column_types = {DataType::Bytea()};
    log_desc.pk_indices = {0};
    StateTableDesc progress;
    progress.table_id = 52;
    progress.column_types = {DataType::Int32(), DataType::Int64(), DataType::Varchar(), DataType::Boolean(),
                             DataType::Int64()};
    progress.pk_indices = {0};
    progress.dist_key_indices = {0};
    StateTable keys(a.store.get(), relation);

    std::map<int32_t, int32_t> b;  // b's relation
    Epoch b_epoch = 1000;
    auto commit_b = [&](int changes) {
      WriteLog writes;
      ChangeLogEpoch log;
      for (int i = 0; i < changes; i++) {
        // A key of the scan's vnodes (about 300 of 0..20000 are).
        int32_t k = 0;
        do {
          k = static_cast<int32_t>(rng() % 20000);
          DataChunk probe({DataType::Int32(), DataType::Int32()});
          probe.AppendRow({Value::Int32(k), Value::Int32(0)});
          if (keys.VnodeOf(probe, 0) < 4) break;
        } while (true);
        DataChunk row({DataType::Int32(), DataType::Int32()});
        auto it = b.find(k);
        std::string old_value, new_value;
        if (it != b.end()) {
          row.AppendRow({Value::Int32(k), Value::Int32(it->second)});
          EncodeRow(row, 0, &old_value);
        }
        const bool remove = it != b.end() && rng() % 3 == 0;
        DataChunk next({DataType::Int32(), DataType::Int32()});
        int32_t v = static_cast<int32_t>(rng() % 1000);
        next.AppendRow({Value::Int32(k), Value::Int32(v)});
        const std::string key = keys.KeyOf(next, 0);
        if (it != b.end()) log.AddKeyed(key, false, old_value);
        if (remove) {
          writes.Delete(key, -1);
          b.erase(k);
          continue;
        }
        EncodeRow(next, 0, &new_value);
        writes.Put(key, new_value, it == b.end() ? 1 : 0);
        log.AddKeyed(key, true, new_value);
        b[k] = v;
      }
      b_epoch += 1 << 16;
      log.WriteTo(kLog, b_epoch, &writes);
      ChangeLogReader reader(a.store.get(), kLog);
      if (auto before = reader.TruncationBound(nullptr, 0)) reader.Truncate(nullptr, *before, &writes);
      CommitWrites commit;
      commit.ops.push_back(&writes);
      ASSERT_TRUE(a.store->engines().CommitEpoch(commit, StateStore::EpochCommit{2, b_epoch, {}, 0}).ok());
    };

    std::map<int32_t, int32_t> out, committed_out;  // what a's downstream holds, and held at its last commit
    std::vector<std::string> problems;
    std::unique_ptr<CrossDbScanOperator> scan;
    a.ctx.vnodes = {0, kVnodeCount};  // (b's changes are all in vnodes 0-3: the others are empty)
    a.ctx.job_id = 7;
    auto start = [&] {
      a.ctx.state_tables.clear();  // a crash loses the old operator's uncommitted writes
      // Two rows a step: positions fall mid-vnode.
      scan = std::make_unique<CrossDbScanOperator>(relation, 2, log_desc, progress, /*level=*/0, /*rows_per_step=*/2);
      scan->set_next([&](StreamChunk chunk) {
        for (size_t r = 0; r < chunk.num_rows(); r++) {
          int32_t k = static_cast<int32_t>(chunk.data().column(0).GetValue(r).int_value());
          int32_t v = static_cast<int32_t>(chunk.data().column(1).GetValue(r).int_value());
          if (IsInsertOp(chunk.ops()[r])) {
            if (out.count(k)) problems.push_back("insert of a present key " + std::to_string(k));
            out[k] = v;
          } else {
            if (!out.count(k) || out[k] != v) problems.push_back("delete of an absent row " + std::to_string(k));
            out.erase(k);
          }
        }
      });
      scan->Open(&a.ctx);
    };
    commit_b(300);  // rows before the scan starts
    // It joins the log with b's committed epoch as its bound (StreamJobs).
    ASSERT_TRUE(RegisterChangeLogConsumer(a.store.get(), kLog, ChangeLogConsumer{7, b_epoch, 0}).ok());
    start();
    // a's epochs a second apart (the scan truncates the log about once a second).
    Epoch a_epoch = Epoch(1000) << 16;
    auto barrier = [&] {
      scan->OnBarrier(Barrier{a_epoch, a_epoch + (Epoch(1000) << 16), nullptr, true});
      a.Commit(a_epoch);
      a_epoch += Epoch(1000) << 16;
    };
    for (int step = 0; step < 400; step++) {
      int what = static_cast<int>(rng() % 10);
      if (what < 3) {
        commit_b(static_cast<int>(rng() % 20));
      } else if (what < 8) {
        if (scan->HasWork()) scan->DoWork();
      } else if (what < 9) {
        barrier();
        committed_out = out;
      } else {
        out = committed_out;  // crash: a's uncommitted epoch is gone
        start();
      }
    }
    // b goes quiet; the scan catches up with it (it sees b's new epochs at
    // its barriers).
    for (int round = 0; round < 1000 && !scan->CaughtUp(b_epoch); round++) {
      barrier();
      for (int i = 0; i < 10000 && scan->HasWork(); i++) scan->DoWork();
    }
    EXPECT_TRUE(scan->CaughtUp(b_epoch));
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(out, b);
    // It records its progress in the log with a's commits; b's next commit
    // deletes what it read.
    barrier();
    barrier();  // the record is of the progress the first committed
    auto consumers = ChangeLogReader(a.store.get(), kLog).Consumers(nullptr);
    ASSERT_EQ(consumers.size(), 1u);
    EXPECT_EQ(consumers[0].id, 7u);
    EXPECT_EQ(consumers[0].read_through, b_epoch);
    commit_b(0);
    EXPECT_EQ(ChangeLogReader(a.store.get(), kLog).Count(nullptr).entries, 0u);
  }
}

}  // namespace
}  // namespace freshet
