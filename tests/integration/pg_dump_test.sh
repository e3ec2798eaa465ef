#!/usr/bin/env bash
# pg_dump and restore (PostgreSQL 15's pg_dump and psql, from Debian's
# postgresql-15) against Freshet (issue 18). pg_dump/schema.sql makes
# schemas, tables (serial, identity, composite and quoted keys, CHECK,
# UNIQUE, FOREIGN KEY, defaults, comments, most types), sequences, views
# (a CTE, WITH RECURSIVE), materialized views on tables and on each other,
# indexes and rows. Then:
#   1. `pg_dump -s` runs, and dumps the same objects PostgreSQL 15 dumps for
#      the same script (pg_dump/pg15_objects.txt, from regen_expected.sh);
#   2. its output restores into a fresh database with psql (ON_ERROR_STOP),
#      and dumping that database gives the same output;
#   3. the same for a full dump (rows as COPY, sequence positions, REFRESH
#      of the materialized views); the restored relations hold the same
#      rows and the sequences go on from the same values;
#   4. the full dump restores in one transaction too (psql
#      --single-transaction: materialized views on each other in one
#      block), with the same rows and the same dump;
#   5. archive formats: pg_dump -Fc restored by pg_restore and pg_restore
#      -j 2, pg_dump -Fd -j 2 by pg_restore -j 2, each dumping the same
#      schema and rows again.
#
#   tests/integration/pg_dump_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
PG_DUMP=/usr/lib/postgresql/15/bin/pg_dump

NAME=pg_dump_test
source "$HERE/lib.sh"

[[ -x "$PG_DUMP" ]] || { fail "pg_dump is not installed (scripts/install-deps.sh installs postgresql-15)"; finish; }
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
export PGSSLMODE=disable PGGSSENCMODE=disable
q() { local db="$1"; shift; psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d "$db" -v ON_ERROR_STOP=1 "$@"; }
dump() { "$PG_DUMP" -h 127.0.0.1 -p "$PORT" -U root "$@"; }
# A dump without what differs between any two runs: psql's \restrict keys,
# and the order of a table's rows in COPY (neither system promises one).
normalise() {
  grep -v '^\\\(un\)\?restrict ' "$1" | awk '
    /^COPY .* FROM stdin;$/ { print; copying = 1; n = 0; next }
    copying && $0 == "\\." { cmd = "sort"; for (i = 0; i < n; i++) print rows[i] | cmd; close(cmd); print; copying = 0; next }
    copying { rows[n++] = $0; next }
    { print }'
}

echo "== the schema and its rows"
if q dev -f "$HERE/pg_dump/schema.sql" >"$WORK/load.out" 2>&1; then ok "load pg_dump/schema.sql"; else fail "load: $(grep ERROR "$WORK/load.out" | head -3)"; finish; fi

echo "== pg_dump -s"
if dump -s dev >"$WORK/schema1.sql" 2>"$WORK/dump.err"; then ok "pg_dump -s"; else fail "pg_dump -s: $(head -3 "$WORK/dump.err")"; fi
grep '^-- Name: ' "$WORK/schema1.sql" | LC_ALL=C sort >"$WORK/objects.txt"
if diff "$HERE/pg_dump/pg15_objects.txt" "$WORK/objects.txt" >"$WORK/objects.diff"; then
  ok "the same objects as PostgreSQL 15's dump ($(wc -l <"$WORK/objects.txt"))"
else
  fail "objects differ from PostgreSQL 15's dump:"; sed 's/^/    /' "$WORK/objects.diff" | head -20
fi
q dev -c "CREATE DATABASE restored_schema" -c "CREATE DATABASE restored_all"
if q restored_schema -f "$WORK/schema1.sql" >"$WORK/restore1.out" 2>&1; then ok "restore the schema"; else fail "restore the schema: $(grep ERROR "$WORK/restore1.out" | head -3)"; fi
dump -s restored_schema >"$WORK/schema2.sql" 2>&1
if diff <(normalise "$WORK/schema1.sql") <(normalise "$WORK/schema2.sql") >"$WORK/schema.diff"; then
  ok "the restored database dumps the same schema"
else
  fail "the restored schema differs:"; sed 's/^/    /' "$WORK/schema.diff" | head -20
fi

echo "== pg_dump (schema and rows)"
if dump dev >"$WORK/all1.sql" 2>"$WORK/dump.err"; then ok "pg_dump"; else fail "pg_dump: $(head -3 "$WORK/dump.err")"; fi
check "the dump has the rows, the sequences' positions and the views' REFRESH" \
  test "$(grep -c -e '^COPY ' -e 'pg_catalog.setval' -e '^REFRESH MATERIALIZED VIEW' "$WORK/all1.sql")" -ge 12
if q restored_all -f "$WORK/all1.sql" >"$WORK/restore2.out" 2>&1; then ok "restore the dump"; else fail "restore the dump: $(grep ERROR "$WORK/restore2.out" | head -3)"; fi
dump restored_all >"$WORK/all2.sql" 2>&1
if diff <(normalise "$WORK/all1.sql") <(normalise "$WORK/all2.sql") >"$WORK/all.diff"; then
  ok "the restored database dumps the same schema and rows"
else
  fail "the restored dump differs:"; sed 's/^/    /' "$WORK/all.diff" | head -20
fi
# same_rows FROM TO WHAT REL...: each relation holds in database TO the rows
# it holds in FROM, and some (but big_accounts: no account has more than
# ten orders).
same_rows() {
  local from="$1" to="$2" what="$3" rel a b; shift 3
  for rel in "$@"; do
    a=$(q "$from" -c "SELECT * FROM $rel ORDER BY 1, 2" 2>&1)
    b=$(q "$to" -c "SELECT * FROM $rel ORDER BY 1, 2" 2>&1)
    if [[ "$a" == "$b" && ( -n "$a" || "$rel" == public.big_accounts ) ]]; then
      ok "$rel$what holds the same rows"
    else
      fail "$rel$what differs: $(diff <(echo "$a") <(echo "$b") | head -5)"
    fi
  done
}
same_rows dev restored_all "" public.t1 public.t2 public.mv1 public.v1 app.accounts app.orders app.tickets \
  app.order_totals public.big_accounts app.rich app.with_cte app.recursive_numbers 'app."Mixed Case"' public.events \
  public.tasks app.open_tasks public.scores
for seq in public.s1 public.t2_a_seq app.ticket app.accounts_id_seq; do
  a=$(q dev -c "SELECT nextval('$seq')"); b=$(q restored_all -c "SELECT nextval('$seq')")
  if [[ "$a" == "$b" ]]; then ok "$seq goes on from $a"; else fail "$seq: $a, restored $b"; fi
done

echo "== the full dump restored in one transaction (psql --single-transaction)"
# Materialized views on materialized views in one block: each enters the
# block's catalog at once and starts when it commits.
q dev -c "CREATE DATABASE restored_single"
if q restored_single --single-transaction -f "$WORK/all1.sql" >"$WORK/restore3.out" 2>&1; then
  ok "restore the dump in one transaction"
else
  fail "restore the dump in one transaction: $(grep ERROR "$WORK/restore3.out" | head -3)"
fi
same_rows restored_all restored_single " restored in one transaction" public.mv1 app.order_totals \
  public.big_accounts app.active_accounts public.events_per_kind app.rich
dump restored_single >"$WORK/all3.sql" 2>&1
if diff <(normalise "$WORK/all1.sql") <(normalise "$WORK/all3.sql") >"$WORK/all3.diff"; then
  ok "the database restored in one transaction dumps the same schema and rows"
else
  fail "the database restored in one transaction differs:"; sed 's/^/    /' "$WORK/all3.diff" | head -20
fi

echo "== archive formats and parallel jobs (pg_dump -Fc / -Fd -j 2, pg_restore [-j 2])"
# pg_dump -j's workers take the leader's snapshot (pg_export_snapshot, SET
# TRANSACTION SNAPSHOT); pg_restore -j adds a table's key, its unique and
# other indexes from two connections at once (RelationDdlLock).
PG_RESTORE=/usr/lib/postgresql/15/bin/pg_restore
restore_archive() {  # restore_archive LABEL DATABASE PG_RESTORE_ARGS...
  local label="$1" db="$2"; shift 2
  q dev -c "CREATE DATABASE $db"
  if "$PG_RESTORE" -h 127.0.0.1 -p "$PORT" -U root -d "$db" --exit-on-error "$@" >"$WORK/$db.out" 2>&1; then
    ok "pg_restore $label"
  else
    fail "pg_restore $label: $(grep -i error "$WORK/$db.out" | head -3)"
  fi
  dump "$db" >"$WORK/$db.sql" 2>&1
  if diff <(normalise "$WORK/all_now.sql") <(normalise "$WORK/$db.sql") >"$WORK/$db.diff"; then
    ok "the database restored by pg_restore $label dumps the same schema and rows"
  else
    fail "the database restored by pg_restore $label differs:"; sed 's/^/    /' "$WORK/$db.diff" | head -20
  fi
}
# What dev dumps now (the checks above drew from its sequences).
dump dev >"$WORK/all_now.sql" 2>&1
if dump -Fc -f "$WORK/all.custom" dev 2>"$WORK/dumpc.err"; then ok "pg_dump -Fc"; else fail "pg_dump -Fc: $(head -3 "$WORK/dumpc.err")"; fi
restore_archive "of -Fc" restored_custom "$WORK/all.custom"
restore_archive "-j 2 of -Fc" restored_custom_j "$WORK/all.custom" -j 2
if dump -Fd -j 2 -f "$WORK/all.dir" dev 2>"$WORK/dumpd.err"; then ok "pg_dump -Fd -j 2"; else fail "pg_dump -Fd -j 2: $(head -3 "$WORK/dumpd.err")"; fi
restore_archive "-j 2 of -Fd" restored_dir_j "$WORK/all.dir" -j 2
same_rows dev restored_dir_j " restored by pg_restore -j 2" public.t1 app.accounts app.orders public.scores public.tasks

echo "== SQL functions (and views calling them) through pg_dump and a restore"
# pg_dump writes the functions first, with check_function_bodies off (a
# body reads a table created after it) and an empty search_path; a view
# calling a set-returning function is created before anything runs it.
q dev -c "CREATE DATABASE fdump" >/dev/null
q fdump -c "CREATE TABLE ft (k int PRIMARY KEY, v int)" \
  -c "CREATE FUNCTION add1(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'select x + 1'" \
  -c "CREATE FUNCTION rows_above(lim int DEFAULT 5) RETURNS TABLE (k int, v int) LANGUAGE sql STABLE AS 'select k, v from ft where v > lim'" \
  -c "CREATE FUNCTION twice(x int) RETURNS int RETURN x * 2" \
  -c "CREATE SCHEMA fs" -c "CREATE FUNCTION fs.neg(x int) RETURNS int LANGUAGE sql STRICT AS \$\$ SELECT -x \$\$" \
  -c "COMMENT ON FUNCTION add1(int) IS 'plus one'" \
  -c "CREATE VIEW fv AS SELECT add1(k) AS a, twice(v) AS t, fs.neg(k) AS n FROM ft" \
  -c "CREATE VIEW fv2 AS SELECT * FROM rows_above(1)" \
  -c "INSERT INTO ft VALUES (1, 10), (2, 3)" >/dev/null
dump fdump >"$WORK/fdump.sql" 2>&1
check "the dump creates the functions" grep -q "CREATE FUNCTION public.rows_above(lim integer DEFAULT 5) RETURNS TABLE(k integer, v integer)" "$WORK/fdump.sql"
q dev -c "CREATE DATABASE frestored" >/dev/null
if q frestored -f "$WORK/fdump.sql" >"$WORK/frestore.out" 2>&1; then ok "the dump restores (ON_ERROR_STOP)"; else fail "restore: $(grep -i error "$WORK/frestore.out" | head -3)"; fi
dump frestored >"$WORK/frestored.sql" 2>&1
if diff <(normalise "$WORK/fdump.sql") <(normalise "$WORK/frestored.sql") >"$WORK/f.diff"; then
  ok "the restored database dumps the same"
else
  fail "the restored database dumps otherwise:"; sed 's/^/    /' "$WORK/f.diff" | head -20
fi
check "the restored views call the functions" test "$(q frestored -c 'SELECT a, t, n FROM fv ORDER BY a' | tr '\n' ' ')" = "2|20|-1 3|6|-2 "
check "and the set-returning one" test "$(q frestored -c 'SELECT k, v FROM fv2 ORDER BY k' | tr '\n' ' ')" = "1|10 2|3 "
check "the comment came along" test "$(q frestored -c "SELECT obj_description(oid, 'pg_proc') FROM pg_proc WHERE proname = 'add1'")" = "plus one"

[[ -n "${KEEP_DUMP:-}" ]] && cp "$WORK"/all1.sql /tmp/all1.sql
finish
