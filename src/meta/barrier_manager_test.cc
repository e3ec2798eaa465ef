// DatabaseEpochLoop when a commit fails (barrier_manager.h): nothing of the
// epoch is stored, FLUSH gets the error (53100 for a full disk), writes are
// refused, and the next commit once there is room stores everything that
// was pending. The store's reserve stands in for the full disk (a reserve
// above the free space is a disk that is full).
#include "meta/barrier_manager.h"

#include "storage/test_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace freshet {
namespace {

// A store in `dir`/data with no disk reserve (tests raise it); null when
// it does not open.
std::unique_ptr<StateStore> OpenStore(const std::string& dir) {
  StoreOptions o;
  o.dir = dir + "/data";
  o.disk_reserve_bytes = 0;
  o.block_cache_bytes = 8 << 20;
  o.scan_cache_bytes = 0;
  auto opened = StateStore::Open(o);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  if (!opened.ok()) return nullptr;
  return std::move(opened).value();
}

// The committed value of `key`, or "<absent>".
std::string Stored(StateStore& store, const std::string& key) {
  std::string v;
  return store.Get(store.data_cf(), nullptr, key, &v).ok() ? v : std::string("<absent>");
}

TEST(EpochLoopCommitFailure, WritesStayPendingUntilACommitSucceeds) {
  TestDir tmp("freshet-barrier-test");
  const std::string& dir = tmp.path();
  {
    std::unique_ptr<StateStore> store = OpenStore(dir);
    ASSERT_TRUE(store);
    DatabaseEpochLoop loop(store.get(), 7, /*barrier_interval_ms=*/5);
    StateTableDesc desc;
    desc.table_id = 1000;
    auto table = std::make_shared<StateTable>(store.get(), desc);
    loop.Register(table);
    auto stored = [&](const std::string& key) { return Stored(*store, key); };
    std::string k1 = TablePrefix(1000) + "a", k2 = TablePrefix(1000) + "b";

    {
      auto guard = loop.BeginWrite();
      table->Put(k1, "one");
    }
    Epoch first = loop.Flush();
    EXPECT_EQ(stored(k1), "one");

    // The disk is full: the write is taken, its commit fails.
    store->set_disk_reserve_bytes(store->FreeDiskBytes() + (uint64_t(1) << 30));
    {
      auto guard = loop.BeginWrite();
      table->Put(k2, "two");
    }
    try {
      loop.Flush();
      ADD_FAILURE() << "FLUSH succeeded on a full disk";
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), "53100") << e.message();
    }
    EXPECT_GE(loop.failed_commits(), 1u);
    EXPECT_EQ(loop.committed_epoch(), first);
    EXPECT_EQ(stored(k2), "<absent>");
    EXPECT_EQ(table->Get(k2).value_or("<absent>"), "two");  // still readable by its writer
    try {
      loop.CheckAcceptingWrites();
      ADD_FAILURE() << "writes accepted after a failed commit";
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), "53100") << e.message();
    }

    // Room again: the next commit stores what was pending.
    store->set_disk_reserve_bytes(0);
    Epoch later = loop.Flush();
    EXPECT_GT(later, first);
    EXPECT_EQ(stored(k2), "two");
    EXPECT_NO_THROW(loop.CheckAcceptingWrites());
    loop.Stop();
  }
}

// A FLUSH waiting while the database recovers from an actor's failure is
// answered by the commit after the recovery, never by the recovery's own
// barrier (which commits nothing): when it returns, the failed epoch's
// table writes are stored.
TEST(EpochLoopRecovery, FlushWaitsForTheCommitAfterTheRecovery) {
  TestDir tmp("freshet-barrier-recovery-test");
  std::unique_ptr<StateStore> store = OpenStore(tmp.path());
  ASSERT_TRUE(store);
  // Barriers run only when asked for: the failure is seen by the flush's.
  DatabaseEpochLoop loop(store.get(), 7, /*barrier_interval_ms=*/3600 * 1000);
  int recoveries = 0;
  loop.set_recovery_handler([&](const StreamRuntime::Failure& f) {
    EXPECT_EQ(f.message, "injected");
    recoveries++;
    loop.ApplyGraphChange(std::make_shared<Mutation>(), {}, /*recovery=*/true);
  });
  StateTableDesc desc;
  desc.table_id = 1000;
  auto table = std::make_shared<StateTable>(store.get(), desc);
  loop.Register(table);
  auto stored = [&](const std::string& key) { return Stored(*store, key); };
  std::string k1 = TablePrefix(1000) + "a", k2 = TablePrefix(1000) + "b";
  {
    auto guard = loop.BeginWrite();
    table->Put(k1, "one");
  }
  Epoch first = loop.Flush();
  EXPECT_EQ(stored(k1), "one");

  {
    auto guard = loop.BeginWrite();
    table->Put(k2, "two");
  }
  loop.runtime()->MakeActorHost(/*job_id=*/1, /*actor=*/1)->ReportFailure("injected", "XX000");
  Epoch after = loop.Flush();
  EXPECT_EQ(recoveries, 1);
  EXPECT_GT(after, first);
  EXPECT_EQ(stored(k2), "two");
  EXPECT_EQ(loop.committed_epoch(), after);
  loop.Stop();
}

}  // namespace
}  // namespace freshet
