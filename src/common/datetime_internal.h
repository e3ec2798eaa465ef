// Internal to the date/time code (datetime.cc, time_zone.cc,
// datetime_parse.cc, interval.cc, datetime_fields.cc): the calendar
// arithmetic, error reporting, token tables and field types they share,
// ported from PostgreSQL's datetime.c (names follow the originals).
#pragma once

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/datetime.h"
#include "common/error.h"

namespace date {
class time_zone;
}  // namespace date

namespace freshet::datetime_detail {

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
inline bool IsValidJulian(int64_t y, int m) {
  return (y > -4713 || (y == -4713 && m >= 11)) && (y < 5874898 || (y == 5874898 && m < 6));
}

inline bool IsValidTimestamp(int64_t t) { return t >= kMinTimestamp && t < kEndTimestamp; }

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

inline Tm MicrosToTm(int64_t micros) {
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

inline int64_t TimeOfDay(const Tm& tm) {
  return ((tm.hour * 60 + tm.min) * 60 + tm.sec) * kMicrosPerSecond + tm.fsec;
}

// Like PostgreSQL's tm2timestamp without the zone: false when out of range.
inline bool TmToMicros(const Tm& tm, int64_t* out) {
  if (!IsValidJulian(tm.year, tm.mon)) return false;
  int64_t days = CivilToDays(tm.year, tm.mon, tm.mday);
  int64_t r;
  if (__builtin_mul_overflow(days, kMicrosPerDay, &r) || __builtin_add_overflow(r, TimeOfDay(tm), &r)) {
    return false;
  }
  *out = r;
  return true;
}

[[noreturn]] inline void ThrowTimestampOutOfRange() {
  throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
}

[[noreturn]] inline void ThrowIntervalOutOfRange() {
  throw SqlError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
}

inline int64_t TmToMicrosOrThrow(const Tm& tm) {
  int64_t r;
  if (!TmToMicros(tm, &r) || !IsValidTimestamp(r)) ThrowTimestampOutOfRange();
  return r;
}

inline std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));  // ASCII keywords
  return r;
}

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
inline bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
inline bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

inline char ToLowerChar(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

inline std::string_view Trim(std::string_view s) {
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

[[noreturn]] inline void ThrowParseError(int err, std::string_view text, std::string_view type) {
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

[[noreturn]] inline void ThrowZoneNotRecognized(std::string_view name) {
  throw SqlError(sqlstate::kInvalidParameterValue, fmt::format("time zone \"{}\" not recognized", name));
}

// Special values PostgreSQL accepts but our int64 representations cannot hold
// (infinity) or that depend on the clock (now, today...).
[[noreturn]] inline void ThrowSpecialNotSupported(std::string_view text, std::string_view type) {
  throw SqlError(sqlstate::kFeatureNotSupported, fmt::format("{} value \"{}\" is not supported", type, text));
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

// ---------------------------------------------------------------------------
// ParseDateTime: split the input into typed fields
// ---------------------------------------------------------------------------

enum FieldType { DTK_NUMBER, DTK_STRING, DTK_DATE, DTK_TIME, DTK_TZ, DTK_SPECIAL };


struct Field {
  std::string text;
  FieldType type;
};


constexpr int kMaxDateFields = 25;


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

// ---------------------------------------------------------------------------
// DecodeDateTime / DecodeTimeOnly
// ---------------------------------------------------------------------------

struct DecodedDateTime {
  Tm tm;
  int special = kNoUnit;          // kEpoch, kLate, kEarly: 'epoch', 'infinity', '-infinity'
  std::optional<int64_t> offset;  // explicit offset, seconds east
  std::optional<TimeZone> zone;   // explicit zone name
  bool time_only = false;         // DecodeDateTime saw a time but no date
};

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


// PostgreSQL's interval2itm split for output and extract.
struct IntervalParts {
  int64_t year, mon, mday, hour, min, sec, usec;
};


constexpr std::string_view kTimestampType = "timestamp without time zone";

constexpr std::string_view kTimestamptzType = "timestamp with time zone";

constexpr std::string_view kDateType = "date";

constexpr std::string_view kTimeType = "time without time zone";

constexpr std::string_view kIntervalType = "interval";

// ---------------------------------------------------------------------------
// Output helpers
// ---------------------------------------------------------------------------

// "2024-01-31" (astronomical years <= 0 are printed as BC by the caller).
inline void AppendDate(std::string* out, const Tm& tm) {
  int64_t year = tm.year > 0 ? tm.year : -(tm.year - 1);
  fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}", year, tm.mon, tm.mday);
}

// Seconds with the fraction trimmed of trailing zeros (PostgreSQL's
// AppendSeconds): `sec` as given, padded to two digits with `fill`; the
// fraction's sign is dropped.
inline void AppendSeconds(std::string* out, int64_t sec, int64_t fsec, bool fill = true) {
  if (fill) fmt::format_to(std::back_inserter(*out), "{:02}", sec);
  else fmt::format_to(std::back_inserter(*out), "{}", sec);
  if (fsec == 0) return;
  std::string frac = fmt::format("{:06}", fsec < 0 ? -fsec : fsec);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  out->push_back('.');
  out->append(frac);
}

inline void AppendTime(std::string* out, const Tm& tm) {
  fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:", tm.hour, tm.min);
  AppendSeconds(out, tm.sec, tm.fsec);
}

// "+08", "+05:30", "-04:56:02" (PostgreSQL's EncodeTimezone).
inline void AppendOffset(std::string* out, int64_t east) {
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


// ---- Functions of the other files ----

int DecodeTimezone(std::string_view str, int64_t* east);
const TokenTable& DateTokens();
const TokenTable& DeltaTokens();
const std::unordered_map<std::string_view, int64_t>& ZoneAbbrevs();
std::string_view TokenKey(std::string_view s);
Token LookupToken(const TokenTable& table, std::string_view lower);
Token DecodeSpecial(std::string_view lower);
Token DecodeUnits(std::string_view lower);
int ParseDateTime(std::string_view s, std::vector<Field>* fields);
bool ParseInt(const char* p, const char** end, int64_t max_abs, int64_t* out);
int ParseFractionalSecond(const char* cp, int64_t* fsec);
int DecodeTimeCommon(const std::string& str, Range range, TimeFields* t);
bool TimeOverflows(const Tm& tm);
bool HasConstantOffset(const TimeZone& tz);
DecodedDateTime DecodeOrThrow(std::string_view text, bool time_only, std::string_view type,
                              const DatetimeClock* clock = nullptr);
int64_t DecodedLocalMicros(const DecodedDateTime& d, std::string_view text);
bool AdjustFractMicroseconds(double frac, int64_t scale, ItmIn* itm);
bool AdjustFractDays(double frac, int scale, ItmIn* itm);
bool AdjustFractYears(double frac, int scale, ItmIn* itm);
bool AdjustMicroseconds(int64_t val, double fval, int64_t scale, ItmIn* itm);
bool AdjustDays(int64_t val, int scale, ItmIn* itm);
bool AdjustMonths(int64_t val, ItmIn* itm);
bool AdjustYears(int64_t val, int scale, ItmIn* itm);
int ApplyIntervalUnit(int unit, int64_t val, double fval, ItmIn* itm, int* tmask);
int DefaultUnitForRange(Range range);
int DecodeTimeForInterval(const std::string& str, Range range, ItmIn* itm, int* tmask);
int DecodeIntervalNumber(const std::string& s, int* type, ItmIn* itm, int* tmask);
int DecodeInterval(std::vector<Field>& f, Range range, ItmIn* itm);
int ParseIso8601Number(const char* str, const char** end, int64_t* ipart, double* fpart);
int Iso8601IntegerWidth(const char* s);
int Iso8601AlternativeDate(const char** strp, int64_t val, double fval, char unit, ItmIn* itm, bool* datepart);
int Iso8601AlternativeTime(const char* str, int64_t val, double fval, char unit, ItmIn* itm);
int DecodeIso8601Interval(const std::string& input, ItmIn* itm);
std::optional<Range> RangeFromUnit(std::string_view unit);
void AdjustIntervalForRange(Interval* iv, Range range);
IntervalParts SplitInterval(const Interval& iv);
Interval PartsToInterval(const IntervalParts& p);
void AppendIntervalPart(std::string* out, int64_t value, const char* unit, bool* is_zero, bool* is_before);
[[noreturn]] void ThrowUnitNotRecognized(std::string_view lower, std::string_view type);
[[noreturn]] void ThrowUnitNotSupported(std::string_view lower, std::string_view type);
Token DecodeExtractField(std::string_view lower);
void IsoWeek(int64_t days, int64_t* iso_year, int* week);
int64_t YearToDisplay(int64_t y);
int64_t DecadeOf(int64_t y);
int64_t CenturyOf(int64_t y);
int64_t MillenniumOf(int64_t y);
bool ExtractDateField(int unit, const Tm& tm, double* out);
bool ExtractTimeField(int unit, const Tm& tm, double* out);
double ExtractLocal(std::string_view field, int64_t local, std::string_view type, const std::optional<int64_t>& offset);
bool IsEpochField(std::string_view field);
Tm TruncTm(std::string_view unit, Tm tm, std::string_view type, bool* redo_zone);
int64_t AddMonthsToTm(Tm tm, int64_t months);
int64_t CheckedAdd(int64_t a, int64_t b);
int64_t AddDays(int64_t micros, int64_t days);
double TsRound(double v);
Interval CascadeInterval(double months_f, double days_f, double micros_f);

}  // namespace freshet::datetime_detail
