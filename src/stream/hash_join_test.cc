// HashJoinOperator (hash_join.h) driven by hand: a row whose own side's
// bucket is not in memory is written without loading it, and a load of
// that bucket before the write is committed still sees it (and a delete
// made that way); a small side is held whole, so that keys it does not
// have cost no read of its state table.
#include "stream/hash_join.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include "stream/test_actor_context.h"

namespace freshet {
namespace {

using Out = JoinOut;

// l LEFT JOIN r ON l.k = r.k, both sides' rows (k INT, id INT, v INT) with
// stream key id (Int32Rows).
std::unique_ptr<HashJoinOperator> NewJoin(TestActorContext* actor, std::vector<Out>* out) {
  HashJoinOperator::Side sides[2];
  for (int s = 0; s < 2; s++) {
    sides[s].keys = {0};
    sides[s].stream_key = {1};
    sides[s].types = {DataType::Int32(), DataType::Int32(), DataType::Int32()};
    sides[s].table.table_id = TableId(60 + s);
    sides[s].table.column_types = sides[s].types;
    sides[s].table.column_types.push_back(DataType::Int64());  // the degree
    sides[s].table.pk_indices = {0, 1};
    sides[s].table.dist_key_indices = {0};
  }
  auto op = std::make_unique<HashJoinOperator>(JoinType::kLeft, std::move(sides[0]), std::move(sides[1]), nullptr,
                                               EvalContext{});
  op->set_next([out](StreamChunk chunk) {
    const DataChunk& d = chunk.data();
    for (size_t r = 0; r < chunk.num_rows(); r++)
      out->push_back({chunk.ops()[r], d.column(1).IsNull(r) ? -1 : int32_t(d.column(1).GetValue(r).int_value()),
                      d.column(4).IsNull(r) ? -1 : int32_t(d.column(4).GetValue(r).int_value())});
  });
  op->Open(&actor->ctx);
  return op;
}

TEST(HashJoinTest, RowsWrittenWithoutTheirBucketAreSeenByItsNextLoad) {
  StateCacheBudgetGuard guard;
  TestActorContext actor;
  std::vector<Out> out;
  auto join = NewJoin(&actor, &out);
  // Right rows 10 and 11 of key 1, committed; with no budget the next
  // barrier drops every bucket.
  join->OnChunk(1, StreamChunk({Op::kInsert, Op::kInsert}, Int32Rows({{1, 10, 0}, {1, 11, 0}})));
  join->OnBarrier(Barrier{1, 2, nullptr, true});
  actor.Commit(1);
  SetStateCacheBytes(0);
  join->OnBarrier(Barrier{2, 3, nullptr, true});
  actor.Commit(2);

  // Epoch 3: left row 100 of key 1 probes the right bucket (loaded) and is
  // written to its own side without loading it; left row 200 of key 2
  // matches nothing (padded). Then right rows of keys 1 and 2 probe the
  // left buckets, loaded from the store, where neither left row is yet.
  join->OnChunk(0, StreamChunk({Op::kInsert, Op::kInsert}, Int32Rows({{1, 100, 0}, {2, 200, 0}})));
  join->OnChunk(1, StreamChunk({Op::kInsert, Op::kInsert}, Int32Rows({{1, 12, 0}, {2, 20, 0}})));
  std::vector<Out> expected = {{Op::kInsert, 100, 10}, {Op::kInsert, 100, 11}, {Op::kInsert, 200, -1},
                               {Op::kInsert, 100, 12}, {Op::kDelete, 200, -1}, {Op::kInsert, 200, 20}};
  EXPECT_EQ(out, expected) << "the left rows' loads saw the rows written without them";
  out.clear();
  join->OnBarrier(Barrier{3, 4, nullptr, true});
  actor.Commit(3);
  join->OnBarrier(Barrier{4, 5, nullptr, true});  // drops every bucket again
  actor.Commit(4);

  // Epoch 5: left row 100's delete is written without loading its bucket;
  // a right row of key 1 then loads it and must not find row 100.
  join->OnChunk(0, StreamChunk({Op::kDelete}, Int32Rows({{1, 100, 0}})));
  join->OnChunk(1, StreamChunk({Op::kInsert}, Int32Rows({{1, 13, 0}})));
  expected = {{Op::kDelete, 100, 10}, {Op::kDelete, 100, 11}, {Op::kDelete, 100, 12}};
  EXPECT_EQ(out, expected) << "row 100 is gone for the load in the same epoch";
  out.clear();
  join->OnBarrier(Barrier{5, 6, nullptr, true});
  actor.Commit(5);
  join->OnBarrier(Barrier{6, 7, nullptr, true});
  actor.Commit(6);

  // After the commits, from the store alone: row 200 (degree 1) loses its
  // match and is padded again; key 1 has no left row left.
  join->OnChunk(1, StreamChunk({Op::kDelete, Op::kDelete}, Int32Rows({{2, 20, 0}, {1, 13, 0}})));
  expected = {{Op::kDelete, 200, 20}, {Op::kInsert, 200, -1}};
  EXPECT_EQ(out, expected);
}

// Seeks of the store's iterators (each load of a bucket is one) while fn runs.
template <typename Fn>
uint64_t SeeksDuring(Fn fn) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  fn();
  uint64_t seeks = rocksdb::get_perf_context()->seek_on_memtable_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  return seeks;
}

TEST(HashJoinTest, ASmallSideIsHeldWholeAndItsMissingKeysAreNotRead) {
  for (const size_t right_rows : {size_t(5), HashJoinOperator::kWholeSideRows + 1}) {
    SCOPED_TRACE(right_rows);
    TestActorContext actor;
    std::vector<Out> out;
    {
      // Right rows of keys 1..right_rows (id 10 + key), left rows of keys 1
      // and 2, committed.
      auto join = NewJoin(&actor, &out);
      std::vector<std::array<int32_t, 3>> rows;
      for (size_t k = 1; k <= right_rows; k++) rows.push_back({int32_t(k), int32_t(10 + k), 0});
      std::vector<Op> ops(rows.size(), Op::kInsert);
      join->OnChunk(1, StreamChunk(std::move(ops), Int32Rows(rows)));
      join->OnChunk(0, StreamChunk({Op::kInsert, Op::kInsert}, Int32Rows({{1, 100, 0}, {2, 200, 0}})));
      join->OnBarrier(Barrier{1, 2, nullptr, true});
      actor.Commit(1);
    }
    // Restarted on the stored state: left rows of keys 1 (stored on the
    // right) and of keys the right side does not have.
    out.clear();
    auto join = NewJoin(&actor, &out);
    const bool whole = right_rows <= HashJoinOperator::kWholeSideRows;
    uint64_t seeks = SeeksDuring([&] {
      join->OnChunk(0, StreamChunk({Op::kInsert, Op::kInsert, Op::kInsert},
                                   Int32Rows({{1, 101, 0}, {-7, 700, 0}, {-8, 800, 0}})));
    });
    std::vector<Out> expected = {{Op::kInsert, 101, 11}, {Op::kInsert, 700, -1}, {Op::kInsert, 800, -1}};
    EXPECT_EQ(out, expected);
    if (whole) EXPECT_EQ(seeks, 0u) << "a whole side's missing keys were looked up in storage";
    else EXPECT_GE(seeks, 3u) << "a side too big to hold whole is read by key";
    // A right row joins the stored left rows of its key (the left side,
    // two rows, is whole) and a new key's row is padded.
    out.clear();
    join->OnChunk(1, StreamChunk({Op::kInsert, Op::kInsert}, Int32Rows({{2, 99, 0}, {-9, 98, 0}})));
    expected = {{Op::kInsert, 200, 99}};
    EXPECT_EQ(out, expected);
    out.clear();
    join->OnChunk(0, StreamChunk({Op::kDelete}, Int32Rows({{-7, 700, 0}})));
    expected = {{Op::kDelete, 700, -1}};
    EXPECT_EQ(out, expected);
  }
}

}  // namespace
}  // namespace freshet
