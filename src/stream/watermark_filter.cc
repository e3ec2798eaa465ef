#include "stream/watermark_filter.h"

#include "common/error.h"

#include <map>
#include <mutex>

namespace freshet {

namespace {
WatermarkExpressionBinder& ExpressionBinder() {
  static WatermarkExpressionBinder* binder = new WatermarkExpressionBinder();
  return *binder;
}
}  // namespace

void SetWatermarkExpressionBinder(WatermarkExpressionBinder binder) { ExpressionBinder() = std::move(binder); }

namespace {
std::mutex late_mu;
std::map<ObjectId, int64_t>& LateRows() {
  static auto* rows = new std::map<ObjectId, int64_t>();
  return *rows;
}
}  // namespace

int64_t LateRowsOf(ObjectId relation) {
  std::lock_guard lock(late_mu);
  auto it = LateRows().find(relation);
  return it == LateRows().end() ? 0 : it->second;
}

WatermarkFilter::WatermarkFilter(const TableCatalog& relation)
    : relation_(relation.id), column_(relation.watermark_column), text_(relation.watermark_expr) {
  if (!ExpressionBinder()) throw SqlError(sqlstate::kInternalError, "no binder for watermark expressions");
  expr_ = ExpressionBinder()(relation);
}

void WatermarkFilter::RaiseBy(const Vector& values, const std::vector<uint8_t>* keep) {
  for (size_t r = 0; r < values.size(); r++) {
    if ((keep && !(*keep)[r]) || values.IsNull(r)) continue;
    Value x = values.GetValue(r);
    if (watermark_.is_null() || Value::Compare(x, watermark_) > 0) watermark_ = std::move(x);
  }
}

void WatermarkFilter::Raise(const DataChunk& rows) {
  if (rows.num_rows()) RaiseBy(expr_->Eval(rows, eval_), nullptr);
}

std::vector<uint8_t> WatermarkFilter::Filter(const DataChunk& rows, size_t* late) {
  const Vector& column = rows.column(column_);
  std::vector<uint8_t> on_time(rows.num_rows(), 1);
  *late = 0;
  for (size_t r = 0; r < rows.num_rows(); r++) {
    if (column.IsNull(r) || (!watermark_.is_null() && Value::Compare(column.GetValue(r), watermark_) < 0)) {
      on_time[r] = 0;
      ++*late;
    }
  }
  if (rows.num_rows()) RaiseBy(expr_->Eval(rows, eval_), &on_time);
  if (*late) {
    std::lock_guard lock(late_mu);
    LateRows()[relation_] += int64_t(*late);
  }
  return on_time;
}

}  // namespace freshet
