// StateCacheShare (state_cache.h): caches fit the process budget together;
// over it, each is told to shrink to its proportional share; a cache that
// goes away gives its share back.
#include "stream/state_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

namespace freshet {
namespace {

struct BudgetGuard {
  size_t saved = StateCacheBytes();
  ~BudgetGuard() { SetStateCacheBytes(saved); }
};

TEST(StateCacheTest, SharesShrinkInProportionOverTheBudget) {
  BudgetGuard guard;
  SetStateCacheBytes(1000);
  StateCacheShare a, b;
  EXPECT_EQ(a.Publish(300), SIZE_MAX);  // 300 of 1000: fits
  EXPECT_EQ(b.Publish(500), SIZE_MAX);  // 800: fits
  // 300 + 1500 = 1800 > 1000: b shrinks to 1500 * 1000 / 1800.
  EXPECT_EQ(b.Publish(1500), 833u);
  EXPECT_EQ(a.Publish(300), 166u);  // a's share of the same total
  EXPECT_EQ(b.Publish(700), SIZE_MAX);  // 1000: fits again
  {
    StateCacheShare c;
    EXPECT_EQ(c.Publish(1000), 500u);  // 2000 in all: half of each
  }
  // c is gone: 300 + 700 fit.
  EXPECT_EQ(a.Publish(300), SIZE_MAX);
}

TEST(StateCacheTest, ZeroBudgetAsksForNothingCached) {
  BudgetGuard guard;
  SetStateCacheBytes(0);
  StateCacheShare a;
  EXPECT_EQ(a.Publish(0), SIZE_MAX);
  EXPECT_EQ(a.Publish(123), 0u);
}

TEST(StateCacheTest, DefaultIsAQuarterOfMemory) {
  EXPECT_GT(DefaultStateCacheBytes(), size_t(64) << 20);
}

}  // namespace
}  // namespace freshet
