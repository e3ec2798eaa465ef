// TableEngine (table_engine.h): the row store's scans with pushed-down
// predicates against a filter over a full scan, on random tables and
// predicates; and the two-phase epoch commit with a second engine (a small
// file-backed engine written here): both engines' writes of an epoch are
// visible together or not at all, a failed commit leaves neither, and what
// a crash left prepared is discarded at recovery.
#include "storage/table_engine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "common/encoding.h"
#include "storage/keys.h"
#include "storage/row_store_engine.h"
#include "storage/state_table.h"
#include "storage/table_engines.h"
#include "storage/test_dir.h"
#include "storage/test_store.h"

namespace freshet {
namespace {

std::unique_ptr<StateStore> OpenStore(const std::string& dir) { return OpenTestStore(dir); }

// Rows of (a INT, b VARCHAR, c BIGINT) as a relation's writes.
struct TestRows {
  StateTableDesc desc;
  std::vector<std::tuple<int64_t, std::string, int64_t>> rows;

  void Write(StateStore* store, WriteLog* log) const {
    StateTable table(store, desc);
    for (const auto& [a, b, c] : rows) {
      DataChunk chunk(desc.column_types);
      chunk.column(0).AppendInt(a);
      chunk.column(1).AppendString(b);
      chunk.column(2).AppendInt(c);
      chunk.set_cardinality(1);
      std::string value;
      EncodeRow(chunk, 0, &value);
      log->Put(table.KeyOf(chunk, 0), value, 1);
    }
  }
};

StateTableDesc Desc(TableId id, std::vector<int> pk, std::vector<int> dist_key) {
  StateTableDesc d;
  d.table_id = id;
  d.column_types = {DataType::Int32(), DataType::Varchar(), DataType::Int64()};
  d.pk_indices = std::move(pk);
  d.dist_key_indices = std::move(dist_key);
  return d;
}

// Every row of a scan, as text, sorted.
std::vector<std::string> ReadAll(ChunkScan* scan) {
  std::vector<std::string> out;
  DataChunk chunk;
  while (scan->Next(&chunk))
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      std::string row;
      for (size_t c = 0; c < chunk.num_columns(); c++) row += chunk.column(c).GetValue(r).ToString() + "|";
      out.push_back(row);
    }
  std::sort(out.begin(), out.end());
  return out;
}

bool Passes(const Value& v, const ColumnPredicate& p) {
  if (p.op == ColumnPredicate::Op::kIn) {
    for (const Value& x : p.values)
      if (Value::Compare(v, x) == 0) return true;
    return false;
  }
  int cmp = Value::Compare(v, p.value);
  switch (p.op) {
    case ColumnPredicate::Op::kEq: return cmp == 0;
    case ColumnPredicate::Op::kLt: return cmp < 0;
    case ColumnPredicate::Op::kLe: return cmp <= 0;
    case ColumnPredicate::Op::kGt: return cmp > 0;
    case ColumnPredicate::Op::kGe: return cmp >= 0;
    case ColumnPredicate::Op::kIn: break;
  }
  return false;
}

// The rows of a scan that pass every predicate, and how many rows it read.
std::vector<std::string> Filtered(ChunkScan* scan, const ColumnPredicates& preds, size_t* read) {
  std::vector<std::string> out;
  DataChunk chunk;
  *read = 0;
  while (scan->Next(&chunk))
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      ++*read;
      bool pass = true;
      for (const auto& p : preds) pass = pass && Passes(chunk.column(p.column).GetValue(r), p);
      if (!pass) continue;
      std::string row;
      for (size_t c = 0; c < chunk.num_columns(); c++) row += chunk.column(c).GetValue(r).ToString() + "|";
      out.push_back(row);
    }
  std::sort(out.begin(), out.end());
  return out;
}

Status Commit(StateStore* store, uint32_t database, Epoch epoch, const WriteLog& log) {
  CommitWrites writes;
  writes.ops.push_back(&log);
  StateStore::EpochCommit commit;
  commit.database_id = database;
  commit.epoch = epoch;
  return store->engines().CommitEpoch(writes, commit);
}

TEST(RowStoreEngineTest, PushedDownPredicatesNeverLoseARow) {
  auto store = OpenStore("");
  ASSERT_TRUE(store);
  std::mt19937 rng(20261202);
  // Three layouts: key (a, b) spread by a; key (b) spread by b; key (c, a)
  // spread by nothing (vnode 0).
  std::vector<StateTableDesc> layouts = {Desc(10, {0, 1}, {0}), Desc(11, {1}, {1}), Desc(12, {2, 0}, {})};
  WriteLog log;
  for (const auto& desc : layouts) {
    TestRows rows{desc, {}};
    std::set<std::string> keys;
    for (int i = 0; i < 600; i++) {
      int64_t a = static_cast<int64_t>(rng() % 21) - 10;
      std::string b = std::string(1, static_cast<char>('a' + rng() % 6)) + (rng() % 2 ? "x" : "");
      int64_t c = static_cast<int64_t>(rng() % 41) - 20;
      rows.rows.emplace_back(a, b, c);
    }
    rows.Write(store.get(), &log);
  }
  ASSERT_TRUE(Commit(store.get(), 1, 1, log).ok());
  const TableEngine& engine = store->engines().For(10);
  EXPECT_STREQ(engine.name(), "row");
  auto random_value = [&](int column) {
    if (column == 0) return Value::Int32(static_cast<int64_t>(rng() % 25) - 12);
    if (column == 1) return Value::Varchar(std::string(1, static_cast<char>('a' + rng() % 7)) + (rng() % 3 ? "" : "x"));
    return Value::Int64(static_cast<int64_t>(rng() % 45) - 22);
  };
  size_t pruned = 0, pruned_by_in = 0, point_lookups = 0;
  for (int round = 0; round < 3000; round++) {
    const StateTableDesc& desc = layouts[round % layouts.size()];
    ColumnPredicates preds;
    int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; i++) {
      ColumnPredicate p;
      p.column = static_cast<int>(rng() % 3);
      p.op = static_cast<ColumnPredicate::Op>(rng() % 6);
      if (p.op == ColumnPredicate::Op::kIn) {
        // Repeats included: each matching row must still come once.
        for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; k++) p.values.push_back(random_value(p.column));
      } else {
        p.value = random_value(p.column);
      }
      preds.push_back(p);
    }
    ScanSpec all;
    all.table = desc;
    // A third of the rounds with a transaction's own writes merged in:
    // rows put over existing keys, new rows, deletes.
    if (round % 3 == 0) {
      StateTable table(store.get(), desc);
      for (int k = 0; k < 20; k++) {
        DataChunk chunk(desc.column_types);
        chunk.column(0).AppendInt(static_cast<int64_t>(rng() % 21) - 10);
        chunk.column(1).AppendString(std::string(1, static_cast<char>('a' + rng() % 6)) + (rng() % 2 ? "x" : ""));
        chunk.column(2).AppendInt(static_cast<int64_t>(rng() % 41) - 20);
        chunk.set_cardinality(1);
        std::string key = table.KeyOf(chunk, 0), value;
        EncodeRow(chunk, 0, &value);
        if (rng() % 4 == 0) all.overlay[key] = std::nullopt;
        else all.overlay[key] = value;
      }
    }
    ScanSpec narrowed = all;
    narrowed.predicates = preds;
    // Whole keys, read by lookups rather than an iterator.
    std::vector<RowKeyBounds> probes = RowKeyProbesOf(desc, preds);
    bool points = !probes.empty();
    for (const auto& b : probes) points = points && b.exact && b.vnode;
    point_lookups += points;
    // Half the rounds over part of the vnodes, as a parallel scan's halves.
    if (round % 2) {
      all.vnode_begin = narrowed.vnode_begin = 40;
      all.vnode_end = narrowed.vnode_end = 200;
    }
    auto snapshot = store->GetSnapshot();
    size_t read_all = 0, read_narrowed = 0;
    auto full = engine.Scan(snapshot, all);
    auto scan = engine.Scan(snapshot, narrowed);
    EXPECT_TRUE(full->complete());
    std::vector<std::string> expected = Filtered(full.get(), preds, &read_all);
    ASSERT_EQ(Filtered(scan.get(), preds, &read_narrowed), expected) << "round " << round;
    EXPECT_LE(read_narrowed, read_all);
    if (read_narrowed < read_all) {
      pruned++;
      bool only_in = true;
      for (const auto& p : preds) only_in = only_in && p.op == ColumnPredicate::Op::kIn;
      if (only_in) pruned_by_in++;
      EXPECT_FALSE(scan->complete());
    }
  }
  // The predicates did prune (most rounds touch a key column), also with an
  // overlay.
  EXPECT_GT(pruned, 1000u);
  EXPECT_GT(pruned_by_in, 30u);  // rounds with IN lists only (55 with this seed)
  EXPECT_GT(point_lookups, 100u);
}

TEST(RowStoreEngineTest, ResumableScanGoesOnAfterItsLastKey) {
  auto store = OpenStore("");
  ASSERT_TRUE(store);
  StateTableDesc desc = Desc(40, {0, 1}, {0});
  TestRows rows{desc, {}};
  for (int i = 0; i < 3000; i++) rows.rows.emplace_back(i % 97, "r" + std::to_string(i), i);
  WriteLog log;
  rows.Write(store.get(), &log);
  ASSERT_TRUE(Commit(store.get(), 1, 1, log).ok());
  const TableEngine& engine = store->engines().For(40);
  auto snapshot = store->GetSnapshot();
  size_t total = 0;
  for (int vnode = 0; vnode < kVnodeCount; vnode++) {
    ScanSpec spec;
    spec.table = desc;
    spec.vnode_begin = vnode;
    spec.vnode_end = vnode + 1;
    spec.resumable = true;
    std::vector<std::string> whole = ReadAll(engine.Scan(snapshot, spec).get());
    // Read in steps of 7 rows, each step a new scan after the last key.
    std::vector<std::string> stepped;
    std::string last;
    while (true) {
      spec.start_after = last;
      auto scan = engine.Scan(snapshot, spec);
      DataChunk chunk;
      if (!scan->Next(&chunk, 7)) break;
      EXPECT_LE(chunk.num_rows(), 7u);
      for (size_t r = 0; r < chunk.num_rows(); r++) {
        std::string row;
        for (size_t c = 0; c < chunk.num_columns(); c++) row += chunk.column(c).GetValue(r).ToString() + "|";
        stepped.push_back(row);
      }
      ASSERT_GT(scan->last_key(), last);  // key order
      last = scan->last_key();
    }
    std::sort(stepped.begin(), stepped.end());
    EXPECT_EQ(stepped, whole) << "vnode " << vnode;
    total += whole.size();
  }
  EXPECT_EQ(total, 3000u);
}

TEST(RowStoreEngineTest, KeyBounds) {
  StateTableDesc desc = Desc(7, {0, 1}, {0});
  auto eq = [](int column, Value v) { return ColumnPredicate{column, ColumnPredicate::Op::kEq, std::move(v)}; };
  // Nothing on the key's first column: no bounds.
  EXPECT_TRUE(RowKeyBoundsOf(desc, {eq(1, Value::Varchar("x"))}).empty());
  EXPECT_TRUE(RowKeyBoundsOf(desc, {eq(2, Value::Int64(3))}).empty());
  // A type other than the column's is not used.
  EXPECT_TRUE(RowKeyBoundsOf(desc, {eq(0, Value::Int64(3))}).empty());
  // The distribution key pinned: one vnode, and the key's prefix.
  RowKeyBounds b = RowKeyBoundsOf(desc, {eq(0, Value::Int32(3))});
  ASSERT_TRUE(b.vnode.has_value());
  std::string three;
  EncodeKeyValue(Value::Int32(3), &three);
  EXPECT_EQ(b.lower, three);
  EXPECT_EQ(b.upper, PrefixSuccessor(three));
  // The whole key pinned: one key.
  b = RowKeyBoundsOf(desc, {eq(0, Value::Int32(3)), eq(1, Value::Varchar("k"))});
  std::string key = three;
  EncodeKeyValue(Value::Varchar("k"), &key);
  EXPECT_EQ(b.lower, key);
  EXPECT_EQ(b.upper, PrefixSuccessor(key));
  // A descending column ends the bounds; a float column is not used.
  StateTableDesc descending = desc;
  descending.pk_descending = {true, false};
  EXPECT_FALSE(RowKeyBoundsOf(descending, {eq(0, Value::Int32(3))}).lower.size());
  StateTableDesc floats = desc;
  floats.column_types[0] = DataType::Float64();
  EXPECT_TRUE(RowKeyBoundsOf(floats, {eq(0, Value::Float64(0))}).empty());
}

// An IN list on the distribution key: one probe per distinct value, each in
// its vnode, however long the list (TPC-H's refresh deletes 1,500 orders'
// lineitems by one at SF 1), up to kMaxRanges.
TEST(RowStoreEngineTest, LongInListsAreProbes) {
  StateTableDesc desc = Desc(8, {0, 1}, {0});
  auto in = [](size_t n) {
    ColumnPredicate p{0, ColumnPredicate::Op::kIn, Value()};
    for (size_t i = 0; i < n; i++) p.values.push_back(Value::Int32(int32_t(i % (n / 2 + 1))));
    return p;
  };
  std::vector<RowKeyBounds> probes = RowKeyProbesOf(desc, {in(3000)});
  ASSERT_EQ(probes.size(), 1501u) << "one per distinct value";
  for (const auto& b : probes) EXPECT_TRUE(b.vnode.has_value());
  EXPECT_EQ(RowKeyProbesOf(desc, {in(2 * kMaxRanges + 2)}).size(), 0u) << "past kMaxRanges: not used";
}

// StateTable::MultiGet answers as Get does, key by key: the epoch's
// buffered writes over the committed rows, repeats and misses included.
TEST(RowStoreEngineTest, MultiGetAnswersAsGet) {
  auto store = OpenStore("");
  ASSERT_TRUE(store);
  StateTableDesc desc = Desc(9, {0}, {0});
  StateTable table(store.get(), desc);
  auto key = [&](int32_t k) { return table.KeyIn(0, std::to_string(k)); };
  WriteLog log;
  for (int32_t k = 0; k < 100; k++) log.Put(key(k), "committed" + std::to_string(k), 1);
  ASSERT_TRUE(Commit(store.get(), 1, 1, log).ok());
  table.Put(key(5), "buffered5");
  table.Delete(key(6));
  table.Put(key(200), "buffered200");
  std::vector<std::string> keys;
  for (int32_t k : {99, 5, 6, 200, 300, 0, 5, 42}) keys.push_back(key(k));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::optional<std::string>> got = table.MultiGet(views);
  ASSERT_EQ(got.size(), keys.size());
  for (size_t i = 0; i < keys.size(); i++) EXPECT_EQ(got[i], table.Get(keys[i])) << i;
  EXPECT_EQ(got[1], std::optional<std::string>("buffered5"));
  EXPECT_EQ(got[2], std::nullopt);
  EXPECT_EQ(got[4], std::nullopt);
  EXPECT_EQ(got[7], std::optional<std::string>("committed42"));
  EXPECT_TRUE(table.MultiGet({}).empty());
}

TEST(RowStoreEngineTest, StatisticsAndProjection) {
  auto store = OpenStore("");
  ASSERT_TRUE(store);
  StateTableDesc desc = Desc(20, {0}, {0});
  // Created: its row count is recorded as 0, then kept by the commits.
  MetaWrite created;
  created.Put(RowCountMetaKey(20), "0");
  ASSERT_TRUE(store->CommitMeta(created).ok());
  WriteLog log;
  TestRows{desc, {{1, "a", 10}, {2, "b", 20}, {3, "c", 30}}}.Write(store.get(), &log);
  CommitWrites writes;
  writes.ops.push_back(&log);
  StateStore::EpochCommit commit;
  commit.database_id = 1;
  commit.epoch = 1;
  commit.row_counts[20] = 3;
  ASSERT_TRUE(store->engines().CommitEpoch(writes, commit).ok());
  TableStatistics stats = store->engines().For(20).Statistics(20, nullptr);
  EXPECT_TRUE(stats.rows_exact);
  EXPECT_EQ(stats.rows, 3);
  EXPECT_GT(stats.bytes, 0u);
  // Only the projected columns are filled; the others are NULL.
  ScanSpec spec;
  spec.table = desc;
  spec.projection = {false, true, false};
  EXPECT_EQ(ReadAll(store->engines().For(20).Scan(store->GetSnapshot(), spec).get()),
            (std::vector<std::string>{"NULL|a|NULL|", "NULL|b|NULL|", "NULL|c|NULL|"}));
}

// LookupLatest (the writer lock's holder): whole-key lookups read the
// state table's applied writes (sealed epochs, the current buffer) over the
// committed rows, the overlay over those; any other scan is not served.
TEST(RowStoreEngineTest, LookupLatestReadsAppliedWritesOverTheCommittedRows) {
  auto store = OpenStore("");
  ASSERT_TRUE(store);
  StateTableDesc desc = Desc(21, {0}, {0});
  WriteLog committed;
  TestRows{desc, {{1, "one", 10}, {2, "two", 20}, {3, "three", 30}}}.Write(store.get(), &committed);
  ASSERT_TRUE(Commit(store.get(), 1, 1, committed).ok());
  auto table = std::make_shared<StateTable>(store.get(), desc);
  WriteLog sealed, current;
  TestRows{desc, {{2, "two'", 21}, {4, "four", 40}}}.Write(store.get(), &sealed);
  table->Write(std::move(sealed));
  table->Seal(2);  // applied, not committed
  TestRows{desc, {{4, "four''", 41}}}.Write(store.get(), &current);
  table->Write(std::move(current));
  const TableEngine& engine = store->engines().For(21);
  auto lookup = [&](std::vector<Value> keys, Overlay overlay = {}) {
    ScanSpec spec;
    spec.table = desc;
    spec.overlay = std::move(overlay);
    ColumnPredicate in{0, ColumnPredicate::Op::kIn, Value(), std::move(keys)};
    spec.predicates.push_back(std::move(in));
    return engine.LookupLatest(table, std::move(spec));
  };
  auto scan = lookup({Value::Int32(1), Value::Int32(2), Value::Int32(4), Value::Int32(5)});
  ASSERT_TRUE(scan);
  EXPECT_EQ(ReadAll(scan.get()), (std::vector<std::string>{"1|one|10|", "2|two'|21|", "4|four''|41|"}));
  // The snapshot still reads the committed rows.
  ScanSpec all;
  all.table = desc;
  EXPECT_EQ(ReadAll(engine.Scan(store->GetSnapshot(), all).get()),
            (std::vector<std::string>{"1|one|10|", "2|two|20|", "3|three|30|"}));
  // A transaction's own write (the overlay) wins over the applied ones.
  TestRows own{desc, {{1, "mine", 11}}};
  WriteLog own_log;
  own.Write(store.get(), &own_log);
  Overlay overlay;
  for (const WriteOp& op : own_log) overlay[std::string(op.key)] = std::string(op.value);
  WriteLog deleted;
  TestRows{desc, {{3, "", 0}}}.Write(store.get(), &deleted);
  for (const WriteOp& op : deleted) overlay[std::string(op.key)] = std::nullopt;
  scan = lookup({Value::Int32(1), Value::Int32(3)}, std::move(overlay));
  ASSERT_TRUE(scan);
  EXPECT_EQ(ReadAll(scan.get()), (std::vector<std::string>{"1|mine|11|"}));
  // Not whole keys: a range, or no predicate at all.
  ScanSpec range;
  range.table = desc;
  range.predicates.push_back({0, ColumnPredicate::Op::kGt, Value::Int32(1), {}});
  EXPECT_EQ(engine.LookupLatest(table, range), nullptr);
  EXPECT_EQ(engine.LookupLatest(table, all), nullptr);
}

// A second engine for the tests: each epoch's changes of its relations go
// to a file of their own, which a marker ("files/<database>/<epoch>")
// makes part of the committed state. Scans replay the committed files in
// epoch order; predicates are ignored (the filter above applies them).
class FileEngine : public TableEngine {
 public:
  FileEngine(StateStore* store, std::string dir) : store_(store), dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
  }
  const char* name() const override { return "files"; }

  std::unique_ptr<ChunkScan> Scan(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec) const override {
    std::map<std::string, std::string> rows;
    auto markers = store_->NewRange(store_->meta_cf(), snapshot.get(), kMarkers, PrefixSuccessor(kMarkers));
    for (auto& it = markers->it; it->Valid(); it->Next()) {
      std::ifstream in(dir_ + "/" + it->value().ToString(), std::ios::binary);
      std::string table, is_delete, key, value;
      while (ReadField(in, &table) && ReadField(in, &is_delete) && ReadField(in, &key) && ReadField(in, &value)) {
        if (std::stoul(table) != spec.table.table_id) continue;
        if (is_delete == "1") rows.erase(key);
        else rows[key] = value;
      }
    }
    return std::make_unique<Replayed>(std::move(rows), spec.table.column_types);
  }
  TableStatistics Statistics(TableId table, const Snapshot* snapshot) const override {
    TableStatistics stats;
    ScanSpec spec;
    spec.table.table_id = table;
    std::shared_ptr<const Snapshot> now = store_->GetSnapshot();
    stats.rows = static_cast<int64_t>(static_cast<Replayed*>(Scan(now, spec).get())->size());
    for (const auto& f : std::filesystem::directory_iterator(dir_)) stats.bytes += f.file_size();
    (void)snapshot;
    return stats;
  }
  std::shared_ptr<BulkRows> NewBulkRows(TableId table, int key_column, std::vector<int> dist_key) const override {
    return std::make_shared<BulkRows>(table, key_column, std::move(dist_key));
  }
  Status GetCommitted(const std::string& key, std::string* value) const override {
    ScanSpec spec;
    spec.table.table_id = TableIdOfKey(key);
    auto scan = Scan(store_->GetSnapshot(), spec);
    const auto& rows = static_cast<Replayed*>(scan.get())->rows();
    auto it = rows.find(key);
    if (it == rows.end()) return Status::NotFound("no row");
    *value = it->second;
    return Status::OK();
  }

  Status PrepareEpoch(const EngineEpochWrites& writes, EpochCommitBatch* batch) override {
    if (!writes.writes.bulk.empty()) return Status::InvalidArgument("the file engine takes no bulk rows");
    std::string file = std::to_string(writes.database_id) + "-" + std::to_string(writes.epoch) + ".changes";
    std::ofstream out(dir_ + "/" + file, std::ios::binary | std::ios::trunc);
    for (const WriteLog* log : writes.writes.ops)
      for (const WriteOp& op : *log) {
        WriteField(out, std::to_string(TableIdOfKey(op.key)));
        WriteField(out, op.is_delete ? "1" : "0");
        WriteField(out, op.key);
        WriteField(out, op.value);
      }
    out.close();
    if (!out) return Status::IoError("cannot write " + file);
    char epoch[24];
    snprintf(epoch, sizeof(epoch), "%020llu", static_cast<unsigned long long>(writes.epoch));
    batch->markers.emplace_back(std::string(kMarkers) + std::to_string(writes.database_id) + "/" + epoch, file);
    prepared++;
    return Status::OK();
  }
  void FinishEpoch(uint32_t database_id, Epoch epoch, bool committed) override {
    if (committed) return;
    std::filesystem::remove(dir_ + "/" + std::to_string(database_id) + "-" + std::to_string(epoch) + ".changes");
  }
  Status Recover(const MetaStore& meta) override {
    std::set<std::string> named;
    meta.ScanMeta(kMarkers, [&](const std::string&, const std::string& file) { named.insert(file); });
    for (const auto& f : std::filesystem::directory_iterator(dir_))
      if (!named.count(f.path().filename().string())) std::filesystem::remove(f.path());
    recovered++;
    return Status::OK();
  }

  int prepared = 0, recovered = 0;

 private:
  static constexpr const char* kMarkers = "files/";

  class Replayed : public ChunkScan {
   public:
    Replayed(std::map<std::string, std::string> rows, std::vector<DataType> types)
        : rows_(std::move(rows)), types_(std::move(types)), next_(rows_.begin()) {}
    bool Next(DataChunk* out, size_t max_rows) override {
      *out = DataChunk(types_);
      size_t n = 0;
      for (; next_ != rows_.end() && n < max_rows; ++next_, ++n) EXPECT_TRUE(DecodeRowInto(next_->second, out));
      out->set_cardinality(n);
      return n > 0;
    }
    bool complete() const override { return true; }
    const std::string& last_key() const override { return last_key_; }  // not resumable
    size_t size() const { return rows_.size(); }
    const std::map<std::string, std::string>& rows() const { return rows_; }

   private:
    std::map<std::string, std::string> rows_;
    std::vector<DataType> types_;
    std::map<std::string, std::string>::const_iterator next_;
    std::string last_key_;
  };

  static void WriteField(std::ofstream& out, std::string_view s) {
    uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), sizeof(n));
    out.write(s.data(), static_cast<std::streamsize>(n));
  }
  static bool ReadField(std::ifstream& in, std::string* s) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof(n))) return false;
    s->resize(n);
    return static_cast<bool>(in.read(s->data(), n));
  }

  StateStore* store_;
  std::string dir_;
};

class TwoEnginesTest : public ::testing::Test {
 protected:
  // Reopens the store and adds a file engine over the same directory.
  void Reopen() {
    files_ = nullptr;
    store_.reset();
    store_ = OpenStore(dir_.path() + "/data");
    ASSERT_TRUE(store_);
    auto files = std::make_shared<FileEngine>(store_.get(), dir_.path() + "/files");
    ASSERT_TRUE(store_->engines().Add(files).ok());
    files_ = files.get();
    store_->engines().Assign(kFileTable, files_);
  }
  std::vector<std::string> Rows(TableId table) {
    ScanSpec spec;
    spec.table = Desc(table, {0}, {0});
    return ReadAll(store_->engines().For(table).Scan(store_->GetSnapshot(), spec).get());
  }
  // One log with writes of both engines' relations, interleaved.
  WriteLog BothTables(int64_t a) {
    WriteLog log;
    TestRows{Desc(kRowTable, {0}, {0}), {{a, "row", a}}}.Write(store_.get(), &log);
    TestRows{Desc(kFileTable, {0}, {0}), {{a, "file", a}}}.Write(store_.get(), &log);
    TestRows{Desc(kRowTable, {0}, {0}), {{a + 100, "row", a}}}.Write(store_.get(), &log);
    return log;
  }

  static constexpr TableId kRowTable = 30, kFileTable = 31;
  TestDir dir_{"freshet-table-engine-test"};
  std::unique_ptr<StateStore> store_;
  FileEngine* files_ = nullptr;
};

TEST_F(TwoEnginesTest, OneEpochCommitsBothEnginesWritesTogether) {
  Reopen();
  EXPECT_EQ(files_->recovered, 1);
  EXPECT_STREQ(store_->engines().For(kFileTable).name(), "files");
  EXPECT_STREQ(store_->engines().For(kRowTable).name(), "row");
  WriteLog first = BothTables(1);
  ASSERT_TRUE(Commit(store_.get(), 1, 1, first).ok());
  EXPECT_EQ(files_->prepared, 1);
  EXPECT_EQ(Rows(kRowTable), (std::vector<std::string>{"101|row|1|", "1|row|1|"}));
  EXPECT_EQ(Rows(kFileTable), (std::vector<std::string>{"1|file|1|"}));
  // The file engine's rows are not in the row store: its writes went to it alone.
  ScanSpec spec;
  spec.table = Desc(kFileTable, {0}, {0});
  EXPECT_TRUE(ReadAll(store_->engines().row_store().Scan(store_->GetSnapshot(), spec).get()).empty());

  // A commit the store refuses (its disk counts as full) leaves neither
  // engine's writes, and the file engine drops what it prepared.
  auto before = store_->GetSnapshot();
  store_->set_disk_reserve_bytes(store_->FreeDiskBytes() + (uint64_t(1) << 30));
  WriteLog second = BothTables(2);
  Status s = Commit(store_.get(), 1, 2, second);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(Rows(kRowTable).size(), 2u);
  EXPECT_EQ(Rows(kFileTable).size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/files/1-2.changes"));
  // With room again, the same writes commit, both at once.
  store_->set_disk_reserve_bytes(0);
  ASSERT_TRUE(Commit(store_.get(), 1, 2, second).ok());
  EXPECT_EQ(Rows(kRowTable).size(), 4u);
  EXPECT_EQ(Rows(kFileTable), (std::vector<std::string>{"1|file|1|", "2|file|2|"}));
  EXPECT_EQ(store_->CommittedEpoch(1), 2u);
  // A snapshot taken before sees neither engine's epoch 2.
  ScanSpec old_spec;
  old_spec.table = Desc(kFileTable, {0}, {0});
  EXPECT_EQ(ReadAll(store_->engines().For(kFileTable).Scan(before, old_spec).get()).size(), 1u);
  before.reset();  // before the store closes

  // Survives a restart.
  Reopen();
  EXPECT_EQ(Rows(kRowTable).size(), 4u);
  EXPECT_EQ(Rows(kFileTable), (std::vector<std::string>{"1|file|1|", "2|file|2|"}));
}

TEST_F(TwoEnginesTest, WhatACrashLeftPreparedIsDiscardedAtRecovery) {
  Reopen();
  WriteLog first = BothTables(1);
  ASSERT_TRUE(Commit(store_.get(), 1, 1, first).ok());
  // The file engine prepares epoch 2, then the process dies before the
  // store's write: its file exists, no marker names it.
  WriteLog second = BothTables(2);
  EngineEpochWrites writes{1, 2, {}};
  writes.writes.ops.push_back(&second);
  EpochCommitBatch batch;
  ASSERT_TRUE(files_->PrepareEpoch(writes, &batch).ok());
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/files/1-2.changes"));
  Reopen();
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/files/1-2.changes"));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/files/1-1.changes"));
  EXPECT_EQ(Rows(kFileTable), (std::vector<std::string>{"1|file|1|"}));
  EXPECT_EQ(Rows(kRowTable).size(), 2u);
  EXPECT_EQ(store_->CommittedEpoch(1), 1u);
}

}  // namespace
}  // namespace freshet
