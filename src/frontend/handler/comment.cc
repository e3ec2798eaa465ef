// COMMENT ON TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE | INDEX | COLUMN |
// SCHEMA ... IS 'text' | NULL: the comment kept with the relation, column or
// schema in the catalog (pg_description, obj_description, col_description, psql's \d+).
#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "sql/parser.h"

namespace freshet {

namespace {

struct CommentTarget {
  RelationKind kind;
  const char* name;  // as PostgreSQL's messages name the kind
};

std::optional<CommentTarget> TargetOf(PgQuery__ObjectType type) {
  switch (type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: return CommentTarget{RelationKind::kTable, "table"};
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: return CommentTarget{RelationKind::kView, "view"};
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW: return CommentTarget{RelationKind::kMaterializedView, "materialized view"};
    case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: return CommentTarget{RelationKind::kSequence, "sequence"};
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: return CommentTarget{RelationKind::kIndex, "index"};
    default: return std::nullopt;
  }
}

}  // namespace

StatementOutcome HandleComment(const HandlerArgs& args) {
  const PgQuery__CommentStmt* c = args.stmt.node->comment_stmt;
  if (c->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION) return HandleAlterFunction(args);
  if (c->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA) {
    SchemaCatalog schema = OwnedSchema(args, StringOf(c->object));
    args.session->DdlCatalog()->SetSchemaComment(schema.id, c->comment ? c->comment : "");
    return {"COMMENT"};
  }
  if (c->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_TYPE || c->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN)
    return CommentOnType(args);
  const bool column = c->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN;
  std::optional<CommentTarget> target = TargetOf(c->objtype);
  if (!column && !target)
    throw SqlError(sqlstate::kFeatureNotSupported, "COMMENT ON this kind of object is not supported");
  std::vector<std::string> name;
  const PgQuery__List* parts = c->object->list;
  for (size_t k = 0; k < parts->n_items; k++) name.push_back(StringOf(parts->items[k]));
  std::string column_name;
  if (column) {
    if (name.size() < 2)
      FRESHET_THROW(sqlstate::kSyntaxError, "column name must be qualified");
    column_name = name.back();
    name.pop_back();
  }
  TableRef t = FindRelation(args, name);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", name.back());
  // A primary key's index is not an object of its own here.
  if (target && t->kind != target->kind)
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a {}", t->name, target->name);
  if (column && (t->kind == RelationKind::kIndex || t->kind == RelationKind::kSequence))
    FRESHET_THROW(sqlstate::kWrongObjectType, "cannot set comment on relation \"{}\"", t->name);
  CheckOwner(args, *t);
  TableCatalog changed = *t;
  const std::string text = c->comment ? c->comment : "";
  if (column) {
    int index = changed.ColumnIndex(column_name);
    if (index < 0 || changed.columns[index].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", column_name,
                    t->name);
    changed.columns[index].comment = text;
  } else {
    changed.comment = text;
  }
  args.session->DdlCatalog()->AlterTable(changed);
  return {"COMMENT"};
}

}  // namespace freshet
