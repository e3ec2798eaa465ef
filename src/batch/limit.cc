// Limit: skips `offset` rows, then passes at most `limit` rows; WITH TIES
// (FETCH FIRST n ROWS WITH TIES) then also the rows after the last one
// that equal it on the ORDER BY keys (its input is sorted by them).
#include "batch/executors.h"

namespace freshet {

namespace {

class LimitExecutor : public Executor {
 public:
  LimitExecutor(int64_t limit, int64_t offset, ExecutorPtr child, const std::vector<SortKey>* ties, ExecContext& ctx)
      : child_(std::move(child)), to_skip_(offset), remaining_(limit), ties_(ties), ctx_(ctx) {}

  bool Next(DataChunk* out) override {
    while (!done_) {
      if (pos_ >= in_.num_rows()) {
        if (!child_->Next(&in_)) return false;
        pos_ = 0;
        keys_.clear();
      }
      const size_t n = in_.num_rows();
      if (to_skip_ > 0) {
        size_t skip = std::min<size_t>(n - pos_, static_cast<size_t>(to_skip_));
        to_skip_ -= static_cast<int64_t>(skip);
        pos_ += skip;
        continue;
      }
      const size_t begin = pos_;
      if (remaining_ != 0) {
        size_t end = remaining_ < 0 ? n : std::min<size_t>(n, pos_ + static_cast<size_t>(remaining_));
        if (remaining_ > 0) remaining_ -= static_cast<int64_t>(end - pos_);
        pos_ = end;
        if (ties_ && remaining_ == 0) last_ = KeyAt(end - 1);
      } else if (ties_ && !last_.empty()) {
        while (pos_ < n && KeyAt(pos_) == last_) pos_++;
        if (pos_ < n) done_ = true;
      } else {
        done_ = true;
      }
      if (pos_ == begin) continue;
      if (begin == 0 && pos_ == n) {
        *out = std::move(in_);
        in_ = DataChunk();
        pos_ = 0;
      } else {
        std::vector<uint32_t> sel;
        for (size_t i = begin; i < pos_; i++) sel.push_back(static_cast<uint32_t>(i));
        *out = in_.Take(sel);
      }
      return true;
    }
    return false;
  }

 private:
  // The ORDER BY keys' values of row `row` of the current chunk.
  std::vector<Value> KeyAt(size_t row) {
    if (keys_.empty())
      for (const SortKey& k : *ties_) keys_.push_back(k.expr->Eval(in_, ctx_.eval));
    std::vector<Value> values;
    for (const Vector& v : keys_) values.push_back(v.GetValue(row));
    return values;
  }

  ExecutorPtr child_;
  int64_t to_skip_;
  int64_t remaining_;                  // -1: unlimited
  const std::vector<SortKey>* ties_;   // WITH TIES: the ORDER BY keys; else null
  ExecContext& ctx_;
  DataChunk in_;
  size_t pos_ = 0;                     // the next row of in_
  std::vector<Vector> keys_;           // the keys evaluated over in_ (WITH TIES)
  std::vector<Value> last_;            // the last row within the limit's keys
  bool done_ = false;
};

}  // namespace

ExecutorPtr MakeLimit(int64_t limit, int64_t offset, ExecutorPtr child, ExecContext& ctx,
                      const std::vector<SortKey>* with_ties) {
  return std::make_unique<LimitExecutor>(limit, offset, std::move(child), with_ties, ctx);
}

}  // namespace freshet
