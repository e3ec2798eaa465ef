// date_trunc and extract over dates, times, timestamps and intervals.

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


}  // namespace freshet::datetime_detail

namespace freshet {

using namespace datetime_detail;

// ---- date_trunc ----

int64_t TruncTimestamp(std::string_view unit, int64_t micros) {
  if (!IsFiniteDatetime(micros)) return micros;  // PostgreSQL checks no unit then
  // The units a time bucket uses most, spelled so: a floor in microseconds
  // (no calendar, no zone), without parsing the unit for every row.
  const int64_t step = unit == "minute" ? kMicrosPerMinute
                       : unit == "hour" ? kMicrosPerHour
                       : unit == "second" ? kMicrosPerSecond
                       : unit == "day" ? kMicrosPerDay
                                       : 0;
  if (step > 0) return FloorDiv(micros, step) * step;
  bool redo_zone;
  return TmToMicrosOrThrow(TruncTm(unit, MicrosToTm(micros), kTimestampType, &redo_zone));
}

int64_t TruncTimestamptz(std::string_view unit, int64_t utc_micros, const TimeZone& tz) {
  if (!IsFiniteDatetime(utc_micros)) return utc_micros;
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

std::optional<double> ExtractFromInfinite(std::string_view field, bool negative, DatetimeKind kind) {
  std::string lower = Lower(field);
  Token tok = DecodeExtractField(lower);
  std::string_view type = kind == DatetimeKind::kDate        ? kDateType
                          : kind == DatetimeKind::kTimestamp ? kTimestampType
                                                             : kTimestamptzType;
  if (tok.type != UNITS && tok.type != RESERV) ThrowUnitNotRecognized(lower, type);
  switch (tok.value) {
    case kYear:
    case kDecade:
    case kCentury:
    case kMillennium:
    case kJulian:
    case kIsoyear:
    case kEpoch: return negative ? -HUGE_VAL : HUGE_VAL;
    case kDay:
    case kMonth:
    case kQuarter:
    case kWeek:
    case kDow:
    case kIsodow:
    case kDoy: return std::nullopt;
    case kMicrosec:
    case kMillisec:
    case kSecond:
    case kMinute:
    case kHour:
    case kTz:
    case kTzMinute:
    case kTzHour:
      if (kind != DatetimeKind::kDate) return std::nullopt;
      [[fallthrough]];
    default: ThrowUnitNotSupported(lower, type);
  }
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
