// TestActorContext: what an operator driven by hand in a unit test needs
// (tests only): a store in memory, an ActorContext on it owning every vnode,
// services whose committed epoch the test sets, and the commit of what the
// operator's state tables wrote, as an actor and the epoch loop would.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <vector>

#include "storage/state_store.h"
#include "storage/state_table.h"
#include "storage/table_engines.h"
#include "storage/test_store.h"
#include "stream/operator.h"
#include "stream/state_cache.h"

namespace freshet {

class FakeServices : public ActorServices {
 public:
  Epoch committed = 0;
  Epoch committed_epoch() const override { return committed; }
  bool WaitCommitted(Epoch epoch) override { return committed >= epoch; }
  void RequestBarrier() override {}
  std::optional<int64_t> BackfillRateLimit() const override { return std::nullopt; }
  void ReportBackfillFinished(Epoch) override {}
  bool BackfillLevelReady(int) const override { return true; }
};

// A chunk of three INT columns, a row per triple.
inline DataChunk Int32Rows(const std::vector<std::array<int32_t, 3>>& rows) {
  DataChunk chunk({DataType::Int32(), DataType::Int32(), DataType::Int32()});
  for (const auto& r : rows)
    for (size_t c = 0; c < 3; c++) chunk.column(c).AppendInt(r[c]);
  chunk.set_cardinality(rows.size());
  return chunk;
}

// A join's output row: the left row's id and the right row's id (-1:
// none, or NULL).
struct JoinOut {
  Op op;
  int32_t left, right;
  bool operator==(const JoinOut& o) const { return op == o.op && left == o.left && right == o.right; }
};
inline std::ostream& operator<<(std::ostream& os, const JoinOut& o) {
  return os << "(" << int(o.op) << ", " << o.left << ", " << o.right << ")";
}

// Restores the operator-state budget a test changes.
struct StateCacheBudgetGuard {
  size_t saved = StateCacheBytes();
  ~StateCacheBudgetGuard() { SetStateCacheBytes(saved); }
};

struct TestActorContext {
  std::unique_ptr<StateStore> store = OpenTestStore();
  FakeServices services;
  ActorContext ctx;

  TestActorContext() {
    ctx.store = store.get();
    ctx.services = &services;
  }

  // Commits what the state tables wrote as epoch `epoch` (the barrier
  // ending it was handled).
  void Commit(Epoch epoch) {
    WriteLog log;
    for (auto& t : ctx.state_tables) t->TakeWrites(&log);
    CommitWrites writes;
    writes.ops.push_back(&log);
    StateStore::EpochCommit commit;
    commit.database_id = 1;
    commit.epoch = epoch;
    ASSERT_TRUE(store->engines().CommitEpoch(writes, commit).ok());
    services.committed = epoch;
  }
};

}  // namespace freshet
