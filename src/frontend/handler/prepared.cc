// DEALLOCATE and DISCARD: the session's prepared statements and portals.
#include <pg_query/pg_query.pb-c.h>

#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandleDeallocate(const HandlerArgs& args) {
  const char* name = args.stmt.node->deallocate_stmt->name;
  if (name && *name) args.session->ClosePrepared(name);
  else args.session->CloseAllPrepared();
  return {"DEALLOCATE"};
}

StatementOutcome HandleDiscard(const HandlerArgs& args) {
  args.session->DiscardAll();
  return {"DISCARD ALL"};
}

}  // namespace freshet
