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
timeout 300 ruby "$CLIENTS/activerecord_test.rb" 127.0.0.1 "$PORT" root dev >"$WORK/ruby.out" 2>&1
rc=$?
sed 's/^/    /' "$WORK/ruby.out" | grep -v '^    *ok:' || true
summary=$(tail -n 1 "$WORK/ruby.out")
if [[ $rc -eq 0 && "$summary" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]]; then
  ok "ActiveRecord: ${BASH_REMATCH[1]} checks"
else
  fail "ActiveRecord (exit $rc): $summary"
fi
if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died"; fi
kill -TERM "$SERVER_PID"
if wait "$SERVER_PID"; then ok "clean shutdown on SIGTERM"; else fail "shutdown exit status $?"; fi
SERVER_PID=""
finish
