// Update: for each old row from the child, deletes its key and inserts the
// new row (re-checking uniqueness only when the key changes).
#include "batch/dml.h"
#include "batch/executors.h"
#include "common/encoding.h"

#include <unordered_set>

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
    std::string value;
    std::unordered_set<std::string> updated;  // joined: the keys already updated
    std::string encoded;
    std::vector<std::string_view> removed;  // old rows, encoded when a key changes
    while (child_->Next(&old_rows)) {
      removed.clear();
      ctx_.CheckCancelled();
      if (node_.joined) old_rows = FirstOfEachKey(table, old_rows, &updated);
      DataChunk new_rows = EvalExpressions(node_.new_values, old_rows, ctx_.eval);
      CheckNotNull(table, new_rows);
      ComputeGenerated(table, node_.generated, &new_rows, ctx_.eval);
      CheckConstraints(table, node_.checks, new_rows, ctx_.eval);
      for (size_t r = 0; r < old_rows.num_rows(); r++) {
        std::string old_key = RowKeyOf(table, old_rows, r), new_key = RowKeyOf(table, new_rows, r);
        value.clear();
        EncodeRow(new_rows, r, &value);
        if (new_key != old_key) {
          // A new key: the old row goes, the new one must not collide.
          if (removed.empty()) EncodeStoredRows(table, old_rows, &encoded, &removed);
          writes.ops.Delete(old_key, -1, removed[r]);
          writes.ops.Put(new_key, value, 1, /*check_unique=*/true);
        } else {
          writes.ops.Put(new_key, value);
        }
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
