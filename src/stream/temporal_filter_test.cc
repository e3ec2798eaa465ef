// TemporalFilterOperator (temporal_filter.h) driven by hand: its output
// follows the condition at every barrier's time under random inserts and
// deletes, out-of-order and late rows, and restarts from its state tables;
// with a condition of moving bounds a barrier visits only the rows whose
// bound passed.
#include "stream/temporal_filter.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "expr/function_registry.h"
#include "stream/test_actor_context.h"

namespace freshet {
namespace {

constexpr int64_t kMs = 1000;  // micros

// Rows (id BIGINT, ts TIMESTAMPTZ, v INT), stream key id.
const std::vector<DataType> kTypes = {DataType::Int64(), DataType::Timestamptz(), DataType::Int32()};

ExprPtr FnOf(const std::string& name, std::vector<ExprPtr> args) {
  const auto* fns = FunctionRegistry::Instance().Lookup(name);
  for (const auto& f : *fns) {
    bool match = f.arg_types.size() == args.size();
    for (size_t i = 0; match && i < args.size(); i++) match = f.arg_types[i].id == args[i]->type().id;
    if (match) return std::make_unique<FunctionExpr>(&f, std::move(args));
  }
  throw std::runtime_error("no signature for " + name);
}
template <typename... Args>
ExprPtr Fn(const std::string& name, Args... args) {
  std::vector<ExprPtr> v;
  (v.push_back(std::move(args)), ...);
  return FnOf(name, std::move(v));
}
ExprPtr Col(int i) { return std::make_unique<ColumnRefExpr>(i, kTypes[i], "c" + std::to_string(i)); }
ExprPtr Seconds(int s) { return std::make_unique<ConstantExpr>(Value::IntervalValue(Interval{0, 0, s * 1000 * kMs})); }
ExprPtr Now() { return Fn("now"); }
ExprPtr And(ExprPtr a, ExprPtr b) {
  std::vector<ExprPtr> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return std::make_unique<OperatorExpr>(Expression::Kind::kAnd, DataType::Boolean(), std::move(v));
}

// ts > now() - 10 s AND ts <= now() + 2 s AND v <> 0: rows expire, rows
// from the future mature, a plain conjunct.
ExprPtr MovingBoundsCondition() {
  return And(And(Fn(">", Col(1), Fn("-", Now(), Seconds(10))), Fn("<=", Col(1), Fn("+", Now(), Seconds(2)))),
             Fn("<>", Col(2), std::make_unique<ConstantExpr>(Value::Int32(0))));
}
// The same rows by a shape that is not split into bounds (now() and the
// row on one side): every barrier evaluates every row.
ExprPtr OtherShapeCondition() {
  return And(And(Fn("<", Fn("-", Now(), Col(1)), Seconds(10)), Fn(">=", Fn("-", Now(), Col(1)), Seconds(-2))),
             Fn("<>", Col(2), std::make_unique<ConstantExpr>(Value::Int32(0))));
}
bool Passes(int64_t ts, int32_t v, int64_t now) { return ts > now - 10000 * kMs && ts <= now + 2000 * kMs && v != 0; }

struct TestRow {
  int64_t ts;
  int32_t v;
  bool operator==(const TestRow& o) const { return ts == o.ts && v == o.v; }
};

class TemporalFilterHarness {
 public:
  explicit TemporalFilterHarness(bool moving_bounds) : moving_bounds_(moving_bounds) {
    rows_desc_.table_id = 50;
    rows_desc_.column_types = kTypes;
    rows_desc_.pk_indices = {0};
    time_desc_.table_id = 51;
    time_desc_.column_types = {DataType::Timestamptz()};
  }

  // A new operator over the state committed so far (a restart).
  void Open() {
    actor_.ctx.state_tables.clear();
    op_ = std::make_unique<TemporalFilterOperator>(moving_bounds_ ? MovingBoundsCondition() : OtherShapeCondition(),
                                                   std::vector<int>{0}, kTypes, rows_desc_, time_desc_, EvalContext{});
    op_->set_next([this](StreamChunk chunk) {
      const DataChunk& d = chunk.data();
      for (size_t r = 0; r < chunk.num_rows(); r++) {
        int64_t id = d.column(0).GetValue(r).int_value();
        TestRow row{d.column(1).GetValue(r).int_value(), int32_t(d.column(2).GetValue(r).int_value())};
        if (IsInsertOp(chunk.ops()[r])) {
          ASSERT_TRUE(output_.emplace(id, row).second) << "inserted twice: " << id;
        } else {
          auto it = output_.find(id);
          ASSERT_TRUE(it != output_.end() && it->second == row) << "deleted without being inserted: " << id;
          output_.erase(it);
        }
      }
    });
    op_->Open(&actor_.ctx);
  }

  void Send(Op op, int64_t id, TestRow row) {
    DataChunk chunk(kTypes);
    chunk.AppendRow({Value::Int64(id), Value::Timestamptz(row.ts), Value::Int32(row.v)});
    op_->OnChunk(0, StreamChunk({op}, std::move(chunk)));
  }

  // The barrier whose time is `now` (micros, whole milliseconds), then the
  // commit of the epoch it ends.
  void Barrier(int64_t now) {
    const Epoch epoch = Epoch(now / kMs) << 16;
    op_->OnBarrier(freshet::Barrier{prev_epoch_, epoch, nullptr, true});
    actor_.Commit(prev_epoch_);
    prev_epoch_ = epoch;
  }

  const std::map<int64_t, TestRow>& output() const { return output_; }
  TemporalFilterOperator* op() { return op_.get(); }

 private:
  bool moving_bounds_;
  TestActorContext actor_;
  StateTableDesc rows_desc_, time_desc_;
  std::unique_ptr<TemporalFilterOperator> op_;
  std::map<int64_t, TestRow> output_;
  Epoch prev_epoch_ = Epoch(1) << 16;
};

void RunRandom(bool moving_bounds, uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + (moving_bounds ? " moving bounds" : " other shape"));
  std::mt19937 rng(seed);
  TemporalFilterHarness h(moving_bounds);
  h.Open();
  std::map<int64_t, TestRow> live;  // rows inserted and not deleted
  int64_t now = 1'000'000'000 * kMs, next_id = 0;
  bool have_time = false;
  for (int round = 0; round < 60; round++) {
    const int inserts = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int i = 0; i < inserts; i++) {
      // Around now: late, current and future rows; a few exactly on a bound.
      int64_t ts = now + std::uniform_int_distribution<int64_t>(-15000, 6000)(rng) * kMs;
      if (rng() % 8 == 0) ts = now - 10000 * kMs + (rng() % 3) * 1000 * kMs;
      TestRow row{ts, int32_t(rng() % 4)};
      live[next_id] = row;
      h.Send(Op::kInsert, next_id++, row);
    }
    for (int i = 0; i < 5 && !live.empty(); i++) {
      if (rng() % 2) continue;
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      h.Send(Op::kDelete, it->first, it->second);
      live.erase(it);
    }
    // Time moves by 0 to 4 s, sometimes by exactly a bound's distance.
    now += (rng() % 5 == 0 ? 2000 : std::uniform_int_distribution<int64_t>(0, 4000)(rng)) * kMs;
    h.Barrier(now);
    have_time = true;
    std::map<int64_t, TestRow> expected;
    for (const auto& [id, row] : live)
      if (have_time && Passes(row.ts, row.v, now)) expected.emplace(id, row);
    ASSERT_EQ(h.output(), expected) << "round " << round;
    if (rng() % 6 == 0) h.Open();  // restart from the committed state
  }
}

TEST(TemporalFilterTest, OutputFollowsTheConditionAtEveryBarrier) {
  for (uint32_t seed = 1; seed <= 20; seed++) {
    RunRandom(/*moving_bounds=*/true, seed);
    RunRandom(/*moving_bounds=*/false, seed);
  }
}

TEST(TemporalFilterTest, ABarrierVisitsOnlyTheRowsWhoseBoundPassed) {
  TemporalFilterHarness h(/*moving_bounds=*/true);
  h.Open();
  int64_t now = 1'000'000'000 * kMs;
  h.Barrier(now);
  // 10,000 rows a millisecond apart over the 10 s window.
  for (int64_t i = 0; i < 10000; i++) h.Send(Op::kInsert, i, TestRow{now - 9999 * kMs + i * kMs, 1});
  h.Barrier(now);
  EXPECT_EQ(h.output().size(), 10000u);
  // 100 ms later: 100 rows expired, nothing else changed.
  now += 100 * kMs;
  h.Barrier(now);
  EXPECT_EQ(h.output().size(), 9900u);
  EXPECT_LE(h.op()->rows_visited_at_last_barrier(), 100u);
  // After a restart too.
  h.Open();
  now += 100 * kMs;
  h.Barrier(now);
  EXPECT_EQ(h.output().size(), 9800u);
  EXPECT_LE(h.op()->rows_visited_at_last_barrier(), 100u);
  // Rows from further in the future mature as time reaches them.
  for (int64_t i = 0; i < 1000; i++) h.Send(Op::kInsert, 20000 + i, TestRow{now + 3000 * kMs + i * kMs, 1});
  h.Barrier(now);
  EXPECT_EQ(h.output().size(), 9800u);
  now += 1500 * kMs;
  h.Barrier(now);
  // 1,500 expired, 501 matured (ts up to the old now + 3.5 s).
  EXPECT_EQ(h.output().size(), 9800u - 1500u + 501u);
  EXPECT_LE(h.op()->rows_visited_at_last_barrier(), 2001u);
}

}  // namespace
}  // namespace freshet
