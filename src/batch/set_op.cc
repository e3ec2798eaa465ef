// UNION / INTERSECT / EXCEPT [ALL].
//
// UNION ALL concatenates; the others count the right input's rows by
// memcomparable row key and stream the left input against those counts
// (UNION without ALL streams both inputs through one seen-set).
#include <unordered_map>
#include <unordered_set>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

std::string RowKey(const DataChunk& c, size_t r) {
  std::string key;
  for (const auto& col : c.columns()) EncodeKeyFromVector(col, r, &key);
  return key;
}

class SetOpExecutor : public Executor {
 public:
  SetOpExecutor(const SetOpNode& node, ExecutorPtr left, ExecutorPtr right, ExecContext& ctx)
      : node_(node), left_(std::move(left)), right_(std::move(right)), ctx_(ctx) {}

  bool Next(DataChunk* out) override {
    if (node_.op == SetOpKind::kUnion) return NextUnion(out);
    if (!counted_) CountRight();
    while (left_->Next(out)) {
      std::vector<uint8_t> keep(out->num_rows(), 0);
      for (size_t r = 0; r < out->num_rows(); r++) {
        std::string key = RowKey(*out, r);
        auto it = right_counts_.find(key);
        int64_t in_right = it == right_counts_.end() ? 0 : it->second;
        if (node_.op == SetOpKind::kIntersect) {
          if (node_.all) {
            if (in_right > 0) { keep[r] = 1; it->second--; }
          } else if (in_right > 0 && seen_.insert(key).second) {
            keep[r] = 1;
          }
        } else {  // EXCEPT
          if (node_.all) {
            if (in_right > 0) it->second--;
            else keep[r] = 1;
          } else if (in_right == 0 && seen_.insert(key).second) {
            keep[r] = 1;
          }
        }
      }
      out->Filter(keep);
      if (!out->empty()) return true;
    }
    return false;
  }

 private:
  bool NextUnion(DataChunk* out) {
    while (true) {
      Executor* src = left_done_ ? right_.get() : left_.get();
      if (!src->Next(out)) {
        if (left_done_) return false;
        left_done_ = true;
        continue;
      }
      if (node_.all) return true;
      std::vector<uint8_t> keep(out->num_rows());
      for (size_t r = 0; r < out->num_rows(); r++) keep[r] = seen_.insert(RowKey(*out, r)).second;
      out->Filter(keep);
      if (!out->empty()) return true;
    }
  }

  void CountRight() {
    counted_ = true;
    DataChunk in;
    while (right_->Next(&in)) {
      ctx_.CheckCancelled();
      for (size_t r = 0; r < in.num_rows(); r++) right_counts_[RowKey(in, r)]++;
    }
  }

  const SetOpNode& node_;
  ExecutorPtr left_, right_;
  ExecContext& ctx_;
  bool left_done_ = false, counted_ = false;
  std::unordered_set<std::string> seen_;
  std::unordered_map<std::string, int64_t> right_counts_;
};

}  // namespace

ExecutorPtr MakeSetOp(const SetOpNode& node, ExecutorPtr left, ExecutorPtr right, ExecContext& ctx) {
  return std::make_unique<SetOpExecutor>(node, std::move(left), std::move(right), ctx);
}

}  // namespace freshet
