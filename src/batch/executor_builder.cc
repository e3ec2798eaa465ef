#include "batch/executor_builder.h"

#include "common/thread_memory.h"

#include "batch/executors.h"
#include "common/error.h"
#include "storage/table_engines.h"

namespace freshet {

ExecutorPtr BuildExecutor(const PlanNode& plan, ExecContext& ctx) {
  auto child = [&](size_t i) { return BuildExecutor(*plan.child(i), ctx); };
  switch (plan.kind()) {
    case PlanNode::Kind::kScan: {
      const TableCatalog& t = *static_cast<const ScanNode&>(plan).table;
      if (t.kind == RelationKind::kSource)
        throw SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("cannot read source \"{}\" in a batch query", t.name))
            .WithHint("Create a materialized view on the source and query that.");
      if (t.kind == RelationKind::kInternal && t.internal_kind == "changelog")
        throw SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("\"{}\" is a subscription's change log: read it with a subscription cursor", t.name));
      if (t.kind == RelationKind::kInternal && ctx.catalog) {
        // A job's state: readable by the job's owner and superusers.
        auto user = ctx.catalog->FindUser(ctx.user_name);
        if (!user || (!user->superuser && user->id != t.owner))
          throw SqlError(sqlstate::kInsufficientPrivilege, fmt::format("permission denied for table {}", t.name))
              .WithDetail("Internal tables can be read by the owner of their job and by superusers.");
      }
      if (t.status == JobStatus::kCreating && ctx.catalog && ctx.catalog->MadeInTransaction(t.id))
        throw SqlError(sqlstate::kObjectNotInPrerequisiteState,
                       fmt::format("{} \"{}\" is created when the transaction block commits", RelationKindName(t.kind),
                                   t.name))
            .WithHint("Query it after COMMIT.");
      if (t.status == JobStatus::kCreating) {
        std::string progress;
        if (ctx.job_progress)
          for (const auto& p : ctx.job_progress(t.database_id))
            if (p.job_id == t.id)
              progress = fmt::format(" (progress {:.2f}%, {} of about {} rows backfilled)", p.fraction * 100,
                                     p.rows_backfilled, p.estimated_rows);
        throw SqlError(sqlstate::kObjectNotInPrerequisiteState,
                       fmt::format("{} \"{}\" is still being created{}", RelationKindName(t.kind), t.name, progress))
            .WithHint(fmt::format("Run WAIT (or WAIT {} {}) and query it again; SHOW JOBS shows its progress.",
                                  t.kind == RelationKind::kIndex ? "INDEX" : t.kind == RelationKind::kSink ? "SINK" : "MATERIALIZED VIEW",
                                  t.name));
      }
      return MakeScan(static_cast<const ScanNode&>(plan), ctx);
    }
    case PlanNode::Kind::kSystemScan: return MakeSystemScan(static_cast<const SystemScanNode&>(plan), ctx);
    case PlanNode::Kind::kValues: return MakeValues(static_cast<const ValuesNode&>(plan), ctx);
    case PlanNode::Kind::kFilter: return MakeFilter(static_cast<const FilterNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kProject: return MakeProject(static_cast<const ProjectNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kAggregate: {
      const auto& node = static_cast<const AggregateNode&>(plan);
      if (ExecutorPtr partitioned = MakePartitionedAggregate(node, ctx)) return partitioned;
      return MakeHashAggregate(node, child(0), ctx);
    }
    case PlanNode::Kind::kJoin: return MakeJoin(static_cast<const JoinNode&>(plan), child(0), child(1), ctx);
    case PlanNode::Kind::kLateralJoin: return MakeLateralJoin(static_cast<const LateralJoinNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kSort: return MakeSort(static_cast<const SortNode&>(plan), child(0), -1, ctx);
    case PlanNode::Kind::kLimit: {
      const auto& node = static_cast<const LimitNode&>(plan);
      // Parameters ($n) are evaluated now.
      int64_t limit = node.limit_value ? LimitArgument(node.limit_value->EvalConstant(ctx.eval), true) : node.limit;
      int64_t offset = node.offset_value ? LimitArgument(node.offset_value->EvalConstant(ctx.eval), false) : node.offset;
      if (node.with_ties) {
        // Sorted whole: the rows tied with the last one follow it.
        if (plan.child()->kind() != PlanNode::Kind::kSort)
          throw SqlError(sqlstate::kInternalError, "FETCH FIRST ... WITH TIES over an unsorted input");
        const auto& sort = static_cast<const SortNode&>(*plan.child());
        return MakeLimit(limit, offset, child(0), ctx, &sort.keys);
      }
      // ORDER BY ... LIMIT n keeps only the best limit + offset rows (top-N).
      if (limit >= 0 && plan.child()->kind() == PlanNode::Kind::kSort) {
        const auto& sort = static_cast<const SortNode&>(*plan.child());
        auto top = MakeSort(sort, BuildExecutor(*sort.child(), ctx), limit + offset, ctx);
        return MakeLimit(limit, offset, std::move(top), ctx);
      }
      return MakeLimit(limit, offset, child(0), ctx);
    }
    case PlanNode::Kind::kProjectSet: return MakeProjectSet(static_cast<const ProjectSetNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kHop: return MakeHop(static_cast<const HopNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kWindow: return MakeWindow(static_cast<const WindowNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kDistinct: return MakeDistinct(static_cast<const DistinctNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kSetOp: return MakeSetOp(static_cast<const SetOpNode&>(plan), child(0), child(1), ctx);
    case PlanNode::Kind::kRecursiveUnion:
      return MakeRecursiveUnion(static_cast<const RecursiveUnionNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kWorkTableScan: return MakeWorkTableScan(static_cast<const WorkTableScanNode&>(plan), ctx);
    case PlanNode::Kind::kChangelog:
      throw SqlError(sqlstate::kFeatureNotSupported,
                     "a changelog (WITH name AS CHANGELOG FROM relation) can be read only by a materialized view or a sink");
    case PlanNode::Kind::kTableFunction: return MakeTableFunction(static_cast<const TableFunctionNode&>(plan), ctx);
    case PlanNode::Kind::kInsert: return MakeInsert(static_cast<const InsertNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kUpdate: return MakeUpdate(static_cast<const UpdateNode&>(plan), child(0), ctx);
    case PlanNode::Kind::kDelete: return MakeDelete(static_cast<const DeleteNode&>(plan), child(0), ctx);
  }
  throw SqlError(sqlstate::kInternalError, "no executor for plan node");
}

std::unique_ptr<ChunkScan> ExecContext::Scan(ScanSpec spec) const {
  const TableEngine& engine = store->engines().For(spec.table.table_id);
  if (latest_rows)
    if (std::shared_ptr<const StateTable> latest = latest_rows(spec.table.table_id))
      if (auto scan = engine.LookupLatest(std::move(latest), spec)) return scan;
  return engine.Scan(ReadSnapshot(), std::move(spec));
}

void ExecContext::CheckCancelled() const {
  if ((cancelled && cancelled->load(std::memory_order_relaxed)) || (aborted && aborted->load(std::memory_order_relaxed)))
    throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
  if (memory_limit > 0) {
    int64_t used = ThreadMemory::Net() - memory_at_start;
    if (used > memory_limit)
      throw SqlError(sqlstate::kOutOfMemory, "out of memory")
          .WithDetail(fmt::format("The statement used more than {} MB (statement_memory_limit).", memory_limit >> 20));
  }
}

DataChunk EvalExpressions(const std::vector<ExprPtr>& exprs, const DataChunk& input, EvalContext& ctx) {
  DataChunk out;
  for (const auto& e : exprs) out.AddColumn(e->Eval(input, ctx));
  out.set_cardinality(input.num_rows());
  return out;
}

DataChunk Materialize(Executor* exec, const std::vector<DataType>& types, ExecContext& ctx) {
  DataChunk all(types);
  DataChunk chunk;
  size_t rows = 0;
  while (exec->Next(&chunk)) {
    ctx.CheckCancelled();
    for (size_t c = 0; c < types.size(); c++) all.column(c).AppendRange(chunk.column(c), 0, chunk.num_rows());
    rows += chunk.num_rows();
  }
  all.set_cardinality(rows);
  return all;
}

}  // namespace freshet
