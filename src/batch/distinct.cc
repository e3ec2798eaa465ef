// Distinct: passes the first occurrence of each row.
#include <unordered_set>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

class DistinctExecutor : public Executor {
 public:
  explicit DistinctExecutor(ExecutorPtr child) : child_(std::move(child)) {}

  bool Next(DataChunk* out) override {
    while (child_->Next(out)) {
      DropRowsSeen(out, &seen_);
      if (!out->empty()) return true;
    }
    return false;
  }

 private:
  ExecutorPtr child_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

void DropRowsSeen(DataChunk* chunk, std::unordered_set<std::string>* seen) {
  std::vector<uint8_t> keep(chunk->num_rows());
  std::string key;
  for (size_t r = 0; r < chunk->num_rows(); r++) {
    key.clear();
    for (const auto& c : chunk->columns()) EncodeKeyFromVector(c, r, &key);
    keep[r] = seen->insert(key).second;
  }
  chunk->Filter(keep);
}

ExecutorPtr MakeDistinct(const DistinctNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<DistinctExecutor>(std::move(child));
}

}  // namespace freshet
