// 100 concurrent connections inserting into and reading from one table.
// Built and run by concurrency_test.sh:  concurrency_test HOST PORT
//
// Each of 100 threads holds its own connection; once all are connected they
// start together, each inserting 100 rows with distinct ids into a shared
// table with a primary key (single-row simple queries, parameterised inserts
// and a multi-row insert), reading its own rows back as it goes (every read
// must see all of its own earlier writes), and finally reading all its 100
// rows back. Then the total must be 10,000 rows and a duplicate key insert
// must fail with SQLSTATE 23505.
// Prints "N passed, M failed" last and exits 1 when anything failed.
#include <libpq-fe.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 100;
constexpr int kRowsPerThread = 100;

int passed = 0, failed = 0;

void Check(bool ok, const std::string& what, const std::string& detail = "") {
  if (ok) {
    passed++;
    std::printf("  ok: %s\n", what.c_str());
  } else {
    failed++;
    std::printf("  FAILED: %s%s%s\n", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  }
  std::fflush(stdout);
}

std::string conninfo;

PGconn* Connect() {
  PGconn* c = PQconnectdb(conninfo.c_str());
  return c;
}

// Errors seen by the workers, kept to show the first few.
std::mutex errors_mu;
std::vector<std::string> errors;
std::atomic<int> error_count{0};
void Error(int thread, const std::string& what) {
  error_count++;
  std::lock_guard lock(errors_mu);
  if (errors.size() < 10) errors.push_back("thread " + std::to_string(thread) + ": " + what);
}

std::string Trim(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

struct Stats {
  std::atomic<int> connected{0};
  std::atomic<int> inserts_ok{0};
  std::atomic<int> interim_reads_ok{0};
  std::atomic<int> interim_reads{0};
  std::atomic<int> readback_ok{0};
} stats;

std::string Payload(int id) { return "row-" + std::to_string(id) + "-'quoted'"; }

void Worker(int t, std::barrier<>* start) {
  PGconn* c = Connect();
  bool ok = PQstatus(c) == CONNECTION_OK;
  if (!ok) Error(t, "connect: " + Trim(PQerrorMessage(c)));
  else stats.connected++;
  start->arrive_and_wait();
  if (!ok) {
    PQfinish(c);
    return;
  }
  const int base = t * kRowsPerThread;
  int inserted = 0;
  auto count_own = [&]() -> long {
    std::string sql = "SELECT count(*) FROM ct WHERE thread = " + std::to_string(t);
    PGresult* r = PQexec(c, sql.c_str());
    long n = -1;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) n = std::atol(PQgetvalue(r, 0, 0));
    else Error(t, "count: " + Trim(PQresultErrorMessage(r)));
    PQclear(r);
    return n;
  };
  auto exec_cmd = [&](PGresult* r, int rows, const std::string& what) {
    if (PQresultStatus(r) == PGRES_COMMAND_OK && std::string(PQcmdTuples(r)) == std::to_string(rows)) {
      stats.inserts_ok += rows;
      inserted += rows;
    } else {
      Error(t, what + ": " + PQresStatus(PQresultStatus(r)) + " " + Trim(PQresultErrorMessage(r)) +
                   " tag=" + (PQcmdStatus(r) ? PQcmdStatus(r) : ""));
    }
    PQclear(r);
  };
  int i = 0;
  while (i < kRowsPerThread) {
    int id = base + i;
    int kind = (t + i) % 3;
    if (kind == 0 || i + 5 > kRowsPerThread) {
      // Simple query, one row. The payload has a quote to escape.
      std::string p = Payload(id);
      std::string esc;
      for (char ch : p) {
        esc.push_back(ch);
        if (ch == '\'') esc.push_back('\'');
      }
      std::string sql = "INSERT INTO ct VALUES (" + std::to_string(id) + ", " + std::to_string(t) + ", '" + esc + "')";
      exec_cmd(PQexec(c, sql.c_str()), 1, "insert id " + std::to_string(id));
      i += 1;
    } else if (kind == 1) {
      // Extended protocol, parameters in text format.
      std::string sid = std::to_string(id), st = std::to_string(t), p = Payload(id);
      const char* values[3] = {sid.c_str(), st.c_str(), p.c_str()};
      exec_cmd(PQexecParams(c, "INSERT INTO ct (id, thread, payload) VALUES ($1, $2, $3)", 3, nullptr, values,
                            nullptr, nullptr, 0),
               1, "parameterised insert id " + std::to_string(id));
      i += 1;
    } else {
      // Five rows in one statement.
      std::string sql = "INSERT INTO ct VALUES ";
      for (int k = 0; k < 5; k++) {
        std::string p = Payload(id + k), esc;
        for (char ch : p) {
          esc.push_back(ch);
          if (ch == '\'') esc.push_back('\'');
        }
        sql += (k ? ", (" : "(") + std::to_string(id + k) + ", " + std::to_string(t) + ", '" + esc + "')";
      }
      exec_cmd(PQexec(c, sql.c_str()), 5, "5-row insert from id " + std::to_string(id));
      i += 5;
    }
    // Read your writes, every few statements.
    if (i % 10 < (kind == 2 ? 5 : 1)) {
      stats.interim_reads++;
      long n = count_own();
      if (n == inserted) stats.interim_reads_ok++;
      else Error(t, "read-your-writes: after " + std::to_string(inserted) + " acknowledged inserts the session sees " +
                        std::to_string(n) + " of its rows");
    }
  }
  // Read every own row back, with its payload.
  std::string sql = "SELECT id, payload FROM ct WHERE thread = " + std::to_string(t) + " ORDER BY id";
  PGresult* r = PQexec(c, sql.c_str());
  bool good = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == kRowsPerThread;
  if (!good) {
    Error(t, "read back: " + std::string(PQresStatus(PQresultStatus(r))) + " " + Trim(PQresultErrorMessage(r)) +
                 " rows=" + std::to_string(PQntuples(r)));
  } else {
    for (int k = 0; k < kRowsPerThread && good; k++) {
      int id = base + k;
      if (std::atoi(PQgetvalue(r, k, 0)) != id || Payload(id) != PQgetvalue(r, k, 1)) {
        Error(t, "read back row " + std::to_string(k) + ": got (" + PQgetvalue(r, k, 0) + ", " + PQgetvalue(r, k, 1) +
                     "), expected (" + std::to_string(id) + ", " + Payload(id) + ")");
        good = false;
      }
    }
  }
  if (good) stats.readback_ok++;
  PQclear(r);
  PQfinish(c);
}

std::string One(PGconn* c, const char* sql, std::string* err = nullptr) {
  PGresult* r = PQexec(c, sql);
  std::string out;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
    for (int k = 0; k < PQnfields(r); k++) out += (k ? "|" : "") + std::string(PQgetvalue(r, 0, k));
  } else if (err) {
    *err = Trim(PQresultErrorMessage(r));
  }
  PQclear(r);
  return out;
}

// Runs sql, expecting an error with the given SQLSTATE.
void ExpectSqlState(PGconn* c, const char* sql, const char* state, const std::string& what) {
  PGresult* r = PQexec(c, sql);
  const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  std::string got = s ? s : "(none)";
  Check(PQresultStatus(r) == PGRES_FATAL_ERROR && got == state, what,
        std::string("status ") + PQresStatus(PQresultStatus(r)) + ", SQLSTATE " + got + ", message: " +
            Trim(PQresultErrorMessage(r)));
  PQclear(r);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s HOST PORT\n", argv[0]);
    return 2;
  }
  conninfo = std::string("host=") + argv[1] + " port=" + argv[2] + " user=root dbname=dev connect_timeout=20";

  PGconn* admin = Connect();
  if (PQstatus(admin) != CONNECTION_OK) {
    Check(false, "connect", Trim(PQerrorMessage(admin)));
    std::printf("\n%d passed, %d failed\n", passed, failed);
    return 1;
  }
  PQclear(PQexec(admin, "DROP TABLE IF EXISTS ct"));
  PGresult* r = PQexec(admin, "CREATE TABLE ct (id INT PRIMARY KEY, thread INT, payload VARCHAR)");
  Check(PQresultStatus(r) == PGRES_COMMAND_OK, "create table ct", Trim(PQresultErrorMessage(r)));
  PQclear(r);

  auto t0 = std::chrono::steady_clock::now();
  std::barrier<> start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) threads.emplace_back(Worker, t, &start);
  for (auto& th : threads) th.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  (%d threads x %d rows took %.2f s)\n", kThreads, kRowsPerThread, secs);

  Check(stats.connected == kThreads, std::to_string(kThreads) + " concurrent connections established",
        std::to_string(stats.connected.load()) + " connected");
  Check(stats.inserts_ok == kThreads * kRowsPerThread, "every insert acknowledged",
        std::to_string(stats.inserts_ok.load()) + " of " + std::to_string(kThreads * kRowsPerThread));
  Check(stats.interim_reads_ok == stats.interim_reads && stats.interim_reads > 0,
        "read-your-writes in every interim read (" + std::to_string(stats.interim_reads.load()) + " reads)",
        std::to_string(stats.interim_reads.load() - stats.interim_reads_ok.load()) + " reads missed own writes");
  Check(stats.readback_ok == kThreads, "every thread read back exactly its 100 rows",
        std::to_string(stats.readback_ok.load()) + " of " + std::to_string(kThreads) + " did");
  if (error_count > 0) {
    std::printf("  %d worker errors; the first ones:\n", error_count.load());
    for (const auto& e : errors) std::printf("    %s\n", e.c_str());
  }

  // The total, after FLUSH, from the admin session and from a new one.
  r = PQexec(admin, "FLUSH");
  Check(PQresultStatus(r) == PGRES_COMMAND_OK, "FLUSH", Trim(PQresultErrorMessage(r)));
  PQclear(r);
  const std::string want = "10000|10000|49995000|100";
  std::string err;
  std::string got = One(admin, "SELECT count(*), count(DISTINCT id), sum(id), count(DISTINCT thread) FROM ct", &err);
  Check(got == want, "final count 10000 (count|distinct ids|sum(id)|threads = " + want + ")",
        "got '" + got + "' " + err);
  PGconn* fresh = Connect();
  got = One(fresh, "SELECT count(*), count(DISTINCT id), sum(id), count(DISTINCT thread) FROM ct", &err);
  Check(got == want, "final count seen by a new connection", "got '" + got + "' " + err);

  // Duplicate keys.
  ExpectSqlState(admin, "INSERT INTO ct VALUES (4242, 0, 'dup')", "23505",
                 "duplicate primary key (inserted by another session) gives 23505");
  r = PQexec(fresh, "INSERT INTO ct VALUES (10000, 0, 'new')");
  Check(PQresultStatus(r) == PGRES_COMMAND_OK, "insert a new key", Trim(PQresultErrorMessage(r)));
  PQclear(r);
  ExpectSqlState(fresh, "INSERT INTO ct VALUES (10000, 0, 'again')", "23505",
                 "duplicate of a key the same session just inserted (not flushed) gives 23505");
  ExpectSqlState(fresh, "INSERT INTO ct VALUES (10001, 0, 'a'), (10001, 0, 'b')", "23505",
                 "duplicate key within one statement gives 23505");
  got = One(fresh, "SELECT count(*) FROM ct WHERE id >= 10000", &err);
  Check(got == "1", "failed inserts left nothing behind", "rows with id >= 10000: '" + got + "' " + err);
  got = One(admin, "SELECT payload FROM ct WHERE id = 4242", &err);
  Check(got == Payload(4242), "the original row of a duplicate key is unchanged", "got '" + got + "' " + err);

  PQfinish(fresh);
  PQfinish(admin);
  std::printf("\n%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
