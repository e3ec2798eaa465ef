#!/usr/bin/env bash
# pgx v4, Go's PostgreSQL driver, against Freshet (issue 18), from Debian
# (golang-go, golang-github-jackc-pgx-v4-dev, installed by
# scripts/install-deps.sh; built here from Debian's sources in
# /usr/share/gocode without modules or downloads), running
# tests/clients/go/pgx_check.go: binary values of many types, statement
# caching, bound LIMIT/OFFSET, a failed transaction, a batch, CopyFrom
# (binary COPY without a trailer), an enum, LISTEN/NOTIFY, a pool. The
# program passes against PostgreSQL 15 as it is, and must against Freshet.
# Then the server must still be alive and shut down cleanly.
#
#   tests/integration/go_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients/go" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

NAME=go_clients_test
source "$HERE/lib.sh"

if ! command -v go >/dev/null 2>&1 || [[ ! -d /usr/share/gocode/src/github.com/jackc/pgx/v4 ]]; then
  fail "go or pgx v4 is not installed (scripts/install-deps.sh installs golang-go and golang-github-jackc-pgx-v4-dev)"
  finish
fi
if ! GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="$WORK/gocache" \
  go build -o "$WORK/pgx_check" "$CLIENTS/pgx_check.go" >"$WORK/build.log" 2>&1; then
  sed 's/^/    /' "$WORK/build.log"
  fail "build pgx_check.go"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
run_client "pgx" "$WORK/pgx_check" 127.0.0.1 "$PORT" root dev
check_clean_shutdown
finish
