#include "frontend/exported_snapshots.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

std::string ExportedSnapshots::Export(int32_t pid, ObjectId database_id, const std::shared_ptr<const Snapshot>& snapshot) {
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [](const auto& e) { return e.second.snapshot.expired(); });
  std::string id = fmt::format("{:08X}-{:08X}-1", static_cast<uint32_t>(pid), static_cast<uint32_t>(next_++));
  entries_[id] = {database_id, snapshot};
  return id;
}

std::shared_ptr<const Snapshot> ExportedSnapshots::Import(const std::string& id, ObjectId database_id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  std::shared_ptr<const Snapshot> snapshot = it == entries_.end() ? nullptr : it->second.snapshot.lock();
  if (!snapshot) FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid snapshot identifier: \"{}\"", id);
  if (it->second.database_id != database_id)
    throw SqlError(sqlstate::kFeatureNotSupported, "cannot import a snapshot from a different database");
  return snapshot;
}

}  // namespace freshet
