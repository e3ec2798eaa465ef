#!/usr/bin/env bash
# PostgreSQL 15's command-line tools (Debian's postgresql-client-15), each
# run as an operator would against a database with tables, indexes,
# unique constraints, a domain and a materialized view:
#   vacuumdb (one database, -z, --analyze-in-stages, -a), reindexdb (a
#   database, -a, a schema, a table, an index), clusterdb, createdb and
#   dropdb, pg_isready, pg_dumpall -g (the roles) and pg_dumpall (every
#   database) restored into a fresh server, whose databases then dump as
#   the first server's do.
# Each must exit 0; the operations that only check what they name
# (REINDEX, CLUSTER: indexes here are kept by the writes or the stream, rows
# are in key order) also refuse what PostgreSQL refuses.
#
#   tests/integration/pg_tools_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
PGBIN=/usr/lib/postgresql/15/bin

NAME=pg_tools_test
source "$HERE/lib.sh"

[[ -x "$PGBIN/vacuumdb" ]] || { fail "postgresql-client-15 is not installed (scripts/install-deps.sh installs it)"; finish; }
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
export PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER=root PGSSLMODE=disable PGGSSENCMODE=disable
q() { local db="$1"; shift; psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }
tool() {  # tool LABEL COMMAND...: ok when it exits 0
  local label="$1"; shift
  if "$@" >"$WORK/tool.out" 2>&1; then ok "$label"; else fail "$label: $(grep -i -m 3 error "$WORK/tool.out")"; fi
}
refuses() {  # refuses LABEL SQLSTATE SQL: the statement fails with that SQLSTATE
  local label="$1" code="$2" sql="$3" got
  got=$(psql -X -q -At -d dev -v VERBOSITY=verbose -c "$sql" 2>&1 | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' | head -1)
  if [[ "$got" == "$code" ]]; then ok "$label ($code)"; else fail "$label: got '$got', wanted $code"; fi
}

echo "== a database to work on"
q dev -c "CREATE DOMAIN positive AS integer CHECK (VALUE > 0)" \
  -c "CREATE TABLE items (id int PRIMARY KEY, name text UNIQUE, qty positive)" \
  -c "CREATE INDEX items_lower ON items (lower(name))" \
  -c "INSERT INTO items SELECT i, 'item' || i, i FROM generate_series(1, 500) i" \
  -c "CREATE MATERIALIZED VIEW item_count AS SELECT count(*) AS n FROM items" \
  -c "CREATE SCHEMA other" -c "CREATE TABLE other.t (a int)" -c "INSERT INTO other.t VALUES (1)" >/dev/null \
  && ok "tables, indexes, a domain, a view" || fail "set up"

echo "== vacuumdb, reindexdb, clusterdb"
tool "vacuumdb dev" "$PGBIN/vacuumdb" dev
tool "vacuumdb -z dev" "$PGBIN/vacuumdb" -z dev
tool "vacuumdb --analyze-in-stages dev" "$PGBIN/vacuumdb" --analyze-in-stages dev
tool "vacuumdb -a" "$PGBIN/vacuumdb" -a
tool "reindexdb dev" "$PGBIN/reindexdb" dev
tool "reindexdb -a" "$PGBIN/reindexdb" -a
tool "reindexdb -s other dev" "$PGBIN/reindexdb" -S other dev
tool "reindexdb -t items dev" "$PGBIN/reindexdb" -t items dev
tool "reindexdb -i items_lower -i items_pkey -i items_name_key dev" "$PGBIN/reindexdb" -i items_lower -i items_pkey -i items_name_key dev
tool "clusterdb dev" "$PGBIN/clusterdb" dev
tool "clusterdb -a" "$PGBIN/clusterdb" -a
refuses "REINDEX INDEX of a table" 42809 "REINDEX INDEX items"
refuses "REINDEX of another database" 0A000 "REINDEX DATABASE postgres"
refuses "REINDEX DATABASE in a transaction block" 25001 "BEGIN; REINDEX DATABASE dev"
refuses "CLUSTER of a table never clustered" 42704 "CLUSTER items"
refuses "CLUSTER on a missing index" 42704 "CLUSTER items USING nosuch"
check "CLUSTER items USING items_lower" q dev -c "CLUSTER items USING items_lower"
check "the rows are all there" test "$(q dev -c 'SELECT count(*), sum(qty) FROM items')" = "500|125250"

echo "== createdb, dropdb, pg_isready"
tool "createdb scratch" "$PGBIN/createdb" scratch
check "scratch is listed" test "$(q dev -c "SELECT count(*) FROM pg_database WHERE datname = 'scratch'")" = "1"
tool "dropdb scratch" "$PGBIN/dropdb" scratch
tool "dropdb --if-exists scratch" "$PGBIN/dropdb" --if-exists scratch
tool "pg_isready" "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PORT"

echo "== pg_dumpall"
tool "pg_dumpall -g" "$PGBIN/pg_dumpall" -g -f "$WORK/globals.sql"
check "the roles are dumped" grep -q '^CREATE ROLE root;' "$WORK/globals.sql"
tool "pg_dumpall" "$PGBIN/pg_dumpall" -f "$WORK/all.sql"
FIRST_PORT=$PORT FIRST_PID=$SERVER_PID
if start_server "$WORK/data2" "$WORK/server2.log"; then
  # A fresh server has root and dev already: those two statements fail, as
  # they would on a PostgreSQL cluster that has them; ALTER ROLE's
  # attributes are the users-and-privileges issue's (22), refused until
  # then; nothing else may fail.
  psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d postgres -f "$WORK/all.sql" >"$WORK/restore.out" 2>&1
  unexpected=$(grep 'ERROR' "$WORK/restore.out" | grep -v -e 'role "root" already exists' -e 'database "dev" already exists' \
    -e 'alter_role_stmt is not supported')
  if [[ -z "$unexpected" ]]; then ok "pg_dumpall's script restores into a fresh server"; else fail "restore: $(echo "$unexpected" | head -3)"; fi
  for db in dev postgres; do
    "$PGBIN/pg_dump" -h 127.0.0.1 -p "$FIRST_PORT" -U root "$db" | grep -v '^\\\(un\)\?restrict ' >"$WORK/first_$db.sql" 2>&1
    "$PGBIN/pg_dump" -h 127.0.0.1 -p "$PORT" -U root "$db" | grep -v '^\\\(un\)\?restrict ' >"$WORK/second_$db.sql" 2>&1
    if diff <(sort "$WORK/first_$db.sql") <(sort "$WORK/second_$db.sql") >"$WORK/$db.diff"; then
      ok "database $db dumps the same on both servers"
    else
      fail "database $db differs:"; sed 's/^/    /' "$WORK/$db.diff" | head -10
    fi
  done
  kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=$FIRST_PID PORT=$FIRST_PORT
else
  fail "start a second server"
fi
finish
