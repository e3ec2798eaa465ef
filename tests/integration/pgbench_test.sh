#!/usr/bin/env bash
# pgbench (PostgreSQL 15's, from Debian's postgresql-15) against Freshet
# (issue 18): `pgbench -i` (DROP/CREATE TABLE WITH (fillfactor), TRUNCATE
# and COPY FREEZE in a transaction, VACUUM ANALYZE, ALTER TABLE ADD PRIMARY
# KEY), a 15-second TPC-B-like run with 4 clients and prepared statements,
# and a read-only (-S) run. Every transaction must succeed, and TPC-B's
# invariant must hold afterwards: each transaction adds the same delta to
# one account, teller and branch and records it in the history, so the four
# sums are equal (concurrent UPDATEs that lost each other's writes break
# it). The server must log no error.
#
#   tests/integration/pgbench_test.sh [path/to/freshet]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
PGBENCH=/usr/lib/postgresql/15/bin/pgbench

NAME=pgbench_test
source "$HERE/lib.sh"

[[ -x "$PGBENCH" ]] || { fail "pgbench is not installed (scripts/install-deps.sh installs postgresql-15)"; finish; }
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@"; }
bench() { (cd "$WORK" && "$PGBENCH" -h 127.0.0.1 -p "$PORT" -U root "$@" dev); }

echo "== pgbench -i -s 2"
if bench -i -s 2 >"$WORK/init.out" 2>&1; then ok "pgbench -i"; else fail "pgbench -i: $(tail -n 3 "$WORK/init.out")"; fi
check "200,000 accounts, 2 branches, 20 tellers" \
  test "$(q -c 'select (select count(*) from pgbench_accounts), (select count(*) from pgbench_branches), (select count(*) from pgbench_tellers)')" = "200000|2|20"
check "primary keys added" \
  test "$(q -c "select count(*) from pg_index i join pg_class c on c.oid = i.indrelid where i.indisprimary and c.relname like 'pgbench%'")" = "3"
check "fillfactor kept" test "$(q -c "select reloptions from pg_class where relname = 'pgbench_accounts'")" = "{fillfactor=100}"

echo "== pgbench -c 4 -j 2 -T 15 -M prepared (TPC-B-like)"
if bench -c 4 -j 2 -T 15 -M prepared >"$WORK/tpcb.out" 2>&1; then ok "pgbench TPC-B run"; else fail "pgbench TPC-B: $(tail -n 5 "$WORK/tpcb.out")"; fi
grep -E '^(number of (transactions actually processed|failed transactions)|tps)' "$WORK/tpcb.out" | sed 's/^/    /'
processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/tpcb.out")
check "transactions processed" test "${processed:-0}" -gt 0
check "no failed transactions" grep -q '^number of failed transactions: 0 ' "$WORK/tpcb.out"
sums=$(q -c 'select (select sum(abalance) from pgbench_accounts), (select sum(tbalance) from pgbench_tellers), (select sum(bbalance) from pgbench_branches), (select sum(delta) from pgbench_history)')
echo "    sums of accounts, tellers, branches, history: $sums"
IFS='|' read -r accounts tellers branches history <<<"$sums"
check "TPC-B invariant: no update lost" test "$accounts" = "$history" -a "$tellers" = "$history" -a "$branches" = "$history"
check "one history row per transaction" test "$(q -c 'select count(*) from pgbench_history')" = "$processed"

echo "== pgbench -S -c 4 -j 2 -T 5 -M prepared (read-only)"
if bench -S -c 4 -j 2 -T 5 -M prepared >"$WORK/select.out" 2>&1; then ok "pgbench -S run"; else fail "pgbench -S: $(tail -n 5 "$WORK/select.out")"; fi
check "no failed read-only transactions" grep -q '^number of failed transactions: 0 ' "$WORK/select.out"

# Every statement pgbench sent succeeded (its partition check joins LATERAL).
errors=$(grep 'ERROR' "$WORK/server.log" || true)
if [[ -z "$errors" ]]; then ok "no unexpected errors in the server log"; else fail "errors in the server log:"; echo "$errors" | head -n 5; fi
if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died"; fi
kill -TERM "$SERVER_PID"
if wait "$SERVER_PID"; then ok "clean shutdown on SIGTERM"; else fail "shutdown exit status $?"; fi
SERVER_PID=""
finish
