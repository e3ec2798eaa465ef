#!/usr/bin/env bash
# Process-time temporal joins (JOIN t FOR SYSTEM_TIME AS OF PROCTIME())
# through kill -9 and a clean restart (issue 19, item 5). The join keeps
# the right side's rows in its state table and no left rows; a left row is
# joined with the right side as it is when the row comes, and later right
# changes leave the rows emitted alone.
#
#   tests/integration/temporal_join_recovery_test.sh [path/to/freshet]
#
# Expected: the rows a view held before the right side changed (saved in a
# table) plus the plain join of the left rows written since. Each phase:
# change the right side, flush, save, write left rows (phase 2: unflushed,
# then kill -9), and compare.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=temporal_join_recovery_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
INNER_Q="select f.tid, f.qty, d.name, d.price from fact f join dim d on f.pid = d.id"
LEFT_Q="select f.tid, d.name, d.price from fact f left join dim d on f.pid = d.id"
ROUND=0
NEXT=1  # the next fact id
# Changes the right side (flushed) and saves what each view holds then.
change_right() {
  ROUND=$((ROUND + 1))
  q -c "update dim set price = price + $ROUND, name = name || '$ROUND' where id % 3 = $((ROUND % 3))" \
    -c "delete from dim where id % 11 = $ROUND" \
    -c "insert into dim select g, 'r$ROUND-' || g, $ROUND, 0 from generate_series($((400 + ROUND * 50)), $((449 + ROUND * 50))) g on conflict do nothing" \
    -c flush \
    -c "drop table if exists tj_before" -c "drop table if exists tjl_before" \
    -c "create table tj_before as select * from tj" -c "create table tjl_before as select * from tjl" >/dev/null
  FROM=$NEXT
}
write_left() {  # write_left ROWS
  q -c "insert into fact select g, g % 700, g % 7 from generate_series($NEXT, $((NEXT + $1 - 1))) g" >/dev/null
  NEXT=$((NEXT + $1))
}
both_right() {  # both_right <when>
  check "$1: the inner temporal join holds its rows from before plus the new rows joined now" \
    same tj "select * from tj_before union all $INNER_Q where f.tid >= $FROM"
  check "$1: the left temporal join holds its rows from before plus the new rows joined now" \
    same tjl "select * from tjl_before union all $LEFT_Q where f.tid >= $FROM"
  local left
  left=$(q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '__internal_tj_joinleft%'")")
  check "$1: the join keeps no left rows ($left)" test "$left" = 0
}

echo "== 1) rows there at CREATE, then new ones"
start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
q -c "create table dim (id int primary key, name text, price int, cat int)" \
  -c "create table fact (tid int, pid int, qty int) append only" \
  -c "insert into dim select g, 'd' || g, g % 17, g % 3 from generate_series(1, 600) g" >/dev/null
write_left 3000
q -c flush -c "set streaming_parallelism = 2" \
  -c "create materialized view tj as select f.tid, f.qty, d.name, d.price from fact f join dim for system_time as of proctime() d on f.pid = d.id" \
  -c "create materialized view tjl as select f.tid, d.name, d.price from fact f left join dim for system_time as of proctime() d on f.pid = d.id" >/dev/null
q -c "create table sales (id int primary key, pid int, qty int)" \
  -c "insert into sales select g, g % 700, 1 from generate_series(1, 900) g" \
  -c "create materialized view tjr as select s.id, s.qty, d.price from sales s left join dim for system_time as of proctime() d on s.pid = d.id" >/dev/null
check "at CREATE the inner join equals the plain join" same tj "$INNER_Q"
check "at CREATE the left join equals the plain join" same tjl "$LEFT_Q"
write_left 500
q -c flush >/dev/null
check "new rows: the inner join equals the plain join" same tj "$INNER_Q"

echo "== 2) the right side changes, then kill -9 after unflushed left rows"
change_right
q -c "drop table if exists tjr_before" -c "create table tjr_before as select * from tjr" >/dev/null
write_left 800
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c flush >/dev/null
both_right "after kill -9"
# A retractable left: deletes retract what the rows were joined with before
# the crash, updates look the right side up again.
q -c "delete from sales where id % 3 = 0" -c "update sales set qty = 2 where id % 3 = 1" -c flush >/dev/null
check "after kill -9: a retractable left's deletes and updates retract the rows joined before the crash" \
  same tjr "select * from tjr_before where id % 3 = 2 union all select s.id, s.qty, d.price from sales s left join dim d on s.pid = d.id where s.id % 3 = 1"
change_right
write_left 400
q -c flush >/dev/null
both_right "a right change after kill -9"
no_failure "after kill -9"

echo "== 3) clean restart"
change_right
stop_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart"; finish; }
write_left 600
q -c flush >/dev/null
both_right "after a clean restart"
no_failure "after a clean restart"
stop_server
finish
