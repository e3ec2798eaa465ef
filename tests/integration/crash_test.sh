#!/usr/bin/env bash
# Crash-recovery and data-directory tests for Freshet.
#
#   tests/integration/crash_test.sh [path/to/freshet]
#
# 1. Three rounds (seeded: CRASH_TEST_SEED, default 20261129) on one data
#    directory: insert batches, FLUSH after each (a batch counts as
#    acknowledged once its FLUSH returned), then start a large INSERT with no
#    FLUSH after it and `kill -9` the server at a random point: while the
#    INSERT is being sent or executed, or after it returned while a FLUSH for
#    it is on its way (that FLUSH is never acknowledged). After a restart on the same directory every acknowledged
#    row must be there exactly once (per-batch count, sum, distinct ids, id
#    range) and the in-flight batch must be entirely present or entirely absent.
# 2. A second server on a directory in use is refused (clear message, non-zero
#    exit) while the first keeps serving.
# 3. A non-empty foreign directory is refused with exit code 2 and left as it was.
# 4. A corrupted data directory (CURRENT / MANIFEST / FRESHET marker / WAL
#    garbled after a clean shutdown) is refused with a clear message and a
#    non-zero exit, never a crash (signal) and never a silent start.
#
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

BIN="${1:-/work/main/build/freshet}"
SEED="${CRASH_TEST_SEED:-20261129}"
ROUNDS="${CRASH_TEST_ROUNDS:-3}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
command -v psql >/dev/null && command -v pg_isready >/dev/null \
  || { echo "psql and pg_isready are required"; echo "0 passed, 1 failed"; exit 1; }

WORK="$(mktemp -d /tmp/freshet-crash-test.XXXXXX)"
SERVER_PID=""      # the server under test
CLIENT_PID=""      # the in-flight psql
OTHER_PID=""       # a second server (refusal checks)
PORT=""
passed=0
failed=0

cleanup() {
  local p
  for p in "$CLIENT_PID" "$OTHER_PID" "$SERVER_PID"; do
    [[ -n "$p" ]] && kill -9 "$p" 2>/dev/null
  done
  for p in "$CLIENT_PID" "$OTHER_PID" "$SERVER_PID"; do
    [[ -n "$p" ]] && wait "$p" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok()   { echo "  ok: $1"; passed=$((passed + 1)); }
fail() { echo "  FAILED: $1"; failed=$((failed + 1)); }
check() {  # check <description> <command...>
  local what="$1"; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}

# A TCP port on 127.0.0.1 that nobody listens on.
pick_port() {
  local port
  for _ in $(seq 1 200); do
    port=$(shuf -i 20000-60999 -n 1)   # not $RANDOM: that one is seeded for the test
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

ready() { pg_isready -q -h 127.0.0.1 -p "$1" -U root -d dev -t 2 >/dev/null 2>&1; }

# start_server DIR LOG: starts a durable server, sets SERVER_PID and PORT.
# Retries on another port when the chosen one was taken meanwhile (exit 3).
start_server() {
  local dir="$1" log="$2" attempt i rc
  for attempt in 1 2 3 4 5; do
    PORT="$(pick_port)" || return 1
    "$BIN" --data-dir "$dir" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 >>"$log" 2>&1 &
    SERVER_PID=$!
    for i in $(seq 1 600); do   # bounded: at most ~60 s
      if ready "$PORT"; then return 0; fi
      if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
      sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "  server did not accept connections within 60 s:"; tail -n 20 "$log" | sed 's/^/    /'
      kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
      return 1
    fi
    wait "$SERVER_PID"; rc=$?; SERVER_PID=""
    if [[ $rc -ne 3 ]]; then
      echo "  server exited with code $rc at start:"; tail -n 20 "$log" | sed 's/^/    /'
      return 1
    fi
  done
  return 1
}

kill9_server() {
  [[ -n "$SERVER_PID" ]] || return 0
  kill -9 "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}

# Clean stop: SIGTERM, then wait (bounded) for the exit; returns its exit code.
term_server() {
  local i rc
  kill -TERM "$SERVER_PID" 2>/dev/null
  for i in $(seq 1 600); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "  server did not exit within 60 s of SIGTERM"
    kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
    return 255
  fi
  wait "$SERVER_PID"; rc=$?
  SERVER_PID=""
  return $rc
}

q() { psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U root -d dev "$@"; }

# Expected contents: one line per batch, "batch lo hi"; the rows of a batch
# are (id, batch, v) for id in lo..hi with v = id * 7 + batch.
EXPECTED="$WORK/expected"
: >"$EXPECTED"
batch_count() { echo $(($3 - $2 + 1)); }
batch_sum() { local b=$1 lo=$2 hi=$3 n=$(($3 - $2 + 1)); echo $((7 * (lo + hi) * n / 2 + b * n)); }
insert_sql() { echo "INSERT INTO t SELECT g, $1, g * 7 + $1 FROM generate_series($2, $3) AS g"; }

# verify_contents INFLIGHT_LINE: compares the table to $EXPECTED; the
# in-flight batch ("batch lo hi", may be empty) must be all there or absent.
# Sets INFLIGHT_PRESENT=1 when it was there.
INFLIGHT_PRESENT=0
verify_contents() {
  local inflight="$1" actual="$WORK/actual" line b lo hi n s got
  INFLIGHT_PRESENT=0
  if ! q -F ' ' -c "SELECT batch, count(*), sum(v), count(DISTINCT id), min(id), max(id) FROM t GROUP BY batch ORDER BY batch" >"$actual" 2>"$WORK/verify.err"; then
    fail "query the recovered table: $(cat "$WORK/verify.err")"
    return
  fi
  local bad=0
  while read -r b lo hi; do
    n=$(batch_count "$b" "$lo" "$hi"); s=$(batch_sum "$b" "$lo" "$hi")
    got="$(awk -v b="$b" '$1 == b' "$actual")"
    if [[ "$got" != "$b $n $s $n $lo $hi" ]]; then
      echo "    acknowledged batch $b: expected '$b $n $s $n $lo $hi' (batch count sum distinct min max), got '${got:-<no rows>}'"
      bad=1
    fi
  done <"$EXPECTED"
  check "every FLUSH-acknowledged row present exactly once ($(wc -l <"$EXPECTED") batches)" test $bad -eq 0

  if [[ -n "$inflight" ]]; then
    read -r b lo hi <<<"$inflight"
    n=$(batch_count "$b" "$lo" "$hi"); s=$(batch_sum "$b" "$lo" "$hi")
    got="$(awk -v b="$b" '$1 == b' "$actual")"
    if [[ -z "$got" ]]; then
      ok "in-flight batch $b ($n rows) entirely absent"
    elif [[ "$got" == "$b $n $s $n $lo $hi" ]]; then
      ok "in-flight batch $b ($n rows) entirely present"
      INFLIGHT_PRESENT=1
    else
      fail "in-flight batch $b is partially present: expected all $n rows or none, got '$got' (batch count sum distinct min max)"
    fi
  fi

  local known unexpected
  known="$(awk '{print $1}' "$EXPECTED"; [[ -n "$inflight" ]] && echo "${inflight%% *}")"
  unexpected="$(awk '{print $1}' "$actual" | grep -vxF -f <(echo "$known") || true)"
  check "no rows of unknown batches${unexpected:+ (found batches: $(echo $unexpected))}" test -z "$unexpected"
}

RANDOM=$SEED
DATA="$WORK/data"
LOG="$WORK/server.log"
next_batch=1
next_id=1

echo "== crash recovery: $ROUNDS rounds, seed $SEED"
if ! start_server "$DATA" "$LOG"; then
  fail "start the server on a fresh data directory"
  echo; echo "$passed passed, $failed failed"; exit 1
fi
if ! q -c "CREATE TABLE t (id BIGINT PRIMARY KEY, batch INT, v BIGINT)" -c "FLUSH" 2>"$WORK/ddl.err"; then
  fail "create table: $(cat "$WORK/ddl.err")"
  echo; echo "$passed passed, $failed failed"; exit 1
fi

for round in $(seq 1 "$ROUNDS"); do
  echo "-- round $round"
  # Acknowledged batches.
  nbatches=$((2 + RANDOM % 4))
  for _ in $(seq 1 $nbatches); do
    size=$((1 + RANDOM % 20000))
    b=$next_batch lo=$next_id hi=$((next_id + size - 1))
    next_batch=$((next_batch + 1)); next_id=$((hi + 1))
    if q -c "$(insert_sql $b $lo $hi)" -c "FLUSH" >/dev/null 2>"$WORK/batch.err"; then
      echo "$b $lo $hi" >>"$EXPECTED"
    else
      fail "batch $b ($size rows) + FLUSH: $(cat "$WORK/batch.err")"
    fi
  done
  echo "  $nbatches batches acknowledged (total $(wc -l <"$EXPECTED") batches)"

  # The in-flight batch: large, no FLUSH after it.
  size=$((200000 + RANDOM % 200000))
  b=$next_batch lo=$next_id hi=$((next_id + size - 1))
  next_batch=$((next_batch + 1)); next_id=$((hi + 1))
  inflight="$b $lo $hi"
  mode=$(( (round - 1) % 3 ))
  q -c "$(insert_sql $b $lo $hi)" >"$WORK/inflight.out" 2>&1 &
  CLIENT_PID=$!
  case $mode in
    0) # a random point while the statement is being sent or executed
       delay_ms=$((50 + RANDOM % 1500))
       # This sleep is the random kill point, not a wait for a result.
       sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
       how="${delay_ms} ms after the INSERT was sent" ;;
    1) # right away: the statement has at most just arrived
       how="immediately after the INSERT was sent" ;;
    2) # after the INSERT returned, while a FLUSH (never acknowledged) is on its way
       wait "$CLIENT_PID"; crc=$?
       q -c "FLUSH" >/dev/null 2>&1 &
       CLIENT_PID=$!
       delay_ms=$((RANDOM % 2500))
       # This sleep is the random kill point, not a wait for a result.
       sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
       how="after the INSERT returned (psql exit $crc), ${delay_ms} ms after a FLUSH was sent" ;;
  esac
  still=""
  if [[ -n "$CLIENT_PID" ]] && kill -0 "$CLIENT_PID" 2>/dev/null; then still=" (its client was still waiting)"; fi
  kill9_server
  echo "  kill -9 $how$still: in-flight batch $b has $size rows"
  if [[ -n "$CLIENT_PID" ]]; then wait "$CLIENT_PID" 2>/dev/null; CLIENT_PID=""; fi

  if ! start_server "$DATA" "$LOG"; then
    fail "restart on the same data directory after kill -9 (round $round)"
    break
  fi
  ok "restart after kill -9 (round $round)"
  verify_contents "$inflight"
  if [[ $INFLIGHT_PRESENT -eq 1 ]]; then
    echo "$inflight" >>"$EXPECTED"
  fi
  q -c "FLUSH" >/dev/null 2>&1
done

echo "== bulk loads (COPY into a table keyed by row ids) and kill -9"
# Each load is the same 1,000,000 rows (about 50 MB encoded: past the 32 MiB
# a load holds in memory, so its rows also go through the load's file); a
# load in flight at the kill must be all there or absent, and every
# acknowledged one must be there once.
BULK_ROWS=1000000
BULK_CSV="$WORK/bulk.csv"
seq 1 "$BULK_ROWS" | awk '{print $1 ",x" $1}' >"$BULK_CSV"
bulk_expect() { echo "$(($1 * BULK_ROWS))|$(($1 * BULK_ROWS))|$(($1 * BULK_ROWS * (BULK_ROWS + 1) / 2))"; }
if [[ -n "$SERVER_PID" ]] && q -c "CREATE TABLE r (k BIGINT, s TEXT)" -c "FLUSH" >/dev/null 2>"$WORK/bulk.err"; then
  loads=0
  for bulk_round in 1 2 3; do
    if q -c "\\copy r FROM '$BULK_CSV' WITH (FORMAT csv)" -c "FLUSH" >/dev/null 2>"$WORK/bulk.err"; then
      loads=$((loads + 1))
    else
      fail "acknowledged bulk load: $(cat "$WORK/bulk.err")"
    fi
    q -c "\\copy r FROM '$BULK_CSV' WITH (FORMAT csv)" -c "FLUSH" >/dev/null 2>&1 &
    CLIENT_PID=$!
    delay_ms=$((RANDOM % 1500))
    # This sleep is the random kill point, not a wait for a result.
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill9_server
    wait "$CLIENT_PID" 2>/dev/null; CLIENT_PID=""
    if ! start_server "$DATA" "$LOG"; then
      fail "restart after kill -9 during a bulk load (round $bulk_round)"
      break
    fi
    got="$(q -c "SELECT count(*), count(DISTINCT _row_id), sum(k) FROM r" 2>&1)"
    if [[ "$got" == "$(bulk_expect $loads)" ]]; then
      ok "kill -9 ${delay_ms} ms into a bulk load: $loads acknowledged loads, the one in flight absent"
    elif [[ "$got" == "$(bulk_expect $((loads + 1)))" ]]; then
      ok "kill -9 ${delay_ms} ms into a bulk load: $loads acknowledged loads, the one in flight entirely present"
      loads=$((loads + 1))
    else
      fail "after kill -9 during a bulk load: expected $(bulk_expect $loads) or $(bulk_expect $((loads + 1))) (count|distinct row ids|sum), got '$got'"
    fi
  done
else
  fail "bulk loads: create the table: $(cat "$WORK/bulk.err")"
fi

echo "== many bulk-load files under a 1,024-descriptor limit"
# A load past 32 MiB makes an SST file per vnode (256). Five of them leave
# 1,280 files: RocksDB must close files past its bound rather than run the
# process out of descriptors (which aborted the server at commit).
FD_DATA="$WORK/fdlimit"
FD_PORT="$(pick_port)"
(ulimit -Sn 1024 && ulimit -Hn 1024 &&
  exec "$BIN" --data-dir "$FD_DATA" --port "$FD_PORT" --http-port 0 --listen-address 127.0.0.1) >"$WORK/fdlimit.log" 2>&1 &
OTHER_PID=$!
for _ in $(seq 1 600); do ready "$FD_PORT" && break; kill -0 "$OTHER_PID" 2>/dev/null || break; sleep 0.1; done
fq() { psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$FD_PORT" -U root -d dev "$@"; }
if fq -c "CREATE TABLE f (k BIGINT, s TEXT)" >/dev/null 2>"$WORK/fdlimit.err"; then
  for round in 1 2 3 4 5; do
    fq -c "\\copy f FROM '$BULK_CSV' WITH (FORMAT csv)" -c "FLUSH" >/dev/null 2>>"$WORK/fdlimit.err" || break
  done
  got="$(fq -c "SELECT count(*), sum(k) FROM f" 2>&1)"
  check "five 1M-row loads under 1,024 descriptors all there (got $got)" \
    test "$got" = "$((5 * BULK_ROWS))|$((5 * BULK_ROWS * (BULK_ROWS + 1) / 2))"
  check "the server is still running" kill -0 "$OTHER_PID"
  if ! grep -q "Too many open files" "$WORK/fdlimit.log"; then ok "no descriptor exhaustion in the log"
  else fail "descriptor exhaustion: $(grep -m1 "Too many open files" "$WORK/fdlimit.log")"; fi
else
  fail "server under a 1,024-descriptor limit: $(cat "$WORK/fdlimit.err")"
  # Why it did not answer (seen once in CI, session 29: connection refused).
  kill -0 "$OTHER_PID" 2>/dev/null && echo "    (the server is running)" || echo "    (the server exited)"
  tail -n 20 "$WORK/fdlimit.log" | sed 's/^/    log: /'
fi
kill -TERM "$OTHER_PID" 2>/dev/null; wait "$OTHER_PID" 2>/dev/null; OTHER_PID=""

echo "== SIGTERM while a long query runs"
# The query (a nested-loop join of a 3M-row table with itself, hours of
# work) is still running
# when SIGTERM arrives a second after it started (the sleep is that point in
# time, not a wait for a result): the server must cancel it and close its
# store only once the query's thread has let go of it, exit 0, and come
# back with every acknowledged row.
if [[ -n "$SERVER_PID" ]]; then
  before="$(q -c "SELECT count(*) FROM r" 2>&1)"
  q -c "SELECT count(*) FROM r a, r b WHERE a.k > b.k + 100000000" >/dev/null 2>&1 &
  CLIENT_PID=$!
  sleep 1
  rc=0; term_server || rc=$?
  check "SIGTERM during a long query: exit 0 (exit $rc)" test $rc -eq 0
  wait "$CLIENT_PID" 2>/dev/null; CLIENT_PID=""
  if grep -q "Assertion" "$LOG"; then fail "the server log has an assertion: $(grep -m1 Assertion "$LOG")"; fi
  if start_server "$DATA" "$LOG"; then
    got="$(q -c "SELECT count(*) FROM r" 2>&1)"
    check "after that shutdown, r has its $before rows (got $got)" test "$got" = "$before"
  else
    fail "restart after SIGTERM during a long query"
  fi
fi

echo "== a second server on a data directory in use"
if [[ -n "$SERVER_PID" ]]; then
  P2="$(pick_port)"
  "$BIN" --data-dir "$DATA" --port "$P2" --http-port 0 --listen-address 127.0.0.1 >"$WORK/second.out" 2>"$WORK/second.err" &
  OTHER_PID=$!
  started=0
  for _ in $(seq 1 300); do
    kill -0 "$OTHER_PID" 2>/dev/null || break
    if ready "$P2"; then started=1; break; fi
    sleep 0.1
  done
  if kill -0 "$OTHER_PID" 2>/dev/null; then
    kill -9 "$OTHER_PID"; wait "$OTHER_PID" 2>/dev/null; rc=-1
  else
    wait "$OTHER_PID"; rc=$?
  fi
  OTHER_PID=""
  msg="$(cat "$WORK/second.err" "$WORK/second.out")"
  echo "  second server: exit $rc, said: $(echo "$msg" | tail -n 3)"
  check "second server does not start (it accepted connections: $started)" test $started -eq 0
  check "second server exits non-zero without a signal (exit $rc)" test "$rc" -gt 0 -a "$rc" -lt 128
  check "second server says the directory is in use" grep -qiE "in use|locked|lock" <<<"$msg"
  check "first server still serves the data" test "$(q -c "SELECT count(*) FROM t" 2>&1)" = \
    "$(awk '{n += $3 - $2 + 1} END {printf "%.0f", n}' "$EXPECTED")"
  rc=0; term_server || rc=$?
  check "clean shutdown on SIGTERM exits 0 (exit $rc)" test $rc -eq 0
else
  fail "no running server for the second-server check"
fi

echo "== a non-empty foreign directory"
FOREIGN="$WORK/foreign"
mkdir -p "$FOREIGN/sub"
head -c 4096 /dev/urandom >"$FOREIGN/random.bin"
echo "not freshet" >"$FOREIGN/sub/notes.txt"
snapshot() { (cd "$1" && find . -printf '%p %y %s %m %T@\n' | sort && find . -type f -exec md5sum {} + | sort -k 2); }
snapshot "$FOREIGN" >"$WORK/foreign.before"
P3="$(pick_port)"
timeout 60 "$BIN" --data-dir "$FOREIGN" --port "$P3" --http-port 0 --listen-address 127.0.0.1 >"$WORK/foreign.out" 2>"$WORK/foreign.err"
rc=$?
msg="$(cat "$WORK/foreign.err" "$WORK/foreign.out")"
echo "  exit $rc, said: $(echo "$msg" | tail -n 3)"
check "foreign directory refused with exit code 2 (exit $rc)" test $rc -eq 2
check "foreign directory: message says it is not a Freshet data directory" \
  grep -qiE "not a freshet data directory|not empty|refus" <<<"$msg"
snapshot "$FOREIGN" >"$WORK/foreign.after"
check "foreign directory left unmodified" cmp -s "$WORK/foreign.before" "$WORK/foreign.after"

echo "== corrupted data directories (after a clean shutdown)"
# expect_refusal NAME DIR [allow-full-recovery]: the server must exit non-zero
# (no signal) with a clear message, and must not start serving; with the third
# argument, starting is also fine when every acknowledged row is there.
expect_refusal() {
  local name="$1" dir="$2" allow="${3:-}" pid rc started=0 port msg served="" want
  port="$(pick_port)"
  "$BIN" --data-dir "$dir" --port "$port" --http-port 0 --listen-address 127.0.0.1 >"$dir.out" 2>"$dir.err" &
  pid=$!
  OTHER_PID=$pid
  for _ in $(seq 1 600); do
    kill -0 "$pid" 2>/dev/null || break
    if ready "$port"; then started=1; break; fi
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    if [[ $started -eq 1 ]]; then
      PORT_SAVE=$PORT; PORT=$port
      served="$(q -c "SELECT count(*), sum(v) FROM t" 2>&1)"
      PORT=$PORT_SAVE
      want="$(awk '{n = $3 - $2 + 1; c += n; s += 7 * ($2 + $3) * n / 2 + $1 * n} END {printf "%.0f|%.0f", c, s}' "$EXPECTED")"
      echo "  $name: the server STARTED; count|sum of t is '$served' (acknowledged: '$want')"
      if [[ -n "$allow" && "$served" == "$want" ]]; then
        ok "$name: started with every acknowledged row intact"
        kill -9 "$pid"; wait "$pid" 2>/dev/null; OTHER_PID=""
        return
      fi
    fi
    [[ $started -eq 0 ]] && echo "  $name: neither exited nor accepted connections within 60 s (killed; exit shown as -1)"
    kill -9 "$pid"; wait "$pid" 2>/dev/null; rc=-1
  else
    wait "$pid"; rc=$?
  fi
  OTHER_PID=""
  if [[ $started -eq 1 ]]; then
    fail "$name: refused to start (it started and served count|sum '$served')"
    return
  fi
  # The message, less the directory's own path (which may contain "corrupt").
  msg="$(cat "$dir.err" "$dir.out" | sed "s|$dir|DIR|g")"
  echo "  $name: exit $rc, said: $(echo "$msg" | tail -n 2)"
  check "$name: refused, non-zero exit, not a signal (exit $rc)" test "$rc" -gt 0 -a "$rc" -lt 128
  check "$name: clear error message" grep -qiE "corrupt|cannot open|invalid|unknown|damaged" <<<"$msg"
}

if [[ -d "$DATA/rocksdb" ]]; then
  c="$WORK/corrupt-current"; cp -a "$DATA" "$c"
  printf 'garbage\n' >"$c/rocksdb/CURRENT"
  expect_refusal "garbled CURRENT" "$c"

  c="$WORK/corrupt-current-empty"; cp -a "$DATA" "$c"
  : >"$c/rocksdb/CURRENT"
  expect_refusal "empty CURRENT" "$c"

  c="$WORK/corrupt-manifest-trunc"; cp -a "$DATA" "$c"
  m="$c/rocksdb/$(tr -d '\n' <"$c/rocksdb/CURRENT")"
  truncate -s $(( $(stat -c %s "$m") / 2 )) "$m"
  expect_refusal "MANIFEST truncated to half" "$c"

  c="$WORK/corrupt-manifest-garbled"; cp -a "$DATA" "$c"
  m="$c/rocksdb/$(tr -d '\n' <"$c/rocksdb/CURRENT")"
  printf '\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef' \
    | dd of="$m" bs=1 seek=$(( $(stat -c %s "$m") / 2 )) conv=notrunc 2>/dev/null
  expect_refusal "MANIFEST garbled in the middle" "$c"

  c="$WORK/corrupt-marker"; cp -a "$DATA" "$c"
  echo "freshet data directory, format 999" >"$c/FRESHET"
  expect_refusal "FRESHET marker of an unknown format" "$c"

else
  fail "no rocksdb directory in $DATA to corrupt"
fi

echo "== a garbled write-ahead log (after a clean shutdown)"
# A fresh directory whose acknowledged rows live only in the WAL (no restart
# since they were written). Garbling the middle of the WAL must not silently
# lose them: refuse to start, or recover every acknowledged row.
WDATA="$WORK/wal-data"
EXPECTED="$WORK/expected-wal"
: >"$EXPECTED"
if start_server "$WDATA" "$WORK/wal-server.log"; then
  q -c "CREATE TABLE t (id BIGINT PRIMARY KEY, batch INT, v BIGINT)" -c "FLUSH" >/dev/null 2>&1
  for b in 1 2 3 4; do
    lo=$(( (b - 1) * 3000 + 1 )) hi=$(( b * 3000 ))
    if q -c "$(insert_sql $b $lo $hi)" -c "FLUSH" >/dev/null 2>"$WORK/batch.err"; then
      echo "$b $lo $hi" >>"$EXPECTED"
    else
      fail "WAL scenario: batch $b: $(cat "$WORK/batch.err")"
    fi
  done
  rc=0; term_server || rc=$?
  check "WAL scenario: clean shutdown exits 0 (exit $rc)" test $rc -eq 0
  wal="$(ls -S "$WDATA"/rocksdb/*.log 2>/dev/null | head -n 1)"
  if [[ -n "$wal" && $(stat -c %s "$wal") -gt 4096 ]]; then
    c="$WORK/corrupt-wal"; cp -a "$WDATA" "$c"
    w="$c/rocksdb/$(basename "$wal")"
    printf '\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef' \
      | dd of="$w" bs=1 seek=$(( $(stat -c %s "$w") / 2 )) conv=notrunc 2>/dev/null
    expect_refusal "WAL $(basename "$wal") ($(stat -c %s "$w") bytes) garbled in the middle" "$c" allow-full-recovery
  else
    echo "  (the acknowledged rows are not in a WAL file after the clean shutdown: nothing to garble)"
    ls -la "$WDATA/rocksdb" | sed 's/^/    /'
  fi
else
  fail "WAL scenario: start a server on a fresh directory"
fi

echo
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
