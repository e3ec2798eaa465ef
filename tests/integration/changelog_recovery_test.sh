#!/usr/bin/env bash
# Change-log views (WITH c AS CHANGELOG FROM t) through kill -9 and a clean
# restart (issue 19, item 5): every committed change is in the view exactly
# once, with its op, and row ids never repeat (a restarted actor goes on
# from its committed counter; a repeated id would overwrite a row).
#
#   tests/integration/changelog_recovery_test.sh [path/to/freshet]
#
# Each write goes with the changelog rows it must make into a table of
# expected rows, in one transaction; the view must equal that table.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=changelog_recovery_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
K=0
# A round: inserts of new keys, updates of some, deletes of others, each in
# a transaction with its expected changelog rows.
round() {
  local i
  for i in $(seq 1 20); do
    K=$((K + 1))
    q -c "begin" -c "insert into t values ($K, $K)" -c "insert into expected values ($K, $K, 1)" -c "commit" >/dev/null
    if ((K % 3 == 0)); then
      q -c "begin" -c "update t set v = v + 1000 where k = $((K - 1))" \
        -c "insert into expected values ($((K - 1)), $((K - 1)), 4), ($((K - 1)), $((K + 999)), 3)" -c "commit" >/dev/null
    fi
    if ((K % 5 == 0)); then
      q -c "begin" -c "insert into expected select k, v, 2 from t where k = $((K - 2))" \
        -c "delete from t where k = $((K - 2))" -c "commit" >/dev/null
    fi
  done
}
check_view() {  # check_view <when>
  check "$1: the changelog view holds each committed change once" same log "select * from expected"
  check "$1: its row ids are distinct" \
    test "$(q -c "select count(distinct _changelog_row_id) = count(*) from log_ids")" = t
}

echo "== 1) rounds of writes"
start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
q -c "create table t (k int primary key, v int)" -c "create table expected (k int, v int, op smallint)" \
  -c "set streaming_parallelism = 2" \
  -c "create materialized view log as with c as changelog from t select k, v, changelog_op from c" \
  -c "create materialized view log_ids as with c as changelog from t select k, _changelog_row_id from c" >/dev/null
round
q -c flush >/dev/null
check_view "after a round"

echo "== 2) kill -9 after unflushed writes"
round
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c flush >/dev/null
check_view "after kill -9"
round
q -c flush >/dev/null
check_view "a round after kill -9"
no_failure "after kill -9"

echo "== 3) clean restart"
stop_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart"; finish; }
round
q -c flush >/dev/null
check_view "after a clean restart"
no_failure "after a clean restart"
stop_server
finish
