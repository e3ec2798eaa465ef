// HashJoinOperator (hash_join.h) driven by hand: a row whose own side's
// bucket is not in memory is written without loading it, and a load of
// that bucket before the write is committed still sees it (and a delete
// made that way).
#include "stream/hash_join.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace freshet
