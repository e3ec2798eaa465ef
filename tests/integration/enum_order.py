"""Enum types against PostgreSQL 15 (run by enum_order_test.sh).

Per seed: an enum type built by random ADD VALUE (at the end, BEFORE or
AFTER a random label) and RENAME VALUE steps, some of them after rows were
stored; a table with an enum column and an array of them; random inserts,
updates and deletes; then the same queries on both servers (ordering,
comparisons with labels, min/max, GROUP BY, DISTINCT, arrays, enum_range,
pg_enum's order) must give the same rows, and a materialized view over the
table on Freshet must equal the query's result on PostgreSQL.

Usage: enum_order.py FRESHET_PORT PG_PORT SEED COUNT
"""
import random
import sys

import psycopg2

WORDS = ["new", "open", "done", "x", "it's", "Mixed", "a b", "zz", "mid", "low", "high", "é", "q1", "q2", "q3",
         "alpha", "beta", "gamma", "delta", "omega", "nil", "none", "true", "select"]

fr_port, pg_port, first, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fr = psycopg2.connect(host="127.0.0.1", port=fr_port, user="root", dbname="dev")
pg = psycopg2.connect(host="127.0.0.1", port=pg_port, user="postgres", dbname="postgres")
fr.autocommit = pg.autocommit = True
passed = failed = 0


def q(s):
    return "'" + s.replace("'", "''") + "'"


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall() if cur.description else None


def both(sql):
    global failed
    errors = []
    for conn in (fr, pg):
        try:
            run(conn, sql)
            errors.append(None)
        except psycopg2.Error as e:
            errors.append(e.pgcode)
    if errors[0] != errors[1]:
        failed += 1
        print(f"  FAILED: {sql}\n    Freshet: {errors[0]}, PostgreSQL: {errors[1]}")
    return errors[0] is None


def compare(what, fr_sql, pg_sql=None):
    global passed, failed
    try:
        a = run(fr, fr_sql)
    except psycopg2.Error as e:
        a = f"error {e.pgcode}"
    try:
        b = run(pg, pg_sql or fr_sql)
    except psycopg2.Error as e:
        b = f"error {e.pgcode}"
    if a == b:
        passed += 1
    else:
        failed += 1
        print(f"  FAILED: {what}: {fr_sql}\n    Freshet:    {a}\n    PostgreSQL: {b}")


for seed in range(first, first + count):
    r = random.Random(seed)
    typ, tab, mv = f"fz_e{seed}", f"fz_t{seed}", f"fz_mv{seed}"
    for conn in (fr, pg):
        for stmt in (f"DROP TABLE IF EXISTS {tab} CASCADE", f"DROP TYPE IF EXISTS {typ}"):
            try:
                run(conn, stmt)
            except psycopg2.Error:
                pass
    labels = r.sample(WORDS, r.randint(1, 5))
    both(f"CREATE TYPE {typ} AS ENUM ({', '.join(q(l) for l in labels)})")
    both(f"CREATE TABLE {tab} (id int PRIMARY KEY, e {typ}, arr {typ}[])")
    next_id = 1
    pinned = []  # labels the view names: not renamed

    def alter():
        unused = [w for w in WORDS if w not in labels]
        renamable = [l for l in labels if l not in pinned]
        if r.random() < 0.2 and renamable:
            old = r.choice(renamable)
            new = r.choice(unused) if unused else old + "'"
            if both(f"ALTER TYPE {typ} RENAME VALUE {q(old)} TO {q(new)}"):
                labels[labels.index(old)] = new
            return
        if not unused:
            return
        new = r.choice(unused)
        where = r.choice(["", "BEFORE", "AFTER"]) if labels else ""
        sql = f"ALTER TYPE {typ} ADD VALUE {q(new)}"
        if where:
            sql += f" {where} {q(r.choice(labels))}"
        if both(sql):
            labels.append(new)

    def write(n):
        global next_id
        for _ in range(n):
            k = r.random()
            if k < 0.6 or next_id == 1:
                e = "NULL" if r.random() < 0.15 else q(r.choice(labels))
                arr = "NULL" if r.random() < 0.2 else "ARRAY[" + ", ".join(q(r.choice(labels)) for _ in range(r.randint(0, 3))) + f"]::{typ}[]"
                both(f"INSERT INTO {tab} VALUES ({next_id}, {e}, {arr})")
                next_id += 1
            elif k < 0.85:
                both(f"UPDATE {tab} SET e = {q(r.choice(labels))} WHERE id = {r.randint(1, next_id - 1)}")
            else:
                both(f"DELETE FROM {tab} WHERE id = {r.randint(1, next_id - 1)}")

    for _ in range(r.randint(0, 4)):
        alter()
    write(r.randint(3, 12))
    lbl = r.choice(labels)
    pinned.append(lbl)
    view_query = f"SELECT e, count(*) AS n, max(id) AS m FROM {tab} WHERE e >= {q(lbl)} OR e IS NULL GROUP BY e"
    run(fr, f"CREATE MATERIALIZED VIEW {mv} AS {view_query}")
    for _ in range(r.randint(1, 4)):
        alter()
    write(r.randint(3, 12))
    run(fr, "FLUSH")
    lo, hi = sorted(r.sample(labels, 2)) if len(labels) > 1 else (labels[0], labels[0])
    queries = [
        f"SELECT id, e::text FROM {tab} ORDER BY e NULLS FIRST, id",
        f"SELECT id FROM {tab} WHERE e < {q(lbl)} ORDER BY id",
        f"SELECT id FROM {tab} WHERE e BETWEEN {q(lo)} AND {q(hi)} ORDER BY id",
        f"SELECT min(e)::text, max(e)::text, count(DISTINCT e) FROM {tab}",
        f"SELECT e::text, count(*) FROM {tab} GROUP BY e ORDER BY e",
        f"SELECT DISTINCT e::text FROM {tab} ORDER BY 1",
        f"SELECT enum_range(NULL::{typ})::text, enum_first(NULL::{typ})::text, enum_last(NULL::{typ})::text",
        f"SELECT enum_range({q(lo)}::{typ}, {q(hi)}::{typ})::text, enum_range(NULL, {q(lbl)}::{typ})::text",
        f"SELECT id, arr::text FROM {tab} ORDER BY arr NULLS FIRST, id",
        f"SELECT id FROM {tab} WHERE e = ANY(arr) ORDER BY id",
        f"SELECT e::text FROM {tab} ORDER BY e DESC NULLS LAST, id LIMIT 3",
        f"SELECT enumlabel::text FROM pg_enum WHERE enumtypid = '{typ}'::regtype ORDER BY enumsortorder",
        f"SELECT a.id, b.id FROM {tab} a JOIN {tab} b ON a.e = b.e AND a.id < b.id ORDER BY 1, 2",
        f"SELECT CASE WHEN e > {q(lbl)} THEN 'after' WHEN e = {q(lbl)} THEN 'at' ELSE 'before' END, count(*) FROM {tab} GROUP BY 1 ORDER BY 1",
    ]
    for sql in queries:
        compare(f"seed {seed}", sql)
    compare(f"seed {seed} view", f"SELECT e::text, n, m FROM {mv} ORDER BY e NULLS FIRST",
            f"SELECT e::text, n, m FROM ({view_query}) v ORDER BY e NULLS FIRST")
    run(fr, f"DROP MATERIALIZED VIEW {mv}")
    both(f"DROP TABLE {tab}")
    both(f"DROP TYPE {typ}")

print(f"\n{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
