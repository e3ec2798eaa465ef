#!/usr/bin/env bash
# A private PostgreSQL 15 for the differential tests (source after lib.sh
# and after setting PG_BIN): start_pg initdbs it in $WORK/pg (trust auth,
# C collation, UTF-8 character classes; as user postgres when run as
# root) and starts it on a free 127.0.0.1 port ($PG_PORT), unsafe but fast
# (no fsync); stop_pg stops it, and runs on exit with the test's cleanup.

PG_DATA="$WORK/pg"
PG_RUN="$WORK/pgrun"
PG_PORT=""
PG_STARTED=0
AS_PG=()
stop_pg() {
  [[ $PG_STARTED -eq 1 ]] || return 0
  timeout 60 "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t 30 stop >/dev/null 2>&1
  PG_STARTED=0
}
trap 'stop_pg; cleanup' EXIT

start_pg() {
  if [[ "$(id -u)" -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || { echo "  running as root but there is no user postgres to run PostgreSQL as"; return 1; }
    AS_PG=(runuser -u postgres --)
    chmod 711 "$WORK"
  fi
  mkdir -p "$PG_DATA" "$PG_RUN" && chmod 700 "$PG_DATA" || return 1
  [[ ${#AS_PG[@]} -gt 0 ]] && chown postgres: "$PG_DATA" "$PG_RUN"
  # C collation (strings compare as bytes, as in Freshet), UTF-8 character classes (upper('ü') = 'Ü').
  if ! timeout 120 "${AS_PG[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C \
      --lc-ctype=C.UTF-8 -N >"$PG_RUN/initdb.log" 2>&1; then
    tail -n 20 "$PG_RUN/initdb.log"; return 1
  fi
  for _ in 1 2 3 4 5; do
    PG_PORT="$(pick_port)" || return 1
    if timeout 90 "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_RUN/server.log" -w -t 60 \
        -o "-p $PG_PORT -k $PG_RUN -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null 2>&1; then
      PG_STARTED=1
      return 0
    fi
    PG_STARTED=1; stop_pg   # maybe half started; the port may have been taken meanwhile: try another
  done
  tail -n 20 "$PG_RUN/server.log"
  return 1
}
