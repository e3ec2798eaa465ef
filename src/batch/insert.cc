// Insert: adds the child's rows to a table's WriteSet (NOT NULL checked
// here; primary-key uniqueness when the WriteSet is applied).
#include <map>
#include <set>

#include "batch/dml.h"
#include "catalog/unique_index_rows.h"
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
    bool may_bulk = !ctx_.pending && table.KeyedByRowId();
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
      ComputeGenerated(table, node_.generated, &full, ctx_.eval);
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

  // ON CONFLICT: each proposed row is looked up on the arbiters (its key,
  // and the values of the arbiter unique constraints: this statement's
  // rows first, then the table with the transaction's writes); a row
  // without a conflict is inserted, one with a conflict skipped (DO
  // NOTHING) or the existing row updated (DO UPDATE, at most once per
  // statement: 21000 as PostgreSQL).
  void RunOnConflict() {
    const TableCatalog& table = *node_.table;
    TableWriteSet& writes = ctx_.writes->For(table.id);
    const bool update = node_.on_conflict == InsertNode::OnConflict::kUpdate;
    for (const auto& name : node_.conflict_uniques)
      for (const auto& c : table.constraints)
        if (c.type == 'u' && c.name == name) arbiters_.push_back(&c);
    std::set<std::string> updated;
    DataChunk in;
    std::string value;
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      // As PostgreSQL: the proposed rows are checked, conflicting or not.
      DataChunk full = PrepareInsertRows(table, std::move(in));
      ComputeGenerated(table, node_.generated, &full, ctx_.eval);
      CheckConstraints(table, node_.checks, full, ctx_.eval);
      DataChunk out(table.types());
      for (size_t r = 0; r < full.num_rows(); r++) {
        std::vector<Value> proposed = full.GetRow(r);
        std::string key = RowKeyOf(table, full, r);
        std::optional<Conflict> existing = FindConflict(table, proposed, key);
        if (!existing) {
          value.clear();
          EncodeRow(full, r, &value);
          writes.ops.Put(key, value, 1, /*check_unique=*/true);
          Written(key, proposed, value);
          updated.insert(key);  // as PostgreSQL: a row this command inserted is affected already
          AppendRow(full, r, &out);
          continue;
        }
        if (!update) continue;
        if (!updated.insert(existing->key).second)
          throw SqlError("21000", "ON CONFLICT DO UPDATE command cannot affect row a second time")
              .WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.");
        // The existing row's columns, then the proposed row's.
        DataChunk pair(PairTypes(table));
        for (size_t c = 0; c < existing->row.size(); c++) pair.column(c).Append(existing->row[c]);
        for (size_t c = 0; c < proposed.size(); c++) pair.column(existing->row.size() + c).Append(proposed[c]);
        pair.set_cardinality(1);
        if (node_.conflict_where) {
          std::vector<uint8_t> pass = ToMask(node_.conflict_where->Eval(pair, ctx_.eval));
          if (pass.empty() || !pass[0]) continue;
        }
        DataChunk next = EvalExpressions(node_.conflict_set, pair, ctx_.eval);
        CheckNotNull(table, next);
        ComputeGenerated(table, node_.generated, &next, ctx_.eval);
        CheckConstraints(table, node_.checks, next, ctx_.eval);
        std::string new_key = RowKeyOf(table, next, 0);
        value.clear();
        EncodeRow(next, 0, &value);
        Unwritten(existing->key, existing->row);
        if (new_key != existing->key) {
          writes.ops.Delete(existing->key, -1);
          writes.ops.Put(new_key, value, 1, /*check_unique=*/true);
        } else {
          writes.ops.Put(new_key, value);
        }
        Written(new_key, next.GetRow(0), value);
        updated.insert(new_key);
        AppendRow(next, 0, &out);
      }
      if (out.num_rows() > 0) result_.Add(out);
    }
  }

  struct Conflict {
    std::string key;          // the existing row's storage key
    std::vector<Value> row;   // its columns
  };

  // The existing row a proposed one conflicts with on an arbiter, if any.
  std::optional<Conflict> FindConflict(const TableCatalog& table, const std::vector<Value>& proposed,
                                       const std::string& key) {
    if (node_.conflict_on_key)
      if (auto row = Existing(table, key, proposed)) return Conflict{key, std::move(*row)};
    for (const ConstraintCatalog* c : arbiters_) {
      std::optional<std::string> values = UniqueValues(table, *c, proposed);
      if (!values || !InIndex(table, *c, proposed)) continue;  // NULLs conflict with nothing
      for (const auto& [candidate, key_row] : Holders(table, *c, proposed, *values)) {
        std::optional<std::vector<Value>> row = Existing(table, candidate, key_row);
        // Still holding the values once this transaction's writes are seen.
        if (row && UniqueValues(table, *c, *row) == values && InIndex(table, *c, *row))
          return Conflict{candidate, std::move(*row)};
      }
    }
    return std::nullopt;
  }

  // Whether unique index c holds a row: every row but for a partial
  // index, whose predicate must be true for it.
  bool InIndex(const TableCatalog& table, const ConstraintCatalog& c, const std::vector<Value>& row) {
    auto it = node_.conflict_predicates.find(c.name);
    if (it == node_.conflict_predicates.end()) return true;
    DataChunk one(table.types());
    one.AppendRow(row);
    Vector holds = it->second->Eval(one, ctx_.eval);
    return !holds.IsNull(0) && holds.GetBool(0);
  }

  // The values of unique constraint c's elements for a row: its columns',
  // or its expressions' over the row.
  std::vector<Value> ElementValues(const TableCatalog& table, const ConstraintCatalog& c, const std::vector<Value>& row) {
    auto exprs = node_.conflict_elements.find(c.name);
    std::vector<Value> values;
    std::optional<DataChunk> one;
    for (size_t k = 0; k < c.columns.size(); k++) {
      if (exprs != node_.conflict_elements.end() && exprs->second[k]) {
        if (!one) {
          one.emplace(table.types());
          one->AppendRow(row);
        }
        values.push_back(exprs->second[k]->Eval(*one, ctx_.eval).GetValue(0));
      } else {
        values.push_back(row[table.ColumnIndex(c.columns[k])]);
      }
    }
    return values;
  }

  // The encoded values of a row's elements in unique constraint c, or
  // nullopt when one is NULL (and NULLs are distinct).
  std::optional<std::string> UniqueValues(const TableCatalog& table, const ConstraintCatalog& c,
                                          const std::vector<Value>& row) {
    std::vector<DataType> types;
    std::vector<Value> values = ElementValues(table, c, row);
    for (const Value& v : values) {
      if (v.is_null() && !c.nulls_not_distinct) return std::nullopt;
      types.push_back(v.type());
    }
    DataChunk one(types);
    for (size_t k = 0; k < values.size(); k++) one.column(k).Append(values[k]);
    one.set_cardinality(1);
    std::string out;
    EncodeRow(one, 0, &out);
    return out;
  }

  // The rows that may hold a unique constraint's values, by key with their
  // key columns: this statement's, the transaction's writes', and the
  // index's (at the read snapshot).
  using Holder = std::pair<std::string, std::vector<Value>>;
  std::vector<Holder> Holders(const TableCatalog& table, const ConstraintCatalog& c,
                              const std::vector<Value>& proposed, const std::string& values) {
    std::vector<Holder> keys;
    if (auto w = written_unique_.find({c.name, values}); w != written_unique_.end()) keys.push_back(w->second);
    if (const TableWriteSet* pending = ctx_.pending ? ctx_.pending->Find(table.id) : nullptr) {
      const std::vector<std::string> missing = table.MissingCells();
      for (const auto& op : pending->ops) {
        if (op.is_delete) continue;
        DataChunk one(table.types());
        if (!DecodeStoredRowInto(op.value, &one, missing))
          throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table.name);
        one.set_cardinality(1);
        std::vector<Value> row = one.GetRow(0);
        if (UniqueValues(table, c, row) == values) keys.push_back({std::string(op.key), std::move(row)});
      }
    }
    ScanSpec spec;
    spec.table = table.UniqueIndexDesc(c);
    std::vector<Value> elements = ElementValues(table, c, proposed);
    for (size_t k = 0; k < c.columns.size(); k++)
      spec.predicates.push_back(ColumnPredicate{static_cast<int>(k), ColumnPredicate::Op::kEq, elements[k], {}});
    std::unique_ptr<ChunkScan> scan = ctx_.Scan(std::move(spec));
    DataChunk found;
    while (scan->Next(&found, kChunkSize))
      for (size_t i = 0; i < found.num_rows(); i++) {
        DataChunk row = IndexHolderRow(table, c, found, i);
        keys.push_back({RowKeyOf(table, row, 0), row.GetRow(0)});
      }
    return keys;
  }

  // This statement's rows: by key, and by their values of each arbiter.
  void Written(const std::string& key, const std::vector<Value>& row, const std::string& value) {
    written_[key] = value;
    for (const ConstraintCatalog* c : arbiters_)
      if (auto values = UniqueValues(*node_.table, *c, row); values && InIndex(*node_.table, *c, row))
        written_unique_[{c->name, *values}] = {key, row};
  }
  void Unwritten(const std::string& key, const std::vector<Value>& row) {
    written_.erase(key);
    for (const ConstraintCatalog* c : arbiters_)
      if (auto values = UniqueValues(*node_.table, *c, row)) {
        auto it = written_unique_.find({c->name, *values});
        if (it != written_unique_.end() && it->second.first == key) written_unique_.erase(it);
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
  // `key_row` holds the key's columns (the others are not read).
  std::optional<std::vector<Value>> Existing(const TableCatalog& table, const std::string& key,
                                             const std::vector<Value>& key_row) {
    auto decode = [&](std::string_view bytes) {
      DataChunk one(table.types());
      if (!DecodeStoredRowInto(bytes, &one, table.MissingCells()))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table.name);
      one.set_cardinality(1);
      return one.GetRow(0);
    };
    if (auto w = written_.find(key); w != written_.end()) return decode(w->second);
    ScanSpec spec;
    spec.table = table.StorageDesc();
    for (int k : table.pk) spec.predicates.push_back(ColumnPredicate{k, ColumnPredicate::Op::kEq, key_row[k], {}});
    if (const TableWriteSet* pending = ctx_.pending ? ctx_.pending->Find(table.id) : nullptr)
      for (const auto& op : pending->ops)
        if (op.key == key) spec.overlay[key] = op.is_delete ? std::nullopt : std::optional<std::string>(std::string(op.value));
    std::unique_ptr<ChunkScan> scan = ctx_.Scan(std::move(spec));
    DataChunk found;
    while (scan->Next(&found, 1))
      for (size_t i = 0; i < found.num_rows(); i++) {
        std::vector<Value> row = found.GetRow(i);
        bool same = true;
        for (int k : table.pk) same = same && Value::Compare(row[k], key_row[k]) == 0;
        if (same) return row;
      }
    return std::nullopt;
  }

  static constexpr size_t kBulkAfterRows = 4 * kChunkSize;

  const InsertNode& node_;
  std::vector<const ConstraintCatalog*> arbiters_;  // the unique constraints ON CONFLICT arbitrates on
  std::map<std::string, std::string> written_;      // this statement's rows by key
  std::map<std::pair<std::string, std::string>, Holder> written_unique_;  // (constraint, values) -> row
};

}  // namespace

ExecutorPtr MakeInsert(const InsertNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<InsertExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
