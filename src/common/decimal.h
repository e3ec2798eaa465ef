// Decimal: the physical value of SQL `numeric`.
//
// A 128-bit signed integer scaled by 10^-scale, holding up to 38 significant
// digits (like DuckDB's DECIMAL(38)). PostgreSQL's numeric is unbounded; we
// raise SQLSTATE 22003 where a result would need more than 38 digits, never
// wrap or silently round. Arithmetic follows PostgreSQL's rules for the scale
// of the result (add/sub: max scale; mul: sum of scales; div: see
// PostgreSQL's select_div_scale, at least 16 significant digits).
//
// All functions are pure and thread-safe; errors are thrown as SqlError.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace freshet {

struct Decimal {
  __int128 value = 0;  // unscaled
  int32_t scale = 0;   // digits after the decimal point, 0..38; negative: a special value
};

inline constexpr int kMaxDecimalDigits = 38;

// PostgreSQL's special numeric values, a Decimal of value 0 and one of
// these scales. NaN equals itself and sorts above every other value
// (+Infinity included); arithmetic follows PostgreSQL 15 (Infinity -
// Infinity and 0 * Infinity are NaN, anything with NaN is NaN).
inline constexpr int32_t kDecimalNaN = -1, kDecimalInfinity = -2, kDecimalNegInfinity = -3;
inline Decimal DecimalSpecial(int32_t kind) { return Decimal{0, kind}; }
inline bool DecimalIsSpecial(const Decimal& d) { return d.scale < 0; }
inline bool DecimalIsNaN(const Decimal& d) { return d.scale == kDecimalNaN; }
inline bool DecimalIsInfinite(const Decimal& d) { return d.scale == kDecimalInfinity || d.scale == kDecimalNegInfinity; }
// -1, 0 or 1 (of an infinity too; 0 for NaN).
inline int DecimalSign(const Decimal& d) {
  if (d.scale == kDecimalInfinity) return 1;
  if (d.scale == kDecimalNegInfinity) return -1;
  return d.value < 0 ? -1 : d.value > 0 ? 1 : 0;
}

// Parses "12", "-1.50", "1e3", " 3.0 ", "NaN", "-Infinity", "inf" (any
// case). Throws 22P02 on bad syntax, 22003 when more than 38 digits would
// be needed.
Decimal DecimalFromString(std::string_view text);
// PostgreSQL's output: exactly `scale` digits after the point ("1.50", "-0.001", "12"), NaN, Infinity, -Infinity.
std::string DecimalToString(const Decimal& d);

Decimal DecimalFromInt(int64_t v);
// NaN and infinities become numeric's; throws 22003 for values beyond 38
// digits; keeps up to 15 significant digits like PostgreSQL's float8 ->
// numeric cast.
Decimal DecimalFromDouble(double v);
double DecimalToDouble(const Decimal& d);
// Rounds half away from zero; throws 22003 when outside int64 (or the
// narrower [lo, hi] range given), 0A000 for NaN and infinities.
int64_t DecimalToInt(const Decimal& d, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);

Decimal DecimalAdd(const Decimal& a, const Decimal& b);
Decimal DecimalSub(const Decimal& a, const Decimal& b);
Decimal DecimalMul(const Decimal& a, const Decimal& b);
// Throws 22012 on division by zero.
Decimal DecimalDiv(const Decimal& a, const Decimal& b);
// Sign follows the dividend, like PostgreSQL; throws 22012 on zero divisor.
Decimal DecimalMod(const Decimal& a, const Decimal& b);
Decimal DecimalNeg(const Decimal& a);
Decimal DecimalAbs(const Decimal& a);
// Negative, zero or positive; compares values, not representations (1.0 == 1.00).
int DecimalCompare(const Decimal& a, const Decimal& b);

// Round half away from zero to `scale` digits (negative scale rounds to tens,
// hundreds...). Result scale is max(scale, 0).
Decimal DecimalRound(const Decimal& d, int32_t scale);
Decimal DecimalTrunc(const Decimal& d, int32_t scale);
Decimal DecimalCeil(const Decimal& d);
Decimal DecimalFloor(const Decimal& d);
// Coerces to numeric(precision, scale): rounds to `scale`, then throws 22003
// "numeric field overflow" if more than precision - scale integer digits remain.
Decimal DecimalRescale(const Decimal& d, int32_t precision, int32_t scale);
// The square root of a finite d >= 0, rounded half up to `scale` digits,
// exactly (PostgreSQL's sqrt_var). The scale is lowered when 38 digits
// would not hold the integer part with it.
Decimal DecimalSqrt(const Decimal& d, int32_t scale);
// Same value -> same hash, whatever the scale (trailing zeros are ignored).
uint64_t DecimalHash(const Decimal& d);
// Removes trailing fractional zeros (1.500 -> 1.5); used for hashing and keys.
Decimal DecimalNormalize(const Decimal& d);

}  // namespace freshet
