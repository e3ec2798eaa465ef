// Differential test of the stream engine: every materialized view must hold
// exactly what its own defining query returns when run as a batch SELECT.
// Built and run by stream_differential_test.sh:
//   stream_differential_test HOST PORT
//
// Environment:
//   STREAM_DIFF_SEED     seed of the random workload (default 20261129)
//   STREAM_DIFF_ROUNDS   number of workload rounds (default 300)
//   STREAM_DIFF_SQL_LOG  if set, every statement that writes (DDL, DML,
//                        BEGIN/COMMIT/ROLLBACK, FLUSH) is appended to this
//                        file, so a failing run can be replayed with psql
//
// Three tables (t1 with a primary key, t2 without one so it has a hidden row
// id, t3 with a varchar primary key and numeric/smallint columns) and the
// views in kViews below: projections with expressions, filters, DISTINCT,
// GROUP BY (columns and expressions) with every aggregate the stream engine
// has (count, sum, avg, min, max, bool_and/or, string_agg and array_agg with
// ORDER BY, DISTINCT and FILTER), HAVING, global aggregates, and views on
// views up to depth 3. Each view is created at one of four points: before
// any data, after the initial fill (backfill), or a third / two thirds of the
// way through the workload (while batches of writes run on the main
// connection, so backfills see concurrent changes); one view is dropped and
// created again halfway. Views that do not depend on each other are created
// at once, on connections of their own.
//
// Each round runs a random batch of INSERT/UPDATE/DELETE statements (some in
// a transaction that commits, some in one that rolls back, sometimes a
// multi-row INSERT that fails on a duplicate key), then FLUSH, then for every
// view compares `SELECT * FROM view` with the view's defining query (the
// same SQL text) as multisets of rows. From the middle to the last quarter
// each round writes three batches while barriers pass every 10 ms without
// committing (checkpoint only at FLUSH). Values are compared as text, except
// float4/float8 columns, which may differ by a relative 1e-9 (absolute for
// magnitudes below 1): a stream adds and retracts, so sums of doubles can
// differ in the last bits. Each comparison is one check.
// Prints "N passed, M failed" last and exits 1 when anything failed.
#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------
// The views. `phase` says when each one is created:
//   0  right after the tables, before any row (tables are empty)
//   1  after the initial fill (the view backfills existing rows)
//   2  a third of the way through the workload
//   3  two thirds of the way through the workload
// A view that reads another view comes after it and in the same or a later
// phase. The view and the batch check run the same SQL text.
struct ViewDef {
  const char* name;
  int phase;
  const char* sql;
};

const ViewDef kViews[] = {
    // --- Phase 0: created on empty tables.
    {"t1_pos", 0, "SELECT id, k, v, s FROM t1 WHERE v > 0 AND s IS NOT NULL"},
    {"t1_expr", 0,
     "SELECT id, k * 10 + 1 AS k10, v - k AS vk, "
     "CASE WHEN v IS NULL THEN 'null' WHEN v < 0 THEN 'neg' WHEN v = 0 THEN 'zero' ELSE 'pos' END AS sign, "
     "upper(s) AS us, coalesce(s, '<none>') || '/' || coalesce(k::varchar, '?') AS label, length(s) AS len, "
     "f * 2 + 1 AS f2, v::double precision / 4 AS vq, NOT b AS nb, substr(s, 2, 3) AS sub, "
     "(v % 7)::int AS v7, f::numeric AS fn "
     "FROM t1 WHERE k IS NOT NULL OR b"},
    {"t1_by_k", 0,
     "SELECT k, count(*) AS n, count(v) AS nv, sum(v) AS sv, sum(f) AS sf, avg(v) AS av, avg(f) AS af, "
     "min(v) AS minv, max(v) AS maxv, min(s) AS mins, max(s) AS maxs, min(f) AS minf, max(f) AS maxf, "
     "bool_and(b) AS band, bool_or(b) AS bor, sum(k) AS sk "
     "FROM t1 GROUP BY k"},
    {"t1_global", 0,
     "SELECT count(*) AS n, count(s) AS ns, sum(v) AS sv, sum(f) AS sf, min(id) AS minid, max(id) AS maxid, "
     "avg(k) AS ak, bool_or(b) AS bor, bool_and(b) AS band, min(s) AS mins, max(f) AS maxf "
     "FROM t1"},
    {"t1_by_n", 0,
     "SELECT n, count(*) AS groups, sum(sv) AS total, min(k) AS mink, max(maxs) AS maxs, sum(sf) AS sf "
     "FROM t1_by_k GROUP BY n"},
    {"t1_by_n_top", 0,
     "SELECT count(*) AS buckets, sum(groups) AS groups, max(n) AS maxn, sum(total) AS total, "
     "min(maxs) AS minmaxs FROM t1_by_n"},
    {"t2_distinct", 0, "SELECT DISTINCT k, s FROM t2"},
    {"t2_by_k", 0,
     "SELECT k, count(*) AS n, count(v) AS nv, sum(v) AS sv, sum(v::bigint) AS sv8, sum(v::numeric) AS svn, "
     "sum(f) AS sf, avg(v) AS av, min(s) AS mins, max(f) AS maxf, count(DISTINCT v) AS dv, "
     "sum(DISTINCT v) AS sdv, count(DISTINCT s) AS ds, avg(DISTINCT v) AS adv, max(DISTINCT s) AS maxds "
     "FROM t2 GROUP BY k"},
    {"t2_special_minmax", 0,
     "SELECT k, count(g) AS n, min(g) AS mn, max(g) AS mx, count(DISTINCT g) AS dg FROM t2 GROUP BY k"},
    {"t2_rare", 0,
     "SELECT count(*) AS n, sum(v) AS sv, max(s) AS ms, array_agg(v ORDER BY v) AS vs FROM t2 WHERE v > 40"},

    // --- Phase 1: created after the initial fill (backfill).
    {"t1_str", 1,
     "SELECT k, string_agg(s, ',' ORDER BY s) AS ss, "
     "string_agg(s || ':' || id::varchar, ';' ORDER BY id DESC) AS sid, "
     "array_agg(id ORDER BY id) AS ids, array_agg(v ORDER BY v DESC, id) AS vs "
     "FROM t1 GROUP BY k"},
    {"t1_filtered_aggs", 1,
     "SELECT k % 3 AS bucket, count(*) FILTER (WHERE b) AS nb, sum(v) FILTER (WHERE v > 0) AS spos, "
     "count(DISTINCT s) FILTER (WHERE k > 0) AS ds, max(f) FILTER (WHERE s LIKE 'a%') AS mf, "
     "min(s) FILTER (WHERE v < 0) AS mins "
     "FROM t1 GROUP BY k % 3"},
    {"t1_having", 1,
     "SELECT s, count(*) AS n, sum(v) AS sv, max(id) AS maxid FROM t1 GROUP BY s "
     "HAVING count(*) > 3 AND sum(v) IS NOT NULL"},
    {"t1_group_expr", 1,
     "SELECT upper(substr(s, 1, 1)) AS initial, b, v > 0 AS vpos, count(*) AS n, min(id) AS first_id, "
     "max(id) AS last_id, sum(f) AS sf "
     "FROM t1 GROUP BY upper(substr(s, 1, 1)), b, v > 0"},
    {"t1_small_f", 1,
     "SELECT id, k, f, round(f) AS rf, f * 0.1 AS ftenth FROM t1 WHERE f BETWEEN -100 AND 100"},
    {"t1_pos_even", 1, "SELECT id, k, v FROM t1_pos WHERE k % 2 = 0"},
    {"t1_pos_even_by_k", 1, "SELECT k, count(*) AS n, sum(v) AS sv, max(id) AS maxid FROM t1_pos_even GROUP BY k"},
    {"t2_big", 1, "SELECT k, n, sv, ds FROM t2_by_k WHERE n > 2"},
    {"t2_big_total", 1, "SELECT count(*) AS groups, sum(n) AS n, sum(sv) AS sv, max(k) AS maxk FROM t2_big"},
    {"t2_special_sum", 1, "SELECT k, sum(g) AS s, avg(g) AS a FROM t2 GROUP BY k"},
    {"t3_by_g", 1,
     "SELECT g, count(*) AS c, sum(m) AS sm, avg(m) AS am, sum(i) AS si, avg(i) AS ai, min(n) AS mn, "
     "max(n) AS mx, min(name) AS first_name, max(name) AS last_name, sum(DISTINCT i) AS sdi, "
     "sum(DISTINCT m) AS sdm FROM t3 GROUP BY g"},
    {"t3_global", 1, "SELECT count(*) AS c, sum(m) AS sm, sum(i) AS si, max(i) AS mi, min(n) AS mn FROM t3"},
    {"t3_mixed_scale", 1, "SELECT g, sum(n) AS sn, avg(n) AS an FROM t3 GROUP BY g"},

    // --- Phase 2: a third of the way through the workload.
    {"t1_distinct_k", 2, "SELECT DISTINCT k FROM t1"},
    {"t1_distinct_expr", 2, "SELECT DISTINCT k % 4 AS m, b FROM t1"},
    {"t1_by_k_b", 2,
     "SELECT k, b, count(*) AS n, sum(f) AS sf, avg(v) AS av, string_agg(s, '|' ORDER BY s DESC) AS ss "
     "FROM t1 WHERE id % 2 = 0 GROUP BY k, b"},
    {"t1_expr_by_sign", 2, "SELECT sign, count(*) AS n, sum(vk) AS svk, min(label) AS minl FROM t1_expr GROUP BY sign"},
    {"t1_ordered", 2, "SELECT id, s, f FROM t1 WHERE b ORDER BY s, id"},
    {"t3_by_g_total", 2, "SELECT sum(sm) AS total, count(*) AS groups, sum(c) AS c, max(mx) AS mx FROM t3_by_g"},
    {"t2_by_g", 2, "SELECT g, count(*) AS n, sum(v) AS sv, min(s) AS mins FROM t2 GROUP BY g"},

    // --- Phase 3: two thirds of the way through the workload.
    {"t2_global", 3,
     "SELECT count(*) AS n, count(DISTINCT k) AS dk, sum(f) AS sf, avg(f) AS af, min(f) AS mf, "
     "bool_and(v > 0) AS allpos, bool_or(s IS NULL) AS anynull, sum(DISTINCT k) AS sdk FROM t2"},
    {"t3_expr", 3,
     "SELECT name, g, n * 2 AS n2, n + i AS ni, CASE WHEN n > 0 THEN n ELSE -n END AS absn, "
     "i::int * 1000 AS ik, n::varchar AS nt, m - n AS mn FROM t3 WHERE g IS NOT NULL"},
    {"t3_by_sign", 3, "SELECT n > 0 AS positive, count(*) AS c, sum(m) AS sm, sum(i) AS si FROM t3 GROUP BY n > 0"},
    {"t1_by_f_bucket", 3,
     "SELECT round(f / 100) AS bucket, count(*) AS n, sum(v) AS sv, max(s) AS maxs FROM t1 GROUP BY round(f / 100)"},
    {"t1_by_n_distinct", 3, "SELECT DISTINCT n FROM t1_by_k"},

    // --- Joins, unions and top-N (phases 0-3).
    {"j_t1_t2", 0, "SELECT t1.id, t1.k, t2.v, t2.s AS s2 FROM t1 JOIN t2 ON t1.k = t2.k"},
    {"j_t1_t2_left", 1, "SELECT t1.id, t1.v, t2.v AS v2, t2.f AS f2 FROM t1 LEFT JOIN t2 ON t1.k = t2.k AND t2.v > t1.k"},
    {"j_t2_t3_right", 2, "SELECT t2.k, t2.v, t3.name, t3.n FROM t2 RIGHT JOIN t3 ON t2.k = t3.g"},
    {"j_t1_t3_full", 0, "SELECT t1.id, t1.s, t3.name, t3.i FROM t1 FULL JOIN t3 ON t1.k = t3.i"},
    {"j_expr_key", 3, "SELECT t1.id, t3.name FROM t1 JOIN t3 ON t1.v = t3.g::bigint * 2"},
    {"j_agg", 1, "SELECT t1.k, count(*) AS n, sum(t2.v) AS sv, max(t1.s) AS ms FROM t1 JOIN t2 ON t1.k = t2.k GROUP BY t1.k"},
    {"j_views", 2, "SELECT a.k, a.n, b.n AS n2 FROM t1_by_k a JOIN t2_by_k b ON a.k = b.k"},
    {"u_all", 0, "SELECT k, s FROM t1 UNION ALL SELECT k, s FROM t2"},
    {"u_distinct", 2, "SELECT k FROM t1 UNION SELECT g FROM t3"},
    {"top_v", 0, "SELECT id, v, s FROM t1 ORDER BY v DESC, id LIMIT 5"},
    {"top_offset", 1, "SELECT id, f FROM t1 ORDER BY f NULLS FIRST, id LIMIT 4 OFFSET 2"},
    {"top_agg", 3, "SELECT k, n FROM t1_by_k ORDER BY n DESC, k LIMIT 3"},
    // Per-group top-N: ties in v are broken by id, so the ranks are exact.
    {"gtop_k", 0,
     "SELECT id, k, v, rn FROM (SELECT id, k, v, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn "
     "FROM t1) WHERE rn <= 2"},
    {"gtop_t2", 1,
     "SELECT k, s, f, rn FROM (SELECT k, s, f, row_number() OVER (PARTITION BY k, s ORDER BY f NULLS LAST, g) AS rn "
     "FROM t2) WHERE rn <= 3"},
};
// Dropped and created again halfway through the workload (a leaf view).
const char* kRecreated = "t1_str";

// ---------------------------------------------------------------------------
// Reporting.
int passed = 0, failed = 0;
std::map<std::string, int> view_failures;        // view -> failed checks
std::map<std::string, std::string> first_fail;   // view -> where it first failed

std::string Trim(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

void Fail(const std::string& what) {
  failed++;
  std::printf("  FAILED: %s\n", what.c_str());
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------
// A small deterministic generator (splitmix64), the same on every platform.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Int(int64_t lo, int64_t hi) { return lo + int64_t(Next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool Chance(int percent) { return int(Next() % 100) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) { return v[Next() % v.size()]; }
};

// ---------------------------------------------------------------------------
// The connection and the statements that write.
PGconn* conn = nullptr;
FILE* sql_log = nullptr;
uint64_t seed = 20261129;
int round_no = 0;  // 0 while setting up

std::string Where() { return "seed " + std::to_string(seed) + ", round " + std::to_string(round_no); }

void Log(const std::string& sql) {
  if (!sql_log) return;
  std::fprintf(sql_log, "%s;\n", sql.c_str());
  std::fflush(sql_log);
}

// Runs a statement that must succeed; a failure is reported with its SQL.
bool Exec(const std::string& sql) {
  Log(sql);
  PGresult* r = PQexec(conn, sql.c_str());
  bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
  if (!ok) {
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    Fail("(" + Where() + ") statement failed: " + sql + "\n    error: " + (state ? state : "?") + " " +
         Trim(PQresultErrorMessage(r)));
  }
  PQclear(r);
  return ok;
}

// Runs a statement that must fail with SQLSTATE `state`.
void ExecExpectError(const std::string& sql, const char* state) {
  Log("-- expected to fail with " + std::string(state) + ": " + sql);
  PGresult* r = PQexec(conn, sql.c_str());
  const char* got = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  if (PQresultStatus(r) != PGRES_FATAL_ERROR || !got || std::string(got) != state) {
    Fail("(" + Where() + ") expected SQLSTATE " + state + " from: " + sql + "\n    got: " +
         PQresStatus(PQresultStatus(r)) + " " + (got ? got : "") + " " + Trim(PQresultErrorMessage(r)));
  }
  PQclear(r);
}

// ---------------------------------------------------------------------------
// Results as multisets of rows.
struct Cell {
  bool null = false;
  std::string text;
};
struct Result {
  bool ok = false;
  std::string error;
  std::vector<std::string> names;
  std::vector<Oid> types;
  std::vector<std::vector<Cell>> rows;
};

constexpr Oid kFloat4 = 700, kFloat8 = 701;
bool IsFloat(Oid t) { return t == kFloat4 || t == kFloat8; }

Result Query(const std::string& sql) {
  Result res;
  PGresult* r = PQexec(conn, sql.c_str());
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    res.error = std::string(state ? state : "?") + " " + Trim(PQresultErrorMessage(r));
    PQclear(r);
    return res;
  }
  res.ok = true;
  for (int c = 0; c < PQnfields(r); c++) {
    res.names.push_back(PQfname(r, c));
    res.types.push_back(PQftype(r, c));
  }
  for (int i = 0; i < PQntuples(r); i++) {
    std::vector<Cell> row;
    for (int c = 0; c < PQnfields(r); c++) row.push_back(Cell{bool(PQgetisnull(r, i, c)), PQgetvalue(r, i, c)});
    res.rows.push_back(std::move(row));
  }
  PQclear(r);
  return res;
}

// The key rows are sorted by: their text, with floats rounded so that values
// a few ulps apart sort alike.
std::string SortKey(const std::vector<Cell>& row, const std::vector<Oid>& types) {
  std::string key;
  for (size_t c = 0; c < row.size(); c++) {
    if (c) key += '\x1f';
    if (row[c].null) {
      key += "\x1e";
    } else if (IsFloat(types[c])) {
      char* end = nullptr;
      double d = std::strtod(row[c].text.c_str(), &end);
      if (end && *end == '\0' && std::isfinite(d)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", std::fabs(d) < 1e-6 ? 0.0 : d);
        key += buf;
      } else {
        key += row[c].text;
      }
    } else {
      key += row[c].text;
    }
  }
  return key;
}

bool FloatEqual(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char *ea = nullptr, *eb = nullptr;
  double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  if (!ea || *ea || !eb || *eb) return false;
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  double scale = std::max({1.0, std::fabs(x), std::fabs(y)});
  return std::fabs(x - y) <= 1e-9 * scale;
}

bool RowEqual(const std::vector<Cell>& a, const std::vector<Cell>& b, const std::vector<Oid>& types) {
  if (a.size() != b.size()) return false;
  for (size_t c = 0; c < a.size(); c++) {
    if (a[c].null != b[c].null) return false;
    if (a[c].null) continue;
    if (IsFloat(types[c]) ? !FloatEqual(a[c].text, b[c].text) : a[c].text != b[c].text) return false;
  }
  return true;
}

std::string RowText(const std::vector<Cell>& row) {
  std::string s = "(";
  for (size_t c = 0; c < row.size(); c++) s += (c ? ", " : "") + (row[c].null ? std::string("NULL") : row[c].text);
  return s + ")";
}

void SortRows(Result* r) {
  std::vector<std::pair<std::string, std::vector<Cell>>> keyed;
  for (auto& row : r->rows) keyed.emplace_back(SortKey(row, r->types), std::move(row));
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  r->rows.clear();
  for (auto& [k, row] : keyed) r->rows.push_back(std::move(row));
}

// Compares the view with its query; one check.
void CheckView(const ViewDef& v) {
  const std::string name = v.name;
  auto fail = [&](const std::string& detail) {
    int n = ++view_failures[name];
    if (!first_fail.count(name)) first_fail[name] = Where();
    if (n <= 2) {
      Fail("(" + Where() + ") view " + name + ": " + detail + "\n    view query: " + v.sql);
    } else {
      failed++;
      if (n == 3) std::printf("  FAILED: (%s) view %s differs again (further failures of it not shown)\n",
                              Where().c_str(), v.name);
    }
  };
  Result mv = Query("SELECT * FROM " + name);
  Result q = Query(v.sql);
  if (!mv.ok) return fail("SELECT * FROM " + name + " failed: " + mv.error);
  if (!q.ok) return fail("the query failed: " + q.error);
  if (mv.names != q.names) {
    std::string a, b;
    for (auto& n : mv.names) a += (a.empty() ? "" : ", ") + n;
    for (auto& n : q.names) b += (b.empty() ? "" : ", ") + n;
    return fail("columns differ: view (" + a + "), query (" + b + ")");
  }
  if (mv.types != q.types) {
    std::string a, b;
    for (auto t : mv.types) a += (a.empty() ? "" : ", ") + std::to_string(t);
    for (auto t : q.types) b += (b.empty() ? "" : ", ") + std::to_string(t);
    return fail("column type OIDs differ: view (" + a + "), query (" + b + ")");
  }
  SortRows(&mv);
  SortRows(&q);
  bool same = mv.rows.size() == q.rows.size();
  for (size_t i = 0; same && i < mv.rows.size(); i++) same = RowEqual(mv.rows[i], q.rows[i], q.types);
  if (same) {
    passed++;
    return;
  }
  // The difference as multisets (rows matched in sorted order, floats with
  // the tolerance), first few of each side.
  std::vector<std::string> only_mv, only_q;
  size_t i = 0, j = 0;
  while (i < mv.rows.size() || j < q.rows.size()) {
    if (i < mv.rows.size() && j < q.rows.size() && RowEqual(mv.rows[i], q.rows[j], q.types)) {
      i++, j++;
    } else if (j >= q.rows.size() ||
               (i < mv.rows.size() && SortKey(mv.rows[i], q.types) < SortKey(q.rows[j], q.types))) {
      only_mv.push_back(RowText(mv.rows[i++]));
    } else if (i >= mv.rows.size() ||
               SortKey(q.rows[j], q.types) < SortKey(mv.rows[i], q.types)) {
      only_q.push_back(RowText(q.rows[j++]));
    } else {  // same sort key, different beyond the tolerance
      only_mv.push_back(RowText(mv.rows[i++]));
      only_q.push_back(RowText(q.rows[j++]));
    }
  }
  std::string detail = "the view has " + std::to_string(mv.rows.size()) + " rows, the query " +
                       std::to_string(q.rows.size()) + "; " + std::to_string(only_mv.size()) +
                       " rows only in the view, " + std::to_string(only_q.size()) + " only in the query";
  for (size_t k = 0; k < only_mv.size() && k < 5; k++) detail += "\n      only in the view:  " + only_mv[k];
  if (only_mv.size() > 5) detail += "\n      ...";
  for (size_t k = 0; k < only_q.size() && k < 5; k++) detail += "\n      only in the query: " + only_q[k];
  if (only_q.size() > 5) detail += "\n      ...";
  fail(detail);
}

// ---------------------------------------------------------------------------
// Random values and statements.
Rng rng;
int64_t next_t1_id = 1;
int64_t next_t3_name = 1;

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string RandK() { return rng.Chance(12) ? "NULL" : std::to_string(rng.Int(-2, 9)); }
std::string RandV() {
  if (rng.Chance(10)) return "NULL";
  if (rng.Chance(5)) return "0";
  if (rng.Chance(5)) return std::to_string((rng.Chance(50) ? 1 : -1) * ((int64_t(1) << 40) + rng.Int(0, 1000)));
  return std::to_string(rng.Int(-1000, 1000));
}
std::string RandF() {
  if (rng.Chance(10)) return "NULL";
  char buf[64];
  if (rng.Chance(65)) {
    std::snprintf(buf, sizeof buf, "%.2f", double(rng.Int(-1000, 1000)) / 4);  // exact in binary
  } else {
    std::snprintf(buf, sizeof buf, "%.6f", double(rng.Int(-1000000000, 1000000000)) / 1e6);
  }
  return buf;
}
const std::vector<std::string> kWords = {"a",  "b",    "apple", "Apple", "banana", "cherry", "x y", "it's",
                                         "",   "zz",   "ABC",   "abc",   "a%b",    "ümlaut", "b2",  "apricot",
                                         "Z",  "  sp", "q",     "avocado"};
std::string RandS() { return rng.Chance(10) ? "NULL" : Quote(rng.Pick(kWords)); }
std::string RandB() { return rng.Chance(15) ? "NULL" : rng.Chance(50) ? "true" : "false"; }
std::string RandT2K() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(0, 6)); }
std::string RandT2V() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(-50, 50)); }
std::string RandN() {
  if (rng.Chance(10)) return "NULL";
  // Mixed scales, the larger ones rarer: a sum's scale is that of its inputs.
  int64_t roll = rng.Int(0, 99);
  int scale = roll < 35 ? 0 : roll < 70 ? 1 : roll < 90 ? 2 : 3;
  int64_t units = rng.Int(-50000, 50000);
  if (scale == 0) return std::to_string(units / 100);
  int64_t div = scale == 1 ? 10 : scale == 2 ? 100 : 1000;
  int64_t a = std::llabs(units);
  std::string frac = std::to_string(a % div);
  while (int(frac.size()) < scale) frac = "0" + frac;
  return std::string(units < 0 ? "-" : "") + std::to_string(a / div) + "." + frac;
}
// Always two decimals, so sums of it have a fixed scale.
std::string RandM() {
  if (rng.Chance(10)) return "NULL";
  int64_t cents = rng.Int(-99999, 99999);
  int64_t a = std::llabs(cents);
  return std::string(cents < 0 ? "-" : "") + std::to_string(a / 100) + "." + (a % 100 < 10 ? "0" : "") +
         std::to_string(a % 100);
}
// Doubles including the special values: NaN, infinities, negative zero.
std::string RandG2() {
  int64_t roll = rng.Int(0, 99);
  if (roll < 10) return "NULL";
  if (roll < 14) return "'NaN'";
  if (roll < 18) return "'Infinity'";
  if (roll < 22) return "'-Infinity'";
  if (roll < 27) return "'-0'";
  if (roll < 32) return "0";
  return std::to_string(rng.Int(-20, 20)) + ".5";
}
std::string RandI() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(-300, 300)); }
std::string RandG() { return rng.Chance(10) ? "NULL" : std::to_string(rng.Int(0, 4)); }

std::string InsertT1(int n, bool dup_of_existing = false, int64_t existing = 0) {
  std::string sql = "INSERT INTO t1 VALUES ";
  for (int i = 0; i < n; i++) {
    std::string id = std::to_string(next_t1_id++);
    if (dup_of_existing && i == n - 1) id = std::to_string(existing);
    sql += (i ? ", (" : "(") + id + ", " + RandK() + ", " + RandV() + ", " + RandF() + ", " + RandS() + ", " +
           RandB() + ")";
  }
  return sql;
}
std::string InsertT2(int n) {
  std::string sql = "INSERT INTO t2 VALUES ";
  std::string prev;
  for (int i = 0; i < n; i++) {
    std::string row = (!prev.empty() && rng.Chance(20))  // an exact duplicate of the previous row
                          ? prev
                          : "(" + RandT2K() + ", " + RandT2V() + ", " + RandS() + ", " + RandF() + ", " + RandG2() + ")";
    sql += (i ? ", " : "") + row;
    prev = row;
  }
  return sql;
}
std::string InsertT3(int n) {
  std::string sql = "INSERT INTO t3 VALUES ";
  for (int i = 0; i < n; i++) {
    std::string name = Quote("n" + std::to_string(next_t3_name++ * 7 % 1000003));
    sql += (i ? ", (" : "(") + name + ", " + RandG() + ", " + RandN() + ", " + RandI() + ", " + RandM() + ")";
  }
  return sql;
}

// An id range [a, b] within the ids handed out so far.
std::pair<int64_t, int64_t> IdRange(int64_t max_width) {
  int64_t a = rng.Int(1, std::max<int64_t>(1, next_t1_id - 1));
  return {a, a + rng.Int(0, max_width)};
}

std::string RandomStatement() {
  int64_t roll = rng.Int(0, 99);
  if (roll < 14) return InsertT1(int(rng.Int(1, 20)));
  if (roll < 25) return InsertT2(int(rng.Int(1, 15)));
  if (roll < 32) return InsertT3(int(rng.Int(1, 8)));
  if (roll < 65) {  // UPDATE
    switch (rng.Int(0, 15)) {
      case 0: return "UPDATE t1 SET k = " + RandK() + " WHERE id % " + std::to_string(rng.Int(3, 9)) + " = " +
                     std::to_string(rng.Int(0, 2));
      case 1: return "UPDATE t1 SET v = v + " + std::to_string(rng.Int(-100, 100)) + ", f = -f WHERE k = " +
                     std::to_string(rng.Int(-2, 9));
      case 2: {
        auto [a, b] = IdRange(30);
        return "UPDATE t1 SET v = NULL, s = NULL WHERE id BETWEEN " + std::to_string(a) + " AND " + std::to_string(b);
      }
      case 3: return "UPDATE t1 SET s = upper(s) WHERE b";
      case 4: return "UPDATE t1 SET s = s || 'x', b = NOT b WHERE k = " + std::to_string(rng.Int(-2, 9));
      case 5: {
        auto [a, b] = IdRange(20);
        return "UPDATE t1 SET k = " + RandK() + ", v = " + RandV() + ", f = " + RandF() + ", s = " + RandS() +
               ", b = " + RandB() + " WHERE id BETWEEN " + std::to_string(a) + " AND " + std::to_string(b);
      }
      case 6: {  // moves rows to new primary keys
        auto [a, b] = IdRange(10);
        return "UPDATE t1 SET id = id + 1000000 WHERE id BETWEEN " + std::to_string(a) + " AND " + std::to_string(b);
      }
      case 7: return "UPDATE t1 SET k = NULL WHERE k = " + std::to_string(rng.Int(-2, 9));
      case 8: return "UPDATE t2 SET v = v * 2 WHERE v BETWEEN -100000 AND 100000 AND k = " + std::to_string(rng.Int(0, 6));
      case 9: return "UPDATE t2 SET k = " + RandT2K() + " WHERE v < " + std::to_string(rng.Int(-50, 0));
      case 10: return "UPDATE t2 SET s = " + RandS() + ", f = f + 0.5 WHERE k = " + std::to_string(rng.Int(0, 6));
      case 11: return "UPDATE t3 SET n = n * 2, m = m * 2 WHERE g = " + std::to_string(rng.Int(0, 4));
      case 12: return "UPDATE t3 SET n = n + 0.10, m = m - 0.25, i = -i WHERE g = " + std::to_string(rng.Int(0, 4));
      case 13: return "UPDATE t2 SET g = " + RandG2() + " WHERE k = " + std::to_string(rng.Int(0, 6));
      case 14: return "UPDATE t2 SET g = -g, v = v + 1 WHERE g < " + std::to_string(rng.Int(-5, 5));
      default: return "UPDATE t3 SET g = " + RandG() + " WHERE i > " + std::to_string(rng.Int(0, 300));
    }
  }
  // DELETE
  switch (rng.Int(0, 11)) {
    case 0:
    case 1: {
      auto [a, b] = IdRange(25);
      return "DELETE FROM t1 WHERE id BETWEEN " + std::to_string(a) + " AND " + std::to_string(b);
    }
    case 2: return "DELETE FROM t1 WHERE k = " + std::to_string(rng.Int(-2, 9));  // a whole group
    case 3: return "DELETE FROM t1 WHERE k IS NULL";
    case 4: return rng.Chance(25) ? "DELETE FROM t1" : "DELETE FROM t1 WHERE v < " + std::to_string(rng.Int(-900, -300));
    case 5: return "DELETE FROM t2 WHERE k = " + std::to_string(rng.Int(0, 6));
    case 6: {
      int64_t a = rng.Int(-60, 50);
      return "DELETE FROM t2 WHERE v BETWEEN " + std::to_string(a) + " AND " + std::to_string(a + rng.Int(0, 20));
    }
    case 7: return rng.Chance(15) ? "DELETE FROM t2" : "DELETE FROM t2 WHERE s IS NULL";
    case 8: return rng.Chance(50) ? "DELETE FROM t3 WHERE g = " + std::to_string(rng.Int(0, 4))
                                  : "DELETE FROM t3 WHERE i BETWEEN " + std::to_string(rng.Int(-300, 300)) + " AND " +
                                        std::to_string(rng.Int(-300, 300));
    case 9: return rng.Chance(10) ? "DELETE FROM t3" : "DELETE FROM t3 WHERE n < " + std::to_string(rng.Int(-500, -200));
    case 10: return "DELETE FROM t1 WHERE s = " + RandS();
    default: return rng.Chance(50) ? "DELETE FROM t2 WHERE f > " + std::to_string(rng.Int(0, 900))
                                   : "DELETE FROM t2 WHERE g = 'NaN' OR g > " + std::to_string(rng.Int(5, 25));
  }
}

// One round of writes: a few statements, sometimes in a transaction that
// commits or rolls back, sometimes a failing INSERT on a duplicate key.
void RunBatch() {
  int n = int(rng.Int(1, 5));
  int64_t mode = rng.Int(0, 99);  // < 20 commit, < 30 rollback, else autocommit
  if (mode < 30) Exec("BEGIN");
  for (int i = 0; i < n; i++) Exec(RandomStatement());
  if (mode < 20) Exec("COMMIT");
  else if (mode < 30) Exec("ROLLBACK");
  if (rng.Chance(8)) {
    // A multi-row INSERT whose last row repeats an existing key: no row of it may appear.
    Result r = Query("SELECT min(id) FROM t1");
    if (r.ok && r.rows.size() == 1 && !r.rows[0][0].null) {
      ExecExpectError(InsertT1(int(rng.Int(2, 6)), true, std::atoll(r.rows[0][0].text.c_str())), "23505");
    }
  }
}

// ---------------------------------------------------------------------------
std::vector<const ViewDef*> live;  // the views created so far, in creation order
std::string conninfo;
std::vector<PGconn*> ddl_conns;  // extra connections for creating views at once

// The views of kViews that `v` reads.
std::vector<const ViewDef*> Inputs(const ViewDef& v) {
  std::vector<const ViewDef*> out;
  const std::string sql = v.sql;
  for (const auto& u : kViews) {
    const std::string pat = std::string("FROM ") + u.name;
    size_t at = sql.find(pat);
    if (at == std::string::npos) continue;
    size_t end = at + pat.size();
    if (end < sql.size() && (std::isalnum((unsigned char)sql[end]) || sql[end] == '_')) continue;
    out.push_back(&u);
  }
  return out;
}

// Creates the given views. Each CREATE returns at a barrier (up to a barrier
// interval later, after its backfill), so the views whose inputs exist are
// created together, each on its own connection; then the ones on top of
// them, and so on. With `write_batches`, that many batches of writes run on
// the main connection while the CREATEs are in flight, so backfills see
// concurrent changes.
void CreateViews(std::vector<const ViewDef*> todo, int write_batches) {
  auto exists = [](const ViewDef* v) { return std::find(live.begin(), live.end(), v) != live.end(); };
  while (!todo.empty()) {
    std::vector<const ViewDef*> ready, later;
    for (const ViewDef* v : todo) {
      bool ok = true;
      for (const ViewDef* in : Inputs(*v)) ok &= exists(in);
      (ok ? ready : later).push_back(v);
    }
    if (ready.empty()) {  // an input failed to be created (already reported)
      for (const ViewDef* v : later) Fail(std::string("view ") + v->name + " not created: an input view is missing");
      return;
    }
    while (ddl_conns.size() < ready.size()) {
      PGconn* c = PQconnectdb(conninfo.c_str());
      if (PQstatus(c) != CONNECTION_OK) {
        Fail("connect: " + Trim(PQerrorMessage(c)));
        PQfinish(c);
        return;
      }
      ddl_conns.push_back(c);
    }
    std::vector<std::string> sqls;
    for (size_t i = 0; i < ready.size(); i++) {
      sqls.push_back(std::string("CREATE MATERIALIZED VIEW ") + ready[i]->name + " AS " + ready[i]->sql);
      Log(sqls[i]);
      if (!PQsendQuery(ddl_conns[i], sqls[i].c_str()))
        Fail("(" + Where() + ") sending: " + sqls[i] + "\n    error: " + Trim(PQerrorMessage(ddl_conns[i])));
    }
    for (int b = 0; b < write_batches; b++) RunBatch();
    for (size_t i = 0; i < ready.size(); i++) {
      bool ok = true;
      std::string error;
      while (PGresult* r = PQgetResult(ddl_conns[i])) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
          ok = false;
          const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
          error = std::string(state ? state : "?") + " " + Trim(PQresultErrorMessage(r));
        }
        PQclear(r);
      }
      if (ok) live.push_back(ready[i]);
      else Fail("(" + Where() + ") statement failed: " + sqls[i] + "\n    error: " + error);
    }
    todo = later;
  }
}

void CreatePhase(int phase, int write_batches) {
  std::vector<const ViewDef*> todo;
  for (const auto& v : kViews)
    if (v.phase == phase) todo.push_back(&v);
  CreateViews(todo, write_batches);
}

void CheckAll() {
  for (const ViewDef* v : live) CheckView(*v);
}

// Groups and partitions emptied in one epoch and filled again in a later
// one before the first is committed: operators must not reload the rows
// the store still holds. Barriers pass every 10 ms and commit only at
// FLUSH; each sleep below lets a few of them pass (it creates the
// condition and waits for no result: the views are checked after FLUSH).
const ViewDef kEmptiedViews[] = {
    {"eg_agg", 0, "SELECT g, count(*) AS n, sum(v) AS sv, min(v) AS mn, max(v) AS mx, count(DISTINCT v % 7) AS dv FROM eg GROUP BY g"},
    {"eg_top", 0, "SELECT id, g, v, rn FROM (SELECT id, g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM eg) x WHERE rn <= 2"},
    {"eg_lim", 0, "SELECT id, g, v FROM eg ORDER BY v, id LIMIT 3"},
};

void EmptiedGroups() {
  Exec("CREATE TABLE eg (id int PRIMARY KEY, g int, v int)");
  // The inserts go through a second session: a session's next statement
  // waits for its earlier writes to commit (read your own writes).
  PGconn* other = PQconnectdb(conninfo.c_str());
  if (PQstatus(other) != CONNECTION_OK) {
    Fail("connect: " + Trim(PQerrorMessage(other)));
    PQfinish(other);
    return;
  }
  Exec("INSERT INTO eg SELECT i, i % 4, (i * 37) % 101 FROM generate_series(1, 200) AS s(i)");
  for (const auto& v : kEmptiedViews) Exec(std::string("CREATE MATERIALIZED VIEW ") + v.name + " AS " + v.sql);
  Exec("ALTER SYSTEM SET barrier_interval_ms = 10");
  Exec("ALTER SYSTEM SET checkpoint_frequency = 10000");
  Exec("FLUSH");  // the barrier loop picks up the new interval
  int next_id = 1000;
  for (int i = 0; i < 12; i++) {
    int g = int(rng.Int(0, 3));
    Exec("DELETE FROM eg WHERE g = " + std::to_string(g));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string values;
    for (int k = 0; k < 3; k++) {
      if (k) values += ", ";
      values += "(" + std::to_string(next_id++) + ", " + std::to_string(g) + ", " + std::to_string(rng.Int(0, 300)) + ")";
    }
    std::string insert = "INSERT INTO eg VALUES " + values;
    Log(insert);
    PGresult* r = PQexec(other, insert.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK) Fail("(" + Where() + ") " + insert + ": " + Trim(PQresultErrorMessage(r)));
    PQclear(r);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  PQfinish(other);
  Exec("FLUSH");
  for (const auto& v : kEmptiedViews) CheckView(v);
  Exec("ALTER SYSTEM RESET barrier_interval_ms");
  Exec("ALTER SYSTEM RESET checkpoint_frequency");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s HOST PORT\n", argv[0]);
    return 2;
  }
  if (const char* s = std::getenv("STREAM_DIFF_SEED"); s && *s) seed = std::strtoull(s, nullptr, 10);
  int rounds = 300;
  if (const char* s = std::getenv("STREAM_DIFF_ROUNDS"); s && *s) rounds = std::max(3, std::atoi(s));
  if (const char* s = std::getenv("STREAM_DIFF_SQL_LOG"); s && *s) sql_log = std::fopen(s, "w");
  rng.s = seed;
  std::printf("  seed %llu, %d rounds (rerun: STREAM_DIFF_SEED=%llu STREAM_DIFF_ROUNDS=%d)\n",
              (unsigned long long)seed, rounds, (unsigned long long)seed, rounds);

  conninfo = std::string("host=") + argv[1] + " port=" + argv[2] + " user=root dbname=dev connect_timeout=20";
  conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    Fail("connect: " + Trim(PQerrorMessage(conn)));
    std::printf("\n%d passed, %d failed\n", passed, failed);
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();

  bool setup = Exec("CREATE TABLE t1 (id INT PRIMARY KEY, k INT, v BIGINT, f DOUBLE PRECISION, s VARCHAR, b BOOLEAN)") &
               Exec("CREATE TABLE t2 (k INT, v INT, s VARCHAR, f DOUBLE PRECISION, g DOUBLE PRECISION)") &
               Exec("CREATE TABLE t3 (name VARCHAR PRIMARY KEY, g INT, n NUMERIC, i SMALLINT, m NUMERIC)");
  if (!setup) {
    std::printf("\n%d passed, %d failed\n", passed, failed);
    return 1;
  }

  // Phase 0 on empty tables, then the initial fill, then phase 1 (backfill).
  CreatePhase(0, 0);
  Exec("FLUSH");
  CheckAll();
  for (int i = 0; i < 10; i++) Exec(InsertT1(20));
  for (int i = 0; i < 10; i++) Exec(InsertT2(15));
  for (int i = 0; i < 4; i++) Exec(InsertT3(15));
  Exec("FLUSH");
  CheckAll();
  CreatePhase(1, 0);
  Exec("FLUSH");
  CheckAll();
  std::printf("  set up: %zu views, checked on empty tables and after the initial fill\n", live.size());
  std::fflush(stdout);

  int checks_before = passed + failed;
  for (round_no = 1; round_no <= rounds; round_no++) {
    // The middle half of the workload runs with no operator state cached
    // past its commit (state_cache.h): every key is reloaded from storage.
    if (round_no == rounds / 4) Exec("ALTER SYSTEM SET streaming_state_cache_bytes = 0");
    if (round_no == 3 * rounds / 4) Exec("ALTER SYSTEM RESET streaming_state_cache_bytes");
    if (round_no == rounds / 3) CreatePhase(2, 4);
    if (round_no == 2 * rounds / 3) CreatePhase(3, 4);
    if (round_no == rounds / 2) {
      for (size_t i = 0; i < live.size(); i++) {
        const ViewDef* v = live[i];
        if (std::string(v->name) != kRecreated) continue;
        live.erase(live.begin() + long(i));
        if (Exec(std::string("DROP MATERIALIZED VIEW ") + v->name)) CreateViews({v}, 4);
        break;
      }
    }
    // From the middle to the last quarter, barriers pass every 10 ms and
    // commit only at FLUSH, and each round writes three batches: operators
    // see epochs go by whose writes are not in the store yet (a group or
    // partition emptied in one and filled again in the next must not be
    // reloaded from the store).
    if (round_no == rounds / 2) {
      Exec("ALTER SYSTEM SET barrier_interval_ms = 10");
      Exec("ALTER SYSTEM SET checkpoint_frequency = 10000");
    }
    if (round_no == 3 * rounds / 4) {
      Exec("ALTER SYSTEM RESET barrier_interval_ms");
      Exec("ALTER SYSTEM RESET checkpoint_frequency");
    }
    bool lagging = round_no >= rounds / 2 && round_no < 3 * rounds / 4;
    for (int b = 0; b < (lagging ? 3 : 1); b++) RunBatch();
    Exec("FLUSH");
    CheckAll();
    if (round_no % 25 == 0 || round_no == rounds) {
      std::printf("  round %d/%d: %zu views, %d checks so far, %d failed\n", round_no, rounds, live.size(),
                  passed + failed - checks_before, failed);
      std::fflush(stdout);
    }
  }
  round_no = rounds;
  EmptiedGroups();
  std::printf("  groups emptied and filled again before their commit: %d checks so far, %d failed\n",
              passed + failed - checks_before, failed);

  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Result sizes = Query("SELECT (SELECT count(*) FROM t1), (SELECT count(*) FROM t2), (SELECT count(*) FROM t3)");
  std::printf("  %d rounds over %zu views took %.1f s; final table sizes t1/t2/t3: %s\n", rounds, live.size(), secs,
              sizes.ok && !sizes.rows.empty()
                  ? (sizes.rows[0][0].text + "/" + sizes.rows[0][1].text + "/" + sizes.rows[0][2].text).c_str()
                  : "?");
  if (!view_failures.empty()) {
    std::printf("  views that differed from their query (seed %llu):\n", (unsigned long long)seed);
    for (const auto& [name, n] : view_failures)
      std::printf("    %-20s %d failed checks, first at %s\n", name.c_str(), n, first_fail[name].c_str());
  }
  if (sql_log) std::fclose(sql_log);
  for (PGconn* c : ddl_conns) PQfinish(c);
  PQfinish(conn);
  std::printf("\n%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
