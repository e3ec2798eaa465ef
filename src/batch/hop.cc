// Hop: repeats each row once per HOP window containing its time column.
#include "batch/executors.h"
#include "expr/window.h"

namespace freshet {

namespace {

class HopExecutor : public Executor {
 public:
  HopExecutor(const HopNode& node, ExecutorPtr child) : node_(node), child_(std::move(child)), types_(node.types()) {}

  bool Next(DataChunk* out) override {
    DataChunk in;
    while (child_->Next(&in)) {
      *out = DataChunk(types_);
      std::vector<uint32_t> sel;
      Vector starts(types_[types_.size() - 2]), ends(types_.back());
      std::vector<int64_t> windows;
      const Vector& ts = in.column(node_.time_column);
      for (size_t r = 0; r < in.num_rows(); r++) {
        if (ts.IsNull(r)) continue;
        HopWindowStarts(ts.GetInt(r), node_.slide, node_.size, &windows);
        for (int64_t s : windows) {
          sel.push_back(uint32_t(r));
          starts.AppendInt(s);
          ends.AppendInt(WindowEnd(s, node_.size));
        }
      }
      if (sel.empty()) continue;
      DataChunk rows = in.Take(sel);
      for (size_t c = 0; c < rows.num_columns(); c++) out->column(c) = std::move(rows.column(c));
      out->column(types_.size() - 2) = std::move(starts);
      out->column(types_.size() - 1) = std::move(ends);
      return true;
    }
    return false;
  }

 private:
  const HopNode& node_;
  ExecutorPtr child_;
  std::vector<DataType> types_;
};

}  // namespace

ExecutorPtr MakeHop(const HopNode& node, ExecutorPtr child, ExecContext&) {
  return std::make_unique<HopExecutor>(node, std::move(child));
}

}  // namespace freshet
