// Sink: the end of a sink job. The 'blackhole' connector discards its
// input (it counts rows, for benchmarks).
#pragma once

#include <atomic>

#include "stream/operator.h"

namespace freshet {

class BlackholeSinkOperator : public StreamOperator {
 public:
  std::string Name() const override { return "BlackholeSink"; }
  void OnChunk(int, StreamChunk chunk) override { rows_ += chunk.num_rows(); }
  uint64_t rows() const { return rows_; }

 private:
  uint64_t rows_ = 0;
};

}  // namespace freshet
