#include "storage/timeseries/scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "common/encoding.h"
#include "storage/keys.h"
#include "storage/state_table.h"
#include "storage/timeseries/run_file.h"
#include "storage/timeseries/series_key.h"

namespace freshet {

namespace {

constexpr size_t kReadBatch = 1024;

// The rows of sorted runs merged in storage-key order (see the top of
// scan.h), for one vnode range at one committed epoch.
class MergedRunsScan : public ChunkScan {
 public:
  MergedRunsScan(std::vector<std::shared_ptr<const TimeSeriesRowSource>> runs, uint64_t visible, ScanSpec spec,
                 size_t tail_bytes)
      : visible_(visible), spec_(std::move(spec)) {
    TimeSeriesKey from{std::string(), INT64_MIN, std::string(), 0};
    PutFixed16BE(&std::get<0>(from), static_cast<uint16_t>(std::clamp(spec_.vnode_begin, 0, kVnodeCount - 1)));
    bool after = false;
    std::string overlay_from = VnodePrefix(spec_.table.table_id, static_cast<uint16_t>(std::clamp(spec_.vnode_begin, 0, kVnodeCount - 1)));
    if (!spec_.start_after.empty()) {
      SeriesKey k;
      if (SplitSeriesKey(spec_.start_after, tail_bytes, &k) && VnodeOfSeries(k.series) >= spec_.vnode_begin) {
        from = TimeSeriesKey{std::move(k.series), k.ts, std::move(k.tail), 0};
        after = true;
        overlay_from = spec_.start_after + '\0';
      }
    }
    for (auto& run : runs) sources_.push_back(Source{std::move(run), from, after, {}, 0, true});
    overlay_it_ = spec_.overlay.lower_bound(overlay_from);
    overlay_end_ = spec_.vnode_end >= kVnodeCount ? spec_.overlay.end()
                                                   : spec_.overlay.lower_bound(VnodePrefix(
                                                         spec_.table.table_id, static_cast<uint16_t>(spec_.vnode_end)));
  }

  bool Next(DataChunk* out, size_t max_rows) override {
    *out = DataChunk(spec_.table.column_types);
    size_t n = 0;
    const std::vector<bool>* projection = spec_.projection.empty() ? nullptr : &spec_.projection;
    auto decode = [&](std::string_view fields) {
      if (!DecodeStoredRowInto(fields, out, spec_.table.missing_cells, projection))
        throw SqlError(sqlstate::kDataCorrupted,
                       "corrupt row in time-series table " + std::to_string(spec_.table.table_id));
      n++;
    };
    while (n < max_rows) {
      const TimeSeriesRow* row = Head();
      const bool have_overlay = overlay_it_ != overlay_end_;
      if (!row && !have_overlay) break;
      // The storage key only where it is needed: against an overlay, or
      // as a resumable scan's position.
      std::string key = row && (have_overlay || spec_.resumable)
                            ? JoinSeriesKey(spec_.table.table_id, row->series, row->ts, row->tail)
                            : std::string();
      int cmp = !row ? 1 : !have_overlay ? -1 : key.compare(overlay_it_->first);
      if (cmp <= 0) {
        // The row stays in its source's buffer until the next Head().
        const bool keep = cmp < 0 && !row->deleted;
        if (keep) decode(row->fields);
        Advance();
        if (keep && spec_.resumable) last_key_ = std::move(key);
        continue;  // on a tie the overlay's entry for the key comes next and wins
      }
      if (overlay_it_->second) {
        decode(*overlay_it_->second);
        if (spec_.resumable) last_key_ = overlay_it_->first;
      }
      ++overlay_it_;
    }
    out->set_cardinality(n);
    return n > 0;
  }

  // The scan cache (storage/scan_cache.h) is for the row store, whose
  // commits tell it when a table changes.
  bool complete() const override { return false; }
  const std::string& last_key() const override { return last_key_; }

 private:
  struct Source {
    std::shared_ptr<const TimeSeriesRowSource> run;
    TimeSeriesKey from;
    bool after;
    std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>> buffer;
    size_t pos;
    bool more;
  };

  // The source's next row within the vnode range, or null.
  const std::pair<TimeSeriesKey, TimeSeriesRow>* Peek(Source& s) {
    if (s.pos == s.buffer.size()) {
      if (!s.more) return nullptr;
      s.buffer.clear();
      s.pos = 0;
      s.more = s.run->Read(s.from, s.after, visible_, kReadBatch, &s.buffer);
      if (s.buffer.empty()) {
        s.more = false;
        return nullptr;
      }
      s.from = s.buffer.back().first;
      s.after = true;
    }
    const auto& entry = s.buffer[s.pos];
    if (VnodeOfSeries(entry.second.series) >= spec_.vnode_end) {
      s.more = false;
      s.buffer.clear();
      s.pos = 0;
      return nullptr;
    }
    return &entry;
  }

  // The smallest key among the sources, its newest version; null when none.
  const TimeSeriesRow* Head() {
    head_.clear();
    const std::pair<TimeSeriesKey, TimeSeriesRow>* best = nullptr;
    for (size_t i = 0; i < sources_.size(); i++) {
      const auto* e = Peek(sources_[i]);
      if (!e) continue;
      // Keys compare without the sequence (always 0 here).
      if (!best || e->first < best->first) {
        best = e;
        head_.assign(1, i);
      } else if (e->first == best->first) {
        if (e->second.epoch > best->second.epoch) best = e;
        head_.push_back(i);
      }
    }
    return best ? &best->second : nullptr;
  }

  void Advance() {
    for (size_t i : head_) sources_[i].pos++;
    head_.clear();
  }

  const uint64_t visible_;
  const ScanSpec spec_;
  std::vector<Source> sources_;
  std::vector<size_t> head_;  // the sources whose next row has the head's key
  Overlay::const_iterator overlay_it_, overlay_end_;
  std::string last_key_;
};

// The time range [lo, hi] the predicates on the time index leave, and the
// series they pin (every tag by = or IN), sorted.
struct TimeBounds {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  std::optional<std::vector<std::string>> series;
  bool empty() const { return lo > hi; }
  bool Overlaps(int64_t min_ts, int64_t max_ts) const { return !empty() && min_ts <= hi && max_ts >= lo; }
  // Whether a pinned series lies in [min, max].
  bool MayHoldSeries(const std::string& min, const std::string& max) const {
    if (!series) return true;
    auto it = std::lower_bound(series->begin(), series->end(), min);
    return it != series->end() && *it <= max;
  }
};

// The series ([vnode][tags]) the predicates pin, when they pin every tag
// (the primary key's columns before the time index) by = or IN, to at most
// kMaxPinnedSeries series.
constexpr size_t kMaxPinnedSeries = 4096;

std::optional<std::vector<std::string>> PinnedSeries(const ScanSpec& spec, const TimeSeriesScanTable& table) {
  const StateTableDesc& desc = spec.table;
  const std::vector<int>& pk = desc.pk_indices;
  const size_t after_tags = table.tail_bytes > 0 ? 2 : 1;  // the time index[, the row id]
  if (pk.size() <= after_tags) return std::nullopt;
  const size_t tags = pk.size() - after_tags;
  std::vector<std::vector<Value>> choices(tags);
  size_t combinations = 1;
  for (size_t k = 0; k < tags; k++) {
    const DataType& type = desc.column_types[pk[k]];
    auto typed = [&](const Value& v) { return !v.is_null() && v.type().id == type.id; };
    for (const ColumnPredicate& p : spec.predicates) {
      if (p.column != pk[k]) continue;
      if (p.op == ColumnPredicate::Op::kEq && typed(p.value)) choices[k] = {p.value};
      else if (p.op == ColumnPredicate::Op::kIn && std::all_of(p.values.begin(), p.values.end(), typed))
        choices[k] = p.values;
      else continue;
      break;
    }
    if (choices[k].empty()) return std::nullopt;
    combinations *= choices[k].size();
    if (combinations > kMaxPinnedSeries) return std::nullopt;
  }
  // Each combination's key (its time and row id 0), split.
  std::vector<std::string> series;
  std::vector<size_t> at(tags, 0);
  for (size_t n = 0; n < combinations; n++) {
    DataChunk row(desc.column_types);
    for (size_t c = 0; c < desc.column_types.size(); c++) {
      auto tag = std::find(pk.begin(), pk.begin() + static_cast<std::ptrdiff_t>(tags), static_cast<int>(c));
      if (tag != pk.begin() + static_cast<std::ptrdiff_t>(tags)) row.column(c).Append(choices[tag - pk.begin()][at[tag - pk.begin()]]);
      else if (std::find(pk.begin(), pk.end(), static_cast<int>(c)) != pk.end()) row.column(c).AppendInt(0);
      else row.column(c).AppendNull();
    }
    row.set_cardinality(1);
    SeriesKey key;
    if (!SplitSeriesKey(RowKey(desc.table_id, desc.dist_key_indices, pk, row, 0), table.tail_bytes, &key))
      return std::nullopt;
    series.push_back(std::move(key.series));
    for (size_t k = 0; k < tags && ++at[k] == choices[k].size(); k++) at[k] = 0;
  }
  std::sort(series.begin(), series.end());
  return series;
}

TimeBounds BoundsOf(const ScanSpec& spec, int time_index) {
  TimeBounds b;
  if (time_index < 0 || static_cast<size_t>(time_index) >= spec.table.column_types.size() ||
      spec.table.column_types[time_index].physical() != PhysicalType::kInt64)
    return b;
  for (const ColumnPredicate& p : spec.predicates) {
    if (p.column != time_index) continue;
    const int64_t v = p.value.int_value();
    switch (p.op) {
      case ColumnPredicate::Op::kEq: b.lo = std::max(b.lo, v), b.hi = std::min(b.hi, v); break;
      case ColumnPredicate::Op::kLt:
        if (v == INT64_MIN) return TimeBounds{1, 0};
        b.hi = std::min(b.hi, v - 1);
        break;
      case ColumnPredicate::Op::kLe: b.hi = std::min(b.hi, v); break;
      case ColumnPredicate::Op::kGt:
        if (v == INT64_MAX) return TimeBounds{1, 0};
        b.lo = std::max(b.lo, v + 1);
        break;
      case ColumnPredicate::Op::kGe: b.lo = std::max(b.lo, v); break;
      case ColumnPredicate::Op::kIn: {
        if (p.values.empty()) return TimeBounds{1, 0};
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const Value& x : p.values) lo = std::min(lo, x.int_value()), hi = std::max(hi, x.int_value());
        b.lo = std::max(b.lo, lo);
        b.hi = std::min(b.hi, hi);
        break;
      }
    }
  }
  return b;
}

// Whether a block column with these statistics may hold a value that
// passes `p` (a column of integers, or of text compared for equality: the
// only ones whose statistics order values as SQL does; NaN makes a float
// column's maximum unreliable).
bool MayPass(const ColumnPredicate& p, const BlockColumnStats& stats, char form, const DataType& type) {
  if (!stats.has) return false;  // every row NULL: no comparison is true
  if (form == 'i' && type.physical() == PhysicalType::kInt64) {
    auto within = [&](int64_t v) { return v >= stats.min_int && v <= stats.max_int; };
    const int64_t v = p.value.int_value();
    switch (p.op) {
      case ColumnPredicate::Op::kEq: return within(v);
      case ColumnPredicate::Op::kLt: return stats.min_int < v;
      case ColumnPredicate::Op::kLe: return stats.min_int <= v;
      case ColumnPredicate::Op::kGt: return stats.max_int > v;
      case ColumnPredicate::Op::kGe: return stats.max_int >= v;
      case ColumnPredicate::Op::kIn:
        return std::any_of(p.values.begin(), p.values.end(), [&](const Value& x) { return within(x.int_value()); });
    }
  }
  // Text compares equal byte for byte; JSON and uuid values are equal in
  // other spellings too.
  if (form == 's' && type.id == TypeId::kVarchar && !type.IsCheckedText()) {
    auto within = [&](const std::string& v) { return v >= stats.min_string && v <= stats.max_string; };
    if (p.op == ColumnPredicate::Op::kEq) return within(p.value.string_value());
    if (p.op == ColumnPredicate::Op::kIn)
      return std::any_of(p.values.begin(), p.values.end(), [&](const Value& x) { return within(x.string_value()); });
  }
  return true;
}

// The rows of one plain file whose epochs are all visible, read from its
// columns (see the top of scan.h).
class PlainFileScan : public ChunkScan {
 public:
  PlainFileScan(std::shared_ptr<const RunFile> file, const ScanSpec& spec, TimeBounds bounds, int time_index)
      : file_(std::move(file)), spec_(spec), bounds_(bounds), time_index_(time_index) {
    const std::string& forms = file_->info().columns;
    const size_t columns = spec_.table.column_types.size();
    wanted_.assign(columns, true);
    if (!spec_.projection.empty())
      for (size_t c = 0; c < columns; c++) wanted_[c] = c < spec_.projection.size() && spec_.projection[c];
    for (size_t c = 0; c < columns && c < forms.size(); c++) {
      const char expected = RunFileColumnForm(spec_.table.column_types[c]);
      if (forms[c] != expected)
        throw SqlError(sqlstate::kDataCorrupted,
                       fmt::format("{}: column {} is stored as '{}', not as its type's '{}'", file_->path(), c,
                                   forms[c], expected));
    }
    for (const ColumnPredicate& p : spec_.predicates)
      if (p.column >= 0 && static_cast<size_t>(p.column) < std::min(columns, forms.size()))
        block_predicates_.push_back(&p);
  }

  bool Next(DataChunk* out, size_t max_rows) override {
    while (next_row_ == selected_) {
      if (!LoadNextBlock()) return false;
    }
    const size_t n = std::min(max_rows, selected_ - next_row_);
    *out = DataChunk(spec_.table.column_types);
    const std::string& forms = file_->info().columns;
    for (size_t c = 0; c < out->num_columns(); c++) {
      Vector& v = out->column(c);
      if (!wanted_[c]) {
        v.AppendNulls(n);
      } else if (c >= forms.size()) {
        AppendMissing(c, n, &v);
      } else {
        AppendColumn(*block_.columns[RunFile::kFirstTableColumn + c], value_at_[c], forms[c], n, &v);
      }
    }
    out->set_cardinality(n);
    next_row_ += n;
    return true;
  }

  bool complete() const override { return false; }
  const std::string& last_key() const override { return no_key_; }

 private:
  // Decodes the next block that may hold rows the scan wants; false at the
  // end of the file.
  bool LoadNextBlock() {
    const ColumnFileReader& reader = file_->reader();
    const std::string& forms = file_->info().columns;
    while (next_block_ < reader.blocks().size()) {
      const size_t b = next_block_++;
      const ColumnFileBlock& index = reader.blocks()[b];
      if (index.rows == 0 || !bounds_.Overlaps(index.min_ts, index.max_ts) ||
          !bounds_.MayHoldSeries(index.min_series, index.max_series))
        continue;
      const int first_vnode = VnodeOfSeries(index.min_series), last_vnode = VnodeOfSeries(index.max_series);
      if (last_vnode < spec_.vnode_begin || first_vnode >= spec_.vnode_end) continue;
      const bool by_vnode = first_vnode < spec_.vnode_begin || last_vnode >= spec_.vnode_end;
      // Rows outside the time bounds fail the predicates: of a block partly
      // inside, only the rows inside are taken (the filter above the scan
      // then keeps whole chunks).
      bool by_time = time_index_ >= 0 && static_cast<size_t>(time_index_) < forms.size() &&
                     (index.min_ts < bounds_.lo || index.max_ts > bounds_.hi);
      std::vector<size_t> projection;
      if (by_vnode) projection.push_back(0);  // the series, for its vnode
      for (size_t c = 0; c < wanted_.size() && c < forms.size(); c++)
        if (wanted_[c] || (by_time && c == static_cast<size_t>(time_index_)))
          projection.push_back(RunFile::kFirstTableColumn + c);
      block_ = reader.ReadBlock(b, projection, [&](const ColumnBlockView& view) {
        file_->CheckBlockColumns(view, b);
        for (const ColumnPredicate* p : block_predicates_) {
          const size_t c = static_cast<size_t>(p->column);
          if (!MayPass(*p, view.stats[RunFile::kFirstTableColumn + c], forms[c], spec_.table.column_types[c]))
            return false;
        }
        return true;
      });
      if (block_.skipped) continue;
      // The rows taken: all, or those of the vnode range and time bounds.
      rows_.clear();
      const BlockColumn* time = by_time ? &*block_.columns[RunFile::kFirstTableColumn + time_index_] : nullptr;
      if (time && (!time->valid.empty() || time->ints.size() != block_.rows)) by_time = false;  // left to the filter
      if (by_vnode || by_time) {
        const std::vector<std::string>* series = by_vnode ? &block_.columns[0]->strings : nullptr;
        if (series && series->size() != block_.rows)
          throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} has NULL series", file_->path(), b));
        for (size_t r = 0; r < block_.rows; r++) {
          if (by_time && (time->ints[r] < bounds_.lo || time->ints[r] > bounds_.hi)) continue;
          if (series) {
            const int vnode = VnodeOfSeries((*series)[r]);
            if (vnode < spec_.vnode_begin || vnode >= spec_.vnode_end) continue;
          }
          rows_.push_back(static_cast<uint32_t>(r));
        }
        all_rows_ = false;
        selected_ = rows_.size();
      } else {
        all_rows_ = true;
        selected_ = block_.rows;
      }
      next_row_ = 0;
      // Where each row's value sits in a column with NULLs.
      value_at_.assign(forms.size(), {});
      for (size_t c = 0; c < forms.size() && c < wanted_.size(); c++) {
        if (!wanted_[c]) continue;
        const BlockColumn& col = *block_.columns[RunFile::kFirstTableColumn + c];
        if (col.valid.empty()) continue;
        if (col.valid.size() != block_.rows)
          throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} column {} has a short validity",
                                                               file_->path(), b, c));
        std::vector<uint32_t>& at = value_at_[c];
        at.resize(block_.rows);
        uint32_t next = 0;
        for (size_t r = 0; r < block_.rows; r++) at[r] = col.valid[r] ? next++ : UINT32_MAX;
      }
      if (selected_ > 0) return true;
    }
    return false;
  }

  // The block row of the scan's i-th selected row.
  size_t RowAt(size_t i) const { return all_rows_ ? i : rows_[i]; }

  // Appends the next n selected rows of a block column (whose values match
  // its rows: ReadColumnBlock checked).
  void AppendColumn(BlockColumn& col, const std::vector<uint32_t>& value_at, char form, size_t n, Vector* v) {
    const size_t begin = next_row_;
    if (col.valid.empty() && (form == 'i' || form == 'f' || form == 's')) {
      v->validity().assign(n, 1);
      if (all_rows_) {
        if (form == 'i') {
          v->ints().assign(col.ints.begin() + begin, col.ints.begin() + begin + n);
        } else if (form == 'f') {
          v->floats().assign(col.floats.begin() + begin, col.floats.begin() + begin + n);
        } else {
          v->strings().assign(std::make_move_iterator(col.strings.begin() + begin),
                              std::make_move_iterator(col.strings.begin() + begin + n));
        }
        return;
      }
      // The selected rows gathered.
      if (form == 's') {
        std::vector<std::string>& out = v->strings();
        out.resize(n);
        for (size_t i = 0; i < n; i++) out[i] = std::move(col.strings[rows_[begin + i]]);
      } else if (form == 'i') {
        std::vector<int64_t>& out = v->ints();
        out.resize(n);
        for (size_t i = 0; i < n; i++) out[i] = col.ints[rows_[begin + i]];
      } else {
        std::vector<double>& out = v->floats();
        out.resize(n);
        for (size_t i = 0; i < n; i++) out[i] = col.floats[rows_[begin + i]];
      }
      return;
    }
    for (size_t i = begin; i < begin + n; i++) {
      const size_t r = RowAt(i);
      const size_t at = col.valid.empty() ? r : value_at[r];
      if (at == UINT32_MAX) {
        v->AppendNull();
        continue;
      }
      switch (form) {
        case 'i': v->AppendInt(col.ints[at]); break;
        case 'f': v->AppendFloat(col.floats[at]); break;
        case 's': v->AppendString(std::move(col.strings[at])); break;
        default: {
          std::string_view cell = col.strings[at];
          if (!DecodeCell(&cell, v) || !cell.empty())
            throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: a corrupt cell", file_->path()));
        }
      }
    }
  }

  // A column the file was written without (added later): its missing cell.
  void AppendMissing(size_t c, size_t n, Vector* v) const {
    if (c >= spec_.table.missing_cells.size() || spec_.table.missing_cells[c].empty()) {
      v->AppendNulls(n);
      return;
    }
    Vector one(v->type());
    std::string_view cell = spec_.table.missing_cells[c];
    if (!DecodeCell(&cell, &one))
      throw SqlError(sqlstate::kDataCorrupted, fmt::format("table {}: a corrupt missing cell", spec_.table.table_id));
    for (size_t i = 0; i < n; i++) v->AppendFrom(one, 0);
  }

  const std::shared_ptr<const RunFile> file_;
  const ScanSpec& spec_;  // the GroupedScan's, which outlives this scan
  const TimeBounds bounds_;
  const int time_index_;  // the time index column (-1: none known)
  std::vector<bool> wanted_;
  std::vector<const ColumnPredicate*> block_predicates_;
  size_t next_block_ = 0;
  ColumnBlockView block_;
  std::vector<std::vector<uint32_t>> value_at_;
  std::vector<uint32_t> rows_;
  bool all_rows_ = true;
  size_t selected_ = 0, next_row_ = 0;
  const std::string no_key_;
};

// A columnar scan: the groups of runs that overlap in time one after the
// other, each read as a plain file or merged (see the top of scan.h).
class GroupedScan : public ChunkScan {
 public:
  GroupedScan(std::vector<std::vector<std::shared_ptr<const TimeSeriesRowSource>>> groups, uint64_t visible,
              ScanSpec spec, TimeSeriesScanTable table, TimeBounds bounds)
      : groups_(std::move(groups)), visible_(visible), spec_(std::move(spec)), table_(table), bounds_(bounds) {}

  bool Next(DataChunk* out, size_t max_rows) override {
    for (;;) {
      if (current_ && current_->Next(out, max_rows)) return true;
      current_.reset();
      if (next_group_ == groups_.size()) return false;
      auto& group = groups_[next_group_++];
      if (group.size() == 1) {
        auto file = std::dynamic_pointer_cast<const RunFile>(group[0]);
        if (file && file->info().plain && file->info().max_epoch <= visible_) {
          current_ = std::make_unique<PlainFileScan>(std::move(file), spec_, bounds_, table_.time_index);
          continue;
        }
      }
      current_ = std::make_unique<MergedRunsScan>(std::move(group), visible_, spec_, table_.tail_bytes);
    }
  }

  bool complete() const override { return false; }
  bool splittable() const override { return true; }
  const std::string& last_key() const override { return no_key_; }

 private:
  std::vector<std::vector<std::shared_ptr<const TimeSeriesRowSource>>> groups_;
  size_t next_group_ = 0;
  const uint64_t visible_;
  const ScanSpec spec_;
  const TimeSeriesScanTable table_;
  const TimeBounds bounds_;
  std::unique_ptr<ChunkScan> current_;
  const std::string no_key_;
};

}  // namespace

std::unique_ptr<ChunkScan> MakeTimeSeriesScan(std::vector<std::shared_ptr<const TimeSeriesRowSource>> runs,
                                              uint64_t visible, ScanSpec spec, TimeSeriesScanTable table) {
  if (spec.resumable || !spec.overlay.empty())
    return std::make_unique<MergedRunsScan>(std::move(runs), visible, std::move(spec), table.tail_bytes);
  TimeBounds bounds = BoundsOf(spec, table.time_index);
  bounds.series = PinnedSeries(spec, table);
  // The runs that may hold rows in the time range, by their first time.
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::shared_ptr<const TimeSeriesRowSource>>> ranged;
  for (auto& run : runs) {
    const auto range = run->TimeRange();
    if (range.first > range.second || !bounds.Overlaps(range.first, range.second)) continue;
    ranged.emplace_back(range, std::move(run));
  }
  std::sort(ranged.begin(), ranged.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<std::shared_ptr<const TimeSeriesRowSource>>> groups;
  int64_t group_end = 0;
  for (auto& [range, run] : ranged) {
    if (groups.empty() || range.first > group_end) {
      groups.emplace_back();
      group_end = range.second;
    }
    group_end = std::max(group_end, range.second);
    groups.back().push_back(std::move(run));
  }
  return std::make_unique<GroupedScan>(std::move(groups), visible, std::move(spec), table, bounds);
}

}  // namespace freshet
