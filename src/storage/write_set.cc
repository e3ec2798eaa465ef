#include "storage/write_set.h"

#include <algorithm>
#include <mutex>

namespace freshet {

namespace {

struct WriteVectorPool {
  std::mutex mu;
  std::vector<std::vector<WriteOp>> spare;  // largest last
  size_t capacity = 0;                      // ops of capacity in spare
};

WriteVectorPool& Pool() {
  static WriteVectorPool* pool = new WriteVectorPool;  // never destroyed: used at exit
  return *pool;
}

}  // namespace

std::vector<WriteOp> TakeWriteVector(size_t min_capacity) {
  WriteVectorPool& pool = Pool();
  {
    std::lock_guard lock(pool.mu);
    if (!pool.spare.empty() && pool.spare.back().capacity() >= min_capacity) {
      // The smallest vector that is large enough.
      auto it = std::lower_bound(pool.spare.begin(), pool.spare.end(), min_capacity,
                                 [](const std::vector<WriteOp>& v, size_t n) { return v.capacity() < n; });
      std::vector<WriteOp> out = std::move(*it);
      pool.spare.erase(it);
      pool.capacity -= out.capacity();
      return out;
    }
  }
  std::vector<WriteOp> out;
  out.reserve(min_capacity);
  return out;
}

void RecycleWriteVector(std::vector<WriteOp>&& ops) {
  ops.clear();  // frees the keys and values (back to malloc, reused as such)
  size_t cap = ops.capacity();
  if (cap < 1024 || cap > kMaxPooledWriteOps) return;
  WriteVectorPool& pool = Pool();
  std::vector<WriteOp> dropped;  // freed outside the lock
  std::lock_guard lock(pool.mu);
  if (pool.capacity + cap > kMaxPooledWriteOps) {
    // Full: replace the smallest if this one is larger.
    if (pool.spare.empty() || pool.spare.front().capacity() >= cap) return;
    pool.capacity -= pool.spare.front().capacity();
    dropped = std::move(pool.spare.front());
    pool.spare.erase(pool.spare.begin());
    if (pool.capacity + cap > kMaxPooledWriteOps) return;
  }
  auto it = std::lower_bound(pool.spare.begin(), pool.spare.end(), cap,
                             [](const std::vector<WriteOp>& v, size_t n) { return v.capacity() < n; });
  pool.spare.insert(it, std::move(ops));
  pool.capacity += cap;
}

}  // namespace freshet
