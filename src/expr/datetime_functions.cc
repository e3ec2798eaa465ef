// Date/time functions: now(), date_trunc, date_part/extract, to_timestamp,
// make_date, make_timestamp, age, isfinite, date_bin (also without an origin), timezone (AT TIME ZONE)
// and GreptimeDB's to_timezone.

#include <cmath>
#include <optional>
#include <unordered_map>

#include "expr/function_helpers.h"

namespace freshet {

namespace {

using SV = std::string_view;
using I = const Interval&;

constexpr int64_t kUnixEpochJulianDay = 2440588;

// Lower-cases a unit name and maps PostgreSQL's abbreviations and plurals
// ('hrs', 'mons', 'secs', 'y'...) to the names datetime.h understands.
std::string CanonicalUnit(SV unit) {
  static const std::unordered_map<std::string, const char*> kSynonyms = {
      {"microsecond", "microseconds"}, {"us", "microseconds"},      {"usec", "microseconds"},
      {"usecs", "microseconds"},       {"usecond", "microseconds"}, {"useconds", "microseconds"},
      {"millisecond", "milliseconds"}, {"ms", "milliseconds"},      {"msec", "milliseconds"},
      {"msecs", "milliseconds"},       {"msecond", "milliseconds"}, {"mseconds", "milliseconds"},
      {"seconds", "second"},           {"s", "second"},             {"sec", "second"},
      {"secs", "second"},              {"minutes", "minute"},       {"m", "minute"},
      {"min", "minute"},               {"mins", "minute"},          {"hours", "hour"},
      {"h", "hour"},                   {"hr", "hour"},              {"hrs", "hour"},
      {"days", "day"},                 {"d", "day"},                {"weeks", "week"},
      {"w", "week"},                   {"months", "month"},         {"mon", "month"},
      {"mons", "month"},               {"qtr", "quarter"},          {"years", "year"},
      {"y", "year"},                   {"yr", "year"},              {"yrs", "year"},
      {"decades", "decade"},           {"dec", "decade"},           {"centuries", "century"},
      {"c", "century"},                {"cent", "century"},         {"millennia", "millennium"},
      {"mil", "millennium"},           {"mils", "millennium"},
  };
  std::string s;
  s.reserve(unit.size());
  for (char c : unit) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = kSynonyms.find(s);
  return it == kSynonyms.end() ? s : it->second;
}

// The unit argument is nearly always a constant: canonicalize once per
// distinct value rather than per row.
class UnitCache {
 public:
  const std::string& Get(SV unit) {
    if (!valid_ || unit != raw_) {
      raw_.assign(unit);
      canonical_ = CanonicalUnit(unit);
      valid_ = true;
    }
    return canonical_;
  }

 private:
  bool valid_ = false;
  std::string raw_, canonical_;
};

// Likewise for time zone names; unknown names give nullopt.
class ZoneCache {
 public:
  const std::optional<TimeZone>& Get(SV name) {
    if (!valid_ || name != raw_) {
      raw_.assign(name);
      zone_ = name == "SYSTEM" ? std::optional<TimeZone>(TimeZone::System()) : TimeZone::Lookup(name);
      valid_ = true;
    }
    return zone_;
  }
  const TimeZone& GetOrThrow(SV name) {
    const auto& z = Get(name);
    if (!z) throw SqlError(sqlstate::kInvalidParameterValue, fmt::format("time zone \"{}\" not recognized", name));
    return *z;
  }

 private:
  bool valid_ = false;
  std::string raw_;
  std::optional<TimeZone> zone_;
};

// A unit-taking function f(unit, x) over physical type T.
template <typename T, typename F>
ScalarFn UnitFn(F f) {
  return [f](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    UnitCache units;
    ExecuteStrict<SV, T>(args, n, out, [&](SV unit, const T& x) { return f(ctx, units.Get(unit), x); });
  };
}

// --- extract: numeric results as PostgreSQL 14+ --------------------------------

// Fields with fractional digits are computed exactly from microseconds;
// the rest are integral and come from datetime.h's double.
std::optional<Decimal> ExactField(const std::string& f, int64_t usec_of_minute, int64_t epoch_micros) {
  if (f == "second") return Decimal{usec_of_minute, 6};
  if (f == "milliseconds" || f == "millisecond") return Decimal{usec_of_minute, 3};
  if (f == "microseconds" || f == "microsecond") return Decimal{usec_of_minute, 0};
  if (f == "epoch") return Decimal{epoch_micros, 6};
  return std::nullopt;
}

Decimal IntegralField(double v) { return DecimalFromInt(static_cast<int64_t>(std::llround(v))); }

// Julian day with the time of day as a fraction (numeric division like PostgreSQL).
Decimal JulianWithTime(int64_t local_micros) {
  int64_t days = FloorDiv(local_micros, kMicrosPerDay);
  Decimal frac = DecimalDiv(Decimal{FloorMod(local_micros, kMicrosPerDay), 0}, Decimal{kMicrosPerDay, 0});
  return DecimalAdd(DecimalFromInt(days + kUnixEpochJulianDay), frac);
}

Decimal ExtractTimestampNumeric(const std::string& f, int64_t local, int64_t epoch_micros, double v) {
  if (auto d = ExactField(f, FloorMod(local, kMicrosPerMinute), epoch_micros)) return *d;
  if (f == "julian") return JulianWithTime(local);
  return IntegralField(v);
}

// extract() of an infinite value: NULL for fields that cycle; the others
// are numeric's Infinity of the value's sign.
std::optional<Decimal> InfiniteField(const std::string& f, bool negative, DatetimeKind kind) {
  if (!ExtractFromInfinite(f, negative, kind)) return std::nullopt;
  return DecimalSpecial(negative ? kDecimalNegInfinity : kDecimalInfinity);
}

// PostgreSQL's interval epoch: 365.25-day years, 30-day months.
int64_t IntervalEpochMicros(const Interval& iv) {
  int64_t secs = int64_t{31557600} * (iv.months / 12) + int64_t{2592000} * (iv.months % 12) +
                 int64_t{86400} * iv.days;
  return secs * kMicrosPerSecond + iv.micros;
}

// --- age ---------------------------------------------------------------------

struct Fields {
  int64_t year;
  unsigned month, day;
  int64_t micros_of_day;
};

Fields Split(int64_t micros) {
  Fields f;
  CivilFromDays(FloorDiv(micros, kMicrosPerDay), &f.year, &f.month, &f.day);
  f.micros_of_day = FloorMod(micros, kMicrosPerDay);
  return f;
}

int DaysInMonth(int64_t year, unsigned month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// PostgreSQL's timestamp_age: field-wise difference, borrowing from the next
// larger field, in years/months/days plus time.
Interval Age(int64_t a, int64_t b) {
  // PostgreSQL 15 answers with the garbage of its sentinels' fields.
  if (!IsFiniteDatetime(a) || !IsFiniteDatetime(b)) throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  Fields f1 = Split(a), f2 = Split(b);
  int64_t time = f1.micros_of_day - f2.micros_of_day;
  int64_t day = int64_t{f1.day} - f2.day;
  int64_t month = int64_t{f1.month} - f2.month;
  int64_t year = f1.year - f2.year;
  bool flip = a < b;
  if (flip) {
    time = -time;
    day = -day;
    month = -month;
    year = -year;
  }
  while (time < 0) {
    time += kMicrosPerDay;
    day--;
  }
  while (day < 0) {
    const Fields& ref = flip ? f1 : f2;
    day += DaysInMonth(ref.year, ref.month);
    month--;
  }
  while (month < 0) {
    month += 12;
    year--;
  }
  if (flip) {
    time = -time;
    day = -day;
    month = -month;
    year = -year;
  }
  return Interval{static_cast<int32_t>(year * 12 + month), static_cast<int32_t>(day), time};
}

// --- constructors ------------------------------------------------------------------

int64_t MakeDate(int64_t y, int64_t m, int64_t d) {
  // Negative years are BC: -1 is 1 BC, i.e. astronomical year 0.
  if (y == 0 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y < 0 ? y + 1 : y, static_cast<unsigned>(m))) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow,
                   fmt::format("date field value out of range: {}-{:02}-{:02}", y, m, d));
  }
  return DaysFromCivil(y < 0 ? y + 1 : y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

int64_t MakeTimestamp(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, double sec) {
  int64_t days = MakeDate(y, mo, d);
  if (h < 0 || h > 24 || mi < 0 || mi > 59 || !(sec >= 0) || sec > 60 ||
      (h == 24 && (mi > 0 || sec > 0))) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow,
                   fmt::format("time field value out of range: {}:{:02}:{:02}", h, mi, sec));
  }
  int64_t micros = static_cast<int64_t>(std::rint(sec * kMicrosPerSecond));
  return DateToTimestamp(days) + h * kMicrosPerHour + mi * kMicrosPerMinute + micros;
}

int64_t ToTimestamp(double secs) {
  if (std::isnan(secs)) throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp cannot be NaN");
  if (std::isinf(secs)) return secs > 0 ? kDatetimeInfinity : kDatetimeMinusInfinity;
  // PostgreSQL's range: 4714-11-24 BC .. 294277-01-01 (exclusive), in seconds.
  static const double kMin = static_cast<double>(DaysFromCivil(-4713, 11, 24)) * 86400;
  static const double kMax = static_cast<double>(DaysFromCivil(294277, 1, 1)) * 86400;
  if (!(secs >= kMin && secs < kMax)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("timestamp out of range: \"{:g}\"", secs));
  }
  return static_cast<int64_t>(std::rint(secs * kMicrosPerSecond));
}

// PostgreSQL's date_bin(stride, source, origin): the start of the
// stride-long bin, counted from origin, that holds source.
// date_bin in the timestamps' own unit, `per_micro` of them a microsecond:
// 1, or 1000 for timestamp(9), whose values are all finite.
int64_t DateBinIn(const Interval& stride, int64_t source, int64_t origin, int64_t per_micro) {
  const bool infinities = per_micro == 1;
  if (infinities && !IsFiniteDatetime(origin)) throw SqlError(sqlstate::kDatetimeFieldOverflow, "origin out of range");
  if (stride.months != 0) {
    throw SqlError(sqlstate::kFeatureNotSupported, "timestamps cannot be binned into intervals containing months or years");
  }
  int64_t stride_micros, diff, delta, result;
  if (__builtin_mul_overflow(int64_t{stride.days}, kMicrosPerDay, &stride_micros) ||
      __builtin_add_overflow(stride_micros, stride.micros, &stride_micros) ||
      __builtin_mul_overflow(stride_micros, per_micro, &stride_micros)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
  }
  if (stride_micros <= 0) throw SqlError(sqlstate::kInvalidParameterValue, "stride must be greater than zero");
  if (infinities && !IsFiniteDatetime(source)) return source;
  if (__builtin_sub_overflow(source, origin, &diff)) throw SqlError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
  // Truncation goes toward zero: a source before origin and not on a bin's
  // start belongs to the bin before.
  delta = diff - diff % stride_micros;
  if (diff < 0 && diff % stride_micros != 0 && __builtin_sub_overflow(delta, stride_micros, &delta))
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  if (__builtin_add_overflow(origin, delta, &result) || (infinities && !IsFiniteDatetime(result))) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  }
  return result;
}

int64_t DateBin(const Interval& stride, int64_t source, int64_t origin) { return DateBinIn(stride, source, origin, 1); }

// GreptimeDB's to_timezone(ts, tz): not strict in tz (NULL or unknown zones
// fall back to the session zone).
void ToTimezoneFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
  ZoneCache zones;
  const Vector& ts = *args[0];
  const Vector& tz = *args[1];
  out->Reserve(out->size() + n);
  for (size_t i = 0; i < n; i++) {
    if (ts.IsNull(i)) {
      out->AppendNull();
      continue;
    }
    const TimeZone* zone = &ctx.time_zone;
    if (!tz.IsNull(i)) {
      const auto& z = zones.Get(tz.GetString(i));
      if (z) zone = &*z;
    }
    out->AppendString(FormatLocalForToTimezone(ts.GetInt(i), *zone));
  }
}

ScalarFn NowFn(bool local) {
  return [local](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext& ctx) {
    int64_t t = local ? ctx.time_zone.UtcToLocal(ctx.statement_time) : ctx.statement_time;
    for (size_t i = 0; i < n; i++) out->AppendInt(t);
  };
}

}  // namespace

void RegisterFormatFunctions(FunctionRegistry* r);  // format_functions.cc

void RegisterDatetimeFunctions(FunctionRegistry* r) {
  RegisterFormatFunctions(r);
  const DataType v = DataType::Varchar(), f8 = DataType::Float64(), num = DataType::Numeric(),
                 i4 = DataType::Int32(), date = DataType::Date(), time = DataType::Time(),
                 ts = DataType::Timestamp(), tstz = DataType::Timestamptz(), iv = DataType::Interval();

  for (const char* name : {"now", "current_timestamp", "transaction_timestamp", "statement_timestamp"}) {
    RegisterFn(r, name, {}, tstz, NowFn(false));
  }
  RegisterFn(r, "localtimestamp", {}, ts, NowFn(true));
  RegisterFn(r, "current_date", {}, date, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext& ctx) {
    int64_t d = FloorDiv(ctx.time_zone.UtcToLocal(ctx.statement_time), kMicrosPerDay);
    for (size_t i = 0; i < n; i++) out->AppendInt(d);
  });

  // date_trunc
  RegisterFn(r, "date_trunc", {v, ts}, ts,
             UnitFn<int64_t>([](EvalContext&, const std::string& u, int64_t t) { return TruncTimestamp(u, t); }));
  RegisterFn(r, "date_trunc", {v, tstz}, tstz, UnitFn<int64_t>([](EvalContext& ctx, const std::string& u, int64_t t) {
               return TruncTimestamptz(u, t, ctx.time_zone);
             }));
  RegisterFn(r, "date_trunc", {v, iv}, iv,
             UnitFn<Interval>([](EvalContext&, const std::string& u, I x) { return TruncInterval(u, x); }));
  RegisterFn(r, "date_trunc", {v, tstz, v}, tstz,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
               UnitCache units;
               ZoneCache zones;
               ExecuteStrict<SV, int64_t, SV>(args, n, out, [&](SV u, int64_t t, SV z) {
                 return TruncTimestamptz(units.Get(u), t, zones.GetOrThrow(z));
               });
             });

  // date_part -> float8. Infinite values give +/-Infinity or NULL by field.
  using OptDouble = std::optional<double>;
  RegisterFn(r, "date_part", {v, ts}, f8, UnitFn<int64_t>([](EvalContext&, const std::string& f, int64_t t) -> OptDouble {
               if (!IsFiniteDatetime(t)) return ExtractFromInfinite(f, t < 0, DatetimeKind::kTimestamp);
               return ExtractFromTimestamp(f, t);
             }));
  RegisterFn(r, "date_part", {v, tstz}, f8,
             UnitFn<int64_t>([](EvalContext& ctx, const std::string& f, int64_t t) -> OptDouble {
               if (!IsFiniteDatetime(t)) return ExtractFromInfinite(f, t < 0, DatetimeKind::kTimestamptz);
               return ExtractFromTimestamptz(f, t, ctx.time_zone);
             }));
  // PostgreSQL's date_part(text, date) is date_part(text, date::timestamp).
  RegisterFn(r, "date_part", {v, date}, f8, UnitFn<int64_t>([](EvalContext&, const std::string& f, int64_t d) -> OptDouble {
               if (!IsFiniteDatetime(d)) return ExtractFromInfinite(f, d < 0, DatetimeKind::kTimestamp);
               return ExtractFromTimestamp(f, DateToTimestamp(d));
             }));
  RegisterFn(r, "date_part", {v, time}, f8,
             UnitFn<int64_t>([](EvalContext&, const std::string& f, int64_t t) { return ExtractFromTime(f, t); }));
  RegisterFn(r, "date_part", {v, iv}, f8,
             UnitFn<Interval>([](EvalContext&, const std::string& f, I x) { return ExtractFromInterval(f, x); }));

  // extract -> numeric. The datetime.h call comes first so that unsupported
  // fields raise PostgreSQL's errors.
  using OptDecimal = std::optional<Decimal>;
  RegisterFn(r, "extract", {v, ts}, num, UnitFn<int64_t>([](EvalContext&, const std::string& f, int64_t t) -> OptDecimal {
               if (!IsFiniteDatetime(t)) return InfiniteField(f, t < 0, DatetimeKind::kTimestamp);
               return ExtractTimestampNumeric(f, t, t, ExtractFromTimestamp(f, t));
             }));
  RegisterFn(r, "extract", {v, tstz}, num,
             UnitFn<int64_t>([](EvalContext& ctx, const std::string& f, int64_t t) -> OptDecimal {
               if (!IsFiniteDatetime(t)) return InfiniteField(f, t < 0, DatetimeKind::kTimestamptz);
               double x = ExtractFromTimestamptz(f, t, ctx.time_zone);
               return ExtractTimestampNumeric(f, ctx.time_zone.UtcToLocal(t), t, x);
             }));
  RegisterFn(r, "extract", {v, date}, num, UnitFn<int64_t>([](EvalContext&, const std::string& f, int64_t d) -> OptDecimal {
               if (!IsFiniteDatetime(d)) return InfiniteField(f, d < 0, DatetimeKind::kDate);
               double x = ExtractFromDate(f, d);
               return f == "epoch" ? DecimalFromInt(d * 86400) : IntegralField(x);
             }));
  RegisterFn(r, "extract", {v, time}, num, UnitFn<int64_t>([](EvalContext&, const std::string& f, int64_t t) {
               double x = ExtractFromTime(f, t);
               if (auto d = ExactField(f, t % kMicrosPerMinute, t)) return *d;
               return IntegralField(x);
             }));
  RegisterFn(r, "extract", {v, iv}, num, UnitFn<Interval>([](EvalContext&, const std::string& f, I x) {
               double d = ExtractFromInterval(f, x);
               if (auto e = ExactField(f, x.micros % kMicrosPerMinute, IntervalEpochMicros(x))) return *e;
               return IntegralField(d);
             }));

  RegisterFn(r, "to_timestamp", {f8}, tstz, StrictFn<double>(kFn<ToTimestamp>));
  for (const DataType& t : {date, ts, tstz}) {
    RegisterFn(r, "isfinite", {t}, DataType::Boolean(), StrictFn<int64_t>([](int64_t x) { return IsFiniteDatetime(x); }));
  }
  RegisterFn(r, "isfinite", {iv}, DataType::Boolean(), StrictFn<Interval>([](I) { return true; }));
  for (const DataType& t : {ts, tstz}) {
    RegisterFn(r, "date_bin", {iv, t, t}, t, StrictFn<Interval, int64_t, int64_t>(kFn<DateBin>));
    // GreptimeDB's (DataFusion's) form: bins counted from the Unix epoch.
    RegisterFn(r, "date_bin", {iv, t}, t,
               StrictFn<Interval, int64_t>([](const Interval& stride, int64_t source) { return DateBin(stride, source, 0); }));
  }
  const DataType tsn = DataType::TimestampNs();
  RegisterFn(r, "date_bin", {iv, tsn, tsn}, tsn, StrictFn<Interval, int64_t, int64_t>([](const Interval& s, int64_t t, int64_t o) {
               return DateBinIn(s, t, o, kNanosPerMicro);
             }));
  RegisterFn(r, "date_bin", {iv, tsn}, tsn, StrictFn<Interval, int64_t>([](const Interval& s, int64_t t) {
               return DateBinIn(s, t, 0, kNanosPerMicro);
             }));
  RegisterFn(r, "make_date", {i4, i4, i4}, date, StrictFn<int64_t, int64_t, int64_t>(kFn<MakeDate>));
  RegisterFn(r, "make_timestamp", {i4, i4, i4, i4, i4, f8}, ts,
             StrictFn<int64_t, int64_t, int64_t, int64_t, int64_t, double>(kFn<MakeTimestamp>));

  RegisterFn(r, "age", {ts, ts}, iv, StrictFn<int64_t, int64_t>(kFn<Age>));
  RegisterFn(r, "age", {tstz, tstz}, iv, StrictCtxFn<int64_t, int64_t>([](EvalContext& ctx, int64_t a, int64_t b) {
               return Age(ctx.time_zone.UtcToLocal(a), ctx.time_zone.UtcToLocal(b));
             }));
  // age(x) is age(midnight today, x).
  RegisterFn(r, "age", {ts}, iv, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t t) {
               int64_t today = FloorDiv(ctx.time_zone.UtcToLocal(ctx.statement_time), kMicrosPerDay) * kMicrosPerDay;
               return Age(today, t);
             }));
  RegisterFn(r, "age", {tstz}, iv, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t t) {
               int64_t today = FloorDiv(ctx.time_zone.UtcToLocal(ctx.statement_time), kMicrosPerDay) * kMicrosPerDay;
               return Age(today, ctx.time_zone.UtcToLocal(t));
             }));

  // timezone(zone, x): x AT TIME ZONE zone.
  RegisterFn(r, "timezone", {v, tstz}, ts, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ZoneCache zones;
    ExecuteStrict<SV, int64_t>(args, n, out, [&](SV z, int64_t t) { return zones.GetOrThrow(z).UtcToLocal(t); });
  });
  RegisterFn(r, "timezone", {v, ts}, tstz, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ZoneCache zones;
    ExecuteStrict<SV, int64_t>(args, n, out, [&](SV z, int64_t t) { return zones.GetOrThrow(z).LocalToUtc(t); });
  });

  RegisterFn(r, "to_timezone", {tstz, v}, v, ToTimezoneFn);
  RegisterFn(r, "to_timezone", {ts, v}, v, ToTimezoneFn);
}

}  // namespace freshet
