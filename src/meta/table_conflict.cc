#include "meta/table_conflict.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <xxhash.h>

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

// Whether two ops write the same key: their keys' hashes sorted, equal
// hashes compared by key (no node per key, as a hash map would allocate).
bool RepeatsAKey(const WriteLog& ops) {
  std::vector<std::pair<uint64_t, uint32_t>> hashes;
  hashes.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); i++)
    hashes.emplace_back(XXH3_64bits(ops[i].key.data(), ops[i].key.size()), static_cast<uint32_t>(i));
  std::sort(hashes.begin(), hashes.end());
  for (size_t i = 1; i < hashes.size(); i++) {
    if (hashes[i].first != hashes[i - 1].first) continue;
    // A run of equal hashes: any two equal keys in it?
    size_t begin = i - 1;
    while (i + 1 < hashes.size() && hashes[i + 1].first == hashes[begin].first) i++;
    for (size_t a = begin; a <= i; a++)
      for (size_t b = a + 1; b <= i; b++)
        if (ops[hashes[a].second].key == ops[hashes[b].second].key) return true;
  }
  return false;
}

}  // namespace

void ResolveTableConflicts(const TableCatalog& table, const StateTable& st, WriteLog* ops) {
  // Each key's state: the stored row read for it (when an insert writes it
  // first: no earlier op of the batch wrote it), and its row after the ops
  // so far. Keys are views into *ops, which outlives the map; one lookup
  // per op, the stored rows read together (StateTable::MultiGet).
  struct KeyState {
    size_t read = SIZE_MAX;  // index in `reads`
    bool started = false;
    std::optional<std::string_view> now;  // nullopt: no row
  };
  const size_t n = ops->size();
  // Each key written once (a load of rows): only the inserts' stored rows
  // matter, and when there are none there is nothing to resolve. Else they
  // are the stored rows below too (every insert writes its key first).
  std::optional<std::vector<std::optional<std::string>>> distinct_keys_stored;
  if (n > 1 && !RepeatsAKey(*ops)) {
    std::vector<std::string_view> inserted;
    for (const WriteOp& op : *ops)
      if (!op.is_delete && op.row_delta > 0) inserted.push_back(op.key);
    if (inserted.empty()) return;
    distinct_keys_stored = st.MultiGet(inserted);
    if (std::none_of(distinct_keys_stored->begin(), distinct_keys_stored->end(),
                     [](const auto& r) { return r.has_value(); }))
      return;
  }
  std::unordered_map<std::string_view, KeyState> keys;
  keys.reserve(n);
  std::vector<KeyState*> state_of(n);
  std::vector<std::string_view> reads;
  bool repeats = false;
  for (size_t i = 0; i < n; i++) {
    const WriteOp& op = (*ops)[i];
    auto [it, fresh] = keys.try_emplace(op.key);
    if (!fresh) repeats = true;
    else if (!op.is_delete && op.row_delta > 0) it->second.read = reads.size(), reads.push_back(op.key);
    state_of[i] = &it->second;
  }
  const std::vector<std::optional<std::string>> stored = distinct_keys_stored ? std::move(*distinct_keys_stored)
                                                         : reads.empty()       ? decltype(stored){}
                                                                               : st.MultiGet(reads);
  // Each key written once and none there: nothing to resolve (a load of new rows).
  if (!repeats && std::none_of(stored.begin(), stored.end(), [](const auto& r) { return r.has_value(); })) return;
  std::deque<std::string> merged_rows;  // rows built here that states point into
  // The ops as resolved; built only from the first op that changes.
  std::optional<WriteLog> resolved;
  for (size_t i = 0; i < n; i++) {
    const WriteOp& op = (*ops)[i];
    KeyState& k = *state_of[i];
    if (!k.started) {
      k.started = true;
      if (k.read != SIZE_MAX && stored[k.read]) k.now = *stored[k.read];
    }
    if (op.is_delete || op.row_delta <= 0) {
      if (resolved) resolved->Add(op);
      if (op.is_delete) k.now.reset();
      else k.now = op.value;
      continue;
    }
    if (!k.now) {
      if (resolved) resolved->Add(op);
      k.now = op.value;
      continue;
    }
    // An insert of a key that is there.
    if (!resolved) {
      resolved.emplace();
      for (size_t j = 0; j < i; j++) resolved->Add((*ops)[j]);
    }
    if (table.on_conflict == "ignore") continue;
    const Row old_row = Decode(table, *k.now);
    const Row new_row = Decode(table, op.value);
    if (!NewVersionWins(table, old_row, new_row)) continue;
    std::string_view value = op.value;
    if (table.on_conflict == "do update if not null") {
      Row row = old_row;
      for (size_t c = 0; c < row.size(); c++)
        if (!new_row[c].is_null()) row[c] = new_row[c];
      merged_rows.emplace_back();
      EncodeRowValues(row, &merged_rows.back());
      value = merged_rows.back();
    }
    resolved->Put(op.key, value, /*row_delta=*/0);
    k.now = value;
  }
  if (resolved) *ops = std::move(*resolved);
}

}  // namespace freshet
