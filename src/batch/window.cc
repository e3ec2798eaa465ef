// Window: window functions over partitions (planner/window_evaluator.h).
// Reads its whole input; for each call sorts the rows by (PARTITION BY,
// ORDER BY), evaluates each partition, and returns the rows in input order
// with one column per call.
#include <algorithm>
#include <unordered_map>

#include "batch/executors.h"
#include "common/encoding.h"
#include "planner/window_evaluator.h"

namespace freshet {

namespace {

class WindowExecutor : public Executor {
 public:
  WindowExecutor(const WindowNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx) {}

  bool Next(DataChunk* out) override {
    if (!computed_) Compute();
    if (next_ >= total_) return false;
    size_t end = std::min(total_, next_ + kChunkSize);
    std::vector<uint32_t> sel;
    for (size_t i = next_; i < end; i++) sel.push_back(uint32_t(i));
    *out = all_.Take(sel);
    next_ = end;
    return true;
  }

 private:
  void Compute() {
    computed_ = true;
    all_ = Materialize(child_.get(), node_.child()->types(), ctx_);
    total_ = all_.num_rows();
    std::vector<Vector> results;
    for (const WindowCall& call : node_.calls) {
      ctx_.CheckCancelled();
      std::vector<Vector> parts, order;
      for (const auto& p : call.partition_by) parts.push_back(p->Eval(all_, ctx_.eval));
      for (const auto& k : call.order_by) order.push_back(k.expr->Eval(all_, ctx_.eval));
      std::vector<std::string> part_key(total_), order_key(total_);
      for (size_t r = 0; r < total_; r++) {
        for (const auto& v : parts) EncodeKeyFromVector(v, r, &part_key[r]);
        EncodeWindowOrderKey(call, order, r, &order_key[r]);
      }
      std::vector<uint32_t> idx(total_);
      for (size_t i = 0; i < total_; i++) idx[i] = uint32_t(i);
      std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
        int c = part_key[a].compare(part_key[b]);
        return c != 0 ? c < 0 : order_key[a] < order_key[b];
      });
      // Values in sorted order, then put back in input order.
      Vector sorted(call.type);
      sorted.Reserve(total_);
      for (size_t begin = 0; begin < total_;) {
        size_t end = begin + 1;
        while (end < total_ && part_key[idx[end]] == part_key[idx[begin]]) end++;
        std::vector<uint32_t> seg(idx.begin() + std::ptrdiff_t(begin), idx.begin() + std::ptrdiff_t(end));
        Vector values = EvaluateWindowPartition(call, all_.Take(seg), ctx_.eval);
        sorted.AppendRange(values, 0, values.size());
        begin = end;
      }
      std::vector<uint32_t> position(total_);
      for (size_t i = 0; i < total_; i++) position[idx[i]] = uint32_t(i);
      results.push_back(sorted.Take(position));
    }
    for (auto& v : results) all_.AddColumn(std::move(v));
    all_.set_cardinality(total_);
  }

  const WindowNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  bool computed_ = false;
  DataChunk all_;
  size_t total_ = 0, next_ = 0;
};

// The first row of each partition in its row_number() call's order, numbered
// 1 (WindowNode::first_per_partition): one pass keeping a row per
// partition, instead of sorting every row. Rows tied with the first may
// stand in for it (as a sort would order ties).
class FirstPerPartitionExecutor : public Executor {
 public:
  FirstPerPartitionExecutor(const WindowNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx) {}

  bool Next(DataChunk* out) override {
    if (!computed_) Compute();
    if (next_ >= firsts_.size()) return false;
    const size_t end = std::min(firsts_.size(), next_ + kChunkSize);
    std::vector<DataType> types = node_.child()->types();
    types.push_back(node_.calls[0].type);
    *out = DataChunk(types);
    for (size_t i = next_; i < end; i++) {
      Row row = std::move(firsts_[i].row);
      row.push_back(Value::Int64(1));
      out->AppendRow(row);
    }
    out->set_cardinality(end - next_);
    next_ = end;
    return true;
  }

 private:
  struct First {
    std::string order;
    Row row;
  };

  void Compute() {
    computed_ = true;
    const WindowCall& call = node_.calls[0];
    std::unordered_map<std::string, size_t> index;  // partition key -> firsts_
    std::unordered_map<std::string, std::pair<std::string, size_t>> chunk_best;
    DataChunk chunk;
    std::string part, order;
    while (child_->Next(&chunk)) {
      ctx_.CheckCancelled();
      std::vector<Vector> parts, orders;
      for (const auto& p : call.partition_by) parts.push_back(p->Eval(chunk, ctx_.eval));
      for (const auto& k : call.order_by) orders.push_back(k.expr->Eval(chunk, ctx_.eval));
      // The chunk's first row of each partition, then one comparison each
      // with the partition's so far.
      chunk_best.clear();
      for (size_t r = 0; r < chunk.num_rows(); r++) {
        part.clear();
        order.clear();
        for (const auto& v : parts) EncodeKeyFromVector(v, r, &part);
        EncodeWindowOrderKey(call, orders, r, &order);
        auto [it, fresh] = chunk_best.try_emplace(part, order, r);
        if (!fresh && order < it->second.first) it->second = {order, r};
      }
      for (auto& [key, best] : chunk_best) {
        auto [it, fresh] = index.try_emplace(key, firsts_.size());
        if (fresh) firsts_.push_back(First{std::move(best.first), chunk.GetRow(best.second)});
        else if (best.first < firsts_[it->second].order)
          firsts_[it->second] = First{std::move(best.first), chunk.GetRow(best.second)};
      }
    }
  }

  const WindowNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  bool computed_ = false;
  std::vector<First> firsts_;
  size_t next_ = 0;
};

}  // namespace

ExecutorPtr MakeWindow(const WindowNode& node, ExecutorPtr child, ExecContext& ctx) {
  if (node.first_per_partition && node.calls.size() == 1 && node.calls[0].kind == WindowFunctionKind::kRowNumber)
    return std::make_unique<FirstPerPartitionExecutor>(node, std::move(child), ctx);
  return std::make_unique<WindowExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
