#!/usr/bin/env bash
# Time-series tables across kill -9 (issue 21, items 3 and 4): each transaction
# writes the same rows to time-series tables (a replacing one and an
# append-only one) and to row-store copies of them, so every epoch holds
# both engines' writes, and the two-phase epoch commit must make them
# visible together or not at all. A client runs random transactions
# (inserts with duplicate and out-of-order times, updates, deletes),
# flushes of the time-series tables to files (flush_table) and
# compactions merging the files (compact_table) while the server is killed
# at a random moment; after each restart the
# time-series tables equal their copies, a materialized view over one
# equals its query, and every row acknowledged before a FLUSH is there
# exactly once.
#
#   tests/integration/timeseries_crash_test.sh [path/to/freshet]
#
# TS_SEED (default 1), TS_ROUNDS (default 6). Prints "N passed, M failed" last.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=timeseries_crash_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"
RANDOM="${TS_SEED:-1}"
ROUNDS="${TS_ROUNDS:-6}"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }

# Transactions of random writes, the same to both engines, on stdout.
write_transactions() {
  local i h t v
  for i in $(seq 1 300); do
    h="h$((RANDOM % 12))"; t=$((RANDOM % 4000)); v=$((RANDOM % 1000))
    local ts="timestamp '2024-01-01' + interval '$t seconds'"
    if (( RANDOM % 25 == 0 )); then echo "select flush_table('ts'), flush_table('tsa');"; continue; fi
    if (( RANDOM % 30 == 0 )); then echo "select compact_table('ts'), compact_table('tsa');"; continue; fi
    case $((RANDOM % 6)) in
      0)
        echo "begin; delete from ts where host = '$h' and ts < $ts and ts > $ts - interval '300 seconds';"
        echo "delete from ts_copy where host = '$h' and ts < $ts and ts > $ts - interval '300 seconds'; commit;" ;;
      1)
        echo "begin; update ts set v = v + 1 where host = '$h' and ts >= $ts and ts < $ts + interval '200 seconds';"
        echo "update ts_copy set v = v + 1 where host = '$h' and ts >= $ts and ts < $ts + interval '200 seconds'; commit;" ;;
      *)
        local rows="" k
        for k in 1 2 3 4 5; do
          rows+="${rows:+, }('h$((RANDOM % 12))', $((RANDOM % 1000)), timestamp '2024-01-01' + interval '$((RANDOM % 4000)) seconds')"
        done
        echo "begin; insert into ts values $rows; insert into ts_copy values $rows;"
        echo "insert into tsa values $rows; insert into tsa_copy values $rows; commit;" ;;
    esac
  done
}

same_rows() {  # same_rows A B: equal as multisets
  local diff
  diff=$(q -c "select count(*) from ((select * from $1 except all select * from $2) union all (select * from $2 except all select * from $1)) d")
  [[ "$diff" == "0" ]] || { echo "    $1 and $2 differ in $diff rows"; return 1; }
}

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }
q -c "create table ts (host string, v bigint, ts timestamp time index, primary key (host)) partition on columns (host) (host < 'h4', host >= 'h4' and host < 'h8') with ('compaction.twcs.time_window' = '10m')" \
  -c "create table ts_copy (host varchar, v bigint, ts timestamp not null, primary key (host, ts)) on conflict overwrite" \
  -c "create table tsa (host string, v bigint, ts timestamp time index, primary key (host)) with (append_mode = 'true')" \
  -c "create table tsa_copy (host varchar, v bigint, ts timestamp)" \
  -c "create materialized view ts_stats as select host, count(*) as n, sum(v) as total, max(ts) as latest from ts group by host" >/dev/null
STATS_QUERY="select host, count(*), sum(v), max(ts) from ts group by host"

for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round"
  # Acknowledged and flushed: must survive whatever follows.
  write_transactions >"$WORK/flushed.sql"
  q -f "$WORK/flushed.sql" >/dev/null || fail "round $round: the flushed transactions failed"
  q -c "flush" -c "drop table if exists tsa_flushed" -c "create table tsa_flushed as select * from tsa" >/dev/null
  flushed_tsa=$(q -c "select count(*) from tsa_flushed")
  marker="m$round"
  q -c "begin; insert into ts values ('$marker', $round, '2030-01-01'); insert into ts_copy values ('$marker', $round, '2030-01-01');" \
    -c "insert into tsa values ('$marker', $round, '2030-01-01'); insert into tsa_copy values ('$marker', $round, '2030-01-01'); commit;" \
    -c "flush" >/dev/null
  # Then a client writing while the server is killed.
  write_transactions >"$WORK/running.sql"
  psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$WORK/running.sql" >/dev/null 2>&1 &
  BG_PIDS+=($!)
  sleep "0.$((RANDOM % 9 + 1))"  # a random moment to crash at, not a wait for a condition
  kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  wait "${BG_PIDS[-1]}" 2>/dev/null
  start_server "$WORK/data" "$WORK/server.log" || { fail "round $round: restart after kill -9"; finish; }
  echo "   the crashed client's append-only rows kept: $(( $(q -c "select count(*) from tsa") - flushed_tsa - 1 ))"
  check "round $round: the replacing table equals its row-store copy" same_rows ts ts_copy
  check "round $round: the append-only table equals its row-store copy" same_rows tsa tsa_copy
  check "round $round: the flushed marker row is there once in each table" \
    test "$(q -c "select (select count(*) from ts where host = '$marker'), (select count(*) from tsa where host = '$marker')")" = "1|1"
  check "round $round: every append-only row flushed before the crash is there ($flushed_tsa)" \
    test "$(q -c "select count(*) from (select * from tsa_flushed except all select * from tsa) d")" = "0"
  q -c "flush" >/dev/null
  check "round $round: the view over the time-series table equals its query" same ts_stats "$STATS_QUERY"
  check "round $round: rows of some regions equal the copy's (files of the others skipped)" \
    same_rows "(select * from ts where host in ('h1', 'h9', '$marker')) r" "(select * from ts_copy where host in ('h1', 'h9', '$marker')) c"
done
echo "== a clean restart"
stop_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "after a clean restart the tables equal their copies" same_rows ts ts_copy
check "and the append-only one too" same_rows tsa tsa_copy
check "the view still equals its query" same ts_stats "$STATS_QUERY"
q -c "select compact_table('ts'), compact_table('tsa')" >/dev/null
check "after a compaction the tables equal their copies" same_rows ts ts_copy
check "and the append-only one too after it" same_rows tsa tsa_copy
check "the tables were flushed to files" test "$(find "$WORK/data/timeseries/files" -name '*.ftf' | wc -l | tr -d ' ')" != "0"
check "no error was logged" test "$(grep -c -E '\[error\]|\[critical\]' "$WORK/server.log")" = "0"
finish
