#!/usr/bin/env bash
# Issue 20 benchmark: a materialized view over another database's table
# (read through that database's change log) against the same view within
# the table's database, under a steady stream of updates.
#
#   bench/cross_db/run.sh [--rows N] [--updates U] [--batch B] [--repeats R] [--freshet PATH]
#
# One server, one data set: database b holds up(k bigint primary key,
# v bigint, g int) with N rows (default 10 million). For each view and each
# mode — "same" (the view in b over up) and "cross" (the view in database a
# over b.public.up) — the view is created (its backfill timed), then U
# updates (default 4 million) are applied in statements of B rows each
# (default 20,000: UPDATE up SET v = v + 1 WHERE k in a random range, one
# psql session), then FLUSH in b and, for "cross", FLUSH in a: the view then
# reflects every update. Throughput: updates / (first statement to that
# point). The view is checked against its batch query, then dropped.
# Modes alternate (same, cross, same, cross, ...) R times (default 2); the
# medians are compared. During "cross" runs the change log's size in b is
# sampled every 100 ms (rw_catalog.rw_change_logs: entries and approximate
# bytes); its peak is printed.
set -euo pipefail

ROWS=10000000
UPDATES=4000000
BATCH=20000
REPEATS=2
FRESHET="$(cd "$(dirname "$0")/../.." && pwd)/build/freshet"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rows) ROWS="$2"; shift 2 ;;
    --updates) UPDATES="$2"; shift 2 ;;
    --batch) BATCH="$2"; shift 2 ;;
    --repeats) REPEATS="$2"; shift 2 ;;
    --freshet) FRESHET="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/freshet-crossdb.XXXXXX")"
PID=""
SAMPLER=""
cleanup() {
  if [[ -n "$SAMPLER" ]]; then kill "$SAMPLER" 2>/dev/null || true; fi
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
PORT="$(pick_port)"
"$FRESHET" --data-dir "$WORK/data" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 600); do
  pg_isready -q -h 127.0.0.1 -p "$PORT" -U root -d dev -t 1 && break
  sleep 0.1
done
sql() { local db="$1"; shift; psql -h 127.0.0.1 -p "$PORT" -U root -d "$db" -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

declare -A VIEW=(
  [agg]="SELECT g, count(*) AS n, sum(v) AS s FROM @FROM@ GROUP BY g"
  [filter]="SELECT k, v FROM @FROM@ WHERE v % 4 = 0"
)
VIEWS=(agg filter)

echo "rows: $ROWS, updates: $UPDATES in statements of $BATCH, repeats: $REPEATS, binary: $FRESHET"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
sql dev -c "CREATE DATABASE a" -c "CREATE DATABASE b"
t0=$(now)
sql b -c "CREATE TABLE up (k bigint PRIMARY KEY, v bigint, g int)" \
  -c "INSERT INTO up SELECT i, i % 1000003, i % 1000 FROM generate_series(1::bigint, $ROWS) AS s(i)" -c "FLUSH"
echo "load: $(since "$t0") s"

# The update statements: the same for every run (seeded ranges).
STATEMENTS="$WORK/updates.sql"
python3 - "$ROWS" "$UPDATES" "$BATCH" >"$STATEMENTS" <<'EOF'
import random, sys
rows, updates, batch = map(int, sys.argv[1:])
rng = random.Random(20)
for _ in range(max(1, updates // batch)):
    lo = rng.randrange(1, max(2, rows - batch))
    print(f"UPDATE up SET v = v + 1 WHERE k >= {lo} AND k < {lo + batch};")
EOF
STATEMENT_COUNT=$(wc -l <"$STATEMENTS")

sample_log() {  # writes "entries bytes" lines to $1 every 100 ms
  while true; do
    sql b -c "SELECT coalesce(sum(entries), 0) || ' ' || coalesce(sum(approximate_bytes), 0) FROM rw_catalog.rw_change_logs" \
      >>"$1" 2>/dev/null || true
    sleep 0.1
  done
}

declare -A RESULTS
run() {  # run VIEW MODE REPEAT
  local view="$1" mode="$2" db from
  if [[ "$mode" == same ]]; then db=b; from=up; else db=a; from=b.public.up; fi
  local query="${VIEW[$view]//@FROM@/$from}"
  local t
  t=$(now)
  sql "$db" -c "CREATE MATERIALIZED VIEW m AS $query"
  local backfill
  backfill=$(since "$t")
  local samples="$WORK/samples-$view-$mode-$3"
  : >"$samples"
  if [[ "$mode" == cross ]]; then sample_log "$samples" & SAMPLER=$!; fi
  t=$(now)
  sql b -f "$STATEMENTS" -c "FLUSH" >/dev/null
  [[ "$mode" == cross ]] && sql a -c "FLUSH"
  local elapsed
  elapsed=$(since "$t")
  if [[ -n "$SAMPLER" ]]; then kill "$SAMPLER" 2>/dev/null || true; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=""; fi
  local diff
  diff=$(sql "$db" -c "SELECT count(*) FROM ((SELECT * FROM m EXCEPT ALL ($query)) UNION ALL (($query) EXCEPT ALL SELECT * FROM m)) d")
  [[ "$diff" == 0 ]] || { echo "MISMATCH: view $view ($mode) differs from its query in $diff rows" >&2; exit 1; }
  local peak="-"
  if [[ "$mode" == cross ]]; then
    peak=$(awk 'BEGIN { e = 0; b = 0 } { if ($1 > e) e = $1; if ($2 > b) b = $2 } END { printf "%d entries, %.1f MiB", e, b / 1048576 }' "$samples")
  fi
  sql "$db" -c "DROP MATERIALIZED VIEW m"
  local rate
  rate=$(awk -v u="$((STATEMENT_COUNT * BATCH))" -v s="$elapsed" 'BEGIN { printf "%d", u / s }')
  printf "%-6s %-5s #%s: backfill %7.2f s; %d updates in %6.2f s = %8d updates/s; log peak %s\n" \
    "$view" "$mode" "$3" "$backfill" "$((STATEMENT_COUNT * BATCH))" "$elapsed" "$rate" "$peak"
  RESULTS[$view-$mode]+="$rate "
  RESULTS[$view-$mode-backfill]+="$backfill "
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for view in "${VIEWS[@]}"; do
  for r in $(seq 1 "$REPEATS"); do
    run "$view" same "$r"
    run "$view" cross "$r"
  done
done
echo
for view in "${VIEWS[@]}"; do
  same=$(echo "${RESULTS[$view-same]}" | median)
  cross=$(echo "${RESULTS[$view-cross]}" | median)
  same_b=$(echo "${RESULTS[$view-same-backfill]}" | median)
  cross_b=$(echo "${RESULTS[$view-cross-backfill]}" | median)
  echo "$view: median updates/s same $same, cross $cross: cross / same $(awk -v a="$cross" -v b="$same" 'BEGIN { printf "%.2f", a / b }') (target >= 0.7); backfill same $same_b s, cross $cross_b s"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
