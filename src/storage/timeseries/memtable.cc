#include "storage/timeseries/memtable.h"

#include <algorithm>

#include "common/error.h"

namespace freshet {

namespace {

// A map node's bookkeeping beside its key and value (for bytes()).
constexpr size_t kRowOverhead = 64;
constexpr size_t kVersionOverhead = 40;

}  // namespace

void TimeSeriesMemtable::Write(const std::vector<TimeSeriesRow>& rows) {
  std::lock_guard lock(mu_);
  if (frozen_) throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "the memtable is frozen");
  for (const auto& row : rows) {
    TimeSeriesKey key{row.series, row.ts, row.tail, append_mode_ ? next_sequence_++ : 0};
    auto [it, inserted] = rows_.try_emplace(std::move(key));
    Versions& versions = it->second;
    Version v{row.epoch, row.deleted, row.fields};
    max_epoch_ = std::max(max_epoch_, row.epoch);
    min_ts_ = std::min(min_ts_, row.ts);
    max_ts_ = std::max(max_ts_, row.ts);
    if (inserted) {
      bytes_ += row.series.size() + row.tail.size() + row.fields.size() + kRowOverhead;
      versions.push_back(std::move(v));
      continue;
    }
    // Versions stay ordered by epoch; one per epoch.
    auto at = std::lower_bound(versions.begin(), versions.end(), row.epoch,
                               [](const Version& x, uint64_t e) { return x.epoch < e; });
    if (at != versions.end() && at->epoch == row.epoch) {
      bytes_ = bytes_ - at->fields.size() + v.fields.size();
      *at = std::move(v);
    } else {
      bytes_ += v.fields.size() + kVersionOverhead;
      versions.insert(at, std::move(v));
    }
  }
}

void TimeSeriesMemtable::DiscardFrom(uint64_t epoch) {
  std::lock_guard lock(mu_);
  for (auto it = rows_.begin(); it != rows_.end();) {
    Versions& versions = it->second;
    while (!versions.empty() && versions.back().epoch >= epoch) {
      bytes_ -= std::min(bytes_, versions.back().fields.size() + kVersionOverhead);
      versions.pop_back();
    }
    if (versions.empty()) {
      bytes_ -= std::min(bytes_, std::get<0>(it->first).size() + std::get<2>(it->first).size() + kRowOverhead);
      it = rows_.erase(it);
    } else {
      ++it;
    }
  }
  uint64_t max = 0;
  for (const auto& [key, versions] : rows_) max = std::max(max, versions.back().epoch);
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
  return rows_.empty();
}

size_t TimeSeriesMemtable::num_rows() const {
  std::lock_guard lock(mu_);
  return rows_.size();
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

TimeSeriesRow TimeSeriesMemtable::RowOf(const TimeSeriesKey& key, const Version& v) {
  TimeSeriesRow row;
  row.series = std::get<0>(key);
  row.ts = std::get<1>(key);
  row.tail = std::get<2>(key);
  row.fields = v.fields;
  row.epoch = v.epoch;
  row.deleted = v.deleted;
  return row;
}

void TimeSeriesMemtable::ForEach(const std::function<bool(const TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, versions] : rows_)
    if (!fn(RowOf(key, versions.back()))) return;
}

void TimeSeriesMemtable::ForEachVersion(const std::function<void(const TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, versions] : rows_)
    for (const Version& v : versions) fn(RowOf(key, v));
}

bool TimeSeriesMemtable::Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
                              std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>>* out) const {
  std::lock_guard lock(mu_);
  auto it = after ? rows_.upper_bound(from) : rows_.lower_bound(from);
  size_t n = 0;
  for (; it != rows_.end() && n < max; ++it) {
    const Version* v = VisibleIn(it->second, visible);
    if (!v) continue;
    out->emplace_back(it->first, RowOf(it->first, *v));
    n++;
  }
  return it != rows_.end();
}

std::optional<TimeSeriesRow> TimeSeriesMemtable::Get(const TimeSeriesKey& key, uint64_t visible) const {
  std::lock_guard lock(mu_);
  auto it = rows_.find(key);
  if (it == rows_.end()) return std::nullopt;
  const Version* v = VisibleIn(it->second, visible);
  if (!v) return std::nullopt;
  return RowOf(it->first, *v);
}

std::pair<int64_t, int64_t> TimeSeriesMemtable::TimeRange() const {
  std::lock_guard lock(mu_);
  if (rows_.empty()) return {0, -1};
  return {min_ts_, max_ts_};
}

}  // namespace freshet
