// Client side of bench/tsbs/run.sh: the timed queries for all three systems
// (Freshet and PostgreSQL through the `pg` driver, DuckDB through
// @duckdb/node-api, both from bench/package.json), and DuckDB's loads.
//
//   node tsbs_client.mjs queries pg HOST PORT USER DATABASE QUERIES OUT_DIR TIMEOUT_S
//   node tsbs_client.mjs queries duckdb DB_FILE QUERIES OUT_DIR TIMEOUT_S
//   node tsbs_client.mjs duckdb-copy DB_FILE SCHEMA CSV_FILE
//   node tsbs_client.mjs duckdb-insert DB_FILE SCHEMA SQL_FILE
//
// queries: QUERIES is tsbs_queries.py's file (kind, instance, ordered, sql).
// For each kind, its first instance once as a warm-up (not timed), then each
// instance once, timed from sending the query until its last row is in the
// client: pg's client.query in the simple query protocol with every value
// kept as the server's text (no type parsing) and rows as arrays; DuckDB's
// runAndReadAll (the result materialized in the client's memory; the
// conversion to JS values afterwards is not timed). One connection per
// system for the whole run; statement_timeout (pg) or an interrupt (DuckDB)
// after TIMEOUT_S; after a timeout the kind's remaining instances are skipped.
// Each result is normalized after the timing (numbers rounded to 6
// significant digits, timestamps as 'YYYY-MM-DD HH:MM:SS[.ffffff]', NULL as
// \N; rows sorted when the query has no ORDER BY) and written to
// OUT_DIR/<kind>.<instance>.tsv, cut to its first 2,000 rows; its SHA-256 over
// all rows (its first 16 hex digits) goes to stdout. Prints:
//   version <text>, note <text>
//   warmup <kind> <ms|error> [message]
//   query <kind> <instance> <ms> <rows> <sha256> <client CPU ms>
// (the client's CPU time over the timed interval: for pg, receiving and
// splitting the rows; for DuckDB, in-process, it includes the query's own
// execution)
//   query <kind> <instance> error <message>   (or "skipped" after a timeout)
//
// duckdb-copy: SCHEMA's statements (the table), then COPY cpu FROM CSV_FILE
// (FORMAT csv) into the database file, then CHECKPOINT; prints
// "copy <ms> <rows>" and "checkpoint <ms>".
// duckdb-insert: SCHEMA's statements, then SQL_FILE's statements (tsbs_gen
// --format insert: one per line) one after the other on one connection, then
// CHECKPOINT; prints
// "insert <ms> <statements> <rows>" and "checkpoint <ms>".

import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const [mode, ...args] = process.argv.slice(2);
const oneLine = (e) => (String(e?.message ?? e) + (e?.code ? ` (SQLSTATE ${e.code})` : ''))
  .replaceAll(/\s+/g, ' ').trim();
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const KEEP_ROWS = 2000;

const TS_RE = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]00(:?00)?)?$/;
const NUM_RE = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(Infinity|inf|NaN)$/i;
function normValue(v) {
  if (v === null || v === undefined) return '\\N';
  let s;
  if (typeof v === 'number' || typeof v === 'bigint') s = String(v);
  else s = typeof v === 'string' ? v : v.toString();
  const ts = TS_RE.exec(s);
  if (ts) {
    let frac = (ts[3] ?? '').replace(/0+$/, '');
    if (frac === '.') frac = '';
    return `${ts[1]} ${ts[2]}${frac}`;
  }
  if (NUM_RE.test(s)) {
    const x = Number(s);
    if (Number.isFinite(x)) return String(Number(x.toPrecision(6)));
  }
  return s;
}

function readQueries(file) {
  const kinds = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const [kind, instance, ordered, sql] = line.split('\t');
    if (!kinds.has(kind)) kinds.set(kind, []);
    kinds.get(kind).push({ instance: Number(instance), ordered: ordered === '1', sql });
  }
  return kinds;
}

function writeResult(outDir, kind, q, rows) {
  let lines = rows.map((r) => r.map(normValue).join('\t'));
  if (!q.ordered) lines.sort();
  const text = lines.join('\n') + (lines.length ? '\n' : '');
  writeFileSync(`${outDir}/${kind}.${q.instance}.tsv`,
    lines.length > KEEP_ROWS ? lines.slice(0, KEEP_ROWS).join('\n') + '\n' : text);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function runQueries(system, run, queriesFile, outDir) {
  mkdirSync(outDir, { recursive: true });
  for (const [kind, instances] of readQueries(queriesFile)) {
    let t0 = performance.now();
    try {
      await run(instances[0].sql);
      console.log(`warmup ${kind} ${(performance.now() - t0).toFixed(3)}`);
    } catch (e) {
      console.log(`warmup ${kind} error ${oneLine(e)}`);
    }
    let timedOut = false;
    for (const q of instances) {
      if (timedOut) { console.log(`query ${kind} ${q.instance} skipped after a timeout`); continue; }
      t0 = performance.now();
      const cpu0 = process.cpuUsage();
      let rows;
      try {
        rows = await run(q.sql);
      } catch (e) {
        const msg = oneLine(e);
        console.log(`query ${kind} ${q.instance} error ${msg}`);
        if (/timeout|cancel|interrupt/i.test(msg)) timedOut = true;
        continue;
      }
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const digest = writeResult(outDir, kind, q, typeof rows === 'function' ? rows() : rows);
      const n = typeof rows === 'function' ? rows.count : rows.length;
      console.log(`query ${kind} ${q.instance} ${ms.toFixed(3)} ${n} ${digest} ${((cpu.user + cpu.system) / 1000).toFixed(1)}`);
    }
  }
}

async function pgQueries([host, port, user, database, queriesFile, outDir, timeoutS]) {
  const { default: pg } = await import('pg');
  const raw = (v) => v;
  const client = new pg.Client({
    host, port: Number(port), user, database,
    types: { getTypeParser: () => raw },
  });
  await client.connect();
  try {
    await client.query(`SET statement_timeout = '${Number(timeoutS)}s'`);
  } catch (e) {
    console.log(`note statement_timeout refused: ${oneLine(e)}`);
  }
  const v = await client.query({ text: 'SELECT version()', rowMode: 'array' });
  console.log(`version ${v.rows[0][0]}`);
  await runQueries('pg', async (sql) => (await client.query({ text: sql, rowMode: 'array' })).rows,
    queriesFile, outDir);
  await client.end();
}

async function duckdb(file) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(file);
  const con = await instance.connect();
  return { instance, con };
}

async function duckQueries([file, queriesFile, outDir, timeoutS]) {
  const { instance, con } = await duckdb(file);
  const v = (await con.runAndReadAll("SELECT version(), current_setting('threads')")).getRows()[0];
  console.log(`version DuckDB ${v[0]} threads ${v[1]}`);
  const run = async (sql) => {
    const timer = setTimeout(() => con.interrupt(), Number(timeoutS) * 1000);
    let reader;
    try {
      reader = await con.runAndReadAll(sql);
    } finally {
      clearTimeout(timer);
    }
    const rows = () => reader.getRows();   // converted to JS values after the timing
    rows.count = reader.currentRowCount;
    return rows;
  };
  await runQueries('duckdb', run, queriesFile, outDir);
  con.closeSync();
  instance.closeSync();
}

async function runSchema(con, schemaFile) {
  const text = readFileSync(schemaFile, 'utf8').replace(/--.*$/gm, '');
  for (const stmt of text.split(';').map((x) => x.trim()).filter((x) => x !== '')) await con.run(stmt);
}

async function duckCopy([file, schema, csv]) {
  const { instance, con } = await duckdb(file);
  await runSchema(con, schema);
  let t0 = performance.now();
  const r = await con.run(`COPY cpu FROM ${sqlString(csv)} (FORMAT csv, HEADER false)`);
  console.log(`copy ${(performance.now() - t0).toFixed(3)} ${r.rowsChanged}`);
  t0 = performance.now();
  await con.run('CHECKPOINT');
  console.log(`checkpoint ${(performance.now() - t0).toFixed(3)}`);
  con.closeSync();
  instance.closeSync();
}

async function duckInsert([file, schema, sqlFile]) {
  const { instance, con } = await duckdb(file);
  await runSchema(con, schema);
  let statements = 0;
  let rows = 0;
  const lines = createInterface({ input: createReadStream(sqlFile), crlfDelay: Infinity });
  const t0 = performance.now();
  for await (const line of lines) {
    if (line === '') continue;
    const r = await con.run(line);
    statements++;
    if (line.startsWith('INSERT')) rows += Number(r.rowsChanged);
  }
  console.log(`insert ${(performance.now() - t0).toFixed(3)} ${statements} ${rows}`);
  const t1 = performance.now();
  await con.run('CHECKPOINT');
  console.log(`checkpoint ${(performance.now() - t1).toFixed(3)}`);
  con.closeSync();
  instance.closeSync();
}

const modes = {
  queries: (a) => (a[0] === 'pg' ? pgQueries(a.slice(1)) : duckQueries(a.slice(1))),
  'duckdb-copy': duckCopy,
  'duckdb-insert': duckInsert,
};
if (!modes[mode]) {
  console.error('usage: node tsbs_client.mjs queries pg|duckdb ... | duckdb-copy DB SCHEMA CSV | duckdb-insert DB SCHEMA SQL');
  process.exit(2);
}
await modes[mode](args);
