#!/usr/bin/env bash
# Prints the Markdown report of a results file written by run.sh:
#   bench/foundation/report.sh RESULTS_FILE
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: report.sh RESULTS_FILE" >&2; exit 1; }

awk '
function get(k, dflt) { return (k in V) ? V[k] : dflt }
function isnum(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?$/ }
function mib(kb) { return isnum(kb) && kb + 0 >= 0 ? sprintf("%.0f", kb / 1024) : "n/a" }
function sec(ms) { return isnum(ms) ? sprintf("%.2f", ms / 1000) : ms }
function fmt_ms(ms) {
  if (!isnum(ms)) return ms
  ms += 0
  return ms >= 100 ? sprintf("%.0f", ms) : (ms >= 10 ? sprintf("%.1f", ms) : sprintf("%.2f", ms))
}
function ratio(a, b) { return (isnum(a) && isnum(b) && b + 0 > 0) ? sprintf("%.2f", a / b) : "n/a" }
# Median of the timed runs 1..R of system s, query q; a failed run makes it
# that failure.
function median(s, q,    k, n, v, x, i, j, t) {
  n = 0
  for (k = 1; k <= R; k++) {
    v = get(s ".q." q ".run" k, "")
    if (v == "") return "n/a"
    if (!isnum(v)) return v
    x[++n] = v + 0
  }
  for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
  return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
{
  i = index($0, "=")
  if (i == 0) next
  k = substr($0, 1, i - 1); v = substr($0, i + 1)
  if (k == "failure") F[++nf] = v; else V[k] = v
}
END {
  N = get("rows", 0); R = get("runs", 3)
  nq = split("count groupby join topn", Q, " ")
  split("freshet pg duckdb", S, " ")
  NAME["freshet"] = "Freshet"; NAME["pg"] = "PostgreSQL"; NAME["duckdb"] = "DuckDB"
  duck = !("duckdb.skipped" in V)

  printf "## Foundation benchmark: %d rows (%s)\n\n", N, get("date", "?")
  printf "Machine: %s cores (%s), %.1f GiB RAM; load average %s before, %s after.\n",
    get("host.nproc", "?"), get("host.cpu", "?"), get("host.mem_kb", 0) / 1048576,
    get("host.load_before", "?"), get("host.load_after", "?")
  printf "Freshet: %s (binary of %s; repository at %s). PostgreSQL %s, initdb defaults (shared_buffers %s, work_mem %s, max_parallel_workers_per_gather %s, jit %s). ",
    get("freshet.version", "?"), get("freshet.binary_mtime", "?"), get("freshet.git", "?"), get("pg.version", "?"),
    get("pg.setting.shared_buffers", "?"), get("pg.setting.work_mem", "?"),
    get("pg.setting.max_parallel_workers_per_gather", "?"), get("pg.setting.jit", "?")
  if (duck) printf "DuckDB %s (Node API, %s threads, persistent database file).\n\n", get("duckdb.version", "?"), get("duckdb.threads", "?")
  else printf "DuckDB skipped: %s.\n\n", get("duckdb.skipped", "?")

  printf "### Load: %d rows, %.0f MB of CSV\n\n", N, get("gen.t_csv_bytes", 0) / 1e6
  print "| System | How | Time (s) | Rows/s | Peak RSS (MiB) | On disk (MiB) |"
  print "|---|---|---:|---:|---:|---:|"
  fr = get("freshet.load.ms", "n/a"); pg = get("pg.load.ms", "n/a"); dk = get("duckdb.load.ms", "n/a")
  printf "| Freshet | psql \\copy (COPY FROM STDIN) + FLUSH | %s | %s | %s | %s |\n", sec(fr),
    isnum(fr) ? sprintf("%.0f", N / (fr / 1000)) : "n/a", mib(get("freshet.load.peak_kb")), mib(get("freshet.disk_kb"))
  printf "| PostgreSQL | psql \\copy (COPY FROM STDIN) | %s | %s | %s max process, %s sum | %s |\n", sec(pg),
    isnum(pg) ? sprintf("%.0f", N / (pg / 1000)) : "n/a", mib(get("pg.load.peak_kb")), mib(get("pg.load.peak_sum_kb")), mib(get("pg.disk_kb"))
  if (duck) printf "| DuckDB | COPY t FROM file + CHECKPOINT | %s | %s | %s | %s |\n", sec(dk),
    isnum(dk) ? sprintf("%.0f", N / (dk / 1000)) : "n/a", mib(get("duckdb.load.peak_kb")), mib(get("duckdb.disk_kb"))
  if ("freshet.load.copy_ms" in V) printf "\nFreshet load split: COPY %s s, then FLUSH %s s.", sec(V["freshet.load.copy_ms"]), sec(V["freshet.load.flush_ms"])
  if ("duckdb.load.copy_ms" in V) printf " DuckDB load split: COPY %s s, then CHECKPOINT %s s.", sec(V["duckdb.load.copy_ms"]), sec(V["duckdb.load.checkpoint_ms"])
  printf "\n"
  printf "\nFreshet/PostgreSQL load throughput: **%s** (target: at least 3)", ratio(pg, fr)
  if (duck) printf "; Freshet/DuckDB: %s", ratio(dk, fr)
  printf ". PostgreSQL then ran VACUUM ANALYZE (%s s, not counted). Rows after load: Freshet %s, PostgreSQL %s.\n\n",
    sec(get("pg.vacuum_analyze.ms", "n/a")), get("freshet.load.count", "?"), get("pg.load.count", "?")

  printf "### Queries: median of %d runs after one warm-up (ms)\n\n", R
  print "| Query | Freshet | PostgreSQL | DuckDB | Freshet/PostgreSQL | Freshet/DuckDB | Same result as PostgreSQL (Freshet, DuckDB) |"
  print "|---|---:|---:|---:|---:|---:|---|"
  for (i = 1; i <= nq; i++) {
    q = Q[i]
    mf = median("freshet", q); mp = median("pg", q); md = duck ? median("duckdb", q) : "skipped"
    printf "| `%s` | %s | %s | %s | %s | %s | %s, %s |\n", get("query." q, q), fmt_ms(mf), fmt_ms(mp), fmt_ms(md),
      ratio(mf, mp), ratio(mf, md), get("check." q ".freshet_vs_pg", "n/a"), get("check." q ".duckdb_vs_pg", "n/a")
  }
  print "\nRatios are time ratios: below 1 Freshet is faster, above 1 it is slower."
  print "\n### All runs (ms; the first is the warm-up)\n"
  printf "| Query | System | warm-up"
  for (k = 1; k <= R; k++) printf " | run %d", k
  print " | median |"
  printf "|---|---|---:"
  for (k = 1; k <= R; k++) printf "|---:"
  print "|---:|"
  for (i = 1; i <= nq; i++) for (j = 1; j <= 3; j++) {
    s = S[j]; q = Q[i]
    if (s == "duckdb" && !duck) continue
    printf "| %s | %s", q, NAME[s]
    for (k = 0; k <= R; k++) printf " | %s", fmt_ms(get(s ".q." q ".run" k, "n/a"))
    printf " | %s |\n", fmt_ms(median(s, q))
  }
  print "\n### Peak memory (VmHWM in MiB, reset before each step)\n"
  print "| Step | Freshet server | PostgreSQL, largest process | PostgreSQL, sum over processes | DuckDB (node process) |"
  print "|---|---:|---:|---:|---:|"
  printf "| load | %s | %s | %s | %s |\n", mib(get("freshet.load.peak_kb")), mib(get("pg.load.peak_kb")),
    mib(get("pg.load.peak_sum_kb")), duck ? mib(get("duckdb.load.peak_kb")) : "skipped"
  for (i = 1; i <= nq; i++) {
    q = Q[i]
    printf "| %s | %s | %s | %s | %s |\n", q, mib(get("freshet.q." q ".peak_kb")), mib(get("pg.q." q ".peak_kb")),
      mib(get("pg.q." q ".peak_sum_kb")), duck ? mib(get("duckdb.q." q ".peak_kb")) : "skipped"
  }
  print "\nPostgreSQL: the postmaster and all its children (backend, parallel workers, checkpointer, ...), sampled every 20 ms; the sum counts shared buffers once per process that touched them. DuckDB: the whole node process (the load and the queries run in it)."
  if (get("freshet.memory_reset", "ok") != "ok") print "\nWarning: peak RSS could not be reset between steps (clear_refs); the figures are peaks since start."
  print "\n### Failures\n"
  if (nf == 0) print "None."
  for (i = 1; i <= nf; i++) print "- " F[i]
}' "$1"
