// Delete: removes the keys of the child's rows.
#include "batch/dml.h"
#include "batch/executors.h"

namespace freshet {

namespace {

class DeleteExecutor : public Executor {
 public:
  DeleteExecutor(const DeleteNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx), result_(&node.returning, ctx) {}

  bool Next(DataChunk* out) override {
    if (!done_) Run();
    return result_.Next(out);
  }

 private:
  void Run() {
    done_ = true;
    const TableCatalog& table = *node_.table;
    TableWriteSet& writes = ctx_.writes->For(table.id);
    DataChunk old_rows;
    while (child_->Next(&old_rows)) {
      ctx_.CheckCancelled();
      for (size_t r = 0; r < old_rows.num_rows(); r++) writes.ops.push_back(WriteOp{true, RowKeyOf(table, old_rows, r), "", false});
      result_.Add(old_rows);
    }
  }

  const DeleteNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  DmlResult result_;
  bool done_ = false;
};

}  // namespace

ExecutorPtr MakeDelete(const DeleteNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<DeleteExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
