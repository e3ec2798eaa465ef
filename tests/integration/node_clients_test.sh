#!/usr/bin/env bash
# Real Node.js drivers against Freshet (issue 18): node-postgres (pg) and
# postgres.js, from npm at the versions tests/clients/node/package-lock.json
# pins (scripts/install-deps.sh installs them with npm ci), running
# tests/clients/node/node_clients_test.mjs: what an application does with
# them (parameters, named prepared statements, type round trips, a failed
# transaction and its rollback, bound LIMIT/OFFSET, SHOW and EXPLAIN as
# prepared statements, pools, sql.begin with savepoints, a cursor read in
# pages, notices, unique and check violations with their fields); then
# tests/clients/node/orm_test.mjs: Sequelize, Knex and TypeORM making and
# altering their schemas by themselves (sync and alter, migrations,
# synchronize, each reading the catalogs back) and doing an application's
# work through them. Both scripts pass against PostgreSQL 15 as they are,
# and must against Freshet. Then the server must still be alive and shut
# down cleanly.
#
#   tests/integration/node_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients/node" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

NAME=node_clients_test
source "$HERE/lib.sh"

if ! command -v node >/dev/null 2>&1 || [[ ! -d "$CLIENTS/node_modules/pg" || ! -d "$CLIENTS/node_modules/postgres" ||
  ! -d "$CLIENTS/node_modules/sequelize" || ! -d "$CLIENTS/node_modules/typeorm" ]]; then
  fail "node or its packages (pg, postgres, sequelize, knex, typeorm) are not installed (scripts/install-deps.sh installs them)"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
run_client "node-postgres and postgres.js" node "$CLIENTS/node_clients_test.mjs" 127.0.0.1 "$PORT" root dev
run_client "Sequelize, Knex and TypeORM" node "$CLIENTS/orm_test.mjs" 127.0.0.1 "$PORT" root dev
check_clean_shutdown
finish
