#include "stream/actor_registry.h"

namespace freshet {

void ActorRegistry::Start(std::vector<std::unique_ptr<Actor>> actors) {
  std::lock_guard lock(mu_);
  for (auto& a : actors) {
    a->Start();
    ActorId id = a->id();
    actors_[id] = std::move(a);
  }
}

bool ActorRegistry::Contains(ActorId id) const {
  std::lock_guard lock(mu_);
  return actors_.count(id) > 0;
}

std::set<ActorId> ActorRegistry::Ids() const {
  std::lock_guard lock(mu_);
  std::set<ActorId> out;
  for (const auto& [id, a] : actors_) out.insert(id);
  return out;
}

std::vector<Actor*> ActorRegistry::Sources() const {
  std::lock_guard lock(mu_);
  std::vector<Actor*> out;
  for (const auto& [id, a] : actors_)
    if (a->is_source()) out.push_back(a.get());
  return out;
}

std::set<ActorId> ActorRegistry::JobActors(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  std::set<ActorId> out;
  for (const auto& [id, a] : actors_)
    if (a->job_id() == job_id) out.insert(id);
  return out;
}

size_t ActorRegistry::size() const {
  std::lock_guard lock(mu_);
  return actors_.size();
}

std::vector<std::unique_ptr<Actor>> ActorRegistry::Remove(const std::set<ActorId>& ids) {
  std::lock_guard lock(mu_);
  std::vector<std::unique_ptr<Actor>> out;
  for (ActorId id : ids) {
    auto it = actors_.find(id);
    if (it == actors_.end()) continue;
    out.push_back(std::move(it->second));
    actors_.erase(it);
  }
  return out;
}

std::vector<std::unique_ptr<Actor>> ActorRegistry::Clear() {
  std::lock_guard lock(mu_);
  std::vector<std::unique_ptr<Actor>> out;
  for (auto& [id, a] : actors_) out.push_back(std::move(a));
  actors_.clear();
  table_streams_.clear();
  relation_outputs_.clear();
  fragments_.clear();
  return out;
}

bool ActorRegistry::HasSubscribers(TableId table_id) const {
  std::lock_guard lock(mu_);
  auto it = table_streams_.find(table_id);
  return it != table_streams_.end() && !it->second.empty();
}

std::vector<bool> ActorRegistry::TableColumnsRead(TableId table_id) const {
  std::lock_guard lock(mu_);
  auto it = table_streams_.find(table_id);
  if (it == table_streams_.end()) return {};
  std::vector<bool> read;
  for (const auto& d : it->second) {
    const std::vector<bool>& mine = d->columns_read();
    if (mine.empty()) return {};
    if (read.size() < mine.size()) read.resize(mine.size(), false);
    for (size_t c = 0; c < mine.size(); c++) read[c] = read[c] || mine[c];
  }
  return read;
}

void ActorRegistry::PushTableChanges(TableId table_id, const StreamChunk& chunk) {
  std::vector<std::shared_ptr<Dispatcher>> dispatchers;
  {
    std::lock_guard lock(mu_);
    auto it = table_streams_.find(table_id);
    if (it == table_streams_.end()) return;
    dispatchers = it->second;
  }
  // Outside the lock: pushes may wait for room in an inbox.
  for (auto& d : dispatchers) d->Dispatch(chunk);
}

void ActorRegistry::AddTableOutputs(const Mutation& mutation) {
  std::lock_guard lock(mu_);
  for (auto& [target, outputs] : mutation.add_outputs) {
    if (!(target & kTableStreamActor)) continue;
    auto& ds = table_streams_[target & ~kTableStreamActor];
    ds.insert(ds.end(), outputs.begin(), outputs.end());
  }
}

void ActorRegistry::DispatchTableBarriers(const Barrier& barrier) const {
  std::vector<std::pair<Barrier, std::vector<std::shared_ptr<Dispatcher>>>> sends;
  {
    std::lock_guard lock(mu_);
    for (const auto& [table, ds] : table_streams_) {
      Barrier b = barrier;
      auto wm = table_watermarks_.find(table);
      if (wm != table_watermarks_.end()) b.watermarks = {wm->second};
      sends.emplace_back(std::move(b), ds);
    }
  }
  // Outside the lock: pushes may wait for room in an inbox.
  for (const auto& [b, ds] : sends)
    for (const auto& d : ds) d->DispatchBarrier(b);
}

void ActorRegistry::SetTableWatermark(TableId table_id, Watermark watermark) {
  std::lock_guard lock(mu_);
  table_watermarks_[table_id] = std::move(watermark);
}

void ActorRegistry::RemoveOutputsTo(const std::set<ActorId>& stopped) {
  std::lock_guard lock(mu_);
  for (auto it = table_streams_.begin(); it != table_streams_.end();) {
    std::vector<std::shared_ptr<Dispatcher>> kept;
    for (auto& d : it->second) {
      d->RemoveOutputs(stopped);
      if (!d->empty()) kept.push_back(d);
    }
    if (kept.empty()) it = table_streams_.erase(it);
    else (it++)->second = std::move(kept);
  }
}

void ActorRegistry::SetRelationOutputs(TableId relation, std::vector<OutputActor> actors) {
  std::lock_guard lock(mu_);
  relation_outputs_[relation] = std::move(actors);
}

std::vector<ActorRegistry::OutputActor> ActorRegistry::RelationOutputs(TableId relation) const {
  std::lock_guard lock(mu_);
  auto it = relation_outputs_.find(relation);
  if (it == relation_outputs_.end()) return {};
  return it->second;
}

void ActorRegistry::ForgetRelation(TableId relation) {
  std::lock_guard lock(mu_);
  relation_outputs_.erase(relation);
}

void ActorRegistry::RegisterFragments(uint32_t job_id, std::vector<FragmentInfo> fragments) {
  std::lock_guard lock(mu_);
  fragments_[job_id] = std::move(fragments);
}

void ActorRegistry::ForgetFragments(uint32_t job_id) {
  std::lock_guard lock(mu_);
  fragments_.erase(job_id);
}

std::vector<FragmentInfo> ActorRegistry::Fragments() const {
  std::lock_guard lock(mu_);
  std::vector<FragmentInfo> out;
  for (const auto& [job, fs] : fragments_) out.insert(out.end(), fs.begin(), fs.end());
  return out;
}

}  // namespace freshet
