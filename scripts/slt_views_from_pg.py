# Writes an slt file that checks materialized views against their queries
# through rounds of changes, the batch answers taken from PostgreSQL:
#   /usr/bin/python3 scripts/slt_views_from_pg.py PORT SPEC > tests/slt/x.slt
# SPEC (e.g. tests/slt/stream_subqueries.spec) has lines
#   # comment            copied to the head of the output
#   setup: STATEMENT     run before the views (tables, first rows)
#   view: NAME|QUERY     a materialized view (the first half is created
#                        before the first round, the rest after it, so they
#                        backfill)
#   round:               starts a round of changes; the lines after it,
#   STATEMENT            one per line, are its statements
# After the first round and every later one (and FLUSH), each view is
# compared with its query in batch on Freshet (as multisets, EXCEPT ALL both
# ways), and the query's result is recorded from PostgreSQL (rowsort).
import re, subprocess, sys

port, spec = sys.argv[1], sys.argv[2]
head, setup, views, rounds = [], [], [], []
for line in open(spec):
    line = line.rstrip("\n")
    if not line.strip():
        continue
    if line.startswith("#"):
        head.append(line)
    elif line.startswith("setup:"):
        setup.append(line[6:].strip())
    elif line.startswith("view:"):
        views.append(line[5:].strip().split("|", 1))
    elif line.startswith("round:"):
        rounds.append([])
    else:
        rounds[-1].append(line.strip())

stmts = list(head) + ["ok: " + s for s in setup]
for i, (name, q) in enumerate(views):
    if i == len(views) // 2:
        stmts += ["ok: " + s for s in rounds[0]]
    stmts.append("#@fs CREATE MATERIALIZED VIEW %s AS %s" % (name, q))

def checks(tag):
    stmts.append("# " + tag)
    for name, q in views:
        stmts.append("#@fq %s|%s" % (name, q))
        stmts.append(q)

checks("After the first round (half the views created before it, half after).")
for r in rounds[1:]:
    stmts += ["ok: " + s for s in r]
    stmts.append("#@flush")
    checks("After another round.")

raw = subprocess.run([sys.executable, "scripts/slt_from_pg.py", port], input="\n".join(stmts) + "\n",
                     capture_output=True, text=True, check=True).stdout
out = []
for line in raw.split("\n"):
    if line.startswith("#@fs "):
        out.append("onlyif freshet\nstatement ok\n%s\n" % line[5:])
    elif line.startswith("#@flush"):
        out.append("onlyif freshet\nstatement ok\nFLUSH\n")
    elif line.startswith("#@fq "):
        name, q = line[5:].split("|", 1)
        # The query parenthesized: it may be a set operation itself.
        out.append("onlyif freshet\nquery I\nSELECT count(*) FROM ((SELECT * FROM %s EXCEPT ALL (%s)) UNION ALL "
                   "((%s) EXCEPT ALL SELECT * FROM %s)) AS diff\n----\n0\n" % (name, q, q, name))
    elif re.match(r"^query [A-Z]+$", line):
        out.append(line + " rowsort")
    else:
        out.append(line)
sys.stdout.write("\n".join(out))
