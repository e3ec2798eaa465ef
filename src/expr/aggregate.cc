#include "expr/aggregate.h"

#include <algorithm>
#include <cmath>

#include <map>
#include <optional>

#include <fmt/format.h>

#include "common/array.h"
#include "common/encoding.h"
#include "common/error.h"
#include "common/limits.h"

namespace freshet {

namespace {

// The names of the statistical aggregates (PostgreSQL's aliases included).
const std::pair<const char*, AggKind> kStatistics[] = {
    {"stddev", AggKind::kStddevSamp}, {"stddev_samp", AggKind::kStddevSamp}, {"stddev_pop", AggKind::kStddevPop},
    {"variance", AggKind::kVarSamp},  {"var_samp", AggKind::kVarSamp},       {"var_pop", AggKind::kVarPop}};
// Two float8 arguments (Y, X).
const std::pair<const char*, AggKind> kRegression[] = {
    {"corr", AggKind::kCorr},           {"covar_pop", AggKind::kCovarPop},   {"covar_samp", AggKind::kCovarSamp},
    {"regr_avgx", AggKind::kRegrAvgX},  {"regr_avgy", AggKind::kRegrAvgY},   {"regr_count", AggKind::kRegrCount},
    {"regr_intercept", AggKind::kRegrIntercept}, {"regr_r2", AggKind::kRegrR2}, {"regr_slope", AggKind::kRegrSlope},
    {"regr_sxx", AggKind::kRegrSxx},    {"regr_sxy", AggKind::kRegrSxy},     {"regr_syy", AggKind::kRegrSyy}};
const std::pair<const char*, AggKind> kBitwise[] = {
    {"bit_and", AggKind::kBitAnd}, {"bit_or", AggKind::kBitOr}, {"bit_xor", AggKind::kBitXor}};

template <size_t N>
const AggKind* Find(const std::pair<const char*, AggKind> (&table)[N], const std::string& name) {
  for (const auto& [n, kind] : table)
    if (name == n) return &kind;
  return nullptr;
}

}  // namespace

bool IsAggregateName(const std::string& name) {
  return name == "count" || name == "sum" || name == "avg" || name == "min" || name == "max" ||
         name == "bool_and" || name == "bool_or" || name == "every" || name == "string_agg" || name == "array_agg" ||
         Find(kStatistics, name) || Find(kBitwise, name) || Find(kRegression, name);
}

const char* AggregateName(AggKind kind) {
  switch (kind) {
    case AggKind::kCount:
    case AggKind::kCountStar: return "count";
    case AggKind::kSum: return "sum";
    case AggKind::kAvg: return "avg";
    case AggKind::kMin: return "min";
    case AggKind::kMax: return "max";
    case AggKind::kBoolAnd: return "bool_and";
    case AggKind::kBoolOr: return "bool_or";
    case AggKind::kStringAgg: return "string_agg";
    case AggKind::kArrayAgg: return "array_agg";
    case AggKind::kStddevSamp: return "stddev_samp";
    case AggKind::kStddevPop: return "stddev_pop";
    case AggKind::kVarSamp: return "var_samp";
    case AggKind::kVarPop: return "var_pop";
    case AggKind::kBitAnd: return "bit_and";
    case AggKind::kBitOr: return "bit_or";
    case AggKind::kBitXor: return "bit_xor";
    default:
      for (const auto& [name, k] : kRegression)
        if (k == kind) return name;
  }
  return "?";
}

AggregateSignature ResolveAggregate(const std::string& name, const std::vector<DataType>& args, bool star) {
  auto fail = [&]() -> AggregateSignature {
    std::string types;
    for (const auto& t : args) types += (types.empty() ? "" : ", ") + t.ToString();
    FRESHET_THROW(sqlstate::kUndefinedFunction, "function {}({}) does not exist", name, types);
  };
  if (name == "count") {
    if (star || args.empty()) return {AggKind::kCountStar, DataType(), DataType::Int64()};
    if (args.size() != 1) return fail();
    return {AggKind::kCount, args[0], DataType::Int64()};
  }
  if (args.empty()) return fail();
  const DataType& t = args[0];
  if (name == "sum") {
    if (args.size() != 1) return fail();
    switch (t.id) {
      case TypeId::kInt16:
      case TypeId::kInt32: return {AggKind::kSum, t, DataType::Int64()};
      case TypeId::kInt64:
      case TypeId::kNumeric: return {AggKind::kSum, t, DataType::Numeric()};
      case TypeId::kFloat32: return {AggKind::kSum, t, DataType::Float32()};
      case TypeId::kFloat64: return {AggKind::kSum, t, DataType::Float64()};
      case TypeId::kInterval: return {AggKind::kSum, t, DataType::Interval()};
      default: return fail();
    }
  }
  if (name == "avg") {
    if (args.size() != 1) return fail();
    if (t.IsInteger() || t.id == TypeId::kNumeric) return {AggKind::kAvg, t, DataType::Numeric()};
    if (t.IsFloat()) return {AggKind::kAvg, t, DataType::Float64()};
    if (t.id == TypeId::kInterval) return {AggKind::kAvg, t, DataType::Interval()};
    return fail();
  }
  if (name == "min" || name == "max") {
    // PostgreSQL has none for json and jsonb.
    if (args.size() != 1 || t.id == TypeId::kUnknown || t.IsJson()) return fail();
    return {name == "min" ? AggKind::kMin : AggKind::kMax, t, t};
  }
  if (name == "bool_and" || name == "every" || name == "bool_or") {
    if (args.size() != 1 || t.id != TypeId::kBoolean) return fail();
    return {name == "bool_or" ? AggKind::kBoolOr : AggKind::kBoolAnd, t, DataType::Boolean()};
  }
  if (name == "string_agg") {
    if (args.size() != 2 || !(t.id == TypeId::kVarchar || t.id == TypeId::kBytea)) return fail();
    return {AggKind::kStringAgg, t, t};
  }
  if (name == "array_agg") {
    if (args.size() != 1 || t.id == TypeId::kUnknown || t.IsArray()) return fail();
    return {AggKind::kArrayAgg, t, DataType::Array(t)};
  }
  if (const AggKind* kind = Find(kStatistics, name)) {
    if (args.size() != 1) return fail();
    if (t.IsInteger() || t.id == TypeId::kNumeric) return {*kind, t, DataType::Numeric()};
    if (t.IsFloat()) return {*kind, t, DataType::Float64()};
    return fail();
  }
  if (const AggKind* kind = Find(kRegression, name)) {
    // float8 arguments (the binder casts the others to them).
    if (args.size() != 2 || !args[0].IsNumeric() || !args[1].IsNumeric()) return fail();
    return {*kind, DataType::Float64(), *kind == AggKind::kRegrCount ? DataType::Int64() : DataType::Float64()};
  }
  if (const AggKind* kind = Find(kBitwise, name)) {
    if (args.size() != 1 || !t.IsInteger()) return fail();
    return {*kind, t, t};
  }
  return fail();
}

namespace {

class CountAgg : public AggregateFunction {
 public:
  explicit CountAgg(bool star) : star_(star) {}
  void Resize(size_t n) override { counts_.resize(n, 0); }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    for (size_t r = 0; r < n; r++) {
      if (!star_ && args[0]->IsNull(r)) continue;
      counts_[groups[r]] += signs ? signs[r] : 1;
    }
  }
  void FinalizeGroups(const uint32_t* groups, size_t n, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < n; i++) out->AppendInt(counts_[groups[i]]);
  }
  std::vector<DataType> StateTypes() const override { return {DataType::Int64()}; }
  void SaveState(uint32_t g, std::vector<Value>* out) const override { out->push_back(Value::Int64(counts_[g])); }
  void LoadState(uint32_t g, const Value* in) override { counts_[g] = in[0].is_null() ? 0 : in[0].int_value(); }
  void ResetGroup(uint32_t g) override { counts_[g] = 0; }
  bool Mergeable() const override { return true; }
  void MergeGroup(uint32_t into, const AggregateFunction& other, uint32_t from) override {
    counts_[into] += static_cast<const CountAgg&>(other).counts_[from];
  }

 private:
  bool star_;
  std::vector<int64_t> counts_;
};

// How many values a group has of each key (a numeric scale, a bit), kept
// so that a retraction gives the same state as never adding the value; its
// saved form is "key:count," per key.
using KeyCounts = std::vector<std::pair<int32_t, int64_t>>;

void CountKey(KeyCounts* counts, int32_t key, int64_t sign) {
  auto it = std::find_if(counts->begin(), counts->end(), [&](const auto& p) { return p.first == key; });
  if (it == counts->end()) counts->emplace_back(key, sign);
  else if ((it->second += sign) == 0) counts->erase(it);
}

std::string KeyCountsText(const KeyCounts& counts) {
  std::string text;
  for (const auto& [key, n] : counts) text += std::to_string(key) + ":" + std::to_string(n) + ",";
  return text;
}

KeyCounts ParseKeyCounts(const std::string& text) {
  KeyCounts counts;
  for (size_t pos = 0; pos < text.size();) {
    const size_t colon = text.find(':', pos), comma = text.find(',', pos);
    if (colon == std::string::npos || comma == std::string::npos) break;
    counts.emplace_back(std::stoi(text.substr(pos, colon - pos)), std::stoll(text.substr(colon + 1, comma - colon - 1)));
    pos = comma + 1;
  }
  return counts;
}

// sum and avg: exact accumulation in 128 bits for integers, Decimal for
// numeric, double for floats, Interval for intervals.
class SumAvgAgg : public AggregateFunction {
 public:
  SumAvgAgg(AggregateSignature sig, bool avg) : sig_(sig), avg_(avg) {}
  void Resize(size_t n) override {
    counts_.resize(n, 0);
    ints_.resize(n, 0);
    decimals_.resize(n);
    floats_.resize(n, 0);
    intervals_.resize(n);
    if (sig_.arg_type.physical() == PhysicalType::kDouble) specials_.resize(n);
    if (sig_.arg_type.physical() == PhysicalType::kDecimal) scales_.resize(n);
  }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    if (!signs && (v.physical() == PhysicalType::kDouble || v.physical() == PhysicalType::kInt64)) {
      // Inserts only (batch queries): the type's loop without the switch.
      const std::vector<uint8_t>& valid = v.validity();
      if (v.physical() == PhysicalType::kInt64) {
        const std::vector<int64_t>& values = v.ints();
        for (size_t r = 0; r < n; r++) {
          if (!valid[r]) continue;
          counts_[groups[r]]++;
          ints_[groups[r]] += values[r];
        }
        return;
      }
      // A run of rows of one group (sorted input) sums in a register, in
      // the same order (the same rounding) as one at a time.
      const std::vector<double>& values = v.floats();
      uint32_t run_group = UINT32_MAX;
      double run_sum = 0;
      int64_t run_count = 0;
      auto end_run = [&] {
        if (run_group == UINT32_MAX) return;
        floats_[run_group] = run_sum;
        counts_[run_group] += run_count;
        run_group = UINT32_MAX;
      };
      for (size_t r = 0; r < n; r++) {
        if (!valid[r]) continue;
        const uint32_t g = groups[r];
        const double x = values[r];
        if (!std::isfinite(x)) [[unlikely]] {
          end_run();
          counts_[g]++;
          if (std::isnan(x)) specials_[g].nan++;
          else (x > 0 ? specials_[g].pos_inf : specials_[g].neg_inf)++;
          continue;
        }
        if (g != run_group) {
          end_run();
          run_group = g;
          run_sum = floats_[g];
          run_count = 0;
        }
        run_sum += x;
        run_count++;
      }
      end_run();
      return;
    }
    for (size_t r = 0; r < n; r++) {
      if (v.IsNull(r)) continue;
      uint32_t g = groups[r];
      int sign = signs ? signs[r] : 1;
      counts_[g] += sign;
      switch (v.physical()) {
        case PhysicalType::kInt64: ints_[g] += static_cast<__int128>(v.GetInt(r)) * sign; break;
        case PhysicalType::kDouble: {
          // NaN and infinities are counted apart, so that retracting one
          // gives exactly what summing the remaining values gives.
          double x = v.GetFloat(r);
          if (std::isnan(x)) specials_[g].nan += sign;
          else if (std::isinf(x)) (x > 0 ? specials_[g].pos_inf : specials_[g].neg_inf) += sign;
          else floats_[g] += x * sign;
          break;
        }
        case PhysicalType::kDecimal: {
          const Decimal& d = v.GetDecimal(r);
          // NaN and infinities are only counted (by their scale, below), so
          // that retracting one gives what summing the others gives.
          if (!DecimalIsSpecial(d)) decimals_[g] = sign > 0 ? DecimalAdd(decimals_[g], d) : DecimalSub(decimals_[g], d);
          // The result's scale is the largest scale among the values summed.
          CountKey(&scales_[g], d.scale, sign);
          break;
        }
        case PhysicalType::kInterval: {
          Interval iv = v.GetInterval(r);
          if (sign < 0) iv = IntervalNeg(iv);
          intervals_[g] = IntervalAdd(intervals_[g], iv);
          break;
        }
        default: break;
      }
    }
  }
  std::vector<DataType> StateTypes() const override {
    DataType sum = DataType::Numeric();
    switch (sig_.arg_type.physical()) {
      case PhysicalType::kDouble: sum = DataType::Float64(); break;
      case PhysicalType::kInterval: sum = DataType::Interval(); break;
      default: break;
    }
    std::vector<DataType> types = {DataType::Int64(), sum};
    // Float specials (NaN, +inf, -inf counts); numeric scales ("scale:count,...").
    if (sig_.arg_type.physical() == PhysicalType::kDouble) types.insert(types.end(), 3, DataType::Int64());
    if (sig_.arg_type.physical() == PhysicalType::kDecimal) types.push_back(DataType::Varchar());
    return types;
  }
  void SaveState(uint32_t g, std::vector<Value>* out) const override {
    out->push_back(Value::Int64(counts_[g]));
    switch (sig_.arg_type.physical()) {
      case PhysicalType::kInt64: out->push_back(Value::Numeric(Decimal{ints_[g], 0})); break;
      case PhysicalType::kDouble: out->push_back(Value::Float64(floats_[g])); break;
      case PhysicalType::kDecimal: out->push_back(Value::Numeric(decimals_[g])); break;
      case PhysicalType::kInterval: out->push_back(Value::IntervalValue(intervals_[g])); break;
      default: out->push_back(Value()); break;
    }
    if (sig_.arg_type.physical() == PhysicalType::kDouble) {
      out->push_back(Value::Int64(specials_[g].nan));
      out->push_back(Value::Int64(specials_[g].pos_inf));
      out->push_back(Value::Int64(specials_[g].neg_inf));
    }
    if (sig_.arg_type.physical() == PhysicalType::kDecimal) {
      out->push_back(Value::Varchar(KeyCountsText(scales_[g])));
    }
  }
  void LoadState(uint32_t g, const Value* in) override {
    ResetGroup(g);
    if (in[0].is_null()) return;
    counts_[g] = in[0].int_value();
    if (in[1].is_null()) return;
    switch (sig_.arg_type.physical()) {
      case PhysicalType::kInt64: ints_[g] = in[1].decimal_value().value; break;
      case PhysicalType::kDouble: floats_[g] = in[1].float_value(); break;
      case PhysicalType::kDecimal: decimals_[g] = in[1].decimal_value(); break;
      case PhysicalType::kInterval: intervals_[g] = in[1].interval_value(); break;
      default: break;
    }
    if (sig_.arg_type.physical() == PhysicalType::kDouble) {
      specials_[g] = {in[2].is_null() ? 0 : in[2].int_value(), in[3].is_null() ? 0 : in[3].int_value(),
                      in[4].is_null() ? 0 : in[4].int_value()};
    }
    if (sig_.arg_type.physical() == PhysicalType::kDecimal && !in[2].is_null()) scales_[g] = ParseKeyCounts(in[2].string_value());
  }
  bool Mergeable() const override { return true; }
  void MergeGroup(uint32_t into, const AggregateFunction& other, uint32_t from) override {
    const auto& o = static_cast<const SumAvgAgg&>(other);
    counts_[into] += o.counts_[from];
    switch (sig_.arg_type.physical()) {
      case PhysicalType::kInt64: ints_[into] += o.ints_[from]; break;
      case PhysicalType::kDouble:
        floats_[into] += o.floats_[from];
        specials_[into].nan += o.specials_[from].nan;
        specials_[into].pos_inf += o.specials_[from].pos_inf;
        specials_[into].neg_inf += o.specials_[from].neg_inf;
        break;
      case PhysicalType::kDecimal:
        decimals_[into] = DecimalAdd(decimals_[into], o.decimals_[from]);
        for (const auto& [scale, n] : o.scales_[from]) CountKey(&scales_[into], scale, n);
        break;
      case PhysicalType::kInterval: intervals_[into] = IntervalAdd(intervals_[into], o.intervals_[from]); break;
      default: break;
    }
  }
  void ResetGroup(uint32_t g) override {
    counts_[g] = 0;
    ints_[g] = 0;
    decimals_[g] = Decimal{};
    floats_[g] = 0;
    intervals_[g] = Interval{};
    if (!specials_.empty()) specials_[g] = Specials{};
    if (!scales_.empty()) scales_[g].clear();
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const uint32_t g = groups[i];
      if (counts_[g] == 0) {
        out->AppendNull();
        continue;
      }
      switch (sig_.arg_type.physical()) {
        case PhysicalType::kInt64: {
          if (!avg_ && sig_.return_type.id == TypeId::kInt64) {
            if (ints_[g] > INT64_MAX || ints_[g] < INT64_MIN) throw SqlError(sqlstate::kNumericValueOutOfRange, "bigint out of range");
            out->AppendInt(static_cast<int64_t>(ints_[g]));
            break;
          }
          Decimal sum{ints_[g], 0};
          out->AppendDecimal(avg_ ? DecimalDiv(sum, DecimalFromInt(counts_[g])) : sum);
          break;
        }
        case PhysicalType::kDouble: {
          const Specials& sp = specials_[g];
          double sum = floats_[g];
          if (sp.nan > 0 || (sp.pos_inf > 0 && sp.neg_inf > 0)) sum = std::nan("");
          else if (sp.pos_inf > 0) sum = INFINITY;
          else if (sp.neg_inf > 0) sum = -INFINITY;
          out->AppendFloat(avg_ ? sum / double(counts_[g]) : sum);
          break;
        }
        case PhysicalType::kDecimal: {
          Decimal sum = decimals_[g];
          int32_t scale = 0;
          bool nan = false, pos_inf = false, neg_inf = false;
          for (const auto& [sc, n] : scales_[g]) {
            scale = std::max(scale, sc);
            nan = nan || (sc == kDecimalNaN && n > 0);
            pos_inf = pos_inf || (sc == kDecimalInfinity && n > 0);
            neg_inf = neg_inf || (sc == kDecimalNegInfinity && n > 0);
          }
          if (nan || (pos_inf && neg_inf)) sum = DecimalSpecial(kDecimalNaN);
          else if (pos_inf || neg_inf) sum = DecimalSpecial(pos_inf ? kDecimalInfinity : kDecimalNegInfinity);
          else if (!scales_[g].empty() && scale < sum.scale) sum = DecimalRound(sum, scale);  // exact: dropped digits are 0
          out->AppendDecimal(avg_ ? DecimalDiv(sum, DecimalFromInt(counts_[g])) : sum);
          break;
        }
        case PhysicalType::kInterval:
          out->AppendInterval(avg_ ? IntervalDivDouble(intervals_[g], double(counts_[g])) : intervals_[g]);
          break;
        default: out->AppendNull();
      }
    }
  }

 private:
  AggregateSignature sig_;
  bool avg_;
  std::vector<int64_t> counts_;
  std::vector<__int128> ints_;
  std::vector<Decimal> decimals_;
  std::vector<double> floats_;
  std::vector<Interval> intervals_;
  struct Specials {
    int64_t nan = 0, pos_inf = 0, neg_inf = 0;
  };
  std::vector<Specials> specials_;                               // float arguments
  std::vector<KeyCounts> scales_;  // numeric arguments: values per scale
};

// Calls f(row, key) for each non-NULL row of v with its memcomparable key:
// min/max/bool_and/bool_or compare values by it.
template <typename F>
void ForEachValueKey(const Vector& v, size_t n, F&& f) {
  std::string key;
  for (size_t r = 0; r < n; r++) {
    if (v.IsNull(r)) continue;
    key.clear();
    EncodeKeyFromVector(v, r, &key);
    f(r, key);
  }
}

// min, max, bool_and, bool_or: a multiset of values per group (ordered by
// memcomparable key), so retracting the current extreme is exact.
class ExtremeAgg : public AggregateFunction {
 public:
  explicit ExtremeAgg(AggregateSignature sig) : sig_(sig) {}
  void Resize(size_t n) override { groups_.resize(n); }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    ForEachValueKey(v, n, [&](size_t r, const std::string& key) {
      auto& m = groups_[groups[r]];
      if (!signs || signs[r] > 0) {
        auto [it, inserted] = m.try_emplace(key, Entry{v.GetValue(r), 0});
        it->second.count++;
      } else {
        auto it = m.find(key);
        if (it != m.end() && --it->second.count == 0) m.erase(it);
      }
    });
  }
  void ResetGroup(uint32_t g) override { groups_[g].clear(); }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const auto& m = groups_[groups[i]];
      if (m.empty()) {
        out->AppendNull();
        continue;
      }
      bool take_max = sig_.kind == AggKind::kMax || sig_.kind == AggKind::kBoolOr;
      out->Append(take_max ? m.rbegin()->second.value : m.begin()->second.value);
    }
  }

 private:
  struct Entry {
    Value value;
    int64_t count;
  };
  AggregateSignature sig_;
  std::vector<std::map<std::string, Entry>> groups_;
};

// min, max, bool_and, bool_or over inputs that never retract (batch
// queries, append-only streams): only the extreme so far per group, which
// is also the state the stream engine saves.
//
// Integer-like and float arguments keep the extreme as a number, compared
// as their memcomparable keys order them (floats: NaN after everything and
// equal to itself, -0 equal to 0); other types keep the key and the value.
// Of equal values the first one stays.
class ExtremeValueAgg : public AggregateFunction {
 public:
  explicit ExtremeValueAgg(AggregateSignature sig)
      : sig_(sig), take_max_(sig.kind == AggKind::kMax || sig.kind == AggKind::kBoolOr),
        physical_(sig.arg_type.physical()) {}
  void Resize(size_t n) override {
    if (Numeric()) {
      has_.resize(n, 0);
      if (physical_ == PhysicalType::kInt64) ints_.resize(n);
      else floats_.resize(n);
    } else {
      groups_.resize(n);
    }
  }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    if (signs)
      for (size_t r = 0; r < n; r++)
        if (signs[r] < 0 && !v.IsNull(r))
          throw SqlError(sqlstate::kInternalError, "a retraction reached an aggregate over an append-only input");
    if (Numeric() && v.physical() != physical_)
      throw SqlError(sqlstate::kInternalError, fmt::format("{} of {} over a column of another type",
                                                           AggregateName(sig_.kind), sig_.arg_type.ToString()));
    if (physical_ == PhysicalType::kInt64) {
      const std::vector<uint8_t>& valid = v.validity();
      const std::vector<int64_t>& values = v.ints();
      for (size_t r = 0; r < n; r++)
        if (valid[r]) TakeInt(groups[r], values[r]);
      return;
    }
    if (physical_ == PhysicalType::kDouble) {
      const std::vector<uint8_t>& valid = v.validity();
      const std::vector<double>& values = v.floats();
      for (size_t r = 0; r < n; r++)
        if (valid[r]) TakeFloat(groups[r], values[r]);
      return;
    }
    ForEachValueKey(v, n, [&](size_t r, const std::string& key) {
      Best& best = groups_[groups[r]];
      if (best.key.empty() || (take_max_ ? key > best.key : key < best.key)) {
        best.key = key;
        best.value = v.GetValue(r);
      }
    });
  }
  void ResetGroup(uint32_t g) override {
    if (Numeric()) has_[g] = 0;
    else groups_[g] = Best();
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const uint32_t g = groups[i];
      if (!Numeric()) {
        const Best& best = groups_[g];
        if (best.key.empty()) out->AppendNull();
        else out->Append(best.value);
      } else if (!has_[g]) {
        out->AppendNull();
      } else if (physical_ == PhysicalType::kInt64) {
        out->AppendInt(ints_[g]);
      } else {
        out->AppendFloat(floats_[g]);
      }
    }
  }
  std::vector<DataType> StateTypes() const override { return {sig_.arg_type}; }
  void SaveState(uint32_t group, std::vector<Value>* out) const override {
    if (!Numeric()) {
      const Best& best = groups_[group];
      out->push_back(best.key.empty() ? Value::Null(sig_.arg_type) : best.value);
    } else if (!has_[group]) {
      out->push_back(Value::Null(sig_.arg_type));
    } else if (physical_ == PhysicalType::kInt64) {
      out->push_back(Value::FromInt(sig_.arg_type, ints_[group]));
    } else {
      Value v = Value::Float64(floats_[group]);
      v.set_type(sig_.arg_type);
      out->push_back(std::move(v));
    }
  }
  void LoadState(uint32_t group, const Value* in) override {
    ResetGroup(group);
    if (in[0].is_null()) return;
    if (Numeric()) {
      has_[group] = 1;
      if (physical_ == PhysicalType::kInt64) ints_[group] = in[0].int_value();
      else floats_[group] = in[0].float_value();
      return;
    }
    Best& best = groups_[group];
    Vector v(sig_.arg_type);
    v.Append(in[0]);
    EncodeKeyFromVector(v, 0, &best.key);
    best.value = in[0];
  }
  bool Mergeable() const override { return true; }
  void MergeGroup(uint32_t into, const AggregateFunction& other, uint32_t from) override {
    const auto& o = static_cast<const ExtremeValueAgg&>(other);
    if (!Numeric()) {
      const Best& theirs = o.groups_[from];
      Best& best = groups_[into];
      if (!theirs.key.empty() && (best.key.empty() || (take_max_ ? theirs.key > best.key : theirs.key < best.key)))
        best = theirs;
    } else if (o.has_[from]) {
      if (physical_ == PhysicalType::kInt64) TakeInt(into, o.ints_[from]);
      else TakeFloat(into, o.floats_[from]);
    }
  }

 private:
  bool Numeric() const { return physical_ == PhysicalType::kInt64 || physical_ == PhysicalType::kDouble; }
  void TakeInt(uint32_t g, int64_t x) {
    if (!has_[g] || (take_max_ ? x > ints_[g] : x < ints_[g])) {
      ints_[g] = x;
      has_[g] = 1;
    }
  }
  // Whether a sorts after b by their keys (EncodeDouble's order).
  static bool FloatAfter(double a, double b) {
    if (std::isnan(b)) return false;
    if (std::isnan(a)) return true;
    return a > b;
  }
  void TakeFloat(uint32_t g, double x) {
    if (!has_[g] || (take_max_ ? FloatAfter(x, floats_[g]) : FloatAfter(floats_[g], x))) {
      floats_[g] = x;
      has_[g] = 1;
    }
  }

  struct Best {
    std::string key;  // memcomparable; empty when no value yet (a key is never empty)
    Value value;
  };
  AggregateSignature sig_;
  bool take_max_;
  PhysicalType physical_;
  std::vector<Best> groups_;       // other types
  std::vector<uint8_t> has_;       // numeric: whether the group has a value
  std::vector<int64_t> ints_;      // integer-like
  std::vector<double> floats_;     // floats
};

// string_agg(value, delimiter): concatenation in input order. The result
// is PostgreSQL's string buffer: refused (54000) at the value that would
// make it larger than a value can be, as the values come when they are
// never retracted (a batch query), else when the result is built.
class StringAggAgg : public AggregateFunction {
 public:
  void Resize(size_t n) override {
    groups_.resize(n);
    sizes_.resize(n, 0);
  }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    const Vector& d = *args[1];
    for (size_t r = 0; r < n; r++) {
      if (v.IsNull(r)) continue;
      auto& parts = groups_[groups[r]];
      std::string delim = d.IsNull(r) ? "" : d.GetString(r);
      if (signs && signs[r] < 0) {
        for (auto it = parts.begin(); it != parts.end(); ++it) {
          if (it->first == v.GetString(r)) {
            parts.erase(it);
            break;
          }
        }
        sizes_[groups[r]] = kUnknownSize;
      } else {
        uint64_t& size = sizes_[groups[r]];
        if (size != kUnknownSize) {
          if (!parts.empty()) {
            CheckEnlarge(size, delim.size());
            size += delim.size();
          }
          CheckEnlarge(size, v.GetString(r).size());
          size += v.GetString(r).size();
        }
        parts.emplace_back(v.GetString(r), std::move(delim));
      }
    }
  }
  void ResetGroup(uint32_t g) override {
    groups_[g].clear();
    sizes_[g] = 0;
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const auto& parts = groups_[groups[i]];
      if (parts.empty()) {
        out->AppendNull();
        continue;
      }
      out->AppendString(BuildLimitedString([&](auto& s) {
        s.append(parts[0].first);
        for (size_t k = 1; k < parts.size(); k++) {
          s.append(parts[k].second);
          s.append(parts[k].first);
        }
      }));
    }
  }

 private:
  static constexpr uint64_t kUnknownSize = UINT64_MAX;  // after a retraction
  std::vector<std::vector<std::pair<std::string, std::string>>> groups_;  // (value, delimiter before it)
  std::vector<uint64_t> sizes_;  // bytes of each group's result so far
};

// array_agg(value): the values (NULLs included) in input order. Refused
// (54000) at the element beyond PostgreSQL's limits on an array when the
// values are never retracted, else when the array is built (EncodeArray).
class ArrayAgg : public AggregateFunction {
 public:
  explicit ArrayAgg(DataType element) : element_(element) {}
  void Resize(size_t n) override {
    groups_.resize(n, Vector(element_));
    bytes_.resize(n, 0);
  }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    for (size_t r = 0; r < n; r++) {
      Vector& g = groups_[groups[r]];
      if (!signs || signs[r] > 0) {
        if (!signs) {
          CheckArrayElements(g.size() + 1);
          if (v.physical() == PhysicalType::kString && !v.IsNull(r)) {
            uint64_t& bytes = bytes_[groups[r]];
            bytes = SaturatingAdd(bytes, v.GetString(r).size() + 2);
            CheckArrayBytes(bytes);
          }
        }
        g.AppendFrom(v, r);
        continue;
      }
      // Retraction: drop the first equal element.
      std::string key, probe;
      EncodeKeyFromVector(v, r, &key);
      for (size_t i = 0; i < g.size(); i++) {
        probe.clear();
        EncodeKeyFromVector(g, i, &probe);
        if (probe != key) continue;
        std::vector<uint8_t> keep(g.size(), 1);
        keep[i] = 0;
        g.Filter(keep);
        break;
      }
    }
  }
  void ResetGroup(uint32_t g) override {
    groups_[g] = Vector(element_);
    bytes_[g] = 0;
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      if (groups_[groups[i]].size() == 0) out->AppendNull();
      else out->AppendString(EncodeArray(groups_[groups[i]]));
    }
  }

 private:
  DataType element_;
  std::vector<Vector> groups_;
  std::vector<uint64_t> bytes_;  // at least the encoded bytes of each group's strings (without retractions)
};

// var_samp, var_pop, stddev_samp, stddev_pop as PostgreSQL computes them.
// Integers and numeric (numeric_stddev_internal): count, sum and sum of
// squares, exact, the result (N * sum(x^2) - sum(x)^2) / (N * (N - 1)) (or
// N * N) at numeric division's scale, its square root at the same scale;
// NaN and infinities counted apart, any of them making the result NaN. The
// scale of the sums is the largest scale among the values (counted per
// scale, so that a retraction gives it back). Floats (float8_accum):
// Youngs-Cramer's N, Sx and Sxx, a retraction undoing an accumulation by
// its inverse; NaN and infinities counted apart, making the result NaN.
class VarianceAgg : public AggregateFunction {
 public:
  explicit VarianceAgg(AggregateSignature sig)
      : sig_(sig),
        floats_(sig.arg_type.physical() == PhysicalType::kDouble),
        sample_(sig.kind == AggKind::kVarSamp || sig.kind == AggKind::kStddevSamp),
        root_(sig.kind == AggKind::kStddevSamp || sig.kind == AggKind::kStddevPop) {}
  void Resize(size_t n) override { groups_.resize(n); }
  void ResetGroup(uint32_t g) override { groups_[g] = Group(); }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    for (size_t r = 0; r < n; r++) {
      if (v.IsNull(r)) continue;
      Group& g = groups_[groups[r]];
      const int sign = signs ? signs[r] : 1;
      if (floats_) {
        const double x = v.GetFloat(r);
        if (std::isnan(x) || std::isinf(x)) g.specials += sign;
        else if (sign > 0) Accumulate(&g, x);
        else Discard(&g, x);
        continue;
      }
      const Decimal x = v.physical() == PhysicalType::kDecimal ? v.GetDecimal(r) : DecimalFromInt(v.GetInt(r));
      if (DecimalIsSpecial(x)) {
        g.specials += sign;
        continue;
      }
      g.n += sign;
      const Decimal square = DecimalMul(x, x);
      g.sum = sign > 0 ? DecimalAdd(g.sum, x) : DecimalSub(g.sum, x);
      g.sum_squares = sign > 0 ? DecimalAdd(g.sum_squares, square) : DecimalSub(g.sum_squares, square);
      CountKey(&g.scales, x.scale, sign);
    }
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const Group& g = groups_[groups[i]];
      const int64_t total = (floats_ ? g.fn : g.n) + g.specials;
      if (total <= (sample_ ? 1 : 0)) {
        out->AppendNull();
        continue;
      }
      if (floats_) {
        if (g.specials > 0) {
          out->AppendFloat(std::nan(""));
          continue;
        }
        const double variance = std::max(g.sxx, 0.0) / (sample_ ? double(g.fn) - 1.0 : double(g.fn));
        out->AppendFloat(root_ ? std::sqrt(variance) : variance);
        continue;
      }
      if (g.specials > 0) {
        out->AppendDecimal(DecimalSpecial(kDecimalNaN));
        continue;
      }
      int32_t scale = 0;
      for (const auto& p : g.scales) scale = std::max(scale, p.first);
      const Decimal count = DecimalFromInt(g.n);
      const Decimal sum = DecimalRound(g.sum, scale), squares = DecimalRound(g.sum_squares, 2 * scale);
      const Decimal numerator = DecimalSub(DecimalMul(count, squares), DecimalMul(sum, sum));
      if (DecimalSign(numerator) <= 0) {
        out->AppendDecimal(Decimal{0, 0});
        continue;
      }
      const Decimal denominator = DecimalMul(count, sample_ ? DecimalFromInt(g.n - 1) : count);
      const Decimal variance = DecimalDiv(numerator, denominator);
      out->AppendDecimal(root_ ? DecimalSqrt(variance, variance.scale) : variance);
    }
  }
  std::vector<DataType> StateTypes() const override {
    if (floats_) return {DataType::Int64(), DataType::Float64(), DataType::Float64(), DataType::Int64()};
    return {DataType::Int64(), DataType::Numeric(), DataType::Numeric(), DataType::Varchar(), DataType::Int64()};
  }
  void SaveState(uint32_t group, std::vector<Value>* out) const override {
    const Group& g = groups_[group];
    if (floats_) {
      out->insert(out->end(), {Value::Int64(g.fn), Value::Float64(g.sx), Value::Float64(g.sxx), Value::Int64(g.specials)});
      return;
    }
    out->insert(out->end(), {Value::Int64(g.n), Value::Numeric(g.sum), Value::Numeric(g.sum_squares),
                             Value::Varchar(KeyCountsText(g.scales)), Value::Int64(g.specials)});
  }
  void LoadState(uint32_t group, const Value* in) override {
    Group& g = groups_[group];
    g = Group();
    auto integer = [](const Value& v) { return v.is_null() ? 0 : v.int_value(); };
    if (floats_) {
      g.fn = integer(in[0]);
      g.sx = in[1].is_null() ? 0 : in[1].float_value();
      g.sxx = in[2].is_null() ? 0 : in[2].float_value();
      g.specials = integer(in[3]);
      return;
    }
    g.n = integer(in[0]);
    if (!in[1].is_null()) g.sum = in[1].decimal_value();
    if (!in[2].is_null()) g.sum_squares = in[2].decimal_value();
    if (!in[3].is_null()) g.scales = ParseKeyCounts(in[3].string_value());
    g.specials = integer(in[4]);
  }

 private:
  struct Group {
    int64_t specials = 0;  // NaN and infinities
    // Integers and numeric.
    int64_t n = 0;
    Decimal sum, sum_squares;
    KeyCounts scales;  // values per scale
    // Floats (finite values only).
    int64_t fn = 0;
    double sx = 0, sxx = 0;
  };
  // float8_accum's step.
  static void Accumulate(Group* g, double x) {
    g->fn++;
    g->sx += x;
    if (g->fn > 1) {
      const double n = double(g->fn), t = x * n - g->sx;
      g->sxx += t * t / (n * (n - 1));
    }
  }
  // Its inverse: the state before x was accumulated.
  static void Discard(Group* g, double x) {
    if (g->fn <= 1) {
      g->fn = 0;
      g->sx = g->sxx = 0;
      return;
    }
    const double n = double(g->fn), t = x * n - g->sx;
    g->sxx -= t * t / (n * (n - 1));
    g->sx -= x;
    g->fn--;
  }
  AggregateSignature sig_;
  bool floats_, sample_, root_;
  std::vector<Group> groups_;
};

// bit_and, bit_or, bit_xor over integers: per group, how many values have
// each bit set (of their 64-bit two's complement, which keeps the sign of
// narrower types) and how many there are, so that a retraction is exact.
class BitwiseAgg : public AggregateFunction {
 public:
  explicit BitwiseAgg(AggKind kind) : kind_(kind) {}
  void Resize(size_t n) override { groups_.resize(n); }
  void ResetGroup(uint32_t g) override { groups_[g] = Group(); }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& v = *args[0];
    for (size_t r = 0; r < n; r++) {
      if (v.IsNull(r)) continue;
      Group& g = groups_[groups[r]];
      const int sign = signs ? signs[r] : 1;
      const uint64_t bits = static_cast<uint64_t>(v.GetInt(r));
      g.values += sign;
      for (int b = 0; b < 64; b++)
        if (bits >> b & 1) g.set[b] += sign;
    }
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const Group& g = groups_[groups[i]];
      if (g.values <= 0) {
        out->AppendNull();
        continue;
      }
      uint64_t bits = 0;
      for (int b = 0; b < 64; b++) {
        const bool on = kind_ == AggKind::kBitAnd  ? g.set[b] == g.values
                        : kind_ == AggKind::kBitOr ? g.set[b] > 0
                                                   : g.set[b] % 2 != 0;
        if (on) bits |= uint64_t(1) << b;
      }
      out->AppendInt(static_cast<int64_t>(bits));
    }
  }
  std::vector<DataType> StateTypes() const override { return {DataType::Int64(), DataType::Varchar()}; }
  void SaveState(uint32_t group, std::vector<Value>* out) const override {
    const Group& g = groups_[group];
    KeyCounts set;  // the bits some value has
    for (int b = 0; b < 64; b++)
      if (g.set[b] != 0) set.emplace_back(b, g.set[b]);
    out->push_back(Value::Int64(g.values));
    out->push_back(Value::Varchar(KeyCountsText(set)));
  }
  void LoadState(uint32_t group, const Value* in) override {
    Group& g = groups_[group];
    g = Group();
    if (!in[0].is_null()) g.values = in[0].int_value();
    if (in[1].is_null()) return;
    for (const auto& [b, n] : ParseKeyCounts(in[1].string_value()))
      if (b >= 0 && b < 64) g.set[b] = n;
  }

 private:
  struct Group {
    int64_t values = 0;
    int64_t set[64] = {};
  };
  AggKind kind_;
  std::vector<Group> groups_;
};

// corr, covar_pop/samp and regr_* over (Y, X) pairs with neither NULL, as
// PostgreSQL's float8_regr_accum and its final functions compute them:
// Youngs-Cramer sums, here three: X's (N, Sx, Sxx) over the pairs whose X
// is finite, Y's likewise, and the pairs' Sxy over those with both finite;
// a retraction undoes an accumulation by its inverse. NaN and infinities
// are counted per argument: a sum of squares or products reading one is
// NaN, as PostgreSQL's, and an average is what summing them gives.
class RegressionAgg : public AggregateFunction {
 public:
  explicit RegressionAgg(AggKind kind) : kind_(kind) {}
  void Resize(size_t n) override { groups_.resize(n); }
  void ResetGroup(uint32_t g) override { groups_[g] = Group(); }
  void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs, size_t n,
              EvalContext&) override {
    const Vector& vy = *args[0];
    const Vector& vx = *args[1];
    for (size_t r = 0; r < n; r++) {
      if (vy.IsNull(r) || vx.IsNull(r)) continue;
      Group& g = groups_[groups[r]];
      const int sign = signs ? signs[r] : 1;
      const double y = vy.GetFloat(r), x = vx.GetFloat(r);
      g.pairs += sign;
      const bool fx = std::isfinite(x), fy = std::isfinite(y);
      if (fx) g.x.Add(x, sign);
      else g.x.special.Add(x, sign);
      if (fy) g.y.Add(y, sign);
      else g.y.special.Add(y, sign);
      if (fx && fy) g.xy.Add(x, y, sign);
    }
  }
  void FinalizeGroups(const uint32_t* groups, size_t num, Vector* out, EvalContext&) override {
    for (size_t i = 0; i < num; i++) {
      const Group& g = groups_[groups[i]];
      if (kind_ == AggKind::kRegrCount) {
        out->AppendInt(g.pairs);
        continue;
      }
      const std::optional<double> r = Result(g);
      if (r) out->AppendFloat(*r);
      else out->AppendNull();
    }
  }
  std::vector<DataType> StateTypes() const override {
    std::vector<DataType> types(3, DataType::Int64());  // pairs, X's n, Y's n
    types.insert(types.end(), 7, DataType::Float64());
    types.push_back(DataType::Varchar());  // the pairs' n and the special counts
    return types;
  }
  void SaveState(uint32_t group, std::vector<Value>* out) const override {
    const Group& g = groups_[group];
    out->insert(out->end(), {Value::Int64(g.pairs), Value::Int64(g.x.n), Value::Int64(g.y.n), Value::Float64(g.x.sx),
                             Value::Float64(g.x.sxx), Value::Float64(g.y.sx), Value::Float64(g.y.sxx),
                             Value::Float64(g.xy.sx), Value::Float64(g.xy.sy), Value::Float64(g.xy.sxy)});
    out->push_back(Value::Varchar(fmt::format("{},{},{},{},{},{},{}", g.xy.n, g.x.special.nan, g.x.special.pos,
                                              g.x.special.neg, g.y.special.nan, g.y.special.pos, g.y.special.neg)));
  }
  void LoadState(uint32_t group, const Value* in) override {
    Group& g = groups_[group];
    g = Group();
    auto i64 = [](const Value& v) { return v.is_null() ? int64_t(0) : v.int_value(); };
    auto f64 = [](const Value& v) { return v.is_null() ? 0.0 : v.float_value(); };
    g.pairs = i64(in[0]);
    g.x.n = i64(in[1]);
    g.y.n = i64(in[2]);
    g.x.sx = f64(in[3]);
    g.x.sxx = f64(in[4]);
    g.y.sx = f64(in[5]);
    g.y.sxx = f64(in[6]);
    g.xy.sx = f64(in[7]);
    g.xy.sy = f64(in[8]);
    g.xy.sxy = f64(in[9]);
    if (in[10].is_null()) return;
    int64_t* fields[] = {&g.xy.n, &g.x.special.nan, &g.x.special.pos, &g.x.special.neg,
                         &g.y.special.nan, &g.y.special.pos, &g.y.special.neg};
    const std::string& text = in[10].string_value();
    size_t pos = 0;
    for (int64_t* f : fields) {
      const size_t comma = text.find(',', pos);
      *f = std::stoll(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }

 private:
  struct Specials {
    int64_t nan = 0, pos = 0, neg = 0;
    void Add(double v, int sign) { (std::isnan(v) ? nan : v > 0 ? pos : neg) += sign; }
    bool Any() const { return nan != 0 || pos != 0 || neg != 0; }
  };
  // One argument's Youngs-Cramer sums over its finite values.
  struct Single {
    int64_t n = 0;
    double sx = 0, sxx = 0;
    Specials special;
    void Add(double v, int sign) {
      if (sign > 0) {
        n++;
        sx += v;
        if (n > 1) {
          const double m = double(n), t = v * m - sx;
          sxx += t * t * (1.0 / (m * (m - 1)));  // float8_regr_accum's rounding
        }
      } else if (n <= 1) {
        n = 0;
        sx = sxx = 0;
      } else {
        const double m = double(n), t = v * m - sx;
        sxx -= t * t * (1.0 / (m * (m - 1)));
        sx -= v;
        n--;
      }
    }
    // The sum of every value, infinities and NaN included.
    double Sum() const {
      if (special.nan > 0 || (special.pos > 0 && special.neg > 0)) return std::nan("");
      if (special.pos > 0) return INFINITY;
      if (special.neg > 0) return -INFINITY;
      return sx;
    }
  };
  // The pairs' sum of products (over pairs with both values finite).
  struct Joint {
    int64_t n = 0;
    double sx = 0, sy = 0, sxy = 0;
    void Add(double x, double y, int sign) {
      if (sign > 0) {
        n++;
        sx += x;
        sy += y;
        if (n > 1) {
          const double m = double(n);
          sxy += (x * m - sx) * (y * m - sy) * (1.0 / (m * (m - 1)));
        }
      } else if (n <= 1) {
        *this = Joint();
      } else {
        const double m = double(n);
        sxy -= (x * m - sx) * (y * m - sy) * (1.0 / (m * (m - 1)));
        sx -= x;
        sy -= y;
        n--;
      }
    }
  };
  struct Group {
    int64_t pairs = 0;
    Single x, y;
    Joint xy;
  };
  // PostgreSQL's final functions (float8_covar_pop, float8_corr, ...).
  std::optional<double> Result(const Group& g) const {
    if (g.pairs < 1) return std::nullopt;
    const double n = double(g.pairs);
    const double sxx = g.x.special.Any() ? std::nan("") : std::max(g.x.sxx, 0.0);
    const double syy = g.y.special.Any() ? std::nan("") : std::max(g.y.sxx, 0.0);
    const double sxy = g.x.special.Any() || g.y.special.Any() ? std::nan("") : g.xy.sxy;
    switch (kind_) {
      case AggKind::kRegrSxx: return sxx;
      case AggKind::kRegrSyy: return syy;
      case AggKind::kRegrSxy: return sxy;
      case AggKind::kRegrAvgX: return g.x.Sum() / n;
      case AggKind::kRegrAvgY: return g.y.Sum() / n;
      case AggKind::kCovarPop: return sxy / n;
      case AggKind::kCovarSamp: return g.pairs < 2 ? std::nullopt : std::optional<double>(sxy / (n - 1));
      case AggKind::kCorr:
        if (sxx == 0 || syy == 0) return std::nullopt;  // a horizontal or vertical line
        return sxy / std::sqrt(sxx * syy);
      case AggKind::kRegrR2:
        if (sxx == 0) return std::nullopt;
        return syy == 0 ? 1.0 : (sxy * sxy) / (sxx * syy);
      case AggKind::kRegrSlope:
        if (sxx == 0) return std::nullopt;
        return sxy / sxx;
      case AggKind::kRegrIntercept:
        if (sxx == 0) return std::nullopt;
        return (g.y.Sum() - g.x.Sum() * sxy / sxx) / n;
      default: return std::nullopt;
    }
  }
  AggKind kind_;
  std::vector<Group> groups_;
};

}  // namespace

void AggregateFunction::Finalize(size_t num_groups, Vector* out, EvalContext& ctx) {
  std::vector<uint32_t> all(num_groups);
  for (size_t g = 0; g < num_groups; g++) all[g] = uint32_t(g);
  FinalizeGroups(all.data(), num_groups, out, ctx);
}

std::unique_ptr<AggregateFunction> CreateAggregate(const AggregateSignature& sig, bool inputs_never_retract) {
  switch (sig.kind) {
    case AggKind::kCount: return std::make_unique<CountAgg>(false);
    case AggKind::kCountStar: return std::make_unique<CountAgg>(true);
    case AggKind::kSum: return std::make_unique<SumAvgAgg>(sig, false);
    case AggKind::kAvg: return std::make_unique<SumAvgAgg>(sig, true);
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kBoolAnd:
    case AggKind::kBoolOr:
      if (inputs_never_retract) return std::make_unique<ExtremeValueAgg>(sig);
      return std::make_unique<ExtremeAgg>(sig);
    case AggKind::kStringAgg: return std::make_unique<StringAggAgg>();
    case AggKind::kArrayAgg: return std::make_unique<ArrayAgg>(sig.arg_type);
    case AggKind::kStddevSamp:
    case AggKind::kStddevPop:
    case AggKind::kVarSamp:
    case AggKind::kVarPop: return std::make_unique<VarianceAgg>(sig);
    case AggKind::kBitAnd:
    case AggKind::kBitOr:
    case AggKind::kBitXor: return std::make_unique<BitwiseAgg>(sig.kind);
    default: return std::make_unique<RegressionAgg>(sig.kind);
  }
  return nullptr;
}

}  // namespace freshet
