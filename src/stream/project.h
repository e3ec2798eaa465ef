// Project and Filter: stateless row-by-row operators.
//
// Project computes its expressions over each chunk (ops unchanged). Filter
// keeps the rows whose predicate is true; an UpdateDelete/UpdateInsert pair
// of which only one row passes becomes a plain Delete or Insert.
#pragma once

#include "expr/expression.h"
#include "stream/operator.h"

namespace freshet {

class ProjectOperator : public StreamOperator {
 public:
  ProjectOperator(std::vector<ExprPtr> exprs, EvalContext eval) : exprs_(std::move(exprs)), eval_(std::move(eval)) {}
  std::string Name() const override { return "Project"; }
  void OnChunk(int input, StreamChunk chunk) override;
  // An output column that is a monotonic expression of a watermarked
  // input column (expr/monotonic.h) gets the expression of its watermark.
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override;

 private:
  std::vector<ExprPtr> exprs_;
  EvalContext eval_;
};

class FilterOperator : public StreamOperator {
 public:
  FilterOperator(ExprPtr predicate, EvalContext eval) : predicate_(std::move(predicate)), eval_(std::move(eval)) {}
  std::string Name() const override { return "Filter"; }
  void OnChunk(int input, StreamChunk chunk) override;
  void OnWatermarks(int, const std::vector<Watermark>& watermarks) override { EmitWatermarks(watermarks); }

 private:
  ExprPtr predicate_;
  EvalContext eval_;
};

}  // namespace freshet
