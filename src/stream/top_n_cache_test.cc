// TopNCache (top_n_cache.h): the cached rows are always the first rows of
// the partition, also when deletes eat into them and the rows read back
// come partly from epochs the store does not have yet.
#include "stream/top_n_cache.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include <rocksdb/write_batch.h>

#include "storage/state_table.h"

namespace freshet {
namespace {

using Rows = TopNCache::RankedRows;
struct EpochWrites {
  Epoch epoch;
  std::vector<std::pair<std::string, std::optional<std::string>>> writes;
};

std::string RankKey(int k) { return std::string{char('a' + k / 26), char('a' + k % 26)}; }

// The cache must hold the partition's first rows: a prefix of the model,
// at least `window` of them (or all), and all of them when complete.
void ExpectPrefix(const TopNCache& cache, const Rows& model, size_t window, const std::string& where) {
  const Rows& cached = cache.rows();
  ASSERT_GE(cached.size(), std::min(window, model.size())) << where;
  auto m = model.begin();
  for (const auto& [k, v] : cached) {
    ASSERT_TRUE(m != model.end()) << where << ": cached " << k << " beyond the rows";
    ASSERT_EQ(k, m->first) << where;
    ASSERT_EQ(v, m->second) << where;
    ++m;
  }
  if (cache.complete()) EXPECT_EQ(cached.size(), model.size()) << where;
}

TEST(TopNCacheTest, CachedRowsAreThePartitionsFirstUnderCommitLag) {
  for (uint32_t seed = 1; seed <= 80; seed++) {
    std::mt19937 rng(seed);
    const bool descending = seed % 2 == 0;  // ranks greater keys first (max())
    StoreOptions options;
    options.in_memory = true;
    auto store = std::move(StateStore::Open(options)).value();
    StateTable table(store.get(), StateTableDesc{7, {}, {}, {}, {}});
    const std::string prefix = table.KeyIn(3, "p");
    const size_t capacity = 1 + rng() % 8, window = 1 + rng() % capacity;
    auto cache = std::make_unique<TopNCache>(prefix, capacity, descending);
    cache->Load(table);
    Rows model(TopNCache::RankOrder{descending});
    std::deque<EpochWrites> uncommitted;
    Epoch committed = 0;
    auto commit_oldest = [&] {
      rocksdb::WriteBatch batch;
      for (auto& [k, v] : uncommitted.front().writes) {
        if (v) batch.Put(store->data_cf(), prefix + k, *v);
        else batch.Delete(store->data_cf(), prefix + k);
      }
      ASSERT_TRUE(store->Commit(&batch).ok());
      committed = uncommitted.front().epoch;
      uncommitted.pop_front();
    };
    for (Epoch epoch = 1; epoch <= 60; epoch++) {
      EpochWrites ew{epoch, {}};
      int ops = 1 + static_cast<int>(rng() % 12);
      for (int i = 0; i < ops; i++) {
        // Deletes of existing rows (as a top-N's input does), else inserts
        // or replacements; more deletes now and then, to drain the cache.
        bool del = !model.empty() && rng() % 100 < (epoch % 10 < 5 ? 30u : 70u);
        if (del) {
          auto it = std::next(model.begin(), static_cast<long>(rng() % model.size()));
          std::string k = it->first;
          model.erase(it);
          cache->Erase(k, epoch);
          ew.writes.push_back({k, std::nullopt});
        } else {
          std::string k = RankKey(static_cast<int>(rng() % 80));
          std::string v = "v" + std::to_string(rng() % 1000);
          model[k] = v;
          cache->Insert(k, v, epoch);
          ew.writes.push_back({k, v});
        }
      }
      uncommitted.push_back(std::move(ew));
      // Commits lag behind by up to three epochs.
      while (!uncommitted.empty() && (uncommitted.size() > 3 || rng() % 2 == 0)) commit_oldest();
      cache->Prune(committed);
      cache->Ensure(window, table);
      std::string where = "seed " + std::to_string(seed) + (descending ? " descending" : "") + " epoch " +
                          std::to_string(epoch);
      ExpectPrefix(*cache, model, window, where);
      if (::testing::Test::HasFatalFailure()) return;
      // Reloaded once everything is committed (a partition dropped from
      // memory and needed again).
      if (uncommitted.empty() && rng() % 4 == 0) {
        cache = std::make_unique<TopNCache>(prefix, capacity, descending);
        cache->Load(table);
        ExpectPrefix(*cache, model, std::min(capacity, model.size()), where + " (reloaded)");
      }
    }
  }
}

// Writes made before the first barrier (epoch 0) are kept until that
// barrier gives them an epoch and it is committed.
TEST(TopNCacheTest, WritesBeforeTheFirstBarrierWaitForTheirEpoch) {
  StoreOptions options;
  options.in_memory = true;
  auto store = std::move(StateStore::Open(options)).value();
  StateTable table(store.get(), StateTableDesc{7, {}, {}, {}, {}});
  const std::string prefix = table.KeyIn(0);
  TopNCache cache(prefix, 1);
  cache.Load(table);
  cache.Insert("a", "1", 0);
  cache.Insert("b", "2", 0);  // evicts b: only in the remembered writes
  ASSERT_EQ(cache.rows().size(), 1u);
  cache.Prune(100);  // epoch 0 is not "committed at 100"
  cache.Erase("a", 0);
  cache.Ensure(1, table);
  ASSERT_EQ(cache.rows().size(), 1u);
  EXPECT_EQ(cache.rows().begin()->first, "b");
  cache.StampUnknown(5);
  cache.Prune(4);
  cache.Erase("b", 6);
  cache.Ensure(1, table);
  EXPECT_TRUE(cache.rows().empty());
  EXPECT_TRUE(cache.complete());
}

}  // namespace
}  // namespace freshet
