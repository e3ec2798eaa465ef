// OpenTestStore: a StateStore for one test (tests only): in memory, or in
// `dir`, with a small block cache, no scan cache and no disk reserve.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/state_store.h"

namespace freshet {

inline std::unique_ptr<StateStore> OpenTestStore(const std::string& dir = "") {
  StoreOptions o;
  o.in_memory = dir.empty();
  o.dir = dir;
  o.block_cache_bytes = 8 << 20;
  o.scan_cache_bytes = 0;
  o.disk_reserve_bytes = 0;
  auto store = StateStore::Open(o);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

}  // namespace freshet
