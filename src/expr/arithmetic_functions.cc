// Arithmetic operators + - * / % neg, mod(), and date/time arithmetic.
//
// Operands always have the same type (the binder casts mixed operands).
// Overflow raises 22003 and division by zero 22012, as in PostgreSQL.

#include <cmath>

#include "expr/function_helpers.h"

namespace freshet {

namespace {

// --- Integers ---------------------------------------------------------------

template <TypeId T>
struct IntOps {
  static int64_t Add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
    return CheckIntRange<T>(r);
  }
  static int64_t Sub(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
    return CheckIntRange<T>(r);
  }
  static int64_t Mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
    return CheckIntRange<T>(r);
  }
  // Truncates toward zero; MIN / -1 overflows.
  static int64_t Div(int64_t a, int64_t b) {
    if (b == 0) ThrowDivisionByZero();
    if (b == -1) return Neg(a);
    return a / b;
  }
  // Sign follows the dividend (C's %); MIN % -1 is 0, not a trap.
  static int64_t Mod(int64_t a, int64_t b) {
    if (b == 0) ThrowDivisionByZero();
    if (b == -1) return 0;
    return a % b;
  }
  // C's shift of the type's width (PostgreSQL's int4shl & co.): the count
  // taken modulo the width, as x86 does and PostgreSQL inherits.
  static int64_t Shift(int64_t a, int64_t count, bool left) {
    constexpr int kBits = IntTraits<T>::kBits;
    int n = static_cast<int>(count & (kBits - 1));
    if constexpr (kBits == 64) {
      return left ? int64_t(uint64_t(a) << n) : (a >> n);
    } else if constexpr (kBits == 32) {
      return left ? int64_t(int32_t(uint32_t(a) << n)) : int64_t(int32_t(a) >> n);
    } else {
      // int2 shifts are computed in int (C promotion), then truncated.
      int32_t r = left ? int32_t(uint32_t(int32_t(a)) << (count & 31)) : (int32_t(a) >> (count & 31));
      return int16_t(r);
    }
  }
  static int64_t Neg(int64_t a) {
    if (a == IntTraits<T>::kMin) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
    return -a;
  }
};

template <TypeId T>
void RegisterIntArithmetic(FunctionRegistry* r) {
  using Ops = IntOps<T>;
  DataType t(T);
  RegisterFn(r, "+", {t, t}, t, StrictFn<int64_t, int64_t>(kFn<Ops::Add>));
  RegisterFn(r, "-", {t, t}, t, StrictFn<int64_t, int64_t>(kFn<Ops::Sub>));
  RegisterFn(r, "*", {t, t}, t, StrictFn<int64_t, int64_t>(kFn<Ops::Mul>));
  RegisterFn(r, "/", {t, t}, t, StrictFn<int64_t, int64_t>(kFn<Ops::Div>));
  RegisterFn(r, "%", {t, t}, t, StrictFn<int64_t, int64_t>(kFn<Ops::Mod>));
  RegisterFn(r, "mod", {t, t}, t, StrictFn<int64_t, int64_t>(kFn<Ops::Mod>));
  RegisterFn(r, "neg", {t}, t, StrictFn<int64_t>(kFn<Ops::Neg>));
  // Bitwise operators, as PostgreSQL's int2/int4/int8 & | # ~ << >> (a
  // shift takes an int4 count; results wrap to the type's width).
  RegisterFn(r, "&", {t, t}, t, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) { return a & b; }));
  RegisterFn(r, "|", {t, t}, t, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) { return a | b; }));
  RegisterFn(r, "#", {t, t}, t, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) { return a ^ b; }));
  RegisterFn(r, "~", {t}, t, StrictFn<int64_t>([](int64_t a) { return ~a; }));
  const DataType count = DataType::Int32();
  RegisterFn(r, "<<", {t, count}, t, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) { return Ops::Shift(a, b, true); }));
  RegisterFn(r, ">>", {t, count}, t, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) { return Ops::Shift(a, b, false); }));
}

// --- Floats -----------------------------------------------------------------

// F is float for real (PostgreSQL computes float4 ops in single precision)
// and double for double precision. Checks follow float.h's float8_pl etc.
template <typename F>
struct FloatOps {
  static void CheckOverflow(F r, F a, F b) {
    if (std::isinf(r) && !std::isinf(a) && !std::isinf(b)) ThrowOutOfRange("value out of range: overflow");
  }
  static double Add(double x, double y) {
    F a = F(x), b = F(y), r = a + b;
    CheckOverflow(r, a, b);
    return r;
  }
  static double Sub(double x, double y) {
    F a = F(x), b = F(y), r = a - b;
    CheckOverflow(r, a, b);
    return r;
  }
  static double Mul(double x, double y) {
    F a = F(x), b = F(y), r = a * b;
    CheckOverflow(r, a, b);
    if (r == 0 && a != 0 && b != 0) ThrowOutOfRange("value out of range: underflow");
    return r;
  }
  static double Div(double x, double y) {
    F a = F(x), b = F(y);
    if (b == 0 && !std::isnan(a)) ThrowDivisionByZero();
    F r = a / b;
    if (std::isinf(r) && !std::isinf(a)) ThrowOutOfRange("value out of range: overflow");
    if (r == 0 && a != 0 && !std::isinf(b)) ThrowOutOfRange("value out of range: underflow");
    return r;
  }
  // GreptimeDB's mod: truncated remainder, like C's fmod.
  static double Mod(double x, double y) {
    if (y == 0 && !std::isnan(x)) ThrowDivisionByZero();
    return std::fmod(F(x), F(y));
  }
  static double Neg(double x) { return -x; }
};

template <typename F>
void RegisterFloatArithmetic(FunctionRegistry* r, DataType t) {
  using Ops = FloatOps<F>;
  RegisterFn(r, "+", {t, t}, t, StrictFn<double, double>(kFn<Ops::Add>));
  RegisterFn(r, "-", {t, t}, t, StrictFn<double, double>(kFn<Ops::Sub>));
  RegisterFn(r, "*", {t, t}, t, StrictFn<double, double>(kFn<Ops::Mul>));
  RegisterFn(r, "/", {t, t}, t, StrictFn<double, double>(kFn<Ops::Div>));
  // PostgreSQL has no float %; GreptimeDB does (same as mod()).
  RegisterFn(r, "%", {t, t}, t, StrictFn<double, double>(kFn<Ops::Mod>));
  RegisterFn(r, "mod", {t, t}, t, StrictFn<double, double>(kFn<Ops::Mod>));
  RegisterFn(r, "neg", {t}, t, StrictFn<double>(kFn<Ops::Neg>));
}

void RegisterNumericArithmetic(FunctionRegistry* r) {
  DataType t = DataType::Numeric();
  using D = const Decimal&;
  RegisterFn(r, "+", {t, t}, t, StrictFn<Decimal, Decimal>([](D a, D b) { return DecimalAdd(a, b); }));
  RegisterFn(r, "-", {t, t}, t, StrictFn<Decimal, Decimal>([](D a, D b) { return DecimalSub(a, b); }));
  RegisterFn(r, "*", {t, t}, t, StrictFn<Decimal, Decimal>([](D a, D b) { return DecimalMul(a, b); }));
  RegisterFn(r, "/", {t, t}, t, StrictFn<Decimal, Decimal>([](D a, D b) { return DecimalDiv(a, b); }));
  RegisterFn(r, "%", {t, t}, t, StrictFn<Decimal, Decimal>([](D a, D b) { return DecimalMod(a, b); }));
  RegisterFn(r, "mod", {t, t}, t, StrictFn<Decimal, Decimal>([](D a, D b) { return DecimalMod(a, b); }));
  RegisterFn(r, "neg", {t}, t, StrictFn<Decimal>([](D a) { return DecimalNeg(a); }));
}

// --- Dates, times, timestamps, intervals ---------------------------------------

// PostgreSQL's date range: 4714-11-24 BC .. 5874897-12-31.
int64_t CheckDate(int64_t days) {
  static const int64_t kMin = DaysFromCivil(-4713, 11, 24);
  static const int64_t kMax = DaysFromCivil(5874898, 1, 1);
  if (days < kMin || days >= kMax) throw SqlError(sqlstate::kDatetimeFieldOverflow, "date out of range");
  return days;
}

int64_t TimeAddMicros(int64_t t, int64_t micros) {
  return FloorMod(t + FloorMod(micros, kMicrosPerDay), kMicrosPerDay);
}

void RegisterDatetimeArithmetic(FunctionRegistry* r) {
  const DataType date = DataType::Date(), time = DataType::Time(), ts = DataType::Timestamp(),
                 tstz = DataType::Timestamptz(), iv = DataType::Interval(), i4 = DataType::Int32(),
                 f8 = DataType::Float64();
  using I = const Interval&;

  // Infinite dates stay infinite; their difference is refused as PostgreSQL's.
  auto date_pli = [](int64_t d, int64_t n) { return IsFiniteDatetime(d) ? CheckDate(d + n) : d; };
  RegisterFn(r, "+", {date, i4}, date, StrictFn<int64_t, int64_t>(date_pli));
  RegisterFn(r, "+", {i4, date}, date, StrictFn<int64_t, int64_t>([=](int64_t n, int64_t d) { return date_pli(d, n); }));
  RegisterFn(r, "-", {date, i4}, date, StrictFn<int64_t, int64_t>([=](int64_t d, int64_t n) { return date_pli(d, -n); }));
  RegisterFn(r, "-", {date, date}, i4, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) {
               if (!IsFiniteDatetime(a) || !IsFiniteDatetime(b))
                 throw SqlError(sqlstate::kDatetimeFieldOverflow, "cannot subtract infinite dates");
               return a - b;
             }));

  auto date_pl = [](int64_t d, I v) { return TimestampAddInterval(DateToTimestamp(d), v); };
  RegisterFn(r, "+", {date, iv}, ts, StrictFn<int64_t, Interval>(date_pl));
  RegisterFn(r, "+", {iv, date}, ts, StrictFn<Interval, int64_t>([=](I v, int64_t d) { return date_pl(d, v); }));
  RegisterFn(r, "-", {date, iv}, ts, StrictFn<int64_t, Interval>([=](int64_t d, I v) { return date_pl(d, IntervalNeg(v)); }));

  auto date_time = [](int64_t d, int64_t t) { return IsFiniteDatetime(d) ? DateToTimestamp(d) + t : d; };
  RegisterFn(r, "+", {date, time}, ts, StrictFn<int64_t, int64_t>(date_time));
  RegisterFn(r, "+", {time, date}, ts, StrictFn<int64_t, int64_t>([=](int64_t t, int64_t d) { return date_time(d, t); }));

  RegisterFn(r, "+", {ts, iv}, ts, StrictFn<int64_t, Interval>([](int64_t t, I v) { return TimestampAddInterval(t, v); }));
  RegisterFn(r, "+", {iv, ts}, ts, StrictFn<Interval, int64_t>([](I v, int64_t t) { return TimestampAddInterval(t, v); }));
  RegisterFn(r, "-", {ts, iv}, ts,
             StrictFn<int64_t, Interval>([](int64_t t, I v) { return TimestampAddInterval(t, IntervalNeg(v)); }));
  RegisterFn(r, "-", {ts, ts}, iv, StrictFn<int64_t, int64_t>(kFn<TimestampDiff>));

  // timestamp(9) keeps its nanoseconds through interval arithmetic; its
  // difference is an interval (microseconds, rounded).
  const DataType tsn = DataType::TimestampNs();
  RegisterFn(r, "+", {tsn, iv}, tsn, StrictFn<int64_t, Interval>(kFn<TimestampNanosAddInterval>));
  RegisterFn(r, "+", {iv, tsn}, tsn, StrictFn<Interval, int64_t>([](I v, int64_t t) { return TimestampNanosAddInterval(t, v); }));
  RegisterFn(r, "-", {tsn, iv}, tsn,
             StrictFn<int64_t, Interval>([](int64_t t, I v) { return TimestampNanosAddInterval(t, IntervalNeg(v)); }));
  RegisterFn(r, "-", {tsn, tsn}, iv, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) {
               const __int128 d = __int128(a) - b, half = kNanosPerMicro / 2;
               return TimestampDiff(static_cast<int64_t>(d >= 0 ? (d + half) / kNanosPerMicro : -((-d + half) / kNanosPerMicro)), 0);
             }));

  // Month and day steps of timestamptz happen in the session time zone.
  RegisterFn(r, "+", {tstz, iv}, tstz, StrictCtxFn<int64_t, Interval>([](EvalContext& ctx, int64_t t, I v) {
               return TimestamptzAddInterval(t, v, ctx.time_zone);
             }));
  RegisterFn(r, "+", {iv, tstz}, tstz, StrictCtxFn<Interval, int64_t>([](EvalContext& ctx, I v, int64_t t) {
               return TimestamptzAddInterval(t, v, ctx.time_zone);
             }));
  RegisterFn(r, "-", {tstz, iv}, tstz, StrictCtxFn<int64_t, Interval>([](EvalContext& ctx, int64_t t, I v) {
               return TimestamptzAddInterval(t, IntervalNeg(v), ctx.time_zone);
             }));
  RegisterFn(r, "-", {tstz, tstz}, iv, StrictFn<int64_t, int64_t>(kFn<TimestampDiff>));

  RegisterFn(r, "+", {time, iv}, time, StrictFn<int64_t, Interval>([](int64_t t, I v) { return TimeAddMicros(t, v.micros); }));
  RegisterFn(r, "+", {iv, time}, time, StrictFn<Interval, int64_t>([](I v, int64_t t) { return TimeAddMicros(t, v.micros); }));
  RegisterFn(r, "-", {time, iv}, time, StrictFn<int64_t, Interval>([](int64_t t, I v) { return TimeAddMicros(t, -v.micros); }));
  RegisterFn(r, "-", {time, time}, iv, StrictFn<int64_t, int64_t>([](int64_t a, int64_t b) { return Interval{0, 0, a - b}; }));

  RegisterFn(r, "+", {iv, iv}, iv, StrictFn<Interval, Interval>([](I a, I b) { return IntervalAdd(a, b); }));
  RegisterFn(r, "-", {iv, iv}, iv, StrictFn<Interval, Interval>([](I a, I b) { return IntervalAdd(a, IntervalNeg(b)); }));
  RegisterFn(r, "neg", {iv}, iv, StrictFn<Interval>([](I a) { return IntervalNeg(a); }));
  RegisterFn(r, "*", {iv, f8}, iv, StrictFn<Interval, double>([](I a, double f) { return IntervalMulDouble(a, f); }));
  RegisterFn(r, "*", {f8, iv}, iv, StrictFn<double, Interval>([](double f, I a) { return IntervalMulDouble(a, f); }));
  RegisterFn(r, "/", {iv, f8}, iv, StrictFn<Interval, double>([](I a, double f) { return IntervalDivDouble(a, f); }));
}

}  // namespace

void RegisterArithmeticFunctions(FunctionRegistry* r) {
  RegisterIntArithmetic<TypeId::kInt16>(r);
  RegisterIntArithmetic<TypeId::kInt32>(r);
  RegisterIntArithmetic<TypeId::kInt64>(r);
  RegisterFloatArithmetic<float>(r, DataType::Float32());
  RegisterFloatArithmetic<double>(r, DataType::Float64());
  RegisterNumericArithmetic(r);
  RegisterDatetimeArithmetic(r);
}

}  // namespace freshet
