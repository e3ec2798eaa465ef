#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/README.md).

corpus/fuzz_sql: SELECT / CREATE MATERIALIZED VIEW / DML statements taken
from tests/slt (every 7th such statement, deterministic) and statements
over the fuzz target's own tables t, k, s and mv.
corpus/fuzz_pgwire: protocol messages as libpq sends them (startup packet,
Query, Parse/Bind/Describe/Execute/Sync/Close with text and binary
parameters), binary parameter values of each type, and COPY data (text,
CSV, binary). Run it again after changing it; the files are committed.
"""
import hashlib
import os
import re
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(ROOT))


def write(target, data):
    d = os.path.join(ROOT, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def slt_statements():
    out = []
    sdir = os.path.join(REPO, "tests", "slt")
    for fn in sorted(os.listdir(sdir)):
        if not fn.endswith(".slt") or fn.endswith(".slow.slt"):
            continue
        lines = open(os.path.join(sdir, fn), encoding="utf-8", errors="replace").read().split("\n")
        i = 0
        while i < len(lines):
            if re.match(r"^(statement|query)\b", lines[i]):
                j = i + 1
                sql = []
                while j < len(lines) and lines[j].strip() and lines[j] != "----":
                    sql.append(lines[j])
                    j += 1
                text = "\n".join(sql)
                if re.match(r"(?is)^\s*(select|with|values|create materialized view|insert|update|delete)\b", text) \
                        and len(text) < 1500:
                    out.append(text)
                i = j
            else:
                i += 1
    return out


OWN_SQL = [
    "SELECT a, b, count(*) FROM t WHERE c > 1.5 GROUP BY a, b HAVING sum(d) > 0 ORDER BY 1 LIMIT 10",
    "SELECT * FROM t JOIN k ON t.a = k.id LEFT JOIN s ON s.name = k.v",
    "SELECT a, row_number() OVER (PARTITION BY b ORDER BY e) FROM t",
    "SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, e DESC",
    "WITH x AS (SELECT a, sum(g) AS s FROM t GROUP BY a) SELECT * FROM x WHERE s > (SELECT max(w) FROM k)",
    "SELECT a FROM t UNION SELECT id FROM k EXCEPT SELECT cnt::int FROM mv",
    "SELECT CASE WHEN f THEN b ELSE 'x' END, coalesce(d, 0) / nullif(c, 0)::numeric FROM t",
    "SELECT date_trunc('hour', e), extract(epoch FROM m), e + j, i - 1 FROM t",
    "SELECT array_agg(a ORDER BY a), string_agg(b, ',') FILTER (WHERE f) FROM t",
    "SELECT p[1], array_length(p, 1), unnest(p) FROM t",
    "SELECT * FROM generate_series(1, 10) g WHERE g IN (SELECT a FROM t)",
    "SELECT name, sum(amount) FROM s WHERE ts > now() - interval '1 day' GROUP BY name",
    "SELECT $1::int + a, $2 FROM t WHERE b = $3",
    "CREATE MATERIALIZED VIEW m1 AS SELECT a, count(*) AS n, sum(d) FROM t GROUP BY a",
    "CREATE MATERIALIZED VIEW m2 AS SELECT t.a, k.v FROM t FULL JOIN k ON t.a = k.id",
    "CREATE MATERIALIZED VIEW m3 AS SELECT DISTINCT b FROM t WHERE a > 0",
    "CREATE MATERIALIZED VIEW m4 AS SELECT * FROM (SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY c) AS r FROM t) x WHERE r <= 3",
    "CREATE MATERIALIZED VIEW m5 (x, y) AS SELECT a, max(c) FROM t GROUP BY a",
    "CREATE MATERIALIZED VIEW m6 AS SELECT a FROM t UNION ALL SELECT id FROM k",
    "CREATE MATERIALIZED VIEW m7 AS SELECT count(DISTINCT b), min(e), max(m), avg(n) FROM t",
    "INSERT INTO k VALUES (1, 'a', 2), (2, NULL, 3) RETURNING *",
    "INSERT INTO t (a, b) SELECT id, v FROM k",
    "UPDATE k SET v = v || 'x', w = w + 1 WHERE id > 1 RETURNING id",
    "DELETE FROM s WHERE amount < 0",
    "SELECT ((((((((((1)))))))))) + (SELECT (SELECT (SELECT 1)))",
    "EXPLAIN SELECT 1; SELECT 2; FLUSH",
    "SELECT 'a'::bytea, '\\xdeadbeef'::bytea, E'\\u00e9', U&'\\0041', $$dollar$$",
    "SELECT 1e400::float8, '-0'::numeric, 9223372036854775807 + 1, 'NaN'::float4, '294277-01-01'::timestamp",
    "SELECT ROW(1, 'a'), (ROW(1, 2)).f1, ARRAY[ARRAY[1, 2], ARRAY[3, 4]]",
    "SELECT a FROM t WHERE b LIKE '%x_' AND b ~ '^a+$' AND b SIMILAR TO 'x%'",
    "DO $$ BEGIN INSERT INTO k VALUES (9, 'x', 1); EXCEPTION WHEN unique_violation OR SQLSTATE '22012' THEN RAISE NOTICE 'n %', 1; END $$",
    "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = 'z') THEN EXECUTE 'CREATE TABLE z (a int)'; ELSE PERFORM 1 / 0; END IF; END $$",
    "SELECT '{\"a\": [1.0, 2]}'::jsonb = '{\"a\": [1, 2.00]}'::jsonb, '[]'::jsonb < 'null'::jsonb ORDER BY 1",
    "ALTER TABLE k ADD COLUMN z2 int DEFAULT 7, ALTER COLUMN w SET NOT NULL",
    # RisingWave's in-query clauses (sql/query_clauses.h).
    "SELECT a, b FROM t UNION ALL CORRESPONDING BY (b, a) SELECT id AS a, v AS b FROM k INTERSECT CORRESPONDING SELECT 1 AS a, 'x' AS b",
    "CREATE MATERIALIZED VIEW m8 AS SELECT t.a, k.v FROM t LEFT JOIN k FOR SYSTEM_TIME AS OF PROCTIME() AS kk ON t.a = kk.id",
    "CREATE MATERIALIZED VIEW m9 AS WITH c AS CHANGELOG FROM k SELECT id, changelog_op, _changelog_row_id FROM c",
    "CREATE MATERIALIZED VIEW m10 AS SELECT t.a, k.w FROM t ASOF LEFT JOIN k ON t.a = k.id AND t.c >= k.w",
]


def slt_corpus():
    stmts = slt_statements()
    picked = stmts[::7][:45]
    for s in picked:
        write("fuzz_sql", s)
    for s in OWN_SQL:
        write("fuzz_sql", s)


def msg(t, body):
    return t + struct.pack(">I", len(body) + 4) + body


def cstr(s):
    return s.encode() + b"\0"


def startup(params):
    body = struct.pack(">I", 196608) + b"".join(cstr(k) + cstr(v) for k, v in params) + b"\0"
    return struct.pack(">I", len(body) + 4) + body


def bind(portal, stmt, pformats, params, rformats):
    b = cstr(portal) + cstr(stmt) + struct.pack(">h", len(pformats)) + b"".join(struct.pack(">h", f) for f in pformats)
    b += struct.pack(">h", len(params))
    for p in params:
        b += struct.pack(">i", -1) if p is None else struct.pack(">i", len(p)) + p
    b += struct.pack(">h", len(rformats)) + b"".join(struct.pack(">h", f) for f in rformats)
    return msg(b"B", b)


# Type indexes of fuzz_pgwire.cc's Types().
T = {"bool": 0, "int2": 1, "int4": 2, "int8": 3, "float4": 4, "float8": 5, "numeric": 6, "varchar": 7,
     "text": 8, "bytea": 9, "date": 10, "time": 11, "timestamp": 12, "timestamptz": 13, "interval": 14,
     "oid": 15, "int4[]": 16, "varchar[]": 17, "numeric[]": 18, "timestamptz[]": 19, "bool[]": 20,
     "float8[]": 21}


def numeric(ndigits, weight, sign, dscale, digits):
    return struct.pack(">hhHH", ndigits, weight, sign, dscale) + b"".join(struct.pack(">H", d) for d in digits)


def array(elem_oid, elems, ndim=1, lbound=1, flags=0):
    b = struct.pack(">iiI", ndim, flags, elem_oid)
    if ndim:
        b += struct.pack(">ii", len(elems), lbound)
    for e in elems:
        b += struct.pack(">i", -1) if e is None else struct.pack(">i", len(e)) + e
    return b


def wire_corpus():
    sp = startup([("user", "root"), ("database", "dev"), ("application_name", "psql"), ("client_encoding", "UTF8")])
    write("fuzz_pgwire", b"\0" + sp + msg(b"Q", cstr("SELECT 1")) + msg(b"X", b""))
    ext = (msg(b"P", cstr("s1") + cstr("SELECT $1::int + $2") + struct.pack(">hII", 2, 23, 23))
           + msg(b"D", b"S" + cstr("s1"))
           + bind("p1", "s1", [1], [struct.pack(">i", 5), None], [1])
           + msg(b"D", b"P" + cstr("p1")) + msg(b"E", cstr("p1") + struct.pack(">i", 10))
           + msg(b"C", b"P" + cstr("p1")) + msg(b"S", b""))
    write("fuzz_pgwire", b"\0" + sp + ext)
    write("fuzz_pgwire", b"\0" + sp + bind("", "", [0, 1], [b"abc", b"\x00\x00\x00\x01"], [0, 1, 0]) + msg(b"H", b""))
    write("fuzz_pgwire", b"\0" + struct.pack(">II", 8, 80877103) + sp)  # SSLRequest first
    write("fuzz_pgwire", b"\0" + struct.pack(">IIii", 16, 80877102, 1234, 5678))  # CancelRequest
    write("fuzz_pgwire", b"\0" + sp + msg(b"Q", cstr("COPY t FROM STDIN")) + msg(b"d", b"1\tx\n") + msg(b"c", b""))
    # Binary values.
    vals = [
        ("bool", b"\x01"), ("int2", struct.pack(">h", -2)), ("int4", struct.pack(">i", 2**31 - 1)),
        ("int8", struct.pack(">q", -2**63)), ("float4", struct.pack(">f", 1.5)), ("float8", struct.pack(">d", -0.0)),
        ("numeric", numeric(2, 0, 0, 4, [12, 3400])), ("numeric", numeric(0, 0, 0xC000, 0, [])),
        ("numeric", numeric(3, 2, 0x4000, 2, [1, 9999, 5000])), ("varchar", "héllo".encode()), ("text", b""),
        ("bytea", b"\x00\xff"), ("date", struct.pack(">i", -730119)), ("time", struct.pack(">q", 86399999999)),
        ("timestamp", struct.pack(">q", 0)), ("timestamptz", struct.pack(">q", 9223371331200000000 - 1)),
        ("interval", struct.pack(">qii", 3600000000, 2, 14)), ("oid", struct.pack(">I", 2**32 - 1)),
        ("int4[]", array(23, [struct.pack(">i", 1), None, struct.pack(">i", 3)])),
        ("int4[]", array(23, [], ndim=0)),
        ("varchar[]", array(1043, [b"a", b"", None], lbound=0)),
        ("numeric[]", array(1700, [numeric(1, 0, 0, 0, [7])], flags=1)),
        ("timestamptz[]", array(1184, [struct.pack(">q", 1)])),
        ("bool[]", array(16, [b"\x00", b"\x01"])), ("float8[]", array(701, [struct.pack(">d", float("nan"))])),
    ]
    for t, v in vals:
        write("fuzz_pgwire", bytes([1, T[t]]) + v)
    # COPY text / CSV.
    write("fuzz_pgwire", b"\x02\x00" + b"1\tabc\t\\N\n2\ta\\tb\\\\c\t\\x41\\101\n\\.\n")
    write("fuzz_pgwire", b"\x02\x01" + b'1,"a,b","q""uote"\r\n2,,"multi\nline"\n')
    write("fuzz_pgwire", b"\x02\x03" + b"a,b,c\n1,2,3\n")
    write("fuzz_pgwire", b"\x02\x45" + b"1;'x;y';NULL\n\\.\nignored\n")
    write("fuzz_pgwire", b"\x04\x00" + b"".join(b"%d\trow %d\n" % (i, i) for i in range(40)))
    write("fuzz_pgwire", b"\x04\x01" + b'1,"a\nb"\n2,c\n')
    # Binary COPY.
    hdr = b"PGCOPY\n\xff\r\n\0" + struct.pack(">ii", 0, 0)
    tup = struct.pack(">h", 2) + struct.pack(">i", 4) + struct.pack(">i", 42) + struct.pack(">i", -1)
    write("fuzz_pgwire", b"\x03\x02" + hdr + tup + tup + struct.pack(">h", -1))


if __name__ == "__main__":
    slt_corpus()
    wire_corpus()
