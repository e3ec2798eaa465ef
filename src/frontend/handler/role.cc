// CREATE ROLE / USER and DROP ROLE / USER. Authentication is trust: a role
// is a name to connect as and an owner of objects.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandleCreateRole(const HandlerArgs& args) {
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__CreateRoleStmt* s = args.stmt.node->create_role_stmt;
  auto me = catalog->FindUser(args.session->user());
  if (!me || !me->superuser) throw SqlError(sqlstate::kInsufficientPrivilege, "permission denied to create role");
  bool superuser = false;
  for (size_t i = 0; i < s->n_options; i++) {
    const PgQuery__DefElem* opt = s->options[i]->def_elem;
    std::string name = opt->defname;
    bool on = !opt->arg || opt->arg->node_case != PG_QUERY__NODE__NODE_BOOLEAN || opt->arg->boolean->boolval;
    if (opt->arg && opt->arg->node_case == PG_QUERY__NODE__NODE_INTEGER) on = opt->arg->integer->ival != 0;
    if (name == "superuser") superuser = on;
    else if (name == "password" || name == "canlogin" || name == "inherit" || name == "createdb" ||
             name == "createrole" || name == "connectionlimit" || name == "validUntil")
      continue;  // accepted; authentication is trust and privileges are owner-based
    else FRESHET_THROW(sqlstate::kFeatureNotSupported, "role option \"{}\" is not supported", name);
  }
  catalog->CreateUser(s->role, superuser);
  return {s->stmt_type == PG_QUERY__ROLE_STMT_TYPE__ROLESTMT_USER ? "CREATE USER" : "CREATE ROLE"};
}

StatementOutcome HandleDropRole(const HandlerArgs& args) {
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__DropRoleStmt* s = args.stmt.node->drop_role_stmt;
  auto me = catalog->FindUser(args.session->user());
  if (!me || !me->superuser) throw SqlError(sqlstate::kInsufficientPrivilege, "permission denied to drop role");
  for (size_t i = 0; i < s->n_roles; i++) {
    std::string name = s->roles[i]->role_spec->rolename;
    auto u = catalog->FindUser(name);
    if (!u) {
      if (s->missing_ok) {
        args.sink->Notice(fmt::format("role \"{}\" does not exist, skipping", name));
        continue;
      }
      FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", name);
    }
    if (name == args.session->user()) throw SqlError(sqlstate::kObjectInUse, "current user cannot be dropped");
    catalog->DropUser(u->id);
  }
  return {"DROP ROLE"};
}

}  // namespace freshet
