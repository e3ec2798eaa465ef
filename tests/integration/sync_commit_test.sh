#!/usr/bin/env bash
# synchronous_commit (issue 16, item 9): with `on`, the default, a write is
# durable when its statement (or COMMIT) returns, without FLUSH: it is in
# the DML log, synced with group commit, and a restart replays the log
# entries no committed epoch covers, exactly once, into the tables and the
# views on them. Each round kills the server with kill -9 right after
# acknowledgements, never after a FLUSH.
#
#   tests/integration/sync_commit_test.sh [path/to/freshet]
#
# 1) 64 single-row INSERTs, each in its own session, and 64 from one
#    session, then kill -9 at once: all there after the restart, the views
#    equal to their queries;
# 2) three rounds of four concurrent writers (INSERTs, multi-row INSERTs,
#    UPDATEs and transactions) killed at a seeded random moment: every
#    acknowledged write there once, nothing unacknowledged half-applied
#    (transactions all or nothing), views exact; a second kill -9 right
#    after a restart changes nothing (the replay is committed once);
# 3) a 100,000-row COPY returns only once committed: kill -9 right after;
# 4) 40 large write sets span several DML log segments and are replayed
#    after kill -9; retired segments are reused (a bounded number of
#    files); a database's log is its own and DROP DATABASE deletes it;
# 5) SET synchronous_commit: PostgreSQL's values, 22023 for others; `off`
#    keeps the old behaviour (acknowledged before durable).
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=sync_commit_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"
SEED="${SYNC_COMMIT_SEED:-20261201}"
RANDOM=$SEED

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }
q -c "create table t(id int primary key, v int)" \
  -c "create materialized view m as select count(*) n, sum(v) s from t" \
  -c "create materialized view mg as select v % 7 g, count(*) n from t group by v % 7" >/dev/null

echo "== 1) acknowledged single-row INSERTs survive kill -9"
for i in $(seq 1 64); do q -c "insert into t values ($i, $i)" >/dev/null || fail "insert $i"; done
# And 64 more from one session as fast as it can send them (well within
# one barrier interval: with synchronous_commit = off most of them are lost).
(for i in $(seq 65 128); do echo "insert into t values ($i, $i);"; done) | q >/dev/null
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "all 128 acknowledged rows are there" test "$(q -c 'select count(*), sum(v) from t')" = "128|8256"
check "the view counts them" same m "select count(*), sum(v) from t"
check "the grouped view counts them" same mg "select v % 7, count(*) from t group by v % 7"

echo "== 2) concurrent writers killed at random moments"
# Writer w owns ids w*100000 + k. Each acknowledged write is recorded:
#   "i ID V"  an insert of ID with V; "u ID V" an update of ID to V;
#   "x ID1 ID2 V" a transaction inserting ID1 and ID2 with V.
writer() {  # writer W ROUND
  local w=$1 round=$2 k=0 id
  local log="$WORK/acked.$round.$w"
  : >"$log"
  while [[ -e "$WORK/run" ]]; do
    k=$((k + 1)); id=$((w * 100000 + round * 1000 + k))
    case $((k % 4)) in
      0) psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 \
           -c "begin" -c "insert into t values ($id, $k)" -c "insert into t values ($((id + 500)), $k)" -c "commit" \
           >/dev/null 2>&1 && echo "x $id $((id + 500)) $k" >>"$log" ;;
      1) psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 \
           -c "update t set v = v + 1 where id = $((id - 1))" >/dev/null 2>&1 && echo "u $((id - 1))" >>"$log" ;;
      *) psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 \
           -c "insert into t values ($id, $k)" >/dev/null 2>&1 && echo "i $id $k" >>"$log" ;;
    esac
  done
}
for round in 1 2 3; do
  touch "$WORK/run"
  pids=()
  for w in 1 2 3 4; do writer "$w" "$round" & pids+=($!); BG_PIDS+=($!); done
  sleep "$((RANDOM % 2 + 1)).$((RANDOM % 10))"   # the moment of the crash (seeded)
  kill_server
  rm -f "$WORK/run"
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  start_server "$WORK/data" "$WORK/server.log" || { fail "restart in round $round"; break; }
  missing=0; torn=0; acked=0
  present=$(q -c "select id from t" | sort -n)
  while read -r kind a b c; do
    acked=$((acked + 1))
    case $kind in
      i) grep -qx "$a" <<<"$present" || missing=$((missing + 1)) ;;
      x) grep -qx "$a" <<<"$present" && grep -qx "$b" <<<"$present" || missing=$((missing + 1)) ;;
    esac
  done < <(cat "$WORK"/acked."$round".* 2>/dev/null)
  # Transactions are all or nothing, acknowledged or not.
  for w in 1 2 3 4; do
    for k in $(seq 4 4 400); do
      id=$((w * 100000 + round * 1000 + k))
      a=$(grep -cx "$id" <<<"$present"); b=$(grep -cx "$((id + 500))" <<<"$present")
      [[ "$a" == "$b" ]] || torn=$((torn + 1))
    done
  done
  check "round $round: each of $acked acknowledged writes is there" test "$missing" -eq 0
  check "round $round: no transaction half there" test "$torn" -eq 0
  check "round $round: the views equal their queries" same m "select count(*), sum(v) from t"
  check "round $round: the grouped view too" same mg "select v % 7, count(*) from t group by v % 7"
  # A kill right after the restart: the replay was committed once.
  before=$(q -c "select count(*), sum(v) from t")
  kill_server
  start_server "$WORK/data" "$WORK/server.log" || { fail "second restart in round $round"; break; }
  check "round $round: a second kill -9 changes nothing" test "$(q -c 'select count(*), sum(v) from t')" = "$before"
  check "round $round: and the view agrees" same m "select count(*), sum(v) from t"
done

echo "== 3) COPY returns once its rows are committed"
q -c "create table big(id bigint, s text)" >/dev/null
seq 1 100000 | awk '{print $1 ",row" $1}' | q -c "copy big from stdin with (format csv)" >/dev/null
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "the 100,000 rows of an acknowledged COPY are there" test "$(q -c 'select count(*), sum(id) from big')" = "100000|5000050000"

echo "== 4) the DML log's segments: replayed across several, reused, dropped with their database"
# 40 write sets of 20,000 rows (~0.5 MiB each in the log; a primary key, so
# not bulk inserts, which wait for their commit instead): several 4 MiB
# segments, acknowledged, then kill -9 before anything else; no checkpoint
# meanwhile, so the restart replays all of them.
q -c "create table wide(id bigint primary key, s text)" -c "alter system set checkpoint_frequency = 10000" >/dev/null ||
  fail "alter system"
for b in $(seq 0 39); do
  q -c "insert into wide select g, 'row' || g from generate_series($((b * 20000 + 1)), $((b * 20000 + 20000))) g" >/dev/null ||
    fail "write set $b"
done
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart"; finish; }
check "all 800,000 rows of 40 acknowledged write sets are there" \
  test "$(q -c 'select count(*), sum(id) from wide')" = "800000|320000400000"
check "they were replayed from the log" grep -q "replayed 40 write sets" "$WORK/server.log"
q -c "alter system reset checkpoint_frequency" >/dev/null
segments() { find "$WORK/data/dml_log" -name '*.seg' | wc -l; }
q -c "insert into wide values (0, 'after')" -c flush >/dev/null
check "retired segments are reused or deleted ($(segments) files: at most 1 in use + 4 kept)" test "$(segments)" -le 5
logs_before=$(find "$WORK/data/dml_log" -mindepth 1 -maxdepth 1 -type d | wc -l)
q -c "create database other" >/dev/null
psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d other -c "create table o(x int)" -c "insert into o values (1)" >/dev/null
check "a second database has a log of its own" \
  test "$(find "$WORK/data/dml_log" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq $((logs_before + 1))
q -c "drop database other" >/dev/null
check "DROP DATABASE deletes its log" \
  test "$(find "$WORK/data/dml_log" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq "$logs_before"

echo "== 5) SET synchronous_commit"
check "SHOW gives on by default" test "$(q -c 'show synchronous_commit')" = "on"
check "off, local, remote_write, remote_apply, true are taken" \
  test "$(q -c 'set synchronous_commit = off' -c 'set synchronous_commit = local' -c 'set synchronous_commit = remote_write' -c 'set synchronous_commit = remote_apply' -c 'set synchronous_commit = true' -c 'show synchronous_commit')" = "on"
out=$(psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -v VERBOSITY=verbose -c "set synchronous_commit = sometimes" 2>&1)
check "another value is 22023 with PostgreSQL's hint" grep -q "22023.*invalid value for parameter \"synchronous_commit\"" <<<"$out"
check "off still writes" test "$(q -c 'set synchronous_commit = off' -c 'insert into t values (-1, 0)' -c 'flush' -c 'select count(*) from t where id = -1')" = "1"

finish
