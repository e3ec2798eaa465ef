#!/usr/bin/env bash
# pgbench's own workloads (issue 18), Freshet against PostgreSQL 15 in the
# same run, both servers up at once and the runs interleaved (PostgreSQL,
# then Freshet, per workload) so that the shared machine's noise falls on
# both alike. `pgbench -i -s SCALE` on each, then for DURATION seconds each:
#   tpcb-4   TPC-B-like, 4 clients, -M prepared
#   tpcb-16  TPC-B-like, 16 clients, -M prepared
#   select-4 -S (a primary-key SELECT), 4 clients, -M prepared
# Prints transactions/s, the latency distribution (mean, p50, p90, p99 from
# pgbench's per-transaction log) and the ratio to PostgreSQL.
#
#   bench/pgbench/run.sh [--scale N] [--duration S] [--binary PATH] [--workloads "select-4 ..."]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/freshet"
SCALE=1
DURATION=30
WORKLOADS="tpcb-4 tpcb-16 select-4"
while [[ $# -gt 0 ]]; do
  case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
BENCH_NAME=pgbench
source "$ROOT/bench/pg_peer.sh"

start_postgres
FR_PORT=$(free_port)
"$BIN" --data-dir "$WORK/fr" --port "$FR_PORT" --http-port 0 --listen-address 127.0.0.1 >"$WORK/fr.log" 2>&1 &
FR_PID=$!
for _ in $(seq 1 100); do pg_isready -q -h 127.0.0.1 -p "$FR_PORT" && break; sleep 0.1; done

declare -A PORT=([postgres]=$PG_PORT [freshet]=$FR_PORT)
declare -A USER_=([postgres]=postgres [freshet]=root)
declare -A DB=([postgres]=postgres [freshet]=dev)
pgb() {  # pgb SYSTEM ARGS...: pgbench in its own directory (its logs go there)
  local sys=$1; shift
  mkdir -p "$WORK/run"
  (cd "$WORK/run" && "$PG_BIN/pgbench" -h 127.0.0.1 -p "${PORT[$sys]}" -U "${USER_[$sys]}" "$@" "${DB[$sys]}")
}
for sys in postgres freshet; do pgb "$sys" -i -q -s "$SCALE" >/dev/null 2>&1; done

declare -A RESULT
run() {  # run SYSTEM WORKLOAD CLIENTS [pgbench options] -> RESULT[SYSTEM.WORKLOAD]
  local sys=$1 name=$2 clients=$3; shift 3
  rm -rf "$WORK/run"
  local out
  out=$(pgb "$sys" -M prepared -c "$clients" -j 2 -T "$DURATION" -l "$@" 2>&1) || {
    echo "pgbench failed for $sys $name:" >&2; echo "$out" >&2; exit 1; }
  local tps failed
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")
  # Per-transaction log lines: client, transaction, latency (us), ...
  RESULT[$sys.$name]="$tps ${failed:-0} $(cat "$WORK"/run/pgbench_log.* | awk '{ print $3 / 1000 }' | sort -n | awk '
    { v[NR] = $1; s += $1 }
    END { printf "%.2f %.2f %.2f %.2f", s / NR, v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1], v[int(NR * 0.99) + 1] }')"
}
for w in $WORKLOADS; do
  case $w in
    tpcb-4) for sys in postgres freshet; do run "$sys" tpcb-4 4; done ;;
    tpcb-16) for sys in postgres freshet; do run "$sys" tpcb-16 16; done ;;
    select-4) for sys in postgres freshet; do run "$sys" select-4 4 -S; done ;;
    *) echo "unknown workload $w"; exit 2 ;;
  esac
done

echo "pgbench -s $SCALE, ${DURATION}s each, -M prepared; latencies in ms"
printf '%-9s %-9s %10s %7s %7s %7s %7s %7s %7s\n' workload system tps failed mean p50 p90 p99 "vs pg"
for w in $WORKLOADS; do
  read -r pg_tps _ <<<"${RESULT[postgres.$w]}"
  for sys in postgres freshet; do
    read -r tps failed mean p50 p90 p99 <<<"${RESULT[$sys.$w]}"
    printf '%-9s %-9s %10.0f %7s %7s %7s %7s %7s %6.2fx\n' "$w" "$sys" "$tps" "$failed" "$mean" "$p50" "$p90" "$p99" \
      "$(awk -v a="$tps" -v b="$pg_tps" 'BEGIN { print a / b }')"
  done
done
