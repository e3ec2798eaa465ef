// CREATE [OR REPLACE] VIEW name [(columns)] AS query: a stored query that
// the binder expands wherever the view is named (Binder::BindView), bound
// again each time with the search path it was created with. The query is
// bound here once, to check it and to learn the view's columns and the
// relations it depends on (DROP refuses to drop them under it, or drops
// the view along with CASCADE).
//
// As in PostgreSQL: OR REPLACE keeps the view's columns and may only add
// new ones at the end (42P16 otherwise); a query with parameters is
// refused (42P02). Not supported: temporary and recursive views, WITH
// CHECK OPTION, DML through views.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "binder/binder.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"

namespace freshet {

StatementOutcome HandleCreateView(const HandlerArgs& args) {
  Session* session = args.session;
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__ViewStmt* v = args.stmt.node->view_stmt;
  const PgQuery__RangeVar* rel = v->view;
  bool temporary = rel->relpersistence && std::string(rel->relpersistence) == "t";
  if (v->with_check_option != PG_QUERY__VIEW_CHECK_OPTION__NO_CHECK_OPTION &&
      v->with_check_option != PG_QUERY__VIEW_CHECK_OPTION__VIEW_CHECK_OPTION_UNDEFINED)
    throw SqlError(sqlstate::kFeatureNotSupported, "WITH CHECK OPTION is not supported: views cannot be written through");

  std::vector<DataType> params;
  std::vector<ObjectId> referenced, functions;
  BinderContext bctx = session->BinderContextFor(args.stmt, &params);
  bctx.referenced_relations = &referenced;
  bctx.referenced_functions = &functions;
  bctx.bind_function_bodies = false;
  Binder binder(bctx);
  PlanPtr plan = binder.BindQuery(v->query);
  if (!params.empty()) throw SqlError("42P02", "there is no parameter $1");
  // A view of temporary relations is temporary itself, as PostgreSQL's.
  if (!temporary && ReadsTemporaryRelation(*catalog, referenced)) {
    temporary = true;
    args.sink->Notice(fmt::format("view \"{}\" will be a temporary view", rel->relname));
  }
  ObjectId schema_id = CreationSchema(args, rel, temporary);

  TableCatalog view;
  view.database_id = session->database().id;
  view.schema_id = schema_id;
  view.owner = catalog->FindUser(session->user())->id;
  view.name = rel->relname;
  view.kind = RelationKind::kView;
  view.definition = args.stmt.text;
  view.view_query = ViewQueryText(args.stmt);
  view.plan_settings["search_path"] = JoinSearchPath(bctx.search_path);
  size_t visible = 0;
  for (const auto& c : plan->schema()) {
    if (c.hidden) continue;
    ColumnCatalog col{c.name, c.type};
    if (visible < v->n_aliases) col.name = StringOf(v->aliases[visible]);
    visible++;
    if (view.ColumnIndex(col.name) >= 0)
      FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" specified more than once", col.name);
    view.columns.push_back(std::move(col));
  }
  if (v->n_aliases > visible)
    throw SqlError(sqlstate::kSyntaxError, "CREATE VIEW specifies more column names than columns");
  if (view.columns.empty()) throw SqlError(sqlstate::kInvalidTableDefinition, "views must have at least one column");
  std::sort(referenced.begin(), referenced.end());
  referenced.erase(std::unique(referenced.begin(), referenced.end()), referenced.end());
  view.depends_on = referenced;
  std::sort(functions.begin(), functions.end());
  functions.erase(std::unique(functions.begin(), functions.end()), functions.end());
  view.function_deps = functions;
  for (ObjectId id : referenced)
    if (TableRef input = catalog->GetTable(id)) view.input_columns[id] = static_cast<int>(input->columns.size());

  TableRef existing = catalog->FindTable(schema_id, view.name);
  if (!existing) {
    catalog->CreateTable(std::move(view));
    return {"CREATE VIEW"};
  }
  if (!v->replace) FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", view.name);
  if (existing->kind != RelationKind::kView)
    FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a view", view.name);
  if (std::find(referenced.begin(), referenced.end(), existing->id) != referenced.end())
    FRESHET_THROW("42P17", "infinite recursion detected in rules for relation \"{}\"", view.name);
  // The old columns must stay, in order, with their names and types.
  if (view.columns.size() < existing->columns.size())
    throw SqlError(sqlstate::kInvalidTableDefinition, "cannot drop columns from view");
  for (size_t i = 0; i < existing->columns.size(); i++) {
    const ColumnCatalog& was = existing->columns[i];
    const ColumnCatalog& now = view.columns[i];
    if (was.name != now.name)
      FRESHET_THROW(sqlstate::kInvalidTableDefinition, "cannot change name of view column \"{}\" to \"{}\"", was.name,
                    now.name);
    if (was.type != now.type)
      FRESHET_THROW(sqlstate::kInvalidTableDefinition, "cannot change data type of view column \"{}\" from {} to {}",
                    was.name, was.type.ToString(), now.type.ToString());
  }
  catalog->ReplaceView(existing->id, view);
  return {"CREATE VIEW"};
}

}  // namespace freshet
