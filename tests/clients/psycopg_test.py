#!/usr/bin/python3
"""psycopg 3 against a server, as an application uses it (issue 18).

Usage: psycopg_test.py HOST PORT USER DBNAME

Every step is what psycopg 3 does by itself in its default mode (a
transaction opened by the first statement, server-side parameters through
the extended protocol, binary COPY rows, pipeline mode, prepared statements
after a few executions). Every check passes against PostgreSQL 15 with the
same script; the exit status is the number of failed checks.
"""
import datetime
import decimal
import uuid

import psycopg

from checks import DB, HOST, PORT, USER, check, finish


def step(what, fn):
    """Runs fn; an exception is a failed check with its SQLSTATE."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - any error is a failure here
        state = getattr(getattr(e, "diag", None), "sqlstate", None)
        check(False, what, f"{type(e).__name__} [{state}] {e}")


conn = psycopg.connect(host=HOST, port=PORT, user=USER, dbname=DB, connect_timeout=10)


def ddl():
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS pg3_items")
        cur.execute("CREATE TABLE pg3_items (id int PRIMARY KEY, name text, price numeric(10, 2), "
                    "created timestamptz, qty bigint, ok boolean)")
    conn.commit()
    check(True, "DDL in psycopg's implicit transaction, committed")


def dml_with_parameters():
    now = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO pg3_items VALUES (%s, %s, %s, %s, %s, %s)",
                    (1, "one", decimal.Decimal("1.50"), now, 10, True))
        cur.executemany("INSERT INTO pg3_items VALUES (%s, %s, %s, %s, %s, %s)",
                        [(i, f"item {i}", decimal.Decimal(i) / 4, now, i * 100, i % 2 == 0) for i in range(2, 51)])
        check(cur.rowcount == 49 or cur.rowcount == 1, "executemany inserts", cur.rowcount)
    conn.commit()
    with conn.cursor() as cur:
        cur.execute("SELECT count(*), sum(qty) FROM pg3_items")
        row = cur.fetchone()
        check(row == (50, 10 + sum(i * 100 for i in range(2, 51))), "rows written with parameters", row)
        cur.execute("SELECT name, price, created, ok FROM pg3_items WHERE id = %s", (1,))
        row = cur.fetchone()
        check(row == ("one", decimal.Decimal("1.50"), now, True), "a row read back by key", row)
        cur.execute("UPDATE pg3_items SET qty = qty + %s WHERE id <= %s", (1, 3))
        check(cur.rowcount == 3, "UPDATE rowcount", cur.rowcount)
        cur.execute("DELETE FROM pg3_items WHERE id = %s RETURNING name", (50,))
        check(cur.fetchall() == [("item 50",)], "DELETE ... RETURNING", "")
    conn.commit()


def prepared_reused():
    # psycopg prepares a statement after it has run prepare_threshold (5)
    # times; prepare=True does it at once.
    with conn.cursor() as cur:
        total = 0
        for i in range(100):
            cur.execute("SELECT qty FROM pg3_items WHERE id = %s", (i % 49 + 1,), prepare=True)
            total += cur.fetchone()[0]
        expected = sum((10 + 1 if k == 1 else k * 100 + (1 if k <= 3 else 0)) for k in [i % 49 + 1 for i in range(100)])
        check(total == expected, "a prepared statement executed 100 times", (total, expected))
        for i in range(10):
            cur.execute("SELECT %s::int + 1", (i,))
        check(cur.fetchone() == (10,), "a statement prepared by psycopg's threshold", "")
    conn.commit()


def failed_transaction_then_continue():
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        try:
            cur.execute("SELECT 1 / %s", (0,))
            check(False, "division by zero raises", "no error")
        except psycopg.errors.DivisionByZero:
            check(True, "division by zero raises 22012")
        try:
            cur.execute("SELECT 2")
            check(False, "a statement in the failed transaction raises", "no error")
        except psycopg.errors.InFailedSqlTransaction:
            check(True, "a statement in the failed transaction raises 25P02")
    conn.rollback()
    with conn.cursor() as cur:
        cur.execute("SELECT %s::text", ("after",))
        check(cur.fetchone() == ("after",), "the connection goes on after rollback", "")
    conn.commit()
    # The same with a transaction() block, which rolls back on the exception.
    try:
        with conn.transaction():
            conn.execute("INSERT INTO pg3_items (id, name) VALUES (%s, %s)", (1000, "rolled back"))
            conn.execute("SELECT 1 / 0")
    except psycopg.errors.DivisionByZero:
        pass
    row = conn.execute("SELECT count(*) FROM pg3_items WHERE id = 1000").fetchone()
    check(row == (0,), "a transaction() block that failed left nothing", row)
    conn.commit()


def copy_both_ways():
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS pg3_copy")
        cur.execute("CREATE TABLE pg3_copy (id int, name text, amount numeric, at date)")
        with cur.copy("COPY pg3_copy (id, name, amount, at) FROM STDIN") as copy:
            for i in range(1, 201):
                copy.write_row((i, f"n{i}", decimal.Decimal(i) / 8, datetime.date(2024, 1, 1) + datetime.timedelta(days=i)))
        check(cur.rowcount == 200, "COPY FROM STDIN with write_row (text)", cur.rowcount)
        with cur.copy("COPY pg3_copy (id, name, amount, at) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "text", "numeric", "date"])
            for i in range(201, 301):
                copy.write_row((i, f"b{i}", decimal.Decimal(i) / 8, datetime.date(2024, 1, 1)))
        check(cur.rowcount == 100, "COPY FROM STDIN with write_row (binary)", cur.rowcount)
    conn.commit()
    with conn.cursor() as cur:
        rows = []
        with cur.copy("COPY (SELECT id, name, amount, at FROM pg3_copy ORDER BY id) TO STDOUT") as copy:
            for row in copy.rows():
                rows.append(row)
        check(len(rows) == 300 and rows[0] == ("1", "n1", "0.125", "2024-01-02"), "COPY TO STDOUT rows (text)",
              rows[:1])
        rows = []
        with cur.copy("COPY (SELECT id, name, amount, at FROM pg3_copy ORDER BY id) TO STDOUT (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "text", "numeric", "date"])
            for row in copy.rows():
                rows.append(row)
        check(len(rows) == 300 and rows[299] == (300, "b300", decimal.Decimal("37.5"), datetime.date(2024, 1, 1)),
              "COPY TO STDOUT rows (binary)", rows[-1:])
        data = b""
        with cur.copy("COPY (SELECT id FROM pg3_copy WHERE id <= 3 ORDER BY id) TO STDOUT") as copy:
            for block in copy:
                data += bytes(block)
        check(data == b"1\n2\n3\n", "COPY TO STDOUT blocks", data)
    conn.commit()
    # COPY FROM checks CHECK constraints (text and binary; a table with a
    # generated row id takes the bulk-load path): a failing row fails it all.
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS pg3_copy_checked")
        cur.execute("CREATE TABLE pg3_copy_checked (id int, qty int CHECK (qty > 0))")
    conn.commit()
    for fmt in ["", " (FORMAT BINARY)"]:
        try:
            with conn.cursor() as cur:
                with cur.copy("COPY pg3_copy_checked FROM STDIN" + fmt) as copy:
                    if fmt:
                        copy.set_types(["int4", "int4"])
                    for i in range(1, 2001):
                        copy.write_row((i, 5 if i != 1500 else 0))
            conn.commit()
            check(False, "COPY FROM of a row failing a CHECK" + fmt, "no error")
        except psycopg.errors.CheckViolation as e:
            conn.rollback()
            check(e.diag.constraint_name == "pg3_copy_checked_qty_check", "COPY FROM of a row failing a CHECK" + fmt,
                  e.diag.constraint_name)
    row = conn.execute("SELECT count(*) FROM pg3_copy_checked").fetchone()
    check(row == (0,), "a COPY that failed a CHECK wrote nothing", row)
    conn.commit()


def type_round_trips():
    values = [
        ("int2", 12), ("int4", -7), ("int8", 2 ** 40), ("float4", 1.5), ("float8", 2.25),
        ("numeric", decimal.Decimal("12345.6789")), ("text", "héllo"), ("varchar", "v"), ("bool", False),
        ("date", datetime.date(2020, 2, 29)), ("time", datetime.time(12, 34, 56)),
        ("timestamp", datetime.datetime(2021, 3, 4, 5, 6, 7, 890000)),
        ("timestamptz", datetime.datetime(2021, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)),
        ("interval", datetime.timedelta(days=3, seconds=3661)), ("bytea", b"\x00\x01\xff"),
        ("int4[]", [1, 2, 3]), ("text[]", ["a", "b"]),
        ("uuid", uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
        ("jsonb", {"a": [1, 2]}),
    ]
    with conn.cursor() as cur:
        for type_name, value in values:
            for binary in (False, True):
                try:
                    param = psycopg.types.json.Jsonb(value) if type_name == "jsonb" else value
                    cur.execute(f"SELECT %s::{type_name}", (param,), binary=binary)
                    got = cur.fetchone()[0]
                    if isinstance(value, bytes):
                        got = bytes(got)
                    check(got == value, f"{type_name} round trip ({'binary' if binary else 'text'})", (got, value))
                except Exception as e:  # noqa: BLE001
                    check(False, f"{type_name} round trip ({'binary' if binary else 'text'})", e)
                    conn.rollback()
    conn.commit()


def enums():
    conn.execute("DROP TABLE IF EXISTS pg3_tickets")
    conn.execute("DROP TYPE IF EXISTS pg3_state")
    conn.execute("CREATE TYPE pg3_state AS ENUM ('new', 'open', 'done')")
    conn.execute("CREATE TABLE pg3_tickets (id int PRIMARY KEY, state pg3_state, history pg3_state[])")
    conn.commit()
    # Unregistered, an enum is text (its array too, unparsed), as psycopg
    # does with any type it has no loader for.
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO pg3_tickets VALUES (%s, %s, %s)", [(1, "open", ["new", "open"]), (2, "new", None)])
        cur.execute("SELECT id, state, history FROM pg3_tickets WHERE state >= %s ORDER BY state", ("new",))
        rows = cur.fetchall()
        check(rows == [(2, "new", None), (1, "open", "{new,open}")], "enum values in order (text)", rows)
    conn.commit()
    # psycopg's own enum support: the labels from pg_enum, Python enums both ways.
    info = psycopg.types.enum.EnumInfo.fetch(conn, "pg3_state")
    check(info is not None and info.labels == ["new", "open", "done"], "EnumInfo.fetch reads the labels", info and info.labels)
    if info is not None:
        psycopg.types.enum.register_enum(info, conn)
        state = info.enum
        for binary in (False, True):
            row = conn.execute("SELECT state, history FROM pg3_tickets WHERE id = %s", (1,), binary=binary).fetchone()
            check(row == (state.open, [state.new, state.open]),
                  f"a registered enum and its array read back as Python enums ({'binary' if binary else 'text'})", row)
        conn.execute("UPDATE pg3_tickets SET state = %s WHERE id = 2", (state.done,))
        row = conn.execute("SELECT state::text FROM pg3_tickets WHERE id = 2").fetchone()
        check(row == ("done",), "a Python enum written as the enum", row)
    try:
        conn.execute("INSERT INTO pg3_tickets VALUES (3, %s)", ("closed",))
        check(False, "an unknown label raises", "no error")
    except psycopg.errors.InvalidTextRepresentation:
        check(True, "an unknown label raises 22P02")
    conn.rollback()
    conn.execute("DROP TABLE pg3_tickets")
    conn.execute("DROP TYPE pg3_state")
    conn.commit()


def pagination():
    with conn.cursor() as cur:
        pages = []
        for page in range(3):
            cur.execute("SELECT id FROM pg3_items ORDER BY id LIMIT %s OFFSET %s", (5, page * 5))
            pages.append([r[0] for r in cur.fetchall()])
        check(pages == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]], "LIMIT %s OFFSET %s pages", pages)
    conn.commit()


def server_cursor():
    # A named cursor: DECLARE, Describe of the cursor as a portal, FETCH
    # FORWARD itersize at a time, scroll (MOVE), CLOSE.
    with conn.cursor(name="pg3_named") as cur:
        cur.itersize = 4
        cur.execute("SELECT id FROM pg3_items WHERE id <= %s ORDER BY id", (10,))
        check(cur.description is not None and cur.description[0].name == "id", "named cursor: described",
              cur.description)
        first = cur.fetchone()
        some = cur.fetchmany(3)
        rest = cur.fetchall()
        check(first == (1,) and [r[0] for r in some] == [2, 3, 4] and [r[0] for r in rest] == list(range(5, 11)),
              "named cursor: fetchone, fetchmany, fetchall", (first, some, rest))
        cur.scroll(2, mode="absolute")
        check(cur.fetchone() == (3,), "named cursor: scroll(absolute)", "")
    conn.commit()


def pipeline():
    with conn.pipeline():
        c1 = conn.execute("SELECT count(*) FROM pg3_items")
        c2 = conn.execute("SELECT %s::int * 2", (21,))
        conn.execute("INSERT INTO pg3_items (id, name) VALUES (%s, %s)", (2000, "piped"))
    check(c1.fetchone() == (49,) and c2.fetchone() == (42,), "pipeline mode: several statements, one sync", "")
    conn.commit()
    row = conn.execute("SELECT name FROM pg3_items WHERE id = 2000").fetchone()
    check(row == ("piped",), "pipeline mode: its insert committed", row)
    conn.commit()


def show_and_settings():
    row = conn.execute("SHOW transaction_isolation").fetchone()
    check(row == ("read committed",), "SHOW through the extended protocol", row)
    conn.execute("SET statement_timeout = '10s'")
    check(conn.execute("SHOW statement_timeout").fetchone() == ("10s",), "SET with a unit", "")
    check(conn.info.server_version >= 90000, "server_version", conn.info.server_version)
    check(conn.info.parameter_status("client_encoding") == "UTF8", "client_encoding", "")
    conn.commit()


def autocommit_mode():
    conn.autocommit = True
    conn.execute("INSERT INTO pg3_items (id, name) VALUES (%s, %s)", (3000, "auto"))
    other = psycopg.connect(host=HOST, port=PORT, user=USER, dbname=DB, connect_timeout=10, autocommit=True)
    row = other.execute("SELECT name FROM pg3_items WHERE id = 3000").fetchone()
    check(row == ("auto",), "autocommit: another connection sees the insert", row)
    # As a pool does: write on one connection, read at once on another.
    seen = []
    for i in range(20):
        conn.execute("INSERT INTO pg3_items (id, name) VALUES (%s, %s)", (3001 + i, "pooled"))
        seen.append(other.execute("SELECT count(*) FROM pg3_items WHERE name = 'pooled'").fetchone()[0])
    check(seen == list(range(1, 21)), "each write seen at once by the other connection", seen)
    other.close()
    conn.autocommit = False


def transactional_ddl():
    # psycopg's default mode runs DDL in a transaction block: a rollback
    # takes the table back, a commit keeps it with its rows.
    conn.execute("CREATE TABLE pg3_txn_ddl (id int PRIMARY KEY)")
    conn.execute("INSERT INTO pg3_txn_ddl VALUES (1)")
    conn.rollback()
    row = conn.execute("SELECT count(*) FROM pg_class WHERE relname = 'pg3_txn_ddl'").fetchone()
    check(row == (0,), "DDL rolled back with its transaction", row)
    conn.rollback()
    conn.execute("CREATE TABLE pg3_txn_ddl (id int PRIMARY KEY)")
    conn.execute("INSERT INTO pg3_txn_ddl VALUES (1)")
    conn.execute("ALTER TABLE pg3_txn_ddl ADD COLUMN note text DEFAULT 'n'")
    conn.commit()
    other = psycopg.connect(host=HOST, port=PORT, user=USER, dbname=DB, connect_timeout=10, autocommit=True)
    row = other.execute("SELECT id, note FROM pg3_txn_ddl").fetchone()
    check(row == (1, "n"), "DDL committed with its transaction, seen by another connection", row)
    other.close()
    conn.execute("DROP TABLE pg3_txn_ddl")
    conn.commit()


for name, fn in [("DDL", ddl), ("transactional DDL", transactional_ddl), ("DML with parameters", dml_with_parameters), ("prepared statements", prepared_reused),
                 ("failed transaction", failed_transaction_then_continue), ("COPY", copy_both_ways),
                 ("types", type_round_trips), ("enums", enums), ("pagination", pagination),
                 ("server-side cursor", server_cursor), ("pipeline", pipeline),
                 ("SHOW and settings", show_and_settings), ("autocommit", autocommit_mode)]:
    print(f"== {name}")
    step(name, fn)
    if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
        conn.rollback()

with conn.cursor() as cur:
    cur.execute("DROP TABLE IF EXISTS pg3_items")
    cur.execute("DROP TABLE IF EXISTS pg3_copy")
conn.commit()
conn.close()
finish()
