// AsOfJoinOperator (asof_join.h) driven by hand: keys whose writes are
// committed leave memory when the operator-state budget is exceeded, and a
// key loaded again from the state tables joins as one that never left.
#include "stream/asof_join.h"

#include <gtest/gtest.h>

#include "stream/test_actor_context.h"

namespace freshet {
namespace {

using Out = JoinOut;

// l ASOF LEFT JOIN r ON l.k = r.k AND l.t >= r.t, both sides' rows (k INT,
// id INT, t INT) with stream key id (Int32Rows).
std::unique_ptr<AsOfJoinOperator> NewJoin(TestActorContext* actor, std::vector<Out>* out) {
  AsOfJoinOperator::Side sides[2];
  for (int s = 0; s < 2; s++) {
    sides[s].keys = {0};
    sides[s].value = 2;
    sides[s].stream_key = {1};
    sides[s].types = {DataType::Int32(), DataType::Int32(), DataType::Int32()};
    sides[s].table.table_id = TableId(50 + s);
    sides[s].table.column_types = sides[s].types;
    sides[s].table.pk_indices = {0, 2, 1};
    sides[s].table.dist_key_indices = {0};
  }
  auto op = std::make_unique<AsOfJoinOperator>(JoinType::kLeft, std::move(sides[0]), std::move(sides[1]), nullptr,
                                               /*greatest=*/true, /*narrow=*/true, EvalContext{});
  op->set_next([out](StreamChunk chunk) {
    const DataChunk& d = chunk.data();
    for (size_t r = 0; r < chunk.num_rows(); r++)
      out->push_back({chunk.ops()[r], int32_t(d.column(1).GetValue(r).int_value()),
                      d.column(4).IsNull(r) ? -1 : int32_t(d.column(4).GetValue(r).int_value())});
  });
  op->Open(&actor->ctx);
  return op;
}

TEST(AsOfJoinTest, CommittedKeysLeaveMemoryOverTheBudgetAndComeBackExact) {
  StateCacheBudgetGuard guard;
  TestActorContext actor;
  std::vector<Out> out;
  auto join = NewJoin(&actor, &out);
  // 100 keys: right rows at t = 10, 20, 30 (ids k*10 + 1..3), a left row at t = 25 (id k).
  std::vector<std::array<int32_t, 3>> right, left;
  for (int32_t k = 0; k < 100; k++) {
    for (int32_t i = 1; i <= 3; i++) right.push_back({k, k * 10 + i, i * 10});
    left.push_back({k, k, 25});
  }
  const size_t before = StateCacheTotalBytes();
  join->OnChunk(1, StreamChunk(std::vector<Op>(right.size(), Op::kInsert), Int32Rows(right)));
  join->OnChunk(0, StreamChunk(std::vector<Op>(left.size(), Op::kInsert), Int32Rows(left)));
  join->OnBarrier(Barrier{1, 2, nullptr, true});
  actor.Commit(1);
  ASSERT_EQ(out.size(), 100u);
  EXPECT_EQ(out[7], (Out{Op::kInsert, 7, 72})) << "t = 25 joins t = 20";
  EXPECT_GT(StateCacheTotalBytes() - before, 400u * 16) << "the keys are counted in the budget";
  out.clear();

  // With no budget, the next barrier drops every committed key.
  SetStateCacheBytes(0);
  join->OnBarrier(Barrier{2, 3, nullptr, true});
  EXPECT_EQ(StateCacheTotalBytes(), before) << "every key left memory";

  // A right row nearer to key 7's left row: the key is loaded again and
  // the left row moves to it.
  join->OnChunk(1, StreamChunk({Op::kInsert}, Int32Rows({{7, 700, 24}})));
  join->OnBarrier(Barrier{3, 4, nullptr, true});
  actor.Commit(3);
  std::vector<Out> expected = {{Op::kDelete, 7, 72}, {Op::kInsert, 7, 700}};
  EXPECT_EQ(out, expected);
  out.clear();

  // A left row's delete after a reload retracts the pair it had.
  join->OnChunk(0, StreamChunk({Op::kDelete}, Int32Rows({{8, 8, 25}})));
  join->OnBarrier(Barrier{4, 5, nullptr, true});
  expected = {{Op::kDelete, 8, 82}};
  EXPECT_EQ(out, expected);
  EXPECT_GT(StateCacheTotalBytes(), before) << "key 8's delete is not committed: it stays";
}

}  // namespace
}  // namespace freshet
