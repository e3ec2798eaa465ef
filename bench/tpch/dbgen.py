#!/usr/bin/python3
"""TPC-H data generator and refresh-change generator (python3, standard library only).

    bench/tpch/dbgen.py --sf 0.01 --seed 1 --out DIR [--jobs N] [--tables t1,t2]
    bench/tpch/dbgen.py --sf 0.01 --seed 1 --changes N [--round R] [--out FILE]

Data: one file per table, DIR/<table>.tsv, in PostgreSQL's COPY text format
(tab separated, no header, no NULLs), rows in primary-key order; load with
`\\copy lineitem from 'DIR/lineitem.tsv'` or `COPY lineitem FROM STDIN`.
The value domains follow the TPC-H specification (2.18), clause 4.2:

  * cardinalities: part 200,000*SF, partsupp 4 per part, supplier 10,000*SF,
    customer 150,000*SF, orders 1,500,000*SF (10 per customer), lineitem 1..7
    per order (about 6,000,000*SF), nation 25, region 5 (at least one row of
    each scaled table);
  * keys: dense 1..N, except o_orderkey, which is sparse as in dbgen (only
    the first 8 of every 32 keys: 1-7, 32-39, 64-71, ..., up to 6,000,000*SF);
    orders only for customers whose key is not a multiple of 3;
    ps_suppkey = (ps_partkey + i*(S/4 + (ps_partkey-1)/S)) mod S + 1 for
    i = 0..3, and each lineitem's (l_partkey, l_suppkey) is one of its part's
    four partsupp rows;
  * p_name: five distinct words of the 92 colours; p_mfgr Manufacturer#M,
    p_brand Brand#MN, p_type / p_container from the spec's syllables,
    p_size 1..50, p_retailprice = (90000 + (key/10 mod 20001) + 100*(key mod
    1000))/100; ps_availqty 1..9999, ps_supplycost 1.00..1000.00;
    acctbal -999.99..9999.99; phone CC-ddd-ddd-dddd with CC = nationkey + 10;
    segments, priorities, ship modes and instructions as the spec's lists;
    o_clerk Clerk#<1..SF*1000>, o_shippriority 0;
  * dates: o_orderdate uniform in [1992-01-01, 1998-12-31 - 151 days];
    l_shipdate = o_orderdate + 1..121, l_commitdate = o_orderdate + 30..90,
    l_receiptdate = l_shipdate + 1..30; l_returnflag R or A when
    l_receiptdate <= 1995-06-17 else N; l_linestatus O when
    l_shipdate > 1995-06-17 else F; o_orderstatus F / O when all its lines
    are F / O, else P;
  * l_quantity 1..50, l_discount 0.00..0.10, l_tax 0.00..0.08,
    l_extendedprice = l_quantity * p_retailprice, o_totalprice =
    sum(l_extendedprice * (1 + l_tax) * (1 - l_discount));
  * comments: substrings, of a random length in the spec's [min, max] and at
    a random offset, of a text pool made by the spec's pseudo-text grammar
    with dbgen's word lists and weights (so 'special ... requests' and the
    like occur as in dbgen); s_comment of SF*5 suppliers holds
    'Customer ... Complaints' and of SF*5 others 'Customer ... Recommends';
  * nation and region exactly as the spec.

The output depends only on --sf and --seed (not on --jobs): every table is
made in chunks, each from its own random generator seeded by (seed, table,
chunk).

Changes (--changes N): SQL statements (PostgreSQL syntax, one per line) of
round R (default 1) of random changes, N changes a round, valid against the
data of the same --sf/--seed after rounds 1..R-1 (made with the same N) were
applied: the generator replays the earlier rounds in memory. Kinds of change:
  * insert a new order with 1..7 lineitems (o_orderkey from the keys the
    sparse scheme leaves free, as TPC-H's RF1 does; existing customers, parts
    and their partsupp suppliers; prices, totals, dates and flags by the
    rules above);
  * delete an existing order with its lineitems (RF2);
  * updates of every table: non-key columns (prices, quantities, dates with
    their dependent flags, names, types, brands, comments toggled into and out
    of the queries' LIKE patterns, acctbal, segments, nations with matching
    phones, regions of nations, ...), and key changes: o_orderkey (its
    lineitems follow), (l_orderkey, l_linenumber) (a lineitem moves to another
    order or line number), c_custkey, p_partkey, s_suppkey, ps_suppkey,
    n_nationkey, r_regionkey to new unused keys, with the rows referring to
    them updated in the same change (referential integrity is kept, and the
    rules above: a moved lineitem's dates follow its new order's date; orders'
    status and total price follow their lineitems' changes, except that a
    p_retailprice change updates l_extendedprice but not o_totalprice).
Each round has at least one change of each kind (when N allows), the rest
drawn at random. To move the queries' results, a quarter of the new orders
are large (7 lines of quantity 43..50: Q18's sum > 300), most of them dated
into the windows of the top-N queries Q3 (with a BUILDING customer), Q10 and
Q15; some part updates set brands, types, sizes and containers that the
queries select (Q2, Q8, Q14, Q16, Q17, Q19: each such profile in turn),
and some new orders have a line that Q19 selects; a p_name update may
put 'forest' or 'green' first (Q9, Q20); half the nation changes of
customers and suppliers go to the nations the queries name. Every value
stays within its domain and NOT NULL.
"""

import argparse
import datetime
import os
import random
import sys
import time

# ---------------------------------------------------------------- constants

START_DATE = datetime.date(1992, 1, 1)
CURRENT_DATE = datetime.date(1995, 6, 17)
END_DATE = datetime.date(1998, 12, 31)
CURRENT_DAY = (CURRENT_DATE - START_DATE).days          # 1263
MAX_ORDER_DAY = (END_DATE - START_DATE).days - 151       # last o_orderdate
# Day number (days since 1992-01-01) -> 'YYYY-MM-DD', with margin past 1998.
DATES = [(START_DATE + datetime.timedelta(days=d)).isoformat() for d in range(2557 + 400)]

NATIONS = [  # (key, name, regionkey)
    (0, "ALGERIA", 0), (1, "ARGENTINA", 1), (2, "BRAZIL", 1), (3, "CANADA", 1),
    (4, "EGYPT", 4), (5, "ETHIOPIA", 0), (6, "FRANCE", 3), (7, "GERMANY", 3),
    (8, "INDIA", 2), (9, "INDONESIA", 2), (10, "IRAN", 4), (11, "IRAQ", 4),
    (12, "JAPAN", 2), (13, "JORDAN", 4), (14, "KENYA", 0), (15, "MOROCCO", 0),
    (16, "MOZAMBIQUE", 0), (17, "PERU", 1), (18, "CHINA", 2), (19, "ROMANIA", 3),
    (20, "SAUDI ARABIA", 4), (21, "VIETNAM", 2), (22, "RUSSIA", 3),
    (23, "UNITED KINGDOM", 3), (24, "UNITED STATES", 1),
]
REGIONS = [(0, "AFRICA"), (1, "AMERICA"), (2, "ASIA"), (3, "EUROPE"), (4, "MIDDLE EAST")]

COLORS = (
    "almond antique aquamarine azure beige bisque black blanched blue blush brown "
    "burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream "
    "cyan dark deep dim dodger drab firebrick floral forest frosted gainsboro ghost "
    "goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon "
    "light lime linen magenta maroon medium metallic midnight mint misty moccasin "
    "navajo navy olive orange orchid pale papaya peach peru pink plum powder puff "
    "purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke "
    "snow spring steel tan thistle tomato turquoise violet wheat white yellow"
).split()
assert len(COLORS) == 92

TYPE_S1 = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]
TYPE_S2 = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"]
TYPE_S3 = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]
TYPES = [f"{a} {b} {c}" for a in TYPE_S1 for b in TYPE_S2 for c in TYPE_S3]          # 150
CONT_S1 = ["SM", "LG", "MED", "JUMBO", "WRAP"]
CONT_S2 = ["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"]
CONTAINERS = [f"{a} {b}" for a in CONT_S1 for b in CONT_S2]                           # 40
SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"]
PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]
INSTRUCTIONS = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
MODES = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
MFGRS = [f"Manufacturer#{m}" for m in range(1, 6)]
BRANDS = [[f"Brand#{m}{n}" for n in range(1, 6)] for m in range(1, 6)]
DISCOUNTS = [f"0.{d:02d}" for d in range(11)]   # 0.00 .. 0.10
TAXES = DISCOUNTS[:9]                             # 0.00 .. 0.08

# The pseudo-text grammar (clause 4.2.2.14) with dbgen's dists.dss weights.
_W = {
    "nouns": "packages 40, requests 40, accounts 40, deposits 40, foxes 20, ideas 20, "
             "theodolites 20, pinto beans 20, instructions 20, dependencies 10, excuses 10, "
             "platelets 10, asymptotes 10, courts 5, dolphins 5, multipliers 1, sauternes 1, "
             "warthogs 1, frets 1, dinos 1, attainments 1, somas 1, Tiresias 1, patterns 1, "
             "forges 1, braids 1, hockey players 1, frays 1, warhorses 1, dugouts 1, "
             "notornis 1, epitaphs 1, pearls 1, tithes 1, waters 1, orbits 1, gifts 1, "
             "sheaves 1, depths 1, sentiments 1, decoys 1, realms 1, pains 1, grouches 1, "
             "escapades 1",
    "verbs": "sleep 20, wake 20, are 20, cajole 20, haggle 20, nag 10, use 10, boost 10, "
             "affix 5, detect 5, integrate 5, maintain 1, nod 1, was 1, lose 1, sublate 1, "
             "solve 1, thrash 1, promise 1, engage 1, hinder 1, print 1, x-ray 1, breach 1, "
             "eat 1, grow 1, impress 1, mold 1, poach 1, serve 1, run 1, dazzle 1, snooze 1, "
             "doze 1, unwind 1, kindle 1, play 1, hang 1, believe 1, doubt 1",
    "adjectives": "special 20, pending 20, unusual 20, express 20, furious 1, sly 1, "
                  "careful 1, blithe 1, quick 1, fluffy 1, slow 1, quiet 1, ruthless 1, "
                  "thin 1, close 1, dogged 1, daring 1, brave 1, stealthy 1, permanent 1, "
                  "enticing 1, idle 1, busy 1, regular 50, final 40, ironic 40, even 30, "
                  "bold 20, silent 10",
    "adverbs": "sometimes 1, always 1, never 1, furiously 50, slyly 50, carefully 50, "
               "blithely 40, quickly 30, fluffily 20, slowly 1, quietly 1, ruthlessly 1, "
               "thinly 1, closely 1, doggedly 1, daringly 1, bravely 1, stealthily 1, "
               "permanently 1, enticingly 1, idly 1, busily 1, regularly 1, finally 1, "
               "ironically 1, evenly 1, boldly 1, silently 1",
    "prepositions": "about 50, above 50, according to 50, across 50, after 50, against 40, "
                    "along 40, alongside of 30, among 30, around 20, at 10, atop 1, before 1, "
                    "behind 1, beneath 1, beside 1, besides 1, between 1, beyond 1, by 1, "
                    "despite 1, during 1, except 1, for 1, from 1, in place of 1, inside 1, "
                    "instead of 1, into 1, near 1, of 1, on 1, outside 1, over 1, past 1, "
                    "since 1, through 1, throughout 1, to 1, toward 1, under 1, until 1, up 1, "
                    "upon 1, without 1, with 1, within 1",
    "auxiliaries": "do 1, may 1, might 1, shall 1, will 1, would 1, can 1, could 1, "
                   "should 1, ought to 1, must 1, will have to 1, shall have to 1, "
                   "could have to 1, should have to 1, must have to 1, need to 1, try to 1",
    "terminators": ". 50, ; 1, : 1, ? 1, ! 1, -- 1",
}


def _dist(spec):
    words, cum, total = [], [], 0
    for item in spec.split(", "):
        w, n = item.rsplit(" ", 1)
        total += int(n)
        words.append(w)
        cum.append(total)
    return words, cum


DISTS = {k: _dist(v) for k, v in _W.items()}
# sentence: N V T 3, N V P T 3, N V N T 3, N P V N T 1, N P V P T 1
SENTENCES = (["NVT", "NVPT", "NVNT", "NPVNT", "NPVPT"], [3, 6, 9, 10, 11])
NOUN_PHRASES = (["N", "JN", "J,JN", "DJN"], [10, 30, 40, 90])
VERB_PHRASES = (["V", "XV", "VD", "XVD"], [30, 31, 71, 72])

ALNUM = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,"

CHUNK = 1000   # rows (orders: orders with their lineitems) per generator chunk


def money(cents):
    """cents (int) -> 'd.dd' (exact: |cents| < 2**53)."""
    return "%.2f" % (cents / 100)


def mk_sparse(i, seq=0):
    """dbgen's sparse order keys: index i (1-based), sequence 0 for the base data."""
    low = i & 7
    return ((((i >> 3) << 2) + seq) << 3) + low


def unsparse(key):
    """-> (index, seq) of an order key made by mk_sparse."""
    low = key & 7
    hi = key >> 3
    return ((hi >> 2) << 3) | low, hi & 3


def retail_cents(partkey):
    return 90000 + ((partkey // 10) % 20001) + 100 * (partkey % 1000)


# ---------------------------------------------------------------- scale

class Scale:
    def __init__(self, sf, seed):
        self.sf = sf
        self.seed = seed
        self.P = max(1, int(200000 * sf))
        self.S = max(1, int(10000 * sf))
        self.C = max(1, int(150000 * sf))
        self.O = max(1, int(1500000 * sf))
        self.CLERKS = max(1, int(1000 * sf))
        self.C_ORDERING = self.C - self.C // 3   # customers whose key is not a multiple of 3
        self._pool = None
        self._alnum = None
        self._bbb = None

    def rng(self, *what):
        return random.Random("/".join(str(x) for x in (self.seed,) + what))

    # The text pool: sentences of the grammar, as dbgen's (smaller: 4 MiB).
    @property
    def pool(self):
        if self._pool is None:
            r = self.rng("textpool")
            choices = r.choices
            d = DISTS

            def word(kind):
                w, c = d[kind]
                return choices(w, cum_weights=c)[0]

            def noun_phrase():
                shape = choices(*NOUN_PHRASES)[0]
                if shape == "N":
                    return word("nouns")
                if shape == "JN":
                    return word("adjectives") + " " + word("nouns")
                if shape == "J,JN":
                    return word("adjectives") + ", " + word("adjectives") + " " + word("nouns")
                return word("adverbs") + " " + word("adjectives") + " " + word("nouns")

            def verb_phrase():
                shape = choices(*VERB_PHRASES)[0]
                if shape == "V":
                    return word("verbs")
                if shape == "XV":
                    return word("auxiliaries") + " " + word("verbs")
                if shape == "VD":
                    return word("verbs") + " " + word("adverbs")
                return word("auxiliaries") + " " + word("verbs") + " " + word("adverbs")

            def prep_phrase():
                return word("prepositions") + " the " + noun_phrase()

            parts, size, target = [], 0, 1 << 22
            while size < target:
                shape = choices(*SENTENCES)[0]
                out = []
                for s in shape:
                    if s == "N":
                        out.append(noun_phrase())
                    elif s == "V":
                        out.append(verb_phrase())
                    elif s == "P":
                        out.append(prep_phrase())
                    else:
                        out[-1] += word("terminators")
                sentence = " ".join(out)
                parts.append(sentence)
                size += len(sentence) + 1
            self._pool = " ".join(parts)
        return self._pool

    @property
    def alnum(self):
        if self._alnum is None:
            r = self.rng("alnum")
            self._alnum = "".join(r.choices(ALNUM, k=1 << 16))
        return self._alnum

    @property
    def bbb(self):
        """Supplier keys whose comment holds 'Customer%Complaints' / 'Customer%Recommends'."""
        if self._bbb is None:
            n = max(1, int(5 * self.sf))
            r = self.rng("bbb")
            picked = r.sample(range(1, self.S + 1), min(self.S, 2 * n))
            self._bbb = (set(picked[:n]), set(picked[n:]))
        return self._bbb

    def supp_of(self, partkey, i):
        """The i-th (0..3) supplier of a base part (clause 4.2.3)."""
        S = self.S
        if S >= 240:
            return (partkey + i * (S // 4 + (partkey - 1) // S)) % S + 1
        supps = self.supps_of(partkey)
        return supps[i % len(supps)]

    def supps_of(self, partkey):
        S = self.S
        out = []
        for i in range(4):
            s = (partkey + i * (S // 4 + (partkey - 1) // S)) % S + 1
            while s in out and len(out) < S:   # tiny scale factors only
                s = s % S + 1
            out.append(s)
        return out if S >= 4 else out[:S]


def text(r, pool, lo, hi):
    n = lo + int(r() * (hi - lo + 1))
    off = int(r() * (len(pool) - n))
    return pool[off:off + n]


def vstring(r, alnum, lo, hi):
    n = lo + int(r() * (hi - lo + 1))
    off = int(r() * (len(alnum) - n))
    return alnum[off:off + n]


def phone(r, nationkey):
    return "%d-%d-%d-%d" % (nationkey + 10, 100 + int(r() * 900), 100 + int(r() * 900),
                            1000 + int(r() * 9000))


def insert_bbb(r, comment, word):
    """Puts 'Customer ' and later `word` into the comment, keeping its length."""
    n = len(comment)
    start = int(r() * (n - 19 + 1))
    pos = start + 9 + int(r() * (n - 10 - start - 9 + 1))
    return comment[:start] + "Customer " + comment[start + 9:pos] + word + comment[pos + 10:]


# ---------------------------------------------------------------- rows (raw)
# Raw rows hold ints for keys, cents for money, day numbers for dates.

def gen_part_chunk(sc, c):
    rng = sc.rng("part", c)
    r, sample = rng.random, rng.sample
    pool = sc.pool
    rows = []
    for key in range(c * CHUNK + 1, min(sc.P, (c + 1) * CHUNK) + 1):
        m = int(r() * 5)
        rows.append((key, " ".join(sample(COLORS, 5)), m, int(r() * 5), TYPES[int(r() * 150)],
                     1 + int(r() * 50), CONTAINERS[int(r() * 40)], retail_cents(key),
                     text(r, pool, 5, 22)))
    return rows


def fmt_part(row):
    key, name, m, n, typ, size, cont, price, comment = row
    return f"{key}\t{name}\t{MFGRS[m]}\t{BRANDS[m][n]}\t{typ}\t{size}\t{cont}\t{money(price)}\t{comment}\n"


def gen_partsupp_chunk(sc, c):
    r = sc.rng("partsupp", c).random
    pool = sc.pool
    rows = []
    for key in range(c * CHUNK + 1, min(sc.P, (c + 1) * CHUNK) + 1):
        for s in sc.supps_of(key) if sc.S < 240 else [sc.supp_of(key, i) for i in range(4)]:
            rows.append((key, s, 1 + int(r() * 9999), 100 + int(r() * 99901), text(r, pool, 49, 198)))
    return rows


def fmt_partsupp(row):
    p, s, qty, cost, comment = row
    return f"{p}\t{s}\t{qty}\t{money(cost)}\t{comment}\n"


def gen_supplier_chunk(sc, c):
    r = sc.rng("supplier", c).random
    pool, alnum = sc.pool, sc.alnum
    complaints, recommends = sc.bbb
    rows = []
    for key in range(c * CHUNK + 1, min(sc.S, (c + 1) * CHUNK) + 1):
        nk = int(r() * 25)
        comment = text(r, pool, 25, 100)
        if key in complaints:
            comment = insert_bbb(r, comment, "Complaints")
        elif key in recommends:
            comment = insert_bbb(r, comment, "Recommends")
        rows.append((key, "Supplier#%09d" % key, vstring(r, alnum, 10, 40), nk, phone(r, nk),
                     -99999 + int(r() * 1099999), comment))
    return rows


def fmt_supplier(row):
    key, name, addr, nk, ph, bal, comment = row
    return f"{key}\t{name}\t{addr}\t{nk}\t{ph}\t{money(bal)}\t{comment}\n"


def gen_customer_chunk(sc, c):
    r = sc.rng("customer", c).random
    pool, alnum = sc.pool, sc.alnum
    rows = []
    for key in range(c * CHUNK + 1, min(sc.C, (c + 1) * CHUNK) + 1):
        nk = int(r() * 25)
        rows.append((key, "Customer#%09d" % key, vstring(r, alnum, 10, 40), nk, phone(r, nk),
                     -99999 + int(r() * 1099999), SEGMENTS[int(r() * 5)], text(r, pool, 29, 116)))
    return rows


def fmt_customer(row):
    key, name, addr, nk, ph, bal, seg, comment = row
    return f"{key}\t{name}\t{addr}\t{nk}\t{ph}\t{money(bal)}\t{seg}\t{comment}\n"


def order_status_total(lines):
    """lines: raw lineitem rows -> (o_orderstatus, o_totalprice cents)."""
    total = 0
    nf = 0
    for ln in lines:
        total += ln[5] * (100 - ln[6]) * (100 + ln[7])
        nf += ln[9] == "F"
    status = "F" if nf == len(lines) else ("O" if nf == 0 else "P")
    return status, (total + 5000) // 10000


def make_lines(sc, r, pool, okey, od, n, part_ids=None, supp_of=None, price_of=None):
    """n lineitems of order okey dated od. part_ids/supp_of/price_of: the current
    entities (for changes); None: the base data."""
    P = sc.P
    lines = []
    for ln in range(1, n + 1):
        if part_ids is None:
            pk = 1 + int(r() * P)
            sk = sc.supp_of(pk, int(r() * 4))
            price = retail_cents(pk)
        else:
            pk = part_ids()
            sk = supp_of(pk, int(r() * 4))
            price = price_of(pk)
        qty = 1 + int(r() * 50)
        ship = od + 1 + int(r() * 121)
        commit = od + 30 + int(r() * 61)
        receipt = ship + 1 + int(r() * 30)
        if receipt <= CURRENT_DAY:
            rf = "R" if r() < 0.5 else "A"
        else:
            rf = "N"
        lines.append([okey, pk, sk, ln, qty, qty * price, int(r() * 11), int(r() * 9), rf,
                      "O" if ship > CURRENT_DAY else "F", ship, commit, receipt,
                      INSTRUCTIONS[int(r() * 4)], MODES[int(r() * 7)], text(r, pool, 10, 43)])
    return lines


def gen_orders_chunk(sc, c):
    """-> list of (order row, [lineitem rows]) of orders index c*CHUNK+1 .. ."""
    r = sc.rng("orders", c).random
    pool = sc.pool
    out = []
    for i in range(c * CHUNK + 1, min(sc.O, (c + 1) * CHUNK) + 1):
        okey = mk_sparse(i)
        j = int(r() * sc.C_ORDERING)
        cust = j + j // 2 + 1
        od = int(r() * (MAX_ORDER_DAY + 1))
        prio = PRIORITIES[int(r() * 5)]
        clerk = 1 + int(r() * sc.CLERKS)
        comment = text(r, pool, 19, 78)
        lines = make_lines(sc, r, pool, okey, od, 1 + int(r() * 7))
        status, total = order_status_total(lines)
        out.append(([okey, cust, status, total, od, prio, clerk, 0, comment], lines))
    return out


def fmt_order(o):
    key, cust, status, total, od, prio, clerk, shipprio, comment = o
    return f"{key}\t{cust}\t{status}\t{money(total)}\t{DATES[od]}\t{prio}\tClerk#{clerk:09d}\t{shipprio}\t{comment}\n"


def fmt_lines(lines):
    d, t = DISCOUNTS, DATES
    return "".join(
        f"{l[0]}\t{l[1]}\t{l[2]}\t{l[3]}\t{l[4]}\t{money(l[5])}\t{d[l[6]]}\t{d[l[7]]}\t{l[8]}\t{l[9]}\t"
        f"{t[l[10]]}\t{t[l[11]]}\t{t[l[12]]}\t{l[13]}\t{l[14]}\t{l[15]}\n" for l in lines)


def nation_rows(sc):
    r = sc.rng("nation").random
    return [(k, name, rk, text(r, sc.pool, 31, 114)) for k, name, rk in NATIONS]


def region_rows(sc):
    r = sc.rng("region").random
    return [(k, name, text(r, sc.pool, 31, 115)) for k, name in REGIONS]


# ---------------------------------------------------------------- data files

def _chunk_text(args):
    sf, seed, table, c = args
    sc = _worker_scale(sf, seed)
    if table == "part":
        return "".join(map(fmt_part, gen_part_chunk(sc, c))), None
    if table == "partsupp":
        return "".join(map(fmt_partsupp, gen_partsupp_chunk(sc, c))), None
    if table == "supplier":
        return "".join(map(fmt_supplier, gen_supplier_chunk(sc, c))), None
    if table == "customer":
        return "".join(map(fmt_customer, gen_customer_chunk(sc, c))), None
    if table == "orders":
        chunk = gen_orders_chunk(sc, c)
        return "".join(fmt_order(o) for o, _ in chunk), "".join(fmt_lines(ls) for _, ls in chunk)
    raise ValueError(table)


_SCALES = {}


def _worker_scale(sf, seed):
    key = (sf, seed)
    if key not in _SCALES:
        _SCALES[key] = Scale(sf, seed)
    return _SCALES[key]


TABLES = ["region", "nation", "part", "partsupp", "supplier", "customer", "orders", "lineitem"]


def generate(sf, seed, out, jobs, tables):
    os.makedirs(out, exist_ok=True)
    sc = _worker_scale(sf, seed)
    counts = {}
    if "region" in tables:
        with open(os.path.join(out, "region.tsv"), "w") as f:
            for k, name, comment in region_rows(sc):
                f.write(f"{k}\t{name}\t{comment}\n")
        counts["region"] = 5
    if "nation" in tables:
        with open(os.path.join(out, "nation.tsv"), "w") as f:
            for k, name, rk, comment in nation_rows(sc):
                f.write(f"{k}\t{name}\t{rk}\t{comment}\n")
        counts["nation"] = 25
    work = []
    for table, n in (("part", sc.P), ("partsupp", sc.P), ("supplier", sc.S), ("customer", sc.C),
                     ("orders", sc.O)):
        if table in tables or (table == "orders" and "lineitem" in tables):
            work += [(table, c) for c in range((n + CHUNK - 1) // CHUNK)]
    files = {}

    def fh(name):
        if name not in files:
            files[name] = open(os.path.join(out, name + ".tsv"), "w")
        return files[name]

    args = [(sf, seed, t, c) for t, c in work]
    if jobs > 1:
        import multiprocessing
        sc.pool  # made once, inherited by forked workers
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap(_chunk_text, args, chunksize=4)
    else:
        pool = None
        results = map(_chunk_text, args)
    for (table, c), (a, b) in zip(work, results):
        if table == "orders":
            if "orders" in tables:
                fh("orders").write(a)
                counts["orders"] = counts.get("orders", 0) + a.count("\n")
            if "lineitem" in tables:
                fh("lineitem").write(b)
                counts["lineitem"] = counts.get("lineitem", 0) + b.count("\n")
        else:
            fh(table).write(a)
            counts[table] = counts.get(table, 0) + a.count("\n")
    if pool is not None:
        pool.close()
        pool.join()
    for f in files.values():
        f.close()
    return counts


# ---------------------------------------------------------------- changes

def q(s):
    return "'" + s.replace("'", "''") + "'"


class IndexedSet:
    def __init__(self):
        self.items, self.pos = [], {}

    def add(self, x):
        if x not in self.pos:
            self.pos[x] = len(self.items)
            self.items.append(x)

    def remove(self, x):
        i = self.pos.pop(x)
        last = self.items.pop()
        if i < len(self.items):
            self.items[i] = last
            self.pos[last] = i

    def __len__(self):
        return len(self.items)


class World:
    """The database after the replayed changes, as an overlay on the base data:
    rows of orders and lineitems that changes touched, and for the other tables
    maps from each entity's base key (its identity) to its current key."""

    def __init__(self, sc):
        self.sc = sc
        self.orders = {}        # current o_orderkey -> order row (list), None: deleted base order
        self.lines = {}         # current o_orderkey -> {linenumber: lineitem row}
        self.extra = IndexedSet()   # current order keys not base keys (inserted / renamed)
        self.removed_base = 0
        self.used_gap = set()   # sparse-gap order keys taken
        self.keymap = {t: {} for t in ("cust", "part", "supp", "nation", "region")}
        self.next_key = {"cust": sc.C + 1, "part": sc.P + 1, "supp": sc.S + 1, "nation": 25, "region": 5}
        self.price = {}         # part id -> retail price cents (changed)
        self.psupps = {}        # part id -> [supplier ids] (changed)
        self.resupplied = {}    # (part id, old supplier id) -> new supplier id
        self.nation_region = {k: rk for k, _, rk in NATIONS}
        self._chunks = {}
        self._cust_chunks = {}
        self.profiles = 0       # profile_part changes made
        self.q19_parts = []     # (part id, Q19's quantity range) of Q19's profiles

    # keys
    def cur(self, kind, ident):
        return self.keymap[kind].get(ident, ident)

    def new_key(self, kind):
        k = self.next_key[kind]
        self.next_key[kind] += 1
        return k

    def alloc_order_key(self, r):
        while True:
            k = mk_sparse(1 + int(r() * self.sc.O), 1 + int(r() * 3))
            if k not in self.used_gap:
                self.used_gap.add(k)
                return k

    def is_base(self, key):
        i, seq = unsparse(key)
        return seq == 0 and 1 <= i <= self.sc.O

    def exists(self, key):
        if key in self.orders:
            return self.orders[key] is not None
        return self.is_base(key)

    def pick_order(self, r):
        nbase = self.sc.O - self.removed_base
        total = nbase + len(self.extra)
        if total == 0:
            return None
        x = int(r() * total)
        if x < len(self.extra):
            return self.extra.items[x]
        while True:
            k = mk_sparse(1 + int(r() * self.sc.O))
            if self.exists(k):
                return k

    def touch(self, key):
        """Loads a base order and its lines into the overlay; -> the order row."""
        if key not in self.orders:
            i, _ = unsparse(key)
            c = (i - 1) // CHUNK
            if c not in self._chunks:
                if len(self._chunks) > 64:
                    self._chunks.clear()
                self._chunks[c] = gen_orders_chunk(self.sc, c)
            o, ls = self._chunks[c][(i - 1) % CHUNK]
            self.orders[key] = list(o)
            self.lines[key] = {l[3]: list(l) for l in ls}
            for l in self.lines[key].values():   # the changes made to the base lines
                while (l[1], l[2]) in self.resupplied:
                    l[2] = self.resupplied[(l[1], l[2])]
                if l[1] in self.price:
                    l[5] = l[4] * self.price[l[1]]
        return self.orders[key]

    def remove_order(self, key):
        if self.is_base(key):
            self.removed_base += 1
        else:
            self.extra.remove(key)
        self.orders[key] = None
        self.lines.pop(key, None)

    def add_order(self, key, row, lines):
        self.orders[key] = row
        self.lines[key] = {l[3]: l for l in lines}
        if self.is_base(key):   # never: new keys are gap keys
            raise AssertionError(key)
        self.extra.add(key)

    def supps(self, part):
        if part in self.psupps:
            return self.psupps[part]
        return self.sc.supps_of(part)

    def part_price(self, part):
        return self.price.get(part, retail_cents(part))


def _day(y, m, d):
    return (datetime.date(y, m, d) - START_DATE).days


# o_orderdate ranges (first, last day, customer segment) of some large new
# orders: Q3's top 10 (BUILDING, ordered before 1995-03-15, shipped after),
# Q10's top 20 (1993-10-01 .. 1993-12-31), Q15's top supplier (1996-01-01 ..
# 1996-03-31 shipping); None: uniform.
BIG_ORDER_WINDOWS = [(_day(1995, 2, 1), _day(1995, 3, 14), "BUILDING"),
                     (_day(1995, 2, 15), _day(1995, 3, 14), "BUILDING"),
                     (_day(1993, 10, 1), _day(1993, 12, 31), None),
                     (_day(1995, 11, 15), _day(1996, 2, 28), None),
                     None]

# Part values that the queries select: (brand, container, type, sizes, Q19's
# quantities); None: any.
PART_PROFILES = [
    ("Brand#23", "MED BOX", None, None, None),                         # Q17
    ("Brand#12", "SM CASE", None, range(1, 6), (1, 11)),               # Q19
    ("Brand#23", "MED PKG", None, range(1, 11), (10, 20)),             # Q19
    ("Brand#34", "LG BOX", None, range(1, 16), (20, 30)),              # Q19
    (None, None, "ECONOMY ANODIZED STEEL", None, None),                # Q8
    (None, None, "SMALL PLATED BRASS", [15], None),                    # Q2
    (None, None, "PROMO BURNISHED COPPER", None, None),                 # Q14
    ("Brand#32", None, "LARGE BRUSHED NICKEL", [49, 14, 23, 45, 19, 3, 36, 9], None),   # Q16
    ("Brand#45", None, "MEDIUM POLISHED TIN", [49, 14, 23, 45, 19, 3, 36, 9], None),    # not Q16
]


class Changes:
    KINDS = ["insert_order", "delete_order", "update_lineitem", "move_lineitem", "renumber_lineitem",
             "update_orders", "shift_order_dates", "rekey_order", "update_customer", "rekey_customer",
             "update_part", "profile_part", "reprice_part", "rekey_part", "update_partsupp", "resupply_partsupp",
             "update_supplier", "rekey_supplier", "update_nation", "rekey_nation", "update_region",
             "rekey_region"]
    WEIGHTS = {"insert_order": 24, "delete_order": 18, "update_lineitem": 8, "move_lineitem": 4,
               "renumber_lineitem": 2, "update_orders": 6, "shift_order_dates": 4, "rekey_order": 3,
               "update_customer": 6, "rekey_customer": 2, "update_part": 5, "profile_part": 4, "reprice_part": 2,
               "rekey_part": 1, "update_partsupp": 4, "resupply_partsupp": 2, "update_supplier": 4,
               "rekey_supplier": 1, "update_nation": 1, "rekey_nation": 0.3, "update_region": 0.5,
               "rekey_region": 0.2}

    def __init__(self, sc):
        self.sc = sc
        self.w = World(sc)

    def round(self, rnd, n):
        rng = self.rng = self.sc.rng("changes", rnd)
        self.r = rng.random
        self.out = []
        kinds = list(self.KINDS) if n >= len(self.KINDS) else []
        weights = [self.WEIGHTS[k] for k in self.KINDS]
        kinds += rng.choices(self.KINDS, weights=weights, k=n - len(kinds))
        rng.shuffle(kinds)
        for k in kinds:
            getattr(self, k)()
        return self.out

    def emit(self, sql):
        self.out.append(sql)

    # helpers
    def pick(self, seq):
        return seq[int(self.r() * len(seq))]

    def rand_cust(self):
        j = int(self.r() * self.sc.C_ORDERING)
        return j + j // 2 + 1

    def cust_of_segment(self, segment):
        """A customer (that may order) whose base c_mktsegment is segment."""
        for _ in range(1000):
            c = self.rand_cust()
            chunk = (c - 1) // CHUNK
            if chunk not in self.w._cust_chunks:
                self.w._cust_chunks[chunk] = gen_customer_chunk(self.sc, chunk)
            if self.w._cust_chunks[chunk][(c - 1) % CHUNK][6] == segment:
                return c
        return self.rand_cust()

    def query_nation(self):
        """A nation, half the time one the queries name (BRAZIL, CANADA, FRANCE, GERMANY, SAUDI ARABIA)."""
        return self.pick([2, 3, 6, 7, 20]) if self.r() < 0.5 else int(self.r() * 25)

    def rand_part(self):
        return 1 + int(self.r() * self.sc.P)

    def rand_supp(self):
        return 1 + int(self.r() * self.sc.S)

    def comment(self, lo, hi, must=None):
        c = text(self.r, self.sc.pool, lo, hi)
        if must == "special requests" and len(c) >= 17:
            i = int(self.r() * (len(c) - 16))
            c = c[:i] + "special requests" + c[i + 16:]
        return c

    def order_sql(self, o):
        key, cust, status, total, od, prio, clerk, sp, comment = o
        return (f"({key}, {self.w.cur('cust', cust)}, '{status}', {money(total)}, '{DATES[od]}', "
                f"'{prio}', 'Clerk#{clerk:09d}', {sp}, {q(comment)})")

    def line_sql(self, l):
        w = self.w
        return (f"({l[0]}, {w.cur('part', l[1])}, {w.cur('supp', l[2])}, {l[3]}, {l[4]}, {money(l[5])}, "
                f"{DISCOUNTS[l[6]]}, {DISCOUNTS[l[7]]}, '{l[8]}', '{l[9]}', '{DATES[l[10]]}', "
                f"'{DATES[l[11]]}', '{DATES[l[12]]}', '{l[13]}', '{l[14]}', {q(l[15])})")

    def refresh_order(self, key):
        """Keeps o_orderstatus and o_totalprice consistent with the lines."""
        o = self.w.orders[key]
        lines = list(self.w.lines[key].values())
        if not lines:
            return
        status, total = order_status_total(lines)
        if (status, total) != (o[2], o[3]):
            o[2], o[3] = status, total
            self.emit(f"UPDATE orders SET o_orderstatus = '{status}', o_totalprice = {money(total)} "
                      f"WHERE o_orderkey = {key};")

    def set_dates(self, l, delta):
        """Moves a line's dates by delta days; its flags follow the rules."""
        l[10] += delta
        l[11] += delta
        l[12] += delta
        if l[12] <= CURRENT_DAY:
            l[8] = l[8] if l[8] != "N" else ("R" if self.r() < 0.5 else "A")
        else:
            l[8] = "N"
        l[9] = "O" if l[10] > CURRENT_DAY else "F"

    def pick_line(self, min_lines=1):
        for _ in range(100):
            key = self.w.pick_order(self.r)
            if key is None:
                return None, None
            self.w.touch(key)
            lines = self.w.lines[key]
            if len(lines) >= min_lines:
                return key, self.pick(sorted(lines))
        return None, None

    # kinds
    def insert_order(self):
        w, r = self.w, self.r
        key = w.alloc_order_key(r)
        big = r() < 0.25
        cust = self.rand_cust()
        window = self.pick(BIG_ORDER_WINDOWS) if big else None
        if window:   # into a top-N query's window
            lo, hi = window[0], window[1]
            od = lo + int(r() * (hi - lo + 1))
            if window[2]:
                cust = self.cust_of_segment(window[2])
        else:
            od = int(r() * (MAX_ORDER_DAY + 1))
        lines = make_lines(self.sc, r, self.sc.pool, key, od, 7 if big else 1 + int(r() * 7),
                           part_ids=self.rand_part, supp_of=lambda p, i: self.pick(w.supps(p)),
                           price_of=w.part_price)
        if big:   # a large order: 7 lines of 43..50, so sum(l_quantity) > 300 (Q18), high revenue (Q3, Q10)
            for l in lines:
                qty = 43 + int(r() * 8)
                l[4], l[5] = qty, qty * w.part_price(l[1])
        elif w.q19_parts and r() < 0.3:   # a line Q19 selects, of a part given Q19's profile
            l = lines[0]
            p, (lo, hi) = self.pick(w.q19_parts)
            qty = lo + int(r() * (hi - lo + 1))
            l[1], l[2], l[4], l[5] = p, self.pick(w.supps(p)), qty, qty * w.part_price(p)
            l[13], l[14] = "DELIVER IN PERSON", "AIR"
        status, total = order_status_total(lines)
        o = [key, cust, status, total, od, self.pick(PRIORITIES), 1 + int(r() * self.sc.CLERKS),
             0, self.comment(19, 78, "special requests" if r() < 0.1 else None)]
        self.emit(f"INSERT INTO orders VALUES {self.order_sql(o)};")
        self.emit("INSERT INTO lineitem VALUES " + ", ".join(self.line_sql(l) for l in lines) + ";")
        w.add_order(key, o, lines)

    def delete_order(self):
        key = self.w.pick_order(self.r)
        if key is None:
            return
        self.emit(f"DELETE FROM lineitem WHERE l_orderkey = {key};")
        self.emit(f"DELETE FROM orders WHERE o_orderkey = {key};")
        self.w.remove_order(key)

    def update_lineitem(self):
        key, ln = self.pick_line()
        if key is None:
            return
        r, l = self.r, self.w.lines[key][ln]
        sets = []
        what = int(r() * 4)
        if what == 0:
            qty = 1 + int(r() * 50)
            l[4], l[5] = qty, qty * self.w.part_price(l[1])
            sets += [f"l_quantity = {qty}", f"l_extendedprice = {money(l[5])}"]
        elif what == 1:
            l[6], l[7] = int(r() * 11), int(r() * 9)
            sets += [f"l_discount = {DISCOUNTS[l[6]]}", f"l_tax = {DISCOUNTS[l[7]]}"]
        elif what == 2:
            l[13], l[14] = self.pick(INSTRUCTIONS), self.pick(MODES)
            sets += [f"l_shipinstruct = '{l[13]}'", f"l_shipmode = '{l[14]}'"]
            if l[8] != "N":
                l[8] = "A" if l[8] == "R" else "R"
                sets.append(f"l_returnflag = '{l[8]}'")
        else:
            l[15] = self.comment(10, 43)
            sets.append(f"l_comment = {q(l[15])}")
        self.emit(f"UPDATE lineitem SET {', '.join(sets)} WHERE l_orderkey = {key} AND l_linenumber = {ln};")
        self.refresh_order(key)

    def move_lineitem(self):
        """(l_orderkey, l_linenumber) changes: the line moves to another order."""
        key, ln = self.pick_line(min_lines=2)
        if key is None:
            return
        for _ in range(100):
            to = self.w.pick_order(self.r)
            if to is None:
                return
            self.w.touch(to)
            free = [n for n in range(1, 8) if n not in self.w.lines[to]]
            if to != key and free:
                break
        else:
            return
        n = self.pick(free)
        l = self.w.lines[key].pop(ln)
        l[0], l[3] = to, n
        self.w.lines[to][n] = l
        # Its dates move with it: relative to the new order's o_orderdate as before.
        delta = self.w.orders[to][4] - self.w.orders[key][4]
        self.set_dates(l, delta)
        self.emit(f"UPDATE lineitem SET l_orderkey = {to}, l_linenumber = {n}, l_shipdate = '{DATES[l[10]]}', "
                  f"l_commitdate = '{DATES[l[11]]}', l_receiptdate = '{DATES[l[12]]}', l_returnflag = '{l[8]}', "
                  f"l_linestatus = '{l[9]}' WHERE l_orderkey = {key} AND l_linenumber = {ln};")
        self.refresh_order(key)
        self.refresh_order(to)

    def renumber_lineitem(self):
        key, ln = self.pick_line()
        if key is None:
            return
        lines = self.w.lines[key]
        free = [n for n in range(1, 8) if n not in lines]
        if not free:
            return
        n = self.pick(free)
        l = lines.pop(ln)
        l[3] = n
        lines[n] = l
        self.emit(f"UPDATE lineitem SET l_linenumber = {n} WHERE l_orderkey = {key} AND l_linenumber = {ln};")

    def update_orders(self):
        key = self.w.pick_order(self.r)
        if key is None:
            return
        o = self.w.touch(key)
        o[5] = self.pick(PRIORITIES)
        o[8] = self.comment(19, 78, "special requests" if self.r() < 0.3 else None)
        self.emit(f"UPDATE orders SET o_orderpriority = '{o[5]}', o_comment = {q(o[8])} WHERE o_orderkey = {key};")

    def shift_order_dates(self):
        """o_orderdate moves; its lines' dates move with it, and their flags follow."""
        key = self.w.pick_order(self.r)
        if key is None:
            return
        o = self.w.touch(key)
        delta = int(self.r() * 121) - 60
        delta = max(-o[4], min(MAX_ORDER_DAY - o[4], delta))
        if delta == 0:
            return
        o[4] += delta
        self.emit(f"UPDATE orders SET o_orderdate = '{DATES[o[4]]}' WHERE o_orderkey = {key};")
        for ln, l in sorted(self.w.lines[key].items()):
            self.set_dates(l, delta)
            self.emit(f"UPDATE lineitem SET l_shipdate = '{DATES[l[10]]}', l_commitdate = '{DATES[l[11]]}', "
                      f"l_receiptdate = '{DATES[l[12]]}', l_returnflag = '{l[8]}', l_linestatus = '{l[9]}' "
                      f"WHERE l_orderkey = {key} AND l_linenumber = {ln};")
        self.refresh_order(key)

    def rekey_order(self):
        w = self.w
        key = w.pick_order(self.r)
        if key is None:
            return
        o = w.touch(key)
        lines = w.lines[key]
        new = w.alloc_order_key(self.r)
        self.emit(f"UPDATE orders SET o_orderkey = {new} WHERE o_orderkey = {key};")
        self.emit(f"UPDATE lineitem SET l_orderkey = {new} WHERE l_orderkey = {key};")
        w.remove_order(key)
        o[0] = new
        for l in lines.values():
            l[0] = new
        w.add_order(new, o, list(lines.values()))

    def update_customer(self):
        w, r = self.w, self.r
        c = 1 + int(r() * self.sc.C)
        k = w.cur("cust", c)
        what = int(r() * 4)
        if what == 0:
            sets = f"c_acctbal = {money(-99999 + int(r() * 1099999))}"
        elif what == 1:
            sets = f"c_mktsegment = '{self.pick(SEGMENTS)}', c_comment = {q(self.comment(29, 116))}"
        elif what == 2:
            n = self.query_nation()
            nk = w.cur("nation", n)
            sets = f"c_nationkey = {nk}, c_phone = '{phone(r, nk)}'"
        else:
            sets = f"c_address = {q(vstring(r, self.sc.alnum, 10, 40))}, c_name = 'Customer#{k:09d}'"
        self.emit(f"UPDATE customer SET {sets} WHERE c_custkey = {k};")

    def rekey_customer(self):
        w = self.w
        c = 1 + int(self.r() * self.sc.C)
        old, new = w.cur("cust", c), w.new_key("cust")
        while (new % 3 == 0) != (c % 3 == 0):   # only customers whose key is not a multiple of 3 order
            new = w.new_key("cust")
        self.emit(f"UPDATE customer SET c_custkey = {new} WHERE c_custkey = {old};")
        self.emit(f"UPDATE orders SET o_custkey = {new} WHERE o_custkey = {old};")
        w.keymap["cust"][c] = new

    def update_part(self):
        w, r = self.w, self.r
        p = self.rand_part()
        k = w.cur("part", p)
        what = int(r() * 4)
        if what == 0:
            names = self.rng.sample(COLORS, 5)
            if r() < 0.3:   # into / out of the queries' patterns (Q9 '%green%', Q20 'forest%')
                names[0] = self.pick(["forest", "green"])
                names = list(dict.fromkeys(names))
                while len(names) < 5:
                    c = self.pick(COLORS)
                    if c not in names:
                        names.append(c)
            sets = f"p_name = '{' '.join(names)}'"
        elif what == 1:
            m = int(r() * 5)
            sets = f"p_mfgr = '{MFGRS[m]}', p_brand = '{BRANDS[m][int(r() * 5)]}'"
        elif what == 2:
            sets = f"p_type = '{self.pick(TYPES)}', p_size = {1 + int(r() * 50)}"
        else:
            sets = f"p_container = '{self.pick(CONTAINERS)}', p_comment = {q(self.comment(5, 22))}"
        self.emit(f"UPDATE part SET {sets} WHERE p_partkey = {k};")

    def profile_part(self):
        """A part gets values that a query selects (the profiles in turn)."""
        w = self.w
        brand, cont, typ, size, q19 = PART_PROFILES[w.profiles % len(PART_PROFILES)]
        w.profiles += 1
        brand = brand or self.pick([b for bs in BRANDS for b in bs])
        p = self.rand_part()
        if q19:
            w.q19_parts.append((p, q19))
        self.emit(f"UPDATE part SET p_mfgr = 'Manufacturer#{brand[6]}', p_brand = '{brand}', "
                  f"p_type = '{typ or self.pick(TYPES)}', p_size = {self.pick(size) if size else 1 + int(self.r() * 50)}, "
                  f"p_container = '{cont or self.pick(CONTAINERS)}' WHERE p_partkey = {w.cur('part', p)};")

    def reprice_part(self):
        """p_retailprice changes; the lines' l_extendedprice follow."""
        w, r = self.w, self.r
        p = self.rand_part()
        k = w.cur("part", p)
        price = 90000 + int(r() * 120001)
        w.price[p] = price
        self.emit(f"UPDATE part SET p_retailprice = {money(price)} WHERE p_partkey = {k};")
        self.emit(f"UPDATE lineitem SET l_extendedprice = l_quantity * {money(price)} WHERE l_partkey = {k};")
        for key, lines in w.lines.items():
            changed = False
            for l in lines.values():
                if l[1] == p:
                    l[5] = l[4] * price
                    changed = True
            if changed and w.orders.get(key) is not None:
                pass   # o_totalprice is left as it was, as an UPDATE of part alone would

    def rekey_part(self):
        w = self.w
        p = self.rand_part()
        old, new = w.cur("part", p), w.new_key("part")
        self.emit(f"UPDATE part SET p_partkey = {new} WHERE p_partkey = {old};")
        self.emit(f"UPDATE partsupp SET ps_partkey = {new} WHERE ps_partkey = {old};")
        self.emit(f"UPDATE lineitem SET l_partkey = {new} WHERE l_partkey = {old};")
        w.keymap["part"][p] = new

    def update_partsupp(self):
        w, r = self.w, self.r
        p = self.rand_part()
        s = self.pick(w.supps(p))
        what = int(r() * 3)
        if what == 0:
            sets = f"ps_availqty = {1 + int(r() * 9999)}"
        elif what == 1:
            sets = f"ps_supplycost = {money(100 + int(r() * 99901))}"
        else:
            sets = f"ps_comment = {q(self.comment(49, 198))}"
        self.emit(f"UPDATE partsupp SET {sets} WHERE ps_partkey = {w.cur('part', p)} "
                  f"AND ps_suppkey = {w.cur('supp', s)};")

    def resupply_partsupp(self):
        """ps_suppkey (part of the key) changes to a supplier the part did not have;
        the part's lines of the old supplier follow."""
        w, r = self.w, self.r
        p = self.rand_part()
        supps = list(w.supps(p))
        if len(supps) >= self.sc.S:
            return
        old = self.pick(supps)
        while True:
            new = self.rand_supp()
            if new not in supps:
                break
        supps[supps.index(old)] = new
        w.psupps[p] = supps
        w.resupplied[(p, old)] = new
        w.resupplied.pop((p, new), None)
        pk, ok, nk = w.cur("part", p), w.cur("supp", old), w.cur("supp", new)
        self.emit(f"UPDATE partsupp SET ps_suppkey = {nk} WHERE ps_partkey = {pk} AND ps_suppkey = {ok};")
        self.emit(f"UPDATE lineitem SET l_suppkey = {nk} WHERE l_partkey = {pk} AND l_suppkey = {ok};")
        for lines in w.lines.values():
            for l in lines.values():
                if l[1] == p and l[2] == old:
                    l[2] = new

    def update_supplier(self):
        w, r = self.w, self.r
        s = self.rand_supp()
        k = w.cur("supp", s)
        what = int(r() * 4)
        if what == 0:
            sets = f"s_acctbal = {money(-99999 + int(r() * 1099999))}"
        elif what == 1:   # into / out of Q16's '%Customer%Complaints%'
            c = self.comment(25, 100)
            if r() < 0.5:
                c = insert_bbb(r, c, self.pick(["Complaints", "Recommends"]))
            sets = f"s_comment = {q(c)}"
        elif what == 2:
            n = self.query_nation()
            nk = w.cur("nation", n)
            sets = f"s_nationkey = {nk}, s_phone = '{phone(r, nk)}'"
        else:
            sets = f"s_address = {q(vstring(r, self.sc.alnum, 10, 40))}"
        self.emit(f"UPDATE supplier SET {sets} WHERE s_suppkey = {k};")

    def rekey_supplier(self):
        w = self.w
        s = self.rand_supp()
        old, new = w.cur("supp", s), w.new_key("supp")
        self.emit(f"UPDATE supplier SET s_suppkey = {new}, s_name = 'Supplier#{new:09d}' WHERE s_suppkey = {old};")
        self.emit(f"UPDATE partsupp SET ps_suppkey = {new} WHERE ps_suppkey = {old};")
        self.emit(f"UPDATE lineitem SET l_suppkey = {new} WHERE l_suppkey = {old};")
        w.keymap["supp"][s] = new

    def update_nation(self):
        w, r = self.w, self.r
        n = int(r() * 25)
        if r() < 0.5:
            rk = w.cur("region", int(r() * 5))
            sets = f"n_regionkey = {rk}"
        else:
            sets = f"n_comment = {q(self.comment(31, 114))}"
        self.emit(f"UPDATE nation SET {sets} WHERE n_nationkey = {w.cur('nation', n)};")

    def rekey_nation(self):
        """n_nationkey changes; customers and suppliers follow, with their phones'
        country codes (nationkey + 10)."""
        w = self.w
        n = int(self.r() * 25)
        old, new = w.cur("nation", n), w.new_key("nation")
        self.emit(f"UPDATE nation SET n_nationkey = {new} WHERE n_nationkey = {old};")
        self.emit(f"UPDATE customer SET c_nationkey = {new}, c_phone = '{new + 10}' || substring(c_phone from 3) "
                  f"WHERE c_nationkey = {old};")
        self.emit(f"UPDATE supplier SET s_nationkey = {new}, s_phone = '{new + 10}' || substring(s_phone from 3) "
                  f"WHERE s_nationkey = {old};")
        w.keymap["nation"][n] = new

    def update_region(self):
        w = self.w
        g = int(self.r() * 5)
        self.emit(f"UPDATE region SET r_comment = {q(self.comment(31, 115))} WHERE r_regionkey = {w.cur('region', g)};")

    def rekey_region(self):
        w = self.w
        g = int(self.r() * 5)
        old, new = w.cur("region", g), w.new_key("region")
        self.emit(f"UPDATE region SET r_regionkey = {new} WHERE r_regionkey = {old};")
        self.emit(f"UPDATE nation SET n_regionkey = {new} WHERE n_regionkey = {old};")
        w.keymap["region"][g] = new


def changes(sf, seed, n, rnd):
    ch = Changes(Scale(sf, seed))
    for i in range(1, rnd):
        ch.round(i, n)
    return ch.round(rnd, n)


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=float, default=1.0, help="scale factor (default 1)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--out", help="data: the output directory; changes: the output file (default stdout)")
    ap.add_argument("--jobs", type=int, default=1, help="processes generating data (default 1)")
    ap.add_argument("--tables", default=",".join(TABLES), help="comma-separated tables (default all)")
    ap.add_argument("--changes", type=int, metavar="N", help="print N random changes (SQL) instead of data")
    ap.add_argument("--round", type=int, default=1, metavar="R",
                    help="with --changes: round R, after rounds 1..R-1 of N changes each (default 1)")
    a = ap.parse_args()
    if a.sf <= 0:
        ap.error("--sf must be positive")
    if a.changes is not None:
        if a.round < 1 or a.changes < 0:
            ap.error("--round must be >= 1 and --changes >= 0")
        sql = "\n".join(changes(a.sf, a.seed, a.changes, a.round)) + "\n"
        if a.out:
            with open(a.out, "w") as f:
                f.write(sql)
        else:
            sys.stdout.write(sql)
        return
    if not a.out:
        ap.error("--out DIR is required to generate data")
    tables = [t.strip() for t in a.tables.split(",") if t.strip()]
    for t in tables:
        if t not in TABLES:
            ap.error(f"unknown table {t}")
    t0 = time.time()
    counts = generate(a.sf, a.seed, a.out, max(1, a.jobs), tables)
    print(f"sf {a.sf:g} seed {a.seed}: " + ", ".join(f"{t} {counts[t]}" for t in TABLES if t in counts)
          + f" rows in {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
