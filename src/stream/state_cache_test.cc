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
  // Caches of other tests' operators may still be alive: the budget is set
  // on top of what they hold.
  const size_t base = StateCacheTotalBytes();
  SetStateCacheBytes(base + 1000);
  auto share = [&](size_t own, size_t total) {
    return static_cast<size_t>(static_cast<double>(own) * (static_cast<double>(base + 1000) / double(base + total)));
  };
  StateCacheShare a, b;
  EXPECT_EQ(a.Publish(300), SIZE_MAX);  // 300 of 1000: fits
  EXPECT_EQ(b.Publish(500), SIZE_MAX);  // 800: fits
  // 300 + 1500 = 1800 > 1000: b shrinks to its share (833 when alone).
  EXPECT_EQ(b.Publish(1500), share(1500, 1800));
  EXPECT_EQ(a.Publish(300), share(300, 1800));  // a's share of the same total
  EXPECT_EQ(b.Publish(700), SIZE_MAX);           // 1000: fits again
  {
    StateCacheShare c;
    EXPECT_EQ(c.Publish(1000), share(1000, 2000));  // half of each when alone
  }
  // c is gone: 300 + 700 fit.
  EXPECT_EQ(a.Publish(300), SIZE_MAX);
  EXPECT_EQ(StateCacheTotalBytes(), base + 1000);
}

TEST(StateCacheTest, ZeroBudgetAsksForNothingCached) {
  BudgetGuard guard;
  SetStateCacheBytes(0);
  StateCacheShare a;
  EXPECT_EQ(a.Publish(123), 0u);
}

TEST(StateCacheTest, DefaultIsAQuarterOfMemory) {
  EXPECT_GT(DefaultStateCacheBytes(), size_t(64) << 20);
}

}  // namespace
}  // namespace freshet
