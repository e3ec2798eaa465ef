#include "storage/write_log.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace freshet {

char* WriteLog::Room(size_t n) {
  while (current_ < blocks_.size() && used_ + n > blocks_[current_].size) {
    current_++;
    used_ = 0;
  }
  if (current_ == blocks_.size()) {
    size_t size = std::max(kBlockSize, n);
    blocks_.push_back(Block{std::unique_ptr<char[]>(new char[size]), size});
    used_ = 0;
  }
  return blocks_[current_].data.get() + used_;
}

std::string_view WriteLog::Copy(std::string_view s) {
  if (s.empty()) return {};
  char* p = Room(s.size());
  std::memcpy(p, s.data(), s.size());
  used_ += s.size();
  bytes_ += s.size();
  return std::string_view(p, s.size());
}

void WriteLog::Append(const WriteLog& other) {
  // Geometric growth: an exact reserve reallocates at every append, which
  // made an epoch's many one-row appends (single-row INSERTs) quadratic.
  const size_t needed = ops_.size() + other.ops_.size();
  if (needed > ops_.capacity()) ops_.reserve(std::max(needed, 2 * ops_.capacity()));
  for (const WriteOp& op : other.ops_) Add(op);
}

void WriteLog::Clear() {
  ops_.clear();
  current_ = 0;
  used_ = 0;
  bytes_ = 0;
  change_log_ops_ = false;
}

void WriteLog::swap(WriteLog& other) noexcept {
  ops_.swap(other.ops_);
  blocks_.swap(other.blocks_);
  std::swap(current_, other.current_);
  std::swap(used_, other.used_);
  std::swap(bytes_, other.bytes_);
  std::swap(change_log_ops_, other.change_log_ops_);
}

size_t WriteLog::block_bytes() const {
  size_t n = 0;
  for (const auto& b : blocks_) n += b.size;
  return n;
}

namespace {

struct WriteLogPool {
  std::mutex mu;
  std::vector<WriteLog> spare;  // by op capacity, largest last
  size_t ops = 0, bytes = 0;    // capacity held in spare
};

WriteLogPool& Pool() {
  static WriteLogPool* pool = new WriteLogPool;  // never destroyed: used at exit
  return *pool;
}

bool ByCapacity(const WriteLog& log, size_t n) { return log.capacity() < n; }

}  // namespace

WriteLog TakeWriteLog(size_t min_ops) {
  WriteLogPool& pool = Pool();
  if (min_ops >= kMinPooledWriteOps) {
    std::lock_guard lock(pool.mu);
    if (!pool.spare.empty() && pool.spare.back().capacity() >= min_ops) {
      // The smallest log that is large enough.
      auto it = std::lower_bound(pool.spare.begin(), pool.spare.end(), min_ops, ByCapacity);
      WriteLog out = std::move(*it);
      pool.spare.erase(it);
      pool.ops -= out.capacity();
      pool.bytes -= out.block_bytes();
      return out;
    }
  }
  WriteLog out;
  out.Reserve(min_ops);
  return out;
}

void RecycleWriteLog(WriteLog&& log) {
  log.Clear();
  size_t cap = log.capacity(), bytes = log.block_bytes();
  if (cap < kMinPooledWriteOps || cap > kMaxPooledWriteOps || bytes > kMaxPooledWriteBytes) return;
  WriteLogPool& pool = Pool();
  WriteLog dropped;  // freed outside the lock
  std::lock_guard lock(pool.mu);
  if (pool.ops + cap > kMaxPooledWriteOps || pool.bytes + bytes > kMaxPooledWriteBytes) {
    // Full: replace the smallest if this one is larger.
    if (pool.spare.empty() || pool.spare.front().capacity() >= cap) return;
    pool.ops -= pool.spare.front().capacity();
    pool.bytes -= pool.spare.front().block_bytes();
    dropped = std::move(pool.spare.front());
    pool.spare.erase(pool.spare.begin());
    if (pool.ops + cap > kMaxPooledWriteOps || pool.bytes + bytes > kMaxPooledWriteBytes) return;
  }
  auto it = std::lower_bound(pool.spare.begin(), pool.spare.end(), cap, ByCapacity);
  pool.spare.insert(it, std::move(log));
  pool.ops += cap;
  pool.bytes += bytes;
}

std::shared_ptr<WriteLog> TakeSharedWriteLog(size_t min_ops) {
  return std::shared_ptr<WriteLog>(new WriteLog(TakeWriteLog(min_ops)), [](WriteLog* log) {
    RecycleWriteLog(std::move(*log));
    delete log;
  });
}

void ClearWriteLogPool() {
  WriteLogPool& pool = Pool();
  std::vector<WriteLog> dropped;  // freed outside the lock
  std::lock_guard lock(pool.mu);
  dropped.swap(pool.spare);
  pool.ops = pool.bytes = 0;
}

}  // namespace freshet
