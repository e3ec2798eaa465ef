#!/bin/bash
# One partition of 200,000 rows under a view with lag() and a ROWS frame;
# prints the median time of (INSERT one row; FLUSH) over 21 rounds, then
# the view's row count and checksum (equal for any two binaries).
# usage: bench/over_window/run.sh BINARY PORT
BIN=$1; PORT=$2; D=$(mktemp -d)/data; rm -rf $D
setsid $BIN --data-dir $D --port $PORT --http-port 0 --listen-address 127.0.0.1 > $D.log 2>&1 &
P=$!
for i in $(seq 100); do pg_isready -q -h 127.0.0.1 -p $PORT && break; sleep 0.2; done
fr() { psql -X -q -h 127.0.0.1 -p $PORT -U root -d dev "$@"; }
fr -c "CREATE TABLE owt (id int PRIMARY KEY, x int)" -c "INSERT INTO owt SELECT i * 2, i % 1000 FROM generate_series(1, 200000) i" -c FLUSH
fr -c "CREATE MATERIALIZED VIEW owv AS SELECT id, lag(x) OVER (ORDER BY id) AS l, sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM owt"
{ echo '\timing on'; for i in $(seq 1 21); do echo "INSERT INTO owt VALUES ($((i * 18000 + 1)), $i);"; echo "FLUSH;"; done; } > $D.sql
fr -f $D.sql | awk '/^Time: /{t[n++]=$2} END {for(i=0;i<n;i+=2) print t[i]+t[i+1]}' | sort -n | awk '{a[NR]=$1} END {printf "median %.1f ms (insert+flush, %d rounds)\n", a[int((NR+1)/2)], NR}'
fr -Atc "SELECT count(*), sum(s) FROM owv"
kill $P; wait $P 2>/dev/null; rm -rf "$(dirname $D)"
