// ALTER TABLE and ALTER ... RENAME: changes to a table's definition.
//
// The commands of one ALTER TABLE are applied in order to a copy of the
// table's definition, then stored at once. Changes that leave the stored
// rows as they are (DEFAULT, DROP NOT NULL, storage parameters, owner,
// renames) only update the catalog entry. Adding a column whose default is
// the same for every row (none, a constant, now()) leaves them too, as
// PostgreSQL's fast default: the column goes at the end of the stored
// layout and rows stored before read its default's value, computed once
// (ColumnCatalog::missing_cell); stream jobs and indexes on the table go on
// reading the columns they were planned with. SET NOT NULL, new CHECK
// constraints and such an added NOT NULL column scan the rows instead
// (StoreInPlace). Changes to what a row holds (dropping or retyping a
// column, adding one numbered by a sequence or with a volatile default,
// adding or dropping the primary key) rewrite the table:
//
//   1. writes to the table are held back (DmlManager::BlockWrites) and
//      every write already acknowledged is committed;
//   2. a new relation with the new definition, under a temporary name, is
//      filled by INSERT INTO new SELECT ... FROM old (Binder::
//      BindTableRewrite: each column from its old column, cast as an
//      assignment or by USING, or its DEFAULT), which checks NOT NULL and
//      the new primary key, and committed;
//   3. one catalog write gives the new relation the old name and drops the
//      old one with its data (Catalog::ReplaceTable). A crash before it
//      leaves the old table as it was (the half-filled one is dropped at
//      the next start).
//
// The held-back writes then fail (the relation they address is gone), as
// PostgreSQL's would wait for the lock and then see the table changed. A
// table read by stream jobs or indexes is not rewritten (0A000): their
// state is keyed by its old rows. Adding a unique constraint or unique
// index is no rewrite: its index is filled from the stored rows in place
// (StoreInPlace), unless a transaction block wrote the table itself (its
// writes are not stored yet; the block rewrites the table instead).
//
// In a transaction block the catalog changes are the block's (stored at
// its COMMIT, see Session); a rewrite's new relation is made outside the
// block's catalog (dropped if the block rolls back), filled from the
// table's rows and the block's own writes to it, and the table's writes
// stay blocked until the block ends.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "batch/executor_builder.h"
#include "binder/binder.h"
#include "catalog/temp_schema.h"
#include "planner/stream_plan_codec.h"
#include "catalog/index_definition.h"
#include "catalog/storage_parameters.h"
#include "common/encoding.h"
#include "common/error.h"
#include "common/identifier.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/handler/dependent_definitions.h"
#include "frontend/handler/table_definition.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"
#include "meta/sequences.h"
#include "expr/function_registry.h"
#include "planner/optimizer.h"
#include "storage/meta_store.h"
#include "storage/state_store.h"
#include "storage/write_set.h"

namespace freshet {

namespace {

constexpr const char* kRowIdColumn = "_row_id";

// A table's next definition, built command by command. Its columns leave
// out the hidden row id (Finish adds it back when there is no primary key);
// `sources` says, for each, where a rewrite takes its values.
struct Alteration {
  TableCatalog next;
  std::vector<Binder::RewriteSource> sources;
  std::vector<std::string> pk_names;  // empty: keyed by a generated row id
  bool rewrite = false;
  // Unique constraints added (their index_id 0): their indexes are filled
  // from the stored rows without a rewrite (StoreInPlace), so stream jobs
  // reading the table are no obstacle; a transaction block that wrote the
  // table itself rewrites it instead (the fill reads committed rows only).
  bool fill_unique = false;
  // CHECK constraints the stored rows must pass (added, or VALIDATE
  // CONSTRAINT): a rewrite checks every row it writes, otherwise they are
  // checked by a scan (ValidateChecks).
  std::vector<std::string> to_validate;
  // Other tables whose foreign keys on this one a CASCADE dropped, as they
  // are to be stored after this table.
  std::map<ObjectId, TableCatalog> other_tables;
  // Sequences made for added serial and identity columns (the rewrite's
  // DEFAULT numbers the stored rows from them), by their column's name:
  // dropped if the alteration fails.
  std::map<ObjectId, std::string> new_sequences;
  // Columns added without a rewrite: the stored rows read the value of
  // their default, computed once (StoreInPlace), as PostgreSQL's fast
  // default. By name.
  std::vector<std::string> added_in_place;
  // Columns made NOT NULL without a rewrite (SET NOT NULL): the stored
  // rows are checked by a scan. By name.
  std::vector<std::string> not_null_to_validate;
  // Where the table's hidden row id is (-1: it has a primary key). Without
  // a rewrite the stored rows keep their layout: the row id stays there,
  // columns added go after it, and a column dropped without a rewrite
  // stays too, hidden (DropColumnInPlace).
  int row_id_at = -1;
  // Sequences owned by columns dropped without a rewrite: dropped with them.
  std::vector<int> dropped_sequence_columns;
  // Indexes keyed by a column dropped without a rewrite: dropped with it,
  // as PostgreSQL drops them.
  std::vector<ObjectId> dropped_indexes;
  // Columns whose type ALTER TYPE changed without a rewrite (a longer
  // varchar, text, a wider integer: the stored values are valid and
  // stored alike; WidensWithoutRewrite), by name: the indexes holding them
  // follow (RetypeIndexes).
  std::vector<std::string> retyped_in_place;

  // The distribution key, as positions in the primary key: without a
  // rewrite the stored rows keep their vnodes (a table made before
  // TableDistributionKey hashes its whole key).
  std::vector<size_t> dist_key_in_pk;

  explicit Alteration(const TableCatalog& t) : next(t), row_id_at(t.row_id_index) {
    for (int k : t.dist_key)
      dist_key_in_pk.push_back(size_t(std::find(t.pk.begin(), t.pk.end(), k) - t.pk.begin()));
    next.columns.clear();
    for (size_t i = 0; i < t.columns.size(); i++) {
      if (static_cast<int>(i) == t.row_id_index) continue;
      next.columns.push_back(t.columns[i]);
      sources.push_back({static_cast<int>(i), nullptr});
    }
    if (t.row_id_index < 0)
      for (int k : t.pk) pk_names.push_back(t.columns[k].name);
    if (t.watermark_column >= 0) watermark = t.columns[t.watermark_column];
    if (t.version_column >= 0) version = t.columns[t.version_column];
  }
  // The column WITH VERSION COLUMN names (ON CONFLICT), found again by name.
  std::optional<ColumnCatalog> version;
  // The column WATERMARK FOR names: its expression reads it by name.
  std::optional<ColumnCatalog> watermark;

  int Find(const std::string& name) const {
    for (size_t i = 0; i < next.columns.size(); i++)
      if (next.columns[i].name == name) return static_cast<int>(i);
    return -1;
  }

  int Require(const std::string& name) const {
    int i = Find(name);
    if (i < 0)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", name, next.name);
    return i;
  }

  bool InPrimaryKey(const std::string& name) const {
    return std::find(pk_names.begin(), pk_names.end(), name) != pk_names.end();
  }

  // The definition to store: the row id back when there is no key.
  TableCatalog Finish() const {
    TableCatalog t = next;
    // A rewrite writes the live columns only: dropped ones go.
    if (rewrite) std::erase_if(t.columns, [](const ColumnCatalog& c) { return c.hidden; });
    t.pk.clear();
    t.row_id_index = -1;
    for (const auto& name : pk_names) {
      int i = t.ColumnIndex(name);
      t.pk.push_back(i);
      t.columns[i].not_null = true;
    }
    if (pk_names.empty()) {
      int at = !rewrite && row_id_at >= 0 ? row_id_at : static_cast<int>(t.columns.size());
      t.columns.insert(t.columns.begin() + at, ColumnCatalog{kRowIdColumn, DataType::Int64(), true, true, ""});
      t.row_id_index = at;
      t.pk = {at};
    }
    t.dist_key = TableDistributionKey(t.pk);
    if (!rewrite) {
      t.dist_key.clear();
      for (size_t p : dist_key_in_pk) t.dist_key.push_back(t.pk.at(p));
    }
    if (watermark) {
      t.watermark_column = t.ColumnIndex(watermark->name);
      if (t.watermark_column < 0 || t.columns[t.watermark_column].hidden ||
          t.columns[t.watermark_column].type != watermark->type)
        FRESHET_THROW(sqlstate::kFeatureNotSupported,
                      "column \"{}\" of relation \"{}\" has a watermark (WATERMARK FOR): it cannot be dropped "
                      "or changed in type",
                      watermark->name, t.name);
    }
    if (!t.on_conflict.empty() && pk_names.empty())
      FRESHET_THROW(sqlstate::kFeatureNotSupported,
                    "table \"{}\" resolves duplicate keys (ON CONFLICT): its primary key cannot be dropped", t.name);
    if (version) {
      t.version_column = t.ColumnIndex(version->name);
      if (t.version_column < 0 || t.columns[t.version_column].hidden)
        FRESHET_THROW(sqlstate::kFeatureNotSupported,
                      "column \"{}\" of relation \"{}\" is its version column (WITH VERSION COLUMN): it cannot be dropped",
                      version->name, t.name);
    }
    t.definition = NormalizedCreateTable(t);
    return t;
  }
};

std::string ConstraintName(const TableCatalog& t) { return t.name + "_pkey"; }

void AddPrimaryKey(Alteration* a, const PgQuery__Constraint* c) {
  if (!a->pk_names.empty())
    FRESHET_THROW(sqlstate::kInvalidTableDefinition, "multiple primary keys for table \"{}\" are not allowed",
                  a->next.name);
  std::vector<std::string> names;
  for (size_t k = 0; k < c->n_keys; k++) {
    std::string name = StringOf(c->keys[k]);
    if (a->Find(name) < 0) FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in key does not exist", name);
    if (std::find(names.begin(), names.end(), name) != names.end())
      FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" appears twice in primary key constraint", name);
    names.push_back(name);
  }
  a->pk_names = names;
  a->rewrite = true;
}

// The columns of the table being altered that foreign key `fk` (on it)
// references: its unique key's, or the primary key's.
std::vector<std::string> ReferencedNames(const Alteration& a, const ConstraintCatalog& fk) {
  return fk.ref_columns.empty() ? a.pk_names : fk.ref_columns;
}

// The foreign keys (this table's own and other tables') that reference
// the key of the table being altered that `depends` picks, by the names of
// the columns they reference. Without CASCADE: 2BP01 with `message` and,
// as PostgreSQL's DETAIL, what each depends on (`depends_on`). With it:
// dropped (PostgreSQL's NOTICE), other tables' stored after this one.
void DropDependentForeignKeys(const HandlerArgs& args, Alteration* a, bool cascade,
                              const std::function<bool(const std::vector<std::string>&)>& depends,
                              const std::string& message, const std::string& depends_on) {
  auto visit = [&](TableCatalog* table) {
    std::erase_if(table->constraints, [&](const ConstraintCatalog& fk) {
      if (fk.type != 'f' || !(fk.ref_table == a->next.id || (table == &a->next && fk.ref_table == 0))) return false;
      if (!depends(ReferencedNames(*a, fk))) return false;
      if (!cascade)
        throw SqlError(sqlstate::kDependentObjectsStillExist, message)
            .WithDetail(fmt::format("constraint {} on table {} depends on {}", fk.name, table->name, depends_on))
            .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
      args.sink->Notice(fmt::format("drop cascades to constraint {} on table {}", fk.name, table->name));
      return true;
    });
  };
  visit(&a->next);
  for (const auto& other : args.session->DdlCatalog()->ListTables(a->next.database_id)) {
    if (other->id == a->next.id) continue;
    TableCatalog changed = a->other_tables.count(other->id) ? a->other_tables.at(other->id) : *other;
    size_t before = changed.constraints.size();
    visit(&changed);
    if (changed.constraints.size() != before) a->other_tables[other->id] = std::move(changed);
  }
}

// What dropping unique key `key` of the altered table does to the foreign
// keys referencing it (DROP CONSTRAINT, DROP INDEX).
void DropForeignKeysOnUniqueKey(const HandlerArgs& args, Alteration* a, const ConstraintCatalog& key, bool cascade,
                                const std::string& message) {
  const std::string name = key.name;  // `key` may move as constraints are dropped
  DropDependentForeignKeys(
      args, a, cascade,
      [&](const std::vector<std::string>& referenced) {
        const ConstraintCatalog* found = a->next.FindUniqueKey(referenced);
        return found && found->name == name;
      },
      message, "index " + name);
}

// Whether column `c`'s default may give each row another value (random(),
// nextval(), clock_timestamp()...): PostgreSQL's volatile functions.
bool HasVolatileDefault(const HandlerArgs& args, const ColumnCatalog& c) {
  if (c.default_expr.empty()) return false;
  ExprPtr e = Binder(args.session->BinderContextFor(args.stmt, nullptr)).BindColumnDefault(c);
  std::function<bool(const Expression&)> volatile_in = [&](const Expression& x) {
    if (x.kind() == Expression::Kind::kSubquery) return true;
    if (x.kind() == Expression::Kind::kFunction &&
        IsVolatileFunction(static_cast<const FunctionExpr&>(x).function()->name))
      return true;
    for (const auto& child : x.children())
      if (child && volatile_in(*child)) return true;
    return false;
  };
  return volatile_in(*e);
}

// DROP COLUMN of a table that indexes read, without a rewrite (which
// they would refuse), as PostgreSQL's attisdropped: the column stays in
// the stored layout, hidden under a name no one writes
// ("........pg.dropped.N........"), without default or NOT NULL, so new
// rows hold NULL there; the indexes go on with the columns they were made
// with, and no statement sees it again; those keyed by the column go
// with it (Alteration::dropped_indexes), as in PostgreSQL. Materialized
// views and sinks reading the table, directly or through views, go on
// too when they do not read the column (JobReadsColumn: their definition
// planned again without it gives their plan); one that reads it is 2BP01,
// as PostgreSQL's views, or dropped with CASCADE (with what depends on
// it). False when nothing but views reads the table,
// for a rewrite.
// Whether every value of type `from` is one of type `to`, stored alike,
// so that ALTER TYPE needs no rewrite (as PostgreSQL's binary-coercible
// changes): varchar(n) or text to a varchar at least as long, or text; an
// integer to a wider integer, real to double precision (rows and keys
// hold every integer as 64 bits and every float as a double).
bool WidensWithoutRewrite(const DataType& from, const DataType& to) {
  auto integer_rank = [](const DataType& t) {
    return t.id == TypeId::kInt16 ? 1 : t.id == TypeId::kInt32 ? 2 : t.id == TypeId::kInt64 ? 3 : 0;
  };
  if (integer_rank(from) && integer_rank(to)) return integer_rank(to) >= integer_rank(from);
  if (from.id == TypeId::kFloat32 && to.id == TypeId::kFloat64) return true;
  if (from.id != TypeId::kVarchar || to.id != TypeId::kVarchar) return false;
  auto length = [](const DataType& t) { return t.precision; };  // -1 unbounded, kTextMarker text
  auto unbounded = [&](const DataType& t) { return t == DataType::Varchar() || t.IsText(); };
  auto plain = [&](const DataType& t) { return unbounded(t) || length(t) > 0; };  // no json & co.
  if (!plain(from) || !plain(to)) return false;
  if (unbounded(to)) return true;
  return !unbounded(from) && length(to) >= length(from);
}

// Whether an expression's text reads column `name`.
bool TextReads(const std::string& expr, const std::string& name) {
  if (expr.empty()) return false;
  std::vector<std::string> read = ColumnsInExpression(expr);
  return std::find(read.begin(), read.end(), name) != read.end();
}

// Whether a unique index's expressions read column `name`.
bool ExpressionsRead(const ConstraintCatalog& c, const std::string& name) {
  return std::any_of(c.expressions.begin(), c.expressions.end(), [&](const std::string& e) { return TextReads(e, name); });
}

void ApplyCommand(const HandlerArgs& args, const PgQuery__AlterTableCmd* cmd, Alteration* a);

// The generated columns whose expressions read column `name`: 2BP01 as
// PostgreSQL's, or dropped with CASCADE.
void DropGeneratedReading(const HandlerArgs& args, Alteration* a, const std::string& name, bool cascade) {
  for (size_t k = 0; k < a->next.columns.size(); k++) {
    const ColumnCatalog& col = a->next.columns[k];
    if (col.name == name || !TextReads(col.generated, name)) continue;
    if (!cascade)
      throw SqlError(sqlstate::kDependentObjectsStillExist,
                     fmt::format("cannot drop column {} of table {} because other objects depend on it", name, a->next.name))
          .WithDetail(fmt::format("column {} of table {} depends on column {} of table {}", col.name, a->next.name, name,
                                  a->next.name))
          .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
    args.sink->Notice(fmt::format("drop cascades to column {} of table {}", col.name, a->next.name));
    const std::string dependent = col.name;
    PgQuery__AlterTableCmd drop = PG_QUERY__ALTER_TABLE_CMD__INIT;
    drop.subtype = PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn;
    drop.name = const_cast<char*>(dependent.c_str());
    drop.behavior = PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
    ApplyCommand(args, &drop, a);
    k = static_cast<size_t>(-1);  // the columns moved: from the start again
  }
}

// Drops `readers` (views, jobs reading a dropped column) and what depends
// on them, with PostgreSQL's NOTICEs.
void DropCascading(const HandlerArgs& args, const std::vector<TableRef>& readers) {
  if (readers.empty()) return;
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<ObjectId> ids = DropClosure(args, readers, /*cascade=*/true, RelationKindName(readers[0]->kind));
  for (ObjectId id : ids)
    if (TableRef t = catalog->GetTable(id); t && t->IsUserVisible() && t->kind != RelationKind::kSequence)
      args.sink->Notice(fmt::format("drop cascades to {} {}", RelationKindName(t->kind), t->name));
  DropRelations(args, ids);
}

// The views reading column `i` of the table (by name, *, USING): 2BP01 as
// PostgreSQL's, or dropped with CASCADE (with what depends on them).
void DropViewsReadingColumn(const HandlerArgs& args, const Alteration& a, int i, bool cascade) {
  const int stored = a.sources[i].old_column;
  if (stored < 0) return;  // added by this statement
  std::vector<TableRef> views = ViewsReadingColumn(args, a.next.id, stored);
  if (views.empty()) return;
  const std::string& name = a.next.columns[i].name;
  if (!cascade) {
    std::string detail;
    for (const auto& v : views)
      detail += fmt::format("{}view {} depends on column {} of table {}", detail.empty() ? "" : "\n", v->name, name,
                            a.next.name);
    throw SqlError(sqlstate::kDependentObjectsStillExist,
                   fmt::format("cannot drop column {} of table {} because other objects depend on it", name, a.next.name))
        .WithDetail(detail)
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  DropCascading(args, views);
}

// PostgreSQL's name for a dropped column (no statement can name it).
std::string DroppedColumnName(int stored) { return fmt::format("........pg.dropped.{}........", stored + 1); }

// A copy of `catalog` in which column `stored` of `table` is hidden under
// that name: what JobReadsColumn plans a job's definition against.
std::unique_ptr<Catalog> CatalogWithColumnHidden(Catalog& catalog, const TableCatalog& table, int stored) {
  std::unique_ptr<Catalog> altered = catalog.BeginTransaction();
  TableCatalog hidden = table;
  hidden.columns[stored].name = DroppedColumnName(stored);
  hidden.columns[stored].hidden = true;
  altered->AlterTable(hidden);
  return altered;
}

bool DropColumnInPlace(const HandlerArgs& args, Alteration* a, int i, bool cascade) {
  const int stored = a->sources[i].old_column;  // its place in the stored rows
  if (stored < 0) return false;                 // added by this statement
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<TableRef> dependents, jobs;
  std::vector<TableRef> pending = catalog->Dependents(a->next.id);
  while (!pending.empty()) {
    TableRef dep = pending.back();
    pending.pop_back();
    if (dep->kind == RelationKind::kView) {
      for (const auto& reader : catalog->Dependents(dep->id)) pending.push_back(reader);
    } else if (dep->kind == RelationKind::kIndex) {
      if (!dep->depends_on.empty() && dep->depends_on[0] == a->next.id) dependents.push_back(dep);
    } else if (IsStreamJob(*dep)) {
      jobs.push_back(dep);
    }
  }
  if (dependents.empty() && jobs.empty()) return false;  // a rewrite is as cheap, and leaves nothing behind
  const std::string dropped_name = DroppedColumnName(stored);
  const std::string& name = a->next.columns[i].name;
  if (!jobs.empty()) {
    std::unique_ptr<Catalog> altered = CatalogWithColumnHidden(*catalog, *catalog->GetTable(a->next.id), stored);
    std::vector<TableRef> readers;
    for (const auto& job : jobs) {
      if (!JobReadsColumn(*altered, *job, args.session->eval())) continue;
      if (job->stream_plan.empty() && !cascade)
        FRESHET_THROW(sqlstate::kFeatureNotSupported, "cannot drop column {} of table {}: {} \"{}\" was made by an older version",
                      name, a->next.name, RelationKindName(job->kind), job->name);
      if (!cascade)
        throw SqlError(sqlstate::kDependentObjectsStillExist,
                       fmt::format("cannot drop column {} of table {} because other objects depend on it", name, a->next.name))
            .WithDetail(fmt::format("{} {} depends on column {} of table {}", RelationKindName(job->kind), job->name,
                                    name, a->next.name))
            .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
      readers.push_back(job);
    }
    // CASCADE: the jobs that read it go first, with what depends on them.
    DropCascading(args, readers);
  }
  std::vector<ObjectId> keyed;
  for (const auto& dep : dependents) {
    if (std::find(a->dropped_indexes.begin(), a->dropped_indexes.end(), dep->id) != a->dropped_indexes.end()) continue;
    // An index's key columns are its distribution key, at the table's
    // column positions (it holds the table's columns in their order); its
    // expressions and predicate read columns by name.
    std::shared_ptr<const ConstraintCatalog> elements = DescribeUserIndex(*dep);
    std::vector<int> keys = IndexElementColumns(*dep);
    if (std::find(keys.begin(), keys.end(), stored) != keys.end() ||
        std::find(elements->include.begin(), elements->include.end(), a->next.columns[i].name) != elements->include.end() ||
        ExpressionsRead(*elements, a->next.columns[i].name) || TextReads(elements->predicate, a->next.columns[i].name))
      keyed.push_back(dep->id);
  }
  a->dropped_indexes.insert(a->dropped_indexes.end(), keyed.begin(), keyed.end());
  ColumnCatalog& col = a->next.columns[i];
  if (col.default_expr.find("nextval(") != std::string::npos || col.identity) a->dropped_sequence_columns.push_back(stored);
  col.name = dropped_name;
  col.hidden = true;
  col.not_null = false;
  col.default_expr.clear();
  col.identity = '\0';
  col.comment.clear();
  return true;
}

void ApplyCommand(const HandlerArgs& args, const PgQuery__AlterTableCmd* cmd, Alteration* a) {
  Session* session = args.session;
  TableCatalog& next = a->next;
  switch (cmd->subtype) {
    case PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn: {
      BoundColumn bound = BindColumnDef(session, args.stmt, cmd->def->column_def);
      if (a->Find(bound.column.name) >= 0) {
        if (cmd->missing_ok) {
          args.sink->Notice(fmt::format("column \"{}\" of relation \"{}\" already exists, skipping", bound.column.name,
                                        next.name));
          return;
        }
        FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" of relation \"{}\" already exists", bound.column.name,
                      next.name);
      }
      if (bound.owns_sequence) {
        Catalog* catalog = session->DdlCatalog();
        std::vector<std::string> taken;
        for (const auto& [id, column] : a->new_sequences) taken.push_back(catalog->GetTable(id)->name);
        TableRef seq = catalog->CreateTable(OwnedSequence(args, *catalog, next, catalog->GetSchema(next.schema_id)->name,
                                                          static_cast<int>(next.columns.size()), taken, &bound));
        a->new_sequences[seq->id] = bound.column.name;
      }
      next.columns.push_back(bound.column);
      a->sources.push_back({-1, nullptr});
      if (bound.generated) {
        // Its values computed for every row: the rewrite's inserts do it.
        BindGeneratedColumn(session, args.stmt, &next, static_cast<int>(next.columns.size()) - 1, bound);
        a->rewrite = true;
      }
      for (const PgQuery__Constraint* c : bound.checks) {
        ConstraintCatalog check = BindCheckConstraint(args, a->Finish(), c);
        if (check.validated) a->to_validate.push_back(check.name);
        next.constraints.push_back(std::move(check));
      }
      for (const PgQuery__Constraint* c : bound.uniques) {
        next.constraints.push_back(BindUniqueConstraint(args, a->Finish(), {bound.column.name}, c));
        a->rewrite = true;  // which fills its index
      }
      if (bound.primary_key) {
        a->rewrite = true;
        PgQuery__Constraint pk = PG_QUERY__CONSTRAINT__INIT;
        PgQuery__String name = PG_QUERY__STRING__INIT;
        name.sval = const_cast<char*>(cmd->def->column_def->colname);
        PgQuery__Node name_node = PG_QUERY__NODE__INIT;
        name_node.node_case = PG_QUERY__NODE__NODE_STRING;
        name_node.string = &name;
        PgQuery__Node* keys[1] = {&name_node};
        pk.n_keys = 1;
        pk.keys = keys;
        AddPrimaryKey(a, &pk);
      }
      // A column numbered from a sequence, or whose default differs from
      // row to row, is filled row by row (PostgreSQL rewrites then too).
      if (bound.owns_sequence || HasVolatileDefault(args, bound.column)) a->rewrite = true;
      else a->added_in_place.push_back(bound.column.name);
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_AddIdentity: {
      // ALTER COLUMN ... ADD GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY
      // [(options)]: a sequence of its own, as for a new identity column;
      // the stored rows stay as they are.
      int i = a->Require(cmd->name);
      ColumnCatalog& col = next.columns[i];
      if (col.identity)
        FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "column \"{}\" of relation \"{}\" is already an identity column",
                      col.name, next.name);
      if (!col.not_null && !a->InPrimaryKey(col.name))
        FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState,
                      "column \"{}\" of relation \"{}\" must be declared NOT NULL before identity can be added", col.name,
                      next.name);
      if (!col.default_expr.empty())
        FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "column \"{}\" of relation \"{}\" already has a default value",
                      col.name, next.name);
      if (col.type.id != TypeId::kInt16 && col.type.id != TypeId::kInt32 && col.type.id != TypeId::kInt64)
        FRESHET_THROW(sqlstate::kInvalidParameterValue, "identity column type must be smallint, integer, or bigint");
      const PgQuery__Constraint* c = cmd->def->constraint;
      BoundColumn bound;
      bound.column = col;
      bound.owns_sequence = true;
      bound.identity = c;
      Catalog* catalog = session->DdlCatalog();
      std::vector<std::string> taken;
      for (const auto& [id, column] : a->new_sequences) taken.push_back(catalog->GetTable(id)->name);
      TableRef seq = catalog->CreateTable(
          OwnedSequence(args, *catalog, next, catalog->GetSchema(next.schema_id)->name, i, taken, &bound));
      a->new_sequences[seq->id] = col.name;
      col.identity = c->generated_when && *c->generated_when == 'a' ? 'a' : 'd';
      col.default_expr = bound.column.default_expr;
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn: {
      int i = a->Find(cmd->name);
      if (i < 0) {
        if (cmd->missing_ok) {
          args.sink->Notice(
              fmt::format("column \"{}\" of relation \"{}\" does not exist, skipping", cmd->name, next.name));
          return;
        }
        a->Require(cmd->name);
      }
      // As PostgreSQL: foreign keys referencing a key holding the column
      // keep it (unless CASCADE); the primary key goes with a column of it,
      // and so do the table's foreign keys and unique constraints over it.
      const bool cascade = cmd->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
      DropDependentForeignKeys(
          args, a, cascade,
          [&](const std::vector<std::string>& referenced) {
            return std::find(referenced.begin(), referenced.end(), cmd->name) != referenced.end();
          },
          fmt::format("cannot drop column {} of table {} because other objects depend on it", cmd->name, next.name),
          fmt::format("column {} of table {}", cmd->name, next.name));
      std::erase_if(next.constraints, [&](const ConstraintCatalog& fk) {
        return std::find(fk.columns.begin(), fk.columns.end(), cmd->name) != fk.columns.end() ||
               std::find(fk.include.begin(), fk.include.end(), cmd->name) != fk.include.end() ||
               ExpressionsRead(fk, cmd->name);
      });
      DropGeneratedReading(args, a, cmd->name, cascade);
      i = a->Find(cmd->name);  // columns before it may have gone
      DropViewsReadingColumn(args, *a, i, cascade);
      if (!a->InPrimaryKey(cmd->name) && DropColumnInPlace(args, a, i, cascade)) return;
      if (a->InPrimaryKey(cmd->name)) a->pk_names.clear();
      next.columns.erase(next.columns.begin() + i);
      a->sources.erase(a->sources.begin() + i);
      a->rewrite = true;
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_DropExpression: {
      // The column keeps its stored values and becomes an ordinary one.
      ColumnCatalog& col = next.columns[a->Require(cmd->name)];
      if (col.generated.empty()) {
        if (cmd->missing_ok) {
          args.sink->Notice(fmt::format("column \"{}\" of relation \"{}\" is not a stored generated column, skipping",
                                        col.name, next.name));
          return;
        }
        FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "column \"{}\" of relation \"{}\" is not a stored generated column",
                      col.name, next.name);
      }
      col.generated.clear();
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_ColumnDefault: {
      ColumnCatalog& col = next.columns[a->Require(cmd->name)];
      if (!col.generated.empty() && cmd->def)
        FRESHET_THROW(sqlstate::kSyntaxError, "column \"{}\" of relation \"{}\" is a generated column", col.name, next.name);
      if (!cmd->def) {
        col.default_expr.clear();
        return;
      }
      col.default_expr = ColumnDefaultText(session, args.stmt, col, cmd->def, DeparseExpression(cmd->def));
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_DropNotNull: {
      ColumnCatalog& col = next.columns[a->Require(cmd->name)];
      if (a->InPrimaryKey(col.name))
        FRESHET_THROW(sqlstate::kInvalidTableDefinition, "column \"{}\" is in a primary key", col.name);
      col.not_null = false;
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_SetStatistics: {
      // The planner keeps no statistics to size: checked as PostgreSQL
      // checks it, and not kept (pg_attribute.attstattarget stays -1).
      a->Require(cmd->name);
      int64_t target = cmd->def && cmd->def->node_case == PG_QUERY__NODE__NODE_INTEGER ? cmd->def->integer->ival : -1;
      if (target < -1) FRESHET_THROW(sqlstate::kInvalidParameterValue, "statistics target {} is too low", target);
      if (target > 10000) args.sink->Warning("lowering statistics target to 10000");
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_SetStorage: {
      // How PostgreSQL would TOAST the column: values here are stored
      // whole whatever it says; checked and not kept (attstorage stays).
      const ColumnCatalog& col = next.columns[a->Require(cmd->name)];
      std::string storage = cmd->def ? LowerAscii(StringOf(cmd->def)) : "";
      if (storage != "plain" && storage != "external" && storage != "extended" && storage != "main")
        FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid storage type \"{}\"", storage);
      if (storage != "plain" && col.type.PgTypeLen() > 0)
        FRESHET_THROW(sqlstate::kFeatureNotSupported, "column data type {} can only have storage PLAIN", col.type.ToString());
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_SetNotNull: {
      ColumnCatalog& col = next.columns[a->Require(cmd->name)];
      // The stored rows are scanned for a NULL (a rewrite checks them anyway).
      if (!col.not_null) a->not_null_to_validate.push_back(col.name);
      col.not_null = true;
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_AlterColumnType: {
      int i = a->Require(cmd->name);
      // As PostgreSQL: a view's column would change type under it.
      if (a->sources[i].old_column >= 0)
        if (auto views = ViewsReadingColumn(args, next.id, a->sources[i].old_column); !views.empty())
          throw SqlError(sqlstate::kFeatureNotSupported, "cannot alter type of a column used by a view or rule")
              .WithDetail(fmt::format("rule _RETURN on view {} depends on column \"{}\"", views[0]->name, cmd->name));
      const PgQuery__ColumnDef* cd = cmd->def->column_def;
      ColumnCatalog& col = next.columns[i];
      const DataType old_type = col.type;
      Binder::BoundType bound = Binder(session->BinderContextFor(args.stmt, nullptr)).BindColumnType(cd->type_name);
      const ObjectId old_domain = col.domain;
      col.type = bound.type;
      col.domain = bound.domain;
      if (cd->raw_default) {
        if (a->sources[i].old_column < 0)
          throw SqlError(sqlstate::kFeatureNotSupported,
                         "ALTER TYPE ... USING of a column added by the same statement is not supported");
        a->sources[i].using_expr = cd->raw_default;
      }
      // A generated column computes with the type it was made with (0A000
      // as PostgreSQL's, which recomputes it).
      for (const auto& other : next.columns)
        if (TextReads(other.generated, cmd->name))
          throw SqlError(sqlstate::kFeatureNotSupported, "cannot alter type of a column used by a generated column")
              .WithDetail(fmt::format("Column \"{}\" is used by generated column \"{}\".", cmd->name, other.name));
      // A longer varchar or a wider integer (what ORMs' migrations emit):
      // the stored rows stay as they are, as in PostgreSQL, and so does
      // what is computed from them.
      // (Into a domain the rows are checked: the rewrite writes them again.)
      if (!cd->raw_default && a->sources[i].old_column >= 0 && WidensWithoutRewrite(old_type, col.type) &&
          (!col.domain || col.domain == old_domain)) {
        a->retyped_in_place.push_back(col.name);
        return;
      }
      // Otherwise the values change: what is computed from them would
      // have to be computed anew.
      for (const auto& c : next.constraints)
        if (ExpressionsRead(c, cmd->name))
          FRESHET_THROW(sqlstate::kFeatureNotSupported,
                        "cannot alter type of column \"{}\" because index \"{}\" has an expression over it", cmd->name,
                        c.name);
      a->rewrite = true;
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraint: {
      const PgQuery__Constraint* c = cmd->def->constraint;
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY) return AddPrimaryKey(a, c);
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN) {
        std::vector<std::string> columns;
        for (size_t k = 0; k < c->n_fk_attrs; k++) columns.push_back(StringOf(c->fk_attrs[k]));
        ConstraintCatalog fk = BindForeignKey(args, a->Finish(), columns, c);
        args.sink->Notice(ForeignKeyNotice(fk));
        next.constraints.push_back(std::move(fk));
        return;
      }
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE) {
        next.constraints.push_back(BindUniqueConstraint(args, a->Finish(), ConstraintKeys(c), c));
        a->fill_unique = true;
        return;
      }
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_CHECK) {
        ConstraintCatalog check = BindCheckConstraint(args, a->Finish(), c);
        if (check.validated) a->to_validate.push_back(check.name);
        next.constraints.push_back(std::move(check));
        return;
      }
      throw SqlError(sqlstate::kFeatureNotSupported,
                     "only PRIMARY KEY, UNIQUE, FOREIGN KEY and CHECK constraints can be added yet");
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_ValidateConstraint: {
      for (auto& c : next.constraints)
        if (c.name == cmd->name) {
          if (c.type == 'c' && !c.validated) a->to_validate.push_back(c.name);
          c.validated = true;
          return;
        }
      FRESHET_THROW(sqlstate::kUndefinedObject, "constraint \"{}\" of relation \"{}\" does not exist", cmd->name,
                    next.name);
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_DropConstraint: {
      // As PostgreSQL: a key referenced by foreign keys only with CASCADE.
      const bool cascade = cmd->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
      const std::string refused =
          fmt::format("cannot drop constraint {} on table {} because other objects depend on it", cmd->name, next.name);
      for (auto it = next.constraints.begin(); it != next.constraints.end(); ++it)
        if (it->name == cmd->name && !it->index_only) {
          if (it->type == 'u') {
            const std::string name = it->name;
            DropForeignKeysOnUniqueKey(args, a, *it, cascade, refused);
            std::erase_if(next.constraints, [&](const ConstraintCatalog& k) { return k.name == name && !k.index_only; });
          } else {
            next.constraints.erase(it);
          }
          return;
        }
      if (!a->pk_names.empty() && cmd->name == ConstraintName(next)) {
        DropDependentForeignKeys(
            args, a, cascade, [&](const std::vector<std::string>& referenced) { return referenced == a->pk_names; },
            refused, "index " + std::string(cmd->name));
        a->pk_names.clear();
        a->rewrite = true;
        return;
      }
      if (cmd->missing_ok) {
        args.sink->Notice(
            fmt::format("constraint \"{}\" of relation \"{}\" does not exist, skipping", cmd->name, next.name));
        return;
      }
      FRESHET_THROW(sqlstate::kUndefinedObject, "constraint \"{}\" of relation \"{}\" does not exist", cmd->name,
                    next.name);
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_SetRelOptions:
    case PG_QUERY__ALTER_TABLE_TYPE__AT_ResetRelOptions: {
      bool set = cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_SetRelOptions;
      std::vector<std::pair<std::string, std::string>> changes;
      std::vector<std::string> reset;
      const PgQuery__List* list = cmd->def->list;
      for (size_t i = 0; i < list->n_items; i++) {
        const PgQuery__DefElem* d = list->items[i]->def_elem;
        std::string name = d->defnamespace && *d->defnamespace ? std::string(d->defnamespace) + "." + d->defname
                                                               : std::string(d->defname);
        if (set) changes.emplace_back(name, DefElemText(d));
        else reset.push_back(name);
      }
      next.storage_options = MergeStorageParameters(next.storage_options, changes, reset);
      return;
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_ChangeOwner: {
      const PgQuery__RoleSpec* role = cmd->newowner;
      std::string name = role->rolename && *role->rolename ? role->rolename : session->user();
      auto user = args.session->DdlCatalog()->FindUser(name);
      if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", name);
      next.owner = user->id;
      return;
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "this form of ALTER TABLE is not supported yet");
}

// Refuses a rewrite of `t` (a new relation replaces it) while materialized
// views or sinks read it: they keep state built from its rows and read its
// change stream. Views are bound anew; indexes are made again
// (RebuildIndexes).
void CheckRewritable(const HandlerArgs& args, const TableCatalog& t) {
  if (t.IsTimeSeries())
    throw SqlError(sqlstate::kFeatureNotSupported,
                   fmt::format("cannot alter time-series table \"{}\" in a way that rewrites its rows", t.name))
        .WithHint("Adding a column, renaming and SET/UNSET of its options are supported.");
  for (const auto& dep : args.session->DdlCatalog()->Dependents(t.id)) {
    if (dep->kind == RelationKind::kView || dep->kind == RelationKind::kIndex) continue;
    throw SqlError(sqlstate::kFeatureNotSupported,
                   fmt::format("cannot alter {} \"{}\" because {} \"{}\" depends on it", RelationKindName(t.kind),
                               t.name, RelationKindName(dep->kind), dep->name))
        .WithHint(fmt::format("Drop {} \"{}\" first, then create it again.", RelationKindName(dep->kind), dep->name));
  }
}

// A stored row fails check constraint `e` names (23514 from the writes).
SqlError CheckViolatedBySomeRow(const SqlError& e, const std::string& table) {
  // A domain's constraint says so itself, as PostgreSQL's.
  for (const auto& [field, value] : e.fields())
    if (field == 'd') return e;
  std::string constraint;
  for (const auto& [field, value] : e.fields())
    if (field == 'n') constraint = value;
  return SqlError(sqlstate::kCheckViolation,
                  fmt::format("check constraint \"{}\" of relation \"{}\" is violated by some row", constraint, table))
      .WithField('t', table)
      .WithField('n', constraint);
}

// 23505 from filling a new unique index as PostgreSQL's CREATE UNIQUE
// INDEX words it: "could not create unique index", DETAIL "Key (a)=(1) is
// duplicated.". `fallback`: the constraint to name when the error names
// none, or names `not_this` (a rewrite's new relation's own key).
SqlError CouldNotCreateUniqueIndex(const SqlError& e, const TableCatalog& final_table, const std::string& fallback,
                                   const std::string& not_this = "") {
  std::string detail = e.detail();
  if (auto at = detail.rfind(" already exists."); at != std::string::npos) detail.replace(at, 16, " is duplicated.");
  std::string constraint = fallback;
  for (const auto& [field, value] : e.fields())
    if (field == 'n' && value != not_this) constraint = value;
  return SqlError(sqlstate::kUniqueViolation, fmt::format("could not create unique index \"{}\"", constraint))
      .WithDetail(detail)
      .WithField('t', final_table.name)
      .WithField('n', constraint);
}

// Stores the alteration without a rewrite: the columns it added read
// their default's value, computed now (Alteration::added_in_place); the
// stored rows must pass its new CHECK constraints (Alteration::
// to_validate) and NOT NULL columns (a scan for a row that fails each);
// the indexes of its new unique constraints (index_id 0) are filled from
// them. Other sessions' writes to the table are held back meanwhile (in a
// transaction block, until it ends), as RewriteTable does. The indexes are
// committed before the catalog names them: a failure or the block's
// rollback drops their rows again; a crash between the two leaves them
// under ids nothing uses.
void StoreInPlace(const HandlerArgs& args, const TableRef& table, const Alteration& a) {
  Session* session = args.session;
  Instance* instance = args.instance();
  ObjectId database_id = session->database().id;
  TableCatalog final_table = a.Finish();
  // A transaction block's writes to it are checked too; those of a
  // multi-statement message's implicit block are not there yet.
  const bool in_block = session->DdlCatalog()->is_transaction();
  if (const WriteSet* pending = session->PendingWrites(); !in_block && pending && pending->Find(table->id))
    FRESHET_THROW(sqlstate::kObjectInUse,
                  "cannot ALTER TABLE \"{}\" because it is being used by active queries in this session", table->name);
  DmlManager* dml = instance->DmlFor(database_id);
  DatabaseEpochLoop* loop = instance->barriers()->ForDatabase(database_id);
  // In a transaction block, until it ends (the block's own writes pass).
  std::shared_ptr<void> blocked = dml->BlockWrites(table->id, session);
  if (dml->LastAppliedEpoch() > loop->committed_epoch()) loop->Flush();
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  auto run = [&](PlanPtr plan) {
    plan = OptimizePlan(std::move(plan));
    WriteSet writes;
    ExecContext ctx;
    PrepareExecContext(args, &writes, &ctx);
    ctx.pending = in_block ? session->PendingWrites() : nullptr;
    StateStore* store = instance->store();
    ctx.snapshot_source = [store] { return store->GetSnapshot(); };
    ExecutorPtr exec = BuildExecutor(*plan, ctx);
    DataChunk chunk;
    while (exec->Next(&chunk))
      if (chunk.num_rows() > 0) return true;
    return false;
  };
  // A job stored without its stream plan is planned again from its SQL at
  // the next start: with the new columns, which its state does not hold.
  if (!a.added_in_place.empty())
    for (const auto& dep : session->DdlCatalog()->Dependents(table->id))
      if (dep->kind != RelationKind::kView && dep->stream_plan.empty())
        FRESHET_THROW(sqlstate::kFeatureNotSupported,
                      "cannot add a column to table \"{}\" because {} \"{}\", made by an older version, depends on it",
                      table->name, RelationKindName(dep->kind), dep->name);
  // The added columns' value in the stored rows: their default, once.
  std::vector<std::string> not_null = a.not_null_to_validate;
  for (const std::string& name : a.added_in_place) {
    ColumnCatalog& col = final_table.columns[final_table.ColumnIndex(name)];
    if (!col.default_expr.empty()) {
      ExprPtr value = binder.BindColumnDefault(col);
      ExecContext ctx;
      WriteSet writes;
      PrepareExecContext(args, &writes, &ctx);
      Value v = value->EvalConstant(ctx.eval);
      if (!v.is_null()) {
        Vector cell(col.type);
        cell.Append(v);
        EncodeCell(cell, 0, &col.missing_cell);
      }
    }
    if (col.not_null && col.missing_cell.empty()) not_null.push_back(name);
  }
  // The rows as the new definition reads them.
  auto scan = [&] {
    std::vector<PlanColumn> schema;
    for (const auto& c : final_table.columns) schema.push_back({c.name, c.type, final_table.name, c.hidden});
    return std::make_unique<ScanNode>(std::make_shared<const TableCatalog>(final_table), std::move(schema));
  };
  for (const std::string& name : not_null) {
    const int column = final_table.ColumnIndex(name);
    std::vector<ExprPtr> operand;
    operand.push_back(std::make_unique<ColumnRefExpr>(column, final_table.columns[column].type));
    ExprPtr is_null = std::make_unique<OperatorExpr>(Expression::Kind::kIsNull, DataType::Boolean(), std::move(operand));
    if (run(std::make_unique<LimitNode>(std::make_unique<FilterNode>(scan(), std::move(is_null)), 1, 0)))
      throw SqlError(sqlstate::kNotNullViolation,
                     fmt::format("column \"{}\" of relation \"{}\" contains null values", name, final_table.name))
          .WithField('t', final_table.name)
          .WithField('c', name);
  }
  for (const CheckConstraint& check : binder.BindChecks(final_table)) {
    if (std::find(a.to_validate.begin(), a.to_validate.end(), check.name) == a.to_validate.end()) continue;
    // The rows for which the check is false (NULL passes).
    std::vector<ExprPtr> operand;
    operand.push_back(check.expr->Clone());
    ExprPtr fails = std::make_unique<OperatorExpr>(Expression::Kind::kNot, DataType::Boolean(), std::move(operand));
    if (run(std::make_unique<LimitNode>(std::make_unique<FilterNode>(scan(), std::move(fails)), 1, 0)))
      throw SqlError(sqlstate::kCheckViolation,
                     fmt::format("check constraint \"{}\" of relation \"{}\" is violated by some row", check.name,
                                 final_table.name))
          .WithField('t', final_table.name)
          .WithField('n', check.name);
  }
  std::vector<ObjectId> filled;
  StateStore* store = instance->store();
  auto discard = [dml, store](const std::vector<ObjectId>& ids) {
    MetaWrite drop;
    for (ObjectId id : ids) {
      dml->DropTable(id);
      drop.DropRelationData(id);
    }
    if (!ids.empty()) (void)store->CommitMeta(drop);  // on failure the rows stay, unused
  };
  try {
    const WriteSet* pending = session->PendingWrites();
    // A table the block made and wrote: no stored rows, the block's are
    // checked once the constraint is in its catalog.
    const bool block_rows = pending && pending->Find(table->id);
    // A table this block made has no stored rows to fill an index from
    // (and is not yet in the catalog the writes' manager reads).
    const bool made_in_block = session->DdlCatalog()->MadeInTransaction(table->id);
    std::string checked_name;
    for (ConstraintCatalog& c : final_table.constraints) {
      if (c.type != 'u' || c.index_id) continue;
      if (block_rows && !session->DdlCatalog()->MadeInTransaction(table->id))
        throw SqlError(sqlstate::kInternalError, "a unique index is filled in place only from committed rows");
      c.index_id = instance->catalog()->NewObjectId();
      filled.push_back(c.index_id);
      checked_name = c.name;
      if (block_rows || made_in_block) continue;
      try {
        dml->FillUniqueIndex(final_table, c);
      } catch (const SqlError& e) {
        if (e.code() != sqlstate::kUniqueViolation) throw;
        throw CouldNotCreateUniqueIndex(e, final_table, c.name);
      }
    }
    if (!filled.empty()) loop->Flush();  // the indexes, before the catalog names them
    session->DdlCatalog()->AlterTable(final_table);
    if (block_rows && !filled.empty()) {
      try {
        dml->CheckUnique(WriteSet(), *pending, session->DdlCatalog());
      } catch (const SqlError& e) {
        if (e.code() != sqlstate::kUniqueViolation) throw;
        throw CouldNotCreateUniqueIndex(e, final_table, checked_name);
      }
    }
  } catch (...) {
    discard(filled);
    throw;
  }
  if (in_block && !filled.empty()) session->OnDdlRollback([discard, filled] { discard(filled); });
  session->HoldUntilBlockEnds(std::move(blocked));
}

// CREATE INDEX again for each of `indexes` (of a table just rewritten,
// under the same name): an index on a column the rewrite dropped goes,
// as PostgreSQL drops it.
void RebuildIndexes(const HandlerArgs& args, const std::vector<TableRef>& indexes) {
  for (const TableRef& index : indexes) {
    std::vector<ParsedStatement> stmts = ParseSql(index->definition);
    if (stmts.size() != 1) continue;
    HandlerArgs again{args.session, stmts[0], args.sink};
    try {
      HandleCreateJob(again);
    } catch (const SqlError& e) {
      if (e.code() != std::string(sqlstate::kUndefinedColumn)) throw;
    }
  }
}

// Steps 1-3 of the header.
void RewriteTable(const HandlerArgs& args, const TableRef& old_table, const Alteration& a) {
  Session* session = args.session;
  Instance* instance = args.instance();
  // The new relation is made and filled outside the block's catalog (a
  // crash or a rollback drops it); the replacement is the block's DDL.
  Catalog* catalog = instance->catalog();
  Catalog* ddl = session->DdlCatalog();
  ObjectId database_id = session->database().id;
  // Indexes (stream jobs holding the table's columns) are made again on
  // the new relation, as PostgreSQL rebuilds its indexes; materialized
  // views and sinks refuse the rewrite.
  std::vector<TableRef> indexes;
  for (const TableRef& dep : ddl->Dependents(old_table->id))
    if (dep->kind == RelationKind::kIndex && !dep->depends_on.empty() && dep->depends_on[0] == old_table->id)
      indexes.push_back(dep);
  CheckRewritable(args, *old_table);
  // A transaction block's writes to it are rewritten too (and dropped from
  // the block at COMMIT); those of a multi-statement message's implicit
  // block are not there yet.
  if (const WriteSet* pending = session->PendingWrites();
      !ddl->is_transaction() && pending && pending->Find(old_table->id))
    FRESHET_THROW(sqlstate::kObjectInUse,
                  "cannot ALTER TABLE \"{}\" because it is being used by active queries in this session",
                  old_table->name);
  TableCatalog final_table = a.Finish();
  for (auto& c : final_table.columns) c.missing_cell.clear();  // every row written whole
  DmlManager* dml = instance->DmlFor(database_id);
  DatabaseEpochLoop* loop = instance->barriers()->ForDatabase(database_id);
  // In a transaction block, until it ends: the writes held back would go
  // to the old relation.
  std::shared_ptr<void> blocked = dml->BlockWrites(old_table->id, session);
  // Every acknowledged write to it committed, so the scan below sees it.
  if (dml->LastAppliedEpoch() > loop->committed_epoch()) loop->Flush();

  TableCatalog temp = final_table;
  // The new relation's unique constraints get indexes of their own
  // (Catalog::CreateTable), filled by the inserts below.
  for (auto& c : temp.constraints) c.index_id = 0;
  temp.kind = RelationKind::kInternal;
  temp.internal_kind = Catalog::kRewriteKind;
  temp.name = fmt::format("__rewrite_of_{}", old_table->id);
  TableRef target = catalog->CreateTable(temp);
  try {
    std::vector<Binder::RewriteSource> sources;
    for (size_t i = 0; i < a.next.columns.size(); i++)
      if (!a.next.columns[i].hidden) sources.push_back(a.sources[i]);  // dropped columns go (Finish)
    Binder binder(session->BinderContextFor(args.stmt, nullptr));
    PlanPtr plan = OptimizePlan(binder.BindTableRewrite(old_table, target, sources));
    WriteSet writes;
    ExecContext ctx;
    PrepareExecContext(args, &writes, &ctx);
    // The committed table, and what this transaction block wrote to it.
    ctx.pending = ddl->is_transaction() ? session->PendingWrites() : nullptr;
    StateStore* store = instance->store();
    ctx.snapshot_source = [store] { return store->GetSnapshot(); };
    ExecutorPtr exec = BuildExecutor(*plan, ctx);
    DataChunk chunk;
    try {
      while (exec->Next(&chunk)) {
      }
    } catch (const SqlError& e) {
      if (e.code() == sqlstate::kCheckViolation) throw CheckViolatedBySomeRow(e, final_table.name);
      if (e.code() != sqlstate::kNotNullViolation) throw;
      std::string column;
      for (const auto& [field, value] : e.fields())
        if (field == 'c') column = value;
      throw SqlError(sqlstate::kNotNullViolation,
                     fmt::format("column \"{}\" of relation \"{}\" contains null values", column, final_table.name))
          .WithField('t', final_table.name)
          .WithField('c', column);
    }
    try {
      dml->Apply(std::move(writes), /*durable=*/false);
    } catch (const SqlError& e) {
      if (e.code() != sqlstate::kUniqueViolation) throw;
      // The new relation's primary key is named for it: the table's name.
      throw CouldNotCreateUniqueIndex(e, final_table, ConstraintName(final_table), target->name + "_pkey");
    }
    loop->Flush();
    final_table.id = target->id;
    final_table.constraints = target->constraints;  // with their new indexes
    final_table.created_at_micros = old_table->created_at_micros;
    if (ddl->is_transaction()) ddl->AdoptIntoTransaction(target);
    std::vector<ObjectId> index_ids;
    for (const auto& index : indexes) index_ids.push_back(index->id);
    if (!index_ids.empty()) DropRelations(args, index_ids);
    ddl->ReplaceTable(old_table->id, final_table);
    RebuildIndexes(args, indexes);
  } catch (...) {
    dml->DropTable(target->id);
    catalog->DropObjects({}, {}, {target->id});
    throw;
  }
  if (ddl->is_transaction()) {
    session->HoldUntilBlockEnds(std::move(blocked));
    session->OnDdlRollback([dml, catalog, id = target->id] {
      dml->DropTable(id);
      catalog->DropObjects({}, {}, {id});
    });
  }
  session->AfterDdlCommit([dml, id = old_table->id] { dml->DropTable(id); });
}

}  // namespace

namespace {

// After a rewrite: the sequences the old relation's columns (and the
// columns just added) own are owned by the same columns of the new one;
// those of dropped columns go with them, as in PostgreSQL.
void MoveOwnedSequences(const HandlerArgs& args, const TableCatalog& old_table, const TableCatalog& now,
                        const Alteration& a) {
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<ObjectId> orphaned;
  for (const auto& seq : catalog->ListTables(old_table.database_id)) {
    if (seq->kind != RelationKind::kSequence || seq->sequence.owned_by_table != old_table.id) continue;
    auto added = a.new_sequences.find(seq->id);
    const int old_column = seq->sequence.owned_by_column;
    std::string column = added != a.new_sequences.end() ? added->second
                         : old_column >= 0 && static_cast<size_t>(old_column) < old_table.columns.size()
                             ? old_table.columns[old_column].name
                             : "";
    int index = column.empty() ? -1 : now.ColumnIndex(column);
    if (index < 0) {
      orphaned.push_back(seq->id);
      continue;
    }
    TableCatalog moved = *seq;
    moved.sequence.owned_by_table = now.id;
    moved.sequence.owned_by_column = index;
    catalog->AlterTable(moved);
  }
  if (orphaned.empty()) return;
  catalog->DropObjects({}, {}, orphaned);
  SequenceManager* sequences = args.instance()->sequences();
  args.session->AfterDdlCommit([sequences, orphaned] {
    for (ObjectId id : orphaned) sequences->Forget(id);
  });
}

// The sequences owned by columns dropped without a rewrite go with them,
// as PostgreSQL drops a serial column's sequence.
void DropSequencesOfDroppedColumns(const HandlerArgs& args, const TableCatalog& t, const Alteration& a) {
  if (a.dropped_sequence_columns.empty()) return;
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<ObjectId> owned;
  for (const auto& seq : catalog->ListTables(t.database_id))
    if (seq->kind == RelationKind::kSequence && seq->sequence.owned_by_table == t.id &&
        std::find(a.dropped_sequence_columns.begin(), a.dropped_sequence_columns.end(),
                  seq->sequence.owned_by_column) != a.dropped_sequence_columns.end())
      owned.push_back(seq->id);
  if (owned.empty()) return;
  catalog->DropObjects({}, {}, owned);
  SequenceManager* sequences = args.instance()->sequences();
  args.session->AfterDdlCommit([sequences, owned] {
    for (ObjectId id : owned) sequences->Forget(id);
  });
}

// Stores the table's next definition: by a rewrite, after checking the
// stored rows against new checks, or as a catalog change (forgetting the
// indexes of dropped unique constraints).
// Materialized views and sinks reading a column retyped in place would
// compute with its old type: 0A000 as PostgreSQL's views. A job reads it
// unless its definition plans as stored with the column hidden
// (JobReadsColumn, as DROP COLUMN asks).
void CheckRetypedColumnsUnread(const HandlerArgs& args, const TableCatalog& t, const Alteration& a) {
  Catalog* catalog = args.session->DdlCatalog();
  for (const auto& name : a.retyped_in_place) {
    int column = t.ColumnIndex(name);
    if (column < 0) continue;
    std::unique_ptr<Catalog> altered = CatalogWithColumnHidden(*catalog, t, column);
    for (const TableRef& dep : catalog->Dependents(t.id)) {
      if (dep->kind == RelationKind::kIndex || !IsStreamJob(*dep)) continue;
      if (!JobReadsColumn(*altered, *dep, args.session->eval())) continue;
      throw SqlError(sqlstate::kFeatureNotSupported, "cannot alter type of a column used by a view or rule")
          .WithDetail(fmt::format("{} {} depends on column \"{}\"", RelationKindName(dep->kind), dep->name, name));
    }
  }
}

// The indexes of a table whose columns ALTER TYPE retyped in place: they
// hold the table's columns in order, which take the new types; one whose
// expressions or predicate read such a column is made again, computing
// with the new type (an int4 sum overflows where an int8 one does not).
void RetypeIndexes(const HandlerArgs& args, const TableCatalog& t, const Alteration& a) {
  if (a.retyped_in_place.empty()) return;
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<TableRef> remade;
  for (const TableRef& dep : catalog->Dependents(t.id)) {
    if (dep->kind != RelationKind::kIndex || dep->depends_on.empty() || dep->depends_on[0] != t.id) continue;
    std::shared_ptr<const ConstraintCatalog> elements = DescribeUserIndex(*dep);
    if (std::any_of(a.retyped_in_place.begin(), a.retyped_in_place.end(), [&](const std::string& name) {
          return ExpressionsRead(*elements, name) || TextReads(elements->predicate, name);
        })) {
      remade.push_back(dep);
      continue;
    }
    TableCatalog index = *dep;
    bool changed = false;
    for (const auto& name : a.retyped_in_place) {
      int was = t.ColumnIndex(name), is = a.next.ColumnIndex(name);
      if (was < 0 || is < 0 || static_cast<size_t>(was) >= IndexedTableColumns(index)) continue;
      index.columns[was].type = a.next.columns[is].type;
      changed = true;
    }
    if (changed) catalog->AlterTable(index);
  }
  if (remade.empty()) return;
  std::vector<ObjectId> ids;
  for (const auto& index : remade) ids.push_back(index->id);
  DropRelations(args, ids);
  RebuildIndexes(args, remade);
}

void StoreAlteration(const HandlerArgs& args, const TableRef& t, const Alteration& a) {
  Catalog* catalog = args.session->DdlCatalog();
  const WriteSet* pending = args.session->PendingWrites();
  // A unique index is filled from the stored rows: a block that wrote the
  // table rewrites it instead, unless the block made the table (it has no
  // stored rows; StoreInPlace checks the block's).
  if (a.rewrite || (a.fill_unique && pending && pending->Find(t->id) && !catalog->MadeInTransaction(t->id))) {
    RewriteTable(args, t, a);
    // Other tables' foreign keys follow the rewritten relation.
    if (TableRef now = catalog->FindTable(t->schema_id, t->name); now && now->id != t->id)
      for (const auto& other : catalog->ListTables(t->database_id)) {
        if (other->id == now->id) continue;
        auto cascaded = a.other_tables.find(other->id);
        TableCatalog changed = cascaded != a.other_tables.end() ? cascaded->second : *other;
        bool touched = cascaded != a.other_tables.end();
        for (auto& fk : changed.constraints)
          if (fk.ref_table == t->id) fk.ref_table = now->id, touched = true;
        if (touched) catalog->AlterTable(changed);
      }
    if (TableRef now = catalog->FindTable(t->schema_id, t->name); now && now->id != t->id)
      MoveOwnedSequences(args, *t, *now, a);
    return;
  }
  if (!a.retyped_in_place.empty()) CheckRetypedColumnsUnread(args, *t, a);
  if (!a.to_validate.empty() || a.fill_unique || !a.added_in_place.empty() || !a.not_null_to_validate.empty()) {
    StoreInPlace(args, t, a);
  } else {
    TableCatalog final_table = a.Finish();
    catalog->AlterTable(final_table);
    // A dropped unique constraint's index (its data went with the catalog write).
    DmlManager* dml = args.instance()->DmlFor(t->database_id);
    for (const auto& c : t->constraints)
      if (c.type == 'u' && std::none_of(final_table.constraints.begin(), final_table.constraints.end(),
                                        [&](const ConstraintCatalog& k) { return k.index_id == c.index_id; }))
        args.session->AfterDdlCommit([dml, id = c.index_id] { dml->DropTable(id); });
  }
  // Foreign keys a CASCADE dropped from other tables.
  for (const auto& [id, other] : a.other_tables) catalog->AlterTable(other);
  DropSequencesOfDroppedColumns(args, *t, a);
  if (!a.dropped_indexes.empty()) DropRelations(args, a.dropped_indexes);
  RetypeIndexes(args, *t, a);
}

}  // namespace

namespace {

// The relation kind an ALTER names (ALTER SEQUENCE, VIEW...), and its tag.
RelationKind RelationKindOf(PgQuery__ObjectType type) {
  switch (type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: return RelationKind::kSequence;
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: return RelationKind::kView;
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW: return RelationKind::kMaterializedView;
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: return RelationKind::kIndex;
    default: return RelationKind::kTable;
  }
}

const char* AlterTag(PgQuery__ObjectType type) {
  switch (type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: return "ALTER SEQUENCE";
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: return "ALTER VIEW";
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW: return "ALTER MATERIALIZED VIEW";
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: return "ALTER INDEX";
    default: return "ALTER TABLE";
  }
}

}  // namespace

StatementOutcome HandleAlterTable(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__AlterTableStmt* s = args.stmt.node->alter_table_stmt;
  const bool owner_only = s->n_cmds > 0 && std::all_of(s->cmds, s->cmds + s->n_cmds, [](PgQuery__Node* c) {
    return c->alter_table_cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_ChangeOwner;
  });
  if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE && !owner_only)
    throw SqlError(sqlstate::kFeatureNotSupported, "ALTER of this kind of relation is not supported yet");
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  TableRef t = binder.ResolveRelation(s->relation, s->missing_ok);
  const char* tag = AlterTag(s->objtype);
  // Under the relation's DDL lock, the relation as it is now (a statement
  // that held it may have replaced or dropped it).
  std::optional<RelationDdlLock> ddl_lock;
  if (t) {
    ddl_lock.emplace(args, t->schema_id, t->name);
    t = binder.ResolveRelation(s->relation, s->missing_ok);
  }
  if (!t) {
    args.sink->Notice(fmt::format("relation \"{}\" does not exist, skipping", s->relation->relname));
    return {tag};
  }
  if (owner_only) {
    // OWNER TO: any relation by ALTER TABLE (pg_dump writes it for
    // sequences and views), one of its own kind by the others.
    if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE && RelationKindOf(s->objtype) != t->kind)
      FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a {}", t->name, RelationKindName(RelationKindOf(s->objtype)));
    CheckOwner(args, *t);
    TableCatalog next = *t;
    for (size_t i = 0; i < s->n_cmds; i++) {
      const PgQuery__RoleSpec* role = s->cmds[i]->alter_table_cmd->newowner;
      std::string name = role->rolename && *role->rolename ? role->rolename : session->user();
      auto user = session->DdlCatalog()->FindUser(name);
      if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", name);
      next.owner = user->id;
    }
    session->DdlCatalog()->AlterTable(next);
    return {tag};
  }
  if (t->kind != RelationKind::kTable) FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table", t->name);
  if (IsConnectorTable(*t))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "altering table \"{}\", which a connector fills, is not supported yet",
                  t->name);
  CheckOwner(args, *t);
  Alteration a(*t);
  try {
    for (size_t i = 0; i < s->n_cmds; i++) ApplyCommand(args, s->cmds[i]->alter_table_cmd, &a);
    StoreAlteration(args, t, a);
  } catch (...) {
    // The sequences of added serial columns go with the failed ALTER.
    std::vector<ObjectId> made;
    for (const auto& [id, column] : a.new_sequences) made.push_back(id);
    if (!made.empty()) session->DdlCatalog()->DropObjects({}, {}, made);
    throw;
  }
  return {"ALTER TABLE"};
}

void DropColumns(const HandlerArgs& args, const TableRef& t, const std::vector<std::string>& columns) {
  Alteration a(*t);
  for (const auto& name : columns) {
    PgQuery__AlterTableCmd cmd = PG_QUERY__ALTER_TABLE_CMD__INIT;
    cmd.subtype = PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn;
    cmd.name = const_cast<char*>(name.c_str());
    cmd.behavior = PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
    ApplyCommand(args, &cmd, &a);
  }
  StoreAlteration(args, t, a);
}

StatementOutcome HandleCreateUniqueIndex(const HandlerArgs& args) {
  const PgQuery__IndexStmt* ix = args.stmt.node->index_stmt;
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  TableRef t = binder.ResolveRelation(ix->relation);
  RelationDdlLock ddl_lock(args, t->schema_id, t->name);
  t = binder.ResolveRelation(ix->relation);  // as it is now (RelationDdlLock)
  if (t->kind != RelationKind::kTable || IsConnectorTable(*t))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "unique indexes are supported on tables only, not on \"{}\"", t->name);
  CheckOwner(args, *t);
  // A partial index: its predicate as a CHECK's expression is bound (over
  // the table's columns, boolean, no subqueries), kept as its text.
  // Its predicate's and expressions' values must not change while the row
  // does not (PostgreSQL's IMMUTABLE): no clock, session or random
  // functions.
  if (ix->where_clause)
    CheckImmutableInIndex(*binder.BindCheckExpression(*t, ix->where_clause, nullptr, /*index_predicate=*/true), "predicate");
  // Its elements: columns, or expressions over them (kept as their text
  // and type; "" in `columns` at their place).
  ConstraintCatalog elements = IndexElements(ix);
  const std::vector<std::string> columns = elements.columns;
  std::vector<std::string> expressions(columns.size());
  std::vector<DataType> expression_types(columns.size(), DataType::Unknown());
  for (size_t i = 0; i < columns.size(); i++) {
    if (!columns[i].empty()) continue;
    ExprPtr bound = binder.BindIndexExpression(*t, ix->index_params[i]->index_elem->expr);
    CheckImmutableInIndex(*bound, "expression");
    expressions[i] = elements.expressions[i];
    // A string function's result is text, as PostgreSQL's (pg_attribute).
    DataType type = bound->type();
    if (type == DataType::Varchar()) type = DataType::Text();
    expression_types[i] = type;
  }
  // As PostgreSQL: an index without a name is <table>_<elements>_idx, with
  // a number appended when that is taken.
  Catalog* catalog = args.session->DdlCatalog();
  std::string name = ix->idxname && *ix->idxname ? ix->idxname : "";
  if (name.empty()) name = ChooseIndexName(*catalog, t->database_id, t->schema_id, DefaultIndexName(t->name, elements));
  if (ix->if_not_exists && RelationNameTaken(*catalog, t->database_id, t->schema_id, name)) {
    args.sink->Notice(fmt::format("relation \"{}\" already exists, skipping", name));
    return {"CREATE INDEX"};
  }
  PgQuery__Constraint c = PG_QUERY__CONSTRAINT__INIT;
  c.contype = PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE;
  c.conname = name.data();
  c.nulls_not_distinct = ix->nulls_not_distinct;
  Alteration a(*t);
  std::vector<std::string> plain_columns;
  for (const auto& column : columns)
    if (!column.empty()) plain_columns.push_back(column);
  ConstraintCatalog index = BindUniqueConstraint(args, a.Finish(), plain_columns, &c);
  index.index_only = true;
  index.predicate = elements.predicate;
  for (const std::string& column : elements.include)
    if (t->ColumnIndex(column) < 0 || t->columns[t->ColumnIndex(column)].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" does not exist", column);
  index.include = elements.include;
  if (std::any_of(expressions.begin(), expressions.end(), [](const std::string& e) { return !e.empty(); })) {
    index.columns = columns;
    index.expressions = expressions;
    index.expression_types = expression_types;
  }
  a.next.constraints.push_back(std::move(index));
  a.fill_unique = true;
  StoreAlteration(args, t, a);
  return {"CREATE INDEX"};
}

bool DropUniqueIndex(const HandlerArgs& args, ObjectId schema_id, const std::string& name, bool cascade) {
  Catalog* catalog = args.session->DdlCatalog();
  for (const auto& t : catalog->ListTables(args.session->database().id)) {
    if (t->schema_id != schema_id) continue;
    for (const auto& c : t->constraints) {
      if (c.type != 'u' || c.name != name) continue;
      if (!c.index_only)
        throw SqlError(sqlstate::kDependentObjectsStillExist,
                       fmt::format("cannot drop index {} because constraint {} on table {} requires it", name, name,
                                   t->name))
            .WithHint(fmt::format("You can drop constraint {} on table {} instead.", name, t->name));
      CheckOwner(args, *t);
      Alteration a(*t);
      DropForeignKeysOnUniqueKey(args, &a, c, cascade,
                                 fmt::format("cannot drop index {} because other objects depend on it", name));
      std::erase_if(a.next.constraints, [&](const ConstraintCatalog& k) { return k.type == 'u' && k.name == name; });
      StoreAlteration(args, t, a);
      return true;
    }
  }
  return false;
}

namespace {

// A CREATE MATERIALIZED VIEW or CREATE INDEX statement's text with the
// name of what it creates replaced (a schema it names stays).
std::string RenameCreatedRelation(const std::string& definition, const std::string& new_name) {
  std::vector<ParsedStatement> stmts = ParseSql(definition);
  if (stmts.size() == 1 && stmts[0].node && stmts[0].node->node_case == PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT)
    return EditNames(definition, {{stmts[0].node->create_table_as_stmt->into->rel->location, 0, new_name, ""}});
  if (stmts.size() == 1 && stmts[0].node && stmts[0].node->node_case == PG_QUERY__NODE__NODE_INDEX_STMT) {
    // The index's name carries no location: it is the name just before ON
    // (CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] name ON ...).
    std::vector<Token> tokens = Tokenize(definition);
    for (size_t i = 1; i < tokens.size(); i++)
      if (tokens[i].kind == Token::Kind::kKeyword && tokens[i].text == "on" &&
          (tokens[i - 1].kind == Token::Kind::kIdent || tokens[i - 1].kind == Token::Kind::kKeyword) &&
          tokens[i - 1].text != "index" && tokens[i - 1].text != "concurrently" && tokens[i - 1].text != "exists")
        return EditNames(definition, {{tokens[i - 1].start, 0, new_name, ""}});
  }
  throw SqlError(sqlstate::kInternalError, "a definition to rename is not a CREATE MATERIALIZED VIEW or CREATE INDEX");
}

}  // namespace

// ALTER INDEX name RENAME TO new_name: an index (CREATE INDEX: a stream
// job whose definition names it anew), or the index of a unique constraint
// or CREATE UNIQUE INDEX (the constraint is renamed with it, as
// PostgreSQL's RenameRelation does). A primary key's index is named after
// its table here and is not renamed yet (0A000).
std::optional<StatementOutcome> RenameIndex(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__RenameStmt* r = args.stmt.node->rename_stmt;
  Catalog* catalog = session->DdlCatalog();
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  const std::string new_name = r->newname;
  TableRef index = binder.ResolveRelation(r->relation, /*missing_ok=*/true);
  // As PostgreSQL, ALTER INDEX ... RENAME renames any relation.
  if (index && index->kind != RelationKind::kIndex) return std::nullopt;
  ObjectId schema_id = index ? index->schema_id : binder.ResolveSchemaId(r->relation->schemaname);
  // The table whose unique constraint has an index of that name.
  TableRef owner;
  size_t constraint = 0;
  if (!index) {
    for (const TableRef& t : catalog->ListTables(session->database().id)) {
      if (t->schema_id != schema_id || t->kind != RelationKind::kTable) continue;
      for (size_t i = 0; i < t->constraints.size(); i++)
        if (t->constraints[i].type == 'u' && t->constraints[i].name == r->relation->relname) owner = t, constraint = i;
      if (!owner && t->row_id_index < 0 && t->name + "_pkey" == r->relation->relname)
        FRESHET_THROW(sqlstate::kFeatureNotSupported, "renaming the primary key index of \"{}\" is not supported yet", t->name);
    }
  }
  if (!index && !owner) {
    if (r->missing_ok) {
      args.sink->Notice(fmt::format("relation \"{}\" does not exist, skipping", r->relation->relname));
      return StatementOutcome{"ALTER INDEX"};
    }
    FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", r->relation->relname);
  }
  // The new name is free among the schema's relations and constraint indexes.
  if (catalog->FindTable(schema_id, new_name))
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", new_name);
  for (const TableRef& t : catalog->ListTables(session->database().id))
    if (t->schema_id == schema_id)
      for (const auto& c : t->constraints)
        if (c.type == 'u' && c.name == new_name) FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", new_name);
  if (index) {
    CheckOwner(args, *index);
    TableCatalog next = *index;
    next.name = new_name;
    next.definition = RenameCreatedRelation(index->definition, new_name);
    next.stream_plan = RenameStreamPlanRelation(index->stream_plan, new_name);
    catalog->AlterTable(next);
    return StatementOutcome{"ALTER INDEX"};
  }
  CheckOwner(args, *owner);
  TableCatalog next = *owner;
  next.constraints[constraint].name = new_name;
  next.definition = NormalizedCreateTable(next);
  catalog->AlterTable(next);
  return StatementOutcome{"ALTER INDEX"};
}

StatementOutcome HandleRename(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__RenameStmt* r = args.stmt.node->rename_stmt;
  if (r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_INDEX)
    if (std::optional<StatementOutcome> done = RenameIndex(args)) return *done;
  if (r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION) return HandleAlterFunction(args);
  if (r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_SUBSCRIPTION)
    return RenameSubscription(args, StringOf(r->object), r->newname);
  if (r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_TYPE || r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN ||
      r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMCONSTRAINT)
    return RenameType(args);
  const char* tag = "ALTER TABLE";
  RelationKind kind = RelationKind::kTable;
  PgQuery__ObjectType type = r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN ? r->relation_type : r->rename_type;
  switch (type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: tag = "ALTER INDEX"; break;  // a relation that is not an index
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: tag = "ALTER VIEW", kind = RelationKind::kView; break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW:
      tag = "ALTER MATERIALIZED VIEW", kind = RelationKind::kMaterializedView;
      break;
    default: throw SqlError(sqlstate::kFeatureNotSupported, "this form of ALTER ... RENAME is not supported yet");
  }
  if (!r->relation) throw SqlError(sqlstate::kFeatureNotSupported, "this form of ALTER ... RENAME is not supported yet");
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  TableRef t = binder.ResolveRelation(r->relation, r->missing_ok);
  if (!t) {
    args.sink->Notice(fmt::format("relation \"{}\" does not exist, skipping", r->relation->relname));
    return {tag};
  }
  // ALTER TABLE may rename any relation, as in PostgreSQL; the other forms
  // want their own kind.
  if (type != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE && type != PG_QUERY__OBJECT_TYPE__OBJECT_INDEX && t->kind != kind)
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not {} {}", t->name,
                  kind == RelationKind::kIndex ? "an" : "a", RelationKindName(kind));
  if (!t->IsUserVisible()) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", t->name);
  CheckOwner(args, *t);
  // A job's stored definition names it (SHOW CREATE, recovery of jobs of
  // older versions): a materialized view's is written anew below; other
  // jobs' are not yet.
  if ((IsStreamJob(*t) && t->kind != RelationKind::kMaterializedView) || IsConnectorTable(*t))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "renaming {} \"{}\" is not supported yet", RelationKindName(t->kind),
                  t->name);
  if (t->kind == RelationKind::kMaterializedView && r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN)
    throw SqlError(sqlstate::kFeatureNotSupported, "renaming a column of a materialized view is not supported yet");
  TableCatalog next = *t;
  std::vector<TableCatalog> referencing;  // other tables whose foreign keys name a renamed column
  int renamed_column = -1;
  if (r->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN) {
    if (t->kind != RelationKind::kTable)
      throw SqlError(sqlstate::kFeatureNotSupported, "renaming a column of this kind of relation is not supported yet");
    int i = t->ColumnIndex(r->subname);
    if (i < 0 || t->columns[i].hidden) FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" does not exist", r->subname);
    int clash = t->ColumnIndex(r->newname);
    if (clash >= 0)
      FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" of relation \"{}\" already exists", r->newname, t->name);
    next.columns[i].name = r->newname;
    renamed_column = i;
    for (auto& col : next.columns)
      if (!col.generated.empty()) col.generated = RenameColumnInExpression(col.generated, r->subname, r->newname);
    if (i == next.watermark_column)
      next.watermark_expr = RenameColumnInExpression(next.watermark_expr, r->subname, r->newname);
    // A time-series table's partition rules name their columns.
    for (auto& column : next.timeseries.partition_columns)
      if (column == r->subname) column = r->newname;
    for (auto& rule : next.timeseries.partition_rules) {
      const std::vector<std::string> reads = ColumnsInExpression(rule);
      if (std::find(reads.begin(), reads.end(), r->subname) != reads.end())
        rule = RenameColumnInExpression(rule, r->subname, r->newname);
    }
    auto rename_referenced = [&](TableCatalog* table) {
      bool touched = false;
      for (auto& fk : table->constraints)
        if (fk.type == 'f' && (fk.ref_table == t->id || (table == &next && fk.ref_table == 0)))
          for (auto& col : fk.ref_columns)
            if (col == r->subname) col = r->newname, touched = true;
      return touched;
    };
    for (auto& c : next.constraints) {
      bool reads = false;
      for (auto& col : c.columns)
        if (col == r->subname) col = r->newname, reads = true;
      if (reads && c.type == 'c') c.check = RenameColumnInExpression(c.check, r->subname, r->newname);
      if (c.type == 'u' && !c.predicate.empty()) c.predicate = RenameColumnInExpression(c.predicate, r->subname, r->newname);
      for (auto& e : c.expressions)
        if (!e.empty()) e = RenameColumnInExpression(e, r->subname, r->newname);
      for (auto& col : c.include)
        if (col == r->subname) col = r->newname;
    }
    rename_referenced(&next);
    next.definition = NormalizedCreateTable(next);
    // Other tables' foreign keys name the columns they reference.
    for (const auto& other : args.session->DdlCatalog()->ListTables(t->database_id)) {
      if (other->id == t->id) continue;
      TableCatalog changed = *other;
      if (rename_referenced(&changed)) referencing.push_back(std::move(changed));
    }
  } else {
    next.name = r->newname;
    if (t->kind == RelationKind::kTable) next.definition = NormalizedCreateTable(next);
    if (t->kind == RelationKind::kMaterializedView) {
      next.definition = RenameCreatedRelation(t->definition, r->newname);
      next.stream_plan = RenameStreamPlanRelation(t->stream_plan, r->newname);
    }
    // A view's definition is its query (pg_get_viewdef); its name is the entry's.
  }
  // Views and jobs name what they read in their stored definitions.
  std::vector<TableCatalog> followers = FollowRename(args, *t, next, renamed_column);
  args.session->DdlCatalog()->AlterTable(next);
  for (const auto& other : referencing) args.session->DdlCatalog()->AlterTable(other);
  for (const auto& follower : followers) args.session->DdlCatalog()->AlterTable(follower);
  return {tag};
}

}  // namespace freshet

namespace freshet {

// ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE name SET SCHEMA s. As
// PostgreSQL: ALTER TABLE moves any relation, the other forms want their
// own kind (42809); the same schema changes nothing; 3F000, 42P07, and
// 0A000 into or out of temporary schemas. The views, jobs, sinks and
// indexes that read the relation name it qualified by its new schema from
// then on (dependent_definitions.h FollowRename, which refuses with 0A000
// a definition that cannot follow); a table's indexes move with it, as
// PostgreSQL's, and so do the sequences it owns (serial and identity
// columns; its defaults then name them in the new schema). Not yet (0A000):
// a sequence another table's default names.
StatementOutcome HandleAlterObjectSchema(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__AlterObjectSchemaStmt* a = args.stmt.node->alter_object_schema_stmt;
  if (a->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION) return HandleAlterFunction(args);
  const char* tag = "ALTER TABLE";
  RelationKind kind = RelationKind::kTable;
  switch (a->object_type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: tag = "ALTER VIEW", kind = RelationKind::kView; break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW:
      tag = "ALTER MATERIALIZED VIEW", kind = RelationKind::kMaterializedView;
      break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: tag = "ALTER SEQUENCE", kind = RelationKind::kSequence; break;
    default: throw SqlError(sqlstate::kFeatureNotSupported, "ALTER ... SET SCHEMA of this kind of object is not supported yet");
  }
  Catalog* catalog = session->DdlCatalog();
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  TableRef t = binder.ResolveRelation(a->relation, a->missing_ok);
  if (!t) {
    args.sink->Notice(fmt::format("relation \"{}\" does not exist, skipping", a->relation->relname));
    return {tag};
  }
  if (a->object_type != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE && t->kind != kind)
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a {}", t->name, RelationKindName(kind));
  if (!t->IsUserVisible()) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", t->name);
  CheckOwner(args, *t);
  auto target = catalog->FindSchema(t->database_id, a->newschema);
  if (!target) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", a->newschema);
  auto current = catalog->GetSchema(t->schema_id);
  if (IsTempSchemaName(target->name) || (current && IsTempSchemaName(current->name)))
    throw SqlError(sqlstate::kFeatureNotSupported, "cannot move objects into or out of temporary schemas");
  if (target->id == t->schema_id) return {tag};
  if (catalog->FindTable(target->id, t->name))
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists in schema \"{}\"", t->name, target->name);
  if (IsConnectorTable(*t) || t->kind == RelationKind::kSink || t->kind == RelationKind::kSource)
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "moving {} \"{}\" to another schema is not supported yet",
                  RelationKindName(t->kind), t->name);
  if (t->kind == RelationKind::kSequence && t->sequence.owned_by_table != 0) {
    TableRef owner = catalog->GetTable(t->sequence.owned_by_table);
    throw SqlError(sqlstate::kFeatureNotSupported, "cannot move an owned sequence into another schema")
        .WithDetail(fmt::format("Sequence \"{}\" is linked to table \"{}\".", t->name, owner ? owner->name : "?"));
  }
  // Defaults name a sequence by text, resolved when they are computed: the
  // defaults naming this one (schema-qualified by its schema, or not while
  // the path finds it first) name it in its new schema from now on.
  std::vector<TableCatalog> defaults_moved;
  if (t->kind == RelationKind::kSequence) {
    const std::string old_schema = current ? current->name : "";
    auto names_it = [&](const std::string& written) {
      std::vector<Token> parts = Tokenize(written);
      std::vector<std::string> names;
      for (const Token& p : parts)
        if (p.text != ".") names.push_back(p.text);
      if (names.empty() || names.back() != t->name) return false;
      if (names.size() == 2) return names[0] == old_schema;
      for (const std::string& schema : binder.ExistingSearchPath())
        if (auto s = catalog->FindSchema(t->database_id, schema); s && catalog->FindTable(s->id, t->name))
          return s->id == t->schema_id;
      return false;
    };
    for (const TableRef& q : catalog->ListTables(t->database_id)) {
      if (q->kind != RelationKind::kTable) continue;
      TableCatalog changed = *q;
      bool any = false;
      for (ColumnCatalog& col : changed.columns) {
        if (col.default_expr.find(t->name) == std::string::npos) continue;
        std::string rewritten = RewriteRegclassLiterals(col.default_expr, [&](const std::string& written) {
          return names_it(written) ? QuoteIdent(target->name) + "." + QuoteIdent(t->name) : written;
        });
        any |= rewritten != col.default_expr;
        col.default_expr = std::move(rewritten);
      }
      if (!any) continue;
      changed.definition = NormalizedCreateTable(changed);
      defaults_moved.push_back(std::move(changed));
    }
  }
  // A table's own sequences (serial and identity columns) move with it, as
  // PostgreSQL's, and its defaults name them in the new schema.
  std::vector<TableCatalog> sequences;
  for (const TableRef& q : catalog->ListTables(t->database_id)) {
    if (q->kind != RelationKind::kSequence || q->sequence.owned_by_table != t->id) continue;
    if (catalog->FindTable(target->id, q->name))
      FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists in schema \"{}\"", q->name, target->name);
    for (const TableRef& other : catalog->ListTables(t->database_id))
      for (const ColumnCatalog& col : other->columns)
        if (other->id != t->id && col.default_expr.find(q->name) != std::string::npos)
          FRESHET_THROW(sqlstate::kFeatureNotSupported,
                        "moving table \"{}\" to another schema is not supported yet: the default of column \"{}\" of "
                        "table \"{}\" names its sequence \"{}\"",
                        t->name, col.name, other->name, q->name);
    sequences.push_back(*q);
    sequences.back().schema_id = target->id;
  }
  TableCatalog next = *t;
  next.schema_id = target->id;
  for (ColumnCatalog& col : next.columns) {
    if (col.default_expr.empty() || sequences.empty()) continue;
    col.default_expr = RewriteRegclassLiterals(col.default_expr, [&](const std::string& written) {
      // The name as the default gives it: schema-qualified (as serial's) or not.
      std::vector<Token> parts = Tokenize(written);
      const std::string name = parts.empty() ? written : parts.back().text;
      for (const TableCatalog& q : sequences)
        if (q.name == name) return QuoteIdent(target->name) + "." + QuoteIdent(q.name);
      return written;
    });
  }
  if (t->kind == RelationKind::kTable) next.definition = NormalizedCreateTable(next);
  // Its readers' definitions name it in the new schema; its indexes go along.
  std::vector<TableCatalog> followers = FollowRename(args, *t, next, -1);
  for (const TableRef& dep : catalog->Dependents(t->id)) {
    if (dep->kind != RelationKind::kIndex || dep->schema_id == target->id) continue;
    auto it = std::find_if(followers.begin(), followers.end(), [&](const TableCatalog& f) { return f.id == dep->id; });
    if (it == followers.end()) it = followers.insert(followers.end(), *dep);
    if (catalog->FindTable(target->id, it->name))
      FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists in schema \"{}\"", it->name, target->name);
    it->schema_id = target->id;
  }
  catalog->AlterTable(next);
  for (const auto& table : defaults_moved) catalog->AlterTable(table);
  for (const auto& sequence : sequences) catalog->AlterTable(sequence);
  for (const auto& follower : followers) catalog->AlterTable(follower);
  return {tag};
}

}  // namespace freshet
