#!/usr/bin/env python3
"""One step of subscription_test.sh: random writes to table sub_t and a
consumer of subscription sub_s that keeps a replica of the table from the
changes it fetches.

    subscription_step.py PORT STATE_FILE SEED ROUND [--final] [--subscription NAME]

The consumer's state (the replica and the rw_timestamp of the last epoch it
applied whole) is kept in STATE_FILE between steps, as a client would keep
it across its own restarts and the server's. A step declares its cursor
FULL the first time, else SINCE that rw_timestamp; it applies an epoch's
changes only once it has all of them (a row of a later epoch came, or a
FETCH returned nothing), so a step that ends mid-epoch loses nothing: the
next one reads that epoch again. Every change must make sense against the
replica (an Insert of an absent key, a Delete or UpdateDelete of the row the
replica holds), and epochs must come in order. With --final the step makes
no writes, reads everything, and compares the replica with the table.

Prints "ok: ..." / "FAILED: ..." lines and "N passed, M failed" last.
"""
import json
import os
import random
import sys

import psycopg

port, state_file, seed, round_no = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
final = "--final" in sys.argv
# The subscription read (sub_s on the table by default; one on a
# materialized view over it holds the same rows).
subscription = sys.argv[sys.argv.index("--subscription") + 1] if "--subscription" in sys.argv else "sub_s"
rng = random.Random(seed * 1000 + round_no + (0 if subscription == "sub_s" else 500))
passed = failed = 0


def check(what, ok):
    global passed, failed
    if ok:
        passed += 1
        print(f"  ok: {what}")
    else:
        failed += 1
        print(f"  FAILED: {what}")


state = {"replica": {}, "last_ts": None, "epochs": 0, "changes": 0}
if os.path.exists(state_file):
    with open(state_file) as f:
        state = json.load(f)
replica = state["replica"]  # str(k) -> v

conninfo = f"host=127.0.0.1 port={port} user=root dbname=dev"
reader = psycopg.connect(conninfo, autocommit=True)
writer = psycopg.connect(conninfo, autocommit=True)
if state["last_ts"] is None:
    reader.execute(f"DECLARE c SUBSCRIPTION CURSOR FOR {subscription} FULL")
else:
    reader.execute(f"DECLARE c SUBSCRIPTION CURSOR FOR {subscription} SINCE {state['last_ts']}")

pending = []        # the changes of the epoch being read, not applied yet
pending_ts = None   # its rw_timestamp (None: the FULL snapshot's rows)
problems = []


def apply_pending():
    global pending, pending_ts
    for op, k, v in pending:
        key = str(k)
        if op == "Insert" or op == "UpdateInsert":
            if key in replica:
                problems.append(f"{op} of key {k} the replica holds (epoch {pending_ts})")
            replica[key] = v
        else:
            if replica.get(key) != v:
                problems.append(f"{op} of ({k}, {v}) where the replica holds {replica.get(key)} (epoch {pending_ts})")
            replica.pop(key, None)
    state["changes"] += len(pending)
    if pending_ts is not None:
        state["last_ts"] = pending_ts
        state["epochs"] += 1
    pending, pending_ts = [], None


snapshot_done = state["last_ts"] is not None


def fetch(n):
    """FETCH n: applies every epoch it completes; True when it returned nothing."""
    global pending_ts, snapshot_done
    rows = reader.execute(f"FETCH {n} FROM c").fetchall()
    for k, v, op, ts in rows:
        if ts is None:  # FULL's snapshot rows
            if snapshot_done:
                problems.append(f"a snapshot row ({k}) after the log began")
            pending.append((op, k, v))
            continue
        if not snapshot_done:
            apply_pending()  # the snapshot is complete once the log begins
            snapshot_done = True
        if pending_ts is not None and ts < pending_ts:
            problems.append(f"epoch {ts} after epoch {pending_ts}")
        if state["last_ts"] is not None and ts <= state["last_ts"]:
            problems.append(f"epoch {ts} again (already applied through {state['last_ts']})")
        if pending_ts is not None and ts != pending_ts:
            apply_pending()
        pending_ts = ts
        pending.append((op, k, v))
    if not rows:
        apply_pending()
        snapshot_done = True
    return not rows


if final:
    writer.execute("FLUSH")
    while not fetch(rng.choice([1, 7, 100, 1000])):
        pass
    table = {str(k): v for k, v in writer.execute("SELECT k, v FROM sub_t").fetchall()}
    check(f"{subscription}: the replica built from {state['changes']} changes in {state['epochs']} epochs equals the table "
          f"({len(table)} rows)", replica == table)
    if replica != table:
        missing = [k for k in table if replica.get(k) != table[k]][:5]
        extra = [k for k in replica if k not in table][:5]
        print(f"    differing keys: {missing}, extra: {extra}")
else:
    for _ in range(rng.randint(20, 40)):
        # A transaction of a few writes (the table's rows are its truth).
        with writer.transaction():
            for _ in range(rng.randint(1, 6)):
                k = rng.randint(1, 60)
                r = rng.random()
                if r < 0.45:
                    writer.execute("INSERT INTO sub_t VALUES (%s, %s) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                                   (k, rng.randint(0, 999)))
                elif r < 0.7:
                    writer.execute("UPDATE sub_t SET v = v + 1 WHERE k = %s", (k,))
                elif r < 0.85:
                    writer.execute("DELETE FROM sub_t WHERE k = %s", (k,))
                else:
                    writer.execute("UPDATE sub_t SET v = v * 2 WHERE k BETWEEN %s AND %s", (k, k + 5))
        if rng.random() < 0.3:
            writer.execute("FLUSH")
        if rng.random() < 0.5:
            fetch(rng.choice([1, 3, 10, 50]))
    if state["last_ts"] is None:
        # The first step reads past FULL's snapshot into the log, so that
        # the next declares its cursor SINCE an epoch it applied.
        while not fetch(50):
            pass

check(f"round {round_no} ({subscription}): every change fits the replica, epochs in order", not problems)
for p in problems[:10]:
    print(f"    {p}")
with open(state_file, "w") as f:
    json.dump(state, f)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
