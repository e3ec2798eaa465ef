// Union: forwards the chunks of all its inputs (UNION ALL); the actor
// aligns their barriers.
#pragma once

#include "stream/operator.h"

namespace freshet {

class UnionOperator : public StreamOperator {
 public:
  std::string Name() const override { return "Union"; }
  void OnChunk(int, StreamChunk chunk) override { Emit(std::move(chunk)); }
};

}  // namespace freshet
