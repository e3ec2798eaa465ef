// Dates, times, timestamps, intervals and time zones, with PostgreSQL's text
// formats and semantics (DateStyle ISO, IntervalStyle postgres).
//
// Representations (see types.h):
//   date        int64 days since 1970-01-01 (proleptic Gregorian)
//   time        int64 microseconds since midnight, 0 .. 86'400'000'000
//   timestamp   int64 microseconds since 1970-01-01 00:00:00 (no zone)
//   timestamptz int64 microseconds since 1970-01-01 00:00:00 UTC
//   interval    Interval{months, days, micros}, compared like PostgreSQL
//               (30-day months, 24-hour days)
//
// 'infinity' and '-infinity' (PostgreSQL's DT_NOEND / DT_NOBEGIN) are the
// extremes of the int64 representation, for dates and timestamps alike, so
// they sort after and before every finite value with no special case; every
// finite value lies far inside (IsFiniteDatetime). Functions that cannot
// give a finite answer for them follow PostgreSQL 15: arithmetic keeps them,
// subtraction refuses them (22008), casts carry them across types.
//
// Parse functions throw SqlError 22007 (invalid input syntax for type X: "...")
// or 22008 (out of range). All functions are thread-safe.
#pragma once

#include <cstdint>
#include <climits>
#include <optional>
#include <string>
#include <string_view>

namespace date { class time_zone; }

namespace freshet {

inline constexpr int64_t kMicrosPerMilli = 1000;
inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

inline constexpr int64_t kDatetimeInfinity = INT64_MAX;
inline constexpr int64_t kDatetimeMinusInfinity = INT64_MIN;
inline constexpr bool IsFiniteDatetime(int64_t v) { return v != kDatetimeInfinity && v != kDatetimeMinusInfinity; }

struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
};

// Total ordering key of an interval, as PostgreSQL compares them
// (months * 30 days + days * 24 hours + micros), in microseconds (int128).
__int128 IntervalCompareKey(const Interval& iv);
int IntervalCompare(const Interval& a, const Interval& b);

// A time zone: an IANA name (via Howard Hinnant's date/tz over the system
// tzdata), a fixed offset ("+08:00", "-5", "UTC"). Cheap to copy.
class TimeZone {
 public:
  TimeZone() = default;  // UTC
  // Accepts IANA names (case-insensitive lookup where unambiguous), "UTC",
  // "GMT", "Z", fixed offsets "+08", "+08:00", "-05:30", "+0800".
  // Returns nullopt when unknown.
  static std::optional<TimeZone> Lookup(std::string_view name);
  // The machine's zone ($TZ, else /etc/localtime), falling back to UTC.
  static TimeZone System();

  // Offset from UTC in seconds at the given UTC instant (east positive).
  int64_t OffsetAtUtc(int64_t utc_micros) const;
  // Converts a local wall-clock time in this zone to UTC. For a gap or an
  // overlap, chooses like PostgreSQL: the later UTC instant (the offset in
  // force before a spring-forward gap, the one after a fall-back).
  int64_t LocalToUtc(int64_t local_micros) const;
  // Both keep infinities as they are.
  int64_t UtcToLocal(int64_t utc_micros) const {
    if (!IsFiniteDatetime(utc_micros)) return utc_micros;
    return utc_micros + OffsetAtUtc(utc_micros) * kMicrosPerSecond;
  }
  const std::string& name() const { return name_; }

 private:
  std::string name_ = "UTC";
  const date::time_zone* zone_ = nullptr;  // null: fixed offset
  int64_t fixed_offset_seconds_ = 0;
};

// The clock of the inputs 'now', 'today', 'tomorrow' and 'yesterday': the
// statement's time and the session's zone (PostgreSQL reads the
// transaction's start). Parse functions given none refuse them (0A000),
// so that they stay pure.
struct DatetimeClock {
  int64_t now_utc_micros = 0;
  const TimeZone* zone = nullptr;
};

// 'YYYY-MM-DD', 'YYYYMMDD', 'Jan 31, 2024', '01/31/2024' (MDY), 'epoch',
// 'infinity', '-infinity', 'today' & co. (with a clock).
int64_t ParseDate(std::string_view text, const DatetimeClock* clock = nullptr);
std::string FormatDate(int64_t days);  // '2024-01-31', '0044-03-15 BC'

// 'HH:MM[:SS[.ffffff]]'; 24:00:00 allowed; 'now' (with a clock).
int64_t ParseTime(std::string_view text, const DatetimeClock* clock = nullptr);
std::string FormatTime(int64_t micros);  // '13:45:00', '13:45:00.5'

// 'YYYY-MM-DD[ T]HH:MM[:SS[.ffffff]]' or a bare date; a trailing zone is
// ignored; 'now', 'today 10:00' & co. (with a clock).
int64_t ParseTimestamp(std::string_view text, const DatetimeClock* clock = nullptr);
std::string FormatTimestamp(int64_t micros);  // '2024-01-31 13:45:00.123'

// timestamp(7..9) (TypeId::kTimestampNs): int64 nanoseconds since
// 1970-01-01 00:00:00, every value of the int64 a timestamp (GreptimeDB's
// range, 1677-09-21 00:12:43.145224192 .. 2262-04-11 23:47:16.854775807),
// no infinity. Anything outside is 22008 "timestamp out of range", never a
// wrap-around.
inline constexpr int64_t kNanosPerMicro = 1000;
inline constexpr int64_t kNanosPerSecond = 1'000'000'000;
// Every form ParseTimestamp takes, with up to nine fractional digits of
// the second ('2024-01-31 13:45:00.123456789'; digits past the ninth round).
int64_t ParseTimestampNanos(std::string_view text, const DatetimeClock* clock = nullptr);
std::string FormatTimestampNanos(int64_t nanos);  // '2024-01-31 13:45:00.123456789'
// timestamp -> timestamp(9): 22008 outside the range (infinity included).
int64_t TimestampMicrosToNanos(int64_t micros);
// timestamp(9) -> timestamp: rounded to the microsecond as PostgreSQL
// rounds a timestamp to fewer digits (half away from zero, counted from
// its epoch, 2000-01-01: half a microsecond in 1999 rounds down).
int64_t TimestampNanosToMicros(int64_t nanos);
// A timestamp rounded to a multiple of `unit` (a power of ten of its own
// unit) as PostgreSQL's AdjustTimestampForTypmod rounds it (see above).
// Infinities stay; `nanos` values that round past the range throw 22008.
int64_t RoundTimestamp(int64_t v, int64_t unit, bool nanos);

// As ParseTimestamp, but a trailing zone ('Z', '+08', '+08:00', 'UTC',
// ' America/New_York') is honoured; without one the text is local time in `tz`.
int64_t ParseTimestamptz(std::string_view text, const TimeZone& tz, const DatetimeClock* clock = nullptr);
// '2024-01-31 13:45:00+08', '... +05:30' for non-hour offsets.
std::string FormatTimestamptz(int64_t utc_micros, const TimeZone& tz);

// PostgreSQL interval input: '1 day', '1 year 2 mons 3 days 04:05:06.5',
// '-1 hours', '2 weeks', '1 millisecond', '01:02:03', '1 day 01:00', '@ 1 hour ago',
// ISO 8601 'P1Y2M3DT4H5M6S', and a bare number (seconds unless `unit` says otherwise).
// `unit` carries the trailing SQL qualifier of INTERVAL '10' SECOND / MINUTE /
// HOUR / DAY / MONTH / YEAR ("" when absent): a bare number is in that unit.
Interval ParseInterval(std::string_view text, std::string_view unit = "");
// IntervalStyle: how intervals print (PostgreSQL's EncodeInterval).
//   postgres          '1 year 2 mons 3 days 04:05:06.5', '-1 days +02:00:00', '00:00:00'
//   postgres_verbose  '@ 1 year 2 mons 3 days 4 hours 5 mins 6.5 secs', '@ 1 day ago'
//   sql_standard      '1-2', '3 4:05:06.5', '+1-2 +3 +4:05:06.5' (mixed), '0'
//   iso_8601          'P1Y2M3DT4H5M6.5S', 'PT0S'
enum class IntervalStyle : uint8_t { kPostgres, kPostgresVerbose, kSqlStandard, kIso8601 };
// The style a setting's value names (case-insensitive); nullopt for none.
std::optional<IntervalStyle> ParseIntervalStyle(std::string_view name);
std::string FormatInterval(const Interval& iv, IntervalStyle style = IntervalStyle::kPostgres);

// Arithmetic. Month steps clamp the day to the month's end like PostgreSQL
// (2024-01-31 + 1 month = 2024-02-29). Throws 22008 on overflow.
int64_t TimestampAddInterval(int64_t micros, const Interval& iv);
// timestamp(9) + interval: the calendar steps on the microseconds, the
// nanoseconds past them carried over; 22008 outside the range.
int64_t TimestampNanosAddInterval(int64_t nanos, const Interval& iv);
int64_t TimestamptzAddInterval(int64_t utc_micros, const Interval& iv, const TimeZone& tz);
Interval IntervalAdd(const Interval& a, const Interval& b);
Interval IntervalNeg(const Interval& a);
Interval IntervalMulDouble(const Interval& a, double f);  // PostgreSQL's interval_mul
Interval IntervalDivDouble(const Interval& a, double f);  // 22012 on zero
// timestamp - timestamp: days and micros, like PostgreSQL (justify_hours).
Interval TimestampDiff(int64_t a, int64_t b);

// date_trunc('microseconds'|'milliseconds'|'second'|'minute'|'hour'|'day'|
// 'week'|'month'|'quarter'|'year'|'decade'|'century'|'millennium', ts).
// Throws 22023 "unit \"x\" not recognized for type ..." otherwise.
int64_t TruncTimestamp(std::string_view unit, int64_t micros);
int64_t TruncTimestamptz(std::string_view unit, int64_t utc_micros, const TimeZone& tz);
Interval TruncInterval(std::string_view unit, const Interval& iv);

// extract(field FROM x) / date_part: fields year, month, day, hour, minute,
// second (with fraction), millisecond(s), microsecond(s), epoch, dow, isodow,
// doy, week, quarter, decade, century, millennium, isoyear, julian, timezone.
// Returned as double; the caller converts to numeric as PostgreSQL 14+ does.
double ExtractFromTimestamp(std::string_view field, int64_t micros);
double ExtractFromTimestamptz(std::string_view field, int64_t utc_micros, const TimeZone& tz);
double ExtractFromDate(std::string_view field, int64_t days);
double ExtractFromTime(std::string_view field, int64_t micros);
double ExtractFromInterval(std::string_view field, const Interval& iv);
// extract() of 'infinity' or '-infinity' (PostgreSQL 15's
// NonFiniteTimestampTzPart): fields that grow with time (year, decade,
// century, millennium, julian, isoyear, epoch) give +/-Infinity, the others
// NULL (nullopt); unknown or unsupported units raise the same errors as for a
// finite value of the type.
enum class DatetimeKind { kDate, kTimestamp, kTimestamptz };
std::optional<double> ExtractFromInfinite(std::string_view field, bool negative, DatetimeKind kind);

// GreptimeDB's to_timezone: 'YYYY-MM-DD HH:MM:SS' plus '.fff' when the
// sub-second part is a whole number of milliseconds, else '.ffffff' (none
// when zero).
std::string FormatLocalForToTimezone(int64_t utc_micros, const TimeZone& tz);

// Civil calendar helpers.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

}  // namespace freshet
