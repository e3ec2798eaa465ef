#include "storage/timeseries/memtable.h"

#include "common/error.h"

namespace freshet {

namespace {

// A map node's bookkeeping beside its key and value (for bytes()).
constexpr size_t kRowOverhead = 64;

}  // namespace

void TimeSeriesMemtable::Write(const std::vector<TimeSeriesRow>& rows) {
  std::lock_guard lock(mu_);
  if (frozen_) throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "the memtable is frozen");
  for (const auto& row : rows) {
    Key key{row.series, row.ts, append_mode_ ? next_sequence_++ : 0};
    auto [it, inserted] = rows_.try_emplace(std::move(key), row.fields);
    if (inserted) {
      bytes_ += row.series.size() + row.fields.size() + kRowOverhead;
    } else {
      bytes_ = bytes_ - it->second.size() + row.fields.size();
      it->second = row.fields;
    }
  }
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

void TimeSeriesMemtable::ForEach(const std::function<bool(const TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  TimeSeriesRow row;
  for (const auto& [key, fields] : rows_) {
    row.series = std::get<0>(key);
    row.ts = std::get<1>(key);
    row.fields = fields;
    if (!fn(row)) return;
  }
}

std::pair<int64_t, int64_t> TimeSeriesMemtable::TimeRange() const {
  std::lock_guard lock(mu_);
  if (rows_.empty()) return {0, -1};
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& [key, fields] : rows_) {
    lo = std::min(lo, std::get<1>(key));
    hi = std::max(hi, std::get<1>(key));
  }
  return {lo, hi};
}

}  // namespace freshet
