#!/usr/bin/env bash
# Regenerates the expected outputs of psql_test.sh from a real PostgreSQL 15.
#
#   tests/integration/regen_psql_expected.sh
#
# Starts a throwaway PostgreSQL 15 cluster (as the postgres user when run as
# root), creates database dev (root is the bootstrap superuser), loads psql_expected/schema.sql,
# and runs every meta-command of psql_expected/commands through
# psql_expected/version_proxy.py, which makes the server report
# server_version 13.14.0 like Freshet: psql then sends the same catalog
# queries it sends to Freshet. Writes psql_expected/NAME.out (normalised as
# psql_test.sh normalises) and psql_expected/queries.sql (the queries psql
# sends, from `psql -E`). PG_BIN overrides /usr/lib/postgresql/15/bin.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXP="$HERE/psql_expected"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
[[ -x "$PG_BIN/initdb" ]] || { echo "PostgreSQL binaries not found in $PG_BIN" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed for the version proxy" >&2; exit 2; }

as_pg() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

TMP="$(mktemp -d /tmp/psql_expected.XXXXXX)"
DATA="$TMP/data"
STARTED=0
PROXY_PID=""
cleanup() {
  [[ -n "$PROXY_PID" ]] && kill "$PROXY_PID" 2>/dev/null
  [[ $STARTED -eq 1 ]] && as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1
  rm -rf "$TMP"
}
trap cleanup EXIT
[[ $(id -u) -eq 0 ]] && chown postgres: "$TMP"

pick_port() {
  local port
  for _ in $(seq 1 200); do
    port=$(shuf -i 20000-60999 -n 1)
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}

# The bootstrap superuser is root, as Freshet's: \du and the owners of the
# system catalogs then match.
as_pg "$PG_BIN/initdb" -D "$DATA" -U root --auth=trust --no-locale -E UTF8 --no-sync >"$TMP/initdb.log" 2>&1 \
  || { cat "$TMP/initdb.log"; exit 1; }
for _ in 1 2 3; do
  PORT="$(pick_port)"
  if as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 30 \
      -o "-p $PORT -k $TMP -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null; then
    STARTED=1
    break
  fi
done
[[ $STARTED -eq 1 ]] || { echo "could not start PostgreSQL"; cat "$TMP/server.log"; exit 1; }
export PGSSLMODE=disable PGGSSENCMODE=disable LC_ALL=C LANG=C PGTZ=UTC
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U root -d postgres -c "CREATE DATABASE dev"
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$EXP/schema.sql"

python3 "$EXP/version_proxy.py" "$PORT" 13.14.0 >"$TMP/proxy.port" &
PROXY_PID=$!
for _ in $(seq 1 100); do [[ -s "$TMP/proxy.port" ]] && break; sleep 0.1; done
PPORT="$(cat "$TMP/proxy.port")"
[[ -n "$PPORT" ]] || { echo "the version proxy did not start"; exit 1; }
v="$(psql -X -At -h 127.0.0.1 -p "$PPORT" -U root -d dev -c "SELECT 1" 2>&1)"
[[ "$v" == 1 ]] || { echo "cannot query through the proxy: $v"; exit 1; }

# Keep in step with normalise() in psql_test.sh.
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

: >"$EXP/queries.sql"
while IFS=$'\t' read -r name cmd mode; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  psql -X -A -P pager=off -h 127.0.0.1 -p "$PPORT" -U root -d dev -c "$cmd" >"$TMP/$name.raw" 2>&1 || true
  normalise "$name" <"$TMP/$name.raw" >"$EXP/$name.out"
  {
    echo "-- ==================== $cmd ===================="
    psql -X -E -A -P pager=off -h 127.0.0.1 -p "$PPORT" -U root -d dev -c "$cmd" 2>&1 \
      | awk '/^\*+ QUERY \*+$/ { q = 1; next } /^\*+$/ { if (q) { q = 0; print "" } ; next } q { print }'
  } >>"$EXP/queries.sql"
  echo "== $cmd -> psql_expected/$name.out"
  cat "$EXP/$name.out"
done <"$EXP/commands"
