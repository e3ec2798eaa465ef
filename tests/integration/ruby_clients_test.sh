#!/usr/bin/env bash
# Rails' ActiveRecord 6.1 against Freshet (issue 18), from Debian
# (ruby-activerecord over ruby-pg, installed by scripts/install-deps.sh),
# running tests/clients/activerecord_test.rb: connecting (its pg_type type
# map, IntervalStyle iso_8601), a migration that creates and alters
# tables, the schema read back and dumped as schema.rb, and the ORM's
# everyday work. The script passes against PostgreSQL 15 as it is, and
# must against Freshet. Then the server must still be alive and shut down
# cleanly.
#
#   tests/integration/ruby_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

NAME=ruby_clients_test
source "$HERE/lib.sh"

if ! command -v ruby >/dev/null 2>&1 || ! ruby -e 'require "active_record"; require "pg"' 2>/dev/null; then
  fail "ruby, ruby-pg or ruby-activerecord is not installed (scripts/install-deps.sh installs them)"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
run_client "ActiveRecord" ruby "$CLIENTS/activerecord_test.rb" 127.0.0.1 "$PORT" root dev
check_clean_shutdown
finish
