#!/usr/bin/env bash
# Random query generator for materialized views (see view_fuzz_test.cc,
# which this script builds with g++ and libpq): per seed, random tables,
# rows and queries (joins with non-equi conditions, subqueries, aggregates
# with FILTER and DISTINCT, GROUP BY/HAVING, top-N, UNION, CASE/COALESCE,
# views on views), each created as a materialized view; random DML rounds
# with a FLUSH after each; every view must equal its query run as a batch
# SELECT on Freshet, and that must equal the query's result on a real
# PostgreSQL 15 holding the same data.
#
#   tests/integration/view_fuzz_test.sh [path/to/freshet]
#
# VIEW_FUZZ_SEED (one seed), VIEW_FUZZ_SEEDS (how many, from VIEW_FUZZ_SEED
# or 1), VIEW_FUZZ_QUERIES, VIEW_FUZZ_ROUNDS, VIEW_FUZZ_SQL_LOG=FILE (every
# statement), VIEW_FUZZ_KNOWN_BUGS=1|name,... (shapes known to be broken),
# VIEW_FUZZ_SHAPES, VIEW_FUZZ_ONLY, VIEW_FUZZ_VERBOSE: see the .cc. A failure
# prints the seed, the query, both results and a psql reproduction.
# VIEW_FUZZ_NO_PG=1 runs without PostgreSQL (views vs batch only); PG_BIN
# (default /usr/lib/postgresql/15/bin) says where PostgreSQL is; TIMEOUT
# (default 300) bounds the program in seconds.
#
# Starts Freshet (a private copy of the binary: build/freshet may be rebuilt
# meanwhile) with a temp data directory and PostgreSQL (initdb in the temp
# directory, trust auth, C collation, as user postgres when run as root),
# both on free 127.0.0.1 ports; both are stopped and the directory removed on
# any exit. Prints "N passed, M failed" last; exits non-zero when anything
# failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=view_fuzz_test
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

source "$HERE/lib.sh"

source "$HERE/pg15.sh"

# A private copy of the binary.
if ! cp "$BIN" "$WORK/freshet"; then fail "copy $BIN"; finish; fi
BIN="$WORK/freshet"

echo "== build $NAME.cc"
if ! g++ -std=c++20 -O1 -I/usr/include/postgresql "$HERE/$NAME.cc" -lpq -pthread -o "$WORK/$NAME" 2>"$WORK/build.log"; then
  cat "$WORK/build.log"; fail "build $NAME.cc"; finish
fi

PG_ARGS=()
if [[ "${VIEW_FUZZ_NO_PG:-0}" == 1 ]]; then
  echo "== no PostgreSQL (VIEW_FUZZ_NO_PG=1): views are compared with batch queries only"
else
  echo "== start PostgreSQL ($PG_BIN)"
  [[ -x "$PG_BIN/postgres" ]] || { fail "no PostgreSQL at $PG_BIN (postgresql-15; or VIEW_FUZZ_NO_PG=1)"; finish; }
  if ! start_pg; then fail "start PostgreSQL"; finish; fi
  echo "  port $PG_PORT ($("$PG_BIN/postgres" --version))"
  PG_ARGS=(127.0.0.1 "$PG_PORT")
fi

echo "== start Freshet"
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "  port $PORT"

echo "== run"
timeout "${TIMEOUT:-300}" "$WORK/$NAME" 127.0.0.1 "$PORT" "${PG_ARGS[@]}" | tee "$WORK/run.log"
rc=${PIPESTATUS[0]}
line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$WORK/run.log" | tail -n 1)"
if [[ -n "$line" ]]; then
  passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
  failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
  [[ $rc -ne 0 && "$line" == *" 0 failed" ]] && fail "the test program exited with code $rc"
else
  fail "the test program ended without a summary (exit code $rc$([[ $rc -eq 124 ]] && echo ": timed out after ${TIMEOUT:-300} s"))"
fi

echo "== the server afterwards"
if kill -0 "$SERVER_PID" 2>/dev/null && ready "$PORT"; then
  ok "the server is still running and accepting connections"
  kill -TERM "$SERVER_PID"
  for _ in $(seq 1 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    fail "the server did not exit within 60 s of SIGTERM"
  else
    wait "$SERVER_PID"; rc=$?; SERVER_PID=""
    if [[ $rc -eq 0 ]]; then ok "clean shutdown on SIGTERM"; else fail "shutdown on SIGTERM exited with code $rc"; fi
  fi
else
  wait "$SERVER_PID" 2>/dev/null; rc=$?; SERVER_PID=""
  fail "the server died (exit code $rc$([[ $rc -gt 128 ]] && echo ", signal $((rc - 128))")); its log ends:"
  tail -n 20 "$WORK/server.log" | sed 's/^/    /'
fi
finish
