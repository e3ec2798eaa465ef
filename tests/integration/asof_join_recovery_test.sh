#!/usr/bin/env bash
# ASOF [LEFT] JOIN views through kill -9 and a clean restart (issue 19,
# item 5): the join keeps both sides' rows by key and compared value in its
# state tables and loads a key's rows at its first use after a start; each
# view must equal its query run in batch (checked against PostgreSQL's
# LATERAL answers by tests/slt/stream_asof_join.slt) after every round of
# writes to both sides.
#
#   tests/integration/asof_join_recovery_test.sh [path/to/freshet]
#
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=asof_join_recovery_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
GE_Q="select l.id, r.id as rid, r.p from l asof join r on l.k = r.k and l.t >= r.t"
LT_Q="select l.id, r.id as rid, r.p from l asof left join r on l.k = r.k and l.t < r.t"
RES_Q="select l.id, r.id as rid, r.p from l asof left join r on l.k = r.k and l.t >= r.t and l.v <> r.p % 10"
ROUND=0
round() {  # writes to both sides; right (k, t) pairs never repeat (ids keep them apart)
  ROUND=$((ROUND + 1))
  local base=$((ROUND * 100))
  q -c "insert into r select $base + g, g % 5, ($base + g * 7) % 997, (g * 13 + $ROUND) % 50 from generate_series(1, 30) g" \
    -c "insert into l select $base + g, g % 6, (g * 31 + $ROUND * 11) % 1000, g % 10 from generate_series(1, 40) g" \
    -c "update r set t = (t + 500 + $ROUND) % 997 + 1000 * $ROUND, p = p + 1 where id % 7 = $((ROUND % 7))" \
    -c "delete from r where id % 11 = $((ROUND % 11))" \
    -c "update l set t = t + 3 where id % 5 = $((ROUND % 5))" \
    -c "delete from l where id % 13 = $((ROUND % 13))" >/dev/null
}
all_same() {
  check "$1: ASOF JOIN (>=) equals its batch query" same v_ge "$GE_Q"
  check "$1: ASOF LEFT JOIN (<) equals its batch query" same v_lt "$LT_Q"
  check "$1: ASOF LEFT JOIN with a residual condition equals its batch query" same v_res "$RES_Q"
}

echo "== 1) rounds of writes"
start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
q -c "create table l (id int primary key, k int, t int, v int)" -c "create table r (id int primary key, k int, t int, p int)" >/dev/null
round
q -c "set streaming_parallelism = 2" -c "create materialized view v_ge as $GE_Q" \
  -c "create materialized view v_lt as $LT_Q" -c "create materialized view v_res as $RES_Q" >/dev/null
round; round
q -c flush >/dev/null
all_same "after 3 rounds"

echo "== 2) kill -9 after unflushed writes"
round
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c flush >/dev/null
all_same "after kill -9"
round; round
q -c flush >/dev/null
all_same "two rounds after kill -9"
no_failure "after kill -9"

echo "== 3) clean restart"
stop_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart"; finish; }
round
q -c flush >/dev/null
all_same "after a clean restart"
no_failure "after a clean restart"
stop_server
finish
