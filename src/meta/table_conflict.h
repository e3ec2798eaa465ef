// TableConflicts: RisingWave's table-level conflict behaviour (CREATE TABLE
// ... ON CONFLICT {OVERWRITE | IGNORE | DO UPDATE IF NOT NULL} [WITH
// VERSION COLUMN (col)]), applied where writes are applied (the DML
// manager), as RisingWave's materialize of the table applies it.
//
// A write that inserts a row (a put adding a row, row_delta +1) whose
// primary key is already there — stored, or put earlier in the same write
// set — is not a duplicate-key error on such a table:
//   * IGNORE keeps the row that is there, the new one is dropped;
//   * OVERWRITE replaces it;
//   * DO UPDATE IF NOT NULL replaces the columns the new row has a value
//     for (its NULLs keep the old values);
// and with a version column the new row (or its values) wins only when its
// version is not below the old one (a NULL on either side keeps the old
// row). The resolved writes are overwrites (row_delta 0), so the table's
// change stream carries them as updates and row counts stay right.
//
// Deterministic in the table's state and the writes' order, so a replay of
// the DML log resolves the same way (the log keeps row_delta).
//
// Thread safety: called under the DML manager's lock only.
#pragma once

#include "catalog/catalog.h"
#include "storage/state_table.h"
#include "storage/write_log.h"

namespace freshet {

// Whether `table` declares a conflict behaviour (TableCatalog::on_conflict).
inline bool HasConflictBehaviour(const TableCatalog& table) { return !table.on_conflict.empty(); }

// Rewrites `ops` (a write set's writes to `table`, rows encoded as `st`
// stores them) with its inserts of existing keys resolved as above.
void ResolveTableConflicts(const TableCatalog& table, const StateTable& st, WriteLog* ops);

}  // namespace freshet
