#include "expr/cast.h"

#include "common/hex.h"
#include "common/json.h"
#include "common/uuid.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/enum_type.h"
#include "common/error.h"
#include "common/limits.h"
#include "expr/array.h"
#include "expr/struct.h"
#include "expr/function_helpers.h"
#include "expr/oid.h"

namespace freshet {

namespace {

// PostgreSQL's type categories (pg_type.typcategory); casts and common
// types are resolved within a category.
enum class Category { kBoolean, kNumeric, kString, kUser, kDatetime, kTimespan, kArray, kComposite, kUnknown };

Category CategoryOf(TypeId t) {
  switch (t) {
    case TypeId::kBoolean: return Category::kBoolean;
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kNumeric:
    case TypeId::kOid: return Category::kNumeric;  // oid's typcategory is N in PostgreSQL
    case TypeId::kArray: return Category::kArray;
    case TypeId::kStruct: return Category::kComposite;
    case TypeId::kEnum: return Category::kUser;
    case TypeId::kVarchar: return Category::kString;
    case TypeId::kBytea: return Category::kUser;
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
    case TypeId::kTimestamptz: return Category::kDatetime;
    case TypeId::kInterval: return Category::kTimespan;
    case TypeId::kUnknown: return Category::kUnknown;
  }
  return Category::kUnknown;
}

// The preferred type of each category (pg_type.typispreferred).
bool IsPreferred(TypeId t) {
  return t == TypeId::kBoolean || t == TypeId::kFloat64 || t == TypeId::kVarchar ||
         t == TypeId::kTimestamptz || t == TypeId::kInterval;
}

// Position in the implicit numeric cast chain int2 < int4 < int8 < numeric < float4 < float8.
int NumericRank(TypeId t) {
  switch (t) {
    case TypeId::kInt16: return 0;
    case TypeId::kInt32: return 1;
    case TypeId::kInt64: return 2;
    case TypeId::kNumeric: return 3;
    case TypeId::kFloat32: return 4;
    case TypeId::kFloat64: return 5;
    default: return -1;
  }
}

// 'now', 'today' & co. read the statement's time in the session's zone.
DatetimeClock ClockOf(const EvalContext& ctx) { return DatetimeClock{ctx.statement_time, &ctx.time_zone}; }

// Only numeric(p,s), varchar(n), character(n) and timestamp(p) carry
// modifiers that change values.
bool HasModifiers(const DataType& t) {
  if (t.id == TypeId::kTimestamp || t.id == TypeId::kTimestamptz || t.id == TypeId::kTimestampNs)
    return t.precision >= 0 && t.precision < (t.id == TypeId::kTimestampNs ? 9 : 6);
  return t.precision >= 0 && (t.id == TypeId::kNumeric || t.id == TypeId::kVarchar);
}

// The step timestamp(p)'s values are rounded to, in the type's own unit
// (microseconds, nanoseconds for TimestampNs): 1 when nothing rounds.
int64_t TimestampRoundingUnit(const DataType& t) {
  int64_t unit = 1;
  for (int32_t d = t.FractionalDigits(); d < (t.id == TypeId::kTimestampNs ? 9 : 6); d++) unit *= 10;
  return unit;
}

// Rounds the timestamps in `v` to its type's precision, in place.
void RoundTimestamps(Vector* v) {
  const int64_t unit = TimestampRoundingUnit(v->type());
  if (unit == 1) return;
  const bool nanos = v->type().id == TypeId::kTimestampNs;
  for (size_t i = 0; i < v->size(); i++)
    if (!v->IsNull(i)) v->ints()[i] = RoundTimestamp(v->ints()[i], unit, nanos);
}

[[noreturn]] void ThrowCannotCast(const DataType& from, const DataType& to) {
  throw SqlError(sqlstate::kCannotCoerce, fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

[[noreturn]] void ThrowInvalidSyntax(const char* type, std::string_view text) {
  throw SqlError(sqlstate::kInvalidTextRepresentation,
                 fmt::format("invalid input syntax for type {}: \"{}\"", type, text));
}

// --- Text output -----------------------------------------------------------

// IEEE layout of double (52, 1023) or float (23, 127).
struct FloatFormat {
  int mbits;
  int bias;
};

// True if the decimal `sci` ("-1.25e+03") lies exactly halfway between the
// binary float with (sign-less) bits `bits` and one of its neighbours.
bool IsRoundingTie(std::string_view sci, uint64_t bits, FloatFormat fmt) {
  size_t e = sci.find('e');
  uint64_t digits = 0;
  int ndigits = 0;
  for (char c : sci.substr(0, e)) {
    if (c >= '0' && c <= '9') {
      digits = digits * 10 + (c - '0');
      ndigits++;
    }
  }
  int exp10 = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp10);
  exp10 -= ndigits - 1;  // value = digits * 10^exp10
  if (digits == 0) return false;
  int t = __builtin_ctzll(digits);
  uint64_t u = digits >> t;  // odd part
  uint64_t frac = bits & ((uint64_t{1} << fmt.mbits) - 1);
  int biased = static_cast<int>(bits >> fmt.mbits);
  uint64_t m = biased == 0 ? frac : frac | (uint64_t{1} << fmt.mbits);
  int e2 = (biased == 0 ? 1 : biased) - fmt.bias - fmt.mbits;
  // Midpoints num * 2^exp (num odd) above and below d; below is closer
  // at the bottom of a binade.
  struct Mid {
    unsigned __int128 num;
    int exp;
  };
  Mid mids[2] = {{2 * static_cast<unsigned __int128>(m) + 1, e2 - 1},
                 {frac == 0 && biased > 1 ? 4 * static_cast<unsigned __int128>(m) - 1 : 2 * static_cast<unsigned __int128>(m) - 1,
                  frac == 0 && biased > 1 ? e2 - 2 : e2 - 1}};
  for (const Mid& mid : mids) {
    // digits * 10^exp10 == u * 5^exp10 * 2^(t + exp10)
    if (t + exp10 != mid.exp) continue;
    unsigned __int128 lhs = u, rhs = mid.num;
    for (int k = 0; k < std::abs(exp10); k++) {
      unsigned __int128& side = exp10 > 0 ? lhs : rhs;
      side *= 5;
      if (side > (static_cast<unsigned __int128>(1) << 100)) break;
    }
    if (lhs == rhs) return true;
  }
  return false;
}

// Shortest round-trip digits in exponent form, as PostgreSQL's Ryu-based
// float8out/float4out produce them: unlike std::to_chars, PostgreSQL does
// not use a decimal that only reads back correctly through round-half-even,
// and prints more digits instead.
std::string ShortestScientific(double d, bool is_float4) {
  char buf[64];
  uint64_t bits;
  FloatFormat fmt;
  if (is_float4) {
    float f = static_cast<float>(d);
    uint32_t b32;
    std::memcpy(&b32, &f, sizeof(b32));
    bits = b32 & 0x7FFFFFFF;
    fmt = {23, 127};
  } else {
    std::memcpy(&bits, &d, sizeof(bits));
    bits &= ~(uint64_t{1} << 63);
    fmt = {52, 1023};
  }
  auto r = is_float4 ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(d), std::chars_format::scientific)
                     : std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  if (!IsRoundingTie(s, bits, fmt)) return std::string(s);
  size_t e = s.find('e'), dot = s.find('.');
  int precision = dot == std::string_view::npos ? 0 : static_cast<int>(e - dot - 1);  // digits after '.'
  for (int p = precision + 1; p <= (is_float4 ? 8 : 16); p++) {
    r = is_float4 ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(d), std::chars_format::scientific, p)
                  : std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific, p);
    std::string cand(buf, r.ptr - buf);
    bool round_trips = is_float4 ? std::strtof(cand.c_str(), nullptr) == static_cast<float>(d)
                                 : std::strtod(cand.c_str(), nullptr) == d;
    if (round_trips && !IsRoundingTie(cand, bits, fmt)) {
      // Ryu never prints trailing zeros in the mantissa.
      size_t ce = cand.find('e');
      size_t last = cand.find_last_not_of('0', ce - 1);
      if (cand[last] == '.') last--;
      return cand.substr(0, last + 1) + cand.substr(ce);
    }
  }
  return std::string(s);
}

// Shortest round-trip digits, laid out like PostgreSQL's float8out/float4out
// (extra_float_digits = 1): exponent form when exp < -4 or exp >= 15 (6 for real).
std::string FormatFloat(double d, bool is_float4) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  std::string sci = ShortestScientific(d, is_float4);  // "-1.2345e+06"
  std::string_view s = sci;
  size_t e = s.find('e');
  int exp = 0;
  std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
  if (exp < -4 || exp >= (is_float4 ? 6 : 15)) return sci;
  bool neg = s[0] == '-';
  std::string digits;
  for (char c : s.substr(neg, e - neg)) {
    if (c != '.') digits += c;
  }
  std::string out = neg ? "-" : "";
  if (exp < 0) {
    out += "0.";
    out.append(-exp - 1, '0');
    out += digits;
  } else if (digits.size() <= static_cast<size_t>(exp) + 1) {
    out += digits;
    out.append(exp + 1 - digits.size(), '0');
  } else {
    out.append(digits, 0, exp + 1);
    out += '.';
    out.append(digits, exp + 1);
  }
  return out;
}

// byteaout's hex format: two digits a byte after "\\x" (refused, as
// PostgreSQL does, when that is more than a value can be).
std::string FormatBytea(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  CheckValueSize(SaturatingAdd(SaturatingMul(s.size(), 2), 2));
  std::string out;
  out.reserve(2 + s.size() * 2);
  out += "\\x";
  for (unsigned char c : s) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string FormatIntTyped(TypeId t, int64_t v, const EvalContext& ctx) {
  switch (t) {
    case TypeId::kBoolean: return v ? "t" : "f";
    case TypeId::kDate: return FormatDate(v);
    case TypeId::kTime: return FormatTime(v);
    case TypeId::kTimestamp: return FormatTimestamp(v);
    case TypeId::kTimestampNs: return FormatTimestampNanos(v);
    case TypeId::kTimestamptz: return FormatTimestamptz(v, ctx.time_zone);
    case TypeId::kOid: return FormatOidText(v, OidKind::kOid, ctx);
    default: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof(buf), v);
      return std::string(buf, r.ptr);
    }
  }
}

// --- Text input --------------------------------------------------------------

// PostgreSQL's parse_bool: unique prefixes of true/false/yes/no, on/off, 1/0.
bool ParseBoolText(std::string_view text) {
  std::string_view s = Trim(text);
  auto prefix_of = [&](std::string_view word, size_t min_len) {
    if (s.size() < min_len || s.size() > word.size()) return false;
    for (size_t i = 0; i < s.size(); i++) {
      if (std::tolower(static_cast<unsigned char>(s[i])) != word[i]) return false;
    }
    return true;
  };
  if (!s.empty()) {
    if (prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || s == "1") return true;
    if (prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || s == "0") return false;
  }
  ThrowInvalidSyntax("boolean", text);
}

template <TypeId T>
int64_t ParseIntText(std::string_view text) {
  // The common case first (a bulk load parses millions): an optional sign
  // and at most 18 digits, which cannot overflow on the way.
  if (size_t first = !text.empty() && (text[0] == '-' || text[0] == '+'); text.size() > first && text.size() - first <= 18) {
    int64_t v = 0;
    size_t i = first;
    for (; i < text.size(); i++) {
      unsigned digit = static_cast<unsigned char>(text[i]) - '0';
      if (digit > 9) break;
      v = v * 10 + digit;
    }
    if (i == text.size()) {
      if (text[0] == '-') v = -v;
      if (v >= IntTraits<T>::kMin && v <= IntTraits<T>::kMax) return v;
    }
  }
  const char* name = T == TypeId::kInt16 ? "smallint" : (T == TypeId::kInt32 ? "integer" : "bigint");
  std::string_view s = Trim(text);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) ThrowInvalidSyntax(name, text);
  // Accumulate negatively so INT64_MIN parses.
  int64_t acc = 0;
  for (char c : s) {
    if (c < '0' || c > '9') ThrowInvalidSyntax(name, text);
    if (__builtin_mul_overflow(acc, 10, &acc) || __builtin_sub_overflow(acc, c - '0', &acc) ||
        acc < IntTraits<T>::kMin) {
      throw SqlError(sqlstate::kNumericValueOutOfRange,
                     fmt::format("value \"{}\" is out of range for type {}", text, name));
    }
  }
  if (!neg) {
    if (acc < -IntTraits<T>::kMax) {
      throw SqlError(sqlstate::kNumericValueOutOfRange,
                     fmt::format("value \"{}\" is out of range for type {}", text, name));
    }
    acc = -acc;
  }
  return acc;
}

double ParseFloatText(std::string_view text, bool is_float4) {
  const char* name = is_float4 ? "real" : "double precision";
  std::string buf(Trim(text));  // strtod needs a terminated string
  if (buf.empty()) ThrowInvalidSyntax(name, text);
  char* end = nullptr;
  errno = 0;
  double v = is_float4 ? std::strtof(buf.c_str(), &end) : std::strtod(buf.c_str(), &end);
  if (end == buf.c_str() || *end != '\0') ThrowInvalidSyntax(name, text);
  // Like PostgreSQL: overflow and underflow to zero are errors, denormals are not.
  if (errno == ERANGE && (v == 0.0 || std::isinf(v))) {
    throw SqlError(sqlstate::kNumericValueOutOfRange,
                   fmt::format("\"{}\" is out of range for type {}", text, name));
  }
  return v;
}

// byteain: '\x' hex (whitespace between byte pairs allowed) or escape format.
std::string ParseByteaText(std::string_view s) {
  std::string out;
  if (s.size() >= 2 && s[0] == '\\' && s[1] == 'x') {
    out.reserve((s.size() - 2) / 2);
    for (size_t i = 2; i < s.size();) {
      if (IsSpace(s[i])) {
        i++;
        continue;
      }
      int hi = HexDigit(s[i]);
      if (hi < 0) {
        throw SqlError(sqlstate::kInvalidParameterValue, fmt::format("invalid hexadecimal digit: \"{}\"", s[i]));
      }
      if (i + 1 >= s.size()) {
        throw SqlError(sqlstate::kInvalidParameterValue, "invalid hexadecimal data: odd number of digits");
      }
      int lo = HexDigit(s[i + 1]);
      if (lo < 0) {
        throw SqlError(sqlstate::kInvalidParameterValue,
                       fmt::format("invalid hexadecimal digit: \"{}\"", s[i + 1]));
      }
      out += static_cast<char>(hi << 4 | lo);
      i += 2;
    }
    return out;
  }
  out.reserve(s.size());
  auto is_octal = [](char c, char max) { return c >= '0' && c <= max; };
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '\\') {
      out += s[i++];
    } else if (i + 1 < s.size() && s[i + 1] == '\\') {
      out += '\\';
      i += 2;
    } else if (i + 3 < s.size() && is_octal(s[i + 1], '3') && is_octal(s[i + 2], '7') &&
               is_octal(s[i + 3], '7')) {
      out += static_cast<char>((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
      i += 4;
    } else {
      throw SqlError(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type bytea");
    }
  }
  return out;
}

// varchar(n): an explicit cast truncates; assignment raises 22001 unless
// only spaces would be cut (PostgreSQL's varchar()).
Decimal ApplyNumericTypmod(const Decimal& d, const DataType& t) {
  if (t.precision < 0) return d;
  return DecimalRescale(d, t.precision, t.scale < 0 ? 0 : t.scale);
}

// --- Numeric conversions ---------------------------------------------------

template <TypeId T>
int64_t FloatToInt(double x) {
  double r = std::rint(x);
  // The upper bound is exclusive: -(double)kMin is exactly 2^(bits-1).
  if (std::isnan(r) || r < static_cast<double>(IntTraits<T>::kMin) ||
      r >= -static_cast<double>(IntTraits<T>::kMin)) {
    ThrowOutOfRange(IntTraits<T>::kOutOfRange);
  }
  return static_cast<int64_t>(r);
}

template <TypeId T>
int64_t NumericToInt(const Decimal& d) {
  if (DecimalIsSpecial(d))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "cannot convert {} to {}", DecimalIsNaN(d) ? "NaN" : "infinity",
                  T == TypeId::kInt16 ? "smallint" : T == TypeId::kInt32 ? "integer" : "bigint");
  int64_t v;
  try {
    v = DecimalToInt(d);
  } catch (const SqlError& e) {
    if (e.code() == sqlstate::kNumericValueOutOfRange) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
    throw;
  }
  return CheckIntRange<T>(v);
}

// float8 -> float4 with PostgreSQL's overflow/underflow checks.
double Float8ToFloat4(double x) {
  float f = static_cast<float>(x);
  if (std::isinf(f) && !std::isinf(x)) ThrowOutOfRange("value out of range: overflow");
  if (f == 0.0f && x != 0.0) ThrowOutOfRange("value out of range: underflow");
  return f;
}

template <typename In, typename F>
void Map(const Vector& in, Vector* out, F&& f) {
  ExecuteStrict<In>({&in}, in.size(), out, std::forward<F>(f));
}

// Parses row by row from text into `out` (type t).
template <typename F>
void MapText(const Vector& in, Vector* out, F&& f) {
  Map<std::string_view>(in, out, std::forward<F>(f));
}

template <TypeId T>
void CastToInt(const Vector& in, Vector* out, const DataType& from, const DataType& to) {
  switch (from.id) {
    case TypeId::kBoolean:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: return Map<int64_t>(in, out, kFn<CheckIntRange<T>>);
    case TypeId::kFloat32:
    case TypeId::kFloat64: return Map<double>(in, out, kFn<FloatToInt<T>>);
    case TypeId::kNumeric: return Map<Decimal>(in, out, kFn<NumericToInt<T>>);
    case TypeId::kVarchar:
    case TypeId::kUnknown: return MapText(in, out, kFn<ParseIntText<T>>);
    case TypeId::kOid:
      // Binary-coercible in PostgreSQL: oids above 2^31 become negative int4s.
      if constexpr (T == TypeId::kInt32) return Map<int64_t>(in, out, [](int64_t x) { return int64_t(int32_t(uint32_t(x))); });
      if constexpr (T == TypeId::kInt64) return Map<int64_t>(in, out, [](int64_t x) { return x; });
      ThrowCannotCast(from, to);
    default: ThrowCannotCast(from, to);
  }
}

void CastToOid(const Vector& in, Vector* out, const DataType& from, const DataType& to, EvalContext& ctx) {
  switch (from.id) {
    case TypeId::kOid: out->AppendRange(in, 0, in.size()); return;
    case TypeId::kInt16:
    case TypeId::kInt32: return Map<int64_t>(in, out, [](int64_t x) { return int64_t(uint32_t(int32_t(x))); });
    case TypeId::kInt64:
      return Map<int64_t>(in, out, [](int64_t x) {
        if (x < 0 || x > 4294967295LL) ThrowOutOfRange("OID out of range");
        return x;
      });
    case TypeId::kVarchar:
    case TypeId::kUnknown:
      return MapText(in, out, [&](std::string_view s) { return ParseOidText(s, to.oid_kind(), ctx); });
    default: ThrowCannotCast(from, to);
  }
}

void CastToFloat(const Vector& in, Vector* out, const DataType& from, const DataType& to) {
  bool to4 = to.id == TypeId::kFloat32;
  switch (from.id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: return Map<int64_t>(in, out, [](int64_t x) { return static_cast<double>(x); });
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      if (to4) return Map<double>(in, out, kFn<Float8ToFloat4>);
      return Map<double>(in, out, [](double x) { return x; });
    case TypeId::kNumeric: return Map<Decimal>(in, out, kFn<DecimalToDouble>);
    case TypeId::kVarchar:
    case TypeId::kUnknown:
      return MapText(in, out, [to4](std::string_view s) { return ParseFloatText(s, to4); });
    default: ThrowCannotCast(from, to);
  }
}

void CastToNumeric(const Vector& in, Vector* out, const DataType& from, const DataType& to) {
  switch (from.id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return Map<int64_t>(in, out, [&](int64_t x) { return ApplyNumericTypmod(DecimalFromInt(x), to); });
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return Map<double>(in, out, [&](double x) { return ApplyNumericTypmod(DecimalFromDouble(x), to); });
    case TypeId::kNumeric:
      return Map<Decimal>(in, out, [&](const Decimal& x) { return ApplyNumericTypmod(x, to); });
    case TypeId::kVarchar:
    case TypeId::kUnknown:
      return MapText(in, out, [&](std::string_view s) { return ApplyNumericTypmod(DecimalFromString(s), to); });
    default: ThrowCannotCast(from, to);
  }
}

void CastToVarchar(const Vector& in, Vector* out, const DataType& to, EvalContext& ctx, bool assignment) {
  TypeId from = in.type().id;
  size_t n = in.size();
  out->Reserve(n);
  for (size_t i = 0; i < n; i++) {
    if (in.IsNull(i)) {
      out->AppendNull();
      continue;
    }
    std::string s;
    if (from == TypeId::kBoolean) {
      s = in.GetBool(i) ? "true" : "false";  // booltext, unlike boolout's t/f
    } else if (from == TypeId::kVarchar || from == TypeId::kUnknown) {
      s = in.GetString(i);
    } else {
      s = FormatText(in, i, ctx);
    }
    ApplyCharacterLength(&s, to, assignment);
    out->AppendString(std::move(s));
  }
}

void CastFromText(const Vector& in, Vector* out, const DataType& to, EvalContext& ctx) {
  const DatetimeClock clock = ClockOf(ctx);
  if (in.type().id != TypeId::kVarchar && in.type().id != TypeId::kUnknown) ThrowCannotCast(in.type(), to);
  switch (to.id) {
    case TypeId::kBoolean: return MapText(in, out, kFn<ParseBoolText>);
    case TypeId::kBytea: return MapText(in, out, kFn<ParseByteaText>);
    case TypeId::kDate: return MapText(in, out, [&](std::string_view s) { return ParseDate(s, &clock); });
    case TypeId::kTime: return MapText(in, out, [&](std::string_view s) { return ParseTime(s, &clock); });
    case TypeId::kTimestamp: return MapText(in, out, [&](std::string_view s) { return ParseTimestamp(s, &clock); });
    case TypeId::kTimestampNs:
      return MapText(in, out, [&](std::string_view s) { return ParseTimestampNanos(s, &clock); });
    case TypeId::kTimestamptz:
      return MapText(in, out, [&](std::string_view s) { return ParseTimestamptz(s, ctx.time_zone, &clock); });
    case TypeId::kInterval: return MapText(in, out, [](std::string_view s) { return ParseInterval(s); });
    default: ThrowCannotCast(in.type(), to);
  }
}

}  // namespace

bool CanImplicitCast(const DataType& from, const DataType& to) {
  if (from.id == TypeId::kArray && to.id == TypeId::kArray)
    return to.IsAnyArray() || from == to || CanImplicitCast(from.ElementType(), to.ElementType());
  if (from.IsStruct() && to.IsStruct()) return to.IsAnyStruct() || from == to;
  if (from.IsEnum() && to.IsEnum()) return to.IsAnyEnum() || from == to;
  if (from.id == to.id || from.id == TypeId::kUnknown) return true;
  if (to.id == TypeId::kOid) return from.IsInteger();  // int -> oid (and reg*), as in pg_cast
  int rf = NumericRank(from.id), rt = NumericRank(to.id);
  if (rf >= 0 && rt >= 0) return rf < rt;
  switch (from.id) {
    case TypeId::kDate: return to.id == TypeId::kTimestamp || to.id == TypeId::kTimestamptz;
    case TypeId::kTimestamp: return to.id == TypeId::kTimestamptz;
    // Nanoseconds reach every datetime function as microseconds.
    case TypeId::kTimestampNs: return to.id == TypeId::kTimestamp || to.id == TypeId::kTimestamptz;
    case TypeId::kTime: return to.id == TypeId::kInterval;
    default: return false;
  }
}

bool CanAssignmentCast(const DataType& from, const DataType& to) {
  return CanImplicitCast(from, to) || (from.IsNumeric() && to.IsNumeric()) || to.id == TypeId::kVarchar ||
         (from.IsTemporal() && to.IsTemporal() && CanExplicitCast(from, to));
}

bool CanExplicitCast(const DataType& from, const DataType& to) {
  if (CanImplicitCast(from, to)) return true;
  if (to.id == TypeId::kUnknown) return false;
  if (from.id == TypeId::kArray && to.id == TypeId::kArray)
    return !from.IsAnyArray() && CanExplicitCast(from.ElementType(), to.ElementType());
  if (from.IsStruct() && to.IsStruct()) {
    // Field by field, as RisingWave casts structs (the names come from `to`).
    const auto &f = from.StructFields(), &t = to.StructFields();
    if (from.IsAnyStruct() || to.IsAnyStruct() || f.size() != t.size()) return false;
    for (size_t i = 0; i < f.size(); i++)
      if (!CanExplicitCast(f[i].second, t[i].second)) return false;
    return true;
  }
  if (from.id == TypeId::kOid) return to.id == TypeId::kInt32 || to.id == TypeId::kInt64 || to.id == TypeId::kVarchar;
  // I/O conversion casts: everything to and from text.
  if (from.id == TypeId::kVarchar || to.id == TypeId::kVarchar) return true;
  if (from.IsNumeric() && to.IsNumeric()) return true;
  auto is = [&](TypeId f, TypeId t) { return from.id == f && to.id == t; };
  return is(TypeId::kBoolean, TypeId::kInt32) || is(TypeId::kInt32, TypeId::kBoolean) ||
         is(TypeId::kTimestamptz, TypeId::kTimestamp) || is(TypeId::kTimestamp, TypeId::kDate) ||
         is(TypeId::kTimestamptz, TypeId::kDate) || is(TypeId::kTimestamp, TypeId::kTime) ||
         is(TypeId::kTimestamptz, TypeId::kTime) || is(TypeId::kInterval, TypeId::kTime) ||
         is(TypeId::kTimestamp, TypeId::kTimestampNs) || is(TypeId::kTimestamptz, TypeId::kTimestampNs) ||
         is(TypeId::kDate, TypeId::kTimestampNs) || is(TypeId::kTimestampNs, TypeId::kDate) ||
         is(TypeId::kTimestampNs, TypeId::kTime);
}

// PostgreSQL's select_common_type for two inputs.
DataType CommonSuperType(const DataType& a, const DataType& b) {
  if (a.IsArray() || b.IsArray()) {
    if (a.id == TypeId::kUnknown) return b;
    if (b.id == TypeId::kUnknown) return a;
    if (!a.IsArray() || !b.IsArray() || a.IsAnyArray() || b.IsAnyArray()) return DataType::Unknown();
    DataType elem = CommonSuperType(a.ElementType(), b.ElementType());
    return elem.id == TypeId::kUnknown ? elem : DataType::Array(elem);
  }
  if (a.IsStruct() || b.IsStruct() || a.IsEnum() || b.IsEnum()) {
    if (a.id == TypeId::kUnknown) return b;
    if (b.id == TypeId::kUnknown) return a;
    if (a == b) return a;
    // Rows with the same field names (ROW(NULL, 'b') and ROW(1, 'a')):
    // field by field, as PostgreSQL takes both for one record type.
    if (!a.IsStruct() || !b.IsStruct() || a.IsAnyStruct() || b.IsAnyStruct()) return DataType::Unknown();
    const auto& fa = a.StructFields();
    const auto& fb = b.StructFields();
    if (fa.size() != fb.size()) return DataType::Unknown();
    std::vector<StructField> fields;
    for (size_t i = 0; i < fa.size(); i++) {
      if (fa[i].first != fb[i].first) return DataType::Unknown();
      DataType t = CommonSuperType(fa[i].second, fb[i].second);
      if (t.id == TypeId::kUnknown) return t;
      fields.emplace_back(fa[i].first, t);
    }
    return DataType::Struct(fields);
  }
  if (a.id == TypeId::kOid && b.id == TypeId::kOid && a.precision != b.precision) return DataType::Oid();
  if (a.SameWithModifiers(b)) return a.id == TypeId::kUnknown ? DataType::Varchar() : a;
  if (a.id == b.id) {  // differing typmods are dropped
    if (a.IsText() || b.IsText()) return DataType::Text();
    return DataType(a.id);
  }
  if (a.id == TypeId::kUnknown) return DataType(b.id == TypeId::kUnknown ? TypeId::kVarchar : b.id);
  if (b.id == TypeId::kUnknown) return DataType(a.id);
  if (CategoryOf(a.id) != CategoryOf(b.id)) return DataType::Unknown();
  TypeId r = a.id;
  if (!IsPreferred(a.id) && CanImplicitCast(a, b) && !CanImplicitCast(b, a)) r = b.id;
  if (!CanImplicitCast(a, r) || !CanImplicitCast(b, r)) return DataType::Unknown();
  return DataType(r);
}

// json's input function checks the text; jsonb's also normalizes it, as
// uuid's does (its canonical text).
std::string CheckedTextInput(std::string_view text, const DataType& to) {
  if (to.IsUuid()) return UuidInput(text);
  if (to.IsJsonb()) return NormalizeJsonb(text);
  CheckJsonText(text);
  return std::string(text);
}

Vector CastVector(const Vector& in, const DataType& to, EvalContext& ctx, bool assignment) {
  const DataType& from = in.type();
  if (to.id == TypeId::kArray && from.id == TypeId::kArray) return CastArrayVector(in, to, ctx, assignment);
  if (to.IsStruct() && from.IsStruct()) {
    if (to == from) return in;
    return CastStructVector(in, to, ctx, assignment);
  }
  Vector out(to);
  if (to.IsStruct()) {
    if (from.id != TypeId::kVarchar && from.id != TypeId::kUnknown) ThrowCannotCast(from, to);
    MapText(in, &out, [&](std::string_view s) { return ParseStructText(s, to, ctx); });
    return out;
  }
  if (to.id == TypeId::kArray) {
    if (from.id != TypeId::kVarchar && from.id != TypeId::kUnknown) ThrowCannotCast(from, to);
    MapText(in, &out, [&](std::string_view s) { return ParseArrayText(s, to, ctx); });
    return out;
  }
  if (to.id == TypeId::kOid) {
    CastToOid(in, &out, from, to, ctx);
    return out;
  }
  if (to.IsEnum()) {
    if (from == to || to.IsAnyEnum()) return in;
    if (from.id != TypeId::kVarchar && from.id != TypeId::kUnknown) ThrowCannotCast(from, to);
    uint32_t type_id = static_cast<uint32_t>(to.precision);
    MapText(in, &out, [&](std::string_view s) { return EnumPositionOf(type_id, s); });
    return out;
  }
  if (to.IsJson() && !(from.IsJson() && (from.precision == to.precision || !to.IsJsonb()))) {
    // Text (or json into jsonb): checked to be JSON, jsonb normalized.
    if (from.id != TypeId::kVarchar && from.id != TypeId::kUnknown) ThrowCannotCast(from, to);
    MapText(in, &out, [&](std::string_view s) { return CheckedTextInput(s, to); });
    return out;
  }
  if (to.IsUuid() && !from.IsUuid()) {
    if (from.id != TypeId::kVarchar && from.id != TypeId::kUnknown) ThrowCannotCast(from, to);
    MapText(in, &out, [&](std::string_view s) { return UuidInput(s); });
    return out;
  }
  // Into bpchar (without a length) from another text: the trailing blanks go.
  bool strip_blanks = to.IsBpchar() && !from.IsBpchar();
  // Into name or "char" from another text: cut to 63 bytes or one.
  bool cut = (to.IsName() && !from.IsName()) || (to.IsChar() && !from.IsChar());
  if (from.id == to.id && !HasModifiers(to) && !strip_blanks && !cut) {
    out.AppendRange(in, 0, in.size());
    return out;
  }
  if (to.id == TypeId::kVarchar) {
    CastToVarchar(in, &out, to, ctx, assignment);
    return out;
  }
  if (from.id == to.id && to.IsTemporal()) {  // timestamp(p): rounded below
    out.AppendRange(in, 0, in.size());
    RoundTimestamps(&out);
    return out;
  }
  const TimeZone& tz = ctx.time_zone;
  switch (to.id) {
    case TypeId::kInt16: CastToInt<TypeId::kInt16>(in, &out, from, to); break;
    case TypeId::kInt32:
      if (from.id == TypeId::kBoolean) {
        Map<int64_t>(in, &out, [](int64_t b) { return b; });
      } else {
        CastToInt<TypeId::kInt32>(in, &out, from, to);
      }
      break;
    case TypeId::kInt64: CastToInt<TypeId::kInt64>(in, &out, from, to); break;
    case TypeId::kFloat32:
    case TypeId::kFloat64: CastToFloat(in, &out, from, to); break;
    case TypeId::kNumeric: CastToNumeric(in, &out, from, to); break;
    case TypeId::kBoolean:
      if (!from.IsInteger()) {
        CastFromText(in, &out, to, ctx);
        break;
      }
      Map<int64_t>(in, &out, [](int64_t x) { return x != 0; });
      break;
    case TypeId::kDate:
      if (from.id == TypeId::kTimestampNs) {
        Map<int64_t>(in, &out, [](int64_t ns) { return FloorDiv(ns, kMicrosPerDay * kNanosPerMicro); });
      } else if (from.id == TypeId::kTimestamp) {
        Map<int64_t>(in, &out, kFn<TimestampToDate>);
      } else if (from.id == TypeId::kTimestamptz) {
        Map<int64_t>(in, &out, [&](int64_t t) { return TimestampToDate(tz.UtcToLocal(t)); });
      } else {
        CastFromText(in, &out, to, ctx);
      }
      break;
    case TypeId::kTime:
      // The time of an infinite timestamp is NULL, as PostgreSQL's.
      if (from.id == TypeId::kTimestampNs) {
        Map<int64_t>(in, &out, [](int64_t ns) { return FloorMod(TimestampNanosToMicros(ns), kMicrosPerDay); });
      } else if (from.id == TypeId::kTimestamp) {
        Map<int64_t>(in, &out, [](int64_t t) -> std::optional<int64_t> {
          if (!IsFiniteDatetime(t)) return std::nullopt;
          return FloorMod(t, kMicrosPerDay);
        });
      } else if (from.id == TypeId::kTimestamptz) {
        Map<int64_t>(in, &out, [&](int64_t t) -> std::optional<int64_t> {
          if (!IsFiniteDatetime(t)) return std::nullopt;
          return FloorMod(tz.UtcToLocal(t), kMicrosPerDay);
        });
      } else if (from.id == TypeId::kInterval) {
        Map<Interval>(in, &out, [](const Interval& iv) { return FloorMod(iv.micros, kMicrosPerDay); });
      } else {
        CastFromText(in, &out, to, ctx);
      }
      break;
    case TypeId::kTimestamp:
      if (from.id == TypeId::kDate) {
        Map<int64_t>(in, &out, kFn<DateToTimestamp>);
      } else if (from.id == TypeId::kTimestamptz) {
        Map<int64_t>(in, &out, [&](int64_t t) { return tz.UtcToLocal(t); });
      } else if (from.id == TypeId::kTimestampNs) {
        Map<int64_t>(in, &out, kFn<TimestampNanosToMicros>);
      } else {
        CastFromText(in, &out, to, ctx);
      }
      RoundTimestamps(&out);
      break;
    case TypeId::kTimestamptz:
      if (from.id == TypeId::kDate) {
        Map<int64_t>(in, &out, [&](int64_t d) { return tz.LocalToUtc(DateToTimestamp(d)); });
      } else if (from.id == TypeId::kTimestamp) {
        Map<int64_t>(in, &out, [&](int64_t t) { return tz.LocalToUtc(t); });
      } else if (from.id == TypeId::kTimestampNs) {
        Map<int64_t>(in, &out, [&](int64_t ns) { return tz.LocalToUtc(TimestampNanosToMicros(ns)); });
      } else {
        CastFromText(in, &out, to, ctx);
      }
      RoundTimestamps(&out);
      break;
    case TypeId::kTimestampNs:
      if (from.id == TypeId::kDate) {
        Map<int64_t>(in, &out, [](int64_t d) { return TimestampMicrosToNanos(DateToTimestamp(d)); });
      } else if (from.id == TypeId::kTimestamp) {
        Map<int64_t>(in, &out, kFn<TimestampMicrosToNanos>);
      } else if (from.id == TypeId::kTimestamptz) {
        Map<int64_t>(in, &out, [&](int64_t t) { return TimestampMicrosToNanos(tz.UtcToLocal(t)); });
      } else {
        CastFromText(in, &out, to, ctx);
      }
      RoundTimestamps(&out);
      break;
    case TypeId::kInterval:
      if (from.id == TypeId::kTime) {
        Map<int64_t>(in, &out, [](int64_t t) { return Interval{0, 0, t}; });
      } else {
        CastFromText(in, &out, to, ctx);
      }
      break;
    case TypeId::kBytea: CastFromText(in, &out, to, ctx); break;
    default: ThrowCannotCast(from, to);
  }
  return out;
}

Value CastValue(const Value& in, const DataType& to, EvalContext& ctx, bool assignment) {
  if (in.is_null()) return Value::Null(to);
  Vector v(in.type());
  v.Append(in);
  return CastVector(v, to, ctx, assignment).GetValue(0);
}

std::string FormatText(const Vector& v, size_t i, const EvalContext& ctx) {
  const DataType& t = v.type();
  switch (v.physical()) {
    case PhysicalType::kInt64:
      if (t.id == TypeId::kOid) return FormatOidText(v.GetInt(i), t.oid_kind(), ctx);
      if (t.id == TypeId::kEnum) return EnumLabelText(static_cast<uint32_t>(t.precision), v.GetInt(i));
      return FormatIntTyped(t.id, v.GetInt(i), ctx);
    case PhysicalType::kDouble: return FormatFloat(v.GetFloat(i), t.id == TypeId::kFloat32);
    case PhysicalType::kDecimal: return DecimalToString(v.GetDecimal(i));
    case PhysicalType::kInterval: return FormatInterval(v.GetInterval(i), ctx.interval_style);
    case PhysicalType::kString:
      if (t.id == TypeId::kArray) return FormatArrayText(v.GetString(i), t, ctx);
      if (t.IsStruct()) return FormatStructText(v.GetString(i), t, ctx);
      if (t.IsBpchar()) return BpcharPadded(v.GetString(i), t);
      return t.id == TypeId::kBytea ? FormatBytea(v.GetString(i)) : v.GetString(i);
  }
  return "";
}

std::string FormatValueText(const Value& v, const EvalContext& ctx) {
  const DataType& t = v.type();
  switch (t.physical()) {
    case PhysicalType::kInt64:
      if (t.id == TypeId::kOid) return FormatOidText(v.int_value(), t.oid_kind(), ctx);
      if (t.id == TypeId::kEnum) return EnumLabelText(static_cast<uint32_t>(t.precision), v.int_value());
      return FormatIntTyped(t.id, v.int_value(), ctx);
    case PhysicalType::kDouble: return FormatFloat(v.float_value(), t.id == TypeId::kFloat32);
    case PhysicalType::kDecimal: return DecimalToString(v.decimal_value());
    case PhysicalType::kInterval: return FormatInterval(v.interval_value(), ctx.interval_style);
    case PhysicalType::kString:
      if (t.id == TypeId::kArray) return FormatArrayText(v.string_value(), t, ctx);
      if (t.IsStruct()) return FormatStructText(v.string_value(), t, ctx);
      if (t.IsBpchar()) return BpcharPadded(v.string_value(), t);
      return t.id == TypeId::kBytea ? FormatBytea(v.string_value()) : v.string_value();
  }
  return "";
}

Value ParseText(const std::string& text, const DataType& t, EvalContext& ctx) {
  const DatetimeClock clock = ClockOf(ctx);
  switch (t.id) {
    case TypeId::kBoolean: return Value::Boolean(ParseBoolText(text));
    case TypeId::kInt16: return Value::Int16(ParseIntText<TypeId::kInt16>(text));
    case TypeId::kInt32: return Value::Int32(ParseIntText<TypeId::kInt32>(text));
    case TypeId::kInt64: return Value::Int64(ParseIntText<TypeId::kInt64>(text));
    case TypeId::kFloat32: return Value::Float32(ParseFloatText(text, true));
    case TypeId::kFloat64: return Value::Float64(ParseFloatText(text, false));
    case TypeId::kNumeric: {
      Value v = Value::Numeric(ApplyNumericTypmod(DecimalFromString(text), t));
      v.set_type(t);
      return v;
    }
    case TypeId::kVarchar: {
      // A text value from a client is no larger than a value can be.
      CheckValueSize(text.size());
      // varcharin with a typmod rejects (rather than truncates) long input.
      if (t.IsCheckedText()) return Value::FromString(t, CheckedTextInput(text, t));
      std::string s = text;
      ApplyCharacterLength(&s, t, /*assignment=*/true);
      return Value::FromString(t, std::move(s));
    }
    case TypeId::kUnknown:
      CheckValueSize(text.size());
      return Value::FromString(t, text);
    case TypeId::kBytea: return Value::Bytea(ParseByteaText(text));
    case TypeId::kDate: return Value::Date(ParseDate(text, &clock));
    case TypeId::kTime: return Value::Time(ParseTime(text, &clock));
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
    case TypeId::kTimestampNs: {
      int64_t v = t.id == TypeId::kTimestamp     ? ParseTimestamp(text, &clock)
                  : t.id == TypeId::kTimestamptz ? ParseTimestamptz(text, ctx.time_zone, &clock)
                                                 : ParseTimestampNanos(text, &clock);
      return Value::FromInt(t, RoundTimestamp(v, TimestampRoundingUnit(t), t.id == TypeId::kTimestampNs));
    }
    case TypeId::kInterval: return Value::IntervalValue(ParseInterval(text));
    case TypeId::kOid: return Value::FromInt(t, ParseOidText(text, t.oid_kind(), ctx));
    case TypeId::kArray: return Value::FromString(t, ParseArrayText(text, t, ctx));
    case TypeId::kStruct: return Value::FromString(t, ParseStructText(text, t, ctx));
    case TypeId::kEnum:
      if (t.IsAnyEnum()) break;
      return Value::FromInt(t, EnumPositionOf(static_cast<uint32_t>(t.precision), text));
  }
  ThrowCannotCast(DataType::Varchar(), t);
}

int64_t ParseIntegerText(std::string_view text, TypeId type) {
  switch (type) {
    case TypeId::kInt16: return ParseIntText<TypeId::kInt16>(text);
    case TypeId::kInt32: return ParseIntText<TypeId::kInt32>(text);
    default: return ParseIntText<TypeId::kInt64>(text);
  }
}

namespace {

// A plain decimal ("-212689.2291") of at most 15 digits: its digits as an
// integer are exact in a double, and so is 10^k for k <= 22, so one
// correctly rounded division gives the correctly rounded value (Clinger's
// fast path), the same double strtod gives, at a third of from_chars' cost.
bool ParsePlainDecimal(std::string_view text, double* out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = text.data();
  const char* end = p + text.size();
  bool negative = p < end && *p == '-';
  p += negative;
  uint64_t digits = 0;
  int count = 0, fraction = 0;
  for (; p < end && static_cast<unsigned>(*p - '0') <= 9; p++, count++) digits = digits * 10 + (*p - '0');
  if (p < end && *p == '.') {
    const char* first = ++p;
    for (; p < end && static_cast<unsigned>(*p - '0') <= 9; p++, count++) digits = digits * 10 + (*p - '0');
    fraction = static_cast<int>(p - first);
    if (fraction == 0) return false;
  }
  if (p != end || count == 0 || count > 15) return false;
  double v = static_cast<double>(digits);
  if (fraction) v /= kPow10[fraction];
  *out = negative ? -v : v;
  return true;
}

}  // namespace

double ParseFloat8Text(std::string_view text) {
  if (double v; ParsePlainDecimal(text, &v)) return v;
  // from_chars rounds exactly as strtod does; anything it does not take
  // whole, or takes as infinity or NaN, goes the general way (spaces, '+',
  // "Infinity", hex floats, range errors).
  double v;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(v)) return v;
  return ParseFloatText(text, false);
}

void AppendParsedText(std::string_view text, const DataType& t, EvalContext& ctx, Vector* out) {
  switch (t.id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: return out->AppendInt(ParseIntegerText(text, t.id));
    case TypeId::kFloat64: return out->AppendFloat(ParseFloat8Text(text));
    case TypeId::kVarchar:
      CheckValueSize(text.size());
      if (t.precision < 0 && !t.IsCheckedText() && !t.IsBpchar()) return out->AppendString(std::string(text));
      break;
    case TypeId::kTimestamp: {
      if (HasModifiers(t)) break;
      const DatetimeClock clock = ClockOf(ctx);
      return out->AppendInt(ParseTimestamp(text, &clock));
    }
    case TypeId::kTimestampNs: {
      if (HasModifiers(t)) break;
      const DatetimeClock clock = ClockOf(ctx);
      return out->AppendInt(ParseTimestampNanos(text, &clock));
    }
    case TypeId::kDate: {
      const DatetimeClock clock = ClockOf(ctx);
      return out->AppendInt(ParseDate(text, &clock));
    }
    default: break;
  }
  out->Append(ParseText(std::string(text), t, ctx));
}

}  // namespace freshet
