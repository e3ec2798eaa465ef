#!/usr/bin/env bash
# Random watermark views (issue 19, item 4): for each seed,
# scripts/gen_watermark_fuzz_slt.py writes 8 random views over two tables
# with watermarks (EMIT ON WINDOW CLOSE aggregations over tumble, hop and
# unions, window functions and top-N; aggregations emitting on update;
# interval joins) and 10 rounds of random inserts, some late, and checks
# every view against the batch engine after each round (the closed windows
# or rows for EMIT ON WINDOW CLOSE, the whole query otherwise).
#
#   tests/integration/watermark_fuzz_test.sh [path/to/freshet]
#   WATERMARK_FUZZ_SEED=N WATERMARK_FUZZ_SEEDS=M: seeds N..N+M-1 (default 1..40)
#
# A failing seed is reproduced with `python3 scripts/gen_watermark_fuzz_slt.py
# SEED > f.slt` and slt_runner. Prints "N passed, M failed" last.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-/work/main/build/freshet}"
NAME=watermark_fuzz_test
[[ -x "$BIN" ]] || { echo "freshet binary not found at $BIN (pass it as \$1)"; echo "0 passed, 1 failed"; exit 1; }
source "$HERE/lib.sh"
RUNNER="$(dirname "$BIN")/slt_runner"
q() { psql -X -q -At -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@" 2>&1; }
GEN="$HERE/../../scripts/gen_watermark_fuzz_slt.py"
FIRST="${WATERMARK_FUZZ_SEED:-1}"
COUNT="${WATERMARK_FUZZ_SEEDS:-40}"

start_server "$WORK/d" "$WORK/d.log" || { fail "start"; finish; }
for seed in $(seq "$FIRST" $((FIRST + COUNT - 1))); do
  file="$WORK/seed_$seed.slt"
  python3 "$GEN" "$seed" > "$file" || { fail "seed $seed: the generator failed"; continue; }
  result=$("$RUNNER" --port "$PORT" "$file" 2>&1)
  if [[ "$(tail -n 1 <<<"$result")" == *" 0 failed" ]]; then
    ok "seed $seed: $(tail -n 1 <<<"$result")"
  else
    fail "seed $seed: $(tail -n 1 <<<"$result") (python3 scripts/gen_watermark_fuzz_slt.py $seed)"
    grep -A 8 "^FAIL" <<<"$result" | head -n 40 | sed 's/^/      /'
  fi
done
no_failure "after every seed"
stop_server
finish
