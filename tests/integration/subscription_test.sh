#!/usr/bin/env bash
# Subscriptions (issue 20, item 6): every committed change of a table is
# fetched once, in epoch order, across the server's crashes and restarts.
# subscription_step.py writes random transactions into sub_t and keeps a
# replica of it from subscription sub_s's cursor (FULL first, then SINCE
# the rw_timestamp of the last epoch it applied whole); between its steps
# the server is killed (-9, right after acknowledged writes that no FLUSH
# committed: the DML log replays them) or stopped; at the end the replica
# equals the table.
#
#   tests/integration/subscription_test.sh [path/to/freshet]
#
# SUB_SEED (default 1). Prints "N passed, M failed" last.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=subscription_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"
SEED="${SUB_SEED:-1}"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
step() {  # step ROUND [--final]
  local out rc
  out=$(timeout 300 /usr/bin/python3 "$HERE/subscription_step.py" "$PORT" "$WORK/state.json" "$SEED" "$@" 2>&1)
  rc=$?
  echo "$out" | grep -v '^[0-9]* passed' 
  local line
  line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
  if [[ -n "$line" ]]; then
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
  else
    fail "step $1 ended without a summary (exit $rc)"
  fi
}

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }
q -c "create table sub_t (k int primary key, v int)" \
  -c "insert into sub_t select g, g from generate_series(1, 30) g" \
  -c "create subscription sub_s from sub_t with (retention = '1h')" >/dev/null
check "the subscription is created" test "$(q -c "select status from rw_catalog.rw_subscriptions where name = 'sub_s'")" = "Created"
for round in 1 2 3 4 5 6; do
  echo "== round $round"
  step "$round"
  kill_rounds=" ${SUB_KILL_ROUNDS-2 4} "
  if [[ "$kill_rounds" == *" $round "* ]]; then
      echo "   kill -9 and restart"
      kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
      start_server "$WORK/data" "$WORK/server.log" || { fail "restart after kill -9"; finish; }
  fi
  if [[ " ${SUB_STOP_ROUNDS-5} " == *" $round "* ]]; then
      echo "   stop and restart"
      stop_server
      start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
  fi
done
echo "== final: read everything, compare with the table"
step 7 --final
check "the subscription still runs after the restarts" \
  test "$(q -c "select status from rw_catalog.rw_subscriptions where name = 'sub_s'")" = "Created"
check "its change log cannot be read as a table" \
  grep -q "read it with a subscription cursor" <<<"$(q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '%changelog%'")")"
check "DROP TABLE refuses while the subscription reads it" grep -q "subscription sub_s depends on table sub_t" <<<"$(q -c "drop table sub_t")"
q -c "drop subscription sub_s" >/dev/null
check "DROP SUBSCRIPTION drops its change log" test "$(q -c "select count(*) from rw_catalog.rw_internal_tables")" = "0"
check "the server is still running" ready "$PORT"
stop_server
finish
