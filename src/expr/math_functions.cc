// Mathematical functions.
//
// float8 functions follow PostgreSQL's float.c error checks. numeric
// transcendental functions (sqrt, exp, ln, log, power) are computed in long
// double (about 19 significant digits) and rounded to the result scale
// PostgreSQL would choose, except sqrt and integral powers, which are exact
// when they fit in 38 digits; PostgreSQL computes all of them exactly, so
// the last digits can differ for long results.

#include <cmath>
#include <numbers>
#include <random>

#include "expr/function_helpers.h"

namespace freshet {

namespace {

using D = const Decimal&;

// --- float8 -------------------------------------------------------------------

[[noreturn]] void ThrowOverflow() { ThrowOutOfRange("value out of range: overflow"); }
[[noreturn]] void ThrowUnderflow() { ThrowOutOfRange("value out of range: underflow"); }

double CheckFloatResult(double r, double arg) {
  if (std::isinf(r) && !std::isinf(arg)) ThrowOverflow();
  return r;
}

double Sqrt(double x) {
  if (x < 0) throw SqlError(sqlstate::kInvalidArgumentForPower, "cannot take square root of a negative number");
  return std::sqrt(x);
}

double CheckLogArg(double x) {
  if (x == 0) throw SqlError(sqlstate::kInvalidArgumentForLog, "cannot take logarithm of zero");
  if (x < 0) throw SqlError(sqlstate::kInvalidArgumentForLog, "cannot take logarithm of a negative number");
  return x;
}

double Exp(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? x : 0;
  double r = std::exp(x);
  if (std::isinf(r)) ThrowOverflow();
  if (r == 0) ThrowUnderflow();
  return r;
}

// PostgreSQL's dpow.
double Power(double a, double b) {
  if (std::isnan(a)) return (std::isnan(b) || b != 0) ? a : 1.0;
  if (std::isnan(b)) return a != 1 ? b : 1.0;
  if (a == 0 && b < 0) {
    throw SqlError(sqlstate::kInvalidArgumentForPower, "zero raised to a negative power is undefined");
  }
  if (a < 0 && std::floor(b) != b) {
    throw SqlError(sqlstate::kInvalidArgumentForPower,
                   "a negative number raised to a non-integer power yields a complex result");
  }
  double r = std::pow(a, b);
  if (std::isinf(r) && !std::isinf(a) && !std::isinf(b)) ThrowOverflow();
  if (r == 0 && a != 0 && !std::isinf(b)) ThrowUnderflow();
  return r;
}

double Sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

// --- numeric helpers ----------------------------------------------------------

__int128 Pow10(int k) {
  __int128 p = 1;
  while (k-- > 0) p *= 10;
  return p;
}

int DigitCount(unsigned __int128 v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

// floor(log10(|d|)), the decimal exponent of the leading digit (0 for 0).
int DecimalExponent(const Decimal& d) {
  if (d.value == 0) return 0;
  unsigned __int128 mag = d.value < 0 ? -static_cast<unsigned __int128>(d.value) : d.value;
  return DigitCount(mag) - 1 - d.scale;
}

bool IsIntegral(const Decimal& d) { return d.scale == 0 || d.value % Pow10(d.scale) == 0; }

// (int) truncation of log10(|x|), PostgreSQL's decimal-weight estimate.
int TruncLog10(long double x) { return x == 0 ? 0 : static_cast<int>(std::log10(std::fabs(x))); }

// Rounds v to `scale` digits; fewer when 38 digits would not hold them.
Decimal DecimalFromLongDouble(long double v, int scale) {
  if (!std::isfinite(v)) ThrowOverflow();
  int int_digits = std::fabs(v) >= 1 ? static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1 : 0;
  scale = std::max(0, std::min(scale, kMaxDecimalDigits - int_digits));
  if (int_digits > kMaxDecimalDigits) {
    throw SqlError(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
  }
  long double scaled = std::roundl(v * std::pow(10.0L, scale));
  return Decimal{static_cast<__int128>(scaled), scale};
}

long double ToLongDouble(const Decimal& d) {
  return static_cast<long double>(d.value) / std::pow(10.0L, d.scale);
}

int ClampScale(int rscale, std::initializer_list<int> input_scales) {
  for (int s : input_scales) rscale = std::max(rscale, s);
  return std::max(rscale, 0);
}

Decimal NumericSqrt(const Decimal& d) {
  if (DecimalIsNaN(d) || DecimalSign(d) > 0 && DecimalIsInfinite(d)) return d;
  if (DecimalSign(d) < 0) {
    throw SqlError(sqlstate::kInvalidArgumentForPower, "cannot take square root of a negative number");
  }
  // PostgreSQL's numeric_sqrt scale, from the base-10000 weight of the input.
  int weight = FloorDiv(DecimalExponent(d), 4);
  int sweight = (weight + 1) * 4 / 2 - 1;
  int rscale = ClampScale(16 - sweight, {d.scale});
  int int_digits = std::max(0, DecimalExponent(d) / 2 + 1);
  rscale = std::min(rscale, kMaxDecimalDigits - int_digits);
  return DecimalSqrt(d, rscale);
}

Decimal NumericExp(const Decimal& d) {
  if (DecimalIsNaN(d) || DecimalSign(d) > 0 && DecimalIsInfinite(d)) return d;
  if (DecimalIsInfinite(d)) return Decimal{0, 0};  // exp(-Infinity)
  long double x = ToLongDouble(d);
  long double r = std::exp(x);
  if (!std::isfinite(r)) throw SqlError(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
  int rscale = ClampScale(16 - static_cast<int>(x * 0.43429448190325182765L), {d.scale});
  return DecimalFromLongDouble(r, rscale);
}

long double CheckedLn(const Decimal& d) {
  if (DecimalSign(d) == 0) throw SqlError(sqlstate::kInvalidArgumentForLog, "cannot take logarithm of zero");
  if (DecimalSign(d) < 0) throw SqlError(sqlstate::kInvalidArgumentForLog, "cannot take logarithm of a negative number");
  return std::log(ToLongDouble(d));
}

Decimal NumericLn(const Decimal& d) {
  if (DecimalIsNaN(d)) return d;
  if (DecimalIsInfinite(d)) {
    CheckedLn(d);  // -Infinity: a negative number
    return d;
  }
  long double r = CheckedLn(d);
  return DecimalFromLongDouble(r, ClampScale(16 - TruncLog10(r), {d.scale}));
}

// log(base, x), PostgreSQL's log_var scale.
Decimal NumericLog(const Decimal& base, const Decimal& x) {
  if (DecimalIsSpecial(base) || DecimalIsSpecial(x)) {  // numeric_log's rules
    if (DecimalIsNaN(base) || DecimalIsNaN(x)) return DecimalSpecial(kDecimalNaN);
    int sb = DecimalSign(base), sx = DecimalSign(x);
    if (sb < 0 || sx < 0) throw SqlError(sqlstate::kInvalidArgumentForLog, "cannot take logarithm of a negative number");
    if (sb == 0 || sx == 0) throw SqlError(sqlstate::kInvalidArgumentForLog, "cannot take logarithm of zero");
    if (DecimalIsInfinite(base)) return DecimalIsInfinite(x) ? DecimalSpecial(kDecimalNaN) : Decimal{0, 0};
    return x;  // log(finite, Infinity)
  }
  long double lb = CheckedLn(base), lx = CheckedLn(x);
  if (lb == 0) ThrowDivisionByZero();
  int dweight = TruncLog10(lx) - TruncLog10(lb);
  return DecimalFromLongDouble(lx / lb, ClampScale(16 - dweight, {base.scale, x.scale}));
}

// Exact base^exp by squaring, or nullopt-like false on 38-digit overflow.
bool ExactIntPower(const Decimal& base, int64_t exp, Decimal* out) {
  try {
    Decimal result = DecimalFromInt(1), b = base;
    for (int64_t e = exp; e > 0; e >>= 1) {
      if (e & 1) result = DecimalMul(result, b);
      if (e > 1) b = DecimalMul(b, b);
    }
    *out = result;
    return true;
  } catch (const SqlError&) {
    return false;
  }
}

// numeric_power with a NaN or an infinity: POSIX pow(3)'s rules, as
// PostgreSQL follows them.
Decimal SpecialPower(const Decimal& base, const Decimal& exp) {
  const Decimal one = DecimalFromInt(1), zero{0, 0}, nan = DecimalSpecial(kDecimalNaN);
  if (DecimalIsNaN(base)) return !DecimalIsSpecial(exp) && DecimalSign(exp) == 0 ? one : nan;
  if (DecimalIsNaN(exp)) return !DecimalIsSpecial(base) && DecimalCompare(base, one) == 0 ? one : nan;
  int sb = DecimalSign(base), se = DecimalSign(exp);
  if (sb == 0 && se < 0)
    throw SqlError(sqlstate::kInvalidArgumentForPower, "zero raised to a negative power is undefined");
  bool exp_integral = DecimalIsInfinite(exp) || IsIntegral(exp);  // infinities count as integral
  if (sb < 0 && !exp_integral)
    throw SqlError(sqlstate::kInvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result");
  if (!DecimalIsSpecial(base) && DecimalCompare(base, one) == 0) return one;
  if (se == 0) return one;
  if (sb == 0) return zero;  // and exp > 0
  if (DecimalIsInfinite(exp)) {
    bool abs_base_above_one = true;  // an infinite base
    if (!DecimalIsSpecial(base)) {
      if (DecimalCompare(base, DecimalFromInt(-1)) == 0) return one;
      abs_base_above_one = DecimalCompare(DecimalAbs(base), one) > 0;
    }
    return abs_base_above_one == (se > 0) ? DecimalSpecial(kDecimalInfinity) : zero;
  }
  if (DecimalSign(base) > 0) return se > 0 ? DecimalSpecial(kDecimalInfinity) : zero;  // base Infinity
  // base -Infinity: an odd integral exponent keeps the sign.
  if (se < 0) return zero;
  bool odd = IsIntegral(exp) && DecimalCompare(DecimalMod(exp, DecimalFromInt(2)), zero) != 0;
  return DecimalSpecial(odd ? kDecimalNegInfinity : kDecimalInfinity);
}

Decimal NumericPower(const Decimal& base, const Decimal& exp) {
  if (DecimalIsSpecial(base) || DecimalIsSpecial(exp)) return SpecialPower(base, exp);
  if (base.value == 0 && exp.value < 0) {
    throw SqlError(sqlstate::kInvalidArgumentForPower, "zero raised to a negative power is undefined");
  }
  bool integral = IsIntegral(exp);
  if (base.value < 0 && !integral) {
    throw SqlError(sqlstate::kInvalidArgumentForPower,
                   "a negative number raised to a non-integer power yields a complex result");
  }
  long double b = ToLongDouble(base), e = ToLongDouble(exp);
  if (integral) {
    // PostgreSQL gives integral powers at least 16 fractional digits.
    int rscale = ClampScale(16, {base.scale, exp.scale});
    long double ie = std::fabs(e);
    Decimal exact;
    if (ie <= 1000 && ExactIntPower(base, static_cast<int64_t>(ie), &exact)) {
      try {
        if (e < 0) {
          // 1 / x at rscale digits: scale the dividend so DecimalDiv keeps them.
          Decimal one = DecimalRescale(DecimalFromInt(1), kMaxDecimalDigits, std::min(rscale + 1, 37));
          exact = DecimalDiv(one, exact);
        }
        int int_digits = std::max(0, DecimalExponent(exact) + 1);
        return DecimalRound(exact, std::min(rscale, kMaxDecimalDigits - int_digits));
      } catch (const SqlError&) {
        // fall through to the approximate path
      }
    }
    return DecimalFromLongDouble(std::pow(b, e), rscale);
  }
  long double r = std::pow(b, e);
  if (!std::isfinite(r)) throw SqlError(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
  int rscale = ClampScale(16 - static_cast<int>(e * std::log10(std::fabs(b))), {base.scale, exp.scale});
  return DecimalFromLongDouble(r, rscale);
}

Decimal NumericSign(const Decimal& d) { return DecimalIsNaN(d) ? d : DecimalFromInt(DecimalSign(d)); }

// --- gcd / lcm ------------------------------------------------------------------

template <typename U>
U Gcd(U a, U b) {
  while (b != 0) {
    U t = a % b;
    a = b;
    b = t;
  }
  return a;
}

template <TypeId T>
int64_t IntGcd(int64_t a, int64_t b) {
  uint64_t ua = a < 0 ? 0 - static_cast<uint64_t>(a) : a, ub = b < 0 ? 0 - static_cast<uint64_t>(b) : b;
  uint64_t g = Gcd(ua, ub);
  if (g > static_cast<uint64_t>(IntTraits<T>::kMax)) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
  return static_cast<int64_t>(g);
}

template <TypeId T>
int64_t IntLcm(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  int64_t g = IntGcd<T>(a, b);
  int64_t r;
  if (__builtin_mul_overflow(a / g, b, &r) || r == INT64_MIN) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
  return CheckIntRange<T>(r < 0 ? -r : r);
}

// Aligns both operands to the larger scale (unscaled magnitudes).
int AlignScales(const Decimal& a, const Decimal& b, unsigned __int128* ua, unsigned __int128* ub) {
  int scale = std::max(a.scale, b.scale);
  __int128 va = a.value * Pow10(scale - a.scale), vb = b.value * Pow10(scale - b.scale);
  *ua = va < 0 ? -static_cast<unsigned __int128>(va) : va;
  *ub = vb < 0 ? -static_cast<unsigned __int128>(vb) : vb;
  return scale;
}

Decimal NumericGcd(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) return DecimalSpecial(kDecimalNaN);
  unsigned __int128 ua, ub;
  int scale = AlignScales(a, b, &ua, &ub);
  return Decimal{static_cast<__int128>(Gcd(ua, ub)), scale};
}

Decimal NumericLcm(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) return DecimalSpecial(kDecimalNaN);
  unsigned __int128 ua, ub;
  int scale = AlignScales(a, b, &ua, &ub);
  if (ua == 0 || ub == 0) return Decimal{0, scale};
  __int128 r;
  if (__builtin_mul_overflow(static_cast<__int128>(ua / Gcd(ua, ub)), static_cast<__int128>(ub), &r) ||
      DigitCount(r) > kMaxDecimalDigits) {
    throw SqlError(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
  }
  return Decimal{r, scale};
}

// --- clamp (GreptimeDB) ---------------------------------------------------------------

// clamp(x, min, max): NULL x gives NULL; min and max must be non-NULL with
// min <= max (the binder also requires them to be constants).
template <typename T>
void ClampFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  ArgReader<T> x(*args[0]), lo(*args[1]), hi(*args[2]);
  out->Reserve(out->size() + n);
  for (size_t i = 0; i < n; i++) {
    if (args[1]->IsNull(i) || args[2]->IsNull(i)) {
      throw SqlError(sqlstate::kInvalidParameterValue, "clamp: min and max must not be NULL");
    }
    if (Compare3(lo[i], hi[i]) > 0) {
      throw SqlError(sqlstate::kInvalidParameterValue, "clamp: min must be less than or equal to max");
    }
    if (args[0]->IsNull(i)) {
      out->AppendNull();
    } else if (Compare3(x[i], lo[i]) < 0) {
      AppendResult(out, lo[i]);
    } else if (Compare3(x[i], hi[i]) > 0) {
      AppendResult(out, hi[i]);
    } else {
      AppendResult(out, x[i]);
    }
  }
}

// The binder checks that the bounds are constants, so no `check` hook.
void RegisterClamp(FunctionRegistry* r, DataType t, ScalarFn fn) { RegisterFn(r, "clamp", {t, t, t}, t, std::move(fn)); }

template <TypeId T>
void RegisterIntMath(FunctionRegistry* r) {
  DataType t(T);
  RegisterFn(r, "abs", {t}, t, StrictFn<int64_t>([](int64_t x) {
               if (x == IntTraits<T>::kMin) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
               return x < 0 ? -x : x;
             }));
  RegisterClamp(r, t, ClampFn<int64_t>);
}

}  // namespace

// div(y, x): the integer quotient, truncated toward zero (PostgreSQL's
// numeric_div_trunc), exact: both operands at one scale, then an integer
// division. NaN and infinities as the division gives them, truncated.
Decimal NumericDivTrunc(const Decimal& y, const Decimal& x) {
  if (DecimalIsSpecial(y) || DecimalIsSpecial(x)) return DecimalTrunc(DecimalDiv(y, x), 0);
  if (x.value == 0) ThrowDivisionByZero();
  const int32_t scale = std::max(y.scale, x.scale);
  const Decimal a = DecimalRescale(y, kMaxDecimalDigits, scale), b = DecimalRescale(x, kMaxDecimalDigits, scale);
  return Decimal{a.value / b.value, 0};
}

// factorial(n): n! as numeric; 2201E for negative n, as PostgreSQL.
Decimal NumericFactorial(int64_t n) {
  if (n < 0) throw SqlError(sqlstate::kInvalidParameterValue, "factorial of a negative number is undefined");
  Decimal result = DecimalFromInt(1);
  for (int64_t i = 2; i <= n; i++) result = DecimalMul(result, DecimalFromInt(i));
  return result;
}

// width_bucket(operand, low, high, count): which of `count` equal buckets
// between low and high holds operand (0 below, count + 1 above; the range
// may run downwards), as PostgreSQL 15's width_bucket_float8 and
// width_bucket_numeric: float8 in double arithmetic, numeric exactly (the
// truncated quotient of (operand - low) * count by (high - low)).
void CheckWidthBucketArguments(bool any_nan, bool bounds_infinite, bool bounds_equal, int64_t count) {
  if (count <= 0) throw SqlError("2201G", "count must be greater than zero");
  if (any_nan) throw SqlError("2201G", "operand, lower bound, and upper bound cannot be NaN");
  if (bounds_infinite) throw SqlError("2201G", "lower and upper bounds must be finite");
  if (bounds_equal) throw SqlError("2201G", "lower bound cannot equal upper bound");
}

int64_t WidthBucketFloat(double operand, double low, double high, int64_t count) {
  CheckWidthBucketArguments(std::isnan(operand) || std::isnan(low) || std::isnan(high),
                            std::isinf(low) || std::isinf(high), low == high, count);
  const bool up = low < high;
  if (up ? operand < low : operand > low) return 0;
  if (up ? operand >= high : operand <= high) {
    if (count == INT32_MAX) throw SqlError(sqlstate::kNumericValueOutOfRange, "integer out of range");
    return count + 1;
  }
  // PostgreSQL 15's arithmetic, to the bit: count * distance / range + 1
  // in double (the + 1 may round a quotient just under an integer up).
  // A range too wide for a double is halved first (PostgreSQL 16's fix).
  double distance = up ? operand - low : low - operand, range = up ? high - low : low - high;
  if (std::isinf(range)) distance /= 2, range = up ? high / 2 - low / 2 : low / 2 - high / 2;
  return static_cast<int64_t>(static_cast<double>(count) * distance / range + 1);
}

int64_t WidthBucketNumeric(const Decimal& operand, const Decimal& low, const Decimal& high, int64_t count) {
  CheckWidthBucketArguments(DecimalIsNaN(operand) || DecimalIsNaN(low) || DecimalIsNaN(high),
                            DecimalIsInfinite(low) || DecimalIsInfinite(high), DecimalCompare(low, high) == 0, count);
  const bool up = DecimalCompare(low, high) < 0;
  if (up ? DecimalCompare(operand, low) < 0 : DecimalCompare(operand, low) > 0) return 0;
  if (up ? DecimalCompare(operand, high) >= 0 : DecimalCompare(operand, high) <= 0) {
    if (count == INT32_MAX) throw SqlError(sqlstate::kNumericValueOutOfRange, "integer out of range");
    return count + 1;
  }
  const Decimal distance = up ? DecimalSub(operand, low) : DecimalSub(low, operand);
  const Decimal range = up ? DecimalSub(high, low) : DecimalSub(low, high);
  return DecimalToInt(NumericDivTrunc(DecimalMul(distance, DecimalFromInt(count)), range)) + 1;
}

// The digits after the point a numeric needs (min_scale), and the value
// with no more (trim_scale).
int32_t NumericMinScale(const Decimal& d) {
  int32_t scale = d.scale;
  __int128 v = d.value;
  while (scale > 0 && v % 10 == 0) v /= 10, scale--;
  return scale;
}

void RegisterMathFunctions(FunctionRegistry* r) {
  const DataType f4 = DataType::Float32(), f8 = DataType::Float64(), num = DataType::Numeric(),
                 i4 = DataType::Int32(), i8 = DataType::Int64();

  RegisterIntMath<TypeId::kInt16>(r);
  RegisterIntMath<TypeId::kInt32>(r);
  RegisterIntMath<TypeId::kInt64>(r);
  RegisterFn(r, "abs", {f4}, f4, StrictFn<double>([](double x) { return std::fabs(x); }));
  RegisterFn(r, "abs", {f8}, f8, StrictFn<double>([](double x) { return std::fabs(x); }));
  RegisterFn(r, "abs", {num}, num, StrictFn<Decimal>([](D x) { return DecimalAbs(x); }));
  RegisterClamp(r, f4, ClampFn<double>);
  RegisterClamp(r, f8, ClampFn<double>);
  RegisterClamp(r, num, ClampFn<Decimal>);

  // Rounding. float8 round is rint (half to even); numeric rounds half away from zero.
  RegisterFn(r, "round", {f8}, f8, StrictFn<double>([](double x) { return std::rint(x); }));
  RegisterFn(r, "round", {num}, num, StrictFn<Decimal>([](D x) { return DecimalRound(x, 0); }));
  RegisterFn(r, "round", {num, i4}, num,
             StrictFn<Decimal, int64_t>([](D x, int64_t s) { return DecimalRound(x, static_cast<int32_t>(s)); }));
  RegisterFn(r, "trunc", {f8}, f8, StrictFn<double>([](double x) { return std::trunc(x); }));
  RegisterFn(r, "trunc", {num}, num, StrictFn<Decimal>([](D x) { return DecimalTrunc(x, 0); }));
  RegisterFn(r, "trunc", {num, i4}, num,
             StrictFn<Decimal, int64_t>([](D x, int64_t s) { return DecimalTrunc(x, static_cast<int32_t>(s)); }));
  for (const char* name : {"ceil", "ceiling"}) {
    RegisterFn(r, name, {f8}, f8, StrictFn<double>([](double x) { return std::ceil(x); }));
    RegisterFn(r, name, {num}, num, StrictFn<Decimal>([](D x) { return DecimalCeil(x); }));
  }
  RegisterFn(r, "floor", {f8}, f8, StrictFn<double>([](double x) { return std::floor(x); }));
  RegisterFn(r, "floor", {num}, num, StrictFn<Decimal>([](D x) { return DecimalFloor(x); }));
  RegisterFn(r, "sign", {f8}, f8, StrictFn<double>(kFn<Sign>));
  RegisterFn(r, "sign", {num}, num, StrictFn<Decimal>(kFn<NumericSign>));

  // Powers, roots, logarithms.
  for (const char* name : {"power", "pow", "^"}) {
    RegisterFn(r, name, {f8, f8}, f8, StrictFn<double, double>(kFn<Power>));
    RegisterFn(r, name, {num, num}, num, StrictFn<Decimal, Decimal>(kFn<NumericPower>));
  }
  RegisterFn(r, "sqrt", {f8}, f8, StrictFn<double>(kFn<Sqrt>));
  RegisterFn(r, "sqrt", {num}, num, StrictFn<Decimal>(kFn<NumericSqrt>));
  RegisterFn(r, "cbrt", {f8}, f8, StrictFn<double>([](double x) { return std::cbrt(x); }));
  RegisterFn(r, "exp", {f8}, f8, StrictFn<double>(kFn<Exp>));
  RegisterFn(r, "exp", {num}, num, StrictFn<Decimal>(kFn<NumericExp>));
  RegisterFn(r, "ln", {f8}, f8, StrictFn<double>([](double x) { return CheckFloatResult(std::log(CheckLogArg(x)), x); }));
  RegisterFn(r, "ln", {num}, num, StrictFn<Decimal>(kFn<NumericLn>));
  RegisterFn(r, "log", {f8}, f8,
             StrictFn<double>([](double x) { return CheckFloatResult(std::log10(CheckLogArg(x)), x); }));
  RegisterFn(r, "log", {num}, num,
             StrictFn<Decimal>([](D x) { return NumericLog(Decimal{10, 0}, x); }));
  RegisterFn(r, "log", {num, num}, num, StrictFn<Decimal, Decimal>(kFn<NumericLog>));
  RegisterFn(r, "log10", {f8}, f8,
             StrictFn<double>([](double x) { return CheckFloatResult(std::log10(CheckLogArg(x)), x); }));
  RegisterFn(r, "log10", {num}, num, StrictFn<Decimal>([](D x) { return NumericLog(Decimal{10, 0}, x); }));
  RegisterFn(r, "div", {num, num}, num, StrictFn<Decimal, Decimal>(kFn<NumericDivTrunc>));
  RegisterFn(r, "factorial", {i8}, num, StrictFn<int64_t>(kFn<NumericFactorial>));
  RegisterFn(r, "width_bucket", {f8, f8, f8, i4}, i4, StrictFn<double, double, double, int64_t>(kFn<WidthBucketFloat>));
  RegisterFn(r, "width_bucket", {num, num, num, i4}, i4,
             StrictFn<Decimal, Decimal, Decimal, int64_t>(kFn<WidthBucketNumeric>));
  // scale and min_scale of NaN or an infinity are NULL; trim_scale keeps them.
  RegisterFn(r, "scale", {num}, i4, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrictEmit<Decimal>(args, n, out, [](Vector* o, D x) {
      if (DecimalIsSpecial(x)) o->AppendNull();
      else o->AppendInt(x.scale);
    });
  });
  RegisterFn(r, "min_scale", {num}, i4, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrictEmit<Decimal>(args, n, out, [](Vector* o, D x) {
      if (DecimalIsSpecial(x)) o->AppendNull();
      else o->AppendInt(NumericMinScale(x));
    });
  });
  RegisterFn(r, "trim_scale", {num}, num, StrictFn<Decimal>([](D x) {
               return DecimalIsSpecial(x) ? x : DecimalRescale(x, kMaxDecimalDigits, NumericMinScale(x));
             }));

  RegisterFn(r, "pi", {}, f8, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
    for (size_t i = 0; i < n; i++) out->AppendFloat(std::numbers::pi);
  });
  RegisterFn(r, "random", {}, f8, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    for (size_t i = 0; i < n; i++) out->AppendFloat(dist(rng));
  });

  RegisterFn(r, "gcd", {i4, i4}, i4, StrictFn<int64_t, int64_t>(kFn<IntGcd<TypeId::kInt32>>));
  RegisterFn(r, "gcd", {i8, i8}, i8, StrictFn<int64_t, int64_t>(kFn<IntGcd<TypeId::kInt64>>));
  RegisterFn(r, "gcd", {num, num}, num, StrictFn<Decimal, Decimal>(kFn<NumericGcd>));
  RegisterFn(r, "lcm", {i4, i4}, i4, StrictFn<int64_t, int64_t>(kFn<IntLcm<TypeId::kInt32>>));
  RegisterFn(r, "lcm", {i8, i8}, i8, StrictFn<int64_t, int64_t>(kFn<IntLcm<TypeId::kInt64>>));
  RegisterFn(r, "lcm", {num, num}, num, StrictFn<Decimal, Decimal>(kFn<NumericLcm>));
}

}  // namespace freshet
