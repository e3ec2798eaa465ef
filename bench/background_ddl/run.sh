#!/usr/bin/env bash
# Issue 4 benchmark: building a four-level pipeline of materialized views
# over one table, in the background in one pass (all four created back to
# back with BACKGROUND_DDL, then WAIT) versus one after another in the
# foreground (each CREATE waiting for its backfill). Same server build, same
# data, a fresh data directory for each mode.
#
#   bench/background_ddl/run.sh [--rows N] [--freshet PATH] [--parallelism P]
#
# Pipeline (each level reads the previous one):
#   p1: SELECT a, b, c FROM t WHERE a % 10 <> 0        (filter/project, 0.9 N rows)
#   p2: SELECT a, b % 1000 AS g, c * 2 AS c2 FROM p1    (project, 0.9 N rows)
#   p3: SELECT g, count(*) AS n, sum(c2) AS s FROM p2 GROUP BY g   (1,000 rows)
#   p4: SELECT count(*) AS groups, sum(n) AS n FROM p3             (1 row)
# Prints the wall time of each mode (from the first CREATE to the last view
# Created), the ratio, and checks that both modes give the same p4.
set -euo pipefail

ROWS=10000000
FRESHET="$(cd "$(dirname "$0")/../.." && pwd)/build/freshet"
PARALLELISM=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rows) ROWS="$2"; shift 2 ;;
    --freshet) FRESHET="$2"; shift 2 ;;
    --parallelism) PARALLELISM="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/freshet-bgddl.XXXXXX")"
PID=""
cleanup() {
  if [[ -n "$PID" ]]; then kill -9 "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

pick_port() {
  local p
  for _ in $(seq 1 200); do
    p=$(shuf -i 20000-60999 -n 1)
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

start() {
  PORT="$(pick_port)"
  "$FRESHET" --data-dir "$WORK/data-$1" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 >"$WORK/server-$1.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 600); do
    pg_isready -q -h 127.0.0.1 -p "$PORT" -U root -d dev -t 1 && return 0
    sleep 0.1
  done
  echo "server did not start" >&2; exit 1
}
stop() { kill -TERM "$PID"; wait "$PID" || true; PID=""; }
sql() { psql -h 127.0.0.1 -p "$PORT" -U root -d dev -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
now() { date +%s.%N; }

P1="CREATE MATERIALIZED VIEW p1 AS SELECT a, b, c FROM t WHERE a % 10 <> 0"
P2="CREATE MATERIALIZED VIEW p2 AS SELECT a, b % 1000 AS g, c * 2 AS c2 FROM p1"
P3="CREATE MATERIALIZED VIEW p3 AS SELECT g, count(*) AS n, sum(c2) AS s FROM p2 GROUP BY g"
P4="CREATE MATERIALIZED VIEW p4 AS SELECT count(*) AS groups, sum(n) AS n FROM p3"

load() {
  sql -c "CREATE TABLE t (a bigint, b bigint, c double precision)" \
      -c "INSERT INTO t SELECT i, (i * 7919) % 100000, (i % 100000) / 7.0 FROM generate_series(1::bigint, $ROWS) AS s(i)" \
      -c "FLUSH"
}

run_mode() {  # run_mode background|sequential
  start "$1"
  load
  local t0 t1
  t0=$(now)
  if [[ "$1" == background ]]; then
    sql -c "SET STREAMING_PARALLELISM = $PARALLELISM" -c "SET BACKGROUND_DDL = true" \
        -c "$P1" -c "$P2" -c "$P3" -c "$P4" -c "WAIT" 2>/dev/null
  else
    sql -c "SET STREAMING_PARALLELISM = $PARALLELISM" -c "$P1" -c "$P2" -c "$P3" -c "$P4"
  fi
  t1=$(now)
  RESULT="$(sql -c "SELECT groups, n FROM p4")"
  STATUS="$(sql -c "SELECT string_agg(status, ',' ORDER BY name) FROM rw_catalog.rw_materialized_views")"
  PEAK="$(awk '/VmHWM/ {print int($2/1024)}' /proc/$PID/status)"
  stop
  ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

echo "rows: $ROWS, streaming_parallelism: $PARALLELISM, binary: $FRESHET"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_mode sequential
SEQ=$ELAPSED; SEQ_RESULT=$RESULT; SEQ_PEAK=$PEAK
echo "sequential (foreground, one after another): $(printf %.2f "$SEQ") s; p4 = $SEQ_RESULT; statuses $STATUS; peak RSS $SEQ_PEAK MiB"
run_mode background
BG=$ELAPSED; BG_RESULT=$RESULT; BG_PEAK=$PEAK
echo "background (one pass, then WAIT):           $(printf %.2f "$BG") s; p4 = $BG_RESULT; statuses $STATUS; peak RSS $BG_PEAK MiB"
echo "ratio background / sequential: $(awk -v a="$BG" -v b="$SEQ" 'BEGIN { printf "%.2f", a / b }') (target <= 0.5)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ "$SEQ_RESULT" != "$BG_RESULT" ]]; then echo "MISMATCH: the two modes gave different p4" >&2; exit 1; fi
