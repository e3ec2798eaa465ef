#include "storage/timeseries/regions.h"

#include <gtest/gtest.h>

#include <random>

#include "common/encoding.h"

namespace freshet {
namespace {

// Two tags, an integer and a text, with rules over them; rows and
// predicates drawn at random are checked against an evaluation of the same
// rules over Values.
struct Comparison {
  size_t tag;
  RegionCondition::Op op;
  Value literal;  // or
  int other_tag = -1;
};

bool Compares(int c, RegionCondition::Op op) {
  switch (op) {
    case RegionCondition::Op::kEq: return c == 0;
    case RegionCondition::Op::kNe: return c != 0;
    case RegionCondition::Op::kLt: return c < 0;
    case RegionCondition::Op::kLe: return c <= 0;
    case RegionCondition::Op::kGt: return c > 0;
    case RegionCondition::Op::kGe: return c >= 0;
  }
  return false;
}

std::string SeriesOf(const std::vector<Value>& tags) {
  std::string key = "\x01\x02";  // a vnode
  for (const Value& v : tags) EncodeKeyValue(v, &key);
  return key;
}

TEST(RegionRulesTest, RegionsAreTheFirstRuleARowSatisfies) {
  const std::vector<DataType> types = {DataType::Int32(), DataType::Text()};
  std::mt19937 rng(47);
  auto random_value = [&](size_t tag) {
    if (tag == 0) return Value::Int32(static_cast<int32_t>(rng() % 21) - 10);
    std::string s;
    for (size_t n = rng() % 3; n > 0; n--) s.push_back("ahpz\0"[rng() % 5]);
    return Value::FromString(DataType::Text(), s);
  };
  for (int round = 0; round < 300; round++) {
    std::vector<std::vector<Comparison>> reference;
    std::vector<RegionRule> rules;
    for (size_t r = 1 + rng() % 4; r > 0; r--) {
      std::vector<Comparison> ref;
      RegionRule rule;
      for (size_t c = 1 + rng() % 3; c > 0; c--) {
        Comparison cmp{rng() % 2, static_cast<RegionCondition::Op>(rng() % 6), Value()};
        RegionCondition cond{cmp.tag, cmp.op, "", -1};
        if (cmp.tag == 0 && rng() % 5 == 0) {
          cmp.tag = 0, cmp.other_tag = 0;  // a tag with itself: a column-with-column comparison
          cond.other_tag = 0;
        } else {
          cmp.literal = random_value(cmp.tag);
          EncodeKeyValue(cmp.literal, &cond.literal);
        }
        ref.push_back(cmp);
        rule.push_back(cond);
      }
      reference.push_back(ref);
      rules.push_back(rule);
    }
    RegionRules regions(rules, types, {0, 1});
    ASSERT_EQ(regions.count(), rules.size() + 1);
    auto expected_region = [&](const std::vector<Value>& row) {
      for (size_t r = 0; r < reference.size(); r++) {
        bool holds = true;
        for (const Comparison& c : reference[r]) {
          const Value& right = c.other_tag >= 0 ? row[c.other_tag] : c.literal;
          holds = holds && Compares(Value::Compare(row[c.tag], right), c.op);
        }
        if (holds) return static_cast<uint32_t>(r);
      }
      return static_cast<uint32_t>(reference.size());
    };
    for (int n = 0; n < 50; n++) {
      std::vector<Value> row = {random_value(0), random_value(1)};
      ASSERT_EQ(regions.RegionOf(SeriesOf(row)), expected_region(row)) << "round " << round;
    }
    // Reachable never rules out a region a row satisfying the predicates is in.
    for (int n = 0; n < 20; n++) {
      ColumnPredicates predicates;
      for (size_t p = rng() % 3; p > 0; p--) {
        ColumnPredicate pred;
        pred.column = static_cast<int>(rng() % 2);
        pred.op = static_cast<ColumnPredicate::Op>(rng() % 6);
        if (pred.op == ColumnPredicate::Op::kIn) {
          for (size_t k = 1 + rng() % 3; k > 0; k--) pred.values.push_back(random_value(pred.column));
        } else {
          pred.value = random_value(pred.column);
        }
        predicates.push_back(pred);
      }
      const std::vector<bool> reachable = regions.Reachable(predicates);
      for (int m = 0; m < 200; m++) {
        std::vector<Value> row = {random_value(0), random_value(1)};
        bool passes = true;
        for (const ColumnPredicate& p : predicates) {
          const Value& v = row[p.column];
          if (p.op == ColumnPredicate::Op::kIn) {
            bool any = false;
            for (const Value& x : p.values) any = any || Value::Compare(v, x) == 0;
            passes = passes && any;
          } else {
            const int c = Value::Compare(v, p.value);
            passes = passes && (p.op == ColumnPredicate::Op::kEq   ? c == 0
                                : p.op == ColumnPredicate::Op::kLt ? c < 0
                                : p.op == ColumnPredicate::Op::kLe ? c <= 0
                                : p.op == ColumnPredicate::Op::kGt ? c > 0
                                                                   : c >= 0);
          }
        }
        if (passes) ASSERT_TRUE(reachable[expected_region(row)]) << "round " << round;
      }
    }
  }
}

TEST(RegionRulesTest, PredicatesRuleOutRegions) {
  // host < 'h', host >= 'h' AND host < 'p', default (>= 'p').
  auto key = [](const char* s) {
    std::string k;
    EncodeKeyValue(Value::FromString(DataType::Text(), s), &k);
    return k;
  };
  using Op = RegionCondition::Op;
  RegionRules rules({{{0, Op::kLt, key("h")}}, {{0, Op::kGe, key("h")}, {0, Op::kLt, key("p")}}},
                    {DataType::Text(), DataType::Text()}, {3, 5});
  auto eq = [](int column, const char* s) {
    ColumnPredicate p;
    p.column = column;
    p.value = Value::FromString(DataType::Text(), s);
    return p;
  };
  auto op = [&](int column, ColumnPredicate::Op o, const char* s) {
    ColumnPredicate p = eq(column, s);
    p.op = o;
    return p;
  };
  EXPECT_EQ(rules.Reachable({eq(3, "kilo")}), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(rules.Reachable({eq(3, "zulu")}), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(rules.Reachable({eq(5, "kilo")}), (std::vector<bool>{true, true, true}));  // not the partition column
  ColumnPredicate in;
  in.column = 3;
  in.op = ColumnPredicate::Op::kIn;
  in.values = {Value::FromString(DataType::Text(), "alpha"), Value::FromString(DataType::Text(), "golf")};
  EXPECT_EQ(rules.Reachable({in}), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(rules.Reachable({op(3, ColumnPredicate::Op::kGt, "q")}), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(rules.Reachable({op(3, ColumnPredicate::Op::kLt, "c")}), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(rules.Reachable({op(3, ColumnPredicate::Op::kGe, "h"), op(3, ColumnPredicate::Op::kLt, "p")}),
            (std::vector<bool>{false, true, true}));
  EXPECT_EQ(rules.RegionOf(std::string("\x00\x01", 2) + key("h") + key("x")), 1u);
  EXPECT_EQ(rules.RegionOf(std::string("\x00\x01", 2) + key("") + key("x")), 0u);
  EXPECT_EQ(rules.RegionOf(std::string("\x00\x01", 2) + key("h")), 1u);  // the tags after those the rules read are not split
  EXPECT_EQ(rules.RegionOf("garbage"), 2u);  // not a key of the table: the default region
}

}  // namespace
}  // namespace freshet
