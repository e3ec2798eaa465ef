// Window: window functions over partitions (planner/window_evaluator.h).
// Reads its whole input; for each call sorts the rows by (PARTITION BY,
// ORDER BY), evaluates each partition, and returns the rows in input order
// with one column per call.
#include <algorithm>

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

}  // namespace

ExecutorPtr MakeWindow(const WindowNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<WindowExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
