#!/usr/bin/env bash
# Manual upgrade check (not part of make test: it needs an old binary): a
# data directory made by session 42's build (commit ea0ec93: per-view change
# log jobs, subscriptions with logs of their own) holding a cross-database
# view and a subscription, opened by the current build: the view stays exact
# and follows new changes, the subscription's cursor resumes from before the
# upgrade, new consumers share a new log, everything drops cleanly.
#
#   git worktree add /tmp/old ea0ec93 && cmake -S /tmp/old -B /tmp/old/build -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/old/build freshet
#   scripts/upgrade-check-session42.sh /tmp/old/build/freshet build/freshet
OLD=${1:?old binary} NEW=${2:?new binary} DIR=$(mktemp -d) PORT=${PORT:-24777}
trap 'rm -rf "$DIR"' EXIT
pass=0; failc=0
ok() { echo "  ok: $1"; pass=$((pass+1)); } ; bad() { echo "  FAIL: $1"; failc=$((failc+1)); }
check() { local w="$1"; shift; if "$@"; then ok "$w"; else bad "$w"; fi; }
q() { psql -X -q -At -h 127.0.0.1 -p $PORT -U root -d "${DB:-a}" -v ON_ERROR_STOP=1 "$@" 2>&1; }
start() { setsid $1 --data-dir $DIR/data --port $PORT --listen-address 127.0.0.1 > $DIR/log_$2.log 2>&1 < /dev/null & PID=$!
  for i in $(seq 1 200); do DB=dev q -c "select 1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
stop() { kill $PID; wait $PID; }
exact() { [[ "$(q -c "select count(*) from ((select * from $1 except all ($2)) union all (($2) except all select * from $1)) d")" == 0 ]]; }
VQ="select v % 7 as g, count(*) as n, sum(v) as s from b.public.t group by v % 7"
start $OLD old || { echo "old did not start"; exit 1; }
DB=dev q -c "create database a" -c "create database b" >/dev/null
DB=b q -c "create table t (k int primary key, v int)" -c "insert into t select g, g from generate_series(1, 1000) g" \
  -c "create subscription s from t with (retention = '1h')" >/dev/null
q -c "create materialized view v as $VQ" >/dev/null
DB=b q -c "update t set v = v + 1 where k % 3 = 0" -c "flush" >/dev/null; q -c "flush" >/dev/null
T1=$(DB=b q -c "select (extract(epoch from now()) * 1000)::bigint")
DB=b q -c "delete from t where k % 10 = 0" -c "insert into t values (5000, 5)" -c "flush" >/dev/null; q -c "flush" >/dev/null
echo "old: logs: $(DB=b q -c "select consumer || ':' || entries from rw_catalog.rw_change_logs" | tr '\n' ' ')"
stop
start $NEW new || { bad "the new build starts on the old directory"; tail -20 $DIR/log_new.log; exit 1; }
ok "the new build starts on the old directory"
check "the old view is exact" exact v "$VQ"
DB=b q -c "update t set v = v * 2 where k % 7 = 1" -c "flush" >/dev/null; q -c "flush" >/dev/null
check "the old view follows new changes" exact v "$VQ"
echo "new: logs: $(DB=b q -c "select coalesce(consumer, '-') || ':' || entries || ':' || coalesce(retention_seconds::text, '-') from rw_catalog.rw_change_logs" | tr '\n' ' ')"
check "SHOW SUBSCRIPTIONS lists the old subscription only" test "$(DB=b q -c "show subscriptions")" = s
got=$(DB=b q -c "declare c subscription cursor for s since $T1" -c "fetch 1000 from c" | wc -l)
check "the old subscription's cursor resumes from before the upgrade ($got changes)" test "$got" -ge 100
q -c "create materialized view v2 as select k, v from b.public.t where v % 2 = 0" >/dev/null || bad "create v2"
check "a new view over the same table is exact" exact v2 "select k, v from b.public.t where v % 2 = 0"
DB=b q -c "create subscription s2 from t with (retention = '1h')" >/dev/null || bad "create s2"
echo "new: logs: $(DB=b q -c "select l.log_job_id || ':' || coalesce(consumer, '-') from rw_catalog.rw_change_logs l" | tr '\n' ' ')"
for i in 1 2 3 4 5; do DB=b q -c "update t set v = v + 1 where k % 11 = $i" -c "flush" >/dev/null; q -c "flush" >/dev/null; sleep 1; done
check "both views exact after rounds" exact v "$VQ"
check "v2 exact" exact v2 "select k, v from b.public.t where v % 2 = 0"
echo "new: logs after rounds: $(DB=b q -c "select coalesce(consumer, '-') || ':' || entries from rw_catalog.rw_change_logs" | tr '\n' ' ')"
stop; start $NEW new2 || bad "restart"
check "exact after a restart" exact v "$VQ"
q -c "drop materialized view v" -c "drop materialized view v2" >/dev/null
DB=b q -c "drop subscription s" -c "drop subscription s2" >/dev/null
check "every log is gone" test "$(DB=b q -c "select count(*) from rw_catalog.rw_change_logs")" = 0
check "and every log job" test "$(DB=b q -c "select count(*) from rw_catalog.rw_relations where name like '__%log_of%'")" = 0
check "no error in the log" test "$(grep -c ERROR $DIR/log_new.log $DIR/log_new2.log | awk -F: '{s+=$2} END {print s}')" = 0
stop
echo "$pass passed, $failc failed"
[[ $failc == 0 ]]
