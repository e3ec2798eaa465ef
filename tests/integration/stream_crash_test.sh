#!/usr/bin/env bash
# Crash-recovery tests of the stream engine (materialized views).
#
#   tests/integration/stream_crash_test.sh [path/to/freshet]
#
# Seeded by STREAM_CRASH_SEED (default 20261130); STREAM_CRASH_ROUNDS (default
# 4) workload rounds; STREAM_CRASH_PARTS (default "1 2") the parts to run.
#
# 1. Workload crash. Two tables (t1 with a primary key, t2 without one) and
#    nine materialized views over them, each with a random
#    streaming_parallelism: GROUP BY aggregates (count, sum of bigint and
#    numeric, avg), a global aggregate (count DISTINCT, min, max, avg), a
#    filter/project, min/max, string_agg, DISTINCT, MVs on MVs (two
#    levels), subqueries (EXISTS, NOT IN, scalar, a dynamic filter) and window
#    functions. Each round runs a random DML script through one psql: inserts
#    (with NULL group keys and values, numerics of scales 0-3), bulk
#    INSERT ... SELECT, updates by id, range and predicate, primary-key
#    moves, deletes, multi-statement implicit transactions, and FLUSH between
#    some of them. The script brackets each
#    statement with `\echo` markers, so the test knows which statements were
#    sent and which FLUSHes were acknowledged. The server gets `kill -9` at a
#    random moment, one kind per round: a random delay; while a FLUSH (after a
#    bulk INSERT) is in flight; while a large INSERT is in flight; right after
#    a statement was acknowledged. After a restart on the same directory:
#    - the tables must equal a model (an awk replay of the statements) after
#      some prefix of the script that holds every statement before the last
#      acknowledged FLUSH and nothing that was never sent: no acknowledged
#      write lost, no statement half-applied, nothing invented;
#    - every MV must equal its defining query run as a batch SELECT (compared
#      as multisets of rows; all results are exact: integers, numerics, text).
#    Then more DML and a FLUSH run on the recovered server and both checks
#    are made again (the MVs keep updating after recovery). From round 3 on
#    the operators' state cache budget is 0 (every key reloaded from
#    storage when touched again).
# 2. Backfill crash, on a fresh directory with a 300,000-row table `big`:
#    `kill -9` while CREATE MATERIALIZED VIEW is backfilling (a random delay
#    after the MV appears in the catalog) for an aggregate over the table
#    (with concurrent DML on it: updates, NULLs, primary-key moves, deletes,
#    inserts, FLUSH), a filter/project over the table (killed again while the
#    backfill resumes after the restart), and an aggregate over that MV (an MV
#    on an MV, with concurrent DML). After the restart the MV must finish by
#    itself (polled after FLUSH, at most 60 times) and then equal its query
#    exactly: no lost and no duplicated rows. Then `kill -9` while the FLUSH
#    of a 40,000-50,000-row INSERT into big is in flight, or right after it
#    returned (the table and MV writes of one epoch, over 100,000 writes: the
#    bulk-commit path): the INSERT must be all there or all absent (all there
#    once its FLUSH returned) and every MV must agree with its input. Finally
#    DML + FLUSH, and every MV is compared with its query again.
#
# Prints "N passed, M failed" last; exits non-zero when anything failed.
set -uo pipefail

BIN="${1:-/work/main/build/freshet}"
NAME=stream-crash-test
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SEED="${STREAM_CRASH_SEED:-20261130}"
ROUNDS="${STREAM_CRASH_ROUNDS:-4}"
PARTS="${STREAM_CRASH_PARTS:-1 2}"          # which parts to run
QTIMEOUT="${STREAM_CRASH_QUERY_TIMEOUT:-30}"   # seconds for any one synchronous psql
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
command -v psql >/dev/null && command -v pg_isready >/dev/null \
  || { echo "psql and pg_isready are required"; echo "0 passed, 1 failed"; exit 1; }

# shellcheck source=lib.sh
source "$HERE/lib.sh"

q() { timeout "$QTIMEOUT" psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U root -d dev "$@"; }
msleep() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
CUR_LOG=""
start_srv() { CUR_LOG="$2"; start_server "$1" "$2"; }  # start_server (lib.sh), remembering the log
kill9_server() {  # also reports a server that died by itself
  local rc
  [[ -n "$SERVER_PID" ]] || return 0
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    wait "$SERVER_PID"; rc=$?
    fail "the server died by itself before it was killed (exit code $rc$([[ $rc -gt 128 ]] && echo ", signal $((rc - 128))")); its log ends:"
    tail -n 10 "$CUR_LOG" | sed 's/^/      /'
    SERVER_PID=""
    return 0
  fi
  kill -9 "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}
wait_bg() {  # wait for (and forget) the background clients
  local p
  for p in "${BG_PIDS[@]}"; do
    # Bounded: the server is dead, so a client that still runs after 10 s is stuck.
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  BG_PIDS=()
}

# compare_pairs "WHAT|A|B" ...: for each, the query results A (the MV) and B
# (the batch query) must be equal as multisets of lines; one awk for all.
cat >"$WORK/compare.awk" <<'EOF'
BEGIN { n = split(list, f, " "); for (i = 1; i <= n; i++) idx[f[i]] = i }
{ i = idx[FILENAME]; p = int((i - 1) / 2); if (i % 2) { c[p, $0]++; na[p]++ } else { c[p, $0]--; nb[p]++ } }
END {
  for (k in c) if (c[k] != 0) { split(k, kk, SUBSEP); p = kk[1]; nd[p]++; if (nd[p] <= 8) d[p, nd[p]] = sprintf("%6d %s %s", (c[k] > 0 ? c[k] : -c[k]), (c[k] > 0 ? "<" : ">"), kk[2]) }
  for (p = 0; p < n / 2; p++) {
    print "pair", p, na[p] + 0, nb[p] + 0, nd[p] + 0
    for (j = 1; j <= nd[p] && j <= 8; j++) print "diff", p, d[p, j]
  }
}
EOF
compare_pairs() {
  local list="" spec what a b p na nb nd kind rest
  local -a whats=()
  for spec in "$@"; do
    IFS='|' read -r what a b <<<"$spec"
    whats+=("$what"); list+=" $a $b"
  done
  awk -v list="$list" -f "$WORK/compare.awk" $list >"$WORK/compare.out"
  while read -r kind p rest; do
    if [[ $kind == pair ]]; then
      read -r na nb nd <<<"$rest"
      if [[ $nd -eq 0 ]]; then ok "${whats[p]} ($nb rows)"
      else fail "${whats[p]}: $na rows in the MV, $nb from the batch query, $nd distinct lines differ (count, < MV only, > batch only):"; fi
    else
      echo "      $rest"
    fi
  done <"$WORK/compare.out"
}

# check_query WHAT MVQUERY BATCHQUERY
check_query() {
  local what="$1" a="$WORK/cq.a" b="$WORK/cq.b"
  if ! q -c "$2" >"$a" 2>"$WORK/cq.err" || [[ -s "$WORK/cq.err" ]]; then
    fail "$what: $2 failed: $(head -c 300 "$WORK/cq.err")"; return 1
  fi
  if ! q -c "$3" >"$b" 2>"$WORK/cq.err" || [[ -s "$WORK/cq.err" ]]; then
    fail "$what: batch query failed: $(head -c 300 "$WORK/cq.err")"; return 1
  fi
  compare_pairs "$what|$a|$b"
}

# ---------------------------------------------------------------------------
# The model of t1 and t2. A unit is one line of $OPS: sub-ops separated by
# " / " that were sent as one statement (one implicit transaction):
#   i1 id,k,v,nmills,s ...   INSERT INTO t1 VALUES (k, v, s: "~" = NULL; n = nmills/1000)
#   b1 lo hi                 INSERT INTO t1 SELECT g, g % 11, (g * 37) % 1001, (g % 997) * 0.01, 's' || (g % 13)
#   uv d nmills id ...       UPDATE t1 SET v = v + d, n = n + nmills/1000 WHERE id IN (...)
#   uk k s id ...            UPDATE t1 SET k = .., s = .. WHERE id IN (...)
#   ur lo hi d               UPDATE t1 SET v = v - d WHERE id BETWEEN lo AND hi
#   um lo hi off             UPDATE t1 SET id = id + off WHERE id BETWEEN lo AND hi (new ids unused)
#   d1 id ...                DELETE FROM t1 WHERE id IN (...)
#   dk k m                   DELETE FROM t1 WHERE k = .. AND v % m = 0
#   i2 g,x ...               INSERT INTO t2 VALUES
#   u2 g d                   UPDATE t2 SET x = x + d WHERE g = ..
#   d2 g lim                 DELETE FROM t2 WHERE g = .. AND x < lim
#   fl                       FLUSH
#   reset                    (model only) empty both tables
# model.awk -v lo=LO -v hi=HI ACTUAL OPS: replays OPS and compares the model
# after each unit p in [lo, hi] with ACTUAL (lines "t1|id|k|v|nmills|s" and
# "t2|g|x"): prints "match p" when equal, "cand p ndiff" for each p, and the
# differing lines at lo and hi.
cat >"$WORK/model.awk" <<'EOF'
function chg(l, d,   was) { was = ((l in D) && D[l] != 0); D[l] += d; nz += (D[l] != 0) - was }
function l1(id) { return "t1|" id "|" K[id] "|" V[id] "|" NC[id] "|" S[id] }
function l2(r) { return "t2|" G2[r] "|" X2[r] }
function num(x) { return x == "~" ? "" : x + 0 }   # "~" is NULL, printed by psql as ""
function put1(id, k, v, nc, s) {
  if (id in E) chg(l1(id), -1)
  E[id] = 1; K[id] = num(k); V[id] = num(v); NC[id] = nc + 0; S[id] = s; chg(l1(id), 1)
}
function del1(id) { if (!(id in E)) return; chg(l1(id), -1); delete E[id] }
function apply(op,   f, n, i, r, id, g, cnt, lst, seen) {
  n = split(op, f, " ")
  if (f[1] == "i1") { for (i = 2; i <= n; i++) { split(f[i], r, ","); put1(r[1] + 0, r[2], r[3], r[4], r[5]) } }
  else if (f[1] == "b1") { for (g = f[2] + 0; g <= f[3] + 0; g++) put1(g, g % 11, (g * 37) % 1001, (g % 997) * 10, "s" (g % 13)) }
  else if (f[1] == "uv") {
    for (i = 4; i <= n; i++) { id = f[i] + 0; if ((id in E) && !(id in seen)) { seen[id] = 1; chg(l1(id), -1); if (V[id] != "") V[id] += f[2]; NC[id] += f[3]; chg(l1(id), 1) } }
  } else if (f[1] == "uk") {
    for (i = 4; i <= n; i++) { id = f[i] + 0; if (id in E) { chg(l1(id), -1); K[id] = num(f[2]); S[id] = f[3]; chg(l1(id), 1) } }
  } else if (f[1] == "ur") {
    for (id = f[2] + 0; id <= f[3] + 0; id++) if ((id in E) && V[id] != "") { chg(l1(id), -1); V[id] -= f[4]; chg(l1(id), 1) }
  } else if (f[1] == "um") {   # the new ids (id + off) are all unused
    for (id = f[2] + 0; id <= f[3] + 0; id++) if (id in E) {
      g = id + f[4]; chg(l1(id), -1); E[g] = 1; K[g] = K[id]; V[g] = V[id]; NC[g] = NC[id]; S[g] = S[id]; delete E[id]; chg(l1(g), 1)
    }
  } else if (f[1] == "d1") { for (i = 2; i <= n; i++) del1(f[i] + 0) }
  else if (f[1] == "dk") {
    cnt = 0; for (id in E) if (K[id] != "" && K[id] == f[2] + 0 && V[id] != "" && V[id] % (f[3] + 0) == 0) lst[++cnt] = id
    for (i = 1; i <= cnt; i++) del1(lst[i])
  } else if (f[1] == "i2") { for (i = 2; i <= n; i++) { split(f[i], r, ","); nr++; G2[nr] = r[1] + 0; X2[nr] = r[2] + 0; chg(l2(nr), 1) } }
  else if (f[1] == "u2") { for (i in G2) if (G2[i] == f[2] + 0) { chg(l2(i), -1); X2[i] += f[3]; chg(l2(i), 1) } }
  else if (f[1] == "d2") {
    cnt = 0; for (i in G2) if (G2[i] == f[2] + 0 && X2[i] < f[3] + 0) lst[++cnt] = i
    for (i = 1; i <= cnt; i++) { chg(l2(lst[i]), -1); delete G2[lst[i]]; delete X2[lst[i]] }
  } else if (f[1] == "reset") {
    cnt = 0; for (id in E) lst[++cnt] = id
    for (i = 1; i <= cnt; i++) del1(lst[i])
    cnt = 0; for (i in G2) lst[++cnt] = i
    for (i = 1; i <= cnt; i++) { chg(l2(lst[i]), -1); delete G2[lst[i]]; delete X2[lst[i]] }
  } else if (f[1] != "fl") { print "bad op: " op; bad = 1; exit 2 }
}
function check(p,   l, shown) {
  if (p < lo || p > hi) return
  print "cand", p, nz
  if (nz == 0) print "match", p
  else if (p == lo || p == hi) {
    shown = 0
    for (l in D) if (D[l] != 0 && shown < 6) { print "diff", p, (D[l] > 0 ? "model-only" : "db-only"), l; shown++ }
  }
}
FILENAME == ARGV[1] { chg($0, -1); next }
!started { started = 1; check(0) }
{ units++; m = split($0, su, " / "); for (j = 1; j <= m; j++) apply(su[j]); check(units); if (units >= hi) exit }
END { if (!bad && !started) check(0) }
EOF

OPS="$WORK/ops"
: >"$OPS"
next_id=1

# Random helpers (no subshells: they would not advance $RANDOM).
rand_id() { R_ID=$(( 1 + (RANDOM * 32768 + RANDOM) % (next_id - 1) )); }
rand_ids() {  # rand_ids N: R_IDS (space separated) and R_IDL (comma separated)
  local i; R_IDS=""; R_IDL=""
  for ((i = 0; i < $1; i++)); do
    rand_id
    R_IDS+="${R_IDS:+ }$R_ID"; R_IDL+="${R_IDL:+,}$R_ID"
  done
}
# mills_lit MILLS SCALE: R_LIT, a numeric literal with SCALE (0-3) digits after
# the point, and R_M, its value in thousandths (MILLS rounded down to it).
# Mixed scales: sum(n) must show the scale of the values present.
mills_lit() {
  case $2 in
    0) R_M=$(($1 / 1000 * 1000)); R_LIT=$((R_M / 1000)) ;;
    1) R_M=$(($1 / 100 * 100)); R_LIT="$((R_M / 1000)).$((R_M % 1000 / 100))" ;;
    2) R_M=$(($1 / 10 * 10)); printf -v R_LIT '%d.%02d' $((R_M / 1000)) $((R_M % 1000 / 10)) ;;
    *) R_M=$1; printf -v R_LIT '%d.%03d' $((R_M / 1000)) $((R_M % 1000)) ;;
  esac
}
rand_null() {  # rand_null VALUE ONE_IN: R_N (model) and R_SQL_N (SQL); NULL one time in ONE_IN
  if ((RANDOM % $2 == 0)); then R_N="~"; R_SQL_N="NULL"; else R_N=$1; R_SQL_N=$1; fi
}
rand_s() { if ((RANDOM % 5 == 0)); then R_S="~"; R_SQL_S="NULL"; else R_S="s$((RANDOM % 20))"; R_SQL_S="'$R_S'"; fi; }

# gen_subop [KIND]: one DML statement as SUB_SQL and SUB_OP; SUB_KIND its kind.
gen_subop() {
  local kind="${1:-}" r n i id k v nc g x lo hi d k_sql v_sql
  if [[ -z "$kind" ]]; then
    r=$((RANDOM % 100))
    if   ((r < 17)); then kind=ins; elif ((r < 24)); then kind=bulk; elif ((r < 39)); then kind=uv
    elif ((r < 46)); then kind=uk;  elif ((r < 51)); then kind=ur;   elif ((r < 56)); then kind=um
    elif ((r < 66)); then kind=d1;  elif ((r < 70)); then kind=dk;   elif ((r < 82)); then kind=i2
    elif ((r < 91)); then kind=u2;  else kind=d2; fi
  fi
  SUB_KIND=$kind
  case $kind in
    ins)
      n=$((1 + RANDOM % 5)); SUB_SQL="INSERT INTO t1 VALUES "; SUB_OP="i1"
      for ((i = 0; i < n; i++)); do
        id=$next_id; next_id=$((next_id + 1)); mills_lit $((RANDOM % 100000)) $((RANDOM % 4)); nc=$R_M; rand_s
        rand_null $((RANDOM % 13)) 8; k=$R_N; k_sql=$R_SQL_N
        rand_null $((RANDOM % 2001 - 1000)) 10; v=$R_N; v_sql=$R_SQL_N
        SUB_SQL+="$([[ $i -gt 0 ]] && echo ", ")($id, $k_sql, $v_sql, $R_LIT, $R_SQL_S)"; SUB_OP+=" $id,$k,$v,$nc,$R_S"
      done ;;
    bulk|large)
      if [[ $kind == bulk ]]; then n=$((100 + RANDOM % 2000)); else n=$((8000 + RANDOM % 8000)); fi
      lo=$next_id; hi=$((next_id + n - 1)); next_id=$((hi + 1))
      SUB_SQL="INSERT INTO t1 SELECT g, g % 11, (g * 37) % 1001, (g % 997) * 0.01, 's' || (g % 13) FROM generate_series($lo, $hi) AS g"
      SUB_OP="b1 $lo $hi" ;;
    uv)
      rand_ids $((1 + RANDOM % 8)); d=$((RANDOM % 201 - 100)); mills_lit $((RANDOM % 3000)) $((RANDOM % 4))
      SUB_SQL="UPDATE t1 SET v = v + ($d), n = n + $R_LIT WHERE id IN ($R_IDL)"; SUB_OP="uv $d $R_M $R_IDS" ;;
    uk)
      rand_ids $((1 + RANDOM % 5)); rand_null $((RANDOM % 13)) 8; rand_s
      SUB_SQL="UPDATE t1 SET k = $R_SQL_N, s = $R_SQL_S WHERE id IN ($R_IDL)"; SUB_OP="uk $R_N $R_S $R_IDS" ;;
    um)  # move rows to new primary keys (all unused: above next_id)
      rand_id; lo=$R_ID; hi=$((lo + RANDOM % 20)); d=$((next_id - lo)); next_id=$((next_id + hi - lo + 1))
      SUB_SQL="UPDATE t1 SET id = id + $d WHERE id BETWEEN $lo AND $hi"; SUB_OP="um $lo $hi $d" ;;
    ur)
      rand_id; lo=$R_ID; hi=$((lo + RANDOM % 300)); d=$((1 + RANDOM % 50))
      SUB_SQL="UPDATE t1 SET v = v - $d WHERE id BETWEEN $lo AND $hi"; SUB_OP="ur $lo $hi $d" ;;
    d1)
      rand_ids $((1 + RANDOM % 6))
      SUB_SQL="DELETE FROM t1 WHERE id IN ($R_IDL)"; SUB_OP="d1 $R_IDS" ;;
    dk)
      k=$((RANDOM % 13)); d=$((3 + RANDOM % 8))
      SUB_SQL="DELETE FROM t1 WHERE k = $k AND v % $d = 0"; SUB_OP="dk $k $d" ;;
    i2)
      # The same rows go into the APPEND ONLY table t3, in the same
      # implicit transaction (t3 is not modelled: its views are checked
      # against their queries only).
      n=$((1 + RANDOM % 6)); SUB_SQL=""; SUB_OP="i2"
      for ((i = 0; i < n; i++)); do
        g=$((RANDOM % 9)); x=$((RANDOM % 1000))
        SUB_SQL+="$([[ $i -gt 0 ]] && echo ", ")($g, $x)"; SUB_OP+=" $g,$x"
      done
      SUB_SQL="INSERT INTO t2 VALUES $SUB_SQL \\; INSERT INTO t3 VALUES $SUB_SQL" ;;
    u2)
      g=$((RANDOM % 9)); d=$((RANDOM % 21 - 10))
      SUB_SQL="UPDATE t2 SET x = x + ($d) WHERE g = $g"; SUB_OP="u2 $g $d" ;;
    d2)
      g=$((RANDOM % 9)); d=$((RANDOM % 300))
      SUB_SQL="DELETE FROM t2 WHERE g = $g AND x < $d"; SUB_OP="d2 $g $d" ;;
  esac
}

# gen_units N [noflush]: U_SQL/U_OP/U_KIND[1..N]: statements, transactions
# (2-3 statements sent as one query) and FLUSHes.
gen_units() {
  local n=$1 noflush="${2:-}" i j m r sql op
  U_SQL=(); U_OP=(); U_KIND=()
  for ((i = 1; i <= n; i++)); do
    r=$((RANDOM % 100))
    if [[ -z "$noflush" ]] && ((r < 12)); then
      U_SQL[i]="FLUSH;"; U_OP[i]="fl"; U_KIND[i]=flush
    elif ((r < 22)); then
      m=$((2 + RANDOM % 2)); sql=""; op=""
      for ((j = 0; j < m; j++)); do
        gen_subop
        sql+="${sql:+ \\; }$SUB_SQL"; op+="${op:+ / }$SUB_OP"
      done
      U_SQL[i]="$sql;"; U_OP[i]="$op"; U_KIND[i]=txn
    else
      gen_subop
      U_SQL[i]="$SUB_SQL;"; U_OP[i]="$SUB_OP"; U_KIND[i]=$SUB_KIND
    fi
  done
}

# write_script FILE N: the psql script of units 1..N with \echo markers.
write_script() {
  local f="$1" n=$2 i
  { echo '\set ON_ERROR_STOP 1'
    for ((i = 1; i <= n; i++)); do
      echo "\\echo S $i"; echo "${U_SQL[i]}"; echo "\\echo A $i"
    done
  } >"$f"
}

# check_model LO HI LABEL: the tables must equal the model after some unit in
# [LO, HI] of $OPS; sets MATCH (the largest such unit, or "").
MATCH=""
check_model() {
  local lo=$1 hi=$2 label="$3" actual="$WORK/actual" res="$WORK/model.out" matches best
  MATCH=""
  if ! { q -F '|' -c "SELECT 't1', id, k, v, (n * 1000)::bigint, coalesce(s, '~') FROM t1" &&
         q -F '|' -c "SELECT 't2', g, x FROM t2"; } >"$actual" 2>"$WORK/model.err"; then
    fail "$label: read the tables: $(head -c 300 "$WORK/model.err")"; return
  fi
  awk -v lo="$lo" -v hi="$hi" -f "$WORK/model.awk" "$actual" "$OPS" >"$res"
  matches="$(awk '$1 == "match" {print $2}' "$res" | tr '\n' ' ')"
  if [[ -n "$matches" ]]; then
    best="$(awk '$1 == "match" {p = $2} END {print p}' "$res")"
    MATCH=$best
    ok "$label: tables ($(grep -c '^t1|' "$actual") + $(grep -c '^t2|' "$actual") rows) equal the model after statement $best (allowed $lo..$hi: all up to the last acknowledged FLUSH, none never sent)"
  else
    fail "$label: tables equal the model after no statement in $lo..$hi (differing rows per statement: $(awk '$1 == "cand" {printf "%s:%s ", $2, $3}' "$res"))"
    grep '^diff' "$res" | sed 's/^/      /'
    # Go on from what the server has: the model becomes a snapshot of it.
    { echo "reset"
      grep '^t1|' "$actual" | awk -F'|' '{printf "%s%s,%s,%s,%s,%s", (NR % 500 == 1 ? "i1 " : " "), $2, ($3 == "" ? "~" : $3), ($4 == "" ? "~" : $4), $5, $6; if (NR % 500 == 0) print ""} END {if (NR % 500 != 0) print ""}'
      grep '^t2|' "$actual" | awk -F'|' '{printf "%s%s,%s", (NR % 500 == 1 ? "i2 " : " "), $2, $3; if (NR % 500 == 0) print ""} END {if (NR % 500 != 0) print ""}'
    } | grep -v '^$' >"$WORK/ops.snap"
    mv "$WORK/ops.snap" "$OPS"
    MATCH=$(wc -l <"$OPS")
    echo "    (the model now starts from the tables as they are)"
  fi
}

# The MVs of part 1: name and defining query.
MV_NAMES=(mv_k mv_all mv_f mv_mm mv_t2 mv_on_k mv_on_f mv_on_on mv_distinct mv_ao_ext mv_ao_top mv_ao_distinct mv_ao_on_distinct
          mv_sub mv_not_in mv_win mv_series)
declare -A MV_DEF=(
  [mv_k]="SELECT k, count(*) AS c, sum(v) AS sv, sum(n) AS sn, count(s) AS cs, avg(v) AS av FROM t1 GROUP BY k"
  [mv_all]="SELECT count(*) AS c, sum(v) AS sv, sum(n) AS sn, min(v) AS mn, max(v) AS mx, count(DISTINCT k) AS dk, avg(n) AS an FROM t1"
  [mv_f]="SELECT id, k, v * 2 + 1 AS w, n, upper(s) AS us FROM t1 WHERE v % 3 <> 0 AND k <> 5"
  [mv_mm]="SELECT k, min(v) AS mn, max(v) AS mx, min(s) AS smin, max(s) AS smax, min(n * 1000)::bigint AS nmin, max(id) AS idmax FROM t1 GROUP BY k"
  [mv_t2]="SELECT g, count(*) AS c, sum(x) AS sx, min(x) AS mn, max(x) AS mx, string_agg(x::text, ',' ORDER BY x) AS xs FROM t2 GROUP BY g"
  [mv_on_k]="SELECT c % 4 AS cb, count(*) AS groups, sum(sv) AS total, max(sn * 1000)::bigint AS msn, sum(sn) AS ssn FROM mv_k GROUP BY c % 4"
  [mv_on_f]="SELECT k, count(*) AS c, sum(w) AS sw, min(w) AS mn, max(w) AS mx FROM mv_f WHERE w > 0 GROUP BY k"
  [mv_on_on]="SELECT count(*) AS c, sum(sw) AS total, min(mn) AS mn FROM mv_on_f"
  [mv_distinct]="SELECT DISTINCT k FROM t1"
  # Over the APPEND ONLY t3: saved extremes and DISTINCT values saved once, a top-N that keeps only its
  # window, an append-only DISTINCT and a view over it.
  [mv_ao_ext]="SELECT g, min(x) AS mn, max(x) AS mx, count(*) AS c, bool_or(x > 990) AS big, count(DISTINCT x % 50) AS dx FROM t3 GROUP BY g"
  [mv_ao_top]="SELECT g, x FROM t3 ORDER BY x DESC, g LIMIT 5"
  [mv_ao_distinct]="SELECT DISTINCT g, x % 7 AS r FROM t3"
  [mv_ao_on_distinct]="SELECT max(r) AS mr, min(g) AS mg, count(*) AS c FROM mv_ao_distinct"
  # Subqueries (a semi join, a dynamic filter, a per-key scalar aggregate, a null-aware anti join) and
  # window functions (an OverWindow).
  [mv_sub]="SELECT id, k, (SELECT count(*) FROM t2 WHERE t2.g = t1.k) AS n FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.k AND t2.x > t1.v) AND v > (SELECT avg(x) FROM t2)"
  [mv_not_in]="SELECT g, x FROM t2 WHERE x NOT IN (SELECT v FROM t1 WHERE k = 3)"
  [mv_win]="SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn, sum(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2, lag(n) OVER (ORDER BY id) AS ln FROM t1"
  # A function in FROM (a Values head emitting its rows once) joined with t1.
  [mv_series]="SELECT t1.k, count(*) AS c, sum(g) AS sg FROM t1 JOIN generate_series(0, 9) g ON g = t1.k GROUP BY t1.k"
)
# check_mvs LABEL: every MV = its query, all read by one psql (\o per result).
check_mvs() {
  local label="$1" m i sc="$WORK/mvcheck.sql" ea eb
  { for m in "${MV_NAMES[@]}"; do
      echo "\\o $WORK/mv.$m.a"; echo "SELECT * FROM $m;"
      echo "\\o $WORK/mv.$m.b"; echo "${MV_DEF[$m]};"
    done
    echo '\o'
  } >"$sc"
  rm -f "$WORK"/mv.*.a "$WORK"/mv.*.b
  timeout "$QTIMEOUT" psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$sc" 2>"$WORK/mvcheck.err"
  [[ $? -eq 124 ]] && fail "$label: reading the MVs and their queries did not finish within $QTIMEOUT s"
  i=0; pairs=()
  for m in "${MV_NAMES[@]}"; do
    # The script has 4 lines per MV: the SELECT of the MV is line 4i+2, the batch query 4i+4.
    ea="$(grep -m1 ":$((4 * i + 2)): " "$WORK/mvcheck.err")"; eb="$(grep -m1 ":$((4 * i + 4)): " "$WORK/mvcheck.err")"
    i=$((i + 1))
    if [[ -n "$ea" || -n "$eb" || ! -f "$WORK/mv.$m.a" || ! -f "$WORK/mv.$m.b" ]]; then
      fail "$label: $m = its query: ${ea:-}${eb:-}$( [[ -z "$ea$eb" ]] && head -c 300 "$WORK/mvcheck.err")"
      continue
    fi
    pairs+=("$label: $m = its query|$WORK/mv.$m.a|$WORK/mv.$m.b")
  done
  [[ ${#pairs[@]} -gt 0 ]] && compare_pairs "${pairs[@]}"
}

T0=$(now_ms)
RANDOM=$SEED
if [[ " $PARTS " == *" 1 "* ]]; then
echo "== part 1: workload crashes, $ROUNDS rounds, seed $SEED (STREAM_CRASH_SEED)"
DATA="$WORK/data"
LOG="$WORK/server.log"
if ! start_srv "$DATA" "$LOG"; then fail "start the server on a fresh data directory"; finish; fi
echo "  port $PORT"

# Initial data (backfilled by the MVs), then the MVs.
gen_subop bulk; init_t1_sql="$SUB_SQL"; init_t1_op="$SUB_OP"
init_t2_sql="INSERT INTO t2 SELECT g % 9, (g * 13) % 1000 FROM generate_series(1, 200) AS g"
init_t2_op="i2"; for ((g = 1; g <= 200; g++)); do init_t2_op+=" $((g % 9)),$(((g * 13) % 1000))"; done
if ! q -c "CREATE TABLE t1 (id BIGINT PRIMARY KEY, k INT, v BIGINT, n NUMERIC, s TEXT)" \
       -c "CREATE TABLE t2 (g INT, x BIGINT)" -c "CREATE TABLE t3 (g INT, x BIGINT) APPEND ONLY" \
       -c "$init_t1_sql" -c "$init_t2_sql" -c "${init_t2_sql/INTO t2/INTO t3}" -c "FLUSH" 2>"$WORK/ddl.err"; then
  fail "create and fill the tables: $(cat "$WORK/ddl.err")"; finish
fi
echo "$init_t1_op / $init_t2_op" >>"$OPS"
# Created concurrently, one tier at a time (an MV after the MVs it reads).
# Each with a random streaming_parallelism (1-4 actors per fragment).
ddl_ok=1; par_list=""
for tier in "mv_k mv_all mv_f mv_mm mv_t2 mv_distinct mv_ao_ext mv_ao_top mv_ao_distinct" "mv_on_k mv_on_f mv_ao_on_distinct" "mv_on_on mv_sub mv_not_in mv_win mv_series"; do
  pids=()
  for m in $tier; do
    par=$((1 + RANDOM % 4)); par_list+=" $m:$par"
    q -c "SET streaming_parallelism = $par" -c "CREATE MATERIALIZED VIEW $m AS ${MV_DEF[$m]}" >"$WORK/ddl.$m.out" 2>&1 &
    pids+=($!)
  done
  i=0
  for m in $tier; do
    if ! wait "${pids[i]}"; then fail "CREATE MATERIALIZED VIEW $m: $(head -c 300 "$WORK/ddl.$m.out")"; ddl_ok=0; fi
    i=$((i + 1))
  done
done
[[ $ddl_ok -eq 1 ]] && ok "create ${#MV_NAMES[@]} materialized views (each tier concurrently; parallelism$par_list)"
check_mvs "before any crash"

for round in $(seq 1 "$ROUNDS"); do
  # From the third round on, operators keep no state past its commit
  # (persisted, so it holds after each restart): kill -9 then hits
  # operators that drop and reload their keys (src/stream/state_cache.h).
  if [[ $round -eq 3 ]] && ! q -c "ALTER SYSTEM SET streaming_state_cache_bytes = 0" >/dev/null 2>&1; then
    fail "ALTER SYSTEM SET streaming_state_cache_bytes = 0"
  fi
  mode=$(( (round - 1) % 4 ))
  r0=$(wc -l <"$OPS")
  nunits=$((15 + RANDOM % 20))
  gen_units "$nunits"
  # Each mode needs its target statement: a FLUSH or a large INSERT.
  target=$((nunits / 3 + RANDOM % (nunits / 2)))
  case $mode in
    1) # A FLUSH with work to wait for: a bulk INSERT just before it.
       gen_subop bulk; U_SQL[target - 1]="$SUB_SQL;"; U_OP[target - 1]="$SUB_OP"; U_KIND[target - 1]=bulk
       U_SQL[target]="FLUSH;"; U_OP[target]="fl"; U_KIND[target]=flush ;;
    2) gen_subop large; U_SQL[target]="$SUB_SQL;"; U_OP[target]="$SUB_OP"; U_KIND[target]=large ;;
  esac
  for ((i = 1; i <= nunits; i++)); do echo "${U_OP[i]}"; done >"$WORK/round.ops"
  script="$WORK/round$round.sql"; out="$WORK/round$round.out"
  write_script "$script" "$nunits"
  echo "-- round $round: $nunits statements ($(printf '%s\n' "${U_KIND[@]}" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}'))"

  psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$script" >"$out" 2>&1 &
  client=$!; BG_PIDS=("$client")
  # The kill point (the sleeps below choose it; they wait for no result).
  case $mode in
    0) delay=$((150 + RANDOM % 1500)); msleep $delay; how="$delay ms after the script started" ;;
    1|2)
      for _ in $(seq 1 3000); do   # bounded: ~30 s
        grep -qx "S $target" "$out" && break
        kill -0 "$client" 2>/dev/null || break
        sleep 0.01
      done
      delay=$((RANDOM % (mode == 1 ? 15 : 40))); msleep $delay
      how="$delay ms after statement $target (${U_KIND[target]}) was sent" ;;
    3)
      target=$((1 + RANDOM % nunits))
      for _ in $(seq 1 3000); do
        grep -qx "A $target" "$out" && break
        kill -0 "$client" 2>/dev/null || break
        sleep 0.005
      done
      how="right after statement $target (${U_KIND[target]}) was acknowledged" ;;
  esac
  running=0; kill -0 "$client" 2>/dev/null && running=1
  kill9_server
  wait_bg
  last_s=$(awk '$1 == "S" {n = $2} END {print n + 0}' "$out")
  last_a=$(awk '$1 == "A" {n = $2} END {print n + 0}' "$out")
  last_f=0
  for ((i = 1; i <= last_a; i++)); do [[ ${U_KIND[i]} == flush ]] && last_f=$i; done
  echo "  kill -9 $how: $last_s statements sent, $last_a acknowledged, last acknowledged FLUSH: statement $last_f$([[ $running -eq 0 ]] && echo " (the script had ended)")"
  if grep -q 'ERROR:' "$out"; then
    fail "round $round: a workload statement failed before the kill: $(grep -m1 'ERROR:' "$out")"
  fi
  cat "$WORK/round.ops" >>"$OPS"

  if ! start_srv "$DATA" "$LOG"; then fail "restart after kill -9 (round $round)"; break; fi
  ok "restart after kill -9 (round $round)"
  check_model $((r0 + last_f)) $((r0 + last_s)) "round $round after restart"
  [[ -n "$MATCH" && $MATCH -lt $(wc -l <"$OPS") ]] && { head -n "$MATCH" "$OPS" >"$WORK/ops.t"; mv "$WORK/ops.t" "$OPS"; }
  check_mvs "round $round after restart"

  # The workload goes on on the recovered server; its FLUSH is acknowledged.
  r0=$(wc -l <"$OPS")
  nunits=$((6 + RANDOM % 7))
  gen_units "$nunits" noflush
  nunits=$((nunits + 1)); U_SQL[nunits]="FLUSH;"; U_OP[nunits]="fl"; U_KIND[nunits]=flush
  write_script "$WORK/post$round.sql" "$nunits"
  if timeout 60 psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$WORK/post$round.sql" >"$WORK/post.out" 2>&1; then
    ok "round $round: $nunits more statements and a FLUSH after recovery"
  else
    fail "round $round: statements after recovery: $(grep -v '^[SA] ' "$WORK/post.out" | head -n 3)"
  fi
  for ((i = 1; i <= nunits; i++)); do echo "${U_OP[i]}"; done >>"$OPS"
  n_now=$(wc -l <"$OPS")
  check_model "$n_now" "$n_now" "round $round after more DML + FLUSH"
  check_mvs "round $round after more DML + FLUSH"
done
kill9_server
echo "  part 1 took $(( ($(now_ms) - T0) / 1000 )) s"
fi

# ---------------------------------------------------------------------------
T1=$(now_ms)
if [[ " $PARTS " == *" 2 "* ]]; then
echo "== part 2: kill -9 during a backfill (300,000 rows)"
DATA2="$WORK/data2"
LOG2="$WORK/server2.log"
if ! start_srv "$DATA2" "$LOG2"; then fail "start the server on a fresh data directory"; finish; fi
echo "  port $PORT"
BIG_ROWS=300000
big_next=$((BIG_ROWS + 1))
big_moves=0
if q -c "CREATE TABLE big (id BIGINT PRIMARY KEY, v BIGINT, s TEXT)" \
     -c "INSERT INTO big SELECT g, (g::bigint * 7919) % 100003, 'x' || (g % 97) FROM generate_series(1, $BIG_ROWS) AS g" \
     -c "FLUSH" 2>"$WORK/big.err"; then
  check "big has $BIG_ROWS rows" test "$(q -c "SELECT count(*) FROM big")" = "$BIG_ROWS"
else
  fail "create and fill big: $(cat "$WORK/big.err")"; finish
fi

declare -A BF_DEF=(
  [bf_agg]="SELECT id % 1000 AS g, count(*) AS c, sum(v) AS sv, min(v) AS mn, max(v) AS mx FROM big GROUP BY id % 1000"
  [bf_proj]="SELECT id, v * 2 AS w, id % 5000 AS g, s FROM big WHERE v % 10 <> 0"
  [bf_on]="SELECT g, count(*) AS c, sum(w) AS sw, min(w) AS mn FROM bf_proj GROUP BY g"
)
# Cheap completeness probes: the MV's row total vs the same from its input.
declare -A BF_PROBE=(
  [bf_agg]="SELECT (SELECT coalesce(sum(c), 0) FROM bf_agg) = (SELECT count(*) FROM big)"
  [bf_proj]="SELECT (SELECT count(*) FROM bf_proj) = (SELECT count(*) FROM big WHERE v % 10 <> 0)"
  [bf_on]="SELECT (SELECT coalesce(sum(c), 0) FROM bf_on) = (SELECT count(*) FROM bf_proj)"
)
BF_DONE=()

# dml_script FILE N: DML on big (updates, deletes, inserts, FLUSH).
dml_script() {
  local f="$1" n=$2 i r a
  { echo '\set ON_ERROR_STOP 1'
    for ((i = 1; i <= n; i++)); do
      r=$((RANDOM % 100)); a=$((1 + (RANDOM * 32768 + RANDOM) % BIG_ROWS))
      if ((r < 25)); then echo "UPDATE big SET v = v + $((1 + RANDOM % 20)) WHERE id BETWEEN $a AND $((a + RANDOM % 500));"
      elif ((r < 30)); then echo "UPDATE big SET v = NULL WHERE id BETWEEN $a AND $((a + RANDOM % 50));"
      elif ((r < 37)); then  # move rows to new primary keys (other vnodes, maybe not scanned yet)
        big_moves=$((big_moves + 1))
        echo "UPDATE big SET id = id + $((big_moves * 10000000)) WHERE id BETWEEN $a AND $((a + RANDOM % 40));"
      elif ((r < 47)); then echo "DELETE FROM big WHERE id BETWEEN $a AND $((a + RANDOM % 100));"
      elif ((r < 65)); then
        echo "INSERT INTO big SELECT g, (g::bigint * 7919) % 100003, 'y' || (g % 7) FROM generate_series($big_next, $((big_next + 199))) AS g;"
        big_next=$((big_next + 200))
      elif ((r < 80)); then echo "UPDATE big SET v = (v * 3) % 100003, s = 'z' WHERE id % 1000 = $((RANDOM % 1000));"
      elif ((r < 90)); then echo "DELETE FROM big WHERE id % 2000 = $((RANDOM % 2000));"
      else echo "FLUSH;"; fi
    done
  } >"$f"
}

# backfill_crash MV MAXDELAY_MS DML(0/1) [AGAIN_MS]: CREATE MATERIALIZED VIEW
# in the background, kill -9 a random delay after the MV appears in the
# catalog, restart (with AGAIN_MS: kill -9 again within that many ms of the
# restart, while the backfill resumes, and restart again), wait (bounded) for
# the MV to finish by itself, compare.
backfill_crash() {
  local mv="$1" maxdelay=$2 dml=$3 again="${4:-}" delay created returned start attempt done_at probe t par
  local cout="$WORK/create_$mv.out"
  echo "-- kill -9 during CREATE MATERIALIZED VIEW $mv$([[ $dml -eq 1 ]] && echo ", with concurrent DML on big")"
  BG_PIDS=()
  if [[ $dml -eq 1 ]]; then
    dml_script "$WORK/dml_$mv.sql" 200
    psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$WORK/dml_$mv.sql" >"$WORK/dml_$mv.out" 2>&1 &
    BG_PIDS+=($!)
  fi
  start=$(now_ms)
  par=$((1 + RANDOM % 3))
  echo "  streaming_parallelism $par"
  psql -X -At -h 127.0.0.1 -p "$PORT" -U root -d dev -c "SET streaming_parallelism = $par" \
    -c "CREATE MATERIALIZED VIEW $mv AS ${BF_DEF[$mv]}" >"$cout" 2>&1 &
  BG_PIDS+=($!)
  created=0
  for _ in $(seq 1 400); do   # bounded: ~20 s
    [[ "$(q -c "SELECT count(*) FROM pg_class WHERE relname = '$mv'" 2>/dev/null)" == 1 ]] && { created=1; break; }
    grep -q 'ERROR' "$cout" && break
    sleep 0.05
  done
  if [[ $created -eq 0 ]]; then
    fail "$mv did not appear in the catalog: $(head -c 300 "$cout")"
    kill9_server; wait_bg; start_srv "$DATA2" "$LOG2"; return
  fi
  delay=$((RANDOM % maxdelay))
  msleep $delay   # the kill point
  returned=0; grep -q CREATE_MATERIALIZED_VIEW "$cout" && returned=1
  kill9_server
  t=$(( $(now_ms) - start ))
  wait_bg
  if [[ $returned -eq 1 ]]; then
    echo "  kill -9 $delay ms after $mv appeared in the catalog ($t ms after CREATE was sent): the CREATE had already returned (backfill finished; the round is still valid)"
  else
    echo "  kill -9 $delay ms after $mv appeared in the catalog ($t ms after CREATE was sent), while CREATE was still running"
  fi
  if [[ $dml -eq 1 ]]; then
    echo "  concurrent DML: $(grep -c . "$WORK/dml_$mv.sql") statements in its script, killed with it$(grep -m1 'ERROR:' "$WORK/dml_$mv.out" | sed 's/^/; /')"
  fi
  if ! start_srv "$DATA2" "$LOG2"; then fail "restart after kill -9 during the backfill of $mv"; finish; fi
  ok "restart after kill -9 during the backfill of $mv"
  if [[ -n "$again" ]]; then
    delay=$((RANDOM % again))
    msleep $delay   # the second kill point
    kill9_server
    echo "  kill -9 again $delay ms after the restart (while the backfill of $mv resumes)"
    if ! start_srv "$DATA2" "$LOG2"; then fail "restart after the second kill -9 during the backfill of $mv"; finish; fi
    ok "restart after the second kill -9 during the backfill of $mv"
  fi
  check "$mv still exists after the restart" test "$(q -c "SELECT count(*) FROM pg_class WHERE relname = '$mv'" 2>&1)" = 1
  start=$(now_ms); done_at=""
  for attempt in $(seq 1 60); do   # bounded: 60 attempts, each after a FLUSH
    q -c "FLUSH" >/dev/null 2>&1
    probe="$(q -c "${BF_PROBE[$mv]}" 2>/dev/null)"
    if [[ "$probe" == t ]]; then done_at=$attempt; break; fi
    sleep 0.25
  done
  if [[ -n "$done_at" ]]; then
    ok "$mv finished by itself after the restart (attempt $done_at, $(( $(now_ms) - start )) ms)"
  else
    fail "$mv did not finish within 60 attempts (~$(( ($(now_ms) - start) / 1000 )) s) after the restart; last probe: '${probe}'; $(q -c "SELECT count(*) FROM $mv" 2>&1 | head -c 200) rows"
  fi
  check_query "$mv after kill -9 during its backfill = its query (no lost, no duplicated rows)" "SELECT * FROM $mv" "${BF_DEF[$mv]}"
  BF_DONE+=("$mv")
}

backfill_crash bf_agg 2500 1
backfill_crash bf_proj 900 0 600
backfill_crash bf_on 1200 1

# Fingerprints of each MV against its input (cheap, unlike the full comparison).
declare -A BF_PRINT=(
  [bf_agg]="SELECT (SELECT count(*) || ' ' || coalesce(sum(v), 0) FROM big) || ' / ' || (SELECT coalesce(sum(c), 0) || ' ' || coalesce(sum(sv), 0) FROM bf_agg)"
  [bf_proj]="SELECT (SELECT count(*) || ' ' || coalesce(sum(v * 2), 0) FROM big WHERE v % 10 <> 0) || ' / ' || (SELECT count(*) || ' ' || coalesce(sum(w), 0) FROM bf_proj)"
  [bf_on]="SELECT (SELECT count(*) || ' ' || coalesce(sum(w), 0) FROM bf_proj) || ' / ' || (SELECT coalesce(sum(c), 0) || ' ' || coalesce(sum(sw), 0) FROM bf_on)"
)
echo "-- kill -9 during the FLUSH of a large INSERT into big (one epoch of table + MV writes)"
n_big=$((40000 + RANDOM % 10000)); lo=$big_next; hi=$((big_next + n_big - 1)); big_next=$((hi + 1))
psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev \
  -c "INSERT INTO big SELECT g, (g::bigint * 7919) % 100003, 'w' || (g % 11) FROM generate_series($lo, $hi) AS g" \
  -c "\\echo inserted" -c "FLUSH" -c "\\echo flushed" >"$WORK/large.out" 2>&1 &
BG_PIDS=($!)
# The kill point: a random delay after the INSERT returned, while its FLUSH
# (the commit of the epoch) is in flight; or (every other seed) right after
# the FLUSH returned.
if ((RANDOM % 2)); then marker=inserted; delay=$((RANDOM % 2000)); else marker=flushed; delay=$((RANDOM % 100)); fi
for _ in $(seq 1 600); do   # bounded: ~60 s
  grep -q "$marker" "$WORK/large.out" && break
  kill -0 "${BG_PIDS[0]}" 2>/dev/null || break
  sleep 0.05
done
msleep $delay
kill9_server; wait_bg
echo "  kill -9 $delay ms after waiting for the $n_big-row INSERT$([[ $marker == flushed ]] && echo "'s FLUSH") to return; $(grep -q flushed "$WORK/large.out" && echo "its FLUSH had returned" || { grep -q inserted "$WORK/large.out" && echo "it had returned, its FLUSH had not" || echo "it had not returned"; })"
if ! start_srv "$DATA2" "$LOG2"; then fail "restart after kill -9 during the large INSERT"; finish; fi
ok "restart after kill -9 during the large INSERT"
got="$(q -c "SELECT count(*) FROM big WHERE id BETWEEN $lo AND $hi" 2>&1)"
if grep -q flushed "$WORK/large.out"; then
  check "the flushed $n_big-row INSERT is entirely there (got $got)" test "$got" = "$n_big"
else
  check "the unflushed $n_big-row INSERT is all there or all absent (got $got)" test "$got" = "$n_big" -o "$got" = 0
fi
for mv in "${BF_DONE[@]}"; do
  got="$(q -c "${BF_PRINT[$mv]}" 2>&1)"
  check "$mv agrees with its input after the restart (count sum: input / MV = $got)" test "${got% / *}" = "${got#* / }"
done

echo "-- DML + FLUSH after the recoveries"
dml_script "$WORK/dml_final.sql" 10
echo "FLUSH;" >>"$WORK/dml_final.sql"
if timeout 60 psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -f "$WORK/dml_final.sql" >"$WORK/dml_final.out" 2>&1; then
  ok "10 DML statements on big and a FLUSH"
else
  fail "DML on big after the recoveries: $(head -n 3 "$WORK/dml_final.out")"
fi
for mv in "${BF_DONE[@]}"; do
  check_query "$mv after more DML + FLUSH = its query" "SELECT * FROM $mv" "${BF_DEF[$mv]}"
done
kill9_server
echo "  part 2 took $(( ($(now_ms) - T1) / 1000 )) s; total $(( ($(now_ms) - T0) / 1000 )) s"

fi

echo "(seed $SEED: rerun with STREAM_CRASH_SEED=$SEED)"
finish
