#!/usr/bin/env bash
# TPC-H as materialized views (issue 19): the 22 queries as views over loaded
# tables, kept up to date under TPC-H's refresh functions, against DuckDB
# recomputing each query from scratch on the same data (the cost of
# incrementality).
#
#   bench/tpch/run.sh [--sf SF] [--quick] [--batches N] [--view-batches M]
#                     [--seed S] [--queries q01,q02,...] [--freshet PATH]
#                     [--runs R] [--create-timeout S] [--batch-timeout S]
#                     [--data-cache DIR] [--results FILE] [--no-duckdb]
#                     [--no-per-view]
#
#   --sf SF           scale factor (default 1); --quick = --sf 0.1
#   --batches N       refresh batches with all the views (default 5)
#   --view-batches M  refresh batches per view in the per-view phase (default 3)
#   --seed S          dbgen.py's seed (default 1)
#   --queries LIST    comma-separated subset (default q01,...,q22)
#   --freshet PATH    the server binary (default build/freshet; it is copied
#                     to the work directory first, so a rebuild does not
#                     change it under the run)
#   --runs R          DuckDB runs of each query: one warm-up, the median of
#                     the other R-1 is reported (default 3)
#   --create-timeout S  statement_timeout of each CREATE (default 1800)
#   --batch-timeout S   statement_timeout of each statement of a batch (600)
#   --data-cache DIR  where the generated data and refresh batches are kept,
#                     DIR/sf<SF>-seed<S>/ (default ~/.cache/freshet-tpch);
#                     a rerun with the same SF and seed skips generation
#   --results FILE    raw numbers (default bench/tpch/results/<date>-sf<SF>.txt,
#                     git-ignored); the Markdown report goes beside it
#                     (FILE.md), logs, EXPLAINs and result files in FILE.logs/
#   --no-duckdb       skip DuckDB (no ratios, no check)
#   --no-per-view     skip the per-view phase (3b)
#
# What is measured:
# 1. Data: bench/tpch/dbgen.py --sf SF --seed S (COPY text files); refresh
#    batches: bench/tpch/refresh.py (RF1 inserts 0.1% of orders, 1,500 at
#    SF 1, with their 1..7 lineitems each, keys from the sparse range dbgen
#    leaves unused; RF2 deletes as many existing base orders with their
#    lineitems). A batch is one transaction: BEGIN; COPY orders FROM STDIN;
#    COPY lineitem FROM STDIN; DELETE FROM lineitem WHERE l_orderkey IN
#    (...); DELETE FROM orders WHERE o_orderkey IN (...); COMMIT; FLUSH.
#    (dbgen.py --changes mixes updates of every table in, so it is not used.)
# 2. DuckDB (bench/tpch/duckdb_tpch.mjs through @duckdb/node-api of
#    bench/package.json, in memory, default threads = cores), first, alone:
#    the same .tsv files, batches 1..N applied the same way (timed), then
#    each query R times as CREATE OR REPLACE TEMP TABLE result AS <query>;
#    the median of runs 2..R is its recompute time.
# 3. Freshet, one server (bench/pg_peer.sh start_freshet: setsid, data in a
#    temporary directory, default configuration), after DuckDB has exited:
#    schema.sql, then each table with psql's \copy (COPY FROM STDIN), timed
#    per table, and a FLUSH; Q15's plain view revenue0. Then each query as
#    CREATE MATERIALIZED VIEW tpch_qNN AS <query> (ORDER BY/LIMIT kept:
#    top-N views), one after the other, each timed (psql \timing; CREATE
#    returns when its backfill is done), with the server's RSS after it.
#    EXPLAIN CREATE MATERIALIZED VIEW of each goes to the logs.
#    3a. All views: batches 1..N, each timed from BEGIN to the return of
#        its FLUSH (the sum of psql's \timing of its statements; every view
#        is up to date when FLUSH returns); rows/s = rows changed (orders
#        and lineitems inserted and deleted) / that time. The parts: the
#        DML statements (COPY, DELETE: rows parsed, rows to delete found;
#        a transaction block's writes are applied at COMMIT), COMMIT (the
#        writes applied to the tables and sent into the views' change
#        streams), FLUSH (until every view has processed and committed
#        them). Then each view's rows are dumped and compared with DuckDB's
#        result of its query after the same N batches (multisets; numbers
#        within a relative 1e-6, text without trailing blanks;
#        bench/tpch/compare.py).
#    3b. Per view: all views dropped; 2 batches with no view at all (the
#        cost of the DML, commit and FLUSH alone); then for each query:
#        CREATE its view alone (timed again), M batches timed as in 3a,
#        DROP. A view's maintenance time per batch is the median over its M
#        batches, with only that view existing, of BEGIN .. FLUSH returned
#        and of COMMIT + FLUSH. The data moves on by one batch each time
#        (batches N+1, N+2, ...: always 0.1% inserted and 0.1% deleted).
#    Before the batches of 3a, after the DROPs and after each CREATE and DROP
#    of 3b, the script waits (at most 120 s) until the server uses less than
#    a quarter of a core (compactions of a backfill's or a dropped view's
#    state would otherwise land in the next batch's time).
# The report (bench/tpch/report.py, also written when the run stops early)
# gives per query: create time, maintenance per batch, DuckDB's recompute
# time and DuckDB / maintenance (target >= 10); totals, load times, rows/s
# with all views, and the check.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
COMMAND_LINE="$0 $*"

SF=1
BATCHES=5
VIEW_BATCHES=3
SEED=1
QUERY_LIST="q01,q02,q03,q04,q05,q06,q07,q08,q09,q10,q11,q12,q13,q14,q15,q16,q17,q18,q19,q20,q21,q22"
FRESHET="$REPO/build/freshet"
RUNS=3
CREATE_TIMEOUT=1800
BATCH_TIMEOUT=600
DATA_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/freshet-tpch"
RESULTS=""
DUCKDB=1
PER_VIEW=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --sf) SF="$2"; shift 2 ;;
    --quick) SF=0.1; shift ;;
    --batches) BATCHES="$2"; shift 2 ;;
    --view-batches) VIEW_BATCHES="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --queries) QUERY_LIST="$2"; shift 2 ;;
    --freshet) FRESHET="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --create-timeout) CREATE_TIMEOUT="$2"; shift 2 ;;
    --batch-timeout) BATCH_TIMEOUT="$2"; shift 2 ;;
    --data-cache) DATA_CACHE="$2"; shift 2 ;;
    --results) RESULTS="$2"; shift 2 ;;
    --no-duckdb) DUCKDB=0; shift ;;
    --no-per-view) PER_VIEW=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 1 ;;
  esac
done

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
[[ "$SF" =~ ^[0-9]*\.?[0-9]+$ ]] || die "--sf must be a positive number"
for v in BATCHES VIEW_BATCHES SEED RUNS CREATE_TIMEOUT BATCH_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "--${v,,} must be a non-negative integer"
done
[ "$BATCHES" -ge 1 ] || die "--batches must be at least 1"
[ -x "$FRESHET" ] || die "no Freshet binary at $FRESHET (build it, or pass --freshet PATH)"
command -v psql >/dev/null || die "psql not found (postgresql-client)"
[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5 (EPOCHREALTIME)"
IFS=, read -r -a QUERIES <<< "$QUERY_LIST"
for q in "${QUERIES[@]}"; do [ -f "$HERE/queries/$q.sql" ] || die "no query $q"; done
if [ "$DUCKDB" -eq 1 ] && [ ! -d "$REPO/bench/node_modules/@duckdb/node-api" ]; then
  log "installing @duckdb/node-api (cd bench && npm install)"
  (cd "$REPO/bench" && npm install --no-audit --no-fund >/dev/null) || die "npm install failed"
fi

if [ -z "$RESULTS" ]; then
  mkdir -p "$HERE/results"
  RESULTS="$HERE/results/$(date +%Y%m%d-%H%M%S)-sf$SF.txt"
fi
mkdir -p "$(dirname "$RESULTS")"
RESULTS="$(cd "$(dirname "$RESULTS")" && pwd)/$(basename "$RESULTS")"
LOGS="$RESULTS.logs"
rm -rf "$LOGS"; mkdir -p "$LOGS"
: > "$RESULTS"
record() { echo "$1=$2" >> "$RESULTS"; }

exec 3>&1 4>&2   # the report goes to the script's own stdout, even from a trap in a redirected command
BENCH_NAME=tpch
source "$REPO/bench/pg_peer.sh"   # WORK, cleanup on exit, free_port, start_freshet
NODE_PID=""
DONE=0
on_exit() {
  local rc=$?
  [ -n "$NODE_PID" ] && kill "$NODE_PID" 2>/dev/null || true
  [ -f "$WORK/fr.log" ] && cp "$WORK/fr.log" "$LOGS/freshet.log" 2>/dev/null || true
  cleanup
  if [ -s "$RESULTS" ]; then   # also after a failure or an interrupt: what was measured so far
    [ "$DONE" -eq 1 ] || record unfinished "the run stopped early (exit status $rc)"
    python3 "$HERE/report.py" "$RESULTS" > "$RESULTS.md" && cat "$RESULTS.md" >&3
    log "raw numbers: $RESULTS; report: $RESULTS.md; logs: $LOGS" 2>&4
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cp -p "$FRESHET" "$WORK/freshet"
record command "$COMMAND_LINE"
record date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
record machine "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -r)"
record loadavg "$(cut -d' ' -f1-3 /proc/loadavg)"
record freshet "$FRESHET (modified $(date -u -r "$FRESHET" +%Y-%m-%dT%H:%M:%SZ); the repository is at commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
record sf "$SF"; record seed "$SEED"; record batches "$BATCHES"; record view_batches "$VIEW_BATCHES"
record queries "$QUERY_LIST"; record runs "$RUNS"

now_us() { echo "${EPOCHREALTIME/./}"; }
ms_since() { awk -v a="$1" -v b="$(now_us)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# --- 1. data and refresh batches ---------------------------------------------
DATA="$DATA_CACHE/sf$SF-seed$SEED"
if [ ! -f "$DATA/.done" ]; then
  log "generating SF $SF (seed $SEED) into $DATA"
  rm -rf "$DATA.tmp"; mkdir -p "$DATA.tmp"
  python3 "$HERE/dbgen.py" --sf "$SF" --seed "$SEED" --jobs "$(nproc)" --out "$DATA.tmp" 2>&1 | tail -1 >&2
  rm -rf "$DATA"; mv "$DATA.tmp" "$DATA"; touch "$DATA/.done"
fi
NEED=$((BATCHES + (PER_VIEW ? 2 + ${#QUERIES[@]} * VIEW_BATCHES : 0)))
RF="$DATA/rf"
if [ ! -f "$RF/counts.tsv" ] || [ "$(wc -l < "$RF/counts.tsv")" -lt "$NEED" ]; then
  log "generating $NEED refresh batches into $RF"
  rm -rf "$RF"
  python3 "$HERE/refresh.py" --sf "$SF" --seed "$SEED" --batches "$NEED" --out "$RF"
fi
read -r _ RF_ORDERS RF_LINES RF_DEL_ORDERS RF_DEL_LINES < <(head -1 "$RF/counts.tsv")
record rf_batch1 "insert $RF_ORDERS orders + $RF_LINES lineitems, delete $RF_DEL_ORDERS orders + $RF_DEL_LINES lineitems"
TABLES="region nation part partsupp supplier customer orders lineitem"
for t in $TABLES; do record "rows.$t" "$(wc -l < "$DATA/$t.tsv")"; done

# --- 2. DuckDB (first, so a Freshet run cut short still has its peer) -------
if [ "$DUCKDB" -eq 1 ]; then
  log "DuckDB: load, $BATCHES batches, ${#QUERIES[@]} queries x $RUNS"
  node "$HERE/duckdb_tpch.mjs" "$DATA" "$RF" "$BATCHES" "$HERE/queries" "$LOGS" "$RUNS" "$QUERY_LIST" \
    > "$LOGS/duckdb.out" 2> "$LOGS/duckdb.err" &
  NODE_PID=$!
  wait "$NODE_PID" || log "DuckDB failed: $(tail -3 "$LOGS/duckdb.err")"
  NODE_PID=""
  awk '
    $1 == "version" { print "duckdb=" $2 " threads " $4 }
    $1 == "load" { print "duck.load." $2 ".ms=" $3 }
    $1 == "batch" { print "duck.batch." $2 ".ms=" $3; print "duck.batch." $2 ".rows=" $4 }
    $1 == "query" && $3 == "error" { name = $2; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print "duck." name ".error=" $0; next }
    $1 == "query" { print "duck." $2 ".ms=" $3; print "duck." $2 ".rows=" $4; print "duck." $2 ".runs=" $5 }
  ' "$LOGS/duckdb.out" >> "$RESULTS"
fi

# --- 3. Freshet ---------------------------------------------------------------
FR_PORT=$(free_port)
start_freshet "$WORK/freshet" "$FR_PORT"
log "Freshet on port $FR_PORT (pid $FR_PID), work directory $WORK"
fr() { psql -X -q -h 127.0.0.1 -p "$FR_PORT" -U root -d dev "$@"; }
rss_mb() { awk -v k="$1" '$1 == k":" { printf "%.0f", $2 / 1024 }' "/proc/$FR_PID/status"; }
sql_of() { sed -e 's/;[[:space:]]*$//' "$HERE/queries/$1.sql"; }
# last_ms FILE: the last "Time: N ms" of psql's \timing in FILE
last_ms() { awk '/^Time: / { t = $2 } END { print t }' "$1"; }

fr -v ON_ERROR_STOP=1 -f "$HERE/schema.sql" >/dev/null
log "loading"
load_total=0
for t in $TABLES; do
  t0=$(now_us)
  fr -v ON_ERROR_STOP=1 -c "\\copy $t from '$DATA/$t.tsv'" >/dev/null
  ms=$(ms_since "$t0"); record "load.$t.ms" "$ms"
  load_total=$(awk -v a="$load_total" -v b="$ms" 'BEGIN { print a + b }')
done
t0=$(now_us); fr -c "FLUSH"; ms=$(ms_since "$t0"); record load.flush.ms "$ms"
record load.total.ms "$(awk -v a="$load_total" -v b="$ms" 'BEGIN { print a + b }')"
record load.data_dir_mb "$(du -sm "$WORK/fr" | cut -f1)"
log "loaded in $(awk -v a="$load_total" 'BEGIN { printf "%.1f", a / 1000 }') s + FLUSH"
fr -v ON_ERROR_STOP=1 -f "$HERE/queries/q15_view.sql" >/dev/null

# create_view Q PHASE: CREATE MATERIALIZED VIEW tpch_Q, timed; records
# PHASE.Q.ms or PHASE.Q.error; returns 1 on failure.
create_view() {
  local q=$1 phase=$2 out="$LOGS/$2.$1.out"
  { echo "SET statement_timeout = '${CREATE_TIMEOUT}s';"; echo '\timing on'
    echo "CREATE MATERIALIZED VIEW tpch_$q AS $(sql_of "$q");"; } > "$WORK/create.sql"
  if fr -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -f "$WORK/create.sql" > "$out" 2>&1; then
    record "$phase.$q.ms" "$(last_ms "$out")"
  else
    record "$phase.$q.error" "$(grep -m1 ERROR "$out" | cut -c1-300)"
    fr -c "DROP MATERIALIZED VIEW IF EXISTS tpch_$q" >/dev/null 2>&1 || true
    return 1
  fi
}

# run_batch B KEY: refresh batch B (rfB.sql), timed; records KEY.ms (BEGIN ..
# FLUSH returned: the sum of its statements' \timing), KEY.dml_ms (BEGIN ..
# the last DELETE), KEY.commit_ms, KEY.flush_ms, KEY.rows (from the command
# tags), KEY.wall_ms (psql process, connection included).
run_batch() {
  local b=$1 key=$2 out="$LOGS/batch.$2.out" t0
  { echo "SET statement_timeout = '${BATCH_TIMEOUT}s';"; echo '\timing on'; cat "$RF/rf$b.sql"; } > "$WORK/batch.sql"
  t0=$(now_us)
  if ! psql -X -h 127.0.0.1 -p "$FR_PORT" -U root -d dev -v ON_ERROR_STOP=1 -f "$WORK/batch.sql" > "$out" 2>&1; then
    record "$key.error" "$(grep -m1 ERROR "$out" | cut -c1-300)"
    fr -c "FLUSH" >/dev/null 2>&1 || true
    return 1
  fi
  record "$key.wall_ms" "$(ms_since "$t0")"
  awk -v key="$key" '
    /^Time: / { t[++n] = $2; sum += $2 }
    /^(COPY|DELETE) [0-9]+$/ { rows += $2 }
    END {
      # statements after SET: BEGIN COPY COPY DELETE DELETE COMMIT FLUSH
      printf "%s.ms=%.3f\n%s.dml_ms=%.3f\n%s.commit_ms=%.3f\n%s.flush_ms=%.3f\n%s.rows=%d\n",
        key, sum, key, t[1] + t[2] + t[3] + t[4] + t[5], key, t[6], key, t[7], key, rows
    }' "$out" >> "$RESULTS"
}
# settle KEY: waits (at most 120 s) until the server has used less than 25%
# of a core over 2 s (compactions after a backfill or a DROP), so that a
# batch's time is not another job's; records KEY.settle_s.
settle() {
  local t0=$SECONDS a b
  cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$FR_PID/stat"; }
  while [ $((SECONDS - t0)) -lt 120 ]; do
    a=$(cpu_ticks); sleep 2; b=$(cpu_ticks)
    [ $((b - a)) -lt $(( $(getconf CLK_TCK) / 2 )) ] && break
  done
  record "$1.settle_s" "$((SECONDS - t0))"
}
get() { awk -F= -v k="$1" '$1 == k { v = substr($0, length(k) + 2) } END { print v }' "$RESULTS"; }

declare -A OK_VIEW=()
log "creating ${#QUERIES[@]} views"
t_all=$(now_us)
for q in "${QUERIES[@]}"; do
  fr -c "EXPLAIN CREATE MATERIALIZED VIEW tpch_$q AS $(sql_of "$q")" > "$LOGS/explain.$q.txt" 2>&1 || true
  if create_view "$q" create; then
    OK_VIEW[$q]=1
    record "create.$q.rss_mb" "$(rss_mb VmRSS)"
    log "  $q created in $(get "create.$q.ms") ms (server RSS $(get "create.$q.rss_mb") MiB)"
  else
    log "  $q failed: $(get "create.$q.error")"
  fi
done
record create.total.ms "$(ms_since "$t_all")"
record create.rss_mb "$(rss_mb VmRSS)"
record create.data_dir_mb "$(du -sm "$WORK/fr" | cut -f1)"

log "phase 3a: $BATCHES batches with every view"
settle all
for b in $(seq 1 "$BATCHES"); do
  run_batch "$b" "all.$b" || log "  batch $b failed: $(get "all.$b.error")"
  log "  batch $b: $(get "all.$b.ms") ms ($(get "all.$b.rows") rows; FLUSH $(get "all.$b.flush_ms") ms)"
done
record all.rss_mb "$(rss_mb VmRSS)"
record all.hwm_mb "$(rss_mb VmHWM)"
for q in "${!OK_VIEW[@]}"; do
  psql -X -q -At -F $'\t' -h 127.0.0.1 -p "$FR_PORT" -U root -d dev -c "SELECT * FROM tpch_$q" \
    > "$LOGS/freshet.$q.tsv" 2> "$LOGS/freshet.$q.err" || true
done
# Check: each view after batch N against DuckDB's result of its query.
if [ "$DUCKDB" -eq 1 ]; then
  for q in "${QUERIES[@]}"; do
    if [ -z "${OK_VIEW[$q]:-}" ]; then record "check.$q" "no view"; continue; fi
    if [ ! -f "$LOGS/duckdb.$q.tsv" ]; then record "check.$q" "no DuckDB result"; continue; fi
    if [ -s "$LOGS/freshet.$q.err" ]; then record "check.$q" "dump failed: $(head -c 200 "$LOGS/freshet.$q.err")"; continue; fi
    record "check.$q" "$(python3 "$HERE/compare.py" "$LOGS/freshet.$q.tsv" "$LOGS/duckdb.$q.tsv" || true)"
  done
fi

if [ "$PER_VIEW" -eq 1 ]; then
  log "phase 3b: per view, $VIEW_BATCHES batches each"
  for q in "${!OK_VIEW[@]}"; do fr -c "DROP MATERIALIZED VIEW tpch_$q" >/dev/null; done
  settle none
  b=$BATCHES
  for i in 1 2; do
    b=$((b + 1)); run_batch "$b" "none.$i" || true
    log "  no view, batch $b: $(get "none.$i.ms") ms"
  done
  for q in "${QUERIES[@]}"; do
    if [ -z "${OK_VIEW[$q]:-}" ]; then b=$((b + VIEW_BATCHES)); continue; fi
    if ! create_view "$q" create2; then
      log "  $q: create failed: $(get "create2.$q.error")"; b=$((b + VIEW_BATCHES)); continue
    fi
    settle "view.$q"
    for i in $(seq 1 "$VIEW_BATCHES"); do
      b=$((b + 1)); run_batch "$b" "view.$q.$i" || true
    done
    fr -c "DROP MATERIALIZED VIEW tpch_$q" >/dev/null
    settle "drop.$q"
    log "  $q: create $(get "create2.$q.ms") ms, batches $(for i in $(seq 1 "$VIEW_BATCHES"); do printf '%s ' "$(get "view.$q.$i.ms")"; done)ms"
  done
fi
# (pg_isready's probe as user root logs 'FATAL: database "root" does not exist')
n_err=$(grep -iE '\b(error|panic|fatal)\b' "$WORK/fr.log" | grep -cv 'database "root" does not exist' || true)
[ "$n_err" -eq 0 ] || record server_log_errors "$n_err"
kill -TERM "$FR_PID" 2>/dev/null || true
for _ in $(seq 1 300); do kill -0 "$FR_PID" 2>/dev/null || break; sleep 0.1; done
cp "$WORK/fr.log" "$LOGS/freshet.log"

DONE=1
