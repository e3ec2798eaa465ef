# Shared by the pgbench benchmarks (bench/sync_commit, bench/point_lookup):
# a work directory removed on exit with the servers in it, free ports, and
# PostgreSQL 15 in initdb's defaults as the peer. Source it after setting
# BENCH_NAME; then start_postgres [extra postgres options] sets PG_PORT, and
# a Freshet started in the background is registered in FR_PID to be killed
# on exit.
PG_BIN=/usr/lib/postgresql/15/bin
WORK=$(mktemp -d "/tmp/bench-$BENCH_NAME.XXXXXX")
chmod 755 "$WORK"
FR_PID=""
cleanup() {
  [[ -n "$FR_PID" ]] && kill -9 "$FR_PID" 2>/dev/null || true
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
[[ -n "${KEEP:-}" ]] && trap - EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_postgres() {  # start_postgres [-c name=value ...]: PostgreSQL 15 on PG_PORT, user postgres
  mkdir -p "$WORK/pg" && chown postgres "$WORK/pg"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$WORK/pg" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
  PG_PORT=$(free_port)
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/server.log" -w \
    -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 $*" start >/dev/null
}
