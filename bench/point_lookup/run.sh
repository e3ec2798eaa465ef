#!/usr/bin/env bash
# Primary-key lookups and short key ranges through prepared statements
# (issue 17: scans narrowed by the table engine), Freshet against
# PostgreSQL 15 in the same run, with pgbench (extended protocol,
# `-M prepared`): a table kv (id int PRIMARY KEY, v int, s text) of ROWS
# rows, then for DURATION seconds each:
#   point   SELECT v, s FROM kv WHERE id = :id
#   range   SELECT count(*), sum(v) FROM kv WHERE id >= :lo AND id < :lo + 100
#   index   SELECT id, s FROM kv WHERE u = :u   (u: a column with an index,
#           CREATE INDEX kv_u ON kv (u); one row per value)
# Prints transactions/s and mean latency per query and system, and the
# ratio. Optionally a second Freshet binary (--old) in the same run, for an
# old-against-new comparison.
#
#   bench/point_lookup/run.sh [--rows N] [--duration S] [--clients C]
#                             [--binary PATH] [--old PATH]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/freshet"
OLD=""
ROWS=1000000
DURATION=10
CLIENTS=2
while [[ $# -gt 0 ]]; do
  case $1 in
    --rows) ROWS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    --old) OLD=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
BENCH_NAME=point-lookup
source "$ROOT/bench/pg_peer.sh"

printf '\\set id random(1, %d)\nSELECT v, s FROM kv WHERE id = :id;\n' "$ROWS" >"$WORK/point.sql"
printf '\\set lo random(1, %d)\nSELECT count(*), sum(v) FROM kv WHERE id >= :lo AND id < :lo + 100;\n' "$ROWS" >"$WORK/range.sql"
printf '\\set u random(0, %d)\nSELECT id, s FROM kv WHERE u = :u;\n' "$((ROWS - 1))" >"$WORK/index.sql"
load() {  # load PORT USER DB
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U "$2" -d "$3" \
    -c "drop table if exists kv" -c "create table kv (id int primary key, v int, s text, u int)" \
    -c "insert into kv select g, g % 1000, 'row ' || g, (g::bigint * 7919) % $ROWS from generate_series(1, $ROWS) g" \
    -c "create index kv_u on kv (u)" >/dev/null
}
bench() {  # bench NAME PORT USER DB QUERY -> "tps latency_ms"
  local out
  out=$("$PG_BIN/pgbench" -n -M prepared -h 127.0.0.1 -p "$2" -U "$3" -c "$CLIENTS" -j "$CLIENTS" -T "$DURATION" \
          -f "$WORK/$5.sql" "$4" 2>&1)
  local tps lat
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
  lat=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out")
  [[ -n "$tps" ]] || { echo "pgbench failed for $1 $5:" >&2; echo "$out" >&2; exit 1; }
  echo "$tps $lat"
}
declare -A RESULT
run_freshet() {  # run_freshet NAME BINARY
  local port
  port=$(free_port)
  rm -rf "$WORK/fr"
  start_freshet "$2" "$port"
  load "$port" root dev
  psql -X -q -h 127.0.0.1 -p "$port" -U root -d dev -c "flush" >/dev/null
  for q in point range index; do RESULT[$1.$q]=$(bench "$1" "$port" root dev $q); done
  kill "$FR_PID"; wait "$FR_PID" 2>/dev/null || true
  FR_PID=""
}

# PostgreSQL 15, initdb's defaults.
start_postgres
load "$PG_PORT" postgres postgres
psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c "vacuum analyze kv" >/dev/null
for q in point range index; do RESULT[postgres.$q]=$(bench postgres "$PG_PORT" postgres postgres $q); done
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null

run_freshet freshet "$BIN"
[[ -n "$OLD" ]] && run_freshet old "$OLD"

printf '%-8s %-10s %12s %12s %10s\n' query system tps "latency ms" "vs pg"
for q in point range index; do
  read -r pg_tps _ <<<"${RESULT[postgres.$q]}"
  for sys in postgres freshet ${OLD:+old}; do
    read -r tps lat <<<"${RESULT[$sys.$q]}"
    printf '%-8s %-10s %12s %12s %9.2fx\n' "$q" "$sys" "$tps" "$lat" "$(awk -v a="$tps" -v b="$pg_tps" 'BEGIN { print a / b }')"
  done
done
