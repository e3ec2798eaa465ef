#!/usr/bin/env bash
# Enum types against PostgreSQL 15: enum_order.py builds random enum types
# (ADD VALUE at the end, BEFORE, AFTER; RENAME VALUE; before and after rows
# are stored) and compares queries and a materialized view with a private
# PostgreSQL 15 (pg15.sh) holding the same rows.
#
#   tests/integration/enum_order_test.sh [path/to/freshet]
#
# ENUM_SEED (first seed, default 1), ENUM_SEEDS (how many, default 40).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=enum_order_test
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

source "$HERE/lib.sh"
source "$HERE/pg15.sh"

echo "== start PostgreSQL ($PG_BIN)"
[[ -x "$PG_BIN/postgres" ]] || { fail "no PostgreSQL at $PG_BIN (postgresql-15)"; finish; }
if ! start_pg; then fail "start PostgreSQL"; finish; fi
echo "== start Freshet"
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi

echo "== seeds ${ENUM_SEED:-1}.. (${ENUM_SEEDS:-40})"
timeout 600 /usr/bin/python3 "$HERE/enum_order.py" "$PORT" "$PG_PORT" "${ENUM_SEED:-1}" "${ENUM_SEEDS:-40}" | tee "$WORK/run.log"
line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$WORK/run.log" | tail -n 1)"
if [[ -n "$line" ]]; then
  passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
  failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
else
  fail "enum_order.py ended without a summary"
fi
finish
