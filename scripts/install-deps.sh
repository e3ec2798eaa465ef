#!/usr/bin/env bash
# Installs every Debian package Freshet needs to build, test and benchmark.
# Idempotent: packages already present are skipped; apt runs only when
# something is missing. Needs root (or sudo) when it has to install.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  librocksdb-dev libpg-query-dev libprotobuf-c-dev
  libfmt-dev libspdlog-dev libcli11-dev libtomlplusplus-dev libasio-dev
  libxxhash-dev libzstd-dev liblz4-dev libre2-dev libhowardhinnant-date-dev
  libssl-dev libpq-dev libcpp-httplib-dev nlohmann-json3-dev libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  postgresql-client postgresql-15 tzdata
  # Real drivers for the client tests (tests/clients/, issue 18).
  python3-psycopg python3-psycopg2 python3-sqlalchemy python3-django python3-alembic python3-asyncpg pgcli
  libpostgresql-jdbc-java default-jdk-headless
  ruby ruby-pg ruby-activerecord golang-go golang-github-jackc-pgx-v4-dev libdbd-pg-perl
  cargo librust-tokio-postgres-dev librust-tokio-dev librust-futures-util-dev librust-bytes-dev
  # Node.js for node-postgres, postgres.js and the ORMs (tests/clients/node,
  # from npm at the versions its package-lock.json pins; npm itself below).
  nodejs
  # make fuzz / make test-asan: clang with libFuzzer and the sanitizer
  # runtimes (libclang_rt.fuzzer-x86_64.a is in libclang-rt-14-dev), and
  # llvm-symbolizer (package llvm) for symbolized sanitizer stacks.
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Debian's nodejs comes without npm (the package npm); other builds of
# nodejs bring their own, which the package would conflict with.
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

# The Node.js drivers of the client tests, as the lock file pins them.
install_node_clients() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/clients/node"
  # npm records what it installed in node_modules/.package-lock.json: up to
  # date unless the lock file changed since (a package added).
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    return 0
  fi
  echo "install-deps: npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error </dev/null)
}

if [ ${#missing[@]} -eq 0 ]; then
  install_node_clients
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
install_node_clients
