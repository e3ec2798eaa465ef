// Factories of the batch operators, one per file (scan.cc, filter.cc, ...).
#pragma once

#include <string>
#include <unordered_set>

#include "batch/executor.h"
#include "planner/plan.h"

namespace freshet {

ExecutorPtr MakeScan(const ScanNode& node, ExecContext& ctx);
ExecutorPtr MakeSystemScan(const SystemScanNode& node, ExecContext& ctx);
ExecutorPtr MakeValues(const ValuesNode& node, ExecContext& ctx);
ExecutorPtr MakeFilter(const FilterNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeProject(const ProjectNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeProjectSet(const ProjectSetNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeHop(const HopNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeWindow(const WindowNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeHashAggregate(const AggregateNode& node, ExecutorPtr child, ExecContext& ctx);
// parallel_aggregate.cc: the aggregation run as two partitions over halves
// of the vnodes of the table it reads, on two threads, when its groups
// cannot span partitions; null when it cannot be (then MakeHashAggregate).
ExecutorPtr MakePartitionedAggregate(const AggregateNode& node, ExecContext& ctx);
// Whether the scan is large enough for two threads and splittable by vnodes
// (not narrowed to keys by its predicates, no transaction's own writes).
bool ScanSplitsByVnodes(const ScanNode& node, ExecContext& ctx);
ExecutorPtr MakeJoin(const JoinNode& node, ExecutorPtr left, ExecutorPtr right, ExecContext& ctx);
// The right input is built from the plan for each left row.
ExecutorPtr MakeLateralJoin(const LateralJoinNode& node, ExecutorPtr left, ExecContext& ctx);
// limit < 0: full sort; else keeps only the first limit rows (top-N).
ExecutorPtr MakeSort(const SortNode& node, ExecutorPtr child, int64_t limit, ExecContext& ctx);
// limit -1: none.
// with_ties: FETCH FIRST ... WITH TIES over input sorted by these keys.
ExecutorPtr MakeLimit(int64_t limit, int64_t offset, ExecutorPtr child, ExecContext& ctx,
                      const std::vector<SortKey>* with_ties = nullptr);
ExecutorPtr MakeDistinct(const DistinctNode& node, ExecutorPtr child, ExecContext& ctx);
// Keeps the rows of `chunk` not in `seen` (by their key encoding), once
// each, adding them to it (distinct.cc; DISTINCT and WITH RECURSIVE's UNION).
void DropRowsSeen(DataChunk* chunk, std::unordered_set<std::string>* seen);
ExecutorPtr MakeSetOp(const SetOpNode& node, ExecutorPtr left, ExecutorPtr right, ExecContext& ctx);
// recursive_union.cc: the recursive term is built again for each run.
ExecutorPtr MakeRecursiveUnion(const RecursiveUnionNode& node, ExecutorPtr non_recursive, ExecContext& ctx);
ExecutorPtr MakeWorkTableScan(const WorkTableScanNode& node, ExecContext& ctx);
ExecutorPtr MakeTableFunction(const TableFunctionNode& node, ExecContext& ctx);
ExecutorPtr MakeInsert(const InsertNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeUpdate(const UpdateNode& node, ExecutorPtr child, ExecContext& ctx);
ExecutorPtr MakeDelete(const DeleteNode& node, ExecutorPtr child, ExecContext& ctx);

}  // namespace freshet
