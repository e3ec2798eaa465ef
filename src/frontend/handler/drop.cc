// DROP TABLE, VIEW, MATERIALIZED VIEW, INDEX, SCHEMA, SINK and SOURCE: the named
// relations with what depends on them (CASCADE), jobs being created on them
// cancelled.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "catalog/pg_catalog.h"
#include <set>

#include "common/error.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"

namespace freshet {

namespace {

RelationKind KindOfDrop(PgQuery__ObjectType t, const char** name) {
  switch (t) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: *name = "table"; return RelationKind::kTable;
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW: *name = "materialized view"; return RelationKind::kMaterializedView;
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: *name = "index"; return RelationKind::kIndex;
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: *name = "view"; return RelationKind::kView;
    case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: *name = "sequence"; return RelationKind::kSequence;
    default: *name = "object"; return RelationKind::kSystem;
  }
}

// A sequence that a column's DEFAULT draws from (serial, identity, OWNED
// BY) is not dropped alone: 2BP01 as PostgreSQL; with CASCADE the default
// goes (and an identity column stops being one).
void CheckSequenceUnused(const HandlerArgs& args, const TableCatalog& seq, bool cascade) {
  Catalog* catalog = args.session->DdlCatalog();
  TableRef owner = seq.sequence.owned_by_table ? catalog->GetTable(seq.sequence.owned_by_table) : nullptr;
  if (!owner || seq.sequence.owned_by_column < 0 ||
      static_cast<size_t>(seq.sequence.owned_by_column) >= owner->columns.size())
    return;
  const ColumnCatalog& column = owner->columns[seq.sequence.owned_by_column];
  if (column.default_expr.find("nextval(") == std::string::npos) return;
  std::string what = fmt::format("default value for column {} of table {}", column.name, owner->name);
  if (!cascade)
    throw SqlError(sqlstate::kDependentObjectsStillExist,
                   fmt::format("cannot drop sequence {} because other objects depend on it", seq.name))
        .WithDetail(what + " depends on sequence " + seq.name)
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  args.sink->Notice("drop cascades to " + what);
  TableCatalog altered = *owner;
  altered.columns[seq.sequence.owned_by_column].default_expr.clear();
  altered.columns[seq.sequence.owned_by_column].identity = '\0';
  catalog->AlterTable(altered);
}

// Other tables' foreign keys on tables being dropped: CASCADE drops those
// constraints (with PostgreSQL's NOTICE), else 2BP01 as PostgreSQL.
void DropReferencingForeignKeys(const HandlerArgs& args, const std::vector<ObjectId>& dropped, bool cascade) {
  Catalog* catalog = args.session->DdlCatalog();
  std::set<ObjectId> ids(dropped.begin(), dropped.end());
  for (const auto& other : catalog->ListTables(args.session->database().id)) {
    if (ids.count(other->id) || other->constraints.empty()) continue;
    TableCatalog changed = *other;
    bool touched = false;
    for (auto it = changed.constraints.begin(); it != changed.constraints.end();) {
      if (!ids.count(it->ref_table)) {
        ++it;
        continue;
      }
      TableRef ref = catalog->GetTable(it->ref_table);
      const std::string ref_name = ref ? ref->name : "?";
      if (!cascade)
        throw SqlError(sqlstate::kDependentObjectsStillExist,
                       fmt::format("cannot drop table {} because other objects depend on it", ref_name))
            .WithDetail(fmt::format("constraint {} on table {} depends on table {}", it->name, other->name, ref_name))
            .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
      args.sink->Notice(fmt::format("drop cascades to constraint {} on table {}", it->name, other->name));
      it = changed.constraints.erase(it);
      touched = true;
    }
    if (touched) catalog->AlterTable(changed);
  }
}

}  // namespace

// DROP INDEX of a unique index (CREATE UNIQUE INDEX: kept with its table,
// not a relation of the catalog): in the named schema or along the search
// path. False when there is none.
static bool DropUniqueIndexNamed(const HandlerArgs& args, const std::vector<std::string>& name, bool cascade) {
  Catalog* catalog = args.session->catalog();
  const ObjectId database = args.session->database().id;
  std::vector<std::string> schemas = {name.size() > 1 ? name[name.size() - 2] : ""};
  if (name.size() == 1) schemas = args.session->BinderContextFor(args.stmt, nullptr).search_path;
  for (const auto& schema : schemas)
    if (auto s = catalog->FindSchema(database, schema); s && DropUniqueIndex(args, s->id, name.back(), cascade)) return true;
  return false;
}

StatementOutcome HandleDrop(const HandlerArgs& args) {
  Session* session = args.session;
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__DropStmt* d = args.stmt.node->drop_stmt;
  bool cascade = d->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
  if (d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_TYPE || d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN)
    return HandleDropType(args);
  if (d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION ||
      d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_PROCEDURE || d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_ROUTINE)
    return HandleDropFunction(args);
  if (d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA) {
    std::vector<ObjectId> schemas, tables;
    for (size_t i = 0; i < d->n_objects; i++) {
      std::string name = StringOf(d->objects[i]);
      auto s = catalog->FindSchema(session->database().id, name);
      if (!s) {
        if (d->missing_ok) {
          args.sink->Notice(fmt::format("schema \"{}\" does not exist, skipping", name));
          continue;
        }
        FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", name);
      }
      if (name == kPgCatalogSchema || name == kInformationSchema || name == kRwCatalogSchema)
        FRESHET_THROW(sqlstate::kDependentObjectsStillExist, "cannot drop schema {} because it is required by the database system", name);
      std::vector<ObjectId> contained;
      for (const auto& t : catalog->ListTables(session->database().id))
        if (t->schema_id == s->id) contained.push_back(t->id);
      bool has_functions = false;
      for (const auto& f : catalog->ListFunctions(session->database().id)) has_functions |= f.schema_id == s->id;
      if ((!contained.empty() || has_functions || SchemaHasTypes(*catalog, session->database().id, s->id)) && !cascade)
        throw SqlError(sqlstate::kDependentObjectsStillExist,
                       fmt::format("cannot drop schema {} because other objects depend on it", name))
            .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
      schemas.push_back(s->id);
      tables.insert(tables.end(), contained.begin(), contained.end());
    }
    DropRelations(args, tables);
    if (!schemas.empty()) catalog->DropObjects({}, schemas, {});
    return {"DROP SCHEMA"};
  }
  const char* kind_name = nullptr;
  RelationKind kind = KindOfDrop(d->remove_type, &kind_name);
  if (kind == RelationKind::kSystem)
    throw SqlError(sqlstate::kFeatureNotSupported, "DROP of this kind of object is not supported");
  // Resolve every name first: dependents named in the same statement
  // do not block it.
  std::vector<TableRef> named;
  for (size_t i = 0; i < d->n_objects; i++) {
    const PgQuery__List* parts = d->objects[i]->list;
    std::string name = StringOf(parts->items[parts->n_items - 1]);
    std::vector<std::string> qualified;
    for (size_t k = 0; k < parts->n_items; k++) qualified.push_back(StringOf(parts->items[k]));
    TableRef t = FindRelation(args, qualified);
    if (!t && kind == RelationKind::kIndex && DropUniqueIndexNamed(args, qualified, cascade)) continue;
    if (!t) {
      if (d->missing_ok) {
        args.sink->Notice(fmt::format("{} \"{}\" does not exist, skipping", kind_name, name));
        continue;
      }
      FRESHET_THROW(kind == RelationKind::kIndex ? sqlstate::kUndefinedObject : sqlstate::kUndefinedTable,
                    "{} \"{}\" does not exist", kind_name, name);
    }
    if (t->kind != kind) {
      const char* what = t->kind == RelationKind::kMaterializedView ? "MATERIALIZED VIEW"
                         : t->kind == RelationKind::kView           ? "VIEW"
                         : t->kind == RelationKind::kIndex          ? "INDEX"
                         : t->kind == RelationKind::kSink           ? "SINK"
                         : t->kind == RelationKind::kSource         ? "SOURCE"
                         : t->kind == RelationKind::kSequence       ? "SEQUENCE"
                                                                    : "TABLE";
      std::string kind_article = kind == RelationKind::kIndex ? "an index" : std::string("a ") + kind_name;
      std::string other = RelationKindName(t->kind);
      std::string other_article = (other[0] == 'i' ? "an " : "a ") + other;
      throw SqlError(sqlstate::kWrongObjectType, fmt::format("\"{}\" is not {}", name, kind_article))
          .WithHint(fmt::format("Use DROP {} to remove {}.", what, other_article));
    }
    if (t->kind == RelationKind::kSequence) CheckSequenceUnused(args, *t, cascade);
    named.push_back(t);
  }
  std::vector<ObjectId> tables = DropClosure(args, named, cascade, kind_name);
  if (kind == RelationKind::kTable) DropReferencingForeignKeys(args, tables, cascade);
  // SQL functions returning the rows of a dropped relation (SETOF t).
  std::vector<FunctionCatalog> functions;
  for (ObjectId id : tables)
    for (auto& fn : catalog->FunctionsDependingOn(id)) {
      if (!cascade) {
        TableRef t = catalog->GetTable(id);
        throw SqlError(sqlstate::kDependentObjectsStillExist,
                       fmt::format("cannot drop {} {} because other objects depend on it", kind_name, t ? t->name : "?"))
            .WithDetail(fmt::format("function {}({}) depends on type {}", fn.name, fn.IdentityArguments(),
                                    t ? t->name : "?"))
            .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
      }
      args.sink->Notice(fmt::format("drop cascades to function {}({})", fn.name, fn.IdentityArguments()));
      functions.push_back(std::move(fn));
    }
  if (!functions.empty()) DropFunctions(args, std::move(functions), /*cascade=*/true, {tables.begin(), tables.end()});
  DropRelations(args, tables);
  const char* tag = kind == RelationKind::kTable ? "DROP TABLE"
                    : kind == RelationKind::kMaterializedView ? "DROP MATERIALIZED VIEW"
                    : kind == RelationKind::kView             ? "DROP VIEW"
                    : kind == RelationKind::kSequence         ? "DROP SEQUENCE"
                                                              : "DROP INDEX";
  return {tag};
}

StatementOutcome HandleDropObject(const HandlerArgs& args) {
  const auto& drop = std::get<DropObjectStatement>(args.stmt.extension);
  if (drop.object_kind == "flow") {
    // GreptimeDB's DROP FLOW: here the flow is its materialized view, which
    // goes with it.
    TableRef flow = FindFlow(*args.session->catalog(), args.session->database().id, drop.name.back());
    if (!flow) {
      if (drop.if_exists) return {"DROP_FLOW"};
      FRESHET_THROW(sqlstate::kUndefinedObject, "Flow not found: {}", drop.name.back());
    }
    DropRelations(args, DropClosure(args, {flow}, drop.cascade, "materialized view"));
    return {"DROP_FLOW"};
  }
  RelationKind kind = drop.object_kind == "sink"           ? RelationKind::kSink
                      : drop.object_kind == "subscription" ? RelationKind::kSubscription
                                                           : RelationKind::kSource;
  const std::string tag = drop.object_kind == "sink"           ? "DROP_SINK"
                          : drop.object_kind == "subscription" ? "DROP_SUBSCRIPTION"
                                                               : "DROP_SOURCE";
  TableRef t = FindRelation(args, drop.name);
  if (!t || t->kind != kind) {
    if (t) throw SqlError(sqlstate::kWrongObjectType, fmt::format("\"{}\" is not a {}", drop.name.back(), drop.object_kind));
    if (drop.if_exists) {
      args.sink->Notice(fmt::format("{} \"{}\" does not exist, skipping", drop.object_kind, drop.name.back()));
      return {tag};
    }
    FRESHET_THROW(sqlstate::kUndefinedObject, "{} \"{}\" does not exist", drop.object_kind, drop.name.back());
  }
  if (IsChangeLogJob(*t))
    throw SqlError(sqlstate::kWrongObjectType,
                   fmt::format("\"{}\" is the change log of a relation, dropped with its last consumer", t->name));
  DropRelations(args, DropClosure(args, {t}, drop.cascade, drop.object_kind));
  return {tag};
}

}  // namespace freshet
