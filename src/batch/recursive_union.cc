// RecursiveUnion and WorkTableScan: WITH RECURSIVE's iteration
// (planner/plan.h). The non-recursive term's rows go out first and become
// the work table; each run of the recursive term is a fresh executor built
// over the work table of the run before, its rows going out and becoming
// the next work table, until a run produces none. Without ALL a row seen
// before is dropped (and does not feed the next run), as in PostgreSQL.
// A recursion that never ends is stopped by the statement's memory limit,
// statement_timeout or a cancel (CheckCancelled), as in PostgreSQL.
#include <unordered_set>

#include "batch/executor_builder.h"
#include "batch/executors.h"

namespace freshet {

namespace {

class RecursiveUnionExecutor : public Executor {
 public:
  RecursiveUnionExecutor(const RecursiveUnionNode& node, ExecutorPtr non_recursive, ExecContext& ctx)
      : node_(node), ctx_(ctx), current_(std::move(non_recursive)), types_(node.types()) {
    work_ = std::make_shared<DataChunk>(types_);
  }

  bool Next(DataChunk* out) override {
    while (true) {
      ctx_.CheckCancelled();
      if (current_->Next(out)) {
        if (!node_.all) DropRowsSeen(out, &seen_);
        if (out->empty()) continue;
        for (size_t c = 0; c < types_.size(); c++) work_->column(c).AppendRange(out->column(c), 0, out->num_rows());
        work_->set_cardinality(work_->num_rows() + out->num_rows());
        return true;
      }
      // The run is over: the next one reads what it produced.
      if (work_->num_rows() == 0) return false;
      ctx_.work_tables[node_.work_table] = std::move(work_);
      work_ = std::make_shared<DataChunk>(types_);
      current_ = BuildExecutor(*node_.child(1), ctx_);
    }
  }

 private:
  const RecursiveUnionNode& node_;
  ExecContext& ctx_;
  ExecutorPtr current_;
  std::vector<DataType> types_;
  std::shared_ptr<DataChunk> work_;  // this run's rows
  std::unordered_set<std::string> seen_;
};

class WorkTableScanExecutor : public Executor {
 public:
  explicit WorkTableScanExecutor(std::shared_ptr<const DataChunk> rows) : rows_(std::move(rows)) {}

  bool Next(DataChunk* out) override {
    if (!rows_ || pos_ >= rows_->num_rows()) return false;
    size_t end = std::min(rows_->num_rows(), pos_ + kChunkSize);
    *out = DataChunk(rows_->types());
    for (size_t c = 0; c < rows_->num_columns(); c++) out->column(c).AppendRange(rows_->column(c), pos_, end - pos_);
    out->set_cardinality(end - pos_);
    pos_ = end;
    return true;
  }

 private:
  std::shared_ptr<const DataChunk> rows_;
  size_t pos_ = 0;
};

}  // namespace

ExecutorPtr MakeRecursiveUnion(const RecursiveUnionNode& node, ExecutorPtr non_recursive, ExecContext& ctx) {
  return std::make_unique<RecursiveUnionExecutor>(node, std::move(non_recursive), ctx);
}

ExecutorPtr MakeWorkTableScan(const WorkTableScanNode& node, ExecContext& ctx) {
  auto it = ctx.work_tables.find(node.work_table);
  return std::make_unique<WorkTableScanExecutor>(it == ctx.work_tables.end() ? nullptr : it->second);
}

}  // namespace freshet
