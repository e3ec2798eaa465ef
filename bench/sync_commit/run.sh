#!/usr/bin/env bash
# Single-row INSERT latency and throughput with synchronous_commit = on
# (issue 16, item 9), Freshet against PostgreSQL 15 in its default
# configuration (fsync on, synchronous_commit on), in the same run, with
# pgbench: 1, 4 and 16 clients, each sending `INSERT INTO t VALUES (...)`
# (simple protocol, one statement a transaction) for DURATION seconds.
# Prints per configuration: transactions/s, latency p50 and p99 (from
# pgbench's per-transaction log), and the ratio of throughputs.
#
#   bench/sync_commit/run.sh [--duration S] [--clients "1 4 16"] [--binary PATH]
#
# Target (issue 16): Freshet's throughput at 16 clients >= PostgreSQL's;
# p99 < 10 ms. Both servers use data directories under one temp dir on the
# same disk.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/freshet"
DURATION=10
CLIENTS="1 4 16"
while [[ $# -gt 0 ]]; do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
BENCH_NAME=sync-commit
source "$ROOT/bench/pg_peer.sh"

# PostgreSQL 15, initdb's defaults.
start_postgres -c max_connections=100
# Freshet.
FR_PORT=$(free_port)
start_freshet "$BIN" "$FR_PORT"

printf '\\set id random(1, 1000000000)\nINSERT INTO t VALUES (:id, 1);\n' >"$WORK/insert.sql"
run() {  # run NAME PORT USER DB CLIENTS
  local name=$1 port=$2 user=$3 db=$4 c=$5 dir="$WORK/log.$1.$5"
  psql -X -q -h 127.0.0.1 -p "$port" -U "$user" -d "$db" -c "drop table if exists t" -c "create table t (id bigint, v int)" >/dev/null
  mkdir -p "$dir"
  (cd "$dir" && "$PG_BIN/pgbench" -n -M simple -h 127.0.0.1 -p "$port" -U "$user" -c "$c" -j "$c" -T "$DURATION" \
     -f "$WORK/insert.sql" -l "$db" >"$dir/out" 2>&1)
  local tps p50 p99
  tps=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$dir/out" | head -n 1)
  # pgbench's log: client transaction latency_us script epoch epoch_us
  read -r p50 p99 < <(cat "$dir"/pgbench_log.* | awk '{print $3}' | sort -n |
    awk '{a[NR]=$1} END {printf "%.2f %.2f\n", a[int(NR*0.5)]/1000, a[int(NR*0.99)]/1000}')
  echo "$name $c $tps $p50 $p99"
}
echo "system clients tps p50_ms p99_ms"
for c in $CLIENTS; do
  fr=$(run freshet "$FR_PORT" root dev "$c")
  pg=$(run postgres "$PG_PORT" postgres postgres "$c")
  echo "$fr"; echo "$pg"
  echo "ratio $c $(awk -v a="$(echo "$fr" | cut -d' ' -f3)" -v b="$(echo "$pg" | cut -d' ' -f3)" 'BEGIN {printf "%.2f", a / b}') (Freshet / PostgreSQL throughput)"
done
echo "rows: freshet $(psql -X -At -h 127.0.0.1 -p "$FR_PORT" -U root -d dev -c 'flush' -c 'select count(*) from t' | tail -n 1)"
