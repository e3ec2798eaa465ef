// Values: rows given by expressions (VALUES lists, SELECT without FROM).
#include "batch/executors.h"

namespace freshet {

namespace {

class ValuesExecutor : public Executor {
 public:
  ValuesExecutor(const ValuesNode& node, ExecContext& ctx) : node_(node), ctx_(ctx), types_(node.types()) {}

  bool Next(DataChunk* out) override {
    if (pos_ >= node_.rows.size()) return false;
    *out = DataChunk(types_);
    DataChunk one;
    one.set_cardinality(1);
    size_t n = 0;
    for (; n < kChunkSize && pos_ < node_.rows.size(); n++, pos_++) {
      const auto& row = node_.rows[pos_];
      for (size_t c = 0; c < row.size(); c++) out->column(c).AppendFrom(row[c]->Eval(one, ctx_.eval), 0);
    }
    out->set_cardinality(n);
    return true;
  }

 private:
  const ValuesNode& node_;
  ExecContext& ctx_;
  std::vector<DataType> types_;
  size_t pos_ = 0;
};

}  // namespace

ExecutorPtr MakeValues(const ValuesNode& node, ExecContext& ctx) { return std::make_unique<ValuesExecutor>(node, ctx); }

}  // namespace freshet
