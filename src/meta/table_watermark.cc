#include "meta/table_watermark.h"

#include "common/encoding.h"
#include "common/error.h"
#include "storage/keys.h"

namespace freshet {

TableWatermarks::State& TableWatermarks::Load(const TableCatalog& table, const StateTable& st) {
  auto it = tables_.find(table.id);
  if (it != tables_.end() && it->second.filter->column() == table.watermark_column &&
      it->second.filter->text() == table.watermark_expr)
    return it->second;
  // New, or bound again after ALTER TABLE moved or renamed its column.
  State s;
  s.filter = std::make_unique<WatermarkFilter>(table);
  if (it != tables_.end()) {
    s.filter->set_watermark(it->second.filter->watermark());
    tables_.erase(it);
  } else {
    // The rows stored: every one was on time, so they give the watermark
    // they left.
    const auto& types = st.desc().column_types;
    DataChunk rows(types);
    for (auto c = st.ScanCommittedPrefix(TablePrefix(table.id)); c.Valid(); c.Next()) {
      if (!DecodeStoredRowInto(c.value(), &rows, st.desc().missing_cells))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + table.name);
      if (rows.num_rows() == kChunkSize) {
        s.filter->Raise(rows);
        rows = DataChunk(types);
      }
    }
    s.filter->Raise(rows);
  }
  return tables_.emplace(table.id, std::move(s)).first->second;
}

Value TableWatermarks::Filter(const TableCatalog& table, const StateTable& st, WriteLog* ops) {
  State& s = Load(table, st);
  DataChunk rows(st.desc().column_types);
  std::vector<size_t> put_of_row;  // the op of each decoded row
  for (size_t i = 0; i < ops->size(); i++) {
    const WriteOp& op = (*ops)[i];
    if (op.is_delete) continue;
    if (!DecodeStoredRowInto(op.value, &rows, st.desc().missing_cells))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt row written to table " + table.name);
    put_of_row.push_back(i);
  }
  size_t late = 0;
  const std::vector<uint8_t> on_time = s.filter->Filter(rows, &late);
  if (late) {
    std::vector<uint8_t> keep_op(ops->size(), 1);
    for (size_t r = 0; r < on_time.size(); r++)
      if (!on_time[r]) keep_op[put_of_row[r]] = 0;
    WriteLog kept;
    for (size_t i = 0; i < ops->size(); i++)
      if (keep_op[i]) kept.Add((*ops)[i]);
    *ops = std::move(kept);
  }
  return s.filter->watermark();
}

std::vector<WatermarkInfo> TableWatermarks::Infos() const {
  std::vector<WatermarkInfo> out;
  for (const auto& [id, s] : tables_) out.push_back({id, s.filter->watermark()});
  return out;
}

}  // namespace freshet
