#!/usr/bin/env bash
# Cross-database materialized views (issue 20, item 5). Database a holds
# views over database b's table and materialized view (joined with a's own
# table, aggregated, an outer join with a filter, a view over b's view).
# Random DML on both sides (seeded: XDB_SEED), then FLUSH in b and in a:
# every view equals its batch query. Through that:
#   - b recovers again and again (RECOVER DATABASE b) while it takes writes:
#     a's views catch up afterwards, exact; a never recovers;
#   - kill -9 of the whole server while a view over b is backfilling (a
#     rate limit keeps it there) and, later, right after b committed
#     changes a has not read yet (the log phase): after the restart the
#     views complete and are exact;
#   - one change log per relation, shared by the views and a subscription in
#     b; it stays bounded over the rounds (it holds at most the epochs the
#     slowest consumer has not committed past) and goes with its last
#     consumer;
#   - a view of b that fails for good (a fault injected into its operator)
#     marks a's view over it Failed; a's other views go on.
#
#   tests/integration/cross_db_view_test.sh [path/to/freshet]
#
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=cross_db_view_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"
RANDOM="${XDB_SEED:-1}"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d "${DB:-a}" -v ON_ERROR_STOP=1 "$@" 2>&1; }

# The views and their queries (as a reads them).
declare -A QUERY=(
  [vj]="select ta.k, ta.w, tb.v, tb.g from ta join b.public.tb on ta.k = tb.k"
  [vagg]="select g, count(*) as n, sum(v) as s, min(k) as lo from b.public.tb group by g"
  [vlj]="select ta.k, tb.v from ta left join b.public.tb on ta.k = tb.k and tb.v % 3 = 0"
  [vmv]="select g, n, s from b.public.mb where n > 0"
)
VIEWS=(vj vagg vlj vmv)

all_exact() {  # all_exact WHEN
  local v bad=""
  for v in "${VIEWS[@]}"; do same "$v" "${QUERY[$v]}" || bad+=" $v"; done
  check "$1: every view equals its query${bad:+ (not:$bad)}" test -z "$bad"
}
flush_both() { DB=b q -c "flush" >/dev/null && DB=a q -c "flush" >/dev/null; }

# One round of random DML: b's table and a's table.
random_dml() {
  local lo=$((RANDOM % 30000)) m=$((RANDOM % 97)) d=$((RANDOM % 89)) r=$((RANDOM % 50))
  DB=b q -c "insert into tb select g, (g * $((r + 7))) % 1000, g % 13 from generate_series($lo, $((lo + 150))) g on conflict (k) do update set v = excluded.v + 1" \
    -c "update tb set v = v + $r, g = (g + 1) % 13 where k % 97 = $m" \
    -c "delete from tb where k % 89 = $d and k % 2 = $((r % 2))" >/dev/null || return 1
  lo=$((RANDOM % 30000)); m=$((RANDOM % 53))
  DB=a q -c "insert into ta select g, g % 11 from generate_series($lo, $((lo + 120))) g on conflict (k) do nothing" \
    -c "update ta set w = w + 1 where k % 53 = $m" \
    -c "delete from ta where k % 61 = $((RANDOM % 61))" >/dev/null
}

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }
DB=dev q -c "create database a with barrier_interval_ms = 200" -c "create database b with barrier_interval_ms = 100" >/dev/null
DB=b q -c "create table tb (k int primary key, v int, g int)" \
  -c "insert into tb select g, g % 1000, g % 13 from generate_series(1, 30000) g" \
  -c "create materialized view mb as select g, count(*) as n, sum(v) as s from tb group by g" >/dev/null
q -c "create table ta (k int primary key, w int)" \
  -c "insert into ta select g, g % 11 from generate_series(1, 30000, 3) g" >/dev/null
for v in "${VIEWS[@]}"; do q -c "create materialized view $v as ${QUERY[$v]}" >/dev/null || fail "create $v"; done
check "the views are created" test "$(q -c "select count(*) from rw_catalog.rw_materialized_views where status = 'Created'")" = 4
check "b holds a log per relation read, each view its consumer" \
  test "$(DB=b q -c "select count(distinct log_table_id) || '/' || count(consumer) from rw_catalog.rw_change_logs")" = 2/4
# A subscription in b shares tb's log with the views (the log is truncated
# below what the slowest of them needs: it keeps 2 seconds).
DB=b q -c "create subscription sb from tb with (retention = '2s')" >/dev/null
check "the subscription joins tb's log" \
  test "$(DB=b q -c "select count(distinct log_table_id) || '/' || count(consumer) from rw_catalog.rw_change_logs")" = 2/5
all_exact "after creation"

echo "== random DML on both sides"
# The log of a view that keeps up holds what the view has not committed
# past (truncated about once a second): over 40 rounds, at the end it holds
# nothing older than b's commit after round 20.
max_entries=0
for round in $(seq 1 40); do
  random_dml || fail "round $round's DML"
  DB=b q -c "flush" >/dev/null
  # b committed the round; a may not have read it yet.
  entries=$(DB=b q -c "select coalesce(max(entries), 0) from rw_catalog.rw_change_logs")
  (( entries > max_entries )) && max_entries=$entries
  [[ -n "${XDB_VERBOSE:-}" ]] && echo "  round $round: $entries log entries"
  (( round == 20 )) && half=$(DB=dev q -c "select committed_at from rw_catalog.rw_database_status where database = 'b'")
  DB=a q -c "flush" >/dev/null
  (( round % 10 == 0 )) && all_exact "round $round"
done
oldest=$(DB=b q -c "select min(oldest_epoch_at) from rw_catalog.rw_change_logs")
check "the logs were used (largest: $max_entries entries)" test "$max_entries" -gt 0
recent() { [[ -z "$oldest" ]] || [[ "$(DB=dev q -c "select '$oldest'::timestamptz > '$half'::timestamptz")" == t ]]; }
check "the logs hold only recent epochs (oldest ${oldest:-none}, b after round 20: $half)" recent
echo "== b recovers again and again while it takes writes"
a_recoveries=$(DB=dev q -c "select recoveries from rw_catalog.rw_database_status where database = 'a'")
for i in 1 2 3 4 5; do
  DB=b q -c "recover database b" >/dev/null
  random_dml || fail "DML during b's recoveries"
done
flush_both
all_exact "after b's recoveries"
check "a did not recover" test "$(DB=dev q -c "select recoveries from rw_catalog.rw_database_status where database = 'a'")" = "$a_recoveries"

echo "== kill -9 while a view over b is backfilling"
q -c "set background_ddl = true" -c "set backfill_rate_limit = 3000" \
  -c "create materialized view vslow as select k, v, g from b.public.tb where v % 2 = 0" >/dev/null
QUERY[vslow]="select k, v, g from b.public.tb where v % 2 = 0"
status=""
for _ in $(seq 1 300); do  # until it has read some rows (bounded: ~30 s)
  status=$(q -c "select progress from rw_catalog.rw_ddl_progress where ddl_statement like '%vslow%'")
  [[ "$status" != "" && "$status" != "0.00%" ]] && break
  q -c "flush" >/dev/null
done
check "the view is part way through its backfill ($status)" test -n "$status" -a "$status" != "0.00%"
random_dml || fail "DML during the backfill"
DB=b q -c "flush" >/dev/null
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "it is still being created after the restart" \
  test "$(q -c "select status from rw_catalog.rw_materialized_views where name = 'vslow'")" = "Creating"
random_dml || fail "DML after the restart"
q -c "alter materialized view vslow set backfill_rate_limit = default" -c "wait" >/dev/null
VIEWS+=(vslow)
flush_both
all_exact "after the backfill completed across kill -9"

echo "== CANCEL JOBS of a view over b still being created"
q -c "set background_ddl = true" -c "set backfill_rate_limit = 0" \
  -c "create materialized view vcancel as select k from b.public.tb" >/dev/null
id=$(q -c "select id from rw_catalog.rw_materialized_views where name = 'vcancel'")
check "it is listed by SHOW JOBS" test "$(q -c "show jobs" | grep -c vcancel)" = 1
q -c "cancel jobs $id" >/dev/null
check "CANCEL JOBS drops it" test "$(q -c "select count(*) from rw_catalog.rw_materialized_views where name = 'vcancel'")" = 0
check "and its log in b" test "$(DB=b q -c "select count(*) from rw_catalog.rw_change_logs where consumer like '%vcancel%'")" = 0

echo "== kill -9 in the log phase: b committed changes a has not read"
for round in 1 2 3; do
  random_dml || fail "DML before kill $round"
  DB=b q -c "flush" >/dev/null
  kill_server
  start_server "$WORK/data" "$WORK/server.log" || { fail "restart $round"; finish; }
  flush_both
  all_exact "after kill -9 number $round"
done
no_failure "at the end"

echo "== the logs go with their views"
q -c "drop materialized view vslow" -c "drop materialized view vlj" >/dev/null
check "b's logs keep their other consumers" \
  test "$(DB=b q -c "select count(distinct log_table_id) || '/' || count(consumer) from rw_catalog.rw_change_logs")" = 2/4
DB=dev q -c "drop database a" >/dev/null
check "dropping a leaves the subscription's log only" \
  test "$(DB=b q -c "select string_agg(consumer, ',') from rw_catalog.rw_change_logs")" = sb
DB=b q -c "drop subscription sb" >/dev/null
check "the log goes with its last consumer" test "$(DB=b q -c "select count(*) from rw_catalog.rw_change_logs")" = 0
drop_tb() { DB=b q -c "drop table tb cascade" >/dev/null; }
check "b's table can be dropped now" drop_tb

echo "== kill -9 between a view's change log and the view"
# b's view is paused in its backfill, so a's CREATE waits with its log job
# made in b and the view not yet in a's catalog.
DB=dev q -c "create database a" >/dev/null
DB=b q -c "create table tp (k int primary key)" -c "insert into tp select generate_series(1, 1000)" \
  -c "set background_ddl = true" -c "set backfill_rate_limit = 0" -c "create materialized view paused as select * from tp" >/dev/null
(q -c "create materialized view over_paused as select * from b.public.paused" >/dev/null 2>&1) &
BG_PIDS+=($!)
for _ in $(seq 1 600); do  # until the log job is there (bounded)
  [[ "$(DB=b q -c "select count(*) from rw_catalog.rw_relations where name like '__change_log_of_paused%'")" == 1 ]] && break
  DB=b q -c "flush" >/dev/null
done
check "the view's log job is made first" test "$(DB=b q -c "select count(*) from rw_catalog.rw_relations where name like '__change_log_of_paused%'")" = 1
check "the view, not in a's catalog yet, is its consumer" \
  test "$(DB=b q -c "select count(*) from rw_catalog.rw_change_logs where consumer is null and consumer_id is not null")" = 1
# Meanwhile b's DDL on other logs does not wait for it.
other_subscription() { DB=b q -c "create subscription other from tp with (retention = '1h')" -c "drop subscription other" >/dev/null; }
check "a subscription on another table is made and dropped meanwhile" other_subscription
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after the restart the log job of the view never made is gone" \
  test "$(DB=b q -c "select count(*) from rw_catalog.rw_relations where name like '__change_log_of%'")/$(q -c "select count(*) from rw_catalog.rw_materialized_views")" = 0/0
stop_server

echo "== a view of b that fails for good takes a's views over it along, and only them"
# A fresh server whose TopN operators throw at every chunk (the test-only
# fault hook): b's TopN view fails until it is Failed.
rm -rf "$WORK/data"
FRESHET_STREAM_FAULT="TopN:chunk:1:0" start_server "$WORK/data" "$WORK/server.log" || { fail "start with the fault"; finish; }
DB=dev q -c "create database a" -c "create database b" >/dev/null
DB=b q -c "create table tt (k int primary key, v int)" -c "create materialized view top as select k, v from tt order by v desc limit 3" >/dev/null
q -c "create table ta (k int primary key)" -c "create materialized view over_top as select * from b.public.top" \
  -c "create materialized view local_count as select count(*) as n from ta" >/dev/null
for i in $(seq 1 5); do  # each insert fails b's TopN and recovers b, four times over
  DB=b q -c "insert into tt values ($i, $i)" -c "flush" >/dev/null 2>&1
  q -c "insert into ta values ($i)" -c "flush" >/dev/null
done
check "b's TopN view is Failed" test "$(DB=b q -c "select status from rw_catalog.rw_materialized_views where name = 'top'")" = Failed
check "a's view over it is Failed too" test "$(q -c "select status from rw_catalog.rw_materialized_views where name = 'over_top'")" = Failed
q -c "insert into ta values (100)" -c "flush" >/dev/null
check "a's other view goes on" test "$(q -c "select n from local_count")" = 6
check "a's Failed view can be dropped, its log with it" q -c "drop materialized view over_top"
check "b holds no log" test "$(DB=b q -c "select count(*) from rw_catalog.rw_change_logs")" = 0
finish
