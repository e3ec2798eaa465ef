#!/usr/bin/python3
"""Alembic 1.8 (Debian's python3-alembic) against a server, as a
SQLAlchemy project's migrations use it: operations in a transaction
(create_table, add_column, alter_column type/nullable/name, create_index,
unique and foreign key constraints, rename_table, drop_column,
bulk_insert), then autogenerate's comparison of the database with the
models, which must find nothing to do (it reflects every table, column,
index, unique constraint and foreign key).

Usage: alembic_test.py HOST PORT USER DBNAME

Every check passes against PostgreSQL 15 with the same script; the exit
status is the number of failed checks.
"""
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations

from checks import DB, HOST, PORT, USER, check, finish, step

engine = sa.create_engine(f"postgresql+psycopg2://{USER}@{HOST}:{PORT}/{DB}", future=True)



def clean():
    with engine.begin() as conn:
        for table in ["al_orders", "al_customers", "al_people", "al_items"]:
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table} CASCADE"))


# What the migrations below leave, as the project's models say it.
models = sa.MetaData()
sa.Table("al_customers", models,
         sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("full_name", sa.String(200), nullable=False),
         sa.Column("email", sa.String(120), nullable=True),
         sa.Column("tier", sa.Integer, nullable=False, server_default="1"),
         sa.UniqueConstraint("email", name="uq_al_customers_email"),
         sa.Index("ix_al_customers_full_name", "full_name"))
sa.Table("al_orders", models,
         sa.Column("id", sa.BigInteger, primary_key=True),
         sa.Column("customer_id", sa.Integer, sa.ForeignKey("al_customers.id", name="fk_al_orders_customer"),
                   nullable=False),
         sa.Column("total", sa.Numeric(10, 2)),
         sa.Index("ix_al_orders_customer_id", "customer_id"))


def migrations():
    with engine.begin() as conn:
        op = Operations(MigrationContext.configure(conn))
        # Revision 1.
        op.create_table("al_people",
                        sa.Column("id", sa.Integer, primary_key=True),
                        sa.Column("name", sa.String(50), nullable=False),
                        sa.Column("email", sa.String(120)))
        op.create_table("al_orders",
                        sa.Column("id", sa.Integer, primary_key=True),
                        sa.Column("customer_id", sa.Integer, nullable=False),
                        sa.Column("total", sa.Numeric(10, 2)))
        op.create_index("ix_al_orders_customer_id", "al_orders", ["customer_id"])
        op.bulk_insert(sa.table("al_people", sa.column("id", sa.Integer), sa.column("name", sa.String)),
                       [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}])
    with engine.begin() as conn:
        op = Operations(MigrationContext.configure(conn))
        # Revision 2: renames, a longer column, a new NOT NULL column with a
        # server default, constraints and indexes.
        op.rename_table("al_people", "al_customers")
        op.alter_column("al_customers", "name", new_column_name="full_name", existing_type=sa.String(50))
        op.alter_column("al_customers", "full_name", type_=sa.String(200), existing_type=sa.String(50),
                        existing_nullable=False)
        op.add_column("al_customers", sa.Column("tier", sa.Integer, nullable=False, server_default="1"))
        op.add_column("al_customers", sa.Column("legacy", sa.Text))
        op.drop_column("al_customers", "legacy")
        op.create_unique_constraint("uq_al_customers_email", "al_customers", ["email"])
        op.create_index("ix_al_customers_full_name", "al_customers", ["full_name"])
        op.create_foreign_key("fk_al_orders_customer", "al_orders", "al_customers", ["customer_id"], ["id"])
        # An id that outgrows int, under its index's table.
        op.alter_column("al_orders", "id", type_=sa.BigInteger, existing_type=sa.Integer)
        op.execute("INSERT INTO al_orders (id, customer_id, total) VALUES (5000000000, 1, 9.50)")
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT id, full_name, tier FROM al_customers ORDER BY id")).all()
        check(rows == [(1, "Ann", 1), (2, "Bob", 1)], "renamed table and column keep the rows, default filled", rows)
        n = conn.execute(sa.text("SELECT count(*) FROM al_orders WHERE customer_id = 1")).scalar_one()
        check(n == 1, "a bigint id inserted, found by the indexed column", n)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO al_customers (id, full_name, email) VALUES (3, 'C', 'c@x'), "
                                 "(4, 'D', 'c@x')"))
        check(False, "the unique constraint added by the migration", "committed")
    except sa.exc.IntegrityError:
        check(True, "the unique constraint added by the migration")


def autogenerate():
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": False,
                                                     "include_name": lambda name, type_, parent: (
                                                         type_ != "table" or name.startswith("al_"))})
        diff = compare_metadata(ctx, models)
    check(diff == [], "autogenerate finds the database as the models say", diff)


def failed_migration():
    # A migration that fails half-way leaves nothing behind (transactional DDL).
    try:
        with engine.begin() as conn:
            op = Operations(MigrationContext.configure(conn))
            op.create_table("al_items", sa.Column("id", sa.Integer, primary_key=True))
            op.add_column("al_customers", sa.Column("extra", sa.Integer))
            op.execute("SELECT 1/0")
        check(False, "a failing migration raises", "committed")
    except sa.exc.DBAPIError:
        pass
    insp = sa.inspect(engine)
    check(not insp.has_table("al_items") and "extra" not in [c["name"] for c in insp.get_columns("al_customers")],
          "a failed migration is rolled back whole", "")


clean()
for name, fn in [("migrations", migrations), ("autogenerate", autogenerate), ("failed migration", failed_migration)]:
    step(name, fn)
clean()
engine.dispose()
finish()
