// Scan: the committed rows of a table or materialized view at the
// statement's snapshot.
#include "batch/executors.h"
#include "storage/table_reader.h"

namespace freshet {

namespace {

// The transaction's own writes to this table, latest per key.
Overlay PendingWrites(const ScanNode& node, const ExecContext& ctx) {
  Overlay overlay;
  const TableWriteSet* writes = ctx.pending ? ctx.pending->Find(node.table->id) : nullptr;
  if (!writes) return overlay;
  for (const auto& op : writes->ops) {
    if (op.is_delete) overlay[op.key] = std::nullopt;
    else overlay[op.key] = op.value;
  }
  return overlay;
}

class ScanExecutor : public Executor {
 public:
  ScanExecutor(const ScanNode& node, ExecContext& ctx)
      : ctx_(ctx), reader_(ctx.store, ctx.snapshot, node.table->id, node.table->types(), PendingWrites(node, ctx),
                node.used_columns) {}

  bool Next(DataChunk* out) override {
    ctx_.CheckCancelled();
    return reader_.Next(out);
  }

 private:
  ExecContext& ctx_;
  TableReader reader_;
};

}  // namespace

ExecutorPtr MakeScan(const ScanNode& node, ExecContext& ctx) { return std::make_unique<ScanExecutor>(node, ctx); }

}  // namespace freshet
