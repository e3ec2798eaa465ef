// Helpers for writing vectorized scalar functions (function_registry.h).
//
// A strict function over physical values is one line:
//
//   RegisterFn(r, "abs", {DataType::Float64()}, DataType::Float64(),
//              StrictFn<double>([](double x) { return std::fabs(x); }));
//
// ExecuteStrict loops over n rows in a template (no per-row std::function
// call), emits NULL when any argument is NULL, and appends the lambda's
// result otherwise. Argument C++ types name the physical representation:
//   int64_t (boolean, integers, date, time, timestamps), bool, double,
//   Decimal, Interval, std::string_view (varchar, bytea).
// The lambda may return int64_t/int32_t, bool, double, Decimal, Interval,
// std::string or std::string_view.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/character.h"
#include "common/error.h"
#include "common/vector.h"
#include "expr/function_registry.h"

namespace freshet {

// Whether any argument is NULL in row i (functions that are NULL then).
inline bool AnyNull(const std::vector<const Vector*>& args, size_t i) {
  for (const auto* a : args)
    if (a->IsNull(i)) return true;
  return false;
}

// Reads row i of a vector as physical type T. Caches the data pointer so
// the hot loop does not reload it after every append to the output.
template <typename T>
struct ArgReader;

template <>
struct ArgReader<int64_t> {
  const int64_t* d;
  explicit ArgReader(const Vector& v) : d(v.ints().data()) {}
  int64_t operator[](size_t i) const { return d[i]; }
};
template <>
struct ArgReader<bool> {
  const int64_t* d;
  explicit ArgReader(const Vector& v) : d(v.ints().data()) {}
  bool operator[](size_t i) const { return d[i] != 0; }
};
template <>
struct ArgReader<double> {
  const double* d;
  explicit ArgReader(const Vector& v) : d(v.floats().data()) {}
  double operator[](size_t i) const { return d[i]; }
};
template <>
struct ArgReader<Decimal> {
  const Decimal* d;
  explicit ArgReader(const Vector& v) : d(v.decimals().data()) {}
  const Decimal& operator[](size_t i) const { return d[i]; }
};
template <>
struct ArgReader<Interval> {
  const Interval* d;
  explicit ArgReader(const Vector& v) : d(v.intervals().data()) {}
  const Interval& operator[](size_t i) const { return d[i]; }
};
template <>
struct ArgReader<std::string_view> {
  const std::string* d;
  explicit ArgReader(const Vector& v) : d(v.strings().data()) {}
  std::string_view operator[](size_t i) const { return d[i]; }
};

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

// Appends a lambda result of C++ type R to out (a std::optional: NULL when empty).
template <typename R>
inline void AppendResult(Vector* out, R&& r) {
  using T = std::decay_t<R>;
  if constexpr (kIsOptional<T>) {
    if (r) {
      AppendResult(out, *std::forward<R>(r));
    } else {
      out->AppendNull();
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    out->AppendBool(r);
  } else if constexpr (std::is_integral_v<T>) {
    out->AppendInt(static_cast<int64_t>(r));
  } else if constexpr (std::is_floating_point_v<T>) {
    out->AppendFloat(static_cast<double>(r));
  } else if constexpr (std::is_same_v<T, Decimal>) {
    out->AppendDecimal(r);
  } else if constexpr (std::is_same_v<T, Interval>) {
    out->AppendInterval(r);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out->AppendString(std::forward<R>(r));
  } else {
    static_assert(std::is_same_v<T, std::string_view>, "unsupported result type");
    out->AppendString(std::string(r));
  }
}

namespace internal {

template <typename... In, size_t... I, typename Emit>
void StrictLoop(std::index_sequence<I...>, const std::vector<const Vector*>& args, size_t n,
                Vector* out, Emit& emit) {
  std::tuple<ArgReader<In>...> readers{ArgReader<In>(*args[I])...};
  std::array<const uint8_t*, sizeof...(In)> valid{args[I]->validity().data()...};
  (void)valid;
  out->Reserve(out->size() + n);
  for (size_t i = 0; i < n; i++) {
    if constexpr (sizeof...(In) > 0) {
      if ((!valid[I][i] || ...)) {
        out->AppendNull();
        continue;
      }
    }
    emit(i, std::get<I>(readers)[i]...);
  }
}

}  // namespace internal

namespace internal {

// ExecuteStrict into an empty output of numbers (bool, integer, float
// results): the arrays sized once and written in place, not appended row
// by row.
template <typename R, typename... In, size_t... I, typename F>
void StrictNumberLoop(std::index_sequence<I...>, const std::vector<const Vector*>& args, size_t n, Vector* out,
                      F& f) {
  std::tuple<ArgReader<In>...> readers{ArgReader<In>(*args[I])...};
  std::array<const uint8_t*, sizeof...(In)> valid{args[I]->validity().data()...};
  (void)valid;
  std::vector<uint8_t>& validity = out->validity();
  validity.assign(n, 1);
  constexpr bool kFloat = std::is_floating_point_v<R>;
  auto& values = [&]() -> auto& {
    if constexpr (kFloat) return out->floats();
    else return out->ints();
  }();
  values.resize(n);
  const bool float32 = kFloat && out->type().id == TypeId::kFloat32;
  for (size_t i = 0; i < n; i++) {
    if constexpr (sizeof...(In) > 0) {
      if ((!valid[I][i] || ...)) {
        validity[i] = 0;
        values[i] = 0;
        continue;
      }
    }
    if constexpr (kFloat) {
      double r = static_cast<double>(f(std::get<I>(readers)[i]...));
      values[i] = float32 ? static_cast<double>(static_cast<float>(r)) : r;  // as AppendFloat
    } else {
      values[i] = static_cast<int64_t>(f(std::get<I>(readers)[i]...));  // bool: 0 or 1, as AppendBool
    }
  }
}

}  // namespace internal

// For each row: NULL if any argument is NULL, else f(args...) appended.
template <typename... In, typename F>
void ExecuteStrict(const std::vector<const Vector*>& args, size_t n, Vector* out, F&& f) {
  using R = std::decay_t<decltype(f(std::declval<ArgReader<In>>()[0]...))>;
  if constexpr (std::is_arithmetic_v<R>) {
    const PhysicalType want = std::is_floating_point_v<R> ? PhysicalType::kDouble : PhysicalType::kInt64;
    if (out->size() == 0 && out->physical() == want) {
      internal::StrictNumberLoop<R, In...>(std::index_sequence_for<In...>{}, args, n, out, f);
      return;
    }
  }
  auto emit = [&](size_t, auto&&... a) { AppendResult(out, f(a...)); };
  internal::StrictLoop<In...>(std::index_sequence_for<In...>{}, args, n, out, emit);
}

// Like ExecuteStrict, but f(out, args...) appends the row itself, so it can
// produce NULL for non-NULL input.
template <typename... In, typename F>
void ExecuteStrictEmit(const std::vector<const Vector*>& args, size_t n, Vector* out, F&& f) {
  auto emit = [&](size_t, auto&&... a) { f(out, a...); };
  internal::StrictLoop<In...>(std::index_sequence_for<In...>{}, args, n, out, emit);
}

// Calls reg(name, test) for each of the six comparison operators, `test`
// telling whether a three-way result (negative, zero, positive) satisfies
// it: one place for the table the types compared through a three-way
// comparison register.
template <typename Reg>
void ForEachComparisonOperator(Reg&& reg) {
  reg("=", [](int c) { return c == 0; });
  reg("<>", [](int c) { return c != 0; });
  reg("<", [](int c) { return c < 0; });
  reg("<=", [](int c) { return c <= 0; });
  reg(">", [](int c) { return c > 0; });
  reg(">=", [](int c) { return c >= 0; });
}

// Turns a function into a stateless lambda, so that calls inline in the row
// loop (a function pointer captured in a ScalarFn is an indirect call per row).
template <auto Fn>
inline constexpr auto kFn = [](auto&&... a) { return Fn(std::forward<decltype(a)>(a)...); };

// Wraps a lambda over physical values into a strict ScalarFn.
template <typename... In, typename F>
ScalarFn StrictFn(F f) {
  return [f](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrict<In...>(args, n, out, f);
  };
}

// As StrictFn for lambdas that need the context: f(ctx, args...).
template <typename... In, typename F>
ScalarFn StrictCtxFn(F f) {
  return [f](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    ExecuteStrict<In...>(args, n, out, [&](auto&&... a) { return f(ctx, a...); });
  };
}

// Physical C++ argument type of each TypeId, for templates registering one
// function over many types.
template <TypeId T>
struct PhysOf {
  using type = int64_t;
};
template <>
struct PhysOf<TypeId::kFloat32> {
  using type = double;
};
template <>
struct PhysOf<TypeId::kFloat64> {
  using type = double;
};
template <>
struct PhysOf<TypeId::kNumeric> {
  using type = Decimal;
};
template <>
struct PhysOf<TypeId::kInterval> {
  using type = Interval;
};
template <>
struct PhysOf<TypeId::kVarchar> {
  using type = std::string_view;
};
template <>
struct PhysOf<TypeId::kBytea> {
  using type = std::string_view;
};
template <TypeId T>
using PhysOfT = typename PhysOf<T>::type;

// Integer range per SQL integer type, with PostgreSQL's overflow message.
template <TypeId T>
struct IntTraits;
template <>
struct IntTraits<TypeId::kInt16> {
  static constexpr int64_t kMin = INT16_MIN, kMax = INT16_MAX;
  static constexpr int kBits = 16;
  static constexpr const char* kOutOfRange = "smallint out of range";
};
template <>
struct IntTraits<TypeId::kInt32> {
  static constexpr int64_t kMin = INT32_MIN, kMax = INT32_MAX;
  static constexpr int kBits = 32;
  static constexpr const char* kOutOfRange = "integer out of range";
};
template <>
struct IntTraits<TypeId::kInt64> {
  static constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX;
  static constexpr int kBits = 64;
  static constexpr const char* kOutOfRange = "bigint out of range";
};

[[noreturn]] inline void ThrowOutOfRange(const char* message) {
  throw SqlError(sqlstate::kNumericValueOutOfRange, message);
}
[[noreturn]] inline void ThrowDivisionByZero() {
  throw SqlError(sqlstate::kDivisionByZero, "division by zero");
}

// Checks that v fits integer type T (22003 otherwise).
template <TypeId T>
inline int64_t CheckIntRange(int64_t v) {
  if constexpr (T != TypeId::kInt64) {
    if (v < IntTraits<T>::kMin || v > IntTraits<T>::kMax) ThrowOutOfRange(IntTraits<T>::kOutOfRange);
  }
  return v;
}

// Three-way comparison with PostgreSQL semantics: <0, 0, >0.
inline int Compare3(int64_t a, int64_t b) { return (a > b) - (a < b); }
// NaN equals NaN and sorts above every other value.
inline int Compare3(double a, double b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an - bn;
  return (a > b) - (a < b);
}
inline int Compare3(const Decimal& a, const Decimal& b) { return DecimalCompare(a, b); }
inline int Compare3(const Interval& a, const Interval& b) { return IntervalCompare(a, b); }
// Bytewise, i.e. the C collation (char_traits compares as unsigned char).
inline int Compare3(std::string_view a, std::string_view b) {
  int c = a.compare(b);
  return (c > 0) - (c < 0);
}

// Registers one signature.
inline void RegisterFn(FunctionRegistry* r, std::string name, std::vector<DataType> args, DataType ret,
                       ScalarFn fn) {
  ScalarFunction f;
  f.name = std::move(name);
  f.arg_types = std::move(args);
  f.return_type = ret;
  f.fn = std::move(fn);
  r->Register(std::move(f));
}

inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// timestamp (local micros) -> date; infinities stay infinite.
inline int64_t TimestampToDate(int64_t micros) {
  return IsFiniteDatetime(micros) ? FloorDiv(micros, kMicrosPerDay) : micros;
}

// date -> timestamp (micros), 22008 beyond PostgreSQL's timestamp range
// (4714-11-24 BC .. 294276 AD); infinities stay infinite.
inline int64_t DateToTimestamp(int64_t days) {
  if (!IsFiniteDatetime(days)) return days;
  static const int64_t kMinDays = DaysFromCivil(-4713, 11, 24);
  static const int64_t kMaxDays = DaysFromCivil(294277, 1, 1);
  if (days < kMinDays || days >= kMaxDays) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "date out of range for timestamp");
  }
  return days * kMicrosPerDay;
}

// UTF-8 helpers (IsUtf8Continuation, Utf8Length, Utf8Offset: common/character.h).
// Byte length of the character starting at s[i].
inline size_t Utf8CharBytes(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[j]))) j++;
  return j - i;
}
// Decodes the code point at s[*i] and advances *i.
uint32_t Utf8Decode(std::string_view s, size_t* i);
void Utf8Append(uint32_t cp, std::string* out);
// Simple (one-to-one) case mapping: ASCII, Latin-1, Latin Extended-A,
// Greek and Cyrillic. Appends the mapped text to *out.
void Utf8Lower(std::string_view s, std::string* out);
void Utf8Upper(std::string_view s, std::string* out);
uint32_t CodePointLower(uint32_t cp);
uint32_t CodePointUpper(uint32_t cp);

}  // namespace freshet
