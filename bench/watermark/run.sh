#!/usr/bin/env bash
# Loads 1M rows into tables with and without WATERMARK FOR, and into a
# watermarked table under a windowed aggregation emitting on update and on
# window close (docs/benchmarks.md, "Issue 19, session 34: watermarks").
#
#   bench/watermark/run.sh PORT    (a running Freshet on 127.0.0.1:PORT)
#
# Prints each run's seconds (load + FLUSH); quote medians.
set -uo pipefail
PORT="${1:?usage: bench/watermark/run.sh PORT}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
P="psql -qAt -h 127.0.0.1 -p $PORT -U root -d dev"
python3 -c "
import datetime
b = datetime.datetime(2024, 1, 1)
with open('$WORK/rows.csv', 'w') as f:
    for i in range(1000000):
        f.write((b + datetime.timedelta(milliseconds=i * 10)).strftime('%Y-%m-%d %H:%M:%S.%f') + f',{i % 97},{i % 1000}\n')
"
secs() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }
WM="watermark for ts as ts - interval '5 seconds'"
VIEW="select window_start, k, count(*) n, sum(v) s from tumble(b_wm, ts, interval '10 seconds') group by window_start, k"
for run in 1 2 3; do
  $P -c "drop table if exists b_plain" -c "drop table if exists b_ops" -c "drop table if exists b_wm cascade" 2>/dev/null
  $P -c "create table b_plain (ts timestamp, k int, v int) append only" -c "create table b_ops (ts timestamp, k int, v int) append only" \
     -c "create table b_wm (ts timestamp, k int, v int, $WM) append only"
  bulk=$(secs $P -c "\copy b_plain from '$WORK/rows.csv' csv" -c flush)
  ops=$(secs $P -c "begin" -c "\copy b_ops from '$WORK/rows.csv' csv" -c "commit" -c flush)
  wm=$(secs $P -c "\copy b_wm from '$WORK/rows.csv' csv" -c flush)
  $P -c "drop table b_wm" -c "create table b_wm (ts timestamp, k int, v int, $WM) append only" -c "create materialized view b_upd as $VIEW"
  upd=$(secs $P -c "\copy b_wm from '$WORK/rows.csv' csv" -c flush)
  $P -c "drop table b_wm cascade" -c "create table b_wm (ts timestamp, k int, v int, $WM) append only" \
     -c "create materialized view b_eowc as $VIEW emit on window close"
  eowc=$(secs $P -c "\copy b_wm from '$WORK/rows.csv' csv" -c flush)
  echo "run $run: bulk $bulk s, ordinary writes $ops s, watermark $wm s, view on update $upd s, view on window close $eowc s"
done
$P -c "drop table b_plain" -c "drop table b_ops" -c "drop table b_wm cascade" 2>/dev/null
