// The catalog's ALTER paths: AlterTable keeps the id and checks names;
// ReplaceTable swaps a rewritten relation in atomically; a rewrite table a
// crash left behind is dropped when the catalog is loaded again.
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
