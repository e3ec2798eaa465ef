#!/usr/bin/env bash
# Prints the Markdown report of a results file written by run.sh:
#   bench/nexmark/report.sh RESULTS_FILE
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: report.sh RESULTS_FILE" >&2; exit 1; }

awk '
function get(k, dflt) { return (k in V) ? V[k] : dflt }
function isnum(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
function mib(kb) { return isnum(kb) && kb + 0 >= 0 ? sprintf("%.0f", kb / 1024) : "n/a" }
function sec(ms) { return isnum(ms) ? (ms >= 10000 ? sprintf("%.1f", ms / 1000) : sprintf("%.2f", ms / 1000)) : "n/a" }
function dsec(ms) { return isnum(ms) ? (ms >= 1000 ? sprintf("%.2f", ms / 1000) : sprintf("%.3f", ms / 1000)) : ms }
function kilo(x) {
  if (!isnum(x)) return "n/a"
  if (x >= 1e6) return sprintf("%.2fM", x / 1e6)
  if (x >= 1e4) return sprintf("%.0fk", x / 1e3)
  if (x >= 1e3) return sprintf("%.1fk", x / 1e3)
  return sprintf("%.0f", x)
}
function thousands(x,    s, r) {
  s = sprintf("%.0f", x); r = ""
  while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
  return s r
}
function md(s) { gsub(/\|/, "\\|", s); return s }
{
  i = index($0, "=")
  if (i == 0) next
  k = substr($0, 1, i - 1); v = substr($0, i + 1)
  if (k == "failure") F[++nf] = v; else V[k] = isnum(v) ? v + 0 : v
}
END {
  split("q0 118 q1 119 q2 127 q3 97 q4 14 q5 5.2 q7 20 q8 61 q9 8 q10 106 q14 45 q15 79 q16 8 q17 17 q18 10 q20 13 q21 89 q22 111", T, " ")
  for (i = 1; i in T; i += 2) TARGET[T[i]] = T[i + 1] * 1000
  N = get("events", 0); P = get("parallelism", 2)
  nq = split(get("queries", ""), Q, ",")
  duck = !("duckdb.skipped" in V)

  printf "## Nexmark benchmark: %s events (%s)\n\n", thousands(N), get("date", "?")
  printf "Command: `%s`. Whole run: %s s.\n\n", get("command", "?"), get("run_s", "?")
  printf "Machine: %s cores (%s), %.1f GiB RAM; load average %s before, %s after.\n",
    get("host.nproc", "?"), get("host.cpu", "?"), get("host.mem_kb", 0) / 1048576,
    get("host.load_before", "?"), get("host.load_after", "?")
  printf "Freshet: %s (binary %s of %s; repository at %s).\n", get("freshet.version", "?"),
    get("freshet.binary", "?"), get("freshet.binary_mtime", "?"), get("freshet.git", "?")
  printf "Sources: person, auction, bid (connector nexmark, nexmark.event.num %s: %s persons, %s auctions, %s bids; split.num 2; min.event.gap.in.ns 0). ",
    N, thousands(get("rows.person", 0)), thousands(get("rows.auction", 0)), thousands(get("rows.bid", 0))
  printf "Each query runs on a fresh server as `CREATE SINK ... WITH (connector = '"'"'blackhole'"'"')` after `SET streaming_parallelism = %s` (RisingWave runs some of its Nexmark queries as materialized views; here all are sinks). ", P
  printf "Time: from the CREATE until the job has consumed all its sources and a FLUSH after that has returned; events/s = %s events / time (all events, whichever tables the query reads); per core = events/s / %s.\n", thousands(N), P
  if (duck) printf "DuckDB %s (Node API, %s threads): each query once as `CREATE TEMP TABLE result AS <query>` over the same events, exported from Freshet.\n", get("duckdb.version", "?"), get("duckdb.threads", "?")
  else printf "DuckDB skipped: %s.\n", get("duckdb.skipped", "?")
  chk = get("check", "none")
  if (chk == "full") print "Check: a materialized view of the query, dumped with COPY, compared row by row with DuckDB'"'"'s result (numbers within 1e-9 relative)."
  else if (chk == "count") print "Check: a materialized view of `SELECT count(*) FROM (query)`, compared with the row count of DuckDB'"'"'s result."
  else print "Check: none."

  printf "\n### Results\n\n"
  print "| Query | Freshet time (s) | events/s | events/s per core | RisingWave target per core | vs target | server CPU (s) | events per CPU-second | peak RSS (MiB) | DuckDB (s) | Freshet/DuckDB time | result rows | check |"
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  for (i = 1; i <= nq; i++) {
    q = Q[i]; st = get("freshet." q ".status", "n/a")
    ms = get("freshet." q ".ms", ""); dms = get("duckdb." q ".ms", duck ? "n/a" : "skipped")
    tgt = (q in TARGET) ? kilo(TARGET[q]) : "-"
    rows = get("freshet." q ".rows", "")
    drows = get("duckdb." q ".rows", "")
    rowtxt = rows != "" ? thousands(rows) : (isnum(drows) && isnum(dms) ? thousands(drows) " (DuckDB)" : "")
    dtxt = dsec(dms)
    if (dms == "error") dtxt = "error"
    if (dms == "skip") dtxt = "not run"
    cpu = get("freshet." q ".cpu_ms", "")
    if (st == "ok") {
      eps = N / (ms / 1000); epc = eps / P
      vs = (q in TARGET) ? sprintf("%.2f×", epc / TARGET[q]) : "-"
      if (ms < 5000) short++
      printf "| %s | %s%s | %s | **%s** | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", q, sec(ms), (ms < 5000 ? " †" : ""), kilo(eps), kilo(epc), tgt, vs,
        sec(cpu), (isnum(cpu) && cpu > 0 ? kilo(N / (cpu / 1000)) : "n/a"),
        mib(get("freshet." q ".peak_kb")), dtxt,
        (isnum(dms) && dms > 0 ? sprintf("%.1f", ms / dms) : "n/a"), rowtxt, md(get("freshet." q ".check", "-"))
    } else if (st == "timeout" && get("freshet." q ".partial_expected", 0) > 0 && get("freshet." q ".partial_ms", 0) > 0) {
      frac = get("freshet." q ".partial_rows", 0) / get("freshet." q ".partial_expected", 1)
      pms = get("freshet." q ".partial_ms", 1)
      eps = N * frac / (pms / 1000); epc = eps / P
      vs = (q in TARGET) ? sprintf("≈ %.2f×", epc / TARGET[q]) : "-"
      printf "| %s | timeout: %.0f%% of the source rows in %s s | ≈ %s | **≈ %s** | %s | %s | %s | %s | %s | %s | | %s | |\n", q, frac * 100, sec(pms),
        kilo(eps), kilo(epc), tgt, vs, sec(cpu), (isnum(cpu) && cpu > 0 && frac > 0 ? "≈ " kilo(N * frac / (cpu / 1000)) : "n/a"),
        mib(get("freshet." q ".peak_kb")), dtxt, rowtxt
    } else {
      what = st
      if (st == "cannot_run") what = "cannot run yet"
      else if (st == "skip") what = "not run"
      else if (st == "timeout") what = "timeout"
      else if (st == "died") what = "server died"
      printf "| %s | %s | | | %s | | | | %s | %s | | %s | |\n", q, what, tgt,
        mib(get("freshet." q ".peak_kb", "")), dtxt, rowtxt
    }
  }
  print "\n\"vs target\": Freshet'"'"'s events/s per core divided by RisingWave'"'"'s published figure (8 vCPU); above 1 Freshet is faster. Server CPU: the server'"'"'s CPU time (user + system) from the CREATE to the end of the FLUSH; events per CPU-second = events / that (what one fully used core would do; less sensitive to other load on the machine). A timeout gives an estimate from the share of the source rows consumed by then (the rate over the whole job so far, start-up included). Peak RSS: VmHWM of the server, reset just before the CREATE. Freshet/DuckDB: Freshet'"'"'s streaming time over DuckDB'"'"'s batch time on the same events."
  if (short) print "\n†: under 5 s, a few barrier intervals (1 s; a source reader'"'"'s progress becomes visible at each checkpoint), so the time is coarse and the rate a lower bound; the larger runs measure these queries better."

  ncr = 0
  for (i = 1; i <= nq; i++) { q = Q[i]; st = get("freshet." q ".status", ""); if (st == "cannot_run" || st == "skip") ncr++ }
  if (ncr > 0) {
    print "\n### Queries Freshet cannot run yet\n"
    for (i = 1; i <= nq; i++) {
      q = Q[i]; st = get("freshet." q ".status", "")
      note = get("query." q ".note", "")
      if (st == "cannot_run")
        printf "- %s: cannot run yet: %s (SQLSTATE %s)%s\n", q, get("freshet." q ".message", "?"), get("freshet." q ".sqlstate", "?"), note != "" ? ". " note : ""
      else if (st == "skip")
        printf "- %s: not run: %s\n", q, get("freshet." q ".message", "?")
    }
  }

  if (duck) {
    print "\n### DuckDB\n"
    printf "Load (COPY from the exported CSV + CHECKPOINT): person %s s, auction %s s, bid %s s (%s rows).",
      dsec(get("duckdb.load.person.ms", "n/a")), dsec(get("duckdb.load.auction.ms", "n/a")), dsec(get("duckdb.load.bid.ms", "n/a")),
      thousands(get("duckdb.load.bid.rows", 0))
    if ("export.reused" in V) printf " The CSV files were reused from %s.\n", V["export.reused"]
    else printf " Export from Freshet (materialized view `SELECT * FROM <source>`, then COPY TO STDOUT): person %s s + %s s, auction %s s + %s s, bid %s s + %s s; the server peaked at %s MiB.\n",
      sec(get("export.person.mv_ms")), sec(get("export.person.copy_ms")), sec(get("export.auction.mv_ms")), sec(get("export.auction.copy_ms")),
      sec(get("export.bid.mv_ms")), sec(get("export.bid.copy_ms")), mib(get("export.peak_kb"))
    print "\n| Query | DuckDB (s) | result rows | peak RSS of node (MiB) | note |"
    print "|---|---:|---:|---:|---|"
    for (i = 1; i <= nq; i++) {
      q = Q[i]; dms = get("duckdb." q ".ms", "n/a")
      printf "| %s | %s | %s | %s | %s |\n", q, (dms == "skip" ? "not run" : dsec(dms)),
        (isnum(dms) ? thousands(get("duckdb." q ".rows", 0)) : ""), ((isnum(dms) || dms == "error") ? mib(get("duckdb." q ".peak_kb")) : ""),
        md(get("duckdb." q ".message", ""))
    }
  }

  print "\n### Details per query (Freshet)\n"
  print "| Query | status | load average at start | CREATE returned (ms) | sources consumed (s) | FLUSH after (ms) | cores used (CPU / time) | source readers | server log | check step (s) | server shutdown (s) |"
  print "|---|---|---:|---:|---:|---:|---:|---|---|---:|---|"
  for (i = 1; i <= nq; i++) {
    q = Q[i]; st = get("freshet." q ".status", "")
    if (st != "ok" && st != "timeout") continue
    lp = get(q ".log_problems", "0")
    ms = (st == "ok") ? get("freshet." q ".ms", 0) : get("freshet." q ".partial_ms", 0)
    cpu = get("freshet." q ".cpu_ms", "")
    sd = get("freshet." q ".shutdown_ms", "")
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", q, st, get("freshet." q ".load_before", "?"),
      get("freshet." q ".create_ms", "?"), sec(get("freshet." q ".sources_done_ms")),
      get("freshet." q ".flush_ms", "-"), (isnum(cpu) && ms > 0 ? sprintf("%.2f", cpu / ms) : "n/a"),
      get("freshet." q ".readers", "?"), (lp == 0 ? "clean" : lp " problem lines"),
      sec(get("freshet." q ".check_ms", "n/a")), (sd == "" ? "n/a" : sec(sd) " (" get("freshet." q ".shutdown", "?") ")")
  }
  printf "\nCores used: the server'"'"'s CPU time over the wall time of the job; streaming_parallelism is %s, so %s would be a job keeping every actor busy. The load average shows other work on the machine. Server shutdown: SIGTERM until the process exits, SIGKILL after 30 s (5 s after a timeout, when the job is still busy).\n", P, P

  print "\n### Failures and warnings\n"
  if (nf == 0) print "None."
  for (i = 1; i <= nf; i++) print "- " md(F[i])
}' "$1"
