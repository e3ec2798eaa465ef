#include "frontend/handler/handler.h"

#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"
#include "frontend/session.h"

namespace freshet {

namespace {

// Our own statements, by their struct.
struct ExtensionDispatch {
  const HandlerArgs& args;
  StatementOutcome operator()(const std::monostate&) const {
    throw SqlError(sqlstate::kInternalError, "not one of Freshet's statements");
  }
  StatementOutcome operator()(const FlushStatement&) const { return HandleFlush(args); }
  StatementOutcome operator()(const WaitStatement&) const { return HandleWait(args); }
  StatementOutcome operator()(const ShowObjectsStatement&) const { return HandleShowObjects(args); }
  StatementOutcome operator()(const ShowCreateStatement&) const { return HandleShowCreate(args); }
  StatementOutcome operator()(const ShowParametersStatement&) const { return HandleShowVariable(args, "all"); }
  StatementOutcome operator()(const ShowJobsStatement&) const { return HandleShowJobs(args); }
  StatementOutcome operator()(const CreateDatabaseIfNotExistsStatement&) const { return HandleCreateDatabase(args); }
  StatementOutcome operator()(const CreateSinkStatement&) const { return HandleCreateJob(args); }
  StatementOutcome operator()(const DropObjectStatement&) const { return HandleDropObject(args); }
  StatementOutcome operator()(const CancelJobsStatement&) const { return HandleCancelJobs(args); }
  StatementOutcome operator()(const AlterBackfillRateLimitStatement&) const {
    return HandleAlterBackfillRateLimit(args);
  }
  StatementOutcome operator()(const UseDatabaseStatement& use) const {
    args.session->SwitchDatabase(use.name);
    return {"SET"};
  }
  StatementOutcome operator()(const RecoverStatement&) const { return HandleRecover(args); }
  StatementOutcome operator()(const CreateSubscriptionStatement&) const { return HandleCreateJob(args); }
  StatementOutcome operator()(const DeclareSubscriptionCursorStatement&) const {
    return HandleDeclareSubscriptionCursor(args);
  }
  StatementOutcome operator()(const AlterOptionsStatement&) const { return HandleAlterOptions(args); }
};

}  // namespace

Instance* HandlerArgs::instance() const { return session->instance(); }

void DiscardingSink::BeginCopyIn(size_t, bool) {
  throw SqlError(sqlstate::kInternalError, "COPY with no client to read from");
}

StatementOutcome HandleStatement(const HandlerArgs& args) {
  if (args.stmt.is_extension()) return std::visit(ExtensionDispatch{args}, args.stmt.extension);
  const PgQuery__Node* node = args.stmt.node;
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
      if (node->select_stmt->into_clause) return HandleSelectInto(args);
      return HandleQuery(args);
    case PG_QUERY__NODE__NODE_INSERT_STMT:
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
    case PG_QUERY__NODE__NODE_DELETE_STMT: return HandleQuery(args);
    case PG_QUERY__NODE__NODE_EXPLAIN_STMT: return HandleExplain(args);
    case PG_QUERY__NODE__NODE_TRANSACTION_STMT: return HandleTransaction(args);
    case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT: return HandleSet(args);
    case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT: return HandleShowVariable(args, node->variable_show_stmt->name);
    case PG_QUERY__NODE__NODE_COPY_STMT: return HandleCopy(args);
    case PG_QUERY__NODE__NODE_COMMENT_STMT: return HandleComment(args);
    case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT: return HandleDeclareCursor(args);
    case PG_QUERY__NODE__NODE_FETCH_STMT: return HandleFetch(args);
    case PG_QUERY__NODE__NODE_CLOSE_PORTAL_STMT: return HandleCloseCursor(args);
    case PG_QUERY__NODE__NODE_PREPARE_STMT: return HandlePrepare(args);
    case PG_QUERY__NODE__NODE_EXECUTE_STMT: return HandleExecute(args);
    case PG_QUERY__NODE__NODE_DEALLOCATE_STMT: return HandleDeallocate(args);
    case PG_QUERY__NODE__NODE_DISCARD_STMT: return HandleDiscard(args);
    case PG_QUERY__NODE__NODE_LISTEN_STMT:
    case PG_QUERY__NODE__NODE_UNLISTEN_STMT:
    case PG_QUERY__NODE__NODE_NOTIFY_STMT: return HandleNotification(args);
    case PG_QUERY__NODE__NODE_CREATE_STMT: return HandleCreateTable(args);
    case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT: return HandleCreateSequence(args);
    case PG_QUERY__NODE__NODE_ALTER_SEQ_STMT: return HandleAlterSequence(args);
    case PG_QUERY__NODE__NODE_VIEW_STMT: return HandleCreateView(args);
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
      if (node->create_table_as_stmt->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE)
        return HandleCreateTableAs(args, node->create_table_as_stmt->into, node->create_table_as_stmt->query,
                                   node->create_table_as_stmt->if_not_exists);
      return HandleCreateJob(args);
    case PG_QUERY__NODE__NODE_INDEX_STMT:
      if (args.stmt.node->index_stmt->unique) return HandleCreateUniqueIndex(args);
      return HandleCreateJob(args);
    case PG_QUERY__NODE__NODE_ALTER_SYSTEM_STMT: return HandleAlterSystem(args);
    case PG_QUERY__NODE__NODE_CREATEDB_STMT: return HandleCreateDatabase(args);
    case PG_QUERY__NODE__NODE_DROPDB_STMT: return HandleDropDatabase(args);
    case PG_QUERY__NODE__NODE_ALTER_DATABASE_STMT:
    case PG_QUERY__NODE__NODE_ALTER_DATABASE_SET_STMT: return HandleAlterDatabase(args);
    case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT: return HandleCreateRole(args);
    case PG_QUERY__NODE__NODE_DROP_ROLE_STMT: return HandleDropRole(args);
    case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT: return HandleCreateSchema(args);
    case PG_QUERY__NODE__NODE_CREATE_EXTENSION_STMT: return HandleCreateExtension(args);
    case PG_QUERY__NODE__NODE_DO_STMT: return HandleDo(args);
    case PG_QUERY__NODE__NODE_DROP_STMT: return HandleDrop(args);
    case PG_QUERY__NODE__NODE_CREATE_ENUM_STMT: return HandleCreateEnum(args);
    case PG_QUERY__NODE__NODE_ALTER_ENUM_STMT: return HandleAlterEnum(args);
    case PG_QUERY__NODE__NODE_CREATE_DOMAIN_STMT: return HandleCreateDomain(args);
    case PG_QUERY__NODE__NODE_CREATE_FUNCTION_STMT: return HandleCreateFunction(args);
    case PG_QUERY__NODE__NODE_ALTER_DOMAIN_STMT: return HandleAlterDomain(args);
    case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT: return HandleAlterTable(args);
    case PG_QUERY__NODE__NODE_RENAME_STMT: return HandleRename(args);
    case PG_QUERY__NODE__NODE_ALTER_OBJECT_SCHEMA_STMT: return HandleAlterObjectSchema(args);
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT: return HandleTruncate(args);
    case PG_QUERY__NODE__NODE_VACUUM_STMT: return HandleVacuum(args);
    case PG_QUERY__NODE__NODE_REINDEX_STMT: return HandleReindex(args);
    case PG_QUERY__NODE__NODE_CLUSTER_STMT: return HandleCluster(args);
    case PG_QUERY__NODE__NODE_LOCK_STMT: return HandleLock(args);
    case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT: return HandleAlterOwner(args);
    case PG_QUERY__NODE__NODE_ALTER_SUBSCRIPTION_STMT: return HandleAlterSubscription(args);
    case PG_QUERY__NODE__NODE_REFRESH_MAT_VIEW_STMT: return HandleRefreshMaterializedView(args);
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "statement " + NodeTag(node) + " is not supported yet");
}

void SendRows(const HandlerArgs& args, const std::vector<ColumnDesc>& columns, const DataChunk& chunk) {
  if (args.portal) {
    args.portal->columns = columns;
    args.portal->chunks.clear();
    if (chunk.num_rows() > 0) args.portal->chunks.push_back(chunk);
    args.portal->filled = true;
    return;
  }
  args.sink->Describe(columns);
  if (chunk.num_rows() > 0) args.sink->Rows(chunk);
}

void SendTextRows(const HandlerArgs& args, const std::vector<ColumnDesc>& columns,
                  const std::vector<std::vector<std::string>>& rows) {
  DataChunk chunk(std::vector<DataType>(columns.size(), DataType::Varchar()));
  for (const auto& r : rows) {
    Row row;
    for (const auto& v : r) row.push_back(Value::Varchar(v));
    chunk.AppendRow(row);
  }
  SendRows(args, columns, chunk);
}

namespace {

// Statements that only read, whose rows say what they return.
bool DescribedByRunning(const ParsedStatement& stmt) {
  if (stmt.is_extension())
    return std::holds_alternative<ShowObjectsStatement>(stmt.extension) ||
           std::holds_alternative<ShowCreateStatement>(stmt.extension) ||
           std::holds_alternative<ShowParametersStatement>(stmt.extension) ||
           std::holds_alternative<ShowJobsStatement>(stmt.extension);
  return stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT;
}

}  // namespace

std::vector<ColumnDesc> DescribeUtility(Session* session, const ParsedStatement& stmt,
                                        const std::vector<Value>* params) {
  if (std::holds_alternative<CancelJobsStatement>(stmt.extension)) return {{"Id", DataType::Int64()}};
  // Not run: its statement may use parameters that describing has no values for.
  if (stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_EXPLAIN_STMT) return {{"QUERY PLAN", DataType::Varchar()}};
  if (stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_FETCH_STMT)
    return DescribeFetch(session, stmt.node->fetch_stmt);
  if (stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_EXECUTE_STMT)
    return session->DescribeStatement(stmt.node->execute_stmt->name);
  if (!DescribedByRunning(stmt)) return {};
  DiscardingSink sink;
  HandleStatement(HandlerArgs{session, stmt, &sink, params, nullptr});
  return sink.columns;
}

}  // namespace freshet
