// TimeSeriesMemtable: the rows a time-series table's region received since
// its last flush, for one time partition (time_partitions.h), kept sorted by
// (series, timestamp) — the order a flush writes them in (issue 21).
//
// A row is identified by its series (the memcomparable encoding of the
// table's primary key: the tags) and its timestamp in the time index
// column's unit. A later write of the same (series, timestamp) replaces the
// earlier one, unless the table is append-only (`append_mode`), where both
// are kept, in the order written. `fields` is the rest of the row, encoded
// as the table stores it; the memtable does not look into it.
//
// A memtable is mutable until frozen; a frozen one is only read (and later
// flushed). Thread safety: Write, Freeze and the readers may be called
// concurrently (one mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace freshet {

// One row written to a time-series table's region.
struct TimeSeriesRow {
  std::string series;  // memcomparable primary key (the tags)
  int64_t ts = 0;      // the time index, in the column's unit
  std::string fields;  // the other columns, encoded
};

class TimeSeriesMemtable {
 public:
  TimeSeriesMemtable(uint64_t id, bool append_mode) : id_(id), append_mode_(append_mode) {}

  uint64_t id() const { return id_; }
  bool append_mode() const { return append_mode_; }
  // Adds the rows (in the order given: of two writes of one key the later
  // wins). Throws 55000 when the memtable is frozen.
  void Write(const std::vector<TimeSeriesRow>& rows);
  void Write(const TimeSeriesRow& row) { Write(std::vector<TimeSeriesRow>{row}); }
  void Freeze();
  bool frozen() const;
  bool empty() const;
  size_t num_rows() const;
  // Approximate bytes held (keys, values and per-row overhead): what the
  // write buffer limit counts.
  size_t bytes() const;
  // Calls fn for each row in (series, timestamp, write order) order; stops
  // when fn returns false.
  void ForEach(const std::function<bool(const TimeSeriesRow&)>& fn) const;
  // The smallest and largest timestamp held; {0, -1} when empty.
  std::pair<int64_t, int64_t> TimeRange() const;

 private:
  // (series, ts, sequence): the sequence is 0 except in append mode, where
  // it keeps equal keys apart in write order.
  using Key = std::tuple<std::string, int64_t, uint64_t>;
  const uint64_t id_;
  const bool append_mode_;
  mutable std::mutex mu_;
  std::map<Key, std::string> rows_;
  uint64_t next_sequence_ = 0;
  size_t bytes_ = 0;
  bool frozen_ = false;
};

}  // namespace freshet
