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
  int32_t scale = 0;   // digits after the decimal point, 0..38
};

inline constexpr int kMaxDecimalDigits = 38;

// Parses "12", "-1.50", "1e3", " 3.0 ". Throws 22P02 on bad syntax, 22003 when
// more than 38 digits would be needed.
Decimal DecimalFromString(std::string_view text);
// PostgreSQL's output: exactly `scale` digits after the point ("1.50", "-0.001", "12").
std::string DecimalToString(const Decimal& d);

Decimal DecimalFromInt(int64_t v);
// Throws 22003 for NaN/infinity or values beyond 38 digits; keeps up to 15
// significant digits like PostgreSQL's float8 -> numeric cast.
Decimal DecimalFromDouble(double v);
double DecimalToDouble(const Decimal& d);
// Rounds half away from zero; throws 22003 when outside int64 (or the
// narrower [lo, hi] range given).
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
// Same value -> same hash, whatever the scale (trailing zeros are ignored).
uint64_t DecimalHash(const Decimal& d);
// Removes trailing fractional zeros (1.500 -> 1.5); used for hashing and keys.
Decimal DecimalNormalize(const Decimal& d);

}  // namespace freshet
