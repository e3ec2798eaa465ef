#!/usr/bin/python3
"""TPC-H refresh functions RF1 and RF2 for bench/tpch/run.sh (python3, standard library only).

    bench/tpch/refresh.py --sf 1 --seed 1 --batches N --out DIR [--fraction 0.001]

Writes, for each batch B = 1..N, valid against the data of `dbgen.py --sf SF
--seed SEED` after batches 1..B-1 were applied:

  DIR/rfB.orders.tsv    RF1: new orders (COPY text format, as dbgen.py's files)
  DIR/rfB.lineitem.tsv  RF1: their lineitems (1..7 each)
  DIR/rfB.delete.tsv    RF2: the o_orderkey of each order to delete with its lineitems
  DIR/rfB.sql           the batch for psql, in one transaction:
                          BEGIN; COPY orders FROM STDIN (RF1's rows inline);
                          COPY lineitem FROM STDIN; DELETE FROM lineitem
                          WHERE l_orderkey IN (...); DELETE FROM orders WHERE
                          o_orderkey IN (...); COMMIT; FLUSH;
  DIR/counts.tsv        per batch: B, orders inserted, lineitems inserted,
                        orders deleted, lineitems deleted

Each batch inserts and deletes round(fraction * 1,500,000 * SF) orders
(TPC-H's RF1/RF2: 0.1%, 1,500 at SF 1). New order keys are the keys dbgen's
sparse scheme leaves unused (sequence 1..3 of each group of 32, as TPC-H's
RF1 takes its keys from the unused range), never one used twice; their rows
follow dbgen.py's rules (existing customers that order, base parts and their
partsupp suppliers, prices, totals, dates and flags). RF2 deletes base orders
(keys of the generated data), each at most once over all batches, so every
DELETE hits an existing order. Deterministic for --sf/--seed/--fraction; the
batches do not depend on N (batch B is the same for any N >= B).
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dbgen  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batches", type=int, required=True)
    ap.add_argument("--fraction", type=float, default=0.001)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    sc = dbgen.Scale(a.sf, a.seed)
    per = max(1, round(a.fraction * 1500000 * a.sf))
    if per * a.batches > sc.O:
        ap.error(f"{a.batches} batches of {per} deletes exceed the {sc.O} orders")
    os.makedirs(a.out, exist_ok=True)
    # Deleted base orders: one permutation of the order indexes, cut into
    # batches (so batch B is the same whatever N is).
    del_rng = sc.rng("rf2")
    order_idx = list(range(1, sc.O + 1))
    del_rng.shuffle(order_idx)
    # Line counts of the base orders (to count the deleted lineitems): the
    # generator's chunks of the orders deleted, made again.
    line_count = {}
    wanted = {}
    for i in order_idx[:per * a.batches]:
        wanted.setdefault((i - 1) // dbgen.CHUNK, []).append(i)
    for c, idxs in wanted.items():
        chunk = dbgen.gen_orders_chunk(sc, c)
        for i in idxs:
            line_count[i] = len(chunk[(i - 1) % dbgen.CHUNK][1])
    used = set()
    pool = sc.pool
    counts = []
    for b in range(1, a.batches + 1):
        r = sc.rng("rf1", b).random
        orders, lines = [], []
        for _ in range(per):
            while True:
                key = dbgen.mk_sparse(1 + int(r() * sc.O), 1 + int(r() * 3))
                if key not in used:
                    used.add(key)
                    break
            j = int(r() * sc.C_ORDERING)
            cust = j + j // 2 + 1
            od = int(r() * (dbgen.MAX_ORDER_DAY + 1))
            prio = dbgen.PRIORITIES[int(r() * 5)]
            clerk = 1 + int(r() * sc.CLERKS)
            comment = dbgen.text(r, pool, 19, 78)
            ls = dbgen.make_lines(sc, r, pool, key, od, 1 + int(r() * 7))
            status, total = dbgen.order_status_total(ls)
            orders.append([key, cust, status, total, od, prio, clerk, 0, comment])
            lines.append(ls)
        dels = order_idx[(b - 1) * per:b * per]
        del_keys = sorted(dbgen.mk_sparse(i) for i in dels)
        o_text = "".join(dbgen.fmt_order(o) for o in orders)
        l_text = "".join(dbgen.fmt_lines(ls) for ls in lines)
        base = os.path.join(a.out, f"rf{b}")
        with open(base + ".orders.tsv", "w") as f:
            f.write(o_text)
        with open(base + ".lineitem.tsv", "w") as f:
            f.write(l_text)
        with open(base + ".delete.tsv", "w") as f:
            f.write("".join(f"{k}\n" for k in del_keys))
        keys = ", ".join(map(str, del_keys))
        with open(base + ".sql", "w") as f:
            f.write("BEGIN;\n")
            f.write("COPY orders FROM STDIN;\n" + o_text + "\\.\n")
            f.write("COPY lineitem FROM STDIN;\n" + l_text + "\\.\n")
            f.write(f"DELETE FROM lineitem WHERE l_orderkey IN ({keys});\n")
            f.write(f"DELETE FROM orders WHERE o_orderkey IN ({keys});\n")
            f.write("COMMIT;\nFLUSH;\n")
        counts.append((b, len(orders), sum(len(ls) for ls in lines), len(dels),
                       sum(line_count[i] for i in dels)))
    with open(os.path.join(a.out, "counts.tsv"), "w") as f:
        for row in counts:
            f.write("\t".join(map(str, row)) + "\n")


if __name__ == "__main__":
    main()
