#!/usr/bin/env bash
# Writes pg15_objects.txt: the objects PostgreSQL 15's pg_dump -s lists
# ("-- Name: ..." lines, sorted) for schema.sql run on a real PostgreSQL 15,
# through psql_expected/version_proxy.py so that pg_dump sends the queries
# it sends Freshet (server_version 13.14.0). Needs postgresql-15.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN=/usr/lib/postgresql/15/bin
TMP="$(mktemp -d)"
chown nobody "$TMP"
PORT=$(shuf -i 20000-60999 -n 1)
as_nobody() { if [[ $(id -u) -eq 0 ]]; then su nobody -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
as_nobody "$BIN/initdb -D $TMP/data -U root --auth=trust >/dev/null"
as_nobody "$BIN/pg_ctl -D $TMP/data -l $TMP/log -o '-p $PORT -k $TMP -c listen_addresses=127.0.0.1' -w start >/dev/null"
trap 'as_nobody "$BIN/pg_ctl -D $TMP/data -m immediate stop" >/dev/null 2>&1; kill $PROXY 2>/dev/null; rm -rf "$TMP"' EXIT
export PGSSLMODE=disable PGGSSENCMODE=disable
psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d postgres -c "CREATE DATABASE dev"
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$HERE/schema.sql" >/dev/null
python3 "$HERE/../psql_expected/version_proxy.py" "$PORT" 13.14.0 >"$TMP/proxy.port" &
PROXY=$!
for _ in $(seq 1 100); do [[ -s "$TMP/proxy.port" ]] && break; sleep 0.1; done
"$BIN/pg_dump" -s -h 127.0.0.1 -p "$(cat "$TMP/proxy.port")" -U root dev | grep '^-- Name: ' | LC_ALL=C sort >"$HERE/pg15_objects.txt"
echo "wrote $(wc -l <"$HERE/pg15_objects.txt") objects to $HERE/pg15_objects.txt"
