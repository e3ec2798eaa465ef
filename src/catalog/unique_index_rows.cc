#include "catalog/unique_index_rows.h"

#include <algorithm>

namespace freshet {

DataChunk IndexHolderRow(const TableCatalog& table, const ConstraintCatalog& constraint, const DataChunk& index_rows,
                         size_t r) {
  const size_t first_key = constraint.columns.size();
  DataChunk row(table.types());
  for (size_t c = 0; c < table.columns.size(); c++) {
    auto k = std::find(table.pk.begin(), table.pk.end(), static_cast<int>(c));
    row.column(c).Append(k != table.pk.end() ? index_rows.column(first_key + (k - table.pk.begin())).GetValue(r)
                                             : Value::Null(table.columns[c].type));
  }
  row.set_cardinality(1);
  return row;
}

}  // namespace freshet
