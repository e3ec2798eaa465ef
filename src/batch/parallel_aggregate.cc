// PartitionedAggregate: a hash aggregation over a large columnar scan run
// as two partitions, one per half of the table's vnodes, each its own
// executors (scan, filters, projections, HashAggregate) on its own thread.
//
// When the group keys include every column of the table's distribution
// key (which picks a row's vnode), passed unchanged from the scan through
// the filters and projections, no group has rows in both halves: each
// partition's groups are complete, the result is the first partition's
// groups followed by the second's, and every aggregate (DISTINCT, ORDER
// BY, FILTER) works as in one HashAggregate. Otherwise (other groups, or
// none: one group) the partitions aggregate partially and the second's
// groups are merged into the first's, which only aggregates that can merge
// their states allow (count, sum, avg, min, max, bool_and, bool_or, without
// DISTINCT or ORDER BY; AggregateFunction::Mergeable).
//
// Expressions of the partitions run on two threads at once, so every one of
// them must be safe to: column references of this query (not outer ones),
// constants, parameters, operators, casts and functions that neither are
// volatile nor read or change the session or catalog (catalog, sequence and
// admin functions; FunctionRegistry marks them). Anything else (subqueries,
// correlated references) keeps the single HashAggregate.
//
// At the first Next both partitions read their input, the second on a
// thread of its own. If one fails, the other is aborted
// (ExecContext::aborted) and the error is the statement's.
#include <algorithm>
#include <thread>

#include "batch/batch_counters.h"
#include "batch/executor_builder.h"
#include "batch/executors.h"
#include "batch/hash_aggregate.h"
#include "common/thread_memory.h"
#include "expr/function_registry.h"
#include "planner/subquery.h"

namespace freshet {

namespace {

// Whether `e` may be evaluated on two threads at once (see the top).
bool SafeOnTwoThreads(const Expression& e) {
  switch (e.kind()) {
    case Expression::Kind::kColumnRef:
      if (!dynamic_cast<const ColumnRefExpr*>(&e)) return false;  // an outer reference
      break;
    case Expression::Kind::kFunction: {
      const ScalarFunction* fn = static_cast<const FunctionExpr&>(e).function();
      if (!fn || fn->session_bound || IsVolatileFunction(fn->name)) return false;
      break;
    }
    case Expression::Kind::kConstant:
    case Expression::Kind::kParameter:
    case Expression::Kind::kCast:
    case Expression::Kind::kAnd:
    case Expression::Kind::kOr:
    case Expression::Kind::kNot:
    case Expression::Kind::kIsNull:
    case Expression::Kind::kIsNotNull:
    case Expression::Kind::kIsTrue:
    case Expression::Kind::kIsFalse:
    case Expression::Kind::kCase:
    case Expression::Kind::kCoalesce:
    case Expression::Kind::kGreatest:
    case Expression::Kind::kLeast:
    case Expression::Kind::kInList:
    case Expression::Kind::kNullIf: break;
    default: return false;
  }
  for (const auto& child : e.children())
    if (!child || !SafeOnTwoThreads(*child)) return false;
  return true;
}

// The input column a plain column reference reads; -1 for anything else.
int ColumnOf(const Expression& e) {
  const auto* ref = dynamic_cast<const ColumnRefExpr*>(&e);
  return ref ? ref->index() : -1;
}

// The scan below the aggregation's filters and projections, when the
// partitions can run it (see the top); null otherwise. `key_columns` gets
// the scan columns the group keys pass unchanged.
const ScanNode* PartitionableScan(const AggregateNode& node, std::vector<int>* key_columns) {
  for (const auto& k : node.group_keys)
    if (!SafeOnTwoThreads(*k)) return nullptr;
  for (const AggregateCall& call : node.aggs) {
    for (const auto& a : call.args)
      if (!SafeOnTwoThreads(*a)) return nullptr;
    if (call.filter && !SafeOnTwoThreads(*call.filter)) return nullptr;
    for (const auto& o : call.order_by)
      if (!SafeOnTwoThreads(*o.expr)) return nullptr;
  }
  // Each group key's column, followed down to the scan.
  std::vector<int> columns;
  for (const auto& k : node.group_keys) columns.push_back(ColumnOf(*k));
  const PlanNode* below = node.child();
  while (below->kind() == PlanNode::Kind::kFilter || below->kind() == PlanNode::Kind::kProject) {
    if (below->kind() == PlanNode::Kind::kFilter) {
      if (!SafeOnTwoThreads(*static_cast<const FilterNode*>(below)->predicate)) return nullptr;
    } else {
      const auto& project = static_cast<const ProjectNode&>(*below);
      for (const auto& e : project.exprs)
        if (!SafeOnTwoThreads(*e)) return nullptr;
      for (int& c : columns)
        c = c >= 0 && static_cast<size_t>(c) < project.exprs.size() ? ColumnOf(*project.exprs[c]) : -1;
    }
    below = below->child();
  }
  if (below->kind() != PlanNode::Kind::kScan) return nullptr;
  const auto& scan = static_cast<const ScanNode&>(*below);
  if (scan.schema().size() != scan.table->columns.size()) return nullptr;  // not the table's columns in order
  *key_columns = std::move(columns);
  return &scan;
}

class PartitionedAggregateExecutor : public Executor {
 public:
  PartitionedAggregateExecutor(const AggregateNode& node, ExecContext& ctx, bool disjoint)
      : ctx_(ctx), disjoint_(disjoint) {
    ctx.ReadSnapshot();  // taken once, shared by both partitions
    for (int p = 0; p < 2; p++) {
      contexts_[p] = std::make_unique<ExecContext>(ctx);
      contexts_[p]->vnode_partition = ExecContext::VnodeRange{p * kVnodeCount / 2, (p + 1) * kVnodeCount / 2};
      contexts_[p]->aborted = &aborted_;
      contexts_[p]->eval.notices = nullptr;  // no expression of a partition reports any (SafeOnTwoThreads)
      parts_[p] = std::make_unique<HashAggregateExecutor>(node, BuildExecutor(*node.child(), *contexts_[p]),
                                                          *contexts_[p]);
    }
  }

  ~PartitionedAggregateExecutor() override {
    if (worker_.joinable()) worker_.join();  // defensive: Consume joins before it returns or throws
  }

  bool Next(DataChunk* out) override {
    if (!consumed_) Consume();
    ctx_.CheckCancelled();
    if (!disjoint_) return parts_[0]->Next(out);
    if (!first_done_) {
      if (parts_[0]->Next(out)) return true;
      first_done_ = true;
    }
    return parts_[1]->Next(out);
  }

 private:
  // Both partitions read their input into groups, the second on a thread
  // of its own; then, unless their groups are disjoint, the second's are
  // merged into the first's.
  void Consume() {
    consumed_ = true;
    // Each partition's error; the statement's is the first one's (the
    // other's may be only the abort that the first caused).
    std::exception_ptr errors[2];
    std::atomic<int> failed_first{-1};
    auto failed = [&](int p) {
      errors[p] = std::current_exception();
      int none = -1;
      failed_first.compare_exchange_strong(none, p);
      aborted_ = true;
    };
    worker_ = std::thread([this, &failed] {
      try {
        contexts_[1]->memory_at_start = ThreadMemory::Net();
        parts_[1]->Consume();
      } catch (...) {
        failed(1);
      }
    });
    try {
      parts_[0]->Consume();
    } catch (...) {
      failed(0);
    }
    worker_.join();
    if (failed_first >= 0) std::rethrow_exception(errors[failed_first]);
    if (!disjoint_) parts_[0]->Absorb(*parts_[1]);
  }

  ExecContext& ctx_;
  const bool disjoint_;
  std::unique_ptr<ExecContext> contexts_[2];
  std::unique_ptr<HashAggregateExecutor> parts_[2];
  std::atomic<bool> aborted_{false};
  std::thread worker_;
  bool consumed_ = false, first_done_ = false;
};

}  // namespace

ExecutorPtr MakePartitionedAggregate(const AggregateNode& node, ExecContext& ctx) {
  if (!ctx.parallel || ctx.vnode_partition || !ctx.eval.outer_rows.empty()) return nullptr;
  std::vector<int> key_columns;
  const ScanNode* scan = PartitionableScan(node, &key_columns);
  // Without a distribution key every row is in vnode 0: one partition.
  if (!scan || scan->table->dist_key.empty()) return nullptr;
  // Groups that include the whole distribution key are disjoint.
  bool disjoint = !node.group_keys.empty() && !scan->table->dist_key.empty();
  for (int c : scan->table->dist_key)
    disjoint = disjoint && std::find(key_columns.begin(), key_columns.end(), c) != key_columns.end();
  if (!disjoint && !HashAggregateExecutor::Mergeable(node)) return nullptr;
  if (!ScanSplitsByVnodes(*scan, ctx)) return nullptr;
  auto executor = std::make_unique<PartitionedAggregateExecutor>(node, ctx, disjoint);
  (disjoint ? GetBatchCounters().partitioned_aggregations_disjoint : GetBatchCounters().partitioned_aggregations_merged)++;
  return executor;
}

}  // namespace freshet
