#!/usr/bin/env bash
# Foundation benchmark (issue 2): bulk load and four analytic queries on the
# same generated data, Freshet against PostgreSQL 15 and DuckDB in one run.
#
#   bench/foundation/run.sh [--rows N] [--freshet PATH] [--runs R] [--seed S]
#                           [--timeout SECONDS] [--results FILE] [--workdir DIR]
#
#   --rows N         rows of table t (default 10000000); u has 100,000 rows
#   --freshet PATH   the server binary (default build/freshet of this repo)
#   --runs R         timed runs per query after one warm-up (default 3)
#   --seed S         data generator seed (default 42)
#   --timeout S      limit for each step (one load, or one query's warm-up
#                    and runs) of each system, in seconds (default 3600)
#   --results FILE   raw numbers (default bench/foundation/results/<date>-<rows>.txt)
#   --workdir DIR    where the data and the databases go (default: a new
#                    directory under $TMPDIR or /tmp, removed at the end)
#
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin).
#
# What is measured, for each system, one after the other (never two servers
# at once):
#   load    t from a CSV file: Freshet and PostgreSQL through psql's \copy
#           (COPY t FROM STDIN), Freshet's time including a FLUSH after it;
#           DuckDB with COPY t FROM 'file' plus CHECKPOINT.
#   queries each once as a warm-up then R times, in one psql session per
#           query with \timing (no connection set-up in the times); DuckDB
#           through its Node API in the same process that loaded the data.
#   memory  the peak RSS (VmHWM, reset with clear_refs before each step) of
#           the Freshet server; of PostgreSQL's processes (postmaster and
#           every child: backends, parallel workers, checkpointer, ...),
#           sampled every 20 ms, reported as the largest single process and
#           as the sum over processes (the sum counts shared buffers once per
#           process that touched them); of the DuckDB node process.
# PostgreSQL runs with initdb's default configuration (trust auth, C locale)
# and gets a VACUUM ANALYZE after its load, timed separately.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

ROWS=10000000
FRESHET="$REPO/build/freshet"
RUNS=3
SEED=42
STEP_TIMEOUT=3600
RESULTS=""
WORKDIR=""
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
U_ROWS=100000

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --rows) ROWS="$2"; shift 2 ;;
    --freshet) FRESHET="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --timeout) STEP_TIMEOUT="$2"; shift 2 ;;
    --results) RESULTS="$2"; shift 2 ;;
    --workdir) WORKDIR="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 1 ;;
  esac
done

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[[ "$ROWS" =~ ^[0-9]+$ ]] && [ "$ROWS" -gt 0 ] || die "--rows must be a positive integer"
[[ "$RUNS" =~ ^[0-9]+$ ]] && [ "$RUNS" -gt 0 ] || die "--runs must be a positive integer"
[ -x "$FRESHET" ] || die "no Freshet binary at $FRESHET (build it, or pass --freshet PATH)"
FRESHET="$(cd "$(dirname "$FRESHET")" && pwd)/$(basename "$FRESHET")"
[ -x "$PG_BIN/postgres" ] || die "no PostgreSQL server in $PG_BIN (scripts/install-deps.sh installs postgresql-15)"
command -v psql >/dev/null || die "psql not found (postgresql-client)"
CXX="${CXX:-$(command -v c++ || command -v g++ || true)}"
[ -n "$CXX" ] || die "no C++ compiler (build-essential)"

if [ -z "$RESULTS" ]; then
  mkdir -p "$HERE/results"
  RESULTS="$HERE/results/$(date +%Y%m%d-%H%M%S)-$ROWS.txt"
fi
mkdir -p "$(dirname "$RESULTS")"
RESULTS="$(cd "$(dirname "$RESULTS")" && pwd)/$(basename "$RESULTS")"
: > "$RESULTS"

# --- set-up and clean-up ----------------------------------------------------

OWN_WORKDIR=0
if [ -z "$WORKDIR" ]; then
  WORKDIR="$(mktemp -d "${TMPDIR:-/tmp}/freshet-bench.XXXXXX")"
  OWN_WORKDIR=1
else
  mkdir -p "$WORKDIR"
  WORKDIR="$(cd "$WORKDIR" && pwd)"
fi
chmod 755 "$WORKDIR"   # PostgreSQL (user postgres when we are root) lives below

AS_PG=()               # prefix to run PostgreSQL's programs
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root but there is no postgres user"
  AS_PG=(runuser -u postgres --)
fi

FRESHET_PID=""
SAMPLER_PID=""
NODE_PID=""
PG_DATA=""
PG_STARTED=0

cleanup() {
  local rc=$?
  set +e
  if [ -n "$SAMPLER_PID" ]; then kill -TERM "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null; fi
  if [ -n "$NODE_PID" ]; then kill -TERM "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null; fi
  stop_freshet
  stop_pg
  if [ "$OWN_WORKDIR" -eq 1 ]; then rm -rf "$WORKDIR"; else rm -rf "$WORKDIR/fr" "$WORKDIR/pg" "$WORKDIR/duck"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# free_port VAR: sets VAR to a TCP port nobody listens on (connecting is
# refused) and that this script has not handed out yet.
USED_PORTS=" "
free_port() {
  local p i
  for i in $(seq 1 500); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    case "$USED_PORTS" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      USED_PORTS="$USED_PORTS$p "
      printf -v "$1" '%s' "$p"
      return 0
    fi
  done
  die "no free TCP port found"
}

record() { echo "$1=$2" >> "$RESULTS"; }

now_ns() { date +%s%N; }
ms_since() { echo $(( ($(now_ns) - $1) / 1000 )) | awk '{printf "%.3f", $1 / 1000}'; }

# Start the peak-memory sampler on ROOT_PID (and its children); stop_sampler
# sets SAMP_MAX (largest process), SAMP_SUM (sum over processes), in KiB, and
# SAMP_RESET (whether the peaks could be reset at the start).
start_sampler() {
  local root="$1"
  SAMPLER_OUT="$WORKDIR/sampler.$RANDOM"
  "$WORKDIR/benchtool" sample "$root" 20 "$SAMPLER_OUT" > "$SAMPLER_OUT.ready" &
  SAMPLER_PID=$!
  local i
  for i in $(seq 1 200); do
    grep -q ready "$SAMPLER_OUT.ready" 2>/dev/null && return 0
    sleep 0.01
  done
}
stop_sampler() {
  kill -TERM "$SAMPLER_PID" 2>/dev/null || true
  wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=""
  SAMP_MAX=-1 SAMP_SUM=-1 SAMP_RESET=failed
  if [ -f "$SAMPLER_OUT" ]; then
    read -r SAMP_MAX SAMP_SUM SAMP_RESET < <(awk '$1=="max_kb"{m=$2} $1=="sum_kb"{s=$2} $1=="reset"{r=$2}
      END{print m, s, r}' "$SAMPLER_OUT")
  fi
  rm -f "$SAMPLER_OUT" "$SAMPLER_OUT.ready"
}

# --- the workload -----------------------------------------------------------

QUERY_NAMES=(count groupby join topn)
declare -A QUERY_SQL=(
  [count]="SELECT count(*) FROM t"
  [groupby]="SELECT b % 1000 AS g, count(*), sum(c) FROM t GROUP BY 1"
  [join]="SELECT count(*), sum(t.c), sum(u.w) FROM t JOIN u ON t.b = u.k"
  [topn]="SELECT a, b, c, d, e FROM t ORDER BY c DESC LIMIT 100"
)
declare -A QUERY_LABEL=(
  [count]="count(*)"
  [groupby]="GROUP BY, 1,000 groups"
  [join]="hash join ${ROWS} x ${U_ROWS} + aggregate"
  [topn]="ORDER BY c DESC LIMIT 100"
)
CREATE_T="CREATE TABLE t (a bigint, b bigint, c double precision, d text, e timestamp)"
CREATE_U="CREATE TABLE u (k bigint, w double precision, name text)"

QUERIES_TSV="$WORKDIR/queries.tsv"
: > "$QUERIES_TSV"
for q in "${QUERY_NAMES[@]}"; do printf '%s\t%s\n' "$q" "${QUERY_SQL[$q]}" >> "$QUERIES_TSV"; done

log "work directory $WORKDIR; results to $RESULTS"
record rows "$ROWS"
record u_rows "$U_ROWS"
record seed "$SEED"
record runs "$RUNS"
record date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
record host.nproc "$(nproc)"
record host.mem_kb "$(awk '/MemTotal/{print $2}' /proc/meminfo)"
record host.cpu "$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
record host.load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
record freshet.binary "$FRESHET"
record freshet.version "$("$FRESHET" --version 2>&1 | head -1)"
record freshet.binary_mtime "$(date -u -r "$FRESHET" +%Y-%m-%dT%H:%M:%SZ)"
if head="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)"; then
  git -C "$REPO" diff --quiet HEAD 2>/dev/null || head="$head with uncommitted changes"
  record freshet.git "$head"
else
  record freshet.git unknown
fi
for q in "${QUERY_NAMES[@]}"; do record "query.$q" "${QUERY_SQL[$q]}"; done

log "building the generator"
"$CXX" -O2 -std=c++17 -o "$WORKDIR/benchtool" "$HERE/benchtool.cc"

log "generating $ROWS rows of t and $U_ROWS rows of u (seed $SEED)"
T_CSV="$WORKDIR/t.csv"
U_CSV="$WORKDIR/u.csv"
t0=$(now_ns)
"$WORKDIR/benchtool" gen-t "$ROWS" "$SEED" "$T_CSV"
"$WORKDIR/benchtool" gen-u "$U_ROWS" "$SEED" "$U_CSV"
record gen.ms "$(ms_since "$t0")"
record gen.t_csv_bytes "$(stat -c %s "$T_CSV")"
chmod 644 "$T_CSV" "$U_CSV"
# The generated files' writeback must not land on the first system measured.
sync

FAILURES=()   # "System: what" lines for the report
declare -A SYS_NAME=([freshet]=Freshet [pg]=PostgreSQL [duckdb]=DuckDB)
# exit_text RC: how a step's command ended, for the failure list.
exit_text() {
  case "$1" in
    124|137) echo "timed out after ${STEP_TIMEOUT} s" ;;
    *) echo "exit status $1" ;;
  esac
}

# Run one query's warm-up and timed runs in a single psql session.
# psql_query SYSTEM NAME PSQL_ARGS... ; records SYSTEM.q.NAME.runK (ms or
# "error"/"timeout") and the warm-up's rows to $WORKDIR/out/SYSTEM.NAME.out.
psql_query() {
  local sys="$1" name="$2"; shift 2
  local sql="${QUERY_SQL[$name]}"
  local script="$WORKDIR/$sys.$name.sql" log="$WORKDIR/$sys.$name.log"
  mkdir -p "$WORKDIR/out"
  {
    echo '\timing on'
    local k
    for k in $(seq 0 "$RUNS"); do
      if [ "$k" -eq 0 ]; then echo "\\o $WORKDIR/out/$sys.$name.out"; else echo '\o /dev/null'; fi
      echo "$sql;"
      echo "\\echo MARK $k :ERROR :'LAST_ERROR_MESSAGE'"
    done
  } > "$script"
  local rc=0
  timeout -s INT -k 30 "$STEP_TIMEOUT" psql -X -q -A -t -F, -v ON_ERROR_STOP=0 "$@" -f "$script" \
    > "$log" 2> "$log.err" || rc=$?
  # Time: lines precede their MARK line; a run without MARK did not finish.
  awk -v runs="$RUNS" -v sys="$sys" -v name="$name" -v rc="$rc" '
    /^Time: / { t = $2 }
    /^MARK / {
      k = $2
      if ($3 == "true") { msg = $0; sub(/^MARK [0-9]+ true /, "", msg); res[k] = "error"; err[k] = msg }
      else res[k] = t
      t = ""
    }
    END {
      for (k = 0; k <= runs; k++) {
        v = (k in res) ? res[k] : (rc == 124 || rc == 137 ? "timeout" : "error")
        print sys ".q." name ".run" k "=" v
        if (k in err) print sys ".q." name ".run" k ".message=" err[k]
      }
    }' "$log" >> "$RESULTS"
  if [ "$rc" -ne 0 ] || grep -q "^MARK [0-9]* true" "$log"; then
    local first
    first="$(grep -m1 -E 'ERROR|FATAL|server closed|terminated' "$log.err" || true)"
    local how=""
    [ "$rc" -eq 0 ] || how=" (psql $(exit_text "$rc"))"
    FAILURES+=("${SYS_NAME[$sys]}: query $name$how${first:+: $first}")
  fi
}

# --- Freshet ----------------------------------------------------------------

FR_PORT=""
FR_DIR="$WORKDIR/fr"
fr_psql() { psql -X -q -h 127.0.0.1 -p "$FR_PORT" -U root -d dev "$@"; }

start_freshet() {
  local http_port
  free_port FR_PORT
  free_port http_port
  "$FRESHET" --data-dir "$FR_DIR" --port "$FR_PORT" --http-port "$http_port" \
    --listen-address 127.0.0.1 >> "$WORKDIR/freshet.log" 2>&1 &
  FRESHET_PID=$!
  local i
  for i in $(seq 1 600); do
    if fr_psql -c "SELECT 1" >/dev/null 2>&1; then return 0; fi
    kill -0 "$FRESHET_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -20 "$WORKDIR/freshet.log" >&2
  die "Freshet did not start"
}
stop_freshet() {
  [ -n "$FRESHET_PID" ] || return 0
  kill -TERM "$FRESHET_PID" 2>/dev/null || true
  local i
  for i in $(seq 1 600); do
    kill -0 "$FRESHET_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$FRESHET_PID" 2>/dev/null || true
  wait "$FRESHET_PID" 2>/dev/null || true
  FRESHET_PID=""
}
# After a step: if the server died, say so and restart it on the same data.
freshet_alive_or_restart() {
  if ! kill -0 "$FRESHET_PID" 2>/dev/null; then
    FAILURES+=("Freshet: the server died during $1 (last log line: $(tail -1 "$WORKDIR/freshet.log"))")
    record "freshet.died_during.$1" yes
    wait "$FRESHET_PID" 2>/dev/null || true
    FRESHET_PID=""
    log "Freshet died during $1; restarting it"
    start_freshet
  fi
}

run_freshet() {
  log "Freshet: starting $FRESHET"
  start_freshet
  fr_psql -v ON_ERROR_STOP=1 -c "$CREATE_T" -c "$CREATE_U" >/dev/null
  fr_psql -v ON_ERROR_STOP=1 -c "\\copy u FROM '$U_CSV' WITH (FORMAT csv)" -c "FLUSH" >/dev/null

  log "Freshet: loading t"
  start_sampler "$FRESHET_PID"
  local t0 rc=0
  # One session; the clock readings between the steps split the time into
  # the COPY and the FLUSH.
  printf '%s\n' '\! date +%s%N' "\\copy t FROM '$T_CSV' WITH (FORMAT csv)" '\! date +%s%N' \
    'FLUSH;' '\! date +%s%N' > "$WORKDIR/fr.load.sql"
  t0=$(now_ns)
  timeout -k 30 "$STEP_TIMEOUT" psql -X -q -h 127.0.0.1 -p "$FR_PORT" -U root -d dev -v ON_ERROR_STOP=1 \
    -f "$WORKDIR/fr.load.sql" > "$WORKDIR/fr.load.log" 2>&1 || rc=$?
  local ms
  ms="$(ms_since "$t0")"
  stop_sampler
  record freshet.load.peak_kb "$SAMP_MAX"
  record freshet.memory_reset "$SAMP_RESET"
  if [ "$rc" -eq 0 ]; then
    record freshet.load.ms "$ms"
    awk '/^[0-9]+$/ { t[++n] = $1 }
      END { if (n == 3) printf "freshet.load.copy_ms=%.3f\nfreshet.load.flush_ms=%.3f\n",
              (t[2] - t[1]) / 1e6, (t[3] - t[2]) / 1e6 }' "$WORKDIR/fr.load.log" >> "$RESULTS"
  else
    record freshet.load.ms "$([ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo timeout || echo error)"
    FAILURES+=("Freshet: load: psql $(exit_text "$rc"), after $ms ms: $(head -3 "$WORKDIR/fr.load.log" | tr '\n' ' ')")
  fi
  freshet_alive_or_restart load
  record freshet.load.count "$(fr_psql -A -t -c "SELECT count(*) FROM t" 2>&1 | head -1)"
  record freshet.disk_kb "$(du -sk "$FR_DIR" | cut -f1)"

  local q
  for q in "${QUERY_NAMES[@]}"; do
    log "Freshet: query $q"
    start_sampler "$FRESHET_PID"
    psql_query freshet "$q" -h 127.0.0.1 -p "$FR_PORT" -U root -d dev
    stop_sampler
    record "freshet.q.$q.peak_kb" "$SAMP_MAX"
    freshet_alive_or_restart "$q"
  done
  log "Freshet: stopping"
  stop_freshet
  rm -rf "$FR_DIR"
}

# --- PostgreSQL -------------------------------------------------------------

PG_PORT=""
PG_RUN="$WORKDIR/pgrun"
pg_psql() { psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres "$@"; }

stop_pg() {
  [ "$PG_STARTED" -eq 1 ] || return 0
  "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 ||
    "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1 || true
  PG_STARTED=0
}

run_pg() {
  PG_DATA="$WORKDIR/pg"
  mkdir -p "$PG_DATA" "$PG_RUN"
  if [ ${#AS_PG[@]} -gt 0 ]; then chown postgres: "$PG_DATA" "$PG_RUN"; fi
  chmod 700 "$PG_DATA"
  log "PostgreSQL: initdb"
  "${AS_PG[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C \
    > "$PG_RUN/initdb.log" 2>&1 || { cat "$PG_RUN/initdb.log" >&2; die "initdb failed"; }
  free_port PG_PORT
  "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_RUN/server.log" -w -t 120 \
    -o "-p $PG_PORT -k $PG_RUN -c listen_addresses=127.0.0.1" start >/dev/null ||
    { tail -20 "$PG_RUN/server.log" >&2; die "PostgreSQL did not start"; }
  PG_STARTED=1
  local pm_pid
  pm_pid="$(head -1 "$PG_DATA/postmaster.pid")"
  record pg.version "$(pg_psql -A -t -c 'SHOW server_version')"
  local s
  for s in shared_buffers work_mem max_parallel_workers_per_gather jit; do
    record "pg.setting.$s" "$(pg_psql -A -t -c "SHOW $s")"
  done
  pg_psql -v ON_ERROR_STOP=1 -c "$CREATE_T" -c "$CREATE_U" >/dev/null
  pg_psql -v ON_ERROR_STOP=1 -c "\\copy u FROM '$U_CSV' WITH (FORMAT csv)" >/dev/null

  log "PostgreSQL: loading t"
  start_sampler "$pm_pid"
  local t0 rc=0 ms
  t0=$(now_ns)
  timeout -k 30 "$STEP_TIMEOUT" psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "\\copy t FROM '$T_CSV' WITH (FORMAT csv)" > "$WORKDIR/pg.load.log" 2>&1 || rc=$?
  ms="$(ms_since "$t0")"
  stop_sampler
  record pg.load.peak_kb "$SAMP_MAX"
  record pg.load.peak_sum_kb "$SAMP_SUM"
  if [ "$rc" -eq 0 ]; then record pg.load.ms "$ms"; else
    record pg.load.ms "$([ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo timeout || echo error)"
    FAILURES+=("PostgreSQL: load: psql $(exit_text "$rc"), after $ms ms: $(head -3 "$WORKDIR/pg.load.log" | tr '\n' ' ')")
  fi
  log "PostgreSQL: VACUUM ANALYZE"
  t0=$(now_ns)
  pg_psql -c "VACUUM ANALYZE t" -c "VACUUM ANALYZE u" >/dev/null
  record pg.vacuum_analyze.ms "$(ms_since "$t0")"
  record pg.load.count "$(pg_psql -A -t -c "SELECT count(*) FROM t")"
  record pg.disk_kb "$(du -sk "$PG_DATA" | cut -f1)"

  local q
  for q in "${QUERY_NAMES[@]}"; do
    log "PostgreSQL: query $q"
    start_sampler "$pm_pid"
    psql_query pg "$q" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres
    stop_sampler
    record "pg.q.$q.peak_kb" "$SAMP_MAX"
    record "pg.q.$q.peak_sum_kb" "$SAMP_SUM"
  done
  log "PostgreSQL: stopping"
  stop_pg
  rm -rf "$PG_DATA" "$PG_RUN"
}

# --- DuckDB -----------------------------------------------------------------

run_duckdb() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    log "DuckDB: skipped (node or npm not found)"
    record duckdb.skipped "node or npm not found"
    return 0
  fi
  log "DuckDB: npm install in $REPO/bench"
  if ! (cd "$REPO/bench" && npm install --no-audit --no-fund --loglevel=error > "$WORKDIR/npm.log" 2>&1); then
    tail -5 "$WORKDIR/npm.log" >&2
    log "DuckDB: skipped (npm install failed)"
    record duckdb.skipped "npm install failed: $(tail -1 "$WORKDIR/npm.log")"
    return 0
  fi
  mkdir -p "$WORKDIR/duck" "$WORKDIR/out"
  log "DuckDB: loading t and running the queries"
  local rc=0
  timeout -k 30 "$((STEP_TIMEOUT * (1 + ${#QUERY_NAMES[@]})))" \
    node "$HERE/duckdb_bench.mjs" "$WORKDIR/duck/bench.duckdb" "$T_CSV" "$U_CSV" "$QUERIES_TSV" \
    "$WORKDIR/duck" "$RUNS" > "$WORKDIR/duck.log" 2> "$WORKDIR/duck.err" &
  NODE_PID=$!
  wait "$NODE_PID" || rc=$?
  NODE_PID=""
  if [ "$rc" -ne 0 ]; then
    FAILURES+=("DuckDB: node $(exit_text "$rc"): $(tail -3 "$WORKDIR/duck.err" | tr '\n' ' ')")
  fi
  record duckdb.disk_kb "$(du -sk "$WORKDIR/duck/bench.duckdb" 2>/dev/null | cut -f1)"
  awk '
    $1 == "version" { print "duckdb.version=" $2; print "duckdb.threads=" $4 }
    $1 == "load_t" { print "duckdb.load.ms=" $2; print "duckdb.load.peak_kb=" $3
                     print "duckdb.load.copy_ms=" $4; print "duckdb.load.checkpoint_ms=" $5 }
    $1 == "query" {
      print "duckdb.q." $2 ".run" $3 "=" $4
      if ($4 == "error") { m = $0; sub(/^query [^ ]+ [0-9]+ error /, "", m); print "duckdb.q." $2 ".run" $3 ".message=" m }
    }
    $1 == "peak" { print "duckdb.q." $2 ".peak_kb=" $3 }' "$WORKDIR/duck.log" >> "$RESULTS"
  local q
  for q in "${QUERY_NAMES[@]}"; do
    [ -f "$WORKDIR/duck/$q.out" ] && mv "$WORKDIR/duck/$q.out" "$WORKDIR/out/duckdb.$q.out"
    if grep -q "^query $q [0-9]* error" "$WORKDIR/duck.log"; then
      FAILURES+=("DuckDB: query $q: $(grep -m1 "^query $q [0-9]* error" "$WORKDIR/duck.log" | sed 's/^query [^ ]* [0-9]* error //')")
    fi
  done
  rm -rf "$WORKDIR/duck"
}

# --- run --------------------------------------------------------------------

run_freshet
run_pg
run_duckdb
record host.load_after "$(cut -d' ' -f1-3 /proc/loadavg)"

# Compare each system's warm-up result with PostgreSQL's: same rows (in any
# order), numbers equal within a relative 1e-9 (sums of doubles depend on the
# order of addition).
same_result() {
  local a="$1" b="$2"
  [ -f "$a" ] && [ -f "$b" ] || { echo "n/a"; return; }
  if awk -F, '
      function isnum(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
      NR == FNR { A[FNR] = $0; na = FNR; next }
      { B[FNR] = $0; nb = FNR }
      END {
        if (na != nb) exit 1
        for (i = 1; i <= na; i++) {
          n = split(A[i], x, ","); m = split(B[i], y, ",")
          if (n != m) exit 1
          for (j = 1; j <= n; j++) {
            if (x[j] == y[j]) continue
            if (!(isnum(x[j]) && isnum(y[j]))) exit 1
            d = x[j] - y[j]; if (d < 0) d = -d
            s = x[j] < 0 ? -x[j] : x[j]
            if (d > 1e-9 * s + 1e-9) exit 1
          }
        }
      }' <(sed '/^$/d' "$a" | sort) <(sed '/^$/d' "$b" | sort); then echo same; else echo DIFFERENT; fi
}
for q in "${QUERY_NAMES[@]}"; do
  record "check.$q.freshet_vs_pg" "$(same_result "$WORKDIR/out/freshet.$q.out" "$WORKDIR/out/pg.$q.out")"
  record "check.$q.duckdb_vs_pg" "$(same_result "$WORKDIR/out/duckdb.$q.out" "$WORKDIR/out/pg.$q.out")"
done
for f in "${FAILURES[@]+"${FAILURES[@]}"}"; do record failure "$f"; done

# --- report -----------------------------------------------------------------

"$HERE/report.sh" "$RESULTS" | tee "$RESULTS.md"
log "raw numbers: $RESULTS; report: $RESULTS.md"
