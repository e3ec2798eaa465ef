#!/usr/bin/env bash
# The whole suite (scripts/run-tests.sh) against a sanitizer build:
#   make test-asan            (builds build-asan, then runs this)
#   scripts/test-asan.sh [BUILD_DIR]
# Every process of the build (unit tests, servers started by the slt run and
# by each integration test) writes its ASan/UBSan reports to
# $SAN_LOG_DIR (default /tmp/freshet-asan-logs/<date>), one file per
# process; the summary at the end lists each distinct report. UBSan
# reports do not stop the process (the suite goes on and finds the next);
# an ASan report ends it. Leak checking is off (servers are killed rather
# than shut down; see docs/sanitizers.md). Exits non-zero when a test
# failed or any report was written.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-build-asan}
SAN_LOG_DIR=${SAN_LOG_DIR:-/tmp/freshet-asan-logs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$SAN_LOG_DIR"
# allocator_may_return_null: a huge allocation is std::bad_alloc (53200), as
# without ASan, not a report. hard_rss_limit_mb: unbounded growth is a
# report rather than the kernel's OOM killer. The crash corpus test's 8 GiB
# address-space limit cannot hold ASan's shadow memory: lifted.
export ASAN_OPTIONS=${ASAN_OPTIONS:-log_path=$SAN_LOG_DIR/asan:allocator_may_return_null=1:detect_leaks=0:hard_rss_limit_mb=6144:handle_abort=1:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-log_path=$SAN_LOG_DIR/ubsan:print_stacktrace=1:halt_on_error=0}
export FRESHET_AS_LIMIT=unlimited
echo "sanitizer reports go to $SAN_LOG_DIR"
FUZZ_SECONDS=0 bash "$ROOT/scripts/run-tests.sh" "$BUILD_DIR"
rc=$?
echo
echo "== sanitizer reports ($SAN_LOG_DIR)"
n=$(ls "$SAN_LOG_DIR" | wc -l)
if [ "$n" -eq 0 ]; then
  echo "  none"
else
  echo "  $n report files; distinct reports (count, first line):"
  # One line per report: UBSan's "file:line:col: runtime error: ..." and
  # ASan's SUMMARY line.
  cat "$SAN_LOG_DIR"/* | grep -E 'runtime error:|^SUMMARY: ' | sed -E 's#^/work/main/##' | sort | uniq -c | sort -rn | sed 's/^/  /'
  rc=1
fi
exit $rc
