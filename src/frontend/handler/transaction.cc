// BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, ROLLBACK
// TO: the session's transaction block (session.h); LOCK TABLE.
#include <pg_query/pg_query.pb-c.h>

#include "binder/binder.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

// READ ONLY / READ WRITE among the options of BEGIN or SET TRANSACTION
// (the grammar's DefElem transaction_read_only, 1 or 0); the last wins.
std::optional<bool> ReadOnlyOption(PgQuery__Node* const* options, size_t n) {
  std::optional<bool> read_only;
  for (size_t i = 0; i < n; i++) {
    if (options[i]->node_case != PG_QUERY__NODE__NODE_DEF_ELEM) continue;
    const PgQuery__DefElem* d = options[i]->def_elem;
    if (std::string_view(d->defname) != "transaction_read_only" || !d->arg) continue;
    if (d->arg->node_case == PG_QUERY__NODE__NODE_A_CONST && d->arg->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
      read_only = d->arg->a_const->ival->ival != 0;
  }
  return read_only;
}

StatementOutcome HandleTransaction(const HandlerArgs& args) {
  const PgQuery__TransactionStmt* t = args.stmt.node->transaction_stmt;
  switch (t->kind) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
      return args.session->Begin(false, ReadOnlyOption(t->options, t->n_options));
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START:
      return args.session->Begin(true, ReadOnlyOption(t->options, t->n_options));
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

// LOCK TABLE: a mode that conflicts with writes (SHARE and above) holds
// back every other session's writes to the tables to the end of the block
// (DmlManager::LockWrites), after any other session's hold on them ends;
// the weaker modes have nothing to wait for. Readers are never held back,
// not even by ACCESS EXCLUSIVE (they read a snapshot). Views are accepted
// (nothing to hold), other relations refused, as in PostgreSQL.
StatementOutcome HandleLock(const HandlerArgs& args) {
  Session* session = args.session;
  const PgQuery__LockStmt* l = args.stmt.node->lock_stmt;
  if (!session->InTransactionBlock())
    throw SqlError(sqlstate::kNoActiveTransaction, "LOCK TABLE can only be used in transaction blocks");
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  std::vector<TableRef> tables;
  for (size_t i = 0; i < l->n_relations; i++) {
    TableRef table = binder.ResolveRelation(l->relations[i]->range_var);
    if (table->kind != RelationKind::kTable && table->kind != RelationKind::kView)
      FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table or view", table->name);
    tables.push_back(table);
  }
  if (l->mode > kRowExclusiveLockMode)
    for (const TableRef& t : tables)
      if (t->kind == RelationKind::kTable) session->LockWrites(t->id, t->name, l->nowait);
  return {"LOCK TABLE"};
}

}  // namespace freshet
