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
};

}  // namespace

Instance* HandlerArgs::instance() const { return session->instance(); }

StatementOutcome HandleStatement(const HandlerArgs& args) {
  if (args.stmt.is_extension()) return std::visit(ExtensionDispatch{args}, args.stmt.extension);
  const PgQuery__Node* node = args.stmt.node;
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
    case PG_QUERY__NODE__NODE_INSERT_STMT:
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
    case PG_QUERY__NODE__NODE_DELETE_STMT: return HandleQuery(args);
    case PG_QUERY__NODE__NODE_EXPLAIN_STMT: return HandleExplain(args);
    case PG_QUERY__NODE__NODE_TRANSACTION_STMT: return HandleTransaction(args);
    case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT: return HandleSet(args);
    case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT: return HandleShowVariable(args, node->variable_show_stmt->name);
    case PG_QUERY__NODE__NODE_COPY_STMT: return HandleCopy(args);
    case PG_QUERY__NODE__NODE_DEALLOCATE_STMT: return HandleDeallocate(args);
    case PG_QUERY__NODE__NODE_DISCARD_STMT: return HandleDiscard(args);
    case PG_QUERY__NODE__NODE_CREATE_STMT: return HandleCreateTable(args);
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
    case PG_QUERY__NODE__NODE_INDEX_STMT: return HandleCreateJob(args);
    case PG_QUERY__NODE__NODE_ALTER_SYSTEM_STMT: return HandleAlterSystem(args);
    case PG_QUERY__NODE__NODE_CREATEDB_STMT: return HandleCreateDatabase(args);
    case PG_QUERY__NODE__NODE_DROPDB_STMT: return HandleDropDatabase(args);
    case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT: return HandleCreateRole(args);
    case PG_QUERY__NODE__NODE_DROP_ROLE_STMT: return HandleDropRole(args);
    case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT: return HandleCreateSchema(args);
    case PG_QUERY__NODE__NODE_DROP_STMT: return HandleDrop(args);
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "statement " + NodeTag(node) + " is not supported yet");
}

void SendTextRows(ResultSink* sink, const std::vector<ColumnDesc>& columns,
                  const std::vector<std::vector<std::string>>& rows) {
  sink->Describe(columns);
  DataChunk chunk(std::vector<DataType>(columns.size(), DataType::Varchar()));
  for (const auto& r : rows) {
    Row row;
    for (const auto& v : r) row.push_back(Value::Varchar(v));
    chunk.AppendRow(row);
  }
  if (!rows.empty()) sink->Rows(chunk);
}

}  // namespace freshet
