// ProjectSet: a projection with set-returning functions in the select list
// (SELECT a, generate_series(1, a) FROM t). For each input row, each
// function is run like the same function in FROM, with its arguments fixed
// to that row's values; the row expands to the longest result.
#include "batch/executors.h"

namespace freshet {

namespace {

class ProjectSetExecutor : public Executor {
 public:
  ProjectSetExecutor(const ProjectSetNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx), types_(node.types()) {}

  bool Next(DataChunk* out) override {
    DataChunk in;
    while (child_->Next(&in)) {
      *out = Expand(in);
      if (!out->empty()) return true;
    }
    return false;
  }

 private:
  DataChunk Expand(const DataChunk& in) {
    size_t n = in.num_rows();
    // Plain entries and the functions' arguments, evaluated once per chunk.
    std::vector<Vector> plain(node_.exprs.size());
    std::vector<std::vector<Vector>> args(node_.exprs.size());
    for (size_t e = 0; e < node_.exprs.size(); e++) {
      const Expression& expr = *node_.exprs[e];
      if (expr.kind() == Expression::Kind::kSetFunction) {
        for (const auto& a : expr.children()) args[e].push_back(a->Eval(in, ctx_.eval));
      } else {
        plain[e] = expr.Eval(in, ctx_.eval);
      }
    }
    DataChunk out(types_);
    size_t rows = 0;
    for (size_t r = 0; r < n; r++) {
      std::vector<Vector> produced(node_.exprs.size());
      size_t longest = 0;
      for (size_t e = 0; e < node_.exprs.size(); e++) {
        const Expression& expr = *node_.exprs[e];
        if (expr.kind() != Expression::Kind::kSetFunction) continue;
        produced[e] = Run(static_cast<const SetFunctionExpr&>(expr), args[e], r);
        longest = std::max(longest, produced[e].size());
      }
      for (size_t i = 0; i < longest; i++) {
        for (size_t e = 0; e < node_.exprs.size(); e++) {
          Vector& col = out.column(e);
          if (node_.exprs[e]->kind() != Expression::Kind::kSetFunction) col.AppendFrom(plain[e], r);
          else if (i < produced[e].size()) col.AppendFrom(produced[e], i);
          else col.AppendNull();
        }
      }
      rows += longest;
    }
    out.set_cardinality(rows);
    return out;
  }

  // All values of one function for row r of its argument vectors.
  Vector Run(const SetFunctionExpr& fn, const std::vector<Vector>& args, size_t r) {
    std::vector<ExprPtr> constants;
    for (const auto& a : args) constants.push_back(std::make_unique<ConstantExpr>(a.GetValue(r)));
    TableFunctionNode call(fn.name(), std::move(constants), {{fn.name(), fn.type(), ""}});
    ExecutorPtr exec = MakeTableFunction(call, ctx_);
    Vector values(fn.type());
    DataChunk chunk;
    while (exec->Next(&chunk)) {
      ctx_.CheckCancelled();
      values.AppendRange(chunk.column(0), 0, chunk.num_rows());
    }
    return values;
  }

  const ProjectSetNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  std::vector<DataType> types_;
};

}  // namespace

ExecutorPtr MakeProjectSet(const ProjectSetNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<ProjectSetExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
