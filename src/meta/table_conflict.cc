#include "meta/table_conflict.h"

#include <optional>
#include <unordered_map>

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

namespace {

Row Decode(const TableCatalog& table, std::string_view bytes) {
  Row row;
  if (!DecodeStoredRow(bytes, table.types(), table.MissingCells(), &row))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table.name);
  return row;
}

// Whether the new row's version is not below the old one's (a NULL on
// either side: no).
bool NewVersionWins(const TableCatalog& table, const Row& old_row, const Row& new_row) {
  if (table.version_column < 0) return true;
  const Value& o = old_row[size_t(table.version_column)];
  const Value& n = new_row[size_t(table.version_column)];
  if (o.is_null() || n.is_null()) return false;
  return Value::Compare(n, o) >= 0;
}

}  // namespace

void ResolveTableConflicts(const TableCatalog& table, const StateTable& st, WriteLog* ops) {
  // Each key's row after the ops so far (nullopt: none); the stored row is
  // read only for an insert of a key no earlier op wrote.
  std::unordered_map<std::string, std::optional<std::string>> current;
  WriteLog resolved;
  bool changed = false;
  std::string merged;
  for (const WriteOp& op : *ops) {
    auto [it, fresh] = current.try_emplace(std::string(op.key));
    std::optional<std::string>& now = it->second;
    if (op.is_delete || op.row_delta <= 0) {
      resolved.Add(op);
      if (op.is_delete) now.reset();
      else now = std::string(op.value);
      continue;
    }
    if (fresh) now = st.Get(it->first);
    if (!now) {
      resolved.Add(op);
      now = std::string(op.value);
      continue;
    }
    // An insert of a key that is there.
    changed = true;
    if (table.on_conflict == "ignore") continue;
    const Row old_row = Decode(table, *now);
    const Row new_row = Decode(table, op.value);
    if (!NewVersionWins(table, old_row, new_row)) continue;
    std::string_view value = op.value;
    if (table.on_conflict == "do update if not null") {
      Row row = old_row;
      for (size_t c = 0; c < row.size(); c++)
        if (!new_row[c].is_null()) row[c] = new_row[c];
      merged.clear();
      EncodeRowValues(row, &merged);
      value = merged;
    }
    resolved.Put(op.key, value, /*row_delta=*/0);
    now = std::string(value);
  }
  if (changed) *ops = std::move(resolved);
}

}  // namespace freshet
