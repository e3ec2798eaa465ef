#!/usr/bin/python3
"""TSBS's 15 cpu-only queries with seeded random parameters, for bench/tsbs/run.sh.

    bench/tsbs/tsbs_queries.py --scale N --days D --seed S --per-kind Q --out FILE

Writes FILE, one query instance per line, tab-separated:
    kind  instance(1..Q)  ordered(1|0)  sql
ordered = 1 when the query's ORDER BY fixes the order of its rows (the results
of the systems are then compared in order), 0 for high-cpu (no ORDER BY:
compared as multisets). The same text is run on Freshet, PostgreSQL and
DuckDB.

The forms are TSBS's TimescaleDB ones (cmd/tsbs_generate_queries/databases/
timescaledb/devops.go, the plain-table variant: hostname in the table, no tags
table) with time_bucket('60 seconds', time) / ('3600 seconds') written as
date_trunc('minute', ts) / date_trunc('hour', ts), which all three systems
have, and the time column named ts. Hosts are TSBS's `(hostname = 'host_a' OR
hostname = 'host_b' ...)` of distinct random hosts (rand.Perm(scale)[:n]); a
window of length W starts uniformly in [start, end - W) of the data's range
[2016-01-01, + D days), at microsecond precision (TSBS draws nanoseconds;
PostgreSQL's timestamps have microseconds), as TSBS's RandWindow. Where W is
not shorter than the data's range (24-hour windows over one day of data, which
TSBS refuses), the window is the whole range. Time literals are written
without a zone ('2016-01-01 05:17:23.123456'): the column is a timestamp
without time zone, in UTC.
"""

import argparse
import datetime
import random
import sys

START = datetime.datetime(2016, 1, 1)
METRICS = ["usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait",
           "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"]
HOUR_US = 3600 * 10**6

# (kind, generator name, arguments): TSBS's devops query kinds (cpu-only).
KINDS = [
    ("single-groupby-1-1-1", "single", (1, 1, 1)),
    ("single-groupby-1-1-12", "single", (1, 1, 12)),
    ("single-groupby-1-8-1", "single", (1, 8, 1)),
    ("single-groupby-5-1-1", "single", (5, 1, 1)),
    ("single-groupby-5-1-12", "single", (5, 1, 12)),
    ("single-groupby-5-8-1", "single", (5, 8, 1)),
    ("cpu-max-all-1", "max_all", (1,)),
    ("cpu-max-all-8", "max_all", (8,)),
    ("double-groupby-1", "double", (1,)),
    ("double-groupby-5", "double", (5,)),
    ("double-groupby-all", "double", (10,)),
    ("high-cpu-1", "high_cpu", (1,)),
    ("high-cpu-all", "high_cpu", (0,)),
    ("lastpoint", "lastpoint", ()),
    ("groupby-orderby-limit", "orderby_limit", ()),
]


class Gen:
    def __init__(self, scale, days, seed):
        self.scale = scale
        self.range_us = days * 24 * HOUR_US
        self.rng = random.Random(seed)

    def ts(self, us):
        t = START + datetime.timedelta(microseconds=us)
        return t.strftime("%Y-%m-%d %H:%M:%S.%f")

    def window(self, hours):
        w = hours * HOUR_US
        if w >= self.range_us:
            return self.ts(0), self.ts(self.range_us)
        s = self.rng.randrange(self.range_us - w)
        return self.ts(s), self.ts(s + w)

    def hosts(self, n):
        n = min(n, self.scale)
        names = [f"host_{i}" for i in self.rng.sample(range(self.scale), n)]
        return "(" + " OR ".join(f"hostname = '{h}'" for h in names) + ")"

    def single(self, nmetrics, nhosts, hours):
        s, e = self.window(hours)
        sel = ", ".join(f"max({m}) AS max_{m}" for m in METRICS[:nmetrics])
        return (f"SELECT date_trunc('minute', ts) AS minute, {sel} FROM cpu "
                f"WHERE {self.hosts(nhosts)} AND ts >= '{s}' AND ts < '{e}' "
                f"GROUP BY minute ORDER BY minute ASC"), 1

    def max_all(self, nhosts):
        s, e = self.window(8)
        sel = ", ".join(f"max({m}) AS max_{m}" for m in METRICS)
        return (f"SELECT date_trunc('hour', ts) AS hour, {sel} FROM cpu "
                f"WHERE {self.hosts(nhosts)} AND ts >= '{s}' AND ts < '{e}' "
                f"GROUP BY hour ORDER BY hour"), 1

    def double(self, nmetrics):
        s, e = self.window(24)
        ms = METRICS[:nmetrics]
        sel = ", ".join(f"avg({m}) AS mean_{m}" for m in ms)
        means = ", ".join(f"mean_{m}" for m in ms)
        return (f"WITH cpu_avg AS (SELECT date_trunc('hour', ts) AS hour, hostname, {sel} FROM cpu "
                f"WHERE ts >= '{s}' AND ts < '{e}' GROUP BY hour, hostname) "
                f"SELECT hour, hostname, {means} FROM cpu_avg ORDER BY hour, hostname"), 1

    def high_cpu(self, nhosts):
        s, e = self.window(24)  # TSBS draws the window before the hosts; either order is seeded
        hosts = f" AND {self.hosts(nhosts)}" if nhosts > 0 else ""
        return f"SELECT * FROM cpu WHERE usage_user > 90.0 AND ts >= '{s}' AND ts < '{e}'{hosts}", 0

    def lastpoint(self):
        return "SELECT DISTINCT ON (hostname) * FROM cpu ORDER BY hostname, ts DESC", 1

    def orderby_limit(self):
        _, e = self.window(1)
        return (f"SELECT date_trunc('minute', ts) AS minute, max(usage_user) FROM cpu "
                f"WHERE ts < '{e}' GROUP BY minute ORDER BY minute DESC LIMIT 5"), 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, required=True)
    ap.add_argument("--days", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-kind", type=int, default=10)
    ap.add_argument("--kinds", default="", help="comma-separated subset (default all 15)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.scale < 1 or a.days < 1 or a.per_kind < 1:
        sys.exit("tsbs_queries.py: --scale, --days and --per-kind must be positive")
    wanted = set(k for k in a.kinds.split(",") if k)
    unknown = wanted - {k for k, _, _ in KINDS}
    if unknown:
        sys.exit(f"tsbs_queries.py: unknown query kinds {sorted(unknown)}")
    with open(a.out, "w") as f:
        for kind, fn, args in KINDS:
            # One generator per kind, seeded from the seed and the kind, so
            # that a kind's instances do not depend on the other kinds chosen.
            g = Gen(a.scale, a.days, f"{a.seed}/{kind}")
            for i in range(1, a.per_kind + 1):
                sql, ordered = getattr(g, fn)(*args)
                if not wanted or kind in wanted:
                    f.write(f"{kind}\t{i}\t{ordered}\t{sql}\n")


if __name__ == "__main__":
    main()
