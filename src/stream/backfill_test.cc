// BackfillOperator (backfill.h) driven by hand: the order in which the
// scanned rows and the upstream's changes leave the operator. Downstream
// operators key their state by whole rows (top-N by rank key, joins by
// join key), so a change that overtakes an earlier change to the same key
// leaves a row behind that the upstream no longer has.
#include "stream/backfill.h"

#include <gtest/gtest.h>

#include "common/encoding.h"
#include "storage/state_store.h"
#include "storage/state_table.h"
#include "storage/table_engines.h"
#include "storage/test_store.h"
#include "stream/test_actor_context.h"

namespace freshet {
namespace {

DataChunk Rows(const std::vector<std::pair<int32_t, int32_t>>& rows) {
  DataChunk chunk({DataType::Int32(), DataType::Int32()});
  for (const auto& [k, v] : rows) {
    chunk.column(0).AppendInt(k);
    chunk.column(1).AppendInt(v);
  }
  chunk.set_cardinality(rows.size());
  return chunk;
}

struct Emitted {
  Op op;
  int32_t key, value;
  bool operator==(const Emitted& o) const { return op == o.op && key == o.key && value == o.value; }
};
std::ostream& operator<<(std::ostream& os, const Emitted& e) {
  return os << "(" << int(e.op) << ", " << e.key << ", " << e.value << ")";
}

// The upstream (k INT PRIMARY KEY, v INT) holds (1, 10) at epoch 1; the
// actor owns only the vnode of k = 1. The change (1, 10) -> (1, 11)
// arrives before the scan reaches the key and is held; the scan then emits
// (1, 10); the delete of (1, 11) that follows in the same epoch must come
// after the held update, not before it.
TEST(BackfillTest, AChangeHeldBeforeTheScanPassedItsKeyIsNotOvertaken) {
  std::unique_ptr<StateStore> store = OpenTestStore();
  ASSERT_TRUE(store);

  StateTableDesc upstream;
  upstream.table_id = 30;
  upstream.column_types = {DataType::Int32(), DataType::Int32()};
  upstream.pk_indices = {0};
  upstream.dist_key_indices = {0};
  StateTableDesc progress;
  progress.table_id = 31;
  progress.column_types = {DataType::Int32(), DataType::Varchar(), DataType::Boolean(), DataType::Int64()};
  progress.pk_indices = {0};
  progress.dist_key_indices = {0};

  StateTable upstream_table(store.get(), upstream);
  DataChunk row = Rows({{1, 10}});
  std::string value;
  EncodeRow(row, 0, &value);
  WriteLog log;
  log.Put(upstream_table.KeyOf(row, 0), value, 1);
  CommitWrites writes;
  writes.ops.push_back(&log);
  StateStore::EpochCommit commit;
  commit.database_id = 1;
  commit.epoch = 1;
  ASSERT_TRUE(store->engines().CommitEpoch(writes, commit).ok());

  FakeServices services;
  services.committed = 1;
  ActorContext ctx;
  ctx.store = store.get();
  ctx.services = &services;
  const int vnode = upstream_table.VnodeOf(row, 0);
  ctx.vnodes = {vnode, vnode + 1};

  BackfillOperator backfill(upstream, upstream.column_types, progress);
  std::vector<Emitted> out;
  backfill.set_next([&](StreamChunk chunk) {
    for (size_t r = 0; r < chunk.num_rows(); r++)
      out.push_back({chunk.ops()[r], int32_t(chunk.data().column(0).GetValue(r).int_value()),
                     int32_t(chunk.data().column(1).GetValue(r).int_value())});
  });
  backfill.Open(&ctx);
  backfill.OnBarrier(Barrier{1, 2, nullptr, true});  // the job's first barrier: the snapshot reads epoch 1

  backfill.OnChunk(0, StreamChunk({Op::kUpdateDelete, Op::kUpdateInsert}, Rows({{1, 10}, {1, 11}})));
  EXPECT_TRUE(out.empty()) << "the key is beyond the scan: held";
  while (backfill.HasWork() && out.empty()) backfill.DoWork();
  backfill.OnChunk(0, StreamChunk({Op::kDelete}, Rows({{1, 11}})));
  while (backfill.HasWork()) backfill.DoWork();
  backfill.OnBarrier(Barrier{2, 3, nullptr, true});

  std::vector<Emitted> expected = {
      {Op::kInsert, 1, 10}, {Op::kDelete, 1, 10}, {Op::kInsert, 1, 11}, {Op::kDelete, 1, 11}};
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace freshet
