// StateTableDesc: what storage needs to know of a relation's rows to key
// and encode them (state_table.h): a plain description, shared by the
// catalog and the engines.
#pragma once

#include <string>
#include <vector>

#include "common/types.h"
#include "storage/keys.h"

namespace freshet {

struct StateTableDesc {
  TableId table_id = 0;
  std::vector<DataType> column_types;
  std::vector<int> pk_indices;           // columns of the primary key, in key order
  std::vector<bool> pk_descending;       // per pk column; empty = all ascending
  std::vector<int> dist_key_indices;     // columns hashed to choose the vnode; empty = vnode 0
  // A table's columns added by ALTER TABLE ... ADD COLUMN after rows were
  // stored: the encoded cell such a row reads for each (encoding.h,
  // DecodeStoredRowInto); empty = NULL.
  std::vector<std::string> missing_cells;
};

}  // namespace freshet
