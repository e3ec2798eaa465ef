// PostgreSQL wire protocol v3 server.
//
// One thread per connection (with a large stack, since binding and
// executing deeply nested expressions recurse). The listener accepts on the
// configured address; each connection goes through startup (SSLRequest is
// answered 'N', CancelRequest is handled and closed, trust authentication),
// then serves the simple and extended query protocols and COPY. A malformed
// message closes that connection with an ErrorResponse and nothing else.
#pragma once

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "server/instance.h"

namespace freshet {

class PgWireServer {
 public:
  explicit PgWireServer(Instance* instance) : instance_(instance) {}
  ~PgWireServer();

  // Binds and listens; returns an error status when the port is taken.
  Status Listen(const std::string& address, int port);
  int port() const { return port_; }
  // Accepts connections until Stop() is called.
  void Serve();
  // Stops accepting, closes open connections, cancels their running
  // statements and waits for their threads (up to a minute). Returns
  // whether they all ended: the instance must outlive any that did not.
  bool Stop();

 private:
  void HandleConnection(int fd);

  Instance* instance_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::set<int> connections_;
  std::atomic<int> active_threads_{0};
};

}  // namespace freshet
