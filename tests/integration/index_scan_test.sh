#!/usr/bin/env bash
# Differential test of batch index scans (see index_scan_test.cc, which
# this script builds with g++ and libpq): every query that reads an index
# made by CREATE INDEX returns what it returns reading the table, UPDATE
# and DELETE through indexes change the rows the same statements change in
# twin tables without indexes, a block's own writes and a snapshot older
# than an index are never read from it.
#
#   tests/integration/index_scan_test.sh [path/to/freshet]
#
# INDEX_SCAN_SEED and INDEX_SCAN_ROUNDS choose the workload.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=index_scan_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

source "$HERE/lib.sh"
run_program_test
