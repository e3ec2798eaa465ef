// DuckDB side of bench/nexmark/run.sh: the Nexmark queries as batch queries
// over the same events, exported from Freshet as CSV files.
//
//   node duckdb_nexmark.mjs DB_FILE DATA_DIR QUERIES_TSV OUT_DIR DUMP
//
// Creates person, auction and bid in the persistent database DB_FILE and
// loads DATA_DIR/{person,auction,bid}.csv into them (COPY + CHECKPOINT,
// timed), then runs each query of QUERIES_TSV (lines "name<TAB>sql file")
// once, timed, as
//     CREATE OR REPLACE TEMP TABLE result AS <query>
// (the result is materialized, not sent to the client: the batch
// counterpart of a blackhole sink). After the timing, it counts the result's
// rows and, when DUMP is 1, writes them to OUT_DIR/duckdb.<name>.csv (CSV, no
// header) so run.sh can compare them with Freshet's. Prints on stdout:
//   version <version> threads <n>
//   load <table> <ms> <rows>
//   query <name> <ms|error|skip> <rows> <peak_rss_kb> [message]
// Peak RSS is VmHWM of this node process, reset (clear_refs 5) before each
// query. A query file whose first line starts with "-- skip:" is not run.

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [dbFile, dataDir, queriesTsv, outDir, dumpArg] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node duckdb_nexmark.mjs DB_FILE DATA_DIR QUERIES_TSV OUT_DIR DUMP');
  process.exit(1);
}
const dump = dumpArg === '1';

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
const oneLine = (e) => String(e?.message ?? e).replaceAll('\n', ' ');

const TABLES = {
  person: `CREATE TABLE person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR,
    city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR)`,
  auction: `CREATE TABLE auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
    reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR)`,
  bid: `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR)`,
};

const instance = await DuckDBInstance.create(dbFile);
const con = await instance.connect();
const scalar = async (sql) => (await con.runAndReadAll(sql)).getRows()[0][0];
console.log(`version ${await scalar('SELECT version()')} threads ${await scalar("SELECT current_setting('threads')")}`);

for (const [table, ddl] of Object.entries(TABLES)) {
  await con.run(ddl);
  const start = performance.now();
  await con.run(`COPY ${table} FROM ${sqlString(`${dataDir}/${table}.csv`)} (FORMAT csv, HEADER false)`);
  await con.run('CHECKPOINT');
  const ms = performance.now() - start;
  console.log(`load ${table} ${ms.toFixed(3)} ${await scalar(`SELECT count(*) FROM ${table}`)}`);
}

const queries = readFileSync(queriesTsv, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => l.split('\t'));

for (const [name, file] of queries) {
  const text = readFileSync(file, 'utf8');
  const first = text.split('\n')[0];
  if (first.startsWith('-- skip:')) {
    console.log(`query ${name} skip 0 -1 ${first.slice('-- skip:'.length).trim()}`);
    continue;
  }
  const sql = text.replace(/;\s*$/, '');
  resetPeak();
  const start = performance.now();
  try {
    await con.run(`CREATE OR REPLACE TEMP TABLE result AS ${sql}`);
  } catch (e) {
    console.log(`query ${name} error 0 ${peakKb()} ${oneLine(e)}`);
    continue;
  }
  const ms = performance.now() - start;
  const peak = peakKb();
  const rows = await scalar('SELECT count(*) FROM result');
  if (dump) {
    await con.run(`COPY result TO ${sqlString(`${outDir}/duckdb.${name}.csv`)} (FORMAT csv, HEADER false)`);
  }
  await con.run('DROP TABLE result');
  console.log(`query ${name} ${ms.toFixed(3)} ${rows} ${peak}`);
}

con.closeSync();
instance.closeSync();
