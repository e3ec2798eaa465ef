#!/usr/bin/env bash
# Subscriptions (issue 20, item 6): every committed change of a table is
# fetched once, in epoch order, across the server's crashes and restarts.
# subscription_step.py writes random transactions into sub_t and keeps a
# replica of it from subscription sub_s's cursor (and one from sub_ms, on a
# materialized view holding the same rows) (FULL first, then SINCE
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
step() {  # step SUBSCRIPTION ROUND [--final]
  local out rc sub="$1"; shift
  out=$(timeout 300 /usr/bin/python3 "$HERE/subscription_step.py" "$PORT" "$WORK/state_$sub.json" "$SEED" "$@" \
    --subscription "$sub" 2>&1)
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
  -c "create subscription sub_s from sub_t with (retention = '1h')" \
  -c "create materialized view sub_m as select k, v from sub_t" \
  -c "create subscription sub_ms from sub_m with (retention = '1h')" >/dev/null
check "the subscription is created" test "$(q -c "select status from rw_catalog.rw_subscriptions where name = 'sub_s'")" = "Created"
for round in 1 2 3 4 5 6; do
  echo "== round $round"
  step sub_s "$round"
  step sub_ms "$round"
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
step sub_s 7 --final
step sub_ms 7 --final
check "the subscription still runs after the restarts" \
  test "$(q -c "select status from rw_catalog.rw_subscriptions where name = 'sub_s'")" = "Created"
check "its change log cannot be read as a table" \
  grep -q "read it with a subscription cursor" <<<"$(q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '%changelog%'")")"
check "DROP TABLE refuses while the subscription reads it" grep -q "subscription sub_s depends on table sub_t" <<<"$(q -c "drop table sub_t")"
q -c "drop subscription sub_s" -c "drop subscription sub_ms" >/dev/null
check "DROP SUBSCRIPTION drops its change log" test "$(q -c "select count(*) from rw_catalog.rw_change_logs")" = "0"
echo "== FETCH ... WITH (timeout): waits for a commit that brings changes"
q -c "create table wt (k int primary key)" -c "create subscription ws from wt with (retention = '1h')" >/dev/null
psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -c "declare wc subscription cursor for ws" \
  -c "fetch 10 from wc with (timeout = '60s')" >"$WORK/waited.out" 2>&1 &
waiter=$!
BG_PIDS+=("$waiter")
# The waiter has declared its cursor once the session shows its FETCH.
for _ in $(seq 1 600); do
  [[ "$(q -c "select count(*) from pg_stat_activity where query like 'fetch 10 from wc%'")" == "1" ]] && break
done
q -c "insert into wt values (7)" >/dev/null
wait "$waiter"
check "a waiting FETCH returns the change committed after it began ($(tr '\n' ' ' <"$WORK/waited.out"))" \
  grep -q "^7|Insert|" "$WORK/waited.out"
check "an idle FETCH returns nothing once its timeout passes" \
  test -z "$(q -c "declare wc2 subscription cursor for ws" -c "fetch 10 from wc2 with (timeout = '100ms')")"
check "a FETCH with a timeout from a plain cursor is refused" \
  grep -q "is for subscription cursors" <<<"$(q -c "begin" -c "declare pc cursor for select 1" -c "fetch 1 from pc with (timeout = '1s')")"
q -c "drop subscription ws" -c "drop table wt" >/dev/null

echo "== the change log stays within its retention under a steady workload, and goes with its subscription"
q -c "create table bt (k int primary key, v int)" -c "insert into bt select g, 0 from generate_series(1, 20) g" \
  -c "create subscription bs from bt with (retention = '1s')" >/dev/null
# Rounds of 40 log entries (20 updates: UpdateDelete + UpdateInsert) for
# 5 s. The log may hold the last retention (1 s) plus the writer's
# truncation cadence (1 s) plus a second's slack of rounds; without
# truncation it would hold all of them.
stamps=()
start=$(date +%s%3N)
worst=""
samples=0
while (( $(date +%s%3N) - start < 5000 )); do
  q -c "update bt set v = v + 1" -c "flush" >/dev/null
  now=$(date +%s%3N)
  stamps+=("$now")
  (( now - start < 3000 )) && continue
  entries=$(q -c "select entries from rw_catalog.rw_change_logs where consumer = 'bs'")
  recent=0
  for t in "${stamps[@]}"; do (( now - t <= 3000 )) && recent=$((recent + 1)); done
  samples=$((samples + 1))
  (( entries > 40 * (recent + 1) )) && worst="$entries entries with $recent rounds in the last 3 s"
done
total=$(( ${#stamps[@]} * 40 ))
entries=$(q -c "select entries from rw_catalog.rw_change_logs where consumer = 'bs'")
echo "   ${#stamps[@]} rounds ($total entries written); the log holds $entries at the end"
check "the log never held more than the last 3 s of changes ($samples samples${worst:+; $worst})" test -z "$worst"
check "the log holds fewer entries than were written ($entries < $total)" test "$entries" -lt "$total"
q -c "drop subscription bs" >/dev/null
check "the log goes with its subscription" test "$(q -c "select count(*) from rw_catalog.rw_change_logs")" = "0"
check "the server is still running" ready "$PORT"
stop_server
finish
