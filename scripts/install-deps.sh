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
  python3-psycopg python3-psycopg2 python3-sqlalchemy
  libpostgresql-jdbc-java default-jdk-headless
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

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
