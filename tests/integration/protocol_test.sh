#!/usr/bin/env bash
# PostgreSQL wire-protocol conformance and robustness (see protocol_test.cc,
# which this script builds with g++ and libpq): extended query protocol with
# text and binary formats, DescribePrepared, portals with a row limit, COPY,
# CancelRequest, notices, ParameterStatus, errors with SQLSTATE and position,
# malformed messages, huge and deeply nested statements, SSLRequest.
#
#   tests/integration/protocol_test.sh [path/to/freshet]
#
# Starts a durable server on a free port with a temp data directory, runs the
# program against it, checks that the server survived and shuts down cleanly.
# (To validate the program against PostgreSQL: build it as below and run
#  `protocol_test 127.0.0.1 PGPORT --engine postgres`.)
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=protocol_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

TIMEOUT=900
source "$HERE/lib.sh"
run_program_test
