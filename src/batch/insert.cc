// Insert: adds the child's rows to a table's WriteSet (NOT NULL checked
// here; primary-key uniqueness when the WriteSet is applied).
#include "batch/dml.h"
#include "batch/executors.h"

namespace freshet {

namespace {

class InsertExecutor : public Executor {
 public:
  InsertExecutor(const InsertNode& node, ExecutorPtr child, ExecContext& ctx)
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
    DataChunk in;
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      result_.Add(InsertVisibleRows(table, std::move(in), &writes));
    }
  }

  const InsertNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  DmlResult result_;
  bool done_ = false;
};

}  // namespace

ExecutorPtr MakeInsert(const InsertNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<InsertExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
