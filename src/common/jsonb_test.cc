#include <gtest/gtest.h>

#include <random>

#include "common/decimal.h"
#include "common/json.h"

namespace freshet {
namespace {

int Sign(int c) { return (c > 0) - (c < 0); }

// Numbers inside jsonb order by value, whatever their scale: the sort key of
// [x] against [y] agrees with numeric's comparison for random decimals
// (scales 0-6, leading and trailing zeros, negatives, zero).
TEST(JsonbSortKeyTest, NumbersOrderByValue) {
  std::mt19937_64 rng(20261204);
  auto random_number = [&] {
    std::string s;
    if (rng() % 3 == 0) s += '-';
    int digits = 1 + int(rng() % 8);  // JSON: no leading zero but a lone one
    s += char((digits == 1 ? '0' : '1') + rng() % (digits == 1 ? 10 : 9));
    for (int i = 1; i < digits; i++) s += char('0' + rng() % 10);
    if (rng() % 2) {
      s += '.';
      int frac = 1 + int(rng() % 6);
      for (int i = 0; i < frac; i++) s += char('0' + rng() % 10);
    }
    return s;
  };
  for (int round = 0; round < 20000; round++) {
    std::string a = random_number(), b = random_number();
    int expected = Sign(DecimalCompare(DecimalFromString(a), DecimalFromString(b)));
    int got = Sign(JsonbSortKey("[" + a + "]").compare(JsonbSortKey("[" + b + "]")));
    ASSERT_EQ(got, expected) << a << " vs " << b;
  }
}

// PostgreSQL's order across kinds (compareJsonbContainers), and equal keys
// for equal values.
TEST(JsonbSortKeyTest, KindsInPostgresOrder) {
  const std::vector<std::string> ascending = {
      "[]", "null", "\"\"", "\"a\"", "\"b\"", "-10", "0", "1", "true", "[null]", "[\"a\"]", "[1]", "[2]",
      "[10]", "[true]", "[[]]", "[{}]", "[1, 2]", "{}", "{\"a\": 1}", "{\"a\": 2}", "{\"aa\": 1}", "{\"b\": 1}",
      "{\"a\": 1, \"b\": 2}"};
  for (size_t i = 0; i + 1 < ascending.size(); i++)
    EXPECT_LT(JsonbSortKey(ascending[i]), JsonbSortKey(ascending[i + 1])) << ascending[i] << " < " << ascending[i + 1];
  EXPECT_EQ(JsonbSortKey("1.0"), JsonbSortKey("1"));
  EXPECT_EQ(JsonbSortKey("{\"a\": [1.50, -0.0]}"), JsonbSortKey("{\"a\": [1.5, 0]}"));
  EXPECT_EQ(JsonbSortKey("100"), JsonbSortKey("1e2"));
  EXPECT_NE(JsonbSortKey("\"1\""), JsonbSortKey("1"));
  // Not jsonb: the text itself, never an error.
  EXPECT_EQ(JsonbSortKey("{oops"), "{oops");
}

}  // namespace
}  // namespace freshet
