#include "stream/state_cache.h"

#include <atomic>

namespace freshet {

namespace {
std::atomic<size_t> state_cache_bytes{kDefaultStateCacheBytes};
}

size_t StateCacheBytes() { return state_cache_bytes.load(std::memory_order_relaxed); }
void SetStateCacheBytes(size_t bytes) { state_cache_bytes.store(bytes, std::memory_order_relaxed); }

}  // namespace freshet
