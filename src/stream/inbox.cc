#include "stream/inbox.h"

namespace freshet {

Inbox::Inbox(size_t num_slots, size_t capacity) : slots_(num_slots), capacity_(capacity) {}

bool Inbox::Push(size_t slot, Message message) {
  std::unique_lock lock(mu_);
  not_full_.wait(lock, [&] { return closed_ || slots_[slot].queue.size() < capacity_; });
  if (closed_) return false;
  slots_[slot].queue.push_back(std::move(message));
  not_empty_.notify_one();
  return true;
}

bool Inbox::TakeLocked(Message* out, size_t* slot) {
  for (size_t i = 0; i < slots_.size(); i++) {
    size_t s = (next_ + i) % slots_.size();
    auto& q = slots_[s];
    if (q.blocked || q.queue.empty()) continue;
    *out = std::move(q.queue.front());
    q.queue.pop_front();
    *slot = s;
    next_ = s + 1;
    not_full_.notify_all();
    return true;
  }
  return false;
}

bool Inbox::Pop(Message* out, size_t* slot) {
  std::unique_lock lock(mu_);
  while (true) {
    if (closed_) return false;
    if (TakeLocked(out, slot)) return true;
    not_empty_.wait(lock);
  }
}

bool Inbox::TryPop(Message* out, size_t* slot) {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  return TakeLocked(out, slot);
}

void Inbox::Block(size_t slot) {
  std::lock_guard lock(mu_);
  slots_[slot].blocked = true;
}

void Inbox::UnblockAll() {
  std::lock_guard lock(mu_);
  for (auto& s : slots_) s.blocked = false;
}

bool Inbox::closed() {
  std::lock_guard lock(mu_);
  return closed_;
}

void Inbox::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  not_empty_.notify_all();
  not_full_.notify_all();
}

}  // namespace freshet
