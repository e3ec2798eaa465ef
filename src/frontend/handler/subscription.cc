// ALTER SUBSCRIPTION (RisingWave's subscriptions, not PostgreSQL's logical
// replication): SET (retention = '...'), RENAME TO, OWNER TO. PostgreSQL's
// grammar parses the first as its subscription options, the others as the
// generic RENAME and OWNER TO statements, which hand subscriptions here.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "common/identifier.h"

#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/instance.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"
#include "meta/stream_jobs.h"

namespace freshet {

namespace {

// The subscription `name` (search path), its owner's to alter.
TableRef OwnedSubscription(const HandlerArgs& args, const std::string& name) {
  // Its record in the change log is written at once, outside any block.
  if (args.session->InDdlBlock())
    throw SqlError(sqlstate::kActiveTransaction, "ALTER SUBSCRIPTION cannot run inside a transaction block");
  TableRef sub = FindRelation(args, {name});
  if (!sub || sub->kind != RelationKind::kSubscription || IsChangeLogJob(*sub))
    FRESHET_THROW(sqlstate::kUndefinedObject, "subscription \"{}\" does not exist", name);
  CheckOwner(args, *sub);
  return sub;
}

// CREATE SUBSCRIPTION as it stands after an ALTER (SHOW CREATE, rw_subscriptions).
std::string Definition(const HandlerArgs& args, const TableCatalog& sub, const std::string& retention) {
  Catalog* catalog = args.session->catalog();
  TableRef relation = sub.depends_on.empty() ? nullptr : catalog->GetTable(sub.depends_on[0]);
  auto schema = relation ? catalog->GetSchema(relation->schema_id) : std::nullopt;
  if (!relation || !schema) return sub.definition;
  return fmt::format("CREATE SUBSCRIPTION {} FROM {}.{} WITH (retention = '{}')", QuoteIdent(sub.name),
                     QuoteIdent(schema->name), QuoteIdent(relation->name), retention);
}

std::string RetentionText(const TableCatalog& sub) {
  auto text = sub.plan_settings.find("retention");
  if (text != sub.plan_settings.end()) return text->second;
  auto ms = sub.plan_settings.find("retention_ms");
  return fmt::format("{} seconds", ms == sub.plan_settings.end() ? 0 : std::stoll(ms->second) / 1000);
}

}  // namespace

StatementOutcome HandleAlterSubscription(const HandlerArgs& args) {
  const PgQuery__AlterSubscriptionStmt* s = args.stmt.node->alter_subscription_stmt;
  if (s->kind != PG_QUERY__ALTER_SUBSCRIPTION_TYPE__ALTER_SUBSCRIPTION_OPTIONS)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "ALTER SUBSCRIPTION takes SET (retention = ...), RENAME TO and OWNER TO: a subscription here is "
                   "RisingWave's, not PostgreSQL's logical replication");
  TableRef sub = OwnedSubscription(args, s->subname);
  std::string retention;
  for (size_t i = 0; i < s->n_options; i++) {
    const PgQuery__DefElem* d = s->options[i]->def_elem;
    if (std::string(d->defname) != "retention")
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "unknown subscription option \"{}\"", d->defname);
    if (!d->arg || d->arg->node_case != PG_QUERY__NODE__NODE_STRING)
      throw SqlError(sqlstate::kInvalidParameterValue, "retention is an interval in quotes, such as '1D'");
    retention = d->arg->string->sval;
  }
  if (retention.empty()) throw SqlError(sqlstate::kInvalidParameterValue, "ALTER SUBSCRIPTION needs SET (retention = '...')");
  TableCatalog next = *sub;
  next.plan_settings["retention_ms"] = std::to_string(ParseRetentionMs(retention));
  next.plan_settings["retention"] = retention;
  next.definition = Definition(args, next, retention);
  args.instance()->jobs()->AlterSubscription(next);
  return {"ALTER_SUBSCRIPTION"};
}

StatementOutcome RenameSubscription(const HandlerArgs& args, const std::string& name, const std::string& new_name) {
  TableRef sub = OwnedSubscription(args, name);
  TableCatalog next = *sub;
  next.name = new_name;
  next.definition = Definition(args, next, RetentionText(*sub));
  args.instance()->jobs()->AlterSubscription(next);
  return {"ALTER_SUBSCRIPTION"};
}

StatementOutcome AlterSubscriptionOwner(const HandlerArgs& args, const std::string& name, const std::string& owner) {
  TableRef sub = OwnedSubscription(args, name);
  auto user = args.session->catalog()->FindUser(owner);
  if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", owner);
  TableCatalog next = *sub;
  next.owner = user->id;
  args.instance()->jobs()->AlterSubscription(next);
  return {"ALTER_SUBSCRIPTION"};
}

}  // namespace freshet
