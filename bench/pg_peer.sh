# Shared by the pgbench benchmarks (bench/pgbench, bench/sync_commit,
# bench/point_lookup): a work directory removed on exit with the servers in
# it, free ports, and PostgreSQL 15 in initdb's defaults as the peer. Source
# it after setting BENCH_NAME; then start_postgres [extra postgres options]
# sets PG_PORT, and start_freshet BINARY PORT [options] starts a Freshet in
# the background, registered in FR_PID to be killed on exit.
#
# Both servers run in a session of their own, as daemons do (pg_ctl starts
# PostgreSQL with setsid): with the kernel's scheduler autogroups, a server
# left in the benchmark's session shares one CPU share with pgbench and is
# placed and preempted differently from its peer (session 31 measured -S
# 0.78-0.90x that way against 0.87-1.02x in a session of its own).
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

start_freshet() {  # start_freshet BINARY PORT [options]: Freshet on PORT with data in $WORK/fr
  local bin=$1 port=$2; shift 2
  setsid "$bin" --data-dir "$WORK/fr" --port "$port" --http-port 0 --listen-address 127.0.0.1 "$@" \
    >"$WORK/fr.log" 2>&1 </dev/null &
  FR_PID=$!
  for _ in $(seq 1 100); do pg_isready -q -h 127.0.0.1 -p "$port" && return; sleep 0.1; done
  echo "Freshet did not start on port $port" >&2; cat "$WORK/fr.log" >&2; exit 1
}

start_postgres() {  # start_postgres [-c name=value ...]: PostgreSQL 15 on PG_PORT, user postgres
  mkdir -p "$WORK/pg" && chown postgres "$WORK/pg"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$WORK/pg" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
  PG_PORT=$(free_port)
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/server.log" -w \
    -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 $*" start >/dev/null
}
