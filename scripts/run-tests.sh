#!/usr/bin/env bash
# Runs every test: GoogleTest units, the sqllogictest suite against a fresh
# server, and the integration tests. Prints one summary line at the end,
# "N passed, M failed", and exits non-zero when anything failed.
set -uo pipefail
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$ROOT/$BUILD_DIR/freshet"
WORK=$(mktemp -d /tmp/freshet-test.XXXXXX)
SERVER_PID=""
passed=0
failed=0
known=0
KNOWN="$ROOT/tests/known_failures.txt"

# Whether a failure is listed in tests/known_failures.txt.
is_known() {  # kind name
  grep -qE "^$1 +$(printf '%s' "$2" | sed 's/[.[\*^$/]/\\&/g')( |$)" "$KNOWN" 2>/dev/null
}

cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# Adds the counts of a runner's "N passed, M failed" line to the totals.
count() {
  local line
  line=$(grep -E '^[A-Za-z:]* ?[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then
    echo "  (no summary line: counted as one failure)"
    failed=$((failed + 1))
    return
  fi
  local p f
  p=$(echo "$line" | sed -E 's/.*([0-9]+) passed.*/\1/;s/^[^0-9]*//')
  p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
  f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
  passed=$((passed + p))
  failed=$((failed + f))
}

# Starts a server on a free port (it binds port 0 and prints the port).
start_server() {
  local dir=$1 log=$2
  "$BIN" --data-dir "$dir" --port 0 --http-port 0 >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 200); do
    PORT=$(sed -nE 's/.*-p ([0-9]+) .*/\1/p' "$log" | head -n 1)
    if [ -n "$PORT" ]; then return 0; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.05
  done
  echo "server did not start:"; cat "$log"
  return 1
}

echo "== unit tests"
"$ROOT/$BUILD_DIR/freshet_unit_tests" --gtest_brief=1 >"$WORK/unit.log" 2>&1
u_rc=$?
tail -n 3 "$WORK/unit.log"
u_pass=$(grep -oE '\[  PASSED  \] [0-9]+' "$WORK/unit.log" | grep -oE '[0-9]+$' || echo 0)
# --gtest_brief prints one "[  FAILED  ] Suite.Test (N ms)" line per failed
# test and no "N tests, listed below" summary; the exit code decides too.
u_fail=$(grep -cE '^\[  FAILED  \] [A-Za-z0-9_/]+\.[A-Za-z0-9_/]+' "$WORK/unit.log")
if [ "$u_rc" -ne 0 ] && [ "${u_fail:-0}" -eq 0 ]; then u_fail=1; fi
grep -E '^\[  FAILED  \] [A-Za-z0-9_/]+\.' "$WORK/unit.log" | sed 's/^/  /'
passed=$((passed + ${u_pass:-0}))
failed=$((failed + ${u_fail:-0}))
if ! grep -q 'PASSED' "$WORK/unit.log"; then failed=$((failed + 1)); fi

echo "== sqllogictest"
if start_server "$WORK/slt-data" "$WORK/slt-server.log"; then
  mapfile -t files < <(find "$ROOT/tests/slt" -name '*.slt' ! -name '*.slow.slt' | sort)
  if [ ${#files[@]} -gt 0 ]; then
    "$ROOT/$BUILD_DIR/slt_runner" --host 127.0.0.1 --port "$PORT" --list-failures "${files[@]}" >"$WORK/slt.log" 2>&1
    grep -E '^(FAIL|ok) ' "$WORK/slt.log" | sed 's/^/  /' | head -n 200
    grep -A3 -E '^FAIL' "$WORK/slt.log" | head -n 80
    tail -n 1 "$WORK/slt.log"
    count "$WORK/slt.log"
    # Failures listed in tests/known_failures.txt do not fail the run.
    while read -r loc; do
      rel=${loc#"$ROOT"/}
      if is_known slt "$rel"; then
        echo "  known failure: $rel"
        known=$((known + 1)); failed=$((failed - 1))
      fi
    done < <(sed -n '/^Failures:/,$p' "$WORK/slt.log" | grep -E '^  ' | sed 's/^ *//')
    grep -E '^slt ' "$KNOWN" 2>/dev/null | awk '{print $2}' | while read -r k; do
      if ! grep -q "$ROOT/$k\$" <(sed -n '/^Failures:/,$p' "$WORK/slt.log" | sed 's/^ *//'); then
        echo "  known failure now passes (remove it from tests/known_failures.txt): $k"
      fi
    done
  fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "  the server died during the sqllogictest run:"; tail -n 20 "$WORK/slt-server.log"
    failed=$((failed + 1))
  fi
  kill -TERM "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
else
  failed=$((failed + 1))
fi

echo "== integration tests"
for t in "$ROOT"/tests/integration/*_test*; do
  [ -x "$t" ] || continue
  case "$t" in *.cc|*.md) continue ;; esac
  name=$(basename "$t")
  "$t" "$BIN" >"$WORK/$name.log" 2>&1
  rc=$?
  echo "  $name: $(tail -n 1 "$WORK/$name.log") (exit $rc)"
  if [ $rc -ne 0 ]; then
    # The failed checks themselves (they scroll out of the tail), then the end.
    grep -E 'FAILED|FAIL:|^ *FAIL ' "$WORK/$name.log" | head -n 20 | sed 's/^/    /'
    tail -n 30 "$WORK/$name.log" | sed 's/^/    /'
  fi
  before=$failed
  before_passed=$passed
  count "$WORK/$name.log"
  if [ $rc -ne 0 ] && [ $failed -eq $before ]; then failed=$((failed + 1)); fi
  if is_known integration "$name"; then
    if [ $rc -ne 0 ]; then
      echo "  known failure: $name"
      known=$((known + failed - before)); failed=$before
    else
      echo "  known failure now passes (remove it from tests/known_failures.txt): $name"
    fi
  fi
done

# libFuzzer targets (make fuzz), FUZZ_SECONDS each (default 60; 0 skips),
# when their build exists (FUZZ_BUILD_DIR, default build-fuzz).
FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
if [ "$FUZZ_SECONDS" != 0 ] && [ -x "$ROOT/$FUZZ_BUILD_DIR/fuzz_sql" ]; then
  echo "== fuzzers ($FUZZ_SECONDS s each)"
  FUZZ_ARTIFACTS=${FUZZ_ARTIFACTS:-$ROOT/$FUZZ_BUILD_DIR/artifacts} \
    bash "$ROOT/scripts/run-fuzz.sh" "$FUZZ_BUILD_DIR" "$FUZZ_SECONDS" >"$WORK/fuzz.log" 2>&1
  grep -vE '^fuzz: ' "$WORK/fuzz.log"
  tail -n 1 "$WORK/fuzz.log" | sed 's/^/  /'
  count "$WORK/fuzz.log"
fi

echo
if [ "$known" -gt 0 ]; then echo "$known known failures of features not built yet (tests/known_failures.txt)"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
