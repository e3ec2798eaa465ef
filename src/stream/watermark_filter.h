// WatermarkFilter: a relation's WATERMARK FOR column AS expr, applied to
// the rows it takes (RisingWave's WatermarkFilter).
//
// The watermark is the largest value of the expression (`ts - INTERVAL '5
// seconds'`) over the rows taken so far. A row whose column is below the
// watermark as it stood before the row's chunk, or NULL, is late: it is
// dropped. Tables apply it where their writes are applied (the DML
// manager, meta/table_watermark.h); sources in each job's source actor,
// which saves it with its offsets.
//
// Not thread-safe.
#pragma once

#include <functional>

#include "catalog/catalog.h"
#include "common/data_chunk.h"
#include "expr/expression.h"

namespace freshet {

// Binds a relation's watermark expression (Binder::BindWatermarkExpression).
// The layers below the binder get it from the frontend, which installs it
// at start; without one, a WatermarkFilter is XX000.
using WatermarkExpressionBinder = std::function<ExprPtr(const TableCatalog&)>;
void SetWatermarkExpressionBinder(WatermarkExpressionBinder binder);

// Rows dropped as late per relation since the process started (a
// source's summed over the jobs that read it): rw_catalog.rw_watermarks.
int64_t LateRowsOf(ObjectId relation);

class WatermarkFilter {
 public:
  explicit WatermarkFilter(const TableCatalog& relation);
  int column() const { return column_; }
  const std::string& text() const { return text_; }
  // The watermark (null until a row gave one).
  const Value& watermark() const { return watermark_; }
  void set_watermark(Value v) { watermark_ = std::move(v); }
  // For `rows` (the relation's columns): 1 for each row on time, 0 for a
  // late one; then raises the watermark by the rows on time. *late gets
  // how many were late (also counted for LateRowsOf).
  std::vector<uint8_t> Filter(const DataChunk& rows, size_t* late);
  // Raises the watermark by rows taken before (a table's stored rows).
  void Raise(const DataChunk& rows);

 private:
  void RaiseBy(const Vector& values, const std::vector<uint8_t>* keep);
  ExprPtr expr_;
  ObjectId relation_;
  int column_;
  std::string text_;
  Value watermark_;
  EvalContext eval_;
};

}  // namespace freshet
