// Time zones: UTC offsets ("+05:30"), POSIX TZ rules past the tzdata's
// last transition, the zone registry (case-insensitive names) and
// TimeZone.

// Debian's libdate-tz is built to read the system tzdata (its CMake target
// exports USE_OS_TZDB=1); a translation unit must agree or tzdb's layout differs.
#ifndef USE_OS_TZDB
#define USE_OS_TZDB 1
#endif
#include <date/tz.h>

#include <fstream>
#include <sstream>
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/datetime_internal.h"

namespace freshet::datetime_detail {


// PostgreSQL's DecodeTimezone: "+hh", "+hh:mm", "+hh:mm:ss", "+hhmm" to seconds
// east of UTC.
int DecodeTimezone(std::string_view str, int64_t* east) {
  if (str.empty() || (str[0] != '+' && str[0] != '-')) return kDtBadFormat;
  size_t pos = 1;
  auto number = [&](int64_t* v) {  // like strtoint: no digits reads as 0; false on overflow
    *v = 0;
    while (pos < str.size() && IsDigit(str[pos])) {
      *v = *v * 10 + (str[pos++] - '0');
      if (*v > INT_MAX) return false;
    }
    return true;
  };
  int64_t hr, min = 0, sec = 0;
  if (!number(&hr)) return kDtTzDispOverflow;
  size_t digits = pos - 1;
  if (pos < str.size() && str[pos] == ':') {
    pos++;
    if (!number(&min)) return kDtTzDispOverflow;
    if (pos < str.size() && str[pos] == ':') {
      pos++;
      if (!number(&sec)) return kDtTzDispOverflow;
    }
  } else if (pos == str.size() && digits > 2) {
    min = hr % 100;  // run-together "hhmm"
    hr /= 100;
  }
  if (hr > 15 || min >= 60 || sec >= 60) return kDtTzDispOverflow;  // MAX_TZDISP_HOUR
  int64_t tz = (hr * 60 + min) * 60 + sec;
  *east = str[0] == '-' ? -tz : tz;
  return pos == str.size() ? kDtOk : kDtBadFormat;
}

// ---------------------------------------------------------------------------
// POSIX TZ rules (the footer of a TZif file)
//
// With the system tzdata, the date library knows only the transitions listed
// in each file (up to 2037); PostgreSQL continues with the POSIX rule stored
// at the end of the file, so we evaluate that rule ourselves past the last
// listed transition.
// ---------------------------------------------------------------------------

struct PosixDate {
  char kind = 'M';  // 'M' (month.week.day), 'J' (1-based, no Feb 29), 'N' (0-based)
  int month = 0, week = 0, wday = 0, day = 0;
  int64_t time = 7200;  // seconds after local midnight
};

struct PosixTz {
  int64_t std_off = 0;  // seconds east of UTC
  bool has_dst = false;
  int64_t dst_off = 0;
  PosixDate start, end;
};

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : s_(s) {}

  bool Parse(PosixTz* tz) {
    int64_t v;
    if (!Name() || !Offset(&v)) return false;
    tz->std_off = -v;  // POSIX offsets count west
    if (AtEnd()) return true;
    if (!Name()) return false;
    tz->has_dst = true;
    tz->dst_off = tz->std_off + 3600;
    if (!AtEnd() && Peek() != ',') {
      if (!Offset(&v)) return false;
      tz->dst_off = -v;
    }
    if (AtEnd()) {  // no rule given: POSIX leaves it to the implementation; use the US rule
      tz->start = PosixDate{'M', 3, 2, 0, 0, 7200};
      tz->end = PosixDate{'M', 11, 1, 0, 0, 7200};
      return true;
    }
    return Eat(',') && Date(&tz->start) && Eat(',') && Date(&tz->end) && AtEnd();
  }

 private:
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    pos_++;
    return true;
  }

  bool Name() {
    if (Eat('<')) {
      size_t close = s_.find('>', pos_);
      if (close == std::string_view::npos) return false;
      pos_ = close + 1;
      return true;
    }
    size_t begin = pos_;
    while (IsAlpha(Peek())) pos_++;
    return pos_ - begin >= 3;
  }

  bool Number(int64_t* v) {
    if (!IsDigit(Peek())) return false;
    *v = 0;
    while (IsDigit(Peek()) && *v < 100000) *v = *v * 10 + (s_[pos_++] - '0');
    return true;
  }

  // [+-]hh[:mm[:ss]] in seconds.
  bool Offset(int64_t* secs) {
    bool neg = Eat('-');
    if (!neg) Eat('+');
    int64_t h, m = 0, s = 0;
    if (!Number(&h)) return false;
    if (Eat(':') && (!Number(&m) || (Eat(':') && !Number(&s)))) return false;
    *secs = (neg ? -1 : 1) * (h * 3600 + m * 60 + s);
    return true;
  }

  bool Date(PosixDate* d) {
    int64_t a, b, c;
    if (Eat('M')) {
      if (!Number(&a) || !Eat('.') || !Number(&b) || !Eat('.') || !Number(&c)) return false;
      if (a < 1 || a > 12 || b < 1 || b > 5 || c > 6) return false;
      *d = PosixDate{'M', int(a), int(b), int(c), 0, 7200};
    } else if (Eat('J')) {
      if (!Number(&a) || a < 1 || a > 365) return false;
      *d = PosixDate{'J', 0, 0, 0, int(a), 7200};
    } else {
      if (!Number(&a) || a > 365) return false;
      *d = PosixDate{'N', 0, 0, 0, int(a), 7200};
    }
    return !Eat('/') || Offset(&d->time);
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// The local time (seconds since 1970, as if UTC) at which a rule fires in `year`.
int64_t PosixTransitionLocal(const PosixDate& d, int64_t year) {
  int64_t day;
  if (d.kind == 'J') {
    day = CivilToDays(year, 1, 1) + d.day - 1 + (IsLeap(year) && d.day >= 60 ? 1 : 0);
  } else if (d.kind == 'N') {
    day = CivilToDays(year, 1, 1) + d.day;
  } else {
    int64_t first = CivilToDays(year, d.month, 1);
    day = first + FloorMod(d.wday - DayOfWeek(first), 7) + 7 * (d.week - 1);
    while (day >= first + DaysInMonth(year, d.month)) day -= 7;  // week 5 = last
  }
  return day * kSecsPerDay + d.time;
}

int64_t PosixOffsetAt(const PosixTz& tz, int64_t utc_secs) {
  if (!tz.has_dst) return tz.std_off;
  int64_t year = DaysToCivil(FloorDiv(utc_secs + tz.std_off, kSecsPerDay)).year;
  int64_t start = PosixTransitionLocal(tz.start, year) - tz.std_off;
  int64_t end = PosixTransitionLocal(tz.end, year) - tz.dst_off;
  bool dst = start < end ? (utc_secs >= start && utc_secs < end) : !(utc_secs >= end && utc_secs < start);
  return dst ? tz.dst_off : tz.std_off;
}

// ---------------------------------------------------------------------------
// Zone registry: case-insensitive names and per-zone data beyond the tzdb.
// ---------------------------------------------------------------------------

struct ZoneTail {
  int64_t last_begin = 0;   // UTC seconds of the last transition the tzdb lists
  int64_t last_offset = 0;  // offset from then on when there is no POSIX rule
  bool has_rule = false;
  PosixTz rule;
};

std::string ZoneInfoDir() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo";
}

// The POSIX TZ string on the last line of a TZif (version 2+) file.
std::string ReadTzifFooter(const std::string& zone_name) {
  std::ifstream in(ZoneInfoDir() + "/" + zone_name, std::ios::binary);
  if (!in) return "";
  std::stringstream buf;
  buf << in.rdbuf();
  std::string s = buf.str();
  if (s.size() < 2 || s.back() != '\n') return "";
  size_t nl = s.rfind('\n', s.size() - 2);
  return nl == std::string::npos ? "" : s.substr(nl + 1, s.size() - nl - 2);
}

class ZoneRegistry {
 public:
  static ZoneRegistry& Get() {
    static ZoneRegistry registry;
    return registry;
  }

  const date::time_zone* Find(std::string_view name) const {
    if (zones_ == nullptr) return nullptr;
    auto it = by_lower_.find(Lower(name));
    if (it != by_lower_.end()) return it->second;
    try {  // names that differ only in case must be spelled exactly
      return date::locate_zone(name);
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  // `zone` points into tzdb.zones: the OS-tzdb build keeps no separate links
  // and the database is never reloaded.
  const ZoneTail& Tail(const date::time_zone* zone) {
    size_t i = size_t(zone - zones_->data());
    std::call_once(once_[i], [&] { tails_[i] = ComputeTail(zone); });
    return tails_[i];
  }

 private:
  ZoneRegistry() {
    try {
      zones_ = &date::get_tzdb().zones;
    } catch (const std::exception&) {
      return;  // no tzdata: only fixed offsets work
    }
    tails_.resize(zones_->size());
    once_ = std::make_unique<std::once_flag[]>(zones_->size());
    std::unordered_map<std::string, int> seen;
    for (const date::time_zone& z : *zones_) {
      std::string key = Lower(z.name());
      if (seen[key]++ == 0) {
        by_lower_[key] = &z;
      } else {
        by_lower_.erase(key);  // ambiguous without case: require the exact spelling
      }
    }
  }

  static ZoneTail ComputeTail(const date::time_zone* zone) {
    date::sys_info last = zone->get_info(date::sys_days{date::year{2200} / 1 / 1});
    ZoneTail tail;
    tail.last_begin = last.begin.time_since_epoch().count();
    tail.last_offset = last.offset.count();
    tail.has_rule = PosixParser(ReadTzifFooter(zone->name())).Parse(&tail.rule);
    return tail;
  }

  const std::vector<date::time_zone>* zones_ = nullptr;
  std::unordered_map<std::string, const date::time_zone*> by_lower_;
  std::vector<ZoneTail> tails_;
  std::unique_ptr<std::once_flag[]> once_;
};

int64_t ZoneOffsetAt(const date::time_zone* zone, int64_t utc_secs) {
  const ZoneTail& tail = ZoneRegistry::Get().Tail(zone);
  if (utc_secs >= tail.last_begin) {
    return tail.has_rule ? PosixOffsetAt(tail.rule, utc_secs) : tail.last_offset;
  }
  auto info = zone->get_info(date::sys_seconds{std::chrono::seconds{utc_secs}});
  return info.offset.count();
}


}  // namespace freshet::datetime_detail

namespace freshet {

using namespace datetime_detail;

// ---- TimeZone ----

std::optional<TimeZone> TimeZone::Lookup(std::string_view name) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::optional<TimeZone>> cache;
  std::string key(name);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::optional<TimeZone> result;
  std::string_view trimmed = Trim(name);
  std::string lower = Lower(trimmed);
  int64_t east;
  if (lower == "utc" || lower == "z" || lower == "zulu") {
    result = TimeZone();
  } else if (lower == "gmt") {
    result = TimeZone();
    result->name_ = "GMT";
  } else if (trimmed.size() > 1 && (trimmed[0] == '+' || trimmed[0] == '-')) {
    if (IsDigit(trimmed[1]) && DecodeTimezone(trimmed, &east) == kDtOk) {
      result = TimeZone();
      result->name_ = std::string(trimmed);
      result->fixed_offset_seconds_ = east;
    }
  } else if (!trimmed.empty()) {
    if (const date::time_zone* zone = ZoneRegistry::Get().Find(trimmed)) {
      result = TimeZone();
      result->name_ = std::string(zone->name());
      result->zone_ = zone;
    }
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() < 10000) cache.emplace(std::move(key), result);  // bound junk names
  return result;
}

TimeZone TimeZone::System() {
  const char* env = std::getenv("TZ");
  if (env != nullptr && *env != '\0') {
    std::string_view tz = env;
    if (tz[0] == ':') tz.remove_prefix(1);
    if (auto zone = Lookup(tz)) return *zone;
  }
  try {
    if (auto zone = Lookup(date::current_zone()->name())) return *zone;
  } catch (const std::exception&) {
  }
  return TimeZone();
}

int64_t TimeZone::OffsetAtUtc(int64_t utc_micros) const {
  if (zone_ == nullptr) return fixed_offset_seconds_;
  if (!IsFiniteDatetime(utc_micros)) return 0;
  return ZoneOffsetAt(zone_, FloorDiv(utc_micros, kMicrosPerSecond));
}

// As PostgreSQL's DetermineTimeZoneOffset: look at the offsets a day before
// and after; when they differ, a local time valid under only one of them uses
// that one, and one that is valid under both (fall-back overlap) or neither
// (spring-forward gap) takes the later UTC instant, i.e. the smaller offset.
// So 2024-11-03 01:30 New York is 01:30 EST, and 2024-03-10 02:30 is read
// with EST as 07:30 UTC (03:30 EDT).
int64_t TimeZone::LocalToUtc(int64_t local_micros) const {
  if (!IsFiniteDatetime(local_micros)) return local_micros;
  if (zone_ == nullptr) return local_micros - fixed_offset_seconds_ * kMicrosPerSecond;
  int64_t local = FloorDiv(local_micros, kMicrosPerSecond);
  int64_t before = ZoneOffsetAt(zone_, local - kSecsPerDay);
  int64_t after = ZoneOffsetAt(zone_, local + kSecsPerDay);
  int64_t offset = before;
  if (before != after) {
    bool before_ok = ZoneOffsetAt(zone_, local - before) == before;
    bool after_ok = ZoneOffsetAt(zone_, local - after) == after;
    if (after_ok && !before_ok) {
      offset = after;
    } else if (after_ok == before_ok) {
      offset = std::min(before, after);
    }
  }
  return local_micros - offset * kMicrosPerSecond;
}


}  // namespace freshet
