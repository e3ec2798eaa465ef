#!/usr/bin/env bash
# pgjdbc against Freshet (issue 18): Debian's libpostgresql-jdbc-java, run
# by the JDK's single-file launcher over tests/clients/JdbcTest.java (DDL,
# DML with parameters and batches, a statement prepared and run 100 times,
# a failed transaction rolled back, savepoints and autosave, CopyManager
# both ways, type round trips, bound LIMIT/OFFSET, a cursor read in pages,
# DatabaseMetaData's getTables/getColumns/getPrimaryKeys/getIndexInfo/
# getTypeInfo and the calls pools make on connect). The program passes
# against PostgreSQL 15 as it is, and must against Freshet; then the server
# must still be alive and shut down cleanly.
#
#   tests/integration/jdbc_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENTS="$(cd "$HERE/../clients" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
JAR=/usr/share/java/postgresql.jar

NAME=jdbc_test
source "$HERE/lib.sh"

if [[ ! -f "$JAR" ]] || ! command -v javac >/dev/null; then
  fail "pgjdbc or the JDK is missing (scripts/install-deps.sh installs libpostgresql-jdbc-java and default-jdk-headless)"
  finish
fi
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
run_client "pgjdbc" java -cp "$JAR" "$CLIENTS/JdbcTest.java" 127.0.0.1 "$PORT" root dev
check_clean_shutdown
finish
