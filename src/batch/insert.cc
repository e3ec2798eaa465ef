// Insert: adds the child's rows to a table's WriteSet (NOT NULL checked
// here; primary-key uniqueness when the WriteSet is applied).
#include "batch/dml.h"
#include "batch/executors.h"

namespace freshet {

namespace {

class InsertExecutor : public DmlExecutor {
 public:
  InsertExecutor(const InsertNode& node, ExecutorPtr child, ExecContext& ctx)
      : DmlExecutor(&node.returning, std::move(child), ctx), node_(node) {}

 private:
  void Run() override {
    const TableCatalog& table = *node_.table;
    TableWriteSet& writes = ctx_.writes->For(table.id);
    DataChunk in;
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      result_.Add(InsertVisibleRows(table, std::move(in), &writes));
    }
  }

  const InsertNode& node_;
};

}  // namespace

ExecutorPtr MakeInsert(const InsertNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<InsertExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
