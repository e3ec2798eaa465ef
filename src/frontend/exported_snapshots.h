// ExportedSnapshots: the snapshots transactions export with
// pg_export_snapshot(), which other sessions take with SET TRANSACTION
// SNAPSHOT (pg_dump -j: its workers read the database as the leader's
// transaction does).
//
// An exported snapshot is valid while the exporting transaction holds it:
// the registry keeps a weak reference, so it lapses when the transaction
// ends (its snapshot released) unless an importer still holds it, as
// PostgreSQL's lasts until the exporting transaction ends. Ids are
// PostgreSQL-shaped text ("0000ABCD-00000001-1").
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "catalog/catalog.h"
#include "storage/state_store.h"

namespace freshet {

class ExportedSnapshots {
 public:
  // Registers `snapshot` of database `database_id`, exported by session
  // `pid`; returns its id.
  std::string Export(int32_t pid, ObjectId database_id, const std::shared_ptr<const Snapshot>& snapshot);
  // The snapshot `id` names in `database_id`: 22023 for an unknown or
  // lapsed id, 0A000 for another database's (PostgreSQL's errors).
  std::shared_ptr<const Snapshot> Import(const std::string& id, ObjectId database_id);

 private:
  struct Entry {
    ObjectId database_id;
    std::weak_ptr<const Snapshot> snapshot;
  };
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
  uint64_t next_ = 1;
};

}  // namespace freshet
