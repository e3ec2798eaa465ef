#!/usr/bin/env bash
# RisingWave's table conflict behaviour (CREATE TABLE ... ON CONFLICT
# {OVERWRITE | IGNORE | DO UPDATE IF NOT NULL} [WITH VERSION COLUMN (v)];
# meta/table_conflict.h) against PostgreSQL 15 doing the same by hand.
#
#   tests/integration/table_conflict_test.sh [path/to/freshet]
#
# Seeded random writes with many duplicate keys (multi-row INSERTs, some in
# transaction blocks, COPY, UPDATEs, DELETEs) go to four Freshet tables, one
# per behaviour, and as one row per statement to PostgreSQL tables written
# with INSERT ... ON CONFLICT (k) DO NOTHING / DO UPDATE SET v = EXCLUDED.v /
# SET v = coalesce(EXCLUDED.v, t.v) [WHERE EXCLUDED.ver >= t.ver] — the
# same rows in the same order must leave the same tables. After every round
# each table equals PostgreSQL's, and a materialized view over each equals
# its query. The last rounds are written without a checkpoint and the server
# is killed -9: the DML log's replay resolves them the same way.
# TABLE_CONFLICT_SEED picks the seed. Prints "N passed, M failed" last.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=table_conflict_test
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"
source "$HERE/pg15.sh"

SEED="${TABLE_CONFLICT_SEED:-20261206}"
echo "  seed $SEED (rerun: TABLE_CONFLICT_SEED=$SEED)"
start_pg || { fail "start PostgreSQL"; finish; }
"${AS_PG[@]}" "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres \
  -c "create role root superuser login" -c "create database dev owner root" >/dev/null || { fail "set up PostgreSQL"; finish; }
start_server "$WORK/data" "$WORK/server.log" || { fail "start Freshet"; finish; }

# python3 DRIVER PHASE: writes rounds to both and checks (phase "write" and
# "unflushed"), or only checks (phase "check").
DRIVER="$WORK/driver.py"
cat >"$DRIVER" <<'PY'
import random, sys
import psycopg

fport, pport, phase, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fr = psycopg.connect(f"host=127.0.0.1 port={fport} user=root dbname=dev", autocommit=True)
pg = psycopg.connect(f"host=127.0.0.1 port={pport} user=root dbname=dev", autocommit=True)
passed = failed = 0

def ok(msg):
    global passed
    passed += 1

def fail(msg):
    global failed
    failed += 1
    print("  FAILED: " + msg)

KINDS = {"ig": "ignore", "ow": "overwrite", "nn": "do update if not null", "vv": "overwrite with version"}
PG_UPSERT = {
    "ig": "ON CONFLICT (k) DO NOTHING",
    "ow": "ON CONFLICT (k) DO UPDATE SET ver = EXCLUDED.ver, a = EXCLUDED.a, b = EXCLUDED.b",
    "nn": "ON CONFLICT (k) DO UPDATE SET ver = coalesce(EXCLUDED.ver, t.ver), a = coalesce(EXCLUDED.a, t.a), b = coalesce(EXCLUDED.b, t.b)",
    "vv": "ON CONFLICT (k) DO UPDATE SET ver = EXCLUDED.ver, a = EXCLUDED.a, b = EXCLUDED.b WHERE EXCLUDED.ver >= t.ver",
}
VIEW_LIST = "a % 3 AS g, count(*), sum(length(coalesce(b, ''))), max(ver)"
CLAUSE = {"ig": "ON CONFLICT IGNORE", "ow": "ON CONFLICT OVERWRITE", "nn": "ON CONFLICT DO UPDATE IF NOT NULL",
          "vv": "ON CONFLICT DO UPDATE FULL WITH VERSION COLUMN (ver)"}

def lit(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return str(v)

def rows_of(conn, sql):
    return sorted((tuple(r) for r in conn.execute(sql).fetchall()), key=repr)

def compare(label):
    for name in KINDS:
        a = rows_of(fr, f"SELECT k, ver, a, b FROM ct_{name}")
        b = rows_of(pg, f"SELECT k, ver, a, b FROM ct_{name}")
        if a == b:
            ok(f"{label}: ct_{name} equals PostgreSQL's")
        else:
            fail(f"{label}: ct_{name} differs from PostgreSQL's: only Freshet {sorted(set(a) - set(b))[:5]}, only PostgreSQL {sorted(set(b) - set(a))[:5]}")
        view = rows_of(fr, f"SELECT * FROM ct_{name}_mv")
        query = rows_of(fr, f"SELECT {VIEW_LIST} FROM ct_{name} GROUP BY a % 3")
        if view == query:
            ok(f"{label}: ct_{name}_mv equals its query")
        else:
            fail(f"{label}: ct_{name}_mv {view} but its query {query}")

rng = random.Random(seed * 7 + {"setup": 0, "write": 1, "unflushed": 2, "check": 3}[phase])

def random_row():
    k = rng.randint(1, 25)
    ver = None if rng.random() < 0.1 else rng.randint(0, 6)
    a = None if rng.random() < 0.2 else rng.randint(-5, 50)
    b = None if rng.random() < 0.3 else rng.choice(["x", "y", "z", "it's", ""])
    return (k, ver, a, b)

def pg_upsert(name, rows):
    # One row per statement: PostgreSQL's ON CONFLICT DO UPDATE refuses a
    # statement that meets a key twice.
    for row in rows:
        pg.execute(f"INSERT INTO ct_{name} AS t VALUES ({', '.join(lit(v) for v in row)}) {PG_UPSERT[name]}")

def write_round(flush):
    for name in KINDS:
        stmts = rng.randint(2, 5)
        for _ in range(stmts):
            r = rng.random()
            if r < 0.6:
                rows = [random_row() for _ in range(rng.randint(1, 6))]
                values = ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in rows)
                block = rng.random() < 0.3
                if block:
                    fr.execute("BEGIN")
                fr.execute(f"INSERT INTO ct_{name} VALUES {values}")
                if block:
                    fr.execute("COMMIT")
                pg_upsert(name, rows)
            elif r < 0.75:
                rows = [random_row() for _ in range(rng.randint(1, 5))]
                with fr.cursor().copy(f"COPY ct_{name} FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                pg_upsert(name, rows)
            elif r < 0.9:
                k = rng.randint(1, 25)
                sql = f"UPDATE ct_{name} SET a = a + 1, ver = ver + 1 WHERE k = {k}"
                fr.execute(sql)
                pg.execute(sql)
            else:
                k = rng.randint(1, 25)
                sql = f"DELETE FROM ct_{name} WHERE k = {k}"
                fr.execute(sql)
                pg.execute(sql)
    if flush:
        fr.execute("FLUSH")

if phase == "setup":
    for name in KINDS:
        fr.execute(f"CREATE TABLE ct_{name} (k int PRIMARY KEY, ver int, a int, b text) {CLAUSE[name]}")
        pg.execute(f"CREATE TABLE ct_{name} (k int PRIMARY KEY, ver int, a int, b text)")
        fr.execute(f"CREATE MATERIALIZED VIEW ct_{name}_mv AS SELECT {VIEW_LIST} FROM ct_{name} GROUP BY a % 3")
elif phase == "write":
    for i in range(12):
        write_round(True)
        compare(f"round {i + 1}")
elif phase == "unflushed":
    for i in range(4):
        write_round(False)
elif phase == "check":
    compare("after kill -9")
    for i in range(3):
        write_round(True)
        compare(f"after the restart, round {i + 1}")
print(f"{passed} {failed}")
PY

drive() {  # drive PHASE: runs the driver, counts its checks
  local out last
  out=$(/usr/bin/python3 "$DRIVER" "$PORT" "$PG_PORT" "$1" "$SEED" 2>&1)
  last=$(tail -n 1 <<<"$out")
  grep "FAILED\|Error\|Traceback" <<<"$out" | head -n 20
  if [[ "$last" =~ ^([0-9]+)\ ([0-9]+)$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
  else
    fail "driver phase $1: $(tail -n 3 <<<"$out")"
  fi
}

echo "== rounds of writes with duplicate keys, each compared with PostgreSQL"
drive setup
drive write
echo "== writes without a checkpoint, kill -9, restart: the DML log's replay resolves them again"
psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -c "ALTER SYSTEM SET checkpoint_frequency = 10000" \
  -c "ALTER SYSTEM SET barrier_interval_ms = 600000" -c "FLUSH" >/dev/null
drive unflushed
kill_server
start_server "$WORK/data" "$WORK/server.log" || { fail "restart Freshet"; finish; }
check "the restart replayed the DML log" grep -q "replayed [1-9][0-9]* write sets from the DML log" "$WORK/server.log"
psql -X -q -h 127.0.0.1 -p "$PORT" -U root -d dev -c "ALTER SYSTEM RESET checkpoint_frequency" \
  -c "ALTER SYSTEM RESET barrier_interval_ms" >/dev/null
drive check
check "the server is still running" ready "$PORT"
stop_server
finish
