#include "storage/row_store_engine.h"

#include <algorithm>
#include <unordered_set>

#include "common/encoding.h"
#include "storage/keys.h"
#include "storage/state_table.h"

namespace freshet {

namespace {

// Types whose memcomparable key encoding orders values exactly as SQL's
// comparison does (equal values, equal bytes).
bool KeyOrderIsSqlOrder(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
    case TypeId::kTimestamptz:
    case TypeId::kVarchar:
      return true;
    default:
      return false;
  }
}

bool Usable(const ColumnPredicate& p, const StateTableDesc& table) {
  if (p.column < 0 || static_cast<size_t>(p.column) >= table.column_types.size()) return false;
  const DataType& t = table.column_types[p.column];
  return !p.value.is_null() && p.value.type().id == t.id && KeyOrderIsSqlOrder(t);
}

std::string Encoded(const Value& v) {
  std::string out;
  EncodeKeyValue(v, &out);
  return out;
}

// The tightest of the bounds on one side: the greater lower bound (or the
// smaller upper one); at equal values the exclusive one.
void Tighten(const ColumnPredicate& p, bool lower, const ColumnPredicate** best) {
  if (!*best) {
    *best = &p;
    return;
  }
  int cmp = Value::Compare(p.value, (*best)->value);
  bool exclusive = p.op == ColumnPredicate::Op::kGt || p.op == ColumnPredicate::Op::kLt;
  if ((lower ? cmp > 0 : cmp < 0) || (cmp == 0 && exclusive)) *best = &p;
}

// Reads the committed rows of the key ranges [prefix(v)+lower,
// prefix(v)+upper) of the vnodes in order, merging into each range the
// overlay's keys that fall in it (the ranges hold every key the predicates
// can match, so an overlay key outside them would be filtered out anyway).
class RowStoreScan : public ChunkScan {
 public:
  // With `latest`, a lookup of whole keys read through it (no snapshot):
  // the caller drops the scan unless point_lookup().
  RowStoreScan(const StateStore* store, std::shared_ptr<const Snapshot> snapshot, ScanSpec spec,
               std::shared_ptr<const StateTable> latest = nullptr)
      : store_(store), snapshot_(std::move(snapshot)), spec_(std::move(spec)), latest_(std::move(latest)) {
    PlanRanges(RowKeyProbesOf(spec_.table, spec_.predicates));
    if (!point_keys_ && !latest_) NextRange();
  }

  bool point_lookup() const { return point_keys_; }

  bool Next(DataChunk* out, size_t max_rows) override {
    if (point_keys_ ? next_range_ >= ranges_.size() : !range_) return false;  // done: no chunk to build
    *out = DataChunk(spec_.table.column_types);
    size_t n = 0;
    auto decode = [&](std::string_view bytes) {
      bool ok = DecodeStoredRowInto(bytes, out, spec_.table.missing_cells,
                                    spec_.projection.empty() ? nullptr : &spec_.projection);
      if (!ok) throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + std::to_string(spec_.table.table_id));
      n++;
    };
    if (point_keys_) {
      // One key per range, in key order: the overlay's entry for it wins.
      std::string value;
      while (n < max_rows && next_range_ < ranges_.size()) {
        const std::string& key = ranges_[next_range_++].first;
        if (auto o = spec_.overlay.find(key); o != spec_.overlay.end()) {
          if (o->second) decode(*o->second);
          continue;
        }
        if (latest_) {
          if (std::optional<std::string> row = latest_->Get(key)) decode(*row);
          continue;
        }
        Status s = store_->Get(store_->data_cf(), snapshot_.get(), key, &value);
        if (s.IsNotFound()) continue;
        if (!s.ok()) throw SqlError(sqlstate::kIoError, "lookup failed: " + s.message());
        decode(value);
      }
      out->set_cardinality(n);
      return n > 0;
    }
    // Merge the committed rows with the overlay in key order; the overlay wins.
    while (n < max_rows && range_) {
      auto& it = range_->it;
      bool have_store = it->Valid() && (range_end_.empty() || it->key().compare(range_end_) < 0);
      bool have_overlay = next_overlay_ != overlay_end_;
      if (!have_store && !have_overlay) {
        if (!it->status().ok()) throw SqlError(sqlstate::kIoError, "scan failed: " + it->status().ToString());
        NextRange();
        continue;
      }
      int cmp = !have_store ? 1 : !have_overlay ? -1 : it->key().compare(rocksdb::Slice(next_overlay_->first));
      if (cmp < 0) {
        rocksdb::Slice v = it->value();
        decode(std::string_view(v.data(), v.size()));
        if (spec_.resumable) last_key_.assign(it->key().data(), it->key().size());
        it->Next();
        continue;
      }
      if (cmp == 0) it->Next();
      if (next_overlay_->second) {
        decode(*next_overlay_->second);
        if (spec_.resumable) last_key_ = next_overlay_->first;
      }
      ++next_overlay_;
    }
    out->set_cardinality(n);
    return n > 0;
  }

  bool complete() const override { return !narrowed_ && spec_.start_after.empty(); }
  const std::string& last_key() const override { return last_key_; }

 private:
  std::string VnodeStart(int vnode) const {
    TableId table = spec_.table.table_id;
    return vnode >= kVnodeCount ? PrefixSuccessor(TablePrefix(table)) : VnodePrefix(table, static_cast<uint16_t>(vnode));
  }

  // The key ranges the probes allow within the scan's vnodes, sorted and
  // without repeats (two values of an IN list may pin the same vnode with
  // the same bounds). Too many ranges: the predicates are not used.
  void PlanRanges(const std::vector<RowKeyBounds>& probes) {
    if (probes.empty()) return;
    std::vector<std::pair<std::string, std::string>> ranges;
    // Whole keys in one vnode each are read by lookups (Get uses the
    // files' bloom filters, an iterator seeks in every level); a
    // resumable scan keeps the iterator.
    bool point_keys = spec_.start_after.empty() && !spec_.resumable;
    for (const RowKeyBounds& b : probes) {
      point_keys = point_keys && b.exact && b.vnode;
      int begin = spec_.vnode_begin, end = spec_.vnode_end;
      if (b.vnode) {
        begin = std::max<int>(begin, *b.vnode);
        end = std::min<int>(end, *b.vnode + 1);
      }
      for (int v = begin; v < end; v++) {
        if (ranges.size() >= kMaxRanges) return;
        std::string prefix = VnodeStart(v);
        ranges.emplace_back(prefix + b.lower, b.upper.empty() ? VnodeStart(v + 1) : prefix + b.upper);
      }
    }
    std::sort(ranges.begin(), ranges.end());
    ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
    ranges_ = std::move(ranges);
    narrowed_ = true;
    point_keys_ = point_keys;
  }

  // Positions at the next key range. Narrowed: one iterator over all the
  // ranges, sought to each in key order (an iterator per range cost more
  // than the few keys a lookup reads), the current one ending at
  // range_end_. Otherwise one range over every vnode of the scan. range_ is
  // null when none is left.
  void NextRange() {
    std::string lower, upper;
    if (!narrowed_) {
      if (range_) {
        range_.reset();
        return;
      }
      lower = VnodeStart(spec_.vnode_begin);
      upper = VnodeStart(spec_.vnode_end);
    } else {
      if (next_range_ >= ranges_.size()) {
        range_.reset();
        return;
      }
      lower = ranges_[next_range_].first;
      range_end_ = ranges_[next_range_].second;
      next_range_++;
      if (!range_)
        for (const auto& r : ranges_) upper = std::max(upper, r.second);
    }
    // Past start_after: keys greater than it (it plus a zero byte is the
    // least of them).
    if (!spec_.start_after.empty() && spec_.start_after >= lower) lower = spec_.start_after + std::string(1, '\0');
    // The overlay's keys in [lower, end of this range).
    const std::string& end = narrowed_ ? range_end_ : upper;
    next_overlay_ = spec_.overlay.lower_bound(lower);
    // An empty range (its lower bound at or past its end) takes none.
    overlay_end_ = lower >= end ? next_overlay_ : spec_.overlay.lower_bound(end);
    if (range_) {
      range_->it->Seek(lower);
      return;
    }
    StateStore::ReadPattern pattern = spec_.read_once ? StateStore::ReadPattern::kOnce
                                      : !narrowed_    ? StateStore::ReadPattern::kScan
                                                      : StateStore::ReadPattern::kShort;
    range_ = store_->NewRange(store_->data_cf(), snapshot_.get(), std::move(lower), std::move(upper), pattern);
  }

  const StateStore* store_;
  std::shared_ptr<const Snapshot> snapshot_;
  ScanSpec spec_;
  std::shared_ptr<const StateTable> latest_;
  bool narrowed_ = false;  // reads ranges_, not the whole vnode range
  bool point_keys_ = false;  // each of ranges_ is one key (its lower bound), read by Get
  std::vector<std::pair<std::string, std::string>> ranges_;  // [lower, upper) storage keys, sorted
  size_t next_range_ = 0;
  std::unique_ptr<StateStore::Range> range_;
  std::string range_end_;  // where the current vnode's range ends (empty: range_'s own end)
  Overlay::const_iterator next_overlay_, overlay_end_;
  std::string last_key_;
};

}  // namespace

RowKeyBounds RowKeyBoundsOf(const StateTableDesc& table, const ColumnPredicates& predicates) {
  RowKeyBounds bounds;
  if (predicates.empty()) return bounds;
  // The vnode: every distribution-key column pinned by an equality.
  std::vector<const Value*> equal(table.column_types.size(), nullptr);
  for (const auto& p : predicates)
    if (p.op == ColumnPredicate::Op::kEq && Usable(p, table)) equal[p.column] = &p.value;
  if (!table.dist_key_indices.empty()) {
    bool pinned = true;
    for (int c : table.dist_key_indices) pinned = pinned && c >= 0 && static_cast<size_t>(c) < equal.size() && equal[c];
    if (pinned) {
      // A row of the distribution key's columns alone hashes as the
      // table's rows do (ComputeVnode combines the key's columns in order).
      std::vector<Vector> columns;
      std::vector<int> positions;
      columns.reserve(table.dist_key_indices.size());
      for (int c : table.dist_key_indices) {
        positions.push_back(static_cast<int>(columns.size()));
        columns.emplace_back(table.column_types[c]);
        columns.back().Append(*equal[c]);
      }
      bounds.vnode = ComputeVnode(DataChunk(std::move(columns)), 0, positions);
    }
  }
  // The key bounds: equalities on leading key columns, then one range.
  std::string prefix;
  for (size_t i = 0; i < table.pk_indices.size(); i++) {
    if (i < table.pk_descending.size() && table.pk_descending[i]) break;
    int column = table.pk_indices[i];
    if (column >= 0 && static_cast<size_t>(column) < equal.size() && equal[column]) {
      EncodeKeyValue(*equal[column], &prefix);
      continue;
    }
    const ColumnPredicate *low = nullptr, *high = nullptr;
    for (const auto& p : predicates) {
      if (p.column != column || !Usable(p, table)) continue;
      if (p.op == ColumnPredicate::Op::kGt || p.op == ColumnPredicate::Op::kGe) Tighten(p, true, &low);
      if (p.op == ColumnPredicate::Op::kLt || p.op == ColumnPredicate::Op::kLe) Tighten(p, false, &high);
    }
    if (low) {
      bounds.lower = prefix + Encoded(low->value);
      // Every key with the bound's bytes next equals it: > starts past them.
      if (low->op == ColumnPredicate::Op::kGt) bounds.lower = PrefixSuccessor(bounds.lower);
    } else {
      bounds.lower = prefix;
    }
    if (high) {
      bounds.upper = prefix + Encoded(high->value);
      if (high->op == ColumnPredicate::Op::kLe) bounds.upper = PrefixSuccessor(bounds.upper);
    } else {
      bounds.upper = PrefixSuccessor(prefix);
    }
    return bounds;
  }
  // Every key column pinned: one key.
  bounds.lower = prefix;
  bounds.upper = PrefixSuccessor(prefix);
  bounds.exact = !table.pk_indices.empty();
  return bounds;
}

std::vector<RowKeyBounds> RowKeyProbesOf(const StateTableDesc& table, const ColumnPredicates& predicates) {
  // The first IN list on a key or distribution-key column without an
  // equality: each distinct value becomes an equality of its own probe.
  auto in_key = [&](int column) {
    return std::find(table.pk_indices.begin(), table.pk_indices.end(), column) != table.pk_indices.end() ||
           std::find(table.dist_key_indices.begin(), table.dist_key_indices.end(), column) != table.dist_key_indices.end();
  };
  const ColumnPredicate* in = nullptr;
  for (const auto& p : predicates) {
    if (p.op != ColumnPredicate::Op::kIn || in || !in_key(p.column) || p.values.size() > kMaxRanges) continue;
    bool pinned = false;
    for (const auto& q : predicates) pinned = pinned || (q.op == ColumnPredicate::Op::kEq && q.column == p.column);
    bool typed = true;
    for (const Value& v : p.values) typed = typed && Usable(ColumnPredicate{p.column, ColumnPredicate::Op::kEq, v, {}}, table);
    if (!pinned && typed) in = &p;
  }
  if (!in) {
    RowKeyBounds b = RowKeyBoundsOf(table, predicates);
    if (b.empty()) return {};
    return {std::move(b)};
  }
  std::vector<RowKeyBounds> probes;
  std::unordered_set<std::string> seen;
  ColumnPredicates one = predicates;
  ColumnPredicate& slot = one[in - predicates.data()];
  slot.op = ColumnPredicate::Op::kEq;
  slot.values.clear();
  for (const Value& v : in->values) {
    std::string key = Encoded(v);
    if (!seen.insert(std::move(key)).second) continue;
    slot.value = v;
    RowKeyBounds b = RowKeyBoundsOf(table, one);
    if (b.empty()) return {};  // a value that narrows nothing: the whole range anyway
    probes.push_back(std::move(b));
  }
  if (probes.empty()) {
    // Every value was NULL or repeated away: IN () matches nothing; one
    // empty range (a key that sorts before every row's and ends at once).
    RowKeyBounds none;
    none.vnode = 0;
    none.lower = std::string(1, '\0');
    none.upper = std::string(1, '\0');
    probes.push_back(std::move(none));
  }
  return probes;
}

std::unique_ptr<ChunkScan> RowStoreEngine::Scan(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec) const {
  return std::make_unique<RowStoreScan>(store_, std::move(snapshot), std::move(spec));
}

std::unique_ptr<ChunkScan> RowStoreEngine::LookupLatest(std::shared_ptr<const StateTable> latest, ScanSpec spec) const {
  auto scan = std::make_unique<RowStoreScan>(store_, nullptr, std::move(spec), std::move(latest));
  if (!scan->point_lookup()) return nullptr;
  return scan;
}

TableStatistics RowStoreEngine::Statistics(TableId table, const Snapshot* snapshot) const {
  TableStatistics stats;
  std::string prefix = TablePrefix(table);
  std::string end = PrefixSuccessor(prefix);
  stats.bytes = store_->ApproximateDataSize(prefix, end);
  if (std::optional<int64_t> stored = store_->RowCount(table, snapshot)) {
    stats.rows = *stored;
    stats.rows_exact = true;
    // RocksDB's estimate of a key range in the memtables samples the skip
    // list and can miss rows that are all there (0 bytes for 20,000 rows):
    // under the least a stored row takes (an 8-byte key and a 2-byte
    // value), the size of the first rows, read, times the rows.
    if (stats.rows > 0 && stats.bytes < 10 * static_cast<uint64_t>(stats.rows)) {
      constexpr int kSample = 64;
      auto range = store_->NewRange(store_->data_cf(), snapshot, prefix, end);
      uint64_t sampled = 0;
      int n = 0;
      for (auto& it = range->it; n < kSample && it->Valid(); it->Next(), n++) sampled += it->key().size() + it->value().size();
      if (n > 0) stats.bytes = std::max(stats.bytes, sampled / n * static_cast<uint64_t>(stats.rows));
    }
  } else {
    // A relation of an older version, without a recorded count.
    stats.rows = static_cast<int64_t>(store_->EstimateKeys(prefix, end));
  }
  return stats;
}

std::shared_ptr<BulkRows> RowStoreEngine::NewBulkRows(TableId table, int key_column, std::vector<int> dist_key) const {
  return std::make_shared<BulkRows>(table, key_column, std::move(dist_key), store_->NewBulkSpill());
}

Status RowStoreEngine::PrepareEpoch(const EngineEpochWrites& writes, EpochCommitBatch* batch) {
  batch->data.ops.insert(batch->data.ops.end(), writes.writes.ops.begin(), writes.writes.ops.end());
  batch->data.bulk.insert(batch->data.bulk.end(), writes.writes.bulk.begin(), writes.writes.bulk.end());
  return Status::OK();
}

Status RowStoreEngine::GetCommitted(const std::string& key, std::string* value) const {
  return store_->Get(store_->data_cf(), nullptr, key, value);
}

}  // namespace freshet
