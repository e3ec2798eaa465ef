// Scan: the committed rows of a table or materialized view at the
// statement's snapshot.
#include "batch/executors.h"
#include "storage/table_reader.h"

namespace freshet {

namespace {

class ScanExecutor : public Executor {
 public:
  ScanExecutor(const ScanNode& node, ExecContext& ctx)
      : ctx_(ctx), reader_(ctx.store, ctx.snapshot, node.table->id, node.table->types()) {}

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
