// TableWatermarks: WATERMARK FOR on append-only tables, applied where their
// writes are (RisingWave puts a WatermarkFilter in front of a table's
// materialize; here the DML manager is that point).
//
// A table's watermark is the largest value of its watermark expression
// (`ts - INTERVAL '5 seconds'`) over the rows it has taken. A row whose
// watermark column is below the watermark as it stood before the row's
// write set (or NULL) is late: it is dropped, not stored, and counted. The
// watermark travels down the table's change stream on each barrier
// (ActorRegistry::SetTableWatermark), so views can close windows.
//
// Not persisted as such: after a restart the first write to the table
// finds it again from the stored rows (the largest expression over them,
// one scan of the table), which gives the same value because late rows were
// never stored.
//
// Thread safety: called under the DML manager's lock only.
#pragma once

#include <functional>
#include <map>
#include <optional>

#include "catalog/catalog.h"
#include "expr/expression.h"
#include "storage/state_table.h"

namespace freshet {

// meta has no binder: the frontend installs one at start that binds a
// table's watermark expression (Binder::BindWatermarkExpression).
using WatermarkExpressionBinder = std::function<ExprPtr(const TableCatalog&)>;
void SetWatermarkExpressionBinder(WatermarkExpressionBinder binder);

class TableWatermarks {
 public:
  // Drops the late rows from `ops` (the puts of a write set to `table`,
  // rows encoded as `st` stores them) and raises the watermark to the
  // largest expression of the rows kept. Returns the watermark (null when
  // no row has given one yet).
  Value Filter(const TableCatalog& table, const StateTable& st, WriteLog* ops);
  // Rows dropped as late since the start, per table.
  std::map<TableId, int64_t> LateRows() const;
  void Forget(TableId id) { tables_.erase(id); }

 private:
  struct State {
    ExprPtr expr;
    int column = -1;
    std::string text;  // what expr was bound from
    Value watermark;   // null until a row gave one
    int64_t late = 0;
  };
  State& Load(const TableCatalog& table, const StateTable& st);
  std::map<TableId, State> tables_;
};

}  // namespace freshet
