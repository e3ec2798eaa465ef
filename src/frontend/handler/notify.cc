// LISTEN channel, UNLISTEN { channel | * }, NOTIFY channel [, 'payload']:
// PostgreSQL's asynchronous notifications (frontend/notifications.h; the
// session applies them at commit, the connection sends what arrives).
#include <pg_query/pg_query.pb-c.h>

#include <string>

#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandleNotification(const HandlerArgs& args) {
  const PgQuery__Node* node = args.stmt.node;
  Session* session = args.session;
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_LISTEN_STMT:
      session->Listen(node->listen_stmt->conditionname);
      return {"LISTEN"};
    case PG_QUERY__NODE__NODE_UNLISTEN_STMT: {
      const char* channel = node->unlisten_stmt->conditionname;
      session->Unlisten(channel ? channel : "");
      return {"UNLISTEN"};
    }
    default: {
      const PgQuery__NotifyStmt* n = node->notify_stmt;
      session->Notify(n->conditionname, n->payload ? n->payload : "");
      return {"NOTIFY"};
    }
  }
}

}  // namespace freshet
