// ProjectSet: a projection with set-returning functions in the select list
// (SELECT a, generate_series(1, a) FROM t). For each input row, each
// function is run like the same function in FROM, with its arguments fixed
// to that row's values; the row expands to the longest result (the other
// functions' columns are NULL once they run out).
//
// The functions' values stream: at most one chunk of each is held at a
// time, so SELECT generate_series(1, 2147483647) produces its rows chunk by
// chunk, as the same call in FROM does, instead of building them all first.
#include "batch/executors.h"

namespace freshet {

namespace {

class ProjectSetExecutor : public Executor {
 public:
  ProjectSetExecutor(const ProjectSetNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx), types_(node.types()), fns_(node.exprs.size()) {}

  bool Next(DataChunk* out) override {
    DataChunk result(types_);
    size_t rows = 0;
    while (rows < kChunkSize) {
      if (!row_active_ && !StartNextRow()) break;
      // One output row: the next value of each function that has one.
      bool any = false;
      for (size_t e = 0; e < fns_.size(); e++) {
        if (!IsSetFunction(e) || fns_[e].done) continue;
        fns_[e].done = !Fetch(&fns_[e]);
        any |= !fns_[e].done;
      }
      if (!any) {
        row_active_ = false;
        continue;
      }
      for (size_t e = 0; e < fns_.size(); e++) {
        Vector& col = result.column(e);
        Function& f = fns_[e];
        if (!IsSetFunction(e)) {
          col.AppendFrom(plain_[e], row_);
        } else if (f.done) {
          col.AppendNull();
        } else {
          col.AppendFrom(f.chunk.column(0), f.pos++);
        }
      }
      rows++;
    }
    if (rows == 0) return false;
    ctx_.CheckCancelled();
    result.set_cardinality(rows);
    *out = std::move(result);
    return true;
  }

 private:
  // One set-returning function of the select list, running for the
  // current input row.
  struct Function {
    std::unique_ptr<TableFunctionNode> call;  // the executor refers to it
    ExecutorPtr exec;
    DataChunk chunk;  // its latest values
    size_t pos = 0;   // the next one in chunk
    bool done = true;
  };

  bool IsSetFunction(size_t e) const { return node_.exprs[e]->kind() == Expression::Kind::kSetFunction; }

  // Moves to the next input row (and chunk) and starts its functions.
  bool StartNextRow() {
    while (++row_ >= in_.num_rows()) {
      if (!child_->Next(&in_)) return false;
      row_ = SIZE_MAX;
      // Plain entries and the functions' arguments, evaluated once per chunk.
      plain_.assign(node_.exprs.size(), Vector());
      args_.assign(node_.exprs.size(), {});
      for (size_t e = 0; e < node_.exprs.size(); e++) {
        const Expression& expr = *node_.exprs[e];
        if (IsSetFunction(e)) {
          for (const auto& a : expr.children()) args_[e].push_back(a->Eval(in_, ctx_.eval));
        } else {
          plain_[e] = expr.Eval(in_, ctx_.eval);
        }
      }
    }
    for (size_t e = 0; e < fns_.size(); e++) {
      if (!IsSetFunction(e)) continue;
      const auto& fn = static_cast<const SetFunctionExpr&>(*node_.exprs[e]);
      Function& f = fns_[e];
      std::vector<ExprPtr> constants;
      for (const auto& a : args_[e]) constants.push_back(std::make_unique<ConstantExpr>(a.GetValue(row_)));
      f.exec.reset();
      f.call = std::make_unique<TableFunctionNode>(fn.name(), std::move(constants),
                                                   std::vector<PlanColumn>{{fn.name(), fn.type(), ""}});
      f.exec = MakeTableFunction(*f.call, ctx_);
      f.chunk = DataChunk();
      f.pos = 0;
      f.done = false;
    }
    row_active_ = true;
    return true;
  }

  // Whether f has a next value (at f.chunk's f.pos).
  bool Fetch(Function* f) {
    while (f->pos >= f->chunk.num_rows()) {
      ctx_.CheckCancelled();
      if (!f->exec->Next(&f->chunk)) {
        f->exec.reset();
        return false;
      }
      f->pos = 0;
    }
    return true;
  }

  const ProjectSetNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  std::vector<DataType> types_;
  DataChunk in_;
  size_t row_ = SIZE_MAX;  // the current row of in_
  bool row_active_ = false;
  std::vector<Vector> plain_;
  std::vector<std::vector<Vector>> args_;
  std::vector<Function> fns_;  // by select-list entry (unused for plain entries)
};

}  // namespace

ExecutorPtr MakeProjectSet(const ProjectSetNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<ProjectSetExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
