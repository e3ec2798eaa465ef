#include "frontend/notifications.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

namespace freshet {

NotificationHub::Listener::~Listener() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

std::vector<Notification> NotificationHub::Listener::Take() {
  std::lock_guard lock(mu_);
  if (wake_fd_ >= 0) {
    uint64_t count = 0;
    [[maybe_unused]] ssize_t r = ::read(wake_fd_, &count, sizeof(count));  // EAGAIN when already reset
  }
  std::vector<Notification> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

std::vector<std::string> NotificationHub::Listener::Channels() const {
  std::lock_guard lock(mu_);
  return {channels_.begin(), channels_.end()};
}

std::shared_ptr<NotificationHub::Listener> NotificationHub::Register(ObjectId database) {
  std::shared_ptr<Listener> listener(new Listener(database, ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)));
  std::lock_guard lock(mu_);
  std::erase_if(listeners_, [](const std::weak_ptr<Listener>& l) { return l.expired(); });
  listeners_.push_back(listener);
  return listener;
}

void NotificationHub::Listen(Listener* listener, const std::string& channel) {
  std::lock_guard lock(listener->mu_);
  listener->channels_.insert(channel);
}

void NotificationHub::Unlisten(Listener* listener, const std::string& channel) {
  std::lock_guard lock(listener->mu_);
  if (channel.empty()) listener->channels_.clear();
  else listener->channels_.erase(channel);
}

void NotificationHub::Publish(ObjectId database, const std::vector<Notification>& notifications) {
  if (notifications.empty()) return;
  std::vector<std::shared_ptr<Listener>> listeners;
  {
    std::lock_guard lock(mu_);
    for (const auto& weak : listeners_)
      if (auto l = weak.lock(); l && l->database_ == database) listeners.push_back(std::move(l));
  }
  for (const auto& l : listeners) {
    std::lock_guard lock(l->mu_);
    bool queued = false;
    for (const Notification& n : notifications) {
      if (!l->channels_.count(n.channel)) continue;
      l->queue_.push_back(n);
      queued = true;
    }
    if (queued && l->wake_fd_ >= 0) {
      uint64_t one = 1;
      [[maybe_unused]] ssize_t r = ::write(l->wake_fd_, &one, sizeof(one));
    }
  }
}

}  // namespace freshet
