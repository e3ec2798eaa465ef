// HopWindow: repeats each row once per HOP window containing its time
// column (rows without a time get none), appending window_start and
// window_end. Stateless.
#pragma once

#include "stream/operator.h"

namespace freshet {

class HopOperator : public StreamOperator {
 public:
  HopOperator(int time_column, int64_t slide, int64_t size) : time_column_(time_column), slide_(slide), size_(size) {}
  std::string Name() const override { return "HopWindow"; }
  void OnChunk(int input, StreamChunk chunk) override;

 private:
  int time_column_;
  int64_t slide_, size_;
};

}  // namespace freshet
