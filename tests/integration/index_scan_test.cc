// Differential test of batch index scans: a query that reads an index
// made by CREATE INDEX must return exactly what the same query returns
// reading the table (enable_indexscan = off). Built and run by
// index_scan_test.sh:
//   index_scan_test HOST PORT
//
// Environment:
//   INDEX_SCAN_SEED    seed of the random workload (default 20261204)
//   INDEX_SCAN_ROUNDS  number of rounds (default 40)
//
// Tables: t (a declared key, indexes on (a), (b, c) and (d), on the
// expressions upper(b) and (a % 5, c), and partial ones on (c) WHERE d > 4
// and (a) WHERE b IS NOT NULL), u (no key, so a hidden row id; an index on
// (a)), and a materialized view m over t with an index on (b). Each round writes a random batch of INSERT,
// UPDATE and DELETE statements to t and u (UPDATE and DELETE filtered by
// indexed columns, so they find their rows through the indexes too), some
// in a block that commits or rolls back, and the same statements to twin
// tables without indexes; then FLUSH, then:
//   - t and u equal their twins (the writes found the same rows);
//   - random queries (equalities, IN lists, ranges, ORs, = ANY, parameters
//     with NULLs, joins, aggregates) give the same rows on a connection
//     with enable_indexscan = on as on one with it off;
//   - inside a block with writes of its own, queries see them whichever
//     setting (the index does not hold them: the table is read).
// Once, a block's snapshot taken before an index is created must not read
// the index (it holds no rows at that snapshot). EXPLAIN of each kind of
// condition names the index it reads, so a planner that never uses an
// index fails too. Prints "N passed, M failed" last; exits 1 on failures.
#include <libpq-fe.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int passed = 0, failed = 0;
int round_no = 0;

void Fail(const std::string& what) {
  failed++;
  if (failed <= 20) std::printf("  FAILED (round %d): %s\n", round_no, what.c_str());
}

struct Rng {
  uint64_t s;
  uint64_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  int Int(int lo, int hi) { return lo + static_cast<int>(Next() % static_cast<uint64_t>(hi - lo + 1)); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
} rng{20261204};

struct Result {
  bool ok = false;
  std::string error;
  std::vector<std::string> rows;  // each row's cells joined, sorted
};

Result Run(PGconn* conn, const std::string& sql, const std::vector<const char*>& params = {}) {
  PGresult* r = PQexecParams(conn, sql.c_str(), static_cast<int>(params.size()), nullptr, params.data(), nullptr,
                             nullptr, 0);
  Result out;
  ExecStatusType status = PQresultStatus(r);
  out.ok = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK;
  if (!out.ok) out.error = PQresultErrorMessage(r);
  for (int i = 0; out.ok && i < PQntuples(r); i++) {
    std::string row;
    for (int c = 0; c < PQnfields(r); c++)
      row += (c ? "|" : "") + (PQgetisnull(r, i, c) ? std::string("NULL") : std::string(PQgetvalue(r, i, c)));
    out.rows.push_back(std::move(row));
  }
  std::sort(out.rows.begin(), out.rows.end());
  PQclear(r);
  return out;
}

void Must(PGconn* conn, const std::string& sql) {
  Result r = Run(conn, sql);
  if (!r.ok) {
    std::printf("fatal: %s: %s\n", sql.c_str(), r.error.c_str());
    std::printf("%d passed, %d failed\n", passed, failed + 1);
    std::exit(1);
  }
}

// One check: both results succeeded with the same rows.
void Same(const std::string& what, const Result& a, const Result& b) {
  if (!a.ok || !b.ok) return Fail(what + ": " + (a.ok ? b.error : a.error));
  if (a.rows == b.rows) {
    passed++;
    return;
  }
  std::string detail = what + ": " + std::to_string(a.rows.size()) + " rows against " + std::to_string(b.rows.size());
  for (size_t i = 0; i < std::max(a.rows.size(), b.rows.size()) && i < 4; i++)
    detail += "\n      " + (i < a.rows.size() ? a.rows[i] : "-") + "   /   " + (i < b.rows.size() ? b.rows[i] : "-");
  Fail(detail);
}

std::string A() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(-3, 25)); }
std::string B() { return rng.Chance(10) ? "NULL" : "'s" + std::to_string(rng.Int(0, 12)) + "'"; }
std::string C() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(0, 6)); }
std::string D() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(0, 8)) + ".5"; }

int next_id = 1;

// A random write to t or u; `twin` names the twin table's suffix.
std::string RandomWrite() {
  switch (rng.Int(0, 8)) {
    case 0:
    case 1: {
      std::string sql = "INSERT INTO t@ VALUES ";
      int n = rng.Int(1, 5);
      for (int i = 0; i < n; i++)
        sql += (i ? ", (" : "(") + std::to_string(next_id++) + ", " + A() + ", " + B() + ", " + C() + ", " + D() + ")";
      return sql;
    }
    case 2: return "INSERT INTO u@ VALUES (" + A() + ", " + B() + "), (" + A() + ", " + B() + ")";
    case 3: return "UPDATE t@ SET c = " + C() + ", d = " + D() + " WHERE a = " + A();
    case 4: return "UPDATE t@ SET a = " + A() + " WHERE b = " + B() + " AND c >= " + C();
    case 5: return "DELETE FROM t@ WHERE d = " + D();
    case 6: return "UPDATE u@ SET b = " + B() + " WHERE a IN (" + A() + ", " + A() + ")";
    case 7:
      return rng.Chance(50) ? "UPDATE t@ SET d = " + D() + " WHERE upper(b) = upper(" + B() + ")"
                            : "DELETE FROM t@ WHERE a % 5 = " + std::to_string(rng.Int(0, 4)) + " AND c = " + C();
    default: return "DELETE FROM u@ WHERE a = " + A() + (rng.Chance(50) ? " OR a = " + A() : "");
  }
}

std::string On(std::string sql, const std::string& suffix) {
  for (size_t p; (p = sql.find('@')) != std::string::npos;) sql.replace(p, 1, suffix);
  return sql;
}

// A random query over the indexed relations, with its parameters.
struct Query {
  std::string sql;
  std::vector<std::string> params;  // "" is NULL
};

Query RandomQuery() {
  Query q;
  switch (rng.Int(0, 20)) {
    case 0: q.sql = "SELECT * FROM t WHERE a = " + A(); break;
    case 1: q.sql = "SELECT id, b FROM t WHERE a IN (" + A() + ", " + A() + ", " + A() + ")"; break;
    case 2: q.sql = "SELECT * FROM t WHERE a > " + A() + " AND a <= " + A(); break;
    case 3: q.sql = "SELECT * FROM t WHERE b = " + B() + " AND c > " + C(); break;
    case 4: q.sql = "SELECT id, c FROM t WHERE b = " + B() + " AND c = " + C() + " AND d IS NOT NULL"; break;
    case 5: q.sql = "SELECT * FROM t WHERE b IN (" + B() + ", " + B() + ") AND c < " + C(); break;
    case 6: q.sql = "SELECT * FROM t WHERE a = " + A() + " OR a = " + A(); break;
    case 7: q.sql = "SELECT * FROM t WHERE d = ANY('{" + std::to_string(rng.Int(0, 8)) + ".5, 3.5}')"; break;
    case 8:
      q.sql = "SELECT * FROM t WHERE a = $1 AND b >= $2";
      q.params = {rng.Chance(20) ? "" : std::to_string(rng.Int(-3, 25)), rng.Chance(20) ? "" : "s" + std::to_string(rng.Int(0, 12))};
      break;
    case 9: q.sql = "SELECT t.id, u.b FROM t JOIN u ON t.a = u.a WHERE u.a = " + A() + " AND t.a = " + A(); break;
    case 10: q.sql = "SELECT a, count(*), sum(c) FROM t WHERE a >= " + A() + " GROUP BY a"; break;
    case 11: q.sql = "SELECT * FROM u WHERE a = " + A() + " OR a IS NULL"; break;
    case 12: q.sql = "SELECT * FROM m WHERE b = " + B(); break;
    case 14: q.sql = "SELECT * FROM t WHERE upper(b) = upper(" + B() + ")"; break;
    case 15: q.sql = "SELECT id, a FROM t WHERE upper(b) IN ('S" + std::to_string(rng.Int(0, 12)) + "', 'S3')"; break;
    case 16:
      q.sql = "SELECT * FROM t WHERE a % 5 = " + std::to_string(rng.Int(-1, 5)) + " AND c " + (rng.Chance(50) ? "=" : "<") +
              " " + C();
      break;
    case 17: q.sql = "SELECT * FROM t WHERE c = " + C() + " AND d > 4"; break;
    case 18: q.sql = "SELECT * FROM t WHERE c = " + C() + " AND d > " + std::to_string(rng.Int(2, 6)); break;
    case 19: q.sql = "SELECT id FROM t WHERE a = " + A() + " AND b IS NOT NULL"; break;
    case 20:
      q.sql = "SELECT * FROM t WHERE upper(b) = $1";
      q.params = {rng.Chance(20) ? "" : "S" + std::to_string(rng.Int(0, 12))};
      break;
    case 13: q.sql = "SELECT * FROM t WHERE a = " + A() + " AND id > " + std::to_string(rng.Int(0, next_id)); break;
  }
  return q;
}

Result RunQuery(PGconn* conn, const Query& q) {
  std::vector<const char*> params;
  for (const auto& p : q.params) params.push_back(p.empty() ? nullptr : p.c_str());
  return Run(conn, q.sql, params);
}

std::string Explain(PGconn* conn, const std::string& sql) {
  Result r = Run(conn, "EXPLAIN " + sql);
  std::string text;
  for (const auto& row : r.rows) text += row + "\n";
  return r.ok ? text : "error: " + r.error;
}

void ExpectPlan(PGconn* conn, const std::string& sql, const std::string& wanted) {
  std::string plan = Explain(conn, sql);
  if (plan.find(wanted) != std::string::npos) passed++;
  else Fail("EXPLAIN " + sql + " does not show \"" + wanted + "\":\n" + plan);
}

void ExpectPlanWithout(PGconn* conn, const std::string& sql, const std::string& unwanted) {
  std::string plan = Explain(conn, sql);
  if (plan.find(unwanted) == std::string::npos && plan.rfind("error", 0) != 0) passed++;
  else Fail("EXPLAIN " + sql + " shows \"" + unwanted + "\":\n" + plan);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s HOST PORT\n", argv[0]);
    return 2;
  }
  if (const char* s = std::getenv("INDEX_SCAN_SEED")) rng.s = std::strtoull(s, nullptr, 10) | 1;
  int rounds = 40;
  if (const char* r = std::getenv("INDEX_SCAN_ROUNDS")) rounds = std::atoi(r);
  std::string conninfo = std::string("host=") + argv[1] + " port=" + argv[2] + " user=root dbname=dev";
  PGconn* with = PQconnectdb(conninfo.c_str());
  PGconn* without = PQconnectdb(conninfo.c_str());
  PGconn* other = PQconnectdb(conninfo.c_str());
  for (PGconn* c : {with, without, other})
    if (PQstatus(c) != CONNECTION_OK) {
      std::printf("cannot connect: %s\n0 passed, 1 failed\n", PQerrorMessage(c));
      return 1;
    }
  Must(without, "SET enable_indexscan = off");
  for (const char* suffix : {"", "_twin"}) {
    Must(with, On("CREATE TABLE t@ (id int PRIMARY KEY, a int, b varchar, c bigint, d double precision)", suffix));
    Must(with, On("CREATE TABLE u@ (a int, b text)", suffix));
  }
  Must(with, "CREATE INDEX t_a ON t (a)");
  Must(with, "CREATE INDEX t_bc ON t (b, c)");
  Must(with, "CREATE INDEX u_a ON u (a)");
  Must(with, "CREATE MATERIALIZED VIEW m AS SELECT c, b, count(*) AS n FROM t GROUP BY c, b");
  Must(with, "CREATE INDEX m_b ON m (b)");

  // Rows the index on d backfills when it is created after them.
  for (int i = 0; i < 30; i++) {
    std::string w = RandomWrite();
    Must(with, On(w, ""));
    Must(with, On(w, "_twin"));
  }
  Must(with, "CREATE INDEX t_d ON t (d)");
  Must(with, "CREATE INDEX t_ub ON t (upper(b))");
  Must(with, "CREATE INDEX t_ac ON t ((a % 5), c)");
  Must(with, "CREATE INDEX t_cp ON t (c) WHERE d > 4");
  Must(with, "CREATE INDEX t_ap ON t (a) WHERE b IS NOT NULL");

  // Every kind of condition reads its index.
  ExpectPlan(with, "SELECT * FROM t WHERE a = 1", "Scan t using t_a");
  ExpectPlan(with, "SELECT * FROM t WHERE a IN (1, 2)", "Scan t using t_a");
  ExpectPlan(with, "SELECT * FROM t WHERE a > 1", "Scan t using t_a");
  ExpectPlan(with, "SELECT * FROM t WHERE b = 'x' AND c > 1", "Scan t using t_bc");
  ExpectPlan(with, "SELECT * FROM t WHERE d = ANY('{1.5}')", "Scan t using t_d");
  Must(with, "PREPARE by_param(int) AS SELECT * FROM t WHERE a = $1");
  ExpectPlan(with, "EXECUTE by_param(1)", "Scan t using t_a");
  ExpectPlan(with, "SELECT * FROM m WHERE b = 'x'", "Scan m using m_b");
  ExpectPlan(with, "UPDATE t SET c = 1 WHERE a = 3", "Scan t using t_a");
  ExpectPlan(with, "DELETE FROM u WHERE a = 3", "Scan u using u_a");
  // The key narrows better: the table; nothing to narrow with: the table;
  // an index equality narrows better than a key range: the index.
  ExpectPlan(with, "SELECT * FROM t WHERE id = 3 AND a = 1", "Scan t [");
  ExpectPlan(with, "SELECT * FROM t WHERE id > 3 AND a = 1", "Scan t using t_a");
  ExpectPlan(with, "SELECT * FROM t WHERE c = 3", "Scan t [");
  ExpectPlan(without, "SELECT * FROM t WHERE a = 1", "Scan t [");
  // Expressions the filter compares as an index holds them; a partial
  // index only where the filter has its predicate.
  ExpectPlan(with, "SELECT * FROM t WHERE upper(b) = 'S1'", "Scan t using t_ub");
  ExpectPlan(with, "SELECT * FROM t WHERE upper(b) IN ('S1', 'S2')", "Scan t using t_ub");
  ExpectPlan(with, "SELECT * FROM t WHERE a % 5 = 1 AND c = 2", "Scan t using t_ac");
  ExpectPlan(with, "SELECT * FROM t WHERE a % 5 = 1 AND c = 2", "storage filter: (a % 5) = 1 AND c = 2");
  ExpectPlan(with, "SELECT * FROM t WHERE c = 2 AND d > 4", "Scan t using t_cp");
  ExpectPlanWithout(with, "SELECT * FROM t WHERE c = 2 AND d > 3", "t_cp");
  ExpectPlan(with, "SELECT * FROM t WHERE c = 2", "Scan t [");
  ExpectPlan(with, "SELECT * FROM t WHERE a % 4 = 1", "Scan t [");
  ExpectPlan(with, "DELETE FROM t WHERE upper(b) = 'S1'", "Scan t using t_ub");
  Must(with, "PREPARE by_upper(text) AS SELECT * FROM t WHERE upper(b) = $1");
  ExpectPlan(with, "EXECUTE by_upper('S1')", "Scan t using t_ub");

  int queries = 12;
  for (round_no = 1; round_no <= rounds; round_no++) {
    // Writes, the same to the tables and their twins.
    int n = rng.Int(3, 12);
    bool block = rng.Chance(30), rollback = block && rng.Chance(40);
    std::vector<std::string> writes;
    for (int i = 0; i < n; i++) writes.push_back(RandomWrite());
    for (const char* suffix : {"", "_twin"}) {
      if (block) Must(with, "BEGIN");
      for (const auto& w : writes) Must(with, On(w, suffix));
      if (block) Must(with, rollback ? "ROLLBACK" : "COMMIT");
    }
    Must(with, "FLUSH");
    Same("t equals its twin", Run(with, "SELECT * FROM t"), Run(with, "SELECT * FROM t_twin"));
    Same("u equals its twin", Run(with, "SELECT * FROM u"), Run(with, "SELECT * FROM u_twin"));

    for (int i = 0; i < queries; i++) {
      Query q = RandomQuery();
      Same(q.sql, RunQuery(with, q), RunQuery(without, q));
    }

    // A block's own writes are seen whichever way the query is planned.
    if (round_no % 4 == 0) {
      Must(with, "BEGIN");
      for (int i = 0; i < 3; i++) Must(with, On(RandomWrite(), ""));
      for (int i = 0; i < 4; i++) {
        Query q = RandomQuery();
        Result indexed = RunQuery(with, q);
        Must(with, "SET enable_indexscan = off");
        Result plain = RunQuery(with, q);
        Must(with, "SET enable_indexscan = on");
        Same("in a block with writes: " + q.sql, indexed, plain);
      }
      Must(with, "ROLLBACK");
    }
  }

  // A snapshot older than an index does not read it.
  round_no = 0;
  const std::string by_c = "SELECT * FROM t WHERE c = 2";
  Must(other, "BEGIN");
  Result before = Run(other, by_c);
  Must(with, "CREATE INDEX t_c ON t (c)");
  ExpectPlan(with, by_c, "Scan t using t_c");
  Same("a block's snapshot taken before CREATE INDEX", Run(other, by_c), before);
  Must(other, "COMMIT");
  Same("after the block, through the new index", Run(other, by_c), before);
  if (before.rows.empty()) Fail("no rows with c = 2: the snapshot check proves nothing");

  // A dropped index: the prepared plan that read it reads the table.
  Must(with, "PREPARE by_a AS SELECT * FROM t WHERE a = 4");
  Result prepared = Run(with, "EXECUTE by_a");
  Must(with, "DROP INDEX t_a");
  Same("EXECUTE after DROP INDEX", Run(with, "EXECUTE by_a"), prepared);
  ExpectPlan(with, "SELECT * FROM t WHERE a = 4", "Scan t [");

  std::printf("%d passed, %d failed\n", passed, failed);
  PQfinish(with);
  PQfinish(without);
  PQfinish(other);
  return failed ? 1 : 0;
}
