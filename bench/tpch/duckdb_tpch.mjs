// DuckDB side of bench/tpch/run.sh: the 22 TPC-H queries recomputed from
// scratch over the same data and refresh batches that Freshet maintains
// its views under.
//
//   node duckdb_tpch.mjs DATA_DIR RF_DIR BATCHES QUERIES_DIR OUT_DIR RUNS QUERIES
//
// An in-memory database gets bench/tpch/schema.sql's tables (without their
// PRIMARY KEY clauses: DuckDB's are ART indexes that only slow loading down)
// and DATA_DIR/<table>.tsv (COPY, timed per table); then refresh batches
// 1..BATCHES of bench/tpch/refresh.py (RF_DIR/rfB.*), each in one
// transaction (COPY orders/lineitem FROM rfB.*.tsv, DELETE FROM lineitem /
// orders WHERE key IN (rfB.delete.tsv's keys)), timed; then Q15's view
// revenue0, and each query of QUERIES (comma-separated, e.g. q01,q02) is run
// RUNS times as
//     CREATE OR REPLACE TEMP TABLE result AS <query>
// (materialized, as a view's rows are), each run timed. The first run is a
// warm-up; the reported time is the median of the others (of all when
// RUNS = 1). The result is written to OUT_DIR/duckdb.<q>.tsv (tab separated,
// no header) for run.sh to compare with Freshet's view. Prints on stdout:
//   version <version> threads <n>
//   load <table> <ms> <rows>
//   batch <b> <ms> <rows changed>
//   query <q> <median ms|error> <rows> <ms of each run, comma-separated> [message]

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [dataDir, rfDir, batchesArg, queriesDir, outDir, runsArg, queryList] = process.argv.slice(2);
if (!queryList) {
  console.error('usage: node duckdb_tpch.mjs DATA_DIR RF_DIR BATCHES QUERIES_DIR OUT_DIR RUNS QUERIES');
  process.exit(1);
}
const batches = Number(batchesArg);
const runs = Math.max(1, Number(runsArg));
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const oneLine = (e) => String(e?.message ?? e).replaceAll('\n', ' ');
const TSV = "(FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '', ESCAPE '')";
const TABLES = ['region', 'nation', 'part', 'partsupp', 'supplier', 'customer', 'orders', 'lineitem'];

const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const scalar = async (sql) => (await con.runAndReadAll(sql)).getRows()[0][0];
console.log(`version ${await scalar('SELECT version()')} threads ${await scalar("SELECT current_setting('threads')")}`);

const schema = readFileSync(new URL('./schema.sql', import.meta.url), 'utf8')
  .replace(/--.*$/gm, '')
  .replace(/,\s*PRIMARY KEY \([^)]*\)/g, '');
for (const stmt of schema.split(';').map((s) => s.trim()).filter((s) => s !== '')) await con.run(stmt);

for (const table of TABLES) {
  const start = performance.now();
  await con.run(`COPY ${table} FROM ${sqlString(`${dataDir}/${table}.tsv`)} ${TSV}`);
  const ms = performance.now() - start;
  console.log(`load ${table} ${ms.toFixed(3)} ${await scalar(`SELECT count(*) FROM ${table}`)}`);
}

for (let b = 1; b <= batches; b++) {
  const base = `${rfDir}/rf${b}`;
  const keys = `(SELECT column0 FROM read_csv(${sqlString(`${base}.delete.tsv`)}, header = false, columns = {'column0': 'INTEGER'}))`;
  const start = performance.now();
  let changed = 0;
  await con.run('BEGIN');
  for (const [sql, counts] of [
    [`COPY orders FROM ${sqlString(`${base}.orders.tsv`)} ${TSV}`, true],
    [`COPY lineitem FROM ${sqlString(`${base}.lineitem.tsv`)} ${TSV}`, true],
    [`DELETE FROM lineitem WHERE l_orderkey IN ${keys}`, true],
    [`DELETE FROM orders WHERE o_orderkey IN ${keys}`, true],
  ]) {
    const r = await con.run(sql);
    if (counts) changed += Number(r.rowsChanged);
  }
  await con.run('COMMIT');
  console.log(`batch ${b} ${(performance.now() - start).toFixed(3)} ${changed}`);
}

await con.run(readFileSync(`${queriesDir}/q15_view.sql`, 'utf8').replace(/;\s*$/, ''));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

for (const name of queryList.split(',')) {
  const sql = readFileSync(`${queriesDir}/${name}.sql`, 'utf8').replace(/;\s*$/, '');
  const times = [];
  let error = null;
  for (let i = 0; i < runs && !error; i++) {
    const start = performance.now();
    try {
      await con.run(`CREATE OR REPLACE TEMP TABLE result AS ${sql}`);
    } catch (e) {
      error = oneLine(e);
      break;
    }
    times.push(performance.now() - start);
  }
  if (error) {
    console.log(`query ${name} error 0 - ${error}`);
    continue;
  }
  const timed = times.length > 1 ? times.slice(1) : times;
  const rows = await scalar('SELECT count(*) FROM result');
  await con.run(`COPY result TO ${sqlString(`${outDir}/duckdb.${name}.tsv`)} (FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '')`);
  await con.run('DROP TABLE result');
  console.log(`query ${name} ${median(timed).toFixed(3)} ${rows} ${times.map((t) => t.toFixed(1)).join(',')}`);
}

con.closeSync();
instance.closeSync();
