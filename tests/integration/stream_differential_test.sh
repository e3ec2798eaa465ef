#!/usr/bin/env bash
# Differential test of the stream engine (see stream_differential_test.cc,
# which this script builds with g++ and libpq): a seeded random workload of
# INSERT/UPDATE/DELETE (some in transactions that commit or roll back) on
# three tables, and after every batch and FLUSH each materialized view must
# equal its own defining query run as a batch SELECT.
#
#   tests/integration/stream_differential_test.sh [path/to/freshet]
#
# STREAM_DIFF_SEED (default 20261129) and STREAM_DIFF_ROUNDS (default 300)
# choose the workload; a failure prints the seed and round to rerun it with.
# STREAM_DIFF_SQL_LOG=FILE writes every statement that writes to FILE, so
# the run can be replayed with psql.
#
# Starts a durable server on a free port with a temp data directory, runs the
# program against it, checks that the server survived and shuts down cleanly.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=stream_differential_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

source "$HERE/lib.sh"
run_program_test
