#!/usr/bin/python3
"""Markdown report of bench/tsbs/run.sh's raw numbers, with the check of the
query results between the systems.

    bench/tsbs/report.py RESULTS_FILE > RESULTS_FILE.md

The normalized results are read from RESULTS_FILE.logs/results/<system>/ to
show where two systems' answers differ.
"""

import os
import statistics
import sys

SYSTEMS = [("fr", "Freshet"), ("pg", "PostgreSQL"), ("duck", "DuckDB")]
TARGET_ROWS_S = 500_000
TARGET_DUCK = 1.5
TARGET_SIZE = 5.0


def main():
    path = sys.argv[1]
    r = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            r[k] = v
    logs = path + ".logs"

    def num(k):
        try:
            return float(r[k])
        except (KeyError, ValueError):
            return None

    def fmt_ms(x):
        if x is None:
            return "-"
        return f"{x:,.2f}" if x < 10 else (f"{x:,.1f}" if x < 100 else f"{x:,.0f}")

    def fmt_ratio(a, b):
        return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"

    def mib(b):
        return "-" if b is None else f"{b / 1048576:,.1f} MiB"

    out = []
    p = out.append
    rows = int(r.get("rows", "0") or 0)
    p(f"# TSBS cpu-only: {r.get('scale')} hosts x {r.get('days')} day(s), seed {r.get('seed')} ({r.get('date')})")
    p("")
    if "unfinished" in r:
        p(f"**{r['unfinished']}**: the figures below are what was measured before.")
        p("")
    p(f"- Command: `{r.get('command')}`")
    p(f"- Machine: {r.get('machine')}; load average at the start {r.get('loadavg')}, at the end {r.get('loadavg_end', '-')}")
    p(f"- Freshet: {r.get('freshet')}")
    pg_set = ", ".join(f"{s} {r[k]}" for s in ("shared_buffers", "work_mem", "max_parallel_workers_per_gather", "jit")
                       if (k := f"pg.setting.{s}") in r)
    p(f"- PostgreSQL {r.get('pg.version', '-')} ({pg_set or 'not run'}); DuckDB: {r.get('duck.server', '-')}")
    p(f"- Data: {rows:,} rows ({r.get('scale')} hosts, one row every 10 s from 2016-01-01), fields "
      f"{r.get('values')}; CSV {mib(num('csv_bytes'))}"
      + (f", generated in {num('gen.ms') / 1000:.2f} s" if num("gen.ms") else " (cached)"))
    p(f"- Queries: {r.get('queries_per_kind')} instances per kind, same text on all three systems, "
      f"after one warm-up run of the first; the figure is the median over the instances")
    p("")

    # --- ingest ---------------------------------------------------------------
    def copy_ms(s):
        if s == "fr":
            a, b = num("fr.copy.part1_ms"), num("fr.copy.part2_ms")
            return None if a is None or b is None else a + b
        if s == "pg":
            return num("pg.copy.part1_ms")
        return num("duck.copy.ms")

    def insert_ms(s):
        if s == "fr":
            a, b = num("fr.insert.part1_ms"), num("fr.insert.part2_ms")
            return None if a is None or b is None else a + b
        if s == "pg":
            return num("pg.insert.part1_ms")
        return num("duck.insert.ms")

    ins_rows = int(r.get("insert.rows", "0") or 0)
    per_txn = r.get("per_txn", "0")
    txn = "autocommit" if per_txn == "0" else f"{per_txn} statements per transaction"

    def rate(n, ms):
        return None if ms is None or not ms else n / ms * 1000

    p("## Ingest")
    p("")
    p("| path | Freshet | PostgreSQL | DuckDB | Freshet / PostgreSQL | Freshet / DuckDB |")
    p("|---|---:|---:|---:|---:|---:|")
    for label, fn, n in (("COPY, rows/s", copy_ms, rows),
                         (f"multi-row INSERT (1,000 rows per statement, {txn}), rows/s", insert_ms, ins_rows)):
        rates = {s: rate(n, fn(s)) for s, _ in SYSTEMS}
        cells = [("-" if rates[s] is None else f"{rates[s]:,.0f}") for s, _ in SYSTEMS]
        p(f"| {label} | " + " | ".join(cells) + f" | {fmt_ratio(rates['fr'], rates['pg'])} | "
          f"{fmt_ratio(rates['fr'], rates['duck'])} |")
    for label, fn in (("COPY, s", copy_ms), ("INSERT, s", insert_ms)):
        cells = [("-" if fn(s) is None else f"{fn(s) / 1000:,.2f}") for s, _ in SYSTEMS]
        p(f"| {label} | " + " | ".join(cells) + " | | |")
    p("")
    notes = []
    if num("fr.copy.part2_ms") is not None:
        notes.append(f"Freshet's COPY time is the \\copy ({fmt_ms(num('fr.copy.part1_ms'))} ms) plus the FLUSH after "
                     f"it ({fmt_ms(num('fr.copy.part2_ms'))} ms); server CPU {r.get('fr.copy.server_cpu_s', '-')} s; "
                     f"RSS after it {int(num('fr.rss_after_copy_kb') or 0) // 1024} MiB (peak "
                     f"{int(num('fr.hwm_after_copy_kb') or 0) // 1024} MiB).")
    if num("fr.insert.part2_ms") is not None:
        notes.append(f"Freshet's INSERT time: statements {fmt_ms(num('fr.insert.part1_ms'))} ms + FLUSH "
                     f"{fmt_ms(num('fr.insert.part2_ms'))} ms; server CPU {r.get('fr.insert.server_cpu_s', '-')} s.")
    cl = []
    for s, name in SYSTEMS[:2]:
        for path_ in ("copy", "insert"):
            if f"{s}.{path_}.client_cpu_s" in r:
                cl.append(f"{name} {path_} {r[f'{s}.{path_}.client_cpu_s']} s of {fmt_ms(num(f'{s}.{path_}.wall_ms'))} ms")
    if cl:
        notes.append("psql's own CPU time (user + system) against the step's wall time: " + "; ".join(cl) + ".")
    if num("duck.checkpoint.ms") is not None:
        notes.append(f"DuckDB: COPY into a database file, CHECKPOINT after it {fmt_ms(num('duck.checkpoint.ms'))} ms "
                     f"(not counted); the INSERT lines run through the Node API in-process (no client/server).")
    if num("pg.vacuum_analyze.ms") is not None:
        notes.append(f"PostgreSQL: VACUUM ANALYZE after the COPY {fmt_ms(num('pg.vacuum_analyze.ms'))} ms (not counted).")
    for s, name in SYSTEMS:
        for path_, n in (("copy", rows), ("insert", ins_rows)):
            c = r.get(f"{s}.{path_}.count")
            if c is not None and c.strip() != str(n):
                notes.append(f"**{name} {path_}: count(*) = {c}, expected {n:,}.**")
            if f"{s}.{path_}.error" in r:
                notes.append(f"**{name} {path_} failed: {r[f'{s}.{path_}.error']}**")
    for n_ in notes:
        p(f"- {n_}")
    fr_rate = rate(rows, copy_ms("fr"))
    p("")
    p(f"Target: ingest above {TARGET_ROWS_S:,} rows/s: "
      + ("not measured" if fr_rate is None else
         f"**{'met' if fr_rate > TARGET_ROWS_S else 'not met'}** by COPY ({fr_rate:,.0f} rows/s)")
      + ("" if rate(ins_rows, insert_ms("fr")) is None else
         f"; multi-row INSERT {rate(ins_rows, insert_ms('fr')):,.0f} rows/s"
         f" ({'met' if rate(ins_rows, insert_ms('fr')) > TARGET_ROWS_S else 'not met'})") + ".")
    p("")

    # --- size -----------------------------------------------------------------
    p("## Size on disk")
    p("")
    sizes = {"fr": num("fr.size_bytes"), "pg": num("pg.size_bytes"), "duck": num("duck.size_bytes")}
    p("| | Freshet | PostgreSQL | DuckDB |")
    p("|---|---:|---:|---:|")
    p("| size | " + " | ".join(mib(sizes[s]) for s, _ in SYSTEMS) + " |")
    p("| bytes per row | " + " | ".join("-" if sizes[s] is None or not rows else f"{sizes[s] / rows:,.1f}"
                                      for s, _ in SYSTEMS) + " |")
    p("")
    parts = [(k[len("fr.size."):-len("_bytes")], num(k)) for k in r if k.startswith("fr.size.") and k.endswith("_bytes")]
    if parts:
        p("- Freshet: `du` of the data directory (blocks allocated) after `SELECT flush_table('cpu')`: "
          + ", ".join(f"{d}/ {mib(b)} ({mib(num(f'fr.apparent.{d}_bytes'))} apparent)"
                      for d, b in sorted(parts, key=lambda x: -(x[1] or 0)) if (b or 0) >= 65536)
          + f"; all {mib(sizes['fr'])} ({mib(num('fr.apparent_bytes'))} apparent); "
          f"after the queries {mib(num('fr.size_after_queries_bytes'))}.")
    if sizes["pg"] is not None:
        p(f"- PostgreSQL: pg_total_relation_size('cpu') after VACUUM ANALYZE: table {mib(num('pg.size.table_bytes'))}, "
          f"indexes (hostname, ts DESC) and (ts DESC) {mib(num('pg.size.indexes_bytes'))}.")
    if sizes["duck"] is not None:
        p(f"- DuckDB: the database file after CHECKPOINT (WAL {mib(num('duck.wal_bytes') or 0)}).")
    p("")
    if sizes["fr"] and sizes["pg"]:
        ratio = sizes["pg"] / sizes["fr"]
        p(f"Target: below PostgreSQL's by {TARGET_SIZE:g}x: PostgreSQL / Freshet = {ratio:.2f} "
          f"(**{'met' if ratio >= TARGET_SIZE else 'not met'}**); Freshet / DuckDB = "
          f"{fmt_ratio(sizes['fr'], sizes['duck'])}.")
        ts = num("fr.size.timeseries_bytes")
        if ts:
            p(f"The time-series table's own files (timeseries/, {mib(ts)}, {ts / rows:,.1f} bytes per row) "
              f"alone: PostgreSQL / them = {sizes['pg'] / ts:.2f}"
              + (f", them / DuckDB = {ts / sizes['duck']:.2f}" if sizes["duck"] else "") + ".")
        p("")

    # --- queries --------------------------------------------------------------
    kinds = [k for k in r.get("kinds", "").split(",") if k]
    qpk = int(r.get("queries_per_kind", "0") or 0)

    def instances(s, kind):
        return [(i, num(f"{s}.q.{kind}.{i}.ms"), r.get(f"{s}.q.{kind}.{i}.error")) for i in range(1, qpk + 1)]

    def median(s, kind):
        xs = [ms for _, ms, _ in instances(s, kind) if ms is not None]
        return statistics.median(xs) if xs else None

    def read_result(s, kind, i):
        try:
            with open(f"{logs}/results/{s}/{kind}.{i}.tsv") as f:
                return f.read().split("\n")
        except OSError:
            return None

    problems = []

    def check(kind):
        """Compares each instance's digest of Freshet and DuckDB with PostgreSQL's (or Freshet's with DuckDB's)."""
        ref = "pg" if any(f"pg.q.{kind}.{i}.digest" in r for i in range(1, qpk + 1)) else "duck"
        same, differ, missing = 0, 0, 0
        for i in range(1, qpk + 1):
            dref = r.get(f"{ref}.q.{kind}.{i}.digest")
            for s, name in SYSTEMS:
                if s == ref or not any(k.startswith(f"{s}.q.") for k in r):
                    continue
                d = r.get(f"{s}.q.{kind}.{i}.digest")
                if d is None or dref is None:
                    missing += 1
                    continue
                if d == dref:
                    same += 1
                    continue
                differ += 1
                a, b = read_result(s, kind, i), read_result(ref, kind, i)
                where = ""
                if a is not None and b is not None:
                    for j, (x, y) in enumerate(zip(a, b)):
                        if x != y:
                            where = f"; first difference at row {j + 1}: {name} `{x[:200]}` vs `{y[:200]}`"
                            break
                    else:
                        where = f"; the {min(len(a), len(b)) - 1} rows kept (at most 2,000) agree"
                problems.append(f"{kind} #{i}: {name} {r.get(f'{s}.q.{kind}.{i}.rows')} rows, "
                                f"{dict(SYSTEMS)[ref]} {r.get(f'{ref}.q.{kind}.{i}.rows')} rows{where}")
        if differ:
            return f"**{differ} DIFFERENT**" + (f", {same} same" if same else "")
        if same and not missing:
            return "same"
        if same:
            return f"same ({missing} not compared)"
        return "-"

    p("## Queries")
    p("")
    p("Median latency over the instances, ms, measured in the client (query sent .. last row received). "
      "Ratios: Freshet's time / the peer's (below 1: Freshet faster).")
    p("")
    p("| query | Freshet | PostgreSQL | DuckDB | Freshet / PostgreSQL | Freshet / DuckDB | rows (median) | results |")
    p("|---|---:|---:|---:|---:|---:|---:|---|")
    faster_pg, near_duck, n_pg, n_duck = [], [], 0, 0
    errors = []
    for kind in kinds:
        med = {s: median(s, kind) for s, _ in SYSTEMS}
        cells = []
        for s, name in SYSTEMS:
            errs = [(i, e) for i, _, e in instances(s, kind) if e]
            for i, e in errs:
                errors.append(f"{name}, {kind} #{i}: {e}")
            if med[s] is None and errs:
                cells.append("error")
            else:
                cells.append(fmt_ms(med[s]) + (f" ({len(errs)} error{'s' if len(errs) > 1 else ''})" if errs else ""))
        nrows = [num(f"fr.q.{kind}.{i}.rows") or num(f"pg.q.{kind}.{i}.rows") or num(f"duck.q.{kind}.{i}.rows")
                 for i in range(1, qpk + 1)]
        nrows = [x for x in nrows if x is not None]
        rp = None if med["fr"] is None or med["pg"] is None else med["fr"] / med["pg"]
        rd = None if med["fr"] is None or med["duck"] is None else med["fr"] / med["duck"]
        fr_ok = not any(e for _, _, e in instances("fr", kind))   # a kind with an error misses the targets
        if med["pg"] is not None:
            n_pg += 1
            if fr_ok and rp is not None and rp < 1:
                faster_pg.append(kind)
        if med["duck"] is not None:
            n_duck += 1
            if fr_ok and rd is not None and rd <= TARGET_DUCK:
                near_duck.append(kind)
        p(f"| {kind} | " + " | ".join(cells) + f" | {'-' if rp is None else f'{rp:.2f}'} | "
          f"{'-' if rd is None else f'{rd:.2f}'} | {'-' if not nrows else f'{statistics.median(nrows):,.0f}'} | "
          f"{check(kind)} |")
    p("")
    if n_pg:
        miss = [k for k in kinds if k not in faster_pg]
        p(f"Target: every query faster than PostgreSQL: {len(faster_pg)} of {len(kinds)} "
          f"(**{'met' if not miss else 'not met'}**" + (f"; not: {', '.join(miss)}" if miss else "") + ").")
    if n_duck:
        miss = [k for k in kinds if k not in near_duck]
        p(f"Target: each within {TARGET_DUCK}x of DuckDB: {len(near_duck)} of {len(kinds)} "
          f"(**{'met' if not miss else 'not met'}**" + (f"; not: {', '.join(miss)}" if miss else "") + ").")
    p("")
    for s, name in SYSTEMS:
        warm = [(k, r.get(f"{s}.warmup.{k}")) for k in kinds if f"{s}.warmup.{k}" in r]
        if warm:
            p(f"- {name} warm-up runs, ms: " + ", ".join(f"{k} {v}" for k, v in warm))
    heavy = []
    for s, name in SYSTEMS[:2]:
        for kind in kinds:
            c = [num(f"{s}.q.{kind}.{i}.client_cpu_ms") for i in range(1, qpk + 1)]
            c = [x for x in c if x is not None]
            m = median(s, kind)
            if c and m and statistics.median(c) > max(0.1 * m, 1.0):
                heavy.append(f"{name} {kind} {fmt_ms(statistics.median(c))} of {fmt_ms(m)} ms")
    if heavy:
        p("- The Node client's own CPU time (receiving and splitting the rows, pg driver) is above 10% of "
          "the latency (and 1 ms) for: " + "; ".join(heavy) + " (medians).")
    if "fr.settle_s" in r:
        p(f"- Freshet was left {r['fr.settle_s']} s after flush_table for its background work to end "
          "before the queries (less than 10% of a core over 2 s).")
    for s, name in SYSTEMS:
        for k in (f"{s}.client_error", f"{s}.note"):
            if k in r:
                p(f"- {name}: {r[k]}")
    if "fr.server_log_errors" in r:
        p(f"- Freshet's log has {r['fr.server_log_errors']} error lines (freshet.log in the logs).")
    p("")
    if errors:
        p("### Errors")
        p("")
        for e in errors:
            p(f"- {e}")
        p("")
    if problems:
        p("### Results that differ")
        p("")
        for e in problems:
            p(f"- {e}")
        p("")
    p(f"Raw numbers: `{os.path.basename(path)}`; queries, logs and normalized results: `{os.path.basename(logs)}/`.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
