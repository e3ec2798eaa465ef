#include "storage/table_engines.h"

#include <mutex>

namespace freshet {

TableEngines::TableEngines(StateStore* store) : store_(store), row_store_(store) {}

const TableEngine& TableEngines::For(TableId table) const {
  return const_cast<TableEngines*>(this)->For(table);
}

TableEngine& TableEngines::For(TableId table) {
  std::shared_lock lock(mu_);
  auto it = assigned_.find(table);
  if (it == assigned_.end()) return row_store_;
  return *it->second;
}

Status TableEngines::Add(std::shared_ptr<TableEngine> engine) {
  if (Status s = engine->Recover(*store_); !s.ok()) return s;
  std::unique_lock lock(mu_);
  others_.push_back(std::move(engine));
  return Status::OK();
}

void TableEngines::Assign(TableId table, TableEngine* engine) {
  std::unique_lock lock(mu_);
  if (engine == &row_store_) assigned_.erase(table);
  else assigned_[table] = engine;
}

void TableEngines::Dropped(TableId table) {
  TableEngine* engine = nullptr;
  {
    std::unique_lock lock(mu_);
    auto it = assigned_.find(table);
    if (it == assigned_.end()) return;
    engine = it->second;
    assigned_.erase(it);
  }
  engine->DropRelation(table);
}

Status TableEngines::CommitEpoch(const CommitWrites& writes, const StateStore::EpochCommit& commit) {
  // Each engine's part of the writes. Ops of another engine's tables are
  // copied out of the shared logs (the logs hold every table's writes).
  std::vector<std::pair<TableEngine*, EngineEpochWrites>> parts;
  std::vector<std::unique_ptr<WriteLog>> copies;
  {
    std::shared_lock lock(mu_);
    auto part_of = [&](TableEngine* engine) -> CommitWrites& {
      for (auto& [e, w] : parts)
        if (e == engine) return w.writes;
      parts.emplace_back(engine, EngineEpochWrites{commit.database_id, commit.epoch, {}});
      return parts.back().second.writes;
    };
    part_of(&row_store_);
    if (assigned_.empty()) {
      parts[0].second.writes = writes;
    } else {
      auto engine_of = [&](TableId table) -> TableEngine* {
        auto it = assigned_.find(table);
        return it == assigned_.end() ? &row_store_ : it->second;
      };
      for (const WriteLog* log : writes.ops) {
        std::unordered_map<TableEngine*, WriteLog*> split;
        for (const WriteOp& op : *log) {
          TableEngine* engine = engine_of(TableIdOfKey(op.key));
          WriteLog*& out = split[engine];
          if (!out) {
            copies.push_back(std::make_unique<WriteLog>());
            out = copies.back().get();
            part_of(engine).ops.push_back(out);
          }
          out->Add(op);
        }
      }
      for (const BulkRows* rows : writes.bulk) part_of(engine_of(rows->table_id())).bulk.push_back(rows);
    }
  }
  EpochCommitBatch batch;
  Status s;
  size_t prepared = 0;
  for (; prepared < parts.size() && s.ok(); prepared++) s = parts[prepared].first->PrepareEpoch(parts[prepared].second, &batch);
  if (s.ok()) {
    StateStore::EpochCommit with_markers = commit;
    with_markers.markers = std::move(batch.markers);
    s = store_->CommitEpoch(batch.data, with_markers);
  }
  for (size_t i = 0; i < prepared; i++) parts[i].first->FinishEpoch(commit.database_id, commit.epoch, s.ok());
  return s;
}

}  // namespace freshet
