#!/usr/bin/env bash
# 100 concurrent connections inserting and reading at once (see
# concurrency_test.cc, which this script builds with g++ and libpq).
#
#   tests/integration/concurrency_test.sh [path/to/freshet]
#
# Starts a durable server on a free port with a temp data directory, runs the
# program against it, checks that the server survived and shuts down cleanly.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=concurrency_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

source "$HERE/lib.sh"
run_program_test
