// A seeded random query generator for materialized views, in the spirit of
// SQLancer and SQLsmith. Built and run by view_fuzz_test.sh:
//   view_fuzz_test FRESHET_HOST FRESHET_PORT [PG_HOST PG_PORT]
//
// For each seed: random tables (2-4; int, bigint, varchar, numeric, double
// precision, boolean and timestamp columns; some with a primary key, some
// without) with random rows (NULLs everywhere, duplicates, negatives, edge
// values: INT and BIGINT extremes, NaN, +-Infinity, -0, numerics of mixed
// scales), and random queries over them: projections with expressions
// (arithmetic, CASE, simple CASE, COALESCE, NULLIF, GREATEST/LEAST, casts,
// string, numeric and timestamp functions, and SQL functions made by
// CREATE FUNCTION: inlined by Freshet, called by PostgreSQL), filters (comparisons, comparisons
// with NULL, IS [NOT] DISTINCT FROM, BETWEEN, IN lists, LIKE, IS [NOT]
// TRUE/FALSE/UNKNOWN, AND/OR/NOT), inner/left/right/full joins (two inputs, or
// a chain of three) of tables, views and subqueries (projections, filters,
// aggregates, DISTINCT, top-N, UNION ALL) on equalities (also of computed
// keys: casts, expressions) plus non-equi conditions in ON and WHERE, GROUP BY
// with HAVING, global aggregates (count, sum, avg, min, max, bool_and/or,
// string_agg and array_agg with ORDER BY; DISTINCT and FILTER), DISTINCT,
// top-N (ORDER BY every output column, so ties are rows that are equal;
// LIMIT/OFFSET), per-group top-N (row_number() <= N), UNION ALL, UNION,
// INTERSECT [ALL] and EXCEPT [ALL], set-returning functions, WHERE conditions with subqueries ([NOT] EXISTS,
// [NOT] IN, ANY/ALL, comparisons with aggregates; correlated or not),
// window functions (every kind; ROWS, RANGE and GROUPS frames, EXCLUDE;
// ordered so that the result does not depend on the order of peers),
// and views on views. Arithmetic is generated with bounds on its values so
// that it never overflows (PostgreSQL raises an error where a stream writes
// NULL), and doubles that are summed are sums of quarters (exact whatever
// the order of additions and retractions).
//
// Each query becomes a materialized view on Freshet (some before any row,
// some after the initial rows so they backfill, some halfway through the
// workload on a second connection while that round's DML runs) with a random
// streaming_parallelism, and a view on PostgreSQL (materialized, and
// refreshed after each round, when other views read it). Then rounds of
// random DML (INSERT, bulk INSERT ... SELECT FROM generate_series, UPDATE,
// primary-key moves, DELETE, delete-and-reinsert of a key, some in
// transactions that commit or roll back; some seeds add columns to the
// tables between rounds) run on both servers; some seeds run
// rounds with no operator state cached, or with barriers every 10 ms that
// commit only at FLUSH. After each round and FLUSH:
//   - every table on Freshet equals the same table on PostgreSQL,
//   - every view equals its defining query run as a batch SELECT on Freshet
//     ("view vs batch"),
//   - that batch result equals the query's result on PostgreSQL ("batch vs
//     PostgreSQL"), column types included (varchar and text alike).
// All as multisets of rows. Numbers compare by value across int/numeric/
// float types: floats within a relative 1e-9 (absolute below 1), numerics
// exactly after dropping trailing zeros unless both sides have 6 or more
// decimals (divisions, avg: then within a relative 1e-15). Each comparison
// is one check. A query Freshet refuses with SQLSTATE 0A000 (feature not
// supported) is skipped (counted, with its message), as are views on it.
// Before the seeds, the probes (minimised reproductions) of the bugs this
// test found run as regression tests (kBugShapes, kProbes).
//
// The statements are a function of the seed only (separate random streams
// for the schema, the data and each query: the same seed gives the same
// statements, alone or among other seeds; VIEW_FUZZ_ONLY picks views
// without changing anything else).
//
// Environment:
//   VIEW_FUZZ_SEED        run this seed (with VIEW_FUZZ_SEEDS: the first of them)
//   VIEW_FUZZ_SEEDS       run this many consecutive seeds
//                         (neither: the default seeds, kDefaultFirstSeed.. below)
//   VIEW_FUZZ_QUERIES     queries per seed (default 16)
//   VIEW_FUZZ_ROUNDS      DML rounds per seed (default 8)
//   VIEW_FUZZ_SQL_LOG     write every statement sent to Freshet to this file
//                         (psql-ready; PostgreSQL got the same DDL and DML,
//                         with plain views, and no FLUSH/SET/ALTER SYSTEM)
//   VIEW_FUZZ_KNOWN_BUGS  1 or "all": also generate the shapes that are known
//                         to be broken (kBugShapes below with broken = true);
//                         or a comma list of their names
//   VIEW_FUZZ_AVOID       a comma list of kBugShapes names not to generate
//                         (when one bug dominates the failures), "all" for all
//   VIEW_FUZZ_SHAPES      restrict the generator: a comma list of
//                         select,agg,global,topn,grouptopn,union,window (query
//                         kinds), join,subquery (FROM kinds; without
//                         either, a single table or view) and function
//                         (calls of the SQL functions SqlFunctions makes)
//   VIEW_FUZZ_ONLY        a comma list of query numbers to create (and the
//                         views they read)
//   VIEW_FUZZ_VERBOSE     1: print every query
//   VIEW_FUZZ_SLOW        print every statement that takes longer (ms)
//   VIEW_FUZZ_REPRO_LINES lines of the reproduction script printed on the
//                         first failure of a seed (default 400)
// Every statement is cancelled after 120 s. Prints "N passed, M failed" last
// and exits 1 when anything failed.
#include <libpq-fe.h>
#include <sys/select.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// ---------------------------------------------------------------------------
// The default seeds (`make test`).
const uint64_t kDefaultFirstSeed = 1, kDefaultSeedCount = 50;  // seeds 1..50

// Query shapes that were (or are) broken, each found by this test. A shape
// with broken = true is generated only when VIEW_FUZZ_KNOWN_BUGS names it
// (so the default seeds pass with the current binary); the others are
// generated always, and their probe (kProbes below, the minimised
// reproduction) runs first as a regression test. When a new bug is found:
// add its shape here with broken = true, make the generator consult
// Knobs::Bug(name) where it produces the shape, add a probe; when it is
// fixed, set broken = false.
struct BugShape {
  const char* name;
  bool broken;
  const char* what;
};
const BugShape kBugShapes[] = {
    {"join_left_subquery", false,  // fixed by 6860c87
     "a join whose left input is, or is a join of, a subquery that projects (its stream carries hidden key "
     "columns: the _row_id of a table without a primary key, or a primary key it does not select), e.g. "
     "(SELECT k, v FROM p WHERE e = 0) a JOIN (SELECT k, v FROM p) b ON a.k = b.k WHERE b.v > a.v: the "
     "stream hash join evaluates its non-equi condition, and reads the right input's columns, at the wrong "
     "positions (wrong rows, 'corrupt row in table N', the server crashes)"},
    {"create_during_rare_checkpoints", false,  // fixed by 91de097
     "a CREATE MATERIALIZED VIEW concurrent with an INSERT into its input while barriers pass every 10 ms "
     "and commit every 10000 (the seeds with 10 ms barriers): now and then the CREATE waits for the next "
     "periodic checkpoint, ~100 s (cancelled after 120 s), instead of ~40 ms; a FLUSH from another "
     "session releases it at once. Without the knob those seeds start their 10 ms barriers after the "
     "round that creates views while DML runs"},
    {"full_join_null_keys", false,  // fixed by 359c2ea
     "a FULL JOIN of two inputs whose stream keys can be NULL (aggregates or DISTINCT subqueries, views "
     "on them), e.g. (SELECT DISTINCT d FROM t) a FULL JOIN (SELECT DISTINCT b FROM t) b ON a.d = b.b: an "
     "unmatched row from each side, both with a NULL key, get the same stream key (NULL, NULL) and the "
     "view keeps only one of them"},
    {"nan_keys", false,  // fixed by 359c2ea
     "arithmetic on doubles that are NaN or infinite, as a DISTINCT/GROUP BY key, e.g. SELECT DISTINCT "
     "c / c FROM t with c in ('Infinity', 'NaN'): Infinity / Infinity is a NaN with another bit pattern "
     "(-NaN) and the stream keeps it apart from 'NaN' (two rows or groups); PostgreSQL has one"},
    {"join_chain_key_cast", false,  // fixed by 6860c87
     "a chain of joins (a JOIN b JOIN c) where an equality needs a computed key (a cast between int and "
     "bigint or numeric, an expression), e.g. x(k bigint) JOIN y(k int, v int) ON x.k = y.k JOIN z ON "
     "y.v = z.v: the outer join reads its right input's columns at the wrong positions (NULLs, wrong "
     "values, 'corrupt row in table N', the server crashes)"},
};

int64_t kStatementTimeoutMs = 120000;

// ---------------------------------------------------------------------------
// splitmix64: the same numbers on every platform.
struct Rng {
  uint64_t s = 0;
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
uint64_t Fmix(uint64_t x) {  // MurmurHash3's finalizer
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
// An independent stream of numbers per (seed, purpose).
Rng Stream(uint64_t seed, uint64_t which) { return Rng{Fmix(Fmix(seed + 0x5bd1e995) ^ Fmix(which * 0x9e3779b97f4a7c15ULL + 1))}; }

std::string Trim(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}
std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); i++) out += (i ? sep : "") + v[i];
  return out;
}

// ---------------------------------------------------------------------------
// Types and typed expressions.
enum class T { kInt, kBigInt, kNumeric, kDouble, kText, kBool, kTs };
const T kAllTypes[] = {T::kInt, T::kBigInt, T::kNumeric, T::kDouble, T::kText, T::kBool, T::kTs};

const char* SqlType(T t) {
  switch (t) {
    case T::kInt: return "INT";
    case T::kBigInt: return "BIGINT";
    case T::kNumeric: return "NUMERIC";
    case T::kDouble: return "DOUBLE PRECISION";
    case T::kText: return "VARCHAR";
    case T::kBool: return "BOOLEAN";
    case T::kTs: return "TIMESTAMP";
  }
  return "?";
}
bool Integral(T t) { return t == T::kInt || t == T::kBigInt; }
bool Exact(T t) { return Integral(t) || t == T::kNumeric; }
bool Number(T t) { return Exact(t) || t == T::kDouble; }
// Types an equality may join: the exact numbers together, each other type alone.
int JoinClass(T t) { return Exact(t) ? 0 : int(t); }
constexpr double kIntMax = 2147483647.0, kBigMax = 9.2e18, kDoubleMax = 1e200;
bool Fits(T t, double bound) {
  if (t == T::kInt) return bound <= kIntMax;
  if (t == T::kBigInt) return bound <= kBigMax;
  if (t == T::kDouble) return bound <= kDoubleMax;
  if (t == T::kNumeric) return bound <= 1e30;  // Freshet's numeric holds 38 digits
  return true;
}

// A column of a relation, a column in scope, or an expression: its SQL, its
// type, and what is known about its values, so that generated arithmetic
// never overflows (PostgreSQL raises an error; a stream turns it into NULL).
struct E {
  std::string sql;
  T type = T::kInt;
  double bound = 0;      // integers and doubles: the largest magnitude (finite values)
  bool special = false;  // doubles: NaN or +-Infinity possible
  bool inexact = false;  // rounded (divisions, casts to double): kept out of sums
  // A numeric whose scale is that of whichever of several equal values a
  // grouping kept (a GROUP BY or DISTINCT key, min/max, sum(DISTINCT)):
  // 0.0 or 0.00 by the row order, in PostgreSQL too, so never shown as text.
  bool any_scale = false;
  uint32_t items = 0;    // which FROM items it reads (bit i: item i)
  bool agg = false;      // contains an aggregate
  E WithBound(double b) {
    bound = b;
    special = inexact = false;
    return *this;
  }
};
using Scope = std::vector<E>;

struct Relation {  // a table or an earlier view
  std::string name;
  std::vector<E> cols;  // sql = the column name
  int view = -1;        // the query number when a view
  int pk = -1;          // a table's primary key column
  bool big = false;     // a view of a join or UNION (not aggregated): not joined again
};

struct Knobs {
  std::set<std::string> bugs;  // known-bug shapes allowed
  std::set<std::string> shapes;
  bool Bug(const std::string& b) const { return bugs.count(b) > 0; }
  bool Shape(const std::string& s) const { return shapes.empty() || shapes.count(s) > 0; }
};

// ---------------------------------------------------------------------------
// Literals and values.
const std::vector<std::string> kWords = {"a", "b", "ab", "A", "B", "", " ", "abc", "it's", "k1", "k2", "k3",
                                         "zz", "a%b", "x_y", "ümlaut", "Z", "b "};
const std::vector<std::string> kTimestamps = {"2024-01-01 00:00:00",        "2024-01-01 12:30:00",
                                              "2024-02-29 23:59:59.999999", "2023-12-31 23:00:00",
                                              "1999-12-31 23:59:59",        "1970-01-01 00:00:00",
                                              "2024-06-15 08:15:30.5",      "2000-03-01 00:00:00"};

std::string IntText(int64_t v) { return std::to_string(v); }
std::string NumericText(Rng& r, bool big) {
  int scale = int(r.Int(0, 3));
  int64_t units = big ? r.Int(-99999999, 99999999) * 1000 + r.Int(0, 999) : r.Int(-300, 800);
  int64_t div = 1;
  for (int i = 0; i < scale; i++) div *= 10;
  if (!big) units = units * div / 100;  // small values: -3.00 .. 8.00 in steps of the scale
  int64_t a = std::llabs(units);
  std::string s = (units < 0 ? "-" : "") + std::to_string(a / div);
  if (scale > 0) {
    std::string frac = std::to_string(a % div);
    while (int(frac.size()) < scale) frac = "0" + frac;
    s += "." + frac;
  }
  return s;
}
std::string DoubleText(Rng& r, bool special) {
  if (special) {
    int64_t roll = r.Int(0, 9);
    if (roll == 0) return "'NaN'";
    if (roll == 1) return "'Infinity'";
    if (roll == 2) return "'-Infinity'";
    if (roll == 3) return "'-0'";
  }
  int64_t q = r.Chance(85) ? r.Int(-12, 32) : r.Int(-400000, 400000);  // quarters: exact in binary
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", double(q) / 4);
  return buf;
}
std::string TsText(Rng& r) { return "TIMESTAMP " + Quote(r.Pick(kTimestamps)); }

// A literal of the type, as an expression.
E Literal(Rng& r, T t) {
  E e;
  e.type = t;
  switch (t) {
    case T::kInt: {
      int64_t v = r.Chance(85) ? r.Int(-3, 8) : r.Pick(std::vector<int64_t>{0, 100, -1000, 1000, 7});
      e.sql = v < 0 ? "(" + IntText(v) + ")" : IntText(v);
      e.bound = double(std::llabs(v));
      break;
    }
    case T::kBigInt: {
      int64_t v = r.Chance(80) ? r.Int(-3, 8) : r.Pick(std::vector<int64_t>{5000000000LL, -5000000000LL, 0});
      e.sql = std::llabs(v) > 2147483647 ? (v < 0 ? "(" + IntText(v) + ")" : IntText(v)) : "CAST(" + IntText(v) + " AS BIGINT)";
      e.bound = double(std::llabs(v));
      break;
    }
    case T::kNumeric: {
      std::string s = NumericText(r, r.Chance(5));
      if (s.find('.') == std::string::npos) s += ".0";
      e.sql = s[0] == '-' ? "(" + s + ")" : s;
      e.bound = std::fabs(std::atof(s.c_str()));
      break;
    }
    case T::kDouble: {
      std::string s = DoubleText(r, r.Chance(3));
      e.sql = "CAST(" + s + " AS DOUBLE PRECISION)";
      e.special = s[0] == '\'';
      e.bound = e.special ? 0 : std::fabs(std::atof(s.c_str()));
      break;
    }
    case T::kText: e.sql = Quote(r.Pick(kWords)); break;
    case T::kBool: e.sql = r.Chance(50) ? "TRUE" : "FALSE"; break;
    case T::kTs: e.sql = TsText(r); break;
  }
  return e;
}
E TypedNull(T t) {
  E e;
  e.type = t;
  e.sql = std::string("CAST(NULL AS ") + SqlType(t) + ")";
  return e;
}

// ---------------------------------------------------------------------------
// The expression generator.
struct Gen {
  Rng& r;
  const Knobs& k;
  int max_depth = 2;

  static E Combine(const std::string& sql, T t, std::initializer_list<const E*> parts) {
    E e;
    e.sql = sql;
    e.type = t;
    for (const E* p : parts) {
      e.bound = std::max(e.bound, p->bound);
      e.special |= p->special;
      e.inexact |= p->inexact;
      e.any_scale |= p->any_scale;
      e.items |= p->items;
      e.agg |= p->agg;
    }
    return e;
  }

  std::set<std::string> used_bugs;  // known-bug shapes generated

  // Arithmetic on doubles that may be NaN or infinite makes NaNs of other
  // bit patterns (-NaN from Infinity / Infinity or from -'NaN').
  bool NanOk(const E& e) {
    if (!e.special) return true;
    if (!k.Bug("nan_keys")) return false;
    used_bugs.insert("nan_keys");
    return true;
  }

  std::vector<const E*> Of(const Scope& s, T t) {
    std::vector<const E*> out;
    for (const E& e : s)
      if (e.type == t) out.push_back(&e);
    return out;
  }

  // A column of the type, or a cast of another column, or a literal.
  E Leaf(T t, const Scope& s) {
    auto cols = Of(s, t);
    if (!cols.empty() && r.Chance(85)) return *r.Pick(cols);
    if (r.Chance(50)) {
      std::vector<const E*> from;
      for (const E& e : s) {
        if (e.type == t) continue;
        if (t == T::kInt && Number(e.type) && !e.special && e.bound < 2e9) from.push_back(&e);
        if (t == T::kBigInt && Number(e.type) && !e.special && e.bound < 9e18) from.push_back(&e);
        if ((t == T::kNumeric || t == T::kDouble) && Number(e.type) && !e.special) from.push_back(&e);
        if (t == T::kText && e.type != T::kDouble && !e.any_scale) from.push_back(&e);
      }
      if (!from.empty()) {
        const E* f = r.Pick(from);
        E e = Combine(std::string("CAST(") + f->sql + " AS " + SqlType(t) + ")", t, {f});
        if (t == T::kInt || t == T::kBigInt) e.bound += 1;  // rounding
        if (t == T::kDouble && f->type == T::kNumeric) e.inexact = true;
        return Rounding(e);
      }
    }
    if (r.Chance(4)) return TypedNull(t);
    if (!s.empty() && r.Chance(50)) {  // a column of another type, converted
      const E& c = r.Pick(s);
      switch (t) {
        case T::kInt:
          if (!c.any_scale) return Combine("length(CAST(" + c.sql + " AS VARCHAR))", t, {&c}).WithBound(100);
          break;
        case T::kBigInt:
          if (!c.any_scale)
            return Combine("CAST(length(CAST(" + c.sql + " AS VARCHAR)) AS BIGINT)", t, {&c}).WithBound(100);
          break;
        case T::kText:
          if ((c.type != T::kDouble || !c.inexact) && !c.any_scale)
            return Combine("CAST(" + c.sql + " AS VARCHAR)", t, {&c});
          break;
        case T::kBool: return Combine("(" + c.sql + " IS NULL)", t, {&c});
        case T::kTs: return Combine("CASE WHEN " + c.sql + " IS NULL THEN " + TsText(r) + " ELSE " + TsText(r) + " END", t, {&c});
        default: break;
      }
    }
    return Literal(r, t);
  }

  // Doubles beyond 2^53 / 16 are no longer sums of quarters: a stream that
  // adds and retracts them loses the small ones (sum(x) of 1e19 and 5, minus
  // 1e19, is 0), so they stay out of sums.
  static E Rounding(E e) {
    if (e.type == T::kDouble && e.bound > 1e14) e.inexact = true;
    return e;
  }

  E Expr(T t, const Scope& s, int depth) {
    if (depth >= max_depth || r.Chance(45)) return Leaf(t, s);
    for (int attempt = 0; attempt < 4; attempt++) {
      E e = Compound(t, s, depth);
      if (!e.sql.empty() && Fits(t, e.bound)) return Rounding(e);
    }
    return Leaf(t, s);
  }

  E Any(const Scope& s, int depth) {
    T t = r.Chance(80) && !s.empty() ? r.Pick(s).type : kAllTypes[r.Int(0, 6)];
    return Expr(t, s, depth);
  }

  // Shared forms: CASE, COALESCE, NULLIF, GREATEST/LEAST.
  E Generic(T t, const Scope& s, int depth) {
    if (r.Chance(15)) {  // CASE x WHEN literal THEN ... [ELSE ...] END
      T kt = ScopeType(s);
      E x = Expr(kt, s, depth + 1), a = Expr(t, s, depth + 1), b = Expr(t, s, depth + 1), c = Expr(t, s, depth + 1);
      std::string sql = "CASE " + x.sql + " WHEN " + Literal(r, kt).sql + " THEN " + a.sql + " WHEN " + Literal(r, kt).sql +
                        " THEN " + b.sql + (r.Chance(60) ? " ELSE " + c.sql : "") + " END";
      return Combine(sql, t, {&x, &a, &b, &c});
    }
    switch (r.Int(0, 3)) {
      case 0: {
        E p = Pred(s, depth + 1), a = Expr(t, s, depth + 1), b = Expr(t, s, depth + 1);
        if (r.Chance(25)) return Combine("CASE WHEN " + p.sql + " THEN " + a.sql + " END", t, {&p, &a});
        return Combine("CASE WHEN " + p.sql + " THEN " + a.sql + " ELSE " + b.sql + " END", t, {&p, &a, &b});
      }
      case 1: {
        E a = Expr(t, s, depth + 1), b = Expr(t, s, depth + 1);
        return Combine("COALESCE(" + a.sql + ", " + b.sql + ")", t, {&a, &b});
      }
      case 2: {
        if (t == T::kBool) return Pred(s, depth);
        E a = Expr(t, s, depth + 1), b = Literal(r, t);
        return Combine("NULLIF(" + a.sql + ", " + b.sql + ")", t, {&a, &b});
      }
      default: {
        if (t == T::kBool) return Pred(s, depth);
        E a = Expr(t, s, depth + 1), b = Expr(t, s, depth + 1);
        return Combine(std::string(r.Chance(50) ? "GREATEST(" : "LEAST(") + a.sql + ", " + b.sql + ")", t, {&a, &b});
      }
    }
  }

  // Calls of the SQL functions every seed creates (SqlFunctions below): inlined
  // by Freshet, called by PostgreSQL.
  E SqlFunctionCall(T t, const Scope& s, int depth) {
    if (Integral(t)) {
      E a = Expr(T::kBigInt, s, depth + 1);
      E e;
      switch (r.Int(0, 3)) {
        case 0: {
          E b = Expr(T::kBigInt, s, depth + 1);
          e = Combine("vf_add(" + a.sql + ", " + b.sql + ")", T::kBigInt, {&a, &b});
          e.bound = a.bound + b.bound;
          break;
        }
        case 1:
          e = Combine(r.Chance(50) ? "vf_add(" + a.sql + ")" : "vf_add(y => 3, x => " + a.sql + ")", T::kBigInt, {&a});
          e.bound = a.bound + 3;
          break;
        case 2:
          e = Combine("vf_twice(" + a.sql + ")", T::kBigInt, {&a});
          e.bound = 2 * a.bound;
          break;
        default: {
          // A body counting rows of the seed's first table: a correlated
          // scalar subquery once inlined (its argument may read nothing of
          // a subquery or an aggregate: Freshet refuses that).
          E x = Leaf(T::kBigInt, s);
          if (x.agg) return E{};
          e = Combine("vf_cnt(" + x.sql + ")", T::kBigInt, {&x});
          e.bound = 1e7;
          break;
        }
      }
      if (t == T::kInt) {
        if (e.bound > 2e9) return E{};
        e.sql = "CAST(" + e.sql + " AS INT)";
        e.type = T::kInt;
      }
      return e;
    }
    if (t == T::kText) {
      E p = Pred(s, depth + 1), a = Expr(T::kText, s, depth + 1), b = Expr(T::kText, s, depth + 1);
      return Combine("vf_pick(" + p.sql + ", " + a.sql + ", " + b.sql + ")", t, {&p, &a, &b});
    }
    return E{};
  }

  E Compound(T t, const Scope& s, int depth) {
    if (r.Chance(25)) return Generic(t, s, depth);
    if (k.Shape("function") && (Integral(t) || t == T::kText) && r.Chance(25)) return SqlFunctionCall(t, s, depth);
    auto sub = [&]() { return Expr(t, s, depth + 1); };
    switch (t) {
      case T::kInt:
      case T::kBigInt: {
        switch (r.Int(0, 8)) {
          case 0:
          case 1: {
            E a = sub(), b = sub();
            E e = Combine("(" + a.sql + (r.Chance(50) ? " + " : " - ") + b.sql + ")", t, {&a, &b});
            e.bound = a.bound + b.bound;
            return e;
          }
          case 2: {
            E a = sub();
            int64_t m = r.Int(-3, 5);
            E e = Combine("(" + a.sql + " * " + (m < 0 ? "(" + IntText(m) + ")" : IntText(m)) + ")", t, {&a});
            e.bound = a.bound * double(std::llabs(m));
            return e;
          }
          case 3: {
            if (depth > 0) return E{};
            E a = sub(), b = sub();
            E e = Combine("(" + a.sql + " * " + b.sql + ")", t, {&a, &b});
            e.bound = a.bound * b.bound;
            return e;
          }
          case 4: {
            E a = sub();
            int64_t d = r.Pick(std::vector<int64_t>{2, 3, -2, 5, 1, -1, 7});
            bool mod = r.Chance(50);
            E e = Combine("(" + a.sql + (mod ? " % " : " / ") + (d < 0 ? "(" + IntText(d) + ")" : IntText(d)) + ")",
                          t, {&a});
            e.bound = mod ? std::min(a.bound, double(std::llabs(d))) : a.bound;
            return e;
          }
          case 5: {
            E a = sub();
            E e = Combine(r.Chance(50) ? "(- " + a.sql + ")" : "abs(" + a.sql + ")", t, {&a});
            e.bound = a.bound;
            if (e.bound >= (t == T::kInt ? kIntMax : kBigMax)) e.bound = 1e300;  // -MIN overflows
            return e;
          }
          case 6: {
            if (t == T::kInt) {
              E a = Expr(T::kText, s, depth + 1);
              E e = r.Chance(70) ? Combine("length(" + a.sql + ")", t, {&a})
                                 : Combine("strpos(" + a.sql + ", " + Literal(r, T::kText).sql + ")", t, {&a});
              e.bound = 1000;
              return e;
            }
            if (r.Chance(30)) {
              E a = sub();
              int64_t d = r.Pick(std::vector<int64_t>{2, 3, 5, -4});
              E e = Combine("mod(" + a.sql + ", " + IntText(d) + ")", t, {&a});
              e.bound = std::min(a.bound, double(std::llabs(d)));
              return e;
            }
            E a = Expr(T::kInt, s, depth + 1);
            return Combine("CAST(" + a.sql + " AS BIGINT)", t, {&a});
          }
          case 7: {
            E p = Pred(s, depth + 1);
            E e = Combine("CAST(" + p.sql + " AS INT)", T::kInt, {&p});
            e.bound = 1;
            if (t == T::kBigInt) e.sql = "CAST(" + e.sql + " AS BIGINT)", e.type = t;
            return e;
          }
          default: {
            T from = r.Chance(50) ? T::kNumeric : T::kDouble;
            E a = Expr(from, s, depth + 1);
            if (a.special || a.bound > 2e9) return E{};
            E e = Combine("CAST(" + a.sql + " AS " + SqlType(t) + ")", t, {&a});
            e.bound = a.bound + 1;
            e.special = e.inexact = false;
            return e;
          }
        }
      }
      case T::kNumeric: {
        // Bounds matter for casts back to integers, and for Freshet's numeric
        // of at most 38 digits (docs/architecture.md; PostgreSQL's is
        // unbounded): a quotient (inexact) has 16 significant digits or more,
        // up to ~31 decimals, so it is only added to small values.
        switch (r.Int(0, 6)) {
          case 0:
          case 1: {
            E a = sub(), b = sub();
            if ((a.inexact || b.inexact) && (a.bound > 1e5 || b.bound > 1e5)) return E{};
            E e = Combine("(" + a.sql + (r.Chance(50) ? " + " : " - ") + b.sql + ")", t, {&a, &b});
            e.bound = a.bound + b.bound;
            return e;
          }
          case 2: {
            if (depth > 0) return E{};
            E a = sub(), b = sub();
            if (a.inexact || b.inexact) return E{};
            E e = Combine("(" + a.sql + " * " + b.sql + ")", t, {&a, &b});
            e.bound = a.bound * b.bound;
            return e;
          }
          case 3: {
            E a = sub(), b = sub();
            if (a.inexact || b.inexact) return E{};
            E e = Combine("(" + a.sql + " / NULLIF(" + b.sql + ", 0))", t, {&a, &b});
            e.bound = a.bound * 1000;  // |b| >= 0.001 when not zero
            e.inexact = true;
            return e;
          }
          case 4: {
            E a = sub();
            E e = Combine(r.Chance(50) ? "round(" + a.sql + ")" : "round(" + a.sql + ", " + IntText(r.Int(0, 2)) + ")",
                          t, {&a});
            e.bound = a.bound + 1;
            return e;
          }
          case 5: {
            E a = sub();
            std::string f = r.Pick(std::vector<std::string>{"-", "abs", "abs", "ceil", "floor", "sign"});
            E e = Combine(f == "-" ? "(- " + a.sql + ")" : f + "(" + a.sql + ")", t, {&a});
            e.bound = a.bound + 1;
            return e;
          }
          default: {
            E a = Expr(r.Chance(50) ? T::kInt : T::kBigInt, s, depth + 1);
            return Combine("CAST(" + a.sql + " AS NUMERIC)", t, {&a});
          }
        }
      }
      case T::kDouble: {
        switch (r.Int(0, 6)) {
          case 0:
          case 1: {
            E a = sub(), b = sub();
            E e = Combine("(" + a.sql + (r.Chance(50) ? " + " : " - ") + b.sql + ")", t, {&a, &b});
            e.bound = a.bound + b.bound;
            return NanOk(e) ? e : E{};
          }
          case 2: {
            E a = sub();
            E e = Combine("(" + a.sql + " * " + (depth > 0 ? "2" : "(-3)") + ")", t, {&a});
            e.bound = a.bound * 3;
            return NanOk(e) ? e : E{};
          }
          case 3: {
            if (depth > 0) return E{};
            E a = sub(), b = sub();
            E e = Combine("(" + a.sql + " * " + b.sql + ")", t, {&a, &b});
            e.bound = a.bound * b.bound;
            return NanOk(e) ? e : E{};
          }
          case 4: {
            E a = sub(), b = sub();
            E e = Combine("(" + a.sql + " / NULLIF(" + b.sql + ", 0))", t, {&a, &b});
            e.bound = a.bound * 4;  // |b| >= 0.25 when not zero
            e.inexact = true;
            return NanOk(e) ? e : E{};
          }
          case 5: {
            E a = sub();
            std::string f = r.Pick(std::vector<std::string>{"-", "abs", "ceil", "floor"});
            E e = Combine(f == "-" ? "(- " + a.sql + ")" : f + "(" + a.sql + ")", t, {&a});
            e.bound = a.bound + 1;
            return NanOk(e) ? e : E{};
          }
          default: {
            E a = Expr(r.Pick(std::vector<T>{T::kInt, T::kBigInt, T::kNumeric}), s, depth + 1);
            E e = Combine("CAST(" + a.sql + " AS DOUBLE PRECISION)", t, {&a});
            if (a.type == T::kNumeric) {
              e.inexact = true;
              e.bound = 1e30;  // not tracked for numerics
            }
            return e;
          }
        }
      }
      case T::kText: {
        switch (r.Int(0, 6)) {
          case 0: {
            E a = sub();
            return Combine((r.Chance(50) ? "upper(" : "lower(") + a.sql + ")", t, {&a});
          }
          case 1: {
            E a = sub(), b = sub();
            return Combine("(" + a.sql + " || " + b.sql + ")", t, {&a, &b});
          }
          case 2: {
            E a = sub();
            return Combine("substr(" + a.sql + ", " + IntText(r.Int(1, 3)) + ", " + IntText(r.Int(1, 3)) + ")", t, {&a});
          }
          case 3: {
            E a = sub();
            return Combine("replace(" + a.sql + ", 'a', 'x')", t, {&a});
          }
          case 4: {
            E a = Expr(r.Pick(std::vector<T>{T::kInt, T::kBigInt, T::kNumeric, T::kDouble, T::kBool, T::kTs}), s, depth + 1);
            if (a.inexact || a.any_scale) return E{};  // the digits of a division are not compared as text
            return Combine("CAST(" + a.sql + " AS VARCHAR)", t, {&a});
          }
          case 5: {
            E a = sub();
            if (r.Chance(30)) return Combine("lpad(" + a.sql + ", " + IntText(r.Int(0, 5)) + ", 'x')", t, {&a});
            if (r.Chance(30)) {
              E b = Any(s, depth + 1);
              if (b.inexact || b.type == T::kDouble) b = sub();
              return Combine("concat(" + a.sql + ", " + b.sql + ")", t, {&a, &b});
            }
            return Combine("trim(" + a.sql + ")", t, {&a});
          }
          default: {
            E a = sub();
            return Combine("left(" + a.sql + ", " + IntText(r.Int(1, 2)) + ")", t, {&a});
          }
        }
      }
      case T::kBool: return Pred(s, depth);
      case T::kTs: {
        switch (r.Int(0, 2)) {
          case 0: {
            E a = sub();
            return Combine("(" + a.sql + " + INTERVAL '" + IntText(r.Int(1, 30)) + " hours')", t, {&a});
          }
          case 1: {
            E a = sub();
            return Combine("(" + a.sql + " - INTERVAL '" + IntText(r.Int(1, 40)) + " days')", t, {&a});
          }
          default: {
            E a = sub();
            return Combine("date_trunc(" + Quote(r.Pick(std::vector<std::string>{"day", "hour", "month"})) + ", " +
                               a.sql + ")",
                           t, {&a});
          }
        }
      }
    }
    return E{};
  }

  // A type that occurs in the scope (mostly), for comparisons.
  T ScopeType(const Scope& s) {
    if (!s.empty() && r.Chance(85)) return r.Pick(s).type;
    return kAllTypes[r.Int(0, 6)];
  }

  // An expression that reads a column (a few tries), for the left side of a predicate.
  E Subject(T t, const Scope& s, int depth) {
    E e = Expr(t, s, depth);
    for (int i = 0; i < 3 && e.items == 0 && !s.empty(); i++) e = Expr(t, s, depth);
    return e;
  }

  E Cmp(const E& a, const std::string& op, const E& b) {
    E e = Combine("(" + a.sql + " " + op + " " + b.sql + ")", T::kBool, {&a, &b});
    return e;
  }
  std::string CmpOp() { return r.Pick(std::vector<std::string>{"=", "<>", "<", "<=", ">", ">="}); }

  // A boolean expression.
  E Pred(const Scope& s, int depth) {
    bool leaf = depth >= max_depth + 1;
    int64_t roll = leaf ? r.Int(0, 39) : r.Int(0, 99);
    if (roll < 40) {  // comparison
      T t = ScopeType(s);
      E a = Subject(t, s, depth + 1);
      E b;
      if (r.Chance(60)) {
        T lt = t;
        if (Exact(t) && r.Chance(25)) lt = r.Pick(std::vector<T>{T::kInt, T::kNumeric, T::kBigInt});
        b = Literal(r, lt);
      } else {
        b = Expr(t, s, depth + 1);
      }
      return Cmp(a, CmpOp(), b);
    }
    if (roll < 48) {
      E a = Subject(ScopeType(s), s, depth + 1);
      return Combine("(" + a.sql + (r.Chance(50) ? " IS NULL)" : " IS NOT NULL)"), T::kBool, {&a});
    }
    if (roll < 53) {
      T t = ScopeType(s);
      E a = Subject(t, s, depth + 1), b = r.Chance(50) ? Literal(r, t) : Expr(t, s, depth + 1);
      return Cmp(a, r.Chance(50) ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM", b);
    }
    if (roll < 59) {
      T t = ScopeType(s);
      if (t == T::kBool) t = T::kInt;
      E a = Subject(t, s, depth + 1), lo = Literal(r, t), hi = Literal(r, t);
      return Combine("(" + a.sql + (r.Chance(80) ? " BETWEEN " : " NOT BETWEEN ") + lo.sql + " AND " + hi.sql + ")",
                     T::kBool, {&a});
    }
    if (roll < 65) {
      T t = ScopeType(s);
      E a = Subject(t, s, depth + 1);
      std::vector<std::string> list;
      int n = int(r.Int(1, 4));
      for (int i = 0; i < n; i++) list.push_back(r.Chance(10) ? "NULL" : Literal(r, t).sql);
      return Combine("(" + a.sql + (r.Chance(75) ? " IN (" : " NOT IN (") + Join(list, ", ") + "))", T::kBool, {&a});
    }
    if (roll < 69) {
      E a = Subject(T::kText, s, depth + 1);
      std::string pat = r.Pick(std::vector<std::string>{"'a%'", "'%b%'", "'_'", "'%'", "'A%'", "'k_'", "'%\\%%'"});
      return Combine("(" + a.sql + (r.Chance(80) ? " LIKE " : " NOT LIKE ") + pat + ")", T::kBool, {&a});
    }
    if (roll < 74) {  // a comparison with NULL: always unknown
      T t = ScopeType(s);
      E a = Subject(t, s, depth + 1);
      return Cmp(a, CmpOp(), r.Chance(50) ? TypedNull(t) : E{"NULL", t});
    }
    if (roll < 80) {
      auto bools = Of(s, T::kBool);
      E a = bools.empty() || r.Chance(20) ? Pred(s, depth + 1) : *r.Pick(bools);
      std::string form = r.Pick(std::vector<std::string>{"", " IS TRUE", " IS NOT TRUE", " IS FALSE", " IS NOT FALSE", " IS UNKNOWN"});
      if (form.empty()) return a;
      return Combine("(" + a.sql + form + ")", T::kBool, {&a});
    }
    if (roll < 93) {
      E a = Pred(s, depth + 1), b = Pred(s, depth + 1);
      return Combine("(" + a.sql + (r.Chance(55) ? " AND " : " OR ") + b.sql + ")", T::kBool, {&a, &b});
    }
    E a = Pred(s, depth + 1);
    return Combine("(NOT " + a.sql + ")", T::kBool, {&a});
  }

  // An aggregate call over the scope.
  E Agg(const Scope& s) {
    E e;
    e.agg = true;
    std::string filter;
    if (r.Chance(25)) filter = " FILTER (WHERE " + Pred(s, 1).sql + ")";
    for (int attempt = 0; attempt < 10; attempt++) {
      int64_t roll = r.Int(0, 99);
      if (roll < 12) {
        e.sql = "count(*)";
        e.type = T::kBigInt;
        e.bound = 1e7;
        break;
      }
      if (roll < 25) {
        E a = Any(s, 1);
        bool distinct = r.Chance(30);
        e = Combine(std::string("count(") + (distinct ? "DISTINCT " : "") + a.sql + ")", T::kBigInt, {&a});
        e.bound = 1e7;
        e.special = e.inexact = false;
        break;
      }
      if (roll < 60) {  // sum / avg
        T t = r.Pick(std::vector<T>{T::kInt, T::kBigInt, T::kNumeric, T::kDouble});
        E a = Expr(t, s, 1);
        if (a.inexact) continue;
        bool avg = r.Chance(40);
        bool distinct = r.Chance(20);
        T out = t == T::kDouble ? T::kDouble : avg || t != T::kInt ? T::kNumeric : T::kBigInt;
        e = Combine(std::string(avg ? "avg(" : "sum(") + (distinct ? "DISTINCT " : "") + a.sql + ")", out, {&a});
        e.bound = a.bound * 1e5;
        if (distinct && out == T::kNumeric) e.any_scale = true;
        if (avg && t == T::kDouble) e.inexact = true;
        if (avg && t != T::kDouble) e.inexact = true;
        break;
      }
      if (roll < 82) {  // min / max
        T t = ScopeType(s);
        if (t == T::kBool) t = T::kText;
        E a = Expr(t, s, 1);
        e = Combine(std::string(r.Chance(50) ? "min(" : "max(") + (r.Chance(10) ? "DISTINCT " : "") + a.sql + ")", t, {&a});
        if (t == T::kNumeric) e.any_scale = true;
        break;
      }
      if (roll < 91) {
        E p = Pred(s, 1);
        e = Combine(std::string(r.Chance(50) ? "bool_and(" : "bool_or(") + p.sql + ")", T::kBool, {&p});
        break;
      }
      if (r.Chance(35)) {  // as text: values that are equal print alike (not numerics: 1.0 = 1.00)
        E a = Expr(r.Pick(std::vector<T>{T::kInt, T::kBigInt, T::kText, T::kBool, T::kTs}), s, 1);
        if (a.items == 0) a.sql = std::string("CAST(") + a.sql + " AS " + SqlType(a.type) + ")";  // not 'unknown'
        e = Combine("CAST(array_agg(" + a.sql + " ORDER BY " + a.sql + (r.Chance(50) ? " DESC" : "") +
                        (r.Chance(30) ? " NULLS FIRST" : "") + ")" + filter + " AS VARCHAR)",
                    T::kText, {&a});
        filter.clear();
        break;
      }
      E a = Expr(T::kText, s, 1);
      e = Combine("string_agg(" + a.sql + ", ',' ORDER BY " + a.sql + (r.Chance(50) ? " DESC" : "") + ")", T::kText, {&a});
      break;
    }
    if (e.sql.empty()) {
      e.sql = "count(*)";
      e.type = T::kBigInt;
      e.bound = 1e7;
    }
    e.agg = true;
    e.sql += filter;
    return e;
  }
};

// ---------------------------------------------------------------------------
// Queries.
struct Query {
  int id = 0;
  std::string name;  // v<id>
  std::string sql;
  std::vector<E> out;     // output columns c0..cN (sql = name)
  std::set<int> deps;     // the views it reads
  int phase = 1;          // 0: before any row, 1: after the initial rows, 2: halfway
  std::string shape;      // e.g. "agg over join(left) of t0,(sub t1)"
  std::set<std::string> bugs;  // known-bug shapes it has
  bool big = false;            // over a join or a UNION, not aggregated (see Relation::big)
};

struct From {
  std::string sql;
  Scope scope;
  std::string shape;
  std::set<int> deps;
  std::set<std::string> bugs;
  int items = 0;
  bool hidden = false;  // a projection subquery: its stream has hidden key columns
  bool table = false;   // a table: its stream key is never NULL
};

struct QueryGen {
  Rng r;
  const Knobs& k;
  const std::vector<Relation>& rels;  // tables, then the views so far
  Gen g{r, k};

  QueryGen(Rng rng, const Knobs& knobs, const std::vector<Relation>& relations) : r(rng), k(knobs), rels(relations) {}

  size_t tables_before_views() const {
    size_t n = 0;
    for (const auto& rel : rels) n += rel.view < 0;
    return n;
  }

  // `for_join`: an input of a join: no big views (joins of joins of views grow fast).
  const Relation& PickRel(bool for_join = false) {
    // Tables more often than views.
    std::vector<const Relation*> tables, views;
    for (const auto& rel : rels)
      if (!(for_join && rel.big)) (rel.view < 0 ? tables : views).push_back(&rel);
    if (!views.empty() && r.Chance(30)) return *r.Pick(views);
    return *r.Pick(tables);
  }

  Scope ScopeOf(const Relation& rel, const std::string& alias, int item) {
    Scope s;
    for (const E& c : rel.cols) {
      E e = c;
      e.sql = alias + "." + c.sql;
      e.items = 1u << item;
      s.push_back(e);
    }
    return s;
  }

  // One FROM item: a table or view, or a subquery over one.
  // `projection`: whether the subquery may be a plain projection (whose
  // stream carries hidden key columns); else it aggregates or is DISTINCT.
  From Item(int item, bool allow_sub, bool projection = true, bool for_join = false) {
    From f;
    f.items = 1;
    const Relation& rel = PickRel(for_join);
    std::string alias = "a" + std::to_string(item);
    if (rel.view >= 0) f.deps.insert(rel.view);
    if (!allow_sub || !k.Shape("subquery") || r.Chance(55)) {
      f.sql = rel.name + " " + alias;
      f.scope = ScopeOf(rel, alias, item);
      f.shape = rel.name;
      f.table = rel.view < 0;
      return f;
    }
    // (SELECT ... FROM rel sI [WHERE ...] [GROUP BY ...]) aI
    std::string inner = "s" + std::to_string(item);
    Scope in = ScopeOf(rel, inner, 0);
    std::vector<std::string> list;
    Scope outer;
    bool agg = r.Chance(25);
    bool distinct = !agg && (!projection || r.Chance(10));
    if (!projection && !distinct) agg = true;
    std::vector<std::string> group;
    if (agg) {
      int nk = int(r.Int(1, 2));
      for (int i = 0; i < nk; i++) {
        E key = r.Chance(75) ? in[r.Next() % in.size()] : g.Expr(g.ScopeType(in), in, 1);
        if (key.items == 0) key = in[r.Next() % in.size()];  // a constant integer is a position to PostgreSQL
        if (std::find(group.begin(), group.end(), key.sql) != group.end()) continue;
        group.push_back(key.sql);
        E o = key;
        o.sql = alias + ".c" + std::to_string(list.size());
        o.items = 1u << item;
        Deduplicated(&o);
        list.push_back(key.sql + " AS c" + std::to_string(list.size()));
        outer.push_back(o);
      }
      int na = int(r.Int(1, 2));
      for (int i = 0; i < na; i++) {
        E a = g.Agg(in);
        E o = a;
        o.sql = alias + ".c" + std::to_string(list.size());
        o.items = 1u << item;
        o.agg = false;
        list.push_back(a.sql + " AS c" + std::to_string(list.size()));
        outer.push_back(o);
      }
    } else {
      int n = int(r.Int(1, 4));
      for (int i = 0; i < n; i++) {
        E e = r.Chance(70) ? in[r.Next() % in.size()] : g.Any(in, 1);
        E o = e;
        o.sql = alias + ".c" + std::to_string(list.size());
        o.items = 1u << item;
        if (distinct) Deduplicated(&o);
        list.push_back(e.sql + " AS c" + std::to_string(list.size()));
        outer.push_back(o);
      }
    }
    std::string sql = "(SELECT " + std::string(distinct ? "DISTINCT " : "") + Join(list, ", ") + " FROM " +
                      rel.name + " " + inner;
    if (r.Chance(60)) sql += " WHERE " + g.Pred(in, 1).sql;
    if (agg) sql += " GROUP BY " + Join(group, ", ");
    std::string kind = agg ? "agg " : distinct ? "distinct " : "sub ";
    if (!agg && projection && r.Chance(15)) {
      // A top-N (ORDER BY every column: ties are equal rows) or a UNION ALL: both carry hidden key columns.
      if (r.Chance(55)) {
        std::vector<E> cols;
        for (size_t i = 0; i < outer.size(); i++) {
          E c = outer[i];
          c.sql = "c" + std::to_string(i);
          cols.push_back(c);
        }
        sql += " ORDER BY " + OrderAll(cols, true) + " LIMIT " + IntText(r.Int(1, 8));
        kind = "topn ";
      } else if (!distinct) {
        const Relation& rel2 = PickRel(for_join);
        if (rel2.view >= 0) f.deps.insert(rel2.view);
        Scope in2 = ScopeOf(rel2, inner + "u", 0);
        std::vector<std::string> list2;
        for (size_t i = 0; i < outer.size(); i++) {
          E e = g.Expr(outer[i].type, in2, 1);
          list2.push_back(e.sql + " AS c" + std::to_string(i));
          outer[i].bound = std::max(outer[i].bound, e.bound);
          outer[i].special |= e.special;
          outer[i].inexact |= e.inexact;
          outer[i].any_scale |= e.any_scale;
        }
        sql += " UNION ALL SELECT " + Join(list2, ", ") + " FROM " + rel2.name + " " + inner + "u";
        if (r.Chance(50)) sql += " WHERE " + g.Pred(in2, 1).sql;
        kind = "union ";
      }
    }
    sql += ") " + alias;
    f.sql = sql;
    f.scope = outer;
    f.shape = "(" + kind + rel.name + ")";
    f.hidden = !agg && !distinct;  // a projection: its stream carries hidden key columns
    return f;
  }

  // An equality between the two sides: same join class, else casts to text.
  // `computed`: whether a key may need computing (a cast to the other
  // side's type, an expression); else the result is empty when no two
  // columns of one type exist.
  std::string Equality(const Scope& left, const Scope& right, bool computed = true, bool* was_computed = nullptr) {
    std::vector<std::pair<const E*, const E*>> pairs;
    for (const E& a : left)
      for (const E& b : right)
        if (computed ? JoinClass(a.type) == JoinClass(b.type) : a.type == b.type) pairs.push_back({&a, &b});
    if (!computed) {
      if (pairs.empty()) return "";
      auto [a, b] = r.Pick(pairs);
      return a->sql + " = " + b->sql;
    }
    if (was_computed) *was_computed = true;
    if (pairs.empty() || r.Chance(5)) {
      const E& a = r.Pick(left);
      const E& b = r.Pick(right);
      if (a.any_scale || b.any_scale) return "";
      return "CAST(" + a.sql + " AS VARCHAR) = CAST(" + b.sql + " AS VARCHAR)";
    }
    auto [a, b] = r.Pick(pairs);
    std::string as = a->sql, bs = b->sql;
    if (r.Chance(15)) {  // a key that is an expression
      if (Integral(a->type) && a->bound < 1e9) as = "(" + as + " + 1)";
      else if (a->type == T::kText) as = "upper(" + as + ")";
    }
    if (was_computed) *was_computed = as != a->sql || a->type != b->type;
    return as + " = " + bs;
  }

  // A condition that reads both sides.
  std::string Across(const Scope& left, const Scope& right, bool computed_eq = true) {
    std::vector<std::pair<const E*, const E*>> pairs;
    for (const E& a : left)
      for (const E& b : right)
        if (JoinClass(a.type) == JoinClass(b.type) || (Number(a.type) && Number(b.type))) pairs.push_back({&a, &b});
    std::string cond;
    if (pairs.empty()) {
      Scope both = left;
      both.insert(both.end(), right.begin(), right.end());
      cond = computed_eq ? g.Pred(both, 1).sql : g.Pred(r.Chance(50) ? left : right, 1).sql;
    } else {
      auto [a, b] = r.Pick(pairs);
      if (r.Chance(20) && Integral(a->type) && Integral(b->type) && a->bound < 1e9 && b->bound < 1e9)
        cond = "((" + a->sql + " + " + b->sql + ") " + g.CmpOp() + " " + IntText(r.Int(-2, 10)) + ")";
      else {
        std::string op = g.CmpOp();
        if (op == "=" && !computed_eq && a->type != b->type) op = "<>";  // "=" would be a computed join key
        cond = "(" + a->sql + " " + op + " " + b->sql + ")";
      }
    }
    if (r.Chance(15)) cond = "(" + cond + " OR " + g.Pred(r.Chance(50) ? left : right, 2).sql + ")";
    return cond;
  }

  From Joined(int n_items) {
    // A projection subquery only as the last (rightmost) input, unless the known bug is on.
    const bool bug_ok = k.Bug("join_left_subquery");
    From f = Item(0, true, bug_ok, true);
    if (f.hidden) f.bugs.insert("join_left_subquery");
    f.shape = "join(" + f.shape;
    for (int i = 1; i < n_items; i++) {
      From right;
      std::vector<std::string> conds;
      // Cross joins only between two inputs (a chain of them gets big).
      int64_t keys = n_items == 2 && r.Chance(5) ? 0 : r.Chance(20) ? 2 : 1;
      // In a chain of joins: keys that need no computing, unless the known bug is on.
      bool nested = n_items > 2;
      bool cast_ok = !nested || k.Bug("join_chain_key_cast");
      bool has_eq = false;
      for (int attempt = 0; attempt < 4 && (conds.empty() || attempt == 0); attempt++) {
        if (attempt == 3) {  // no two columns of one type: the chain ends here
          if (i >= 2) break;
          n_items = 2;
          nested = false;
          cast_ok = true;
        }
        if (attempt < 3) right = Item(i, true, bug_ok || i == n_items - 1, true);
        conds.clear();
        for (int64_t q = 0; q < keys; q++) {
          bool computed = false;
          std::string eq = Equality(f.scope, right.scope, cast_ok, &computed);
          if (eq.empty()) continue;
          if (computed && nested) f.bugs.insert("join_chain_key_cast");
          conds.push_back(eq);
          has_eq = true;
        }
        if (keys == 0) break;
      }
      if (keys > 0 && conds.empty()) break;  // (i >= 2)
      if (right.hidden && i < n_items - 1) f.bugs.insert("join_left_subquery");
      std::string type = r.Pick(std::vector<std::string>{"JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"});
      if (conds.empty() || r.Chance(50)) {  // a condition besides the equalities
        int64_t kind = r.Int(0, 9);
        if (kind < 6) conds.push_back(Across(f.scope, right.scope, cast_ok));
        else if (kind < 8) conds.push_back(g.Pred(right.scope, 1).sql);
        else conds.push_back(g.Pred(f.scope, 1).sql);
      }
      // PostgreSQL runs a FULL JOIN only with an equality (merge- or hash-joinable).
      if (type == "FULL JOIN" && !has_eq) type = "LEFT JOIN";
      // Unless the known bug is on, one side of a FULL JOIN is a table (whose stream key is not NULL).
      if (type == "FULL JOIN" && !right.table && !(i == 1 && f.table)) {
        if (k.Bug("full_join_null_keys")) f.bugs.insert("full_join_null_keys");
        else type = "LEFT JOIN";
      }
      f.sql += " " + type + " " + right.sql + " ON " + Join(conds, " AND ");
      f.scope.insert(f.scope.end(), right.scope.begin(), right.scope.end());
      f.deps.insert(right.deps.begin(), right.deps.end());
      f.shape += " " + type + " " + right.shape;
      f.items++;
    }
    f.shape += ")";
    f.hidden = false;
    return f;
  }

  From AnyFrom() {
    int64_t roll = r.Int(0, 99);
    if (k.Shape("join") && roll < 50) return Joined(r.Chance(80) ? 2 : 3);
    From f = Item(0, k.Shape("subquery") && r.Chance(40));
    f.hidden = false;
    return f;
  }

  // In a chain of joins (unless the known bug is on) a condition over
  // several inputs could become a join key that needs computing: one input only.
  // A condition with a subquery over a table (subquery_unnesting.h): [NOT]
  // EXISTS, [NOT] IN, op ANY/ALL, a comparison with a scalar aggregate or
  // with the first row by an order (LIMIT 1), IN the first n rows;
  // correlated with the FROM items by a comparison, mostly an equality (and
  // for EXISTS maybe another comparison too), or not. Empty when no table has a column to match.
  std::string SubqueryPred(From& f) {
    const E& c = r.Pick(f.scope);
    std::vector<std::pair<const Relation*, const E*>> same;  // table columns c may be compared with
    for (const auto& rel : rels)
      if (rel.view < 0)
        for (const auto& col : rel.cols)
          if (JoinClass(col.type) == JoinClass(c.type)) same.emplace_back(&rel, &col);
    if (same.empty()) return "";
    auto [rel, col] = r.Pick(same);
    const std::string alias = "sq" + std::to_string(r.Int(0, 99));
    const std::string inner = alias + "." + col->sql;
    // The correlation: an inner column equal to an outer one of its class.
    std::string where;
    if (r.Chance(65)) {
      const E& o = r.Pick(f.scope);
      std::vector<const E*> match;
      for (const auto& ic : rel->cols)
        if (JoinClass(ic.type) == JoinClass(o.type)) match.push_back(&ic);
      if (!match.empty()) where = alias + "." + r.Pick(match)->sql + " " + (r.Chance(75) ? "=" : g.CmpOp()) + " " + o.sql;
    }
    auto with = [&](const std::string& extra) {
      std::string w = where;
      if (!extra.empty()) w += (w.empty() ? "" : " AND ") + extra;
      return w.empty() ? std::string() : " WHERE " + w;
    };
    const std::string from = " FROM " + rel->name + " " + alias;
    // A lookup by the table's key: no row for most outer rows, where the
    // subquery is NULL whatever its expression gives over NULLs.
    if (rel->pk >= 0 && r.Chance(15)) {
      const E& key = rel->cols[size_t(rel->pk)];
      std::vector<const E*> outer;
      for (const auto& o : f.scope)
        if (JoinClass(o.type) == JoinClass(key.type)) outer.push_back(&o);
      if (!outer.empty())
        return "((SELECT " + inner + " IS NULL" + from + " WHERE " + alias + "." + key.sql + " = " + r.Pick(outer)->sql +
               ")" + (r.Chance(50) ? " IS NULL)" : " IS NOT FALSE)");
    }
    switch (r.Int(0, 5)) {
      case 5:  // the first row(s) by an order made total by the key: LIMIT 1 scalar, or IN of the first n
        if (rel->pk >= 0) {
          const std::string order = " ORDER BY " + alias + "." + r.Pick(rel->cols).sql + (r.Chance(50) ? " DESC" : "") + ", " +
                                    alias + "." + rel->cols[size_t(rel->pk)].sql;
          if (r.Chance(50))
            return "(" + c.sql + " " + g.CmpOp() + " (SELECT " + inner + from + with("") + order + " LIMIT 1))";
          return "(" + c.sql + " IN (SELECT " + inner + from + with("") + order + " LIMIT " + std::to_string(r.Int(1, 3)) +
                 (r.Chance(30) ? " OFFSET 1" : "") + "))";
        }
        [[fallthrough]];
      case 0: {  // [NOT] EXISTS, maybe with a non-equality on the outer row
        std::string extra;
        if (r.Chance(40)) extra = inner + " " + g.CmpOp() + " " + c.sql;
        return std::string(r.Chance(60) ? "" : "NOT ") + "EXISTS (SELECT 1" + from + with(extra) + ")";
      }
      case 1:  // [NOT] IN
        return "(" + c.sql + (r.Chance(65) ? " IN " : " NOT IN ") + "(SELECT " + inner + from + with("") + "))";
      case 2: {  // op ANY / ALL, maybe negated
        std::string p = c.sql + " " + g.CmpOp() + (r.Chance(50) ? " ANY " : " ALL ") + "(SELECT " + inner + from + with("") + ")";
        return r.Chance(25) ? "NOT (" + p + ")" : "(" + p + ")";
      }
      default: {  // a comparison with an aggregate (exact ones: no sums of doubles)
        std::vector<std::string> aggs = {"min", "max", "count"};
        if (Exact(col->type)) aggs.push_back("sum");
        std::string agg = r.Pick(aggs);
        if (agg == "count" && !Number(c.type)) agg = "min";
        if (col->type == T::kBool) agg = r.Chance(50) ? "bool_and" : "bool_or";  // no min(boolean)
        return "(" + c.sql + " " + g.CmpOp() + " (SELECT " + agg + "(" + inner + ")" + from + with("") + "))";
      }
    }
  }

  std::string Where(From& f) {
    if (k.Shape("subquery") && r.Chance(12)) {
      std::string p = SubqueryPred(f);
      // Sometimes under OR (IN and EXISTS then three-valued, as a mark join).
      if (!p.empty() && r.Chance(25)) p = "(" + p + " OR " + g.Pred(f.scope, 1).sql + ")";
      if (!p.empty()) return p;
    }
    for (int attempt = 0; attempt < 8; attempt++) {
      E p = g.Pred(f.scope, 1);
      if (f.items > 2 && !k.Bug("join_chain_key_cast") && __builtin_popcount(p.items) > 1) continue;
      return p.sql;
    }
    return "";
  }

  void Finish(From& f, Query* q) {
    q->bugs.insert(f.bugs.begin(), f.bugs.end());
    q->deps.insert(f.deps.begin(), f.deps.end());
  }

  E OutCol(const E& e, size_t i) {
    E o = e;
    o.sql = "c" + std::to_string(i);
    o.items = 0;
    o.agg = false;
    return o;
  }

  // Columns that GROUP BY, DISTINCT or UNION made of equal values: a
  // numeric's scale is that of whichever row was kept (E::any_scale).
  static void Deduplicated(E* e) {
    if (e->type == T::kNumeric) e->any_scale = true;
  }
  static void Deduplicated(std::vector<E>* out, size_t from = 0) {
    for (size_t i = from; i < out->size(); i++) Deduplicated(&(*out)[i]);
  }

  // SELECT [DISTINCT] list FROM ... [WHERE ...]
  std::string SelectBody(From& f, std::vector<E>* out, const std::vector<T>* types = nullptr,
                         std::vector<E>* exprs = nullptr, size_t* list_end = nullptr) {
    std::vector<std::string> list;
    int n = types ? int(types->size()) : int(r.Int(1, 5));
    for (int i = 0; i < n; i++) {
      E e;
      if (types) e = g.Expr((*types)[i], f.scope, r.Chance(60) ? 2 : 0);
      else e = r.Chance(60) ? f.scope[r.Next() % f.scope.size()] : g.Any(f.scope, 0);
      list.push_back(e.sql + " AS c" + std::to_string(i));
      out->push_back(OutCol(e, i));
      if (exprs) exprs->push_back(e);
    }
    std::string sql = Join(list, ", ");
    if (list_end) *list_end = sql.size();
    sql += " FROM " + f.sql;
    if (r.Chance(55)) {
      std::string w = Where(f);
      if (!w.empty()) sql += " WHERE " + w;
    }
    return sql;
  }

  // SELECT keys..., aggs... FROM ... [WHERE] [GROUP BY ... [HAVING ...]]
  std::string AggBody(From& f, std::vector<E>* out, bool global) {
    std::vector<std::string> list, group;
    if (!global) {
      int nk = int(r.Int(1, 3));
      for (int i = 0; i < nk; i++) {
        E key = r.Chance(70) ? f.scope[r.Next() % f.scope.size()] : g.Expr(g.ScopeType(f.scope), f.scope, 1);
        if (key.items == 0) key = f.scope[r.Next() % f.scope.size()];  // a constant integer is a position to PostgreSQL
        if (std::find(group.begin(), group.end(), key.sql) != group.end()) continue;
        group.push_back(key.sql);
        if (r.Chance(90) || i == 0) {
          list.push_back(key.sql + " AS c" + std::to_string(out->size()));
          out->push_back(OutCol(key, out->size()));
          Deduplicated(&out->back());
        }
      }
    }
    int na = int(r.Int(1, 4));
    for (int i = 0; i < na; i++) {
      E a = g.Agg(f.scope);
      if (r.Chance(10) && a.type == T::kBigInt && a.sql.rfind("count", 0) == 0) {
        a.sql = "(" + a.sql + " * 2 + 1)";
      } else if (r.Chance(8)) {
        E b = Literal(r, a.type);
        a.sql = "COALESCE(" + a.sql + ", " + b.sql + ")";
      }
      list.push_back(a.sql + " AS c" + std::to_string(out->size()));
      out->push_back(OutCol(a, out->size()));
    }
    std::string sql = Join(list, ", ") + " FROM " + f.sql;
    if (r.Chance(45)) {
      std::string w = Where(f);
      if (!w.empty()) sql += " WHERE " + w;
    }
    if (global && r.Chance(15)) {
      E a = g.Agg(f.scope);
      sql += " HAVING (" + a.sql + " " + g.CmpOp() + " " + Literal(r, a.type).sql + ")";
    }
    if (!group.empty()) {
      sql += " GROUP BY " + Join(group, ", ");
      if (r.Chance(35)) {
        E a = g.Agg(f.scope);
        E lit = Literal(r, a.type);
        std::string having = "(" + a.sql + " " + g.CmpOp() + " " + lit.sql + ")";
        if (r.Chance(30)) having = "(" + having + (r.Chance(50) ? " OR " : " AND ") + "(" + group[0] + " IS NULL))";
        sql += " HAVING " + having;
      }
    }
    return sql;
  }

  std::string OrderAll(const std::vector<E>& out, bool aliases) {
    std::vector<std::string> keys;
    std::vector<size_t> idx(out.size());
    for (size_t i = 0; i < idx.size(); i++) idx[i] = i;
    for (size_t i = idx.size(); i > 1; i--) std::swap(idx[i - 1], idx[r.Next() % i]);  // any column order
    for (size_t i : idx) {
      std::string key = aliases ? out[i].sql : "";
      if (r.Chance(40)) key += " DESC";
      if (r.Chance(30)) key += r.Chance(50) ? " NULLS FIRST" : " NULLS LAST";
      keys.push_back(key);
    }
    return Join(keys, ", ");
  }

  // A window function call over the FROM scope whose result does not
  // depend on the order of peers: functions that read other rows' values
  // (lag, first_value, ROWS frames, ...) order by every column of the scope
  // (rows then equal in all columns are interchangeable); rank-like
  // functions and RANGE/GROUPS frames (whole peer groups) order by one.
  // Two such calls together would pair their values by the order of rows
  // equal in every column, which SQL leaves open: `*positional` says one
  // was made, and the next is then not.
  std::string WindowCall(const From& f, E* out, bool* positional) {
    std::vector<std::string> part;
    int np = int(r.Int(0, 2));
    for (int i = 0; i < np; i++) part.push_back(f.scope[r.Next() % f.scope.size()].sql);
    auto direction = [&] {
      std::string d = r.Chance(40) ? " DESC" : "";
      if (r.Chance(30)) d += r.Chance(50) ? " NULLS FIRST" : " NULLS LAST";
      return d;
    };
    auto order_all = [&] {
      std::vector<std::string> keys;
      std::vector<size_t> idx(f.scope.size());
      for (size_t i = 0; i < idx.size(); i++) idx[i] = i;
      for (size_t i = idx.size(); i > 1; i--) std::swap(idx[i - 1], idx[r.Next() % i]);
      for (size_t i : idx) keys.push_back(f.scope[i].sql + direction());
      return Join(keys, ", ");
    };
    std::vector<const E*> ints;  // integer columns: RANGE offsets, sums
    for (const E& e : f.scope)
      if (Integral(e.type) && e.bound <= 1e9) ints.push_back(&e);
    const E& any = f.scope[r.Next() % f.scope.size()];
    std::string call, order, frame;
    int pick = int(r.Int(0, 7));
    if (pick == 5 && ints.empty()) pick = 0;
    if (pick >= 1 && pick <= 4) {
      if (*positional) pick = 0;
      *positional = true;
    }
    out->type = T::kBigInt;
    out->bound = 1e7;
    switch (pick) {
      case 0: {  // ranks over one sort key (peers share them)
        static const std::vector<std::string> kRanks = {"rank()", "dense_rank()", "percent_rank()", "cume_dist()"};
        call = r.Pick(kRanks);
        order = any.sql + direction();
        if (call == "percent_rank()" || call == "cume_dist()") {
          out->type = T::kDouble;
          out->bound = 1;
          out->inexact = true;
        }
        break;
      }
      case 1:
        call = r.Chance(50) ? "row_number()" : "ntile(" + std::to_string(r.Int(1, 4)) + ")";
        order = order_all();
        if (call != "row_number()") out->type = T::kInt;
        break;
      case 2: {  // lag / lead
        *out = any;
        out->items = 0;
        out->agg = false;
        call = std::string(r.Chance(50) ? "lag(" : "lead(") + any.sql;
        if (r.Chance(60)) call += ", " + std::to_string(r.Int(0, 3));
        if (r.Chance(40)) call += (call.find(',') == std::string::npos ? ", 1, " : ", ") + Literal(r, any.type).sql;
        call += ")";
        order = order_all();
        break;
      }
      case 3: {  // first/last/nth_value over the default or a ROWS frame
        *out = any;
        out->items = 0;
        out->agg = false;
        static const std::vector<std::string> kFns = {"first_value", "last_value", "nth_value"};
        std::string fn = r.Pick(kFns);
        call = fn + "(" + any.sql + (fn == "nth_value" ? ", " + std::to_string(r.Int(1, 3)) : "") + ")";
        order = order_all();
        if (r.Chance(60))
          frame = r.Pick(std::vector<std::string>{"ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                                                   "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                                                   "ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING",
                                                   "ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING EXCLUDE CURRENT ROW"});
        break;
      }
      case 4: {  // count over a ROWS frame
        call = r.Chance(50) ? "count(*)" : "count(" + any.sql + ")";
        order = order_all();
        frame = r.Pick(std::vector<std::string>{"ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "ROWS UNBOUNDED PRECEDING",
                                                 "ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING"});
        break;
      }
      case 5: {  // sum/min/max of an integer over RANGE or GROUPS frames (peer groups whole)
        const E& x = *r.Pick(ints);
        static const std::vector<std::string> kAggs = {"sum", "min", "max", "count"};
        std::string agg = r.Pick(kAggs);
        call = agg + "(" + x.sql + ")";
        if (agg == "sum") out->bound = x.bound * 1e4;
        else if (agg != "count") *out = x, out->items = 0, out->agg = false;
        order = x.sql + direction();
        frame = r.Pick(std::vector<std::string>{"RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING", "RANGE BETWEEN CURRENT ROW AND 5 FOLLOWING",
                                                 "GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                                                 "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP",
                                                 "GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE TIES", ""});
        break;
      }
      default: {  // an aggregate over the whole partition (no ORDER BY) or running
        std::vector<std::string> aggs = {"count(*)", "min(" + any.sql + ")", "max(" + any.sql + ")"};
        if (any.type == T::kBool) aggs = {"count(*)", "bool_and(" + any.sql + ")", "bool_or(" + any.sql + ")"};
        call = r.Pick(aggs);
        if (call != "count(*)") *out = any, out->items = 0, out->agg = false;
        if (r.Chance(50)) order = order_all();
        break;
      }
    }
    std::string over;
    if (!part.empty()) over = "PARTITION BY " + Join(part, ", ");
    if (!order.empty()) over += (over.empty() ? "" : " ") + std::string("ORDER BY ") + order;
    if (!frame.empty()) over += " " + frame;
    return call + " OVER (" + over + ")";
  }

  Query Make(int id) {
    Query q;
    q.id = id;
    q.name = "v" + std::to_string(id);
    std::vector<std::string> kinds;
    for (const char* s : {"select", "agg", "global", "topn", "grouptopn", "union", "window"})
      if (k.Shape(s)) kinds.push_back(s);
    static const std::map<std::string, int> weight = {{"select", 26}, {"agg", 28}, {"global", 9}, {"topn", 14},
                                                      {"grouptopn", 9}, {"union", 14}, {"window", 12}};
    int total = 0;
    for (auto& s : kinds) total += weight.at(s);
    int64_t roll = r.Int(0, std::max(total, 1) - 1);
    std::string kind = kinds.empty() ? "select" : kinds[0];
    for (auto& s : kinds) {
      if (roll < weight.at(s)) {
        kind = s;
        break;
      }
      roll -= weight.at(s);
    }
    From f = AnyFrom();
    if (kind == "select") {
      const bool distinct = r.Chance(20);
      q.sql = std::string("SELECT ") + (distinct ? "DISTINCT " : "") + SelectBody(f, &q.out);
      if (distinct) Deduplicated(&q.out);
    } else if (kind == "agg" || kind == "global") {
      q.sql = "SELECT " + AggBody(f, &q.out, kind == "global");
    } else if (kind == "topn") {
      bool agg = r.Chance(35);
      std::string body = agg ? AggBody(f, &q.out, false) : SelectBody(f, &q.out);
      const bool distinct = !agg && r.Chance(15);
      if (distinct) Deduplicated(&q.out);
      if (r.Chance(25)) {
        // WITH TIES over one key: every row equal to the last on it.
        std::vector<E> first(q.out.begin(), q.out.begin() + 1);
        q.sql = std::string("SELECT ") + (distinct ? "DISTINCT " : "") + body + " ORDER BY " + OrderAll(first, true) +
                " FETCH FIRST " + std::to_string(r.Int(1, 6)) + " ROWS WITH TIES";
      } else {
        q.sql = std::string("SELECT ") + (distinct ? "DISTINCT " : "") + body + " ORDER BY " +
                OrderAll(q.out, true) + " LIMIT " + std::to_string(r.Int(1, 6));
        if (r.Chance(25)) q.sql += " OFFSET " + std::to_string(r.Int(1, 3));
      }
    } else if (kind == "grouptopn") {
      // SELECT x.c0, ..., x.rn FROM (SELECT e0 AS c0, ..., row_number() OVER (PARTITION BY p ORDER BY e0, ...) AS rn ...) x WHERE rn <= N
      std::vector<E> inner, tmp, keys;
      size_t from = 0;
      std::string body = SelectBody(f, &inner, nullptr, &tmp, &from);
      for (const E& e : tmp)
        if (e.items != 0) keys.push_back(e);  // constants do not order (and PostgreSQL refuses some)
      std::vector<std::string> part;
      int np = int(r.Int(0, 2));
      for (int i = 0; i < np; i++) part.push_back(f.scope[r.Next() % f.scope.size()].sql);
      // rank() ranks peers alike: ordered by one key, it keeps the ties
      // (a group top-N with ties); row_number() orders by every key.
      const bool rank = !keys.empty() && r.Chance(35);
      if (rank) keys.resize(1);
      std::string window = std::string(rank ? "rank()" : "row_number()") + " OVER (" +
                           (part.empty() ? "" : "PARTITION BY " + Join(part, ", ")) +
                           (keys.empty() ? "" : (part.empty() ? "" : " ") + std::string("ORDER BY ") + OrderAll(keys, true)) + ")";
      std::string inner_sql = body.substr(0, from) + ", " + window + " AS rn" + body.substr(from);
      std::vector<std::string> list;
      for (size_t i = 0; i < inner.size(); i++) {
        list.push_back("x.c" + std::to_string(i) + " AS c" + std::to_string(i));
        q.out.push_back(inner[i]);
      }
      bool keep_rn = r.Chance(60);
      if (keep_rn) {
        list.push_back("x.rn AS c" + std::to_string(inner.size()));
        E rn;
        rn.sql = "c" + std::to_string(inner.size());
        rn.type = T::kBigInt;
        rn.bound = 1e7;
        q.out.push_back(rn);
      }
      int64_t n = r.Int(1, 3);
      std::string cond = r.Chance(70) ? "x.rn <= " + std::to_string(n) : n == 1 ? "x.rn = 1" : "x.rn < " + std::to_string(n + 1);
      q.sql = "SELECT " + Join(list, ", ") + " FROM (SELECT " + inner_sql + ") x WHERE " + cond;
    } else if (kind == "window") {
      // SELECT e0 AS c0, ..., f(...) OVER (PARTITION BY ... ORDER BY ... [frame]) AS cN, ... FROM ...
      size_t from = 0;
      std::string body = SelectBody(f, &q.out, nullptr, nullptr, &from);
      std::vector<std::string> calls;
      int nw = int(r.Int(1, 2));
      bool positional = false;  // one call at most may depend on the order of equal rows (see WindowCall)
      for (int i = 0; i < nw; i++) {
        E out;
        calls.push_back(WindowCall(f, &out, &positional) + " AS c" + std::to_string(q.out.size()));
        out.sql = "c" + std::to_string(q.out.size());
        q.out.push_back(out);
      }
      q.sql = "SELECT " + body.substr(0, from) + ", " + Join(calls, ", ") + body.substr(from);
    } else {  // union
      std::string first = SelectBody(f, &q.out);
      std::vector<T> types;
      for (const E& e : q.out) types.push_back(e.type);
      Finish(f, &q);
      int branches = r.Chance(20) ? 3 : 2;
      bool all = r.Chance(70);
      q.sql = "SELECT " + first;
      for (int b = 1; b < branches; b++) {
        From f2 = AnyFrom();
        std::vector<E> out2;
        std::string next = SelectBody(f2, &out2, &types);
        for (size_t i = 0; i < q.out.size(); i++) {
          q.out[i].bound = std::max(q.out[i].bound, out2[i].bound);
          q.out[i].special |= out2[i].special;
          q.out[i].inexact |= out2[i].inexact;
          q.out[i].any_scale |= out2[i].any_scale;
        }
        // UNION ALL mostly, INTERSECT ALL or EXCEPT ALL sometimes; without
        // ALL: UNION, INTERSECT or EXCEPT (each a distinct set).
        const char* op = all ? (r.Chance(80) ? " UNION ALL " : r.Chance(50) ? " INTERSECT ALL " : " EXCEPT ALL ")
                             : r.Chance(40) ? " UNION " : r.Chance(50) ? " INTERSECT " : " EXCEPT ";
        if (std::string(op) != " UNION ALL ") Deduplicated(&q.out);  // grouped: which row's numeric scale is open
        Finish(f2, &q);
        q.sql += std::string(op) + "SELECT " + next;
        f.shape += op + f2.shape;
      }
    }
    Finish(f, &q);
    q.bugs.insert(g.used_bugs.begin(), g.used_bugs.end());
    bool reads_big = false;
    for (int d : q.deps) reads_big |= rels[d + tables_before_views()].big;
    q.big = (f.items > 1 || kind == "union" || reads_big) && (kind == "select" || kind == "union" || kind == "grouptopn");
    q.shape = kind + " over " + f.shape;
    return q;
  }
};

// ---------------------------------------------------------------------------
// Tables and their data.
struct TableCol {
  std::string name;
  T type;
  bool extreme = false;  // holds the type's extreme values (no arithmetic on it)
  int null_pct = 10;
};
struct Table {
  std::string name;
  std::vector<TableCol> cols;
  int pk = -1;          // the primary key column, or none
  int64_t next_pk = 1;  // fresh keys start here; every existing key is below it
  int shifts = 0;
  bool bulk_done = false;
  Relation rel;
};

std::string Value(Rng& r, const TableCol& c) {
  if (r.Chance(c.null_pct)) return "NULL";
  switch (c.type) {
    case T::kInt: {
      if (c.extreme && r.Chance(25))
        return r.Pick(std::vector<std::string>{"2147483647", "-2147483648", "0", "-1", "2147483646"});
      return IntText(r.Chance(85) ? r.Int(-3, 8) : r.Int(-1000, 1000));
    }
    case T::kBigInt: {
      if (c.extreme && r.Chance(25))
        return r.Pick(std::vector<std::string>{"9223372036854775807", "-9223372036854775808", "0", "4294967296",
                                               "-2147483649"});
      return IntText(r.Chance(80) ? r.Int(-3, 8) : r.Chance(50) ? r.Int(-1000, 1000) : r.Int(-1000000000000LL, 1000000000000LL));
    }
    case T::kNumeric: return NumericText(r, c.extreme && r.Chance(20));
    case T::kDouble: return DoubleText(r, c.extreme);
    case T::kText: return Quote(r.Pick(kWords));
    case T::kBool: return r.Chance(50) ? "true" : "false";
    case T::kTs: return Quote(r.Pick(kTimestamps));
  }
  return "NULL";
}

double ColBound(const TableCol& c) {
  switch (c.type) {
    case T::kInt: return c.extreme ? 2147483648.0 : 2000;
    case T::kBigInt: return c.extreme ? 9.3e18 : 2e12;
    case T::kDouble: return 200000;
    case T::kNumeric: return c.extreme ? 1e12 : 1000;
    default: return 0;
  }
}

std::vector<Table> MakeTables(Rng& r) {
  std::vector<Table> tables;
  int n = int(r.Int(2, 4));
  for (int t = 0; t < n; t++) {
    Table tab;
    tab.name = "t" + std::to_string(t);
    int ncols = int(r.Int(3, 6));
    bool has_pk = r.Chance(55);
    std::set<T> used;
    for (int c = 0; c < ncols; c++) {
      TableCol col;
      col.name = std::string(1, char('a' + c));
      if (c == 0 && has_pk) {
        col.type = r.Pick(std::vector<T>{T::kInt, T::kInt, T::kBigInt, T::kText});
        col.null_pct = 0;
        tab.pk = 0;
      } else if (c == 1 || (c == 0 && !has_pk)) {
        col.type = r.Chance(75) ? T::kInt : T::kBigInt;  // a join-friendly small-domain column
        col.null_pct = int(r.Pick(std::vector<int64_t>{5, 10, 20}));
      } else {
        col.type = kAllTypes[r.Int(0, 6)];
        col.null_pct = int(r.Pick(std::vector<int64_t>{0, 10, 15, 30}));
        col.extreme = (Number(col.type) && col.type != T::kNumeric) ? r.Chance(35) : r.Chance(30);
      }
      tab.cols.push_back(col);
    }
    for (const auto& c : tab.cols) {
      E e;
      e.sql = c.name;
      e.type = c.type;
      e.bound = ColBound(c);
      if (tab.pk == 0 && &c == &tab.cols[0] && Integral(c.type)) e.bound = 1e9;
      e.special = c.type == T::kDouble && c.extreme;
      tab.rel.cols.push_back(e);
    }
    tab.rel.name = tab.name;
    tab.rel.pk = tab.pk;
    tables.push_back(tab);
  }
  return tables;
}

// The SQL functions the queries call (Gen::SqlFunctionCall): an expression
// body with a DEFAULT, a STRICT one, a RETURN body, and one counting the
// rows of `first` whose first integer column equals its argument.
std::vector<std::string> SqlFunctions(const Table& first) {
  std::string match = "x IS NOT NULL";
  for (const auto& c : first.cols)
    if (Integral(c.type) && !c.extreme) {
      match = first.name + "." + c.name + " = x";
      break;
    }
  return {
      "CREATE FUNCTION vf_add(x bigint, y bigint DEFAULT 1) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT x + y'",
      "CREATE FUNCTION vf_twice(x bigint) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT AS $$SELECT coalesce(x, 7) * 2$$",
      "CREATE FUNCTION vf_pick(c boolean, a varchar, b varchar) RETURNS varchar LANGUAGE sql IMMUTABLE "
      "RETURN CASE WHEN c THEN a ELSE b END",
      "CREATE FUNCTION vf_cnt(x bigint) RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM " + first.name +
          " WHERE " + match + "'",
  };
}

std::string CreateTable(const Table& t) {
  std::vector<std::string> cols;
  for (size_t i = 0; i < t.cols.size(); i++)
    cols.push_back(t.cols[i].name + " " + SqlType(t.cols[i].type) + (int(i) == t.pk ? " PRIMARY KEY" : ""));
  return "CREATE TABLE " + t.name + " (" + Join(cols, ", ") + ")";
}

std::string PkText(Table& t, int64_t key) {
  return t.cols[t.pk].type == T::kText ? Quote("k" + std::to_string(key)) : IntText(key);
}

std::string Row(Rng& r, Table& t, std::string pk_value = "") {
  std::vector<std::string> v;
  for (size_t i = 0; i < t.cols.size(); i++) {
    if (int(i) == t.pk) v.push_back(pk_value.empty() ? PkText(t, t.next_pk++) : pk_value);
    else v.push_back(Value(r, t.cols[i]));
  }
  return "(" + Join(v, ", ") + ")";
}

std::string Insert(Rng& r, Table& t, int n) {
  std::vector<std::string> rows;
  std::string prev;
  for (int i = 0; i < n; i++) {
    if (t.pk < 0 && !prev.empty() && r.Chance(20)) rows.push_back(prev);  // an exact duplicate
    else rows.push_back(prev = Row(r, t));
  }
  return "INSERT INTO " + t.name + " VALUES " + Join(rows, ", ");
}

// INSERT ... SELECT ... FROM generate_series(1, n): many rows in one
// statement (several chunks), values cycling with i, some NULLs.
std::string BulkInsert(Rng& r, Table& t, int n) {
  std::vector<std::string> cols;
  for (size_t c = 0; c < t.cols.size(); c++) {
    const TableCol& col = t.cols[c];
    // Mostly distinct values (joins on them stay small), sometimes ~20-50 of them.
    std::string im = r.Chance(60) ? "(i * " + IntText(r.Pick(std::vector<int64_t>{7919, 104729, 31})) + " % 2003 - 1000)"
                                  : "(i % " + IntText(r.Int(20, 50)) + " - " + IntText(r.Int(0, 5)) + ")";
    std::string v;
    if (int(c) == t.pk) {
      std::string key = "(" + IntText(t.next_pk) + " + i)";
      v = col.type == T::kText ? "'k' || CAST(" + key + " AS VARCHAR)" : key;
      cols.push_back(v);
      continue;
    }
    switch (col.type) {
      case T::kInt: v = im; break;
      case T::kBigInt: v = "CAST(" + im + " AS BIGINT)"; break;
      case T::kNumeric: v = "CAST(" + im + " AS NUMERIC) * 0.25"; break;
      case T::kDouble: v = "CAST(" + im + " AS DOUBLE PRECISION) * 0.5"; break;
      case T::kText: v = "'k' || CAST(" + im + " AS VARCHAR)"; break;
      case T::kBool: v = "(" + im + " = 0)"; break;
      case T::kTs: v = "TIMESTAMP '2024-01-01 00:00:00' + " + im + " * INTERVAL '1 hour'"; break;
    }
    if (col.null_pct > 0) v = "CASE WHEN i % 7 = " + IntText(r.Int(0, 6)) + " THEN NULL ELSE " + v + " END";
    cols.push_back(v);
  }
  t.next_pk += n + 1;
  return "INSERT INTO " + t.name + " SELECT " + Join(cols, ", ") + " FROM generate_series(1, " + IntText(n) + ") AS g(i)";
}

// ---------------------------------------------------------------------------
// Random DML on one table. Never fails by construction (no duplicate keys,
// no overflow), so that Freshet and PostgreSQL stay in step.
struct DmlGen {
  Rng r;
  Knobs knobs;
  Gen g{r, knobs};

  Scope TableScope(const Table& t) { return t.rel.cols; }

  std::string Pred(const Table& t) {
    Scope s = TableScope(t);
    if (t.pk >= 0 && r.Chance(25)) {
      int64_t a = r.Int(1, std::max<int64_t>(1, t.next_pk - 1));
      if (t.cols[t.pk].type == T::kText) return t.cols[t.pk].name + " = " + Quote("k" + std::to_string(a));
      return t.cols[t.pk].name + " BETWEEN " + IntText(a) + " AND " + IntText(a + r.Int(0, 6));
    }
    return g.Pred(s, 1).sql;
  }

  std::string NewValue(const Table& t, size_t ci) {
    const TableCol& c = t.cols[ci];
    int64_t roll = r.Int(0, 99);
    if (roll < 50) return Value(r, c);
    if (roll < 60) return "NULL";
    if (roll < 75) {
      for (size_t j = 0; j < t.cols.size(); j++) {
        const TableCol& o = t.cols[j];
        if (j != ci && int(j) != t.pk && o.type == c.type && (c.extreme || !o.extreme)) return o.name;
      }
      return Value(r, c);
    }
    if (c.extreme) return Value(r, c);
    switch (c.type) {
      case T::kInt:
      case T::kBigInt: return r.Pick(std::vector<std::string>{"-" + c.name, c.name + " + 1", c.name + " - 1"});
      case T::kNumeric: return r.Pick(std::vector<std::string>{"-" + c.name, c.name + " + 0.5", c.name + " - 1.25"});
      case T::kDouble: return r.Pick(std::vector<std::string>{"-" + c.name, c.name + " + 0.25"});
      case T::kText: return r.Pick(std::vector<std::string>{"upper(" + c.name + ")", "substr(" + c.name + ", 1, 1)", c.name + " || 'x'"});
      case T::kBool: return "NOT " + c.name;
      case T::kTs: return c.name + " + INTERVAL '1 day'";
    }
    return "NULL";
  }

  // One or two statements (a delete-and-reinsert of a key is two).
  std::vector<std::string> Statement(Table& t) {
    int64_t roll = r.Int(0, 99);
    if (roll < 4 && !t.bulk_done) {  // once per table: the data stays small enough for joins
      t.bulk_done = true;
      return {BulkInsert(r, t, int(r.Int(100, 300)))};
    }
    if (roll < 35) return {Insert(r, t, int(r.Int(1, 6)))};
    if (roll < 70) {
      std::vector<std::string> sets;
      if (t.pk >= 0 && r.Chance(10) && t.next_pk < 50000000) {
        // Moves rows to new keys: every key is below next_pk, so key + next_pk is new.
        const TableCol& pk = t.cols[t.pk];
        std::string set = pk.type == T::kText ? pk.name + " = " + pk.name + " || '+" + std::to_string(++t.shifts) + "'"
                                              : pk.name + " = " + pk.name + " + " + IntText(t.next_pk);
        if (pk.type != T::kText) t.next_pk *= 2;
        sets.push_back(set);
      } else {
        int n = int(r.Int(1, 2));
        for (int i = 0; i < n; i++) {
          size_t ci = size_t(r.Int(0, int64_t(t.cols.size()) - 1));
          if (int(ci) == t.pk) continue;
          std::string set = t.cols[ci].name + " = " + NewValue(t, ci);
          bool dup = false;
          for (auto& s : sets) dup |= s.rfind(t.cols[ci].name + " =", 0) == 0;
          if (!dup) sets.push_back(set);
        }
        if (sets.empty()) {
          size_t ci = t.pk == 0 ? 1 : 0;
          sets.push_back(t.cols[ci].name + " = " + NewValue(t, ci));
        }
      }
      std::string sql = "UPDATE " + t.name + " SET " + Join(sets, ", ");
      if (r.Chance(92)) sql += " WHERE " + Pred(t);
      return {sql};
    }
    if (roll < 80 && t.pk >= 0) {
      // Delete a key (present or not) and insert it again with new values.
      int64_t key = r.Int(1, std::max<int64_t>(1, t.next_pk - 1));
      std::string k = PkText(t, key);
      return {"DELETE FROM " + t.name + " WHERE " + t.cols[t.pk].name + " = " + k,
              "INSERT INTO " + t.name + " VALUES " + Row(r, t, k)};
    }
    if (r.Chance(4)) return {"DELETE FROM " + t.name};
    return {"DELETE FROM " + t.name + " WHERE " + Pred(t)};
  }
};

// ---------------------------------------------------------------------------
// Connections, with a bound on every statement (a cancel request when it runs over).
struct Result {
  bool ok = false;
  std::string state;  // SQLSTATE when !ok
  std::string error;
  std::vector<std::string> names;
  std::vector<Oid> types;
  std::vector<std::vector<std::pair<bool, std::string>>> rows;  // (is null, text)
};

bool lost = false;         // the Freshet connection is gone (the server crashed?)
std::string lost_after;    // the statement it went away on
PGconn* fr = nullptr;
PGconn* fr2 = nullptr;  // creates views while DML runs on fr
PGconn* pg = nullptr;

int slow_ms = 0;  // VIEW_FUZZ_SLOW: print statements that take longer

Result Run(PGconn* c, const std::string& sql) {
  Result res;
  auto started = std::chrono::steady_clock::now();
  if (c == fr && lost) {
    res.state = "08006";
    res.error = "no connection (lost earlier)";
    return res;
  }
  if (!PQsendQuery(c, sql.c_str())) {
    res.state = "08000";
    res.error = Trim(PQerrorMessage(c));
    return res;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStatementTimeoutMs);
  bool cancelled = false;
  while (PQisBusy(c)) {
    int fd = PQsocket(c);
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(fd, &fds);
    timeval tv{1, 0};
    select(fd + 1, &fds, nullptr, nullptr, &tv);
    if (!PQconsumeInput(c)) break;
    if (!cancelled && std::chrono::steady_clock::now() > deadline) {
      if (PGcancel* cancel = PQgetCancel(c)) {
        char buf[256];
        PQcancel(cancel, buf, sizeof buf);
        PQfreeCancel(cancel);
      }
      cancelled = true;
    }
  }
  bool first = true;
  while (PGresult* r = PQgetResult(c)) {
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
      if (first) {
        res.ok = true;
        for (int i = 0; i < PQnfields(r); i++) {
          res.names.push_back(PQfname(r, i));
          res.types.push_back(PQftype(r, i));
        }
        for (int i = 0; i < PQntuples(r); i++) {
          std::vector<std::pair<bool, std::string>> row;
          for (int j = 0; j < PQnfields(r); j++) row.push_back({bool(PQgetisnull(r, i, j)), PQgetvalue(r, i, j)});
          res.rows.push_back(std::move(row));
        }
      }
    } else {
      res.ok = false;
      const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      res.state = s ? s : "?";
      res.error = Trim(PQresultErrorMessage(r));
      if (cancelled) res.error += " (cancelled after " + std::to_string(kStatementTimeoutMs / 1000) + " s)";
    }
    first = false;
    PQclear(r);
  }
  if (!res.ok && res.state.empty()) {
    res.state = "08006";
    res.error = Trim(PQerrorMessage(c));
  }
  if (c == fr && PQstatus(c) == CONNECTION_BAD) {
    lost = true;
    lost_after = sql;
  }
  if (slow_ms > 0) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    if (ms >= slow_ms) std::printf("    slow (%s, %lld ms, ended %ld): %s\n", c == pg ? "PostgreSQL" : c == fr ? "Freshet" : "Freshet, second connection",
                                (long long)ms, long(time(nullptr)), sql.c_str());
  }
  return res;
}

// ---------------------------------------------------------------------------
// Comparing results.
enum class Cls { kNumber, kFloat, kBool, kText, kTs, kOther };
Cls ClassOf(Oid t) {
  switch (t) {
    case 20: case 21: case 23: case 1700: return Cls::kNumber;
    case 700: case 701: return Cls::kFloat;
    case 16: return Cls::kBool;
    case 25: case 1043: case 1042: return Cls::kText;
    case 1114: return Cls::kTs;
    default: return Cls::kOther;
  }
}
bool Numberish(Cls c) { return c == Cls::kNumber || c == Cls::kFloat; }
std::string TypeName(Oid t) {
  switch (t) {
    case 20: return "int8";
    case 21: return "int2";
    case 23: return "int4";
    case 1700: return "numeric";
    case 700: return "float4";
    case 701: return "float8";
    case 16: return "bool";
    case 25: return "text";
    case 1043: return "varchar";
    case 1114: return "timestamp";
    default: return "oid " + std::to_string(t);
  }
}

// "-12.3400" -> "-12.34", "-0.00" -> "0".
std::string NormalizeDecimal(const std::string& s, int* frac_digits) {
  std::string x = s;
  size_t dot = x.find('.');
  *frac_digits = dot == std::string::npos ? 0 : int(x.size() - dot - 1);
  if (dot != std::string::npos && x.find_first_of("eE") == std::string::npos) {
    while (x.back() == '0') x.pop_back();
    if (x.back() == '.') x.pop_back();
  }
  if (x == "-0") x = "0";
  return x;
}

bool ParseDouble(const std::string& s, long double* out) {
  char* end = nullptr;
  *out = std::strtold(s.c_str(), &end);
  return end && *end == '\0' && end != s.c_str();
}

bool CellEqual(const std::pair<bool, std::string>& a, const std::pair<bool, std::string>& b, Cls ca, Cls cb) {
  if (a.first != b.first) return false;
  if (a.first) return true;
  if (a.second == b.second) return true;
  if (Numberish(ca) && Numberish(cb)) {
    if (ca == Cls::kNumber && cb == Cls::kNumber) {
      int fa, fb;
      if (NormalizeDecimal(a.second, &fa) == NormalizeDecimal(b.second, &fb)) return true;
      if (std::min(fa, fb) < 6) return false;
      long double x, y;
      if (!ParseDouble(a.second, &x) || !ParseDouble(b.second, &y)) return false;
      return std::fabs(x - y) <= 1e-15L * std::max({1.0L, std::fabs(x), std::fabs(y)});
    }
    long double x, y;
    if (!ParseDouble(a.second, &x) || !ParseDouble(b.second, &y)) return false;
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::fabs(x - y) <= 1e-9L * std::max({1.0L, std::fabs(x), std::fabs(y)});
  }
  return false;
}

// A coarse key under which equal cells (within the tolerances) agree.
std::string CellKey(const std::pair<bool, std::string>& c, Cls cls) {
  if (c.first) return "\x01N";
  if (Numberish(cls)) {
    long double x;
    if (!ParseDouble(c.second, &x)) return c.second;
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "Inf" : "-Inf";
    if (std::fabs(x) < 1e-6L) return "0";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6Lg", x);
    return buf;
  }
  return c.second;
}

std::string RowText(const std::vector<std::pair<bool, std::string>>& row) {
  std::string s = "(";
  for (size_t i = 0; i < row.size(); i++) s += (i ? ", " : "") + (row[i].first ? std::string("NULL") : row[i].second);
  return s + ")";
}

// Compares two results as multisets; on a difference, `detail` says how.
bool SameRows(const Result& a, const Result& b, const std::string& an, const std::string& bn, std::string* detail) {
  if (a.types.size() != b.types.size()) {
    *detail = "column counts differ: " + std::to_string(a.types.size()) + " vs " + std::to_string(b.types.size());
    return false;
  }
  std::vector<Cls> ca, cb;
  for (Oid t : a.types) ca.push_back(ClassOf(t));
  for (Oid t : b.types) cb.push_back(ClassOf(t));
  using Row = std::vector<std::pair<bool, std::string>>;
  auto key = [&](const Row& row, const std::vector<Cls>& cls) {
    std::string k;
    for (size_t i = 0; i < row.size(); i++) {
      Cls c = Numberish(cls[i]) ? Cls::kFloat : cls[i];
      k += CellKey(row[i], c) + '\x1f';
    }
    return k;
  };
  std::map<std::string, std::vector<const Row*>> ga, gb;
  for (const auto& row : a.rows) ga[key(row, ca)].push_back(&row);
  for (const auto& row : b.rows) gb[key(row, cb)].push_back(&row);
  std::vector<std::string> only_a, only_b;
  auto row_equal = [&](const Row& x, const Row& y) {
    for (size_t i = 0; i < x.size(); i++)
      if (!CellEqual(x[i], y[i], ca[i], cb[i])) return false;
    return true;
  };
  std::set<std::string> keys;
  for (auto& [k, v] : ga) keys.insert(k);
  for (auto& [k, v] : gb) keys.insert(k);
  for (const auto& k : keys) {
    std::vector<const Row*> xs = ga.count(k) ? ga[k] : std::vector<const Row*>{};
    std::vector<const Row*> ys = gb.count(k) ? gb[k] : std::vector<const Row*>{};
    std::vector<bool> used(ys.size(), false);
    for (const Row* x : xs) {
      bool found = false;
      for (size_t j = 0; j < ys.size() && !found; j++)
        if (!used[j] && row_equal(*x, *ys[j])) used[j] = found = true;
      if (!found) only_a.push_back(RowText(*x));
    }
    for (size_t j = 0; j < ys.size(); j++)
      if (!used[j]) only_b.push_back(RowText(*ys[j]));
  }
  if (only_a.empty() && only_b.empty()) return true;
  std::sort(only_a.begin(), only_a.end());
  std::sort(only_b.begin(), only_b.end());
  std::string d = an + " has " + std::to_string(a.rows.size()) + " rows, " + bn + " " + std::to_string(b.rows.size()) +
                  "; " + std::to_string(only_a.size()) + " only in " + an + ", " + std::to_string(only_b.size()) +
                  " only in " + bn;
  for (size_t i = 0; i < only_a.size() && i < 8; i++) d += "\n      only in " + an + ": " + only_a[i];
  if (only_a.size() > 8) d += "\n      ...";
  for (size_t i = 0; i < only_b.size() && i < 8; i++) d += "\n      only in " + bn + ": " + only_b[i];
  if (only_b.size() > 8) d += "\n      ...";
  *detail = d;
  return false;
}

std::string Sample(const Result& r, size_t n = 12) {
  std::vector<std::string> rows;
  for (const auto& row : r.rows) rows.push_back(RowText(row));
  std::sort(rows.begin(), rows.end());
  std::string s;
  for (size_t i = 0; i < rows.size() && i < n; i++) s += "\n        " + rows[i];
  if (rows.size() > n) s += "\n        ... (" + std::to_string(rows.size()) + " rows)";
  if (rows.empty()) s += "\n        (no rows)";
  return s;
}

// ---------------------------------------------------------------------------
// The run.
int passed = 0, failed = 0, skipped = 0;
int view_checks = 0, nonempty_checks = 0;  // how many view comparisons had rows
std::map<std::string, int> skip_reasons;
FILE* sql_log = nullptr;
int repro_lines = 400;
bool verbose = false;

void Log(const std::string& sql) {
  if (!sql_log) return;
  std::fprintf(sql_log, "%s;\n", sql.c_str());
  std::fflush(sql_log);
}

struct ScriptLine {
  std::string sql;
  int view = -1;  // the CREATE of that view
};

struct SeedRun {
  uint64_t seed;
  int rounds;
  int nqueries;
  std::set<int> only;
  Knobs knobs;
  std::vector<Table> tables;
  std::vector<Query> queries;
  std::vector<bool> live;
  std::vector<ScriptLine> script;  // everything sent to Freshet, for a reproduction
  int round = 0;
  bool printed_repro = false;
  bool broken = false;  // the servers diverged or Freshet went away: stop this seed
  bool lost_reported = false;
  std::map<std::string, int> fail_count;  // per view and comparison
  int failed_here = 0;

  std::string probe;  // a known-bug probe instead of a seed
  std::string Where() {
    if (!probe.empty()) return "probe " + probe + ", round " + std::to_string(round);
    return "seed " + std::to_string(seed) + ", round " + std::to_string(round);
  }

  void Fail(const std::string& key, const std::string& what, int view = -1) {
    if (lost) {
      broken = true;
      if (lost_reported) return;
      lost_reported = true;
    }
    failed++;
    failed_here++;
    int n = ++fail_count[key];
    if (n == 1) {
      std::printf("  FAILED: (%s) %s\n", Where().c_str(), what.c_str());
      if (!printed_repro) PrintRepro(view);
    } else if (n == 2) {
      std::printf("  FAILED: (%s) %s fails again (further failures of it counted, not shown)\n", Where().c_str(),
                  key.c_str());
    }
    std::fflush(stdout);
  }

  // The statements so far: tables, data, DML, FLUSH, and the CREATEs of the
  // failing view and the views it reads.
  void PrintRepro(int view) {
    printed_repro = true;
    std::set<int> want;
    std::function<void(int)> add = [&](int v) {
      if (v < 0 || want.count(v)) return;
      want.insert(v);
      for (int d : queries[v].deps) add(d);
    };
    add(view);
    std::vector<std::string> lines;
    for (const auto& l : script)
      if (l.view < 0 || want.count(l.view)) lines.push_back(l.sql + ";");
    if (!probe.empty())
      std::printf("    -- reproduction for psql (probe of the known bug %s):\n", probe.c_str());
    else
      std::printf("    -- reproduction for psql (seed %llu; rerun: VIEW_FUZZ_SEED=%llu VIEW_FUZZ_QUERIES=%d VIEW_FUZZ_ROUNDS=%d%s):\n",
                  (unsigned long long)seed, (unsigned long long)seed, nqueries, rounds,
                  view >= 0 ? (" VIEW_FUZZ_ONLY=" + std::to_string(view)).c_str() : "");
    for (size_t i = 0; i < lines.size() && int(i) < repro_lines; i++) std::printf("    %s\n", lines[i].c_str());
    if (int(lines.size()) > repro_lines)
      std::printf("    -- ... %zu more statements (VIEW_FUZZ_SQL_LOG=FILE writes them all)\n", lines.size() - repro_lines);
  }

  // A statement on both servers (`pg_too`), which must succeed on both or fail on both.
  bool Both(const std::string& sql, bool pg_too = true, int view = -1) {
    Log(sql);
    script.push_back({sql, view});
    Result a = Run(fr, sql);
    if (!pg_too || !pg) {
      if (!a.ok) {
        Fail("statement " + sql, "Freshet failed: " + sql + "\n    error: " + a.state + " " + a.error);
        return false;
      }
      return true;
    }
    Result b = Run(pg, sql);
    if (a.ok != b.ok) {
      Fail("statement " + sql, std::string(a.ok ? "PostgreSQL" : "Freshet") + " failed where " +
                                   (a.ok ? "Freshet" : "PostgreSQL") + " succeeded: " + sql + "\n    error: " +
                                   (a.ok ? b.state + " " + b.error : a.state + " " + a.error));
      broken = true;
      return false;
    }
    return a.ok;
  }

  void CheckTables() {
    if (!pg) return;
    for (auto& t : tables) {
      std::string sql = "SELECT * FROM " + t.name;
      Result a = Run(fr, sql), b = Run(pg, sql);
      std::string detail;
      if (!a.ok || !b.ok) {
        Fail("table " + t.name, "SELECT * FROM " + t.name + ": " + (a.ok ? "" : "Freshet: " + a.error) +
                                    (b.ok ? "" : " PostgreSQL: " + b.error));
      } else if (!SameRows(a, b, "Freshet", "PostgreSQL", &detail)) {
        Fail("table " + t.name, "table " + t.name + " differs from PostgreSQL's (DML applied differently): " + detail);
        broken = true;
      } else {
        passed++;
      }
    }
  }

  void CheckView(const Query& q) {
    const std::string head = "view " + q.name + " [" + q.shape + "]";
    auto query_text = [&]() {
      return "\n    query: " + q.sql + "\n    CREATE MATERIALIZED VIEW " + q.name + " AS " + q.sql;
    };
    Result mv = Run(fr, "SELECT * FROM " + q.name);
    Result batch = Run(fr, q.sql);
    view_checks++;
    if (batch.ok && !batch.rows.empty()) nonempty_checks++;
    Result ref;
    if (pg) ref = Run(pg, q.sql);
    // View vs batch.
    if (!mv.ok) {
      Fail(q.name + " view", head + ": SELECT * FROM " + q.name + " failed: " + mv.state + " " + mv.error + query_text(), q.id);
    } else if (!batch.ok) {
      if (pg && !ref.ok && batch.state == ref.state) {
        skipped++;  // a runtime error in both batch engines: the stream has NULLs there instead
        skip_reasons["batch query fails on both engines (" + batch.state + "): view not compared"]++;
      } else {
        Fail(q.name + " view", head + ": the batch query failed on Freshet: " + batch.state + " " + batch.error +
                                   query_text() + (pg ? "\n    PostgreSQL: " + (ref.ok ? "ok" : ref.state + " " + ref.error) : ""),
             q.id);
      }
    } else {
      std::string detail;
      if (mv.types != batch.types) {
        std::vector<std::string> a, b;
        for (Oid t : mv.types) a.push_back(TypeName(t));
        for (Oid t : batch.types) b.push_back(TypeName(t));
        Fail(q.name + " view", head + ": column types differ: view (" + Join(a, ", ") + "), batch (" + Join(b, ", ") + ")" +
                                   query_text(), q.id);
      } else if (!SameRows(mv, batch, "the view", "the batch query", &detail)) {
        Fail(q.name + " view", head + " differs from its query run as a batch SELECT (view vs batch): " + detail +
                                   query_text() + "\n    view rows:" + Sample(mv) + "\n    batch rows:" + Sample(batch),
             q.id);
      } else {
        passed++;
      }
    }
    if (!pg) return;
    // Batch vs PostgreSQL.
    if (!batch.ok && !ref.ok) {
      if (batch.state == ref.state) passed++;
      else
        Fail(q.name + " pg", head + ": both fail, differently: Freshet " + batch.state + " " + batch.error +
                                 ", PostgreSQL " + ref.state + " " + ref.error + query_text(), q.id);
      return;
    }
    if (!ref.ok) {
      Fail(q.name + " pg", head + ": PostgreSQL fails but Freshet does not: " + ref.state + " " + ref.error + query_text(), q.id);
      return;
    }
    if (!batch.ok) {
      Fail(q.name + " pg", head + ": Freshet's batch query fails but PostgreSQL's does not: " + batch.state + " " +
                               batch.error + query_text(), q.id);
      return;
    }
    std::string detail;
    std::vector<std::string> a, b;
    bool type_diff = false;
    for (size_t i = 0; i < batch.types.size() && i < ref.types.size(); i++) {
      a.push_back(TypeName(batch.types[i]));
      b.push_back(TypeName(ref.types[i]));
      Oid x = batch.types[i], y = ref.types[i];
      if (x != y && !(ClassOf(x) == Cls::kText && ClassOf(y) == Cls::kText)) type_diff = true;
    }
    if (type_diff) {
      Fail(q.name + " pg types", head + ": column types differ from PostgreSQL's: Freshet (" + Join(a, ", ") +
                                     "), PostgreSQL (" + Join(b, ", ") + ")" + query_text(), q.id);
    }
    if (!SameRows(batch, ref, "Freshet", "PostgreSQL", &detail)) {
      Fail(q.name + " pg", head + ": Freshet's batch result differs from PostgreSQL's (batch vs PostgreSQL): " + detail +
                               query_text() + "\n    Freshet rows:" + Sample(batch) + "\n    PostgreSQL rows:" + Sample(ref),
           q.id);
    } else {
      passed++;
    }
  }

  void CheckAll() {
    if (broken) return;
    CheckTables();
    for (const auto& q : queries)
      if (live[q.id] && !lost) CheckView(q);
  }

  std::set<int> read_by_others;  // views that other views read

  std::string PgDrop(int v) {
    return std::string(read_by_others.count(v) ? "DROP MATERIALIZED VIEW " : "DROP VIEW ") + queries[v].name;
  }

  // FLUSH on Freshet; on PostgreSQL, the materialized views are refreshed in creation order.
  void Flush() {
    Both("FLUSH", false);
    if (!pg) return;
    for (const auto& q : queries) {
      if (!live[q.id] || !read_by_others.count(q.id)) continue;
      Result r = Run(pg, "REFRESH MATERIALIZED VIEW " + q.name);
      if (!r.ok) Fail(q.name + " refresh", "PostgreSQL: REFRESH MATERIALIZED VIEW " + q.name + ": " + r.state + " " + r.error);
    }
  }

  // Creates the views of `phase` in order. With `concurrent`, they are
  // created on a second connection while `concurrent` runs DML on the main
  // one, so their backfills see writes going on.
  void CreateViews(int phase, Rng& par_rng, const std::function<void()>& concurrent = nullptr) {
    struct Pending {
      const Query* q;
      std::string set, create;
      bool tried = false;
      Result res;
    };
    std::vector<Pending> to_create;
    for (auto& q : queries) {
      if (q.phase != phase || broken) continue;
      if (!only.empty() && !only.count(q.id)) continue;
      int par = int(par_rng.Int(0, 4));
      to_create.push_back({&q, "SET streaming_parallelism = " + std::to_string(par),
                      "CREATE MATERIALIZED VIEW " + q.name + " AS " + q.sql});
      Log(to_create.back().set);
      Log(to_create.back().create);
      script.push_back({to_create.back().set, q.id});
      script.push_back({to_create.back().create, q.id});
      if (verbose) std::printf("    %s (phase %d) [%s]: %s\n", q.name.c_str(), q.phase, q.shape.c_str(), q.sql.c_str());
    }
    auto create_all = [&](PGconn* c) {
      std::set<int> made;
      for (auto& p : to_create) {
        bool inputs = true;
        for (int d : p.q->deps) inputs &= live[d] || made.count(d);
        if (!inputs) continue;
        Run(c, p.set);
        p.res = Run(c, p.create);
        p.tried = true;
        if (p.res.ok) made.insert(p.q->id);
      }
    };
    if (concurrent && fr2 && !to_create.empty()) {
      std::thread creator(create_all, fr2);
      concurrent();
      creator.join();
      if (PQstatus(fr2) == CONNECTION_BAD && !lost) {
        lost = true;
        lost_after = "(second connection) CREATE MATERIALIZED VIEW";
      }
    } else {
      if (concurrent) concurrent();
      create_all(fr);
    }
    auto unscript = [&](int id) {
      script.erase(std::remove_if(script.begin(), script.end(), [&](const ScriptLine& l) { return l.view == id; }),
                   script.end());
    };
    for (auto& p : to_create) {
      const Query& q = *p.q;
      if (!p.tried) {
        skipped++;
        skip_reasons["reads a view that was skipped"]++;
        unscript(q.id);
        continue;
      }
      const Result& a = p.res;
      if (pg) {
        // A view that other views read is materialized on PostgreSQL too (refreshed
        // after every FLUSH): nested plain views make PostgreSQL slow.
        Result b = Run(pg, std::string(read_by_others.count(q.id) ? "CREATE MATERIALIZED VIEW " : "CREATE VIEW ") +
                               q.name + " AS " + q.sql);
        if (!b.ok) {
          Fail(q.name + " create", "PostgreSQL rejects the generated query (a generator bug): " + b.state + " " +
                                       b.error + "\n    query: " + q.sql);
          if (a.ok) Run(fr, "DROP MATERIALIZED VIEW " + q.name);
          unscript(q.id);
          continue;
        }
      }
      if (!a.ok) {
        if (a.state == "0A000") {
          skipped++;
          std::string reason = a.error.substr(0, a.error.find('\n'));
          skip_reasons["0A000 " + reason]++;
          if (verbose) std::printf("      %s skipped: %s\n", q.name.c_str(), reason.c_str());
          if (pg) Run(pg, PgDrop(q.id));
          unscript(q.id);
          continue;
        }
        Fail(q.name + " create", "CREATE MATERIALIZED VIEW failed: " + a.state + " " + a.error + "\n    query: " + q.sql, q.id);
        if (pg) Run(pg, PgDrop(q.id));
        continue;
      }
      live[q.id] = true;
    }
  }

  void DropAll() {
    if (lost) return;
    for (int i = int(queries.size()) - 1; i >= 0; i--) {
      if (!live[i]) continue;
      Result a = Run(fr, "DROP MATERIALIZED VIEW " + queries[i].name);
      if (!a.ok) Fail("drop " + queries[i].name, "DROP MATERIALIZED VIEW " + queries[i].name + ": " + a.state + " " + a.error);
      if (pg) Run(pg, PgDrop(i));
    }
    for (const char* f : {"vf_add", "vf_twice", "vf_pick", "vf_cnt"}) {
      Result a = Run(fr, std::string("DROP FUNCTION ") + f);
      if (!a.ok) Fail(std::string("drop ") + f, std::string("DROP FUNCTION ") + f + ": " + a.state + " " + a.error);
      if (pg) Run(pg, std::string("DROP FUNCTION ") + f);
    }
    for (auto& t : tables) {
      Result a = Run(fr, "DROP TABLE " + t.name);
      if (!a.ok) Fail("drop " + t.name, "DROP TABLE " + t.name + ": " + a.state + " " + a.error);
      if (pg) Run(pg, "DROP TABLE " + t.name);
    }
    Run(fr, "SET streaming_parallelism = 0");
  }

  // A known bug's reproduction (kProbes), run once when its knob is on.
  void Probe(const struct ProbeDef& p);

  void Go() {
    auto t0 = std::chrono::steady_clock::now();
    Rng schema_rng = Stream(seed, 1), data_rng = Stream(seed, 2), dml_rng = Stream(seed, 3), par_rng = Stream(seed, 4);
    tables = MakeTables(schema_rng);
    std::vector<Relation> rels;
    for (auto& t : tables) rels.push_back(t.rel);
    for (int i = 0; i < nqueries; i++) {
      QueryGen qg(Stream(seed, 1000 + uint64_t(i)), knobs, rels);
      Query q = qg.Make(i);
      int64_t p = qg.r.Int(0, 99);
      q.phase = p < 25 ? 0 : p < 75 ? 1 : 2;
      for (int d : q.deps) q.phase = std::max(q.phase, queries[d].phase);
      queries.push_back(q);
      Relation v;
      v.name = q.name;
      v.view = i;
      v.cols = q.out;
      v.big = q.big;
      rels.push_back(v);
    }
    // Views read by a chosen one are created too.
    if (!only.empty()) {
      std::function<void(int)> add = [&](int v) {
        only.insert(v);
        for (int d : queries[v].deps) add(d);
      };
      for (int v : std::set<int>(only)) if (v < nqueries) add(v);
    }
    live.assign(queries.size(), false);
    for (const auto& q : queries)
      if (only.empty() || only.count(q.id)) read_by_others.insert(q.deps.begin(), q.deps.end());
    int before = passed + failed;
    for (auto& t : tables) Both(CreateTable(t));
    for (const auto& f : SqlFunctions(tables[0])) Both(f);
    CreateViews(0, par_rng);
    Flush();
    CheckAll();
    // The initial rows.
    for (auto& t : tables) {
      int n = int(data_rng.Int(2, 4));
      for (int i = 0; i < n && !broken; i++) Both(Insert(data_rng, t, int(data_rng.Int(3, 10))));
    }
    Flush();
    CheckAll();
    CreateViews(1, par_rng);
    Flush();
    CheckAll();
    DmlGen dml{dml_rng, Knobs{}};
    // Some seeds run their middle rounds with no operator state cached past
    // its commit (every key reloaded from storage).
    Rng cache_rng = Stream(seed, 5);
    bool no_cache = cache_rng.Chance(30);
    // Some run their last rounds with barriers every 10 ms that commit only at FLUSH.
    bool fast_barriers = cache_rng.Chance(25);
    // Some add columns to tables between rounds (ALTER TABLE ... ADD
    // COLUMN, with a constant DEFAULT or none): the views over them go on,
    // rows stored before read the default on both servers, later DML
    // writes the new columns.
    Rng alter_rng = Stream(seed, 6);
    bool add_columns = alter_rng.Chance(40);
    int added_columns = 0;
    Rng drop_rng = Stream(seed, 7);
    bool drop_columns = drop_rng.Chance(40);
    int dropped_columns = 0, drop_attempts = 0;
    for (round = 1; round <= rounds && !broken; round++) {
      if (add_columns && alter_rng.Chance(40)) {
        Table& t = tables[alter_rng.Next() % tables.size()];
        TableCol col;
        col.name = "added" + std::to_string(++added_columns);
        col.type = kAllTypes[alter_rng.Next() % (sizeof(kAllTypes) / sizeof(kAllTypes[0]))];
        TableCol constant = col;
        constant.null_pct = 0;
        std::string sql = "ALTER TABLE " + t.name + " ADD COLUMN " + col.name + " " + SqlType(col.type);
        if (alter_rng.Chance(60)) sql += " DEFAULT " + Value(alter_rng, constant);
        Both(sql);
        t.cols.push_back(col);
      }
      // Some drop a column between rounds once every view is made (ALTER
      // TABLE ... DROP COLUMN, never the key): refused on Freshet (2BP01,
      // and then not run on PostgreSQL) when a view reads it; otherwise
      // the views go on over rows that hold NULL in it.
      if (drop_columns && round > (rounds + 1) / 2 && drop_rng.Chance(35)) {
        Table& t = tables[drop_rng.Next() % tables.size()];
        size_t ci = drop_rng.Next() % t.cols.size();
        if (t.cols.size() > 2 && int(ci) != t.pk) {
          std::string sql = "ALTER TABLE " + t.name + " DROP COLUMN " + t.cols[ci].name;
          Log(sql);
          script.push_back({sql, -1});
          Result a = Run(fr, sql);
          drop_attempts++;
          if (a.ok) {
            if (pg) {
              Result b = Run(pg, sql);
              if (!b.ok) Fail("statement " + sql, "PostgreSQL failed: " + b.state + " " + b.error);
            }
            t.cols.erase(t.cols.begin() + ci);
            if (t.pk > int(ci)) t.pk--;
            dropped_columns++;
          } else if (a.state != "2BP01") {
            Fail("statement " + sql, "Freshet failed: " + a.state + " " + a.error);
            broken = true;
          }
        }
      }
      if (no_cache && round == 2) Both("ALTER SYSTEM SET streaming_state_cache_bytes = 0", false);
      if (no_cache && round == rounds) Both("ALTER SYSTEM RESET streaming_state_cache_bytes", false);
      // (A view created while DML runs waited for the next checkpoint: see create_during_rare_checkpoints.)
      const int fast_from = knobs.Bug("create_during_rare_checkpoints") ? 3 : std::max(3, (rounds + 1) / 2 + 1);
      if (fast_barriers && round == fast_from) {
        Both("ALTER SYSTEM SET barrier_interval_ms = 10", false);
        Both("ALTER SYSTEM SET checkpoint_frequency = 10000", false);
      }
      auto dml_round = [&]() {
        int64_t mode = dml.r.Int(0, 99);  // < 15 commit, < 22 rollback, else autocommit
        if (mode < 22) Both("BEGIN");
        int n = int(dml.r.Int(2, 7));
        for (int i = 0; i < n && !broken; i++) {
          Table& t = tables[dml.r.Next() % tables.size()];
          for (const auto& s : dml.Statement(t)) Both(s);  // keys stay fresh even when rolled back
        }
        if (mode < 15) Both("COMMIT");
        else if (mode < 22) Both("ROLLBACK");
      };
      // Halfway, the last views are created while this round's DML runs.
      if (round == (rounds + 1) / 2) CreateViews(2, par_rng, dml_round);
      else dml_round();
      if (broken) break;
      Flush();
      CheckAll();
    }
    const int fast_from_final = knobs.Bug("create_during_rare_checkpoints") ? 3 : std::max(3, (rounds + 1) / 2 + 1);
    if (fast_barriers && !lost && fast_from_final <= rounds) {
      Both("ALTER SYSTEM RESET barrier_interval_ms", false);
      Both("ALTER SYSTEM RESET checkpoint_frequency", false);
    }
    if (no_cache && broken && !lost) Both("ALTER SYSTEM RESET streaming_state_cache_bytes", false);
    round = rounds;
    int nlive = 0;
    for (bool b : live) nlive += b;
    DropAll();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string modes = std::string(no_cache ? ", no state cache from round 2" : "") +
                        (fast_barriers && fast_from_final <= rounds ? ", 10 ms barriers from round " + std::to_string(fast_from_final) : "") +
                        (drop_attempts ? ", " + std::to_string(dropped_columns) + " of " + std::to_string(drop_attempts) +
                                             " column drops done (the others read by a view)" : "");
    std::printf("  seed %llu: %zu tables, %d/%zu views created, %d rounds%s, %d checks, %d failed (%.1f s)\n",
                (unsigned long long)seed, tables.size(), nlive, queries.size(), rounds, modes.c_str(),
                passed + failed - before, failed_here, secs);
    std::fflush(stdout);
  }
};

// The minimised reproductions of the kBugShapes: the probe of every shape
// that is generated runs first (views created before and after the rows,
// checked like a seed's views), so a regression or a fix shows at once; the
// random queries produce the shapes too, but not on every seed.
struct ProbeDef {
  const char* bug;
  std::vector<std::string> tables;   // CREATE TABLE statements
  std::vector<std::string> before;   // views created on the empty tables
  std::vector<std::string> rows;     // INSERTs
  std::vector<std::string> after;    // views created on the rows (backfill)
  std::vector<std::string> dml;      // then one more round
};
const ProbeDef kProbes[] = {
    {"join_left_subquery",
     {"CREATE TABLE kb_p (k INT, v INT, e INT)", "CREATE TABLE kb_t (a INT, b INT, c BOOLEAN, d DOUBLE PRECISION)"},
     {"SELECT a.k AS c0, a.v AS c1, b.v AS c2 FROM (SELECT k, v FROM kb_p WHERE e = 0) a JOIN (SELECT k, v FROM kb_p) b "
      "ON a.k = b.k WHERE b.v > a.v"},
     {"INSERT INTO kb_p VALUES (1, 1, 0), (1, 5, 1), (2, 3, 0), (2, 2, 0), (3, 7, 0), (3, 9, 1)",
      "INSERT INTO kb_t VALUES (7, 6, true, 0.5), (6, 199, true, NULL), (8, 8, false, 7.25)"},
     {"SELECT a.k AS c0, a.v AS c1, b.v AS c2 FROM (SELECT k, v FROM kb_p WHERE e = 0) a JOIN (SELECT k, v FROM kb_p) b "
      "ON a.k = b.k WHERE b.v > a.v",
      "SELECT t2.b AS c0, t2.d AS c1 FROM (SELECT d FROM kb_t) t1 JOIN kb_t t2 ON t1.d = t2.d",
      "SELECT b.k AS c0, b.v AS c1 FROM (SELECT k FROM kb_p) a LEFT JOIN kb_p b ON a.k = b.k AND b.v > 2",
      "SELECT t2.d > 1 AS c0 FROM (SELECT d FROM kb_t) t1 JOIN kb_t t2 ON t1.d = t2.d"},  // crashed the server
     {"UPDATE kb_p SET v = v + 1 WHERE k = 2", "INSERT INTO kb_t VALUES (1, 2, false, 0.5)"}},
    {"join_chain_key_cast",
     {"CREATE TABLE kb_x (k BIGINT)", "CREATE TABLE kb_y (k INT, v INT)", "CREATE TABLE kb_z (v INT, s VARCHAR)"},
     {"SELECT kb_y.v AS c0, kb_z.s AS c1 FROM kb_x JOIN kb_y ON kb_x.k = kb_y.k JOIN kb_z ON kb_y.v = kb_z.v"},
     {"INSERT INTO kb_x VALUES (1)", "INSERT INTO kb_y VALUES (1, 7), (2, 8)",
      "INSERT INTO kb_z VALUES (7, 'seven'), (8, 'eight')"},
     {"SELECT kb_y.v AS c0, kb_z.s AS c1 FROM kb_x RIGHT JOIN kb_y ON kb_x.k = kb_y.k JOIN kb_z ON kb_y.v = kb_z.v",
      "SELECT kb_y.v AS c0, kb_z.s AS c1 FROM kb_y JOIN kb_z ON kb_y.v = kb_z.v JOIN kb_x ON kb_y.k + 0 = kb_x.k"},
     {"INSERT INTO kb_x VALUES (2)", "DELETE FROM kb_z WHERE v = 7"}},
    {"full_join_null_keys",
     {"CREATE TABLE kb_f (d NUMERIC, b INT)"},
     {"SELECT a.d AS c0, b.b AS c1 FROM (SELECT DISTINCT d FROM kb_f) a FULL JOIN (SELECT DISTINCT b FROM kb_f) b "
      "ON a.d = b.b"},
     {"INSERT INTO kb_f VALUES (NULL, 7), (5, NULL)"},
     {"SELECT a.d AS c0, a.n AS c1, b.b AS c2 FROM (SELECT d, count(*) AS n FROM kb_f GROUP BY d) a "
      "FULL JOIN (SELECT b, count(*) AS n FROM kb_f GROUP BY b) b ON a.d = b.b"},
     {"INSERT INTO kb_f VALUES (NULL, NULL), (7, 5)"}},
    {"nan_keys",
     {"CREATE TABLE kb_n (c DOUBLE PRECISION)"},
     {"SELECT c / c AS c0, count(*) AS c1 FROM kb_n GROUP BY c / c", "SELECT DISTINCT c - c AS c0 FROM kb_n"},
     {"INSERT INTO kb_n VALUES ('Infinity'), ('NaN'), (2)"},
     {"SELECT DISTINCT -c AS c0 FROM kb_n"},
     {"INSERT INTO kb_n VALUES ('-Infinity'), ('NaN')"}},
};

void SeedRun::Probe(const ProbeDef& p) {
  this->probe = p.bug;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& t : p.tables) Both(t);
  Rng par_rng = Stream(0, 4);
  auto add = [&](const std::vector<std::string>& sqls, int phase) {
    for (const auto& sql : sqls) {
      Query q;
      q.id = int(queries.size());
      q.name = "kb_m" + std::to_string(q.id);
      q.sql = sql;
      q.phase = phase;
      q.shape = std::string("probe ") + p.bug;
      queries.push_back(q);
    }
  };
  add(p.before, 0);
  add(p.after, 1);
  live.assign(queries.size(), false);
  CreateViews(0, par_rng);
  for (const auto& sql : p.rows) Both(sql);
  Flush();
  CheckAll();
  CreateViews(1, par_rng);
  Flush();
  CheckAll();
  round = 1;
  for (const auto& sql : p.dml) Both(sql);
  Flush();
  CheckAll();
  if (!lost) {
    for (int i = int(queries.size()) - 1; i >= 0; i--) {
      if (!live[i]) continue;
      Run(fr, "DROP MATERIALIZED VIEW " + queries[i].name);
      if (pg) Run(pg, PgDrop(i));
    }
    for (const auto& t : p.tables) {
      std::string name = t.substr(13, t.find(' ', 13) - 13);  // CREATE TABLE <name> (
      Run(fr, "DROP TABLE " + name);
      if (pg) Run(pg, "DROP TABLE " + name);
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  probe %s: %zu views, %d failed (%.1f s)\n", p.bug, queries.size(), failed_here, secs);
  std::fflush(stdout);
}

std::set<std::string> SplitList(const char* s) {
  std::set<std::string> out;
  if (!s) return out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.insert(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FRESHET_HOST FRESHET_PORT [PG_HOST PG_PORT]\n", argv[0]);
    return 2;
  }
  auto env = [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
  };
  std::vector<uint64_t> seeds;
  if (env("VIEW_FUZZ_SEEDS")) {
    uint64_t first = env("VIEW_FUZZ_SEED") ? std::strtoull(env("VIEW_FUZZ_SEED"), nullptr, 10) : 1;
    int n = std::max(1, std::atoi(env("VIEW_FUZZ_SEEDS")));
    for (int i = 0; i < n; i++) seeds.push_back(first + uint64_t(i));
  } else if (env("VIEW_FUZZ_SEED")) {
    seeds.push_back(std::strtoull(env("VIEW_FUZZ_SEED"), nullptr, 10));
  } else {
    for (uint64_t i = 0; i < kDefaultSeedCount; i++) seeds.push_back(kDefaultFirstSeed + i);
  }
  int nqueries = env("VIEW_FUZZ_QUERIES") ? std::max(1, std::atoi(env("VIEW_FUZZ_QUERIES"))) : 16;
  int rounds = env("VIEW_FUZZ_ROUNDS") ? std::max(1, std::atoi(env("VIEW_FUZZ_ROUNDS"))) : 8;
  if (env("VIEW_FUZZ_SQL_LOG")) sql_log = std::fopen(env("VIEW_FUZZ_SQL_LOG"), "w");
  if (env("VIEW_FUZZ_REPRO_LINES")) repro_lines = std::atoi(env("VIEW_FUZZ_REPRO_LINES"));
  verbose = env("VIEW_FUZZ_VERBOSE") && std::string(env("VIEW_FUZZ_VERBOSE")) != "0";
  if (env("VIEW_FUZZ_SLOW")) slow_ms = std::atoi(env("VIEW_FUZZ_SLOW"));
  Knobs knobs;
  std::set<std::string> bugs = SplitList(env("VIEW_FUZZ_KNOWN_BUGS")), avoid = SplitList(env("VIEW_FUZZ_AVOID"));
  std::string still_broken;
  for (const auto& b : kBugShapes) {
    bool on = !b.broken || bugs.count("1") || bugs.count("all") || bugs.count(b.name);
    if (avoid.count(b.name) || avoid.count("all")) on = false;
    if (on) knobs.bugs.insert(b.name);
    if (b.broken && !on) still_broken += (still_broken.empty() ? "" : ",") + std::string(b.name);
  }
  knobs.shapes = SplitList(env("VIEW_FUZZ_SHAPES"));
  std::set<int> only;
  for (const auto& s : SplitList(env("VIEW_FUZZ_ONLY"))) only.insert(std::atoi(s.c_str()));

  std::string fr_info = std::string("host=") + argv[1] + " port=" + argv[2] + " user=root dbname=dev connect_timeout=20";
  fr = PQconnectdb(fr_info.c_str());
  if (PQstatus(fr) != CONNECTION_OK) {
    std::printf("  FAILED: connect to Freshet: %s\n\n0 passed, 1 failed\n", Trim(PQerrorMessage(fr)).c_str());
    return 1;
  }
  if (argc >= 5) {
    std::string pg_info = std::string("host=") + argv[3] + " port=" + argv[4] + " user=postgres dbname=postgres connect_timeout=20";
    pg = PQconnectdb(pg_info.c_str());
    if (PQstatus(pg) != CONNECTION_OK) {
      std::printf("  FAILED: connect to PostgreSQL: %s\n\n0 passed, 1 failed\n", Trim(PQerrorMessage(pg)).c_str());
      return 1;
    }
    PQclear(PQexec(pg, "SET client_min_messages = warning"));
    PQclear(PQexec(pg, "SET statement_timeout = '60s'"));
  } else {
    std::printf("  no PostgreSQL given: only views vs batch queries are compared\n");
  }
  PQsetNoticeProcessor(fr, [](void*, const char*) {}, nullptr);
  fr2 = PQconnectdb(fr_info.c_str());
  if (PQstatus(fr2) != CONNECTION_OK) {
    std::printf("  FAILED: second connection to Freshet: %s\n\n0 passed, 1 failed\n", Trim(PQerrorMessage(fr2)).c_str());
    return 1;
  }
  PQsetNoticeProcessor(fr2, [](void*, const char*) {}, nullptr);

  std::string seed_list;
  for (uint64_t s : seeds) seed_list += (seed_list.empty() ? "" : ",") + std::to_string(s);
  std::string bug_list;
  for (const auto& b : knobs.bugs) bug_list += (bug_list.empty() ? "" : ",") + b;
  std::printf("  seeds %s; %d queries and %d DML rounds each\n", seed_list.c_str(), nqueries, rounds);
  std::printf("  shapes of earlier bugs generated: %s; known broken, left out: %s\n",
              bug_list.empty() ? "none" : bug_list.c_str(),
              still_broken.empty() ? "none" : (still_broken + " (VIEW_FUZZ_KNOWN_BUGS=1 enables them)").c_str());
  std::fflush(stdout);
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& p : kProbes) {
    if (!knobs.Bug(p.bug) || lost) continue;
    if (sql_log) std::fprintf(sql_log, "-- probe %s\n", p.bug);
    SeedRun run;
    run.rounds = 1;
    run.knobs = knobs;
    run.Probe(p);
  }
  for (uint64_t s : seeds) {
    if (lost) break;
    if (sql_log) std::fprintf(sql_log, "-- seed %llu\n", (unsigned long long)s);
    SeedRun run;
    run.seed = s;
    run.rounds = rounds;
    run.nqueries = nqueries;
    run.only = only;
    run.knobs = knobs;
    run.Go();
  }
  if (lost) {
    std::printf("  FAILED: the connection to Freshet was lost (did the server crash? see its log) after: %s\n",
                lost_after.c_str());
    failed++;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %zu seeds in %.1f s; %d of %d view comparisons had rows; %d views skipped:\n", seeds.size(), secs,
              nonempty_checks, view_checks, skipped);
  for (const auto& [reason, n] : skip_reasons) std::printf("    %4d  %s\n", n, reason.c_str());
  if (sql_log) std::fclose(sql_log);
  PQfinish(fr);
  PQfinish(fr2);
  if (pg) PQfinish(pg);
  std::printf("\n%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
