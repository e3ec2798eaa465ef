"""asyncpg (Debian's python3-asyncpg) against a server: the driver that
speaks only the extended protocol with binary values and learns every
type it meets from pg_type (its introspection query, a recursive CTE over
pg_type, pg_range and pg_attribute). DDL, parameters, a statement
prepared once and run 100 times, type round trips of the supported types
in binary, a failed transaction rolled back and the connection going on,
savepoints (nested transactions), bound LIMIT/OFFSET, a server-side cursor
read in pages, binary COPY both ways (copy_records_to_table,
copy_from_query), executemany, the error fields of a unique violation,
LISTEN/NOTIFY between two connections (add_listener), and a pool (whose
connections are reset with UNLISTEN * and CLOSE ALL). Passes against
PostgreSQL 15 unchanged.

    python3 asyncpg_test.py HOST PORT USER DBNAME
"""
import asyncio
import datetime
import decimal
import io
import uuid

import asyncpg

from checks import DB, HOST, PORT, USER, check, finish


def connect():
    return asyncpg.connect(host=HOST, port=PORT, user=USER, database=DB)


async def basics():
    print("== asyncpg")
    c = await connect()
    await c.execute("DROP TABLE IF EXISTS ap_items")
    await c.execute(
        "CREATE TABLE ap_items (id int PRIMARY KEY, name text NOT NULL UNIQUE, price numeric(10,2), qty smallint,"
        " big bigint, ratio real, score double precision, ok boolean, born date, at timestamp, seen timestamptz,"
        " tod time, span interval, ref uuid, meta jsonb, doc json, tags text[], nums int[], raw bytea, code varchar(8))")
    when = datetime.datetime(2024, 2, 29, 23, 59, 58, 123456)
    row = (1, "first", decimal.Decimal("12.50"), 7, 2**40 + 1, 0.5, 2.25, True, datetime.date(2000, 1, 1), when,
           when.replace(tzinfo=datetime.timezone.utc), datetime.time(12, 30, 1), datetime.timedelta(days=3, seconds=4),
           uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), '{"k": [1, 2]}', '{"a": 1}', ["x", None, "z"],
           [1, 2, 3], b"\x00\xffab", "code")
    await c.execute("INSERT INTO ap_items VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
                    " $16, $17, $18, $19, $20)", *row)
    got = await c.fetchrow("SELECT * FROM ap_items WHERE id = $1", 1)
    check(tuple(got) == row, "binary round trip of every column type", f"{tuple(got)} != {row}")
    check(got["meta"] == '{"k": [1, 2]}', "jsonb as text", got["meta"])
    # A statement prepared once, run 100 times.
    ins = await c.prepare("INSERT INTO ap_items (id, name, price) VALUES ($1, $2, $3)")
    for i in range(2, 102):
        await ins.fetch(i, f"item{i}", decimal.Decimal(i) / 4)
    check(await c.fetchval("SELECT count(*) FROM ap_items") == 101, "a prepared statement run 100 times")
    sel = await c.prepare("SELECT name, price FROM ap_items WHERE id = $1")
    names = [(await sel.fetchrow(i))["name"] for i in range(2, 12)]
    check(names == [f"item{i}" for i in range(2, 12)], "a prepared SELECT reused", names)
    check([a.name for a in sel.get_attributes()] == ["name", "price"] and
          [p.name for p in sel.get_parameters()] == ["int4"], "prepared statement's columns and parameter types",
          (sel.get_attributes(), sel.get_parameters()))
    # Pagination with bound LIMIT / OFFSET.
    page = await c.fetch("SELECT id FROM ap_items ORDER BY id LIMIT $1 OFFSET $2", 5, 10)
    check([r["id"] for r in page] == [11, 12, 13, 14, 15], "bound LIMIT and OFFSET", page)
    # A failed transaction rolls back; the connection goes on.
    try:
        async with c.transaction():
            await c.execute("UPDATE ap_items SET qty = 99 WHERE id = 2")
            await c.execute("INSERT INTO ap_items (id, name) VALUES (3, 'dup')")
        check(False, "a duplicate key inside a transaction", "no error")
    except asyncpg.UniqueViolationError as e:
        check(e.constraint_name == "ap_items_pkey" and e.table_name == "ap_items" and
              e.detail == "Key (id)=(3) already exists.", "a unique violation's fields",
              (e.constraint_name, e.table_name, e.detail))
    check(await c.fetchval("SELECT qty FROM ap_items WHERE id = 2") is None, "the failed transaction rolled back")
    # Nested transactions are savepoints.
    async with c.transaction():
        await c.execute("UPDATE ap_items SET qty = 1 WHERE id = 4")
        try:
            async with c.transaction():
                await c.execute("UPDATE ap_items SET qty = 2 WHERE id = 4")
                raise RuntimeError("undo the inner one")
        except RuntimeError:
            pass
    check(await c.fetchval("SELECT qty FROM ap_items WHERE id = 4") == 1, "a savepoint rolled back, the outer kept")
    # A server-side cursor, read in pages of 20 (a portal executed with a row limit).
    async with c.transaction():
        ids = [r["id"] async for r in c.cursor("SELECT id FROM ap_items ORDER BY id", prefetch=20)]
        cur = await c.cursor("SELECT id FROM ap_items WHERE id > $1 ORDER BY id", 90)
        first = await cur.fetch(3)
        await cur.forward(2)
        after = await cur.fetchrow()
    check(ids == list(range(1, 102)), "a cursor iterated in pages of 20", len(ids))
    check([r["id"] for r in first] == [91, 92, 93] and after["id"] == 96, "cursor fetch and forward",
          (first, after))
    # executemany; binary COPY in and out.
    await c.executemany("UPDATE ap_items SET qty = $2 WHERE id = $1", [(i, i % 5) for i in range(10, 20)])
    check(await c.fetchval("SELECT sum(qty) FROM ap_items WHERE id BETWEEN 10 AND 19") == 20, "executemany")
    await c.execute("DROP TABLE IF EXISTS ap_copy")
    await c.execute("CREATE TABLE ap_copy (id int, label text, amount numeric, at timestamptz, tags text[])")
    stamp = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    records = [(i, f"l{i}" if i % 7 else None, decimal.Decimal(i) / 3, stamp, ["a", str(i)]) for i in range(500)]
    await c.copy_records_to_table("ap_copy", records=records)
    back = await c.fetch("SELECT * FROM ap_copy ORDER BY id")
    check([tuple(r) for r in back] == records, "copy_records_to_table (binary COPY FROM)", len(back))
    buf = io.BytesIO()
    await c.copy_from_query("SELECT id, label FROM ap_copy WHERE id < $1 ORDER BY id", 3, output=buf, format="csv")
    check(buf.getvalue() == b"0,\n1,l1\n2,l2\n", "copy_from_query as CSV", buf.getvalue())
    buf = io.BytesIO()
    await c.copy_from_table("ap_copy", columns=["id"], output=buf, format="binary")
    check(buf.getvalue().startswith(b"PGCOPY\n\xff\r\n\x00") and len(buf.getvalue()) == 19 + 500 * 10 + 2,
          "copy_from_table in binary", len(buf.getvalue()))
    # Errors leave the connection usable; notices reach the listener.
    try:
        await c.fetchval("SELECT 1 / $1::int", 0)
        check(False, "a division by zero", "no error")
    except asyncpg.DivisionByZeroError:
        check(True, "a division by zero raises DivisionByZeroError")
    check(await c.fetchval("SELECT $1::text || 'b'", "a") == "ab", "the next query after an error")
    notices = []
    c.add_log_listener(lambda conn, msg: notices.append(msg.message))
    await c.execute("DROP TABLE IF EXISTS ap_missing")
    await asyncio.sleep(0)
    check(any("does not exist, skipping" in n for n in notices), "a NOTICE reaches the log listener", notices)
    notices.clear()
    await c.execute("SET client_min_messages = warning")
    await c.execute("DROP TABLE IF EXISTS ap_missing")
    await asyncio.sleep(0)
    check(notices == [], "no NOTICE below client_min_messages = warning", notices)
    await c.execute("RESET client_min_messages")
    # Metadata asyncpg reads by itself: the server version; pg_type introspection of a domain-free enum.
    check(c.get_server_version().major >= 13, "the server version parsed", c.get_server_version())
    await c.execute("DROP TABLE IF EXISTS ap_moods")
    await c.execute("DROP TYPE IF EXISTS ap_mood")
    await c.execute("CREATE TYPE ap_mood AS ENUM ('sad', 'ok', 'happy')")
    await c.execute("CREATE TABLE ap_moods (id int PRIMARY KEY, m ap_mood, ms ap_mood[])")
    await c.execute("INSERT INTO ap_moods VALUES ($1, $2, $3)", 1, "happy", ["ok", "sad"])
    got = await c.fetchrow("SELECT m, ms FROM ap_moods WHERE m > $1", "sad")
    check(got is not None and got["m"] == "happy" and got["ms"] == ["ok", "sad"], "an enum and its array, introspected",
          got)
    await c.close()


async def notifications():
    print("== LISTEN / NOTIFY")
    a, b = await connect(), await connect()
    got = []
    done = asyncio.Event()

    def on_notify(conn, pid, channel, payload):
        got.append((channel, payload, pid == b.get_server_pid()))
        if payload == "last":
            done.set()

    await a.add_listener("ap_jobs", on_notify)
    await b.execute("NOTIFY ap_jobs, 'one'")
    async with b.transaction():
        await b.execute("SELECT pg_notify('ap_jobs', 'two')")
        await b.execute("SELECT pg_notify('ap_jobs', 'two')")  # the same again: sent once
        await b.execute("NOTIFY ap_other, 'not listened to'")
    try:
        async with b.transaction():
            await b.execute("NOTIFY ap_jobs, 'rolled back'")
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    await b.execute("NOTIFY ap_jobs, 'last'")
    await asyncio.wait_for(done.wait(), 10)  # delivered to the idle listener without a query of its own
    check(got == [("ap_jobs", "one", True), ("ap_jobs", "two", True), ("ap_jobs", "last", True)],
          "notifications reach an idle listener at commit, once each, not those rolled back", got)
    await a.remove_listener("ap_jobs", on_notify)
    await b.execute("NOTIFY ap_jobs, 'after unlisten'")
    check(await a.fetchval("SELECT 1") == 1 and len(got) == 3, "UNLISTEN stops them", got)
    for conn in (a, b):
        await conn.close()


async def pool():
    print("== a pool")
    async with asyncpg.create_pool(host=HOST, port=PORT, user=USER, database=DB, min_size=2, max_size=4) as p:
        results = await asyncio.gather(*(p.fetchval("SELECT $1::int * 2", i) for i in range(20)))
        check(results == [i * 2 for i in range(20)], "20 queries over a pool of 4", results)
        async with p.acquire() as c:
            async with c.transaction():
                await c.execute("UPDATE ap_items SET qty = 42 WHERE id = 50")
        check(await p.fetchval("SELECT qty FROM ap_items WHERE id = 50") == 42, "a transaction on a pooled connection")


async def main():
    for part in (basics, notifications, pool):
        try:
            await part()
        except Exception as e:  # noqa: BLE001 - a part that raises is a failed check
            check(False, f"{part.__name__} ran to its end", f"{type(e).__name__}: {e}")


asyncio.run(main())
finish()
