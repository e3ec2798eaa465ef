#!/usr/bin/python3
"""Markdown report of bench/tpch/run.sh's raw numbers.

    bench/tpch/report.py RESULTS_FILE > RESULTS_FILE.md
"""

import statistics
import sys

TABLES = ["region", "nation", "part", "partsupp", "supplier", "customer", "orders", "lineitem"]


def main():
    r = {}
    with open(sys.argv[1]) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            r[k] = v

    def num(k):
        try:
            return float(r[k])
        except (KeyError, ValueError):
            return None

    def fmt_ms(x, unit="ms"):
        if x is None:
            return "-"
        if unit == "s":
            return f"{x / 1000:,.2f}"
        return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"

    queries = r.get("queries", "").split(",")
    nb, vb = int(r.get("batches", "0")), int(r.get("view_batches", "0"))
    out = []
    p = out.append
    p(f"TPC-H SF {r.get('sf')} (seed {r.get('seed')}) as materialized views, {r.get('date')}")
    p("")
    p(f"- Command: `{r.get('command')}`")
    p(f"- Machine: {r.get('machine')}; load average at the start {r.get('loadavg')}")
    p(f"- Freshet: {r.get('freshet')}; DuckDB {r.get('duckdb', '-')}")
    p("- Rows: " + ", ".join(f"{t} {int(r.get('rows.' + t, 0)):,}" for t in TABLES))
    p(f"- Refresh batch (batch 1): {r.get('rf_batch1')}, one transaction, then FLUSH")
    p("")
    fl = [num(f"load.{t}.ms") for t in TABLES]
    dl = [num(f"duck.load.{t}.ms") for t in TABLES]
    p("| load | " + " | ".join(TABLES) + " | total |")
    p("|---|" + "---:|" * (len(TABLES) + 1))
    ftot = num("load.total.ms")
    p("| Freshet (\\copy; total incl. FLUSH " + fmt_ms(num("load.flush.ms")) + " ms), s | "
      + " | ".join(fmt_ms(x, "s") for x in fl) + f" | {fmt_ms(ftot, 's')} |")
    if any(x is not None for x in dl):
        p("| DuckDB (COPY, in memory), s | " + " | ".join(fmt_ms(x, "s") for x in dl)
          + f" | {fmt_ms(sum(x for x in dl if x is not None), 's')} |")
    p("")
    p(f"Freshet data directory after the load {r.get('load.data_dir_mb', '-')} MiB, after the views "
      f"{r.get('create.data_dir_mb', '-')} MiB; server RSS after the views {r.get('create.rss_mb', '-')} MiB, "
      f"after the batches {r.get('all.rss_mb', '-')} MiB (peak {r.get('all.hwm_mb', '-')} MiB).")
    p("")

    def med(keys):
        xs = [num(k) for k in keys]
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None

    def after_dml(k):   # COMMIT + FLUSH of batch key k
        c, f = num(k + ".commit_ms"), num(k + ".flush_ms")
        return None if c is None or f is None else c + f

    # Batches with every view.
    p(f"Refresh batches with all {len(queries)} views (BEGIN .. FLUSH returned):")
    p("")
    p("| batch | rows changed | DML ms | COMMIT ms | FLUSH ms | total ms | rows/s |")
    p("|---:|---:|---:|---:|---:|---:|---:|")
    tots, rates, afters = [], [], []
    for b in range(1, nb + 1):
        k = f"all.{b}"
        if f"{k}.error" in r:
            p(f"| {b} | error: {r[k + '.error']} ||||||")
            continue
        ms, rows = num(k + ".ms"), num(k + ".rows")
        if ms is None:
            continue
        tots.append(ms)
        rates.append(rows / ms * 1000)
        afters.append(after_dml(k))
        p(f"| {b} | {rows:,.0f} | {fmt_ms(num(k + '.dml_ms'))} | {fmt_ms(num(k + '.commit_ms'))} | "
          f"{fmt_ms(num(k + '.flush_ms'))} | {fmt_ms(ms)} | {rows / ms * 1000:,.0f} |")
    if tots:
        p(f"| median | | | | | {fmt_ms(statistics.median(tots))} | {statistics.median(rates):,.0f} |")
    dbatch = med([f"duck.batch.{b}.ms" for b in range(1, nb + 1)])
    if dbatch is not None:
        p("")
        p(f"DuckDB applies the same batches in {fmt_ms(dbatch)} ms (median).")
    p("")

    # Per query.
    base = med([f"none.{i}.ms" for i in (1, 2)])
    base_after = med([f"none.{i}.commit_ms" for i in (1, 2)])
    if base_after is not None:
        base_after += med([f"none.{i}.flush_ms" for i in (1, 2)])
    p(f"Per query: create = CREATE over the loaded tables (all views phase), with the server's RSS after it; "
      f"maintenance = one refresh batch with only that view existing, median of {vb}: the whole batch "
      f"(BEGIN .. FLUSH returned) and its COMMIT + FLUSH (the writes applied and the view brought up to "
      f"date, after the DML statements); DuckDB = the query from scratch after the same {nb} batches "
      f"(median of warm runs). Ratios: DuckDB / maintenance (target >= 10). The view's own = its COMMIT + "
      f"FLUSH less that of the batch with no view (the work the view adds; noisy where both are small).")
    p("")
    p("| query | create s | RSS after MiB | batch ms | COMMIT+FLUSH ms | view's own ms | DuckDB ms | "
      "DuckDB / batch | DuckDB / (COMMIT+FLUSH) | DuckDB / view's own | check |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    if base is not None:
        p(f"| no view (the batch's own DML, COMMIT, FLUSH) | | | {fmt_ms(base)} | {fmt_ms(base_after)} | | | | | | |")
    meet, meet_after, miss = [], [], []
    sums = {"maint": 0, "after": 0, "duck": 0}
    for q in queries:
        create = num(f"create.{q}.ms")
        duck = num(f"duck.{q}.ms")
        if create is None:
            err = r.get(f"create.{q}.error")
            err = f"failed: {err[:120]}" if err else ("not reached" if "unfinished" in r else "not run")
            p(f"| {q} | {err} | | | | | {fmt_ms(duck)} | | | | |")
            miss.append(q)
            continue
        maint = med([f"view.{q}.{i}.ms" for i in range(1, vb + 1)])
        xs = [after_dml(f"view.{q}.{i}") for i in range(1, vb + 1)]
        xs = [x for x in xs if x is not None]
        after = statistics.median(xs) if xs else None
        ratio = duck / maint if duck is not None and maint else None
        ratio_after = duck / after if duck is not None and after else None
        if maint is not None and duck is not None:
            sums["maint"] += maint
            sums["after"] += after
            sums["duck"] += duck
        if ratio is not None:
            if ratio >= 10:
                meet.append(q)
            elif ratio_after is not None and ratio_after >= 10:
                meet_after.append(q)
            else:
                miss.append(q)
        check = r.get(f"check.{q}", "-")
        # Below 0.1 ms the difference is noise: shown as < 0.1, its ratio as a lower bound.
        own = after - base_after if after is not None and base_after is not None else None
        own_text = "-" if own is None else ("< 0.1" if own < 0.1 else fmt_ms(own))
        ratio_own = duck / max(own, 0.1) if duck is not None and own is not None else None
        ratio_own_text = "-" if ratio_own is None else (f"> {ratio_own:.1f}" if own < 0.1 else f"{ratio_own:.2f}")
        p(f"| {q} | {fmt_ms(create, 's')} | {r.get(f'create.{q}.rss_mb', '-')} | {fmt_ms(maint)} | {fmt_ms(after)} | "
          f"{own_text} | {fmt_ms(duck)} | {'-' if ratio is None else f'{ratio:.2f}'} | "
          f"{'-' if ratio_after is None else f'{ratio_after:.2f}'} | {ratio_own_text} | {check} |")
    sm, sa, sd = sums["maint"], sums["after"], sums["duck"]
    p(f"| total | {fmt_ms(num('create.total.ms'), 's')} | | {fmt_ms(sm)} (sum) | {fmt_ms(sa)} (sum) | | "
      f"{fmt_ms(sd)} (sum) | {sd / sm if sm else 0:.2f} | {sd / sa if sa else 0:.2f} | | |")
    p("")
    if tots and sd:
        ma = statistics.median([x for x in afters if x is not None])
        p(f"All {len(queries)} views maintained together: {fmt_ms(statistics.median(tots))} ms per batch, "
          f"{fmt_ms(ma)} ms of it COMMIT + FLUSH (medians); DuckDB recomputing all {len(queries)}: "
          f"{fmt_ms(sd)} ms ({sd / statistics.median(tots):.2f}x the batch, {sd / ma:.2f}x COMMIT + FLUSH).")
    p(f"Target (DuckDB / maintenance >= 10) met on the whole batch: {', '.join(meet) or 'none'}; "
      f"only on COMMIT + FLUSH: {', '.join(meet_after) or 'none'}; not met: {', '.join(miss) or 'none'}.")
    checked = [q for q in queries if f"check.{q}" in r]
    bad = [q for q in checked if not r[f"check.{q}"].startswith("same")]
    if not checked:
        p(f"Check after batch {nb}: not done.")
    else:
        p(f"Check after batch {nb}: " + (f"every view checked ({len(checked)}) equals DuckDB's result." if not bad else
                                          "mismatches: " + "; ".join(f"{q}: {r['check.' + q]}" for q in bad)))
    if "server_log_errors" in r:
        p(f"Server log: {r['server_log_errors']} lines with error/panic/fatal (see the logs).")
    if "unfinished" in r:
        p(f"**Unfinished**: {r['unfinished']}; the figures above are what was measured until then.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
