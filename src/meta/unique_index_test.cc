// UniqueIndexWrites (unique_index.h): a write set replayed over a unique
// index, against the rows as applied writes left them: values freed and
// taken in one write set, NULLs, NULLS NOT DISTINCT, bulk rows, and the
// index writes it hands back (later read as stored rows).
#include "meta/unique_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "common/encoding.h"
#include "storage/bulk_rows.h"
#include "storage/state_store.h"
#include "storage/table_engines.h"
#include "storage/test_store.h"

namespace freshet {
namespace {

class UniqueIndexWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenTestStore();
    ASSERT_TRUE(store_);
    // t (id INT PRIMARY KEY, email TEXT, n INT), UNIQUE (email)
    table_.id = 40;
    table_.name = "t";
    table_.columns = {{"id", DataType::Int32(), true, false, ""},
                      {"email", DataType::Varchar(), false, false, ""},
                      {"n", DataType::Int32(), false, false, ""}};
    table_.pk = {0};
    table_.dist_key = {0};
    ConstraintCatalog unique;
    unique.type = 'u';
    unique.name = "t_email_key";
    unique.columns = {"email"};
    unique.index_id = 41;
    table_.constraints.push_back(unique);
    rows_ = std::make_unique<StateTable>(store_.get(), table_.StorageDesc());
    index_ = std::make_shared<StateTable>(store_.get(), table_.UniqueIndexDesc(table_.constraints[0]));
  }

  // The storage key and encoded row of (id, email, n); email "" is NULL.
  std::pair<std::string, std::string> Row(int id, const std::string& email, int n = 0) {
    DataChunk chunk(table_.types());
    chunk.column(0).AppendInt(id);
    if (email.empty()) chunk.column(1).AppendNull();
    else chunk.column(1).AppendString(email);
    chunk.column(2).AppendInt(n);
    chunk.set_cardinality(1);
    std::string value;
    EncodeRow(chunk, 0, &value);
    return {rows_->KeyOf(chunk, 0), value};
  }
  void Put(WriteLog* log, int id, const std::string& email, int n = 0) {
    auto [key, value] = Row(id, email, n);
    log->Put(key, value);
  }
  void Delete(WriteLog* log, int id) { log->Delete(Row(id, "x").first); }

  // Replays `log` and, when it passes, applies it and its index writes.
  void Apply(const WriteLog& log) {
    UniqueIndexWrites writes(table_, *rows_, [&](const ConstraintCatalog&) { return index_; });
    writes.Add(log);
    for (auto& [index, ops] : writes.Writes()) index->Write(std::move(ops));
    WriteLog copy;
    copy.Append(log);
    rows_->Write(std::move(copy));
  }
  std::string Violation(const WriteLog& log) {
    try {
      Apply(log);
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), std::string(sqlstate::kUniqueViolation));
      return e.detail();
    }
    return "";
  }

  std::unique_ptr<StateStore> store_;
  TableCatalog table_;
  std::unique_ptr<StateTable> rows_;
  std::shared_ptr<StateTable> index_;
};

TEST_F(UniqueIndexWritesTest, AValueIsHeldByOneRowAtATime) {
  WriteLog first;
  Put(&first, 1, "a");
  Put(&first, 2, "b");
  ASSERT_EQ(Violation(first), "");
  WriteLog taken;
  Put(&taken, 3, "a");
  EXPECT_EQ(Violation(taken), "Key (email)=(a) already exists.");
  // The same row writing its own value again, or another column.
  WriteLog same;
  Put(&same, 1, "a", 7);
  EXPECT_EQ(Violation(same), "");
  // Freed and taken in one write set, in that order: allowed; the other
  // order: refused, as PostgreSQL's immediate checks.
  WriteLog moved;
  Put(&moved, 1, "c");
  Put(&moved, 2, "a");
  EXPECT_EQ(Violation(moved), "");
  WriteLog swapped;
  Put(&swapped, 1, "a");
  Put(&swapped, 2, "c");
  EXPECT_EQ(Violation(swapped), "Key (email)=(a) already exists.");
  // A deleted row's value is free again.
  WriteLog deleted;
  Delete(&deleted, 2);
  Put(&deleted, 4, "a");
  EXPECT_EQ(Violation(deleted), "");
}

TEST_F(UniqueIndexWritesTest, NullsAreDistinctUnlessTheConstraintSaysNot) {
  WriteLog nulls;
  Put(&nulls, 1, "");
  Put(&nulls, 2, "");
  EXPECT_EQ(Violation(nulls), "");
  table_.constraints[0].nulls_not_distinct = true;
  WriteLog third;
  Put(&third, 3, "");
  // Rows 1 and 2 were not indexed (NULLs distinct then): row 3 is the first.
  EXPECT_EQ(Violation(third), "");
  WriteLog fourth;
  Put(&fourth, 4, "");
  EXPECT_EQ(Violation(fourth), "Key (email)=(null) already exists.");
}

TEST_F(UniqueIndexWritesTest, TheIndexRowsNameTheirHoldersAfterACommit) {
  WriteLog log;
  Put(&log, 1, "a");
  Apply(log);
  // Committed: the index is read back from the store, its holder found
  // from the key columns its rows end with.
  CommitWrites writes;
  std::vector<WriteLog> logs(2);
  rows_->TakeWrites(&logs[0]);
  index_->TakeWrites(&logs[1]);
  for (const auto& l : logs) writes.ops.push_back(&l);
  StateStore::EpochCommit commit;
  commit.database_id = 1;
  commit.epoch = 1;
  ASSERT_TRUE(store_->engines().CommitEpoch(writes, commit).ok());
  WriteLog own;
  Put(&own, 1, "a", 5);
  EXPECT_EQ(Violation(own), "");
  WriteLog other;
  Put(&other, 2, "a");
  EXPECT_EQ(Violation(other), "Key (email)=(a) already exists.");
}

// A bulk load (decoded chunk by chunk) does exactly what replaying its
// rows one by one in key order does: the same first conflict, or the same
// index writes. Random rounds of up to 60 rows over a few emails (some
// NULL), each round that passes applied, so later rounds meet stored
// values too.
TEST_F(UniqueIndexWritesTest, BulkRowsAsTheirRowByRowReplay) {
  std::mt19937 rng(20261204);
  int next_id = 1000;
  int conflicts = 0, passes = 0;
  for (int round = 0; round < 300; round++) {
    const int n = 1 + int(rng() % 60);
    std::vector<std::pair<std::string, std::string>> rows;
    for (int i = 0; i < n; i++) {
      int pick = int(rng() % 400);
      std::string email = pick < 20 ? "" : "e" + std::to_string(pick);
      rows.push_back(Row(next_id++, email, i));
    }
    // Added in key order (ids increase); replayed in the order a bulk
    // load's rows are read (storage keys: by vnode).
    BulkRows bulk(table_.id, 0, {0});
    for (const auto& [key, value] : rows) {
      DataChunk one(table_.types());
      ASSERT_TRUE(DecodeRowInto(value, &one));
      bulk.Add(one);
    }
    bulk.Finish();
    WriteLog log;
    BulkRows::Cursor c(&bulk);
    for (c.Seek(""); c.Valid(); c.Next()) log.Put(c.key(), c.value());
    auto outcome = [&](const std::function<void(UniqueIndexWrites*)>& add) {
      UniqueIndexWrites writes(table_, *rows_, [&](const ConstraintCatalog&) { return index_; });
      std::map<std::string, std::string> result;
      try {
        add(&writes);
      } catch (const SqlError& e) {
        result["error"] = e.detail();
        return result;
      }
      for (auto& [index, ops] : writes.Writes())
        for (const WriteOp& op : ops) result[std::string(op.key)] = op.is_delete ? "-" : std::string(op.value);
      return result;
    };
    auto by_bulk = outcome([&](UniqueIndexWrites* w) { w->AddBulk(bulk); });
    auto by_rows = outcome([&](UniqueIndexWrites* w) { w->Add(log); });
    ASSERT_EQ(by_bulk, by_rows) << "round " << round;
    if (by_bulk.count("error")) {
      conflicts++;
      continue;
    }
    passes++;
    Apply(log);
  }
  EXPECT_GT(conflicts, 20);
  EXPECT_GT(passes, 20);
}

}  // namespace
}  // namespace freshet
