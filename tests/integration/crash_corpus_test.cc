// Runs the crash corpus (tests/corpus/gen_corpus.py) against one server:
// each line of the corpus is one simple-query string, sent in order on one
// connection; it must get results or an ErrorResponse within a bounded
// time. Every --check-every statements (and at the end) a new connection
// must answer SELECT 1. A statement after which the server no longer
// answers is a crash: it is printed and the program exits with code 3 and
// the line to resume from, so that crash_corpus_test.sh can restart the
// server and go on.
//
// Usage: crash_corpus_test HOST PORT CORPUS [--start LINE] [--timeout-ms MS]
//                          [--check-every N] [--summary FILE] [--trace FILE]
//
// Outcomes per statement: ok (results), error (an ErrorResponse with its
// SQLSTATE; XX000 internal errors are allowed but listed), hang (no answer
// within the timeout and none within 10 s of a cancel request), lost (the
// connection broke but the server still answers), crash. Hangs, lost
// connections, crashes and failed health checks are failures.
//
// COPY ... FROM STDIN gets the data written after "-- data: " in its line
// (|NL| for a line end), else a few lines of data (valid and not);
// COPY ... TO STDOUT is read to the end. After a statement that leaves the
// session in a failed transaction block, ROLLBACK is sent.
#include <libpq-fe.h>
#include <poll.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::string g_host, g_port;
int g_timeout_ms = 5000;
FILE* g_trace = nullptr;  // --trace FILE: each statement's outcome

PGconn* Connect() {
  std::string conninfo = "host=" + g_host + " port=" + g_port + " user=root dbname=dev connect_timeout=10";
  PGconn* c = PQconnectdb(conninfo.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    PQfinish(c);
    return nullptr;
  }
  PQsetnonblocking(c, 0);
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  return c;
}

// Whether a new connection answers SELECT 1 within ~10 s.
bool Healthy() {
  for (int attempt = 0; attempt < 5; attempt++) {
    PGconn* c = Connect();
    if (c) {
      PGresult* r = PQexec(c, "SELECT 1");
      bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && std::string(PQgetvalue(r, 0, 0)) == "1";
      PQclear(r);
      PQfinish(c);
      if (ok) return true;
    }
    struct timespec ts = {0, 400 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  return false;
}

enum class Outcome { kOk, kError, kHang, kLost };

struct Result {
  Outcome outcome = Outcome::kOk;
  std::string sqlstate;  // of the first error
  std::string message;
};

// Waits until the connection has input or the deadline passes.
bool WaitReadable(PGconn* c, Clock::time_point deadline) {
  int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
  if (ms <= 0) return false;
  struct pollfd p = {PQsocket(c), POLLIN, 0};
  return poll(&p, 1, ms) > 0;
}

const char kCopyData[] = "1\tabc\n\\N\t\\N\nx\ty\n2147483648\t\\x\n3,\"q\"\"\",z\n\\.\n";

// Sends one query string and reads everything it produces.
Result Run(PGconn* c, const std::string& sql) {
  Result res;
  if (!PQsendQuery(c, sql.c_str())) {
    res.outcome = Outcome::kLost;
    res.message = PQerrorMessage(c);
    return res;
  }
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(g_timeout_ms);
  bool cancelled = false;
  while (true) {
    // Drain whatever is ready.
    while (!PQisBusy(c)) {
      PGresult* r = PQgetResult(c);
      if (!r) return res;  // the query string is done
      ExecStatusType st = PQresultStatus(r);
      if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (res.outcome == Outcome::kOk) {
          res.outcome = Outcome::kError;
          res.sqlstate = state ? state : "";
          const char* m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
          res.message = m ? m : PQerrorMessage(c);
        }
      } else if (st == PGRES_COPY_IN) {
        // The data after "-- data: " in the statement (|NL| for a line
        // end), else a few lines of everything.
        std::string data = kCopyData;
        size_t mark = sql.find("-- data: ");
        if (mark != std::string::npos) {
          data = sql.substr(mark + 9);
          for (size_t p; (p = data.find("|NL|")) != std::string::npos;) data.replace(p, 4, "\n");
        }
        PQputCopyData(c, data.data(), static_cast<int>(data.size()));
        PQputCopyEnd(c, nullptr);
      } else if (st == PGRES_COPY_OUT) {
        char* buf = nullptr;
        int n;
        while ((n = PQgetCopyData(c, &buf, 1)) != -1) {
          if (buf) PQfreemem(buf), buf = nullptr;
          if (n == -2) break;
          if (n == 0) {
            if (!WaitReadable(c, deadline + std::chrono::seconds(cancelled ? 0 : 10))) break;
            if (!PQconsumeInput(c)) break;
          }
        }
      }
      PQclear(r);
      if (PQstatus(c) != CONNECTION_OK) {
        res.outcome = Outcome::kLost;
        res.message = PQerrorMessage(c);
        return res;
      }
    }
    if (!WaitReadable(c, deadline)) {
      if (Clock::now() >= deadline) {
        if (cancelled) {
          res.outcome = Outcome::kHang;
          return res;
        }
        // Ask the server to cancel, then allow it 10 more seconds.
        PGcancel* cancel = PQgetCancel(c);
        char err[256];
        if (cancel) PQcancel(cancel, err, sizeof(err)), PQfreeCancel(cancel);
        cancelled = true;
        deadline = Clock::now() + std::chrono::seconds(10);
      }
      continue;
    }
    if (!PQconsumeInput(c)) {
      res.outcome = Outcome::kLost;
      res.message = PQerrorMessage(c);
      return res;
    }
  }
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (size_t p; (p = s.find('\n')) != std::string::npos;) s.replace(p, 1, " / ");
  return s;
}

std::string Shorten(const std::string& s, size_t n = 300) {
  if (s.size() <= n) return s;
  return s.substr(0, n) + "... (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s HOST PORT CORPUS [--start LINE] [--timeout-ms MS] [--check-every N] [--summary FILE]\n",
                 argv[0]);
    return 2;
  }
  g_host = argv[1];
  g_port = argv[2];
  const char* corpus = argv[3];
  size_t start = 1;
  int check_every = 250;
  std::string summary_file;
  for (int i = 4; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--start") start = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--timeout-ms") g_timeout_ms = std::atoi(argv[i + 1]);
    else if (a == "--check-every") check_every = std::atoi(argv[i + 1]);
    else if (a == "--summary") summary_file = argv[i + 1];
    else if (a == "--trace") g_trace = std::fopen(argv[i + 1], "a");
  }
  std::ifstream in(corpus);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", corpus);
    return 2;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  PGconn* c = Connect();
  if (!c) {
    std::printf("FAIL: cannot connect to %s:%s\n", g_host.c_str(), g_port.c_str());
    return 3;
  }
  size_t run = 0, ok = 0, errors = 0, failures = 0;
  std::map<std::string, size_t> by_state;
  std::vector<std::string> internal;  // XX000: line, statement, message
  auto fail = [&](const std::string& what) {
    failures++;
    std::printf("FAIL: %s\n", what.c_str());
    std::fflush(stdout);
  };
  auto crash = [&](size_t line, const std::string& sql, const std::string& why) {
    std::printf("CRASH: the server stopped answering after line %zu (%s):\n  %s\n", line, why.c_str(),
                Shorten(sql, 2000).c_str());
    std::printf("RESUME %zu\n", line + 1);
    std::fflush(stdout);
  };
  // Written at the end and before a crash exit, so the script can add them up.
  auto write_summary = [&] {
    if (summary_file.empty()) return;
    FILE* f = std::fopen(summary_file.c_str(), "a");
    if (!f) return;
    std::fprintf(f, "run %zu ok %zu errors %zu failures %zu\n", run, ok, errors, failures);
    for (const auto& [state, n] : by_state) std::fprintf(f, "state %s %zu\n", state.c_str(), n);
    for (const auto& x : internal) std::fprintf(f, "xx000 %s\n", x.c_str());
    std::fclose(f);
  };
  for (size_t ln = start; ln <= lines.size(); ln++) {
    const std::string& sql = lines[ln - 1];
    if (sql.rfind("-- Generated", 0) == 0 || sql.rfind("-- #", 0) == 0) continue;
    run++;
    Clock::time_point began = Clock::now();
    Result r = Run(c, sql);
    double secs = std::chrono::duration<double>(Clock::now() - began).count();
    if (g_trace) {
      std::fprintf(g_trace, "%zu\t%s\t%s\t%s\n", ln,
                   r.outcome == Outcome::kOk ? "ok" : r.outcome == Outcome::kError ? r.sqlstate.c_str() : "FAIL",
                   Shorten(sql, 150).c_str(), r.message.substr(0, 150).c_str());
      std::fflush(g_trace);
    }
    if (secs >= 1.0) {
      std::printf("  slow: line %zu took %.1f s%s: %s\n", ln, secs, r.sqlstate == "57014" ? " (cancelled)" : "",
                  Shorten(sql, 120).c_str());
      std::fflush(stdout);
    }
    switch (r.outcome) {
      case Outcome::kOk: ok++; break;
      case Outcome::kError:
        errors++;
        by_state[r.sqlstate]++;
        if (r.sqlstate == "XX000" || r.sqlstate.empty())
          internal.push_back("line " + std::to_string(ln) + ": " + Shorten(sql, 200) + " -- " + r.message);
        break;
      case Outcome::kHang:
      case Outcome::kLost: {
        bool hang = r.outcome == Outcome::kHang;
        PQfinish(c);
        c = nullptr;
        if (!Healthy()) {
          crash(ln, sql, hang ? "no answer, then the server was gone" : Trimmed(r.message));
          failures++;
          write_summary();
          return 3;
        }
        fail(std::string(hang ? "no answer within the timeout and none after a cancel request"
                              : "the connection broke (the server still answers): " + Trimmed(r.message)) +
             " at line " + std::to_string(ln) + ":\n  " + Shorten(sql));
        c = Connect();
        if (!c) {
          crash(ln, sql, "no new connection");
          write_summary();
          return 3;
        }
        continue;
      }
    }
    if (PQtransactionStatus(c) == PQTRANS_INERROR) PQclear(PQexec(c, "ROLLBACK"));
    if (PQstatus(c) != CONNECTION_OK) {
      PQfinish(c);
      c = nullptr;
      if (!Healthy()) {
        crash(ln, sql, "the connection is gone");
        failures++;
        write_summary();
        return 3;
      }
      c = Connect();
    }
    if (check_every > 0 && run % check_every == 0) {
      if (!Healthy()) {
        crash(ln, sql, "SELECT 1 on a new connection failed");
        failures++;
        write_summary();
        return 3;
      }
      std::printf("  %zu statements (line %zu), the server answers SELECT 1\n", run, ln);
      std::fflush(stdout);
    }
  }
  PQfinish(c);
  if (!Healthy()) {
    crash(lines.size(), "(end of corpus)", "SELECT 1 on a new connection failed");
    failures++;
    write_summary();
    return 3;
  }
  write_summary();
  std::printf("%zu statements: %zu with results, %zu errors, %zu failures\n", run, ok, errors, failures);
  return failures == 0 ? 0 : 1;
}
