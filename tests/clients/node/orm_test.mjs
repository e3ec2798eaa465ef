// What a Node.js application does through its ORM or query builder:
// Sequelize, Knex and TypeORM, from npm, each creating and altering its
// schema the way it does by itself (Sequelize's sync and alter, Knex's
// migrations with their lock table, TypeORM's synchronize, all reading the
// catalogs back to compare), then the ORM's everyday work: inserts
// returning keys, finds with joins and operators, pagination, counts,
// upserts, increments, transactions that commit, fail and roll back, raw
// queries with bound values. Passes against PostgreSQL 15 unchanged.
//
//   node orm_test.mjs HOST PORT USER DATABASE
// Prints "  ok: ..." / "  FAIL: ..." per check and "N passed, M failed" last;
// exits non-zero on a failure.
import 'reflect-metadata';
import { Sequelize, DataTypes, Op } from 'sequelize';
import knexFactory from 'knex';
import typeorm from 'typeorm';

import { check, database, expectError, finish, host, port, user } from './checks.mjs';

async function sequelizeOrm() {
  console.log('== Sequelize');
  const sequelize = new Sequelize(database, user, null, { host, port, dialect: 'postgres', logging: false });
  await sequelize.authenticate();
  const qi = sequelize.getQueryInterface();
  for (const t of ['sq_posts', 'sq_users']) await qi.dropTable(t, { cascade: true });
  const User = sequelize.define('User', {
    email: { type: DataTypes.STRING, allowNull: false, unique: true },
    name: DataTypes.STRING(40),
    age: { type: DataTypes.INTEGER, validate: { min: 0 } },
    active: { type: DataTypes.BOOLEAN, defaultValue: true },
    profile: DataTypes.JSONB,
    balance: { type: DataTypes.DECIMAL(12, 2), defaultValue: 0 },
  }, { tableName: 'sq_users' });
  const Post = sequelize.define('Post', {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    title: { type: DataTypes.STRING, allowNull: false },
    body: DataTypes.TEXT,
    tags: DataTypes.ARRAY(DataTypes.STRING),
    published: DataTypes.DATE,
  }, { tableName: 'sq_posts', indexes: [{ fields: ['title'] }] });
  User.hasMany(Post, { foreignKey: 'authorId' });
  Post.belongsTo(User, { foreignKey: 'authorId' });
  // sync: CREATE TABLE IF NOT EXISTS with SERIAL and REFERENCES, then the
  // model's indexes after reading back the ones there are.
  await sequelize.sync();
  const described = await qi.describeTable('sq_users');
  check(described.id?.primaryKey && /^nextval/.test(described.id.defaultValue) && described.email.allowNull === false &&
        described.name.type === 'CHARACTER VARYING(40)' && described.active.defaultValue === true,
        'sync, then describeTable reads the columns back', described);
  const indexes = await qi.showIndex('sq_posts');
  check(indexes.some((i) => i.name === 'sq_posts_title' && !i.unique), 'showIndex lists the model\'s index', indexes);
  const fks = await qi.getForeignKeyReferencesForTable('sq_posts');
  check(fks.length === 1 && fks[0].referencedTableName === 'sq_users' && fks[0].columnName === 'authorId',
        'getForeignKeyReferencesForTable', fks);

  // Everyday work.
  const ann = await User.create({ email: 'ann@x.org', name: 'Ann', age: 31, profile: { langs: ['sql', 'js'] } });
  check(Number.isInteger(ann.id) && ann.active === true && ann.createdAt instanceof Date, 'create returns the key and defaults', ann.toJSON());
  await User.bulkCreate(Array.from({ length: 20 }, (_, i) => ({ email: `u${i}@x.org`, name: `user ${i}`, age: 20 + i })));
  const posts = [];
  for (let i = 0; i < 5; i++) posts.push({ title: `post ${i}`, body: 'text', tags: ['a', `t${i}`], authorId: ann.id, published: new Date(Date.UTC(2024, 0, i + 1)) });
  await Post.bulkCreate(posts);
  let rows = await User.findAll({ where: { age: { [Op.gte]: 35 }, name: { [Op.iLike]: 'USER%' } }, order: [['age', 'DESC']] });
  check(rows.length === 5 && rows[0].age === 39, 'findAll with Op.gte, Op.iLike and ORDER BY', rows.map((r) => r.age));
  const page = await User.findAndCountAll({ order: [['id', 'ASC']], limit: 5, offset: 10 });
  check(page.count === 21 && page.rows.length === 5 && page.rows[0].email === 'u9@x.org', 'findAndCountAll: a page and the total', { count: page.count, first: page.rows[0]?.email });
  const withPosts = await User.findOne({ where: { email: 'ann@x.org' }, include: [{ model: Post, where: { tags: { [Op.contains]: ['t3'] } } }] });
  check(withPosts?.Posts?.length === 1 && withPosts.Posts[0].title === 'post 3', 'include (a join) with an array contains', withPosts?.toJSON());
  const counts = await Post.findAll({ attributes: ['authorId', [sequelize.fn('count', sequelize.col('id')), 'n']], group: ['authorId'], raw: true });
  check(counts.length === 1 && Number(counts[0].n) === 5, 'GROUP BY with count', counts);
  await ann.increment('balance', { by: 10.5 });
  await ann.reload();
  check(ann.balance === '10.50', 'increment (UPDATE ... SET balance = balance + 10.5 RETURNING)', ann.balance);
  const [upserted] = await User.upsert({ email: 'ann@x.org', name: 'Ann B', age: 32 }, { conflictFields: ['email'] });
  check(upserted.name === 'Ann B', 'upsert (INSERT ... ON CONFLICT DO UPDATE RETURNING)', upserted.toJSON());
  const found = await User.findAll({ where: { profile: { [Op.contains]: { langs: ['js'] } } } });
  check(found.length === 1, 'a JSONB path condition', found.length);
  // Transactions: a managed one that commits, one that fails and rolls back.
  await sequelize.transaction(async (t) => {
    await User.update({ active: false }, { where: { age: { [Op.lt]: 25 } }, transaction: t });
    await Post.destroy({ where: { title: 'post 0' }, transaction: t });
  });
  check(await User.count({ where: { active: false } }) === 5 && await Post.count() === 4, 'a managed transaction commits', null);
  await expectError(sequelize.transaction(async (t) => {
    await User.update({ age: 99 }, { where: {}, transaction: t });
    await User.create({ email: 'ann@x.org' }, { transaction: t });
  }), '23505', 'a unique violation inside a transaction');
  check(await User.count({ where: { age: 99 } }) === 0, 'the failed transaction rolled back', null);
  const sp = await sequelize.transaction();
  await User.update({ name: 'kept' }, { where: { email: 'u1@x.org' }, transaction: sp });
  const nested = await sequelize.transaction({ transaction: sp });  // a SAVEPOINT
  await User.update({ name: 'lost' }, { where: { email: 'u1@x.org' }, transaction: nested });
  await nested.rollback();
  await sp.commit();
  check((await User.findOne({ where: { email: 'u1@x.org' } })).name === 'kept', 'a nested transaction (savepoint) rolled back', null);
  const [raw] = await sequelize.query('SELECT count(*) AS n FROM sq_users WHERE age > :age', { replacements: { age: 30 } });
  check(Number(raw[0].n) === 10, 'a raw query with replacements', raw);
  // Migrations by hand through the query interface.
  await qi.addColumn('sq_users', 'nickname', { type: DataTypes.STRING(20), defaultValue: 'none' });
  await qi.changeColumn('sq_users', 'nickname', { type: DataTypes.STRING(60), allowNull: true });
  await qi.renameColumn('sq_users', 'nickname', 'handle');
  await qi.addIndex('sq_users', ['handle', 'age'], { name: 'sq_users_handle_age' });
  await qi.addConstraint('sq_users', { fields: ['age'], type: 'check', where: { age: { [Op.lt]: 200 } }, name: 'sq_users_age_lt' });
  await expectError(User.update({ age: 300 }, { where: { email: 'u2@x.org' } }), '23514', 'the added CHECK constraint is enforced');
  const after = await qi.describeTable('sq_users');
  check(after.handle?.type === 'CHARACTER VARYING(60)' && after.handle.defaultValue === null, 'addColumn, changeColumn, renameColumn', after.handle);
  await qi.removeIndex('sq_users', 'sq_users_handle_age');
  await qi.removeConstraint('sq_users', 'sq_users_age_lt');
  await qi.removeColumn('sq_users', 'handle');
  // sync({ alter: true }) compares the model with the catalogs and alters.
  sequelize.define('User', {
    email: { type: DataTypes.STRING, allowNull: false, unique: true },
    name: DataTypes.STRING(80),
    age: DataTypes.INTEGER,
    active: { type: DataTypes.BOOLEAN, defaultValue: true },
    profile: DataTypes.JSONB,
    balance: { type: DataTypes.DECIMAL(12, 2), defaultValue: 0 },
    city: DataTypes.STRING,
  }, { tableName: 'sq_users' });
  await sequelize.sync({ alter: true });
  const altered = await qi.describeTable('sq_users');
  check(altered.city && altered.name.type === 'CHARACTER VARYING(80)', 'sync({ alter: true }) adds and widens columns', altered.name);
  check(await sequelize.models.User.count() === 21, 'the rows are still there', null);
  await sequelize.close();
}

async function knexBuilder() {
  console.log('== Knex');
  const knex = knexFactory({ client: 'pg', connection: { host, port, user, database }, pool: { min: 1, max: 3 } });
  await knex.schema.dropTableIfExists('kx_orders');
  await knex.schema.dropTableIfExists('kx_customers');
  await knex.schema.dropTableIfExists('kx_migrations');
  await knex.schema.dropTableIfExists('kx_migrations_lock');
  // Migrations, from a source in this file: Knex takes its lock row FOR
  // UPDATE, runs each migration in a transaction and records it.
  const migrations = {
    '001_customers': {
      up: (k) => k.schema.createTable('kx_customers', (t) => {
        t.increments('id');
        t.string('name', 100).notNullable();
        t.string('email').unique();
        t.integer('score').defaultTo(0);
        t.timestamps(true, true);
      }),
      down: (k) => k.schema.dropTable('kx_customers'),
    },
    '002_orders': {
      up: (k) => k.schema.createTable('kx_orders', (t) => {
        t.bigIncrements('id');
        t.integer('customer_id').unsigned().references('id').inTable('kx_customers').onDelete('CASCADE');
        t.decimal('amount', 10, 2).notNullable();
        t.enu('status', ['new', 'paid', 'shipped']).defaultTo('new');
        t.jsonb('items');
        t.uuid('ref').defaultTo(k.raw('gen_random_uuid()'));
        t.index(['customer_id', 'status']);
      }),
      down: (k) => k.schema.dropTable('kx_orders'),
    },
    '003_alter': {
      up: (k) => k.schema.alterTable('kx_customers', (t) => {
        t.string('name', 200).notNullable().alter();
        t.bigInteger('score').defaultTo(1).alter();
        t.renameColumn('email', 'mail');
        t.boolean('vip').defaultTo(false);
      }),
      down: async () => {},
    },
  };
  const migrationSource = {
    getMigrations: async () => Object.keys(migrations),
    getMigrationName: (m) => m,
    getMigration: async (m) => migrations[m],
  };
  const config = { migrationSource, tableName: 'kx_migrations' };
  const [batch, applied] = await knex.migrate.latest(config);
  check(batch === 1 && applied.length === 3, 'migrate.latest runs three migrations', applied);
  const [, again] = await knex.migrate.latest(config);
  check(again.length === 0, 'migrate.latest again: nothing to do', again);
  check(await knex.schema.hasTable('kx_orders') && await knex.schema.hasColumn('kx_customers', 'mail') &&
        !(await knex.schema.hasColumn('kx_customers', 'email')), 'hasTable and hasColumn after the renames', null);
  const info = await knex('kx_customers').columnInfo();
  check(info.name?.maxLength === 200 && info.name.nullable === false && info.score?.type === 'bigint', 'columnInfo after the alters', info);

  // Everyday work.
  const [c1] = await knex('kx_customers').insert({ name: 'Ann', mail: 'ann@x.org' }).returning(['id', 'score', 'created_at']);
  check(c1.id === 1 && c1.score === '1' && c1.created_at instanceof Date, 'insert ... returning', c1);
  await knex.batchInsert('kx_customers', Array.from({ length: 30 }, (_, i) => ({ name: `c${i}`, mail: `c${i}@x.org`, score: i })), 7);
  const orders = [];
  for (let i = 0; i < 40; i++) orders.push({ customer_id: 1 + (i % 5), amount: (i * 2.5).toFixed(2), status: ['new', 'paid', 'shipped'][i % 3], items: JSON.stringify([{ sku: `s${i}`, qty: i % 4 }]) });
  await knex('kx_orders').insert(orders);
  const top = await knex('kx_orders as o').join('kx_customers as c', 'c.id', 'o.customer_id')
    .select('c.name').sum({ total: 'o.amount' }).count({ n: '*' })
    .where('o.status', '<>', 'new').groupBy('c.name').orderBy('total', 'desc').limit(2);
  check(top.length === 2 && top[0].name === 'c1' && top[0].total === '292.50' && top[0].n === '6' && top[1].total === '275.00',
        'join, sum, count, GROUP BY, ORDER BY an alias', top);
  const page = await knex('kx_customers').select('id', 'name').orderBy('id').limit(5).offset(20);
  check(page.length === 5 && page[0].id === 21, 'a page with bound limit and offset', page);
  const inList = await knex('kx_customers').whereIn('id', [2, 4, 6]).whereNotNull('mail').orWhereBetween('score', [100, 200]).pluck('id');
  check(inList.sort().join(',') === '2,4,6', 'whereIn, whereNotNull, orWhereBetween, pluck', inList);
  const json = await knex('kx_orders').whereRaw("items @> ?::jsonb", [JSON.stringify([{ sku: 's7' }])]).first('id', 'ref');
  check(json && json.id === '8' && /^[0-9a-f-]{36}$/.test(json.ref), 'a JSONB containment with a bound value; a uuid default', json);
  const merged = await knex('kx_customers').insert({ name: 'Ann again', mail: 'ann@x.org', score: 5 })
    .onConflict('mail').merge(['name', 'score']).returning(['id', 'name']);
  check(merged[0].id === 1 && merged[0].name === 'Ann again', 'onConflict().merge() (an upsert)', merged);
  const ignored = await knex('kx_customers').insert({ name: 'dup', mail: 'ann@x.org' }).onConflict('mail').ignore().returning('id');
  check(ignored.length === 0, 'onConflict().ignore()', ignored);
  await knex('kx_customers').where({ id: 1 }).increment('score', 10);
  check((await knex('kx_customers').where({ id: 1 }).first('score')).score === '15', 'increment', null);
  // Transactions.
  await knex.transaction(async (trx) => {
    await trx('kx_orders').where('status', 'new').update({ status: 'paid' });
    await trx('kx_customers').where('id', 30).del();
  });
  check(Number((await knex('kx_orders').where('status', 'new').count({ n: '*' }))[0].n) === 0, 'a transaction commits', null);
  await expectError(knex.transaction(async (trx) => {
    await trx('kx_customers').update({ score: 999 });
    await trx('kx_orders').insert({ customer_id: 1, amount: null });
  }), '23502', 'a NOT NULL violation inside a transaction');
  check(Number((await knex('kx_customers').where('score', 999).count({ n: '*' }))[0].n) === 0, 'the failed transaction rolled back', null);
  const trx = await knex.transaction();
  await trx('kx_customers').where('id', 2).update({ name: 'outer' });
  try {
    await trx.transaction(async (inner) => {  // a SAVEPOINT
      await inner('kx_customers').where('id', 2).update({ name: 'inner' });
      throw new Error('undo the inner');
    });
  } catch (e) {
    if (e.message !== 'undo the inner') throw e;
  }
  await trx.commit();
  check((await knex('kx_customers').where('id', 2).first('name')).name === 'outer', 'a nested transaction (savepoint) rolled back', null);
  await expectError(knex('kx_orders').insert({ customer_id: 1, amount: 1, status: 'lost' }), '23514', 'the enum\'s CHECK constraint');
  const streamed = [];
  await new Promise((resolve, reject) => {
    const s = knex('kx_orders').select('id').orderBy('id').stream();
    s.on('data', (r) => streamed.push(r.id)).on('end', resolve).on('error', reject);
  });
  check(streamed.length === 40, 'a query streamed (a cursor)', streamed.length);
  const [rolledBack] = await knex.migrate.rollback(config);
  check(rolledBack === 1, 'migrate.rollback', rolledBack);
  await knex.destroy();
}

async function typeormOrm() {
  console.log('== TypeORM');
  const { DataSource, EntitySchema } = typeorm;
  const Author = new EntitySchema({
    name: 'Author', tableName: 'to_authors',
    columns: {
      id: { type: 'int', primary: true, generated: 'increment' },
      name: { type: 'varchar', length: 60 },
      email: { type: 'varchar', unique: true },
      rating: { type: 'numeric', precision: 4, scale: 1, nullable: true },
      created: { type: 'timestamptz', createDate: true },
      version: { type: 'int', version: true },
    },
    relations: { books: { type: 'one-to-many', target: 'Book', inverseSide: 'author' } },
  });
  const Book = new EntitySchema({
    name: 'Book', tableName: 'to_books',
    columns: {
      id: { type: 'uuid', primary: true, generated: 'uuid' },
      title: { type: 'varchar' },
      pages: { type: 'int', default: 100 },
      kind: { type: 'enum', enum: ['novel', 'essay'], default: 'novel' },
      meta: { type: 'jsonb', nullable: true },
    },
    relations: { author: { type: 'many-to-one', target: 'Author', inverseSide: 'books', onDelete: 'CASCADE' } },
    indices: [{ name: 'to_books_title', columns: ['title'] }],
  });
  const options = { type: 'postgres', host, port, username: user, database, entities: [Author, Book], logging: false };
  const ds = new DataSource({ ...options, synchronize: false });
  await ds.initialize();
  await ds.query('DROP TABLE IF EXISTS to_books CASCADE');
  await ds.query('DROP TABLE IF EXISTS to_authors CASCADE');
  await ds.query('DROP TYPE IF EXISTS to_books_kind_enum');
  // synchronize: reads the catalogs, creates what is missing; a second
  // time it must find nothing to change.
  await ds.synchronize();
  const pending = await ds.driver.createSchemaBuilder().log();
  check(pending.upQueries.length === 0, 'synchronize, then no difference between the entities and the catalogs', pending.upQueries.map((q) => q.query));
  const authors = ds.getRepository('Author');
  const books = ds.getRepository('Book');
  const a = await authors.save({ name: 'Ursula', email: 'ul@x.org', rating: '9.5' });
  check(a.id === 1 && a.version === 1 && a.created instanceof Date, 'save returns the key, version and creation date', a);
  await authors.save(Array.from({ length: 12 }, (_, i) => ({ name: `a${i}`, email: `a${i}@x.org`, rating: String(i) })));
  for (let i = 0; i < 6; i++) await books.save({ title: `book ${i}`, pages: 100 + i, kind: i % 2 ? 'essay' : 'novel', meta: { i }, author: a });
  const found = await authors.findOne({ where: { email: 'ul@x.org' }, relations: { books: true }, order: { books: { pages: 'DESC' } } });
  check(found?.books?.length === 6 && found.books[0].pages === 105, 'findOne with a relation, ordered', found?.books?.map((b) => b.pages));
  const [page, total] = await authors.findAndCount({ order: { id: 'ASC' }, skip: 4, take: 3 });
  check(total === 13 && page.length === 3 && page[0].id === 5, 'findAndCount: a page and the total', { total, ids: page.map((p) => p.id) });
  const stats = await books.createQueryBuilder('b').select('b.kind', 'kind').addSelect('count(*)', 'n').addSelect('avg(b.pages)', 'avg')
    .groupBy('b.kind').orderBy('b.kind').getRawMany();
  check(stats.length === 2 && stats[0].kind === 'novel' && Number(stats[0].n) === 3, 'a query builder with GROUP BY', stats);
  a.name = 'Ursula K.';
  const saved = await authors.save(a);
  check(saved.version === 2, 'save updates the version column', saved.version);
  await ds.transaction(async (m) => {
    await m.update('Author', { id: 2 }, { rating: '7.0' });
    await m.delete('Book', { title: 'book 0' });
  });
  check(await books.count() === 5, 'a transaction commits', null);
  await expectError(ds.transaction(async (m) => {
    await m.update('Author', { id: 3 }, { name: 'gone' });
    await m.insert('Author', { name: 'dup', email: 'ul@x.org' });
  }), '23505', 'a unique violation inside a transaction');
  check((await authors.findOneBy({ id: 3 })).name === 'a1', 'the failed transaction rolled back', null);
  const runner = ds.createQueryRunner();
  await runner.connect();
  const table = await runner.getTable('to_books');
  check(table && table.indices.some((i) => i.name === 'to_books_title') && table.foreignKeys.length === 1 &&
        table.columns.find((c) => c.name === 'kind')?.enum?.join(',') === 'novel,essay', 'the query runner reads a table back', table?.columns.map((c) => c.name));
  await runner.release();
  await ds.destroy();
}

for (const [name, run] of [['Sequelize', sequelizeOrm], ['Knex', knexBuilder], ['TypeORM', typeormOrm]]) {
  try {
    await run();
  } catch (e) {
    check(false, `${name} ran to its end`, `${e.original?.message ?? e.message}\n${e.sql ?? ''}\n${e.stack}`);
  }
}
finish();
