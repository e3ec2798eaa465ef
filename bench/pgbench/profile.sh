#!/usr/bin/env bash
# Where a point SELECT's server time goes: pgbench -S -M prepared against
# Freshet under callgrind (instrumentation on for the measured part only).
# `pgbench -i -s 1` on a plain server, then the server is restarted under
# valgrind, WARMUP transactions run uninstrumented and MEASURED ones
# instrumented; prints the total and the file to read with
# callgrind_annotate (--inclusive=yes, --tree=calling). About 2 minutes.
#
#   bench/pgbench/profile.sh [--warmup N] [--measured N] [--binary PATH] [--out FILE]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/freshet"
WARMUP=5000
MEASURED=3000
OUT=/tmp/freshet-pgbench-S.callgrind
while [[ $# -gt 0 ]]; do
  case $1 in
    --warmup) WARMUP=$2; shift 2 ;;
    --measured) MEASURED=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
PG_BIN=/usr/lib/postgresql/15/bin
WORK=$(mktemp -d /tmp/bench-profile.XXXXXX)
PID=""
cleanup() { [[ -n "$PID" ]] && kill -9 "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
wait_ready() { for _ in $(seq 1 300); do pg_isready -q -h 127.0.0.1 -p "$PORT" && return; sleep 0.2; done; echo "server did not start"; exit 1; }
pgb() { (cd "$WORK" && "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U root "$@" dev); }

"$BIN" --data-dir "$WORK/data" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 >"$WORK/log" 2>&1 &
PID=$!
wait_ready
pgb -i -q -s 1 >/dev/null 2>&1
kill "$PID"; wait "$PID" 2>/dev/null || true
rm -f "$OUT" "$OUT".*
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT" \
  "$BIN" --data-dir "$WORK/data" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 >"$WORK/log" 2>&1 &
PID=$!
wait_ready
pgb -M prepared -S -c 1 -t "$WARMUP" >/dev/null 2>&1
callgrind_control -i on "$PID" >/dev/null
pgb -M prepared -S -c 1 -t "$MEASURED" 2>&1 | grep '^tps'
callgrind_control -i off "$PID" >/dev/null
callgrind_control -d "$PID" >/dev/null
sleep 1
FILE=$(ls -t "$OUT".* | head -1)
TOTAL=$(callgrind_annotate "$FILE" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
echo "instructions in the server: $TOTAL for $MEASURED transactions (the connection's own setup included)"
echo "profile: $FILE"
