#!/usr/bin/env bash
# Sequences across kill -9 (meta/sequences.h): a value nextval handed out
# is never handed out again after a crash, setval and ALTER SEQUENCE
# RESTART survive one, and a serial column keeps giving new keys. Several
# sessions draw from one sequence at once; every value is distinct.
#
#   tests/integration/sequence_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
NAME=sequence_test
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@"; }
restart_after_kill() {
  kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  start_server "$WORK/data" "$WORK/server.log" || { fail "restart after kill -9"; finish; }
}

if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== values drawn by 4 sessions at once, then kill -9"
q -c "create sequence s" -c "create sequence r start 100" -c "create table t (id serial primary key, v int)"
pids=()
for i in 1 2 3 4; do
  q -c "select nextval('s') from generate_series(1, 250)" >"$WORK/drawn.$i" &
  pids+=($!)
done
wait "${pids[@]}"
check "1,000 values, all distinct" test "$(cat "$WORK"/drawn.* | sort -n | uniq | wc -l)" = "1000"
max=$(cat "$WORK"/drawn.* | sort -n | tail -n 1)
q -c "insert into t (v) select g from generate_series(1, 40) g"
q -c "select setval('r', 500)" >/dev/null
restart_after_kill
after=$(q -c "select nextval('s')")
check "after kill -9 nextval continues past every value handed out ($max < $after)" test "$after" -gt "$max"
check "setval survives kill -9" test "$(q -c "select nextval('r')")" = "501"
q -c "insert into t (v) select g from generate_series(41, 80) g"
check "serial keys stay unique across the crash" test "$(q -c 'select count(distinct id) from t')" = "80"
check "the serial column's sequence is listed" test "$(q -c "select pg_get_serial_sequence('t', 'id')")" = "public.t_id_seq"

echo "== ALTER SEQUENCE RESTART, then kill -9 at once"
q -c "alter sequence s restart with 7"
restart_after_kill
check "RESTART survives kill -9" test "$(q -c "select nextval('s')")" = "7"
check "the next value follows" test "$(q -c "select nextval('s')")" = "8"

echo "== DROP TABLE drops its serial sequence, durably"
q -c "drop table t"
restart_after_kill
check "the sequence is gone after restart" test "$(q -c "select count(*) from pg_class where relname = 't_id_seq'")" = "0"

if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died"; fi
kill -TERM "$SERVER_PID"
if wait "$SERVER_PID"; then ok "clean shutdown on SIGTERM"; else fail "shutdown exit status $?"; fi
SERVER_PID=""
finish
