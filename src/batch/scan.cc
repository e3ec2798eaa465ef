// Scan: the committed rows of a table or materialized view at the
// statement's snapshot.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "batch/executors.h"
#include "storage/table_reader.h"

namespace freshet {

namespace {

// The transaction's own writes to this table, latest per key.
Overlay PendingWrites(const ScanNode& node, const ExecContext& ctx) {
  Overlay overlay;
  const TableWriteSet* writes = ctx.pending ? ctx.pending->Find(node.table->id) : nullptr;
  if (!writes) return overlay;
  for (const auto& op : writes->ops) {
    if (op.is_delete) overlay[op.key] = std::nullopt;
    else overlay[op.key] = op.value;
  }
  return overlay;
}

class ScanExecutor : public Executor {
 public:
  ScanExecutor(const ScanNode& node, ExecContext& ctx)
      : ctx_(ctx), reader_(ctx.store, ctx.snapshot, node.table->id, node.table->types(), PendingWrites(node, ctx),
                node.used_columns) {}

  bool Next(DataChunk* out) override {
    ctx_.CheckCancelled();
    return reader_.Next(out);
  }

 private:
  ExecContext& ctx_;
  TableReader reader_;
};

// A large table is read by two threads, one per half of the vnodes, so that
// iterating RocksDB and decoding rows use both cores; the consumer above
// still sees one stream of chunks (scan order is unspecified anyway).
class ParallelScanExecutor : public Executor {
 public:
  ParallelScanExecutor(const ScanNode& node, ExecContext& ctx)
      : ctx_(ctx),
        own_(ctx.store, ctx.snapshot, node.table->id, node.table->types(), {}, node.used_columns, 0, kVnodeCount / 2) {
    auto other = std::make_shared<TableReader>(ctx.store, ctx.snapshot, node.table->id, node.table->types(), Overlay{},
                                               node.used_columns, kVnodeCount / 2, kVnodeCount);
    worker_ = std::thread([this, other] { Produce(other.get()); });
  }

  ~ParallelScanExecutor() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  bool Next(DataChunk* out) override {
    ctx_.CheckCancelled();
    {
      std::unique_lock lock(mu_);
      if (error_) std::rethrow_exception(error_);
      if (!queue_.empty()) return Pop(out);
      if (own_done_) {
        cv_.wait(lock, [&] { return !queue_.empty() || worker_done_ || error_; });
        if (error_) std::rethrow_exception(error_);
        if (!queue_.empty()) return Pop(out);
        return false;
      }
    }
    if (own_.Next(out)) return true;
    std::unique_lock lock(mu_);
    own_done_ = true;
    lock.unlock();
    return Next(out);
  }

 private:
  static constexpr size_t kMaxQueued = 8;

  bool Pop(DataChunk* out) {  // mu_ held
    *out = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return true;
  }

  void Produce(TableReader* reader) {
    try {
      DataChunk chunk;
      while (true) {
        {
          std::unique_lock lock(mu_);
          cv_.wait(lock, [&] { return stop_ || queue_.size() < kMaxQueued; });
          if (stop_) break;
        }
        if (ctx_.cancelled && ctx_.cancelled->load()) break;
        if (!reader->Next(&chunk)) break;
        std::lock_guard lock(mu_);
        queue_.push_back(std::move(chunk));
        cv_.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(mu_);
      error_ = std::current_exception();
    }
    std::lock_guard lock(mu_);
    worker_done_ = true;
    cv_.notify_all();
  }

  ExecContext& ctx_;
  TableReader own_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<DataChunk> queue_;
  bool own_done_ = false, worker_done_ = false, stop_ = false;
  std::exception_ptr error_;
};

// Tables smaller than this are read by one thread.
constexpr uint64_t kParallelScanBytes = 16 << 20;

}  // namespace

ExecutorPtr MakeScan(const ScanNode& node, ExecContext& ctx) {
  bool own_writes = ctx.pending && ctx.pending->Find(node.table->id);
  if (!own_writes && std::thread::hardware_concurrency() > 1) {
    std::string prefix = TablePrefix(node.table->id);
    if (ctx.store->ApproximateDataSize(prefix, PrefixSuccessor(prefix)) >= kParallelScanBytes)
      return std::make_unique<ParallelScanExecutor>(node, ctx);
  }
  return std::make_unique<ScanExecutor>(node, ctx);
}

}  // namespace freshet
