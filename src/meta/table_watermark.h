// TableWatermarks: WATERMARK FOR on append-only tables, applied where their
// writes are (RisingWave puts a WatermarkFilter in front of a table's
// materialize; here the DML manager is that point).
//
// Each table's WatermarkFilter (stream/watermark_filter.h) drops the late
// rows of each write set before it is applied, so they are never stored,
// and the watermark travels down the table's change stream on each barrier
// (ActorRegistry::SetTableWatermark), so views can close windows.
//
// Not persisted as such: after a restart the first write to the table
// finds it again from the stored rows (the largest expression over them,
// one scan of the table), which gives the same value because late rows were
// never stored.
//
// Thread safety: called under the DML manager's lock only.
#pragma once

#include <map>
#include <memory>

#include "catalog/catalog.h"
#include "catalog/system_tables.h"
#include "storage/state_table.h"
#include "stream/watermark_filter.h"

namespace freshet {

class TableWatermarks {
 public:
  // Drops the late rows from `ops` (the puts of a write set to `table`,
  // rows encoded as `st` stores them) and raises the watermark by the
  // rows kept. Returns the watermark (null when no row has given one yet).
  Value Filter(const TableCatalog& table, const StateTable& st, WriteLog* ops);
  // Each table's watermark (tables written since the start).
  std::vector<WatermarkInfo> Infos() const;
  void Forget(TableId id) { tables_.erase(id); }

 private:
  struct State {
    std::unique_ptr<WatermarkFilter> filter;
  };
  State& Load(const TableCatalog& table, const StateTable& st);
  std::map<TableId, State> tables_;
};

}  // namespace freshet
