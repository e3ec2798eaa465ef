// Delete: removes the keys of the child's rows.
#include "batch/dml.h"
#include "batch/executors.h"

#include <unordered_set>

namespace freshet {

namespace {

class DeleteExecutor : public DmlExecutor {
 public:
  DeleteExecutor(const DeleteNode& node, ExecutorPtr child, ExecContext& ctx)
      : DmlExecutor(&node.returning, std::move(child), ctx), node_(node) {}

 private:
  void Run() override {
    const TableCatalog& table = *node_.table;
    TableWriteSet& writes = ctx_.writes->For(table.id);
    DataChunk old_rows;
    std::unordered_set<std::string> deleted;  // joined: the keys already deleted
    std::string encoded;
    std::vector<std::string_view> removed;
    while (child_->Next(&old_rows)) {
      ctx_.CheckCancelled();
      if (node_.joined) old_rows = FirstOfEachKey(table, old_rows, &deleted);
      EncodeStoredRows(table, old_rows, &encoded, &removed);
      for (size_t r = 0; r < old_rows.num_rows(); r++) writes.ops.Delete(RowKeyOf(table, old_rows, r), -1, removed[r]);
      result_.Add(old_rows);
    }
  }

  const DeleteNode& node_;
};

}  // namespace

ExecutorPtr MakeDelete(const DeleteNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<DeleteExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
