// LoadFileWriter (load_file_writer.h): the files it writes are read back by
// RocksDB's own reader with every checksum verified (every entry, seeks,
// properties), and ingested into a database (two files, a snapshot held so
// that ingestion assigns a sequence number, a small block cache) they give
// back exactly what was put, before and after the database is reopened.
#include "storage/load_file_writer.h"

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

namespace freshet {
namespace {

// Sorted user keys shaped like a load's ([table][vnode][row id], 14 bytes)
// plus some of other lengths, with values of every size up to past a block.
std::map<std::string, std::string> Entries(uint32_t seed, char table, size_t n) {
  std::mt19937_64 rng(seed);
  std::map<std::string, std::string> out;
  uint64_t id = 1000;
  while (out.size() < n) {
    id += 1 + rng() % 1000;
    std::string key = {0, 0, 0, table, 0, static_cast<char>(rng() % 2)};
    for (int i = 7; i >= 0; i--) key.push_back(static_cast<char>(id >> (8 * i)));
    if (rng() % 50 == 0) key += std::string(rng() % 40, 'k');  // longer keys too
    size_t size = rng() % 100 == 0 ? rng() % 70000 : rng() % 120;
    std::string value(size, '\0');
    for (char& ch : value) ch = static_cast<char>(rng());
    out[key] = value;
  }
  return out;
}

std::string Write(const std::string& path, const std::map<std::string, std::string>& entries) {
  LoadFileWriter w;
  EXPECT_TRUE(w.Open(path).ok());
  for (const auto& [k, v] : entries) EXPECT_TRUE(w.Put(k, v).ok());
  Status s = w.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(w.entries(), entries.size());
  return path;
}

// The iterator, from its first key, yields exactly `entries`.
void ExpectEntries(rocksdb::Iterator* it, const std::map<std::string, std::string>& entries) {
  auto e = entries.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++e) {
    ASSERT_NE(e, entries.end());
    ASSERT_EQ(it->key().ToString(), e->first);
    ASSERT_EQ(it->value().ToString(), e->second);
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(e, entries.end());
}

rocksdb::Options StoreLikeOptions(std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::Options options;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 32 << 10;
  table.block_cache = std::move(cache);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.create_if_missing = true;
  return options;
}

class LoadFileWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("load_file_writer_test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(LoadFileWriterTest, RocksDbReadsEveryEntryWithChecksums) {
  auto entries = Entries(1, 7, 40000);
  std::string path = Write(dir_ + "/a.sst", entries);
  rocksdb::SstFileReader reader(StoreLikeOptions(nullptr));
  ASSERT_TRUE(reader.Open(path).ok());
  rocksdb::Status vs = reader.VerifyChecksum();
  ASSERT_TRUE(vs.ok()) << vs.ToString();
  auto props = reader.GetTableProperties();
  EXPECT_EQ(props->num_entries, entries.size());
  EXPECT_GT(props->num_data_blocks, 10u);
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(ro));
  ExpectEntries(it.get(), entries);
  // Seeks land on the first key at or after the target.
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000; i++) {
    auto at = std::next(entries.begin(), static_cast<long>(rng() % entries.size()));
    std::string target = at->first;
    bool past = rng() % 2;
    if (past) target.push_back('\0');  // just after this key
    it->Seek(target);
    auto expect = past ? std::next(at) : at;
    if (expect == entries.end()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(it->key().ToString(), expect->first);
    }
  }
}

TEST_F(LoadFileWriterTest, IngestedFilesReadBackThroughTheDatabase) {
  auto first = Entries(2, 7, 30000), second = Entries(3, 8, 30000);
  std::vector<std::string> files = {Write(dir_ + "/f1.sst", first), Write(dir_ + "/f2.sst", second)};
  auto cache = rocksdb::NewLRUCache(1 << 20);  // small: blocks of both files come and go
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(StoreLikeOptions(cache), dir_ + "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), std::string("\0\0\0\x07\0\0", 6), "before").ok());
  const rocksdb::Snapshot* snapshot = db->GetSnapshot();  // ingestion assigns a sequence number
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;
  io.write_global_seqno = false;
  rocksdb::Status s = db->IngestExternalFile(files, io);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto check = [&](rocksdb::DB* d) {
    std::map<std::string, std::string> all = first;
    all.insert(second.begin(), second.end());
    all[std::string("\0\0\0\x07\0\0", 6)] = "before";
    std::unique_ptr<rocksdb::Iterator> it(d->NewIterator(rocksdb::ReadOptions()));
    ExpectEntries(it.get(), all);
    std::mt19937_64 rng(4);
    for (int i = 0; i < 3000; i++) {
      auto at = std::next(all.begin(), static_cast<long>(rng() % all.size()));
      std::string v;
      ASSERT_TRUE(d->Get(rocksdb::ReadOptions(), at->first, &v).ok());
      ASSERT_EQ(v, at->second);
    }
  };
  check(db.get());
  // The snapshot taken before the ingestion does not see the files.
  rocksdb::ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string v;
  EXPECT_TRUE(db->Get(at_snapshot, first.begin()->first, &v).IsNotFound());
  db->ReleaseSnapshot(snapshot);
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  ASSERT_TRUE(rocksdb::DB::Open(StoreLikeOptions(cache), dir_ + "/db", &raw).ok());
  db.reset(raw);
  check(db.get());
  EXPECT_TRUE(db->VerifyChecksum().ok());
}

}  // namespace
}  // namespace freshet
