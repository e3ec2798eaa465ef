#include "storage/key_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace freshet {
namespace {

// Random writes, rewrites of the same keys and lookups of absent ones
// against a map, across the index's growth.
TEST(KeyIndexTest, FindsEachKeysLatestWrite) {
  std::mt19937 rng(47);
  WriteLog ops;
  KeyIndex index;
  std::map<std::string, size_t> latest;
  for (size_t i = 0; i < 50000; i++) {
    std::string key = "k" + std::to_string(rng() % 20000);
    if (rng() % 7 == 0) key += std::string(1, '\0') + "x";  // keys holding zero bytes
    ops.Put(key, "v", 1);
    index.Put(ops, ops.size() - 1);
    latest[key] = ops.size() - 1;
    if (i % 997 == 0) {
      for (const auto& [k, at] : latest) ASSERT_EQ(index.Find(ops, k), std::optional<size_t>(at)) << k;
    }
  }
  for (const auto& [k, at] : latest) ASSERT_EQ(index.Find(ops, k), std::optional<size_t>(at));
  EXPECT_EQ(index.Find(ops, "k20000"), std::nullopt);
  EXPECT_EQ(index.Find(ops, ""), std::nullopt);
  EXPECT_EQ(KeyIndex().Find(ops, "k1"), std::nullopt);
}

}  // namespace
}  // namespace freshet
