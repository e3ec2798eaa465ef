// The final steps of the ordered-set aggregates percentile_cont,
// percentile_disc and mode (PostgreSQL's orderedsetaggs.c). The binder
// makes `agg(f) WITHIN GROUP (ORDER BY x)` an array_agg(x ORDER BY x)
// finished by `agg_finalfn(values, f)`: the group's values sorted as the
// WITHIN GROUP clause says, NULLs among them (they are skipped here, as
// PostgreSQL's aggregates never see them). Aggregating through array_agg
// makes them work wherever array_agg with ORDER BY does, materialized
// views included (each change of a group sorts its values again). Also
// RisingWave's first_value and last_value aggregates, bound the same way.
#include <cmath>

#include "common/array.h"
#include "common/datetime.h"
#include "common/encoding.h"
#include "expr/function_helpers.h"

namespace freshet {

namespace {

// The group's non-NULL values, in order.
Vector SortedValues(std::string_view array, const DataType& element) {
  Vector all = DecodeArray(array, element);
  std::vector<uint8_t> keep(all.size());
  for (size_t i = 0; i < all.size(); i++) keep[i] = !all.IsNull(i);
  all.Filter(keep);
  return all;
}

// NULL fraction: NULL; outside [0, 1]: PostgreSQL's 22003.
bool Fraction(const Vector& fractions, size_t row, double* out) {
  if (fractions.IsNull(row)) return false;
  *out = fractions.GetFloat(row);
  if (*out < 0 || *out > 1 || std::isnan(*out))
    FRESHET_THROW(sqlstate::kNumericValueOutOfRange, "percentile value {} is not between 0 and 1", *out);
  return true;
}

// The final step over each row's values: NULL when the row has no array,
// no non-NULL value, or (with a fraction) a NULL fraction; else `pick`
// appends the result from the sorted values and the fraction (0 without).
template <typename Pick>
ScalarFn OverValues(bool with_fraction, bool keep_nulls, Pick pick) {
  return [with_fraction, keep_nulls, pick](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    const DataType element = args[0]->type().ElementType();
    for (size_t r = 0; r < n; r++) {
      double f = 0;
      if (args[0]->IsNull(r) || (with_fraction && !Fraction(*args[1], r, &f))) {
        out->AppendNull();
        continue;
      }
      const Vector values = keep_nulls ? DecodeArray(args[0]->GetString(r), element)
                                       : SortedValues(args[0]->GetString(r), element);
      if (values.size() == 0) out->AppendNull();
      else pick(values, f, out);
    }
  };
}

// percentile_cont: the value at position f * (n - 1), interpolated
// linearly between its neighbours (float8, interval).
void PercentileCont(const Vector& values, double f, Vector* out) {
  const double position = f * double(values.size() - 1);
  const size_t first = static_cast<size_t>(std::floor(position)), second = static_cast<size_t>(std::ceil(position));
  const double proportion = position - double(first);
  if (values.type().id == TypeId::kInterval) {
    const Interval lo = values.GetInterval(first), hi = values.GetInterval(second);
    out->AppendInterval(first == second ? lo : IntervalAdd(lo, IntervalMulDouble(IntervalAdd(hi, IntervalNeg(lo)), proportion)));
  } else {
    const double lo = values.GetFloat(first), hi = values.GetFloat(second);
    out->AppendFloat(first == second ? lo : lo + (hi - lo) * proportion);
  }
}

// percentile_disc: the first value whose position in the order reaches
// the fraction f of the values.
void PercentileDisc(const Vector& values, double f, Vector* out) {
  const auto position = static_cast<size_t>(std::ceil(f * double(values.size())));
  out->AppendFrom(values, position <= 1 ? 0 : position - 1);
}

// mode: the most frequent value, the first in the order among equally
// frequent ones.
void Mode(const Vector& values, double, Vector* out) {
  size_t best = 0, best_run = 0;
  std::string key, previous;
  for (size_t i = 0, run = 0; i < values.size(); i++) {
    key.clear();
    EncodeKeyFromVector(values, i, &key);
    run = i > 0 && key == previous ? run + 1 : 1;
    if (run > best_run) {
      best_run = run;
      best = i;
    }
    previous.swap(key);
  }
  out->AppendFrom(values, best);
}

// first_value / last_value (RisingWave's aggregates): the first or last
// value in the order given, NULL or not.
void FirstValue(const Vector& values, double, Vector* out) { out->AppendFrom(values, 0); }
void LastValue(const Vector& values, double, Vector* out) { out->AppendFrom(values, values.size() - 1); }

}  // namespace

// Their return types are set by the binder: the element type of the
// values for percentile_disc and mode.
void RegisterOrderedSetFunctions(FunctionRegistry* r) {
  const DataType f8 = DataType::Float64(), any = DataType::AnyArray();
  RegisterFn(r, "percentile_cont_finalfn", {DataType::Array(f8), f8}, f8, OverValues(true, false, PercentileCont));
  RegisterFn(r, "percentile_cont_finalfn", {DataType::Array(DataType::Interval()), f8}, DataType::Interval(),
             OverValues(true, false, PercentileCont));
  RegisterFn(r, "percentile_disc_finalfn", {any, f8}, any, OverValues(true, false, PercentileDisc));
  RegisterFn(r, "mode_finalfn", {any}, any, OverValues(false, false, Mode));
  RegisterFn(r, "first_value_finalfn", {any}, any, OverValues(false, true, FirstValue));
  RegisterFn(r, "last_value_finalfn", {any}, any, OverValues(false, true, LastValue));
}

}  // namespace freshet
