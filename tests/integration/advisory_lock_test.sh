#!/usr/bin/env bash
# Advisory locks between sessions, with real psql sessions (what migration
# tools such as Rails and Flyway rely on: one migrator at a time):
#
#   tests/integration/advisory_lock_test.sh [path/to/freshet]
#
# 1) a session's exclusive lock: another's pg_try_advisory_lock gets false,
#    its pg_advisory_lock waits (here until lock_timeout, 55P03), its
#    shared try too; pg_locks lists the hold and a waiting session; after
#    pg_advisory_unlock the other gets it; unlocking a lock not held is
#    false with a WARNING;
# 2) shared holders share; an exclusive request waits for them;
# 3) a transaction-level lock goes at COMMIT, a session-level one when the
#    session ends (the client disconnecting);
# 4) locks are per database: the same key in another database is free.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=advisory_lock_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d "${DB:-dev}" "$@" 2>&1; }
waits() {  # waits SQL: the statement is still waiting at lock_timeout
  grep -q "canceling statement due to lock timeout" <<<"$(q -c "set lock_timeout = '300ms'" -c "$1")"
}

start_server "$WORK/data" "$WORK/server.log" || { fail "start"; finish; }

echo "== 1) an exclusive lock keeps others out until it is unlocked"
open_session
send "SELECT pg_advisory_lock(42);" '\echo LOCKED'
check "the first session holds the lock" wait_for LOCKED
check "another session's try gets false" test "$(q -c "select pg_try_advisory_lock(42)")" = f
check "its shared try too" test "$(q -c "select pg_try_advisory_lock_shared(42)")" = f
check "its pg_advisory_lock waits (lock_timeout)" waits "select pg_advisory_lock(42)"
check "a different key is free" test "$(q -c "select pg_try_advisory_lock(43)")" = t
check "pg_locks lists the hold (key 42: classid 0, objid 42, objsubid 1)" test \
  "$(q -c "select classid, objid, objsubid, mode, granted, waitstart is null from pg_locks where locktype = 'advisory' and objid = 42")" \
  = "0|42|1|ExclusiveLock|t|t"
# A session that waits for it is listed as waiting (polled: it starts in
# the background).
q -c "set lock_timeout = '20s'" -c "select pg_advisory_lock(42)" -c "select pg_advisory_unlock(42)" >"$WORK/waiter.out" 2>&1 &
waiter=$!
BG_PIDS+=("$waiter")
seen=""
for _ in $(seq 1 200); do
  seen=$(q -c "select mode || ':' || granted || ':' || (waitstart is not null) from pg_locks where locktype = 'advisory' and objid = 42 and not granted")
  [[ -n "$seen" ]] && break
  sleep 0.05
done
check "pg_locks lists the waiting session (not granted, with its waitstart)" test "$seen" = "ExclusiveLock:false:true"
send "SELECT pg_advisory_unlock(42);" '\echo UNLOCKED'
check "the holder unlocks" wait_for UNLOCKED
wait "$waiter"
check "the waiting session got the lock then" grep -q '^t$' "$WORK/waiter.out"
check "and no session is listed any more" test \
  "$(q -c "select count(*) from pg_locks where locktype = 'advisory' and objid = 42")" = 0
check "then the other session gets it" test "$(q -c "select pg_try_advisory_lock(42)")" = t
out=$(q -c "select pg_advisory_unlock(42)")
check "unlocking a lock not held: false with PostgreSQL's WARNING" \
  test "$out" = $'WARNING:  you don\'t own a lock of type ExclusiveLock\nf'

echo "== 2) shared holders share; an exclusive request waits for them"
send "SELECT pg_advisory_lock_shared(7);" '\echo SHARED'
check "the first session holds it shared" wait_for SHARED
check "another session shares it" test "$(q -c "select pg_try_advisory_lock_shared(7)")" = t
check "an exclusive try gets false" test "$(q -c "select pg_try_advisory_lock(7)")" = f
check "an exclusive lock waits" waits "select pg_advisory_lock(7)"
send "SELECT pg_advisory_unlock_shared(7);" '\echo RELEASED'
check "the holder releases it" wait_for RELEASED
check "then an exclusive lock is free" test "$(q -c "select pg_try_advisory_lock(7)")" = t

echo "== 3) a transaction's lock goes at COMMIT, a session's when it ends"
send "BEGIN;" "SELECT pg_advisory_xact_lock(8);" '\echo IN_BLOCK'
check "the block holds the lock" wait_for IN_BLOCK
check "others wait for the block" waits "select pg_advisory_lock(8)"
send "COMMIT;" '\echo COMMITTED'
check "the block commits" wait_for COMMITTED
check "then the lock is free" test "$(q -c "select pg_try_advisory_lock(8)")" = t
send "SELECT pg_advisory_lock(9);" '\echo HELD'
check "the session holds another lock" wait_for HELD
check "others cannot have it" test "$(q -c "select pg_try_advisory_lock(9)")" = f
close_session
got=f
for _ in $(seq 1 600); do  # the server sees the disconnect a moment later
  got=$(q -c "select pg_try_advisory_lock(9)")
  [[ "$got" == t ]] && break
  sleep 0.1
done
check "once it disconnects the lock is free" test "$got" = t

echo "== 4) locks are per database"
q -c "create database other" >/dev/null
open_session
send "SELECT pg_advisory_lock(77);" '\echo LOCKED77'
check "a session in dev holds key 77" wait_for LOCKED77
check "the same key in another database is free" test "$(DB=other q -c "select pg_try_advisory_lock(77)")" = t
check "and taken in dev" test "$(q -c "select pg_try_advisory_lock(77)")" = f
close_session

finish
