#!/usr/bin/env bash
# The crash corpus (issue 16, "nothing a client sends can crash the
# server"): generates tests/corpus/gen_corpus.py's ~15,000 statements
# (deterministic), runs them in order against one server with
# crash_corpus_test.cc (built here with g++ and libpq), each with a 3 s
# timeout and a cancel request after it; a new connection must answer
# SELECT 1 every 250 statements and at the end.
#
#   tests/integration/crash_corpus_test.sh [path/to/freshet] [--known]
#
# A statement after which the server does not answer is a failure, printed
# with the statement and the end of the server's log; the server is then
# restarted on its data directory and the corpus goes on after it, so one
# run finds every crash. A statement that gets no answer even after a
# cancel request, or that breaks its connection while the server lives,
# is a failure too. Errors are fine, XX000 internal errors included, but
# those are listed (they are bugs: a user error has its own SQLSTATE).
#
# --known runs tests/corpus/known_crashes.sql instead: statements that
# crash (or break the connection) in code other engineers own, kept out of
# the default corpus until they are fixed.
# Prints "N passed, M failed" last (N: statements answered); exits non-zero
# when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${1:-/work/main/build/freshet}"
KNOWN=0
[[ "${2:-}" == "--known" || "${1:-}" == "--known" ]] && KNOWN=1
[[ "$BIN" == "--known" ]] && BIN=/work/main/build/freshet
NAME=crash_corpus_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"

# Like lib.sh's start_server, with extra server arguments, and under an
# address-space limit (16 GiB; FRESHET_AS_LIMIT overrides it): a statement
# that makes the server allocate without bound fails (bad_alloc) instead of
# having the kernel's OOM killer pick a process on the machine. (8 GiB was
# too little for the thread stacks of the ~50 materialized views the corpus
# keeps: new connections could not get a thread.)
start_with() {  # start_with DIR LOG ARGS...
  start_server "$1" "$2" prlimit --as="${FRESHET_AS_LIMIT:-$((16 << 30))}" -- "${@:3}"
}

echo "== build $NAME.cc"
if ! g++ -std=c++20 -O1 -I/usr/include/postgresql "$HERE/$NAME.cc" -lpq -o "$WORK/$NAME" 2>"$WORK/build.log"; then
  cat "$WORK/build.log"; fail "build $NAME.cc"; finish
fi

if [[ $KNOWN -eq 1 ]]; then
  CORPUS="$ROOT/tests/corpus/known_crashes.sql"
  echo "== the known crashes ($CORPUS)"
else
  CORPUS="$WORK/corpus.sql"
  echo "== generate the corpus"
  if ! python3 "$ROOT/tests/corpus/gen_corpus.py" >"$CORPUS"; then fail "gen_corpus.py"; finish; fi
  echo "  $(grep -vc '^-- ' "$CORPUS") statements, md5 $(md5sum <"$CORPUS" | cut -c1-12)"
fi

# Barriers every 100 ms (FLUSH and CREATE MATERIALIZED VIEW wait for them)
# and small caches.
printf '[streaming]\nbarrier_interval_ms = 100\n[storage]\nblock_cache_mb = 64\nscan_cache_mb = 64\n' >"$WORK/corpus.toml"
echo "== start the server"
if ! start_with "$WORK/data" "$WORK/server.log" --config "$WORK/corpus.toml"; then fail "start the server"; finish; fi
echo "  port $PORT"

echo "== run"
SUMMARY="$WORK/summary.txt"
start_line=1
crashes=0
deadline=$((SECONDS + ${CORPUS_TIMEOUT:-600}))
while true; do
  log_lines=$(wc -l <"$WORK/server.log")
  timeout $((deadline - SECONDS > 1 ? deadline - SECONDS : 1)) \
    "$WORK/$NAME" 127.0.0.1 "$PORT" "$CORPUS" --start "$start_line" --timeout-ms 3000 --check-every 250 \
    --summary "$SUMMARY" | tee "$WORK/run.log"
  rc=${PIPESTATUS[0]}
  [[ $rc -eq 3 ]] || break
  crashes=$((crashes + 1))
  resume="$(sed -nE 's/^RESUME ([0-9]+)$/\1/p' "$WORK/run.log" | tail -n 1)"
  echo "  the server's log ends:"
  tail -n +"$((log_lines + 1))" "$WORK/server.log" | tail -n 15 | sed 's/^/    /'
  kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  [[ -n "$resume" && $crashes -lt 20 && $SECONDS -lt $deadline ]] || break
  echo "== restart the server and resume at line $resume"
  if ! start_with "$WORK/data" "$WORK/server.log" --config "$WORK/corpus.toml"; then
    echo "  it does not start on its data directory: a fresh one"
    start_with "$WORK/data-$crashes" "$WORK/server.log" --config "$WORK/corpus.toml" || { fail "restart the server"; break; }
  fi
  start_line=$resume
done
if [[ $rc -eq 124 ]]; then fail "the corpus did not finish within ${CORPUS_TIMEOUT:-600} s"; fi

echo "== results"
if [[ -f "$SUMMARY" ]]; then
  read -r run ok_n err_n fail_n < <(awk '$1 == "run" {r += $2; o += $4; e += $6; f += $8} END {print r + 0, o + 0, e + 0, f + 0}' "$SUMMARY")
  echo "  $run statements: $ok_n with results, $err_n errors; $crashes crashes, $fail_n failures in all"
  echo "  errors by SQLSTATE: $(awk '$1 == "state" {n[$2] += $3} END {for (s in n) printf "%s %d, ", s, n[s]}' "$SUMMARY" | sed 's/, $//')"
  xx=$(grep -c '^xx000 ' "$SUMMARY")
  echo "  internal errors (XX000, allowed but bugs): $xx"
  grep '^xx000 ' "$SUMMARY" | cut -c7- | head -n 100 | sed 's/^/    /'
  passed=$((passed + run - fail_n))
  failed=$((failed + fail_n))
else
  fail "no summary from the test program"
fi

# Stops the server with SIGTERM; it must exit cleanly.
stop_server() {
  local rc
  kill -TERM "$SERVER_PID"
  for _ in $(seq 1 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    fail "$1: the server did not exit within 60 s of SIGTERM"
    kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  else
    wait "$SERVER_PID"; rc=$?; SERVER_PID=""
    if [[ $rc -eq 0 ]]; then ok "$1: clean shutdown on SIGTERM"; else fail "$1: shutdown on SIGTERM exited with code $rc"; fi
  fi
}

echo "== the server afterwards"
if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null && ready "$PORT"; then
  ok "the server is still running and accepting connections"
  stop_server "after the corpus"
  # Recovery plans again every stream job the corpus left: the server must
  # start on its directory and answer for each materialized view.
  echo "== restart on the corpus's data directory"
  if start_with "$WORK/data" "$WORK/server.log" --config "$WORK/corpus.toml"; then
    views=$(psql -X -At -h 127.0.0.1 -p "$PORT" -U root -d dev -c "SELECT name FROM rw_catalog.rw_materialized_views ORDER BY 1" 2>&1)
    n=0
    for v in $views; do
      timeout 20 psql -X -At -h 127.0.0.1 -p "$PORT" -U root -d dev -c "SELECT count(*) FROM \"$v\"" >/dev/null 2>&1
      n=$((n + 1))
    done
    if kill -0 "$SERVER_PID" 2>/dev/null && ready "$PORT"; then
      ok "restarted with the corpus's $n materialized views, each queried"
      stop_server "after the restart"
    else
      fail "the restarted server died; its log ends:"; tail -n 20 "$WORK/server.log" | sed 's/^/    /'
    fi
  else
    fail "the server does not start again on the corpus's data directory"
  fi
else
  fail "the server is not running at the end"
fi
finish
