#!/usr/bin/env bash
# Shared by the integration tests: a temp work directory removed on exit,
# ok/fail counters with the "N passed, M failed" summary, and a server
# started on a free port. Source it after setting BIN and NAME.

WORK="$(mktemp -d /tmp/freshet-$NAME.XXXXXX)"
SERVER_PID=""
PORT=""
passed=0
failed=0
BG_PIDS=()   # background clients (psql) a test started: killed on exit
cleanup() {
  local p
  for p in "${BG_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for p in "${BG_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  if [[ -n "$SERVER_PID" ]]; then kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok()   { echo "  ok: $1"; passed=$((passed + 1)); }
fail() { echo "  FAILED: $1"; failed=$((failed + 1)); }
check() {  # check <description> <command...>: ok when the command succeeds
  local what="$1"; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
# Whether a view holds exactly what its query returns (as multisets); needs
# the test's q (psql -At against the server).
same() {  # same VIEW QUERY
  local diff
  diff=$(q -c "select count(*) from ((select * from $1 except all ($2)) union all (($2) except all select * from $1)) d")
  [[ "$diff" == "0" ]] || { echo "    $1 differs from its query in $diff rows"; return 1; }
}
# Whether every materialized view is Created and no job failed (needs the
# test's q).
# (Its locals must not be named `failed` or `passed`: check() would count
# into them.)
no_failure() {  # no_failure <when>
  local not_created events
  not_created=$(q -c "select count(*) from rw_catalog.rw_materialized_views where status <> 'Created'")
  events=$(q -c "select count(*) from rw_catalog.rw_event_logs where event_type in ('STREAM_FAILURE', 'JOB_FAILED')")
  check "$1: every view is created ($not_created not) and no job failed ($events failure events)" \
    test "$not_created/$events" = "0/0"
}
finish() { echo; echo "$passed passed, $failed failed"; [[ $failed -eq 0 ]]; exit $?; }

# Runs a client test program (the tests/clients scripts print "  ok: ..." /
# "  FAILED: ..." lines and "N passed, M failed" last) against the server:
# its lines other than ok are shown, and it counts as one check, passed
# when it exits 0 with no failure.
run_client() {  # run_client LABEL COMMAND...
  local label="$1" out="$WORK/client.out" rc summary; shift
  timeout 300 "$@" </dev/null >"$out" 2>&1
  rc=$?
  sed 's/^/    /' "$out" | grep -v '^    *ok:' || true
  summary=$(tail -n 1 "$out")
  if [[ $rc -eq 0 && "$summary" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]]; then
    ok "$label: ${BASH_REMATCH[1]} checks"
  else
    fail "$label (exit $rc): $summary"
  fi
}
# The server outlived its clients and shuts down cleanly on SIGTERM.
check_clean_shutdown() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then ok "the server is alive"; else fail "the server died"; fi
  kill -TERM "$SERVER_PID"
  if wait "$SERVER_PID"; then ok "clean shutdown on SIGTERM"; else fail "shutdown exit status $?"; fi
  SERVER_PID=""
}

# Stops the server started by start_server: with SIGTERM, waiting (bounded,
# ~60 s) for it to exit; or with kill -9. (A test may define its own
# stop_server after sourcing this, to check the exit.)
stop_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null
  for _ in $(seq 1 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}
kill_server() {
  kill -9 "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}

pick_port() {
  local port
  for _ in $(seq 1 200); do
    port=$(shuf -i 20000-60999 -n 1)
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}
ready() { pg_isready -q -h 127.0.0.1 -p "$1" -U root -d dev -t 2 >/dev/null 2>&1; }

# start_server DIR LOG [COMMAND... --] [SERVER ARGS...]: sets SERVER_PID and
# PORT. The server runs under COMMAND when given (prlimit ..., env X=Y) and
# gets SERVER ARGS after its own (--config FILE).
start_server() {
  local dir="$1" log="$2" rc prefix=(); shift 2
  if [[ " $* " == *" -- "* ]]; then
    while [[ "$1" != "--" ]]; do prefix+=("$1"); shift; done
    shift
  fi
  for _ in 1 2 3 4 5; do
    PORT="$(pick_port)" || return 1
    "${prefix[@]}" "$BIN" --data-dir "$dir" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 "$@" >>"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 600); do  # bounded: ~60 s
      ready "$PORT" && return 0
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
      echo "  the server did not accept connections within 60 s"; return 1
    fi
    wait "$SERVER_PID"; rc=$?; SERVER_PID=""
    [[ $rc -eq 3 ]] || { echo "  the server exited with code $rc:"; tail -n 20 "$log"; return 1; }
  done
  return 1
}


# Builds $NAME.cc, starts a server, runs the program against it (the
# program prints its own "N passed, M failed"), then checks that the server
# is still alive and shuts down cleanly on SIGTERM.
run_program_test() {
  echo "== build $NAME.cc"
  if ! g++ -std=c++20 -O1 -I/usr/include/postgresql "$HERE/$NAME.cc" -lpq -pthread -o "$WORK/$NAME" 2>"$WORK/build.log"; then
    cat "$WORK/build.log"; fail "build $NAME.cc"; finish
  fi

  echo "== start the server"
  if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
  echo "  port $PORT"

  echo "== run"
  timeout "${TIMEOUT:-300}" "$WORK/$NAME" 127.0.0.1 "$PORT" | tee "$WORK/run.log"
  rc=${PIPESTATUS[0]}
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$WORK/run.log" | tail -n 1)"
  if [[ -n "$line" ]]; then
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
    [[ $rc -ne 0 && "$line" == *" 0 failed" ]] && fail "the test program exited with code $rc"
  else
    fail "the test program ended without a summary (exit code $rc$([[ $rc -eq 124 ]] && echo ": timed out after ${TIMEOUT:-300} s"))"
  fi

  echo "== the server afterwards"
  if kill -0 "$SERVER_PID" 2>/dev/null && ready "$PORT"; then
    ok "the server is still running and accepting connections"
    kill -TERM "$SERVER_PID"
    for _ in $(seq 1 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      fail "the server did not exit within 60 s of SIGTERM"
    else
      wait "$SERVER_PID"; rc=$?; SERVER_PID=""
      if [[ $rc -eq 0 ]]; then ok "clean shutdown on SIGTERM"; else fail "shutdown on SIGTERM exited with code $rc"; fi
    fi
  else
    wait "$SERVER_PID" 2>/dev/null; rc=$?; SERVER_PID=""
    fail "the server died (exit code $rc$([[ $rc -gt 128 ]] && echo ", signal $((rc - 128))")); its log ends:"
    tail -n 20 "$WORK/server.log" | sed 's/^/    /'
  fi
  finish
}

# An interactive psql session (a coproc): statements written to it with
# send, its output read back up to a marker line with wait_for (blocking
# reads, no sleeps). PGAPPNAME and the like pass through the environment.
open_session() {
  coproc SESSION { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev 2>&1; }
  BG_PIDS+=("$SESSION_PID")
  # Copies of its pipes and pid, kept when it exits (bash unsets SESSION
  # and SESSION_PID then).
  SESSION_CHILD=$SESSION_PID
  exec {TO_SESSION}>&"${SESSION[1]}" {FROM_SESSION}<&"${SESSION[0]}"
}
send() { printf '%s\n' "$@" >&"$TO_SESSION"; }
# Reads the session's output until the line MARK; the lines before it go
# to $WORK/session.out. Fails when the session ends first.
wait_for() {
  : >"$WORK/session.out"
  local line
  while IFS= read -r -t 120 line <&"$FROM_SESSION"; do
    [[ "$line" == "$1" ]] && return 0
    echo "$line" >>"$WORK/session.out"
  done
  echo "    no '$1' from the session; it printed:"; sed 's/^/      /' "$WORK/session.out"
  return 1
}
close_session() {
  exec {TO_SESSION}>&- {FROM_SESSION}<&-
  if [[ -n "${SESSION[1]:-}" ]]; then exec {SESSION[1]}>&-; fi  # psql reads to end of input
  wait "$SESSION_CHILD" 2>/dev/null
}
