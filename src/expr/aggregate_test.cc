// Partial aggregation (AggregateFunction::MergeGroup): rows split at
// random between two aggregates, the second merged into the first, give
// exactly what one aggregate over all the rows gives (the first's rows
// then the second's), for every mergeable kind over each physical type,
// with NULLs, NaN, infinities and -0; and their saved states load back to
// the same results.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/encoding.h"
#include "expr/aggregate.h"

namespace freshet {
namespace {

Value RandomValue(const DataType& type, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pct(0, 99);
  if (pct(rng) < 5) return Value::Null(type);
  switch (type.physical()) {
    case PhysicalType::kInt64: return Value::FromInt(type, std::uniform_int_distribution<int64_t>(-1000, 1000)(rng));
    case PhysicalType::kDouble: {
      const int p = pct(rng);
      if (p < 2) return Value::Float64(std::nan(""));
      if (p < 3) return Value::Float64(INFINITY);
      if (p < 4) return Value::Float64(-INFINITY);
      if (p < 6) return Value::Float64(-0.0);
      // Quarters: every partial and whole sum is exact.
      return Value::Float64(std::uniform_int_distribution<int>(-400, 400)(rng) / 4.0);
    }
    case PhysicalType::kDecimal:
      return Value::Numeric(Decimal{std::uniform_int_distribution<int64_t>(-100000, 100000)(rng),
                                    std::uniform_int_distribution<int32_t>(0, 4)(rng)});
    case PhysicalType::kInterval:
      return Value::IntervalValue(Interval{std::uniform_int_distribution<int32_t>(-5, 5)(rng),
                                           std::uniform_int_distribution<int32_t>(-40, 40)(rng),
                                           std::uniform_int_distribution<int64_t>(-1000000, 1000000)(rng)});
    case PhysicalType::kString: return Value::Varchar(std::string(1 + pct(rng) % 3, static_cast<char>('a' + pct(rng) % 5)));
  }
  return Value::Null(type);
}

std::string Finalized(AggregateFunction& agg, const AggregateSignature& sig, size_t groups) {
  EvalContext ctx;
  Vector out(sig.return_type);
  agg.Finalize(groups, &out, ctx);
  std::string text;
  for (size_t g = 0; g < groups; g++) {
    const Value v = out.GetValue(g);
    text += v.is_null() ? "NULL" : v.ToString();
    // Which zero: a min/max of -0 and 0 keeps the first.
    if (!v.is_null() && v.type().physical() == PhysicalType::kDouble && std::signbit(v.float_value())) text += "(-)";
    text += "|";
  }
  return text;
}

TEST(AggregateMergeTest, MergedPartialsEqualOneAggregateOverAllRows) {
  struct Case {
    const char* name;
    DataType type;
  };
  const std::vector<Case> cases = {
      {"count", DataType::Int64()},    {"count", DataType::Varchar()},  {"sum", DataType::Int64()},
      {"sum", DataType::Float64()},    {"sum", DataType::Numeric()},    {"sum", DataType::Interval()},
      {"avg", DataType::Int64()},      {"avg", DataType::Float64()},    {"avg", DataType::Numeric()},
      {"avg", DataType::Interval()},   {"min", DataType::Int64()},      {"max", DataType::Int64()},
      {"min", DataType::Float64()},    {"max", DataType::Float64()},    {"min", DataType::Numeric()},
      {"max", DataType::Numeric()},    {"min", DataType::Varchar()},    {"max", DataType::Varchar()},
      {"min", DataType::Interval()},   {"max", DataType::Timestamp()},  {"bool_and", DataType::Boolean()},
      {"bool_or", DataType::Boolean()}};
  std::mt19937_64 rng(21);
  for (const Case& c : cases) {
    for (int round = 0; round < 20; round++) {
      SCOPED_TRACE(std::string(c.name) + " " + c.type.ToString() + " round " + std::to_string(round));
      const AggregateSignature sig = ResolveAggregate(c.name, {c.type}, false);
      auto whole = CreateAggregate(sig, true), first = CreateAggregate(sig, true), second = CreateAggregate(sig, true);
      ASSERT_TRUE(first->Mergeable());
      const size_t groups = 1 + rng() % 6;
      for (auto* a : {whole.get(), first.get(), second.get()}) a->Resize(groups);
      // Each part's rows, with their groups (the second's numbered anew).
      Vector part_values[2] = {Vector(c.type), Vector(c.type)};
      std::vector<uint32_t> part_groups[2];
      const size_t rows = rng() % 200;
      for (size_t r = 0; r < rows; r++) {
        Value v = c.type.id == TypeId::kBoolean ? (rng() % 20 == 0 ? Value::Null(c.type)
                                                                   : Value::FromInt(c.type, static_cast<int64_t>(rng() % 2)))
                                                : RandomValue(c.type, rng);
        const int part = static_cast<int>(rng() % 2);
        part_values[part].Append(v);
        part_groups[part].push_back(static_cast<uint32_t>(rng() % groups));
      }
      EvalContext ctx;
      // The second part's group g is the first's group (g + 1) % groups.
      std::vector<uint32_t> second_in_whole;
      for (uint32_t g : part_groups[1]) second_in_whole.push_back(static_cast<uint32_t>((g + 1) % groups));
      std::vector<const Vector*> args0 = {&part_values[0]}, args1 = {&part_values[1]};
      whole->Update(part_groups[0].data(), args0, nullptr, part_values[0].size(), ctx);
      whole->Update(second_in_whole.data(), args1, nullptr, part_values[1].size(), ctx);
      first->Update(part_groups[0].data(), args0, nullptr, part_values[0].size(), ctx);
      second->Update(part_groups[1].data(), args1, nullptr, part_values[1].size(), ctx);
      for (uint32_t g = 0; g < groups; g++) first->MergeGroup(static_cast<uint32_t>((g + 1) % groups), *second, g);
      EXPECT_EQ(Finalized(*first, sig, groups), Finalized(*whole, sig, groups));
      // The state the stream engine saves and loads gives the same results.
      auto reloaded = CreateAggregate(sig, true);
      reloaded->Resize(groups);
      for (uint32_t g = 0; g < groups; g++) {
        std::vector<Value> state;
        first->SaveState(g, &state);
        ASSERT_EQ(state.size(), first->StateTypes().size());
        reloaded->LoadState(g, state.data());
      }
      EXPECT_EQ(Finalized(*reloaded, sig, groups), Finalized(*first, sig, groups));
    }
  }
}

// min/max over numbers keep the extreme as a number: its order is the
// memcomparable keys' (NaN last and equal to itself, -0 equal to 0; the
// first of equal values stays), the order of the other types' path.
TEST(AggregateMergeTest, NumericExtremesFollowTheKeyOrder) {
  std::mt19937_64 rng(7);
  for (const char* name : {"min", "max"}) {
    for (int round = 0; round < 200; round++) {
      const AggregateSignature sig = ResolveAggregate(name, {DataType::Float64()}, false);
      auto agg = CreateAggregate(sig, true);
      agg->Resize(1);
      Vector values(DataType::Float64());
      const size_t rows = 1 + rng() % 12;
      for (size_t r = 0; r < rows; r++) values.Append(RandomValue(DataType::Float64(), rng));
      std::vector<uint32_t> groups(rows, 0);
      EvalContext ctx;
      std::vector<const Vector*> args = {&values};
      agg->Update(groups.data(), args, nullptr, rows, ctx);
      // The reference: the first value whose key is the extreme.
      std::string best_key;
      Value best = Value::Null(DataType::Float64());
      for (size_t r = 0; r < rows; r++) {
        if (values.IsNull(r)) continue;
        std::string key;
        EncodeKeyFromVector(values, r, &key);
        const bool better = std::string(name) == "max" ? key > best_key : key < best_key;
        if (best_key.empty() || better) {
          best_key = key;
          best = values.GetValue(r);
        }
      }
      Vector out(DataType::Float64());
      agg->Finalize(1, &out, ctx);
      ASSERT_EQ(out.IsNull(0), best.is_null());
      if (best.is_null()) continue;
      const double got = out.GetFloat(0), want = best.float_value();
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) || (got == want && std::signbit(got) == std::signbit(want)))
          << name << " round " << round << ": " << got << " vs " << want;
    }
  }
}

}  // namespace
}  // namespace freshet
