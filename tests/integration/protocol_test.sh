#!/usr/bin/env bash
# PostgreSQL wire-protocol conformance and robustness (see protocol_test.cc,
# which this script builds with g++ and libpq): extended query protocol with
# text and binary formats, DescribePrepared, portals with a row limit, COPY,
# CancelRequest, notices, ParameterStatus, errors with SQLSTATE and position,
# malformed messages, huge and deeply nested statements, SSLRequest; Bind's
# format counts and codes, the 1664-column target list, UTF-8 checks,
# binary receive functions, message limits.
#
#   tests/integration/protocol_test.sh [path/to/freshet]
#
# Starts a durable server on a free port with a temp data directory, runs the
# program against it, checks that the server survived and shuts down cleanly.
# Then three more servers, each for one section:
#  - "connections": max_connections = 8, superuser_reserved_connections = 3,
#    authentication_timeout = 1 (from a config file);
#  - "memory": max_connections = 500, with MALLOC_CONF=tcache:false (what
#    an idle session holds, without jemalloc's per-thread reserves);
#  - "descriptors": started under `prlimit --nofile=128:128`.
# (To validate the program against PostgreSQL: build it as below and run
#  `protocol_test 127.0.0.1 PGPORT --engine postgres`, and the connections
#  section against a PostgreSQL started with the same three settings.)
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=protocol_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

TIMEOUT=900
source "$HERE/lib.sh"

# Adds the counts of the program's summary line in $1 (exit code $2).
count_run() {
  local log="$1" rc="$2" line
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)"
  if [[ -n "$line" ]]; then
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
    [[ $rc -ne 0 && "$line" == *" 0 failed" ]] && fail "the test program exited with code $rc"
  else
    fail "the test program ended without a summary (exit code $rc$([[ $rc -eq 124 ]] && echo ": timed out"))"
  fi
}

# Stops the server with SIGTERM and checks that it exits cleanly.
stop_server() {
  local what="$1" rc
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    wait "$SERVER_PID" 2>/dev/null; rc=$?; SERVER_PID=""
    fail "$what: the server died (exit code $rc)"; return
  fi
  kill -TERM "$SERVER_PID"
  for _ in $(seq 1 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    fail "$what: the server did not exit within 60 s of SIGTERM"
    kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
    return
  fi
  wait "$SERVER_PID"; rc=$?; SERVER_PID=""
  if [[ $rc -eq 0 ]]; then ok "$what: clean shutdown on SIGTERM"; else fail "$what: shutdown on SIGTERM exited with code $rc"; fi
}

echo "== build $NAME.cc"
if ! g++ -std=c++20 -O1 -I/usr/include/postgresql "$HERE/$NAME.cc" -lpq -pthread -o "$WORK/$NAME" 2>"$WORK/build.log"; then
  cat "$WORK/build.log"; fail "build $NAME.cc"; finish
fi

echo "== start the server"
if start_server "$WORK/data" "$WORK/server.log"; then
  echo "  port $PORT"
  echo "== run"
  timeout "$TIMEOUT" "$WORK/$NAME" 127.0.0.1 "$PORT" --server-pid "$SERVER_PID" | tee "$WORK/run.log"
  count_run "$WORK/run.log" "${PIPESTATUS[0]}"
  echo "== the server afterwards"
  if kill -0 "$SERVER_PID" 2>/dev/null && ready "$PORT"; then
    ok "the server is still running and accepting connections"
  else
    fail "the server is not accepting connections; its log ends:"
    tail -n 20 "$WORK/server.log" | sed 's/^/    /'
  fi
  stop_server "main server"
else
  fail "start the server"
fi

echo "== a server with max_connections = 8, superuser_reserved_connections = 3, authentication_timeout = 1"
printf '[server]\nmax_connections = 8\nsuperuser_reserved_connections = 3\nauthentication_timeout = 1\n' >"$WORK/limits.toml"
if start_server "$WORK/data-limits" "$WORK/server-limits.log" -- --config "$WORK/limits.toml"; then
  timeout 300 "$WORK/$NAME" 127.0.0.1 "$PORT" --only connections --max-connections 8 --reserved 3 --auth-timeout 1 \
    --server-pid "$SERVER_PID" | tee "$WORK/run-limits.log"
  count_run "$WORK/run-limits.log" "${PIPESTATUS[0]}"
  stop_server "connection-limits server"
else
  fail "start the server with connection limits"
fi

# Idle-session memory wants room for a few hundred sessions.
echo "== idle sessions' memory (max_connections = 500)"
printf '[server]\nmax_connections = 500\n' >"$WORK/many.toml"
# Without jemalloc's per-thread caches, the figure is what a session holds.
if start_server "$WORK/data-many" "$WORK/server-many.log" env MALLOC_CONF=tcache:false -- --config "$WORK/many.toml"; then
  timeout 300 "$WORK/$NAME" 127.0.0.1 "$PORT" --only memory --server-pid "$SERVER_PID" | tee "$WORK/run-many.log"
  count_run "$WORK/run-many.log" "${PIPESTATUS[0]}"
  stop_server "server with 500 connections"
else
  fail "start the server with 500 connections"
fi

echo "== a server with 128 file descriptors"
if command -v prlimit >/dev/null && start_server "$WORK/data-fds" "$WORK/server-fds.log" prlimit --nofile=128:128 --; then
  timeout 300 "$WORK/$NAME" 127.0.0.1 "$PORT" --only descriptors --server-pid "$SERVER_PID" | tee "$WORK/run-fds.log"
  count_run "$WORK/run-fds.log" "${PIPESTATUS[0]}"
  if grep -q "could not accept new connection" "$WORK/server-fds.log"; then
    ok "the server logged that it could not accept ($(grep -c 'could not accept new connection' "$WORK/server-fds.log") line)"
  else
    fail "the server did not log the accept failure"
  fi
  stop_server "descriptor-limited server"
else
  fail "start the server with 128 file descriptors (needs prlimit)"
fi
finish
