#!/usr/bin/env bash
# A temporal filter keeps only the rows whose outcome can still change
# (issue 19, item 4: bounded state under an endless stream). With
# ts > now() - INTERVAL '1 hour' AND ts <= now(), a row two hours old
# fails for good and a row that passes stays only until it expires; with
# ts <= now() alone, a row that passes passes for good. Rows no longer
# kept are still retracted right when deleted upstream.
#
#   tests/integration/temporal_filter_state_test.sh [path/to/freshet]
#
# Every view is compared with its query (rows far from the time bounds, so
# the view's and the query's now() agree); the state tables are counted;
# the same after a restart. Prints "N passed, M failed" last.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=temporal_filter_state_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
HOUR_Q="select id, v from tf where ts > now() - interval '1 hour' and ts <= now()"
PAST_Q="select id, v from tf where ts <= now() and v % 2 = 0"
state() {  # state VIEW: rows in the view's temporal filter's state table
  q -c "select count(*) from $(q -c "select name from rw_catalog.rw_internal_tables where name like '__internal_$1_temporalrows%'")"
}
all_same() {  # all_same <when> <rows kept by the hour view> <rows kept by the past view>
  check "$1: the last hour's view equals its query" same hour "$HOUR_Q"
  check "$1: the past's view equals its query" same past "$PAST_Q"
  check "$1: the last hour's view keeps $(state hour) rows (those still to enter or to expire: $2)" test "$(state hour)" = "$2"
  check "$1: the past's view keeps $(state past) rows (those still to enter: $3)" test "$(state past)" = "$3"
}

echo "== 1) rows expired, passing and in the future"
start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
q -c "create table tf (id int primary key, ts timestamptz, v int)" \
  -c "create materialized view hour as $HOUR_Q" -c "create materialized view past as $PAST_Q" \
  -c "insert into tf select g, now() - interval '2 hours', g from generate_series(1, 300) g" \
  -c "insert into tf select g, now() - interval '10 minutes', g from generate_series(301, 350) g" \
  -c "insert into tf select g, now() + interval '10 days', g from generate_series(351, 370) g" -c flush >/dev/null
all_same "after inserts" 70 10

echo "== 2) deletes and updates of rows kept and not kept"
q -c "delete from tf where id in (1, 2, 3, 301, 302)" \
  -c "update tf set ts = now() - interval '5 minutes' where id in (351, 352)" \
  -c "update tf set ts = now() - interval '3 hours' where id = 303" -c flush >/dev/null
all_same "after deletes and updates" 67 9

echo "== 3) restart"
stop_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart"; finish; }
q -c "delete from tf where id in (304, 4)" -c flush >/dev/null
all_same "after a restart" 66 9
no_failure "after a restart"
stop_server
finish
