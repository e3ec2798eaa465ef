#!/usr/bin/python3
"""psycopg2 against a server, as an application uses it (issue 18).

Usage: psycopg2_test.py HOST PORT USER DBNAME

psycopg2 interpolates parameters into the SQL text client-side and sends
it by the simple protocol, opening a transaction with BEGIN before the
first statement (its default mode). Every check passes against
PostgreSQL 15 with the same script; the exit status is the number of
failed checks.
"""
import datetime
import decimal
import io

import psycopg2
import psycopg2.errors
import psycopg2.extras

from checks import DB, HOST, PORT, USER, check, finish


conn = psycopg2.connect(host=HOST, port=PORT, user=USER, dbname=DB, connect_timeout=10)


def run(name, fn):
    print(f"== {name}")
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - any error is a failure here
        check(False, name, f"{type(e).__name__} [{getattr(e, 'pgcode', None)}] {e}")
        conn.rollback()


def ddl_and_dml():
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS pg2_items")
    cur.execute("CREATE TABLE pg2_items (id int PRIMARY KEY, name text, price numeric, at timestamp)")
    conn.commit()
    at = datetime.datetime(2024, 1, 2, 3, 4, 5)
    cur.execute("INSERT INTO pg2_items VALUES (%s, %s, %s, %s)", (1, "it's", decimal.Decimal("9.99"), at))
    psycopg2.extras.execute_values(cur, "INSERT INTO pg2_items VALUES %s",
                                   [(i, f"n{i}", decimal.Decimal(i), at) for i in range(2, 101)])
    cur.executemany("UPDATE pg2_items SET name = %s WHERE id = %s", [("two", 2), ("three", 3)])
    conn.commit()
    cur.execute("SELECT name, price, at FROM pg2_items WHERE id = %s", (1,))
    check(cur.fetchone() == ("it's", decimal.Decimal("9.99"), at), "a quoted string and a numeric read back", "")
    cur.execute("SELECT count(*) FROM pg2_items WHERE name IN %s", (("two", "three"),))
    check(cur.fetchone() == (2,), "IN with a tuple parameter", "")
    cur.execute("SELECT id FROM pg2_items ORDER BY id LIMIT %s OFFSET %s", (3, 10))
    check([r[0] for r in cur.fetchall()] == [11, 12, 13], "LIMIT %s OFFSET %s", "")
    conn.commit()


def failed_transaction():
    cur = conn.cursor()
    try:
        cur.execute("SELECT 1/0")
        check(False, "division by zero raises", "")
    except psycopg2.errors.DivisionByZero:
        check(True, "division by zero raises 22012")
    try:
        cur.execute("SELECT 1")
        check(False, "25P02 in the failed transaction", "")
    except psycopg2.errors.InFailedSqlTransaction:
        check(True, "25P02 in the failed transaction")
    conn.rollback()
    cur.execute("SELECT 'after'")
    check(cur.fetchone() == ("after",), "the connection goes on after rollback", "")
    conn.commit()


def copy():
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS pg2_copy")
    cur.execute("CREATE TABLE pg2_copy (id int, name text)")
    cur.copy_from(io.StringIO("".join(f"{i}\tname {i}\n" for i in range(1, 501))), "pg2_copy", columns=("id", "name"))
    cur.copy_expert("COPY pg2_copy FROM STDIN WITH (FORMAT csv)", io.StringIO('501,"with, comma"\n502,\n'))
    conn.commit()
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT id, name FROM pg2_copy WHERE id > 499 ORDER BY id) TO STDOUT WITH (FORMAT csv)", out)
    check(out.getvalue() == '500,name 500\n501,"with, comma"\n502,\n', "COPY both ways (copy_from, copy_expert)",
          out.getvalue())
    conn.commit()


def types():
    cur = conn.cursor()
    values = [1, 2 ** 40, 1.5, decimal.Decimal("1.25"), "x", True, None, datetime.date(2020, 2, 29),
              datetime.datetime(2020, 1, 1, 1, 1, 1), datetime.timedelta(hours=25), [1, 2], ["a", None]]
    for v in values:
        cur.execute("SELECT %s", (v,))
        got = cur.fetchone()[0]
        check(got == v, f"round trip of {v!r}", got)
    cur.execute("SELECT %s::bytea", (psycopg2.Binary(b"\x00\xff"),))
    check(bytes(cur.fetchone()[0]) == b"\x00\xff", "bytea round trip", "")
    conn.commit()


def dict_cursor_and_metadata():
    cur = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
    cur.execute("SELECT id, name FROM pg2_items WHERE id = %(id)s", {"id": 2})
    check(cur.fetchone() == {"id": 2, "name": "two"}, "named parameters, dict rows", "")
    check([d.name for d in cur.description] == ["id", "name"], "cursor.description", "")
    # Each column's table and attribute number (RowDescription), as
    # pg_class and pg_attribute give them; none for a computed one.
    plain = conn.cursor()
    plain.execute("SELECT name, id, id + 1 AS next, s.price FROM pg2_items JOIN (SELECT id AS sid, price FROM pg2_items) s"
                  " ON s.sid = pg2_items.id LIMIT 1")
    origins = [(d.table_oid, d.table_column) for d in plain.description]
    plain.execute("SELECT 'pg2_items'::regclass::oid, attname, attnum FROM pg_attribute"
                  " WHERE attrelid = 'pg2_items'::regclass AND attnum > 0")
    rows = plain.fetchall()
    attnum = {name: num for _, name, num in rows}
    table = rows[0][0]
    want = [(table, attnum["name"]), (table, attnum["id"]), (None, None), (table, attnum["price"])]
    check(origins == want, "cursor.description: table_oid and table_column", origins)
    check(conn.server_version >= 90000, "server_version", conn.server_version)
    check(conn.get_parameter_status("client_encoding") == "UTF8", "client_encoding", "")
    conn.commit()


def named_cursor():
    # psycopg2's server-side cursor: DECLARE ... CURSOR WITHOUT HOLD, FETCH
    # FORWARD itersize, CLOSE.
    cur = conn.cursor(name="pg2_named")
    cur.itersize = 3
    cur.execute("SELECT id FROM pg2_items ORDER BY id")
    ids = [r[0] for r in cur]
    cur.close()
    conn.commit()
    check(len(ids) > 3 and ids == sorted(ids), "named cursor iterated in pages of 3", ids)


def autocommit():
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT 1")
    check(conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_IDLE, "autocommit: no BEGIN", "")
    conn.autocommit = False


for name, fn in [("DDL and DML", ddl_and_dml), ("failed transaction", failed_transaction), ("COPY", copy),
                 ("types", types), ("dict cursor and metadata", dict_cursor_and_metadata), ("named cursor", named_cursor),
                 ("autocommit", autocommit)]:
    run(name, fn)

cur = conn.cursor()
cur.execute("DROP TABLE IF EXISTS pg2_items")
cur.execute("DROP TABLE IF EXISTS pg2_copy")
conn.commit()
conn.close()
finish()
