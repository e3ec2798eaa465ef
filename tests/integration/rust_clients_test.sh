#!/usr/bin/env bash
# tokio-postgres, Rust's asynchronous PostgreSQL driver, against Freshet
# (issue 18), from Debian (cargo and librust-tokio-postgres-dev, installed by
# scripts/install-deps.sh; built here offline from Debian's crate registry,
# /usr/share/cargo/registry, as tests/clients/rust/.cargo/config.toml
# says), running tests/clients/rust (tp_check): binary values, a prepared
# statement run 100 times, bound LIMIT/OFFSET, a failed transaction and a
# savepoint, a unique violation's fields, COPY both ways, simple queries,
# LISTEN/NOTIFY. The program passes against PostgreSQL 15 as it is, and
# must against Freshet. Then the server must still be alive and shut down
# cleanly.
#
#   tests/integration/rust_clients_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients/rust" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }

NAME=rust_clients_test
source "$HERE/lib.sh"

CARGO=/usr/bin/cargo  # Debian's, which reads its registry (a rustup one may be first on PATH)
if [[ ! -x "$CARGO" || ! -d /usr/share/cargo/registry ]] || ! ls -d /usr/share/cargo/registry/tokio-postgres-* >/dev/null 2>&1; then
  fail "cargo or tokio-postgres is not installed (scripts/install-deps.sh installs cargo and librust-tokio-postgres-dev)"
  finish
fi
# Built from a copy: cargo writes Cargo.lock beside Cargo.toml.
cp -r "$CLIENTS" "$WORK/src"
if ! (cd "$WORK/src" && CARGO_HOME="$WORK/cargo" CARGO_TARGET_DIR="$WORK/target" "$CARGO" build --release -q) >"$WORK/build.log" 2>&1; then
  sed 's/^/    /' "$WORK/build.log" | tail -30
  fail "build tests/clients/rust"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
timeout 300 "$WORK/target/release/tp_check" 127.0.0.1 "$PORT" root dev >"$WORK/rust.out" 2>&1
rc=$?
sed 's/^/    /' "$WORK/rust.out" | grep -v '^    *ok:' || true
summary=$(tail -n 1 "$WORK/rust.out")
if [[ $rc -eq 0 && "$summary" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]]; then
  ok "tokio-postgres: ${BASH_REMATCH[1]} checks"
else
  fail "tokio-postgres (exit $rc): $summary"
fi
if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died"; fi
kill -TERM "$SERVER_PID"
if wait "$SERVER_PID"; then ok "clean shutdown on SIGTERM"; else fail "shutdown exit status $?"; fi
SERVER_PID=""
finish
