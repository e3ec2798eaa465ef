#!/usr/bin/env python3
"""Random watermark views: an slt file of random EMIT ON WINDOW CLOSE and
emit-on-update views over tables with watermarks, each compared, after
every round of random inserts (some late), with what the batch engine
gives for its query: the windows (or rows) the watermark has closed for
EMIT ON WINDOW CLOSE, the whole query otherwise.

    python3 scripts/gen_watermark_fuzz_slt.py SEED > file.slt

tests/integration/watermark_fuzz_test.sh runs it for a range of seeds.
"""
import random
import sys

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
rnd = random.Random(seed)
delay = rnd.choice([0, 2, 5, 9])
out = []


def stmt(sql):
    out.append(f"statement ok\n{sql}\n")


def query(types, sql, expected):
    out.append(f"query {types} rowsort\n{sql}\n----\n{expected}\n")


DELAY = f"INTERVAL '{delay} seconds'"
WM = {t: f"((SELECT max(ts) FROM {t}) - {DELAY})" for t in ("fa", "fb")}
LEAST = (f"(CASE WHEN {WM['fa']} IS NULL OR {WM['fb']} IS NULL THEN NULL "
         f"WHEN {WM['fa']} < {WM['fb']} THEN {WM['fa']} ELSE {WM['fb']} END)")


def window_source(table_choice):
    """(FROM clause with window_start, the closed-window condition over window_start)."""
    kind = rnd.choice(["tumble", "tumble", "hop"])
    size = rnd.choice([5, 10, 20])
    wm = WM["fa"] if table_choice == "fa" else LEAST
    if kind == "tumble":
        size_i = f"INTERVAL '{size} seconds'"
        if table_choice == "fa":
            src = f"tumble(fa, ts, {size_i})"
        else:
            src = (f"(SELECT window_start, k, v, ts FROM tumble(fa, ts, {size_i}) UNION ALL "
                   f"SELECT window_start, k, v, ts FROM tumble(fb, ts, {size_i})) u")
        return src, f"window_start < tumble_start({wm}, {size_i})"
    slide = rnd.choice([d for d in (1, 2, 5) if size % d == 0 and d < size])
    slide_i, size_i = f"INTERVAL '{slide} seconds'", f"INTERVAL '{size} seconds'"
    src = f"hop(fa, ts, {slide_i}, {size_i})"
    return src, f"window_start < tumble_start({WM['fa']} - {size_i}, {slide_i}) + {slide_i}"


AGGS = ["count(*)", "sum(v)", "min(v)", "max(v)", "count(DISTINCT k)", "avg(v)",
        "string_agg(v::text, ',' ORDER BY v, ts)", "bool_or(v > 10)", "sum(v) FILTER (WHERE k = 1)"]


def agg_view(eowc):
    table_choice = rnd.choice(["fa", "fa", "both"])
    src, closed = window_source(table_choice)
    keys = ["window_start"] + (["k"] if rnd.random() < 0.5 else [])
    aggs = rnd.sample(AGGS, rnd.randint(1, 4))
    where = f" WHERE v > {rnd.randint(-3, 8)}" if rnd.random() < 0.3 else ""
    having = f" HAVING count(*) > {rnd.randint(1, 3)}" if rnd.random() < 0.3 else ""
    cols = ", ".join(keys + [f"{a} AS a{i}" for i, a in enumerate(aggs)])
    sql = f"SELECT {cols} FROM {src}{where} GROUP BY {', '.join(keys)}{having}"
    return sql, closed if eowc else "TRUE"


def over_view():
    part = rnd.choice(["PARTITION BY k ", ""])
    w = f"({part}ORDER BY ts)"
    calls = rnd.sample([f"lag(v) OVER {w}", f"row_number() OVER {w}", f"rank() OVER {w}",
                        f"sum(v) OVER ({part}ORDER BY ts ROWS BETWEEN {rnd.randint(0, 3)} PRECEDING AND CURRENT ROW)",
                        f"first_value(v) OVER {w}", f"count(*) OVER {w}", f"max(v) OVER {w}",
                        f"lag(v, 2, -1) OVER {w}"], rnd.randint(1, 3))
    cols = ", ".join(["ts", "k", "v"] + [f"{c} AS c{i}" for i, c in enumerate(calls)])
    return f"SELECT {cols} FROM fa", f"ts < {WM['fa']}"


def topn_view():
    size = rnd.choice([5, 10])
    n = rnd.randint(1, 3)
    order = rnd.choice(["v DESC, ts", "v, ts", "ts"])
    sql = (f"SELECT * FROM (SELECT window_start, ts, k, v, row_number() OVER (PARTITION BY window_start ORDER BY {order}) AS rn "
           f"FROM tumble(fa, ts, INTERVAL '{size} seconds')) q WHERE rn <= {n}")
    return sql, f"window_start < tumble_start({WM['fa']}, INTERVAL '{size} seconds')"


def join_view():
    lo, hi = rnd.randint(0, 5), rnd.randint(0, 5)
    sql = (f"SELECT fa.ts, fb.ts AS tb, fa.v, fb.v AS vb FROM fa JOIN fb ON fa.k = fb.k "
           f"AND fa.ts BETWEEN fb.ts - INTERVAL '{lo} seconds' AND fb.ts + INTERVAL '{hi} seconds'")
    return sql, "TRUE"


print(f"# Random watermark views, seed {seed} (scripts/gen_watermark_fuzz_slt.py); watermark delay {delay} s.\n")
stmt(f"CREATE TABLE fa (ts timestamp, k int, v int, WATERMARK FOR ts AS ts - {DELAY}) APPEND ONLY")
stmt(f"CREATE TABLE fb (ts timestamp, k int, v int, WATERMARK FOR ts AS ts - {DELAY}) APPEND ONLY")
stmt(f"SET streaming_parallelism = {rnd.choice([1, 2, 3])}")
views = {}
for i in range(8):
    shape = rnd.choice(["eowc", "eowc", "update", "over", "topn", "join"])
    if shape == "eowc":
        sql, closed = agg_view(True)
    elif shape == "update":
        sql, closed = agg_view(False)
    elif shape == "over":
        sql, closed = over_view()
    elif shape == "topn":
        sql, closed = topn_view()
    else:
        sql, closed = join_view()
    eowc = shape in ("eowc", "over", "topn")
    name = f"fv{i}"
    views[name] = (sql, closed)
    stmt(f"CREATE MATERIALIZED VIEW {name} AS {sql}{' EMIT ON WINDOW CLOSE' if eowc else ''}")


def check(name):
    sql, closed = views[name]
    batch = f"SELECT * FROM ({sql}) q WHERE {closed}"
    query("I", f"SELECT count(*) FROM ((SELECT * FROM {name} EXCEPT ALL {batch}) UNION ALL ({batch} EXCEPT ALL SELECT * FROM {name})) d", "0")


t = {"fa": 0.0, "fb": 0.0}
serial = 0  # a microsecond per row: no two rows tie on ts (lag, row_number would be ambiguous)
for r in range(10):
    for table in ("fa", "fb"):
        if table == "fb" and rnd.random() < 0.3:
            continue
        rows = []
        for _ in range(rnd.randint(2, 10)):
            t[table] += rnd.uniform(0, 3)
            ts = t[table] - (rnd.uniform(0, 12) if rnd.random() < 0.25 else 0)
            serial += 1
            ts = round(ts * 4) / 4 + serial * 1e-6  # quarter seconds, rows near window bounds
            k = rnd.randint(1, 3) if rnd.random() > 0.05 else "NULL"
            v = rnd.randint(-5, 20) if rnd.random() > 0.05 else "NULL"
            rows.append(f"('2024-01-01'::timestamp + INTERVAL '{ts:.6f} seconds', {k}, {v})")
        stmt(f"INSERT INTO {table} VALUES " + ", ".join(rows))
    stmt("FLUSH")
    for name in views:
        check(name)
for name in views:
    stmt(f"DROP MATERIALIZED VIEW {name}")
stmt("DROP TABLE fa")
stmt("DROP TABLE fb")
stmt("SET streaming_parallelism = DEFAULT")
print("\n".join(out))
