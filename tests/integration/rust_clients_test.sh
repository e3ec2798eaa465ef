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
run_client "tokio-postgres" "$WORK/target/release/tp_check" 127.0.0.1 "$PORT" root dev
check_clean_shutdown
finish
