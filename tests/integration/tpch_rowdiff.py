#!/usr/bin/python3
"""Compares two query results as multisets of rows, for tpch_views_test.sh.

    tpch_rowdiff.py [--floats 2,5] [--names A,B] [--show N] FILE_A FILE_B

Each file holds one row a line, fields separated by tabs (psql -At -F TAB,
NULL printed as \\N). Numbers are compared by value (numeric text: exactly,
after dropping trailing zeros of the fraction, so 25.50 = 25.5); the
0-based columns given by --floats (double precision / real) within a relative
1e-9. Exit 0 when equal; 1 with a short report on stdout otherwise (how many
rows each side has that the other lacks, and the first --show of them).
"""

import argparse
import collections
import decimal
import re
import sys

NUM = re.compile(r"^-?\d+(\.\d+)?$")


def norm(field):
    if NUM.match(field):
        d = decimal.Decimal(field)
        if d == 0:
            return "0"
        d = d.normalize()
        return format(d, "f")
    return field


def read(path, floats):
    rows = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            fields = line.split("\t")
            rows.append(tuple(norm(x) if i not in floats else x for i, x in enumerate(fields)))
    return rows


def fclose(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if x != x and y != y:
        return True
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--floats", default="")
    ap.add_argument("--names", default="A,B")
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    floats = {int(x) for x in args.floats.split(",") if x.strip()}
    na, nb = args.names.split(",")
    a, b = read(args.a, floats), read(args.b, floats)
    ca, cb = collections.Counter(a), collections.Counter(b)
    only_a = ca - cb
    only_b = cb - ca
    if floats and (only_a or only_b):
        # Pair the leftover rows that agree on the exact columns, floats within 1e-9.
        def key(row):
            return tuple(x for i, x in enumerate(row) if i not in floats)
        ga, gb = collections.defaultdict(list), collections.defaultdict(list)
        for row in only_a.elements():
            ga[key(row)].append(row)
        for row in only_b.elements():
            gb[key(row)].append(row)
        for k in list(ga):
            ra, rb = sorted(ga[k]), sorted(gb.get(k, []))
            if len(ra) == len(rb) and all(fclose(x, y) for p, q in zip(ra, rb) for x, y in zip(p, q)):
                for row in ra:
                    only_a[row] -= 1
                for row in rb:
                    only_b[row] -= 1
        only_a, only_b = +only_a, +only_b
    if not only_a and not only_b:
        return 0
    n_a, n_b = sum(only_a.values()), sum(only_b.values())
    print(f"{len(a)} rows in {na}, {len(b)} in {nb}; {n_a} only in {na}, {n_b} only in {nb}")
    for name, rows in ((na, only_a), (nb, only_b)):
        for row in sorted(rows.elements())[:args.show]:
            text = "|".join(row)
            print(f"      only in {name}: {text[:300]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
