// LateralJoin: a join whose right input is a LATERAL subquery of the left
// row. For each left row the right plan is built and run with the row as
// the innermost outer row (its OuterRefExprs one level up read it), its
// rows are paired with the left row, the condition keeps the pairs it
// holds for, and a LEFT join pads a left row without pairs with NULLs.
// Output chunks end after the left row that fills them past kChunkSize.
#include "batch/executor_builder.h"
#include "batch/executors.h"

namespace freshet {

namespace {

class LateralJoinExecutor : public Executor {
 public:
  LateralJoinExecutor(const LateralJoinNode& node, ExecutorPtr left, ExecContext& ctx)
      : node_(node), left_(std::move(left)), ctx_(ctx), right_types_(node.child(1)->types()) {}

  bool Next(DataChunk* out) override {
    *out = DataChunk(node_.types());
    while (out->num_rows() < kChunkSize) {
      if (next_row_ >= in_.num_rows()) {
        if (!left_->Next(&in_)) break;
        next_row_ = 0;
        ctx_.CheckCancelled();
      }
      JoinRow(next_row_++, out);
    }
    return out->num_rows() > 0;
  }

 private:
  void JoinRow(size_t r, DataChunk* out) {
    std::vector<Value> outer = in_.GetRow(r);
    DataChunk right;
    ctx_.eval.outer_rows.push_back(&outer);
    try {
      ExecutorPtr exec = BuildExecutor(*node_.child(1), ctx_);
      right = Materialize(exec.get(), right_types_, ctx_);
    } catch (...) {
      ctx_.eval.outer_rows.pop_back();
      throw;
    }
    ctx_.eval.outer_rows.pop_back();
    size_t m = right.num_rows();
    const size_t left_width = in_.num_columns();
    // The pairs: the left row repeated, then the right rows.
    DataChunk pairs(node_.types());
    for (size_t c = 0; c < left_width; c++)
      for (size_t i = 0; i < m; i++) pairs.column(c).AppendFrom(in_.column(c), r);
    for (size_t c = 0; c < right.num_columns(); c++) pairs.column(left_width + c).AppendRange(right.column(c), 0, m);
    pairs.set_cardinality(m);
    if (node_.condition && m > 0) pairs.Filter(ToMask(node_.condition->Eval(pairs, ctx_.eval)));
    size_t kept = pairs.num_rows();
    for (size_t c = 0; c < pairs.num_columns(); c++) out->column(c).AppendRange(pairs.column(c), 0, kept);
    if (kept == 0 && node_.type == JoinType::kLeft) {
      for (size_t c = 0; c < left_width; c++) out->column(c).AppendFrom(in_.column(c), r);
      for (size_t c = left_width; c < out->num_columns(); c++) out->column(c).AppendNull();
      kept = 1;
    }
    out->set_cardinality(out->num_rows() + kept);
  }

  const LateralJoinNode& node_;
  ExecutorPtr left_;
  ExecContext& ctx_;
  std::vector<DataType> right_types_;
  DataChunk in_;  // the left chunk being joined
  size_t next_row_ = 0;
};

}  // namespace

ExecutorPtr MakeLateralJoin(const LateralJoinNode& node, ExecutorPtr left, ExecContext& ctx) {
  return std::make_unique<LateralJoinExecutor>(node, std::move(left), ctx);
}

}  // namespace freshet
