// The rows of a unique constraint's index (TableCatalog::UniqueIndexDesc:
// its constrained columns, then the table's key columns), read back as the
// table rows that hold their values.
#pragma once

#include "catalog/catalog.h"
#include "common/data_chunk.h"

namespace freshet {

// A one-row chunk of `table`'s columns for row r of `index_rows`: the key
// columns from the index row, the others NULL (enough for the row's key).
DataChunk IndexHolderRow(const TableCatalog& table, const ConstraintCatalog& constraint, const DataChunk& index_rows,
                         size_t r);

}  // namespace freshet
