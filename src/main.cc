// freshet: the server binary.
//
//   freshet [--data-dir DIR] [--port N] [--http-port N] [--config FILE]
//   freshet playground          (in memory, nothing is written to disk)
//
// Exit codes: 0 clean shutdown (SIGTERM/SIGINT), 1 usage error, 2 the data
// directory cannot be used (in use, foreign, corrupt), 3 cannot listen, 4 shut
// down with connections whose statements did not end within a minute.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <csignal>
#include <iostream>
#include <thread>

#include "server/config.h"
#include "frontend/instance.h"
#include "server/pgwire.h"

using namespace freshet;

// jemalloc (linked into this binary only) reads its options from this
// symbol; MALLOC_CONF in the environment still overrides them. The server
// allocates and frees hundreds of megabytes per epoch (write logs, chunks,
// RocksDB blocks). glibc's malloc hands large blocks back to the kernel
// and takes fresh, zero-filled 4 KiB pages again, which on virtual machines
// costs 1-4 s per GiB. jemalloc keeps freed pages for reuse for a few
// seconds. Measured (docs/benchmarks.md, session 7): a four-level pipeline
// of views over 10M rows took 520k page faults and 18 CPU-s; with jemalloc,
// 14k and 15 CPU-s. Transparent huge pages were on too until session 38:
// while memory grows (RocksDB's block cache filling, a view's state), each
// fault zeroes 2 MiB, 45% of the samples of a TPC-H refresh batch at SF 1;
// without them that batch took 225 instead of 350 ms and bulk loads under
// views as long or less (docs/benchmarks.md, session 38).
extern "C" {
const char* malloc_conf = "thp:never,metadata_thp:disabled";
}

int main(int argc, char** argv) {
  CLI::App app{"Freshet: a streaming database that speaks PostgreSQL"};
  app.set_version_flag("--version", std::string("freshet ") + "0.1.0");
  ServerOptions options;
  std::string config_file, data_dir, listen;
  int port = -1, http_port = -1;
  app.add_option("--data-dir", data_dir, "data directory (default ./freshet-data)");
  app.add_option("--port", port, "PostgreSQL protocol port (default 4566)")->check(CLI::Range(0, 65535));
  app.add_option("--http-port", http_port, "HTTP port for metrics and dashboard (default 5691)")->check(CLI::Range(0, 65535));
  app.add_option("--listen-address", listen, "address to listen on (default 0.0.0.0)");
  app.add_option("--config", config_file, "TOML configuration file (see config/freshet.example.toml)")->check(CLI::ExistingFile);
  CLI::App* playground = app.add_subcommand("playground", "run in memory: nothing is persisted");
  playground->fallthrough();  // freshet playground --port N
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!config_file.empty()) {
    Status s = LoadConfigFile(config_file, &options);
    if (!s.ok()) {
      std::cerr << "freshet: " << s.message() << "\n";
      return 1;
    }
  }
  if (!data_dir.empty()) options.data_dir = data_dir;
  if (port >= 0) options.port = port;
  if (http_port >= 0) options.http_port = http_port;
  if (!listen.empty()) options.listen_address = listen;
  options.in_memory = playground->parsed();

  // Signals are taken by one thread with sigwait, so shutdown runs normal code.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto opened = Instance::Open(options);
  if (!opened.ok()) {
    std::cerr << "freshet: " << opened.status().message() << "\n";
    return 2;
  }
  std::unique_ptr<Instance> instance = std::move(opened).value();
  PgWireServer server(instance.get());
  Status s = server.Listen(options.listen_address, options.port);
  if (!s.ok()) {
    std::cerr << "freshet: " << s.message() << "\n";
    return 3;
  }
  bool connections_ended = true;
  std::thread signal_thread([&] {
    int sig;
    sigwait(&signals, &sig);
    spdlog::info("received signal {}, shutting down", sig);
    connections_ended = server.Stop();
  });
  spdlog::info("freshet {} listening on {}:{} ({})", "0.1.0", options.listen_address, server.port(),
               options.in_memory ? "playground, in memory" : "data in " + options.data_dir);
  std::cout << "Connect with: psql -h localhost -p " << server.port() << " -d dev -U root" << std::endl;
  server.Serve();
  // Stop() has returned only once the connections' threads are gone (or
  // given up on): none may still use the store when it closes.
  signal_thread.join();
  instance->Shutdown();  // commits what the barrier loops hold
  if (!connections_ended) {
    // Closing the store under a running statement would crash it; what
    // was committed is on disk either way.
    spdlog::error("connections did not end within a minute of the shutdown; exiting without closing the store");
    (void)instance.release();
    return 4;
  }
  instance.reset();
  spdlog::info("shut down cleanly");
  return 0;
}
