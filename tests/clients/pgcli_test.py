"""pgcli (Debian's pgcli, over psycopg 3) against a server: what it asks
the catalogs on connect to complete names (schemas, tables, views, their
columns, functions, data types, foreign keys, the search path, keyword
casing) and its backslash commands (pgspecial's \\d family), through its
own PGExecute as the interactive shell runs them. Each must succeed and
find the objects this script made. Passes against PostgreSQL 15 unchanged.

    python3 pgcli_test.py HOST PORT USER DBNAME
"""
from pgcli.pgexecute import PGExecute
from pgspecial.main import PGSpecial

from checks import DB, HOST, PORT, USER, check, finish, step

executor = PGExecute(DB, USER, None, HOST, PORT, None)
special = PGSpecial()


def run(sql):
    """The results of one pgcli command: (title, rows, headers, status) each."""
    out = []
    for title, cur, headers, status, *_ in executor.run(sql, pgspecial=special):
        out.append((title, list(cur) if cur is not None else [], headers, status))
    return out


def setup():
    for sql in ["DROP VIEW IF EXISTS pc_orders_view", "DROP TABLE IF EXISTS pc_orders", "DROP TABLE IF EXISTS pc_customers",
                "DROP SEQUENCE IF EXISTS pc_seq",
                "CREATE TABLE pc_customers (id serial PRIMARY KEY, name text NOT NULL, email varchar(80) UNIQUE)",
                "CREATE TABLE pc_orders (id bigint PRIMARY KEY, customer_id int REFERENCES pc_customers (id),"
                " amount numeric(10, 2), placed timestamptz DEFAULT now())",
                "CREATE INDEX pc_orders_placed ON pc_orders (placed)",
                "CREATE VIEW pc_orders_view AS SELECT o.id, c.name, o.amount FROM pc_orders o JOIN pc_customers c"
                " ON c.id = o.customer_id",
                "CREATE SEQUENCE pc_seq"]:
        run(sql)
    check(True, "setup")


def completion_metadata():
    names = [t for t in executor.schemata()]
    check("public" in names, "schemata", names)
    tables = list(executor.tables())
    check(("public", "pc_orders") in tables and ("public", "pc_customers") in tables, "tables", tables[:5])
    views = list(executor.views())
    check(("public", "pc_orders_view") in views, "views", views[:5])
    columns = [c[:3] for c in executor.table_columns()]
    check(("public", "pc_orders", "customer_id") in columns, "table columns", columns[:5])
    view_columns = [c[:3] for c in executor.view_columns()]
    check(("public", "pc_orders_view", "amount") in view_columns, "view columns", view_columns[:5])
    check(DB in list(executor.databases()), "databases")
    functions = list(executor.functions())
    check(len(functions) >= 0, "functions (the catalog query runs)", len(functions))
    check(len(list(executor.datatypes())) >= 0, "data types (the catalog query runs)")
    fks = [(f.childtable, f.childcolumn, f.parenttable, f.parentcolumn) for f in executor.foreignkeys()]
    check(("pc_orders", "customer_id", "pc_customers", "id") in fks, "foreign keys", fks)
    check("public" in executor.search_path(), "search path", executor.search_path())
    check(len(list(executor.casing())) >= 0, "keyword casing (regexp_split_to_table over pg_get_keywords)")


def backslash_commands():
    def find(sql, expect):
        results = run(sql)
        text = repr(results)
        check(expect in text, f"{sql} finds {expect}", text[:300])

    find("\\d", "pc_orders")
    find("\\dt", "pc_customers")
    find("\\dv", "pc_orders_view")
    find("\\di", "pc_orders_placed")
    find("\\ds", "pc_seq")
    find("\\dn", "public")
    find("\\l", DB)
    find("\\du", USER)
    find("\\df", "")
    find("\\dT", "")
    find("\\d pc_orders", "customer_id")
    find("\\d+ pc_customers", "email")
    find("\\d pc_orders_view", "amount")
    # Ordinary statements through the same path.
    run("INSERT INTO pc_customers (name, email) VALUES ('ann', 'ann@x.org')")
    find("SELECT name, email FROM pc_customers", "ann@x.org")


step("setup", setup)
step("completion metadata", completion_metadata)
step("backslash commands", backslash_commands)
finish()
