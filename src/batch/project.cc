// Project: computes the output columns from each input chunk.
#include "batch/executors.h"

namespace freshet {

namespace {

class ProjectExecutor : public Executor {
 public:
  ProjectExecutor(const ProjectNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx) {}

  bool Next(DataChunk* out) override {
    DataChunk in;
    if (!child_->Next(&in)) return false;
    *out = EvalExpressions(node_.exprs, in, ctx_.eval);
    return true;
  }

 private:
  const ProjectNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
};

}  // namespace

ExecutorPtr MakeProject(const ProjectNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<ProjectExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
