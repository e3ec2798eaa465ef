#include "common/decimal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include "common/error.h"

namespace freshet {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

constexpr int kMaxScale = kMaxDecimalDigits;

// 10^0 .. 10^38; 10^38 < 2^127, so every entry fits a signed __int128.
struct Pow10Table {
  u128 v[kMaxDecimalDigits + 1];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i <= kMaxDecimalDigits; i++) v[i] = v[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;
constexpr u128 kLimit = kPow10.v[kMaxDecimalDigits];  // magnitudes must stay below

u128 Pow10(int k) { return kPow10.v[k]; }

u128 Magnitude(i128 v) { return v < 0 ? u128(0) - u128(v) : u128(v); }

[[noreturn]] void ThrowOverflow() {
  throw SqlError(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
}

[[noreturn]] void ThrowDivByZero() { throw SqlError(sqlstate::kDivisionByZero, "division by zero"); }

// Builds a Decimal from a sign and a magnitude, enforcing the 38-digit limit.
Decimal Make(bool negative, u128 mag, int scale) {
  if (mag >= kLimit || scale > kMaxScale) ThrowOverflow();
  i128 v = i128(mag);
  return Decimal{negative ? -v : v, scale};
}

int DigitCount(u128 v) {
  int n = 0;
  while (v != 0) {
    v /= 10;
    n++;
  }
  return n;
}

// mag / 10^k rounded half away from zero (k >= 0; any k).
u128 ShiftDownRound(u128 mag, int k) {
  if (k == 0) return mag;
  if (k > kMaxDecimalDigits) return 0;  // mag < 10^38 <= half of 10^39
  u128 q = mag / Pow10(k);
  u128 r = mag % Pow10(k);
  if (r >= Pow10(k) / 2) q++;
  return q;
}

u128 ShiftDownTrunc(u128 mag, int k) { return k > kMaxDecimalDigits ? 0 : mag / Pow10(k); }

// mag * 10^k, or false when the result would reach 10^38.
bool ShiftUp(u128 mag, int k, u128* out) {
  if (k > kMaxDecimalDigits) {
    *out = 0;
    return mag == 0;
  }
  u128 r;
  if (__builtin_mul_overflow(mag, Pow10(k), &r) || r >= kLimit) return false;
  *out = r;
  return true;
}

// A 256-bit unsigned magnitude, enough for aligning two 38-digit values to a
// common scale (at most 76 digits) without overflow.
struct U256 {
  u128 hi = 0, lo = 0;
};

U256 Mul128(u128 a, u128 b) {
  const u128 mask = ~uint64_t(0);
  u128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  u128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  U256 r;
  r.lo = (p00 & mask) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

int Cmp256(const U256& a, const U256& b) {
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
  return 0;
}

U256 Add256(const U256& a, const U256& b) {
  U256 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo ? 1 : 0);
  return r;
}

U256 Sub256(const U256& a, const U256& b) {  // requires a >= b
  U256 r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo ? 1 : 0);
  return r;
}

// |d| at `scale` (>= d.scale) as a 256-bit magnitude.
U256 Aligned(const Decimal& d, int scale) {
  int k = scale - d.scale;
  return Mul128(Magnitude(d.value), Pow10(k));
}

// Signed addition of two decimals given as (negative, magnitude) at one scale.
Decimal AddAligned(bool na, const U256& a, bool nb, const U256& b, int scale) {
  bool neg;
  U256 mag;
  if (na == nb) {
    neg = na;
    mag = Add256(a, b);
  } else if (Cmp256(a, b) >= 0) {
    neg = na;
    mag = Sub256(a, b);
  } else {
    neg = nb;
    mag = Sub256(b, a);
  }
  if (mag.hi != 0) ThrowOverflow();
  if (mag.lo == 0) neg = false;
  return Make(neg, mag.lo, scale);
}

// floor(10 * rem / div) and 10 * rem mod div, for rem < div < 2^127, without
// overflowing: adds rem ten times, keeping the accumulator below div.
int NextDigit(u128* rem, u128 div) {
  u128 acc = 0;
  int digit = 0;
  for (int i = 0; i < 10; i++) {
    acc += *rem;  // acc < div and rem < div: no overflow below 2^128
    if (acc >= div) {
      acc -= div;
      digit++;
    }
  }
  *rem = acc;
  return digit;
}

// round(a / b * 10^f) half away from zero, given that the result is known to
// be below 10^38 before rounding (it may reach 10^38 after).
u128 DivRound(u128 a, u128 b, int f) {
  u128 q = a / b;
  u128 rem = a % b;
  if (f < 0) return ShiftDownRound(q, -f);
  for (int i = 0; i < f; i++) q = q * 10 + NextDigit(&rem, b);
  if (NextDigit(&rem, b) >= 5) q++;
  return q;
}

// floor(log10(a / b)) for non-zero a and b.
int QuotientExponent(u128 a, u128 b) {
  int l = DigitCount(a) - DigitCount(b);
  bool below = l >= 0 ? a < b * Pow10(l) : a * Pow10(-l) < b;
  return below ? l - 1 : l;
}

// PostgreSQL's select_div_scale works on base-10000 digits: the weight of the
// first non-zero group and its value.
struct NbaseLead {
  int weight = 0;
  int first = 0;
};

int FloorDiv(int a, int b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

NbaseLead LeadGroup(const Decimal& d) {
  NbaseLead r;
  u128 mag = Magnitude(d.value);
  if (mag == 0) return r;
  int exp = DigitCount(mag) - 1 - d.scale;  // decimal exponent of the lead digit
  r.weight = FloorDiv(exp, 4);
  int shift = 4 * r.weight + d.scale;  // mag / 10^shift = value / 10000^weight
  u128 group = shift >= 0 ? mag / Pow10(shift) : mag * Pow10(-shift);
  r.first = int(group);
  return r;
}

int SelectDivScale(const Decimal& a, const Decimal& b) {
  NbaseLead la = LeadGroup(a), lb = LeadGroup(b);
  int qweight = la.weight - lb.weight;
  if (la.first <= lb.first) qweight--;
  int rscale = 16 - qweight * 4;  // NUMERIC_MIN_SIG_DIGITS, DEC_DIGITS
  rscale = std::max({rscale, int(a.scale), int(b.scale), 0});
  return std::min(rscale, 1000);
}

std::string MagnitudeDigits(u128 mag) {
  if (mag == 0) return "0";
  char buf[48];
  int pos = sizeof(buf);
  while (mag != 0) {
    buf[--pos] = char('0' + int(mag % 10));
    mag /= 10;
  }
  return std::string(buf + pos, sizeof(buf) - pos);
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

[[noreturn]] void ThrowBadSyntax(std::string_view text) {
  throw SqlError(sqlstate::kInvalidTextRepresentation,
                 fmt::format("invalid input syntax for type numeric: \"{}\"", text));
}

// PostgreSQL's spellings of numeric's special values (numeric_in).
std::optional<Decimal> SpecialValue(std::string_view s) {
  if (EqualsNoCase(s, "nan")) return DecimalSpecial(kDecimalNaN);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (EqualsNoCase(s, "infinity") || EqualsNoCase(s, "inf"))
    return DecimalSpecial(negative ? kDecimalNegInfinity : kDecimalInfinity);
  return std::nullopt;
}

Decimal NaN() { return DecimalSpecial(kDecimalNaN); }
Decimal Infinity(bool negative) { return DecimalSpecial(negative ? kDecimalNegInfinity : kDecimalInfinity); }

}  // namespace

Decimal DecimalFromString(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  if (std::optional<Decimal> special = SpecialValue(s)) return *special;
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::string digits;  // significant digits, integer and fraction together
  int frac_digits = 0;
  bool seen_digit = false, seen_point = false;
  for (; i < s.size(); i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      seen_digit = true;
      if (seen_point) frac_digits++;
      if (!(digits.empty() && c == '0')) digits.push_back(c);  // drop leading zeros
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) ThrowBadSyntax(text);
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool exp_neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_neg = s[i++] == '-';
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) ThrowBadSyntax(text);
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); i++) {
      if (exponent < 1000000) exponent = exponent * 10 + (s[i] - '0');  // saturate: overflows below
    }
    if (exp_neg) exponent = -exponent;
  }
  if (i != s.size()) ThrowBadSyntax(text);
  // value = digits * 10^(exponent - frac_digits); display scale as PostgreSQL.
  int64_t scale = std::max<int64_t>(0, frac_digits - exponent);
  int64_t zeros = exponent - frac_digits + scale;  // trailing zeros to append
  if (scale > kMaxScale) ThrowOverflow();
  if (digits.empty()) return Decimal{0, int32_t(scale)};
  if (int64_t(digits.size()) + zeros > kMaxDecimalDigits) ThrowOverflow();
  u128 mag = 0;
  for (char c : digits) mag = mag * 10 + u128(c - '0');
  mag *= Pow10(int(zeros));
  return Make(negative, mag, int(scale));
}

std::string DecimalToString(const Decimal& d) {
  if (DecimalIsNaN(d)) return "NaN";
  if (DecimalIsInfinite(d)) return DecimalSign(d) > 0 ? "Infinity" : "-Infinity";
  std::string digits = MagnitudeDigits(Magnitude(d.value));
  std::string out = d.value < 0 ? "-" : "";
  if (d.scale <= 0) return out + digits;
  if (int(digits.size()) <= d.scale) digits.insert(0, d.scale + 1 - digits.size(), '0');
  size_t int_len = digits.size() - d.scale;
  out.append(digits, 0, int_len);
  out.push_back('.');
  out.append(digits, int_len, std::string::npos);
  return out;
}

Decimal DecimalFromInt(int64_t v) { return Decimal{i128(v), 0}; }

Decimal DecimalFromDouble(double v) {
  if (std::isnan(v)) return NaN();
  if (std::isinf(v)) return Infinity(v < 0);
  // PostgreSQL's float8_numeric prints DBL_DIG (15) significant digits and parses that.
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return DecimalFromString(buf);
}

double DecimalToDouble(const Decimal& d) {
  // Like PostgreSQL's numeric_float8: through the text form, so the result is
  // the double nearest to the exact decimal value.
  if (DecimalIsNaN(d)) return std::numeric_limits<double>::quiet_NaN();
  if (DecimalIsInfinite(d)) return DecimalSign(d) * std::numeric_limits<double>::infinity();
  std::string s = DecimalToString(d);
  return std::strtod(s.c_str(), nullptr);
}

int64_t DecimalToInt(const Decimal& d, int64_t lo, int64_t hi) {
  const char* type = "bigint";
  if (lo == INT32_MIN && hi == INT32_MAX) type = "integer";
  if (lo == INT16_MIN && hi == INT16_MAX) type = "smallint";
  if (DecimalIsSpecial(d))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "cannot convert {} to {}", DecimalIsNaN(d) ? "NaN" : "infinity", type);
  u128 mag = ShiftDownRound(Magnitude(d.value), d.scale);
  i128 v = d.value < 0 ? -i128(mag) : i128(mag);
  if (v < lo || v > hi) {
    throw SqlError(sqlstate::kNumericValueOutOfRange, fmt::format("{} out of range", type));
  }
  return int64_t(v);
}

Decimal DecimalAdd(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) {
    if (DecimalIsNaN(a) || DecimalIsNaN(b)) return NaN();
    if (DecimalIsInfinite(a) && DecimalIsInfinite(b) && DecimalSign(a) != DecimalSign(b)) return NaN();
    return DecimalIsInfinite(a) ? a : b;
  }
  int scale = std::max(a.scale, b.scale);
  return AddAligned(a.value < 0, Aligned(a, scale), b.value < 0, Aligned(b, scale), scale);
}

Decimal DecimalSub(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) return DecimalAdd(a, DecimalNeg(b));
  int scale = std::max(a.scale, b.scale);
  return AddAligned(a.value<0, Aligned(a, scale), b.value> 0, Aligned(b, scale), scale);
}

Decimal DecimalMul(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) {
    int sign = DecimalSign(a) * DecimalSign(b);  // an infinity times 0 is NaN
    if (DecimalIsNaN(a) || DecimalIsNaN(b) || sign == 0) return NaN();
    return Infinity(sign < 0);
  }
  u128 mag;
  if (__builtin_mul_overflow(Magnitude(a.value), Magnitude(b.value), &mag)) ThrowOverflow();
  bool neg = (a.value < 0) != (b.value < 0) && mag != 0;
  return Make(neg, mag, a.scale + b.scale);
}

namespace {

// v * m, m < 2^64; throws 22003 beyond 256 bits.
U256 Mul256Small(const U256& v, u128 m) {
  U256 low = Mul128(v.lo, m), high = Mul128(v.hi, m);
  if (high.hi != 0) ThrowOverflow();
  U256 r = Add256(low, U256{high.lo, 0});
  if (r.hi < low.hi) ThrowOverflow();
  return r;
}

// (v + 5) / 10: v / 10 rounded half up, by 64-bit limbs.
U256 Div10Rounded256(const U256& v) {
  const U256 w = Add256(v, U256{0, 5});
  const u128 mask = ~uint64_t(0);
  u128 limbs[4] = {w.hi >> 64, w.hi & mask, w.lo >> 64, w.lo & mask};
  u128 rest = 0;
  for (u128& limb : limbs) {
    const u128 cur = (rest << 64) | limb;
    limb = cur / 10;
    rest = cur % 10;
  }
  return U256{(limbs[0] << 64) | limbs[1], (limbs[2] << 64) | limbs[3]};
}

U256 Shr256(const U256& v, int k) { return U256{v.hi >> k, (v.lo >> k) | (v.hi << (128 - k))}; }  // 0 < k < 128
bool IsZero256(const U256& v) { return v.hi == 0 && v.lo == 0; }

// floor(sqrt(v)), bit by bit.
U256 Isqrt256(U256 v) {
  U256 root, bit{u128(1) << 126, 0};  // 4^127
  while (Cmp256(v, bit) < 0 && !IsZero256(bit)) bit = Shr256(bit, 2);
  while (!IsZero256(bit)) {
    const U256 trial = Add256(root, bit);
    if (Cmp256(v, trial) >= 0) {
      v = Sub256(v, trial);
      root = Add256(Shr256(root, 1), bit);
    } else {
      root = Shr256(root, 1);
    }
    bit = Shr256(bit, 2);
  }
  return root;
}

}  // namespace

Decimal DecimalSqrt(const Decimal& d, int32_t scale) {
  const int exponent = static_cast<int>(MagnitudeDigits(Magnitude(d.value)).size()) - 1 - d.scale;  // of d's first digit
  const int int_digits = std::max(0, exponent / 2 + 1);  // the root's
  scale = std::max(0, std::min(scale, kMaxDecimalDigits - int_digits));
  if (d.value == 0) return Decimal{0, scale};
  // sqrt(v / 10^s) * 10^R = sqrt(v * 10^(2R - s)), with one more digit to
  // round: exact, in 256 bits.
  const int shift = 2 * scale - d.scale + 2;
  // (The radicand has at most 2 * 39 digits: below 2^256.)
  u128 mag = Magnitude(d.value);
  if (shift < 0) mag /= Pow10(std::min(-shift, kMaxDecimalDigits));  // digits below the result's: dropped
  U256 v{0, mag};
  for (int left = std::max(shift, 0); left > 0; left -= 19) v = Mul256Small(v, Pow10(std::min(left, 19)));
  const U256 root = Div10Rounded256(Isqrt256(v));
  if (root.hi != 0 || root.lo >= kLimit) ThrowOverflow();
  return Decimal{static_cast<i128>(root.lo), scale};
}

Decimal DecimalDiv(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) {  // numeric_div's order
    if (DecimalIsNaN(a) || DecimalIsNaN(b)) return NaN();
    if (DecimalIsInfinite(a)) {
      if (DecimalIsInfinite(b)) return NaN();
      if (DecimalSign(b) == 0) ThrowDivByZero();
      return Infinity(DecimalSign(a) != DecimalSign(b));
    }
    return Decimal{0, 0};  // finite / infinity
  }
  if (b.value == 0) ThrowDivByZero();
  int rscale = SelectDivScale(a, b);
  u128 ma = Magnitude(a.value), mb = Magnitude(b.value);
  if (ma == 0) return Decimal{0, std::min(rscale, kMaxScale)};
  // quotient = ma / mb * 10^e; keep at most 38 digits by giving up scale.
  int e = b.scale - a.scale;
  int int_digits = std::max(0, QuotientExponent(ma, mb) + e + 1);
  int scale = std::min(rscale, kMaxDecimalDigits - int_digits);
  if (scale < 0) ThrowOverflow();
  u128 q = DivRound(ma, mb, e + scale);
  if (q >= kLimit) {  // rounding carried into a 39th digit (99.9.. -> 100.0..)
    if (scale == 0) ThrowOverflow();
    scale--;
    q /= 10;
  }
  bool neg = (a.value < 0) != (b.value < 0) && q != 0;
  return Make(neg, q, scale);
}

Decimal DecimalMod(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) {  // numeric_mod's order
    if (DecimalIsNaN(a) || DecimalIsNaN(b)) return NaN();
    if (DecimalIsInfinite(a)) {
      if (DecimalSign(b) == 0 && !DecimalIsInfinite(b)) ThrowDivByZero();
      return NaN();
    }
    return a;  // finite % infinity
  }
  if (b.value == 0) ThrowDivByZero();
  int scale = std::max(a.scale, b.scale);
  u128 ma = Magnitude(a.value), mb = Magnitude(b.value);
  u128 rem;
  if (a.scale >= b.scale) {
    // When |b| at a's scale reaches 10^38 it exceeds |a|, so a is the remainder.
    u128 divisor;
    if (!ShiftUp(mb, a.scale - b.scale, &divisor)) return Decimal{a.value, scale};
    rem = ma % divisor;
  } else {
    // (ma * 10^k) mod mb, one decimal digit at a time to avoid overflow.
    rem = ma % mb;
    for (int i = 0; i < b.scale - a.scale; i++) NextDigit(&rem, mb);
  }
  return Make(a.value < 0 && rem != 0, rem, scale);
}

Decimal DecimalNeg(const Decimal& a) {
  if (DecimalIsInfinite(a)) return Infinity(DecimalSign(a) > 0);
  return Decimal{-a.value, a.scale};
}

Decimal DecimalAbs(const Decimal& a) {
  if (DecimalIsInfinite(a)) return Infinity(false);
  return Decimal{a.value < 0 ? -a.value : a.value, a.scale};
}

int DecimalCompare(const Decimal& a, const Decimal& b) {
  if (DecimalIsSpecial(a) || DecimalIsSpecial(b)) {
    // -Infinity < finite values < Infinity < NaN (PostgreSQL's cmp_numerics).
    auto rank = [](const Decimal& d) {
      return DecimalIsNaN(d) ? 3 : d.scale == kDecimalInfinity ? 2 : d.scale == kDecimalNegInfinity ? 0 : 1;
    };
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ra != 1) return 0;
  }
  int sa = a.value < 0 ? -1 : (a.value > 0 ? 1 : 0);
  int sb = b.value < 0 ? -1 : (b.value > 0 ? 1 : 0);
  if (sa != sb) return sa < sb ? -1 : 1;
  int scale = std::max(a.scale, b.scale);
  int c = Cmp256(Aligned(a, scale), Aligned(b, scale));
  return sa < 0 ? -c : c;
}

Decimal DecimalRound(const Decimal& d, int32_t scale) {
  if (DecimalIsSpecial(d)) return d;
  bool neg = d.value < 0;
  u128 mag = Magnitude(d.value);
  if (scale >= d.scale) {
    u128 out;
    if (scale > kMaxScale || !ShiftUp(mag, scale - d.scale, &out)) ThrowOverflow();
    return Make(neg, out, scale);
  }
  scale = std::max(scale, -2 * kMaxDecimalDigits);  // rounds everything to 0 anyway
  u128 q = ShiftDownRound(mag, d.scale - scale);
  // Rounded to tens, hundreds...: scale back up at scale 0.
  if (scale < 0 && q != 0 && !ShiftUp(q, -scale, &q)) ThrowOverflow();
  return Make(neg && q != 0, q, std::max(scale, 0));
}

Decimal DecimalTrunc(const Decimal& d, int32_t scale) {
  if (DecimalIsSpecial(d)) return d;
  bool neg = d.value < 0;
  u128 mag = Magnitude(d.value);
  if (scale >= d.scale) return DecimalRound(d, scale);  // only pads zeros
  scale = std::max(scale, -2 * kMaxDecimalDigits);
  u128 q = ShiftDownTrunc(mag, d.scale - scale);
  if (scale < 0 && q != 0) q *= Pow10(-scale);  // <= |d|, cannot overflow
  return Make(neg && q != 0, q, std::max(scale, 0));
}

Decimal DecimalCeil(const Decimal& d) {
  if (DecimalIsSpecial(d)) return d;
  Decimal t = DecimalTrunc(d, 0);
  if (d.value > 0 && DecimalCompare(t, d) != 0) t.value += 1;
  return t;
}

Decimal DecimalFloor(const Decimal& d) {
  if (DecimalIsSpecial(d)) return d;
  Decimal t = DecimalTrunc(d, 0);
  if (d.value < 0 && DecimalCompare(t, d) != 0) t.value -= 1;
  return t;
}

Decimal DecimalRescale(const Decimal& d, int32_t precision, int32_t scale) {
  if (DecimalIsNaN(d)) return d;
  if (DecimalIsInfinite(d))
    throw SqlError(sqlstate::kNumericValueOutOfRange, "numeric field overflow")
        .WithDetail(fmt::format("A field with precision {}, scale {} cannot hold an infinite value.", precision, scale));
  Decimal r = DecimalRound(d, scale);
  // PostgreSQL's apply_typmod: at most precision - scale integer digits.
  int max_int_digits = precision - scale;
  u128 mag = Magnitude(r.value);
  bool fits;
  if (mag == 0) {
    fits = true;
  } else {
    int int_exp = DigitCount(mag) - r.scale;  // number of integer digits (may be <= 0)
    fits = int_exp <= max_int_digits;
  }
  if (!fits) {
    std::string limit = max_int_digits != 0 ? fmt::format("10^{}", max_int_digits) : "1";
    throw SqlError(sqlstate::kNumericValueOutOfRange, "numeric field overflow")
        .WithDetail(
            fmt::format("A field with precision {}, scale {} must round to an absolute value less than {}.",
                        precision, scale, limit));
  }
  return r;
}

Decimal DecimalNormalize(const Decimal& d) {
  if (DecimalIsSpecial(d)) return d;
  if (d.value == 0) return Decimal{0, 0};
  Decimal r = d;
  while (r.scale > 0 && r.value % 10 == 0) {
    r.value /= 10;
    r.scale--;
  }
  return r;
}

uint64_t DecimalHash(const Decimal& d) {
  Decimal n = DecimalNormalize(d);
  u128 v = u128(n.value);
  auto mix = [](uint64_t x) {  // splitmix64 finalizer
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  uint64_t h = mix(uint64_t(v));
  h = mix(h ^ uint64_t(v >> 64));
  return mix(h ^ uint64_t(n.scale));
}

}  // namespace freshet
