#!/usr/bin/env python3
"""Generates the crash corpus (issue 16: nothing a client sends can crash
the server): tests/corpus/corpus.sql, one statement (or one simple-query
string of several) a line, run in order against one server by
tests/integration/crash_corpus_test.sh.

Deterministic: the same input files give the same corpus byte for byte (a
fixed seed, sorted inputs). Regenerate after changing this file or
functions.txt:

    python3 tests/corpus/gen_corpus.py > tests/corpus/corpus.sql

What it holds, in this order:
  * setup: tables of every type with extreme rows, materialized views;
  * every scalar function signature of the registry (functions.txt, from
    dump_functions.cc) and the binder's own functions and aggregates, with
    NULL, empty, negative, huge and wrong-typed values in each argument
    position, over literals and over table columns;
  * casts between every pair of types, of ordinary and extreme values;
  * extreme literals (numerics, floats, integers, timestamps, intervals);
  * nesting up to and past the 10,000 limit, in many shapes;
  * every statement kind Freshet parses: DDL of every object with odd
    options and queries, SHOW, SET, EXPLAIN, COPY, FLUSH, WAIT, CANCEL JOBS,
    transactions, PREPARE/EXECUTE, DML (also in CTEs), system tables, and
    statements Freshet does not support.

Statements that crash the server in code other engineers own are not here
but in known_crashes.sql (run them with crash_corpus_test.sh --known).
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# --seed N and --scale K (more random expressions) are for hunting crashes
# by hand; the test uses the defaults.
SEED = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 16
SCALE = int(sys.argv[sys.argv.index("--scale") + 1]) if "--scale" in sys.argv else 1
rng = random.Random(SEED)
out = []


def emit(sql):
    assert "\n" not in sql, sql
    out.append(sql)


# --- Values by type ------------------------------------------------------------

TYPES = ["boolean", "smallint", "integer", "bigint", "real", "double precision", "numeric", "varchar",
         "bytea", "date", "time", "timestamp", "timestamptz", "interval", "int[]", "text[]",
         "numeric(10,2)", "varchar(3)", "oid", "regclass", "regtype", "struct<a int, b varchar>"]

# Ordinary values of each type, then extreme ones.
NORMAL = {
    "boolean": ["true", "false"],
    "smallint": ["1::smallint", "0::smallint"],
    "integer": ["1", "0", "3"],
    "bigint": ["1::bigint", "42::bigint"],
    "real": ["1.5::real", "0::real"],
    "double precision": ["2.5::float8", "0::float8"],
    "numeric": ["1.25::numeric", "0::numeric"],
    "varchar": ["'abc'", "'a,b,c'", "'ß日本'"],
    "bytea": ["'\\xdeadbeef'::bytea", "'abc'::bytea"],
    "date": ["date '2024-02-29'", "date '1970-01-01'"],
    "time": ["time '12:34:56.789'", "time '00:00'"],
    "timestamp": ["timestamp '2024-02-29 12:34:56.789'", "timestamp '1970-01-01 00:00'"],
    "timestamptz": ["timestamptz '2024-02-29 12:34:56.789+02'", "timestamptz '1970-01-01 00:00+00'"],
    "interval": ["interval '1 day 2 hours'", "interval '1 month'"],
    "int[]": ["array[1,2,3]", "'{}'::int[]"],
    "text[]": ["array['a','b']", "array[null,'x']::text[]"],
    "numeric(10,2)": ["12.34::numeric(10,2)"],
    "varchar(3)": ["'abc'::varchar(3)"],
    "oid": ["1::oid", "16::oid"],
    "regclass": ["'t_all'::regclass", "'pg_class'::regclass"],
    "regtype": ["'int4'::regtype", "'text'::regtype"],
    "struct<a int, b varchar>": ["row(1, 'x')::struct<a int, b varchar>"],
}
EXTREME = {
    "boolean": ["null::boolean"],
    "smallint": ["32767::smallint", "(-32768)::smallint", "(-1)::smallint"],
    "integer": ["2147483647", "(-2147483648)", "(-1)", "0"],
    "bigint": ["9223372036854775807", "(-9223372036854775808)", "(-1)::bigint"],
    "real": ["'NaN'::real", "'Infinity'::real", "'-Infinity'::real", "3.4e38::real", "1e-45::real", "(-0.0)::real"],
    "double precision": ["'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8", "1e308", "(-1e308)",
                         "5e-324", "(-0.0)::float8", "1.7976931348623157e308"],
    "numeric": ["'NaN'::numeric", "99999999999999999999999999999999999999", "(-99999999999999999999999999999999999999)",
                "0.00000000000000000000000000000000000001", "1e38", "(-1)::numeric", "123456789012345678901234567890.123456789"],
    "varchar": ["''", "' '", "repeat('x', 100000)", "'%'", "'\\'", "'_'", "'('", "'{'", "'[a-'", "E'\\x01\\x7f'",
                "'-1'", "'2147483648'", "'NaN'", "'null'", "'日本語テキスト'"],
    "bytea": ["''::bytea", "'\\x00'::bytea", "'\\x'::bytea", "decode_bogus"],
    "date": ["date 'infinity'", "date '-infinity'", "date '4713-01-01 BC'", "date '5874897-12-31'", "date '294276-12-31'"],
    "time": ["time '24:00:00'", "time '23:59:59.999999'"],
    "timestamp": ["timestamp 'infinity'", "timestamp '-infinity'", "timestamp '294276-12-31 23:59:59.999999'",
                  "timestamp '4714-11-24 00:00:00 BC'"],
    "timestamptz": ["timestamptz 'infinity'", "timestamptz '-infinity'", "timestamptz '294276-12-31 23:59:59.999999+00'",
                    "timestamptz '4714-11-24 00:00:00+00 BC'"],
    "interval": ["interval '178000000 years'", "interval '-178000000 years'", "interval '2147483647 days'",
                 "interval '-2147483648 days'", "interval '9223372036854775807 microseconds'",
                 "interval '-9223372036854775808 microseconds'", "interval '0'", "interval '2147483647 months'"],
    "int[]": ["array[null]::int[]", "array[2147483647, -2147483648]", "(select array_agg(g) from generate_series(1, 1000) g)"],
    "text[]": ["'{}'::text[]", "array['']", "array[repeat('y', 1000)]"],
    "numeric(10,2)": ["99999999.99::numeric(10,2)"],
    "varchar(3)": ["''::varchar(3)"],
    "oid": ["4294967295::oid", "0::oid"],
    "regclass": ["0::regclass", "4294967295::regclass"],
    "regtype": ["0::regtype"],
    "struct<a int, b varchar>": ["row(null, null)::struct<a int, b varchar>", "null::struct<a int, b varchar>"],
}
EXTREME["bytea"].remove("decode_bogus")

# Columns of t_all by type (see setup).
COLUMNS = {
    "boolean": "b", "smallint": "i2", "integer": "i4", "bigint": "i8", "real": "f4", "double precision": "f8",
    "numeric": "n", "varchar": "v", "bytea": "by", "date": "d", "time": "tm", "timestamp": "ts",
    "timestamptz": "tz", "interval": "iv", "int[]": "ai", "text[]": "at",
}

# Registry type names (DataType::ToString) to ours.
TYPE_OF = {
    "boolean": "boolean", "smallint": "smallint", "integer": "integer", "bigint": "bigint", "real": "real",
    "double precision": "double precision", "numeric": "numeric", "character varying": "varchar",
    "varchar": "varchar", "text": "varchar", "bytea": "bytea", "date": "date", "time": "time",
    "time without time zone": "time", "timestamp": "timestamp", "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz", "timestamptz": "timestamptz", "interval": "interval",
    "anyarray": "int[]", "integer[]": "int[]", "text[]": "text[]", "character varying[]": "text[]", "oid": "oid",
    "regclass": "regclass", "regtype": "regtype", "record": "struct<a int, b varchar>",
}


def values_of(t):
    return NORMAL.get(t, ["null"]) + EXTREME.get(t, [])


def normal(t):
    return NORMAL.get(t, ["null"])[0]


def wrong_values(t):
    """A few values of other types (wrong-typed arguments)."""
    others = [x for x in ["true", "'abc'", "1", "1.5", "interval '1 day'", "array[1]", "date '2024-01-01'",
                          "'\\x00'::bytea", "row(1)", "'{1,2}'"] if x not in NORMAL.get(t, [])]
    return rng.sample(others, 3)


# --- Function calls ------------------------------------------------------------

SYMBOLS = set("+-*/%^<>=!~|&#")


def call(name, args):
    if name == "neg" and len(args) == 1:
        return f"(- {args[0]})"
    if name == "not" and len(args) == 1:
        return f"(NOT {args[0]})"
    if all(c in SYMBOLS for c in name):
        if len(args) == 2:
            return f"({args[0]} {name} {args[1]})"
        if len(args) == 1:
            return f"({name} {args[0]})"
    return f"{name}({', '.join(args)})"


def load_signatures(with_return=False):
    """functions.txt: name, argument types ("..." for variadic), "->", return type."""
    sigs = []
    with open(os.path.join(HERE, "functions.txt")) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if not parts[0]:
                continue
            arrow = parts.index("->")
            name, types, ret = parts[0], parts[1:arrow], parts[arrow + 1]
            variadic = bool(types) and types[-1] == "..."
            if variadic:
                types = types[:-1] * 3
            types = [TYPE_OF.get(t, "varchar") for t in types]
            if with_return:
                sigs.append((name, types, TYPE_OF.get(ret, "varchar")))
            else:
                sigs.append((name, types))
    return sigs


# Functions the binder implements itself (not in the registry), with an
# arity, and aggregates.
BINDER_FUNCTIONS = [
    ("current_database", []), ("current_schema", []), ("current_user", []), ("session_user", []),
    ("version", []), ("pg_typeof", ["integer"]), ("format", ["varchar", "varchar"]), ("now", []),
    ("coalesce", ["integer", "integer"]), ("nullif", ["integer", "integer"]), ("greatest", ["integer", "integer"]),
    ("least", ["varchar", "varchar"]), ("generate_series", ["integer", "integer"]),
    ("generate_series", ["integer", "integer", "integer"]), ("generate_series", ["numeric", "numeric", "numeric"]),
    ("generate_series", ["timestamp", "timestamp", "interval"]), ("unnest", ["int[]"]),
    ("array_append", ["int[]", "integer"]), ("array_prepend", ["integer", "int[]"]),
]
AGGREGATES = [("count", ["integer"]), ("sum", ["integer"]), ("sum", ["numeric"]), ("sum", ["interval"]),
              ("sum", ["bigint"]), ("avg", ["double precision"]), ("avg", ["interval"]), ("min", ["varchar"]),
              ("max", ["timestamptz"]), ("bool_and", ["boolean"]), ("bool_or", ["boolean"]), ("every", ["boolean"]),
              ("string_agg", ["varchar", "varchar"]), ("array_agg", ["integer"]), ("array_agg", ["int[]"]),
              ("stddev", ["numeric"]), ("stddev_pop", ["bigint"]), ("variance", ["double precision"]),
              ("var_pop", ["numeric"]), ("var_samp", ["integer"]), ("stddev_samp", ["real"]),
              ("bit_and", ["bigint"]), ("bit_or", ["smallint"]), ("bit_xor", ["integer"]),
              ("corr", ["double precision", "double precision"]), ("regr_slope", ["integer", "numeric"]),
              ("covar_samp", ["real", "bigint"]), ("regr_intercept", ["double precision", "double precision"])]


def gen_functions():
    sigs = load_signatures() + BINDER_FUNCTIONS
    seen = set()

    def sel(expr, suffix=""):
        # LIMIT: set-returning calls with huge arguments stay short.
        sql = f"SELECT {expr}{suffix} LIMIT 10"
        if sql not in seen:
            seen.add(sql)
            emit(sql)

    for name, types in sigs:
        sel(call(name, [normal(t) for t in types]))
        if types:
            sel(call(name, ["NULL"] * len(types)))
        # Each position: NULL, typed NULL, extremes, wrong types.
        for i, t in enumerate(types):
            pool = ["NULL", f"NULL::{t}"] + EXTREME.get(t, []) + wrong_values(t)
            for v in pool:
                args = [normal(u) for u in types]
                args[i] = v
                sel(call(name, args))
        # One argument too many and too few.
        sel(call(name, [normal(t) for t in types] + ["1"]))
        if types:
            sel(call(name, [normal(t) for t in types[:-1]]))
        # Over the columns of every row of t_all (NULLs and extremes).
        cols = [COLUMNS.get(t, normal(t)) for t in types]
        if types:
            sel(call(name, cols), " FROM t_all")
            sel(call(name, cols), " FROM t_all WHERE " + call(name, cols) + " IS NOT NULL")
    for name, types in AGGREGATES:
        cols = [COLUMNS.get(t, normal(t)) for t in types]
        for v in (cols, ["NULL"] * len(types), [EXTREME.get(t, ["null"])[0] for t in types]):
            sel(call(name, v), " FROM t_all")
            sel(call(name, v), " FROM t_all GROUP BY id")
        sel(name + "(DISTINCT " + ", ".join(cols) + ")", " FROM t_all")
        sel(call(name, cols) + " FILTER (WHERE id > 1)", " FROM t_all")
        sel(call(name, cols) + " OVER ()", " FROM t_all")
        sel(call(name, cols), " FROM t_all HAVING " + call(name, cols) + " IS NULL")
        sel(call(name, cols), "")
    for w in ["row_number()", "rank()", "dense_rank()"]:
        for over in ["()", "(ORDER BY v)", "(PARTITION BY b ORDER BY f8 DESC NULLS FIRST)", "(PARTITION BY NULL)"]:
            sel(f"{w} OVER {over}", " FROM t_all")
        sel(w, " FROM t_all")
        sel(f"{w} OVER (ORDER BY {w} OVER ())", " FROM t_all")
    for name in ["count(*)", "count(*) OVER ()", "sum(*)", "count(DISTINCT *)", "max(*)", "count(1, 2)"]:
        sel(name, " FROM t_all")
    # Ordered-set aggregates: fractions in and out of range, NULL, every
    # sortable column, DESC, no WITHIN GROUP, a plain aggregate with one.
    for fraction in ["0", "0.5", "1", "NULL", "-1", "2", "'NaN'::float8", "id / 3.0"]:
        for col in ["i4", "f8", "n", "iv", "v", "ts"]:
            sel(f"percentile_cont({fraction}) WITHIN GROUP (ORDER BY {col})", " FROM t_all")
            sel(f"percentile_disc({fraction}) WITHIN GROUP (ORDER BY {col} DESC)", " FROM t_all GROUP BY id")
    for col in ["i4", "v", "ts", "b", "n"]:
        sel(f"mode() WITHIN GROUP (ORDER BY {col})", " FROM t_all")
    for bad in ["percentile_cont(0.5)", "mode()", "mode(1) WITHIN GROUP (ORDER BY i4)", "sum(i4) WITHIN GROUP (ORDER BY i4)",
                "percentile_cont(0.5) WITHIN GROUP (ORDER BY i4, f8)", "percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY i4)",
                "percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) OVER ()"]:
        sel(bad, " FROM t_all")


# --- Random typed expressions ------------------------------------------------------

class ExprGen:
    """Random expressions of a wanted type from the registry's signatures,
    casts, CASE, COALESCE, NULLIF, subqueries and aggregates in subqueries,
    over t_all's columns and literals (ordinary and extreme)."""

    def __init__(self, table="t_all"):
        self.by_ret = {}
        for name, args, ret in load_signatures(with_return=True):
            if name in ("random",):
                continue
            self.by_ret.setdefault(ret, []).append((name, args))
        self.table = table

    def leaf(self, t):
        r = rng.random()
        if r < 0.35 and t in COLUMNS:
            return COLUMNS[t]
        if r < 0.45:
            return f"NULL::{t}"
        if r < 0.75:
            return rng.choice(EXTREME.get(t, ["NULL"]) or ["NULL"])
        return rng.choice(NORMAL.get(t, ["NULL"]))

    def gen(self, t, depth):
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf(t)
        r = rng.random()
        fns = self.by_ret.get(t, [])
        if r < 0.55 and fns:
            name, args = rng.choice(fns)
            return call(name, [self.gen(a, depth - 1) for a in args])
        if r < 0.65:
            src = rng.choice(TYPES)
            return f"CAST({self.gen(src, depth - 1)} AS {t})"
        if r < 0.72:
            return f"(CASE WHEN {self.gen('boolean', depth - 1)} THEN {self.gen(t, depth - 1)} ELSE {self.gen(t, depth - 1)} END)"
        if r < 0.78:
            return f"coalesce({self.gen(t, depth - 1)}, {self.gen(t, depth - 1)})"
        if r < 0.82:
            return f"nullif({self.gen(t, depth - 1)}, {self.gen(t, depth - 1)})"
        if r < 0.87:
            return f"(SELECT {self.gen(t, depth - 1)} FROM t_ext ORDER BY id LIMIT 1)"
        if r < 0.92 and t in ("bigint", "numeric", "double precision", "interval", "varchar", "timestamp", "boolean"):
            agg = {"bigint": "count", "numeric": "sum", "double precision": "avg", "interval": "sum",
                   "varchar": "max", "timestamp": "min", "boolean": "bool_or"}[t]
            src = {"bigint": "integer", "numeric": "numeric", "double precision": "double precision",
                   "interval": "interval", "varchar": "varchar", "timestamp": "timestamp", "boolean": "boolean"}[t]
            return f"(SELECT {agg}({self.gen(src, depth - 1)}) FROM t_ext)"
        if r < 0.95 and t == "boolean":
            a = rng.choice(list(COLUMNS))
            return f"({self.gen(a, depth - 1)} IN ({self.gen(a, depth - 1)}, {self.gen(a, depth - 1)}, NULL))"
        if t == "boolean":
            a = rng.choice(list(COLUMNS))
            return f"({self.gen(a, depth - 1)} IS DISTINCT FROM {self.gen(a, depth - 1)})"
        return self.leaf(t)


def gen_random_expressions():
    g = ExprGen()
    types = sorted(g.by_ret)
    for k in range(2500 * SCALE):
        t = rng.choice(types)
        e = g.gen(t, rng.randrange(1, 5))
        shape = k % 5
        if shape == 0:
            emit(f"SELECT {e}")
        elif shape == 1:
            emit(f"SELECT id, {e} FROM t_all ORDER BY 1")
        elif shape == 2:
            emit(f"SELECT count(*) FROM t_all WHERE {g.gen('boolean', 3)}")
        elif shape == 3:
            emit(f"SELECT {e} AS x, count(*) FROM t_all GROUP BY 1 ORDER BY 1 NULLS FIRST")
        else:
            emit(f"SELECT max(x) FROM (SELECT {e} AS x FROM t_all) s")
    # The same in materialized views, fed extreme rows afterwards.
    emit("CREATE TABLE t_s (id int PRIMARY KEY, b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, "
         "n numeric, n2 numeric(10,2), v varchar, vn varchar(5), by bytea, d date, tm time, ts timestamp, tz timestamptz, "
         "iv interval, ai int[], at text[], st struct<a int, b varchar>)")
    emit("INSERT INTO t_s SELECT * FROM t_all")
    for k in range(60 * SCALE):
        t = rng.choice(types)
        e = g.gen(t, rng.randrange(1, 4)).replace("t_ext", "t_all")
        if "SELECT" in e:
            e = g.leaf(t)
        shape = k % 4
        if shape == 0:
            q = f"SELECT id, {e} AS x FROM t_s"
        elif shape == 1:
            q = f"SELECT {e} AS x, count(*) AS c FROM t_s GROUP BY 1"
        elif shape == 2:
            q = f"SELECT id FROM t_s WHERE ({e}) IS NOT NULL"
        else:
            q = f"SELECT min({e}) AS mn, max({e}) AS mx, count({e}) AS c FROM t_s"
        emit(f"CREATE MATERIALIZED VIEW mv_r{k} AS {q}")
    for k in range(30):
        t, c = rng.choice(list(COLUMNS.items()))
        v = rng.choice(values_of(t) + ["NULL"])
        if k % 3 == 0:
            emit(f"INSERT INTO t_s (id, {c}) VALUES ({100 + k}, {v})")
        elif k % 3 == 1:
            emit(f"UPDATE t_s SET {c} = {v} WHERE id % 4 = {k % 4}")
        else:
            emit(f"DELETE FROM t_s WHERE id % 7 = {k % 7}")
        if k % 10 == 9:
            emit("FLUSH")
    for k in range(60 * SCALE):
        emit(f"SELECT * FROM mv_r{k} ORDER BY 1 LIMIT 5")
    # (Kept: the restart at the end recovers them.)


# --- Casts ----------------------------------------------------------------------

def gen_casts():
    for src in TYPES:
        vals = NORMAL.get(src, [])[:1] + EXTREME.get(src, [])[:2]
        for dst in TYPES:
            for v in vals:
                emit(f"SELECT CAST({v} AS {dst})")
        col = COLUMNS.get(src)
        if col:
            for dst in TYPES:
                emit(f"SELECT {col}::{dst} FROM t_all")
    for text in ["''", "' '", "'1e400'", "'-'", "'+'", "'.'", "'1.2.3'", "'0x10'", "'1_000'", "'  12  '",
                 "'9223372036854775808'", "'-9223372036854775809'", "'NaN'", "'inf'", "'-Infinity'", "'1e-400'",
                 "'294277-01-01'", "'4714-11-23 BC'", "'epoch'", "'now'", "'today'", "'allballs'", "'J2451187'",
                 "'1999-01-08 04:05:06 America/New_York'", "'2024-02-30'", "'24:00:00.000001'", "'P1Y2M3DT4H5M6S'",
                 "'@ 1 minute ago'", "'1 day 2 days'", "'{1,2'", "'{{1},{2}}'", "'[0:1]={1,2}'", "'{\"a\\\\\"}'",
                 "'(1,'", "'((1,2))'", "'\\x0'", "'\\xzz'", "'\\\\'", "'\\777'"]:
        for dst in TYPES:
            emit(f"SELECT {text}::{dst}")
    # Double casts through text and back.
    for t in TYPES:
        for v in EXTREME.get(t, [])[:3]:
            emit(f"SELECT ({v})::text::{t}")


# --- Extreme literals and arithmetic -------------------------------------------------

def gen_literals():
    lits = [
        "1e308 * 10", "-1e308 * 10", "1e308::float4", "1e-400", "1e400", "'1e400'::numeric", "1e-400::float8",
        "-2^63", "(-2)^63", "2^63", "2^1024", "2^-1075", "0^0", "0^(-1)", "(-8)^(1.0/3)", "(-1)^0.5",
        "-9223372036854775808 / -1", "(-9223372036854775808)::bigint / (-1)::bigint",
        "(-9223372036854775808)::bigint % (-1)::bigint", "(-2147483648) / (-1)", "(-2147483648)::int % (-1)",
        "(-32768)::smallint / (-1)::smallint", "(-32768)::smallint * (-1)::smallint", "9223372036854775807 + 1",
        "-9223372036854775807 - 2", "9223372036854775807 * 2", "abs((-9223372036854775808)::bigint)",
        "abs((-2147483648)::int)", "@ (-2147483648)", "- (-9223372036854775808)::bigint",
        "1/0", "1%0", "1.0/0", "1.0::float8/0", "0.0/0.0", "'NaN'::float8 / 0", "1::numeric / 0", "mod(1, 0)",
        "10::numeric ^ 1000", "10::numeric ^ 131072", "10::numeric ^ (-1000)", "exp(1000::numeric)", "exp(-1000)",
        "ln(0)", "ln(-1)", "log(0)", "log(-1, 10)", "log(1, 10)", "sqrt(-1)", "sqrt(-1::numeric)", "cbrt(-8)",
        "power(0, -1)", "power(-1, 0.5)", "power(10::numeric, 1000000)", "round(1e38, -40)", "round(1.5, 2147483647)",
        "round(1.5, -2147483648)", "trunc(1e38::numeric, 1000)", "round(123.456::numeric, 1000)",
        "99999999999999999999999999999999999999 + 1", "99999999999999999999999999999999999999 * 10",
        "99999999999999999999999999999999999999.9", "123456789012345678901234567890123456789012345678901234567890",
        "0.000000000000000000000000000000000000000000000000001", "'1e131072'::numeric", "'-1e-16384'::numeric",
        "1::numeric(1000, 0)", "1::numeric(0, 0)", "1::numeric(39, 2)", "1::numeric(10, 20)", "1::numeric(10, -5)",
        "'abc'::varchar(0)", "'abc'::varchar(-1)", "'abc'::varchar(10485761)", "'abc'::varchar(2147483647)",
        "gcd((-9223372036854775808)::bigint, 0::bigint)", "lcm(9223372036854775807, 2)",
        "gcd((-2147483648)::int, (-2147483648)::int)", "lcm((-2147483648)::int, 3)",
        "timestamp '294276-12-31 23:59:59.999999' + interval '1 microsecond'",
        "timestamp '4714-11-24 00:00:00 BC' - interval '1 microsecond'", "timestamp '294277-01-01'",
        "timestamptz '294277-01-01 00:00:00+00'", "date '294277-01-01'", "date '5874898-01-01'", "date '4714-11-23 BC'",
        "date 'infinity' + 1", "date '5874897-12-31' + 1", "date '4713-01-01 BC' - 1", "date '2024-01-01' + 2147483647",
        "date '2024-01-01' - date '4713-01-01 BC'", "timestamp 'infinity' - timestamp '-infinity'",
        "timestamp '294276-01-01' - timestamp '4713-01-01 BC'", "timestamp 'infinity' + interval '1 day'",
        "interval '178000000 years' + interval '178000000 years'", "interval '178000001 years'",
        "interval '2147483647 days' + interval '1 day'", "interval '2147483647 months' * 2",
        "interval '1 day' * 1e308", "interval '1 day' / 0", "interval '1 day' * 'NaN'::float8",
        "interval '1 day' / 1e-308", "- interval '-2147483648 days'", "- interval '-178000000 years'",
        "interval '-9223372036854775808 microseconds' - interval '1 microsecond'", "interval '1 year' * -2147483648",
        "interval '9223372036854775807 microseconds'", "interval '9223372036854775808 microseconds'",
        "interval '1e400 seconds'", "interval 'P9999999999Y'", "interval '2147483648 hours'",
        "age(timestamp 'infinity', timestamp '-infinity')", "age(timestamp '294276-01-01', timestamp '4713-01-01 BC')",
        "date_trunc('millennium', timestamp '294276-12-31')", "date_trunc('year', timestamp '4713-01-01 BC')",
        "date_trunc('bogus', now())", "date_trunc('week', timestamp 'infinity')",
        "extract(epoch from timestamp '294276-12-31 23:59:59.999999')", "extract(epoch from interval '178000000 years')",
        "extract(julian from timestamp '4713-01-01 BC')", "extract(millennium from date '-infinity')",
        "extract(bogus from now())", "extract(microseconds from interval '9223372036854775807 microseconds')",
        "make_date(2147483647, 12, 31)", "make_date(-2147483648, 1, 1)", "make_date(0, 1, 1)", "make_date(2024, 2, 30)",
        "make_timestamp(294277, 1, 1, 0, 0, 0)", "make_timestamp(2024, 1, 1, 25, 0, 0)",
        "make_timestamp(2024, 1, 1, 0, 0, 'Infinity')", "make_timestamp(2024, 1, 1, 0, 0, 'NaN')",
        "make_timestamp(2024, 1, 1, 0, 0, 1e308)", "to_timestamp('294277', 'YYYY')", "to_timestamp('999999999', 'YYYY')",
        "to_timestamp('', '')", "to_timestamp('2024', 'FMFMFM')", "to_char(timestamp 'infinity', 'YYYY')",
        "to_char(timestamp '4713-01-01 BC', 'YYYY CC J Q ID DDD')", "to_char(now(), 'FM')", "to_char(now(), '\"')",
        "to_char(now(), repeat('FM', 1000))", "to_date('2024-13-45', 'YYYY-MM-DD')", "to_date('99999999', 'YYYYMMDD')",
        "to_timestamp('12 PM 13', 'HH12 AM HH12')", "timezone('UTC+9999', now())", "timezone('bogus/zone', now())",
        "timezone(interval '1000 hours', now())", "now() at time zone 'America/New_York'",
        "'2024-01-01'::timestamptz at time zone 'UTC+14:59:59'", "chr(0)", "chr(-1)", "chr(1114112)", "chr(55296)",
        "chr(2147483647)", "ascii('')", "repeat('ab', 2147483647)", "lpad('x', -2147483648)", "substr('abc', -2147483648, 2147483647)",
        "substr('abc', 2147483647, 2147483647)", "substring('abc', 1, -1)", "left('abc', -2147483648)",
        "right('abc', -2147483648)", "split_part('a,b', ',', -2147483648)", "split_part('a,b', ',', 0)",
        "'abc' LIKE '%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%b'", "'abc' LIKE 'a\\'", "'abc' ~ '('",
        "'abc' ~ '(a*)*$'", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' ~ '^(a+)+$'", "'abc' ~ repeat('(', 1000)",
        "'x' ~ '\\p{Bogus}'", "regexp_replace('abc', '(', 'x')", "regexp_match('abc', '(b)(c)?(d)?', 'g')",
        "regexp_replace('abc', '', 'x', 'g')", "regexp_replace('abc', 'b', '\\9\\8\\&\\\\', 'zzz')",
        "to_hex(-9223372036854775808)", "md5(repeat('x', 1000000))", "quote_ident('')", "quote_ident(repeat('\"', 1000))",
        "reverse(E'\\xc3')", "initcap(E'\\u00df')", "upper('ǅ')", "lower('İ')",
        "array[1,2][2147483647]", "array[1,2][-2147483648]", "(array[1,2])[0]", "array_length(array[1], 2147483647)",
        "array_lower(array[1], -1)", "array_dims('{}'::int[])", "string_to_array('', '')", "string_to_array('abc', '')",
        "string_to_array(null, ',')", "array_to_string(array[null, null]::int[], ',', null)", "cardinality(null::int[])",
        "array[array[1,2],array[3]]", "array[[1,2],[3,4]]", "'{1,2}'::int[] = '{1,2,NULL}'::int[]",
        "array[1] < array[null]::int[]", "array[null]::int[] = array[null]::int[]", "1 = any('{}'::int[])",
        "null = all('{}'::int[])", "1 = any(null::int[])", "1 = any(array[null, 1])", "'a' = any(array[1])",
        "row(1, 2) = row(1, null)", "row(1, 2) < row(1)", "(row(1, 'a')::struct<a int, b varchar>).c",
        "(row(1, 'a')::struct<a int, b varchar>).a", "row()", "row(row(row(row(1))))",
        "clamp(5, 10, 1)", "clamp(null, 1, 2)", "clamp('NaN'::float8, 0, 1)",
        "pg_get_userbyid(-1)", "pg_get_expr('bogus', 0)", "pg_get_constraintdef(0)", "pg_get_indexdef(-1)",
        "format_type(-1, -1)", "format_type(1043, 2147483647)", "format_type(1700, -2147483648)",
        "obj_description(0, 'pg_class')", "col_description(0, -1)", "shobj_description(0, '')",
        "pg_encoding_to_char(-1)", "pg_char_to_encoding('bogus')", "'-'::regclass", "'bogus'::regclass",
        "'a.b.c.d'::regclass", "'\"'::regclass", "'int4[][]'::regtype", "'bogus'::regtype", "'bogus'::regnamespace",
        "'bogus'::regrole", "'-'::regproc", "4294967296::oid", "(-1)::oid", "'abc'::oid",
        "random() * 0", "pi() ^ 1000", "sign('NaN'::numeric)", "floor('Infinity'::numeric)", "ceil('-Infinity'::float8)",
        "trunc('NaN'::numeric, 2)", "round('Infinity'::float8)", "1::numeric / 3 * 3", "(1::numeric / 3) ^ 100",
        "sqrt(1e-400::numeric)", "ln(1e-400::numeric)", "exp(709.8)", "exp(709.7)::numeric", "2::numeric ^ 0.5",
        "'1.5'::int", "'1e3'::int", "' 1 '::int", "'١'::int", "'0b101'::int", "'0o17'::int", "'0x1F'::int",
        "1::boolean", "2::boolean", "'yes'::boolean", "'of'::boolean", "'tr'::boolean", "''::boolean",
        "true + 1", "true::int + 1", "'t'::boolean::text",
        "E'\\u0000'", "E'\\xff'", "E'\\377'", "U&'\\0000'", "U&'\\D800'", "E'\\uD800'", "'\\0'::bytea",
        "'a' || null || 'b'", "null || null", "1 || 2", "array[1] || 2", "2 || array[1]", "array[1] || array['a']",
        "array[1] || null", "null::int[] || null::int[]", "'{}'::int[] || '{}'::int[]",
        "'abc' COLLATE \"C\"", "'abc' COLLATE \"bogus\"", "'abc' < 'abd' COLLATE \"en_US\"",
        "$1", "$0", "$2147483648", "?", "current_setting('bogus')", "set_config('a', 'b', false)",
        "now()::date - 'infinity'::date", "'infinity'::date - 'infinity'::date",
        "(date 'infinity')::timestamp", "(timestamp 'infinity')::date", "(timestamptz '-infinity')::time",
        "(interval '178000000 years')::time", "time '24:00' + interval '1 hour'", "time '00:00' - interval '-178000000 years'",
        "(timestamp '294276-12-31 23:00')::timestamptz", "timestamp '294276-12-31 23:00' at time zone 'Pacific/Kiritimati'",
        "timestamptz '294276-12-31 23:00+00' at time zone 'Pacific/Kiritimati'",
    ]
    for e in lits:
        emit(f"SELECT {e}")
    # Values inserted into columns of every type, over their limits.
    for t, c in COLUMNS.items():
        for v in EXTREME.get(t, []):
            emit(f"INSERT INTO t_ext ({c}) VALUES ({v})")
    for v in ["1e308*10", "'1e400'", "2147483648", "-32769", "'294277-01-01'", "interval '178000001 years'",
              "repeat('x', 10)", "'abcd'", "99999999999.99", "'{1,2,'", "row(1, 2, 3)"]:
        emit(f"INSERT INTO t_ext (i2, i4, vn, n2, ai, st) VALUES ({v}, {v}, {v}, {v}, {v}, {v})")
    # A value whose text output passes the 1 GB limit (54000 while its
    # DataRow is being written: the row must not be half sent). ~1.5 GB.
    emit("SELECT repeat('x', 536870909)::bytea")


# --- Nesting ----------------------------------------------------------------------

def gen_nesting():
    seen = set()

    def once(sql):
        if sql not in seen:
            seen.add(sql)
            emit(sql)

    for n in [100, 1000, 4000, 9999, 10000, 10001, 20000]:
        once("SELECT " + "(" * n + "1" + ")" * n)
        once("SELECT " + "abs(" * n + "1" + ")" * n)
        once("SELECT " + "- " * n + "1")
        once("SELECT " + "NOT " * n + "true")
        once("SELECT " + " + ".join(["1"] * n))
        once("SELECT " + " || ".join(["'a'"] * n))
        once("SELECT " + " AND ".join(["true"] * n))
        once("SELECT " + "CASE WHEN true THEN " * n + "1" + " END" * n)
        once("SELECT " + "(SELECT " * n + "1" + ")" * n)
        once("SELECT " + "coalesce(" * n + "1" + ", 2)" * n)
        once("SELECT " + "ARRAY[" * n + "1" + "]" * n)
        # The text of nested records doubles at each level: about 30 levels
        # reach the limit on a value.
        once("SELECT length(" + "row(" * min(n, 31) + "1" + ")" * min(n, 31) + "::text)")
        once("SELECT 1 " + "UNION ALL SELECT 1 " * n)
        once("SELECT * FROM " + "(SELECT * FROM " * n + "t_all" + ") s" * n)
        m = min(n, 300)
        once("SELECT 1 FROM " + "t_all JOIN " * m + "t_all ON false" + " ON false" * (m - 1))
        once("SELECT 1 WHERE 1 IN (" + ", ".join(["1"] * n) + ")")
        once("SELECT " + "1::int::bigint" + "::int::bigint" * n)
        once("SELECT " + "'x'" + " COLLATE \"C\"" * n)
        once("WITH " + ", ".join(f"c{i} AS (SELECT {i})" for i in range(min(n, 2000))) + " SELECT 1")
        once("SELECT " + ", ".join(["1"] * min(n, 2000)))
        once("VALUES " + ", ".join(["(1)"] * n))
        once("SELECT array[" + ", ".join(["1"] * n) + "]")
        once("SELECT concat(" + ", ".join(["'a'"] * n) + ")")
        once("SELECT 1 ORDER BY " + ", ".join(["1"] * min(n, 2000)))
        once("SELECT count(*) FROM t_all GROUP BY " + ", ".join(["i4"] * min(n, 2000)))
    emit("SELECT " + ", ".join(f"{i} AS c{i}" for i in range(1700)))
    emit("CREATE TABLE t_wide (" + ", ".join(f"c{i} int" for i in range(1601)) + ")")
    emit("CREATE TABLE t_wide (" + ", ".join(f"c{i} int" for i in range(1600)) + ")")
    emit("INSERT INTO t_wide (c0) VALUES (1)")
    emit("SELECT * FROM t_wide")
    emit("DROP TABLE t_wide")
    emit("SELECT " + "x" * 100000)
    emit("SELECT '" + "x" * 1000000 + "'")
    emit("SELECT \"" + "y" * 100 + "\" FROM t_all")
    emit("CREATE TABLE \"" + "z" * 100 + "\" (a int)")
    emit("DROP TABLE \"" + "z" * 63 + "\"")


# --- Statements of every kind -------------------------------------------------------

ODD_QUERIES = [
    "SELECT * FROM t_all", "SELECT id, count(*) FROM t_all GROUP BY id", "SELECT 1", "SELECT now()",
    "SELECT random() AS r FROM t_all", "SELECT generate_series(1, 3) AS g", "SELECT * FROM generate_series(1, 10) g",
    "SELECT unnest(ai) AS u FROM t_all", "SELECT * FROM t_all ORDER BY id LIMIT 1", "SELECT * FROM t_all LIMIT 0",
    "SELECT * FROM t_all OFFSET 1", "SELECT DISTINCT v FROM t_all", "SELECT v, row_number() OVER (ORDER BY id) FROM t_all",
    "SELECT a.id FROM t_all a JOIN t_all b ON a.i4 = b.i4", "SELECT a.id FROM t_all a LEFT JOIN t_ext b ON a.i8 = b.i8",
    "SELECT a.id FROM t_all a FULL JOIN t_all b ON a.v = b.v", "SELECT a.id FROM t_all a, t_all b",
    "SELECT a.id FROM t_all a JOIN t_all b ON a.f8 < b.f8", "SELECT * FROM t_all WHERE id IN (SELECT i4 FROM t_ext)",
    "SELECT * FROM t_all WHERE EXISTS (SELECT 1 FROM t_ext WHERE t_ext.i4 = t_all.i4)",
    "SELECT (SELECT max(i4) FROM t_ext) FROM t_all", "SELECT * FROM t_all WHERE i4 > (SELECT avg(i4) FROM t_all)",
    "SELECT v FROM t_all UNION SELECT v FROM t_ext", "SELECT i4 FROM t_all INTERSECT SELECT i4 FROM t_ext",
    "SELECT i4 FROM t_all EXCEPT ALL SELECT i4 FROM t_ext", "SELECT 1/0", "SELECT 1/i4 FROM t_all",
    "SELECT sum(i8), avg(f8), min(ts), max(v), string_agg(v, ','), array_agg(n), bool_and(b) FROM t_all",
    "SELECT count(DISTINCT v), sum(i4) FILTER (WHERE b) FROM t_all", "SELECT i4, count(*) FROM t_all GROUP BY i4 HAVING count(*) > 0",
    "SELECT * FROM (VALUES (1), (2)) v(x)", "SELECT * FROM t_all WHERE v LIKE '%a%'", "SELECT * FROM t_all WHERE v ~ '('",
    "SELECT CAST(v AS int) FROM t_all", "SELECT i4 * 1000000 * 1000000 FROM t_all", "SELECT ts + iv FROM t_all",
    "SELECT tumble_start(ts, interval '1 hour'), count(*) FROM t_all GROUP BY 1",
    "SELECT * FROM tumble(t_all, ts, interval '1 hour')", "SELECT * FROM hop(t_all, ts, interval '1 hour', interval '2 hours')",
    "SELECT * FROM tumble(t_all, ts, interval '0 hour')", "SELECT * FROM hop(t_all, ts, interval '-1 hour', interval '1 hour')",
    "SELECT * FROM tumble(t_all, v, interval '1 hour')", "SELECT * FROM t_all, LATERAL (SELECT i4) l",
    "SELECT * FROM t_all t1 WHERE i4 = (SELECT i4 FROM t_all t2 WHERE t2.id = t1.id)",
    "SELECT st, (st).a FROM t_all", "SELECT ai[1], at[2] FROM t_all", "SELECT * FROM mv_agg", "SELECT * FROM mv_plain",
    "SELECT * FROM nosuch", "SELECT nosuch FROM t_all", "SELECT", "SELECT FROM t_all", "SELECT *", "SELECT t_all FROM t_all",
    "SELECT max(max(i4)) FROM t_all", "SELECT sum(i4) OVER (ORDER BY sum(i4)) FROM t_all", "SELECT i4 FROM t_all GROUP BY 2",
    "SELECT i4 FROM t_all ORDER BY 99", "SELECT i4 FROM t_all ORDER BY -1", "SELECT i4 FROM t_all LIMIT -1",
    "SELECT i4 FROM t_all LIMIT 9223372036854775807 OFFSET 9223372036854775807", "SELECT * FROM t_all FOR UPDATE",
    "SELECT * FROM t_all TABLESAMPLE SYSTEM (10)", "SELECT * FROM ONLY t_all", "SELECT * FROM t_all AS a(x, y, z)",
    "SELECT * FROM t_all NATURAL JOIN t_ext", "SELECT * FROM t_all JOIN t_ext USING (id)", "SELECT * FROM t_all JOIN t_ext USING (nosuch)",
    "SELECT i4 FROM t_all WINDOW w AS (ORDER BY id)", "SELECT sum(i4) OVER w FROM t_all WINDOW w AS (PARTITION BY v)",
    "SELECT DISTINCT ON (v) v FROM t_all", "SELECT i4 FROM t_all GROUP BY ROLLUP (i4)", "SELECT i4 FROM t_all GROUP BY CUBE (i4, v)",
    "SELECT i4 FROM t_all GROUP BY GROUPING SETS ((i4), ())", "SELECT * FROM t_all WHERE (i4, v) IN (SELECT i4, v FROM t_ext)",
    "SELECT * FROM t_all WHERE i4 = ANY (SELECT i4 FROM t_ext)", "SELECT * FROM t_all WHERE i4 > ALL (SELECT i4 FROM t_ext)",
    "SELECT ARRAY(SELECT i4 FROM t_all)", "SELECT ARRAY(SELECT ai FROM t_all)", "SELECT (SELECT i4, v FROM t_all)",
    "SELECT (SELECT i4 FROM t_all)", "SELECT * FROM rw_catalog.rw_materialized_views", "SELECT 1 FROM t_all WHERE NULL",
    "SELECT i4 FROM t_all WHERE i4 IS DISTINCT FROM NULL", "SELECT i4 BETWEEN 1 AND 0 FROM t_all",
    "SELECT i4 BETWEEN SYMMETRIC 3 AND 1 FROM t_all", "SELECT CASE i4 WHEN 1 THEN 'a' ELSE 1 END FROM t_all",
    "SELECT i4 IS TRUE FROM t_all", "SELECT b IS NOT UNKNOWN FROM t_all", "SELECT nullif(v, '') FROM t_all",
    "SELECT greatest(i4, i8, n, f8) FROM t_all", "SELECT least(ts, tz) FROM t_all", "SELECT coalesce(v, i4) FROM t_all",
]


def gen_ddl_and_queries():
    # Queries in every position.
    for q in ODD_QUERIES:
        emit(q)
        emit("EXPLAIN " + q)
    # Materialized views with odd queries (each dropped again).
    for i, q in enumerate(ODD_QUERIES):
        if i % 2 == 1 or q in ("SELECT", "SELECT *"):
            continue
        emit(f"CREATE MATERIALIZED VIEW mv_odd_{i} AS {q}")
        emit(f"SELECT * FROM mv_odd_{i} LIMIT 5")
        emit(f"DROP MATERIALIZED VIEW mv_odd_{i}")
    for q in ["SELECT i4, count(*), sum(i8), min(v), max(ts), avg(f8), string_agg(v, ',' ORDER BY id), array_agg(i4 ORDER BY v) FROM t_all GROUP BY i4",
              "SELECT sum(i4) FROM t_all", "SELECT 1/i4 AS x FROM t_all", "SELECT i4::smallint AS s FROM t_all",
              "SELECT * FROM t_all a JOIN t_ext b ON a.i4 = b.i4", "SELECT count(*) FROM t_all a LEFT JOIN t_ext b ON a.v = b.v GROUP BY a.id",
              "SELECT v, row_number() OVER (PARTITION BY b ORDER BY id) AS rn FROM t_all",
              "SELECT * FROM (SELECT v, row_number() OVER (PARTITION BY b ORDER BY id) AS rn FROM t_all) s WHERE rn <= 1",
              "SELECT * FROM t_all ORDER BY i8 LIMIT 2", "SELECT DISTINCT b FROM t_all", "SELECT i4 FROM t_all UNION ALL SELECT i4 FROM t_ext",
              "SELECT i4 FROM t_all UNION SELECT i4 FROM t_ext", "SELECT * FROM t_all WHERE i4 IN (SELECT i4 FROM t_ext)",
              "SELECT (SELECT count(*) FROM t_ext) AS c FROM t_all", "SELECT * FROM t_all WHERE ts > now() - interval '1 hour'",
              "SELECT window_start, count(*) FROM tumble(t_all, ts, interval '1 day') GROUP BY window_start",
              "SELECT i4, min(f8), max(f8), count(DISTINCT v) FILTER (WHERE b) FROM t_all GROUP BY i4 HAVING min(f8) < 0",
              "SELECT * FROM mv_agg", "SELECT * FROM mv_agg JOIN mv_plain ON mv_agg.i4 = mv_plain.i4",
              "SELECT 1 AS one", "SELECT * FROM generate_series(1, 10) g", "VALUES (1), (2)", "SELECT now() AS n",
              "SELECT * FROM t_all FOR UPDATE", "SELECT bogus FROM t_all", "SELECT i4, i4 FROM t_all",
              "SELECT i4 AS \"_row_id\" FROM t_all", "SELECT ai, at, st FROM t_all", "SELECT count(*) AS c FROM t_all GROUP BY st",
              "SELECT count(*) AS c FROM t_all GROUP BY ai", "SELECT sum(iv), avg(iv), sum(n), avg(n) FROM t_all",
              "SELECT i8 / 0 AS x FROM t_all", "SELECT * FROM nosuch", "SELECT * FROM mv_chain1"]:
        emit(f"CREATE MATERIALIZED VIEW mv_q AS {q}")
        emit("SELECT * FROM mv_q LIMIT 3")
        emit("INSERT INTO t_all (id, i4, v, ts, b, f8, i8) VALUES (100, 0, 'new', now(), true, -1, 0)")
        emit("FLUSH")
        emit("SELECT * FROM mv_q LIMIT 3")
        emit("DELETE FROM t_all WHERE id = 100")
        emit("DROP MATERIALIZED VIEW IF EXISTS mv_q")
    # Tables with odd definitions.
    for d in ["(a int, a int)", "()", "(a nosuchtype)", "(a int PRIMARY KEY, b int PRIMARY KEY)", "(a int, PRIMARY KEY (b))",
              "(a int, PRIMARY KEY (a, a))", "(_row_id int)", "(a int DEFAULT 1/0)", "(a int DEFAULT 'x')",
              "(a int DEFAULT nosuch)", "(a int DEFAULT (SELECT 1))", "(a int DEFAULT random())", "(a int DEFAULT now())",
              "(a int NOT NULL DEFAULT NULL)", "(a int CHECK (a > 0))", "(a int UNIQUE)", "(a int REFERENCES t_all (id))",
              "(a serial)", "(a int GENERATED ALWAYS AS (1) STORED)", "(a int[][])", "(a int[3])", "(a varchar(0))",
              "(a numeric(1000))", "(a numeric(5, 10))", "(a timestamp(10))", "(a time with time zone)", "(a json)",
              "(a jsonb)", "(a uuid)", "(a money)", "(a bit(3))", "(a char(5))", "(a struct<>)", "(a struct<a int, a int>)",
              "(a struct<b struct<c struct<d int>>>)", "(a int) WITH (appendonly = true)", "(a int) WITH (connector = 'bogus')",
              "(a int) APPEND ONLY", "(LIKE t_all)", "(a int) INHERITS (t_all)", "(a int) PARTITION BY RANGE (a)",
              "(a bytea PRIMARY KEY)", "(a interval PRIMARY KEY)", "(a int[] PRIMARY KEY)", "(a double precision PRIMARY KEY)",
              "(a struct<x int> PRIMARY KEY)", "(a varchar PRIMARY KEY, b int) APPEND ONLY"]:
        emit(f"CREATE TABLE t_odd {d}")
        emit("INSERT INTO t_odd VALUES (1)")
        emit("INSERT INTO t_odd VALUES (NULL)")
        emit("INSERT INTO t_odd DEFAULT VALUES")
        emit("SELECT * FROM t_odd")
        emit("DROP TABLE IF EXISTS t_odd")
    emit("CREATE TEMP TABLE t_tmp (a int)")
    emit("CREATE UNLOGGED TABLE t_unl (a int)")
    emit("CREATE TABLE t_as AS SELECT * FROM t_all")
    emit("CREATE TABLE IF NOT EXISTS t_all (a int)")
    emit("SELECT * INTO t_into FROM t_all")
    # Sources and connector tables with odd options.
    opts = ["connector = 'datagen'", "connector = 'datagen', fields.a.kind = 'bogus'",
            "connector = 'datagen', fields.a.kind = 'sequence', fields.a.start = '10', fields.a.end = '1'",
            "connector = 'datagen', fields.a.kind = 'sequence', fields.a.start = '-9223372036854775808', fields.a.end = '9223372036854775807'",
            "connector = 'datagen', fields.a.kind = 'sequence', fields.a.start = 'x'",
            "connector = 'datagen', fields.a.kind = 'random', fields.a.min = '10', fields.a.max = '1'",
            "connector = 'datagen', fields.a.kind = 'random', fields.a.min = '-1e308', fields.a.max = '1e308'",
            "connector = 'datagen', fields.a.seed = '-1'", "connector = 'datagen', fields.b.length = '-1'",
            "connector = 'datagen', fields.b.length = '2147483648'", "connector = 'datagen', fields.b.length = '100000000'",
            "connector = 'datagen', datagen.rows.per.second = '0'", "connector = 'datagen', datagen.rows.per.second = '-1'",
            "connector = 'datagen', datagen.rows.per.second = '99999999999999999999'",
            "connector = 'datagen', datagen.rows.per.second = 'NaN'", "connector = 'datagen', datagen.split.num = '0'",
            "connector = 'datagen', datagen.split.num = '100000'", "connector = 'datagen', datagen.split.num = '-5'",
            "connector = 'datagen', fields.nosuch.kind = 'sequence'", "connector = 'datagen', fields..kind = 'x'",
            "connector = 'datagen', fields.a.kind = 'sequence', fields.a.start = '1', fields.a.end = '100', datagen.rows.per.second = '1000000'",
            "connector = 'nexmark'", "connector = 'nexmark', nexmark.table.type = 'bogus'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.event.num = '-1'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.event.num = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.max.chunk.size = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.max.chunk.size = '2147483648'",
            "connector = 'nexmark', nexmark.table.type = 'person', nexmark.split.num = '0'",
            "connector = 'nexmark', nexmark.table.type = 'auction', nexmark.min.event.gap.in.ns = '-1'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.events.per.sec = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.first.event.rate = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.rate.shape = 'bogus'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.hot.auction.ratio = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.num.categories = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.person.proportion = '0', nexmark.auction.proportion = '0', nexmark.bid.proportion = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.avg.bid.byte.size = '-1'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.in.flight.auctions = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.out.of.order.group.size = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.base.time = '-9223372036854775808'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.threads = '0'",
            "connector = 'nexmark', nexmark.table.type = 'bid', nexmark.use.real.time = 'maybe'",
            "connector = 'kafka', topic = 'x'", "connector = ''", "bogus = 'x'", "connector = 'blackhole'"]
    cols = ["(a int, b varchar)", "(a bigint, b varchar, c timestamp)", "()", "(a int PRIMARY KEY, b varchar)",
            "(a interval, b bytea)", "(a int[], b struct<x int>)", "(a numeric, b double precision)"]
    for i, o in enumerate(opts):
        for kw in ["SOURCE", "TABLE"]:
            c = cols[i % len(cols)]
            emit(f"CREATE {kw} src_odd {c} WITH ({o})")
            emit("SELECT * FROM src_odd LIMIT 3")
            if i % 4 == 0:
                emit("CREATE MATERIALIZED VIEW mv_src AS SELECT count(*) AS c FROM src_odd")
                emit("SELECT * FROM mv_src")
                emit("DROP MATERIALIZED VIEW IF EXISTS mv_src")
            emit(f"DROP {kw} IF EXISTS src_odd")
    emit("CREATE SOURCE src_f (a int) WITH (connector = 'datagen') FORMAT PLAIN ENCODE JSON")
    emit("CREATE SOURCE src_f (a int) WITH (connector = 'datagen') FORMAT BOGUS ENCODE BOGUS")
    emit("CREATE SOURCE src_f (a int) FORMAT PLAIN ENCODE JSON")
    emit("CREATE SOURCE src_f (a int)")
    emit("CREATE SOURCE src_f WITH (connector = 'datagen')")
    emit("CREATE SOURCE IF NOT EXISTS src_f (a int) WITH (connector = 'datagen')")
    emit("CREATE SOURCE IF NOT EXISTS src_f (a int) WITH (connector = 'datagen')")
    emit("INSERT INTO src_f VALUES (1)")
    emit("DELETE FROM src_f")
    emit("DROP SOURCE src_f CASCADE")
    emit("DROP SOURCE src_f")
    emit("DROP SOURCE IF EXISTS src_f, src_g")
    emit("DROP SOURCE t_all")
    emit("DROP SINK t_all")
    # Sinks and indexes.
    for s in ["CREATE SINK sk FROM t_all WITH (connector = 'blackhole')", "CREATE SINK sk FROM mv_agg WITH (connector = 'blackhole')",
              "CREATE SINK sk AS SELECT i4, count(*) AS c FROM t_all GROUP BY i4 WITH (connector = 'blackhole')",
              "CREATE SINK sk FROM t_all WITH (connector = 'bogus')", "CREATE SINK sk FROM t_all", "CREATE SINK sk FROM nosuch WITH (connector = 'blackhole')",
              "CREATE SINK sk AS SELECT 1/0 AS x FROM t_all WITH (connector = 'blackhole')", "CREATE SINK sk AS SELECT WITH (connector = 'blackhole')",
              "CREATE SINK sk FROM t_all WITH (connector = 'blackhole', type = 'upsert', primary_key = 'nosuch')",
              "CREATE SINK IF NOT EXISTS sk FROM t_all WITH (connector = 'blackhole')"]:
        emit(s)
        emit("SELECT * FROM sk")
        emit("INSERT INTO sk VALUES (1)")
        emit("DROP SINK IF EXISTS sk")
    for s in ["CREATE INDEX ix ON t_all (i4)", "CREATE INDEX ix ON t_all (v, ts DESC)", "CREATE INDEX ix ON t_all (lower(v))",
              "CREATE INDEX ix ON t_all (nosuch)", "CREATE INDEX ix ON mv_agg (i4)", "CREATE INDEX ix ON t_all (i4) INCLUDE (v)",
              "CREATE INDEX ix ON t_all (ai)", "CREATE INDEX ix ON t_all (st)", "CREATE INDEX ix ON t_all (f8 NULLS FIRST)",
              "CREATE UNIQUE INDEX ix ON t_all (i4)", "CREATE INDEX ix ON t_all USING hash (i4)", "CREATE INDEX ON t_all (i8)",
              "CREATE INDEX ix ON t_all (i4) WHERE i4 > 0", "CREATE INDEX ix ON nosuch (a)", "CREATE INDEX CONCURRENTLY ix ON t_all (i4)",
              "CREATE INDEX ix ON t_all (i4, i4)", "CREATE INDEX ix ON t_all ()"]:
        emit(s)
        emit("SELECT i4 FROM t_all WHERE i4 = 1")
        emit("SELECT * FROM ix")
        emit("DROP INDEX IF EXISTS ix")
    emit("DROP INDEX IF EXISTS t_all_i8_idx")
    # Background DDL, jobs, rate limits, WAIT, CANCEL.
    emit("SET BACKGROUND_DDL = true")
    emit("SET BACKFILL_RATE_LIMIT = 1")
    emit("CREATE MATERIALIZED VIEW mv_bg AS SELECT * FROM t_big")
    emit("CREATE MATERIALIZED VIEW mv_bg2 AS SELECT count(*) AS c FROM mv_bg")
    emit("SHOW JOBS")
    emit("SELECT * FROM mv_bg")
    for w in ["SHOW JOBS WHERE \"Id\" > 0", "SHOW JOBS WHERE 1/0 = 1", "SHOW JOBS WHERE", "SHOW JOBS WHERE true; DROP TABLE t_all",
              "SHOW JOBS WHERE (SELECT 1) = 1", "SHOW JOBS WHERE nosuch", "SHOW JOBS WHERE 1) x; SELECT (1", "SHOW JOBS WHERE 'x"]:
        emit(w)
    for a in ["= 0", "= -1", "= 9223372036854775807", "= 99999999999999999999", "= 'abc'", "= DEFAULT", "TO 10", "= 1.5", "=", "= NULL"]:
        emit(f"ALTER MATERIALIZED VIEW mv_bg SET BACKFILL_RATE_LIMIT {a}")
    emit("ALTER MATERIALIZED VIEW nosuch SET BACKFILL_RATE_LIMIT = 1")
    emit("ALTER MATERIALIZED VIEW t_all SET BACKFILL_RATE_LIMIT = 1")
    emit("ALTER SINK nosuch SET BACKFILL_RATE_LIMIT = 1")
    emit("ALTER INDEX nosuch SET BACKFILL_RATE_LIMIT = 1")
    for c in ["CANCEL JOBS 0", "CANCEL JOB -1", "CANCEL JOBS 2147483648", "CANCEL JOBS 99999999999999999999999", "CANCEL JOBS 1, 1, 1",
              "CANCEL JOBS", "CANCEL JOBS 'x'", "CANCEL JOB 1.5"]:
        emit(c)
    emit("CANCEL JOBS (SELECT ddl_id FROM rw_catalog.rw_ddl_progress)")
    emit("SELECT ddl_id, ddl_statement, progress FROM rw_catalog.rw_ddl_progress")
    emit("DROP MATERIALIZED VIEW mv_bg")
    emit("DROP MATERIALIZED VIEW mv_bg CASCADE")
    emit("SET BACKFILL_RATE_LIMIT = DEFAULT")
    emit("SET BACKGROUND_DDL = false")
    for w in ["WAIT", "WAIT MATERIALIZED VIEW mv_agg", "WAIT MATERIALIZED VIEW nosuch", "WAIT SINK nosuch", "WAIT INDEX nosuch",
              "WAIT TABLE t_all", "WAIT 1", "FLUSH", "FLUSH t_all", "FLUSH; FLUSH; FLUSH"]:
        emit(w)
    # MVs on MVs, drops with dependencies.
    emit("CREATE MATERIALIZED VIEW mv_chain1 AS SELECT i4, count(*) AS c FROM t_all GROUP BY i4")
    emit("CREATE MATERIALIZED VIEW mv_chain2 AS SELECT sum(c) AS s FROM mv_chain1")
    emit("CREATE MATERIALIZED VIEW mv_chain3 AS SELECT * FROM mv_chain1 JOIN mv_chain2 ON true")
    emit("DROP MATERIALIZED VIEW mv_chain1")
    emit("DROP TABLE mv_chain1")
    emit("DROP MATERIALIZED VIEW mv_chain2, mv_chain3")
    emit("DROP MATERIALIZED VIEW mv_chain1 RESTRICT")
    emit("DROP MATERIALIZED VIEW mv_chain1 CASCADE")
    emit("CREATE MATERIALIZED VIEW mv_agg AS SELECT 1")
    emit("CREATE MATERIALIZED VIEW IF NOT EXISTS mv_agg AS SELECT 1")
    emit("CREATE OR REPLACE MATERIALIZED VIEW mv_agg AS SELECT 1")
    emit("CREATE MATERIALIZED VIEW mv_x (a, b) AS SELECT 1")
    emit("CREATE MATERIALIZED VIEW mv_x AS SELECT 1 WITH NO DATA")
    emit("CREATE MATERIALIZED VIEW mv_x AS SELECT $1")
    emit("CREATE MATERIALIZED VIEW mv_x AS VALUES (1)")
    emit("CREATE MATERIALIZED VIEW mv_x AS SELECT * FROM rw_catalog.rw_tables")
    emit("CREATE MATERIALIZED VIEW mv_x AS SELECT * FROM pg_catalog.pg_class")
    emit("CREATE MATERIALIZED VIEW mv_x AS WITH w AS (SELECT * FROM t_all) SELECT count(*) FROM w")
    emit("CREATE MATERIALIZED VIEW mv_x AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r")
    emit("CREATE MATERIALIZED VIEW mv_x AS WITH d AS (DELETE FROM t_all RETURNING *) SELECT * FROM d")
    emit("DROP MATERIALIZED VIEW IF EXISTS mv_x")
    emit("CREATE MATERIALIZED VIEW \"\" AS SELECT 1")
    emit("CREATE MATERIALIZED VIEW nosuch_schema.mv AS SELECT 1")
    emit("CREATE MATERIALIZED VIEW other_db.public.mv AS SELECT 1")
    # Views, functions and other objects Freshet may not support.
    for s in ["CREATE VIEW v1 AS SELECT 1", "SELECT * FROM v1", "DROP VIEW v1", "DROP VIEW IF EXISTS v1",
              "CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", "DROP FUNCTION f", "CREATE TYPE ty AS (a int)",
              "DROP TYPE ty", "CREATE SEQUENCE sq", "SELECT nextval('sq')", "DROP SEQUENCE sq", "CREATE EXTENSION foo",
              "CREATE TRIGGER tg AFTER INSERT ON t_all EXECUTE FUNCTION f()", "CREATE RULE r AS ON INSERT TO t_all DO NOTHING",
              "CREATE POLICY p ON t_all", "CREATE PUBLICATION p FOR ALL TABLES", "CREATE SUBSCRIPTION s CONNECTION '' PUBLICATION p",
              "CREATE SERVER s FOREIGN DATA WRAPPER w", "CREATE TABLESPACE ts LOCATION '/tmp'", "CREATE DOMAIN dm AS int",
              "CREATE COLLATION c (locale = 'C')", "CREATE CAST (int AS text) WITH INOUT", "CREATE OPERATOR === (leftarg = int, procedure = int4eq)",
              "CREATE AGGREGATE ag (int) (sfunc = int4pl, stype = int)", "CREATE EVENT TRIGGER e ON ddl_command_start EXECUTE FUNCTION f()",
              "CREATE STATISTICS st ON i4, v FROM t_all", "CREATE CONVERSION cv FOR 'LATIN1' TO 'UTF8' FROM iso8859_1_to_utf8",
              "ALTER TABLE t_all ADD COLUMN z int", "ALTER TABLE t_all DROP COLUMN v", "ALTER TABLE t_all RENAME TO t_renamed",
              "ALTER TABLE t_all RENAME COLUMN i4 TO i4x", "ALTER TABLE t_all ALTER COLUMN i4 TYPE bigint", "ALTER TABLE nosuch ADD COLUMN z int",
              "ALTER TABLE t_all OWNER TO nobody", "ALTER TABLE t_all SET SCHEMA s_corpus", "ALTER MATERIALIZED VIEW mv_agg RENAME TO mv2",
              "ALTER SOURCE nosuch RENAME TO x", "ALTER DATABASE dev RENAME TO dev2", "ALTER SCHEMA public RENAME TO p2",
              "ALTER USER root WITH PASSWORD 'x'", "ALTER ROLE nosuch SUPERUSER", "ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO root",
              "COMMENT ON TABLE t_all IS 'x'", "COMMENT ON COLUMN t_all.i4 IS NULL", "GRANT SELECT ON t_all TO root",
              "GRANT ALL ON ALL TABLES IN SCHEMA public TO nosuch", "REVOKE SELECT ON t_all FROM root", "REVOKE ALL ON DATABASE dev FROM PUBLIC",
              "TRUNCATE t_ext", "TRUNCATE nosuch", "VACUUM", "VACUUM FULL t_all", "ANALYZE t_all", "ANALYZE", "CLUSTER t_all",
              "REINDEX TABLE t_all", "CHECKPOINT", "LOAD 'x'", "LISTEN ch", "NOTIFY ch, 'x'", "UNLISTEN *",
              "DO $$ BEGIN END $$", "CALL p()", "LOCK TABLE t_all", "LOCK TABLE t_all IN ACCESS EXCLUSIVE MODE",
              "DECLARE c CURSOR FOR SELECT 1", "FETCH c", "FETCH ALL FROM c", "MOVE c", "CLOSE c", "CLOSE ALL",
              "SECURITY LABEL ON TABLE t_all IS 'x'", "REFRESH MATERIALIZED VIEW mv_agg", "IMPORT FOREIGN SCHEMA s FROM SERVER x INTO y",
              "REASSIGN OWNED BY root TO root", "DROP OWNED BY nosuch", "SET ROLE nosuch", "SET SESSION AUTHORIZATION nosuch",
              "RESET ROLE", "SET CONSTRAINTS ALL DEFERRED", "MERGE INTO t_all USING t_ext ON t_all.id = t_ext.id WHEN MATCHED THEN DELETE",
              "ALTER SYSTEM SET barrier_interval_ms = 0", "ALTER SYSTEM SET barrier_interval_ms = -1",
              "ALTER SYSTEM SET barrier_interval_ms = 99999999999", "ALTER SYSTEM SET barrier_interval_ms = 'x'",
              "ALTER SYSTEM SET checkpoint_frequency = 0", "ALTER SYSTEM SET nosuch = 1", "ALTER SYSTEM SET barrier_interval_ms TO DEFAULT",
              "ALTER SYSTEM RESET barrier_interval_ms", "ALTER SYSTEM RESET ALL", "ALTER SYSTEM SET barrier_interval_ms = 100",
              "SHOW", "SHOW nosuch", "DESCRIBE t_all", "DESCRIBE nosuch", "EXPLAIN", "EXPLAIN ANALYZE SELECT 1",
              "EXPLAIN (VERBOSE, COSTS OFF) SELECT 1", "EXPLAIN (FORMAT JSON) SELECT 1", "EXPLAIN (BOGUS) SELECT 1",
              "EXPLAIN INSERT INTO t_all VALUES (1)", "EXPLAIN UPDATE t_all SET i4 = 1", "EXPLAIN DELETE FROM t_all",
              "EXPLAIN CREATE MATERIALIZED VIEW x AS SELECT * FROM t_all", "EXPLAIN CREATE INDEX ix ON t_all (i4)",
              "EXPLAIN CREATE SINK sk FROM t_all WITH (connector = 'blackhole')", "EXPLAIN CREATE TABLE x (a int)",
              "EXPLAIN SHOW ALL", "EXPLAIN EXPLAIN SELECT 1", "EXPLAIN FLUSH", "EXPLAIN CREATE MATERIALIZED VIEW x AS SELECT 1/0",
              "EXPLAIN SELECT * FROM mv_agg", "EXPLAIN SELECT * FROM src_odd"]:
        emit(s)
    # Schemas, databases, users.
    for s in ["CREATE SCHEMA s_corpus", "CREATE SCHEMA s_corpus", "CREATE SCHEMA IF NOT EXISTS s_corpus",
              "CREATE TABLE s_corpus.t (a int)", "CREATE MATERIALIZED VIEW s_corpus.mv AS SELECT count(*) FROM s_corpus.t",
              "SET search_path = s_corpus", "SELECT * FROM t", "SELECT * FROM t_all", "SET search_path = nosuch, '$user'",
              "SELECT 1", "SET search_path = ''", "SELECT * FROM t_all", "RESET search_path", "DROP SCHEMA s_corpus",
              "DROP SCHEMA s_corpus CASCADE", "DROP SCHEMA IF EXISTS s_corpus", "DROP SCHEMA public", "DROP SCHEMA pg_catalog",
              "DROP SCHEMA rw_catalog CASCADE", "DROP SCHEMA information_schema", "CREATE SCHEMA pg_foo", "CREATE SCHEMA AUTHORIZATION root",
              "CREATE TABLE pg_catalog.t (a int)", "CREATE TABLE rw_catalog.t (a int)", "DROP TABLE pg_catalog.pg_class",
              "DROP TABLE rw_catalog.rw_tables", "INSERT INTO pg_catalog.pg_class VALUES (1)", "DELETE FROM rw_catalog.rw_tables",
              "UPDATE pg_catalog.pg_type SET typname = 'x'", "CREATE DATABASE db_corpus", "CREATE DATABASE db_corpus",
              "CREATE DATABASE IF NOT EXISTS db_corpus", "CREATE DATABASE db_corpus2 WITH OWNER = nosuch",
              "CREATE DATABASE db_corpus3 TEMPLATE template0 ENCODING 'LATIN1'", "DROP DATABASE db_corpus", "DROP DATABASE db_corpus",
              "DROP DATABASE IF EXISTS db_corpus", "DROP DATABASE dev", "DROP DATABASE IF EXISTS db_corpus2, db_corpus3",
              "DROP DATABASE \"\"", "CREATE DATABASE \"\"", "CREATE USER u_corpus", "CREATE USER u_corpus", "CREATE USER u2 WITH PASSWORD 'p' SUPERUSER",
              "CREATE ROLE r_corpus NOLOGIN", "CREATE USER root", "DROP USER u_corpus", "DROP USER nosuch", "DROP USER IF EXISTS nosuch",
              "DROP USER root", "DROP ROLE r_corpus, u2", "DROP USER current_user"]:
        emit(s)
    emit("RESET search_path")


def gen_session():
    for s in ["SHOW ALL", "SHOW PARAMETERS", "SHOW TABLES", "SHOW TABLES FROM nosuch", "SHOW TABLES FROM public",
              "SHOW MATERIALIZED VIEWS", "SHOW SOURCES", "SHOW SINKS", "SHOW DATABASES", "SHOW SCHEMAS", "SHOW INDEXES",
              "SHOW COLUMNS FROM t_all", "SHOW INTERNAL TABLES", "SHOW CREATE TABLE t_all", "SHOW CREATE TABLE nosuch",
              "SHOW CREATE MATERIALIZED VIEW mv_agg", "SHOW CREATE MATERIALIZED VIEW t_all", "SHOW CREATE SOURCE nosuch",
              "SHOW CREATE SINK nosuch", "SHOW CREATE INDEX nosuch", "SHOW CREATE VIEW nosuch", "SHOW CREATE TABLE a.b.c.d",
              "SHOW CREATE TABLE pg_catalog.pg_class", "SHOW CREATE TABLE rw_catalog.rw_tables", "SHOW CREATE",
              "SHOW JOBS", "SHOW PROCESSLIST", "SHOW CLUSTER", "SHOW EVENTS", "SHOW TRANSACTION ISOLATION LEVEL",
              "SHOW server_version", "SHOW server_version_num", "SHOW TimeZone", "SHOW time zone", "SHOW DateStyle",
              "SHOW search_path", "SHOW statement_timeout", "SHOW transaction_isolation", "SHOW client_encoding",
              "SHOW extra_float_digits", "SHOW streaming_parallelism", "SHOW BACKGROUND_DDL", "SHOW RW_IMPLICIT_FLUSH",
              "SHOW application_name", "SHOW is_superuser", "SHOW lc_collate", "SHOW max_identifier_length", "SHOW nosuch"]:
        emit(s)
    sets = {
        "TimeZone": ["'UTC'", "'America/New_York'", "'UTC+9999'", "'+14:59'", "'bogus/zone'", "''", "INTERVAL '+02:00' HOUR TO MINUTE",
                     "LOCAL", "DEFAULT", "-99999", "'Etc/GMT+12'", "'EST5EDT'", "'<+99>-99'", "1e308"],
        "extra_float_digits": ["3", "-15", "-16", "4", "2147483648", "'x'", "1.5", "DEFAULT", "-2147483648"],
        "search_path": ["public", "'$user', public", "nosuch", "''", "\"\"", "a, b, c, d, e, f, g, h", "DEFAULT"],
        "statement_timeout": ["0", "1", "'1s'", "-1", "'x'", "2147483648", "DEFAULT"],
        "streaming_parallelism": ["0", "1", "-1", "1000000", "'adaptive'", "'x'", "2147483648", "DEFAULT"],
        "BACKGROUND_DDL": ["true", "'maybe'", "1", "DEFAULT", "false"],
        "RW_IMPLICIT_FLUSH": ["true", "'x'", "false"],
        "DateStyle": ["'ISO, MDY'", "'SQL'", "'German'", "'Postgres, DMY'", "'bogus'", "DEFAULT"],
        "IntervalStyle": ["'postgres'", "'iso_8601'", "'sql_standard'", "'bogus'", "DEFAULT"],
        "client_encoding": ["'UTF8'", "'LATIN1'", "'bogus'", "'utf-8'", "DEFAULT"],
        "application_name": ["'x'", "''", "'" + "a" * 1000 + "'", "DEFAULT"],
        "transaction_isolation": ["'serializable'", "'bogus'", "DEFAULT"],
        "BACKFILL_RATE_LIMIT": ["0", "-1", "9223372036854775807", "'x'", "DEFAULT"],
        "nosuch_param": ["1"], "server_version": ["'1'"], "is_superuser": ["true"],
        "\"\"": ["1"], "a.b": ["1"], "rw.nosuch": ["'x'"],
    }
    for k in sorted(sets):
        for v in sets[k]:
            emit(f"SET {k} = {v}")
            emit(f"SHOW {k}")
            if k in ("streaming_parallelism", "BACKGROUND_DDL", "BACKFILL_RATE_LIMIT", "TimeZone"):
                emit("CREATE MATERIALIZED VIEW mv_set AS SELECT i4, count(*) AS c, max(tz) AS m FROM t_all GROUP BY i4")
                emit("SELECT * FROM mv_set ORDER BY 1")
                emit("DROP MATERIALIZED VIEW IF EXISTS mv_set")
            emit("SELECT now(), 1.0::float8 / 3, interval '1 day 2 hours', timestamptz '2024-01-01 00:00+00', date '2024-01-01'")
        emit(f"SET SESSION {k} TO DEFAULT")
        emit(f"SET LOCAL {k} = DEFAULT")
        emit(f"RESET {k}")
    emit("SET TIME ZONE 'UTC'")
    emit("SET TIME ZONE LOCAL")
    emit("SET TIME ZONE INTERVAL '+99:00' HOUR TO MINUTE")
    emit("SET NAMES 'UTF8'")
    emit("SET SCHEMA 'public'")
    emit("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    emit("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    emit("SET a = 1, 2, 3")
    emit("SET search_path = public, public, public")
    emit("RESET ALL")
    emit("DISCARD ALL")
    emit("DISCARD PLANS")
    emit("DISCARD TEMP")
    emit("SET TimeZone = 'UTC'")
    # Transactions.
    txns = [
        ["BEGIN", "INSERT INTO t_ext (i4) VALUES (1)", "SELECT count(*) FROM t_ext", "COMMIT"],
        ["BEGIN", "INSERT INTO t_ext (i4) VALUES (2)", "ROLLBACK"],
        ["BEGIN", "SELECT 1/0", "SELECT 1", "COMMIT"],
        ["BEGIN", "SELECT 1/0", "ROLLBACK"],
        ["BEGIN", "BEGIN", "COMMIT", "COMMIT"],
        ["COMMIT"], ["ROLLBACK"], ["END"], ["ABORT"],
        ["START TRANSACTION ISOLATION LEVEL SERIALIZABLE", "COMMIT"],
        ["START TRANSACTION READ ONLY", "INSERT INTO t_ext (i4) VALUES (3)", "ROLLBACK"],
        ["BEGIN", "SAVEPOINT s", "INSERT INTO t_ext (i4) VALUES (4)", "ROLLBACK TO SAVEPOINT s", "RELEASE SAVEPOINT s", "COMMIT"],
        ["SAVEPOINT s"], ["RELEASE s"], ["ROLLBACK TO s"],
        ["BEGIN", "CREATE TABLE t_txn (a int)", "INSERT INTO t_txn VALUES (1)", "COMMIT"],
        ["BEGIN", "DROP TABLE t_txn", "ROLLBACK"],
        ["BEGIN", "CREATE MATERIALIZED VIEW mv_txn AS SELECT * FROM t_all", "COMMIT"],
        ["BEGIN", "FLUSH", "COMMIT"], ["BEGIN", "WAIT", "COMMIT"],
        ["BEGIN", "CREATE DATABASE db_txn", "COMMIT"], ["BEGIN", "ALTER SYSTEM SET barrier_interval_ms = 100", "COMMIT"],
        ["BEGIN", "SET TimeZone = 'Asia/Tokyo'", "ROLLBACK", "SHOW TimeZone"],
        ["BEGIN", "SET LOCAL TimeZone = 'Asia/Tokyo'", "SHOW TimeZone", "COMMIT", "SHOW TimeZone"],
        ["BEGIN", "INSERT INTO t_ext (id, i4) VALUES (7, 1)", "INSERT INTO t_ext (id, i4) VALUES (7, 2)", "COMMIT"],
        ["BEGIN", "COPY t_ext (i4) FROM STDIN", "COMMIT"],
        ["BEGIN", "PREPARE TRANSACTION 'x'"], ["COMMIT PREPARED 'x'"], ["ROLLBACK PREPARED 'x'"],
        ["BEGIN", "DISCARD ALL", "ROLLBACK"], ["BEGIN", "SELECT * FROM t_all FOR UPDATE", "COMMIT"],
        ["BEGIN; INSERT INTO t_ext (i4) VALUES (5); SELECT 1/0; COMMIT", "SELECT count(*) FROM t_ext WHERE i4 = 5"],
        ["INSERT INTO t_ext (i4) VALUES (6); SELECT 1/0", "SELECT count(*) FROM t_ext WHERE i4 = 6"],
        ["SELECT 1; COMMIT; SELECT 2"], ["BEGIN; COMMIT; BEGIN; ROLLBACK"], ["CREATE TABLE t_multi (a int); DROP TABLE t_multi"],
        ["FLUSH; SELECT 1; FLUSH"], ["SELECT 1;;;; SELECT 2"], [";"], [" "], ["-- only a comment"], ["/* unterminated"],
        ["SELECT 'unterminated"], ["SELECT \"unterminated"], ["SELECT $$unterminated"], ["SELECT 1; SELECT 1/0; SELECT 3"],
    ]
    for t in txns:
        for s in t:
            emit(s)
        emit("ROLLBACK")
    emit("DROP TABLE IF EXISTS t_txn")
    emit("DROP MATERIALIZED VIEW IF EXISTS mv_txn")
    emit("DROP DATABASE IF EXISTS db_txn")
    # Prepared statements.
    for s in ["PREPARE p1 AS SELECT $1::int + 1", "EXECUTE p1(1)", "EXECUTE p1('x')", "EXECUTE p1(2147483647)", "EXECUTE p1",
              "EXECUTE p1(1, 2)", "PREPARE p1 AS SELECT 1", "PREPARE p2 (int, text) AS SELECT $1, $2", "EXECUTE p2(NULL, NULL)",
              "PREPARE p3 AS SELECT $3", "PREPARE p4 AS INSERT INTO t_ext (i4) VALUES ($1)", "EXECUTE p4(1)",
              "PREPARE p5 (nosuchtype) AS SELECT $1", "PREPARE p6 AS SELECT $1 FROM t_all WHERE v = $1", "EXECUTE p6('a')",
              "PREPARE p7 AS CREATE TABLE x (a int)", "PREPARE p8 AS FLUSH", "EXECUTE nosuch", "DEALLOCATE p1", "DEALLOCATE p1",
              "DEALLOCATE ALL", "DEALLOCATE PREPARE nosuch", "SELECT * FROM pg_prepared_statements"]:
        emit(s)
    # COPY (the runner sends a few lines of data for COPY FROM STDIN).
    for s in ["COPY t_ext TO STDOUT", "COPY t_all TO STDOUT", "COPY t_all TO STDOUT WITH (FORMAT csv, HEADER)",
              "COPY t_all TO STDOUT WITH (FORMAT binary)", "COPY t_all (i4, v) TO STDOUT", "COPY (SELECT * FROM t_all) TO STDOUT",
              "COPY (SELECT 1/0) TO STDOUT", "COPY (SELECT * FROM generate_series(1, 100000)) TO STDOUT", "COPY mv_agg TO STDOUT",
              "COPY t_all TO '/tmp/x'", "COPY t_all FROM '/etc/passwd'", "COPY t_all TO PROGRAM 'ls'", "COPY t_all FROM PROGRAM 'ls'",
              "COPY t_all TO STDOUT WITH (FORMAT bogus)", "COPY t_all TO STDOUT WITH (DELIMITER 'ab')", "COPY t_all TO STDOUT WITH (DELIMITER '')",
              "COPY t_all TO STDOUT WITH (NULL E'\\n')", "COPY t_all TO STDOUT WITH (FORMAT csv, QUOTE '', ESCAPE 'xx')",
              "COPY t_all TO STDOUT WITH (FORCE_QUOTE *)", "COPY t_all TO STDOUT WITH (FORMAT csv, FORCE_QUOTE (nosuch))",
              "COPY t_all TO STDOUT WITH (ENCODING 'LATIN1')", "COPY t_all TO STDOUT WITH (ENCODING 'bogus')",
              "COPY t_all TO STDOUT WITH (HEADER MATCH)", "COPY t_all TO STDOUT WITH (FREEZE)", "COPY t_all TO STDOUT WITH (OIDS)",
              "COPY nosuch TO STDOUT", "COPY t_all (nosuch) TO STDOUT", "COPY t_all (i4, i4) TO STDOUT",
              "COPY t_ext FROM STDIN", "COPY t_ext (i4, v) FROM STDIN", "COPY t_ext (i4, v) FROM STDIN WITH (FORMAT csv)",
              "COPY t_ext (i4, v) FROM STDIN WITH (FORMAT csv, HEADER MATCH)", "COPY t_ext FROM STDIN WITH (FORMAT binary)",
              "COPY t_ext (i4) FROM STDIN WITH (FORMAT csv, FORCE_NULL (i4), FORCE_NOT_NULL (i4))", "COPY mv_agg FROM STDIN",
              "COPY rw_catalog.rw_tables FROM STDIN", "COPY src_odd FROM STDIN", "COPY t_ext FROM STDIN WITH (DELIMITER E'\\n')",
              "COPY t_ext (ai, st) FROM STDIN", "COPY t_ext (iv, by, tz) FROM STDIN WITH (FORMAT csv)"]:
        emit(s)


# Text of extreme values of each column type, as COPY (and clients) send them.
COPY_TEXT = {
    "b": ["t", "f", "yes", "maybe", ""], "i2": ["32767", "32768", "-32769", "1.5", " 7 "],
    "i4": ["2147483647", "2147483648", "-2147483649", "0x10", "1e3"],
    "i8": ["9223372036854775807", "9223372036854775808", "-9223372036854775809", "--1", "+"],
    "f4": ["3.5e38", "1e-46", "NaN", "-inf", "1e400"], "f8": ["1e308", "1e309", "-1e-400", "Infinity", "nan"],
    "n": ["99999999999999999999999999999999999999", "1e131073", "NaN", "-0", ".", "1e-16384"],
    "n2": ["99999999.995", "123456789012", "-0.005", "1e2"],
    "v": ["", "\\", "\\x41", "\\N", "\\0", "x" * 10000, "日本"], "vn": ["abcdef", "ab", "日本語日本語"],
    "by": ["\\\\x", "\\\\xzz", "\\\\x0", "abc", "\\\\777"],
    "d": ["294277-01-01", "5874898-01-01", "4714-11-23 BC", "infinity", "2024-02-30", "epoch"],
    "tm": ["24:00:00", "24:00:00.000001", "23:59:60", "allballs", "25:00"],
    "ts": ["294277-01-01 00:00", "294276-12-31 23:59:59.999999", "4714-11-24 00:00 BC", "-infinity", "now"],
    "tz": ["294276-12-31 23:59:59.999999+14", "294276-12-31 23:59:59-14", "4714-11-24 00:00+15 BC", "infinity"],
    "iv": ["178000000 years", "178000001 years", "-2147483649 days", "9223372036854775807 microseconds", "P1Y", "@ 1 ago"],
    "ai": ["{1,2,3}", "{}", "{NULL}", "{1,", "{{1}}", "[0:1]={1,2}", "{2147483648}"],
    "at": ["{a,b}", "{\"\"}", "{\"a\\\\\"b\"}", "{a,{b}}", "}"],
    "st": ["(1,x)", "(,)", "(1)", "(1,2,3)", "()", "(\"a\",b)"],
}


def gen_copy():
    for col in sorted(COPY_TEXT):
        for v in COPY_TEXT[col]:
            emit(f"COPY t_ext (id, {col}) FROM STDIN -- data: 1\t{v}|NL|")
        rows = "".join(f"{k}\t{v}|NL|" for k, v in enumerate(COPY_TEXT[col]))
        emit(f"COPY t_ext (id, {col}) FROM STDIN -- data: {rows}")
        csv = "".join(f"{k},\"{v}\"|NL|" for k, v in enumerate(COPY_TEXT[col]))
        emit(f"COPY t_ext (id, {col}) FROM STDIN WITH (FORMAT csv) -- data: {csv}")
        emit(f"BEGIN; COPY t_ext (id, {col}) FROM STDIN -- data: {rows}")
        emit("COMMIT")
    for data in ["", "|NL|", "\\.|NL|", "1|NL|\\.|NL|2|NL|", "1\t2\t3|NL|", "\t|NL|", "1", "\\", "1\\|NL|",
                 "\\N\t\\N|NL|", "\"unterminated|NL|", "1," * 5000 + "|NL|", ("9|NL|" * 20000)]:
        emit(f"COPY t_ext (id, i4) FROM STDIN -- data: {data}")
        emit(f"COPY t_ext (id, i4) FROM STDIN WITH (FORMAT csv, HEADER true) -- data: {data}")
        emit(f"COPY t_big (id, v) FROM STDIN -- data: {data}")
    emit("FLUSH")
    emit("SELECT count(*), count(DISTINCT id) FROM t_big")
    emit("SELECT * FROM mv_ext")


def gen_dml():
    for s in ["INSERT INTO t_ext DEFAULT VALUES", "INSERT INTO t_ext (i4) SELECT g FROM generate_series(1, 10000) g",
              "INSERT INTO t_ext (i4) SELECT 1/0", "INSERT INTO t_ext (i4) VALUES (1), ('x')", "INSERT INTO t_ext (i4, i4) VALUES (1, 2)",
              "INSERT INTO t_ext (nosuch) VALUES (1)", "INSERT INTO t_ext VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23)",
              "INSERT INTO t_ext (i4) VALUES (1) RETURNING *", "INSERT INTO t_ext (i4) VALUES (1) RETURNING i4 / 0",
              "INSERT INTO t_ext (i4) VALUES (1) RETURNING nosuch", "INSERT INTO t_ext (i4) VALUES (1) ON CONFLICT DO NOTHING",
              "INSERT INTO t_ext (id, i4) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET i4 = excluded.i4 + 1",
              "INSERT INTO t_all (id) VALUES (1)", "INSERT INTO t_all (id) VALUES (NULL)", "INSERT INTO t_all (id) VALUES (1), (1)",
              "INSERT INTO t_all (id) SELECT id FROM t_all", "INSERT INTO t_all SELECT * FROM t_all",
              "INSERT INTO t_all (id, i2) VALUES (1000, 32768)", "INSERT INTO t_all (id, vn) VALUES (1001, 'toolong')",
              "INSERT INTO t_all (id, n2) VALUES (1002, 123456789012.345)", "INSERT INTO mv_agg VALUES (1)", "INSERT INTO rw_catalog.rw_tables VALUES (1)",
              "INSERT INTO t_all (id, ai) VALUES (1003, '{1,2,x}')", "INSERT INTO t_all (id, st) VALUES (1004, '(1,2,3)')",
              "INSERT INTO t_all (id, st) VALUES (1005, row(1))", "INSERT INTO t_all (id, tz) VALUES (1006, 'infinity')",
              "INSERT INTO t_all (id, f8, n) VALUES (1007, 'NaN', 'NaN')", "INSERT INTO t_all (id, v) VALUES (1008, repeat('x', 1000000))",
              "INSERT INTO t_all (id, by) VALUES (1009, '\\xzz')", "UPDATE t_all SET id = id + 1", "UPDATE t_all SET id = NULL",
              "UPDATE t_all SET i4 = i4 / 0", "UPDATE t_all SET i4 = 1 WHERE id = (SELECT id FROM t_all)", "UPDATE t_all SET nosuch = 1",
              "UPDATE t_all SET i4 = DEFAULT", "UPDATE t_all SET (i4, v) = (1, 'a') WHERE id < 0", "UPDATE t_all SET (i4, v) = (SELECT 1, 'a')",
              "UPDATE t_all SET i4 = t_ext.i4 FROM t_ext WHERE t_all.id = t_ext.id", "UPDATE t_all SET i4 = 1 RETURNING *",
              "UPDATE t_all SET _row_id = 1", "UPDATE mv_agg SET i4 = 1", "UPDATE t_all a SET i4 = a.i4 WHERE a.id > 1000",
              "DELETE FROM t_all WHERE id >= 1000", "DELETE FROM t_ext WHERE i4 = 1/0", "DELETE FROM t_ext USING t_all WHERE t_ext.id = t_all.id",
              "DELETE FROM t_ext WHERE id IN (SELECT id FROM t_ext LIMIT 10) RETURNING id", "DELETE FROM mv_agg", "DELETE FROM nosuch",
              "DELETE FROM t_ext WHERE CURRENT OF c",
              "WITH d AS (DELETE FROM t_ext RETURNING *) SELECT count(*) FROM d",
              "WITH i AS (INSERT INTO t_ext (i4) VALUES (1) RETURNING *) SELECT * FROM i",
              "WITH u AS (UPDATE t_ext SET i4 = 2 RETURNING *) SELECT * FROM u",
              "WITH w AS (SELECT 1) INSERT INTO t_ext (i4) SELECT * FROM w",
              "WITH w AS (DELETE FROM t_ext RETURNING i4) INSERT INTO t_ext (i4) SELECT i4 FROM w",
              "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT count(*) FROM r",
              "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r LIMIT 10",
              "WITH RECURSIVE r AS (SELECT * FROM r) SELECT * FROM r", "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT 1",
              "WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a", "WITH a AS MATERIALIZED (SELECT 1) SELECT * FROM a",
              "WITH a(x, y) AS (SELECT 1) SELECT * FROM a", "INSERT INTO t_ext (i4) WITH d AS (DELETE FROM t_ext RETURNING i4) SELECT i4 FROM d",
              "SELECT * FROM (WITH d AS (DELETE FROM t_ext RETURNING *) SELECT * FROM d) s",
              "SELECT (WITH d AS (DELETE FROM t_ext RETURNING 1) SELECT 1)", "EXPLAIN WITH d AS (DELETE FROM t_ext RETURNING *) SELECT * FROM d",
              "CREATE MATERIALIZED VIEW mv_cte AS WITH d AS (DELETE FROM t_ext RETURNING *) SELECT * FROM d",
              "DELETE FROM t_ext"]:
        emit(s)
    # A random walk over INSERT/UPDATE/DELETE with extreme values.
    cols = list(COLUMNS.items())
    for k in range(300):
        t, c = rng.choice(cols)
        v = rng.choice(values_of(t) + ["NULL"])
        kind = rng.randrange(4)
        if kind == 0:
            emit(f"INSERT INTO t_ext (id, {c}) VALUES ({k + 10}, {v})")
        elif kind == 1:
            emit(f"UPDATE t_ext SET {c} = {v} WHERE id % 3 = {k % 3}")
        elif kind == 2:
            emit(f"DELETE FROM t_ext WHERE {c} = {v}")
        else:
            emit(f"SELECT {c}, count(*) FROM t_ext WHERE {c} IS DISTINCT FROM {v} GROUP BY {c} ORDER BY {c} LIMIT 3")
        if k % 50 == 49:
            emit("FLUSH")
            emit("SELECT * FROM mv_ext")


def gen_subqueries():
    for s in ["SELECT (SELECT i4) FROM t_all", "SELECT (SELECT (SELECT i4)) FROM t_all", "SELECT i4 FROM t_all GROUP BY (SELECT i4)",
              "SELECT * FROM t_all WHERE i4 = (SELECT max(i4) FROM t_ext e WHERE e.i8 > t_all.i8)",
              "SELECT (SELECT count(*) FROM t_ext e WHERE e.id = t_all.id LIMIT (SELECT t_all.id)) FROM t_all",
              "SELECT * FROM t_all WHERE EXISTS (SELECT 1 FROM (SELECT t_all.i4) s)", "SELECT * FROM (VALUES ((SELECT 1))) v(x)",
              "SELECT i4, (SELECT sum(t_all.i8) FROM t_ext) FROM t_all GROUP BY i4", "SELECT sum((SELECT t_all.i4)) FROM t_all",
              "SELECT (SELECT sum(t_all.i4)) FROM t_all", "SELECT * FROM t_all ORDER BY (SELECT t_all.i4)",
              "SELECT ARRAY(SELECT t_all.i4 FROM t_ext) FROM t_all", "SELECT * FROM t_all a JOIN t_ext b ON b.i4 = (SELECT a.i4)",
              "SELECT * FROM generate_series(1, (SELECT max(i2) FROM t_all))", "SELECT * FROM t_all, generate_series(1, t_all.i2)",
              "SELECT * FROM t_all, unnest(t_all.ai)", "SELECT row_number() OVER (PARTITION BY (SELECT i4)) FROM t_all",
              "SELECT * FROM t_all WHERE i4 > ALL (SELECT t_all.i8)", "SELECT 1 FROM t_all HAVING (SELECT t_all.i4) > 0",
              "SELECT count(*) FILTER (WHERE (SELECT t_all.i4) > 1) FROM t_all",
              "SELECT * FROM t_all WHERE (SELECT i4 FROM t_ext e WHERE e.i4 = (SELECT t_all.i4) LIMIT 1) = 1",
              "SELECT (SELECT (SELECT (SELECT t_all.i4 FROM t_ext LIMIT 1) FROM t_ext LIMIT 1) FROM t_ext LIMIT 1) FROM t_all",
              "SELECT * FROM t_all WHERE (i4, i8) = (SELECT i4, i8 FROM t_ext LIMIT 1)", "SELECT * FROM t_all WHERE (i4, i8) IN (SELECT 1)",
              "SELECT * FROM t_all WHERE i4 IN (SELECT i4, i8 FROM t_ext)", "SELECT (SELECT * FROM t_ext)", "SELECT (SELECT)",
              "SELECT * FROM t_all WHERE i4 = ANY (SELECT ai FROM t_ext)", "SELECT * FROM t_all WHERE ai = ANY (SELECT ai FROM t_ext)",
              "SELECT * FROM t_all WHERE st IN (SELECT st FROM t_ext)", "SELECT * FROM t_all WHERE f8 NOT IN (SELECT f8 FROM t_ext)",
              "SELECT * FROM t_all WHERE n NOT IN (SELECT n FROM t_ext WHERE n IS NOT NULL)", "SELECT * FROM t_all WHERE v NOT IN (SELECT NULL)",
              "SELECT * FROM t_all WHERE iv IN (SELECT iv FROM t_ext)", "SELECT * FROM t_all WHERE tz = ANY (SELECT tz FROM t_ext)",
              "UPDATE t_ext SET i4 = (SELECT max(i4) FROM t_all a WHERE a.id = t_ext.id)", "DELETE FROM t_ext WHERE i4 IN (SELECT t_ext.i8)",
              "INSERT INTO t_ext (id, i4) SELECT (SELECT max(id) FROM t_ext), (SELECT min(i4) FROM t_all)",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT (SELECT max(i4) FROM t_ext) FROM t_all",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM t_all WHERE i4 IN (SELECT i4 FROM t_ext e WHERE e.id = t_all.id)",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM t_all WHERE EXISTS (SELECT 1 FROM t_ext e WHERE e.i4 = t_all.i4)",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM t_all WHERE i4 NOT IN (SELECT i4 FROM t_ext)",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT i4, count(*) AS c FROM t_all GROUP BY i4) a JOIN (SELECT i4, max(v) AS m FROM t_ext GROUP BY i4) b ON a.i4 = b.i4",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT v AS k FROM t_all) a LEFT JOIN (SELECT v AS k, ts FROM t_ext) b ON a.k = b.k",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT st AS k FROM t_all) a FULL JOIN (SELECT st AS k FROM t_ext) b ON a.k = b.k",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT ai AS k FROM t_all) a JOIN (SELECT ai AS k FROM t_ext) b ON a.k = b.k",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT f8 AS k FROM t_all) a JOIN (SELECT f8 AS k FROM t_ext) b ON a.k = b.k",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT iv AS k FROM t_all) a JOIN (SELECT iv AS k FROM t_ext) b ON a.k = b.k",
              "CREATE MATERIALIZED VIEW mv_sq AS SELECT * FROM (SELECT n AS k FROM t_all) a JOIN (SELECT n AS k FROM t_ext) b ON a.k = b.k"]:
        emit(s)
        if s.startswith("CREATE MATERIALIZED VIEW"):
            emit("INSERT INTO t_ext SELECT * FROM t_all")
            emit("UPDATE t_ext SET f8 = 'NaN', n = 'NaN', iv = '-178000000 years' WHERE id % 2 = 0")
            emit("DELETE FROM t_ext WHERE id % 3 = 0")
            emit("FLUSH")
            emit("SELECT * FROM mv_sq LIMIT 10")
            emit("DROP MATERIALIZED VIEW IF EXISTS mv_sq")


def gen_system_tables():
    for t in ["rw_catalog.rw_actors", "rw_catalog.rw_databases", "rw_catalog.rw_ddl_progress", "rw_catalog.rw_depend",
              "rw_catalog.rw_event_logs", "rw_catalog.rw_fragments", "rw_catalog.rw_indexes", "rw_catalog.rw_internal_tables",
              "rw_catalog.rw_materialized_views", "rw_catalog.rw_recent_jobs", "rw_catalog.rw_relations", "rw_catalog.rw_schemas",
              "rw_catalog.rw_sinks", "rw_catalog.rw_sources", "rw_catalog.rw_table_stats", "rw_catalog.rw_tables",
              "pg_catalog.pg_am", "pg_catalog.pg_attrdef", "pg_catalog.pg_attribute", "pg_catalog.pg_class", "pg_catalog.pg_collation",
              "pg_catalog.pg_constraint", "pg_catalog.pg_database", "pg_catalog.pg_description", "pg_catalog.pg_index",
              "pg_catalog.pg_inherits", "pg_catalog.pg_namespace", "pg_catalog.pg_policy", "pg_catalog.pg_publication",
              "pg_catalog.pg_publication_rel", "pg_catalog.pg_roles", "pg_catalog.pg_statistic_ext", "pg_catalog.pg_tablespace",
              "pg_catalog.pg_trigger", "pg_catalog.pg_type", "pg_catalog.pg_user", "pg_catalog.pg_proc", "pg_catalog.pg_settings",
              "pg_catalog.pg_stat_activity", "information_schema.columns", "information_schema.schemata", "information_schema.tables",
              "information_schema.views", "pg_catalog.nosuch"]:
        emit(f"SELECT * FROM {t}")
        emit(f"SELECT count(*) FROM {t} a, {t} b")
        emit(f"SELECT * FROM {t} WHERE NULL IS NULL ORDER BY 1 LIMIT 1")
        emit(f"CREATE MATERIALIZED VIEW mv_sys AS SELECT * FROM {t}")
        emit("DROP MATERIALIZED VIEW IF EXISTS mv_sys")
        emit(f"INSERT INTO {t} SELECT * FROM {t}")
        emit(f"EXPLAIN SELECT * FROM {t}")
    # psql's catalog queries shapes.
    for s in ["SELECT c.oid::regclass, c.relname, n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace",
              "SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a",
              "SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d",
              "SELECT c.relname FROM pg_catalog.pg_class c WHERE pg_catalog.pg_table_is_visible(c.oid)",
              "SELECT t.typname FROM pg_catalog.pg_type t WHERE pg_catalog.pg_type_is_visible(t.oid)",
              "SELECT pg_catalog.obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c",
              "SELECT oid::regtype, typname FROM pg_type", "SELECT 't_all'::regclass::oid", "SELECT 'mv_agg'::regclass",
              "SELECT c.oid::regclass::text FROM pg_class c ORDER BY 1 DESC LIMIT 3"]:
        emit(s)


def gen_setup():
    for s in [
        "SET TimeZone = 'UTC'",
        "DROP TABLE IF EXISTS t_all CASCADE",
        "CREATE TABLE t_all (id int PRIMARY KEY, b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, "
        "n numeric, n2 numeric(10,2), v varchar, vn varchar(5), by bytea, d date, tm time, ts timestamp, tz timestamptz, "
        "iv interval, ai int[], at text[], st struct<a int, b varchar>)",
        "INSERT INTO t_all VALUES (1, true, 1, 1, 1, 1.5, 2.5, 1.25, 1.25, 'abc', 'ab', '\\xdeadbeef', '2024-02-29', '12:34:56', "
        "'2024-02-29 12:34:56', '2024-02-29 12:34:56+00', '1 day', '{1,2,3}', '{a,b}', row(1, 'x'))",
        "INSERT INTO t_all (id) VALUES (2)",
        "CREATE TABLE t_ext (id int, b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, n numeric, "
        "n2 numeric(10,2), v varchar, vn varchar(5), by bytea, d date, tm time, ts timestamp, tz timestamptz, iv interval, "
        "ai int[], at text[], st struct<a int, b varchar>)",
        "EXTREME_ROWS",
        "INSERT INTO t_ext SELECT * FROM t_all",
        "CREATE TABLE t_big (id int, v varchar)",
        "INSERT INTO t_big SELECT g, 'v' || g FROM generate_series(1, 20000) g",
        "FLUSH",
        "CREATE MATERIALIZED VIEW mv_agg AS SELECT i4, count(*) AS c, sum(i8) AS s, min(v) AS mn, max(ts) AS mx FROM t_all GROUP BY i4",
        "CREATE MATERIALIZED VIEW mv_plain AS SELECT id, i4, v, f8 FROM t_all WHERE id > 0",
        "CREATE MATERIALIZED VIEW mv_ext AS SELECT i4, count(*) AS c, sum(n) AS s, string_agg(v, ',') AS sv, array_agg(i8) AS ai, "
        "min(f8) AS mn, max(tz) AS mx, avg(f4) AS av, sum(iv) AS si, bool_or(b) AS bo FROM t_ext GROUP BY i4",
        "CREATE MATERIALIZED VIEW mv_ext2 AS SELECT count(*) AS c, sum(i8) AS s, avg(n) AS a, max(v) AS m FROM t_ext",
        "SELECT * FROM t_all ORDER BY id",
        "SELECT * FROM mv_agg",
    ]:
        if s != "EXTREME_ROWS":
            emit(s)
            continue
        # One row per extreme value of each column (a row with several
        # would be refused whole when one of them is out of range).
        next_id = 3
        for t in sorted(COLUMNS):
            for v in EXTREME.get(t, []):
                emit(f"INSERT INTO t_all (id, {COLUMNS[t]}) VALUES ({next_id}, {v})")
                next_id += 1
        emit(f"INSERT INTO t_all (id, n2, vn, st) VALUES ({next_id}, 99999999.99, 'ß日本', row(-1, 'a\"b'))")


def gen_watermarks():
    """WATERMARK FOR and EMIT ON WINDOW CLOSE: odd clauses, extreme and late
    rows (infinities, NULLs, the ends of the ranges), views that close
    windows at the extremes; the views stay for the restart."""
    for d in ["(ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS ts) APPEND ONLY", "(ts timestamp, WATERMARK FOR ts AS ts + INTERVAL '100 years') APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts) APPEND ONLY", "(ts timestamp, WATERMARK FOR ts AS) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR AS ts) APPEND ONLY", "(ts timestamp, WATERMARK ts AS ts) APPEND ONLY",
              "(WATERMARK FOR ts AS ts) APPEND ONLY", "(ts timestamp, WATERMARK FOR ts AS ts,) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS (ts - INTERVAL '1 second'), v int) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second', WATERMARK FOR ts AS ts) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS 1/0) APPEND ONLY", "(ts timestamp, WATERMARK FOR ts AS ts::date::timestamp) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS now()::timestamp) APPEND ONLY", "(ts timestamp, WATERMARK FOR ts AS NULL) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS ts - (SELECT INTERVAL '1 s')) APPEND ONLY",
              "(ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second')",
              "(ts int, WATERMARK FOR ts AS ts - 2147483647) APPEND ONLY", "(ts smallint, WATERMARK FOR ts AS ts * 2) APPEND ONLY",
              "(ts date, WATERMARK FOR ts AS ts - 1) APPEND ONLY", "(ts timestamptz, WATERMARK FOR ts AS ts) APPEND ONLY",
              "(ts text, WATERMARK FOR ts AS ts) APPEND ONLY", "(ts timestamp PRIMARY KEY, WATERMARK FOR ts AS ts) APPEND ONLY",
              "(\"WaTeR\" timestamp, WATERMARK FOR \"WaTeR\" AS \"WaTeR\" - INTERVAL '1 second') APPEND ONLY"]:
        emit(f"CREATE TABLE t_wm_odd {d}")
        for v in ["'2024-01-01'", "NULL", "'infinity'", "'-infinity'", "'4714-11-24 00:00:00 BC'", "'294276-12-31 23:59:59'",
                  "'2023-12-31'", "1", "-32768", "2147483647"]:
            emit(f"INSERT INTO t_wm_odd VALUES ({v})")
        emit("SELECT * FROM t_wm_odd")
        emit("DROP TABLE IF EXISTS t_wm_odd")
    emit("CREATE TABLE t_wm (ts timestamp, k int, v numeric, WATERMARK FOR ts AS ts - INTERVAL '1 second') APPEND ONLY")
    emit("CREATE MATERIALIZED VIEW mv_wm_eowc AS SELECT window_start, k, count(*), sum(v), min(v), max(ts) FROM tumble(t_wm, ts, INTERVAL '1 second') GROUP BY window_start, k EMIT ON WINDOW CLOSE")
    emit("CREATE MATERIALIZED VIEW mv_wm_hop AS SELECT window_start, window_end, count(*) FROM hop(t_wm, ts, INTERVAL '1 second', INTERVAL '1 day') GROUP BY window_start, window_end EMIT ON WINDOW CLOSE")
    emit("CREATE MATERIALIZED VIEW mv_wm_over AS SELECT ts, k, lag(v) OVER (PARTITION BY k ORDER BY ts), sum(v) OVER (ORDER BY ts ROWS 3 PRECEDING) FROM t_wm EMIT ON WINDOW CLOSE")
    emit("CREATE MATERIALIZED VIEW mv_wm_top AS SELECT * FROM (SELECT window_start, v, row_number() OVER (PARTITION BY window_start ORDER BY v) AS rn FROM tumble(t_wm, ts, INTERVAL '1 hour')) q WHERE rn <= 1 EMIT ON WINDOW CLOSE")
    emit("CREATE MATERIALIZED VIEW mv_wm_upd AS SELECT date_trunc('year', ts) AS y, count(DISTINCT v) FROM t_wm GROUP BY date_trunc('year', ts)")
    emit("CREATE MATERIALIZED VIEW mv_wm_join AS SELECT a.ts, b.v FROM t_wm a JOIN t_wm b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '1 second' AND b.ts + INTERVAL '1 second'")
    for rows in ["('2024-01-01', 1, 1.5)", "('2024-01-01 00:00:05', 1, NULL), ('2024-01-01 00:00:01', NULL, 2)",
                 "('-infinity', 1, 1)", "('294276-12-31 23:59:59', 2, 'NaN')", "('infinity', 3, 'Infinity')",
                 "('4714-11-24 00:00:00 BC', 1, -1)", "('2024-01-01', 1, 1e30)", "(NULL, NULL, NULL)"]:
        emit(f"INSERT INTO t_wm VALUES {rows}")
        emit("FLUSH")
    for q in ["SELECT * FROM mv_wm_eowc", "SELECT * FROM mv_wm_hop", "SELECT * FROM mv_wm_over", "SELECT * FROM mv_wm_top",
              "SELECT * FROM mv_wm_upd", "SELECT count(*) FROM mv_wm_join", "SELECT * FROM rw_catalog.rw_watermarks",
              "SHOW CREATE TABLE t_wm"]:
        emit(q)
    for bad in ["CREATE MATERIALIZED VIEW mv_wm_bad AS SELECT 1 EMIT ON WINDOW CLOSE",
                "CREATE MATERIALIZED VIEW mv_wm_bad AS SELECT count(*) FROM t_wm EMIT ON WINDOW CLOSE",
                "CREATE MATERIALIZED VIEW mv_wm_bad AS SELECT k FROM t_wm GROUP BY k EMIT ON WINDOW",
                "CREATE MATERIALIZED VIEW mv_wm_bad AS SELECT k FROM t_wm GROUP BY k EMIT ON WINDOW CLOSE EMIT ON WINDOW CLOSE",
                "EXPLAIN CREATE MATERIALIZED VIEW mv_wm_bad AS SELECT ts, lead(v) OVER (ORDER BY ts) FROM t_wm EMIT ON WINDOW CLOSE",
                "CREATE SINK s_wm_bad AS SELECT window_start, count(*) FROM tumble(t_wm, ts, INTERVAL '1 second') GROUP BY window_start EMIT ON WINDOW CLOSE",
                "CREATE SINK s_wm_bad AS SELECT 1 EMIT ON WINDOW CLOSE WITH (connector = 'blackhole')",
                "CREATE SINK s_wm_bad FROM t_wm EMIT ON WINDOW CLOSE WITH (connector = 'blackhole')",
                "ALTER TABLE t_wm DROP COLUMN ts", "ALTER TABLE t_wm ALTER COLUMN ts TYPE date", "UPDATE t_wm SET ts = NULL",
                "CREATE SOURCE s_wm (id int, WATERMARK FOR id AS id - 2147483647) WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.start = '-2147483648', fields.id.end = '2147483647', datagen.rows.per.second = '100000')",
                "CREATE MATERIALIZED VIEW mv_wm_src AS SELECT id / 1000 AS w, count(*) FROM s_wm GROUP BY id / 1000 EMIT ON WINDOW CLOSE"]:
        emit(bad)
    emit("ALTER TABLE t_wm RENAME COLUMN ts TO ts2")
    emit("INSERT INTO t_wm VALUES ('2025-01-01', 9, 9)")
    emit("ALTER TABLE t_wm RENAME COLUMN ts2 TO ts")
    emit("ALTER TABLE t_wm ADD COLUMN extra int")
    emit("INSERT INTO t_wm VALUES ('2025-01-02', 9, 9, 9)")
    emit("FLUSH")


def gen_sql_functions():
    """CREATE FUNCTION ... LANGUAGE sql: odd signatures and bodies, calls with
    extreme and wrong arguments, recursion made by OR REPLACE, deep nesting,
    functions in views, FROM, LATERAL and every clause; the views stay for
    the restart."""
    emit("CREATE TABLE t_sf (k int PRIMARY KEY, v int, s text)")
    emit("INSERT INTO t_sf SELECT g, g * 7 % 11, repeat('x', g % 5) FROM generate_series(1, 50) g")
    for d in ["sf_a(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 1'",
              "sf_a(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 1'",
              "sf_b(x bigint DEFAULT 9223372036854775807, y bigint DEFAULT 1) RETURNS bigint LANGUAGE sql IMMUTABLE RETURN x + y",
              "sf_c(int) RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM t_sf WHERE v > $1'",
              "sf_d(lim int) RETURNS TABLE (k int, v int) LANGUAGE sql AS 'SELECT k, v FROM t_sf WHERE v >= lim'",
              "sf_e(x text) RETURNS SETOF t_sf LANGUAGE sql AS $$SELECT * FROM t_sf WHERE s = x$$",
              "sf_f(x int) RETURNS int LANGUAGE sql STRICT BEGIN ATOMIC SELECT x * 2; END",
              "sf_g(x int) RETURNS int LANGUAGE sql AS 'SELECT $2'", "sf_g(x int) RETURNS int LANGUAGE sql AS 'SELECT $0'",
              "sf_g(x int) RETURNS int LANGUAGE sql AS 'SELECT y'", "sf_g(x int, x int) RETURNS int LANGUAGE sql AS 'SELECT 1'",
              "sf_g(x int DEFAULT 1, y int) RETURNS int LANGUAGE sql AS 'SELECT 1'",
              "sf_g(x int DEFAULT 'a') RETURNS int LANGUAGE sql AS 'SELECT 1'", "sf_g() RETURNS int LANGUAGE sql AS ''",
              "sf_g() RETURNS int LANGUAGE sql AS 'SELECT 1, 2'", "sf_g() RETURNS int LANGUAGE sql AS 'SELECT ''a'''",
              "sf_g() RETURNS int LANGUAGE sql AS 'SELECT 1' 'SELECT 2'", "sf_g() RETURNS int AS 'SELECT 1'",
              "sf_g() RETURNS int LANGUAGE sql", "sf_g() RETURNS setof record LANGUAGE sql AS 'SELECT 1'",
              "sf_g() RETURNS void LANGUAGE sql AS 'SELECT 1'", "sf_g() RETURNS int LANGUAGE sql AS 'VALUES (1), (2)'",
              "sf_g() RETURNS int LANGUAGE sql AS 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r'",
              "sf_g() RETURNS int LANGUAGE sql AS 'SELECT sf_g()'", "sf_g() RETURNS t_nope LANGUAGE sql AS 'SELECT 1'",
              "sf_g(x int) RETURNS int LANGUAGE sql AS 'SELECT x FROM t_sf'", "sf_g() RETURNS int LANGUAGE sql AS 'SELECT $1'",
              "sf_g(x int) RETURNS int LANGUAGE sql WINDOW AS 'SELECT 1'", "sf_g(x int) RETURNS int LANGUAGE sql SET search_path = public AS 'SELECT 1'",
              "\"SF Quoted\"(\"X y\" int) RETURNS int LANGUAGE sql AS 'SELECT \"X y\" * 3'",
              # OUT, INOUT and polymorphic parameters.
              "sf_o1(x int, OUT a int, OUT b text) LANGUAGE sql AS 'SELECT x, x::text'",
              "sf_o2(INOUT x int, OUT y int) LANGUAGE sql AS 'SELECT x, x'", "sf_o3(OUT a int) LANGUAGE sql AS 'SELECT 1'",
              "sf_o4(x int, OUT a int, OUT b int) RETURNS SETOF record LANGUAGE sql AS 'SELECT k, v FROM t_sf WHERE k < x'",
              "sf_o5(OUT int, OUT int) LANGUAGE sql AS 'SELECT 1, 2, 3'", "sf_o5(OUT a int, OUT a int) LANGUAGE sql AS 'SELECT 1, 2'",
              "sf_o5(x int, OUT a int) RETURNS text LANGUAGE sql AS 'SELECT 1'", "sf_o5(OUT a int, OUT b int) RETURNS int LANGUAGE sql AS 'SELECT 1, 2'",
              "sf_o5(OUT a int DEFAULT 1) LANGUAGE sql AS 'SELECT 1'", "sf_o5(OUT a anyelement) LANGUAGE sql AS 'SELECT 1'",
              "sf_p1(x anyelement, y anyelement) RETURNS anyelement LANGUAGE sql AS 'SELECT coalesce(x, y)'",
              "sf_p2(x anyarray) RETURNS anyelement LANGUAGE sql AS 'SELECT x[1]'",
              "sf_p3(x anycompatible, y anycompatiblearray) RETURNS anycompatiblearray LANGUAGE sql AS 'SELECT x || y'",
              "sf_p4(x int) RETURNS anyelement LANGUAGE sql AS 'SELECT x'", "sf_p4(x anyelement DEFAULT 1) RETURNS int LANGUAGE sql AS 'SELECT 1'",
              "sf_p4(x anyrange) RETURNS int LANGUAGE sql AS 'SELECT 1'", "sf_p4(x anyenum) RETURNS anyenum LANGUAGE sql AS 'SELECT x'"]:
        emit(f"CREATE FUNCTION {d}")
        emit(f"CREATE OR REPLACE FUNCTION {d}")
    for q in ["SELECT sf_a(2147483647)", "SELECT sf_a(NULL)", "SELECT sf_a('x')", "SELECT sf_a(1, 2)", "SELECT sf_a(x => 1, x => 2)",
              "SELECT sf_a(y => 1)", "SELECT sf_b()", "SELECT sf_b(1)", "SELECT sf_b(y => -1)", "SELECT sf_c(k) FROM t_sf",
              "SELECT * FROM sf_d(5) ORDER BY 1", "SELECT * FROM t_sf t, sf_d(t.v) d", "SELECT * FROM sf_e('xx')",
              "SELECT sf_d(1)", "SELECT sf_f(NULL), sf_f(1073741824)", "SELECT \"SF Quoted\"(2)",
              "SELECT sf_c(sum(v)::int) FROM t_sf", "SELECT sf_c((SELECT 1))", "SELECT sf_a(sf_a(sf_a(sf_a(sf_a(1)))))",
              "SELECT sf_a(k) FROM t_sf GROUP BY sf_a(k) HAVING sf_a(count(*)::int) > 1 ORDER BY sf_a(k) LIMIT 3",
              "SELECT sum(sf_a(v)) OVER (ORDER BY k) FROM t_sf", "SELECT public.sf_a(1)", "SELECT nope.sf_a(1)",
              "SELECT pg_catalog.sf_a(1)", "SELECT sf_a(*)", "SELECT sf_a(DISTINCT 1)", "SELECT sf_a(1) OVER ()",
              "SELECT proname, pg_get_function_arguments(oid), pg_get_function_result(oid) FROM pg_proc WHERE proname LIKE 'sf_%'",
              "SELECT sf_o1(1), (sf_o1(2)).b, (sf_o1(3)).*", "SELECT * FROM sf_o1(NULL)", "SELECT * FROM t_sf t, sf_o1(t.v) o",
              "SELECT sf_o2(2147483647)", "SELECT * FROM sf_o4(10)", "SELECT sf_o4(10)", "SELECT (sf_o1(1)).nope",
              "SELECT * FROM sf_o1(1) AS o(p, q, r)", "SELECT * FROM sf_o1(1) WITH ORDINALITY",
              "SELECT sf_p1(1, 2), sf_p1('a'::text, NULL), sf_p1(NULL, NULL)", "SELECT sf_p1(1, 'x'::text)",
              "SELECT sf_p1(ARRAY[1], ARRAY[2])", "SELECT sf_p2(ARRAY[ARRAY[1]])", "SELECT sf_p2(1)", "SELECT sf_p2(NULL)",
              "SELECT sf_p2('{1,2}')", "SELECT sf_p3(1.5, ARRAY[1, 2]), sf_p3('a', ARRAY['b'])", "SELECT sf_p3(1, ARRAY['x'::text])",
              "SELECT sf_p1(k, v) FROM t_sf GROUP BY sf_p1(k, v)", "DROP FUNCTION sf_p1(anyelement)",
              "DROP FUNCTION sf_p1(anyelement, anyelement)", "SELECT sf_p1(1, 1)"]:
        emit(q)
    # Recursion by OR REPLACE, and a chain deeper than inlining goes.
    emit("CREATE FUNCTION sf_r1(x int) RETURNS int LANGUAGE sql AS 'SELECT x'")
    emit("CREATE FUNCTION sf_r2(x int) RETURNS int LANGUAGE sql AS 'SELECT sf_r1(x)'")
    emit("CREATE OR REPLACE FUNCTION sf_r1(x int) RETURNS int LANGUAGE sql AS 'SELECT sf_r2(x)'")
    emit("SELECT sf_r1(1)")
    emit("CREATE MATERIALIZED VIEW mv_sf_bad AS SELECT sf_r2(k) FROM t_sf")
    emit("CREATE FUNCTION sf_n0(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 1'")
    for i in range(1, 80):
        emit(f"CREATE FUNCTION sf_n{i}(x int) RETURNS int LANGUAGE sql AS 'SELECT sf_n{i - 1}(x) + 1'")
    emit("SELECT sf_n79(0)")
    emit("SELECT sf_n60(0)")
    emit("CREATE MATERIALIZED VIEW mv_sf AS SELECT k, sf_a(v) AS a, sf_c(k) AS c, sf_f(v) AS f FROM t_sf")
    emit("CREATE MATERIALIZED VIEW mv_sf_lat AS SELECT t.k, d.v FROM t_sf t, sf_d(t.k) d")
    emit("CREATE MATERIALIZED VIEW mv_sf_out AS SELECT t.k, o.a, o.b, (sf_o1(t.v)).b AS b2, sf_p2(ARRAY[t.v]) AS p FROM t_sf t, sf_o1(t.k) o")
    emit("CREATE VIEW v_sf AS SELECT sf_a(k) FROM t_sf")
    for bad in ["DROP FUNCTION sf_a", "DROP FUNCTION sf_a(text)", "DROP FUNCTION sf_nope", "DROP FUNCTION IF EXISTS sf_nope(int, int)",
                "CREATE OR REPLACE FUNCTION sf_a(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 2'",
                "CREATE OR REPLACE FUNCTION sf_a(y int) RETURNS int LANGUAGE sql AS 'SELECT y + 1'",
                "CREATE OR REPLACE FUNCTION sf_a(x int) RETURNS bigint LANGUAGE sql AS 'SELECT x + 1'",
                "DROP TABLE t_sf", "DROP FUNCTION sf_n40", "BEGIN", "CREATE FUNCTION sf_tx() RETURNS int RETURN 1",
                "SELECT sf_tx()", "ROLLBACK", "SELECT sf_tx()"]:
        emit(bad)
    emit("INSERT INTO t_sf VALUES (51, 3, 'xx'), (52, NULL, NULL)")
    emit("UPDATE t_sf SET v = v + 1 WHERE k % 3 = 0")
    emit("DELETE FROM t_sf WHERE k % 7 = 0")
    emit("FLUSH")
    emit("SELECT * FROM mv_sf ORDER BY k LIMIT 5")
    emit("SELECT count(*) FROM mv_sf_lat")


def main():
    gen_setup()
    gen_functions()
    gen_casts()
    gen_random_expressions()
    gen_literals()
    gen_nesting()
    gen_session()
    gen_dml()
    gen_copy()
    gen_subqueries()
    gen_system_tables()
    gen_ddl_and_queries()
    gen_watermarks()
    gen_sql_functions()
    emit("FLUSH")
    emit("SELECT * FROM mv_ext")
    emit("SELECT * FROM mv_ext2")
    # The tables and views are left for crash_corpus_test.sh's restart,
    # which recovers every stream job the corpus left behind.
    emit("SELECT 1")
    sys.stdout.write("-- Generated by tests/corpus/gen_corpus.py: do not edit (one statement a line).\n")
    for s in out:
        sys.stdout.write(s + "\n")


if __name__ == "__main__":
    main()
