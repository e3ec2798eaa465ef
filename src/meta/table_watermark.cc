#include "meta/table_watermark.h"

#include "common/error.h"
#include "storage/keys.h"
#include "common/encoding.h"

namespace freshet {

namespace {
WatermarkExpressionBinder& ExpressionBinder() {
  static WatermarkExpressionBinder* binder = new WatermarkExpressionBinder();
  return *binder;
}

// The largest of `current` and the non-NULL values of `v`.
Value Largest(Value current, const Vector& v, const std::vector<uint8_t>* keep = nullptr) {
  for (size_t r = 0; r < v.size(); r++) {
    if ((keep && !(*keep)[r]) || v.IsNull(r)) continue;
    Value x = v.GetValue(r);
    if (current.is_null() || Value::Compare(x, current) > 0) current = std::move(x);
  }
  return current;
}
}  // namespace

void SetWatermarkExpressionBinder(WatermarkExpressionBinder binder) { ExpressionBinder() = std::move(binder); }

TableWatermarks::State& TableWatermarks::Load(const TableCatalog& table, const StateTable& st) {
  auto it = tables_.find(table.id);
  // Bound again after ALTER TABLE moved or renamed its column.
  if (it != tables_.end() && it->second.column == table.watermark_column && it->second.text == table.watermark_expr)
    return it->second;
  Value kept = it != tables_.end() ? it->second.watermark : Value();
  int64_t late = it != tables_.end() ? it->second.late : 0;
  if (it != tables_.end()) tables_.erase(it);
  if (!ExpressionBinder()) throw SqlError(sqlstate::kInternalError, "no binder for watermark expressions");
  State s;
  s.expr = ExpressionBinder()(table);
  s.column = table.watermark_column;
  s.text = table.watermark_expr;
  s.watermark = std::move(kept);
  s.late = late;
  // The rows stored: every one was on time, so their largest expression is
  // the watermark they left.
  const auto& types = st.desc().column_types;
  DataChunk rows(types);
  EvalContext eval;
  auto fold = [&] {
    s.watermark = Largest(std::move(s.watermark), s.expr->Eval(rows, eval));
    rows = DataChunk(types);
  };
  const bool known = !s.watermark.is_null();  // kept across an ALTER TABLE
  for (auto c = st.ScanCommittedPrefix(TablePrefix(table.id)); !known && c.Valid(); c.Next()) {
    if (!DecodeStoredRowInto(c.value(), &rows, st.desc().missing_cells))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table.name);
    if (rows.num_rows() == kChunkSize) fold();
  }
  if (rows.num_rows()) fold();
  return tables_.emplace(table.id, std::move(s)).first->second;
}

Value TableWatermarks::Filter(const TableCatalog& table, const StateTable& st, WriteLog* ops) {
  State& s = Load(table, st);
  const auto& types = st.desc().column_types;
  DataChunk rows(types);
  std::vector<size_t> put_of_row;  // the op of each decoded row
  for (size_t i = 0; i < ops->size(); i++) {
    const WriteOp& op = (*ops)[i];
    if (op.is_delete) continue;
    if (!DecodeStoredRowInto(op.value, &rows, st.desc().missing_cells))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt row written to table " + table.name);
    put_of_row.push_back(i);
  }
  if (put_of_row.empty()) return s.watermark;
  const Vector& column = rows.column(table.watermark_column);
  std::vector<uint8_t> on_time(rows.num_rows(), 1);
  size_t late = 0;
  for (size_t r = 0; r < rows.num_rows(); r++) {
    if (column.IsNull(r) || (!s.watermark.is_null() && Value::Compare(column.GetValue(r), s.watermark) < 0)) {
      on_time[r] = 0;
      late++;
    }
  }
  EvalContext eval;
  s.watermark = Largest(std::move(s.watermark), s.expr->Eval(rows, eval), &on_time);
  if (late) {
    std::vector<uint8_t> keep_op(ops->size(), 1);
    for (size_t r = 0; r < rows.num_rows(); r++)
      if (!on_time[r]) keep_op[put_of_row[r]] = 0;
    WriteLog kept;
    for (size_t i = 0; i < ops->size(); i++)
      if (keep_op[i]) kept.Add((*ops)[i]);
    *ops = std::move(kept);
    s.late += int64_t(late);
  }
  return s.watermark;
}

std::map<TableId, int64_t> TableWatermarks::LateRows() const {
  std::map<TableId, int64_t> out;
  for (const auto& [id, s] : tables_) out[id] = s.late;
  return out;
}

}  // namespace freshet
