#!/usr/bin/python3
"""Django 3.2 (Debian's python3-django) against a server, as a project uses
it: `migrate` of contrib's auth, contenttypes and sessions apps and of an
app of its own (models with a ForeignKey, a unique index on an expression
made by RunSQL, a db_index, then migrations that lengthen CharFields,
one of them indexed, add fields and make an indexed IntegerField a
BigIntegerField), then the ORM: users and groups, many-to-many,
select_related, annotations with Count (GROUP BY the primary key),
icontains, a failed atomic block, bulk_create, update, dates, sessions.

Usage: django_test.py HOST PORT USER DBNAME

Django sends its migrations in transactions (CREATE TABLE then CREATE
INDEX in one block), ALTER COLUMN ... TYPE varchar(n) to lengthen fields,
SET CONSTRAINTS ALL IMMEDIATE, deferrable foreign keys, and reads the
catalogs for its introspection. Every check passes against PostgreSQL 15
with the same script; the exit status is the number of failed checks.
"""
import datetime
import os
import sys
import tempfile

from checks import DB, HOST, PORT, USER, check, finish, step

# A project of its own: settings and an app with two migrations, in a
# temporary directory.
project = tempfile.mkdtemp(prefix="freshet-django-")
app = os.path.join(project, "shop")
os.makedirs(os.path.join(app, "migrations"))
for path in ("shop/__init__.py", "shop/migrations/__init__.py"):
    open(os.path.join(project, path), "w").close()
with open(os.path.join(app, "models.py"), "w") as f:
    f.write('''
from django.db import models


class Category(models.Model):
    name = models.CharField(max_length=40)


class Product(models.Model):
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="products")
    title = models.CharField(max_length=200, db_index=True)
    price = models.DecimalField(max_digits=8, decimal_places=2)
    added = models.DateTimeField(auto_now_add=True)
    note = models.TextField(default="", blank=True)
    stock = models.BigIntegerField(default=0, db_index=True)
''')
with open(os.path.join(app, "migrations", "0001_initial.py"), "w") as f:
    f.write('''
from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(name="Category", fields=[
            ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ("name", models.CharField(max_length=20)),
        ]),
        # (Django 3.2 has no expression constraints: RunSQL, as projects write it.)
        migrations.RunSQL("CREATE UNIQUE INDEX shop_category_name_ci ON shop_category (lower(name))",
                          "DROP INDEX shop_category_name_ci"),
        migrations.CreateModel(name="Product", fields=[
            ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ("title", models.CharField(db_index=True, max_length=100)),
            ("price", models.DecimalField(decimal_places=2, max_digits=8)),
            ("added", models.DateTimeField(auto_now_add=True)),
            ("category", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="products",
                                           to="shop.category")),
        ]),
    ]
''')
with open(os.path.join(app, "migrations", "0002_longer.py"), "w") as f:
    f.write('''
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_initial")]
    operations = [
        migrations.AlterField(model_name="category", name="name", field=models.CharField(max_length=40)),
        migrations.AlterField(model_name="product", name="title",
                              field=models.CharField(db_index=True, max_length=200)),
        migrations.AddField(model_name="product", name="note", field=models.TextField(blank=True, default="")),
        migrations.AddField(model_name="product", name="stock", field=models.IntegerField(default=0, db_index=True)),
    ]
''')
with open(os.path.join(app, "migrations", "0003_bigger.py"), "w") as f:
    f.write('''
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_longer")]
    operations = [
        migrations.AlterField(model_name="product", name="stock", field=models.BigIntegerField(default=0, db_index=True)),
    ]
''')
sys.path.insert(0, project)

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(
    SECRET_KEY="test",
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions", "shop"],
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": DB, "USER": USER, "HOST": HOST,
                           "PORT": str(PORT)}},
    USE_TZ=True,
    DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
)
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.db.models import Count, Sum  # noqa: E402



def clean():
    with connection.cursor() as cur:
        for table in ["shop_product", "shop_category", "auth_user_user_permissions", "auth_user_groups",
                      "auth_group_permissions", "auth_permission", "auth_user", "auth_group", "django_session",
                      "django_content_type", "django_migrations"]:
            cur.execute(f'DROP TABLE IF EXISTS "{table}" CASCADE')


def migrate():
    call_command("migrate", verbosity=0)
    tables = set(connection.introspection.table_names())
    check({"auth_user", "django_session", "shop_product", "django_migrations"} <= tables, "migrate made the tables",
          sorted(tables))
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM django_migrations WHERE app = 'shop'")
        check(cur.fetchone()[0] == 3, "the app's three migrations recorded", "")
        cur.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = 'shop_product'::regclass AND attname = 'title'")
        check(cur.fetchone()[0] == "character varying(200)", "AlterField lengthened the column", "")
        cur.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = 'shop_product'::regclass AND attname = 'stock'")
        check(cur.fetchone()[0] == "bigint", "AlterField made an indexed column bigint", "")
    indexes = connection.introspection.get_constraints(connection.cursor(), "shop_product")
    check(any(c["index"] and c["columns"] == ["title"] for c in indexes.values()), "db_index reflected",
          sorted(indexes))
    # A second migrate finds nothing to do.
    call_command("migrate", verbosity=0)
    check(True, "migrate again", "")


def users_and_groups():
    from django.contrib.auth.models import Group, Permission, User
    u = User.objects.create_user("ann", "ann@example.com", "secret")
    check(User.objects.filter(username__iexact="ANN").exists(), "create_user, iexact", "")
    check(User.objects.get(pk=u.pk).check_password("secret"), "the password hash round-trips", "")
    g = Group.objects.create(name="staff")
    u.groups.add(g)
    perms = list(Permission.objects.filter(content_type__app_label="shop").order_by("codename")[:2])
    check(len(perms) == 2, "permissions made by migrate", len(perms))
    u.user_permissions.add(*perms)
    check(User.objects.get(pk=u.pk).has_perm(f"shop.{perms[0].codename}"), "has_perm through the join tables", "")
    rows = list(Group.objects.annotate(n=Count("user")).values("name", "n"))
    check(rows == [{"name": "staff", "n": 1}], "annotate(Count): GROUP BY the primary key", rows)
    try:
        with transaction.atomic():
            User.objects.create_user("ann", "other@example.com", "x")
        check(False, "a duplicate username refused", "committed")
    except IntegrityError:
        check(User.objects.filter(username="ann").count() == 1, "a duplicate username refused, atomic rolled back")


def shop():
    from shop.models import Category, Product
    tools = Category.objects.create(name="Tools and hardware for the workshop")
    toys = Category.objects.create(name="Toys")
    try:
        with transaction.atomic():
            Category.objects.create(name="TOYS")
        check(False, "the unique constraint on Lower(name)", "committed")
    except IntegrityError:
        check(True, "the unique constraint on Lower(name)")
    Product.objects.bulk_create([Product(category=tools if i % 2 else toys, title=f"item {i}", price=i)
                                 for i in range(1, 11)])
    check(Product.objects.count() == 10, "bulk_create", Product.objects.count())
    rows = list(Category.objects.annotate(n=Count("products"), total=Sum("products__price"))
                .order_by("name").values_list("name", "n", "total"))
    check([(r[0], r[1], int(r[2])) for r in rows] == [(tools.name, 5, 25), ("Toys", 5, 30)],
          "annotate Count and Sum over the foreign key", rows)
    first = Product.objects.select_related("category").order_by("id").first()
    check(first.category.name == tools.name and first.note == "", "select_related, the added field's default", "")
    check(Product.objects.filter(title__icontains="ITEM 1").count() == 2, "icontains", "")
    Product.objects.filter(pk=first.pk).update(stock=2 ** 40)
    check(Product.objects.filter(stock__gt=2 ** 39).count() == 1, "a bigint value in the retyped column", "")
    check(Product.objects.filter(category__name__startswith="Toy").update(note="kids") == 5, "update across the join")
    page = list(Product.objects.order_by("-price").values_list("price", flat=True)[2:5])
    check([int(p) for p in page] == [8, 7, 6], "a page (LIMIT/OFFSET)", page)
    years = list(Product.objects.dates("added", "year"))
    check(years == [datetime.date.today().replace(month=1, day=1)] or len(years) == 1, "dates()", years)
    toys.delete()
    check(Product.objects.count() == 5, "delete cascades through the ORM", Product.objects.count())


def sessions():
    from django.contrib.sessions.backends.db import SessionStore
    s = SessionStore()
    s["cart"] = [1, 2]
    s.create()
    check(SessionStore(session_key=s.session_key)["cart"] == [1, 2], "a database session saved and loaded", "")


clean()
for name, fn in [("migrate", migrate), ("users and groups", users_and_groups), ("shop", shop), ("sessions", sessions)]:
    step(name, fn)
clean()
finish()
