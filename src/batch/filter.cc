// Filter: keeps the rows whose predicate is true.
#include "batch/executors.h"

namespace freshet {

namespace {

class FilterExecutor : public Executor {
 public:
  FilterExecutor(const FilterNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx) {}

  bool Next(DataChunk* out) override {
    while (child_->Next(out)) {
      std::vector<uint8_t> mask = ToMask(node_.predicate->Eval(*out, ctx_.eval));
      out->Filter(mask);
      if (!out->empty()) return true;
    }
    return false;
  }

 private:
  const FilterNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
};

}  // namespace

ExecutorPtr MakeFilter(const FilterNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<FilterExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
