#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (make fuzz) for a bounded
# time, starting from the committed seed corpus tests/fuzz/corpus/<target>/
# (new inputs go to a temporary corpus, not into the repository), after
# running each input of tests/fuzz/regressions/<target>/ once (inputs that
# crashed before a fix). Prints each target's executions, exec/s and
# coverage, any crash (its input is kept under $FUZZ_ARTIFACTS, default
# /tmp/freshet-fuzz-artifacts), and the line "fuzz: N passed, M failed".
#
#   scripts/run-fuzz.sh [BUILD_DIR [SECONDS]]      defaults build-fuzz 60
#   FUZZ_JOBS=2 scripts/run-fuzz.sh build-fuzz 3600  # longer, two workers
#   FUZZ_CORPUS=DIR: keep the grown corpus in DIR/<target> between runs
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-build-fuzz}
SECONDS_EACH=${2:-60}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
ART=${FUZZ_ARTIFACTS:-/tmp/freshet-fuzz-artifacts}
JOBS=${FUZZ_JOBS:-1}
WORK=$(mktemp -d /tmp/freshet-fuzz.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$ART"
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
passed=0
failed=0
# The server runs each session on a 256 MiB stack (pgwire.cc kThreadStack)
# and the binder refuses expressions nested past 2,000 levels; the targets
# run on the main thread, so they get the same stack, or a legal nesting
# (1,000 unary +, with ASan's larger frames) overflows where the server
# would not.
ulimit -s 262144 2>/dev/null || ulimit -s unlimited 2>/dev/null || true

for t in fuzz_sql fuzz_pgwire; do
  bin="$BUILD_DIR/$t"
  if [ ! -x "$bin" ]; then echo "  $t: not built (make fuzz)"; failed=$((failed + 1)); continue; fi
  seeds="$ROOT/tests/fuzz/corpus/$t"
  corpus="$WORK/corpus-$t"
  if [ -n "${FUZZ_CORPUS:-}" ]; then corpus="$FUZZ_CORPUS/$t"; fi
  mkdir -p "$corpus" "$ART/$t"
  log="$WORK/$t.log"
  ok=1
  if [ -d "$ROOT/tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "$ROOT/tests/fuzz/regressions/$t")" ]; then
    if ! "$bin" "$ROOT/tests/fuzz/regressions/$t"/* >"$WORK/$t.regressions.log" 2>&1; then
      echo "  $t: a regression input fails:"; tail -n 40 "$WORK/$t.regressions.log" | sed 's/^/    /'
      ok=0
    fi
  fi
  extra=()
  if [ "$JOBS" -gt 1 ]; then extra=(-fork="$JOBS"); fi
  # -timeout: one input running 10 s is a hang; -max_len: SQL up to 4 KiB.
  "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2560 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$ART/$t/" "${extra[@]}" "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1)
  speed=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
  if [ $rc -ne 0 ]; then
    ok=0
    echo "  $t: FAILED (exit $rc), input kept in $ART/$t/:"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' "$log" | head -n 10 | sed 's/^/    /'
    grep -E '^ +#[0-9]+ ' "$log" | head -n 25 | sed 's/^/    /'
  fi
  echo "  $t: ${execs:-?} executions in ${SECONDS_EACH} s (${speed:-?} exec/s), ${cov:-cov ?}, $(ls "$corpus" | wc -l) corpus inputs (exit $rc)"
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
