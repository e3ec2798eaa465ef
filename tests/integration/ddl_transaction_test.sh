#!/usr/bin/env bash
# DDL in a transaction block survives kill -9 exactly as the block does
# (and temporary tables end with their session or the next start, part 5):
#
#   tests/integration/ddl_transaction_test.sh [path/to/freshet]
#
# 1) a block that created a table, wrote to it, rewrote another table
#    (ALTER TABLE ADD COLUMN) and created a sequence is open when the
#    server is killed: after the restart none of it is there, the altered
#    table is as it was, and the same ALTER works (the half-made relation
#    of the rewrite is gone);
# 2) the same block committed, the server killed right after COMMIT
#    returned: all of it is there, with its rows;
# 3) a write from another session to a table the block rewrote waits for
#    the block to end (it would go to the replaced relation): here until
#    lock_timeout; after the COMMIT it runs;
# 4) a client that disconnects in a block that rewrote a table leaves no
#    half-made relation (the same ALTER runs at once from another session);
# 5-8) temporary tables, LOCK TABLE, unique constraints filled in place;
# 9) stream jobs made in a block (paused backfills): none after kill -9
#    with the block open; committed, they resume after kill -9, complete
#    and equal their queries.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=ddl_transaction_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
# A session ends (undoing its block, dropping its temporary relations) once
# the server sees its connection close: wait (bounded) until it leaves
# pg_stat_activity.
wait_session_gone() {
  for _ in $(seq 1 600); do
    [[ "$(q -c "select count(*) from pg_stat_activity where pid = $1")" == 0 ]] && return
    sleep 0.1
  done
}

BLOCK=(
  "BEGIN;"
  "CREATE TABLE fresh (id int PRIMARY KEY, v text);"
  "INSERT INTO fresh VALUES (1, 'a'), (2, 'b');"
  "ALTER TABLE base ADD COLUMN c int DEFAULT 5;"
  "INSERT INTO base VALUES (100, 100, 6);"
  "CREATE SEQUENCE fresh_seq;"
  "SELECT nextval('fresh_seq');"
)

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }
q -c "create table base (id int primary key, v int)" -c "insert into base select g, g from generate_series(1, 50) g" >/dev/null

echo "== 1) a block open at kill -9 leaves nothing"
open_session
send "${BLOCK[@]}" '\echo READY'
check "the block ran" wait_for READY
check "its nextval" grep -qx 1 "$WORK/session.out"
kill_server
close_session
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "the created table is not there" test "$(q -c "select count(*) from pg_class where relname in ('fresh', 'fresh_seq')")" = 0
check "the altered table has its old columns" test "$(q -c "select string_agg(attname, ',' order by attnum) from pg_attribute where attrelid = 'base'::regclass and attnum > 0")" = "id,v"
check "and its old rows" test "$(q -c 'select count(*), sum(v) from base')" = "50|1275"
check "the same ALTER runs now (no half-made relation left)" q -c "alter table base add column c int default 5; alter table base drop column c"

echo "== 2) a committed block survives kill -9"
open_session
send "${BLOCK[@]}" "COMMIT;" '\echo COMMITTED'
check "the block committed" wait_for COMMITTED
kill_server
close_session
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "the created table has its rows" test "$(q -c 'select count(*) from fresh')" = 2
check "the altered table has the new column and every row" test "$(q -c 'select count(*), sum(c) from base')" = "51|256"
check "the sequence goes on" test "$(q -c "select nextval('fresh_seq') > 1")" = t

echo "== 3) another session's write waits for the block that rewrote the table"
open_session
send "BEGIN;" "ALTER TABLE base ADD COLUMN d int DEFAULT 1;" '\echo ALTERED'
check "the block altered the table" wait_for ALTERED
# While the block is open, a write to the table waits (here until
# lock_timeout) instead of going to the relation the block replaces.
out=$(q -c "set lock_timeout = '300ms'" -c "insert into base (id, v) values (200, 200)")
check "the other session's insert waits for the block (lock_timeout)" grep -q "canceling statement due to lock timeout" <<<"$out"
send "INSERT INTO base (id, v, c, d) VALUES (300, 300, 1, 1);" "COMMIT;" '\echo DONE'
check "the block committed" wait_for DONE
close_session
check "then the other session's insert runs" q -c "insert into base (id, v) values (200, 200)"
check "the table has both rows once and the new column" test "$(q -c "select count(*), sum(d) from base where id in (200, 300)")" = "2|2"
check "and every row" test "$(q -c "select count(*) from base")" = 53

echo "== 4) a client that goes away in a block leaves nothing of its rewrite"
open_session
send "BEGIN;" "SELECT pg_backend_pid();" "ALTER TABLE base ADD COLUMN e int DEFAULT 2;" '\echo ALTERED'
check "the block altered the table" wait_for ALTERED
PID=$(head -n 1 "$WORK/session.out")
close_session
wait_session_gone "$PID"
check "the same ALTER runs from another session" q -c "alter table base add column e int default 3"
check "with its own default" test "$(q -c "select count(*) from base where e = 3")" = 53

echo "== 5) temporary tables: the session's own, dropped when it ends or by the next start after kill -9"
open_session
send "SELECT pg_backend_pid();" "CREATE TEMP TABLE tmp1 (id serial PRIMARY KEY, v text);" \
  "INSERT INTO tmp1 (v) VALUES ('a'), ('b');" "CREATE VIEW tmp_view AS SELECT v FROM tmp1;" '\echo READY'
check "the session made its temporary table and view" wait_for READY
PID=$(head -n 1 "$WORK/session.out")
out=$(q -c "select * from tmp1")
check "another session does not see it" grep -q 'relation "tmp1" does not exist' <<<"$out"
out=$(q -c "select * from pg_temp_$PID.tmp1")
check "nor reads it by its schema" grep -q "cannot access temporary tables of other sessions" <<<"$out"
check "its relations are temporary in pg_class" test "$(q -c "select count(*) from pg_class where relpersistence = 't'")" = 4
kill_server
close_session
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after kill -9 no temporary schema is left" test "$(q -c "select count(*) from pg_namespace where nspname like 'pg_temp%'")" = 0
check "nor any temporary relation" test "$(q -c "select count(*) from pg_class where relpersistence = 't'")" = 0
open_session
send "SELECT pg_backend_pid();" "CREATE TEMP TABLE tmp2 (a int);" "INSERT INTO tmp2 VALUES (1);" '\echo READY'
check "a new session made a temporary table" wait_for READY
PID=$(head -n 1 "$WORK/session.out")
close_session
wait_session_gone "$PID"
check "its end dropped its temporary schema" test "$(q -c "select count(*) from pg_namespace where nspname like 'pg_temp%'")" = 0
check "and the table" test "$(q -c "select count(*) from pg_class where relname = 'tmp2'")" = 0

echo "== 6) LOCK TABLE in a mode that conflicts with writes holds other sessions' writes until the block ends"
q -c "create table locked (id int primary key, v int)" -c "insert into locked values (1, 0)" >/dev/null
open_session
send "BEGIN;" "LOCK TABLE locked IN EXCLUSIVE MODE;" "UPDATE locked SET v = 1;" '\echo LOCKED'
check "a session locked the table" wait_for LOCKED
out=$(q -c "set lock_timeout = '100ms'" -c "update locked set v = 2" 2>&1)
check "another session's UPDATE waits for it (and gives up at lock_timeout)" grep -q "canceling statement due to lock timeout" <<<"$out"
out=$(q -c "set lock_timeout = '100ms'" -c "insert into locked values (2, 0)" 2>&1)
check "so does an INSERT" grep -q "canceling statement due to lock timeout" <<<"$out"
out=$(q -c "set lock_timeout = '100ms'" -c "begin" -c "lock table locked in share row exclusive mode" 2>&1)
check "and another LOCK in such a mode" grep -q "canceling statement due to lock timeout" <<<"$out"
check "a read is not held back" test "$(q -c "select count(*) from locked")" = 1
out=$(q -c "begin" -c "lock table locked in share mode nowait" 2>&1)
check "LOCK ... NOWAIT does not wait" grep -q 'could not obtain lock on relation "locked"' <<<"$out"
send "COMMIT;" '\echo DONE'
check "the block committed" wait_for DONE
close_session
check "then the other session's UPDATE runs" q -c "update locked set v = v + 10"
check "after the block's" test "$(q -c "select v from locked")" = 11
check "and an INSERT" q -c "insert into locked values (2, 0)"

echo "== 7) a unique constraint added under a materialized view (its index filled in place) survives kill -9"
q -c "create table uq (id int primary key, email text)" -c "insert into uq select g, 'e' || g from generate_series(1, 200) g" \
  -c "create materialized view uq_count as select count(*) as n from uq" >/dev/null
check "ALTER TABLE ... ADD UNIQUE with the view reading the table" q -c "alter table uq add constraint uq_email unique (email)"
check "CREATE UNIQUE INDEX too" q -c "create unique index uq_email_id on uq (email, id)"
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
out=$(q -c "insert into uq values (1000, 'e7')" 2>&1)
check "after kill -9 the constraint holds the stored rows' values" grep -q 'violates unique constraint "uq_email"' <<<"$out"
check "a new value goes in" q -c "insert into uq values (1001, 'new')" -c "flush"
check "the view kept counting" test "$(q -c "select n from uq_count")" = 201

echo "== 8) the same in a transaction block: other sessions' writes wait for it; ROLLBACK undoes it, COMMIT survives kill -9"
q -c "create table uq2 (id int primary key, code int)" -c "insert into uq2 select g, g from generate_series(1, 100) g" \
  -c "create materialized view uq2_count as select count(*) as n from uq2" >/dev/null
open_session
send "BEGIN;" "ALTER TABLE uq2 ADD CONSTRAINT uq2_code_key UNIQUE (code);" '\echo ADDED'
check "the block added the constraint under the view" wait_for ADDED
out=$(q -c "set lock_timeout = '300ms'" -c "insert into uq2 values (1000, 5)")
check "another session's insert waits for the block (lock_timeout)" grep -q "canceling statement due to lock timeout" <<<"$out"
send "ROLLBACK;" '\echo ROLLED'
check "the block rolled back" wait_for ROLLED
close_session
check "then the other session's insert (a repeated code) runs" q -c "insert into uq2 values (1000, 5)"
check "the rolled-back constraint is gone" test "$(q -c "select count(*) from pg_constraint where conname = 'uq2_code_key'")" = 0
q -c "delete from uq2 where id = 1000" >/dev/null
open_session
send "BEGIN;" "ALTER TABLE uq2 ADD CONSTRAINT uq2_code_key UNIQUE (code);" "INSERT INTO uq2 VALUES (2001, 7001);" "COMMIT;" '\echo COMMITTED'
check "a block adding the constraint and a row committed" wait_for COMMITTED
close_session
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after kill -9 the block's constraint is there" test "$(q -c "select count(*) from pg_constraint where conname = 'uq2_code_key'")" = 1
out=$(q -c "insert into uq2 values (3000, 7001)" 2>&1)
check "and holds the block's own row" grep -q 'violates unique constraint "uq2_code_key"' <<<"$out"
out=$(q -c "insert into uq2 values (3001, 42)" 2>&1)
check "and the stored rows" grep -q 'violates unique constraint "uq2_code_key"' <<<"$out"
check "the view counts every row" test "$(q -c "flush" -c "select n from uq2_count")" = 101

echo "== 9) stream jobs created in a block: none after kill -9 with the block open; committed ones resume after kill -9"
JOBS_BLOCK=(
  "BEGIN;"
  "SET BACKGROUND_DDL = true;"
  "SET BACKFILL_RATE_LIMIT = 0;"
  "CREATE TABLE jb (a int, b int);"
  "INSERT INTO jb SELECT g, g % 7 FROM generate_series(1, 1000) g;"
  "CREATE MATERIALIZED VIEW jb1 AS SELECT a, b FROM jb WHERE a % 2 = 0;"
  "CREATE MATERIALIZED VIEW jb2 AS SELECT b, count(*) AS n, sum(a) AS s FROM jb1 GROUP BY b;"
  "CREATE INDEX jb1_b ON jb1 (b);"
  "COMMENT ON MATERIALIZED VIEW jb2 IS 'per b';"
)
open_session
send "${JOBS_BLOCK[@]}" '\echo READY'
check "the block made the jobs" wait_for READY
kill_server
close_session
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after kill -9 with the block open no job is there" \
  test "$(q -c "select count(*) from pg_class where relname in ('jb', 'jb1', 'jb2', 'jb1_b')")" = 0
open_session
send "${JOBS_BLOCK[@]}" "COMMIT;" '\echo COMMITTED'
check "the block committed" wait_for COMMITTED
close_session
check "its jobs are being created (their backfill paused)" \
  test "$(q -c "select string_agg(name || ':' || status, ',' order by name) from rw_catalog.rw_materialized_views where name like 'jb%'")" = \
  "jb1:Creating,jb2:Creating"
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
q -c "insert into jb values (1002, 3), (1004, 3)" -c "delete from jb where a = 10" -c "flush" >/dev/null
out=$(q -c "alter materialized view jb1 set backfill_rate_limit = default" -c "alter materialized view jb2 set backfill_rate_limit = default" \
  -c "alter index jb1_b set backfill_rate_limit = default" -c "wait" 2>&1)
check "after kill -9 they resume and complete ($out)" test -z "$out"
check "the jobs made in the block equal their queries" same jb2 "select b, count(*), sum(a) from jb where a % 2 = 0 group by b"
check "their comment is kept" test "$(q -c "select obj_description('jb2'::regclass)")" = "per b"
check "the index made in the block answers" test "$(q -c "select count(*) from jb1 where b = 3")" = \
  "$(q -c "select count(*) from jb where a % 2 = 0 and b = 3")"

echo "== 10) enum types: labels added in a block killed open are gone; committed ones, and views over them, survive kill -9"
q -c "create type lvl as enum ('low', 'high')" -c "create table le (id int primary key, l lvl)" \
  -c "insert into le values (1, 'low'), (2, 'high')" -c "create materialized view le_per as select l, count(*) as n from le group by l" >/dev/null
open_session
send "BEGIN;" "ALTER TYPE lvl ADD VALUE 'mid' BEFORE 'high';" "CREATE TYPE gone AS ENUM ('x');" '\echo READY'
check "the block added a label and a type" wait_for READY
kill_server
close_session
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after kill -9 with the block open neither is there" \
  test "$(q -c "select string_agg(enumlabel, ',' order by enumsortorder) from pg_enum where enumtypid = 'lvl'::regtype")|$(q -c "select count(*) from pg_type where typname = 'gone'")" = "low,high|0"
q -c "alter type lvl add value 'mid' before 'high'" -c "alter type lvl rename value 'low' to 'lowest'" \
  -c "insert into le values (3, 'mid')" -c "flush" >/dev/null
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after kill -9 the committed labels and their order are kept" \
  test "$(q -c "select string_agg(id || ':' || l, ',' order by l, id) from le")" = "1:lowest,3:mid,2:high"
check "the view over them prints them by label" \
  test "$(q -c "select string_agg(l || '=' || n, ',' order by l) from le_per")" = "lowest=1,mid=1,high=1"
q -c "insert into le values (4, 'mid')" -c "flush" >/dev/null
check "and keeps up after the restart" same le_per "select l, count(*) from le group by l"

echo "== 11) a partial unique index survives kill -9 and keeps only its rows unique"
q -c "create table pu (id int primary key, email text, live boolean)" \
  -c "insert into pu select x, 'e' || (x % 50), x <= 50 from generate_series(1, 500) x" \
  -c "create unique index pu_live on pu (email) where live" >/dev/null
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
out=$(q -c "insert into pu values (1000, 'e7', true)" 2>&1)
check "after kill -9 a live duplicate is refused" grep -q 'violates unique constraint "pu_live"' <<<"$out"
out=$(q -c "insert into pu values (1000, 'e7', false)" -c "update pu set live = false where id = 7" \
  -c "insert into pu values (1001, 'e7', true)" 2>&1)
check "rows outside the predicate are not ($out)" test "$out" = ""
check "its definition is kept" grep -q "WHERE live" <<<"$(q -c "select pg_get_indexdef('pu_live'::regclass)")"

echo "== 12) a unique index on an expression survives kill -9, its values computed for every write"
q -c "create table ue (id int primary key, email text)" \
  -c "insert into ue select x, 'User' || x || '@X.com' from generate_series(1, 500) x" \
  -c "create unique index ue_lower on ue (lower(email))" >/dev/null
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
out=$(q -c "insert into ue values (1000, 'user7@x.COM')" 2>&1)
check "after kill -9 a duplicate of its expression is refused" grep -q 'Key (lower(email))=(user7@x.com) already exists' <<<"$out"
out=$(q -c "update ue set email = 'other@x.com' where id = 7" -c "insert into ue values (1000, 'user7@x.COM')" \
  -c "insert into ue values (1001, 'x@y') on conflict (lower(email)) do nothing" \
  -c "insert into ue values (1002, 'X@Y') on conflict (lower(email)) do nothing" 2>&1)
check "a value freed is taken, ON CONFLICT infers it ($out)" test "$out" = ""
check "and skipped the duplicate" test "$(q -c "select count(*) from ue where lower(email) = 'x@y'")" = "1"
check "its definition is kept" grep -q "(lower(email))" <<<"$(q -c "select pg_get_indexdef('ue_lower'::regclass)")"

finish
