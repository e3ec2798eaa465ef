"""SQLAlchemy 1.4 (Debian's python3-sqlalchemy, over psycopg2) against a
server, as an application uses it: metadata.create_all, Core inserts and
selects with parameters, executemany, bound LIMIT/OFFSET, the ORM session
with a nested transaction (SAVEPOINT) rolled back, a failed flush rolled
back and the session used again, reflection of every table and view with
inspect() (columns, primary keys, indexes, foreign and unique keys, view
definitions) and MetaData.reflect.

Passes against PostgreSQL 15 as it is.
    python3 tests/clients/sqlalchemy_test.py HOST PORT USER DBNAME
"""
import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import HOST, PORT, USER, DB, check, finish, step  # noqa: E402

import sqlalchemy as sa  # noqa: E402
from sqlalchemy import orm  # noqa: E402

engine = sa.create_engine(f"postgresql+psycopg2://{USER}@{HOST}:{PORT}/{DB}", future=True)
metadata = sa.MetaData()
items = sa.Table(
    "sa_items", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("price", sa.Numeric(10, 2)),
    sa.Column("added", sa.Date),
    sa.Index("sa_items_name_idx", "name"),
)
orders = sa.Table(
    "sa_orders", metadata,
    sa.Column("order_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("item_id", sa.Integer, sa.ForeignKey("sa_items.id"), nullable=False),
    sa.Column("qty", sa.SmallInteger),
    sa.Column("note", sa.Text),
)

Base = orm.declarative_base()


class Item(Base):
    __tablename__ = "sa_orm_items"
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    name = sa.Column(sa.String, nullable=False)
    qty = sa.Column(sa.Integer)


class Note(Base):
    # An autoincrementing key: SQLAlchemy declares it SERIAL and reads the
    # new keys back with INSERT ... RETURNING.
    __tablename__ = "sa_notes"
    id = sa.Column(sa.Integer, primary_key=True)
    body = sa.Column(sa.Text)


class Code(Base):
    # UNIQUE and CHECK constraints, emitted by create_all.
    __tablename__ = "sa_codes"
    __table_args__ = (sa.CheckConstraint("qty >= 0", name="sa_codes_qty_check"),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    code = sa.Column(sa.String(20), unique=True, nullable=False)
    qty = sa.Column(sa.Integer)



def create_all():
    with engine.begin() as conn:
        conn.execute(sa.text("DROP VIEW IF EXISTS sa_view"))
        for t in ("sa_codes", "sa_notes", "sa_orm_items", "sa_orders", "sa_items"):
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {t}"))
    metadata.create_all(engine)
    Base.metadata.create_all(engine)
    check(sa.inspect(engine).has_table("sa_items"), "create_all, has_table")
    # create_all again checks each table and creates none.
    metadata.create_all(engine)
    check(True, "create_all again (checkfirst)")
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE VIEW sa_view AS SELECT id, name FROM sa_items WHERE price > 1"))


def core():
    with engine.begin() as conn:
        conn.execute(items.insert(), [
            {"id": i, "name": f"item{i}", "price": decimal.Decimal(i) / 4, "added": None} for i in range(1, 21)
        ])
        conn.execute(orders.insert().values(order_id=1, item_id=3, qty=2, note="first"))
    with engine.connect() as conn:
        n = conn.execute(sa.select(sa.func.count()).select_from(items)).scalar_one()
        check(n == 20, "executemany insert", n)
        row = conn.execute(sa.select(items.c.name, items.c.price).where(items.c.id == sa.bindparam("k")),
                           {"k": 8}).one()
        check(row == ("item8", decimal.Decimal("2.00")), "select with a bound parameter", row)
        page = conn.execute(sa.select(items.c.id).order_by(items.c.id).limit(5).offset(10)).scalars().all()
        check(page == [11, 12, 13, 14, 15], "limit/offset page", page)
        joined = conn.execute(sa.select(items.c.name, orders.c.qty).join_from(orders, items,
                                                                           orders.c.item_id == items.c.id)).all()
        check(joined == [("item3", 2)], "join", joined)
        names = conn.execute(sa.select(items.c.name).where(items.c.id.in_([1, 2, 99]))
                             .order_by(items.c.name)).scalars().all()
        check(names == ["item1", "item2"], "IN with a list (expanding bind parameter)", names)
        view_rows = conn.execute(sa.text("SELECT count(*) FROM sa_view")).scalar_one()
        check(view_rows == 16, "select from a view", view_rows)
    with engine.begin() as conn:
        r = conn.execute(items.update().where(items.c.id <= 4).values(price=items.c.price * 2))
        check(r.rowcount == 4, "update rowcount", r.rowcount)
        r = conn.execute(items.delete().where(items.c.id == 20))
        check(r.rowcount == 1, "delete rowcount", r.rowcount)
        ret = conn.execute(items.insert().values(id=21, name="x").returning(items.c.id, items.c.name)).one()
        check(ret == (21, "x"), "insert ... returning", ret)


def orm_session():
    Session = orm.sessionmaker(engine, future=True)
    with Session() as s:
        s.add_all([Item(id=i, name=f"o{i}", qty=i) for i in range(1, 6)])
        s.commit()
        check(s.query(Item).count() == 5, "ORM add_all and commit")
        # A nested transaction (SAVEPOINT) rolled back; the outer commits.
        s.add(Item(id=6, name="kept", qty=6))
        nested = s.begin_nested()
        s.add(Item(id=7, name="dropped", qty=7))
        s.flush()
        nested.rollback()
        s.commit()
        ids = [i.id for i in s.query(Item).order_by(Item.id)]
        check(ids == [1, 2, 3, 4, 5, 6], "begin_nested rolled back, outer committed", ids)
        # A failed flush (duplicate key) inside a savepoint: the outer
        # transaction goes on.
        s.add(Item(id=8, name="eight", qty=8))
        try:
            with s.begin_nested():
                s.add(Item(id=1, name="dup", qty=0))
            check(False, "duplicate key in a nested transaction fails", "no error")
        except sa.exc.IntegrityError:
            check(True, "duplicate key in a nested transaction fails with IntegrityError")
        s.commit()
        check(s.get(Item, 8) is not None, "the outer transaction commits after the failed savepoint")
        # A failed flush outside savepoints: rollback, then the session works.
        s.add(Item(id=2, name="dup", qty=0))
        try:
            s.commit()
            check(False, "duplicate key fails the commit", "no error")
        except sa.exc.IntegrityError:
            s.rollback()
        item = s.get(Item, 3)
        item.qty = 300
        s.commit()
        check(s.query(Item.qty).filter(Item.id == 3).scalar() == 300, "the session works after a rollback")
        rows = s.query(Item).filter(Item.qty > 2).order_by(Item.id.desc()).limit(2).offset(1).all()
        check([r.id for r in rows] == [6, 5], "ORM query with filter, order, limit, offset", [r.id for r in rows])


def reflection():
    insp = sa.inspect(engine)
    tables = sorted(t for t in insp.get_table_names() if t.startswith("sa_"))
    check(tables == ["sa_codes", "sa_items", "sa_notes", "sa_orders", "sa_orm_items"], "get_table_names", tables)
    views = [v for v in insp.get_view_names() if v.startswith("sa_")]
    check(views == ["sa_view"], "get_view_names", views)
    definition = insp.get_view_definition("sa_view")
    check(definition is not None and "sa_items" in definition, "get_view_definition", definition)
    cols = [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns("sa_items")]
    check(cols == [("id", "INTEGER", False), ("name", "VARCHAR(40)", False), ("price", "NUMERIC(10, 2)", True),
                   ("added", "DATE", True)], "get_columns", cols)
    pk = insp.get_pk_constraint("sa_items")
    check(pk["constrained_columns"] == ["id"] and pk["name"] == "sa_items_pkey", "get_pk_constraint", pk)
    idx = [(i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes("sa_items")]
    check(idx == [("sa_items_name_idx", ["name"], False)], "get_indexes", idx)
    fks = [(f["name"], f["constrained_columns"], f["referred_table"], f["referred_columns"])
           for f in insp.get_foreign_keys("sa_orders")]
    check(fks == [("sa_orders_item_id_fkey", ["item_id"], "sa_items", ["id"])], "get_foreign_keys", fks)
    check(insp.get_unique_constraints("sa_items") == [], "get_unique_constraints (none)")
    check(insp.get_check_constraints("sa_items") == [], "get_check_constraints (none)")
    uniques = [(u["name"], u["column_names"]) for u in insp.get_unique_constraints("sa_codes")]
    check(uniques == [("sa_codes_code_key", ["code"])], "get_unique_constraints", uniques)
    checks = [(c["name"], c["sqltext"]) for c in insp.get_check_constraints("sa_codes")]
    check(checks == [("sa_codes_qty_check", "qty >= 0")], "get_check_constraints", checks)
    idx = [(i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes("sa_codes")]
    check(idx == [("sa_codes_code_key", ["code"], True)], "get_indexes with a unique constraint's", idx)
    check("public" in insp.get_schema_names(), "get_schema_names", insp.get_schema_names())
    view_cols = [c["name"] for c in insp.get_columns("sa_view")]
    check(view_cols == ["id", "name"], "get_columns of a view", view_cols)
    reflected = sa.MetaData()
    reflected.reflect(engine, only=["sa_items", "sa_orders", "sa_orm_items"])
    t = reflected.tables["sa_orders"]
    check([c.name for c in t.columns] == ["order_id", "item_id", "qty", "note"] and
          [c.name for c in t.primary_key.columns] == ["order_id"], "MetaData.reflect", list(t.columns.keys()))
    # A reflected table is usable for queries.
    with engine.connect() as conn:
        n = conn.execute(sa.select(sa.func.count()).select_from(reflected.tables["sa_items"])).scalar_one()
        check(n == 20, "select through a reflected table", n)


def cleanup():
    with engine.begin() as conn:
        conn.execute(sa.text("DROP VIEW sa_view"))
    metadata.drop_all(engine)
    Base.metadata.drop_all(engine)
    check(not sa.inspect(engine).has_table("sa_items"), "drop_all")


def serial_keys():
    Session = orm.sessionmaker(engine, future=True)
    with Session() as s:
        notes = [Note(body="a"), Note(body="b")]
        s.add_all(notes)
        s.commit()
        ids = [n.id for n in notes]
        check(ids == [1, 2], "SERIAL keys assigned and read back", ids)
    col = sa.inspect(engine).get_columns("sa_notes")[0]
    check(col["autoincrement"] is True and "nextval" in str(col["default"]), "reflected as autoincrement",
          (col["autoincrement"], col["default"]))


def constraints():
    Session = orm.sessionmaker(engine, future=True)
    with Session() as s:
        s.add_all([Code(id=1, code="a", qty=1), Code(id=2, code="b", qty=2)])
        s.commit()
    for row, constraint in [(Code(id=3, code="a", qty=1), "sa_codes_code_key"),
                            (Code(id=4, code="c", qty=-1), "sa_codes_qty_check")]:
        with Session() as s:
            s.add(row)
            try:
                s.commit()
                check(False, f"IntegrityError for {constraint}", "committed")
            except sa.exc.IntegrityError as e:
                check(e.orig.diag.constraint_name == constraint, f"IntegrityError for {constraint}",
                      e.orig.diag.constraint_name)
    with engine.connect() as conn:
        n = conn.execute(sa.text("SELECT count(*) FROM sa_codes")).scalar_one()
        check(n == 2, "the refused rows were not written", n)


def enums():
    import enum

    class Mood(enum.Enum):
        sad = 1
        ok = 2
        happy = 3

    md = sa.MetaData()
    people = sa.Table("sa_people", md, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                      sa.Column("mood", sa.Enum(Mood, name="sa_mood")))
    md.create_all(engine)  # CREATE TYPE sa_mood AS ENUM (...), after checking pg_type
    md.create_all(engine)  # again: the type and table are found and left
    with engine.begin() as conn:
        conn.execute(people.insert(), [{"id": 1, "mood": Mood.happy}, {"id": 2, "mood": Mood.sad}, {"id": 3, "mood": None}])
        rows = conn.execute(sa.select(people.c.id, people.c.mood).where(people.c.mood > Mood.sad)
                            .order_by(people.c.mood)).all()
        check(rows == [(1, Mood.happy)], "an Enum column written and compared", rows)
    enums = sa.inspect(engine).get_enums()
    mine = [(e["name"], e["labels"]) for e in enums if e["name"] == "sa_mood"]
    check(mine == [("sa_mood", ["sad", "ok", "happy"])], "inspect().get_enums()", mine)
    col = [c for c in sa.inspect(engine).get_columns("sa_people") if c["name"] == "mood"][0]
    check(isinstance(col["type"], sa.Enum) and list(col["type"].enums) == ["sad", "ok", "happy"],
          "an enum column reflected as Enum", col["type"])
    md.drop_all(engine)  # DROP TABLE, then DROP TYPE
    check(not [e for e in sa.inspect(engine).get_enums() if e["name"] == "sa_mood"], "drop_all drops the type")


def computed_and_expression_index():
    # Computed() columns and a unique Index on an expression, made by
    # create_all in one transaction (CREATE TABLE, then CREATE UNIQUE INDEX).
    md = sa.MetaData()
    users = sa.Table("sa_users", md, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("email", sa.Text), sa.Column("email_lower", sa.Text, sa.Computed("lower(email)")))
    sa.Index("sa_users_email_lower", sa.func.lower(users.c.email), unique=True)
    md.drop_all(engine)
    md.create_all(engine)
    computed = {c["name"]: c.get("computed") for c in sa.inspect(engine).get_columns("sa_users")}
    check(computed["email_lower"] == {"sqltext": "lower(email)", "persisted": True} and computed["email"] is None,
          "a Computed column reflected", computed)
    with engine.begin() as conn:
        conn.execute(users.insert().values(id=1, email="Ann@X.com"))
        row = conn.execute(sa.select(users.c.email_lower)).scalar_one()
        check(row == "ann@x.com", "a Computed column's value", row)
    try:
        with engine.begin() as conn:
            conn.execute(users.insert().values(id=2, email="ANN@x.COM"))
        check(False, "a duplicate of the expression index refused", "committed")
    except sa.exc.IntegrityError as e:
        check(e.orig.diag.constraint_name == "sa_users_email_lower", "a duplicate of the expression index refused",
              e.orig.diag.constraint_name)
    md.drop_all(engine)


for name, fn in [("create_all", create_all), ("enums", enums), ("core", core), ("ORM session", orm_session), ("serial keys", serial_keys),
                 ("constraints", constraints), ("Computed and an expression index", computed_and_expression_index),
                 ("reflection", reflection), ("cleanup", cleanup)]:
    step(name, fn)
engine.dispose()
finish()
