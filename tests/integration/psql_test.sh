#!/usr/bin/env bash
# Drives the real psql against Freshet for the \d family of meta-commands and
# compares each output with what psql prints for a real PostgreSQL 15 holding
# the same schema (psql_expected/NAME.out, made by regen_psql_expected.sh,
# with the server reporting server_version 13.14.0 as Freshet does, so that
# psql sends Freshet the very queries it sent PostgreSQL).
#
#   tests/integration/psql_test.sh [path/to/freshet]
#
# Output is unaligned (psql -A) so that the only normalisation needed is of
# what must differ: owner names (the Owner column of \l, \dn, \dt, \d) and the
# database list (\l keeps only the row of database dev and drops the count).
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXP="$HERE/psql_expected"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
command -v psql >/dev/null || { echo "psql is required"; echo "0 passed, 1 failed"; exit 1; }

WORK="$(mktemp -d /tmp/freshet-psql_test.XXXXXX)"
SERVER_PID=""
PORT=""
passed=0
failed=0
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok()   { echo "  ok: $1"; passed=$((passed + 1)); }
fail() { echo "  FAILED: $1"; failed=$((failed + 1)); }
finish() { echo; echo "$passed passed, $failed failed"; [[ $failed -eq 0 ]]; exit $?; }

pick_port() {
  local port
  for _ in $(seq 1 200); do
    port=$(shuf -i 20000-60999 -n 1)
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}
ready() { pg_isready -q -h 127.0.0.1 -p "$1" -U root -d dev -t 2 >/dev/null 2>&1; }

start_server() {  # start_server DIR LOG: sets SERVER_PID and PORT
  local dir="$1" log="$2" rc
  for _ in 1 2 3 4 5; do
    PORT="$(pick_port)" || return 1
    "$BIN" --data-dir "$dir" --port "$PORT" --http-port 0 --listen-address 127.0.0.1 >>"$log" 2>&1 &
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

# Keep in step with normalise() in regen_psql_expected.sh.
normalise() {  # normalise NAME < raw > normalised
  case "$1" in
    l)  awk -F'|' 'NR <= 2 { print; next } $1 == "dev" { OFS = "|"; $2 = "<owner>"; print }' ;;
    dn) awk -F'|' 'BEGIN { OFS = "|" } NR > 2 && NF >= 2 && !/^\([0-9]+ rows?\)$/ { $2 = "<owner>" } { print }' ;;
    dt|d) awk -F'|' 'BEGIN { OFS = "|" } NR > 2 && NF >= 4 && !/^\([0-9]+ rows?\)$/ { $4 = "<owner>" } { print }' ;;
    *)  cat ;;
  esac
}

export LC_ALL=C LANG=C PGTZ=UTC
if ! start_server "$WORK/data" "$WORK/server.log"; then fail "start the server"; finish; fi
echo "== server on port $PORT"
if psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$EXP/schema.sql" >"$WORK/schema.log" 2>&1 \
   && psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -c "FLUSH" >>"$WORK/schema.log" 2>&1; then
  ok "create the schema (psql_expected/schema.sql)"
else
  fail "create the schema (psql_expected/schema.sql): $(cat "$WORK/schema.log")"
fi

while IFS=$'\t' read -r name cmd; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  echo "== $cmd"
  timeout 60 psql -X -A -P pager=off -h 127.0.0.1 -p "$PORT" -U root -d dev -c "$cmd" >"$WORK/$name.raw" 2>&1
  normalise "$name" <"$WORK/$name.raw" >"$WORK/$name.out"
  if diff -u "$EXP/$name.out" "$WORK/$name.out" >"$WORK/$name.diff"; then
    ok "$cmd matches PostgreSQL"
  else
    fail "$cmd differs from PostgreSQL (--- expected, +++ Freshet):"
    head -n 40 "$WORK/$name.diff" | tail -n +3 | sed 's/^/      /'
  fi
done <"$EXP/commands"

echo "== the server afterwards"
if kill -0 "$SERVER_PID" 2>/dev/null && ready "$PORT"; then
  ok "the server is still running"
else
  wait "$SERVER_PID" 2>/dev/null; rc=$?; SERVER_PID=""
  fail "the server died (exit code $rc); its log ends:"
  tail -n 20 "$WORK/server.log" | sed 's/^/    /'
fi
finish
