// Materialize: writes its input into the job's relation (a materialized
// view's rows, keyed by its primary key) and passes the changes on, so that
// jobs built on this view receive them.
#pragma once

#include "stream/operator.h"

namespace freshet {

class MaterializeOperator : public StreamOperator {
 public:
  explicit MaterializeOperator(StateTableDesc desc) : desc_(std::move(desc)) {}
  std::string Name() const override { return "Materialize"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnWatermarks(int, const std::vector<Watermark>& watermarks) override { EmitWatermarks(watermarks); }

 private:
  StateTableDesc desc_;
  std::shared_ptr<StateTable> table_;
};

}  // namespace freshet
