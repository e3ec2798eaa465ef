#!/usr/bin/env bash
# Real Python drivers against Freshet (issue 18): psycopg 3, psycopg2,
# SQLAlchemy 1.4, Django 3.2, Alembic 1.8, asyncpg 0.27 and pgcli 3.5 from
# Debian (python3-psycopg, python3-psycopg2, python3-sqlalchemy,
# python3-django, python3-alembic, python3-asyncpg, pgcli),
# each running
# tests/clients/<driver>_test.py, a script of what an application does with
# it (DDL, DML with parameters, prepared statements, a failed transaction
# and its rollback, COPY both ways, type round trips, pagination, pipeline
# mode, a second connection seeing an autocommitted write; SQLAlchemy's
# create_all, ORM session with savepoints and inspect() reflection; Django's
# migrate and ORM; Alembic's operations and autogenerate; asyncpg's binary
# protocol, cursors, binary COPY, LISTEN/NOTIFY and pool; pgcli's completion
# metadata and backslash commands). Every script
# passes against PostgreSQL 15 as it is, and must against Freshet. Then the
# server must still be alive and shut down cleanly.
#
#   tests/integration/python_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
PY=/usr/bin/python3

NAME=python_clients_test
source "$HERE/lib.sh"

if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
for driver in psycopg psycopg2 sqlalchemy django alembic asyncpg pgcli; do
  echo "== $driver"
  if ! "$PY" -c "import $driver" 2>/dev/null; then
    fail "$driver is not installed (scripts/install-deps.sh installs python3-$driver)"
    continue
  fi
  run_client "$driver" "$PY" "$CLIENTS/${driver}_test.py" 127.0.0.1 "$PORT" root dev
done
check_clean_shutdown
finish
