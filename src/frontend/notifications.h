// NotificationHub: LISTEN / NOTIFY between the sessions of one instance,
// as PostgreSQL's async notifications.
//
// A session that LISTENs has a Listener: the channels it listens to, a
// queue of notifications delivered to it and an eventfd that is written
// whenever the queue grows, so that a connection waiting for its client
// wakes up and sends them (NotificationResponse) while idle. Publish puts
// a committed transaction's notifications, in the order they were made,
// on the queue of every listener in the same database that listens to
// their channel, the publishing session's own included. What a session
// does with its queue (only between transactions, as PostgreSQL) is the
// session's and the wire's concern; transactional semantics (NOTIFY and
// LISTEN take effect at commit) are the session's.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace freshet {

struct Notification {
  int32_t sender_pid = 0;
  std::string channel;
  std::string payload;
};

class NotificationHub {
 public:
  class Listener {
   public:
    ~Listener();
    // Readable while notifications wait in the queue (an eventfd; -1 if
    // one could not be made: then they wait for the next statement's end).
    int wake_fd() const { return wake_fd_; }
    // Takes what is queued, oldest first, and resets the eventfd.
    std::vector<Notification> Take();
    // The channels listened to (pg_listening_channels), in name order.
    std::vector<std::string> Channels() const;

   private:
    friend class NotificationHub;
    Listener(ObjectId database, int wake_fd) : database_(database), wake_fd_(wake_fd) {}
    const ObjectId database_;
    const int wake_fd_;
    mutable std::mutex mu_;
    std::set<std::string> channels_;
    std::deque<Notification> queue_;
  };

  // A listener for a session of `database`: it receives notifications
  // until it is destroyed (the hub keeps only a weak reference).
  std::shared_ptr<Listener> Register(ObjectId database);
  void Listen(Listener* listener, const std::string& channel);
  // An empty channel: every one (UNLISTEN *).
  void Unlisten(Listener* listener, const std::string& channel);
  void Publish(ObjectId database, const std::vector<Notification>& notifications);

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<Listener>> listeners_;
};

}  // namespace freshet
