#!/usr/bin/env bash
# TPC-H's 22 queries as materialized views, kept exact under TPC-H-like
# refresh changes, and equal to PostgreSQL's answers.
#
#   tests/integration/tpch_views_test.sh [path/to/freshet]
#
# 1) bench/tpch/dbgen.py makes SF 0.01 data (seeded); a server gets
#    bench/tpch/schema.sql and the data with \copy (COPY FROM STDIN), and
#    Q15's view revenue0 (queries/q15_view.sql).
# 2) Each query of bench/tpch/queries/qNN.sql runs as a batch SELECT (under
#    statement_timeout = TPCH_QUERY_TIMEOUT s; one that times out is not run
#    again and gets no view: a failure) and becomes CREATE MATERIALIZED VIEW
#    tpch_qNN AS <query>; a refusal (e.g. 0A000) is a failure naming the
#    query and the error.
# 3) Rounds 1..TPCH_ROUNDS: TPCH_CHANGES random changes from
#    `dbgen.py --changes N --round R` (new orders with their lineitems,
#    deleted orders with theirs, updates of every table, key changes
#    included), then FLUSH.
# After the creation (round 0) and after each round, per query:
#    view=batch  the view's rows equal its query's, run as a batch SELECT on
#                Freshet (multisets; numbers by value, double/real columns
#                within a relative 1e-9);
#    batch=pg    the batch result equals PostgreSQL's on the same data, when a
#                PostgreSQL is reachable (PG_HOST/PG_PORT/PG_USER, default
#                127.0.0.1:25499 as root; it gets a fresh database
#                tpch_test_<pid>, dropped at the end; TPCH_NO_PG=1 skips it);
#    and, with PostgreSQL, every table equals PostgreSQL's (tables=pg).
# Last, every view is Created and no job failed. Never sleeps for results:
# FLUSH makes the views current.
#
# Settings (environment): TPCH_SF (0.01), TPCH_SEED (1), TPCH_ROUNDS (3),
# TPCH_CHANGES (100 a round), TPCH_QUERIES (e.g. "q04 q19"; default all),
# TPCH_QUERY_TIMEOUT (15 s), TPCH_CREATE_TIMEOUT (60 s).
# Prints one line per check ("ok q04 round 2 view=batch" / "FAIL ..."), then
# "N passed, M failed"; exits 1 when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TPCH="$ROOT/bench/tpch"
BIN="${1:-/work/main/build/freshet}"
NAME=tpch_views_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
SF="${TPCH_SF:-0.01}"
SEED="${TPCH_SEED:-1}"
ROUNDS="${TPCH_ROUNDS:-3}"
CHANGES="${TPCH_CHANGES:-100}"
QUERY_TIMEOUT="${TPCH_QUERY_TIMEOUT:-15}"
CREATE_TIMEOUT="${TPCH_CREATE_TIMEOUT:-60}"
QUERIES="${TPCH_QUERIES:-q01 q02 q03 q04 q05 q06 q07 q08 q09 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22}"
PG_HOST="${PG_HOST:-127.0.0.1}"
PG_PORT="${PG_PORT:-25499}"
PG_USER="${PG_USER:-root}"
PG_DB="tpch_test_$$"
PG=0

# This test's own report lines (lib.sh's counters).
ok()   { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

# Freshet and PostgreSQL clients: unaligned, tab-separated, NULL as \N,
# errors as "ERROR:  SQLSTATE: message".
fq() { psql -X -q -At -F $'\t' -P 'null=\N' -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -h 127.0.0.1 -p "$PORT" -U root -d dev "$@" 2>&1; }
pq() { psql -X -q -At -F $'\t' -P 'null=\N' -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" "$@" 2>&1; }
q() { fq "$@"; }
first_error() { grep -m1 -E 'ERROR|FATAL|error|could not' "$1" | sed -E 's/^psql:[^:]*:[0-9]+: //; s/^ERROR: +/ERROR: /' | cut -c1-400; }

pg_drop() {
  [[ $PG -eq 1 ]] || return 0
  psql -X -q -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d dev -c "drop database if exists $PG_DB with (force)" >/dev/null 2>&1 \
    || psql -X -q -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d dev -c "drop database if exists $PG_DB" >/dev/null 2>&1
  PG=0
}
trap 'pg_drop; cleanup' EXIT

sql_of() { sed -e 's/;[[:space:]]*$//' "$TPCH/queries/$1.sql"; }   # the query without its ';'
compare() {  # compare LABEL FILE_A FILE_B NAMES FLOATS
  local out
  if out=$("$PY" "$HERE/tpch_rowdiff.py" --names "$4" --floats "$5" "$2" "$3"); then
    ok "$1"
  else
    fail "$1: $out"
  fi
}

echo "== generate SF $SF (seed $SEED)"
t0=$SECONDS
if ! "$PY" "$TPCH/dbgen.py" --sf "$SF" --seed "$SEED" --out "$WORK/data" 2>"$WORK/dbgen.log"; then
  cat "$WORK/dbgen.log"; fail "dbgen.py"; finish
fi
cat "$WORK/dbgen.log"

echo "== start the server, load"
start_server "$WORK/d" "$WORK/server.log" || { fail "start the server"; finish; }
TABLES="region nation part partsupp supplier customer orders lineitem"
load() {  # load CLIENT: schema, data, Q15's view
  local client="$1" args=() t
  for t in $TABLES; do args+=(-c "\\copy $t from '$WORK/data/$t.tsv'"); done
  "$client" -f "$TPCH/schema.sql" >"$WORK/load.out" && "$client" "${args[@]}" >>"$WORK/load.out" \
    && "$client" -f "$TPCH/queries/q15_view.sql" >>"$WORK/load.out"
}
if load fq; then ok "load into Freshet"; else fail "load into Freshet: $(first_error "$WORK/load.out")"; finish; fi

if [[ "${TPCH_NO_PG:-0}" != 1 ]] && pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2 >/dev/null 2>&1 \
    && psql -X -q -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d dev -c "create database $PG_DB" >"$WORK/pg.out" 2>&1; then
  PG=1
  if load pq; then ok "load into PostgreSQL ($PG_HOST:$PG_PORT, database $PG_DB)"; else fail "load into PostgreSQL: $(first_error "$WORK/load.out")"; pg_drop; fi
else
  echo "   (no PostgreSQL at $PG_HOST:$PG_PORT, or TPCH_NO_PG=1: batch=pg and tables=pg are not checked)"
fi
echo "   $((SECONDS - t0)) s"

declare -A FLOATS VIEW SKIP
# Round 0 only: column types (double/real compared approximately), the view.
prepare() {  # prepare QUERY
  local qn="$1" sql types
  sql="$(sql_of "$qn")"
  types=$(printf '%s\n\\gdesc\n' "$sql" | fq)
  [[ $? -ne 0 && $PG -eq 1 ]] && types=$(printf '%s\n\\gdesc\n' "$sql" | pq)
  FLOATS[$qn]=$(echo "$types" | awk -F'\t' '$2 == "double precision" || $2 == "real" { printf "%s%d", s, NR - 1; s = "," }')
}

check_query() {  # check_query QUERY ROUND
  local qn="$1" r="$2" sql dir="$WORK/r$2" t1 batch=0
  sql="$(sql_of "$qn")"
  if [[ -n "${SKIP[$qn]:-}" ]]; then
    fail "$qn round $r batch: not run (${SKIP[$qn]})"
  elif fq -c "set statement_timeout = '${QUERY_TIMEOUT}s'" -c "$sql" >"$dir/$qn.batch"; then
    batch=1
    if [[ $PG -eq 1 ]]; then
      if pq -c "$sql" >"$dir/$qn.pg"; then
        compare "$qn round $r batch=pg" "$dir/$qn.batch" "$dir/$qn.pg" "freshet,postgres" "${FLOATS[$qn]:-}"
      else
        fail "$qn round $r batch=pg: PostgreSQL: $(first_error "$dir/$qn.pg")"
      fi
    fi
  elif grep -q 57014 "$dir/$qn.batch"; then
    SKIP[$qn]="its batch SELECT took over ${QUERY_TIMEOUT} s in round $r"
    fail "$qn round $r batch: timed out after ${QUERY_TIMEOUT} s (TPCH_QUERY_TIMEOUT): $(first_error "$dir/$qn.batch")"
  else
    fail "$qn round $r batch: $(first_error "$dir/$qn.batch")"
  fi
  if [[ $r -eq 0 ]]; then
    if [[ -n "${SKIP[$qn]:-}" ]]; then
      fail "$qn create: not attempted (${SKIP[$qn]}; creating it would take as long or longer)"
    elif t1=$(date +%s%N) && fq -c "set statement_timeout = '${CREATE_TIMEOUT}s'" -c "create materialized view tpch_$qn as $sql" >"$dir/$qn.create"; then
      VIEW[$qn]=1
      ok "$qn create ($(( ($(date +%s%N) - t1) / 1000000 )) ms)"
    else
      fail "$qn create: $(first_error "$dir/$qn.create")"
    fi
  fi
  [[ -n "${VIEW[$qn]:-}" ]] || return 0
  if [[ $batch -eq 0 ]]; then
    fail "$qn round $r view=batch: not compared (no batch result)"
  elif fq -c "select * from tpch_$qn" >"$dir/$qn.view"; then
    compare "$qn round $r view=batch" "$dir/$qn.view" "$dir/$qn.batch" "view,batch" "${FLOATS[$qn]:-}"
  else
    fail "$qn round $r view=batch: $(first_error "$dir/$qn.view")"
  fi
}

check_round() {  # check_round ROUND
  local r="$1" t
  mkdir -p "$WORK/r$r"
  for qn in $QUERIES; do
    [[ $r -eq 0 ]] && prepare "$qn"
    check_query "$qn" "$r"
  done
  if [[ $PG -eq 1 ]]; then
    local bad=0
    for t in $TABLES; do
      fq -c "select * from $t" >"$WORK/r$r/$t.tfr" && pq -c "select * from $t" >"$WORK/r$r/$t.tpg" \
        && "$PY" "$HERE/tpch_rowdiff.py" --names freshet,postgres "$WORK/r$r/$t.tfr" "$WORK/r$r/$t.tpg" >"$WORK/r$r/$t.diff" \
        || { bad=1; fail "round $r tables=pg: $t: $(head -c 600 "$WORK/r$r/$t.diff"; first_error "$WORK/r$r/$t.tfr"; first_error "$WORK/r$r/$t.tpg")"; }
    done
    [[ $bad -eq 0 ]] && ok "round $r tables=pg"
  fi
}

echo "== round 0: the views created after the load"
t0=$SECONDS
check_round 0
echo "   $((SECONDS - t0)) s"

for r in $(seq 1 "$ROUNDS"); do
  echo "== round $r: $CHANGES changes"
  t0=$SECONDS
  if ! "$PY" "$TPCH/dbgen.py" --sf "$SF" --seed "$SEED" --changes "$CHANGES" --round "$r" --out "$WORK/changes$r.sql"; then
    fail "round $r: dbgen.py --changes"; continue
  fi
  if fq -f "$WORK/changes$r.sql" -c "flush" >"$WORK/changes$r.fr"; then
    ok "round $r changes applied ($(wc -l <"$WORK/changes$r.sql") statements) and flushed"
  else
    fail "round $r changes on Freshet: $(first_error "$WORK/changes$r.fr")"
    fq -c "flush" >/dev/null
  fi
  if [[ $PG -eq 1 ]] && ! pq -f "$WORK/changes$r.sql" >"$WORK/changes$r.pg"; then
    fail "round $r changes on PostgreSQL: $(first_error "$WORK/changes$r.pg")"
  fi
  check_round "$r"
  echo "   $((SECONDS - t0)) s"
done

changed=() same=()
for qn in $QUERIES; do
  [[ -s "$WORK/r0/$qn.batch" && -s "$WORK/r$ROUNDS/$qn.batch" ]] || continue
  if cmp -s "$WORK/r0/$qn.batch" "$WORK/r$ROUNDS/$qn.batch"; then same+=("$qn"); else changed+=("$qn"); fi
done
echo "   results changed by the rounds: ${changed[*]:-none}; unchanged: ${same[*]:-none}"

echo "== jobs"
not_created=$(fq -c "select count(*) from rw_catalog.rw_materialized_views where status <> 'Created'")
events=$(fq -c "select count(*) from rw_catalog.rw_event_logs where event_type in ('STREAM_FAILURE', 'JOB_FAILED')")
if [[ "$not_created/$events" == "0/0" ]]; then
  ok "every view is created and no job failed"
else
  fail "views not Created: $not_created, failure events: $events"
fi
if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died: $(tail -n 5 "$WORK/server.log")"; fi
pg_drop
stop_server
finish
