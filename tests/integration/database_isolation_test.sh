#!/usr/bin/env bash
# Databases as failure domains (issue 20, item 1): a failure in one
# database recovers that database only. Database b fails again and again
# (a join view whose operator throws at every chunk through the test-only
# fault hook, FRESHET_STREAM_FAULT; then RECOVER DATABASE b, repeatedly)
# while database a ingests and commits. From a's own committed epochs
# (rw_catalog.rw_committed_epochs: each epoch's injection time and its
# commit time), compared with a window where b was healthy:
#   - a keeps committing: its largest gap between consecutive committed
#     epochs and its largest commit latency stay within one barrier
#     interval of the healthy window's;
#   - b's recoveries happened inside that window (rw_recoveries), and a
#     had none;
# and afterwards a's view is exact, a's view over b's table (a
# cross-database view, read through b's change log) is exact, b's other
# view is exact, b's failing job is Failed, b runs again.
#
#   tests/integration/database_isolation_test.sh [path/to/freshet]
#
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=database_isolation_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d "${DB:-dev}" -v ON_ERROR_STOP=1 "$@" 2>&1; }
INTERVAL=200  # a's barrier interval, ms

FRESHET_STREAM_FAULT="HashJoin:chunk:1:0" start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }
q -c "create database a with barrier_interval_ms = $INTERVAL" -c "create database b with barrier_interval_ms = 100" >/dev/null
DB=a q -c "create table ta (k int, v int)" -c "create materialized view ma as select count(*) as n, sum(v) as s from ta" >/dev/null
DB=b q -c "create table tb (k int primary key, v int)" -c "create table tc (k int primary key, w int)" \
  -c "create table td (k int, v int)" \
  -c "create materialized view mb_join as select tb.k, v, w from tb join tc on tb.k = tc.k" \
  -c "create materialized view mb_sum as select count(*) as n, sum(v) as s from td" >/dev/null
check "both databases are set up" test "$(DB=b q -c "select count(*) from rw_catalog.rw_materialized_views")" = "2"
# A view in a over b's table (read through b's change log): exact once b is back.
DB=a q -c "create materialized view ma_x as select count(*) as n, sum(v) as s from b.public.td" >/dev/null

# a ingests until told to stop: one INSERT a statement, no FLUSH.
touch "$WORK/ingesting"
(
  i=0
  while [[ -e "$WORK/ingesting" ]]; do
    i=$((i + 1))
    DB=a q -c "insert into ta select g, g + $i from generate_series(1, 50) g" >/dev/null || break
  done
  echo "$i" >"$WORK/ingested"
) &
BG_PIDS+=($!)

latest_epoch() { DB=a q -c "select coalesce(max(epoch), 0) from rw_catalog.rw_committed_epochs where database = 'a'"; }
DB=a q -c "flush" >/dev/null
e0=$(latest_epoch)
# How many commits a made after epoch $1.
commits_since() { DB=a q -c "select count(*) from rw_catalog.rw_committed_epochs where database = 'a' and epoch > $1"; }
echo "== healthy window: b takes writes and commits (until a has committed 20 epochs)"
rounds=0
while (( $(commits_since "$e0") < 20 && rounds < 5000 )); do
  DB=b q -c "insert into td select g, g from generate_series(1, 20) g" -c "flush" >/dev/null
  rounds=$((rounds + 1))
done
td_rounds=$rounds
DB=a q -c "flush" >/dev/null
e1=$(latest_epoch)
echo "== failing window: b's join fails at every chunk, then RECOVER DATABASE b again and again"
for i in $(seq 1 4); do
  # Each round: the join's chunk fails, b recovers (FLUSH waits through
  # it); after the fourth failure the job is Failed and left stopped.
  DB=b q -c "insert into tb values ($i, $i)" -c "insert into tc values ($i, $i)" -c "flush" >/dev/null
done
rounds=0
while (( (rounds < 8 || $(commits_since "$e1") < 20) && rounds < 5000 )); do
  DB=b q -c "recover database b" -c "insert into td select g, g from generate_series(1, 20) g" -c "flush" >/dev/null
  rounds=$((rounds + 1))
done
td_rounds=$((td_rounds + rounds))
DB=a q -c "flush" >/dev/null
e2=$(latest_epoch)
rm -f "$WORK/ingesting"
wait "${BG_PIDS[0]}" 2>/dev/null
BG_PIDS=()
DB=a q -c "flush" >/dev/null

# a's commits in (from, to]: how many, the largest gap between consecutive
# commits and the largest commit latency (from the injection of the
# barrier that closes an epoch, i.e. the start of the next one, to its
# commit), in ms.
window() {
  DB=a q -F ' ' -c "
    with c as (select epoch, committed_at,
                      lag(committed_at) over (order by epoch) as prev,
                      lead(started_at) over (order by epoch) as closed_at
               from rw_catalog.rw_committed_epochs where database = 'a')
    select count(*),
           coalesce(max(extract(epoch from committed_at - prev) * 1000), 0)::int,
           coalesce(max(extract(epoch from committed_at - closed_at) * 1000), 0)::int
    from c where epoch > $1 and epoch <= $2 and prev is not null and closed_at is not null"
}
read -r n_ok gap_ok lat_ok <<<"$(window "$e0" "$e1")"
read -r n_bad gap_bad lat_bad <<<"$(window "$e1" "$e2")"
echo "  healthy window: $n_ok commits, largest gap $gap_ok ms, largest commit latency $lat_ok ms"
echo "  failing window: $n_bad commits, largest gap $gap_bad ms, largest commit latency $lat_bad ms"
check "a's barriers follow its own interval ($INTERVAL ms): the healthy window's largest gap ($gap_ok ms) is well under the system's 1000 ms" \
  test "$gap_ok" -lt 700
check "a committed all through b's failures ($n_bad commits)" test "$n_bad" -ge 15
check "a's largest gap between commits ($gap_bad ms) is within one barrier interval of the healthy window's ($gap_ok ms)" \
  test "$gap_bad" -le $((gap_ok + INTERVAL))
check "a's largest commit latency ($lat_bad ms) is within one barrier interval of the healthy window's ($lat_ok ms)" \
  test "$lat_bad" -le $((lat_ok + INTERVAL))

b_recoveries=$(DB=a q -c "select count(*) from rw_catalog.rw_recoveries r where database = 'b'
                            and started_at >= (select committed_at from rw_catalog.rw_committed_epochs where epoch = $e1 and database = 'a')")
check "b recovered again and again inside the window ($b_recoveries times)" test "$b_recoveries" -ge 12
check "a never recovered" test "$(DB=a q -c "select recoveries from rw_catalog.rw_database_status where database = 'a'")" = "0"
check "b's failing job is Failed" test "$(DB=b q -c "select status from rw_catalog.rw_materialized_views where name = 'mb_join'")" = "Failed"
check "b runs again" test "$(DB=b q -c "select state from rw_catalog.rw_database_status where database = 'b'")" = "RUNNING"
DB=a check "a's view is exact ($(cat "$WORK/ingested" 2>/dev/null) inserts)" same ma "select count(*), sum(v) from ta"
DB=b check "b's healthy view is exact after its recoveries" same mb_sum "select count(*), sum(v) from td"
DB=b q -c "flush" >/dev/null && DB=a q -c "flush" >/dev/null
DB=a check "a's view over b's table is exact after b's recoveries" same ma_x "select count(*), sum(v) from b.public.td"
check "b still takes writes" test "$(DB=b q -c "insert into td values (0, 0)" -c "flush" -c "select n from mb_sum")" = "$(( td_rounds * 20 + 1 ))"
# Reading another database's relations: a job's internal table stays its
# owner's (and superusers'), from any database.
internal=$(DB=b q -c "select name from rw_catalog.rw_internal_tables order by id limit 1")
q -c "create user bob" >/dev/null
denied=$(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bob -d a -c "select count(*) from b.public.$internal" 2>&1)
check "another database's internal table is not for other users ($denied)" grep -q "permission denied for table $internal" <<<"$denied"
check "its views are ($(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bob -d a -c "select n from b.public.mb_sum" 2>&1))" \
  test "$(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bob -d a -c "select n from b.public.mb_sum" 2>&1)" = "$(( td_rounds * 20 + 1 ))"
check "the server is still running" ready "$PORT"
stop_server
finish
