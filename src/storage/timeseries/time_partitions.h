// TimePartitions: a time-series region's mutable memtables, one per time
// window (issue 21, item 2), as GreptimeDB partitions them
// (../shared/reference/greptimedb.md, "Time partitions"): rows of one window
// share a memtable, so a flush writes one file per window and TTL and
// time-window compaction deal in whole windows.
//
// The window is the table's `compaction.twcs.time_window`, a whole number of
// seconds (TimeWindowSeconds refuses less than one second, or a fraction:
// CREATE TABLE's check); without one there is a single partition covering
// every timestamp. A partition covers [start, start + window) in the time
// index's unit, where start is the row's timestamp floored to whole seconds
// and then to a multiple of the window, both Euclidean (-1 ms falls in the
// partition starting at -5000 ms for a 5 s window). A start or end that
// does not fit in 64 bits is an error for that write (22008).
//
// Write: the newest partition holding every row of the batch takes the
// whole batch; otherwise each row goes to the existing partition holding
// it, and the rest are grouped by their partition's start, each group's
// partition looked up again under the lock (another writer may have made
// it) and made if still missing.
//
// Freeze makes every partition's memtable immutable and returns them;
// the caller then writes to Fork(), the next mutable set: a fork of the
// latest partition only (same range, a new memtable), or none at all. The
// caller keeps writers out between the two (its own lock): a write to a
// frozen memtable fails.
//
// Thread safety: Write and the readers may run concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "storage/timeseries/memtable.h"

namespace freshet {

// The unit of a time index column (TIMESTAMP(0), (3), (6), (9)).
enum class TimeUnit : uint8_t { kSecond, kMillisecond, kMicrosecond, kNanosecond };
int64_t UnitsPerSecond(TimeUnit unit);

// A time window from its option text ('1h', '2h', '30m', '10s', '1d'; an
// interval PostgreSQL accepts), in whole seconds. 22023 when it is not an
// interval, shorter than a second or not a whole number of seconds.
int64_t TimeWindowSeconds(const std::string& text);

// [start, end) in a time index's unit; `unbounded`: every timestamp (a
// table without a time window).
struct TimePartitionRange {
  int64_t start = 0, end = 0;
  bool unbounded = false;
  bool Contains(int64_t ts) const { return unbounded || (ts >= start && ts < end); }
};

// The range of the partition holding `ts` for a window of `window_seconds`
// (> 0). Throws 22008 when its start or end does not fit in 64 bits.
TimePartitionRange PartitionRangeOf(int64_t ts, TimeUnit unit, int64_t window_seconds);

class TimePartitions {
 public:
  // `window_seconds`: none for a single unbounded partition. `next_id`
  // numbers memtables (the region's counter, shared with the sets forked
  // from this one).
  TimePartitions(std::optional<int64_t> window_seconds, TimeUnit unit, bool append_mode,
                 std::shared_ptr<std::atomic<uint64_t>> next_id);

  struct Partition {
    TimePartitionRange range;
    std::shared_ptr<TimeSeriesMemtable> memtable;
  };

  // Writes the rows (see the header comment). Throws 22008 for a row whose
  // partition is out of range (no row of the batch is written then), 55000
  // when a memtable is frozen.
  void Write(const std::vector<TimeSeriesRow>& rows);
  // Freezes every partition's memtable; returns them in partition order.
  std::vector<std::shared_ptr<TimeSeriesMemtable>> Freeze();
  // The next mutable set: a fork of the latest partition only, or empty.
  std::unique_ptr<TimePartitions> Fork() const;
  // Every partition empty (also: none).
  bool is_empty() const;
  // The partitions, by start.
  std::vector<Partition> partitions() const;
  size_t bytes() const;

 private:
  // The range of the partition for `ts` (unbounded without a window).
  TimePartitionRange RangeOf(int64_t ts) const;
  std::shared_ptr<TimeSeriesMemtable> NewMemtable() const;

  const std::optional<int64_t> window_seconds_;
  const TimeUnit unit_;
  const bool append_mode_;
  const std::shared_ptr<std::atomic<uint64_t>> next_id_;
  mutable std::mutex mu_;
  std::vector<Partition> partitions_;  // by start
};

}  // namespace freshet
