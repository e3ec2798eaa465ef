// TimeSeriesMemtable: the rows a time-series table's region received since
// its last flush, for one time partition (time_partitions.h), kept sorted by
// (series, timestamp) — the order a flush writes them in (issue 21).
//
// A row is identified by its series (the memcomparable encoding of the
// table's primary key: the tags), its timestamp in the time index column's
// unit and a `tail` (the key bytes after the time index: the row id of an
// append-only table; usually empty). A later write of the same key replaces
// the earlier one, unless the memtable is append-only (`append_mode`),
// where both are kept, in the order written. `fields` is the rest of the
// row, encoded as the table stores it; the memtable does not look into it.
//
// Versions. Each write carries the epoch that made it (0 outside the
// engine) and may be a delete. A write of a key in a later epoch than the
// key's newest keeps the older version beside it: a reader at an older
// committed epoch (a snapshot taken before) still finds the row as it was
// (Read and Find take the newest version at or below an epoch). A write in
// the same epoch replaces that epoch's version. DiscardFrom removes the
// versions of epochs whose commit failed.
//
// A memtable is mutable until frozen; a frozen one is only read (and later
// flushed). Thread safety: Write, Freeze and the readers may be called
// concurrently (one mutex).
//
// Layout. Rows are kept per series (a map of the few series a region
// has), each series' keys in a vector sorted by (ts, tail, sequence):
// rows arriving in time order, as time series do, are appended. A write
// that would land before the end of a series (out of order, or a key
// written again) goes to the series' `pending` writes instead, in write
// order, once there are any; readers (and a pending list grown past a
// quarter of the series) first merge them in, stably, applying them in
// the order written.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace freshet {

// One row (one version of it) written to a time-series table's region.
struct TimeSeriesRow {
  std::string series;  // memcomparable primary key (the tags)
  int64_t ts = 0;      // the time index, in the column's unit
  std::string fields;  // the row, encoded
  std::string tail;    // key bytes after the time index (empty but in append-only tables)
  uint64_t epoch = 0;  // the epoch that wrote it
  bool deleted = false;  // a delete of the key (fields empty)
};

// Where a row sorts: (series, ts, tail, sequence); the sequence is 0 except
// in an append-mode memtable, where it keeps equal keys apart in write
// order. The order of (series, ts, tail) is the order of the storage keys
// they come from (series is self-delimiting).
using TimeSeriesKey = std::tuple<std::string, int64_t, std::string, uint64_t>;

// A sorted run of a table's rows that a scan merges: a memtable or a file
// (run_file.h).
class TimeSeriesRowSource {
 public:
  virtual ~TimeSeriesRowSource() = default;
  // Appends to *out, in key order, up to `max` rows from `from` on (past
  // it when `after`): of each key the newest version written by an epoch <=
  // `visible` (deletes included); keys without one are skipped. Returns
  // false when no key is left after those appended.
  virtual bool Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
                    std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>>* out) const = 0;
  // False when no row of the run has time `ts` (a point read skips it).
  virtual bool MayHoldTime(int64_t /*ts*/) const { return true; }
  // The newest version at or below `visible` of exactly `key` (a point
  // read): Read of one row from it, unless the run finds it directly.
  virtual std::optional<TimeSeriesRow> Get(const TimeSeriesKey& key, uint64_t visible) const {
    std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>> found;
    Read(key, /*after=*/false, visible, 1, &found);
    if (found.empty() || found[0].first != key) return std::nullopt;
    return std::move(found[0].second);
  }
  // The smallest and largest timestamp of the run's rows (every version,
  // committed or not; a memtable's may be wider, after a failed epoch's
  // rows were removed); {0, -1} when it has none. A memtable's grows with
  // later writes, which are of later epochs.
  virtual std::pair<int64_t, int64_t> TimeRange() const = 0;
};

class TimeSeriesMemtable : public TimeSeriesRowSource {
 public:
  TimeSeriesMemtable(uint64_t id, bool append_mode) : id_(id), append_mode_(append_mode) {}

  uint64_t id() const { return id_; }
  bool append_mode() const { return append_mode_; }
  // Adds the rows (in the order given: of two writes of one key in one
  // epoch the later wins). Throws 55000 when the memtable is frozen.
  void Write(const std::vector<TimeSeriesRow>& rows);
  void Write(const TimeSeriesRow& row) { Write(std::vector<TimeSeriesRow>{row}); }
  // Removes every version written by an epoch >= `epoch` (a failed commit's).
  void DiscardFrom(uint64_t epoch);
  void Freeze();
  bool frozen() const;
  bool empty() const;
  size_t num_rows() const;
  // Approximate bytes held (keys, values and per-row overhead): what the
  // write buffer limit counts.
  size_t bytes() const;
  // Calls fn for each key's newest version in key order (deletes included,
  // `deleted` set); stops when fn returns false.
  void ForEach(const std::function<bool(const TimeSeriesRow&)>& fn) const;
  bool Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
            std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>>* out) const override;
  // Calls fn for every version of every key, in key order and each key's
  // versions oldest first (what a flush writes); each row is fn's own (it
  // may move from it).
  void ForEachVersion(const std::function<void(TimeSeriesRow&)>& fn) const;
  // The newest version of the key at or below `visible`: one lookup (Read
  // would step over the following keys' invisible versions).
  std::optional<TimeSeriesRow> Get(const TimeSeriesKey& key, uint64_t visible) const override;
  std::pair<int64_t, int64_t> TimeRange() const override;
  // The newest epoch written (0 when empty).
  uint64_t max_epoch() const;

 private:
  struct Version {
    uint64_t epoch = 0;
    bool deleted = false;
    std::string fields;
  };
  // A key's versions, oldest first (almost always one).
  using Versions = std::vector<Version>;
  // One key of a series: (ts, tail, sequence) and its versions.
  struct Entry {
    int64_t ts = 0;
    uint64_t sequence = 0;
    std::string tail;
    Versions versions;
  };
  struct Series {
    std::vector<Entry> sorted;   // keys unique and in order
    std::vector<Entry> pending;  // one version each, in write order
  };
  using SeriesMap = std::map<std::string, Series, std::less<>>;
  static bool KeyLess(const Entry& a, const Entry& b);
  static bool KeyEqual(const Entry& a, const Entry& b);
  static const Version* VisibleIn(const Versions& versions, uint64_t visible);
  static TimeSeriesRow RowOf(const std::string& series, const Entry& e, const Version& v);
  static TimeSeriesKey KeyOf(const std::string& series, const Entry& e);
  // An entry without versions to search a series for `key`'s (ts, tail, sequence).
  static Entry ProbeOf(const TimeSeriesKey& key);
  // Adds `v` to the versions of an existing key (bytes_ adjusted).
  void AddVersion(Versions* versions, Version v) const;
  // Merges a series' pending writes into its sorted keys (mu_ held).
  void Normalize(Series& s) const;
  void NormalizeAll() const;

  const uint64_t id_;
  const bool append_mode_;
  mutable std::mutex mu_;
  // Mutable: readers merge pending writes in (under mu_).
  mutable SeriesMap series_;
  mutable size_t pending_ = 0;  // pending writes over every series
  mutable size_t keys_ = 0;     // distinct keys, but for those pending
  uint64_t next_sequence_ = 0;
  mutable size_t bytes_ = 0;
  uint64_t max_epoch_ = 0;
  // Every time written (a discarded epoch's too: TimeRange may be wider).
  int64_t min_ts_ = INT64_MAX, max_ts_ = INT64_MIN;
  bool frozen_ = false;
};

}  // namespace freshet
