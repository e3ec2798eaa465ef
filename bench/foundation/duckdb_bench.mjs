// DuckDB side of bench/foundation/run.sh.
//
//   node duckdb_bench.mjs DB_FILE T_CSV U_CSV QUERIES_TSV OUT_DIR RUNS
//
// Loads T_CSV into t and U_CSV into u of a persistent database DB_FILE with
// COPY ... FROM (the load of t is timed, including a CHECKPOINT, like
// Freshet's COPY + FLUSH), then runs every query of QUERIES_TSV (lines
// "name<TAB>sql") once as a warm-up and RUNS times timed. Each timing
// includes reading the whole result into JS values. Prints one line per
// measurement on stdout:
//   load_t <ms> <peak_rss_kb> <copy_ms> <checkpoint_ms>
//   load_u <ms> <peak_rss_kb> <copy_ms> <checkpoint_ms>
//   query <name> <run> <ms|error> [message]     (run 0 is the warm-up)
//   peak <name> <peak_rss_kb>
// and writes the warm-up's rows of each query to OUT_DIR/<name>.out
// (comma-separated, one line per row) so run.sh can compare results.
// Peak RSS is VmHWM of this node process, reset (clear_refs 5) before each
// step.

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [dbFile, tCsv, uCsv, queriesTsv, outDir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
if (!outDir) {
  console.error('usage: node duckdb_bench.mjs DB_FILE T_CSV U_CSV QUERIES_TSV OUT_DIR RUNS');
  process.exit(1);
}

function resetPeak() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not allowed: VmHWM then covers the whole process lifetime.
  }
}

function peakKb() {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : -1;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

const instance = await DuckDBInstance.create(dbFile);
const con = await instance.connect();
const version = (await con.runAndReadAll('SELECT version()')).getRows()[0][0];
const threads = (await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
console.log(`version ${version} threads ${threads}`);

await con.run(`CREATE TABLE t (a BIGINT, b BIGINT, c DOUBLE, d VARCHAR, e TIMESTAMP)`);
await con.run(`CREATE TABLE u (k BIGINT, w DOUBLE, name VARCHAR)`);

for (const [table, file] of [['t', tCsv], ['u', uCsv]]) {
  resetPeak();
  const start = performance.now();
  await con.run(`COPY ${table} FROM ${sqlString(file)} (FORMAT csv, HEADER false)`);
  const copied = performance.now();
  await con.run('CHECKPOINT');
  const end = performance.now();
  console.log(`load_${table} ${(end - start).toFixed(3)} ${peakKb()} ${(copied - start).toFixed(3)} ${(end - copied).toFixed(3)}`);
}

const queries = readFileSync(queriesTsv, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => {
    const tab = l.indexOf('\t');
    return { name: l.slice(0, tab), sql: l.slice(tab + 1) };
  });

for (const { name, sql } of queries) {
  resetPeak();
  for (let run = 0; run <= runs; run++) {
    const start = performance.now();
    let rows;
    try {
      const reader = await con.runAndReadAll(sql);
      rows = reader.getRows();
    } catch (e) {
      const msg = String(e?.message ?? e).replaceAll('\n', ' ');
      console.log(`query ${name} ${run} error ${msg}`);
      continue;
    }
    const ms = performance.now() - start;
    console.log(`query ${name} ${run} ${ms.toFixed(3)}`);
    if (run === 0) {
      const text = rows.map((r) => r.map((v) => (v === null ? '' : String(v))).join(',')).join('\n');
      writeFileSync(`${outDir}/${name}.out`, text + '\n');
    }
  }
  console.log(`peak ${name} ${peakKb()}`);
}

con.closeSync();
instance.closeSync();
