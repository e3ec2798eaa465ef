// Window: row_number(), rank() and dense_rank() over partitions. Reads its
// whole input, numbers the rows of each call in (partition, order) order
// and returns the rows in input order with one column per call.
#include <algorithm>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

class WindowExecutor : public Executor {
 public:
  WindowExecutor(const WindowNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx), types_(node.types()) {}

  bool Next(DataChunk* out) override {
    if (!computed_) Compute();
    if (next_ >= chunks_.size()) return false;
    *out = std::move(chunks_[next_++]);
    return true;
  }

 private:
  void Compute() {
    computed_ = true;
    DataChunk in;
    std::vector<DataChunk> inputs;
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      inputs.push_back(std::move(in));
    }
    size_t total = 0;
    for (const auto& c : inputs) total += c.num_rows();
    // Row r of the input is (chunk, index); numbers[call][r].
    std::vector<std::vector<int64_t>> numbers(node_.calls.size(), std::vector<int64_t>(total));
    for (size_t ci = 0; ci < node_.calls.size(); ci++) {
      const WindowCall& call = node_.calls[ci];
      std::vector<std::string> part(total), order(total);
      size_t base = 0;
      for (const auto& chunk : inputs) {
        std::vector<Vector> pv, ov;
        for (const auto& p : call.partition_by) pv.push_back(p->Eval(chunk, ctx_.eval));
        for (const auto& k : call.order_by) ov.push_back(k.expr->Eval(chunk, ctx_.eval));
        for (size_t r = 0; r < chunk.num_rows(); r++) {
          for (auto& v : pv) EncodeOrderKeyFromVector(v, r, false, false, &part[base + r]);
          for (size_t k = 0; k < ov.size(); k++)
            EncodeOrderKeyFromVector(ov[k], r, call.order_by[k].descending, call.order_by[k].nulls_first, &order[base + r]);
        }
        base += chunk.num_rows();
      }
      std::vector<uint32_t> idx(total);
      for (size_t i = 0; i < total; i++) idx[i] = uint32_t(i);
      std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
        int c = part[a].compare(part[b]);
        return c != 0 ? c < 0 : order[a] < order[b];
      });
      int64_t rn = 0, rank = 0, dense = 0;
      for (size_t i = 0; i < total; i++) {
        uint32_t r = idx[i];
        bool new_partition = i == 0 || part[r] != part[idx[i - 1]];
        bool new_peer = new_partition || order[r] != order[idx[i - 1]];
        if (new_partition) rn = rank = dense = 0;
        rn++;
        if (new_peer) {
          rank = rn;
          dense++;
        }
        numbers[ci][r] = call.kind == WindowFunctionKind::kRowNumber ? rn
                         : call.kind == WindowFunctionKind::kRank    ? rank
                                                                      : dense;
      }
    }
    size_t base = 0;
    for (auto& chunk : inputs) {
      size_t n = chunk.num_rows();
      for (size_t ci = 0; ci < node_.calls.size(); ci++) {
        Vector v(DataType::Int64());
        v.Reserve(n);
        for (size_t r = 0; r < n; r++) v.AppendInt(numbers[ci][base + r]);
        chunk.AddColumn(std::move(v));
      }
      base += n;
      chunks_.push_back(std::move(chunk));
    }
  }

  const WindowNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  std::vector<DataType> types_;
  bool computed_ = false;
  std::vector<DataChunk> chunks_;
  size_t next_ = 0;
};

}  // namespace

ExecutorPtr MakeWindow(const WindowNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<WindowExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
