// What a Node.js application does with node-postgres (pg) and postgres.js,
// run against a server: DDL, parameters (the extended protocol), named
// prepared statements, type round trips, a failed transaction rolled back
// and the connection going on, pagination with bound LIMIT/OFFSET, SHOW
// and EXPLAIN as prepared statements, a pool, cursors (postgres.js reads a
// portal in pages), notices, LISTEN/NOTIFY, a unique violation's fields. Passes against
// PostgreSQL 15 unchanged.
//
//   node node_clients_test.mjs HOST PORT USER DATABASE
// Prints "  ok: ..." / "  FAIL: ..." per check and "N passed, M failed" last;
// exits non-zero on a failure.
import pg from 'pg';
import postgres from 'postgres';

import { check, database, expectError, finish, host, port, user } from './checks.mjs';

async function nodePostgres() {
  console.log('== node-postgres');
  const client = new pg.Client({ host, port, user, database });
  const notices = [];
  client.on('notice', (n) => notices.push(n.message));
  await client.connect();
  await client.query('DROP TABLE IF EXISTS np_items');
  await client.query('CREATE TABLE np_items (id int PRIMARY KEY, name text UNIQUE, price numeric(10,2), tags text[], meta jsonb, seen timestamptz, big bigint, ok boolean)');
  const when = new Date('2024-03-01T12:34:56.789Z');
  for (let i = 1; i <= 30; i++) {
    await client.query('INSERT INTO np_items VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [i, `item${i}`, (i * 1.25).toFixed(2), ['a', `t${i}`], { n: i, nested: { k: 'v' } }, when, 2n ** 40n + BigInt(i), i % 2 === 0]);
  }
  let r = await client.query('SELECT count(*) FROM np_items');
  check(r.rows[0].count === '30', 'INSERT with parameters, count(*) as a bigint string', r.rows);
  r = await client.query('SELECT * FROM np_items WHERE id = $1', [7]);
  const row = r.rows[0];
  check(row && row.name === 'item7' && row.price === '8.75' && row.tags.join(',') === 'a,t7' && row.meta.nested.k === 'v' &&
        row.seen.getTime() === when.getTime() && row.big === String(2n ** 40n + 7n) && row.ok === false,
        'type round trips (numeric, text[], jsonb, timestamptz, bigint, boolean)', row);
  check(r.fields.map((f) => f.name).join(',') === 'id,name,price,tags,meta,seen,big,ok', 'field names', r.fields.map((f) => f.name));
  // A named statement: parsed once, executed many times.
  let sum = 0;
  for (let i = 1; i <= 10; i++) {
    const q = await client.query({ name: 'np_by_id', text: 'SELECT price FROM np_items WHERE id = $1', values: [i] });
    sum += Number(q.rows[0].price);
  }
  check(sum === 68.75, 'a named prepared statement run 10 times', sum);
  // Pagination with bound LIMIT and OFFSET, as ORMs send it.
  r = await client.query('SELECT id FROM np_items ORDER BY id LIMIT $1 OFFSET $2', [5, 10]);
  check(r.rows.map((x) => x.id).join(',') === '11,12,13,14,15', 'LIMIT $1 OFFSET $2', r.rows);
  // SHOW and EXPLAIN through the extended protocol (described before execution).
  r = await client.query({ text: 'SHOW TimeZone', values: [] });
  check(r.rows.length === 1 && Object.keys(r.rows[0])[0] === 'TimeZone', 'SHOW as a prepared statement', r.rows);
  r = await client.query({ text: 'SHOW transaction_isolation', values: [] });
  check(r.rows[0].transaction_isolation === 'read committed', 'SHOW transaction_isolation', r.rows);
  r = await client.query({ text: 'EXPLAIN SELECT * FROM np_items WHERE id = $1', values: [1] });
  check(r.rows.length > 0 && 'QUERY PLAN' in r.rows[0], 'EXPLAIN with a parameter', r.rows);
  // A failed transaction, rolled back; the connection goes on.
  await client.query('BEGIN');
  await client.query('UPDATE np_items SET price = 0 WHERE id = 1');
  await expectError(client.query('SELECT 1 / $1::int', [0]), '22012', 'an error inside a transaction');
  await expectError(client.query('SELECT 1'), '25P02', 'the failed transaction refuses further statements');
  await client.query('ROLLBACK');
  r = await client.query('SELECT price FROM np_items WHERE id = 1');
  check(r.rows[0].price === '1.25', 'ROLLBACK undid the update', r.rows);
  // A unique violation with its fields.
  const e = await expectError(client.query('INSERT INTO np_items (id, name) VALUES ($1, $2)', [100, 'item3']), '23505',
    'a duplicate value of a UNIQUE column');
  check(e && e.constraint === 'np_items_name_key' && e.table === 'np_items' && e.detail === 'Key (name)=(item3) already exists.',
    "the error's constraint, table and detail fields", e && { constraint: e.constraint, table: e.table, detail: e.detail });
  // Notices.
  await client.query('DROP TABLE IF EXISTS np_missing');
  check(notices.some((n) => n.includes('does not exist, skipping')), 'a NOTICE reaches the notice handler', notices);
  // Many rows through one query; an array parameter.
  r = await client.query('SELECT id FROM np_items WHERE id = ANY($1) ORDER BY id', [[3, 5, 8]]);
  check(r.rows.map((x) => x.id).join(',') === '3,5,8', '= ANY($1) with an array parameter', r.rows);
  // LISTEN on this connection, NOTIFY from another: the notification
  // arrives while this one is idle.
  const heard = new Promise((resolve) => client.on('notification', (m) => resolve(m)));
  await client.query('LISTEN np_events');
  const other = new pg.Client({ host, port, user, database });
  await other.connect();
  await other.query("SELECT pg_notify('np_events', $1)", ['hello']);
  await other.end();
  const m = await Promise.race([heard, new Promise((resolve) => setTimeout(() => resolve(null), 10000))]);
  check(m && m.channel === 'np_events' && m.payload === 'hello', 'LISTEN: a notification from another connection', m);
  await client.end();

  // A pool: concurrent clients, each seeing the others' committed writes.
  const pool = new pg.Pool({ host, port, user, database, max: 4 });
  await Promise.all(Array.from({ length: 8 }, (_, k) =>
    pool.query('UPDATE np_items SET price = price + 1 WHERE id = $1', [k + 1])));
  r = await pool.query('SELECT sum(price) AS s FROM np_items WHERE id <= 8');
  check(r.rows[0].s === '53.00', 'a pool of 4 running 8 updates', r.rows);
  const c2 = await pool.connect();
  await c2.query('BEGIN');
  await c2.query('INSERT INTO np_items (id, name) VALUES (200, $1)', ['pooled']);
  await c2.query('COMMIT');
  c2.release();
  r = await pool.query('SELECT name FROM np_items WHERE id = 200');
  check(r.rows.length === 1 && r.rows[0].name === 'pooled', 'a transaction on a pooled client', r.rows);
  await pool.end();
}

async function postgresJs() {
  console.log('== postgres.js');
  const notices = [];
  const sql = postgres({ host, port, user, database, max: 2, onnotice: (n) => notices.push(n.message) });
  await sql`DROP TABLE IF EXISTS pj_items`;
  await sql`CREATE TABLE pj_items (id int PRIMARY KEY, name text NOT NULL, qty int CHECK (qty >= 0), at date)`;
  const rows = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: `n${i + 1}`, qty: i, at: new Date(Date.UTC(2024, 0, 1 + i)) }));
  await sql`INSERT INTO pj_items ${sql(rows, 'id', 'name', 'qty', 'at')}`;
  let r = await sql`SELECT count(*)::int AS n FROM pj_items`;
  check(r[0].n === 50, 'a multi-row insert from objects', r);
  r = await sql`SELECT * FROM pj_items WHERE id = ${7}`;
  check(r[0].name === 'n7' && r[0].qty === 6 && r[0].at instanceof Date && r[0].at.toISOString().startsWith('2024-01-07'),
    'a tagged-template query with a parameter (types)', r);
  r = await sql`SELECT id FROM pj_items WHERE id IN ${sql([2, 4, 6])} ORDER BY id`;
  check(r.map((x) => x.id).join(',') === '2,4,6', 'IN with a list', r);
  r = await sql`SELECT id FROM pj_items ORDER BY id LIMIT ${3} OFFSET ${5}`;
  check(r.map((x) => x.id).join(',') === '6,7,8', 'LIMIT and OFFSET as parameters', r);
  // Transactions: committed, and rolled back on an error.
  await sql.begin(async (tx) => {
    await tx`UPDATE pj_items SET qty = qty + 100 WHERE id = 1`;
    await tx`UPDATE pj_items SET qty = qty + 100 WHERE id = 2`;
  });
  r = await sql`SELECT qty FROM pj_items WHERE id IN (1, 2) ORDER BY id`;
  check(r.map((x) => x.qty).join(',') === '100,101', 'sql.begin commits', r);
  await expectError(sql.begin(async (tx) => {
    await tx`UPDATE pj_items SET qty = 0 WHERE id = 3`;
    await tx`UPDATE pj_items SET qty = -1 WHERE id = 4`;
  }), '23514', 'a CHECK violation inside sql.begin');
  r = await sql`SELECT qty FROM pj_items WHERE id = 3`;
  check(r[0].qty === 2, 'the failed transaction was rolled back', r);
  // Savepoints.
  await sql.begin(async (tx) => {
    await tx`UPDATE pj_items SET qty = 500 WHERE id = 5`;
    await tx.savepoint(async (sp) => { await sp`UPDATE pj_items SET qty = 600 WHERE id = 5`; }).catch(() => {});
    await tx.savepoint(async (sp) => {
      await sp`UPDATE pj_items SET qty = 700 WHERE id = 5`;
      throw new Error('roll back to the savepoint');
    }).catch(() => {});
  });
  r = await sql`SELECT qty FROM pj_items WHERE id = 5`;
  check(r[0].qty === 600, 'savepoints: one released, one rolled back', r);
  // The connection is usable after an error outside a transaction.
  await expectError(sql`SELECT 1 / ${0}::int`, '22012', 'a division by zero');
  r = await sql`SELECT 1 AS one`;
  check(r[0].one === 1, 'the next query after an error', r);
  // A cursor: the portal read in pages of 10 rows.
  let seen = 0, batches = 0;
  for await (const batch of sql`SELECT id FROM pj_items ORDER BY id`.cursor(10)) {
    seen += batch.length;
    batches++;
  }
  check(seen === 50 && batches === 5, 'a cursor reading 50 rows in pages of 10', { seen, batches });
  // sql.unsafe (simple and extended), describe of SHOW.
  r = await sql.unsafe('SELECT name FROM pj_items WHERE id = $1', [9]);
  check(r[0].name === 'n9', 'sql.unsafe with a parameter', r);
  r = await sql.unsafe('SHOW server_version');
  check(r.length === 1 && /^\d+/.test(r[0].server_version), 'SHOW server_version', r);
  r = await sql`SHOW DateStyle`;
  check(r[0].DateStyle === 'ISO, MDY', 'SHOW DateStyle as a prepared statement', r);
  // Concurrent queries on a pool of 2.
  const results = await Promise.all(Array.from({ length: 10 }, (_, k) => sql`SELECT ${k}::int + 1 AS v`));
  check(results.map((x) => x[0].v).join(',') === '1,2,3,4,5,6,7,8,9,10', '10 concurrent queries on 2 connections', results.length);
  await sql`DROP TABLE IF EXISTS pj_missing`;
  check(notices.some((n) => n.includes('does not exist, skipping')), 'a NOTICE reaches onnotice', notices);
  await sql.end();
}

try {
  await nodePostgres();
} catch (e) {
  check(false, 'node-postgres ran to its end', e.stack);
}
try {
  await postgresJs();
} catch (e) {
  check(false, 'postgres.js ran to its end', e.stack);
}
finish();
