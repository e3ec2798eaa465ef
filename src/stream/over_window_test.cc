// OverWindowOperator (over_window.h) driven by hand: partitions whose
// writes are committed leave memory when the operator-state budget is
// exceeded, and a partition loaded again from its state table gives the
// same values as one that never left.
#include "stream/over_window.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

#include "stream/test_actor_context.h"

namespace freshet {
namespace {

// sum(v) OVER (PARTITION BY k ORDER BY id) over rows (k INT, id INT, v INT)
// with stream key id (Int32Rows): the output row
// (k, id, v, sum) per emitted row, with its op.
constexpr int64_t kNull = INT64_MIN;  // a NULL value in Out
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

  // sum(v) OVER (PARTITION BY k ORDER BY id), the default frame.
  static WindowCall SumCall() {
    WindowCall call;
    call.kind = WindowFunctionKind::kAggregate;
    call.agg = AggregateSignature{AggKind::kSum, DataType::Int32(), DataType::Int64()};
    call.args.push_back(std::make_unique<ColumnRefExpr>(2, DataType::Int32(), "v"));
    call.type = DataType::Int64();
    call.name = "sum";
    return call;
  }

  // `call` (an int64 result) OVER (PARTITION BY k ORDER BY id).
  std::unique_ptr<OverWindowOperator> NewOperator(WindowCall call = SumCall()) {
    call.partition_by.push_back(std::make_unique<ColumnRefExpr>(0, DataType::Int32(), "k"));
    call.order_by.push_back(SortKey{std::make_unique<ColumnRefExpr>(1, DataType::Int32(), "id"), false, false});
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
                        d.column(3).IsNull(r) ? kNull : d.column(3).GetValue(r).int_value()});
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

// Calls that read a bounded number of rows around the current one are
// recomputed only near a change (lag, lead, ROWS frames with offsets);
// random inserts, deletes and updates in a partition of 3,000 rows leave
// exactly the values a full evaluation gives, at a small fraction of its
// cost. sum over the default frame (unbounded) is evaluated whole.
TEST(OverWindowTest, BoundedCallsRecomputeOnlyTheRowsNearAChange) {
  auto v_arg = [] { return std::make_unique<ColumnRefExpr>(2, DataType::Int32(), "v"); };
  auto count = [](int64_t n) { return std::make_unique<ConstantExpr>(Value::Int64(n)); };
  struct Case {
    std::string name;
    std::function<WindowCall()> call;
    // The value at position i of the values `v` in order.
    std::function<int64_t(const std::vector<int32_t>& v, size_t i)> expected;
    bool bounded;
  };
  std::vector<Case> cases;
  cases.push_back({"lag(v, 2)",
                   [&] {
                     WindowCall c;
                     c.kind = WindowFunctionKind::kLag;
                     c.args.push_back(std::make_unique<CastExpr>(v_arg(), DataType::Int64()));
                     c.args.push_back(std::make_unique<ConstantExpr>(Value::Int32(2)));
                     c.type = DataType::Int64();
                     c.name = "lag";
                     return c;
                   },
                   [](const std::vector<int32_t>& v, size_t i) { return i >= 2 ? int64_t(v[i - 2]) : kNull; }, true});
  cases.push_back({"lead(v)",
                   [&] {
                     WindowCall c;
                     c.kind = WindowFunctionKind::kLead;
                     c.args.push_back(std::make_unique<CastExpr>(v_arg(), DataType::Int64()));
                     c.type = DataType::Int64();
                     c.name = "lead";
                     return c;
                   },
                   [](const std::vector<int32_t>& v, size_t i) { return i + 1 < v.size() ? int64_t(v[i + 1]) : kNull; },
                   true});
  cases.push_back({"sum(v) ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING",
                   [&] {
                     WindowCall c = OverWindowHarness::SumCall();
                     c.frame.mode = WindowFrame::Mode::kRows;
                     c.frame.start = {WindowFrameBound::Kind::kPreceding, count(2), nullptr};
                     c.frame.end = {WindowFrameBound::Kind::kFollowing, count(1), nullptr};
                     return c;
                   },
                   [](const std::vector<int32_t>& v, size_t i) {
                     int64_t s = 0;
                     for (size_t j = i >= 2 ? i - 2 : 0; j <= i + 1 && j < v.size(); j++) s += v[j];
                     return s;
                   },
                   true});
  cases.push_back({"sum(v), the default frame",
                   [] { return OverWindowHarness::SumCall(); },
                   [](const std::vector<int32_t>& v, size_t i) {
                     int64_t s = 0;
                     for (size_t j = 0; j <= i; j++) s += v[j];
                     return s;
                   },
                   false});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    OverWindowHarness h;
    auto op = h.NewOperator(c.call());
    std::map<int32_t, int32_t> model;            // id -> v, partition k = 1
    std::map<int32_t, int64_t> emitted;          // id -> the value last emitted
    auto take = [&] {
      for (const Out& o : h.TakeOutput()) {
        if (IsInsertOp(o.op)) emitted[o.id] = o.sum;
        else emitted.erase(o.id);
      }
    };
    std::vector<std::array<int32_t, 3>> rows;
    for (int32_t id = 0; id < 6000; id += 2) {
      model[id] = id % 97;
      rows.push_back({1, id, id % 97});
    }
    op->OnChunk(0, StreamChunk(std::vector<Op>(rows.size(), Op::kInsert), Int32Rows(rows)));
    h.BarrierAndCommit(op.get(), 1);
    take();
    const uint64_t after_load = op->rows_evaluated();
    std::mt19937 rng(19);
    for (Epoch epoch = 2; epoch < 42; epoch++) {
      std::vector<Op> ops;
      std::vector<std::array<int32_t, 3>> changed;
      for (int n = 1 + int(rng() % 4); n > 0; n--) {
        const int32_t id = int32_t(rng() % 6000);
        auto it = model.find(id);
        const int32_t v = int32_t(rng() % 1000);
        if (it == model.end()) {  // insert
          ops.push_back(Op::kInsert);
          changed.push_back({1, id, v});
          model[id] = v;
        } else if (rng() % 2) {  // delete
          ops.push_back(Op::kDelete);
          changed.push_back({1, id, it->second});
          model.erase(it);
        } else {  // update in place
          ops.insert(ops.end(), {Op::kUpdateDelete, Op::kUpdateInsert});
          changed.push_back({1, id, it->second});
          changed.push_back({1, id, v});
          it->second = v;
        }
      }
      op->OnChunk(0, StreamChunk(std::move(ops), Int32Rows(changed)));
      h.BarrierAndCommit(op.get(), epoch);
      take();
      std::vector<int32_t> values;
      for (const auto& [id, v] : model) values.push_back(v);
      std::map<int32_t, int64_t> want;
      size_t i = 0;
      for (const auto& [id, v] : model) want[id] = c.expected(values, i++);
      ASSERT_EQ(emitted, want) << "after epoch " << epoch;
    }
    const uint64_t evaluated = op->rows_evaluated() - after_load;
    if (c.bounded) EXPECT_LT(evaluated, 3000u) << "40 rounds of changes cost less than one whole partition";
    else EXPECT_GE(evaluated, 40u * 2900) << "each round evaluates the partition whole";
  }
}

}  // namespace
}  // namespace freshet
