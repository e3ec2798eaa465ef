#!/usr/bin/env bash
# Watermarks and EMIT ON WINDOW CLOSE through restarts and kill -9 (issue
# 19, item 4). A table's watermark is not stored as such: after a restart
# the first write finds it again from the rows the table kept; an EMIT ON
# WINDOW CLOSE aggregation keeps its open windows in its state table and
# loads them all at start.
#
#   tests/integration/watermark_recovery_test.sh [path/to/freshet]
#
# 1) rounds of inserts (some late) into two tables with watermarks; the
#    views (windows of one table, of the union of both) hold exactly the
#    windows their watermark closed, as the batch engine computes them;
# 2) kill -9 right after unflushed inserts, restart: a row late by the
#    watermark of before the crash is still dropped, windows still exact;
# 3) a clean restart: the same.
# Throughout, an interval join equals its query while its state holds only
# the rows within the interval of the other side's watermark.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=watermark_recovery_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
TEN="interval '10 seconds'"
ONE_Q="select window_start, count(*) as n, sum(v) as s, max(v) as hi from tumble(a, ts, $TEN) group by window_start"
BOTH_Q="select window_start, count(*) as n, sum(v) as s from (select window_start, v from tumble(a, ts, $TEN) union all select window_start, v from tumble(b, ts, $TEN)) u group by window_start"
OVER_Q="select ts, v, lag(v) over w as prev, count(*) over w as n, sum(v) over (partition by v % 3 order by ts rows between 3 preceding and current row) as s from a window w as (partition by v % 3 order by ts)"
TOP_Q="select * from (select window_start, ts, v, row_number() over (partition by window_start order by v desc, ts) as rn from tumble(a, ts, $TEN)) q where rn <= 3"
JOIN_Q="select a.ts, b.ts as bts, a.v, b.v as bv from a join b on a.v = b.v and a.ts between b.ts - interval '20 seconds' and b.ts + interval '20 seconds'"
WM_A="(select max(ts) from a) - interval '5 seconds'"
WM_B="(select max(ts) from b) - interval '5 seconds'"
WM_BOTH="case when $WM_A < $WM_B then $WM_A else $WM_B end"
all_same() {  # all_same <when>
  check "$1: the windows of a equal the closed windows of their query" \
    same one "select * from ($ONE_Q) q where window_start < tumble_start($WM_A, $TEN)"
  check "$1: the windows of a and b equal the closed windows of their query" \
    same ab "select * from ($BOTH_Q) q where window_start < tumble_start($WM_BOTH, $TEN)"
  check "$1: some windows are closed" test "$(q -c "select count(*) > 2 from one")" = t
  check "$1: the rows of a with window functions equal those of their query the watermark passed" \
    same ov "select * from ($OVER_Q) q where ts < $WM_A"
  check "$1: the top rows of each window of a equal those of their query's closed windows" \
    same tn "select * from ($TOP_Q) q where window_start < tumble_start($WM_A, $TEN)"
  check "$1: the windows of a emitted on update equal their query" same upd "$ONE_Q"
  local windows
  windows=$(q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '__internal_upd_aggresult%'")")
  check "$1: that aggregation keeps the state of $windows open windows, not all $(q -c "select count(*) from upd")" \
    test "$windows" -le 3
  check "$1: the interval join equals its query" same ij "$JOIN_Q"
  # Its state: the rows within the interval of the other side's watermark
  # (about 25 s of rows: ~13 of a, ~3 of b), not every row written.
  local left right
  left=$(q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '__internal_ij_joinleft%'")")
  right=$(q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '__internal_ij_joinright%'")")
  check "$1: the interval join keeps $left + $right rows of state, not all $(q -c "select (select count(*) from a) + (select count(*) from b)")" \
    test "$((left + right))" -lt 40
}
T=0  # seconds after 2024-01-01 of the latest row written
write_round() {  # write_round: rows of a and b, each round ~40 s later, some late
  local rows="" i
  for i in $(seq 1 20); do
    T=$((T + 2))
    rows+="${rows:+, }('2024-01-01'::timestamp + interval '$T seconds' - interval '$(((i * 7) % 13)) seconds', $((i % 9)))"
  done
  q -c "insert into a values $rows" \
    -c "insert into b values ('2024-01-01'::timestamp + interval '$((T - 6)) seconds', 1), ('2024-01-01'::timestamp + interval '$((T - 30)) seconds', 2)" >/dev/null
}

echo "== 1) rounds of inserts"
start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
q -c "create table a (ts timestamp, v int, watermark for ts as ts - interval '5 seconds') append only" \
  -c "create table b (ts timestamp, v int, watermark for ts as ts - interval '5 seconds') append only" \
  -c "set streaming_parallelism = 2" \
  -c "create materialized view one as $ONE_Q emit on window close" \
  -c "create materialized view ab as $BOTH_Q emit on window close" \
  -c "create materialized view ij as $JOIN_Q" \
  -c "create materialized view ov as $OVER_Q emit on window close" \
  -c "create materialized view tn as $TOP_Q emit on window close" \
  -c "create materialized view upd as $ONE_Q" >/dev/null
for _ in 1 2 3; do write_round; q -c flush >/dev/null; done
all_same "after 3 rounds"

echo "== 2) kill -9 after unflushed writes"
write_round
BEFORE=$(q -c "select count(*) from a")
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c "insert into a values ('2024-01-01'::timestamp + interval '$((T - 30)) seconds', 100)" -c flush >/dev/null
check "a row late by the watermark of before the crash is dropped" \
  test "$(q -c "select count(*) from a where v = 100")" = 0
check "the table kept every acknowledged row ($BEFORE)" test "$(q -c "select count(*) from a")" = "$BEFORE"
for _ in 1 2; do write_round; q -c flush >/dev/null; done
all_same "after kill -9"
no_failure "after kill -9"

echo "== 3) clean restart"
stop_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart"; finish; }
for _ in 1 2; do write_round; q -c flush >/dev/null; done
all_same "after a clean restart"
no_failure "after a clean restart"
stop_server
finish
