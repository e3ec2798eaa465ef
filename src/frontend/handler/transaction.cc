// BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, ROLLBACK
// TO: the session's transaction block (session.h).
#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandleTransaction(const HandlerArgs& args) {
  const PgQuery__TransactionStmt* t = args.stmt.node->transaction_stmt;
  switch (t->kind) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN: return args.session->Begin(false);
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START: return args.session->Begin(true);
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT: return args.session->Commit();
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK: return args.session->Rollback();
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_SAVEPOINT: return args.session->Savepoint(t->savepoint_name);
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE: return args.session->ReleaseSavepoint(t->savepoint_name);
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
      return args.session->RollbackToSavepoint(t->savepoint_name);
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "two-phase commit is not supported");
}

}  // namespace freshet
