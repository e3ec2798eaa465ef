#include "common/procedures.h"

#include <algorithm>
#include <chrono>

#include "common/uuid.h"

namespace freshet {

namespace {

int64_t WallMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

const char* ProcedureStateName(ProcedureInfo::State state) {
  switch (state) {
    case ProcedureInfo::State::kRunning: return "Running";
    case ProcedureInfo::State::kDone: return "Done";
    case ProcedureInfo::State::kFailed: return "Failed";
  }
  return "Unknown";
}

std::string Procedures::Start(std::string type, std::string lock_keys, Poll poll) {
  std::string id = RandomUuid();
  std::lock_guard lock(mu_);
  Entry e;
  e.info.id = id;
  e.info.type = std::move(type);
  e.info.lock_keys = std::move(lock_keys);
  e.info.start_micros = WallMicros();
  e.poll = std::move(poll);
  entries_.emplace(id, std::move(e));
  order_.push_back(id);
  return id;
}

void Procedures::FinishLocked(Entry& e, const Outcome& outcome) {
  if (e.info.state != ProcedureInfo::State::kRunning) return;
  e.info.state = outcome.ok ? ProcedureInfo::State::kDone : ProcedureInfo::State::kFailed;
  e.info.error = outcome.ok ? std::string() : outcome.error;
  e.info.end_micros = WallMicros();
  e.poll = nullptr;
  // Keep the latest kKeptFinished finished ones: drop the oldest finished.
  if (++finished_ <= kKeptFinished) return;
  for (auto it = order_.begin(); it != order_.end(); ++it) {
    auto found = entries_.find(*it);
    if (found == entries_.end() || found->second.info.state == ProcedureInfo::State::kRunning) continue;
    entries_.erase(found);
    order_.erase(it);
    finished_--;
    return;
  }
}

void Procedures::Finish(const std::string& id, const Outcome& outcome) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it != entries_.end()) FinishLocked(it->second, outcome);
}

void Procedures::Forget(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.info.state != ProcedureInfo::State::kRunning) finished_--;
  entries_.erase(it);
  order_.erase(std::find(order_.begin(), order_.end(), id));
}

void Procedures::PollRunning(const std::vector<std::string>& ids) {
  std::vector<std::pair<std::string, Poll>> polls;
  {
    std::lock_guard lock(mu_);
    for (const std::string& id : ids) {
      auto it = entries_.find(id);
      if (it != entries_.end() && it->second.info.state == ProcedureInfo::State::kRunning && it->second.poll)
        polls.emplace_back(id, it->second.poll);
    }
  }
  for (auto& [id, poll] : polls) {
    std::optional<Outcome> outcome = poll();
    if (outcome) Finish(id, *outcome);
  }
}

std::optional<ProcedureInfo> Procedures::Find(const std::string& id) {
  PollRunning({id});
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second.info;
}

std::vector<ProcedureInfo> Procedures::List() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mu_);
    ids.assign(order_.begin(), order_.end());
  }
  PollRunning(ids);
  std::lock_guard lock(mu_);
  std::vector<ProcedureInfo> out;
  for (const std::string& id : order_) {
    auto it = entries_.find(id);
    if (it != entries_.end()) out.push_back(it->second.info);
  }
  return out;
}

}  // namespace freshet
