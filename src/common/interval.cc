// Intervals: DecodeInterval and DecodeISO8601Interval, their text output,
// and interval and timestamp arithmetic.

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


}  // namespace freshet::datetime_detail

namespace freshet {

using namespace datetime_detail;

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

std::optional<IntervalStyle> ParseIntervalStyle(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "postgres") return IntervalStyle::kPostgres;
  if (lower == "postgres_verbose") return IntervalStyle::kPostgresVerbose;
  if (lower == "sql_standard") return IntervalStyle::kSqlStandard;
  if (lower == "iso_8601") return IntervalStyle::kIso8601;
  return std::nullopt;
}

namespace {

std::string FormatIso8601(const IntervalParts& p) {
  if (p.year == 0 && p.mon == 0 && p.mday == 0 && p.hour == 0 && p.min == 0 && p.sec == 0 && p.usec == 0)
    return "PT0S";
  std::string out = "P";
  auto part = [&](int64_t v, char unit) {
    if (v != 0) fmt::format_to(std::back_inserter(out), "{}{}", v, unit);
  };
  part(p.year, 'Y');
  part(p.mon, 'M');
  part(p.mday, 'D');
  if (p.hour != 0 || p.min != 0 || p.sec != 0 || p.usec != 0) out += 'T';
  part(p.hour, 'H');
  part(p.min, 'M');
  if (p.sec != 0 || p.usec != 0) {
    if (p.sec < 0 || p.usec < 0) out += '-';
    AppendSeconds(&out, std::abs(p.sec), p.usec, false);
    out += 'S';
  }
  return out;
}

std::string FormatVerbose(const IntervalParts& p) {
  std::string out = "@";
  bool is_zero = true, is_before = false;
  auto part = [&](int64_t v, const char* unit) {
    if (v == 0) return;
    if (is_zero) {  // the first non-zero field decides "ago"
      is_before = v < 0;
      v = v < 0 ? -v : v;
    } else if (is_before) {
      v = -v;
    }
    fmt::format_to(std::back_inserter(out), " {} {}{}", v, unit, v == 1 ? "" : "s");
    is_zero = false;
  };
  part(p.year, "year");
  part(p.mon, "mon");
  part(p.mday, "day");
  part(p.hour, "hour");
  part(p.min, "min");
  if (p.sec != 0 || p.usec != 0) {
    out += ' ';
    if (p.sec < 0 || (p.sec == 0 && p.usec < 0)) {
      if (is_zero) is_before = true;
      else if (!is_before) out += '-';
    } else if (is_before) {
      out += '-';
    }
    AppendSeconds(&out, std::abs(p.sec), p.usec, false);
    out += (p.sec != 1 && p.sec != -1) || p.usec != 0 ? " secs" : " sec";
    is_zero = false;
  }
  if (is_zero) out += " 0";
  if (is_before) out += " ago";
  return out;
}

std::string FormatSqlStandard(IntervalParts p) {
  const bool negative = p.year < 0 || p.mon < 0 || p.mday < 0 || p.hour < 0 || p.min < 0 || p.sec < 0 || p.usec < 0;
  const bool positive = p.year > 0 || p.mon > 0 || p.mday > 0 || p.hour > 0 || p.min > 0 || p.sec > 0 || p.usec > 0;
  const bool year_month = p.year != 0 || p.mon != 0;
  const bool day_time = p.mday != 0 || p.hour != 0 || p.min != 0 || p.sec != 0 || p.usec != 0;
  const bool standard = !(negative && positive) && !(year_month && day_time);
  std::string out;
  if (negative && standard) {  // one sign before the whole value
    out += '-';
    p = IntervalParts{-p.year, -p.mon, -p.mday, -p.hour, -p.min, -p.sec, -p.usec};
  }
  auto abs = [](int64_t v) { return v < 0 ? -v : v; };
  if (!negative && !positive) {
    out += '0';
  } else if (!standard) {  // mixed signs or fields: every sign written
    fmt::format_to(std::back_inserter(out), "{}{}-{} {}{} {}{}:{:02}:", p.year < 0 || p.mon < 0 ? '-' : '+',
                   abs(p.year), abs(p.mon), p.mday < 0 ? '-' : '+', abs(p.mday),
                   p.hour < 0 || p.min < 0 || p.sec < 0 || p.usec < 0 ? '-' : '+', abs(p.hour), abs(p.min));
    AppendSeconds(&out, std::abs(p.sec), p.usec, true);
  } else if (year_month) {
    fmt::format_to(std::back_inserter(out), "{}-{}", p.year, p.mon);
  } else {
    if (p.mday != 0) fmt::format_to(std::back_inserter(out), "{} ", p.mday);
    fmt::format_to(std::back_inserter(out), "{}:{:02}:", p.hour, p.min);
    AppendSeconds(&out, std::abs(p.sec), p.usec, true);
  }
  return out;
}

}  // namespace

std::string FormatInterval(const Interval& iv, IntervalStyle style) {
  IntervalParts p = SplitInterval(iv);
  if (style == IntervalStyle::kIso8601) return FormatIso8601(p);
  if (style == IntervalStyle::kPostgresVerbose) return FormatVerbose(p);
  if (style == IntervalStyle::kSqlStandard) return FormatSqlStandard(p);
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
    AppendSeconds(&out, std::abs(p.sec), p.usec);
  }
  return out;
}

// ---- arithmetic ----

int64_t TimestampAddInterval(int64_t micros, const Interval& iv) {
  if (!IsFiniteDatetime(micros)) return micros;
  if (iv.months != 0) micros = AddMonthsToTm(MicrosToTm(micros), iv.months);
  if (iv.days != 0) micros = AddDays(micros, iv.days);
  return CheckedAdd(micros, iv.micros);
}

int64_t TimestampNanosAddInterval(int64_t nanos, const Interval& iv) {
  const int64_t micros = FloorDiv(nanos, kNanosPerMicro);
  // In 128 bits: the earliest values' microseconds alone are past the int64s.
  const __int128 out = __int128(TimestampAddInterval(micros, iv)) * kNanosPerMicro + FloorMod(nanos, kNanosPerMicro);
  if (out > INT64_MAX || out < INT64_MIN) throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  return static_cast<int64_t>(out);
}

// Month and day steps move the local wall-clock time in `tz` (so a day is 23
// or 25 hours across DST changes); the time part moves the instant.
int64_t TimestamptzAddInterval(int64_t utc_micros, const Interval& iv, const TimeZone& tz) {
  if (!IsFiniteDatetime(utc_micros)) return utc_micros;
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
  if (!IsFiniteDatetime(a) || !IsFiniteDatetime(b)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "cannot subtract infinite timestamps");
  }
  int64_t diff;
  if (__builtin_sub_overflow(a, b, &diff)) ThrowIntervalOutOfRange();
  // justify_hours: whole days out of the time, both with the same sign.
  Interval r;
  r.days = int32_t(diff / kMicrosPerDay);
  r.micros = diff % kMicrosPerDay;
  return r;
}


}  // namespace freshet
