// BulkRows (bulk_rows.h) and the bulk commit that writes them: rows come
// out in storage-key order whatever vnodes they hash to, lookups find them,
// a key that does not increase is refused, and a commit merging bulk rows
// with ordinary writes (in one file or split over two) stores exactly what
// applying the same writes one by one to a map gives.
#include "storage/bulk_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "common/encoding.h"
#include "storage/state_store.h"
#include "storage/state_table.h"

namespace freshet {
namespace {

constexpr TableId kTable = 9;
const std::vector<DataType> kTypes = {DataType::Varchar(), DataType::Int64()};  // payload, key

// Rows (payload, key) with the given keys, in order.
DataChunk Rows(const std::vector<int64_t>& keys) {
  DataChunk chunk(kTypes);
  for (int64_t k : keys) chunk.AppendRow({Value::Varchar(std::to_string(k) + "p"), Value::Int64(k)});
  return chunk;
}

std::shared_ptr<BulkRows> NewBulk() { return std::make_shared<BulkRows>(kTable, /*key_column=*/1, std::vector<int>{1}); }

// The storage key and value StateTable would write for row r.
std::pair<std::string, std::string> Encoded(const DataChunk& rows, size_t r) {
  StateTable st(nullptr, StateTableDesc{kTable, kTypes, {1}, {}, {1}});
  std::string value;
  EncodeRow(rows, r, &value);
  return {st.KeyOf(rows, r), value};
}

std::map<std::string, std::string> ReadAll(const BulkRows& rows, std::string_view from = "") {
  std::map<std::string, std::string> out;
  BulkRows::Cursor c(&rows);
  std::string last;
  for (c.Seek(from); c.Valid(); c.Next()) {
    EXPECT_LT(last, std::string(c.key())) << "keys out of order";
    last = std::string(c.key());
    out[last] = std::string(c.value());
  }
  return out;
}

TEST(BulkRowsTest, VisitsRowsInKeyOrderAndFindsThem) {
  auto bulk_ptr = NewBulk();
  BulkRows& bulk = *bulk_ptr;
  std::map<std::string, std::string> expected;
  int64_t key = 1000;
  for (int chunk = 0; chunk < 20; chunk++) {
    std::vector<int64_t> keys;
    for (int i = 0; i < 500; i++) keys.push_back(key += 1 + (i % 7));
    DataChunk rows = Rows(keys);
    bulk.Add(rows);
    for (size_t r = 0; r < rows.num_rows(); r++) expected.insert(Encoded(rows, r));
  }
  EXPECT_EQ(bulk.size(), 10000u);
  EXPECT_EQ(ReadAll(bulk), expected);
  for (auto it = expected.begin(); it != expected.end(); std::advance(it, 97)) {
    auto found = bulk.Find(it->first);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(*found, it->second);
    EXPECT_FALSE(bulk.Find(it->first + "x").has_value());
    if (std::distance(it, expected.end()) < 97) break;
  }
  // Seek: to every vnode boundary and to keys between rows.
  for (int v = 0; v < kVnodeCount; v += 17) {
    std::string from = VnodePrefix(kTable, static_cast<uint16_t>(v));
    std::map<std::string, std::string> tail(expected.lower_bound(from), expected.end());
    EXPECT_EQ(ReadAll(bulk, from), tail) << "from vnode " << v;
  }
  std::string mid = std::next(expected.begin(), 5000)->first + "\x01";
  EXPECT_EQ(ReadAll(bulk, mid).size(), static_cast<size_t>(std::distance(expected.upper_bound(mid), expected.end())));
  EXPECT_TRUE(ReadAll(bulk, TablePrefix(kTable + 1)).empty());
  EXPECT_EQ(ReadAll(bulk, TablePrefix(kTable - 1)).size(), expected.size());
}

TEST(BulkRowsTest, RefusesKeysThatDoNotIncrease) {
  auto bulk = NewBulk();
  bulk->Add(Rows({1, 2, 3}));
  EXPECT_THROW(bulk->Add(Rows({3})), SqlError);
  auto within = NewBulk();
  EXPECT_THROW(within->Add(Rows({5, 4})), SqlError);
}

// A store on disk (bulk commits need files) in a fresh directory, removed
// with it.
struct DiskStore {
  explicit DiskStore(const std::string& name) : dir(testing::TempDir() + "/" + name) {
    std::filesystem::remove_all(dir);
    StoreOptions options;
    options.dir = dir;
    options.sync_commits = false;
    store = std::move(StateStore::Open(options)).value();
  }
  ~DiskStore() {
    store.reset();
    std::filesystem::remove_all(dir);
  }
  StateStore* get() const { return store.get(); }
  StateStore* operator->() const { return store.get(); }
  std::string dir;
  std::unique_ptr<StateStore> store;
};

// Every key and value of the data family.
std::map<std::string, std::string> StoredRows(StateStore* store) {
  std::map<std::string, std::string> stored;
  auto range = store->NewRange(store->data_cf(), nullptr, "", "");
  for (; range->it->Valid(); range->it->Next()) stored[range->it->key().ToString()] = range->it->value().ToString();
  return stored;
}

// A commit of bulk rows plus ops (overwrites and deletes of bulk keys,
// keys between them, other tables), on disk: the result equals applying
// the writes in order to a map. Large enough to be split over two files.
void CheckBulkCommit(const std::vector<size_t>& bulk_sizes, int seed) {
  DiskStore store("bulk_commit_" + std::to_string(seed));

  std::mt19937_64 rng(seed);
  std::map<std::string, std::string> expected;
  std::vector<std::shared_ptr<BulkRows>> bulks;
  for (size_t b = 0; b < bulk_sizes.size(); b++) {  // loads whose keys interleave
    auto bulk = NewBulk();
    std::vector<int64_t> keys;
    for (size_t i = 0; i < bulk_sizes[b]; i++) keys.push_back(static_cast<int64_t>(i * bulk_sizes.size() + b));
    DataChunk rows = Rows(keys);
    bulk->Add(rows);
    for (size_t r = 0; r < rows.num_rows(); r++) expected.insert(Encoded(rows, r));
    bulks.push_back(bulk);
  }
  WriteLog ops;
  std::vector<std::string> bulk_keys;
  for (const auto& [k, v] : expected) bulk_keys.push_back(k);
  for (int i = 0; i < 3000; i++) {
    std::string key, value;
    bool is_delete = false;
    switch (rng() % 4) {
      case 0: key = bulk_keys[rng() % bulk_keys.size()]; value = "overwrite"; break;
      case 1: key = bulk_keys[rng() % bulk_keys.size()]; is_delete = true; break;
      case 2: key = bulk_keys[rng() % bulk_keys.size()] + "+"; value = "between"; break;
      default: key = VnodePrefix(kTable + 1 + rng() % 2, rng() % kVnodeCount) + "k"; value = "other"; break;
    }
    if (is_delete) {
      expected.erase(key);
      ops.Delete(key);
    } else {
      expected[key] = value;
      ops.Put(key, value);
    }
  }
  CommitWrites writes;
  writes.ops = {&ops};
  for (const auto& b : bulks) writes.bulk.push_back(b.get());
  ASSERT_TRUE(store->CommitBulk(writes, {{"epoch/1", "1"}}).ok());

  std::map<std::string, std::string> stored = StoredRows(store.get());
  EXPECT_EQ(stored.size(), expected.size());
  EXPECT_TRUE(stored == expected);
  std::string epoch;
  EXPECT_TRUE(store->Get(store->meta_cf(), nullptr, "epoch/1", &epoch).ok());
}

TEST(BulkRowsTest, BulkCommitMergesWithOpsInOneFile) { CheckBulkCommit({2000, 2000}, 1); }
// Split at the middle op (no load is half of the commit) and at the middle
// vnode of the largest load.
TEST(BulkRowsTest, BulkCommitSplitAtAnOp) { CheckBulkCommit({110000, 100000}, 2); }
TEST(BulkRowsTest, BulkCommitSplitAtAVnode) { CheckBulkCommit({250000, 1000}, 3); }

// A load that moves its rows to its file in several runs: read back in
// order, found by lookups, committed alone or merged with other writes to
// its table, and its memory reused between runs.
TEST(BulkRowsTest, SpilledLoadsReadBackAndCommit) {
  for (bool with_ops : {false, true}) {
    DiskStore store("bulk_spill_" + std::to_string(with_ops));
    std::optional<BulkSpill> spill = store->NewBulkSpill();
    ASSERT_TRUE(spill.has_value());
    spill->after_bytes = 100000;  // a run every few thousand rows
    auto bulk = std::make_shared<BulkRows>(kTable, 1, std::vector<int>{1}, spill);
    std::map<std::string, std::string> expected;
    for (int64_t base = 0; base < 40000; base += 1000) {
      std::vector<int64_t> keys;
      for (int64_t k = base; k < base + 1000; k++) keys.push_back(k);
      DataChunk rows = Rows(keys);
      bulk->Add(rows);
      for (size_t r = 0; r < rows.num_rows(); r++) expected.insert(Encoded(rows, r));
    }
    ASSERT_TRUE(bulk->spilled());
    EXPECT_THROW(BulkRows::Cursor early(bulk.get()), SqlError);  // not readable before Finish
    bulk->Finish();
    EXPECT_EQ(bulk->size(), expected.size());
    EXPECT_EQ(ReadAll(*bulk), expected);
    auto probe = std::next(expected.begin(), 12345);
    EXPECT_EQ(bulk->Find(probe->first), probe->second);
    EXPECT_FALSE(bulk->Find(probe->first + "x").has_value());
    std::string from = VnodePrefix(kTable, 77);
    std::map<std::string, std::string> tail(expected.lower_bound(from), expected.end());
    EXPECT_EQ(ReadAll(*bulk, from), tail);
    // One file per vnode that has rows, in key order.
    std::vector<std::string> files = bulk->files();
    EXPECT_EQ(files.size(), static_cast<size_t>(kVnodeCount));
    for (const auto& f : files) EXPECT_TRUE(std::filesystem::exists(f)) << f;

    WriteLog ops;
    ops.Put(VnodePrefix(kTable + 1, 3) + "k", "other");
    expected[VnodePrefix(kTable + 1, 3) + "k"] = "other";
    if (with_ops) {  // writes into the loaded table win over its rows
      ops.Delete(probe->first);
      expected.erase(probe->first);
      ops.Put(VnodePrefix(kTable, 200) + "z", "new");
      expected[VnodePrefix(kTable, 200) + "z"] = "new";
    }
    CommitWrites writes;
    writes.ops = {&ops};
    writes.bulk = {bulk.get()};
    ASSERT_TRUE(store->CommitBulk(writes, {{"epoch/1", "1"}}).ok());
    std::map<std::string, std::string> stored = StoredRows(store.get());
    EXPECT_EQ(stored.size(), expected.size()) << "with ops: " << with_ops;
    EXPECT_TRUE(stored == expected) << "with ops: " << with_ops;
    // Alone in its table's keys, the load's files were ingested as they
    // are (plus one file for the other table's op); with ops among its
    // keys, its rows were merged with them into new files.
    std::vector<rocksdb::LiveFileMetaData> live;
    store->db()->GetLiveFilesMetaData(&live);
    size_t data_files = std::count_if(live.begin(), live.end(), [](const rocksdb::LiveFileMetaData& f) {
      return f.column_family_name == rocksdb::kDefaultColumnFamilyName;
    });
    if (with_ops) EXPECT_LT(data_files, files.size());
    else EXPECT_EQ(data_files, files.size() + 1);
    // Ingestion took links to the files: the load reads on by its own
    // names, and the links' names are gone.
    EXPECT_EQ(ReadAll(*bulk).size(), bulk->size());
    for (const auto& f : files) EXPECT_FALSE(std::filesystem::exists(f + ".ingest")) << f;
    // The load's own names for its files go with it.
    bulk.reset();
    for (const auto& f : files) EXPECT_FALSE(std::filesystem::exists(f)) << f;
  }
}

// A COPY's blocks are encoded into staging rows, each block's keys above
// the previous block's, and appended in block order (copy_loader.h): the
// load reads back in key order, in memory and after it spills mid-way,
// and the staging rows are reused after Clear().
TEST(BulkRowsTest, AppendedBlocksKeepKeyOrder) {
  for (bool spills : {false, true}) {
    DiskStore store("bulk_append_" + std::to_string(spills));
    std::optional<BulkSpill> spill = store->NewBulkSpill();
    ASSERT_TRUE(spill.has_value());
    if (!spills) spill.reset();
    else spill->after_bytes = 60000;
    BulkRows load(kTable, 1, std::vector<int>{1}, spill);
    BulkRows staged(kTable, 1, std::vector<int>{1});
    std::map<std::string, std::string> expected;
    int64_t key = 0;
    for (int block = 0; block < 30; block++) {
      for (int chunk = 0; chunk < 3; chunk++) {
        std::vector<int64_t> keys;
        for (int i = 0; i < 300; i++) keys.push_back(key += 1 + (i % 5));
        DataChunk rows = Rows(keys);
        staged.Add(rows);
        for (size_t r = 0; r < rows.num_rows(); r++) expected.insert(Encoded(rows, r));
      }
      if (!load.spilled()) {
        load.Append(staged);
      } else {  // in two lanes at once, as the COPY loader does
        std::thread other([&] { load.AppendVnodes(staged, kVnodeCount / 3, kVnodeCount); });
        load.AppendVnodes(staged, 0, kVnodeCount / 3);
        other.join();
      }
      staged.Clear();
      EXPECT_EQ(staged.size(), 0u);
      EXPECT_EQ(ReadAll(staged).size(), 0u);
    }
    // A block whose keys do not follow the load's is refused.
    staged.Add(Rows({key}));
    EXPECT_THROW(load.Append(staged), SqlError);
    load.Finish();
    EXPECT_EQ(load.spilled(), spills);
    EXPECT_EQ(load.size(), expected.size());
    EXPECT_EQ(ReadAll(load), expected);
    std::string from = VnodePrefix(kTable, 100);
    std::map<std::string, std::string> tail(expected.lower_bound(from), expected.end());
    EXPECT_EQ(ReadAll(load, from), tail);
    auto probe = std::next(expected.begin(), 4321);
    EXPECT_EQ(load.Find(probe->first), probe->second);
  }
}

TEST(BulkRowsTest, StateTableSeesBulkRowsUntilCommitted) {
  StoreOptions options;
  options.in_memory = true;
  auto store = std::move(StateStore::Open(options)).value();
  StateTable st(store.get(), StateTableDesc{kTable, kTypes, {1}, {}, {1}});
  auto bulk = NewBulk();
  DataChunk rows = Rows({7, 8, 9});
  bulk->Add(rows);
  st.WriteBulk(bulk);
  auto [key8, value8] = Encoded(rows, 1);
  EXPECT_EQ(st.Get(key8), value8);
  EXPECT_EQ(st.PendingCount(), 3u);
  st.Delete(key8);  // a later write wins over the bulk row
  EXPECT_FALSE(st.Get(key8).has_value());
  StateTable::SealedWrites sealed = st.Seal(1);
  EXPECT_EQ(sealed.bulk.size(), 1u);
  EXPECT_EQ(sealed.ops->size(), 1u);
  auto [key9, value9] = Encoded(rows, 2);
  EXPECT_EQ(st.Get(key9), value9);  // sealed, not yet committed
  rocksdb::WriteBatch batch;
  CommitWrites writes;
  writes.ops = {sealed.ops.get()};
  writes.bulk = {sealed.bulk[0].get()};
  store->AddToBatch(writes, &batch);
  ASSERT_TRUE(store->Commit(&batch).ok());
  st.ReleaseSealed(1);
  EXPECT_EQ(st.Get(key9), value9);  // now from the store
  EXPECT_FALSE(st.Get(key8).has_value());
}

}  // namespace
}  // namespace freshet
