#!/usr/bin/env bash
# A full disk (issue 16, item 4), on a small tmpfs data directory: the
# server never aborts; writes that do not fit are refused with 53100 while
# reads go on; once space is freed, writes resume by themselves (FLUSH
# retries the commit at once); a server started on a full disk opens
# read-only; nothing acknowledged is lost, and the views stay equal to
# their queries throughout.
#
#   tests/integration/disk_full_test.sh [path/to/freshet]
#
# Run twice: with the default reserve (the store refuses writes that would
# leave less than 1% of the disk, 4 MiB here, free: RocksDB never sees a
# full disk) and with disk_reserve_mb = 0 (writes go on until the file
# system refuses them: RocksDB's own ENOSPC, its writes stopped, resumed by
# the store; a restart opens read-write, fails, and falls back to
# read-only). Each run:
# 1) writers of 500-row batches, half with synchronous_commit = off, fill
#    the disk (a 16 MiB ballast file keeps room to free); every refusal
#    must be 53100;
# 2) while full: the server answers, reads work, the views equal their
#    queries, INSERT and CREATE TABLE get 53100;
# 3) the ballast is deleted: writes are accepted again by themselves (the
#    barriers retry the commit; polled, bounded), FLUSH succeeds, every
#    acknowledged batch is there, whole, nothing refused is;
#    (a small write may still fit a full disk: the checks use whole batches)
# 4) the disk is filled again from outside, the server killed with
#    kill -9 and started on the full disk (an INSERT just before gets
#    53100, or without a reserve may be acknowledged into the DML log's
#    preallocated segment): it opens read-only, serves
#    reads, refuses writes with 53100, stops cleanly on SIGTERM;
# 5) with the space freed, a restart replays the DML log (a batch
#    acknowledged just before the kill) and accepts writes again: every
#    acknowledged batch is there, whole; views exact.
# Mounting needs root or an unprivileged user namespace (unshare -rm).
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=disk_full_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"

# Not root: run again in a user and mount namespace of our own.
if [[ $(id -u) -ne 0 && -z "${DISK_FULL_IN_NAMESPACE:-}" ]]; then
  if unshare -rm true 2>/dev/null; then
    DISK_FULL_IN_NAMESPACE=1 exec unshare -rm "$0" "$BIN"
  fi
  echo "  FAILED: mounting a tmpfs needs root or unshare -rm (user namespaces), and neither is available"
  echo; echo "0 passed, 1 failed"; exit 1
fi

source "$HERE/lib.sh"
DISK="$WORK/disk"
mkdir -p "$DISK"
unmount() { umount "$DISK" 2>/dev/null; }

q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 -v VERBOSITY=verbose "$@" 2>&1; }
kill9() { [[ -n "$SERVER_PID" ]] && kill -9 "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""; }
trap 'kill9; unmount; cleanup' EXIT
stop() {  # SIGTERM; ok when the server exits with 0
  kill -TERM "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID"; local rc=$?; SERVER_PID=""
  [[ $rc -eq 0 ]]
}
# Only 53100 refusals: any other error is a failure of the test.
is_disk_full() { [[ "$1" == *"ERROR:  53100"* ]]; }
# Batch B: ids B*1000 .. B*1000+499, 640-byte values.
batch() { echo "insert into t select $1 * 1000 + g, repeat(md5(($1 * 1000 + g)::varchar), 20) from generate_series(0, 499) g"; }
fits_or_full() { [[ -z "$1" ]] || is_disk_full "$1"; }  # quiet psql: nothing on success
views_exact() {
  same m "select count(*), sum(length(v)) from t" &&
    same mg "select id % 7, count(*), max(v) from t group by id % 7"
}
# Each batch is whole or absent; the batches in $1 (file of batch numbers)
# are all there; none of those in $2 is.
batches_ok() {  # batches_ok MUST_FILE MUST_NOT_FILE
  local counts bad=0 b
  counts="$(q -c "select id / 1000, count(*) from t group by id / 1000")"
  declare -A have=()
  while IFS='|' read -r b n; do
    [[ -z "$b" ]] && continue
    have[$b]=$n
    [[ "$n" == 500 ]] || { echo "    batch $b has $n of its 500 rows"; bad=1; }
  done <<<"$counts"
  while read -r b; do
    [[ -z "$b" ]] && continue
    [[ -n "${have[$b]:-}" ]] || { echo "    acknowledged batch $b is missing"; bad=1; }
  done <"$1"
  while read -r b; do
    [[ -z "$b" ]] && continue
    [[ -z "${have[$b]:-}" ]] || { echo "    refused batch $b is there"; bad=1; }
  done <"$2"
  return $bad
}

run() {  # run LABEL RESERVE_MB
  local label="$1" reserve="$2" dir="$DISK/data" log="$WORK/server-$1.log"
  local acked="$WORK/acked-$1" refused="$WORK/refused-$1" conf="$WORK/$1.toml"
  : >"$acked"; : >"$refused"
  printf '[storage]\ndisk_reserve_mb = %s\n' "$reserve" >"$conf"
  unmount
  mount -t tmpfs -o size=48m tmpfs "$DISK" || { fail "$label: mount a 48 MiB tmpfs"; return; }
  dd if=/dev/zero of="$DISK/ballast" bs=1M count=16 status=none
  start_server "$dir" "$log" -- --config "$conf" || { fail "$label: start"; return; }
  q -c "create table t(id int primary key, v varchar)" \
    -c "create materialized view m as select count(*) n, sum(length(v)) s from t" \
    -c "create materialized view mg as select id % 7 g, count(*) n, max(v) mx from t group by id % 7" >/dev/null

  echo "== $label: 1) fill the disk"
  local b out refusals=0 other=0
  for b in $(seq 1 400); do
    local mode=on
    (( b % 2 )) && mode=off
    out="$(q -c "set synchronous_commit = $mode" -c "$(batch "$b")")"
    if [[ "$out" == *ERROR* ]]; then
      if is_disk_full "$out"; then echo "$b" >>"$refused"; else other=1; echo "    batch $b: $out"; fi
      refusals=$((refusals + 1))
      (( refusals >= 3 )) && break
      continue
    fi
    echo "$b" >>"$acked"
    if (( b % 4 == 0 )); then
      out="$(q -c flush)"
      fits_or_full "$out" || { other=1; echo "    flush after batch $b: $out"; }
    fi
  done
  echo "  $(wc -l <"$acked") batches acknowledged, $(wc -l <"$refused") refused, $(df -k "$DISK" | awk 'NR==2 {print $4}') KiB free"
  check "$label: writes were refused once the disk was full" test "$refusals" -ge 3
  check "$label: every refusal was 53100 (disk full)" test "$other" -eq 0

  echo "== $label: 2) while the disk is full"
  check "$label: the server is running" kill -0 "$SERVER_PID"
  out="$(q -c "select count(*) from t")"
  check "$label: reads are served ($out rows committed)" test -n "$out" -a "${out//[0-9]/}" = ""
  check "$label: the views equal their queries" views_exact
  # (Small writes may still fit: a batch like those refused does not.)
  out="$(q -c "$(batch 999)")"
  check "$label: INSERT gets 53100" is_disk_full "$out"
  echo 999 >>"$refused"
  out="$(q -c "create table u(a int)")"
  check "$label: CREATE TABLE succeeds or gets 53100" fits_or_full "$out"
  out="$(q -c flush)"
  check "$label: FLUSH succeeds or gets 53100" fits_or_full "$out"

  echo "== $label: 3) space freed: writes resume"
  rm -f "$DISK/ballast"
  # By itself: the next checkpoint barrier (every second) retries the
  # commit. Polled, bounded: a small write is accepted once it succeeded.
  local resumed=0
  for _ in $(seq 1 300); do
    out="$(q -c "insert into t values (990000, 'probe')")"
    if [[ -z "$out" ]]; then resumed=1; break; fi
    is_disk_full "$out" || break
    sleep 0.1
  done
  check "$label: writes are accepted again without a FLUSH (the barriers retry the commit)" test "$resumed" = 1
  out="$(q -c flush)"
  check "$label: FLUSH commits everything pending" test -z "$out"
  check "$label: the probe row is there" test "$(q -c "select count(*) from t where id = 990000")" = 1
  q -c "delete from t where id = 990000" -c flush >/dev/null
  check "$label: every acknowledged batch is there, whole; no refused one" batches_ok "$acked" "$refused"
  check "$label: the views equal their queries" views_exact
  out="$(q -c "$(batch 500)")"
  check "$label: writes are accepted again" test "$out" = ""
  echo 500 >>"$acked"
  check "$label: and committed" test -z "$(q -c flush)"

  echo "== $label: 4) kill -9 on a full disk, start on it"
  # Acknowledged (in the DML log, synchronous_commit = on), not committed.
  out="$(q -c "$(batch 501)")"
  check "$label: a last batch is acknowledged" test "$out" = ""
  echo 501 >>"$acked"
  dd if=/dev/zero of="$DISK/filler" bs=64k status=none 2>/dev/null
  out="$(q -c "$(batch 998)")"
  if [[ "$reserve" == 0 && -z "$out" ]]; then
    # No reserve: the DML log's preallocated segment still takes the entry
    # (as PostgreSQL's WAL segments do), so it is acknowledged, durable,
    # and replayed by the restart with room (5).
    check "$label: INSERT on the refilled disk is acknowledged into the DML log" true
    echo 998 >>"$acked"
  else
    check "$label: INSERT on the refilled disk gets 53100" is_disk_full "$out"
    echo 998 >>"$refused"
  fi
  kill9
  if start_server "$dir" "$log" -- --config "$conf"; then
    check "$label: it opened read-only" grep -q "opened read-only" "$log"
    out="$(q -c "select count(*) from t")"
    check "$label: reads are served ($out rows)" test -n "$out" -a "${out//[0-9]/}" = ""
    check "$label: the views equal their queries" views_exact
    out="$(q -c "insert into t values (997000, 'x')")"
    check "$label: INSERT gets 53100 (read-only)" is_disk_full "$out"
    echo 997 >>"$refused"
    check "$label: a read-only server stops cleanly on SIGTERM" stop
  else
    fail "$label: the server starts on a full disk"
  fi

  echo "== $label: 5) space freed, restart"
  rm -f "$DISK/filler"
  if start_server "$dir" "$log" -- --config "$conf"; then
    check "$label: every acknowledged batch is there, whole; no refused one" batches_ok "$acked" "$refused"
    check "$label: the views equal their queries" views_exact
    out="$(q -c "insert into t values (996000, 'x')" -c flush)"
    check "$label: writes are accepted" test -z "$out"
    check "$label: stops cleanly on SIGTERM" stop
  else
    fail "$label: restart with free space"
  fi
  # The paths this run is for were taken.
  check "$label: a commit failed and a later one resumed writes" grep -q "accepting writes again" "$log"
  if [[ "$reserve" == 0 ]]; then
    check "$label: RocksDB itself ran out of space" grep -q "No space left on device" "$log"
  else
    check "$label: the reserve refused the writes (RocksDB never ran out)" bash -c '! grep -q "No space left on device" "$1"' _ "$log"
  fi
  if grep -qiE "assert|abort|terminate called" "$log"; then fail "$label: the log shows an abort"; grep -iE "assert|abort|terminate called" "$log" | head -3; fi
}

run reserve -1
run no-reserve 0
finish
