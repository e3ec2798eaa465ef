#!/usr/bin/env bash
# ALTER TABLE ... ADD COLUMN on tables that materialized views and indexes
# read, through restarts and kill -9 (the column is added without a
# rewrite; rows stored before read the default it was added with).
#
#   tests/integration/add_column_test.sh [path/to/freshet]
#
# 1) a keyed table t and a table r without a key (hidden row id), with
#    rows; views on both (an aggregate, one copying t's columns), an index
#    on t; a view on t created in the background with its backfill paused
#    (BACKFILL_RATE_LIMIT = 0). Columns are added to both tables (constant
#    defaults, NULL, a NOT NULL one); rows written after, old rows updated
#    and deleted; the paused backfill resumes (it scans rows of both
#    widths) and WAIT: every view equals its query, the old rows read the
#    defaults, the index still serves its queries (EXPLAIN) and answers
#    like the table;
# 2) a view on the new columns, more writes; kill -9 and restart: the
#    defaults the old rows read survived, every view still equals its
#    query after more writes, no job failed;
# 3) another column added after the restart, a clean restart: the same;
# 4) a column dropped from a table an index reads (kept hidden in the
#    stored rows), through kill -9;
# 5) a column no materialized view reads dropped under them, kill -9;
# 6) columns and the table renamed under views, an index and a sink
#    (their definitions follow), kill -9;
# 7) a varchar column widened without a rewrite under an index, kill -9;
# 8) a column's type changed with a rewrite under indexes (made again on
#    the new relation), kill -9.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=add_column_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
AGG_Q="select g, count(*) as n, sum(v) as s from t group by g"
R_Q="select b, count(*) as n, sum(a) as s from r group by b"
NEW_Q="select c, d, count(*) as n, sum(v) as s, count(e) as e from t group by c, d"
RNEW_Q="select x, count(*) as n from r group by x"
all_same() {  # all_same <when> [with the views on the new columns]
  check "$1: the aggregate on t equals its query" same mt "$AGG_Q"
  check "$1: the copy of t's first columns equals them" same mcopy "select id, g, v from t"
  check "$1: the view backfilled across the ALTER equals its query" same mb "select id, g, v from t where v % 3 <> 0"
  check "$1: the aggregate on r (no key) equals its query" same mr "$R_Q"
  if [[ $# -gt 1 ]]; then
    check "$1: the view on t's new columns equals its query" same mnew "$NEW_Q"
    check "$1: the view on r's new column equals its query" same mrnew "$RNEW_Q"
  fi
}
index_serves() {  # index_serves <when>
  local plan
  plan=$(q -c "explain select id, v from t where g = 5")
  check "$1: the index made before the ALTER serves a query on its columns" grep -q "using t_g" <<<"$plan"
  check "$1: the index answers like the table" test \
    "$(q -c "select count(*), sum(v) from t where g = 5")" = "$(q -c "set enable_indexscan = off" -c "select count(*), sum(v) from t where g = 5")"
}
write_round() {  # write_round <n>: new rows, old rows updated and deleted
  q -c "insert into t (id, g, v) select 100000 * $1 + x, x % 11, x * $1 from generate_series(1, 500) x" \
    -c "update t set v = v + 1 where id % 17 = $(($1 % 17))" \
    -c "delete from t where id % 29 = $(($1 % 29))" \
    -c "insert into r (a, b) select x, 'b' || (x % 5) from generate_series(1, 100) x" \
    -c "update r set a = a + 1 where a % 13 = $(($1 % 13))" \
    -c "delete from r where a % 19 = $(($1 % 19))" -c "flush" >/dev/null
}
old_rows_read_defaults() {  # old_rows_read_defaults <when>
  local kept
  kept=$(q -c "select count(*) from t where id <= 3000 and id % 100 <> 1")
  check "$1: t's rows stored before the ALTER ($kept not updated since) read its defaults" test \
    "$(q -c "select count(*) from t where id <= 3000 and id % 100 <> 1 and c = 7 and d = 'dflt' and e is null and f = 0")" = "$kept"
  check "$1: some of them are left" test "$kept" -gt 2000
  check "$1: r's rows stored before the ALTER read its default" test \
    "$(q -c "select count(*) from r where b like 'old%' and (x is null or x not in (1.5, 2.5))")" = "0"
}

echo "== 1) columns added under views, an index and a paused backfill"
start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
q -c "create table t (id int primary key, g int, v bigint)" -c "create table r (a int, b text)" \
  -c "insert into t select x, x % 11, x * 3 from generate_series(1, 3000) x" \
  -c "insert into r select x, 'old' || (x % 7) from generate_series(1, 1000) x" \
  -c "create materialized view mt as $AGG_Q" -c "create materialized view mcopy as select * from t" \
  -c "create materialized view mr as $R_Q" -c "create index t_g on t (g)" -c "flush" >/dev/null
q -c "set background_ddl = true" -c "set backfill_rate_limit = 0" \
  -c "create materialized view mb as select id, g, v from t where v % 3 <> 0" >/dev/null
check "the background view is still backfilling" test \
  "$(q -c "select status from rw_catalog.rw_materialized_views where name = 'mb'")" = "Creating"
out=$(q -c "alter table t add column c int default 7" -c "alter table t add column d text not null default 'dflt'" \
  -c "alter table t add column e date" -c "alter table t add column f numeric default 0 check (f >= 0)" \
  -c "alter table r add column x float8 default 1.5")
check "columns added to t and r while views read them ($out)" test -z "$out"
write_round 1
q -c "update t set c = 70, e = '2026-01-01' where id % 100 = 1" -c "update r set x = 2.5 where a % 50 = 0" \
  -c "insert into t values (900001, 3, 9, 8, 'new', '2026-02-02', 1)" -c "flush" >/dev/null
q -c "alter materialized view mb set backfill_rate_limit = default" -c "wait" >/dev/null
all_same "after the ALTERs"
old_rows_read_defaults "after the ALTERs"
index_serves "after the ALTERs"
no_failure "after the ALTERs"

echo "== 2) views on the new columns; kill -9 and restart"
q -c "create materialized view mnew as $NEW_Q" -c "create materialized view mrnew as $RNEW_Q" >/dev/null
write_round 2
all_same "with views on the new columns" new
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
old_rows_read_defaults "after kill -9"
write_round 3
q -c "update t set d = 'changed' where id % 7 = 0" -c "delete from t where c = 70 and id % 3 = 0" -c "flush" >/dev/null
all_same "after kill -9" new
index_serves "after kill -9"
no_failure "after kill -9"

echo "== 3) a column added after the restart, a clean restart"
out=$(q -c "alter table t add column h text default 'h'")
check "another column added ($out)" test -z "$out"
write_round 4
stop_server
start_server "$WORK/d" "$WORK/d.log" || { fail "clean restart"; finish; }
write_round 5
all_same "after the clean restart" new
check "the last column's default is read by every older row" test \
  "$(q -c "select count(*) from t where h is distinct from 'h'")" = "0"
index_serves "after the clean restart"
no_failure "after the clean restart"

echo "== 4) a column dropped under an index (kept hidden in the stored rows), through kill -9"
q -c "create table u (id int primary key, k int, gone text, kept int)" \
  -c "insert into u select x, x % 5, 'g' || x, x from generate_series(1, 2000) x" -c "create index u_k on u (k)" \
  -c "flush" >/dev/null
out=$(q -c "alter table u drop column gone")
check "a column dropped with an index reading the table ($out)" test -z "$out"
q -c "insert into u values (5000, 3, 7)" -c "update u set kept = kept + 1 where k = 3" -c "flush" >/dev/null
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
check "after kill -9 the table has its live columns" test \
  "$(q -c "select string_agg(attname, ',' order by attnum) from pg_attribute where attrelid = 'u'::regclass and attnum > 0")" = "id,k,kept"
check "and its rows" test "$(q -c "select count(*), sum(kept) from u")" = "2001|2001408"
check "the index serves a query on its columns" grep -q "using u_k" <<<"$(q -c "explain select id from u where k = 3")"
check "and answers like the table" test "$(q -c "select count(*), sum(id) from u where k = 3")" = \
  "$(q -c "set enable_indexscan = off" -c "select count(*), sum(id) from u where k = 3")"
echo "== 5) a column no materialized view reads dropped under them (no rewrite), through kill -9"
q -c "create table w (id int primary key, a int, unused text, b int)" \
  -c "insert into w select x, x % 9, 'u' || x, x from generate_series(1, 3000) x" \
  -c "create materialized view w_sum as select a, count(*) as n, sum(b) as s from w group by a" \
  -c "create materialized view w_big as select id, b from w where b > 2500" -c "flush" >/dev/null
out=$(q -c "alter table w drop column unused")
check "a column the views do not read dropped ($out)" test -z "$out"
out=$(q -c "alter table w drop column b" 2>&1)
check "a column they read is refused (2BP01)" grep -q "materialized view w_.* depends on column b of table w" <<<"$out"
q -c "insert into w values (5000, 3, 9999)" -c "update w set b = b + 1 where a = 3" -c "delete from w where id % 10 = 0" \
  -c "flush" >/dev/null
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c "insert into w values (5001, 4, 1)" -c "update w set a = 5 where id = 7" -c "flush" >/dev/null
check "after kill -9 the grouped view equals its query" test \
  "$(q -c "select string_agg(a || ':' || n || ':' || s, ',' order by a) from w_sum")" = \
  "$(q -c "select string_agg(a || ':' || n || ':' || s, ',' order by a) from (select a, count(*) as n, sum(b) as s from w group by a) x")"
check "and the filtered one" test "$(q -c "select count(*), sum(b) from w_big")" = \
  "$(q -c "select count(*), sum(b) from w where b > 2500")"
no_failure "after the drop and kill -9"

echo "== 6) columns and the table renamed under views, an index and a sink, through kill -9"
q -c "create view w_v as select id, a from w where b > 100" \
  -c "create index w_a on w (a)" -c "create sink w_sink from w with (connector = 'blackhole')" >/dev/null
out=$(q -c "alter table w rename column a to grp" -c "alter table w rename column b to val" -c "alter table w rename to w2")
check "renamed under views, an index and a sink ($out)" test -z "$out"
q -c "insert into w2 values (6000, 2, 77)" -c "update w2 set val = val + 2 where grp = 2" -c "flush" >/dev/null
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c "insert into w2 values (6001, 6, 5)" -c "delete from w2 where id % 7 = 0" -c "flush" >/dev/null
check "after kill -9 the grouped view equals its query over the renamed columns" test \
  "$(q -c "select string_agg(a || ':' || n || ':' || s, ',' order by a) from w_sum")" = \
  "$(q -c "select string_agg(grp || ':' || n || ':' || s, ',' order by grp) from (select grp, count(*) as n, sum(val) as s from w2 group by grp) x")"
check "its definition names them" grep -qi "SELECT grp AS a, count(\*) AS n, sum(val) AS s FROM w2 GROUP BY grp" \
  <<<"$(q -c "show create materialized view w_sum")"
check "the view reads them" test "$(q -c "select count(*), sum(a) from w_v")" = \
  "$(q -c "select count(*), sum(grp) from w2 where val > 100")"
check "the index serves and answers like the table" test "$(q -c "select count(*), sum(id) from w2 where grp = 3")" = \
  "$(q -c "set enable_indexscan = off" -c "select count(*), sum(id) from w2 where grp = 3")"
check "the sink's definition names the table" grep -qi "from w2" <<<"$(q -c "show create sink w_sink")"
no_failure "after the renames and kill -9"

echo "== 7) a varchar column widened (no rewrite) under an index on it and a view that does not read it, kill -9"
q -c "create table vw (id int primary key, code varchar(4), qty int)" \
  -c "insert into vw select x, 'c' || (x % 100), x from generate_series(1, 2000) x" \
  -c "create index vw_code on vw (code)" -c "create materialized view vw_qty as select sum(qty) as s from vw" \
  -c "flush" >/dev/null
out=$(q -c "alter table vw alter column code type varchar(40)" -c "alter table vw alter column code type text")
check "widened under an index and a view ($out)" test -z "$out"
q -c "insert into vw values (5000, 'a much longer code', 7)" -c "flush" >/dev/null
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c "insert into vw values (5001, 'another long code', 3)" -c "update vw set qty = qty + 1 where code = 'c7'" \
  -c "flush" >/dev/null
check "after kill -9 the index serves the widened column" grep -q "using vw_code" \
  <<<"$(q -c "explain select id from vw where code = 'another long code'")"
check "and answers like the table" test "$(q -c "select count(*), sum(id) from vw where code in ('c7', 'a much longer code')")" = \
  "$(q -c "set enable_indexscan = off" -c "select count(*), sum(id) from vw where code in ('c7', 'a much longer code')")"
check "the view equals its query" test "$(q -c "select s from vw_qty")" = "$(q -c "select sum(qty) from vw")"
no_failure "after the widening and kill -9"

echo "== 8) a column's type changed with a rewrite under indexes (made again), kill -9"
q -c "create table rt (id int primary key, fk int, tag text)" \
  -c "insert into rt select x, x % 50, 't' || (x % 7) from generate_series(1, 3000) x" \
  -c "create index rt_fk on rt (fk)" -c "create index rt_tag on rt (tag)" -c "flush" >/dev/null
out=$(q -c "alter table rt alter column fk type bigint")
check "retyped with a rewrite under two indexes ($out)" test -z "$out"
q -c "insert into rt values (5000, 7, 't3')" -c "update rt set fk = 8 where id = 8" -c "flush" >/dev/null
kill_server
start_server "$WORK/d" "$WORK/d.log" || { fail "restart after kill -9"; finish; }
q -c "insert into rt values (5001, 7, 't9')" -c "delete from rt where id = 57" -c "flush" >/dev/null
for ix in fk tag; do
  cond=$([[ $ix == fk ]] && echo "fk = 7" || echo "tag = 't3'")
  check "after kill -9 index rt_$ix serves" grep -q "using rt_$ix" <<<"$(q -c "explain select id from rt where $cond")"
  check "and answers like the table" test "$(q -c "select count(*), sum(id) from rt where $cond")" = \
    "$(q -c "set enable_indexscan = off" -c "select count(*), sum(id) from rt where $cond")"
done
no_failure "after the rewrite and kill -9"

stop_server
finish
