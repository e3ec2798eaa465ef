// TableEngines: which engine (table_engine.h) stores each relation, and the
// epoch commit across engines.
//
// The row store (row_store_engine.h) stores every relation that no other
// engine was assigned. Another engine joins with Add, which recovers it
// first; its relations are then assigned to it (Assign), by whoever knows
// them (the catalog, when it names a relation's engine).
//
// CommitEpoch is the two-phase commit of table_engine.h: the epoch's writes
// are split by engine (by the table id their keys start with), each engine
// with writes prepares its part into one EpochCommitBatch, the store writes
// the batch atomically with the epoch marker and row counts, and every
// prepared engine hears the outcome. When only the row store has relations
// (today, outside tests), the writes pass through untouched.
//
// Thread safety: all methods may be called concurrently; Add and Assign
// are meant for start-up and DDL, not for the commit path.
#pragma once

#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "storage/row_store_engine.h"

namespace freshet {

class TableEngines {
 public:
  explicit TableEngines(StateStore* store);

  TableEngine& row_store() { return row_store_; }
  const TableEngine& row_store() const { return row_store_; }
  // The engine that stores the relation.
  const TableEngine& For(TableId table) const;
  TableEngine& For(TableId table);

  // Adds an engine after recovering it (TableEngine::Recover).
  Status Add(std::shared_ptr<TableEngine> engine);
  // Stores the relation in `engine` (one added before) from now on.
  void Assign(TableId table, TableEngine* engine);

  // The relation's data was dropped (MetaWrite::DropRelationData,
  // committed): its engine forgets it, and it is unassigned.
  void Dropped(TableId table);

  // One database's epoch commit (see the top of this file).
  Status CommitEpoch(const CommitWrites& writes, const StateStore::EpochCommit& commit);

 private:
  StateStore* store_;
  RowStoreEngine row_store_;
  mutable std::shared_mutex mu_;
  std::vector<std::shared_ptr<TableEngine>> others_;
  std::unordered_map<TableId, TableEngine*> assigned_;
};

}  // namespace freshet
