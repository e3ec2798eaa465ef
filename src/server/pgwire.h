// PostgreSQL wire protocol v3 server.
//
// One thread per connection (with a large stack, since binding and
// executing deeply nested expressions recurse). The listener accepts on the
// configured address; each connection goes through startup (SSLRequest is
// answered 'N', CancelRequest is handled and closed, trust authentication),
// then serves the simple and extended query protocols and COPY. A malformed
// message closes that connection with an ErrorResponse and nothing else.
//
// Limits, as PostgreSQL's:
// - Messages: Query, Parse, Bind, CopyData and FunctionCall may be up to
//   PQ_LARGE_MESSAGE_LIMIT (1 GB - 2 bytes with their length word), every
//   other type 10,000 bytes, the startup packet 10,000 bytes. A body is
//   read as it arrives, so a length that lies costs no memory.
// - Startup: a connection that has not sent its startup packet within
//   authentication_timeout is closed.
// - Sessions: max_connections at once, of which the last
//   superuser_reserved_connections only for superusers (53300 "sorry, too
//   many clients already" / "remaining connection slots are reserved for
//   non-replication superuser connections"). Connection threads, including
//   those still in startup, are bounded by twice max_connections (as
//   PostgreSQL's MaxLivePostmasterChildren); beyond that a connection is
//   refused at once.
// - Accept errors (no descriptors left: EMFILE, ENFILE): logged once, then
//   accept is retried every 100 ms, as PostgreSQL does; open connections
//   are served meanwhile.
// - Memory: an idle connection holds its session, a small input buffer and
//   its thread; buffers grown for a COPY or a large result are given back
//   when the connection goes idle.
#pragma once

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "frontend/instance.h"

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

  // A session slot for a user who is (or is not) a superuser; throws
  // SqlError 53300 with PostgreSQL's messages when none is left.
  void AcquireSessionSlot(bool superuser);
  void ReleaseSessionSlot();
  int sessions() const { return sessions_.load(); }

 private:
  void HandleConnection(int fd);
  // Answers a connection that cannot be served with a FATAL ErrorResponse
  // (best effort, without blocking) and closes it.
  static void Refuse(int fd, const char* code, const std::string& message);

  Instance* instance_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::set<int> connections_;
  std::atomic<int> active_threads_{0};
  std::mutex slots_mu_;
  std::atomic<int> sessions_{0};
};

}  // namespace freshet
