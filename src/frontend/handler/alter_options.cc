// GreptimeDB's option statements (issue 21): ALTER TABLE t SET 'key' =
// value / UNSET 'key' on a time-series table's options
// (catalog/timeseries_table.h), and ALTER DATABASE d SET 'ttl' = value /
// UNSET 'ttl', the TTL its time-series tables inherit.
#include <fmt/format.h>

#include "catalog/timeseries_table.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/handler/table_definition.h"
#include "frontend/session.h"

namespace freshet {

namespace {

StatementOutcome AlterDatabaseOptions(const HandlerArgs& args, const AlterOptionsStatement& a) {
  args.session->PreventInTransactionBlock("ALTER DATABASE");
  Catalog* catalog = args.instance()->catalog();
  const std::string& name = a.name.back();
  auto db = catalog->FindDatabase(name);
  if (!db) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", name);
  auto me = catalog->FindUser(args.session->user());
  if (!me || (!me->superuser && me->id != db->owner))
    FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of database {}", name);
  std::string ttl = db->ttl;
  for (const auto& [key, value] : a.set) {
    if (key != "ttl") FRESHET_THROW(sqlstate::kInvalidParameterValue, "Invalid database option key: {}", key);
    ttl = CheckTimeSeriesOptions({{"ttl", value}}).at("ttl");
  }
  for (const auto& key : a.unset) {
    if (key != "ttl") FRESHET_THROW(sqlstate::kInvalidParameterValue, "Invalid database option key: {}", key);
    ttl.clear();
  }
  catalog->SetDatabaseTimeToLive(db->id, ttl);
  // Its time-series tables without a TTL of their own follow it.
  for (const auto& t : catalog->ListTables(db->id))
    if (t->IsTimeSeries()) args.instance()->timeseries()->UpdateTable(t->id, EngineOptionsOf(*t, *catalog));
  return {"ALTER DATABASE"};
}

StatementOutcome AlterTableOptions(const HandlerArgs& args, const AlterOptionsStatement& a) {
  args.session->PreventInTransactionBlock("ALTER TABLE ... SET/UNSET options");
  Catalog* catalog = args.instance()->catalog();
  TableRef t = FindRelation(args, a.name);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", JoinNameParts(a.name));
  if (!t->IsTimeSeries())
    throw SqlError(sqlstate::kWrongObjectType,
                   fmt::format("\"{}\" is not a time-series table: only a table with a TIME INDEX has these options",
                               t->name))
        .WithHint("A plain table takes PostgreSQL's storage parameters: ALTER TABLE ... SET (name = value).");
  CheckOwner(args, *t);
  RelationDdlLock lock(args, t->schema_id, t->name);
  std::map<std::string, std::string> options = t->timeseries.options;
  for (const auto& [key, value] : a.set) options[key] = value;
  for (const auto& key : a.unset) {
    CheckTimeSeriesOptions({{key, key == "compaction.type" ? "twcs" : key == "append_mode" ? "false" : "1h"}});
    options.erase(key);
  }
  options = CheckTimeSeriesOptions(options);
  if ((options.count("append_mode") ? options.at("append_mode") : "false") != (t->timeseries.append_mode() ? "true" : "false"))
    throw SqlError(sqlstate::kFeatureNotSupported, "append_mode of a table cannot be changed");
  TableCatalog next = *t;
  next.timeseries.options = std::move(options);
  next.definition = NormalizedCreateTable(next);
  catalog->AlterTable(next);
  args.instance()->timeseries()->UpdateTable(next.id, EngineOptionsOf(next, *catalog));
  return {"ALTER TABLE"};
}

}  // namespace

StatementOutcome HandleAlterOptions(const HandlerArgs& args) {
  const auto& a = std::get<AlterOptionsStatement>(args.stmt.extension);
  return a.database ? AlterDatabaseOptions(args, a) : AlterTableOptions(args, a);
}

}  // namespace freshet
