#include "meta/dml_manager.h"

#include <set>
#include <unordered_map>

#include "common/error.h"

namespace freshet {

std::shared_ptr<StateTable> DmlManager::TableFor(TableId id) {
  auto it = tables_.find(id);
  if (it != tables_.end()) return it->second;
  TableRef t = catalog_->GetTable(id);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", id);
  auto st = std::make_shared<StateTable>(store_, t->StorageDesc());
  loop_->Register(st);
  tables_[id] = st;
  return st;
}

void DmlManager::DropTable(TableId id) {
  std::lock_guard lock(mu_);
  tables_.erase(id);
  loop_->Unregister(id);
}

void DmlManager::CheckKeysLocked(TableId id, const TableWriteSet* before, const TableWriteSet& ops) {
  bool needs_check = false;
  for (const auto& op : ops.ops) needs_check |= op.check_unique;
  if (!needs_check) return;
  auto st = TableFor(id);
  // Whether each key exists after the ops so far: a statement may delete a
  // key and insert it again.
  std::unordered_map<std::string, bool> present;
  if (before)
    for (const auto& op : before->ops) present[op.key] = !op.is_delete;
  for (const auto& op : ops.ops) {
    if (op.check_unique && !op.is_delete) {
      auto it = present.find(op.key);
      bool exists = it != present.end() ? it->second : st->Get(op.key).has_value();
      if (exists) {
        TableRef t = catalog_->GetTable(id);
        throw SqlError(sqlstate::kUniqueViolation,
                       "duplicate key value violates unique constraint \"" + (t ? t->name : std::string("?")) + "_pkey\"");
      }
    }
    present[op.key] = !op.is_delete;
  }
}

void DmlManager::CheckUnique(const WriteSet& before, const WriteSet& added) {
  std::lock_guard lock(mu_);
  for (const auto& [id, tw] : added.tables()) CheckKeysLocked(id, before.Find(id), tw);
}

Epoch DmlManager::Apply(WriteSet&& writes) {
  std::lock_guard lock(mu_);
  auto guard = loop_->BeginWrite();
  // Check everything first so that a failure leaves no trace.
  std::vector<std::pair<std::shared_ptr<StateTable>, TableWriteSet*>> targets;
  for (auto& [id, tw] : writes.mutable_tables()) {
    if (tw.ops.empty()) continue;
    if (!catalog_->GetTable(id)) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", id);
    auto st = TableFor(id);
    CheckKeysLocked(id, nullptr, tw);
    targets.emplace_back(st, &tw);
  }
  for (auto& [st, tw] : targets) st->Write(std::move(tw->ops));
  return guard.epoch();
}

}  // namespace freshet
