// CREATE TABLE name [(columns)] AS query [WITH [NO] DATA] and SELECT ...
// INTO name: a plain table with the query's columns (their names, or the
// ones given, and types; no key: rows get a hidden row id, as a CREATE
// TABLE without a primary key), filled with the query's rows by an INSERT
// of the same query. As PostgreSQL: the tag is SELECT n (CREATE TABLE AS
// with WITH NO DATA or when IF NOT EXISTS skips), more column names than
// the query has are 42601, a name twice 42701, TEMP / ON COMMIT /
// WITH (storage parameters) as CREATE TABLE takes them.
//
// In a transaction block the table and its rows commit or roll back
// together with the block. Outside one the table is stored first, then
// the rows are written; a query that fails drops the table again, so
// that the statement leaves nothing behind (a crash between the two
// leaves the table empty).
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>
#include <spdlog/spdlog.h>

#include "binder/binder.h"
#include "catalog/storage_parameters.h"
#include "common/error.h"
#include "frontend/handler/create_table_as.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/handler/table_definition.h"
#include "frontend/session.h"

namespace freshet {

namespace {

// The table's columns: the query's visible ones, named by `into` where it
// names them.
std::vector<ColumnCatalog> ColumnsOf(const PlanNode& plan, const PgQuery__IntoClause* into) {
  std::vector<ColumnCatalog> columns;
  for (const auto& c : plan.schema()) {
    if (c.hidden) continue;
    ColumnCatalog col{c.name, c.type};
    if (columns.size() < into->n_col_names) col.name = StringOf(into->col_names[columns.size()]);
    columns.push_back(std::move(col));
  }
  if (into->n_col_names > columns.size()) throw SqlError(sqlstate::kSyntaxError, "too many column names were specified");
  for (size_t i = 0; i < columns.size(); i++)
    for (size_t j = 0; j < i; j++)
      if (columns[i].name == columns[j].name)
        FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" specified more than once", columns[i].name);
  return columns;
}

}  // namespace

StatementOutcome HandleCreateTableAs(const HandlerArgs& args, const PgQuery__IntoClause* into, PgQuery__Node* query,
                                     bool if_not_exists) {
  Session* session = args.session;
  if (query->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
    throw SqlError(sqlstate::kFeatureNotSupported, "CREATE TABLE AS EXECUTE is not supported");
  const PgQuery__RangeVar* rel = into->rel;
  const bool temporary = rel->relpersistence && std::string(rel->relpersistence) == "t";
  const bool on_commit = into->on_commit != PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_NOOP &&
                         into->on_commit != PG_QUERY__ON_COMMIT_ACTION__ON_COMMIT_ACTION_UNDEFINED;
  if (on_commit && !temporary)
    throw SqlError(sqlstate::kInvalidTableDefinition, "ON COMMIT can only be used on temporary tables");
  Catalog* catalog = session->DdlCatalog();
  ObjectId schema_id = CreationSchema(args, rel, temporary);
  if (catalog->FindTable(schema_id, rel->relname)) {
    if (if_not_exists) {
      args.sink->Notice(fmt::format("relation \"{}\" already exists, skipping", rel->relname));
      return {"CREATE TABLE AS"};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", rel->relname);
  }

  // The query as the INSERT that fills the table reads it.
  PgQuery__InsertStmt insert = PG_QUERY__INSERT_STMT__INIT;
  insert.relation = const_cast<PgQuery__RangeVar*>(rel);
  insert.select_stmt = query;
  insert.override = PG_QUERY__OVERRIDING_KIND__OVERRIDING_NOT_SET;
  PgQuery__Node insert_node = PG_QUERY__NODE__INIT;
  insert_node.node_case = PG_QUERY__NODE__NODE_INSERT_STMT;
  insert_node.insert_stmt = &insert;
  ParsedStatement insert_stmt = args.stmt;
  insert_stmt.node = &insert_node;

  std::vector<DataType> param_types;
  if (args.params)
    for (const auto& p : *args.params) param_types.push_back(p.type());
  PlanPtr query_plan = Binder(session->BinderContextFor(args.stmt, &param_types)).BindQuery(query);

  TableCatalog t;
  t.database_id = session->database().id;
  t.schema_id = schema_id;
  t.name = rel->relname;
  t.owner = catalog->FindUser(session->user())->id;
  t.columns = ColumnsOf(*query_plan, into);
  if (t.columns.empty()) throw SqlError(sqlstate::kInvalidTableDefinition, "a table must have at least one column");
  t.columns.push_back(ColumnCatalog{"_row_id", DataType::Int64(), true, true, ""});
  t.row_id_index = static_cast<int>(t.columns.size()) - 1;
  t.pk = {t.row_id_index};
  t.dist_key = t.pk;
  t.storage_options = StorageParametersOf(into->options, into->n_options);
  t.definition = NormalizedCreateTable(t);
  ObjectId id = catalog->CreateTable(std::move(t))->id;
  session->NoteCreatedOrTruncated(id);
  if (into->on_commit == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DROP) session->NoteOnCommit(id, /*drop=*/true);
  if (into->on_commit == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DELETE_ROWS) session->NoteOnCommit(id, /*drop=*/false);
  if (into->skip_data) return {"CREATE TABLE AS"};

  try {
    PlanPtr plan = PlanStatement(session, insert_stmt, &param_types);
    return RunPlan(HandlerArgs{session, insert_stmt, args.sink, args.params, nullptr, nullptr}, *plan, "SELECT ");
  } catch (...) {
    // Outside a block the table is already stored: the failed statement
    // takes it away again (in a block, the block's rollback does).
    if (!session->InDdlBlock()) {
      try {
        DropRelations(args, {id});
      } catch (const std::exception& e) {
        spdlog::warn("could not drop table {} after a failed CREATE TABLE AS: {}", id, e.what());
      }
    }
    throw;
  }
}

StatementOutcome HandleSelectInto(const HandlerArgs& args) {
  SelectWithoutInto query(*args.stmt.node->select_stmt);
  return HandleCreateTableAs(args, args.stmt.node->select_stmt->into_clause, &query.node, /*if_not_exists=*/false);
}

}  // namespace freshet
