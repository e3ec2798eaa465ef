// Dates, times, timestamps, intervals and time zones with PostgreSQL 15's
// semantics. The text parsers are ports of PostgreSQL's ParseDateTime,
// DecodeDateTime, DecodeTimeOnly, DecodeInterval and DecodeISO8601Interval
// (src/backend/utils/adt/datetime.c), restricted to DateStyle 'ISO, MDY' and
// IntervalStyle 'postgres'; names and structure follow the originals so the
// two can be compared side by side.
#include "common/datetime.h"

// Debian's libdate-tz is built to read the system tzdata (its CMake target
// exports USE_OS_TZDB=1); a translation unit must agree or tzdb's layout differs.
#ifndef USE_OS_TZDB
#define USE_OS_TZDB 1
#endif
#include <date/tz.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "common/error.h"

namespace freshet {
namespace {

// ---------------------------------------------------------------------------
// Calendar arithmetic
// ---------------------------------------------------------------------------

constexpr int64_t kSecsPerDay = 86400;
constexpr int64_t kUnixEpochJulian = 2440588;  // Julian day number of 1970-01-01
constexpr int kDaysPerMonth = 30;              // PostgreSQL's interval month

constexpr int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
constexpr int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Howard Hinnant's days_from_civil / civil_from_days, for int64 years.
constexpr int64_t CivilToDays(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct Civil {
  int64_t year;  // astronomical: 0 is 1 BC
  int mon;
  int mday;
};

constexpr Civil DaysToCivil(int64_t z) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = int(doy - (153 * mp + 2) / 5 + 1);
  const int m = int(mp < 10 ? mp + 3 : mp - 9);
  return Civil{yoe + era * 400 + (m <= 2), m, d};
}

constexpr bool IsLeap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

constexpr int DaysInMonth(int64_t y, int m) {
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// 0 = Sunday, like PostgreSQL's j2day.
constexpr int DayOfWeek(int64_t days) { return int(FloorMod(days + 4, 7)); }

// PostgreSQL's valid range: Julian day 0 (4714-11-24 BC) up to 5874897-12-31
// for dates; timestamps end in 294276 AD there, but microseconds since 1970 in
// an int64 stop at 294247-01-10, so ours end at 294247-01-01.
constexpr int64_t kMinDay = -kUnixEpochJulian;
constexpr int64_t kEndDay = 2147483494 - kUnixEpochJulian;  // DATE_END_JULIAN
constexpr int64_t kMinTimestamp = kMinDay * kMicrosPerDay;
constexpr int64_t kEndTimestamp = CivilToDays(294247, 1, 1) * kMicrosPerDay;

// PostgreSQL's IS_VALID_JULIAN: guards the Julian-day routines (month precision).
bool IsValidJulian(int64_t y, int m) {
  return (y > -4713 || (y == -4713 && m >= 11)) && (y < 5874898 || (y == 5874898 && m < 6));
}

bool IsValidTimestamp(int64_t t) { return t >= kMinTimestamp && t < kEndTimestamp; }

// Broken-down date and time (PostgreSQL's pg_tm plus fsec).
struct Tm {
  int64_t year = 0;  // astronomical
  int mon = 0;
  int mday = 0;
  int64_t hour = 0;
  int min = 0;
  int sec = 0;
  int64_t fsec = 0;  // microseconds
};

Tm MicrosToTm(int64_t micros) {
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t t = micros - days * kMicrosPerDay;
  Civil c = DaysToCivil(days);
  Tm tm;
  tm.year = c.year;
  tm.mon = c.mon;
  tm.mday = c.mday;
  tm.hour = t / kMicrosPerHour;
  tm.min = int(t / kMicrosPerMinute % 60);
  tm.sec = int(t / kMicrosPerSecond % 60);
  tm.fsec = t % kMicrosPerSecond;
  return tm;
}

int64_t TimeOfDay(const Tm& tm) {
  return ((tm.hour * 60 + tm.min) * 60 + tm.sec) * kMicrosPerSecond + tm.fsec;
}

// Like PostgreSQL's tm2timestamp without the zone: false when out of range.
bool TmToMicros(const Tm& tm, int64_t* out) {
  if (!IsValidJulian(tm.year, tm.mon)) return false;
  int64_t days = CivilToDays(tm.year, tm.mon, tm.mday);
  int64_t r;
  if (__builtin_mul_overflow(days, kMicrosPerDay, &r) || __builtin_add_overflow(r, TimeOfDay(tm), &r)) {
    return false;
  }
  *out = r;
  return true;
}

[[noreturn]] void ThrowTimestampOutOfRange() {
  throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
}

[[noreturn]] void ThrowIntervalOutOfRange() {
  throw SqlError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
}

int64_t TmToMicrosOrThrow(const Tm& tm) {
  int64_t r;
  if (!TmToMicros(tm, &r) || !IsValidTimestamp(r)) ThrowTimestampOutOfRange();
  return r;
}

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));  // ASCII keywords
  return r;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

char ToLowerChar(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// ---------------------------------------------------------------------------
// Error reporting, as PostgreSQL's DateTimeParseError
// ---------------------------------------------------------------------------

// SQLSTATEs that error.h does not name.
constexpr const char* kIntervalFieldOverflow = "22015";
constexpr const char* kInvalidTimeZoneDisplacement = "22009";

enum DtErr {
  kDtOk = 0,
  kDtBadFormat,
  kDtFieldOverflow,
  kDtMdFieldOverflow,
  kDtIntervalOverflow,
  kDtTzDispOverflow,
};

[[noreturn]] void ThrowParseError(int err, std::string_view text, std::string_view type) {
  switch (err) {
    case kDtFieldOverflow:
      throw SqlError(sqlstate::kDatetimeFieldOverflow,
                     fmt::format("date/time field value out of range: \"{}\"", text));
    case kDtMdFieldOverflow:
      throw SqlError(sqlstate::kDatetimeFieldOverflow,
                     fmt::format("date/time field value out of range: \"{}\"", text))
          .WithHint("Perhaps you need a different \"datestyle\" setting.");
    case kDtIntervalOverflow:
      throw SqlError(kIntervalFieldOverflow, fmt::format("interval field value out of range: \"{}\"", text));
    case kDtTzDispOverflow:
      throw SqlError(kInvalidTimeZoneDisplacement,
                     fmt::format("time zone displacement out of range: \"{}\"", text));
    default:
      throw SqlError(sqlstate::kInvalidDatetimeFormat,
                     fmt::format("invalid input syntax for type {}: \"{}\"", type, text));
  }
}

[[noreturn]] void ThrowZoneNotRecognized(std::string_view name) {
  throw SqlError(sqlstate::kInvalidParameterValue, fmt::format("time zone \"{}\" not recognized", name));
}

// Special values PostgreSQL accepts but our int64 representations cannot hold
// (infinity) or that depend on the clock (now, today...).
[[noreturn]] void ThrowSpecialNotSupported(std::string_view text, std::string_view type) {
  throw SqlError(sqlstate::kFeatureNotSupported, fmt::format("{} value \"{}\" is not supported", type, text));
}

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

// ---------------------------------------------------------------------------
// Token tables (PostgreSQL's datetktbl and deltatktbl)
// ---------------------------------------------------------------------------

// Token types double as bit positions of the field masks, as in PostgreSQL.
enum TokenType {
  RESERV = 0,
  MONTH = 1,
  YEAR = 2,
  DAY = 3,
  TZ = 5,
  DTZ = 6,
  IGNORE_DTF = 8,
  AMPM = 9,
  HOUR = 10,
  MINUTE = 11,
  SECOND = 12,
  MILLISECOND = 13,
  MICROSECOND = 14,
  DOY = 15,
  DOW = 16,
  UNITS = 17,
  ADBC = 18,
  AGO = 19,
  ISOTIME = 23,
  WEEK = 24,
  DECADE = 25,
  CENTURY = 26,
  MILLENNIUM = 27,
  DTZMOD = 28,
  UNKNOWN_FIELD = 31,
};

constexpr int M(int t) { return 1 << t; }
constexpr int kDateMask = M(YEAR) | M(MONTH) | M(DAY);
constexpr int kAllSecsMask = M(SECOND) | M(MILLISECOND) | M(MICROSECOND);
constexpr int kTimeMask = M(HOUR) | M(MINUTE) | kAllSecsMask;

// Values of UNITS and RESERV tokens.
enum Unit {
  kNoUnit,
  kMicrosec,
  kMillisec,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
  kTz,
  kTzHour,
  kTzMinute,
  kDow,
  kDoy,
  kIsodow,
  kIsoyear,
  kJulian,
  kEpoch,
  kLate,
  kEarly,
  kNow,
  kToday,
  kTomorrow,
  kYesterday,
  kZulu,
  kInvalid,
  kAm,
  kPm,
  kAd,
  kBc,
};

struct Token {
  int type;
  int value;
};

using TokenTable = std::unordered_map<std::string_view, Token>;

const TokenTable& DateTokens() {
  static const TokenTable table = {
      {"-infinity", {RESERV, kEarly}},
      {"ad", {ADBC, kAd}},
      {"allballs", {RESERV, kZulu}},
      {"am", {AMPM, kAm}},
      {"apr", {MONTH, 4}},
      {"april", {MONTH, 4}},
      {"at", {IGNORE_DTF, 0}},
      {"aug", {MONTH, 8}},
      {"august", {MONTH, 8}},
      {"bc", {ADBC, kBc}},
      {"d", {UNITS, kDay}},
      {"dec", {MONTH, 12}},
      {"december", {MONTH, 12}},
      {"dow", {UNITS, kDow}},
      {"doy", {UNITS, kDoy}},
      {"dst", {DTZMOD, 3600}},
      {"epoch", {RESERV, kEpoch}},
      {"feb", {MONTH, 2}},
      {"february", {MONTH, 2}},
      {"fri", {DOW, 5}},
      {"friday", {DOW, 5}},
      {"h", {UNITS, kHour}},
      {"infinity", {RESERV, kLate}},
      {"isodow", {UNITS, kIsodow}},
      {"isoyear", {UNITS, kIsoyear}},
      {"j", {UNITS, kJulian}},
      {"jan", {MONTH, 1}},
      {"january", {MONTH, 1}},
      {"jd", {UNITS, kJulian}},
      {"jul", {MONTH, 7}},
      {"julian", {UNITS, kJulian}},
      {"july", {MONTH, 7}},
      {"jun", {MONTH, 6}},
      {"june", {MONTH, 6}},
      {"m", {UNITS, kMonth}},
      {"mar", {MONTH, 3}},
      {"march", {MONTH, 3}},
      {"may", {MONTH, 5}},
      {"mm", {UNITS, kMinute}},
      {"mon", {DOW, 1}},
      {"monday", {DOW, 1}},
      {"nov", {MONTH, 11}},
      {"november", {MONTH, 11}},
      {"now", {RESERV, kNow}},
      {"oct", {MONTH, 10}},
      {"october", {MONTH, 10}},
      {"on", {IGNORE_DTF, 0}},
      {"pm", {AMPM, kPm}},
      {"s", {UNITS, kSecond}},
      {"sat", {DOW, 6}},
      {"saturday", {DOW, 6}},
      {"sep", {MONTH, 9}},
      {"sept", {MONTH, 9}},
      {"september", {MONTH, 9}},
      {"sun", {DOW, 0}},
      {"sunday", {DOW, 0}},
      {"t", {ISOTIME, 0}},
      {"thu", {DOW, 4}},
      {"thur", {DOW, 4}},
      {"thurs", {DOW, 4}},
      {"thursday", {DOW, 4}},
      {"today", {RESERV, kToday}},
      {"tomorrow", {RESERV, kTomorrow}},
      {"tue", {DOW, 2}},
      {"tues", {DOW, 2}},
      {"tuesday", {DOW, 2}},
      {"wed", {DOW, 3}},
      {"wednesday", {DOW, 3}},
      {"weds", {DOW, 3}},
      {"y", {UNITS, kYear}},
      {"yesterday", {RESERV, kYesterday}},
  };
  return table;
}

const TokenTable& DeltaTokens() {
  static const TokenTable table = {
      {"@", {IGNORE_DTF, 0}},
      {"ago", {AGO, 0}},
      {"c", {UNITS, kCentury}},
      {"cent", {UNITS, kCentury}},
      {"centuries", {UNITS, kCentury}},
      {"century", {UNITS, kCentury}},
      {"d", {UNITS, kDay}},
      {"day", {UNITS, kDay}},
      {"days", {UNITS, kDay}},
      {"dec", {UNITS, kDecade}},
      {"decade", {UNITS, kDecade}},
      {"decades", {UNITS, kDecade}},
      {"decs", {UNITS, kDecade}},
      {"h", {UNITS, kHour}},
      {"hour", {UNITS, kHour}},
      {"hours", {UNITS, kHour}},
      {"hr", {UNITS, kHour}},
      {"hrs", {UNITS, kHour}},
      {"invalid", {RESERV, kInvalid}},
      {"m", {UNITS, kMinute}},
      {"microsecon", {UNITS, kMicrosec}},
      {"mil", {UNITS, kMillennium}},
      {"millennia", {UNITS, kMillennium}},
      {"millennium", {UNITS, kMillennium}},
      {"millisecon", {UNITS, kMillisec}},
      {"mils", {UNITS, kMillennium}},
      {"min", {UNITS, kMinute}},
      {"mins", {UNITS, kMinute}},
      {"minute", {UNITS, kMinute}},
      {"minutes", {UNITS, kMinute}},
      {"mon", {UNITS, kMonth}},
      {"mons", {UNITS, kMonth}},
      {"month", {UNITS, kMonth}},
      {"months", {UNITS, kMonth}},
      {"ms", {UNITS, kMillisec}},
      {"msec", {UNITS, kMillisec}},
      {"msecond", {UNITS, kMillisec}},
      {"mseconds", {UNITS, kMillisec}},
      {"msecs", {UNITS, kMillisec}},
      {"qtr", {UNITS, kQuarter}},
      {"quarter", {UNITS, kQuarter}},
      {"s", {UNITS, kSecond}},
      {"sec", {UNITS, kSecond}},
      {"second", {UNITS, kSecond}},
      {"seconds", {UNITS, kSecond}},
      {"secs", {UNITS, kSecond}},
      {"timezone", {UNITS, kTz}},
      {"timezone_h", {UNITS, kTzHour}},
      {"timezone_m", {UNITS, kTzMinute}},
      {"us", {UNITS, kMicrosec}},
      {"usec", {UNITS, kMicrosec}},
      {"usecond", {UNITS, kMicrosec}},
      {"useconds", {UNITS, kMicrosec}},
      {"usecs", {UNITS, kMicrosec}},
      {"w", {UNITS, kWeek}},
      {"week", {UNITS, kWeek}},
      {"weeks", {UNITS, kWeek}},
      {"y", {UNITS, kYear}},
      {"year", {UNITS, kYear}},
      {"years", {UNITS, kYear}},
      {"yr", {UNITS, kYear}},
      {"yrs", {UNITS, kYear}},
  };
  return table;
}

// Time zone abbreviations accepted in input (a subset of PostgreSQL's
// "Default" set), as seconds east of UTC.
const std::unordered_map<std::string_view, int64_t>& ZoneAbbrevs() {
  static const std::unordered_map<std::string_view, int64_t> table = {
      {"utc", 0},          {"ut", 0},           {"gmt", 0},          {"z", 0},
      {"zulu", 0},         {"est", -5 * 3600},  {"edt", -4 * 3600},  {"cst", -6 * 3600},
      {"cdt", -5 * 3600},  {"mst", -7 * 3600},  {"mdt", -6 * 3600},  {"pst", -8 * 3600},
      {"pdt", -7 * 3600},  {"akst", -9 * 3600}, {"akdt", -8 * 3600}, {"hst", -10 * 3600},
      {"ast", -4 * 3600},  {"adt", -3 * 3600},  {"nst", -12600},     {"ndt", -9000},
      {"wet", 0},          {"west", 3600},      {"bst", 3600},       {"cet", 3600},
      {"cest", 2 * 3600},  {"met", 3600},       {"mest", 2 * 3600},  {"eet", 2 * 3600},
      {"eest", 3 * 3600},  {"msk", 3 * 3600},   {"ist", 2 * 3600},   {"jst", 9 * 3600},
      {"kst", 9 * 3600},   {"hkt", 8 * 3600},   {"sgt", 8 * 3600},   {"awst", 8 * 3600},
      {"acst", 34200},     {"acdt", 37800},     {"aest", 10 * 3600}, {"aedt", 11 * 3600},
      {"nzst", 12 * 3600}, {"nzdt", 13 * 3600},
  };
  return table;
}

// PostgreSQL compares at most TOKMAXLEN (10) characters of a token.
std::string_view TokenKey(std::string_view s) { return s.substr(0, 10); }

Token LookupToken(const TokenTable& table, std::string_view lower) {
  auto it = table.find(TokenKey(lower));
  return it == table.end() ? Token{UNKNOWN_FIELD, 0} : it->second;
}

Token DecodeSpecial(std::string_view lower) { return LookupToken(DateTokens(), lower); }
Token DecodeUnits(std::string_view lower) { return LookupToken(DeltaTokens(), lower); }

// ---------------------------------------------------------------------------
// ParseDateTime: split the input into typed fields
// ---------------------------------------------------------------------------

enum FieldType { DTK_NUMBER, DTK_STRING, DTK_DATE, DTK_TIME, DTK_TZ, DTK_SPECIAL };

struct Field {
  std::string text;
  FieldType type;
};

constexpr int kMaxDateFields = 25;

int ParseDateTime(std::string_view s, std::vector<Field>* fields) {
  size_t i = 0;
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  while (i < s.size()) {
    char c = s[i];
    if (IsSpace(c)) {
      i++;
      continue;
    }
    if (int(fields->size()) >= kMaxDateFields) return kDtBadFormat;
    Field f{"", DTK_NUMBER};
    if (IsDigit(c)) {
      while (IsDigit(at(i))) f.text += s[i++];
      if (at(i) == ':') {  // time field
        f.type = DTK_TIME;
        while (IsDigit(at(i)) || at(i) == ':' || at(i) == '.') f.text += s[i++];
      } else if (at(i) == '-' || at(i) == '/' || at(i) == '.') {  // date, maybe with text month
        char delim = s[i];
        f.text += s[i++];
        if (IsDigit(at(i))) {
          f.type = delim == '.' ? DTK_NUMBER : DTK_DATE;
          while (IsDigit(at(i))) f.text += s[i++];
          if (at(i) == delim) {  // three fields need matching delimiters
            f.type = DTK_DATE;
            while (IsDigit(at(i)) || at(i) == delim) f.text += s[i++];
          }
        } else {
          f.type = DTK_DATE;
          while (IsAlnum(at(i)) || at(i) == delim) f.text += ToLowerChar(s[i++]);
        }
      }
    } else if (c == '.') {  // leading decimal point: fractional seconds
      f.text += s[i++];
      while (IsDigit(at(i))) f.text += s[i++];
    } else if (IsAlpha(c)) {
      f.type = DTK_STRING;
      while (IsAlpha(at(i))) f.text += ToLowerChar(s[i++]);
      // A date with a text month, or a zone name like America/New_York or
      // Etc/GMT+5, unless the word so far is a known keyword.
      bool is_date = at(i) == '-' || at(i) == '/' || at(i) == '.';
      if (!is_date && (at(i) == '+' || IsDigit(at(i)))) {
        is_date = DecodeSpecial(f.text).type == UNKNOWN_FIELD;
      }
      if (is_date) {
        f.type = DTK_DATE;
        do {
          f.text += ToLowerChar(s[i++]);
        } while (at(i) == '+' || at(i) == '-' || at(i) == '/' || at(i) == '_' || at(i) == '.' ||
                 at(i) == ':' || IsAlnum(at(i)));
      }
    } else if (c == '+' || c == '-') {  // signed number or zone, or a special like -infinity
      f.text += s[i++];
      while (IsSpace(at(i))) i++;
      if (IsDigit(at(i))) {
        f.type = DTK_TZ;
        f.text += s[i++];
        while (IsDigit(at(i)) || at(i) == ':' || at(i) == '.' || at(i) == '-') f.text += s[i++];
      } else if (IsAlpha(at(i))) {
        f.type = DTK_SPECIAL;
        while (IsAlpha(at(i))) f.text += ToLowerChar(s[i++]);
      } else {
        return kDtBadFormat;
      }
    } else if (std::ispunct(static_cast<unsigned char>(c))) {
      i++;  // other punctuation only separates fields
      continue;
    } else {
      return kDtBadFormat;
    }
    fields->push_back(std::move(f));
  }
  return kDtOk;
}

// strtol-like: parses an optionally signed integer prefix; false on overflow.
bool ParseInt(const char* p, const char** end, int64_t max_abs, int64_t* out) {
  const char* q = p;
  bool neg = false;
  if (*q == '+' || *q == '-') neg = *q++ == '-';
  int64_t v = 0;
  const char* digits = q;
  while (IsDigit(*q)) {
    if (v > (max_abs - (*q - '0')) / 10) return false;
    v = v * 10 + (*q++ - '0');
  }
  *end = q == digits ? p : q;
  *out = neg ? -v : v;
  return true;
}

// ".123" -> microseconds, rounded like PostgreSQL (rint of the double).
int ParseFractionalSecond(const char* cp, int64_t* fsec) {
  if (cp[1] == '\0') {  // a bare "." is zero
    *fsec = 0;
    return kDtOk;
  }
  char* end;
  double frac = std::strtod(cp, &end);
  if (*end != '\0') return kDtBadFormat;
  *fsec = int64_t(std::rint(frac * 1000000));
  return kDtOk;
}

struct TimeFields {
  int64_t hour = 0;
  int min = 0;
  int sec = 0;
  int64_t fsec = 0;
};

enum class Range {
  kFull,
  kYear,
  kMonth,
  kYearToMonth,
  kDay,
  kHour,
  kDayToHour,
  kMinute,
  kDayToMinute,
  kHourToMinute,
  kSecond,
  kDayToSecond,
  kHourToSecond,
  kMinuteToSecond
};

// PostgreSQL's DecodeTimeCommon: "hh:mm", "hh:mm:ss[.f]", "mm:ss.f".
int DecodeTimeCommon(const std::string& str, Range range, TimeFields* t) {
  const char* cp;
  int64_t v;
  if (!ParseInt(str.c_str(), &cp, INT64_MAX, &t->hour)) return kDtFieldOverflow;
  if (*cp != ':') return kDtBadFormat;
  if (!ParseInt(cp + 1, &cp, INT_MAX, &v)) return kDtFieldOverflow;
  t->min = int(v);
  t->sec = 0;
  t->fsec = 0;
  auto minutes_seconds = [&] {  // reinterpret hh:mm as mm:ss
    if (t->hour > INT_MAX || t->hour < INT_MIN) return false;
    t->sec = t->min;
    t->min = int(t->hour);
    t->hour = 0;
    return true;
  };
  if (*cp == '\0') {
    if (range == Range::kMinuteToSecond && !minutes_seconds()) return kDtFieldOverflow;
  } else if (*cp == '.') {
    if (int err = ParseFractionalSecond(cp, &t->fsec)) return err;
    if (!minutes_seconds()) return kDtFieldOverflow;
  } else if (*cp == ':') {
    if (!ParseInt(cp + 1, &cp, INT_MAX, &v)) return kDtFieldOverflow;
    t->sec = int(v);
    if (*cp == '.') {
      if (int err = ParseFractionalSecond(cp, &t->fsec)) return err;
    } else if (*cp != '\0') {
      return kDtBadFormat;
    }
  } else {
    return kDtBadFormat;
  }
  if (t->hour < 0 || t->min < 0 || t->min > 59 || t->sec < 0 || t->sec > 60 || t->fsec < 0 ||
      t->fsec > kMicrosPerSecond) {
    return kDtFieldOverflow;
  }
  return kDtOk;
}

bool TimeOverflows(const Tm& tm) {
  if (tm.hour < 0 || tm.hour > 24 || tm.min < 0 || tm.min > 59 || tm.sec < 0 || tm.sec > 60 || tm.fsec < 0 ||
      tm.fsec > kMicrosPerSecond) {
    return true;
  }
  return TimeOfDay(tm) > kMicrosPerDay;
}

// Whether a zone has always had one offset (UTC, Etc/GMT+5), sampled at the
// ends of the supported range and in two seasons of a far-future year.
bool HasConstantOffset(const TimeZone& tz) {
  constexpr int64_t kJan2200 = CivilToDays(2200, 1, 1) * kMicrosPerDay;
  constexpr int64_t kJul2200 = CivilToDays(2200, 7, 1) * kMicrosPerDay;
  int64_t first = tz.OffsetAtUtc(kMinTimestamp);
  return tz.OffsetAtUtc(0) == first && tz.OffsetAtUtc(kJan2200) == first && tz.OffsetAtUtc(kJul2200) == first;
}

// ---------------------------------------------------------------------------
// DecodeDateTime / DecodeTimeOnly
// ---------------------------------------------------------------------------

struct DecodedDateTime {
  Tm tm;
  int special = kNoUnit;          // kEpoch when the input was 'epoch'
  std::optional<int64_t> offset;  // explicit offset, seconds east
  std::optional<TimeZone> zone;   // explicit zone name
  bool time_only = false;         // DecodeDateTime saw a time but no date
};

class DateTimeDecoder {
 public:
  DateTimeDecoder(std::vector<Field> fields, bool time_only, std::string_view type)
      : f_(std::move(fields)), time_only_(time_only), type_(type) {}

  int Decode(DecodedDateTime* out) {
    out_ = out;
    Tm& tm = out->tm;
    for (i_ = 0; i_ < int(f_.size()); i_++) {
      int tmask = 0;
      int err = kDtOk;
      switch (f_[i_].type) {
        case DTK_DATE: err = DateField(&tmask); break;
        case DTK_TIME: err = TimeField(&tmask); break;
        case DTK_TZ: err = TzField(&tmask); break;
        case DTK_NUMBER: err = time_only_ ? TimeOnlyNumberField(&tmask) : NumberField(&tmask); break;
        case DTK_STRING:
        case DTK_SPECIAL: err = StringField(&tmask); break;
      }
      if (err == kIgnore) continue;
      if (err != kDtOk) return err;
      if (tmask & fmask_) return kDtBadFormat;
      fmask_ |= tmask;
    }
    if (int err = ValidateDate()) return err;
    if (mer_ != kNoUnit && tm.hour > 12) return kDtFieldOverflow;
    if (mer_ == kAm && tm.hour == 12) tm.hour = 0;
    if (mer_ == kPm && tm.hour != 12) tm.hour += 12;
    if (TimeOverflows(tm)) return kDtFieldOverflow;
    if (time_only_) {
      // A zone with DST or history needs a date to find its offset.
      bool dated = (fmask_ & kDateMask) == kDateMask;
      if (out->zone && !dated && !HasConstantOffset(*out->zone)) return kDtBadFormat;
      return (fmask_ & kTimeMask) == kTimeMask ? kDtOk : kDtBadFormat;
    }
    if (out->special == kNoUnit && (fmask_ & kDateMask) != kDateMask) {
      if ((fmask_ & kTimeMask) == kTimeMask) out->time_only = true;
      return kDtBadFormat;
    }
    return kDtOk;
  }

 private:
  static constexpr int kIgnore = -1;

  const std::string& Text() const { return f_[i_].text; }

  int DateField(int* tmask) {
    const std::string& s = Text();
    if (time_only_) {
      int n = int(f_.size());
      if (i_ == 0 && n >= 2 && (f_[n - 1].type == DTK_DATE || f_[1].type == DTK_TIME)) {
        return DecodeDate(s, tmask);
      }
      if (IsDigit(s[0])) return kDtBadFormat;  // run-together "hhmmss-zz" is not supported
      return ZoneName(s, tmask);
    }
    // With a month and day already known this is a zone name (America/New_York).
    if (ptype_ != 0 || (fmask_ & (M(MONTH) | M(DAY))) == (M(MONTH) | M(DAY))) {
      if (ptype_ != 0 || IsDigit(s[0])) return kDtBadFormat;
      return ZoneName(s, tmask);
    }
    return DecodeDate(s, tmask);
  }

  int ZoneName(const std::string& s, int* tmask) {
    std::optional<TimeZone> zone = TimeZone::Lookup(s);
    if (!zone) ThrowZoneNotRecognized(s);
    out_->zone = zone;
    *tmask = M(TZ);
    return kDtOk;
  }

  int TimeField(int* tmask) {
    if (ptype_ != 0) {
      if (ptype_ != ISOTIME) return kDtBadFormat;
      ptype_ = 0;
    }
    TimeFields t;
    if (int err = DecodeTimeCommon(Text(), Range::kFull, &t)) return err;
    if (t.hour > INT_MAX) return kDtFieldOverflow;
    Tm& tm = out_->tm;
    tm.hour = t.hour;
    tm.min = t.min;
    tm.sec = t.sec;
    tm.fsec = t.fsec;
    *tmask = kTimeMask;
    if (TimeOverflows(tm)) return kDtFieldOverflow;
    return kDtOk;
  }

  int TzField(int* tmask) {
    int64_t east;
    if (int err = DecodeTimezone(Text(), &east)) return err;
    out_->offset = east;
    *tmask = M(TZ);
    return kDtOk;
  }

  // A number after "T" must be hhmmss; labelled forms (y2001m02, J2451187) are not supported.
  int IsoTimeNumber(int* tmask) {
    if (ptype_ != ISOTIME) return kDtBadFormat;
    ptype_ = 0;
    if (int err = DecodeNumberField(Text(), fmask_ | kDateMask, tmask)) return err;
    return *tmask == kTimeMask ? kDtOk : kDtBadFormat;
  }

  int NumberField(int* tmask) {
    const std::string& s = Text();
    if (ptype_ != 0) return IsoTimeNumber(tmask);
    size_t dot = s.find('.');
    int flen = int(s.size());
    if (dot != std::string::npos && !(fmask_ & kDateMask)) return DecodeDate(s, tmask);
    if (dot != std::string::npos && dot > 2) return DecodeNumberField(s, fmask_, tmask);
    if (flen >= 6 && (!(fmask_ & kDateMask) || !(fmask_ & kTimeMask))) {
      return DecodeNumberField(s, fmask_, tmask);
    }
    return DecodeNumber(s, have_text_month_, fmask_, tmask);
  }

  int TimeOnlyNumberField(int* tmask) {
    const std::string& s = Text();
    if (ptype_ != 0) return IsoTimeNumber(tmask);
    size_t dot = s.find('.');
    if (dot != std::string::npos) {
      int n = int(f_.size());
      if (i_ == 0 && n >= 2 && f_[n - 1].type == DTK_DATE) return DecodeDate(s, tmask);
      if (dot > 2) return DecodeNumberField(s, fmask_ | kDateMask, tmask);
      return kDtBadFormat;
    }
    if (s.size() > 4) return DecodeNumberField(s, fmask_ | kDateMask, tmask);
    return DecodeNumber(s, false, fmask_ | kDateMask, tmask);
  }

  int StringField(int* tmask) {
    const std::string& s = Text();
    auto abbrev = ZoneAbbrevs().find(s);
    if (abbrev != ZoneAbbrevs().end()) {  // zone abbreviations take precedence
      out_->offset = abbrev->second;
      *tmask = M(TZ);
      return kDtOk;
    }
    Token tok = DecodeSpecial(s);
    if (tok.type == IGNORE_DTF) return kIgnore;
    *tmask = M(tok.type);
    Tm& tm = out_->tm;
    switch (tok.type) {
      case RESERV: return Reserved(tok.value, tmask);
      case MONTH:
        // "8 January": a number read as the month was really the day.
        if ((fmask_ & M(MONTH)) && !have_text_month_ && !(fmask_ & M(DAY)) && tm.mon >= 1 && tm.mon <= 31) {
          tm.mday = tm.mon;
          *tmask = M(DAY);
        }
        have_text_month_ = true;
        tm.mon = tok.value;
        return kDtOk;
      case AMPM: mer_ = tok.value; return kDtOk;
      case ADBC: bc_ = tok.value == kBc; return kDtOk;
      case DOW: return kDtOk;
      case UNITS:
        *tmask = 0;
        ptype_ = UNITS;
        return kDtOk;
      case ISOTIME: {
        *tmask = 0;
        if ((fmask_ & kDateMask) != kDateMask && !time_only_) return kDtBadFormat;
        bool next_ok =
            i_ + 1 < int(f_.size()) &&
            (f_[i_ + 1].type == DTK_NUMBER || f_[i_ + 1].type == DTK_TIME || f_[i_ + 1].type == DTK_DATE);
        if (!next_ok) return kDtBadFormat;
        ptype_ = ISOTIME;
        return kDtOk;
      }
      case UNKNOWN_FIELD: {  // maybe an all-alpha zone name (Japan)
        std::optional<TimeZone> zone = f_[i_].type == DTK_STRING ? TimeZone::Lookup(s) : std::nullopt;
        if (!zone) return kDtBadFormat;
        out_->zone = zone;
        *tmask = M(TZ);
        return kDtOk;
      }
      default: return kDtBadFormat;  // DTZMOD ("MET DST") is not supported
    }
  }

  int Reserved(int value, int* tmask) {
    Tm& tm = out_->tm;
    switch (value) {
      case kZulu:  // "allballs": midnight UTC
        *tmask = kTimeMask | M(TZ);
        tm.hour = tm.min = tm.sec = 0;
        tm.fsec = 0;
        out_->offset = 0;
        return kDtOk;
      case kEpoch:
        if (time_only_) return kDtBadFormat;
        out_->special = kEpoch;
        return kDtOk;
      case kInvalid: return kDtBadFormat;
      default: ThrowSpecialNotSupported(Text(), type_);
    }
  }

  // PostgreSQL's DecodeDate: "2024-01-31", "01/31/2024", "jan-31-2024".
  int DecodeDate(const std::string& str, int* tmask) {
    std::vector<std::string> parts;
    size_t p = 0;
    while (p < str.size()) {
      while (p < str.size() && !IsAlnum(str[p])) p++;
      if (p >= str.size()) return kDtBadFormat;  // separator at the end
      size_t b = p;
      if (IsDigit(str[p])) {
        while (p < str.size() && IsDigit(str[p])) p++;
      } else if (IsAlpha(str[p])) {
        while (p < str.size() && IsAlpha(str[p])) p++;
      }
      parts.push_back(str.substr(b, p - b));
      if (p < str.size()) p++;
    }
    int fmask = fmask_;
    *tmask = 0;
    bool text_month = false;
    for (std::string& part : parts) {  // text months first: they are unambiguous
      if (part.empty() || !IsAlpha(part[0])) continue;
      Token tok = DecodeSpecial(Lower(part));
      if (tok.type == IGNORE_DTF) {
        part.clear();
        continue;
      }
      if (tok.type != MONTH || (fmask & M(MONTH))) return kDtBadFormat;
      out_->tm.mon = tok.value;
      text_month = true;
      fmask |= M(MONTH);
      *tmask |= M(MONTH);
      part.clear();
    }
    for (const std::string& part : parts) {
      if (part.empty()) continue;
      int dmask;
      if (int err = DecodeNumber(part, text_month, fmask, &dmask)) return err;
      if (fmask & dmask) return kDtBadFormat;
      fmask |= dmask;
      *tmask |= dmask;
    }
    if ((fmask & ~(M(DOY) | M(TZ))) != kDateMask) return kDtBadFormat;  // nothing but a date
    return kDtOk;
  }

  // PostgreSQL's DecodeNumber: one numeric field, placed by what is known so far.
  int DecodeNumber(const std::string& str, bool text_month, int fmask, int* tmask) {
    Tm& tm = out_->tm;
    *tmask = 0;
    const char* cp;
    int64_t val;
    if (!ParseInt(str.c_str(), &cp, INT_MAX, &val)) return kDtFieldOverflow;
    if (cp == str.c_str()) return kDtBadFormat;
    int flen = int(str.size());
    if (*cp == '.') {
      if (cp - str.c_str() > 2) return DecodeNumberField(str, fmask | kDateMask, tmask);
      if (int err = ParseFractionalSecond(cp, &tm.fsec)) return err;
    } else if (*cp != '\0') {
      return kDtBadFormat;
    }
    switch (fmask & kDateMask) {
      case 0:  // DateOrder MDY: a two-digit first field is the month
        if (flen >= 3) {
          *tmask = M(YEAR);
          tm.year = val;
        } else {
          *tmask = M(MONTH);
          tm.mon = int(val);
        }
        break;
      case M(YEAR):
        *tmask = M(MONTH);
        tm.mon = int(val);
        break;
      case M(MONTH):
        if (text_month && flen >= 3) {
          *tmask = M(YEAR);
          tm.year = val;
        } else {
          *tmask = M(DAY);
          tm.mday = int(val);
        }
        break;
      case M(YEAR) | M(MONTH):
        if (text_month && flen >= 3 && is2digits_) {  // DD-MON-YYYY
          *tmask = M(DAY);
          tm.mday = int(tm.year);
          tm.year = val;
          is2digits_ = false;
        } else {
          *tmask = M(DAY);
          tm.mday = int(val);
        }
        break;
      case M(DAY):
        *tmask = M(MONTH);
        tm.mon = int(val);
        break;
      case M(MONTH) | M(DAY):
        *tmask = M(YEAR);
        tm.year = val;
        break;
      case kDateMask:  // a complete date: this must be a time
        return DecodeNumberField(str, fmask, tmask);
      default: return kDtBadFormat;
    }
    if (*tmask == M(YEAR)) is2digits_ = flen <= 2;
    return kDtOk;
  }

  // PostgreSQL's DecodeNumberField: run-together "yyyymmdd", "hhmmss", "hhmm".
  int DecodeNumberField(std::string str, int fmask, int* tmask) {
    Tm& tm = out_->tm;
    size_t dot = str.find('.');
    if (dot != std::string::npos) {
      tm.fsec =
          dot + 1 == str.size() ? 0 : int64_t(std::rint(std::strtod(str.c_str() + dot, nullptr) * 1000000));
      str.resize(dot);
    } else if ((fmask & kDateMask) != kDateMask && str.size() >= 6) {
      size_t n = str.size();
      *tmask = kDateMask;
      tm.mday = std::atoi(str.substr(n - 2).c_str());
      tm.mon = std::atoi(str.substr(n - 4, 2).c_str());
      tm.year = std::strtoll(str.substr(0, std::min<size_t>(n - 4, 18)).c_str(), nullptr, 10);
      if (n - 4 == 2) is2digits_ = true;
      return kDtOk;
    }
    if ((fmask & kTimeMask) != kTimeMask) {
      if (str.size() == 6) {
        *tmask = kTimeMask;
        tm.sec = std::atoi(str.substr(4, 2).c_str());
        tm.min = std::atoi(str.substr(2, 2).c_str());
        tm.hour = std::atoi(str.substr(0, 2).c_str());
        return kDtOk;
      }
      if (str.size() == 4) {
        *tmask = kTimeMask;
        tm.sec = 0;
        tm.min = std::atoi(str.substr(2, 2).c_str());
        tm.hour = std::atoi(str.substr(0, 2).c_str());
        return kDtOk;
      }
    }
    return kDtBadFormat;
  }

  // PostgreSQL's ValidateDate: BC years, two-digit years, field ranges.
  int ValidateDate() {
    Tm& tm = out_->tm;
    if (fmask_ & M(YEAR)) {
      if (bc_) {
        if (tm.year <= 0) return kDtFieldOverflow;
        tm.year = -(tm.year - 1);  // 1 BC is year 0
      } else if (is2digits_) {
        if (tm.year < 0) return kDtFieldOverflow;
        if (tm.year < 70) {
          tm.year += 2000;
        } else if (tm.year < 100) {
          tm.year += 1900;
        }
      } else if (tm.year <= 0) {
        return kDtFieldOverflow;  // there is no year zero
      }
    }
    if ((fmask_ & M(MONTH)) && (tm.mon < 1 || tm.mon > 12)) return kDtMdFieldOverflow;
    if ((fmask_ & M(DAY)) && (tm.mday < 1 || tm.mday > 31)) return kDtMdFieldOverflow;
    if ((fmask_ & kDateMask) == kDateMask && tm.mday > DaysInMonth(tm.year, tm.mon)) {
      return kDtFieldOverflow;
    }
    return kDtOk;
  }

  std::vector<Field> f_;
  bool time_only_;
  std::string_view type_;
  DecodedDateTime* out_ = nullptr;
  int i_ = 0;
  int fmask_ = 0;
  int ptype_ = 0;
  int mer_ = kNoUnit;
  bool bc_ = false;
  bool is2digits_ = false;
  bool have_text_month_ = false;
};

DecodedDateTime DecodeOrThrow(std::string_view text, bool time_only, std::string_view type) {
  std::vector<Field> fields;
  int err = ParseDateTime(text, &fields);
  DecodedDateTime d;
  if (err == kDtOk) err = DateTimeDecoder(std::move(fields), time_only, type).Decode(&d);
  if (err != kDtOk) ThrowParseError(err, text, type);
  return d;
}

// Local wall-clock microseconds of a decoded timestamp; throws when out of range.
int64_t DecodedLocalMicros(const DecodedDateTime& d, std::string_view text) {
  if (d.special == kEpoch) return 0;
  int64_t r;
  if (!TmToMicros(d.tm, &r) || !IsValidTimestamp(r)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("timestamp out of range: \"{}\"", text));
  }
  return r;
}

// ---------------------------------------------------------------------------
// Output helpers
// ---------------------------------------------------------------------------

// "2024-01-31" (astronomical years <= 0 are printed as BC by the caller).
void AppendDate(std::string* out, const Tm& tm) {
  int64_t year = tm.year > 0 ? tm.year : -(tm.year - 1);
  fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}", year, tm.mon, tm.mday);
}

// Seconds with the fraction trimmed of trailing zeros (PostgreSQL's AppendSeconds).
void AppendSeconds(std::string* out, int sec, int64_t fsec) {
  fmt::format_to(std::back_inserter(*out), "{:02}", sec);
  if (fsec == 0) return;
  std::string frac = fmt::format("{:06}", fsec < 0 ? -fsec : fsec);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  out->push_back('.');
  out->append(frac);
}

void AppendTime(std::string* out, const Tm& tm) {
  fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:", tm.hour, tm.min);
  AppendSeconds(out, tm.sec, tm.fsec);
}

// "+08", "+05:30", "-04:56:02" (PostgreSQL's EncodeTimezone).
void AppendOffset(std::string* out, int64_t east) {
  int64_t a = east < 0 ? -east : east;
  int64_t h = a / 3600, m = a / 60 % 60, s = a % 60;
  out->push_back(east >= 0 ? '+' : '-');
  if (s != 0) {
    fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:{:02}", h, m, s);
  } else if (m != 0) {
    fmt::format_to(std::back_inserter(*out), "{:02}:{:02}", h, m);
  } else {
    fmt::format_to(std::back_inserter(*out), "{:02}", h);
  }
}

// ---------------------------------------------------------------------------
// Intervals: DecodeInterval and DecodeISO8601Interval
// ---------------------------------------------------------------------------

// PostgreSQL's pg_itm_in: fields accumulated while decoding.
struct ItmIn {
  int64_t usec = 0;
  int32_t mday = 0;
  int32_t mon = 0;
  int32_t year = 0;
};

bool AdjustFractMicroseconds(double frac, int64_t scale, ItmIn* itm) {
  if (frac == 0) return true;
  frac *= double(scale);
  int64_t usec = int64_t(frac);
  frac -= double(usec);
  if (frac > 0.5) {
    usec++;
  } else if (frac < -0.5) {
    usec--;
  }
  return !__builtin_add_overflow(itm->usec, usec, &itm->usec);
}

bool AdjustFractDays(double frac, int scale, ItmIn* itm) {
  if (frac == 0) return true;
  frac *= scale;
  int extra_days = int(frac);
  if (__builtin_add_overflow(itm->mday, extra_days, &itm->mday)) return false;
  frac -= extra_days;
  return AdjustFractMicroseconds(frac, kMicrosPerDay, itm);
}

bool AdjustFractYears(double frac, int scale, ItmIn* itm) {
  int extra_months = int(std::rint(frac * scale * 12));
  return !__builtin_add_overflow(itm->mon, extra_months, &itm->mon);
}

bool AdjustMicroseconds(int64_t val, double fval, int64_t scale, ItmIn* itm) {
  int64_t usec;
  if (__builtin_mul_overflow(val, scale, &usec) || __builtin_add_overflow(itm->usec, usec, &itm->usec)) {
    return false;
  }
  return AdjustFractMicroseconds(fval, scale, itm);
}

bool AdjustDays(int64_t val, int scale, ItmIn* itm) {
  int32_t days;
  if (val < INT_MIN || val > INT_MAX) return false;
  return !__builtin_mul_overflow(int32_t(val), scale, &days) &&
         !__builtin_add_overflow(itm->mday, days, &itm->mday);
}

bool AdjustMonths(int64_t val, ItmIn* itm) {
  if (val < INT_MIN || val > INT_MAX) return false;
  return !__builtin_add_overflow(itm->mon, int32_t(val), &itm->mon);
}

bool AdjustYears(int64_t val, int scale, ItmIn* itm) {
  int32_t years;
  if (val < INT_MIN || val > INT_MAX) return false;
  return !__builtin_mul_overflow(int32_t(val), scale, &years) &&
         !__builtin_add_overflow(itm->year, years, &itm->year);
}

// Applies `val` (+ fraction `fval`) of `unit` to the accumulator.
int ApplyIntervalUnit(int unit, int64_t val, double fval, ItmIn* itm, int* tmask) {
  bool ok = true;
  switch (unit) {
    case kMicrosec:
      ok = AdjustMicroseconds(val, fval, 1, itm);
      *tmask = M(MICROSECOND);
      break;
    case kMillisec:
      ok = AdjustMicroseconds(val, fval, 1000, itm);
      *tmask = M(MILLISECOND);
      break;
    case kSecond:
      ok = AdjustMicroseconds(val, fval, kMicrosPerSecond, itm);
      *tmask = fval == 0 ? M(SECOND) : kAllSecsMask;  // a fraction also fills ms and us
      break;
    case kMinute:
      ok = AdjustMicroseconds(val, fval, kMicrosPerMinute, itm);
      *tmask = M(MINUTE);
      break;
    case kHour:
      ok = AdjustMicroseconds(val, fval, kMicrosPerHour, itm);
      *tmask = M(HOUR);
      break;
    case kDay:
      ok = AdjustDays(val, 1, itm) && AdjustFractMicroseconds(fval, kMicrosPerDay, itm);
      *tmask = M(DAY);
      break;
    case kWeek:
      ok = AdjustDays(val, 7, itm) && AdjustFractDays(fval, 7, itm);
      *tmask = M(WEEK);
      break;
    case kMonth:
      ok = AdjustMonths(val, itm) && AdjustFractDays(fval, kDaysPerMonth, itm);
      *tmask = M(MONTH);
      break;
    case kYear:
      ok = AdjustYears(val, 1, itm) && AdjustFractYears(fval, 1, itm);
      *tmask = M(YEAR);
      break;
    case kDecade:
      ok = AdjustYears(val, 10, itm) && AdjustFractYears(fval, 10, itm);
      *tmask = M(DECADE);
      break;
    case kCentury:
      ok = AdjustYears(val, 100, itm) && AdjustFractYears(fval, 100, itm);
      *tmask = M(CENTURY);
      break;
    case kMillennium:
      ok = AdjustYears(val, 1000, itm) && AdjustFractYears(fval, 1000, itm);
      *tmask = M(MILLENNIUM);
      break;
    default: return kDtBadFormat;
  }
  return ok ? kDtOk : kDtFieldOverflow;
}

// The unit of a bare number, from the interval's type modifier.
int DefaultUnitForRange(Range range) {
  switch (range) {
    case Range::kYear: return kYear;
    case Range::kMonth:
    case Range::kYearToMonth: return kMonth;
    case Range::kDay: return kDay;
    case Range::kHour:
    case Range::kDayToHour: return kHour;
    case Range::kMinute:
    case Range::kHourToMinute:
    case Range::kDayToMinute: return kMinute;
    default: return kSecond;
  }
}

int DecodeTimeForInterval(const std::string& str, Range range, ItmIn* itm, int* tmask) {
  TimeFields t;
  if (int err = DecodeTimeCommon(str, range, &t)) return err;
  *tmask = kTimeMask;
  int64_t usec = t.fsec, hours;
  if (__builtin_mul_overflow(t.hour, kMicrosPerHour, &hours) || __builtin_add_overflow(usec, hours, &usec) ||
      __builtin_add_overflow(usec, (int64_t(t.min) * 60 + t.sec) * kMicrosPerSecond, &usec)) {
    return kDtFieldOverflow;
  }
  itm->usec = usec;  // as in PostgreSQL, a time field replaces the microseconds so far
  return kDtOk;
}

// A number field of an interval: "10", "-1.5", "1-2" (years-months).
int DecodeIntervalNumber(const std::string& s, int* type, ItmIn* itm, int* tmask) {
  const char* cp;
  int64_t val;
  if (!ParseInt(s.c_str(), &cp, INT64_MAX, &val)) return kDtFieldOverflow;
  double fval = 0;
  if (*cp == '-') {  // SQL "years-months"
    const char* end;
    int64_t months;
    if (!ParseInt(cp + 1, &end, INT_MAX, &months) || months < 0 || months >= 12) return kDtFieldOverflow;
    if (end == cp + 1 || *end != '\0') return kDtBadFormat;
    *type = kMonth;
    if (s[0] == '-') months = -months;
    if (__builtin_mul_overflow(val, int64_t(12), &val) || __builtin_add_overflow(val, months, &val)) {
      return kDtFieldOverflow;
    }
  } else if (*cp == '.') {
    if (cp[1] != '\0') {
      char* end;
      fval = std::strtod(cp, &end);
      if (*end != '\0') return kDtBadFormat;
    }
    if (s[0] == '-') fval = -fval;
  } else if (*cp != '\0' || cp == s.c_str()) {
    return kDtBadFormat;
  }
  int err = ApplyIntervalUnit(*type, val, fval, itm, tmask);
  if (err == kDtOk && *type == kHour) *type = kDay;  // "1 02" after hours means days
  return err;
}

// PostgreSQL's DecodeInterval: fields are read right to left so that a unit
// applies to the number before it.
int DecodeInterval(std::vector<Field>& f, Range range, ItmIn* itm) {
  bool is_before = false;
  int fmask = 0, type = kNoUnit;
  for (int i = int(f.size()) - 1; i >= 0; i--) {
    int tmask = 0;
    const std::string& s = f[i].text;
    switch (f[i].type) {
      case DTK_TIME:
        if (int err = DecodeTimeForInterval(s, range, itm, &tmask)) return err;
        type = kDay;
        break;
      case DTK_TZ:
        // "+hh:mm[:ss]": a signed time; otherwise a signed number.
        if (s.find(':', 1) != std::string::npos &&
            DecodeTimeForInterval(s.substr(1), range, itm, &tmask) == kDtOk) {
          if (s[0] == '-') itm->usec = -itm->usec;
          type = kDay;
          break;
        }
        [[fallthrough]];
      case DTK_DATE:
      case DTK_NUMBER:
        if (type == kNoUnit) type = DefaultUnitForRange(range);
        if (int err = DecodeIntervalNumber(s, &type, itm, &tmask)) return err;
        break;
      case DTK_STRING:
      case DTK_SPECIAL: {
        Token tok = DecodeUnits(s);
        if (tok.type == IGNORE_DTF) continue;
        if (tok.type == UNITS) {
          type = tok.value;
        } else if (tok.type == AGO) {
          is_before = true;
          type = kNoUnit - 1;  // a number right before "ago" has no unit: error
        } else {
          return kDtBadFormat;
        }
        break;
      }
    }
    if (tmask & fmask) return kDtBadFormat;
    fmask |= tmask;
  }
  if (fmask == 0) return kDtBadFormat;
  if (is_before) {
    if (itm->usec == INT64_MIN || itm->mday == INT_MIN || itm->mon == INT_MIN || itm->year == INT_MIN) {
      return kDtFieldOverflow;
    }
    itm->usec = -itm->usec;
    itm->mday = -itm->mday;
    itm->mon = -itm->mon;
    itm->year = -itm->year;
  }
  return kDtOk;
}

// strtod-based number of ISO 8601 intervals, split into integer and fraction.
int ParseIso8601Number(const char* str, const char** end, int64_t* ipart, double* fpart) {
  if (!(IsDigit(*str) || *str == '-' || *str == '.')) return kDtBadFormat;
  char* e;
  double val = std::strtod(str, &e);
  *end = e;
  if (e == str) return kDtBadFormat;
  if (std::isnan(val) || val < -1.0e15 || val > 1.0e15) return kDtFieldOverflow;
  *ipart = val >= 0 ? int64_t(std::floor(val)) : -int64_t(std::floor(-val));
  *fpart = val - double(*ipart);
  return kDtOk;
}

int Iso8601IntegerWidth(const char* s) {
  if (*s == '-') s++;
  int n = 0;
  while (IsDigit(s[n])) n++;
  return n;
}

// The alternative format "P0001-02-03T04:05:06" after the year field.
int Iso8601AlternativeDate(const char** strp, int64_t val, double fval, char unit, ItmIn* itm,
                           bool* datepart) {
  if (!AdjustYears(val, 1, itm) || !AdjustFractYears(fval, 1, itm)) return kDtFieldOverflow;
  if (unit == '\0') return kDtOk;
  if (unit == 'T') {
    *datepart = false;
    return kDtOk;
  }
  const char* str = *strp;
  if (int err = ParseIso8601Number(str, &str, &val, &fval)) return err;
  if (!AdjustMonths(val, itm) || !AdjustFractDays(fval, kDaysPerMonth, itm)) return kDtFieldOverflow;
  if (*str == '-') {
    str++;
    if (int err = ParseIso8601Number(str, &str, &val, &fval)) return err;
    if (!AdjustDays(val, 1, itm) || !AdjustFractMicroseconds(fval, kMicrosPerDay, itm)) {
      return kDtFieldOverflow;
    }
  }
  if (*str == 'T') {
    *datepart = false;
    str++;
  } else if (*str != '\0') {
    return kDtBadFormat;
  }
  *strp = str;
  return kDtOk;
}

int Iso8601AlternativeTime(const char* str, int64_t val, double fval, char unit, ItmIn* itm) {
  if (!AdjustMicroseconds(val, fval, kMicrosPerHour, itm)) return kDtFieldOverflow;
  if (unit == '\0') return kDtOk;
  if (int err = ParseIso8601Number(str, &str, &val, &fval)) return err;
  if (!AdjustMicroseconds(val, fval, kMicrosPerMinute, itm)) return kDtFieldOverflow;
  if (*str == '\0') return kDtOk;
  if (*str++ != ':') return kDtBadFormat;
  if (int err = ParseIso8601Number(str, &str, &val, &fval)) return err;
  if (!AdjustMicroseconds(val, fval, kMicrosPerSecond, itm)) return kDtFieldOverflow;
  return *str == '\0' ? kDtOk : kDtBadFormat;
}

// PostgreSQL's DecodeISO8601Interval: "P1Y2M3DT4H5M6S", "P0001-02-03T04:05:06".
int DecodeIso8601Interval(const std::string& input, ItmIn* itm) {
  *itm = ItmIn{};
  if (input.size() < 2 || input[0] != 'P') return kDtBadFormat;
  const char* str = input.c_str() + 1;
  bool datepart = true, havefield = false;
  while (*str) {
    if (*str == 'T') {
      datepart = false;
      havefield = false;
      str++;
      continue;
    }
    const char* fieldstart = str;
    int64_t val;
    double fval;
    if (int err = ParseIso8601Number(str, &str, &val, &fval)) return err;
    char unit = *str;
    if (unit != '\0') str++;
    bool ok = true;
    if (datepart) {
      switch (unit) {
        case 'Y': ok = AdjustYears(val, 1, itm) && AdjustFractYears(fval, 1, itm); break;
        case 'M': ok = AdjustMonths(val, itm) && AdjustFractDays(fval, kDaysPerMonth, itm); break;
        case 'W': ok = AdjustDays(val, 7, itm) && AdjustFractDays(fval, 7, itm); break;
        case 'D': ok = AdjustDays(val, 1, itm) && AdjustFractMicroseconds(fval, kMicrosPerDay, itm); break;
        case 'T':
        case '\0':
          if (Iso8601IntegerWidth(fieldstart) == 8 && !havefield) {  // basic format yyyymmdd
            if (!AdjustYears(val / 10000, 1, itm) || !AdjustMonths((val / 100) % 100, itm) ||
                !AdjustDays(val % 100, 1, itm) || !AdjustFractMicroseconds(fval, kMicrosPerDay, itm)) {
              return kDtFieldOverflow;
            }
            if (unit == '\0') return kDtOk;
            datepart = false;
            havefield = false;
            continue;
          }
          [[fallthrough]];
        case '-': {
          if (havefield) return kDtBadFormat;
          if (int err = Iso8601AlternativeDate(&str, val, fval, unit, itm, &datepart)) return err;
          if (*str == '\0') return kDtOk;
          havefield = false;
          continue;
        }
        default: return kDtBadFormat;
      }
    } else {
      switch (unit) {
        case 'H': ok = AdjustMicroseconds(val, fval, kMicrosPerHour, itm); break;
        case 'M': ok = AdjustMicroseconds(val, fval, kMicrosPerMinute, itm); break;
        case 'S': ok = AdjustMicroseconds(val, fval, kMicrosPerSecond, itm); break;
        case '\0':
          if (Iso8601IntegerWidth(fieldstart) == 6 && !havefield) {  // basic format hhmmss
            if (!AdjustMicroseconds(val / 10000, 0, kMicrosPerHour, itm) ||
                !AdjustMicroseconds((val / 100) % 100, 0, kMicrosPerMinute, itm) ||
                !AdjustMicroseconds(val % 100, 0, kMicrosPerSecond, itm) ||
                !AdjustFractMicroseconds(fval, 1, itm)) {
              return kDtFieldOverflow;
            }
            return kDtOk;
          }
          [[fallthrough]];
        case ':':
          if (havefield) return kDtBadFormat;
          return Iso8601AlternativeTime(str, val, fval, unit, itm);
        default: return kDtBadFormat;
      }
    }
    if (!ok) return kDtFieldOverflow;
    havefield = true;
  }
  return kDtOk;
}

std::optional<Range> RangeFromUnit(std::string_view unit) {
  std::string u;
  for (char c : Lower(Trim(unit))) {
    if (IsSpace(c)) {
      if (!u.empty() && u.back() != ' ') u.push_back(' ');
    } else {
      u.push_back(c);
    }
  }
  static const std::unordered_map<std::string_view, Range> kRanges = {
      {"", Range::kFull},
      {"year", Range::kYear},
      {"month", Range::kMonth},
      {"day", Range::kDay},
      {"hour", Range::kHour},
      {"minute", Range::kMinute},
      {"second", Range::kSecond},
      {"year to month", Range::kYearToMonth},
      {"day to hour", Range::kDayToHour},
      {"day to minute", Range::kDayToMinute},
      {"day to second", Range::kDayToSecond},
      {"hour to minute", Range::kHourToMinute},
      {"hour to second", Range::kHourToSecond},
      {"minute to second", Range::kMinuteToSecond},
  };
  auto it = kRanges.find(u);
  if (it == kRanges.end()) return std::nullopt;
  return it->second;
}

// PostgreSQL's AdjustIntervalForTypmod: drops the fields below the qualifier.
void AdjustIntervalForRange(Interval* iv, Range range) {
  switch (range) {
    case Range::kYear:
      iv->months = iv->months / 12 * 12;
      iv->days = 0;
      iv->micros = 0;
      break;
    case Range::kMonth:
    case Range::kYearToMonth:
      iv->days = 0;
      iv->micros = 0;
      break;
    case Range::kDay: iv->micros = 0; break;
    case Range::kHour:
    case Range::kDayToHour: iv->micros = iv->micros / kMicrosPerHour * kMicrosPerHour; break;
    case Range::kMinute:
    case Range::kDayToMinute:
    case Range::kHourToMinute: iv->micros = iv->micros / kMicrosPerMinute * kMicrosPerMinute; break;
    default: break;
  }
}

// PostgreSQL's interval2itm split for output and extract.
struct IntervalParts {
  int64_t year, mon, mday, hour, min, sec, usec;
};

IntervalParts SplitInterval(const Interval& iv) {
  IntervalParts p;
  p.year = iv.months / 12;
  p.mon = iv.months % 12;
  p.mday = iv.days;
  int64_t t = iv.micros;
  p.hour = t / kMicrosPerHour;
  t -= p.hour * kMicrosPerHour;
  p.min = t / kMicrosPerMinute;
  t -= p.min * kMicrosPerMinute;
  p.sec = t / kMicrosPerSecond;
  p.usec = t - p.sec * kMicrosPerSecond;
  return p;
}

Interval PartsToInterval(const IntervalParts& p) {
  int64_t months = p.year * 12 + p.mon;
  if (months > INT_MAX || months < INT_MIN) ThrowIntervalOutOfRange();
  __int128 micros = ((__int128(p.hour) * 60 + p.min) * 60 + p.sec) * kMicrosPerSecond + p.usec;
  if (micros > INT64_MAX || micros < INT64_MIN) ThrowIntervalOutOfRange();
  return Interval{int32_t(months), int32_t(p.mday), int64_t(micros)};
}

void AppendIntervalPart(std::string* out, int64_t value, const char* unit, bool* is_zero, bool* is_before) {
  if (value == 0) return;
  fmt::format_to(std::back_inserter(*out), "{}{}{} {}{}", *is_zero ? "" : " ",
                 *is_before && value > 0 ? "+" : "", value, unit, value != 1 ? "s" : "");
  *is_before = value < 0;  // each non-zero field decides the sign display of the next
  *is_zero = false;
}

// ---------------------------------------------------------------------------
// date_trunc and extract
// ---------------------------------------------------------------------------

[[noreturn]] void ThrowUnitNotRecognized(std::string_view lower, std::string_view type) {
  throw SqlError(sqlstate::kInvalidParameterValue,
                 fmt::format("unit \"{}\" not recognized for type {}", lower, type));
}

[[noreturn]] void ThrowUnitNotSupported(std::string_view lower, std::string_view type) {
  throw SqlError(sqlstate::kFeatureNotSupported,
                 fmt::format("unit \"{}\" not supported for type {}", lower, type));
}

constexpr std::string_view kTimestampType = "timestamp without time zone";
constexpr std::string_view kTimestamptzType = "timestamp with time zone";
constexpr std::string_view kDateType = "date";
constexpr std::string_view kTimeType = "time without time zone";
constexpr std::string_view kIntervalType = "interval";

// extract's field lookup: interval units first, then datetktbl (dow, epoch...).
Token DecodeExtractField(std::string_view lower) {
  Token tok = DecodeUnits(lower);
  if (tok.type == UNKNOWN_FIELD) tok = DecodeSpecial(lower);
  return tok;
}

// ISO 8601 week-numbering year and week of a day.
void IsoWeek(int64_t days, int64_t* iso_year, int* week) {
  int isodow = (DayOfWeek(days) + 6) % 7;  // Monday = 0
  int64_t thursday = days - isodow + 3;
  *iso_year = DaysToCivil(thursday).year;
  *week = int((thursday - CivilToDays(*iso_year, 1, 1)) / 7 + 1);
}

int64_t YearToDisplay(int64_t y) { return y > 0 ? y : y - 1; }  // no year 0: 1 BC is -1

int64_t DecadeOf(int64_t y) { return y >= 0 ? y / 10 : -((8 - (y - 1)) / 10); }
int64_t CenturyOf(int64_t y) { return y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100); }
int64_t MillenniumOf(int64_t y) { return y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000); }

// Date-based fields shared by timestamp, timestamptz and date; false when the
// unit is not one of them.
bool ExtractDateField(int unit, const Tm& tm, double* out) {
  int64_t days = CivilToDays(tm.year, tm.mon, tm.mday);
  int64_t iso_year;
  int week;
  switch (unit) {
    case kDay: *out = tm.mday; return true;
    case kMonth: *out = tm.mon; return true;
    case kQuarter: *out = (tm.mon - 1) / 3 + 1; return true;
    case kWeek:
      IsoWeek(days, &iso_year, &week);
      *out = week;
      return true;
    case kYear: *out = double(YearToDisplay(tm.year)); return true;
    case kDecade: *out = double(DecadeOf(tm.year)); return true;
    case kCentury: *out = double(CenturyOf(tm.year)); return true;
    case kMillennium: *out = double(MillenniumOf(tm.year)); return true;
    case kIsoyear:
      IsoWeek(days, &iso_year, &week);
      *out = double(iso_year <= 0 ? iso_year - 1 : iso_year);
      return true;
    case kDow: *out = DayOfWeek(days); return true;
    case kIsodow: *out = DayOfWeek(days) == 0 ? 7 : DayOfWeek(days); return true;
    case kDoy: *out = double(days - CivilToDays(tm.year, 1, 1) + 1); return true;
    default: return false;
  }
}

bool ExtractTimeField(int unit, const Tm& tm, double* out) {
  int64_t sec_us = tm.sec * kMicrosPerSecond + tm.fsec;
  switch (unit) {
    case kMicrosec: *out = double(sec_us); return true;
    case kMillisec: *out = double(sec_us) / 1000.0; return true;
    case kSecond: *out = double(sec_us) / 1e6; return true;
    case kMinute: *out = tm.min; return true;
    case kHour: *out = double(tm.hour); return true;
    default: return false;
  }
}

// extract() on a local wall-clock time (timestamp, or timestamptz in its zone).
double ExtractLocal(std::string_view field, int64_t local, std::string_view type,
                    const std::optional<int64_t>& offset) {
  std::string lower = Lower(field);
  Token tok = DecodeExtractField(lower);
  Tm tm = MicrosToTm(local);
  double r;
  if (tok.type == UNITS) {
    if (ExtractTimeField(tok.value, tm, &r) || ExtractDateField(tok.value, tm, &r)) return r;
    if (tok.value == kJulian) {
      int64_t julian = CivilToDays(tm.year, tm.mon, tm.mday) + kUnixEpochJulian;
      return double(julian) + double(TimeOfDay(tm)) / double(kMicrosPerDay);
    }
    if (offset) {
      if (tok.value == kTz) return double(*offset);
      if (tok.value == kTzHour) return double(*offset / 3600);
      if (tok.value == kTzMinute) return double(*offset / 60 % 60);
    }
    ThrowUnitNotSupported(lower, type);
  }
  if (tok.type == RESERV) ThrowUnitNotSupported(lower, type);  // epoch is handled by callers
  ThrowUnitNotRecognized(lower, type);
}

bool IsEpochField(std::string_view field) {
  Token tok = DecodeExtractField(Lower(field));
  return tok.type == RESERV && tok.value == kEpoch;
}

// date_trunc on a broken-down local time; `redo_zone` reports whether the
// unit is a day or longer (timestamptz then recomputes the zone offset).
Tm TruncTm(std::string_view unit, Tm tm, std::string_view type, bool* redo_zone) {
  std::string lower = Lower(unit);
  Token tok = DecodeUnits(lower);
  if (tok.type != UNITS) ThrowUnitNotRecognized(lower, type);
  *redo_zone = true;
  switch (tok.value) {
    case kWeek: {
      int64_t days = CivilToDays(tm.year, tm.mon, tm.mday);
      Civil monday = DaysToCivil(days - (DayOfWeek(days) + 6) % 7);
      tm.year = monday.year;
      tm.mon = monday.mon;
      tm.mday = monday.mday;
      tm.hour = tm.min = tm.sec = 0;
      tm.fsec = 0;
      return tm;
    }
    case kMillennium:
      tm.year =
          tm.year > 0 ? (tm.year + 999) / 1000 * 1000 - 999 : -((999 - (tm.year - 1)) / 1000) * 1000 + 1;
      tm.mon = 1;
      break;
    case kCentury:
      tm.year = tm.year > 0 ? (tm.year + 99) / 100 * 100 - 99 : -((99 - (tm.year - 1)) / 100) * 100 + 1;
      tm.mon = 1;
      break;
    case kDecade:
      tm.year = tm.year > 0 ? tm.year / 10 * 10 : -((8 - (tm.year - 1)) / 10) * 10;
      tm.mon = 1;
      break;
    case kYear: tm.mon = 1; break;
    case kQuarter: tm.mon = 3 * ((tm.mon - 1) / 3) + 1; break;
    case kMonth: break;
    case kDay: break;
    case kHour:
    case kMinute:
    case kSecond:
    case kMillisec:
    case kMicrosec: *redo_zone = false; break;
    default: ThrowUnitNotSupported(lower, type);
  }
  int u = tok.value;
  bool ge_month =
      u == kMillennium || u == kCentury || u == kDecade || u == kYear || u == kQuarter || u == kMonth;
  if (ge_month) tm.mday = 1;
  if (ge_month || u == kDay) tm.hour = 0;
  if (ge_month || u == kDay || u == kHour) tm.min = 0;
  if (ge_month || u == kDay || u == kHour || u == kMinute) tm.sec = 0;
  if (u == kMillisec) {
    tm.fsec = tm.fsec / 1000 * 1000;
  } else if (u != kMicrosec) {
    tm.fsec = 0;
  }
  return tm;
}

int64_t AddMonthsToTm(Tm tm, int64_t months) {
  int64_t m = tm.mon - 1 + months;
  tm.year += FloorDiv(m, 12);
  tm.mon = int(FloorMod(m, 12)) + 1;
  tm.mday = std::min(tm.mday, DaysInMonth(tm.year, tm.mon));  // 01-31 + 1 month = 02-29
  return TmToMicrosOrThrow(tm);
}

int64_t CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r) || !IsValidTimestamp(r)) ThrowTimestampOutOfRange();
  return r;
}

int64_t AddDays(int64_t micros, int64_t days) {
  int64_t d;
  if (__builtin_mul_overflow(days, kMicrosPerDay, &d)) ThrowTimestampOutOfRange();
  return CheckedAdd(micros, d);
}

// Rounds like PostgreSQL's TSROUND (to 1e-6 of the unit).
double TsRound(double v) { return std::rint(v * 1000000.0) / 1000000.0; }

// Shared tail of interval_mul and interval_div: cascades fractional months
// and days down to smaller units.
Interval CascadeInterval(double months_f, double days_f, double micros_f) {
  if (std::isnan(months_f) || months_f > INT_MAX || months_f < INT_MIN) ThrowIntervalOutOfRange();
  if (std::isnan(days_f) || days_f > INT_MAX || days_f < INT_MIN) ThrowIntervalOutOfRange();
  Interval r;
  r.months = int32_t(months_f);
  r.days = int32_t(days_f);
  double month_remainder_days = TsRound((months_f - r.months) * kDaysPerMonth);
  double sec_remainder =
      TsRound((days_f - r.days + month_remainder_days - int(month_remainder_days)) * kSecsPerDay);
  if (std::fabs(sec_remainder) >= kSecsPerDay) {
    if (__builtin_add_overflow(r.days, int(sec_remainder / kSecsPerDay), &r.days)) ThrowIntervalOutOfRange();
    sec_remainder -= int(sec_remainder / kSecsPerDay) * kSecsPerDay;
  }
  if (__builtin_add_overflow(r.days, int32_t(month_remainder_days), &r.days)) ThrowIntervalOutOfRange();
  double micros = std::rint(micros_f + sec_remainder * kMicrosPerSecond);
  if (std::isnan(micros) || micros < -9223372036854775808.0 || micros >= 9223372036854775808.0) {
    ThrowIntervalOutOfRange();
  }
  r.micros = int64_t(micros);
  return r;
}

}  // namespace

// ===========================================================================
// Public API
// ===========================================================================

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) { return CivilToDays(y, m, d); }

void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d) {
  Civil c = DaysToCivil(days);
  *y = c.year;
  *m = unsigned(c.mon);
  *d = unsigned(c.mday);
}

__int128 IntervalCompareKey(const Interval& iv) {
  return (__int128(iv.months) * kDaysPerMonth + iv.days) * kMicrosPerDay + iv.micros;
}

int IntervalCompare(const Interval& a, const Interval& b) {
  __int128 ka = IntervalCompareKey(a), kb = IntervalCompareKey(b);
  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

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
  return ZoneOffsetAt(zone_, FloorDiv(utc_micros, kMicrosPerSecond));
}

// As PostgreSQL's DetermineTimeZoneOffset: look at the offsets a day before
// and after; when they differ, a local time valid under only one of them uses
// that one, and one that is valid under both (fall-back overlap) or neither
// (spring-forward gap) takes the later UTC instant, i.e. the smaller offset.
// So 2024-11-03 01:30 New York is 01:30 EST, and 2024-03-10 02:30 is read
// with EST as 07:30 UTC (03:30 EDT).
int64_t TimeZone::LocalToUtc(int64_t local_micros) const {
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

// ---- date / time / timestamp text ----

namespace {

// The canonical ISO forms "YYYY-MM-DD" and "YYYY-MM-DD HH:MM:SS[.f{1,6}]"
// ('T' between date and time too), the text COPY loads are made of:
// parsed without the general decoder. Anything else, or a field out of its
// range, returns false and goes the general way (which gives the errors).
bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  int v = 0;
  for (size_t i = at; i < at + n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

bool ParseIsoDateFast(std::string_view s, int64_t* days) {
  int y, m, d;
  if (s.size() < 10 || s[4] != '-' || s[7] != '-' || !Digits(s, 0, 4, &y) || !Digits(s, 5, 2, &m) ||
      !Digits(s, 8, 2, &d) || y == 0 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m))
    return false;
  *days = CivilToDays(y, m, d);
  return true;
}

bool ParseIsoTimestampFast(std::string_view s, int64_t* micros) {
  int64_t days;
  int h, mi, sec;
  if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' ||
      !ParseIsoDateFast(s.substr(0, 10), &days) || !Digits(s, 11, 2, &h) || !Digits(s, 14, 2, &mi) ||
      !Digits(s, 17, 2, &sec) || h > 23 || mi > 59 || sec > 59)
    return false;
  int64_t fraction = 0;
  if (s.size() > 19) {
    size_t digits = s.size() - 20;
    if (s[19] != '.' || digits < 1 || digits > 6) return false;
    int f;
    if (!Digits(s, 20, digits, &f)) return false;
    fraction = f;
    for (size_t i = digits; i < 6; i++) fraction *= 10;
  }
  *micros = days * kMicrosPerDay + h * kMicrosPerHour + mi * kMicrosPerMinute + sec * kMicrosPerSecond + fraction;
  return true;
}

}  // namespace

int64_t ParseDate(std::string_view text) {
  if (int64_t fast; text.size() == 10 && ParseIsoDateFast(text, &fast)) return fast;
  DecodedDateTime d = DecodeOrThrow(text, false, "date");
  if (d.special == kEpoch) return 0;
  auto out_of_range = [&] {
    return SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("date out of range: \"{}\"", text));
  };
  if (!IsValidJulian(d.tm.year, d.tm.mon)) throw out_of_range();
  int64_t days = CivilToDays(d.tm.year, d.tm.mon, d.tm.mday);
  if (days < kMinDay || days >= kEndDay) throw out_of_range();
  return days;
}

std::string FormatDate(int64_t days) {
  Civil c = DaysToCivil(days);
  Tm tm;
  tm.year = c.year;
  tm.mon = c.mon;
  tm.mday = c.mday;
  std::string out;
  AppendDate(&out, tm);
  if (tm.year <= 0) out += " BC";
  return out;
}

int64_t ParseTime(std::string_view text) {
  DecodedDateTime d = DecodeOrThrow(text, true, "time");
  return TimeOfDay(d.tm);
}

std::string FormatTime(int64_t micros) {
  Tm tm;
  tm.hour = micros / kMicrosPerHour;
  tm.min = int(micros / kMicrosPerMinute % 60);
  tm.sec = int(micros / kMicrosPerSecond % 60);
  tm.fsec = micros % kMicrosPerSecond;
  std::string out;
  AppendTime(&out, tm);
  return out;
}

int64_t ParseTimestamp(std::string_view text) {
  int64_t micros;
  if (ParseIsoTimestampFast(text, &micros)) return micros;
  DecodedDateTime d = DecodeOrThrow(text, false, "timestamp");
  return DecodedLocalMicros(d, text);
}

std::string FormatTimestamp(int64_t micros) {
  Tm tm = MicrosToTm(micros);
  std::string out;
  AppendDate(&out, tm);
  out.push_back(' ');
  AppendTime(&out, tm);
  if (tm.year <= 0) out += " BC";
  return out;
}

int64_t ParseTimestamptz(std::string_view text, const TimeZone& tz) {
  DecodedDateTime d = DecodeOrThrow(text, false, "timestamp with time zone");
  int64_t local = DecodedLocalMicros(d, text);
  if (d.special == kEpoch) return 0;  // 'epoch' is 1970-01-01 00:00 UTC
  int64_t utc;
  if (d.offset) {
    utc = local - *d.offset * kMicrosPerSecond;
  } else if (d.zone) {
    utc = d.zone->LocalToUtc(local);
  } else {
    utc = tz.LocalToUtc(local);
  }
  if (!IsValidTimestamp(utc)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("timestamp out of range: \"{}\"", text));
  }
  return utc;
}

std::string FormatTimestamptz(int64_t utc_micros, const TimeZone& tz) {
  int64_t offset = tz.OffsetAtUtc(utc_micros);
  Tm tm = MicrosToTm(utc_micros + offset * kMicrosPerSecond);
  std::string out;
  AppendDate(&out, tm);
  out.push_back(' ');
  AppendTime(&out, tm);
  AppendOffset(&out, offset);
  if (tm.year <= 0) out += " BC";
  return out;
}

std::string FormatLocalForToTimezone(int64_t utc_micros, const TimeZone& tz) {
  Tm tm = MicrosToTm(tz.UtcToLocal(utc_micros));
  std::string out =
      fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec);
  if (tm.fsec != 0 && tm.fsec % 1000 == 0) {
    fmt::format_to(std::back_inserter(out), ".{:03}", tm.fsec / 1000);
  } else if (tm.fsec != 0) {
    fmt::format_to(std::back_inserter(out), ".{:06}", tm.fsec);
  }
  return out;
}

// ---- interval text ----

Interval ParseInterval(std::string_view text, std::string_view unit) {
  std::optional<Range> range = RangeFromUnit(unit);
  if (!range) {
    throw SqlError(sqlstate::kInvalidParameterValue,
                   fmt::format("invalid INTERVAL type modifier: \"{}\"", unit));
  }
  std::vector<Field> fields;
  ItmIn itm;
  int err = ParseDateTime(text, &fields);
  if (err == kDtOk) err = DecodeInterval(fields, *range, &itm);
  if (err == kDtBadFormat) err = DecodeIso8601Interval(std::string(text), &itm);
  if (err == kDtFieldOverflow) err = kDtIntervalOverflow;
  if (err != kDtOk) ThrowParseError(err, text, "interval");
  int64_t months = int64_t(itm.year) * 12 + itm.mon;
  if (months > INT_MAX || months < INT_MIN) ThrowIntervalOutOfRange();
  Interval iv{int32_t(months), itm.mday, itm.usec};
  AdjustIntervalForRange(&iv, *range);
  return iv;
}

std::string FormatInterval(const Interval& iv) {
  IntervalParts p = SplitInterval(iv);
  bool is_zero = true, is_before = false;
  std::string out;
  AppendIntervalPart(&out, p.year, "year", &is_zero, &is_before);
  AppendIntervalPart(&out, p.mon, "mon", &is_zero, &is_before);
  AppendIntervalPart(&out, p.mday, "day", &is_zero, &is_before);
  if (is_zero || p.hour != 0 || p.min != 0 || p.sec != 0 || p.usec != 0) {
    bool minus = p.hour < 0 || p.min < 0 || p.sec < 0 || p.usec < 0;
    fmt::format_to(std::back_inserter(out), "{}{}{:02}:{:02}:", is_zero ? "" : " ",
                   minus ? "-" : (is_before ? "+" : ""), p.hour < 0 ? -p.hour : p.hour,
                   p.min < 0 ? -p.min : p.min);
    AppendSeconds(&out, int(p.sec < 0 ? -p.sec : p.sec), p.usec);
  }
  return out;
}

// ---- arithmetic ----

int64_t TimestampAddInterval(int64_t micros, const Interval& iv) {
  if (iv.months != 0) micros = AddMonthsToTm(MicrosToTm(micros), iv.months);
  if (iv.days != 0) micros = AddDays(micros, iv.days);
  return CheckedAdd(micros, iv.micros);
}

// Month and day steps move the local wall-clock time in `tz` (so a day is 23
// or 25 hours across DST changes); the time part moves the instant.
int64_t TimestamptzAddInterval(int64_t utc_micros, const Interval& iv, const TimeZone& tz) {
  if (iv.months != 0) {
    utc_micros = tz.LocalToUtc(AddMonthsToTm(MicrosToTm(tz.UtcToLocal(utc_micros)), iv.months));
  }
  if (iv.days != 0) utc_micros = tz.LocalToUtc(AddDays(tz.UtcToLocal(utc_micros), iv.days));
  return CheckedAdd(utc_micros, iv.micros);
}

Interval IntervalAdd(const Interval& a, const Interval& b) {
  Interval r;
  if (__builtin_add_overflow(a.months, b.months, &r.months) ||
      __builtin_add_overflow(a.days, b.days, &r.days) ||
      __builtin_add_overflow(a.micros, b.micros, &r.micros)) {
    ThrowIntervalOutOfRange();
  }
  return r;
}

Interval IntervalNeg(const Interval& a) {
  if (a.months == INT32_MIN || a.days == INT32_MIN || a.micros == INT64_MIN) ThrowIntervalOutOfRange();
  return Interval{-a.months, -a.days, -a.micros};
}

Interval IntervalMulDouble(const Interval& a, double f) {
  return CascadeInterval(a.months * f, a.days * f, double(a.micros) * f);
}

Interval IntervalDivDouble(const Interval& a, double f) {
  if (f == 0.0) throw SqlError(sqlstate::kDivisionByZero, "division by zero");
  return CascadeInterval(a.months / f, a.days / f, double(a.micros) / f);
}

Interval TimestampDiff(int64_t a, int64_t b) {
  int64_t diff;
  if (__builtin_sub_overflow(a, b, &diff)) ThrowIntervalOutOfRange();
  // justify_hours: whole days out of the time, both with the same sign.
  Interval r;
  r.days = int32_t(diff / kMicrosPerDay);
  r.micros = diff % kMicrosPerDay;
  return r;
}

// ---- date_trunc ----

int64_t TruncTimestamp(std::string_view unit, int64_t micros) {
  bool redo_zone;
  return TmToMicrosOrThrow(TruncTm(unit, MicrosToTm(micros), kTimestampType, &redo_zone));
}

int64_t TruncTimestamptz(std::string_view unit, int64_t utc_micros, const TimeZone& tz) {
  int64_t offset = tz.OffsetAtUtc(utc_micros);
  bool redo_zone;
  Tm tm = TruncTm(unit, MicrosToTm(utc_micros + offset * kMicrosPerSecond), kTimestamptzType, &redo_zone);
  int64_t local = TmToMicrosOrThrow(tm);
  // Truncating to a day or more finds the offset anew; finer units keep it.
  int64_t r = redo_zone ? tz.LocalToUtc(local) : local - offset * kMicrosPerSecond;
  if (!IsValidTimestamp(r)) ThrowTimestampOutOfRange();
  return r;
}

Interval TruncInterval(std::string_view unit, const Interval& iv) {
  std::string lower = Lower(unit);
  Token tok = DecodeUnits(lower);
  if (tok.type != UNITS) ThrowUnitNotRecognized(lower, kIntervalType);
  IntervalParts p = SplitInterval(iv);
  int u = tok.value;
  switch (u) {
    case kMillennium: p.year = p.year / 1000 * 1000; break;
    case kCentury: p.year = p.year / 100 * 100; break;
    case kDecade: p.year = p.year / 10 * 10; break;
    case kYear:
    case kQuarter:
    case kMonth:
    case kDay:
    case kHour:
    case kMinute:
    case kSecond:
    case kMillisec:
    case kMicrosec: break;
    default: {
      SqlError e(sqlstate::kFeatureNotSupported,
                 fmt::format("unit \"{}\" not supported for type interval", lower));
      if (u == kWeek) e.WithDetail("Months usually have fractional weeks.");
      throw e;
    }
  }
  bool ge_year = u == kMillennium || u == kCentury || u == kDecade || u == kYear;
  if (ge_year) p.mon = 0;
  if (u == kQuarter) p.mon = 3 * (p.mon / 3);
  bool ge_month = ge_year || u == kQuarter || u == kMonth;
  if (ge_month) p.mday = 0;
  if (ge_month || u == kDay) p.hour = 0;
  if (ge_month || u == kDay || u == kHour) p.min = 0;
  if (ge_month || u == kDay || u == kHour || u == kMinute) p.sec = 0;
  if (u == kMillisec) {
    p.usec = p.usec / 1000 * 1000;
  } else if (u != kMicrosec) {
    p.usec = 0;
  }
  return PartsToInterval(p);
}

// ---- extract ----

double ExtractFromTimestamp(std::string_view field, int64_t micros) {
  if (IsEpochField(field)) return double(micros) / 1e6;
  return ExtractLocal(field, micros, kTimestampType, std::nullopt);
}

double ExtractFromTimestamptz(std::string_view field, int64_t utc_micros, const TimeZone& tz) {
  if (IsEpochField(field)) return double(utc_micros) / 1e6;
  int64_t offset = tz.OffsetAtUtc(utc_micros);
  return ExtractLocal(field, utc_micros + offset * kMicrosPerSecond, kTimestamptzType, offset);
}

double ExtractFromDate(std::string_view field, int64_t days) {
  std::string lower = Lower(field);
  Token tok = DecodeExtractField(lower);
  if (tok.type == RESERV && tok.value == kEpoch) return double(days * kSecsPerDay);
  if (tok.type == UNITS) {
    Civil c = DaysToCivil(days);
    Tm tm;
    tm.year = c.year;
    tm.mon = c.mon;
    tm.mday = c.mday;
    double r;
    if (ExtractDateField(tok.value, tm, &r)) return r;
    if (tok.value == kJulian) return double(days + kUnixEpochJulian);
    ThrowUnitNotSupported(lower, kDateType);
  }
  if (tok.type == RESERV) ThrowUnitNotSupported(lower, kDateType);
  ThrowUnitNotRecognized(lower, kDateType);
}

double ExtractFromTime(std::string_view field, int64_t micros) {
  std::string lower = Lower(field);
  Token tok = DecodeExtractField(lower);
  if (tok.type == RESERV && tok.value == kEpoch) return double(micros) / 1e6;
  if (tok.type == UNITS) {
    Tm tm;
    tm.hour = micros / kMicrosPerHour;
    tm.min = int(micros / kMicrosPerMinute % 60);
    tm.sec = int(micros / kMicrosPerSecond % 60);
    tm.fsec = micros % kMicrosPerSecond;
    double r;
    if (ExtractTimeField(tok.value, tm, &r)) return r;
    ThrowUnitNotSupported(lower, kTimeType);
  }
  ThrowUnitNotRecognized(lower, kTimeType);
}

double ExtractFromInterval(std::string_view field, const Interval& iv) {
  std::string lower = Lower(field);
  Token tok = DecodeExtractField(lower);
  if (tok.type == RESERV && tok.value == kEpoch) {
    return double(iv.micros) / 1e6 + (365.25 * kSecsPerDay) * (iv.months / 12) +
           (double(kDaysPerMonth) * kSecsPerDay) * (iv.months % 12) + double(kSecsPerDay) * iv.days;
  }
  if (tok.type != UNITS) ThrowUnitNotRecognized(lower, kIntervalType);
  IntervalParts p = SplitInterval(iv);
  int64_t sec_us = p.sec * kMicrosPerSecond + p.usec;
  switch (tok.value) {
    case kMicrosec: return double(sec_us);
    case kMillisec: return double(sec_us) / 1000.0;
    case kSecond: return double(sec_us) / 1e6;
    case kMinute: return double(p.min);
    case kHour: return double(p.hour);
    case kDay: return double(p.mday);
    case kMonth: return double(p.mon);
    case kQuarter: return double(p.mon / 3 + 1);
    case kYear: return double(p.year);
    case kDecade: return double(p.year / 10);
    case kCentury: return double(p.year / 100);
    case kMillennium: return double(p.year / 1000);
    default: ThrowUnitNotSupported(lower, kIntervalType);
  }
}

}  // namespace freshet
