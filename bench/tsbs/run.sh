#!/usr/bin/env bash
# TSBS cpu-only (the Time Series Benchmark Suite's devops cpu-only use case):
# ingest, the 15 queries and the size on disk of Freshet's time-series table
# against PostgreSQL 15 and DuckDB, on the same rows, in one run.
#
#   bench/tsbs/run.sh [--scale N] [--days D] [--seed S] [--queries-per-kind Q]
#                     [--freshet PATH] [--results FILE] [--no-duckdb]
#                     [--no-postgres] [--kinds k1,k2,...] [--insert-rows R]
#                     [--copy-rows C] [--per-txn K] [--float-values] [--query-timeout S]
#                     [--timeout S] [--data-cache DIR]
#
#   --scale N           hosts (default 100)
#   --days D            days of data, one row per host every 10 s from
#                       2016-01-01 00:00:00 (default 1)
#   --seed S            seed of the data and of the queries' parameters (1)
#   --queries-per-kind Q  instances of each query kind (default 10)
#   --freshet PATH      the server binary (default build/freshet; copied to
#                       the work directory first, so that a rebuild does not
#                       change it under the run)
#   --results FILE      raw numbers (default bench/tsbs/results/<date>-
#                       scale<N>-days<D>.txt, git-ignored); the Markdown
#                       report goes beside it (FILE.md), logs, the queries and
#                       the normalized results in FILE.logs/
#   --no-duckdb, --no-postgres  skip that peer
#   --kinds LIST        run only these query kinds (default all 15)
#   --insert-rows R     rows of the multi-row INSERT path: the first R rows of
#                       the data (default 2000000; 0 = all)
#   --copy-rows C       rows per COPY statement of Freshet and PostgreSQL
#                       (default 1000000; 0 = one COPY of everything)
#   --per-txn K         INSERT statements (1,000 rows each) per transaction
#                       (default 10; 0 = autocommit, one statement each)
#   --float-values      the fields as the walk's doubles instead of TSBS's
#                       int64 truncation (another data set in the cache)
#   --query-timeout S   statement_timeout of each query (default 300)
#   --timeout S         limit of each load step, in seconds (default 3600)
#   --data-cache DIR    generated data, DIR/scale<N>-days<D>-seed<S>[-float]/
#                       (default ~/.cache/freshet-tsbs); a rerun reuses it
#
# What is measured (bench/tsbs/README.md says more), each system alone, one
# after the other (Freshet, PostgreSQL, DuckDB; never two at once):
# 1. Data: bench/tsbs/tsbs_gen.cc (compiled here with g++ -O2) writes the
#    rows as CSV in time order (all hosts at t, then t + 10 s, ...), cached;
#    the INSERT statements (1,000 rows each) are written into the work
#    directory at each run. Queries: bench/tsbs/tsbs_queries.py (seeded).
# 2. COPY: Freshet and PostgreSQL through psql's \copy cpu FROM 'file' WITH
#    (FORMAT csv) (COPY FROM STDIN), one per --copy-rows rows; Freshet's time includes the FLUSH after
#    it (the rows committed and visible). DuckDB: COPY cpu FROM 'file' in a
#    database file (CHECKPOINT after it, timed apart). rows/s = rows / time.
# 3. Size: Freshet: du of the data directory after SELECT flush_table('cpu')
#    (and its parts); PostgreSQL: pg_total_relation_size('cpu') (table and
#    its two indexes), after VACUUM ANALYZE (timed apart); DuckDB: the
#    database file after CHECKPOINT.
# 4. Queries: bench/tsbs/tsbs_client.mjs, one Node process per system on one
#    connection (pg driver for Freshet and PostgreSQL, @duckdb/node-api for
#    DuckDB): per kind a warm-up (its first instance), then each instance
#    once, timed client-side until the last row is received; the median over
#    the instances is the kind's figure. Results are compared between the
#    systems (numbers to 6 significant digits).
# 5. Multi-row INSERT into a fresh table cpu_ins (same DDL): psql -f of the
#    generated statements (BEGIN; K statements; COMMIT; ...) for Freshet and
#    PostgreSQL, plus FLUSH for Freshet; DuckDB runs the same lines through
#    its Node API. psql's CPU time is recorded beside its wall time (is the
#    client the bottleneck?).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
COMMAND_LINE="$0 $*"

SCALE=100
DAYS=1
SEED=1
QPK=10
FRESHET="$REPO/build/freshet"
RESULTS=""
DUCKDB=1
POSTGRES=1
KINDS=""
INSERT_ROWS=2000000
COPY_ROWS=1000000
PER_TXN=10
FLOAT=0
QUERY_TIMEOUT=300
STEP_TIMEOUT=3600
DATA_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/freshet-tsbs"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) SCALE="$2"; shift 2 ;;
    --days) DAYS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --queries-per-kind) QPK="$2"; shift 2 ;;
    --freshet) FRESHET="$2"; shift 2 ;;
    --results) RESULTS="$2"; shift 2 ;;
    --no-duckdb) DUCKDB=0; shift ;;
    --no-postgres) POSTGRES=0; shift ;;
    --kinds) KINDS="$2"; shift 2 ;;
    --insert-rows) INSERT_ROWS="$2"; shift 2 ;;
    --copy-rows) COPY_ROWS="$2"; shift 2 ;;
    --per-txn) PER_TXN="$2"; shift 2 ;;
    --float-values) FLOAT=1; shift ;;
    --query-timeout) QUERY_TIMEOUT="$2"; shift 2 ;;
    --timeout) STEP_TIMEOUT="$2"; shift 2 ;;
    --data-cache) DATA_CACHE="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 1 ;;
  esac
done

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
for v in SCALE DAYS QPK QUERY_TIMEOUT STEP_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] || die "--${v,,} must be a positive integer"
done
for v in SEED INSERT_ROWS PER_TXN; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "--${v,,} must be a non-negative integer"
done
[ -x "$FRESHET" ] || die "no Freshet binary at $FRESHET (build it, or pass --freshet PATH)"
FRESHET="$(cd "$(dirname "$FRESHET")" && pwd)/$(basename "$FRESHET")"
command -v psql >/dev/null || die "psql not found (postgresql-client)"
command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed (the query client)"
CXX="${CXX:-$(command -v g++ || command -v c++ || true)}"
[ -n "$CXX" ] || die "no C++ compiler (g++)"
[ "$POSTGRES" -eq 0 ] || [ -x /usr/lib/postgresql/15/bin/postgres ] || die "no PostgreSQL 15 (postgresql-15), or pass --no-postgres"
[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5 (EPOCHREALTIME)"
if [ ! -d "$REPO/bench/node_modules/pg" ] || [ ! -d "$REPO/bench/node_modules/@duckdb/node-api" ]; then
  log "installing the Node clients (cd bench && npm install)"
  (cd "$REPO/bench" && npm install --no-audit --no-fund --loglevel=error >/dev/null) || die "npm install failed"
fi

if [ -z "$RESULTS" ]; then
  mkdir -p "$HERE/results"
  RESULTS="$HERE/results/$(date +%Y%m%d-%H%M%S)-scale$SCALE-days$DAYS.txt"
fi
mkdir -p "$(dirname "$RESULTS")"
RESULTS="$(cd "$(dirname "$RESULTS")" && pwd)/$(basename "$RESULTS")"
LOGS="$RESULTS.logs"
rm -rf "$LOGS"; mkdir -p "$LOGS"
: > "$RESULTS"
record() { echo "$1=$2" >> "$RESULTS"; }

exec 3>&1 4>&2
BENCH_NAME=tsbs
source "$REPO/bench/pg_peer.sh"   # WORK (removed on exit), free_port, start_freshet, start_postgres
NODE_PID=""
NODE_SYS=""
DONE=0
on_exit() {
  local rc=$?
  set +e
  [ -n "$NODE_PID" ] && kill "$NODE_PID" 2>/dev/null
  [ -n "$NODE_SYS" ] && parse_queries "$NODE_SYS"
  [ -f "$WORK/fr.log" ] && cp "$WORK/fr.log" "$LOGS/freshet.log" 2>/dev/null
  [ -f "$WORK/pg/server.log" ] && cp "$WORK/pg/server.log" "$LOGS/postgres.log" 2>/dev/null
  cleanup
  if [ -s "$RESULTS" ]; then
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
head="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
record freshet "$FRESHET (modified $(date -u -r "$FRESHET" +%Y-%m-%dT%H:%M:%SZ); the repository is at commit $head)"
record scale "$SCALE"; record days "$DAYS"; record seed "$SEED"; record queries_per_kind "$QPK"
record values "$([ "$FLOAT" -eq 1 ] && echo "doubles (--float-values)" || echo "int64-truncated, as TSBS")"
record per_txn "$PER_TXN"

now_us() { echo "${EPOCHREALTIME/./}"; }
ms_since() { awk -v a="$1" -v b="$(now_us)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# --- 1. data and queries ----------------------------------------------------
log "compiling tsbs_gen"
"$CXX" -O2 -std=c++17 -o "$WORK/tsbs_gen" "$HERE/tsbs_gen.cc"
GEN_ARGS=(--scale "$SCALE" --days "$DAYS" --seed "$SEED")
[ "$FLOAT" -eq 1 ] && GEN_ARGS+=(--float-values)
DATA="$DATA_CACHE/scale$SCALE-days$DAYS-seed$SEED$([ "$FLOAT" -eq 1 ] && echo -float || true)"
if [ ! -f "$DATA/.done" ]; then
  log "generating $SCALE hosts x $DAYS days (seed $SEED) into $DATA"
  rm -rf "$DATA.tmp"; mkdir -p "$DATA.tmp"
  t0=$(now_us)
  "$WORK/tsbs_gen" "${GEN_ARGS[@]}" --format csv --out "$DATA.tmp/cpu.csv" 2>/dev/null
  "$WORK/tsbs_gen" "${GEN_ARGS[@]}" --format hosts --out "$DATA.tmp/hosts.csv"
  record gen.ms "$(ms_since "$t0")"
  rm -rf "$DATA"; mv "$DATA.tmp" "$DATA"; touch "$DATA/.done"
fi
CSV="$DATA/cpu.csv"
ROWS=$((SCALE * DAYS * 8640))
record rows "$ROWS"
record csv_bytes "$(stat -c %s "$CSV")"
cp "$DATA/hosts.csv" "$LOGS/hosts.csv"

INS_ROWS=$ROWS
[ "$INSERT_ROWS" -gt 0 ] && [ "$INSERT_ROWS" -lt "$ROWS" ] && INS_ROWS=$INSERT_ROWS
"$WORK/tsbs_gen" "${GEN_ARGS[@]}" --format insert --table cpu_ins --batch 1000 --per-txn "$PER_TXN" \
  --limit "$INS_ROWS" --out "$WORK/insert.sql" 2>/dev/null
record insert.rows "$INS_ROWS"
record insert.sql_bytes "$(stat -c %s "$WORK/insert.sql")"
chmod 644 "$WORK/insert.sql" "$CSV"

QUERIES="$LOGS/queries.tsv"
python3 "$HERE/tsbs_queries.py" --scale "$SCALE" --days "$DAYS" --seed "$SEED" --per-kind "$QPK" \
  --kinds "$KINDS" --out "$QUERIES"
record kinds "$(cut -f1 "$QUERIES" | uniq | paste -sd, -)"
sync   # the generated files' writeback must not land on the first system measured

# --- helpers ----------------------------------------------------------------
# timed_psql KEY LOGFILE PSQL_ARGS...: runs psql (under the step timeout),
# records KEY.wall_ms, KEY.client_cpu_s (psql's user + system time) and, from
# the "\! date +%s%N" marks its script prints, KEY.part<i>_ms; returns psql's
# status.
timed_psql() {
  local key=$1 out=$2 rc=0; shift 2
  local t0; t0=$(now_us)
  { TIMEFORMAT='%U %S'; time timeout -k 30 "$STEP_TIMEOUT" psql -X -q "$@" > "$out" 2>&1; } 2> "$WORK/time" || rc=$?
  record "$key.wall_ms" "$(ms_since "$t0")"
  record "$key.client_cpu_s" "$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time")"
  awk -v key="$key" '/^[0-9]+$/ && length($1) >= 18 { t[++n] = $1 }
    END { for (i = 2; i <= n; i++) printf "%s.part%d_ms=%.1f\n", key, i - 1, (t[i] - t[i - 1]) / 1e6 }' "$out" >> "$RESULTS"
  if [ "$rc" -ne 0 ]; then
    record "$key.error" "$( (grep -m1 -E 'ERROR|FATAL|error' "$out" || echo "psql exit status $rc") | cut -c1-300)"
  fi
  return "$rc"
}
# run_queries SYS CLIENT_ARGS...: the query client; its lines become
# SYS.q.<kind>.<i>.{ms,rows,digest,error} and SYS.warmup.<kind>.
run_queries() {
  local sys=$1; shift
  log "$sys: $(wc -l < "$QUERIES") queries"
  node --max-old-space-size=8192 "$HERE/tsbs_client.mjs" queries "$@" > "$LOGS/$sys.queries.out" 2> "$LOGS/$sys.queries.err" &
  NODE_PID=$!
  NODE_SYS=$sys
  wait "$NODE_PID" || record "$sys.client_error" "$(tail -3 "$LOGS/$sys.queries.err" | tr '\n' ' ' | cut -c1-300)"
  NODE_PID=""
  NODE_SYS=""
  parse_queries "$sys"
}
parse_queries() {  # parse_queries SYS: the client's lines into the results (also of a run cut short)
  local sys=$1
  awk -v s="$sys" '
    $1 == "version" { $1 = ""; print s ".server=" substr($0, 2) }
    $1 == "note" { $1 = ""; print s ".note=" substr($0, 2) }
    $1 == "warmup" { print s ".warmup." $2 "=" $3 }
    $1 == "query" && ($4 == "error" || $4 == "skipped") {
      k = s ".q." $2 "." $3; sk = ($4 == "skipped"); $1 = $2 = $3 = $4 = ""; sub(/^ +/, "")
      print k ".error=" (sk ? "skipped " : "") $0; next }
    $1 == "query" { k = s ".q." $2 "." $3; print k ".ms=" $4; print k ".rows=" $5; print k ".digest=" $6
                    if ($7 != "") print k ".client_cpu_ms=" $7 }
  ' "$LOGS/$sys.queries.out" >> "$RESULTS"
}
# settle KEY PID: waits (at most 60 s) until PID uses less than 10% of a core
# over 2 s (background flushes or compactions after a load), records KEY.
settle() {
  local t0=$SECONDS a b
  while [ $((SECONDS - t0)) -lt 60 ]; do
    a=$(awk '{ print $14 + $15 }' "/proc/$2/stat"); sleep 2; b=$(awk '{ print $14 + $15 }' "/proc/$2/stat")
    [ $((b - a)) -lt $(( $(getconf CLK_TCK) / 5 )) ] && break
  done
  record "$1" "$((SECONDS - t0))"
}
cpu_s() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
kb_of() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }
ins_schema() { sed 's/\<cpu\>/cpu_ins/g' "$1"; }
# the \copy / insert scripts, with clock marks between the steps
# COPY in statements of COPY_ROWS rows each (one COPY's rows are one
# transaction, which Freshet holds in memory until it commits: 25.9 million
# rows in one COPY took its memory past 16 GB), the same for PostgreSQL.
if (( COPY_ROWS > 0 && ROWS > COPY_ROWS )); then
  split -l "$COPY_ROWS" -d -a 4 "$CSV" "$WORK/copy_part_"
  COPY_FILES=("$WORK"/copy_part_*)
  chmod 644 "${COPY_FILES[@]}"
else
  COPY_FILES=("$CSV")
fi
{ echo '\! date +%s%N'
  for f in "${COPY_FILES[@]}"; do echo "\\copy cpu FROM '$f' WITH (FORMAT csv)"; done
  echo '\! date +%s%N'; } > "$WORK/copy.sql"
printf '%s\n' '\! date +%s%N' "\\i $WORK/insert.sql" '\! date +%s%N' > "$WORK/insert_run.sql"
chmod 644 "$WORK"/*.sql

# --- 2. Freshet ---------------------------------------------------------------
FR_PORT=$(free_port)
start_freshet "$WORK/freshet" "$FR_PORT"
log "Freshet on port $FR_PORT (pid $FR_PID), work directory $WORK"
FR=(-h 127.0.0.1 -p "$FR_PORT" -U root -d dev)
fr() { psql -X -q -v ON_ERROR_STOP=1 "${FR[@]}" "$@"; }
fr -f "$HERE/schema_freshet.sql" >/dev/null
log "Freshet: COPY $ROWS rows"
{ cat "$WORK/copy.sql"; echo 'FLUSH;'; echo '\! date +%s%N'; } > "$WORK/fr_copy.sql"
c0=$(cpu_s "$FR_PID")
if timed_psql fr.copy "$LOGS/fr.copy.out" -v ON_ERROR_STOP=1 "${FR[@]}" -f "$WORK/fr_copy.sql"; then
  record fr.copy.server_cpu_s "$(awk -v a="$c0" -v b="$(cpu_s "$FR_PID")" 'BEGIN { printf "%.2f", b - a }')"
  record fr.copy.count "$(fr -At -c 'SELECT count(*) FROM cpu' 2>&1 | head -1)"
  record fr.rss_after_copy_kb "$(kb_of "$FR_PID" VmRSS)"
  record fr.hwm_after_copy_kb "$(kb_of "$FR_PID" VmHWM)"
  t0=$(now_us)
  fr -At -c "SELECT flush_table('cpu')" > "$LOGS/fr.flush_table.out" 2>&1 || record fr.flush_table.error "$(head -c 300 "$LOGS/fr.flush_table.out")"
  record fr.flush_table.ms "$(ms_since "$t0")"
  # du: the blocks allocated (what the directory takes on disk); -b: the
  # files' apparent sizes (RocksDB preallocates its log: allocated, not yet written)
  record fr.size_bytes "$(($(du -sk "$WORK/fr" | cut -f1) * 1024))"
  record fr.apparent_bytes "$(du -sb "$WORK/fr" | cut -f1)"
  for d in "$WORK"/fr/*; do
    record "fr.size.$(basename "$d")_bytes" "$(($(du -sk "$d" | cut -f1) * 1024))"
    record "fr.apparent.$(basename "$d")_bytes" "$(du -sb "$d" | cut -f1)"
  done
  log "Freshet: loaded in $(awk -F= '$1 == "fr.copy.wall_ms" { print $2 }' "$RESULTS") ms; $(du -sh "$WORK/fr" | cut -f1) on disk"
  settle fr.settle_s "$FR_PID"
  run_queries fr pg 127.0.0.1 "$FR_PORT" root dev "$QUERIES" "$LOGS/results/fr" "$QUERY_TIMEOUT"
  record fr.size_after_queries_bytes "$(($(du -sk "$WORK/fr" | cut -f1) * 1024))"
  record fr.rss_after_queries_kb "$(kb_of "$FR_PID" VmRSS)"
else
  log "Freshet: COPY failed: $(awk -F= '$1 == "fr.copy.error" { print $2 }' "$RESULTS")"
fi
log "Freshet: multi-row INSERT of $INS_ROWS rows"
ins_schema "$HERE/schema_freshet.sql" | fr >/dev/null
{ cat "$WORK/insert_run.sql"; echo 'FLUSH;'; echo '\! date +%s%N'; } > "$WORK/fr_insert.sql"
c0=$(cpu_s "$FR_PID")
if timed_psql fr.insert "$LOGS/fr.insert.out" -v ON_ERROR_STOP=1 "${FR[@]}" -f "$WORK/fr_insert.sql"; then
  record fr.insert.server_cpu_s "$(awk -v a="$c0" -v b="$(cpu_s "$FR_PID")" 'BEGIN { printf "%.2f", b - a }')"
  record fr.insert.count "$(fr -At -c 'SELECT count(*) FROM cpu_ins' 2>&1 | head -1)"
fi
n_err=$(grep -iE '\b(error|panic|fatal)\b' "$WORK/fr.log" | grep -cv 'database "root" does not exist' || true)
[ "$n_err" -eq 0 ] || record fr.server_log_errors "$n_err"
kill -TERM "$FR_PID" 2>/dev/null || true
for _ in $(seq 1 300); do kill -0 "$FR_PID" 2>/dev/null || break; sleep 0.1; done
kill -9 "$FR_PID" 2>/dev/null || true
FR_PID=""
cp "$WORK/fr.log" "$LOGS/freshet.log"
rm -rf "$WORK/fr"

# --- 3. PostgreSQL ------------------------------------------------------------
if [ "$POSTGRES" -eq 1 ]; then
  start_postgres
  log "PostgreSQL on port $PG_PORT"
  PG=(-h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres)
  pgq() { psql -X -q -v ON_ERROR_STOP=1 "${PG[@]}" "$@"; }
  record pg.version "$(pgq -At -c 'SHOW server_version')"
  for s in shared_buffers work_mem max_parallel_workers_per_gather jit; do
    record "pg.setting.$s" "$(pgq -At -c "SHOW $s")"
  done
  pgq -f "$HERE/schema_postgres.sql" >/dev/null
  log "PostgreSQL: COPY $ROWS rows"
  if timed_psql pg.copy "$LOGS/pg.copy.out" -v ON_ERROR_STOP=1 "${PG[@]}" -f "$WORK/copy.sql"; then
    record pg.copy.count "$(pgq -At -c 'SELECT count(*) FROM cpu')"
    t0=$(now_us); pgq -c 'VACUUM ANALYZE cpu'; record pg.vacuum_analyze.ms "$(ms_since "$t0")"
    record pg.size_bytes "$(pgq -At -c "SELECT pg_total_relation_size('cpu')")"
    record pg.size.table_bytes "$(pgq -At -c "SELECT pg_relation_size('cpu')")"
    record pg.size.indexes_bytes "$(pgq -At -c "SELECT pg_indexes_size('cpu')")"
    run_queries pg pg 127.0.0.1 "$PG_PORT" postgres postgres "$QUERIES" "$LOGS/results/pg" "$QUERY_TIMEOUT"
  fi
  log "PostgreSQL: multi-row INSERT of $INS_ROWS rows"
  ins_schema "$HERE/schema_postgres.sql" | pgq >/dev/null
  if timed_psql pg.insert "$LOGS/pg.insert.out" -v ON_ERROR_STOP=1 "${PG[@]}" -f "$WORK/insert_run.sql"; then
    record pg.insert.count "$(pgq -At -c 'SELECT count(*) FROM cpu_ins')"
  fi
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1 || true
  cp "$WORK/pg/server.log" "$LOGS/postgres.log" 2>/dev/null || true
fi

# --- 4. DuckDB ----------------------------------------------------------------
if [ "$DUCKDB" -eq 1 ]; then
  mkdir -p "$WORK/duck"
  DB="$WORK/duck/tsbs.duckdb"
  duck() {  # duck KEY ARGS...: a tsbs_client.mjs step, its output in LOGS/KEY.out
    local key=$1 rc=0; shift
    timeout -k 30 "$STEP_TIMEOUT" node "$HERE/tsbs_client.mjs" "$@" > "$LOGS/$key.out" 2> "$LOGS/$key.err" &
    NODE_PID=$!
    wait "$NODE_PID" || rc=$?
    NODE_PID=""
    [ "$rc" -eq 0 ] || record "$key.error" "exit status $rc: $(tail -3 "$LOGS/$key.err" | tr '\n' ' ' | cut -c1-300)"
    return "$rc"
  }
  log "DuckDB: COPY $ROWS rows"
  if duck duck.copy duckdb-copy "$DB" "$HERE/schema_duckdb.sql" "$CSV"; then
    awk '$1 == "copy" { print "duck.copy.ms=" $2; print "duck.copy.count=" $3 }
         $1 == "checkpoint" { print "duck.checkpoint.ms=" $2 }' "$LOGS/duck.copy.out" >> "$RESULTS"
    record duck.size_bytes "$(stat -c %s "$DB")"
    [ -f "$DB.wal" ] && record duck.wal_bytes "$(stat -c %s "$DB.wal")"
    run_queries duck duckdb "$DB" "$QUERIES" "$LOGS/results/duck" "$QUERY_TIMEOUT"
  fi
  log "DuckDB: multi-row INSERT of $INS_ROWS rows"
  ins_schema "$HERE/schema_duckdb.sql" > "$WORK/schema_duckdb_ins.sql"
  if duck duck.insert duckdb-insert "$DB" "$WORK/schema_duckdb_ins.sql" "$WORK/insert.sql"; then
    awk '$1 == "insert" { print "duck.insert.ms=" $2; print "duck.insert.count=" $4 }
         $1 == "checkpoint" { print "duck.insert.checkpoint_ms=" $2 }' "$LOGS/duck.insert.out" >> "$RESULTS"
  fi
fi
record loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
DONE=1
