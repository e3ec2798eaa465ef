#include "stream/barrier_injector.h"

namespace freshet {

void BarrierInjector::Inject(const Barrier& barrier, std::vector<std::unique_ptr<Actor>> new_actors) {
  actors_->Start(std::move(new_actors));
  std::set<ActorId> expected = actors_->Ids();
  {
    std::lock_guard lock(mu_);
    Collection& c = collections_[barrier.prev_epoch];
    c.expected = std::move(expected);
    if (barrier.mutation) c.stopping = barrier.mutation->stop;
  }
  if (barrier.mutation) actors_->AddTableOutputs(*barrier.mutation);
  // Pushes may wait for room in an inbox: no lock held.
  actors_->DispatchTableBarriers(barrier);
  for (Actor* a : actors_->Sources()) a->inbox()->Push(0, Message::OfBarrier(barrier));
  if (barrier.mutation && !barrier.mutation->stop.empty()) actors_->RemoveOutputsTo(barrier.mutation->stop);
}

void BarrierInjector::Collect(ActorId actor, const Barrier& barrier, WriteLog&& writes) {
  std::lock_guard lock(mu_);
  Collection& c = collections_[barrier.prev_epoch];
  c.arrived.insert(actor);
  if (!writes.empty()) c.writes.push_back(std::move(writes));
  cv_.notify_all();
}

std::vector<WriteLog> BarrierInjector::WaitCollected(Epoch prev_epoch) {
  Collection c;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] {
      if (shutdown_ || failure_) return true;
      const Collection& c = collections_[prev_epoch];
      for (ActorId id : c.expected)
        if (!c.arrived.count(id) && actors_->Contains(id)) return false;
      return true;
    });
    c = std::move(collections_[prev_epoch]);
    collections_.erase(prev_epoch);
  }
  // The barrier was their last message: they end by themselves.
  for (auto& a : actors_->Remove(c.stopping)) a->Join();
  return std::move(c.writes);
}

void BarrierInjector::OnCommitted(Epoch epoch) {
  std::lock_guard lock(mu_);
  committed_epoch_ = epoch;
  cv_.notify_all();
}

Epoch BarrierInjector::committed_epoch() const {
  std::lock_guard lock(mu_);
  return committed_epoch_;
}

bool BarrierInjector::WaitCommitted(Epoch epoch, uint64_t generation) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return shutdown_ || resets_ != generation || committed_epoch_ >= epoch; });
  return !shutdown_ && resets_ == generation;
}

uint64_t BarrierInjector::generation() const {
  std::lock_guard lock(mu_);
  return resets_;
}

void BarrierInjector::ReportFailure(Failure failure) {
  std::lock_guard lock(mu_);
  if (!failure_) failure_ = std::move(failure);
  cv_.notify_all();
}

std::optional<BarrierInjector::Failure> BarrierInjector::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void BarrierInjector::StopAll(std::vector<std::unique_ptr<Actor>> actors) {
  for (auto& a : actors) a->inbox()->Close();
  actors.clear();  // joins
}

void BarrierInjector::Reset() {
  {
    std::lock_guard lock(mu_);
    resets_++;  // wakes actors waiting for a commit (WaitCommitted)
    collections_.clear();
    cv_.notify_all();
  }
  StopAll(actors_->Clear());
  std::lock_guard lock(mu_);
  failure_.reset();
  cv_.notify_all();
}

void BarrierInjector::Shutdown() {
  {
    std::lock_guard lock(mu_);
    shutdown_ = true;
    cv_.notify_all();
  }
  StopAll(actors_->Clear());
}

bool BarrierInjector::stopped() const {
  std::lock_guard lock(mu_);
  return shutdown_;
}

}  // namespace freshet
