// The catalog's ALTER paths: AlterTable keeps the id and checks names;
// ReplaceTable swaps a rewritten relation in atomically; a rewrite table a
// crash left behind is dropped when the catalog is loaded again. And
// transactions: a block's DDL in a catalog of its own until committed.
#include "catalog/catalog.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "storage/state_store.h"

namespace freshet {
namespace {

std::unique_ptr<StateStore> MemoryStore() {
  StoreOptions options;
  options.in_memory = true;
  return std::move(StateStore::Open(options)).value();
}

TableCatalog Table(const Catalog& catalog, const std::string& name) {
  TableCatalog t;
  t.database_id = catalog.FindDatabase("dev")->id;
  t.schema_id = catalog.FindSchema(t.database_id, "public")->id;
  t.name = name;
  t.columns = {{"a", DataType::Int32(), true, false, ""}};
  t.pk = t.dist_key = {0};
  return t;
}

TEST(CatalogAlterTest, AlterTableKeepsIdAndRefusesTakenNames) {
  auto store = MemoryStore();
  auto catalog = Catalog::Load(store.get());
  TableRef t = catalog->CreateTable(Table(*catalog, "t"));
  catalog->CreateTable(Table(*catalog, "u"));
  TableCatalog renamed = *t;
  renamed.name = "t2";
  EXPECT_EQ(catalog->AlterTable(renamed)->id, t->id);
  EXPECT_EQ(catalog->FindTable(t->schema_id, "t2")->id, t->id);
  EXPECT_EQ(catalog->FindTable(t->schema_id, "t"), nullptr);
  renamed.name = "u";
  try {
    catalog->AlterTable(renamed);
    FAIL() << "a taken name was accepted";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), sqlstate::kDuplicateTable);
  }
}

TEST(CatalogAlterTest, ReplaceTableSwapsTheRewrittenRelationIn) {
  auto store = MemoryStore();
  auto catalog = Catalog::Load(store.get());
  TableRef old_table = catalog->CreateTable(Table(*catalog, "t"));
  TableCatalog temp = Table(*catalog, "__rewrite_of_t");
  temp.kind = RelationKind::kInternal;
  temp.internal_kind = Catalog::kRewriteKind;
  temp.columns.push_back({"b", DataType::Varchar(), false, false, ""});
  TableRef rewritten = catalog->CreateTable(temp);
  TableCatalog final_table = *rewritten;
  final_table.kind = RelationKind::kTable;
  final_table.internal_kind.clear();
  final_table.name = "t";
  catalog->ReplaceTable(old_table->id, final_table);
  EXPECT_EQ(catalog->GetTable(old_table->id), nullptr);
  TableRef now = catalog->FindTable(old_table->schema_id, "t");
  ASSERT_NE(now, nullptr);
  EXPECT_EQ(now->id, rewritten->id);
  EXPECT_EQ(now->columns.size(), 2u);
  // Persisted as one: a reload sees the same.
  auto reloaded = Catalog::Load(store.get());
  EXPECT_EQ(reloaded->GetTable(old_table->id), nullptr);
  ASSERT_NE(reloaded->FindTable(old_table->schema_id, "t"), nullptr);
  EXPECT_EQ(reloaded->FindTable(old_table->schema_id, "t")->id, rewritten->id);
  EXPECT_EQ(reloaded->FindTable(old_table->schema_id, "t")->kind, RelationKind::kTable);
}

TEST(CatalogAlterTest, AnInterruptedRewriteIsDroppedAtLoad) {
  auto store = MemoryStore();
  ObjectId kept, unfinished;
  {
    auto catalog = Catalog::Load(store.get());
    kept = catalog->CreateTable(Table(*catalog, "t"))->id;
    TableCatalog temp = Table(*catalog, "__rewrite_of_t");
    temp.kind = RelationKind::kInternal;
    temp.internal_kind = Catalog::kRewriteKind;
    unfinished = catalog->CreateTable(temp)->id;
    // The server stops here: ReplaceTable never ran.
  }
  auto catalog = Catalog::Load(store.get());
  EXPECT_NE(catalog->GetTable(kept), nullptr);
  EXPECT_EQ(catalog->GetTable(unfinished), nullptr);
  auto again = Catalog::Load(store.get());
  EXPECT_EQ(again->GetTable(unfinished), nullptr);
}

}  // namespace
}  // namespace freshet

namespace freshet {
namespace {

// A transaction's catalog: its changes are its own until committed, then
// stored in one write (a reload sees them); a dropped transaction leaves
// nothing but used ids; concurrent changes to what it touched make the
// commit fail with 40001 and store nothing.
TEST(CatalogTransactionTest, ChangesAreItsOwnUntilCommitted) {
  auto store = MemoryStore();
  auto catalog = Catalog::Load(store.get());
  TableRef kept = catalog->CreateTable(Table(*catalog, "kept"));
  auto txn = catalog->BeginTransaction();
  ASSERT_TRUE(txn->is_transaction());
  TableRef made = txn->CreateTable(Table(*txn, "made"));
  TableCatalog renamed = *kept;
  renamed.name = "kept2";
  txn->AlterTable(renamed);
  txn->CreateSchema(kept->database_id, "s", kRootUserId);
  EXPECT_NE(txn->FindTable(kept->schema_id, "made"), nullptr);
  EXPECT_EQ(catalog->FindTable(kept->schema_id, "made"), nullptr);
  EXPECT_EQ(catalog->FindTable(kept->schema_id, "kept")->id, kept->id);
  EXPECT_FALSE(catalog->FindSchema(kept->database_id, "s"));
  EXPECT_NE(txn->version(), catalog->version());
  // Ids are the parent's: a table it makes meanwhile gets another.
  TableRef other = catalog->CreateTable(Table(*catalog, "other"));
  EXPECT_NE(other->id, made->id);
  catalog->CommitTransaction(*txn);
  EXPECT_EQ(catalog->FindTable(kept->schema_id, "made")->id, made->id);
  EXPECT_EQ(catalog->FindTable(kept->schema_id, "kept2")->id, kept->id);
  EXPECT_NE(catalog->FindTable(kept->schema_id, "other"), nullptr);
  // Stored: a reload has it all.
  auto reloaded = Catalog::Load(store.get());
  EXPECT_EQ(reloaded->FindTable(kept->schema_id, "made")->id, made->id);
  EXPECT_EQ(reloaded->FindTable(kept->schema_id, "kept2")->id, kept->id);
  EXPECT_TRUE(reloaded->FindSchema(kept->database_id, "s"));
}

TEST(CatalogTransactionTest, ADroppedTransactionLeavesNothing) {
  auto store = MemoryStore();
  auto catalog = Catalog::Load(store.get());
  TableRef kept = catalog->CreateTable(Table(*catalog, "kept"));
  ObjectId made_id = 0;
  {
    auto txn = catalog->BeginTransaction();
    made_id = txn->CreateTable(Table(*txn, "made"))->id;
    txn->DropObjects({}, {}, {kept->id});
    EXPECT_EQ(txn->DroppedByTransaction(), std::vector<ObjectId>{kept->id});
  }
  auto reloaded = Catalog::Load(store.get());
  EXPECT_EQ(reloaded->FindTable(kept->schema_id, "made"), nullptr);
  EXPECT_NE(reloaded->GetTable(kept->id), nullptr);
  // Its id is not given again.
  EXPECT_GT(reloaded->CreateTable(Table(*reloaded, "next"))->id, made_id);
}

TEST(CatalogTransactionTest, ConcurrentChangesToWhatItTouchedFailTheCommit) {
  auto store = MemoryStore();
  auto catalog = Catalog::Load(store.get());
  TableRef t = catalog->CreateTable(Table(*catalog, "t"));
  auto expect_conflict = [&](Catalog& txn) {
    try {
      catalog->CommitTransaction(txn);
      FAIL() << "a conflicting transaction committed";
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), sqlstate::kSerializationFailure);
    }
  };
  // The same table changed by both.
  auto txn = catalog->BeginTransaction();
  TableCatalog a = *t;
  a.comment = "txn";
  txn->AlterTable(a);
  TableCatalog b = *t;
  b.comment = "other";
  catalog->AlterTable(b);
  expect_conflict(*txn);
  EXPECT_EQ(catalog->GetTable(t->id)->comment, "other");
  // A name both take.
  auto txn2 = catalog->BeginTransaction();
  txn2->CreateTable(Table(*txn2, "same"));
  catalog->CreateTable(Table(*catalog, "same"));
  expect_conflict(*txn2);
  // A savepoint's copy goes on independently of the original.
  auto txn3 = catalog->BeginTransaction();
  txn3->CreateTable(Table(*txn3, "first"));
  auto savepoint = txn3->CopyTransaction();
  txn3->CreateTable(Table(*txn3, "second"));
  catalog->CommitTransaction(*savepoint);
  EXPECT_NE(catalog->FindTable(t->schema_id, "first"), nullptr);
  EXPECT_EQ(catalog->FindTable(t->schema_id, "second"), nullptr);
  // Changes elsewhere do not conflict.
  auto txn4 = catalog->BeginTransaction();
  txn4->CreateTable(Table(*txn4, "mine"));
  TableCatalog c = *catalog->GetTable(t->id);
  c.comment = "again";
  catalog->AlterTable(c);
  catalog->CommitTransaction(*txn4);
  EXPECT_EQ(catalog->GetTable(t->id)->comment, "again");
  EXPECT_NE(catalog->FindTable(t->schema_id, "mine"), nullptr);
}

}  // namespace
}  // namespace freshet

namespace freshet {
namespace {

TypeCatalog Enum(const Catalog& catalog, const std::string& name, const std::vector<std::string>& labels) {
  TypeCatalog t;
  t.database_id = catalog.FindDatabase("dev")->id;
  t.schema_id = catalog.FindSchema(t.database_id, "public")->id;
  t.name = name;
  for (size_t i = 0; i < labels.size(); i++) t.labels.push_back({int64_t(i + 1) * kEnumPositionGap, labels[i], 0});
  return t;
}

// Enum types: published to the registry as stored; labels a transaction
// adds are pending until it commits and gone when it is dropped; a type
// shares its schema's names with relations; a reload publishes them again.
TEST(CatalogTypeTest, EnumTypesInTheRegistryFollowTheCatalog) {
  auto store = MemoryStore();
  auto catalog = Catalog::Load(store.get());
  TypeCatalog mood = catalog->CreateType(Enum(*catalog, "mood_t", {"sad", "happy"}));
  EXPECT_NE(mood.array_id, 0u);
  EXPECT_NE(mood.labels[0].oid, mood.labels[1].oid);
  EXPECT_EQ(EnumPositionOf(mood.id, "happy"), 2 * kEnumPositionGap);
  EXPECT_EQ(EnumLabelText(mood.id, kEnumPositionGap), "sad");
  EXPECT_EQ(DataType::Enum(mood.id).ToString(), "mood_t");
  EXPECT_EQ(DataTypeFromPgOid(DataType::Enum(mood.id).PgOid()), DataType::Enum(mood.id));
  EXPECT_EQ(DataTypeFromPgOid(DataType::Array(DataType::Enum(mood.id)).PgOid()), DataType::Array(DataType::Enum(mood.id)));
  EXPECT_THROW(catalog->CreateTable(Table(*catalog, "mood_t")), SqlError);
  catalog->CreateTable(Table(*catalog, "rel"));
  EXPECT_THROW(catalog->CreateType(Enum(*catalog, "rel", {"x"})), SqlError);
  {
    auto txn = catalog->BeginTransaction();
    TypeCatalog more = *txn->GetType(mood.id);
    more.labels.push_back({kEnumPositionGap + kEnumPositionGap / 2, "meh", 0});
    txn->AlterType(more);
    TypeCatalog made = txn->CreateType(Enum(*txn, "made_t", {"a"}));
    EXPECT_EQ(EnumPositionOf(made.id, "a"), kEnumPositionGap);  // a type it made: usable in it
    try {
      EnumPositionOf(mood.id, "meh");
      ADD_FAILURE() << "a label the transaction added is usable before COMMIT";
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), std::string("55P04"));
    }
  }
  // Dropped: the label is gone again.
  try {
    EnumPositionOf(mood.id, "meh");
    ADD_FAILURE() << "a rolled-back label is still there";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), std::string("22P02"));
  }
  auto txn = catalog->BeginTransaction();
  TypeCatalog more = *txn->GetType(mood.id);
  more.labels.push_back({kEnumPositionGap + kEnumPositionGap / 2, "meh", 0});
  txn->AlterType(more);
  catalog->CommitTransaction(*txn);
  EXPECT_EQ(EnumPositionOf(mood.id, "meh"), kEnumPositionGap + kEnumPositionGap / 2);
  auto reloaded = Catalog::Load(store.get());
  ASSERT_TRUE(reloaded->FindType(mood.schema_id, "mood_t"));
  EXPECT_EQ(reloaded->GetType(mood.id)->labels.size(), 3u);
  EXPECT_EQ(reloaded->GetType(mood.id)->labels[1].label, "meh");  // by position
}

}  // namespace
}  // namespace freshet
