// Scan: the committed rows of a table or materialized view at the
// statement's snapshot. A table that has not changed since a previous full
// scan is served from the store's ScanCache (storage/scan_cache.h); a full
// scan of a table that is not changing fills it.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "batch/batch_counters.h"
#include "batch/executors.h"
#include "catalog/index_definition.h"
#include "common/array.h"
#include "storage/table_engines.h"

namespace freshet {

namespace {

// The transaction's own writes to this table, latest per key.
Overlay PendingWrites(const ScanNode& node, const ExecContext& ctx) {
  Overlay overlay;
  const TableWriteSet* writes = ctx.pending ? ctx.pending->Find(node.table->id) : nullptr;
  if (!writes) return overlay;
  for (const auto& op : writes->ops) {
    if (op.is_delete) overlay[std::string(op.key)] = std::nullopt;
    else overlay[std::string(op.key)] = std::string(op.value);
  }
  return overlay;
}

class ScanExecutor : public Executor {
 public:
  ScanExecutor(std::unique_ptr<ChunkScan> scan, ExecContext& ctx) : ctx_(ctx), scan_(std::move(scan)) {}

  bool Next(DataChunk* out) override {
    ctx_.CheckCancelled();
    return scan_->Next(out);
  }

 private:
  ExecContext& ctx_;
  std::unique_ptr<ChunkScan> scan_;
};

// A large table is read by two threads, one per half of the vnodes, so that
// iterating RocksDB and decoding rows use both cores; the consumer above
// still sees one stream of chunks (scan order is unspecified anyway).
class ParallelScanExecutor : public Executor {
 public:
  ParallelScanExecutor(std::unique_ptr<ChunkScan> own, std::unique_ptr<ChunkScan> other, ExecContext& ctx)
      : ctx_(ctx), own_(std::move(own)) {
    std::shared_ptr<ChunkScan> shared(std::move(other));
    worker_ = std::thread([this, shared] { Produce(shared.get()); });
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
    if (own_->Next(out)) return true;
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

  void Produce(ChunkScan* scan) {
    try {
      DataChunk chunk;
      while (true) {
        {
          std::unique_lock lock(mu_);
          cv_.wait(lock, [&] { return stop_ || queue_.size() < kMaxQueued; });
          if (stop_) break;
        }
        if (ctx_.cancelled && ctx_.cancelled->load()) break;
        if (!scan->Next(&chunk)) break;
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
  std::unique_ptr<ChunkScan> own_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<DataChunk> queue_;
  bool own_done_ = false, worker_done_ = false, stop_ = false;
  std::exception_ptr error_;
};

// Serves a table from its cached columns: the wanted ones are copied, the
// others are NULL (as a table engine's scan leaves columns outside its
// projection).
class CachedScanExecutor : public Executor {
 public:
  CachedScanExecutor(std::shared_ptr<const CachedTable> entry, std::vector<bool> wanted, std::vector<DataType> types,
                     ExecContext& ctx)
      : ctx_(ctx), entry_(std::move(entry)), wanted_(std::move(wanted)), types_(std::move(types)) {}

  bool Next(DataChunk* out) override {
    ctx_.CheckCancelled();
    if (next_ == entry_->chunks.size()) return false;
    const CachedTable::Chunk& chunk = entry_->chunks[next_++];
    std::vector<Vector> columns;
    columns.reserve(types_.size());
    for (size_t c = 0; c < types_.size(); c++) {
      if (wanted_[c]) {
        columns.push_back(chunk.columns[c]);
      } else {
        columns.emplace_back(types_[c]);
        columns.back().AppendNulls(chunk.rows);
      }
    }
    *out = DataChunk(std::move(columns));
    out->set_cardinality(chunk.rows);
    return true;
  }

 private:
  ExecContext& ctx_;
  std::shared_ptr<const CachedTable> entry_;
  std::vector<bool> wanted_;
  std::vector<DataType> types_;
  size_t next_ = 0;
};

// Passes a full scan's chunks through and keeps a copy of their decoded
// columns; when the scan is exhausted the copy becomes the table's cache
// entry. A scan abandoned early (LIMIT) or too large for the cache leaves
// the cache as it was.
class CachingScanExecutor : public Executor {
 public:
  CachingScanExecutor(ExecutorPtr scan, ScanCache* cache, TableId table, uint64_t version, std::vector<bool> decoded,
                      std::vector<std::string> missing_cells)
      : scan_(std::move(scan)), cache_(cache), table_(table), entry_(std::make_shared<CachedTable>()) {
    entry_->version = version;
    entry_->decoded = std::move(decoded);
    entry_->missing_cells = std::move(missing_cells);
  }

  bool Next(DataChunk* out) override {
    if (!scan_->Next(out)) {
      if (entry_) cache_->Insert(table_, std::move(entry_));
      entry_.reset();
      return false;
    }
    if (entry_) Keep(*out);
    return true;
  }

 private:
  void Keep(const DataChunk& chunk) {
    CachedTable::Chunk kept;
    kept.rows = static_cast<uint32_t>(chunk.num_rows());
    kept.columns.resize(chunk.num_columns());
    for (size_t c = 0; c < chunk.num_columns(); c++) {
      if (!entry_->decoded[c]) continue;
      kept.columns[c] = chunk.column(c);
      entry_->bytes += ScanCache::VectorBytes(kept.columns[c]);
    }
    entry_->chunks.push_back(std::move(kept));
    if (entry_->bytes > cache_->capacity()) entry_.reset();  // would not fit: stop copying
  }

  ExecutorPtr scan_;
  ScanCache* cache_;
  TableId table_;
  std::shared_ptr<CachedTable> entry_;
};

// Tables smaller than this are read by one thread (rows: for columnar
// files, whose bytes are compressed).
constexpr uint64_t kParallelScanBytes = 16 << 20;
constexpr int64_t kParallelScanRows = 256 << 10;

// The values of the scan's conditions for this execution; a NULL or one
// that cannot be evaluated is left to the filter above.
ColumnPredicates EvaluatePredicates(const std::vector<ScanNode::Condition>& conditions,
                                    const std::vector<ColumnCatalog>& columns, ExecContext& ctx) {
  ColumnPredicates out;
  for (const auto& condition : conditions) {
    if (condition.op == ColumnPredicate::Op::kIn) {
      // NULLs match nothing; a value of another type leaves the list to the filter.
      ColumnPredicate p{condition.column, ColumnPredicate::Op::kIn, Value(), {}};
      bool usable = condition.column >= 0 && static_cast<size_t>(condition.column) < columns.size();
      std::vector<Value> computed;
      try {
        for (const auto& item : condition.items) computed.push_back(item->EvalConstant(ctx.eval));
        if (condition.array) {
          Value array = condition.array->EvalConstant(ctx.eval);
          if (array.is_null()) usable = false;  // = ANY(NULL) matches nothing: left to the filter
          else {
            Vector elements = DecodeArray(array.string_value(), array.type().ElementType());
            for (size_t i = 0; i < elements.size(); i++) computed.push_back(elements.GetValue(i));
          }
        }
      } catch (const SqlError&) {
        usable = false;
      }
      const std::vector<Value>& values = condition.items.empty() && !condition.array ? condition.list : computed;
      for (const Value& v : values) {
        if (v.is_null()) continue;
        usable = usable && v.type().id == columns[condition.column].type.id;
        p.values.push_back(v);
      }
      if (usable) out.push_back(std::move(p));
      continue;
    }
    try {
      Value v = condition.value->EvalConstant(ctx.eval);
      if (!v.is_null() && v.type().id == condition.value->type().id) out.push_back({condition.column, condition.op, std::move(v), {}});
    } catch (const SqlError&) {
    }
  }
  return out;
}

// An index's rows in its table's shape: the table's columns it holds
// (the first ones) as read, the table's later columns (added since the
// index was made; the scan wants none of them) NULL, and the values of
// its expressions left out.
class IndexRowsScan : public ChunkScan {
 public:
  IndexRowsScan(std::unique_ptr<ChunkScan> index, size_t held, std::vector<DataType> table_types)
      : index_(std::move(index)), held_(held), table_types_(std::move(table_types)) {}

  bool Next(DataChunk* out, size_t max_rows) override {
    if (!index_->Next(out, max_rows)) return false;
    const size_t rows = out->num_rows();
    std::vector<Vector>& columns = out->columns();
    columns.resize(held_);
    for (size_t c = held_; c < table_types_.size(); c++) columns.push_back(Vector::Constant(Value::Null(table_types_[c]), rows));
    out->set_cardinality(rows);
    return true;
  }
  bool complete() const override { return index_->complete(); }
  const std::string& last_key() const override { return index_->last_key(); }

 private:
  std::unique_ptr<ChunkScan> index_;
  size_t held_;
  std::vector<DataType> table_types_;
};

// The scan's rows read from the index the optimizer chose, or null when
// the index cannot serve this execution: it is gone or not created (in
// this statement's catalog), the snapshot predates its last backfilled
// rows, or the conditions' values narrow nothing (NULLs), which leaves the
// table's scan (cached, parallel) the better one. The caller has checked
// that the transaction has no writes of its own to the table (the index
// does not hold them).
std::unique_ptr<ChunkScan> ScanIndex(const ScanNode& node, const std::vector<bool>& wanted, ExecContext& ctx) {
  TableRef index = ctx.catalog ? ctx.catalog->GetTable(node.index->id) : nullptr;
  if (!index || index->status != JobStatus::kCreated) return nullptr;
  // The index holds the table's columns as they were when it was made: the
  // table may have more since (ADD COLUMN), which the scan must not want.
  std::vector<DataType> types = node.table->types();
  const size_t held = IndexedTableColumns(*index);
  if (held > types.size() || held > index->columns.size() ||
      !std::equal(types.begin(), types.begin() + static_cast<std::ptrdiff_t>(held), index->columns.begin(),
                  index->columns.begin() + static_cast<std::ptrdiff_t>(held),
                  [](const DataType& t, const ColumnCatalog& c) { return t == c.type; }))
    return nullptr;
  for (size_t c = held; c < types.size(); c++)
    if (c >= wanted.size() || wanted[c]) return nullptr;
  const std::shared_ptr<const Snapshot>& snapshot = ctx.ReadSnapshot();
  if (snapshot->seq() < index->complete_from_snapshot) return nullptr;
  ScanSpec spec;
  spec.table = index->StorageDesc();
  spec.projection.assign(index->columns.size(), false);
  for (size_t c = 0; c < held && c < wanted.size(); c++) spec.projection[c] = wanted[c];
  spec.vnode_begin = 0;
  spec.vnode_end = kVnodeCount;
  spec.predicates = EvaluatePredicates(node.index_predicates, index->columns, ctx);
  std::unique_ptr<ChunkScan> scan = ctx.store->engines().For(index->id).Scan(snapshot, std::move(spec));
  if (scan->complete()) return nullptr;
  if (held == types.size() && held == index->columns.size()) return scan;
  return std::make_unique<IndexRowsScan>(std::move(scan), held, std::move(types));
}

}  // namespace

namespace {

ScanSpec SpecOf(const ScanNode& node, const std::vector<bool>& wanted, ColumnPredicates predicates, int vnode_begin,
                int vnode_end) {
  ScanSpec s;
  s.table = node.table->StorageDesc();
  s.projection = wanted;
  s.vnode_begin = vnode_begin;
  s.vnode_end = vnode_end;
  s.predicates = std::move(predicates);
  return s;
}

std::vector<bool> WantedColumns(const ScanNode& node) {
  std::vector<bool> wanted = node.used_columns;
  if (wanted.empty()) wanted.assign(node.table->columns.size(), true);
  return wanted;
}

bool LargeForOneThread(const ScanNode& node, const ExecContext& ctx) {
  const TableStatistics stats =
      ctx.store->engines().For(node.table->id).Statistics(node.table->id, ctx.ReadSnapshot().get());
  return stats.bytes >= kParallelScanBytes || stats.rows >= kParallelScanRows;
}

}  // namespace

bool ScanSplitsByVnodes(const ScanNode& node, ExecContext& ctx) {
  if (!ctx.parallel || ctx.vnode_partition || node.index || std::thread::hardware_concurrency() < 2) return false;
  // A row-store table's full scan is served from (and fills) the scan
  // cache, one thread; the columnar engine's scans split by vnodes.
  if (!node.table->IsTimeSeries()) return false;
  if (ctx.pending && ctx.pending->Find(node.table->id)) return false;
  if (!LargeForOneThread(node, ctx)) return false;
  // Not narrowed to keys by its predicates.
  std::unique_ptr<ChunkScan> scan =
      ctx.Scan(SpecOf(node, WantedColumns(node), EvaluatePredicates(node.predicates, node.table->columns, ctx), 0,
                      kVnodeCount));
  return !scan->complete() && scan->splittable();
}

ExecutorPtr MakeScan(const ScanNode& node, ExecContext& ctx) {
  TableId table = node.table->id;
  std::vector<bool> wanted = WantedColumns(node);
  const TableEngine& engine = ctx.store->engines().For(table);
  if (ctx.vnode_partition) {
    // One partition's part of the table (ScanSplitsByVnodes said it can be).
    return std::make_unique<ScanExecutor>(
        engine.Scan(ctx.ReadSnapshot(), SpecOf(node, wanted, EvaluatePredicates(node.predicates, node.table->columns, ctx),
                                               ctx.vnode_partition->begin, ctx.vnode_partition->end)),
        ctx);
  }
  bool own_writes = ctx.pending && ctx.pending->Find(table);
  if (node.index && !own_writes)
    if (std::unique_ptr<ChunkScan> from_index = ScanIndex(node, wanted, ctx))
      return std::make_unique<ScanExecutor>(std::move(from_index), ctx);
  ColumnPredicates predicates = EvaluatePredicates(node.predicates, node.table->columns, ctx);
  auto spec = [&](int vnode_begin, int vnode_end) { return SpecOf(node, wanted, predicates, vnode_begin, vnode_end); };
  ScanSpec whole = spec(0, kVnodeCount);
  if (own_writes) whole.overlay = PendingWrites(node, ctx);
  std::unique_ptr<ChunkScan> scan = ctx.Scan(std::move(whole));
  // A scan its predicates narrow (a key lookup or range) reads only its
  // keys, which beats copying a cached table; it never fills the cache.
  if (!scan->complete() && !scan->splittable()) return std::make_unique<ScanExecutor>(std::move(scan), ctx);
  ScanCache* cache = own_writes || !scan->complete() ? nullptr : ctx.store->scan_cache();
  std::optional<uint64_t> build_version;
  std::vector<std::string> missing;  // the table's shape, with its width (CachedTable::missing_cells)
  if (cache) {
    std::shared_ptr<const CachedTable> entry = cache->Lookup(table, ctx.ReadSnapshot()->seq());
    missing = node.table->MissingCells();
    if (entry && entry->Covers(wanted, missing))
      return std::make_unique<CachedScanExecutor>(entry, wanted, node.table->types(), ctx);
    build_version = cache->BuildVersion(table, ctx.ReadSnapshot()->seq());
    // Rebuild with the columns the entry had too, so that it only grows.
    if (entry && build_version == entry->version && entry->decoded.size() == wanted.size() &&
        entry->missing_cells == missing) {
      for (size_t c = 0; c < wanted.size(); c++) wanted[c] = wanted[c] || entry->decoded[c];
      ScanSpec wider = spec(0, kVnodeCount);
      scan = engine.Scan(ctx.ReadSnapshot(), std::move(wider));
    }
  }
  ExecutorPtr executor;
  if (!own_writes && ctx.parallel && std::thread::hardware_concurrency() > 1 && LargeForOneThread(node, ctx)) {
    scan.reset();
    GetBatchCounters().parallel_scans++;
    executor = std::make_unique<ParallelScanExecutor>(engine.Scan(ctx.ReadSnapshot(), spec(0, kVnodeCount / 2)),
                                                      engine.Scan(ctx.ReadSnapshot(), spec(kVnodeCount / 2, kVnodeCount)), ctx);
  } else {
    executor = std::make_unique<ScanExecutor>(std::move(scan), ctx);
  }
  if (build_version)
    executor = std::make_unique<CachingScanExecutor>(std::move(executor), cache, table, *build_version, wanted,
                                                     std::move(missing));
  return executor;
}

}  // namespace freshet
