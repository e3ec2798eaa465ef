#!/usr/bin/env bash
# Self-test of slt_runner against a throwaway PostgreSQL 15 cluster.
#
#   tests/runner/selftest/run_against_postgres.sh [path/to/slt_runner]
#
# The runner binary is taken from $1, else $SLT_RUNNER, else build/slt_runner.
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
# Creates the cluster in a temp dir on a free port (as the postgres user when
# run as root, since initdb refuses root), runs the passing and the
# expected-failure suites, checks the results, then stops and removes it.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
RUNNER="${1:-${SLT_RUNNER:-$REPO/build/slt_runner}}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"

[[ -x "$RUNNER" ]] || { echo "slt_runner not found at $RUNNER (pass its path as \$1)" >&2; exit 2; }
[[ -x "$PG_BIN/initdb" ]] || { echo "PostgreSQL binaries not found in $PG_BIN" >&2; exit 2; }
RUNNER="$(realpath "$RUNNER")"
export PATH="$PG_BIN:$PATH"  # the system records call psql

# Runs a command as the postgres OS user when we are root.
as_pg() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

TMP="$(mktemp -d /tmp/slt_selftest.XXXXXX)"
DATA="$TMP/data"
STARTED=0
cleanup() {
  if [[ $STARTED -eq 1 ]]; then
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
[[ $(id -u) -eq 0 ]] && chown postgres: "$TMP"

# A port nobody listens on (bash's /dev/tcp connect fails).
pick_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

echo "== initdb in $DATA"
as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust --no-locale -E UTF8 --no-sync >"$TMP/initdb.log" 2>&1 \
  || { cat "$TMP/initdb.log"; exit 1; }

for attempt in 1 2 3; do
  PORT="$(pick_port)"
  if as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 30 \
      -o "-p $PORT -k $TMP -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null; then
    STARTED=1
    break
  fi
done
[[ $STARTED -eq 1 ]] || { echo "could not start PostgreSQL"; cat "$TMP/server.log"; exit 1; }
echo "== PostgreSQL running on port $PORT"

psql_admin() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres "$@"; }
psql_admin -c "CREATE ROLE root SUPERUSER LOGIN" -c "CREATE DATABASE dev OWNER root"

RUN=("$RUNNER" --engine postgres --user root --port "$PORT")
FAILURES=0
check() {  # check <description> <command...>
  local what="$1"; shift
  if "$@"; then
    echo "  ok: $what"
  else
    echo "  FAILED: $what"
    FAILURES=$((FAILURES + 1))
  fi
}
summary_is() { tail -n 1 "$1" | grep -qx "$2"; }

echo
echo "== passing suite (every record kind)"
set +e
"${RUN[@]}" --check-types "$HERE"/*.slt | tee "$TMP/pass.out"
rc=${PIPESTATUS[0]}
set -e
check "passing suite exits 0" test "$rc" -eq 0
check "passing suite reports no failures" grep -qx "[1-9][0-9]* passed, 0 failed" "$TMP/pass.out"
check "records under skipif/onlyif were skipped" grep -q "records skipped by skipif/onlyif" "$TMP/pass.out"
leftover="$(psql_admin -At -c "SELECT count(*) FROM pg_database WHERE datname LIKE 'slt\_%'")"
check "isolated databases were dropped" test "$leftover" = 0

echo
echo "== --no-isolate runs in the given database"
set +e
"${RUN[@]}" --no-isolate "$HERE/basic.slt" >"$TMP/noisolate.out"
rc=$?
set -e
check "--no-isolate run exits 0" test "$rc" -eq 0
check "--no-isolate left table t in database dev" \
  test "$(psql_admin -d dev -At -c "SELECT count(*) FROM t")" = 3

echo
echo "== expected failures"
set +e
"${RUN[@]}" --list-failures "$HERE"/expected_fail/*.slt >"$TMP/fail.out"
rc=$?
set -e
cat "$TMP/fail.out"
check "expected-failure suite exits non-zero" test "$rc" -ne 0
check "summary line counts every record" summary_is "$TMP/fail.out" "3 passed, 13 failed"
for loc in fail_kinds.slt:{8,14,18,22,26,30,34,38,44,50} fail_part.slt.part:3 connection_lost.slt:7 parse_error.slt:6; do
  check "failure listed: $loc" grep -q "^  .*expected_fail/$loc\$" "$TMP/fail.out"
done
check "included failure names its include site" grep -q "(included from .*fail_kinds.slt:57)" "$TMP/fail.out"
check "connection loss is reported" grep -q "connection to the server was lost" "$TMP/fail.out"
check "result mismatch shows a diff" grep -qx "    -2" "$TMP/fail.out"
check "system failure shows stderr" grep -qx "    to-stderr" "$TMP/fail.out"

echo
echo "== --fail-fast stops at the first failure"
set +e
"${RUN[@]}" --fail-fast "$HERE"/expected_fail/fail_kinds.slt "$HERE/basic.slt" >"$TMP/failfast.out"
rc=$?
set -e
check "--fail-fast exits non-zero" test "$rc" -ne 0
check "--fail-fast summary" summary_is "$TMP/failfast.out" "1 passed, 1 failed"

echo
echo "== unreachable server"
set +e
"$RUNNER" --port "$(pick_port)" "$HERE/basic.slt" >"$TMP/down.out"
rc=$?
set -e
check "unreachable server exits non-zero" test "$rc" -ne 0
check "unreachable server counts the file as failed" summary_is "$TMP/down.out" "0 passed, 1 failed"

echo
if [[ $FAILURES -ne 0 ]]; then
  echo "selftest: $FAILURES check(s) FAILED"
  exit 1
fi
echo "selftest: all checks passed"
