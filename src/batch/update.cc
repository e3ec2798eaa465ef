// Update: for each old row from the child, deletes its key and inserts the
// new row (re-checking uniqueness only when the key changes).
#include "batch/dml.h"
#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

class UpdateExecutor : public DmlExecutor {
 public:
  UpdateExecutor(const UpdateNode& node, ExecutorPtr child, ExecContext& ctx)
      : DmlExecutor(&node.returning, std::move(child), ctx), node_(node) {}

 private:
  void Run() override {
    const TableCatalog& table = *node_.table;
    TableWriteSet& writes = ctx_.writes->For(table.id);
    DataChunk old_rows;
    while (child_->Next(&old_rows)) {
      ctx_.CheckCancelled();
      DataChunk new_rows = EvalExpressions(node_.new_values, old_rows, ctx_.eval);
      CheckNotNull(table, new_rows);
      for (size_t r = 0; r < old_rows.num_rows(); r++) {
        std::string old_key = RowKeyOf(table, old_rows, r);
        WriteOp ins;
        ins.key = RowKeyOf(table, new_rows, r);
        EncodeRow(new_rows, r, &ins.value);
        if (ins.key != old_key) {
          writes.ops.push_back(WriteOp{true, old_key, "", false, -1});
          ins.check_unique = true;
          ins.row_delta = 1;
        }
        writes.ops.push_back(std::move(ins));
      }
      result_.Add(new_rows);
    }
  }

  const UpdateNode& node_;
};

}  // namespace

ExecutorPtr MakeUpdate(const UpdateNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<UpdateExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
