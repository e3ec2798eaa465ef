// SystemScan: rows of a system table, generated from the catalog.
#include "batch/batch_counters.h"
#include "batch/executors.h"
#include "catalog/system_tables.h"

namespace freshet {

namespace {

class SystemScanExecutor : public Executor {
 public:
  SystemScanExecutor(const SystemScanNode& node, ExecContext& ctx) : types_(node.types()) {
    auto dot = node.name.find('.');
    const SystemTableDef* def = FindSystemTable(node.name.substr(0, dot), node.name.substr(dot + 1));
    rows_ = GenerateSystemRows(*def, SystemTableContext{ctx.catalog, ctx.database_id, ctx.user_name, ctx.job_progress, ctx.fragments,
                                                        ctx.row_count, ctx.settings, ctx.prepared_statements, ctx.cursors,
                                                        ctx.activity, ctx.locks, ctx.eval.catalog.get(), ctx.watermarks, ctx.late_rows, ctx.database_status, ctx.change_log, ctx.procedures,
                                                        ctx.region_statistics, [] { return GetBatchCounters().List(); }});
  }

  bool Next(DataChunk* out) override {
    if (pos_ >= rows_.size()) return false;
    *out = DataChunk(types_);
    for (size_t n = 0; n < kChunkSize && pos_ < rows_.size(); n++) out->AppendRow(rows_[pos_++]);
    return true;
  }

 private:
  std::vector<DataType> types_;
  std::vector<Row> rows_;
  size_t pos_ = 0;
};

}  // namespace

ExecutorPtr MakeSystemScan(const SystemScanNode& node, ExecContext& ctx) {
  return std::make_unique<SystemScanExecutor>(node, ctx);
}

}  // namespace freshet
