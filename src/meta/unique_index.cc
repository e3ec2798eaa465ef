#include "meta/unique_index.h"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/unique_index_rows.h"
#include "common/encoding.h"
#include "expr/cast.h"

namespace freshet {

SqlError UniqueViolation(const TableCatalog& table, const std::string& constraint, const std::vector<int>& columns,
                         const Row& row) {
  std::vector<std::string> names;
  std::vector<Value> values;
  for (int k : columns) {
    names.push_back(table.columns[k].name);
    values.push_back(row[k]);
  }
  return UniqueViolation(table, constraint, names, values);
}

SqlError UniqueViolation(const TableCatalog& table, const std::string& constraint, const std::vector<std::string>& names,
                         const std::vector<Value>& values) {
  SqlError e(sqlstate::kUniqueViolation, "duplicate key value violates unique constraint \"" + constraint + "\"");
  std::string name_list, texts;
  EvalContext ctx;
  for (size_t k = 0; k < names.size(); k++) {
    name_list += (k ? ", " : "") + names[k];
    texts += (k ? ", " : "") + (values[k].is_null() ? std::string("null") : FormatValueText(values[k], ctx));
  }
  e.WithDetail("Key (" + name_list + ")=(" + texts + ") already exists.");
  e.WithField('t', table.name).WithField('n', constraint);
  return e;
}

namespace {
IndexExpressionBinder& ExpressionBinder() {
  static IndexExpressionBinder* binder = new IndexExpressionBinder();
  return *binder;
}

ExprPtr BindIndexText(const TableCatalog& table, const ConstraintCatalog& c, const std::string& text, bool condition) {
  if (!ExpressionBinder()) throw SqlError(sqlstate::kInternalError, "no binder for the expressions of index " + c.name);
  return ExpressionBinder()(table, text, condition);
}
}  // namespace

void SetIndexExpressionBinder(IndexExpressionBinder binder) { ExpressionBinder() = std::move(binder); }

std::vector<std::shared_ptr<const Expression>> BindIndexElements(const TableCatalog& table, const ConstraintCatalog& c) {
  std::vector<std::shared_ptr<const Expression>> out;
  if (!c.HasExpressions()) return out;
  for (const auto& text : c.expressions)
    out.push_back(text.empty() ? nullptr : std::shared_ptr<const Expression>(BindIndexText(table, c, text, false)));
  return out;
}

std::vector<std::string> IndexElementNames(const ConstraintCatalog& c) {
  std::vector<std::string> names = c.columns;
  for (size_t k = 0; k < c.expressions.size(); k++)
    if (!c.expressions[k].empty()) names[k] = c.expressions[k];
  return names;
}

std::vector<Value> IndexElementValues(const TableCatalog& table, const ConstraintCatalog& c,
                                      const std::vector<std::shared_ptr<const Expression>>& elements, const Row& row) {
  std::vector<Value> values;
  std::optional<DataChunk> one;
  for (size_t k = 0; k < c.columns.size(); k++) {
    if (k < elements.size() && elements[k]) {
      if (!one) {
        one.emplace(table.types());
        one->AppendRow(row);
      }
      EvalContext ctx;
      values.push_back(elements[k]->Eval(*one, ctx).GetValue(0));
    } else {
      values.push_back(row[table.ColumnIndex(c.columns[k])]);
    }
  }
  return values;
}

bool UniqueIndexWrites::HasUniqueConstraints(const TableCatalog& table) {
  for (const auto& c : table.constraints)
    if (c.type == 'u') return true;
  return false;
}

UniqueIndexWrites::UniqueIndexWrites(const TableCatalog& table, const StateTable& rows, const IndexFor& index_for)
    : table_(table), rows_(rows), missing_(table.MissingCells()) {
  for (const auto& c : table.constraints) {
    if (c.type != 'u') continue;
    Index index{&c, table.UniqueIndexColumns(c), index_for(c), {}, nullptr, BindIndexElements(table, c)};
    if (!c.predicate.empty()) index.predicate = BindIndexText(table, c, c.predicate, true);
    indexes_.push_back(std::move(index));
  }
}

Row UniqueIndexWrites::Decode(const std::string& encoded) const {
  Row row;
  if (!DecodeStoredRow(encoded, table_.types(), missing_, &row)) throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table_.name);
  return row;
}

// The index row of a table row: its elements' values, then its key's
// columns.
DataChunk UniqueIndexWrites::IndexRow(const Index& index, const Row& row) const {
  DataChunk out(index.table->desc().column_types);
  std::vector<Value> elements = IndexElementValues(table_, *index.constraint, index.elements, row);
  for (size_t k = 0; k < index.columns.size(); k++)
    out.column(k).Append(k < elements.size() ? elements[k] : row[index.columns[k]]);
  out.set_cardinality(1);
  return out;
}

bool UniqueIndexWrites::Holds(const Index& index, const Row& row) const {
  if (!index.predicate) return true;
  DataChunk one(table_.types());
  one.AppendRow(row);
  EvalContext ctx;
  Vector holds = index.predicate->Eval(one, ctx);
  return !holds.IsNull(0) && holds.GetBool(0);
}

std::optional<DataChunk> UniqueIndexWrites::IndexRowOf(const Index& index, const Row& row) const {
  if (!Holds(index, row)) return std::nullopt;
  DataChunk index_row = IndexRow(index, row);
  if (!index.constraint->nulls_not_distinct)
    for (size_t k = 0; k < index.constraint->columns.size(); k++)
      if (index_row.column(k).IsNull(0)) return std::nullopt;
  return index_row;
}

std::optional<std::string> UniqueIndexWrites::Lookup(Index& index, const std::string& key) const {
  auto it = index.overlay.find(key);
  if (it != index.overlay.end()) return it->second ? std::optional<std::string>(it->second->row_key) : std::nullopt;
  std::optional<std::string> stored = index.table->Get(key);
  if (!stored) return std::nullopt;
  // The holder's row key, from the key columns the index row ends with.
  DataChunk index_row(index.table->desc().column_types);
  if (!DecodeRowInto(*stored, &index_row))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt row in the index of " + index.constraint->name);
  index_row.set_cardinality(1);
  DataChunk row = IndexHolderRow(table_, *index.constraint, index_row, 0);
  return RowKey(table_.id, table_.dist_key, table_.pk, row, 0);
}

void UniqueIndexWrites::Remove(const std::string& row_key, const std::string& encoded) {
  Row row = Decode(encoded);
  for (Index& index : indexes_) {
    std::optional<DataChunk> index_row = IndexRowOf(index, row);
    if (!index_row) continue;
    std::string key = index.table->KeyOf(*index_row, 0);
    std::optional<std::string> holder = Lookup(index, key);
    if (holder && *holder == row_key) index.overlay[key] = std::nullopt;
  }
}

void UniqueIndexWrites::Claim(Index& index, std::string key, const std::string& row_key, std::string index_row,
                              const DataChunk& index_rows, size_t r) {
  std::optional<std::string> holder = Lookup(index, key);
  if (holder && *holder != row_key) {
    std::vector<Value> values;
    for (size_t k = 0; k < index.constraint->columns.size(); k++) values.push_back(index_rows.column(k).GetValue(r));
    throw UniqueViolation(table_, index.constraint->name, IndexElementNames(*index.constraint), values);
  }
  index.overlay[std::move(key)] = Entry{row_key, std::move(index_row)};
}

void UniqueIndexWrites::Insert(const std::string& row_key, const std::string& encoded) {
  Row row = Decode(encoded);
  for (Index& index : indexes_) {
    std::optional<DataChunk> index_row = IndexRowOf(index, row);
    if (!index_row) continue;
    std::string bytes;
    EncodeRow(*index_row, 0, &bytes);
    Claim(index, index.table->KeyOf(*index_row, 0), row_key, std::move(bytes), *index_row, 0);
  }
}

void UniqueIndexWrites::Add(const WriteLog& ops) {
  for (const WriteOp& op : ops) {
    std::string row_key(op.key);
    auto it = latest_.find(row_key);
    std::optional<std::string> old = it != latest_.end() ? it->second : rows_.Get(row_key);
    if (old) Remove(row_key, *old);
    if (op.is_delete) {
      latest_[row_key] = std::nullopt;
      continue;
    }
    std::string value(op.value);
    Insert(row_key, value);
    latest_[row_key] = std::move(value);
  }
}

void UniqueIndexWrites::AddBulk(const BulkRows& rows) {
  // Rows decoded a chunk at a time, column by column; each index's rows
  // encoded for the whole chunk (a bulk load is a million rows: no Values
  // per row, no one-row chunks). Rows are still taken in order, each into
  // every index, so the first conflict is the one reported.
  for (Index& index : indexes_) index.overlay.reserve(index.overlay.size() + rows.size());
  const std::vector<DataType> types = table_.types();
  std::vector<std::string> row_keys;
  struct Encoded {
    DataChunk rows;
    std::vector<size_t> sizes, offsets;
    std::string bytes;
  };
  std::vector<Encoded> encoded(indexes_.size());
  std::vector<char*> ends;
  BulkRows::Cursor c(&rows);
  c.Seek("");
  while (c.Valid()) {
    DataChunk chunk(types);
    row_keys.clear();
    for (; c.Valid() && row_keys.size() < kChunkSize; c.Next()) {
      if (!DecodeStoredRowInto(c.value(), &chunk, missing_))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table_.name);
      row_keys.emplace_back(c.key());
    }
    const size_t n = row_keys.size();
    chunk.set_cardinality(n);
    for (size_t i = 0; i < indexes_.size(); i++) {
      Encoded& e = encoded[i];
      std::vector<Vector> columns;
      for (size_t k = 0; k < indexes_[i].columns.size(); k++) {
        if (k < indexes_[i].elements.size() && indexes_[i].elements[k]) {
          EvalContext ctx;
          columns.push_back(indexes_[i].elements[k]->Eval(chunk, ctx));
        } else {
          columns.push_back(chunk.column(indexes_[i].columns[k]));
        }
      }
      e.rows = DataChunk(std::move(columns));
      e.rows.set_cardinality(n);
      EncodedRowSizes(e.rows, &e.sizes);
      e.offsets.resize(n);
      size_t total = 0;
      for (size_t r = 0; r < n; r++) e.offsets[r] = total, total += e.sizes[r];
      e.bytes.resize(total);
      ends.resize(n);
      for (size_t r = 0; r < n; r++) ends[r] = e.bytes.data() + e.offsets[r];
      EncodeRowsTo(e.rows, ends.data());
    }
    // The partial indexes' predicates, over the whole chunk.
    std::vector<std::optional<Vector>> holds(indexes_.size());
    for (size_t i = 0; i < indexes_.size(); i++)
      if (indexes_[i].predicate) {
        EvalContext ctx;
        holds[i] = indexes_[i].predicate->Eval(chunk, ctx);
      }
    for (size_t r = 0; r < n; r++)
      for (size_t i = 0; i < indexes_.size(); i++) {
        Index& index = indexes_[i];
        const Encoded& e = encoded[i];
        if (holds[i] && (holds[i]->IsNull(r) || !holds[i]->GetBool(r))) continue;
        const size_t constrained = index.constraint->columns.size();
        bool has_null = false;
        for (size_t k = 0; k < constrained && !index.constraint->nulls_not_distinct; k++)
          has_null |= e.rows.column(k).IsNull(r);
        if (has_null) continue;
        Claim(index, index.table->KeyOf(e.rows, r), row_keys[r], e.bytes.substr(e.offsets[r], e.sizes[r]), e.rows, r);
      }
  }
}

void UniqueIndexWrites::AddStored(const WriteLog& rows) {
  for (const WriteOp& op : rows) Insert(std::string(op.key), std::string(op.value));
}

std::vector<std::pair<std::shared_ptr<StateTable>, WriteLog>> UniqueIndexWrites::Writes() const {
  std::vector<std::pair<std::shared_ptr<StateTable>, WriteLog>> out;
  for (const Index& index : indexes_) {
    WriteLog log;
    for (const auto& [key, entry] : index.overlay) {
      if (entry) log.Put(key, entry->encoded);
      else log.Delete(key);
    }
    if (!log.empty()) out.emplace_back(index.table, std::move(log));
  }
  return out;
}

}  // namespace freshet
