#!/usr/bin/env bash
# Real Node.js drivers against Freshet (issue 18): node-postgres (pg) and
# postgres.js, from npm at the versions tests/clients/node/package-lock.json
# pins (scripts/install-deps.sh installs them with npm ci), running
# tests/clients/node/node_clients_test.mjs: what an application does with
# them (parameters, named prepared statements, type round trips, a failed
# transaction and its rollback, bound LIMIT/OFFSET, SHOW and EXPLAIN as
# prepared statements, pools, sql.begin with savepoints, a cursor read in
# pages, notices, unique and check violations with their fields). The
# script passes against PostgreSQL 15 as it is, and must against Freshet.
# Then the server must still be alive and shut down cleanly.
#
#   tests/integration/node_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients/node" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

NAME=node_clients_test
source "$HERE/lib.sh"

if ! command -v node >/dev/null 2>&1 || [[ ! -d "$CLIENTS/node_modules/pg" || ! -d "$CLIENTS/node_modules/postgres" ]]; then
  fail "node, pg or postgres is not installed (scripts/install-deps.sh installs them)"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
timeout 300 node "$CLIENTS/node_clients_test.mjs" 127.0.0.1 "$PORT" root dev >"$WORK/node.out" 2>&1
rc=$?
sed 's/^/    /' "$WORK/node.out" | grep -v '^    *ok:' || true
summary=$(tail -n 1 "$WORK/node.out")
if [[ $rc -eq 0 && "$summary" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]]; then
  ok "node-postgres and postgres.js: ${BASH_REMATCH[1]} checks"
else
  fail "node clients (exit $rc): $summary"
fi
if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died"; fi
kill -TERM "$SERVER_PID"
if wait "$SERVER_PID"; then ok "clean shutdown on SIGTERM"; else fail "shutdown exit status $?"; fi
SERVER_PID=""
finish
