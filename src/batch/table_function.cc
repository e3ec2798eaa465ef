// Functions in FROM (expr/table_function.h computes their rows): the
// arguments evaluated once, WITH ORDINALITY numbering the rows.
#include "batch/executors.h"
#include "expr/table_function.h"

namespace freshet {

namespace {

class TableFunctionExecutor : public Executor {
 public:
  TableFunctionExecutor(const TableFunctionNode& node, ExecContext& ctx) : ctx_(ctx), ordinality_(node.with_ordinality) {
    TableFunctionCall call;
    call.name = node.name;
    for (const auto& a : node.args) call.args.push_back(a->EvalConstant(ctx.eval));
    call.types = node.types();
    if (ordinality_) call.types.pop_back();
    rows_ = MakeTableFunctionRows(call, ctx.eval);
  }

  bool Next(DataChunk* out) override {
    ctx_.CheckCancelled();
    if (!rows_->Next(out)) return false;
    if (!ordinality_) return true;
    // WITH ORDINALITY: the rows' numbers, from 1.
    Vector numbers(DataType::Int64());
    const size_t n = out->num_rows();
    numbers.Reserve(n);
    for (size_t i = 0; i < n; i++) numbers.AppendInt(++count_);
    out->AddColumn(std::move(numbers));
    out->set_cardinality(n);
    return true;
  }

 private:
  ExecContext& ctx_;
  bool ordinality_;
  std::unique_ptr<TableFunctionRows> rows_;
  int64_t count_ = 0;
};

}  // namespace

ExecutorPtr MakeTableFunction(const TableFunctionNode& node, ExecContext& ctx) {
  return std::make_unique<TableFunctionExecutor>(node, ctx);
}

}  // namespace freshet
