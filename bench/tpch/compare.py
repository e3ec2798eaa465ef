#!/usr/bin/python3
"""Compares a Freshet view's rows with DuckDB's result of the same query, for bench/tpch/run.sh.

    compare.py FRESHET_TSV DUCKDB_TSV

One row a line, fields separated by tabs (psql -At -F TAB; DuckDB's COPY ...
(DELIMITER '\\t', QUOTE '')). Rows are compared as multisets: text with
trailing blanks dropped (char(n) pads, DuckDB's CHAR does not); numbers by
value within a relative 1e-6 (DuckDB's avg is a double, Freshet's a
numeric). Exit 0 and prints "same (N rows)" when equal; exit 1 and prints
"A rows / B rows, K unmatched: ..." otherwise.
"""

import collections
import re
import sys

NUM = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def field(x):
    x = x.rstrip(" ")
    if NUM.match(x):
        return (0, float(x))
    return (1, x)


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return [tuple(field(x) for x in line.rstrip("\n").split("\t")) for line in f if line != "\n"]


def close(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == 1:
        return a[1] == b[1]
    x, y = a[1], b[1]
    return abs(x - y) <= 1e-6 * max(abs(x), abs(y), 1e-9)


def rows_close(r, s):
    return len(r) == len(s) and all(close(a, b) for a, b in zip(r, s))


def main():
    fa, fb = read(sys.argv[1]), read(sys.argv[2])
    # Group by the text fields; within a group, pair rows in sorted order.
    def key(row):
        return tuple(v[1] if v[0] == 1 else None for v in row)
    ga, gb = collections.defaultdict(list), collections.defaultdict(list)
    for r in fa:
        ga[key(r)].append(r)
    for r in fb:
        gb[key(r)].append(r)
    bad = []
    for k in set(ga) | set(gb):
        a, b = sorted(ga.get(k, [])), sorted(gb.get(k, []))
        if len(a) != len(b) or not all(rows_close(r, s) for r, s in zip(a, b)):
            if len(a) * len(b) > 4000000:   # too many to pair greedily: the sorted pairs
                bad += [("freshet", r) for r, s in zip(a, b) if not rows_close(r, s)]
                bad += [("freshet", r) for r in a[len(b):]] + [("duckdb", s) for s in b[len(a):]]
                continue
            # Greedy pairing for rows whose numbers sort differently.
            left = list(b)
            for r in a:
                for i, s in enumerate(left):
                    if rows_close(r, s):
                        del left[i]
                        break
                else:
                    bad.append(("freshet", r))
            bad += [("duckdb", s) for s in left]
    if not bad:
        print(f"same ({len(fa)} rows)")
        return 0
    def show(row):
        return "|".join(f"{v[1]:.6g}" if v[0] == 0 else v[1] for v in row)[:160]
    ex = "; ".join(f"only in {who}: {show(r)}" for who, r in bad[:2])
    print(f"{len(fa)} rows / {len(fb)} rows, {len(bad)} unmatched: {ex}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
