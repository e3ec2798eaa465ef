// Aggregate functions, vectorized over groups.
//
// An AggregateFunction owns the running state of one aggregate call for
// every group of a hash aggregation (state i belongs to group i). Update()
// folds a batch of rows into their groups' states; Finalize() produces one
// value per group. count/sum/avg also accept retractions (sign -1), which
// the stream engine uses; min/max/string_agg keep every value per group to
// stay correct when the current extreme is deleted; array_agg keeps its
// elements in input order (retraction drops the first equal one).
// stddev/variance keep count, sum and sum of squares (exact for integers
// and numeric; for floats PostgreSQL's Youngs-Cramer sums, retracted by
// their inverse); bit_and/bit_or/bit_xor a count of set bits per bit;
// corr, covar_* and regr_* (Y, X) PostgreSQL's float8_regr_accum sums,
// retracted likewise.
//
// Not thread-safe: each executor owns its functions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/vector.h"
#include "expr/eval_context.h"

namespace freshet {

// Persisted in stream plans by number: new kinds go at the end.
enum class AggKind {
  kCount, kCountStar, kSum, kAvg, kMin, kMax, kBoolAnd, kBoolOr, kStringAgg, kArrayAgg,
  kStddevSamp, kStddevPop, kVarSamp, kVarPop, kBitAnd, kBitOr, kBitXor,
  kCorr, kCovarPop, kCovarSamp, kRegrAvgX, kRegrAvgY, kRegrCount, kRegrIntercept, kRegrR2, kRegrSlope, kRegrSxx,
  kRegrSxy, kRegrSyy
};
// The function's name ("count" for count(*)).
const char* AggregateName(AggKind kind);
// Whether its result lists its inputs, in an order (string_agg, array_agg):
// a DISTINCT one keeps each distinct argument tuple, sorted.
inline bool AggregateListsInputs(AggKind kind) { return kind == AggKind::kStringAgg || kind == AggKind::kArrayAgg; }
// Whether its arguments are cast to float8 (corr, covar_*, regr_*).
inline bool AggregateTakesFloat8(AggKind kind) { return kind >= AggKind::kCorr && kind <= AggKind::kRegrSyy; }

struct AggregateSignature {
  AggKind kind;
  DataType arg_type;     // unused for count(*)
  DataType return_type;
};

// Resolves name + argument type to a signature; nullopt-like kind when the
// name is not an aggregate. Throws 42883 when the argument type is not
// supported (e.g. sum(text)).
bool IsAggregateName(const std::string& name);
AggregateSignature ResolveAggregate(const std::string& name, const std::vector<DataType>& arg_types, bool star);

class AggregateFunction {
 public:
  virtual ~AggregateFunction() = default;
  virtual void Resize(size_t num_groups) = 0;
  // For each row r < n: group groups[r] absorbs args[..][r] with sign
  // signs ? signs[r] : +1. args has 0 (count(*)), 1 or 2 (string_agg) vectors.
  virtual void Update(const uint32_t* groups, const std::vector<const Vector*>& args, const int8_t* signs,
                      size_t n, EvalContext& ctx) = 0;
  // Appends the result of groups [0, num_groups) to out.
  void Finalize(size_t num_groups, Vector* out, EvalContext& ctx);
  // Appends the result of the n given groups to out.
  virtual void FinalizeGroups(const uint32_t* groups, size_t n, Vector* out, EvalContext& ctx) = 0;

  // Persistable state (the stream engine's aggregation saves it per group
  // at each barrier): count, sum and avg keep a few values per group and
  // list their types here; the others keep every input value and return
  // none (the stream engine keeps their inputs in a state table instead).
  virtual std::vector<DataType> StateTypes() const { return {}; }
  virtual void SaveState(uint32_t group, std::vector<Value>* out) const { (void)group, (void)out; }
  virtual void LoadState(uint32_t group, const Value* in) { (void)group, (void)in; }
  // Forgets a group's state (its slot is reused).
  virtual void ResetGroup(uint32_t group) = 0;

  // Partial aggregation (batch/parallel_aggregate.cc): whether MergeGroup
  // is supported (count, sum, avg, and min/max/bool_and/bool_or over
  // inputs that never retract), and folding group `from` of `other` (the
  // same aggregate, over other rows) into group `into` of this one, as if
  // this one had absorbed those rows too. A float sum then adds partial
  // sums: its last digits may differ from a sum taken row by row, as with
  // PostgreSQL's parallel aggregation.
  virtual bool Mergeable() const { return false; }
  virtual void MergeGroup(uint32_t into, const AggregateFunction& other, uint32_t from) {
    (void)into, (void)other, (void)from;
  }
};

// `inputs_never_retract`: no row will be retracted (batch queries,
// append-only streams), so min/max/bool_and/bool_or keep only the extreme
// (and have a saved state) instead of every value.
std::unique_ptr<AggregateFunction> CreateAggregate(const AggregateSignature& sig, bool inputs_never_retract = false);

}  // namespace freshet
