// TimeSeriesMemtable against the implementation it replaced (a std::map
// of (series, ts, tail, sequence) keys, kept here as the reference): random
// writes in order, out of order and again, several epochs, append mode,
// failed epochs discarded, and every reader compared after each step.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "common/error.h"
#include "storage/timeseries/memtable.h"

namespace freshet {
namespace {

class ReferenceMemtable : public TimeSeriesRowSource {
 public:
  ReferenceMemtable(uint64_t id, bool append_mode) : id_(id), append_mode_(append_mode) {}

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
  // versions oldest first (what a flush writes).
  void ForEachVersion(const std::function<void(const TimeSeriesRow&)>& fn) const;
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
  static const Version* VisibleIn(const Versions& versions, uint64_t visible);
  static TimeSeriesRow RowOf(const TimeSeriesKey& key, const Version& v);

  const uint64_t id_;
  const bool append_mode_;
  mutable std::mutex mu_;
  std::map<TimeSeriesKey, Versions> rows_;
  uint64_t next_sequence_ = 0;
  size_t bytes_ = 0;
  uint64_t max_epoch_ = 0;
  // Every time written (a discarded epoch's too: TimeRange may be wider).
  int64_t min_ts_ = INT64_MAX, max_ts_ = INT64_MIN;
  bool frozen_ = false;
};


namespace {

// A map node's bookkeeping beside its key and value (for bytes()).
constexpr size_t kRowOverhead = 64;
constexpr size_t kVersionOverhead = 40;

}  // namespace

void ReferenceMemtable::Write(const std::vector<TimeSeriesRow>& rows) {
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

void ReferenceMemtable::DiscardFrom(uint64_t epoch) {
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

void ReferenceMemtable::Freeze() {
  std::lock_guard lock(mu_);
  frozen_ = true;
}

bool ReferenceMemtable::frozen() const {
  std::lock_guard lock(mu_);
  return frozen_;
}

bool ReferenceMemtable::empty() const {
  std::lock_guard lock(mu_);
  return rows_.empty();
}

size_t ReferenceMemtable::num_rows() const {
  std::lock_guard lock(mu_);
  return rows_.size();
}

size_t ReferenceMemtable::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

uint64_t ReferenceMemtable::max_epoch() const {
  std::lock_guard lock(mu_);
  return max_epoch_;
}

const ReferenceMemtable::Version* ReferenceMemtable::VisibleIn(const Versions& versions, uint64_t visible) {
  for (auto v = versions.rbegin(); v != versions.rend(); ++v)
    if (v->epoch <= visible) return &*v;
  return nullptr;
}

TimeSeriesRow ReferenceMemtable::RowOf(const TimeSeriesKey& key, const Version& v) {
  TimeSeriesRow row;
  row.series = std::get<0>(key);
  row.ts = std::get<1>(key);
  row.tail = std::get<2>(key);
  row.fields = v.fields;
  row.epoch = v.epoch;
  row.deleted = v.deleted;
  return row;
}

void ReferenceMemtable::ForEach(const std::function<bool(const TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, versions] : rows_)
    if (!fn(RowOf(key, versions.back()))) return;
}

void ReferenceMemtable::ForEachVersion(const std::function<void(const TimeSeriesRow&)>& fn) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, versions] : rows_)
    for (const Version& v : versions) fn(RowOf(key, v));
}

bool ReferenceMemtable::Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
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

std::optional<TimeSeriesRow> ReferenceMemtable::Get(const TimeSeriesKey& key, uint64_t visible) const {
  std::lock_guard lock(mu_);
  auto it = rows_.find(key);
  if (it == rows_.end()) return std::nullopt;
  const Version* v = VisibleIn(it->second, visible);
  if (!v) return std::nullopt;
  return RowOf(it->first, *v);
}

std::pair<int64_t, int64_t> ReferenceMemtable::TimeRange() const {
  std::lock_guard lock(mu_);
  if (rows_.empty()) return {0, -1};
  return {min_ts_, max_ts_};
}


std::string Describe(const TimeSeriesRow& r) {
  return r.series + "|" + std::to_string(r.ts) + "|" + r.tail + "|" + r.fields + "|" + std::to_string(r.epoch) +
         (r.deleted ? "|d" : "");
}

template <typename M>
std::string AllVersions(const M& m) {
  std::string out;
  m.ForEachVersion([&](const TimeSeriesRow& r) { out += Describe(r) + "\n"; });
  return out;
}

template <typename M>
std::string Newest(const M& m) {
  std::string out;
  m.ForEach([&](const TimeSeriesRow& r) {
    out += Describe(r) + "\n";
    return true;
  });
  return out;
}

template <typename M>
std::string ReadAll(const M& m, const TimeSeriesKey& from, bool after, uint64_t visible, size_t max) {
  std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>> rows;
  const bool more = m.Read(from, after, visible, max, &rows);
  std::string out = more ? "more\n" : "end\n";
  for (const auto& [key, row] : rows)
    out += std::get<0>(key) + "/" + std::to_string(std::get<1>(key)) + "/" + std::get<2>(key) + "/" +
           std::to_string(std::get<3>(key)) + " " + Describe(row) + "\n";
  return out;
}

TEST(TimeSeriesMemtableTest, EqualsTheMapItReplacedUnderRandomWrites) {
  for (uint64_t seed = 1; seed <= 60; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const bool append = seed % 4 == 0;
    TimeSeriesMemtable m(1, append);
    ReferenceMemtable ref(1, append);
    const int series = 1 + static_cast<int>(rng() % 5);
    int64_t clock = 0;
    uint64_t epoch = 1;
    for (int step = 0; step < 60; step++) {
      const int kind = static_cast<int>(rng() % 10);
      if (kind == 0) {
        // The epoch's commit failed: its versions go.
        m.DiscardFrom(epoch);
        ref.DiscardFrom(epoch);
        epoch++;
      } else {
        if (kind == 1) epoch++;
        std::vector<TimeSeriesRow> rows;
        // Sometimes a burst of late rows to one series (past the pending
        // list's merge threshold within one batch).
        const bool burst = rng() % 6 == 0;
        const std::string burst_series = "s" + std::to_string(rng() % series);
        const size_t n = burst ? 100 + rng() % 200 : 1 + rng() % 120;
        for (size_t i = 0; i < n; i++) {
          TimeSeriesRow r;
          r.series = burst ? burst_series : "s" + std::to_string(rng() % series);
          // Mostly in time order; some late, some keys again.
          const int shape = static_cast<int>(rng() % 10);
          r.ts = burst ? clock - static_cast<int64_t>(rng() % 400)
                 : shape < 6 ? clock++
                 : shape < 8 ? clock - static_cast<int64_t>(rng() % 50)
                             : static_cast<int64_t>(rng() % 20);
          r.tail = rng() % 8 == 0 ? "t" : "";
          r.epoch = epoch;
          r.deleted = rng() % 15 == 0;
          if (!r.deleted) r.fields = "f" + std::to_string(rng() % 1000);
          rows.push_back(std::move(r));
        }
        m.Write(rows);
        ref.Write(rows);
      }
      // Each reader sometimes first, while writes may still be pending.
      if (step % 3 == 0) ASSERT_EQ(AllVersions(m), AllVersions(ref));
      if (step % 3 == 1) ASSERT_EQ(Newest(m), Newest(ref));
      for (int probe = 0; probe < 6; probe++) {
        TimeSeriesKey from{"s" + std::to_string(rng() % (series + 1)), static_cast<int64_t>(rng() % (clock + 2)) - 1,
                           rng() % 4 == 0 ? "t" : "", append ? rng() % 200 : 0};
        const bool after = rng() % 2;
        const uint64_t visible = 1 + rng() % epoch;
        const size_t max = 1 + rng() % 40;
        // Get of an existing key (half the time) or of the probe.
        TimeSeriesKey point = from;
        if (rng() % 2 == 0) {
          std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>> some;
          ref.Read(from, false, epoch, 1, &some);
          if (!some.empty()) point = some[0].first;
        }
        auto a = m.Get(point, visible), b = ref.Get(point, visible);
        ASSERT_EQ(a.has_value(), b.has_value());
        if (a) ASSERT_EQ(Describe(*a), Describe(*b));
        ASSERT_EQ(ReadAll(m, from, after, visible, max), ReadAll(ref, from, after, visible, max));
      }
      ASSERT_EQ(m.num_rows(), ref.num_rows());
      ASSERT_EQ(m.empty(), ref.empty());
      ASSERT_EQ(m.max_epoch(), ref.max_epoch());
      ASSERT_EQ(AllVersions(m), AllVersions(ref));
      ASSERT_EQ(Newest(m), Newest(ref));
      if (!ref.empty()) {
        ASSERT_EQ(m.TimeRange(), ref.TimeRange());
      }
    }
  }
}

// A series written entirely out of order stays cheap: its writes wait in
// the pending list and are merged in batches, not inserted one by one.
TEST(TimeSeriesMemtableTest, OutOfOrderWritesOfOneSeriesAreMergedInBatches) {
  TimeSeriesMemtable m(1, false);
  std::mt19937_64 rng(3);
  const int64_t n = 200000;
  std::vector<int64_t> times(n);
  for (int64_t i = 0; i < n; i++) times[i] = i;
  std::shuffle(times.begin(), times.end(), rng);
  for (int64_t t : times) {
    TimeSeriesRow r;
    r.series = "s";
    r.ts = t;
    r.epoch = 1;
    r.fields = "x";
    m.Write(r);
  }
  EXPECT_EQ(m.num_rows(), static_cast<size_t>(n));
  int64_t expect = 0;
  bool ordered = true;
  m.ForEach([&](const TimeSeriesRow& r) {
    ordered = ordered && r.ts == expect++;
    return true;
  });
  EXPECT_TRUE(ordered);
}

}  // namespace
}  // namespace freshet
