// OverWindowOperator (over_window.h) driven by hand: partitions whose
// writes are committed leave memory when the operator-state budget is
// exceeded, and a partition loaded again from its state table gives the
// same values as one that never left.
#include "stream/over_window.h"

#include <gtest/gtest.h>

#include "stream/test_actor_context.h"

namespace freshet {
namespace {

// sum(v) OVER (PARTITION BY k ORDER BY id) over rows (k INT, id INT, v INT)
// with stream key id (Int32Rows): the output row
// (k, id, v, sum) per emitted row, with its op.
struct Out {
  Op op;
  int32_t k, id, v;
  int64_t sum;
  bool operator==(const Out& o) const { return op == o.op && k == o.k && id == o.id && v == o.v && sum == o.sum; }
};
std::ostream& operator<<(std::ostream& os, const Out& o) {
  return os << "(" << int(o.op) << ", " << o.k << ", " << o.id << ", " << o.v << ", " << o.sum << ")";
}

class OverWindowHarness {
 public:
  OverWindowHarness() {
    desc_.table_id = 40;
    desc_.column_types = {DataType::Int32(), DataType::Int32(), DataType::Int32(), DataType::Int64()};
    desc_.pk_indices = {0, 1};
    desc_.dist_key_indices = {0};
  }

  std::unique_ptr<OverWindowOperator> NewOperator() {
    WindowCall call;
    call.kind = WindowFunctionKind::kAggregate;
    call.agg = AggregateSignature{AggKind::kSum, DataType::Int32(), DataType::Int64()};
    call.args.push_back(std::make_unique<ColumnRefExpr>(2, DataType::Int32(), "v"));
    call.type = DataType::Int64();
    call.partition_by.push_back(std::make_unique<ColumnRefExpr>(0, DataType::Int32(), "k"));
    call.order_by.push_back(SortKey{std::make_unique<ColumnRefExpr>(1, DataType::Int32(), "id"), false, false});
    call.name = "sum";
    std::vector<WindowCall> calls;
    calls.push_back(std::move(call));
    auto op = std::make_unique<OverWindowOperator>(std::vector<int>{0}, std::move(calls), std::vector<int>{1},
                                                   std::vector<DataType>{DataType::Int32(), DataType::Int32(),
                                                                         DataType::Int32()},
                                                   desc_, EvalContext{});
    op->set_next([this](StreamChunk chunk) {
      const DataChunk& d = chunk.data();
      for (size_t r = 0; r < chunk.num_rows(); r++)
        out_.push_back({chunk.ops()[r], int32_t(d.column(0).GetValue(r).int_value()),
                        int32_t(d.column(1).GetValue(r).int_value()), int32_t(d.column(2).GetValue(r).int_value()),
                        d.column(3).GetValue(r).int_value()});
    });
    op->Open(&actor_.ctx);
    return op;
  }

  // The barrier ending `epoch`, then the commit of what it wrote.
  void BarrierAndCommit(OverWindowOperator* op, Epoch epoch) {
    op->OnBarrier(Barrier{epoch, epoch + 1, nullptr, true});
    actor_.Commit(epoch);
  }

  std::vector<Out> TakeOutput() { return std::exchange(out_, {}); }

 private:
  TestActorContext actor_;
  StateTableDesc desc_;
  std::vector<Out> out_;
};

TEST(OverWindowTest, CommittedPartitionsLeaveMemoryOverTheBudgetAndComeBackExact) {
  StateCacheBudgetGuard guard;
  OverWindowHarness h;
  auto op = h.NewOperator();
  // 200 partitions of 5 rows each.
  std::vector<std::array<int32_t, 3>> rows;
  for (int32_t k = 0; k < 200; k++)
    for (int32_t i = 0; i < 5; i++) rows.push_back({k, k * 10 + i, i + 1});
  const size_t before = StateCacheTotalBytes();
  op->OnChunk(0, StreamChunk(std::vector<Op>(rows.size(), Op::kInsert), Int32Rows(rows)));
  h.BarrierAndCommit(op.get(), 1);
  EXPECT_EQ(h.TakeOutput().size(), 1000u);
  const size_t held = StateCacheTotalBytes() - before;
  EXPECT_GT(held, 1000u * 16) << "the partitions are counted in the budget";

  // With no budget, the next barrier drops every committed partition.
  SetStateCacheBytes(0);
  op->OnBarrier(Barrier{2, 3, nullptr, true});
  EXPECT_EQ(StateCacheTotalBytes(), before) << "every partition left memory";

  // A change to an evicted partition: loaded again, the rows after it updated.
  op->OnChunk(0, StreamChunk({Op::kInsert}, Int32Rows({{7, 65, 100}})));
  h.BarrierAndCommit(op.get(), 3);
  std::vector<Out> expected = {
      {Op::kUpdateDelete, 7, 70, 1, 1},   {Op::kUpdateInsert, 7, 70, 1, 101},
      {Op::kUpdateDelete, 7, 71, 2, 3},   {Op::kUpdateInsert, 7, 71, 2, 103},
      {Op::kUpdateDelete, 7, 72, 3, 6},   {Op::kUpdateInsert, 7, 72, 3, 106},
      {Op::kUpdateDelete, 7, 73, 4, 10},  {Op::kUpdateInsert, 7, 73, 4, 110},
      {Op::kUpdateDelete, 7, 74, 5, 15},  {Op::kUpdateInsert, 7, 74, 5, 115},
      {Op::kInsert, 7, 65, 100, 100},
  };
  EXPECT_EQ(h.TakeOutput(), expected);

  // Uncommitted writes keep their partition: an epoch not yet committed.
  op->OnChunk(0, StreamChunk({Op::kDelete}, Int32Rows({{8, 80, 1}})));
  op->OnBarrier(Barrier{4, 5, nullptr, true});
  EXPECT_GT(StateCacheTotalBytes(), before) << "partition 8's delete is not committed: it stays";
  h.TakeOutput();
}

}  // namespace
}  // namespace freshet
