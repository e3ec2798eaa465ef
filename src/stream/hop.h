// HopWindow: repeats each row once per HOP window containing its time
// column (rows without a time get none), appending window_start and
// window_end. Stateless. A watermark on the time column gives one on both:
// the first window of a row at the watermark (a later row's first window
// starts no earlier).
#pragma once

#include "stream/operator.h"

namespace freshet {

class HopOperator : public StreamOperator {
 public:
  HopOperator(int time_column, int64_t slide, int64_t size, int input_width)
      : time_column_(time_column), slide_(slide), size_(size), input_width_(input_width) {}
  std::string Name() const override { return "HopWindow"; }
  void OnChunk(int input, StreamChunk chunk) override;
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override;

 private:
  int time_column_;
  int64_t slide_, size_;
  int input_width_;  // window_start and window_end follow the input's columns
};

}  // namespace freshet
