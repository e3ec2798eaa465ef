#!/usr/bin/env bash
# Perl's DBI with DBD::Pg against Freshet (issue 18), from Debian
# (libdbd-pg-perl, installed by scripts/install-deps.sh), running
# tests/clients/dbd_pg_test.pl: DDL, prepared statements, DBI's metadata
# calls (table_info, column_info, primary_key_info, foreign_key_info,
# statistics_info, type_info_all), a failed transaction, COPY both ways,
# arrays, LISTEN/NOTIFY. The script passes against PostgreSQL 15 as it is,
# and must against Freshet. Then the server must still be alive and shut
# down cleanly.
#
#   tests/integration/perl_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

NAME=perl_clients_test
source "$HERE/lib.sh"

if ! perl -MDBD::Pg -e 1 2>/dev/null; then
  fail "DBD::Pg is not installed (scripts/install-deps.sh installs libdbd-pg-perl)"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
run_client "DBD::Pg" perl "$CLIENTS/dbd_pg_test.pl" 127.0.0.1 "$PORT" root dev
check_clean_shutdown
finish
