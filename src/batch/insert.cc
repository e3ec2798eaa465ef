// Insert: adds the child's rows to a table's WriteSet (NOT NULL checked
// here; primary-key uniqueness when the WriteSet is applied).
#include <map>
#include <set>

#include "batch/dml.h"
#include "common/encoding.h"
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
    if (node_.on_conflict != InsertNode::OnConflict::kNone) return RunOnConflict();
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
      CheckConstraints(table, node_.checks, full, ctx_.eval);
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

  // ON CONFLICT: each proposed row's key is looked up (this statement's
  // rows first, then the table with the transaction's writes); a new key is
  // inserted, an existing one skipped (DO NOTHING) or its row updated (DO
  // UPDATE, at most once per statement: 21000 as PostgreSQL).
  void RunOnConflict() {
    const TableCatalog& table = *node_.table;
    TableWriteSet& writes = ctx_.writes->For(table.id);
    const bool update = node_.on_conflict == InsertNode::OnConflict::kUpdate;
    std::map<std::string, std::string> written;  // this statement's rows by key
    std::set<std::string> updated;
    DataChunk in;
    std::string value;
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      // As PostgreSQL: the proposed rows are checked, conflicting or not.
      DataChunk full = PrepareInsertRows(table, std::move(in));
      CheckConstraints(table, node_.checks, full, ctx_.eval);
      DataChunk out(table.types());
      for (size_t r = 0; r < full.num_rows(); r++) {
        std::string key = RowKeyOf(table, full, r);
        std::optional<std::vector<Value>> existing = Existing(table, full, r, key, written);
        if (!existing) {
          value.clear();
          EncodeRow(full, r, &value);
          writes.ops.Put(key, value, 1, /*check_unique=*/true);
          written[key] = value;
          AppendRow(full, r, &out);
          continue;
        }
        if (!update) continue;
        if (!updated.insert(key).second)
          throw SqlError("21000", "ON CONFLICT DO UPDATE command cannot affect row a second time")
              .WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.");
        // The existing row's columns, then the proposed row's.
        DataChunk pair(PairTypes(table));
        std::vector<Value> proposed = full.GetRow(r);
        for (size_t c = 0; c < existing->size(); c++) pair.column(c).Append((*existing)[c]);
        for (size_t c = 0; c < proposed.size(); c++) pair.column(existing->size() + c).Append(proposed[c]);
        pair.set_cardinality(1);
        if (node_.conflict_where) {
          std::vector<uint8_t> pass = ToMask(node_.conflict_where->Eval(pair, ctx_.eval));
          if (pass.empty() || !pass[0]) continue;
        }
        DataChunk next = EvalExpressions(node_.conflict_set, pair, ctx_.eval);
        CheckNotNull(table, next);
        CheckConstraints(table, node_.checks, next, ctx_.eval);
        std::string new_key = RowKeyOf(table, next, 0);
        value.clear();
        EncodeRow(next, 0, &value);
        if (new_key != key) {
          writes.ops.Delete(key, -1);
          writes.ops.Put(new_key, value, 1, /*check_unique=*/true);
          written.erase(key);
        } else {
          writes.ops.Put(key, value);
        }
        written[new_key] = value;
        AppendRow(next, 0, &out);
      }
      if (out.num_rows() > 0) result_.Add(out);
    }
  }

  static std::vector<DataType> PairTypes(const TableCatalog& table) {
    std::vector<DataType> types = table.types();
    std::vector<DataType> both = types;
    both.insert(both.end(), types.begin(), types.end());
    return both;
  }

  static void AppendRow(const DataChunk& from, size_t r, DataChunk* to) {
    for (size_t c = 0; c < from.num_columns(); c++) to->column(c).AppendFrom(from.column(c), r);
    to->set_cardinality(to->num_rows() + 1);
  }

  // The row stored under `key`: one this statement wrote, else the table's
  // (at the snapshot, or the latest for the writer lock's holder) with the
  // transaction's writes over it.
  std::optional<std::vector<Value>> Existing(const TableCatalog& table, const DataChunk& rows, size_t r,
                                             const std::string& key, const std::map<std::string, std::string>& written) {
    auto decode = [&](std::string_view bytes) {
      DataChunk one(table.types());
      if (!DecodeRowInto(bytes, &one)) throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table.name);
      one.set_cardinality(1);
      return one.GetRow(0);
    };
    if (auto w = written.find(key); w != written.end()) return decode(w->second);
    ScanSpec spec;
    spec.table = table.StorageDesc();
    for (int k : table.pk) spec.predicates.push_back(ColumnPredicate{k, ColumnPredicate::Op::kEq, rows.column(k).GetValue(r), {}});
    if (const TableWriteSet* pending = ctx_.pending ? ctx_.pending->Find(table.id) : nullptr)
      for (const auto& op : pending->ops)
        if (op.key == key) spec.overlay[key] = op.is_delete ? std::nullopt : std::optional<std::string>(std::string(op.value));
    std::unique_ptr<ChunkScan> scan = ctx_.Scan(std::move(spec));
    DataChunk found;
    while (scan->Next(&found, 1))
      for (size_t i = 0; i < found.num_rows(); i++) {
        std::vector<Value> row = found.GetRow(i);
        bool same = true;
        for (int k : table.pk) same = same && Value::Compare(row[k], rows.column(k).GetValue(r)) == 0;
        if (same) return row;
      }
    return std::nullopt;
  }

  static constexpr size_t kBulkAfterRows = 4 * kChunkSize;

  const InsertNode& node_;
};

}  // namespace

ExecutorPtr MakeInsert(const InsertNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<InsertExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
