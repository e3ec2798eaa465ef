#!/usr/bin/env bash
# pgbench's own workloads (issue 18), Freshet against PostgreSQL 15 in the
# same run, both servers up at once (each in a session of its own, see
# bench/pg_peer.sh) and the runs interleaved (PostgreSQL, then Freshet, per
# workload and repeat) so that the shared machine's noise falls on both
# alike. `pgbench -i -s SCALE` on each, then for DURATION seconds each:
#   tpcb-4          TPC-B-like, 4 clients, -M prepared
#   tpcb-16         TPC-B-like, 16 clients, -M prepared
#   select-4        -S (a primary-key SELECT), 4 clients, -M prepared
#   select-4-pinned the same with the server on CPU 0 and pgbench on CPU 1
# On two cores pgbench and the server share the CPUs, and a point SELECT is
# a few microseconds of work on either side: the throughput of select-4
# then depends on where the scheduler happens to place the six threads
# (a run whose wakeups cross CPUs pays a reschedule interrupt to an idle
# CPU for each, and loses 10-20%). select-4-pinned takes the placement out
# and measures the server's cost per query, system calls and wakeups
# included.
# Prints the median transactions/s over the repeats, the latency
# distribution (mean, p50, p90, p99 from pgbench's per-transaction logs of
# all repeats), the ratio of the medians to PostgreSQL's and each repeat's
# ratio.
#
#   bench/pgbench/run.sh [--scale N] [--duration S] [--repeat N] [--binary PATH] [--workloads "select-4 ..."]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/freshet"
SCALE=1
DURATION=30
REPEAT=1
WORKLOADS="tpcb-4 tpcb-16 select-4 select-4-pinned"
while [[ $# -gt 0 ]]; do
  case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
BENCH_NAME=pgbench
source "$ROOT/bench/pg_peer.sh"

start_postgres
FR_PORT=$(free_port)
start_freshet "$BIN" "$FR_PORT"
PG_PID=$(head -n 1 "$WORK/pg/postmaster.pid")
ALL_CPUS="0-$(($(nproc) - 1))"

declare -A PORT=([postgres]=$PG_PORT [freshet]=$FR_PORT)
declare -A USER_=([postgres]=postgres [freshet]=root)
declare -A DB=([postgres]=postgres [freshet]=dev)
declare -A SERVER_PID=([postgres]=$PG_PID [freshet]=$FR_PID)
pgb() {  # pgb SYSTEM ARGS...: pgbench in its own directory (its logs go there)
  local sys=$1; shift
  mkdir -p "$WORK/run"
  (cd "$WORK/run" && "$PG_BIN/pgbench" -h 127.0.0.1 -p "${PORT[$sys]}" -U "${USER_[$sys]}" "$@" "${DB[$sys]}")
}
for sys in postgres freshet; do pgb "$sys" -i -q -s "$SCALE" >/dev/null 2>&1; done

# pin SYSTEM CPUS: the server's threads (Freshet) or PostgreSQL's postmaster
# and its background processes (backends are forked per connection and
# inherit the postmaster's) on CPUS.
pin() {
  local pid
  for pid in "${SERVER_PID[$1]}" $(pgrep -P "${SERVER_PID[$1]}"); do taskset -a -p -c "$2" "$pid" >/dev/null || true; done
}

declare -A TPS FAILED
mkdir -p "$WORK/logs"
run() {  # run SYSTEM WORKLOAD REPEAT CLIENTS [pgbench options]: appends to TPS[SYSTEM.WORKLOAD]
  local sys=$1 name=$2 rep=$3 clients=$4; shift 4
  local client_cpus=()
  if [[ $name == *-pinned ]]; then
    pin "$sys" 0
    client_cpus=(taskset -c 1)
  fi
  rm -rf "$WORK/run"
  local out
  out=$(mkdir -p "$WORK/run"; cd "$WORK/run" &&
        "${client_cpus[@]}" "$PG_BIN/pgbench" -h 127.0.0.1 -p "${PORT[$sys]}" -U "${USER_[$sys]}" \
          -M prepared -c "$clients" -j 2 -T "$DURATION" -l "$@" "${DB[$sys]}" 2>&1) || {
    echo "pgbench failed for $sys $name:" >&2; echo "$out" >&2; exit 1; }
  [[ $name == *-pinned ]] && pin "$sys" "$ALL_CPUS"
  TPS[$sys.$name]+="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out") "
  FAILED[$sys.$name]=$(( ${FAILED[$sys.$name]:-0} + $(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out" | grep . || echo 0) ))
  # Per-transaction log lines: client, transaction, latency (us), ...
  cat "$WORK"/run/pgbench_log.* | awk '{ print $3 / 1000 }' >>"$WORK/logs/$sys.$name"
}
for rep in $(seq 1 "$REPEAT"); do
  for w in $WORKLOADS; do
    case $w in
      tpcb-4) for sys in postgres freshet; do run "$sys" "$w" "$rep" 4; done ;;
      tpcb-16) for sys in postgres freshet; do run "$sys" "$w" "$rep" 16; done ;;
      select-4|select-4-pinned) for sys in postgres freshet; do run "$sys" "$w" "$rep" 4 -S; done ;;
      *) echo "unknown workload $w"; exit 2 ;;
    esac
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
latencies() {  # latencies FILE -> mean p50 p90 p99
  sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
    END { printf "%.2f %.2f %.2f %.2f\n", s / NR, v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1], v[int(NR * 0.99) + 1] }'
}
echo "pgbench -s $SCALE, ${DURATION}s each, $REPEAT repeat(s), -M prepared; median tps, latencies in ms"
printf '%-16s %-9s %10s %7s %7s %7s %7s %7s %7s  %s\n' workload system tps failed mean p50 p90 p99 "vs pg" "each repeat vs pg"
for w in $WORKLOADS; do
  pg_tps=$(median <<<"${TPS[postgres.$w]}")
  for sys in postgres freshet; do
    tps=$(median <<<"${TPS[$sys.$w]}")
    read -r mean p50 p90 p99 < <(latencies "$WORK/logs/$sys.$w")
    ratios=$(paste -d' ' <(tr ' ' '\n' <<<"${TPS[$sys.$w]}" | grep .) <(tr ' ' '\n' <<<"${TPS[postgres.$w]}" | grep .) |
             awk '{ printf "%.2f ", $1 / $2 }')
    printf '%-16s %-9s %10.0f %7s %7s %7s %7s %7s %6.2fx  %s\n' "$w" "$sys" "$tps" "${FAILED[$sys.$w]}" "$mean" "$p50" "$p90" "$p99" \
      "$(awk -v a="$tps" -v b="$pg_tps" 'BEGIN { print a / b }')" "$ratios"
  done
done
