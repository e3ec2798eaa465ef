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
# what must differ: owner names (the Owner column of \l, \dn, \dt, \d), the
# database list (\l keeps only the row of database dev and drops the count)
# and sizes (a Size column holds <size>). Commands marked `subset` in
# psql_expected/commands list built-in objects of which PostgreSQL has more
# (casts, text search configurations, languages): Freshet's lines must be
# among PostgreSQL's.
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXP="$HERE/psql_expected"
BIN="${1:-/work/main/build/freshet}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
command -v psql >/dev/null || { echo "psql is required"; echo "0 passed, 1 failed"; exit 1; }

NAME=psql_test
source "$HERE/lib.sh"

# Keep in step with normalise() in regen_psql_expected.sh.
normalise() {  # normalise NAME < raw > normalised
  case "$1" in
    l)  awk -F'|' 'NR <= 2 { print; next } $1 == "dev" { OFS = "|"; $2 = "<owner>"; print }' ;;
    dn) awk -F'|' 'BEGIN { OFS = "|" } NR > 2 && NF >= 2 && !/^\([0-9]+ rows?\)$/ { $2 = "<owner>" } { print }' ;;
    dt|d) awk -F'|' 'BEGIN { OFS = "|" } NR > 2 && NF >= 4 && !/^\([0-9]+ rows?\)$/ { $4 = "<owner>" } { print }' ;;
    *)  cat ;;
  esac | awk -F'|' '  # a Size column (the + forms) depends on the storage: <size>
    BEGIN { OFS = "|" }
    NR == 2 { for (i = 1; i <= NF; i++) if ($i == "Size") size = i }
    NR > 2 && size && NF >= size && !/^\([0-9]+ rows?\)$/ { $size = "<size>" }
    { print }'
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

while IFS=$'\t' read -r name cmd mode; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  echo "== $cmd"
  timeout 60 psql -X -A -P pager=off -h 127.0.0.1 -p "$PORT" -U root -d dev -c "$cmd" >"$WORK/$name.raw" 2>&1
  normalise "$name" <"$WORK/$name.raw" >"$WORK/$name.out"
  if [[ "$mode" == subset ]]; then
    # A list of built-in objects PostgreSQL has more of (casts, text search
    # configurations, extensions): every line Freshet prints but the row
    # count must be one PostgreSQL prints, or psql's own "Did not find any".
    if grep -v -E '^\([0-9]+ rows?\)$' "$WORK/$name.out" | grep -v -x -E 'Did not find any .*\.' \
        | grep -v -x -F -f "$EXP/$name.out" >"$WORK/$name.diff"; then
      fail "$cmd prints lines PostgreSQL does not:"
      head -n 20 "$WORK/$name.diff" | sed 's/^/      /'
    else
      ok "$cmd lists a subset of PostgreSQL's"
    fi
    continue
  fi
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
