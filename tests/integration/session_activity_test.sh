#!/usr/bin/env bash
# pg_stat_activity, pg_cancel_backend, pg_terminate_backend and pg_sleep,
# with real psql sessions:
#
#   tests/integration/session_activity_test.sh [path/to/freshet]
#
# 1) another session shows with its database, role, application_name,
#    client address, state (idle in transaction) and last statement;
# 2) pg_cancel_backend ends its running statement (pg_sleep) with 57014
#    and leaves the session usable; an unknown pid gives false;
# 3) pg_terminate_backend ends it with PostgreSQL's FATAL 57P01, and it
#    leaves pg_stat_activity;
# 4) a role that is not a superuser cannot signal a superuser's session
#    (42501) and sees its statements as <insufficient privilege>.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=session_activity_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev "$@" 2>&1; }

# Waits (bounded, ~60 s) until the session shows `state` in pg_stat_activity.
wait_state() {
  for _ in $(seq 1 600); do
    [[ "$(q -c "select state from pg_stat_activity where pid = $1")" == "$2" ]] && return 0
    sleep 0.1
  done
  return 1
}

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }

echo "== 1) another session in pg_stat_activity"
PGAPPNAME=activity_test open_session
send "BEGIN;" "SELECT pg_backend_pid();" '\echo READY'
check "the session started" wait_for READY
PID=$(tail -n 1 "$WORK/session.out")
row=$(q -c "select datname, usename, application_name, client_addr, state, query, xact_start is not null, backend_type from pg_stat_activity where pid = $PID")
check "its row: database, role, application, address, state, statement" \
  test "$row" = "dev|root|activity_test|127.0.0.1|idle in transaction|SELECT pg_backend_pid();|t|client backend"
check "the reader's own row is active" test "$(q -c "select state from pg_stat_activity where pid = pg_backend_pid()")" = active
check "two sessions listed" test "$(q -c "select count(*) from pg_stat_activity")" = 2

echo "== 2) pg_cancel_backend"
check "an unknown pid: false" test "$(q -c "select pg_cancel_backend(999999)" | tail -n 1)" = f
send "ROLLBACK;" "SELECT pg_sleep(60);" '\echo SLEPT'
check "the session is running pg_sleep" wait_state "$PID" active
check "pg_cancel_backend returns true" test "$(q -c "select pg_cancel_backend($PID)")" = t
check "its statement was cancelled" wait_for SLEPT
check "with 57014's message" grep -q "canceling statement due to user request" "$WORK/session.out"
send "SELECT 41 + 1;" '\echo AGAIN'
check "the session goes on" wait_for AGAIN
check "and answers" grep -qx 42 "$WORK/session.out"

echo "== 3) pg_terminate_backend"
check "pg_terminate_backend returns true" test "$(q -c "select pg_terminate_backend($PID)")" = t
send "SELECT 1;" '\echo AFTER'
wait_for AFTER >/dev/null
check "the session got PostgreSQL's FATAL" grep -q "terminating connection due to administrator command" "$WORK/session.out"
gone=1
for _ in $(seq 1 600); do
  [[ "$(q -c "select count(*) from pg_stat_activity where pid = $PID")" == 0 ]] && { gone=0; break; }
  sleep 0.1
done
check "it left pg_stat_activity" test $gone -eq 0
close_session

echo "== 4) a role that is not a superuser"
q -c "create user bob" >/dev/null
open_session
send "SELECT pg_backend_pid();" '\echo READY'
check "a superuser's session" wait_for READY
ROOT_PID=$(tail -n 1 "$WORK/session.out")
bob() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bob -d dev "$@" 2>&1; }
check "bob cannot cancel it" grep -q "must be a superuser to cancel superuser query" <<<"$(bob -c "select pg_cancel_backend($ROOT_PID)")"
check "nor terminate it" grep -q "must be a superuser to terminate superuser process" <<<"$(bob -c "select pg_terminate_backend($ROOT_PID)")"
check "bob sees its statement as <insufficient privilege>" \
  test "$(bob -c "select query from pg_stat_activity where pid = $ROOT_PID")" = "<insufficient privilege>"
check "bob may cancel his own session" test "$(bob -c "select pg_cancel_backend(pg_backend_pid())")" = t
close_session

finish
