#include "stream/runtime.h"

#include <spdlog/spdlog.h>

namespace freshet {

StreamRuntime::~StreamRuntime() { Shutdown(); }

void StreamRuntime::Shutdown() {
  std::map<ActorId, std::unique_ptr<Actor>> actors;
  {
    std::lock_guard lock(mu_);
    shutdown_ = true;
    actors.swap(actors_);
    cv_.notify_all();
  }
  for (auto& [id, a] : actors) a->inbox()->Close();
  actors.clear();  // joins
}

void StreamRuntime::ReportFailure(ActorId actor, uint32_t job_id, std::string message, std::string code) {
  std::lock_guard lock(mu_);
  if (!failure_) failure_ = Failure{actor, job_id, std::move(message), std::move(code)};
  cv_.notify_all();
}

std::optional<StreamRuntime::Failure> StreamRuntime::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void StreamRuntime::ResetGraph() {
  std::map<ActorId, std::unique_ptr<Actor>> actors;
  {
    std::lock_guard lock(mu_);
    actors.swap(actors_);
    resets_++;  // wakes actors waiting for a commit (WaitCommitted)
    cv_.notify_all();
    table_streams_.clear();
    collections_.clear();
    relation_outputs_.clear();
    fragments_.clear();
  }
  // Closing every inbox first wakes actors blocked pushing into another's.
  for (auto& [id, a] : actors) a->inbox()->Close();
  actors.clear();  // joins
  std::lock_guard lock(mu_);
  failure_.reset();
  cv_.notify_all();
}

bool StreamRuntime::HasSubscribers(TableId table_id) const {
  std::lock_guard lock(mu_);
  auto it = table_streams_.find(table_id);
  return it != table_streams_.end() && !it->second.empty();
}

void StreamRuntime::PushTableChanges(TableId table_id, const StreamChunk& chunk) {
  std::vector<std::shared_ptr<Dispatcher>> dispatchers;
  {
    std::lock_guard lock(mu_);
    auto it = table_streams_.find(table_id);
    if (it == table_streams_.end()) return;
    dispatchers = it->second;
  }
  for (auto& d : dispatchers) d->Dispatch(chunk);
}

void StreamRuntime::InjectBarrier(const Barrier& barrier, std::vector<std::unique_ptr<Actor>> new_actors) {
  std::vector<Actor*> sources;
  std::vector<std::shared_ptr<Dispatcher>> table_outputs;
  {
    std::lock_guard lock(mu_);
    for (auto& a : new_actors) {
      a->Start();
      ActorId id = a->id();
      actors_[id] = std::move(a);
    }
    Collection& c = collections_[barrier.prev_epoch];
    for (auto& [id, a] : actors_) {
      c.expected.insert(id);
      if (a->is_source()) sources.push_back(a.get());
    }
    if (barrier.mutation) {
      c.stopping = barrier.mutation->stop;
      for (auto& [target, outputs] : barrier.mutation->add_outputs) {
        if (!(target & kTableStreamActor)) continue;
        auto& ds = table_streams_[target & ~kTableStreamActor];
        ds.insert(ds.end(), outputs.begin(), outputs.end());
      }
    }
    for (auto& [table, ds] : table_streams_) table_outputs.insert(table_outputs.end(), ds.begin(), ds.end());
  }
  // Outside the lock: pushes may wait for room in an inbox.
  for (auto& d : table_outputs) d->DispatchBarrier(barrier);
  for (Actor* a : sources) a->inbox()->Push(0, Message::OfBarrier(barrier));
  if (barrier.mutation && !barrier.mutation->stop.empty()) {
    std::lock_guard lock(mu_);
    for (auto it = table_streams_.begin(); it != table_streams_.end();) {
      std::vector<std::shared_ptr<Dispatcher>> kept;
      for (auto& d : it->second) {
        d->RemoveOutputs(barrier.mutation->stop);
        if (!d->empty()) kept.push_back(d);
      }
      if (kept.empty()) it = table_streams_.erase(it);
      else (it++)->second = std::move(kept);
    }
  }
}

void StreamRuntime::Collect(ActorId actor, const Barrier& barrier, WriteLog&& writes) {
  std::lock_guard lock(mu_);
  Collection& c = collections_[barrier.prev_epoch];
  c.arrived.insert(actor);
  if (!writes.empty()) c.writes.push_back(std::move(writes));
  cv_.notify_all();
}

std::vector<WriteLog> StreamRuntime::WaitCollected(Epoch prev_epoch) {
  std::vector<std::unique_ptr<Actor>> stopped;
  std::vector<WriteLog> writes;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] {
      if (shutdown_ || failure_) return true;
      const Collection& c = collections_[prev_epoch];
      for (ActorId id : c.expected)
        if (!c.arrived.count(id) && actors_.count(id)) return false;
      return true;
    });
    Collection c = std::move(collections_[prev_epoch]);
    collections_.erase(prev_epoch);
    writes = std::move(c.writes);
    for (ActorId id : c.stopping) {
      auto it = actors_.find(id);
      if (it == actors_.end()) continue;
      stopped.push_back(std::move(it->second));
      actors_.erase(it);
    }
  }
  for (auto& a : stopped) a->Join();
  return writes;
}

void StreamRuntime::OnCommitted(Epoch epoch) {
  {
    std::lock_guard lock(mu_);
    committed_epoch_ = epoch;
    cv_.notify_all();
  }
  CompleteReadyJobs();
}

void StreamRuntime::ArmJob(uint32_t job_id) {
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(job_id);
    if (it != jobs_.end()) it->second.armed = true;
  }
  CompleteReadyJobs();
}

void StreamRuntime::CompleteReadyJobs() {
  // Completing a job can make the jobs that wait for it ready: repeat.
  while (true) {
    std::vector<std::pair<uint32_t, std::function<void()>>> completing;
    {
      std::lock_guard lock(mu_);
      for (auto& [id, job] : jobs_) {
        if (!job.armed || job.complete || job.completing || !job.pending.empty() ||
            job.finished_epoch > committed_epoch_)
          continue;
        bool upstream_done = true;
        for (uint32_t up : job.upstream) {
          auto it = jobs_.find(up);
          if (it != jobs_.end() && !it->second.complete) upstream_done = false;
        }
        if (!upstream_done) continue;
        job.completing = true;
        completing.emplace_back(id, job.on_complete);
      }
      cv_.notify_all();
    }
    if (completing.empty()) return;
    for (auto& [id, fn] : completing)
      if (fn) fn();
    std::lock_guard lock(mu_);
    for (auto& [id, fn] : completing) {
      auto it = jobs_.find(id);
      if (it != jobs_.end()) it->second.complete = true;
    }
    cv_.notify_all();
  }
}

size_t StreamRuntime::num_actors() const {
  std::lock_guard lock(mu_);
  return actors_.size();
}

bool StreamRuntime::WaitCommitted(Epoch epoch, uint64_t generation) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return shutdown_ || resets_ != generation || committed_epoch_ >= epoch; });
  return !shutdown_ && resets_ == generation;
}

uint64_t StreamRuntime::generation() const {
  std::lock_guard lock(mu_);
  return resets_;
}

Epoch StreamRuntime::committed_epoch() const {
  std::lock_guard lock(mu_);
  return committed_epoch_;
}

void StreamRuntime::RegisterJob(uint32_t job_id, std::set<ActorId> backfill_actors, std::set<uint32_t> upstream_jobs,
                                std::function<void()> on_complete) {
  std::lock_guard lock(mu_);
  Job& j = jobs_[job_id];
  j.pending = std::move(backfill_actors);
  j.upstream = std::move(upstream_jobs);
  j.complete = j.completing = false;
  j.finished_epoch = 0;
  j.on_complete = std::move(on_complete);
}

std::set<ActorId> StreamRuntime::JobActors(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  std::set<ActorId> out;
  for (const auto& [id, a] : actors_)
    if (a->job_id() == job_id) out.insert(id);
  return out;
}

void StreamRuntime::ReportBackfillFinished(uint32_t job_id, ActorId actor, Epoch epoch) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  if (it->second.pending.erase(actor)) it->second.finished_epoch = std::max(it->second.finished_epoch, epoch);
}

bool StreamRuntime::WaitJob(uint32_t job_id, const std::atomic<bool>* cancel) {
  std::unique_lock lock(mu_);
  while (true) {
    if (shutdown_) return false;
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return false;
    if (it->second.complete) return true;
    if (cancel && cancel->load()) return false;
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
}

bool StreamRuntime::JobBackfillDone(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && it->second.pending.empty();
}

void StreamRuntime::SetBackfillRateLimit(uint32_t job_id, std::optional<int64_t> rows_per_second) {
  std::lock_guard lock(mu_);
  if (rows_per_second) rate_limits_[job_id] = *rows_per_second;
  else rate_limits_.erase(job_id);
}

std::optional<int64_t> StreamRuntime::BackfillRateLimit(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  auto it = rate_limits_.find(job_id);
  if (it == rate_limits_.end()) return std::nullopt;
  return it->second;
}

bool StreamRuntime::stopped() const {
  std::lock_guard lock(mu_);
  return shutdown_;
}

bool StreamRuntime::JobRegistered(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  return jobs_.count(job_id) > 0;
}

bool StreamRuntime::JobComplete(uint32_t job_id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && it->second.complete;
}

void StreamRuntime::RegisterFragments(uint32_t job_id, std::vector<FragmentInfo> fragments) {
  std::lock_guard lock(mu_);
  fragments_[job_id] = std::move(fragments);
}

std::vector<FragmentInfo> StreamRuntime::Fragments() const {
  std::lock_guard lock(mu_);
  std::vector<FragmentInfo> out;
  for (const auto& [job, fs] : fragments_) out.insert(out.end(), fs.begin(), fs.end());
  return out;
}

void StreamRuntime::ForgetJob(uint32_t job_id) {
  std::lock_guard lock(mu_);
  jobs_.erase(job_id);
  fragments_.erase(job_id);
  rate_limits_.erase(job_id);
  cv_.notify_all();
}

void StreamRuntime::SetRelationOutputs(TableId relation, std::vector<OutputActor> actors) {
  std::lock_guard lock(mu_);
  relation_outputs_[relation] = std::move(actors);
}

std::vector<StreamRuntime::OutputActor> StreamRuntime::RelationOutputs(TableId relation) const {
  std::lock_guard lock(mu_);
  auto it = relation_outputs_.find(relation);
  if (it == relation_outputs_.end()) return {};
  return it->second;
}

void StreamRuntime::ForgetRelation(TableId relation) {
  std::lock_guard lock(mu_);
  relation_outputs_.erase(relation);
}

}  // namespace freshet
