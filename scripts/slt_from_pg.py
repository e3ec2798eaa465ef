# Writes sqllogictest records for the given statements with PostgreSQL's
# answers, so expected results come from PostgreSQL rather than by hand:
#   /usr/bin/python3 scripts/slt_from_pg.py PORT < statements > tests/slt/x.slt
# One statement per line; lines starting with '#' are copied as comments;
# an 'ok:' prefix runs a statement that returns nothing. Values are printed
# as slt_runner does (NULL, (empty)); errors become `statement error`.
import sys, re, psycopg
from psycopg.types.string import TextLoader
port = sys.argv[1]
conn = psycopg.connect(f"host=127.0.0.1 port={port} user=root dbname=dev", autocommit=True)
out = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line.strip():
        continue
    if line.startswith("#"):
        out.append(line); continue
    if line.startswith("ok:"):
        sql = line[3:].strip()
        conn.execute(sql)
        out.append(f"statement ok\n{sql}\n"); continue
    sql = line
    try:
        # The result's types are learnt by running the statement once:
        # DML ... RETURNING in a transaction rolled back (it must change
        # the data once), anything else as it is.
        if re.match(r"(?is)\s*(insert|update|delete|with)\b.*\breturning\b", sql):
            with conn.transaction(force_rollback=True):
                description = conn.execute(sql).description
        else:
            description = conn.execute(sql).description
        if description is None:
            out.append(f"statement ok\n{sql}\n"); continue
        for col in description:
            conn.adapters.register_loader(col.type_code, TextLoader)
        cur = conn.execute(sql)
        rows = cur.fetchall()
        types = "T" * len(cur.description)
        body = []
        for r in rows:
            body.append(" ".join("NULL" if v is None else ("(empty)" if v == "" else v) for v in r))
        out.append(f"query {types}\n{sql}\n----\n" + "\n".join(body) + "\n")
    except psycopg.Error as e:
        msg = str(e).split("\n")[0]
        esc = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", msg)
        out.append(f"statement error {esc}\n{sql}\n")
print("\n".join(out))
