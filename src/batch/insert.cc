// Insert: adds the child's rows to a table's WriteSet (NOT NULL checked
// here; primary-key uniqueness when the WriteSet is applied).
#include "batch/dml.h"
#include "batch/executors.h"
#include "storage/state_store.h"
#include "storage/table_engines.h"

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
    // Past a few chunks, an INSERT into a table keyed by generated row ids
    // outside a transaction block becomes a bulk insert (bulk_rows.h): no
    // WriteOp per row, no sort at commit. Small ones stay ops: a BulkRows
    // costs some kilobytes to set up.
    bool may_bulk = !ctx_.pending && table.row_id_index >= 0;
    std::shared_ptr<BulkRows> bulk;
    // The first chunks wait until it is clear which way they go: all of a
    // bulk insert's rows are in its BulkRows, so that its files can be
    // ingested as they are (state_store.cc).
    std::vector<DataChunk> held;
    size_t rows = 0;
    DataChunk in;
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      rows += in.num_rows();
      DataChunk full = PrepareInsertRows(table, std::move(in));
      result_.Add(full);
      if (!may_bulk) {
        AppendInserts(table, full, &writes);
      } else if (bulk) {
        bulk->Add(full);
      } else {
        held.push_back(std::move(full));
        if (rows <= kBulkAfterRows) continue;
        bulk = ctx_.store->engines().For(table.id).NewBulkRows(table.id, table.row_id_index,
                                                               table.StorageDesc().dist_key_indices);
        for (const DataChunk& h : held) bulk->Add(h);
        held.clear();
      }
    }
    for (const DataChunk& h : held) AppendInserts(table, h, &writes);
    if (bulk) {
      bulk->Finish();
      ctx_.writes->AddBulk(std::move(bulk));
    }
  }

  static constexpr size_t kBulkAfterRows = 4 * kChunkSize;

  const InsertNode& node_;
};

}  // namespace

ExecutorPtr MakeInsert(const InsertNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<InsertExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
