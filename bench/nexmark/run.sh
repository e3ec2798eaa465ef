#!/usr/bin/env bash
# Nexmark benchmark: the Nexmark queries q0-q22 (RisingWave's SQL, from its
# planner tests nexmark.yaml) as streaming jobs in Freshet over the
# deterministic nexmark source, with DuckDB running the same queries as batch
# queries over the same events as the peer (the cost of incrementality).
#
#   bench/nexmark/run.sh [--events N] [--queries q0,q1,...] [--freshet PATH]
#                        [--timeout SECONDS] [--check full|count|none]
#                        [--check-timeout SECONDS]
#                        [--no-duckdb] [--parallelism P] [--data-cache DIR]
#                        [--results FILE] [--workdir DIR]
#
#   --events N       nexmark.event.num of every source (default 10000000;
#                    1000000 for a quick run): N/50 persons, 3N/50 auctions,
#                    46N/50 bids
#   --queries LIST   comma-separated (default: q0,...,q22; RisingWave's
#                    extension q101,...,q106 runs only when named)
#   --freshet PATH   the server binary (default build/freshet of this repo;
#                    pass a copy if someone rebuilds while this runs)
#   --timeout S      limit for one query's streaming job, in seconds, from
#                    CREATE to the end of the FLUSH (default 1800); a job
#                    that times out is reported with the share of its source
#                    rows consumed by then and the rate that gives
#   --check MODE     after the timing, on the same server, check the query's
#                    result: full = a materialized view of the query, dumped
#                    with COPY and compared row by row with DuckDB's result;
#                    count = a materialized view of SELECT count(*) FROM
#                    (query), compared with DuckDB's row count; none.
#                    Default: full up to 1,000,000 events, count above.
#   --check-timeout S  check only queries whose timed job took at most S
#                    seconds (the check costs about as much again), and give
#                    the check at most 2 S (default: the --timeout)
#   --no-duckdb      skip the export of the events and the DuckDB peer
#   --parallelism P  SET streaming_parallelism (default 2, the machine's
#                    cores here); events/s per core = events/s / P
#   --setup SQL      statements run on each fresh server before the query's
#                    job (e.g. ALTER SYSTEM SET streaming_state_cache_bytes = ...)
#   --data-cache DIR keep the exported CSV files in DIR/nexmark-<N>/ and
#                    reuse them on the next run with the same N
#   --results FILE   raw numbers (default bench/nexmark/results/<date>-<N>.txt;
#                    the Markdown report goes beside it, FILE.md)
#   --workdir DIR    scratch space (default: a new directory under $TMPDIR or
#                    /tmp, removed at the end)
#
# What is measured, per query, on a fresh Freshet server (new data
# directory) with the sources person, auction and bid (connector 'nexmark',
# nexmark.split.num 2, nexmark.min.event.gap.in.ns 0):
#   CREATE SINK nexmark_qN AS <query> WITH (connector = 'blackhole'), after
#   SET streaming_parallelism = P, as RisingWave's benchmark does (it runs
#   some queries as materialized views; here every query is a sink). The time
#   runs from sending the CREATE until (a) every source reader of the job has
#   consumed its source: the job's internal source tables
#   (rw_catalog.rw_internal_tables, definition 'source') sum to the source's
#   row count, polled every 50 ms for the first 5 s, then every 200 ms, and
#   (b) a FLUSH after that has returned (everything downstream processed and
#   committed). events/s = N / that time, counting all N events as Nexmark
#   does even when a query reads only some of the three tables; per core =
#   events/s / P. Also: the peak RSS of the server during the job (VmHWM,
#   reset with /proc/PID/clear_refs just before the CREATE) and the CPU time
#   the server used (utime + stime). Resolution: a source reader's progress
#   becomes visible at each checkpoint (barrier interval 1 s), so jobs of a
#   few seconds are measured coarsely; use 10M events for those.
#   The server logs are scanned for error/warning lines and kept in
#   <results>.logs/.
# A query whose CREATE fails (unsupported feature, missing function, syntax
# RisingWave accepts and Freshet does not) is reported as "cannot run yet"
# with the server's message and SQLSTATE; it is not a failure of the script.
#
# DuckDB peer: the events are exported from Freshet once (materialized views
# SELECT * FROM person/auction/bid, COPY ... TO STDOUT as CSV, so the rows
# are identical), loaded into a DuckDB database file, and each query runs
# once as CREATE TEMP TABLE result AS <query> (bench/nexmark/duckdb/qN.sql
# where DuckDB's dialect needs a translation: TUMBLE/HOP, to_char,
# regexp_match; otherwise the same SQL), timed in Node (@duckdb/node-api from
# bench/package.json), with the node process's peak RSS.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
COMMAND_LINE="$0 $*"

EVENTS=10000000
QUERY_LIST="q0,q1,q2,q3,q4,q5,q6,q7,q8,q9,q10,q11,q12,q13,q14,q15,q16,q17,q18,q19,q20,q21,q22"
FRESHET="$REPO/build/freshet"
STEP_TIMEOUT=1800
CHECK_TIMEOUT=""
CHECK=auto
DUCKDB=1
PAR=2
SETUP_SQL=""
DATA_CACHE=""
RESULTS=""
WORKDIR=""

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --events) EVENTS="$2"; shift 2 ;;
    --queries) QUERY_LIST="$2"; shift 2 ;;
    --freshet) FRESHET="$2"; shift 2 ;;
    --timeout) STEP_TIMEOUT="$2"; shift 2 ;;
    --check) CHECK="$2"; shift 2 ;;
    --check-timeout) CHECK_TIMEOUT="$2"; shift 2 ;;
    --no-duckdb) DUCKDB=0; shift ;;
    --parallelism) PAR="$2"; shift 2 ;;
    --setup) SETUP_SQL="$2"; shift 2 ;;
    --data-cache) DATA_CACHE="$2"; shift 2 ;;
    --results) RESULTS="$2"; shift 2 ;;
    --workdir) WORKDIR="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 1 ;;
  esac
done

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[[ "$EVENTS" =~ ^[0-9]+$ ]] && [ "$EVENTS" -gt 0 ] || die "--events must be a positive integer"
[[ "$STEP_TIMEOUT" =~ ^[0-9]+$ ]] && [ "$STEP_TIMEOUT" -gt 0 ] || die "--timeout must be a positive integer"
[ -n "$CHECK_TIMEOUT" ] || CHECK_TIMEOUT="$STEP_TIMEOUT"
[[ "$CHECK_TIMEOUT" =~ ^[0-9]+$ ]] || die "--check-timeout must be a non-negative integer"
[[ "$PAR" =~ ^[0-9]+$ ]] && [ "$PAR" -gt 0 ] || die "--parallelism must be a positive integer"
if [ "$CHECK" = auto ]; then
  if [ "$EVENTS" -le 1000000 ]; then CHECK=full; else CHECK=count; fi
fi
case "$CHECK" in full|count|none) ;; *) die "--check must be full, count or none" ;; esac
[ -x "$FRESHET" ] || die "no Freshet binary at $FRESHET (build it, or pass --freshet PATH)"
FRESHET="$(cd "$(dirname "$FRESHET")" && pwd)/$(basename "$FRESHET")"
command -v psql >/dev/null || die "psql not found (postgresql-client)"
command -v stdbuf >/dev/null || die "stdbuf not found (coreutils)"
[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5 (EPOCHREALTIME)"

IFS=, read -r -a QUERIES <<< "$QUERY_LIST"
for q in "${QUERIES[@]}"; do
  [ -f "$HERE/queries/$q.sql" ] || die "no query $q (no $HERE/queries/$q.sql)"
done

if [ -z "$RESULTS" ]; then
  mkdir -p "$HERE/results"
  RESULTS="$HERE/results/$(date +%Y%m%d-%H%M%S)-$EVENTS.txt"
fi
mkdir -p "$(dirname "$RESULTS")"
RESULTS="$(cd "$(dirname "$RESULTS")" && pwd)/$(basename "$RESULTS")"
: > "$RESULTS"

# --- set-up and clean-up ----------------------------------------------------

OWN_WORKDIR=0
if [ -z "$WORKDIR" ]; then
  WORKDIR="$(mktemp -d "${TMPDIR:-/tmp}/freshet-nexmark.XXXXXX")"
  OWN_WORKDIR=1
else
  mkdir -p "$WORKDIR"
  WORKDIR="$(cd "$WORKDIR" && pwd)"
fi
mkdir -p "$WORKDIR/out" "$WORKDIR/logs" "$WORKDIR/sql"

FRESHET_PID=""
NODE_PID=""
SESS_PID=""
FR_DIR=""

cleanup() {
  local rc=$?
  set +e
  sess_close
  if [ -n "$NODE_PID" ]; then kill -TERM "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null; fi
  stop_freshet
  if [ "$OWN_WORKDIR" -eq 1 ]; then rm -rf "$WORKDIR"; else rm -rf "$WORKDIR"/fr-* "$WORKDIR/duck"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

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
now_us() { echo "${EPOCHREALTIME/./}"; }
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }
FAILURES=()

# Rows of each table for N events: event n is a person if n % 50 == 0, an
# auction if it is 1..3, a bid if 4..49.
count_kind() {  # N LO HI
  local n="$1" lo="$2" hi="$3" r
  r=$((n % 50))
  local extra=$(( (r < hi + 1 ? r : hi + 1) - lo ))
  [ "$extra" -lt 0 ] && extra=0
  echo $(( n / 50 * (hi - lo + 1) + extra ))
}
declare -A TOTAL=(
  [person]="$(count_kind "$EVENTS" 0 0)"
  [auction]="$(count_kind "$EVENTS" 1 3)"
  [bid]="$(count_kind "$EVENTS" 4 49)"
)

SOURCES_SQL="$WORKDIR/sql/sources.sql"
nexmark_with() {
  echo "WITH (connector = 'nexmark', nexmark.table.type = '$1', nexmark.split.num = '2', nexmark.event.num = '$EVENTS', nexmark.min.event.gap.in.ns = '0')"
}
cat > "$SOURCES_SQL" <<EOF
CREATE SOURCE person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR) $(nexmark_with Person);
CREATE SOURCE auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR) $(nexmark_with Auction);
CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR) $(nexmark_with Bid);
EOF

# A query file's SQL without comments, blank lines and final semicolon; its
# first line "-- skip: why" marks a query that is not run.
clean_sql() { sed -e 's/--.*$//' -e '/^[[:space:]]*$/d' "$1" | sed -e '$ s/;[[:space:]]*$//'; }
skip_reason() { sed -n '1s/^-- skip: *//p' "$1"; }

# --- Freshet server and one psql session to it ------------------------------

FR_PORT=""
FR_LOG=""
start_freshet() {  # DATA_DIR LOG_FILE
  FR_DIR="$1"; FR_LOG="$2"
  rm -rf "$FR_DIR"
  free_port FR_PORT
  "$FRESHET" --data-dir "$FR_DIR" --port "$FR_PORT" --http-port 0 --listen-address 127.0.0.1 \
    >> "$FR_LOG" 2>&1 &
  FRESHET_PID=$!
  local i
  for i in $(seq 1 600); do
    if psql -X -q -h 127.0.0.1 -p "$FR_PORT" -U root -d dev -c "SELECT 1" >/dev/null 2>&1; then return 0; fi
    kill -0 "$FRESHET_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -20 "$FR_LOG" >&2
  die "Freshet did not start"
}
# stop_freshet [GRACE_S]: SIGTERM, then SIGKILL after GRACE_S seconds
# (default 30). Sets STOP_MS (how long it took) and STOP_HOW (clean or
# killed).
stop_freshet() {
  STOP_MS=""; STOP_HOW=""
  [ -n "$FRESHET_PID" ] || return 0
  local grace="${1:-30}" t0 i
  t0="$(now_us)"
  kill -TERM "$FRESHET_PID" 2>/dev/null || true
  STOP_HOW=killed
  for i in $(seq 1 $((grace * 10))); do
    kill -0 "$FRESHET_PID" 2>/dev/null || { STOP_HOW=clean; break; }
    sleep 0.1
  done
  kill -KILL "$FRESHET_PID" 2>/dev/null || true
  wait "$FRESHET_PID" 2>/dev/null || true
  STOP_MS="$(ms_between "$t0" "$(now_us)")"
  FRESHET_PID=""
  [ -z "$FR_DIR" ] || rm -rf "$FR_DIR"
  FR_DIR=""
}
fr_psql() { psql -X -q -h 127.0.0.1 -p "$FR_PORT" -U root -d dev "$@"; }

# One psql session as a coprocess: sq sends SQL and reads its output up to a
# marker line, so polls cost no connection set-up.
sess_open() {
  coproc FRS { exec stdbuf -oL psql -X -q -A -t -h 127.0.0.1 -p "$FR_PORT" -U root -d dev -v ON_ERROR_STOP=0 2>&1; }
  SESS_PID=$FRS_PID
  SESS_IN=${FRS[1]}
  SESS_OUT=${FRS[0]}
}
sess_close() {
  [ -n "$SESS_PID" ] || return 0
  { exec {SESS_IN}>&-; } 2>/dev/null || true
  local i
  for i in $(seq 1 50); do kill -0 "$SESS_PID" 2>/dev/null || break; sleep 0.1; done
  kill -TERM "$SESS_PID" 2>/dev/null || true
  wait "$SESS_PID" 2>/dev/null || true
  SESS_PID=""
}
# sq TIMEOUT_S SQL: sets OUT (result lines), SQ_ERR (true/false), SQ_STATE,
# SQ_MSG (the ERROR line). Returns 1 if no answer came within TIMEOUT_S or
# the session ended.
sq() {
  local limit="$1" sql="$2" line deadline now left rc
  OUT=(); SQ_ERR=""; SQ_STATE=""; SQ_MSG=""
  printf '%s\n\\echo __END__ :ERROR :SQLSTATE\n' "$sql" >&"$SESS_IN" || return 1
  deadline=$(( ${EPOCHREALTIME/./} + limit * 1000000 ))
  while :; do
    now=${EPOCHREALTIME/./}
    [ "$now" -lt "$deadline" ] || return 1
    left=$(( (deadline - now + 999999) / 1000000 ))
    rc=0
    IFS= read -r -t "$left" -u "$SESS_OUT" line || rc=$?
    if [ "$rc" -eq 1 ]; then return 1; fi   # end of file: psql is gone
    [ "$rc" -eq 0 ] || continue             # timed out: check the deadline
    case "$line" in
      __END__*) read -r _ SQ_ERR SQ_STATE <<< "$line"; return 0 ;;
      ERROR:*) [ -n "$SQ_MSG" ] || SQ_MSG="$(echo "${line#ERROR:}" | sed 's/^ *//')" ;;
      LINE\ [0-9]*:*|*^|NOTICE:*|WARNING:*|HINT:*|DETAIL:*) ;;
      *) OUT+=("$line") ;;
    esac
  done
}

cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
CLK_TCK="$(getconf CLK_TCK)"
vm_hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo -1; }

# wait_job NAME KIND START_US LIMIT_S: waits until the stream job NAME (KIND
# sink or mv) has consumed all its sources, then FLUSHes. Sets WAIT_STATUS
# (done, timeout, died, error: message), WAIT_SOURCE_US (sources consumed),
# WAIT_END_US (FLUSH returned), WAIT_READERS (a description of the source
# readers), WAIT_GOT and WAIT_EXPECTED (rows consumed at the last poll, at
# WAIT_LAST_US, and the total).
wait_job() {
  local name="$1" kind="$2" start="$3" limit="$4"
  local catalog=rw_sinks
  [ "$kind" = mv ] && catalog=rw_materialized_views
  WAIT_STATUS=""; WAIT_SOURCE_US=""; WAIT_END_US=""; WAIT_READERS=""
  WAIT_GOT=0; WAIT_EXPECTED=0; WAIT_LAST_US="$start"
  local deadline=$(( start + limit * 1000000 ))
  sq 60 "SELECT id FROM rw_catalog.$catalog WHERE name = '$name';" || { WAIT_STATUS="error: no answer"; return; }
  local job="${OUT[0]:-}"
  [[ "$job" =~ ^[0-9]+$ ]] || { WAIT_STATUS="error: job $name not in rw_catalog.$catalog (${SQ_MSG:-no row})"; return; }
  sq 60 "SELECT name FROM rw_catalog.rw_internal_tables WHERE job_id = $job AND definition = 'source' ORDER BY id;" ||
    { WAIT_STATUS="error: no answer"; return; }
  local readers=("${OUT[@]}")
  sq 60 "SELECT s.name FROM rw_catalog.rw_depend d, rw_catalog.rw_sources s WHERE d.objid = $job AND s.id = d.refobjid ORDER BY s.name;" ||
    { WAIT_STATUS="error: no answer"; return; }
  local sources=("${OUT[@]}")
  # Each reader's row count only grows up to its source's total, so the job
  # is done when the sum over readers reaches the sum of their totals. The
  # totals are known when the job reads one source (with any number of
  # readers) or each of its sources once.
  local expected=0 s
  if [ "${#readers[@]}" -gt 0 ]; then
    if [ "${#sources[@]}" -eq 1 ]; then
      expected=$(( ${#readers[@]} * ${TOTAL[${sources[0]}]} ))
    elif [ "${#sources[@]}" -eq "${#readers[@]}" ]; then
      for s in "${sources[@]}"; do expected=$(( expected + ${TOTAL[$s]} )); done
    else
      WAIT_STATUS="error: cannot tell which of ${#readers[@]} source readers reads which of ${sources[*]}"
      return
    fi
  fi
  WAIT_EXPECTED="$expected"
  local poll="" r
  for r in "${readers[@]}"; do poll="${poll}SELECT coalesce(sum(row_count), 0) FROM $r;"$'\n'; done
  local got=0 interval
  while [ "${#readers[@]}" -gt 0 ]; do
    if ! kill -0 "$FRESHET_PID" 2>/dev/null; then WAIT_STATUS=died; return; fi
    if [ "$(now_us)" -ge "$deadline" ]; then WAIT_STATUS=timeout; WAIT_READERS="$got of $expected rows"; return; fi
    if ! sq "$limit" "$poll"; then
      if ! kill -0 "$FRESHET_PID" 2>/dev/null; then WAIT_STATUS=died; else WAIT_STATUS=timeout; fi
      return
    fi
    if [ "$SQ_ERR" = true ]; then WAIT_STATUS="error: $SQ_MSG"; return; fi
    got=0
    for r in "${OUT[@]}"; do [[ "$r" =~ ^[0-9]+$ ]] && got=$((got + r)); done
    WAIT_GOT="$got"; WAIT_LAST_US="$(now_us)"
    [ "$got" -ge "$expected" ] && break
    if [ $(( $(now_us) - start )) -lt 5000000 ]; then interval=0.05; else interval=0.2; fi
    sleep "$interval"
  done
  WAIT_SOURCE_US="$(now_us)"
  WAIT_READERS="${#readers[@]} reader(s) of ${sources[*]:-nothing}: $got rows"
  local left=$(( (deadline - $(now_us)) / 1000000 ))
  [ "$left" -ge 1 ] || left=1
  if ! sq "$left" "FLUSH;"; then
    if ! kill -0 "$FRESHET_PID" 2>/dev/null; then WAIT_STATUS=died; else WAIT_STATUS=timeout; fi
    return
  fi
  [ "$SQ_ERR" = true ] && { WAIT_STATUS="error: FLUSH: $SQ_MSG"; return; }
  WAIT_END_US="$(now_us)"
  WAIT_STATUS=done
}

# Scans a server log for problems; records KEY.log_problems (count of error
# or warning lines) and KEY.log_first (the first of them).
scan_log() {  # LOG KEY
  local n first
  n="$(grep -ciE '\[(error|err|critical|warn|warning)\]|panic|abort|assert|fatal' "$1" || true)"
  record "$2.log_problems" "$n"
  if [ "$n" -gt 0 ]; then
    first="$(grep -m1 -iE '\[(error|err|critical|warn|warning)\]|panic|abort|assert|fatal' "$1" | cut -c1-300)"
    record "$2.log_first" "$first"
    FAILURES+=("Freshet server log during $2: $n error/warning lines, first: $first")
  fi
}

# --- run information ---------------------------------------------------------

log "work directory $WORKDIR; results to $RESULTS"
record command "$COMMAND_LINE"
record events "$EVENTS"
record rows.person "${TOTAL[person]}"
record rows.auction "${TOTAL[auction]}"
record rows.bid "${TOTAL[bid]}"
record parallelism "$PAR"
record check "$CHECK"
record timeout_s "$STEP_TIMEOUT"
record check_timeout_s "$CHECK_TIMEOUT"
record queries "$QUERY_LIST"
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
RUN_START_US="$(now_us)"

# --- the events as CSV files (for DuckDB and for nothing else) ---------------

DATA=""
export_events() {
  if [ -n "$DATA_CACHE" ]; then
    mkdir -p "$DATA_CACHE"
    DATA="$(cd "$DATA_CACHE" && pwd)/nexmark-$EVENTS"
    if [ -f "$DATA/complete" ]; then
      log "export: reusing $DATA"
      record export.reused "$DATA"
      return 0
    fi
  else
    DATA="$WORKDIR/data"
  fi
  rm -rf "$DATA"; mkdir -p "$DATA"
  log "export: $EVENTS events from Freshet to CSV ($DATA)"
  start_freshet "$WORKDIR/fr-export" "$WORKDIR/logs/freshet-export.log"
  sess_open
  sq 60 "SET streaming_parallelism = $PAR;" || true
  sq 60 "$(cat "$SOURCES_SQL")" && [ "$SQ_ERR" = false ] && [ -z "$SQ_MSG" ] ||
    die "export: CREATE SOURCE failed: $SQ_MSG"
  local t s t0
  for t in person auction bid; do
    t0="$(now_us)"
    sq 60 "CREATE MATERIALIZED VIEW ${t}_all AS SELECT * FROM $t;"
    [ "$SQ_ERR" = false ] || die "export: CREATE MATERIALIZED VIEW ${t}_all failed: $SQ_MSG"
    wait_job "${t}_all" mv "$t0" "$((STEP_TIMEOUT * 3))"
    [ "$WAIT_STATUS" = done ] || die "export: materialized view ${t}_all: $WAIT_STATUS"
    record "export.$t.mv_ms" "$(ms_between "$t0" "$WAIT_END_US")"
    t0="$(now_us)"
    fr_psql -v ON_ERROR_STOP=1 -c "COPY ${t}_all TO STDOUT WITH (FORMAT csv)" > "$DATA/$t.csv" ||
      die "export: COPY ${t}_all failed"
    record "export.$t.copy_ms" "$(ms_between "$t0" "$(now_us)")"
    s="$(wc -l < "$DATA/$t.csv")"
    record "export.$t.rows" "$s"
    record "export.$t.bytes" "$(stat -c %s "$DATA/$t.csv")"
    [ "$s" -eq "${TOTAL[$t]}" ] || FAILURES+=("export: $t has $s rows, expected ${TOTAL[$t]}")
  done
  record export.peak_kb "$(vm_hwm "$FRESHET_PID")"
  sess_close
  stop_freshet
  scan_log "$WORKDIR/logs/freshet-export.log" export
  touch "$DATA/complete"
}

# --- DuckDB ------------------------------------------------------------------

run_duckdb() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    log "DuckDB: skipped (node or npm not found)"
    record duckdb.skipped "node or npm not found"
    return 0
  fi
  log "DuckDB: npm install in $REPO/bench"
  if ! (cd "$REPO/bench" && npm install --no-audit --no-fund --loglevel=error > "$WORKDIR/logs/npm.log" 2>&1); then
    log "DuckDB: skipped (npm install failed)"
    record duckdb.skipped "npm install failed: $(tail -1 "$WORKDIR/logs/npm.log")"
    return 0
  fi
  local tsv="$WORKDIR/sql/duckdb.tsv" q f
  : > "$tsv"
  for q in "${QUERIES[@]}"; do
    f="$HERE/duckdb/$q.sql"
    [ -f "$f" ] || f="$HERE/queries/$q.sql"
    if [ -n "$(skip_reason "$f")" ]; then
      cp "$f" "$WORKDIR/sql/duckdb.$q.sql"
    else
      clean_sql "$f" > "$WORKDIR/sql/duckdb.$q.sql"
    fi
    printf '%s\t%s\n' "$q" "$WORKDIR/sql/duckdb.$q.sql" >> "$tsv"
  done
  mkdir -p "$WORKDIR/duck"
  log "DuckDB: loading the events and running the queries"
  local rc=0 dump=0
  [ "$CHECK" = full ] && dump=1
  timeout -k 30 "$((STEP_TIMEOUT * (2 + ${#QUERIES[@]})))" \
    node "$HERE/duckdb_nexmark.mjs" "$WORKDIR/duck/nexmark.duckdb" "$DATA" "$tsv" "$WORKDIR/out" "$dump" \
    > "$WORKDIR/logs/duck.log" 2> "$WORKDIR/logs/duck.err" &
  NODE_PID=$!
  wait "$NODE_PID" || rc=$?
  NODE_PID=""
  [ "$rc" -eq 0 ] || FAILURES+=("DuckDB: node exited with status $rc: $(tail -3 "$WORKDIR/logs/duck.err" | tr '\n' ' ')")
  awk '
    $1 == "version" { print "duckdb.version=" $2; print "duckdb.threads=" $4 }
    $1 == "load" { print "duckdb.load." $2 ".ms=" $3; print "duckdb.load." $2 ".rows=" $4 }
    $1 == "query" {
      print "duckdb." $2 ".ms=" $3
      print "duckdb." $2 ".rows=" $4
      print "duckdb." $2 ".peak_kb=" $5
      if ($3 == "error" || $3 == "skip") { m = $0; sub(/^query [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", m); print "duckdb." $2 ".message=" m }
    }' "$WORKDIR/logs/duck.log" >> "$RESULTS"
  rm -rf "$WORKDIR/duck"
}

# --- Freshet, one fresh server per query --------------------------------------

# Canonical form of a CSV result for comparison: numbers with a fraction
# rounded to 12 significant digits (numeric vs double), rows sorted.
canon() {
  awk -F, -v OFS=, '{
      for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9]+\.[0-9]+$/) { $i = sprintf("%.12g", $i); if ($i == "-0") $i = "0" }
      print }' "$1" | LC_ALL=C sort -S 25% -T "$WORKDIR"
}
compare_results() {  # FRESHET_CSV DUCKDB_CSV -> "same" or "DIFFERENT: ..."
  local a="$1" b="$2" na nb
  [ -f "$a" ] && [ -f "$b" ] || { echo "n/a"; return; }
  na="$(wc -l < "$a")"; nb="$(wc -l < "$b")"
  if [ "$na" -ne "$nb" ]; then echo "DIFFERENT: $na rows in Freshet, $nb in DuckDB"; return; fi
  canon "$a" > "$a.sorted"; canon "$b" > "$b.sorted"
  local d
  d="$(cmp "$a.sorted" "$b.sorted" 2>&1 | head -1 || true)"
  if [ -z "$d" ]; then echo same; rm -f "$a.sorted" "$b.sorted"; return; fi
  # Lines that differ: allow numbers within a relative 1e-9.
  d="$(paste -d '\n' "$a.sorted" "$b.sorted" | awk -F, '
      function isnum(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
      NR % 2 == 1 { x = $0; next }
      x != $0 {
        n = split(x, u, ","); m = split($0, v, ",")
        bad = (n != m)
        for (j = 1; !bad && j <= n; j++) {
          if (u[j] == v[j]) continue
          if (!(isnum(u[j]) && isnum(v[j]))) { bad = 1; break }
          dd = u[j] - v[j]; if (dd < 0) dd = -dd
          s = u[j] < 0 ? -u[j] : u[j]
          if (dd > 1e-9 * s + 1e-9) bad = 1
        }
        if (bad) { ndiff++; if (ndiff == 1) first = "Freshet [" substr(x, 1, 150) "] vs DuckDB [" substr($0, 1, 150) "]" }
      }
      END { if (ndiff) printf "%d of %d sorted rows differ, first: %s", ndiff, NR / 2, first }')"
  if [ -z "$d" ]; then echo same; else echo "DIFFERENT: $d"; fi
  rm -f "$a.sorted" "$b.sorted"
}

run_freshet_query() {
  local q="$1" file="$HERE/queries/$1.sql" why sql
  why="$(skip_reason "$file")"
  local note
  note="$(sed -n '1{/^-- skip:/d; s/^-- //p}' "$file")"
  [ -z "$note" ] || record "query.$q.note" "$note"
  if [ -n "$why" ]; then
    log "Freshet $q: skipped ($why)"
    record "freshet.$q.status" skip
    record "freshet.$q.message" "$why"
    return 0
  fi
  sql="$(clean_sql "$file")"
  printf '%s\n' "$sql" > "$WORKDIR/sql/freshet.$q.sql"
  local flog="$WORKDIR/logs/freshet-$q.log"
  log "Freshet $q: starting a fresh server"
  start_freshet "$WORKDIR/fr-$q" "$flog"
  sess_open
  sq 60 "SET streaming_parallelism = $PAR;" || true
  [ -z "$SETUP_SQL" ] || sq 60 "$SETUP_SQL" || true
  if ! sq 60 "$(cat "$SOURCES_SQL")" || [ "$SQ_ERR" != false ] || [ -n "$SQ_MSG" ]; then
    record "freshet.$q.status" error
    record "freshet.$q.message" "CREATE SOURCE: $SQ_MSG"
    FAILURES+=("Freshet $q: CREATE SOURCE failed: $SQ_MSG")
    sess_close; stop_freshet; return 0
  fi
  record "freshet.$q.load_before" "$(cut -d' ' -f1 /proc/loadavg)"
  local reset=ok
  echo 5 > "/proc/$FRESHET_PID/clear_refs" 2>/dev/null || reset=failed
  record "freshet.$q.memory_reset" "$reset"
  local cpu0 t0
  cpu0="$(cpu_ticks "$FRESHET_PID")"
  t0="$(now_us)"
  if ! sq "$STEP_TIMEOUT" "CREATE SINK nexmark_$q AS"$'\n'"$sql"$'\n'"WITH (connector = 'blackhole');"; then
    record "freshet.$q.status" timeout
    FAILURES+=("Freshet $q: CREATE SINK did not return within $STEP_TIMEOUT s")
    sess_close; stop_freshet; scan_log "$flog" "$q"; return 0
  fi
  local t_created
  t_created="$(now_us)"
  if [ "$SQ_ERR" = true ]; then
    log "Freshet $q: cannot run yet: $SQ_MSG ($SQ_STATE)"
    record "freshet.$q.status" cannot_run
    record "freshet.$q.sqlstate" "$SQ_STATE"
    record "freshet.$q.message" "$SQ_MSG"
    sess_close; stop_freshet; scan_log "$flog" "$q"; return 0
  fi
  record "freshet.$q.create_ms" "$(ms_between "$t0" "$t_created")"
  wait_job "nexmark_$q" sink "$t0" "$STEP_TIMEOUT"
  local hwm cpu1
  hwm="$(vm_hwm "$FRESHET_PID")"
  cpu1="$(cpu_ticks "$FRESHET_PID")"
  record "freshet.$q.peak_kb" "$hwm"
  record "freshet.$q.readers" "$WAIT_READERS"
  case "$WAIT_STATUS" in
    done)
      local ms
      ms="$(ms_between "$t0" "$WAIT_END_US")"
      record "freshet.$q.status" ok
      record "freshet.$q.ms" "$ms"
      record "freshet.$q.sources_done_ms" "$(ms_between "$t0" "$WAIT_SOURCE_US")"
      record "freshet.$q.flush_ms" "$(ms_between "$WAIT_SOURCE_US" "$WAIT_END_US")"
      record "freshet.$q.cpu_ms" "$(awk -v a="$cpu0" -v b="$cpu1" -v t="$CLK_TCK" 'BEGIN { printf "%.0f", (b - a) * 1000 / t }')"
      log "Freshet $q: $ms ms ($(awk -v n="$EVENTS" -v ms="$ms" -v p="$PAR" 'BEGIN { printf "%.0f events/s per core", n / (ms / 1000) / p }')), peak RSS $((hwm / 1024)) MiB"
      ;;
    died)
      record "freshet.$q.status" died
      FAILURES+=("Freshet $q: the server died during the job (log: $(tail -1 "$flog" | cut -c1-300))")
      ;;
    timeout)
      # Progress so far: the share of the source rows consumed at the last
      # poll gives an estimate of the rate.
      record "freshet.$q.status" timeout
      record "freshet.$q.ms" "timeout"
      record "freshet.$q.partial_rows" "$WAIT_GOT"
      record "freshet.$q.partial_expected" "$WAIT_EXPECTED"
      record "freshet.$q.partial_ms" "$(ms_between "$t0" "$WAIT_LAST_US")"
      record "freshet.$q.cpu_ms" "$(awk -v a="$cpu0" -v b="$cpu1" -v t="$CLK_TCK" 'BEGIN { printf "%.0f", (b - a) * 1000 / t }')"
      log "Freshet $q: timeout after $STEP_TIMEOUT s, $WAIT_GOT of $WAIT_EXPECTED source rows consumed"
      ;;
    *)
      record "freshet.$q.status" error
      record "freshet.$q.message" "$WAIT_STATUS"
      FAILURES+=("Freshet $q: $WAIT_STATUS")
      ;;
  esac
  local job_s=0
  [ "$WAIT_STATUS" != done ] || job_s=$(( (WAIT_END_US - t0) / 1000000 ))
  if [ "$WAIT_STATUS" = done ] && [ "$CHECK" != none ] && [ "$job_s" -gt "$CHECK_TIMEOUT" ]; then
    record "freshet.$q.check" "not checked: the job took more than --check-timeout $CHECK_TIMEOUT s"
  elif [ "$WAIT_STATUS" = done ] && [ "$CHECK" != none ]; then
    local csql t1
    if [ "$CHECK" = full ]; then csql="$sql"; else csql="SELECT count(*) AS n FROM ("$'\n'"$sql"$'\n'") q"; fi
    log "Freshet $q: check ($CHECK)"
    t1="$(now_us)"
    if ! sq "$((2 * CHECK_TIMEOUT + 60))" "CREATE MATERIALIZED VIEW check_$q AS"$'\n'"$csql;"; then
      record "freshet.$q.check" "error: CREATE MATERIALIZED VIEW did not return"
    elif [ "$SQ_ERR" = true ]; then
      record "freshet.$q.check" "error: CREATE MATERIALIZED VIEW: $SQ_MSG"
    else
      wait_job "check_$q" mv "$t1" "$((2 * CHECK_TIMEOUT + 30))"
      record "freshet.$q.check_ms" "$(ms_between "$t1" "$(now_us)")"
      if [ "$WAIT_STATUS" != done ]; then
        record "freshet.$q.check" "error: $WAIT_STATUS"
      elif [ "$CHECK" = full ]; then
        if fr_psql -v ON_ERROR_STOP=1 -c "COPY check_$q TO STDOUT WITH (FORMAT csv)" > "$WORKDIR/out/freshet.$q.csv" 2> "$WORKDIR/logs/copy-$q.err"; then
          record "freshet.$q.rows" "$(wc -l < "$WORKDIR/out/freshet.$q.csv")"
        else
          record "freshet.$q.check" "error: COPY: $(head -1 "$WORKDIR/logs/copy-$q.err")"
        fi
      else
        sq 60 "SELECT n FROM check_$q;"
        if [ "$SQ_ERR" = false ] && [[ "${OUT[0]:-}" =~ ^[0-9]+$ ]]; then
          record "freshet.$q.rows" "${OUT[0]}"
        else
          record "freshet.$q.check" "error: SELECT n: ${SQ_MSG:-${OUT[*]:-no row}}"
        fi
      fi
    fi
  fi
  sess_close
  # A job that is still busy (timed out) can take a long time to shut down
  # (the server drains it); do not wait for that.
  if [ "$WAIT_STATUS" = done ]; then stop_freshet 30; else stop_freshet 5; fi
  record "freshet.$q.shutdown_ms" "$STOP_MS"
  record "freshet.$q.shutdown" "$STOP_HOW"
  scan_log "$flog" "$q"
}

# --- run ---------------------------------------------------------------------

if [ "$DUCKDB" -eq 1 ]; then
  export_events
  run_duckdb
else
  record duckdb.skipped "--no-duckdb"
fi
for q in "${QUERIES[@]}"; do run_freshet_query "$q"; done

# Checks against DuckDB.
for q in "${QUERIES[@]}"; do
  st="$(awk -F= -v k="freshet.$q.status" '$1 == k { v = substr($0, length(k) + 2) } END { print v }' "$RESULTS")"
  [ "$st" = ok ] || continue
  prior="$(awk -F= -v k="freshet.$q.check" '$1 == k { v = substr($0, length(k) + 2) } END { print v }' "$RESULTS")"
  case "$prior" in
    "") ;;
    not\ checked*) continue ;;
    *) FAILURES+=("Freshet $q: check: $prior"); continue ;;
  esac
  [ "$CHECK" != none ] || continue
  fr_rows="$(awk -F= -v k="freshet.$q.rows" '$1 == k { v = $2 } END { print v }' "$RESULTS")"
  dk_rows="$(awk -F= -v k="duckdb.$q.rows" '$1 == k { v = $2 } END { print v }' "$RESULTS")"
  dk_ms="$(awk -F= -v k="duckdb.$q.ms" '$1 == k { v = $2 } END { print v }' "$RESULTS")"
  if [[ ! "$dk_ms" =~ ^[0-9.]+$ ]]; then
    record "freshet.$q.check" "n/a (no DuckDB result)"
  elif [ "$CHECK" = full ]; then
    res="$(compare_results "$WORKDIR/out/freshet.$q.csv" "$WORKDIR/out/duckdb.$q.csv")"
    record "freshet.$q.check" "$res"
    case "$res" in same|n/a*) ;; *) FAILURES+=("Freshet $q: result differs from DuckDB's: $res") ;; esac
  elif [ "$fr_rows" = "$dk_rows" ]; then
    record "freshet.$q.check" "same row count"
  else
    record "freshet.$q.check" "DIFFERENT row count: Freshet $fr_rows, DuckDB $dk_rows"
    FAILURES+=("Freshet $q: $fr_rows result rows, DuckDB $dk_rows")
  fi
done

# Keep the server logs (and DuckDB's) beside the results.
LOGS_KEEP="${RESULTS%.txt}.logs"
rm -rf "$LOGS_KEEP"; cp -r "$WORKDIR/logs" "$LOGS_KEEP" 2>/dev/null || true
record logs "$LOGS_KEEP"

record host.load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
record run_s "$(awk -v a="$RUN_START_US" -v b="$(now_us)" 'BEGIN { printf "%.0f", (b - a) / 1e6 }')"
for f in "${FAILURES[@]+"${FAILURES[@]}"}"; do record failure "$f"; done

"$HERE/report.sh" "$RESULTS" > "$RESULTS.md"
cat "$RESULTS.md"
log "raw numbers: $RESULTS; report: $RESULTS.md"
