#include "storage/timeseries/memtable.h"

#include <algorithm>

#include "common/error.h"

namespace freshet {

namespace {

// A key's bookkeeping beside its bytes (for bytes()), and a version's.
constexpr size_t kRowOverhead = 64;
constexpr size_t kVersionOverhead = 40;

}  // namespace

bool TimeSeriesMemtable::KeyLess(const Entry& a, const Entry& b) {
  if (a.ts != b.ts) return a.ts < b.ts;
  if (int c = a.tail.compare(b.tail); c != 0) return c < 0;
  return a.sequence < b.sequence;
}

bool TimeSeriesMemtable::KeyEqual(const Entry& a, const Entry& b) {
  return a.ts == b.ts && a.sequence == b.sequence && a.tail == b.tail;
}

void TimeSeriesMemtable::AddVersion(Versions* versions, Version v) const {
  // Versions stay ordered by epoch; one per epoch.
  auto at = std::lower_bound(versions->begin(), versions->end(), v.epoch,
                             [](const Version& x, uint64_t e) { return x.epoch < e; });
  if (at != versions->end() && at->epoch == v.epoch) {
    bytes_ = bytes_ - std::min(bytes_, at->fields.size()) + v.fields.size();
    *at = std::move(v);
  } else {
    bytes_ += v.fields.size() + kVersionOverhead;
    versions->insert(at, std::move(v));
  }
}

void TimeSeriesMemtable::Write(const std::vector<TimeSeriesRow>& rows) {
  std::lock_guard lock(mu_);
  if (frozen_) throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "the memtable is frozen");
  SeriesMap::iterator last = series_.end();  // rows of one series often follow each other
  for (const auto& row : rows) {
    max_epoch_ = std::max(max_epoch_, row.epoch);
    min_ts_ = std::min(min_ts_, row.ts);
    max_ts_ = std::max(max_ts_, row.ts);
    if (last == series_.end() || last->first != row.series) {
      last = series_.find(row.series);
      if (last == series_.end()) {
        last = series_.emplace(row.series, Series()).first;
        bytes_ += row.series.size() + kRowOverhead;
      }
    }
    Series& s = last->second;
    Entry e;
    e.ts = row.ts;
    e.sequence = append_mode_ ? next_sequence_++ : 0;
    e.tail = row.tail;
    e.versions.push_back(Version{row.epoch, row.deleted, row.fields});
    if (s.pending.empty() && (s.sorted.empty() || KeyLess(s.sorted.back(), e))) {
      bytes_ += e.tail.size() + row.fields.size() + kRowOverhead;
      s.sorted.push_back(std::move(e));
      keys_++;
      continue;
    }
    if (s.pending.empty() && KeyEqual(s.sorted.back(), e)) {  // the newest key written again
      AddVersion(&s.sorted.back().versions, std::move(e.versions[0]));
      continue;
    }
    // Counted as a new key until merged in (Normalize corrects it).
    bytes_ += e.tail.size() + row.fields.size() + kRowOverhead;
    s.pending.push_back(std::move(e));
    pending_++;
    if (s.pending.size() > 64 && s.pending.size() > s.sorted.size() / 4) Normalize(s);
  }
}

void TimeSeriesMemtable::Normalize(Series& s) const {
  if (s.pending.empty()) return;
  // Stable: writes of one key stay in the order written.
  std::stable_sort(s.pending.begin(), s.pending.end(), KeyLess);
  std::vector<Entry> merged;
  merged.reserve(s.sorted.size() + s.pending.size());
  size_t i = 0, j = 0;
  while (i < s.sorted.size() || j < s.pending.size()) {
    if (j == s.pending.size() || (i < s.sorted.size() && KeyLess(s.sorted[i], s.pending[j]))) {
      merged.push_back(std::move(s.sorted[i++]));
      continue;
    }
    if (i < s.sorted.size() && KeyEqual(s.sorted[i], s.pending[j])) {
      merged.push_back(std::move(s.sorted[i++]));
    } else {
      merged.push_back(std::move(s.pending[j++]));
      keys_++;
    }
    // The later writes of this key, in the order written.
    Entry& into = merged.back();
    while (j < s.pending.size() && KeyEqual(into, s.pending[j])) {
      Entry& later = s.pending[j++];
      bytes_ -= std::min(bytes_, later.tail.size() + kRowOverhead);  // not a key of its own
      bytes_ -= std::min(bytes_, later.versions[0].fields.size());   // AddVersion counts it again
      AddVersion(&into.versions, std::move(later.versions[0]));
    }
  }
  pending_ -= s.pending.size();
  s.pending.clear();
  s.sorted = std::move(merged);
}

void TimeSeriesMemtable::NormalizeAll() const {
  if (pending_ == 0) return;
  for (auto& [series, s] : series_) Normalize(s);
}

void TimeSeriesMemtable::DiscardFrom(uint64_t epoch) {
  std::lock_guard lock(mu_);
  NormalizeAll();
  uint64_t max = 0;
  for (auto it = series_.begin(); it != series_.end();) {
    std::vector<Entry>& entries = it->second.sorted;
    for (Entry& e : entries) {
      while (!e.versions.empty() && e.versions.back().epoch >= epoch) {
        bytes_ -= std::min(bytes_, e.versions.back().fields.size() + kVersionOverhead);
        e.versions.pop_back();
      }
      if (e.versions.empty()) {
        bytes_ -= std::min(bytes_, e.tail.size() + kRowOverhead);
        keys_--;
      } else {
        max = std::max(max, e.versions.back().epoch);
      }
    }
    std::erase_if(entries, [](const Entry& e) { return e.versions.empty(); });
    if (entries.empty()) {
      bytes_ -= std::min(bytes_, it->first.size() + kRowOverhead);
      it = series_.erase(it);
    } else {
      ++it;
    }
  }
  max_epoch_ = max;
}

void TimeSeriesMemtable::Freeze() {
  std::lock_guard lock(mu_);
  frozen_ = true;
}

bool TimeSeriesMemtable::frozen() const {
  std::lock_guard lock(mu_);
  return frozen_;
}

bool TimeSeriesMemtable::empty() const {
  std::lock_guard lock(mu_);
  return series_.empty();
}

size_t TimeSeriesMemtable::num_rows() const {
  std::lock_guard lock(mu_);
  NormalizeAll();
  return keys_;
}

size_t TimeSeriesMemtable::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

uint64_t TimeSeriesMemtable::max_epoch() const {
  std::lock_guard lock(mu_);
  return max_epoch_;
}

const TimeSeriesMemtable::Version* TimeSeriesMemtable::VisibleIn(const Versions& versions, uint64_t visible) {
  for (auto v = versions.rbegin(); v != versions.rend(); ++v)
    if (v->epoch <= visible) return &*v;
  return nullptr;
}

TimeSeriesMemtable::Entry TimeSeriesMemtable::ProbeOf(const TimeSeriesKey& key) {
  Entry probe;
  probe.ts = std::get<1>(key);
  probe.tail = std::get<2>(key);
  probe.sequence = std::get<3>(key);
  return probe;
}

TimeSeriesKey TimeSeriesMemtable::KeyOf(const std::string& series, const Entry& e) {
  return TimeSeriesKey{series, e.ts, e.tail, e.sequence};
}

TimeSeriesRow TimeSeriesMemtable::RowOf(const std::string& series, const Entry& e, const Version& v) {
  TimeSeriesRow row;
  row.series = series;
  row.ts = e.ts;
  row.tail = e.tail;
  row.fields = v.fields;
  row.epoch = v.epoch;
  row.deleted = v.deleted;
  return row;
}

void TimeSeriesMemtable::ForEach(const std::function<bool(const TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  NormalizeAll();
  for (const auto& [series, s] : series_)
    for (const Entry& e : s.sorted)
      if (!fn(RowOf(series, e, e.versions.back()))) return;
}

void TimeSeriesMemtable::ForEachVersion(const std::function<void(TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  NormalizeAll();
  for (const auto& [series, s] : series_)
    for (const Entry& e : s.sorted)
      for (const Version& v : e.versions) {
        TimeSeriesRow row = RowOf(series, e, v);
        fn(row);
      }
}

bool TimeSeriesMemtable::Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
                              std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>>* out) const {
  std::lock_guard lock(mu_);
  auto it = series_.lower_bound(std::get<0>(from));
  size_t at = 0;  // the first entry of *it to look at
  if (it != series_.end() && it->first == std::get<0>(from)) {
    Normalize(it->second);
    const Entry probe = ProbeOf(from);
    const std::vector<Entry>& entries = it->second.sorted;
    at = static_cast<size_t>((after ? std::upper_bound(entries.begin(), entries.end(), probe, KeyLess)
                                    : std::lower_bound(entries.begin(), entries.end(), probe, KeyLess)) -
                             entries.begin());
  }
  size_t n = 0;
  for (; it != series_.end(); ++it, at = 0) {
    Normalize(it->second);
    const std::vector<Entry>& entries = it->second.sorted;
    for (; at < entries.size(); at++) {
      if (n >= max) return true;
      const Entry& e = entries[at];
      const Version* v = VisibleIn(e.versions, visible);
      if (!v) continue;
      out->emplace_back(KeyOf(it->first, e), RowOf(it->first, e, *v));
      n++;
    }
  }
  return false;
}

std::optional<TimeSeriesRow> TimeSeriesMemtable::Get(const TimeSeriesKey& key, uint64_t visible) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(std::get<0>(key));
  if (it == series_.end()) return std::nullopt;
  Normalize(it->second);
  const Entry probe = ProbeOf(key);
  const std::vector<Entry>& entries = it->second.sorted;
  auto e = std::lower_bound(entries.begin(), entries.end(), probe, KeyLess);
  if (e == entries.end() || !KeyEqual(*e, probe)) return std::nullopt;
  const Version* v = VisibleIn(e->versions, visible);
  if (!v) return std::nullopt;
  return RowOf(it->first, *e, *v);
}

std::pair<int64_t, int64_t> TimeSeriesMemtable::TimeRange() const {
  std::lock_guard lock(mu_);
  if (series_.empty()) return {0, -1};
  return {min_ts_, max_ts_};
}

}  // namespace freshet
