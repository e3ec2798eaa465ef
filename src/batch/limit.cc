// Limit: skips `offset` rows, then passes at most `limit` rows.
#include "batch/executors.h"

namespace freshet {

namespace {

class LimitExecutor : public Executor {
 public:
  LimitExecutor(int64_t limit, int64_t offset, ExecutorPtr child)
      : child_(std::move(child)), to_skip_(offset), remaining_(limit) {}

  bool Next(DataChunk* out) override {
    while (remaining_ != 0 && child_->Next(out)) {
      size_t n = out->num_rows();
      size_t begin = 0;
      if (to_skip_ > 0) {
        size_t skip = std::min<size_t>(n, static_cast<size_t>(to_skip_));
        to_skip_ -= static_cast<int64_t>(skip);
        begin = skip;
      }
      size_t end = n;
      if (remaining_ >= 0) end = std::min<size_t>(n, begin + static_cast<size_t>(remaining_));
      if (begin == end) continue;
      if (begin != 0 || end != n) {
        std::vector<uint32_t> sel;
        for (size_t i = begin; i < end; i++) sel.push_back(static_cast<uint32_t>(i));
        *out = out->Take(sel);
      }
      if (remaining_ >= 0) remaining_ -= static_cast<int64_t>(end - begin);
      return true;
    }
    return false;
  }

 private:
  ExecutorPtr child_;
  int64_t to_skip_;
  int64_t remaining_;  // -1: unlimited
};

}  // namespace

ExecutorPtr MakeLimit(int64_t limit, int64_t offset, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<LimitExecutor>(limit, offset, std::move(child));
}

}  // namespace freshet
