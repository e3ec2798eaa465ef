# Rails' ActiveRecord 6.1 (Debian's ruby-activerecord, over ruby-pg)
# against a server: what a Rails application does by itself. Connecting
# loads its type map from pg_type (a regprocedure literal among it) and sets
# IntervalStyle to iso_8601; a migration creates and alters tables
# (references with foreign keys, indexes, jsonb, arrays, uuid, change_column,
# rename_column, defaults, NOT NULL with a backfill, a check constraint);
# the schema is read back (columns, indexes, foreign keys, check
# constraints, primary key) and dumped as schema.rb; then the ORM: creates,
# associations with includes, where/order/limit/offset, a nested
# transaction rolled back, a unique violation, group counts, upsert_all,
# intervals read back as durations, find_each in batches. Passes against
# PostgreSQL 15 unchanged.
#
#   ruby activerecord_test.rb HOST PORT USER DBNAME
# Prints "  ok: ..." / "  FAILED: ..." per check and "N passed, M failed"
# last; exits non-zero on a failure.
require 'active_record'
require 'stringio'

HOST, PORT, USER, DB = ARGV[0], ARGV[1].to_i, ARGV[2], ARGV[3]
$passed = 0
$failed = 0
def check(ok, what, detail = nil)
  if ok
    $passed += 1
    puts "  ok: #{what}"
  else
    $failed += 1
    puts "  FAILED: #{what}: #{detail.inspect}"
  end
end

def step(name)
  puts "== #{name}"
  yield
rescue StandardError => e
  check(false, name, "#{e.class}: #{e.message.lines.first}")
end

ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: HOST, port: PORT, username: USER, database: DB)
ActiveRecord::Migration.verbose = false

class CreateLibrary < ActiveRecord::Migration[6.1]
  def change
    create_table :ar_authors, force: :cascade do |t|
      t.string :name, null: false, limit: 80
      t.string :email, index: { unique: true }
      t.integer :rating, default: 0
      t.jsonb :prefs, default: {}
      t.timestamps
    end
    create_table :ar_books, force: :cascade do |t|
      t.references :ar_author, foreign_key: true, index: true
      t.string :title
      t.decimal :price, precision: 8, scale: 2
      t.string :tags, array: true, default: []
      t.uuid :ref
      t.interval :reading_time
      t.timestamps
    end
    add_index :ar_books, %i[title price], name: 'ar_books_title_price'
    change_column :ar_authors, :rating, :bigint
    rename_column :ar_books, :title, :name
    add_column :ar_books, :pages, :integer, null: false, default: 100
    change_column_default :ar_books, :pages, 200
    change_column_null :ar_authors, :email, false, 'none'
    add_check_constraint :ar_books, 'pages > 0', name: 'ar_books_pages_positive'
    add_index :ar_books, 'lower(name)', name: 'ar_books_lower_name'
    add_index :ar_books, :pages, where: 'pages > 100', name: 'ar_books_long'
  end
end

class ArAuthor < ActiveRecord::Base
  has_many :ar_books
end

class ArBook < ActiveRecord::Base
  belongs_to :ar_author
  attribute :reading_time, :interval  # an ActiveSupport::Duration (Rails 7's default)
end

conn = nil
step('connect') do
  conn = ActiveRecord::Base.connection
  check(conn.select_value('SELECT 1') == 1, 'connect (type map loaded from pg_type)')
  check(conn.select_value('SHOW IntervalStyle') == 'iso_8601', 'the adapter set IntervalStyle to iso_8601')
end

step('migration') do
  CreateLibrary.migrate(:up)
  check(conn.table_exists?(:ar_books) && conn.column_exists?(:ar_books, :name) && !conn.column_exists?(:ar_books, :title),
        'create_table, add_column, rename_column')
  columns = conn.columns('ar_books').to_h { |c| [c.name, [c.sql_type, c.default, c.null]] }
  check(columns['pages'] == ['integer', '200', false] && columns['price'] == ['numeric(8,2)', nil, true] &&
        columns['tags'] == ['character varying', '{}', true] && columns['reading_time'][0] == 'interval',
        'columns read back with types, defaults and nullability', columns)
  check(conn.columns('ar_authors').find { |c| c.name == 'rating' }.sql_type == 'bigint', 'change_column to bigint')
  all_indexes = conn.indexes('ar_books')
  indexes = all_indexes.map { |i| [i.name, i.columns, i.unique] }.sort.reject { |n, _, _| %w[ar_books_lower_name ar_books_long].include?(n) }
  check(indexes == [['ar_books_title_price', %w[name price], false], ['index_ar_books_on_ar_author_id', ['ar_author_id'], false]],
        'indexes read back (with the renamed column)', indexes)
  lower = all_indexes.find { |i| i.name == 'ar_books_lower_name' }
  long = all_indexes.find { |i| i.name == 'ar_books_long' }
  check(lower && lower.columns.is_a?(String) && lower.columns.include?('lower') && long && long.columns == ['pages'] &&
        long.where.to_s.include?('pages > 100'),
        'an expression index and a partial index read back', [lower&.columns, long&.columns, long&.where])
  check(conn.indexes('ar_authors').map { |i| [i.columns, i.unique] } == [[['email'], true]], 'a unique index')
  check(conn.foreign_keys('ar_books').map { |f| [f.to_table, f.column, f.primary_key] } == [%w[ar_authors ar_author_id id]],
        'foreign keys read back')
  check(conn.check_constraints('ar_books').map(&:expression) == ['pages > 0'], 'check constraints read back')
  check(conn.primary_key('ar_books') == 'id', 'the primary key')
  io = StringIO.new
  ActiveRecord::SchemaDumper.dump(conn, io)
  dump = io.string
  check(dump.include?('create_table "ar_books", force: :cascade do |t|') && dump.include?('t.string "tags", default: [], array: true') &&
        dump.include?('add_foreign_key "ar_books", "ar_authors"') &&
        dump.include?('t.check_constraint "pages > 0", name: "ar_books_pages_positive"') &&
        dump.include?('name: "ar_books_lower_name"') && dump.include?('where: "(pages > 100)"'),
        'schema.rb dumped', dump.lines.grep(/ar_/).join)
end

step('ORM') do
  a = ArAuthor.create!(name: 'Ann', email: 'ann@x.org', prefs: { 'langs' => %w[ruby sql] })
  check(a.id.is_a?(Integer) && a.rating == 0 && a.prefs == { 'langs' => %w[ruby sql] }, 'create! returns the key and defaults')
  5.times { |i| a.ar_books.create!(name: "b#{i}", price: i * 1.5, tags: ['x', "t#{i}"], reading_time: (i + 1).hours + 30.minutes) }
  check(ArBook.where('pages > ?', 10).order(:name).limit(2).offset(1).pluck(:name) == %w[b1 b2], 'where, order, limit, offset')
  check(ArAuthor.includes(:ar_books).find(a.id).ar_books.size == 5, 'includes (eager loading)')
  check(ArBook.where('tags @> ARRAY[?]::varchar[]', ['t3']).count == 1, 'an array containment condition')
  check(ArAuthor.where("prefs->'langs' ? :l", l: 'sql').count == 1, 'a jsonb condition')
  check(ArBook.find_by(name: 'b2').reading_time == 3.hours + 30.minutes, 'an interval read back as a duration (iso_8601)',
        ArBook.find_by(name: 'b2').reading_time)
  ArAuthor.transaction do
    a.update!(rating: 5)
    ArAuthor.transaction(requires_new: true) do
      a.update!(rating: 7)
      raise ActiveRecord::Rollback
    end
  end
  check(a.reload.rating == 5, 'a nested transaction (savepoint) rolled back, the outer kept')
  begin
    ArAuthor.create!(name: 'dup', email: 'ann@x.org')
    check(false, 'a duplicate email', 'no error')
  rescue ActiveRecord::RecordNotUnique
    check(true, 'a duplicate email raises RecordNotUnique')
  end
  check(ArAuthor.count == 1, 'the connection goes on after the error')
  check(ArBook.group(:ar_author_id).count == { a.id => 5 }, 'group count')
  ArBook.upsert_all([{ id: ArBook.minimum(:id), name: 'b0x', price: 1, pages: 300, ar_author_id: a.id,
                       created_at: Time.now, updated_at: Time.now }], unique_by: :id)
  check(ArBook.order(:id).first.name == 'b0x', 'upsert_all (ON CONFLICT DO UPDATE)')
  seen = []
  ArBook.find_each(batch_size: 2) { |b| seen << b.id }
  check(seen.size == 5, 'find_each in batches of 2', seen)
  ArBook.where(name: 'b4').destroy_all
  check(ArBook.count == 4, 'destroy_all')
end

puts "\n#{$passed} passed, #{$failed} failed"
exit($failed.zero? ? 0 : 1)
