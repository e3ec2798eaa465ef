#include "storage/timeseries/time_partitions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/datetime.h"
#include "common/error.h"

namespace freshet {

namespace {

// Floor division (rounds toward negative infinity); b > 0.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

}  // namespace

int64_t UnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMillisecond: return 1000;
    case TimeUnit::kMicrosecond: return 1000000;
    case TimeUnit::kNanosecond: return 1000000000;
  }
  return 1;
}

int64_t TimeWindowSeconds(const std::string& text) {
  Interval iv;
  try {
    iv = ParseInterval(text);
  } catch (const SqlError&) {
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid time window \"{}\": an interval such as '1h' or '30m'",
                  text);
  }
  const __int128 micros = IntervalCompareKey(iv);
  if (micros < 1000000)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "time window \"{}\" is shorter than one second", text);
  if (micros % 1000000 != 0)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "time window \"{}\" is not a whole number of seconds", text);
  if (micros / 1000000 > INT64_MAX / 1000000000)  // a window must fit in nanoseconds too
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "time window \"{}\" is too long", text);
  return static_cast<int64_t>(micros / 1000000);
}

TimePartitionRange PartitionRangeOf(int64_t ts, TimeUnit unit, int64_t window_seconds) {
  const int64_t per_second = UnitsPerSecond(unit);
  const int64_t start_seconds = FloorDiv(FloorDiv(ts, per_second), window_seconds);
  TimePartitionRange range;
  int64_t start_in_seconds = 0, window_in_unit = 0;
  if (__builtin_mul_overflow(start_seconds, window_seconds, &start_in_seconds) ||
      __builtin_mul_overflow(start_in_seconds, per_second, &range.start) ||
      __builtin_mul_overflow(window_seconds, per_second, &window_in_unit))
    FRESHET_THROW(sqlstate::kDatetimeFieldOverflow, "timestamp {} and bucket {} s are out of range", ts,
                  window_seconds);
  if (__builtin_add_overflow(range.start, window_in_unit, &range.end))
    FRESHET_THROW(sqlstate::kDatetimeFieldOverflow, "partition time range for {} is out of bound", ts);
  return range;
}

TimePartitions::TimePartitions(std::optional<int64_t> window_seconds, TimeUnit unit, bool append_mode,
                               std::shared_ptr<std::atomic<uint64_t>> next_id)
    : window_seconds_(window_seconds), unit_(unit), append_mode_(append_mode), next_id_(std::move(next_id)) {}

TimePartitionRange TimePartitions::RangeOf(int64_t ts) const {
  if (!window_seconds_) return TimePartitionRange{0, 0, true};
  return PartitionRangeOf(ts, unit_, *window_seconds_);
}

std::shared_ptr<TimeSeriesMemtable> TimePartitions::NewMemtable() const {
  return std::make_shared<TimeSeriesMemtable>(next_id_->fetch_add(1), append_mode_);
}

void TimePartitions::Write(const std::vector<TimeSeriesRow>& rows) {
  if (rows.empty()) return;
  const std::vector<Partition> existing = partitions();
  // The newest partition holding the whole batch takes it.
  for (auto p = existing.rbegin(); p != existing.rend(); ++p)
    if (std::all_of(rows.begin(), rows.end(), [&](const TimeSeriesRow& r) { return p->range.Contains(r.ts); })) {
      p->memtable->Write(rows);
      return;
    }
  // Each row to the partition holding it; the others by their partition's
  // start (every range computed before anything is written: a row out of
  // range fails the batch whole).
  std::vector<std::vector<TimeSeriesRow>> to_existing(existing.size());
  std::map<int64_t, std::pair<TimePartitionRange, std::vector<TimeSeriesRow>>> missing;
  for (const auto& row : rows) {
    auto holder = std::find_if(existing.begin(), existing.end(),
                               [&](const Partition& p) { return p.range.Contains(row.ts); });
    if (holder != existing.end()) {
      to_existing[holder - existing.begin()].push_back(row);
      continue;
    }
    const TimePartitionRange range = RangeOf(row.ts);
    auto& group = missing[range.start];
    group.first = range;
    group.second.push_back(row);
  }
  for (size_t i = 0; i < existing.size(); i++)
    if (!to_existing[i].empty()) existing[i].memtable->Write(to_existing[i]);
  for (auto& [start, group] : missing) {
    std::shared_ptr<TimeSeriesMemtable> memtable;
    {
      std::lock_guard lock(mu_);
      auto at = std::lower_bound(partitions_.begin(), partitions_.end(), start,
                                 [](const Partition& p, int64_t s) { return p.range.start < s; });
      if (at != partitions_.end() && at->range.start == start && at->range.unbounded == group.first.unbounded) {
        memtable = at->memtable;  // another writer made it meanwhile
      } else {
        memtable = NewMemtable();
        partitions_.insert(at, Partition{group.first, memtable});
      }
    }
    memtable->Write(group.second);
  }
}

std::vector<std::shared_ptr<TimeSeriesMemtable>> TimePartitions::Freeze() {
  std::vector<std::shared_ptr<TimeSeriesMemtable>> frozen;
  for (const auto& p : partitions()) {
    p.memtable->Freeze();
    frozen.push_back(p.memtable);
  }
  return frozen;
}

std::unique_ptr<TimePartitions> TimePartitions::Fork() const {
  auto next = std::make_unique<TimePartitions>(window_seconds_, unit_, append_mode_, next_id_);
  std::lock_guard lock(mu_);
  if (!partitions_.empty()) next->partitions_.push_back(Partition{partitions_.back().range, NewMemtable()});
  return next;
}

bool TimePartitions::is_empty() const {
  for (const auto& p : partitions())
    if (!p.memtable->empty()) return false;
  return true;
}

std::vector<TimePartitions::Partition> TimePartitions::partitions() const {
  std::lock_guard lock(mu_);
  return partitions_;
}

size_t TimePartitions::bytes() const {
  size_t total = 0;
  for (const auto& p : partitions()) total += p.memtable->bytes();
  return total;
}

}  // namespace freshet
