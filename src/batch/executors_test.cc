// Executors on hand-built plans over VALUES inputs: each operator's contract
// without the SQL front end.
#include <gtest/gtest.h>

#include "batch/executor_builder.h"
#include "expr/function_registry.h"
#include "planner/plan.h"

namespace freshet {
namespace {

ExprPtr Col(int i, DataType t) { return std::make_unique<ColumnRefExpr>(i, t); }
ExprPtr Const(Value v) { return std::make_unique<ConstantExpr>(std::move(v)); }

const ScalarFunction* Fn(const std::string& name, DataType a, DataType b) {
  for (const auto& f : *FunctionRegistry::Instance().Lookup(name))
    if (f.arg_types.size() == 2 && f.arg_types[0] == a && f.arg_types[1] == b) return &f;
  return nullptr;
}

ExprPtr Call(const std::string& name, ExprPtr a, ExprPtr b) {
  const ScalarFunction* f = Fn(name, a->type(), b->type());
  std::vector<ExprPtr> args;
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  return std::make_unique<FunctionExpr>(f, std::move(args));
}

// VALUES (k, v) rows of two int4 columns; std::nullopt is NULL.
PlanPtr Values(const std::vector<std::pair<std::optional<int>, std::optional<int>>>& rows) {
  std::vector<std::vector<ExprPtr>> out;
  for (const auto& [k, v] : rows) {
    std::vector<ExprPtr> row;
    row.push_back(Const(k ? Value::Int32(*k) : Value::Null(DataType::Int32())));
    row.push_back(Const(v ? Value::Int32(*v) : Value::Null(DataType::Int32())));
    out.push_back(std::move(row));
  }
  return std::make_unique<ValuesNode>(std::vector<PlanColumn>{{"k", DataType::Int32()}, {"v", DataType::Int32()}},
                                      std::move(out));
}

// Runs a plan and renders each row as "a,b,..." (NULL as "N"), in order.
std::vector<std::string> RunPlan(const PlanNode& plan) {
  ExecContext ctx;
  ExecutorPtr exec = BuildExecutor(plan, ctx);
  std::vector<std::string> rows;
  DataChunk chunk;
  while (exec->Next(&chunk)) {
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      std::string s;
      for (size_t c = 0; c < chunk.num_columns(); c++) {
        Value v = chunk.column(c).GetValue(r);
        s += (c ? "," : "") + (v.is_null() ? std::string("N") : v.ToString());
      }
      rows.push_back(s);
    }
  }
  return rows;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ExecutorsTest, FilterKeepsOnlyTrueRows) {
  auto plan = std::make_unique<FilterNode>(Values({{1, 10}, {2, std::nullopt}, {3, 30}}),
                                           Call(">", Col(1, DataType::Int32()), Const(Value::Int32(15))));
  EXPECT_EQ(RunPlan(*plan), (std::vector<std::string>{"3,30"}));
}

TEST(ExecutorsTest, HashAggregateGroupsAndHandlesEmptyInput) {
  std::vector<ExprPtr> keys;
  keys.push_back(Col(0, DataType::Int32()));
  std::vector<AggregateCall> aggs(2);
  aggs[0].sig = ResolveAggregate("count", {}, true);
  aggs[1].sig = ResolveAggregate("sum", {DataType::Int32()}, false);
  aggs[1].args.push_back(Col(1, DataType::Int32()));
  std::vector<PlanColumn> schema = {{"k", DataType::Int32()}, {"count", DataType::Int64()}, {"sum", DataType::Int64()}};
  AggregateNode grouped(Values({{1, 1}, {2, 5}, {1, 2}, {std::nullopt, 7}, {2, std::nullopt}}), std::move(keys),
                        std::move(aggs), schema);
  EXPECT_EQ(Sorted(RunPlan(grouped)), (std::vector<std::string>{"1,2,3", "2,2,5", "N,1,7"}));

  // Without GROUP BY there is one row even for no input: count 0, sum NULL.
  std::vector<AggregateCall> global(2);
  global[0].sig = ResolveAggregate("count", {}, true);
  global[1].sig = ResolveAggregate("sum", {DataType::Int32()}, false);
  global[1].args.push_back(Col(1, DataType::Int32()));
  AggregateNode empty(Values({}), {}, std::move(global), {{"count", DataType::Int64()}, {"sum", DataType::Int64()}});
  EXPECT_EQ(RunPlan(empty), (std::vector<std::string>{"0,N"}));
}

TEST(ExecutorsTest, HashJoinOuterTypesAndNullKeys) {
  auto make = [](JoinType type) {
    auto join = std::make_unique<JoinNode>(type, Values({{1, 10}, {2, 20}, {std::nullopt, 30}}),
                                           Values({{1, 100}, {3, 300}, {std::nullopt, 400}}), nullptr);
    join->left_keys.push_back(Col(0, DataType::Int32()));
    join->right_keys.push_back(Col(0, DataType::Int32()));
    return join;
  };
  EXPECT_EQ(Sorted(RunPlan(*make(JoinType::kInner))), (std::vector<std::string>{"1,10,1,100"}));
  EXPECT_EQ(Sorted(RunPlan(*make(JoinType::kLeft))),
            (std::vector<std::string>{"1,10,1,100", "2,20,N,N", "N,30,N,N"}));
  EXPECT_EQ(Sorted(RunPlan(*make(JoinType::kRight))),
            (std::vector<std::string>{"1,10,1,100", "N,N,3,300", "N,N,N,400"}));
  EXPECT_EQ(RunPlan(*make(JoinType::kFull)).size(), 5u);
  EXPECT_EQ(Sorted(RunPlan(*make(JoinType::kSemi))), (std::vector<std::string>{"1,10"}));
  EXPECT_EQ(Sorted(RunPlan(*make(JoinType::kAnti))), (std::vector<std::string>{"2,20", "N,30"}));
}

TEST(ExecutorsTest, NestedLoopJoinWithCondition) {
  auto join = std::make_unique<JoinNode>(JoinType::kLeft, Values({{1, 10}, {5, 50}}), Values({{2, 0}, {3, 0}}),
                                         Call("<", Col(0, DataType::Int32()), Col(2, DataType::Int32())));
  EXPECT_EQ(Sorted(RunPlan(*join)), (std::vector<std::string>{"1,10,2,0", "1,10,3,0", "5,50,N,N"}));
}

TEST(ExecutorsTest, SortNullsAndTopN) {
  std::vector<std::pair<std::optional<int>, std::optional<int>>> rows;
  for (int i = 0; i < 3000; i++) rows.push_back({i % 7, i});
  rows.push_back({std::nullopt, -1});
  std::vector<SortKey> keys;
  keys.push_back({Col(0, DataType::Int32()), true, true});   // k DESC NULLS FIRST
  keys.push_back({Col(1, DataType::Int32()), false, false});  // v ASC
  SortNode sort(Values(rows), std::move(keys));
  std::vector<std::string> all = RunPlan(sort);
  ASSERT_EQ(all.size(), 3001u);
  EXPECT_EQ(all[0], "N,-1");
  EXPECT_EQ(all[1], "6,6");
  EXPECT_EQ(all[2], "6,13");
  // Top-N through the builder (Limit over Sort) gives the same prefix.
  std::vector<SortKey> keys2;
  keys2.push_back({Col(0, DataType::Int32()), true, true});
  keys2.push_back({Col(1, DataType::Int32()), false, false});
  LimitNode limit(std::make_unique<SortNode>(Values(rows), std::move(keys2)), 5, 2);
  std::vector<std::string> top = RunPlan(limit);
  EXPECT_EQ(top, std::vector<std::string>(all.begin() + 2, all.begin() + 7));
}

TEST(ExecutorsTest, SetOperationsCountDuplicates) {
  auto run = [](SetOpKind op, bool all) {
    SetOpNode node(op, all, Values({{1, 1}, {1, 1}, {2, 2}, {3, 3}}), Values({{1, 1}, {3, 3}, {3, 3}, {4, 4}}));
    return Sorted(RunPlan(node));
  };
  EXPECT_EQ(run(SetOpKind::kUnion, false), (std::vector<std::string>{"1,1", "2,2", "3,3", "4,4"}));
  EXPECT_EQ(run(SetOpKind::kUnion, true).size(), 8u);
  EXPECT_EQ(run(SetOpKind::kIntersect, false), (std::vector<std::string>{"1,1", "3,3"}));
  EXPECT_EQ(run(SetOpKind::kIntersect, true), (std::vector<std::string>{"1,1", "3,3"}));
  EXPECT_EQ(run(SetOpKind::kExcept, false), (std::vector<std::string>{"2,2"}));
  EXPECT_EQ(run(SetOpKind::kExcept, true), (std::vector<std::string>{"1,1", "2,2"}));
}

}  // namespace
}  // namespace freshet
