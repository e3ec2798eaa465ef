// PREPARE, EXECUTE, DEALLOCATE and DISCARD: the session's prepared
// statements (shared with the protocol's named ones) and portals.
#include <pg_query/pg_query.pb-c.h>

#include "binder/binder.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandlePrepare(const HandlerArgs& args) {
  const PgQuery__PrepareStmt* p = args.stmt.node->prepare_stmt;
  std::vector<DataType> types;
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  for (size_t i = 0; i < p->n_argtypes; i++) types.push_back(binder.BindTypeName(p->argtypes[i]->type_name));
  args.session->PrepareSql(p->name, args.stmt, std::move(types));
  return {"PREPARE"};
}

StatementOutcome HandleExecute(const HandlerArgs& args) {
  const PgQuery__ExecuteStmt* e = args.stmt.node->execute_stmt;
  std::vector<DataType> types = args.session->DescribeStatementParams(e->name);
  if (e->n_params != types.size())
    FRESHET_THROW(sqlstate::kSyntaxError, "wrong number of parameters for prepared statement \"{}\"", e->name)
        .WithDetail(fmt::format("Expected {} parameters but got {}.", types.size(), e->n_params));
  // As EvaluateParams: each argument bound, coerced to its parameter's type
  // and computed before the statement runs.
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  std::vector<Value> params;
  for (size_t i = 0; i < e->n_params; i++) {
    ExprPtr arg = binder.BindExecuteArgument(e->params[i], types[i], static_cast<int>(i + 1));
    params.push_back(arg->EvalConstant(args.session->eval()));
  }
  return args.session->ExecutePrepared(e->name, params, args.sink, args.portal);
}

StatementOutcome HandleDeallocate(const HandlerArgs& args) {
  const char* name = args.stmt.node->deallocate_stmt->name;
  if (name && *name) {
    if (!args.session->ClosePrepared(name))
      FRESHET_THROW(sqlstate::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", name);
  } else {
    args.session->CloseAllPrepared();
    return {"DEALLOCATE ALL"};
  }
  return {"DEALLOCATE"};
}

StatementOutcome HandleDiscard(const HandlerArgs& args) {
  args.session->DiscardAll();
  return {"DISCARD ALL"};
}

}  // namespace freshet
