// Union: forwards the chunks of all its inputs (UNION ALL); the actor
// aligns their barriers. A column's watermark is the least of its inputs'
// (none when an input has none).
#pragma once

#include <map>

#include "stream/operator.h"

namespace freshet {

class UnionOperator : public StreamOperator {
 public:
  explicit UnionOperator(int num_inputs) : num_inputs_(num_inputs) {}
  std::string Name() const override { return "Union"; }
  void OnChunk(int, StreamChunk chunk) override { Emit(std::move(chunk)); }
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override {
    inputs_[input] = watermarks;
  }
  void OnBarrier(const Barrier&) override {
    if (int(inputs_.size()) == num_inputs_) {
      std::vector<Watermark> out = inputs_.begin()->second;
      for (const auto& [input, watermarks] : inputs_) out = LeastWatermarks(out, watermarks);
      EmitWatermarks(out);
    }
    inputs_.clear();
  }

 private:
  const int num_inputs_;
  std::map<int, std::vector<Watermark>> inputs_;
};

}  // namespace freshet
