// CREATE DATABASE [IF NOT EXISTS], ALTER DATABASE, DROP DATABASE, CREATE SCHEMA, ALTER
// SCHEMA ... OWNER TO (DROP SCHEMA is in drop.cc).
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "catalog/system_tables.h"
#include "catalog/temp_schema.h"
#include "catalog/timeseries_table.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"

namespace freshet {

namespace {

// A database's options as (name, value text), from PostgreSQL's DefElems.
std::vector<std::pair<std::string, std::string>> DatabaseOptions(PgQuery__Node* const* options, size_t n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < n; i++) {
    const PgQuery__DefElem* d = options[i]->def_elem;
    std::string value;
    if (const PgQuery__Node* a = d->arg) {
      if (a->node_case == PG_QUERY__NODE__NODE_STRING) value = a->string->sval;
      else if (a->node_case == PG_QUERY__NODE__NODE_INTEGER) value = std::to_string(a->integer->ival);
      else if (a->node_case == PG_QUERY__NODE__NODE_FLOAT) value = a->float_->fval;
      else if (a->node_case == PG_QUERY__NODE__NODE_BOOLEAN) value = a->boolean->boolval ? "true" : "false";
      else value = StringOf(a);
    } else {
      value = "default";
    }
    out.emplace_back(d->defname, value);
  }
  return out;
}

// Applies the barrier settings among `options` to `settings` and returns
// the other options. "default" sets one back to the system's.
std::vector<std::pair<std::string, std::string>> TakeBarrierSettings(
    const std::vector<std::pair<std::string, std::string>>& options, DatabaseCatalog* settings) {
  std::vector<std::pair<std::string, std::string>> rest;
  for (const auto& [name, text] : options) {
    if (name != "barrier_interval_ms" && name != "checkpoint_frequency") {
      rest.emplace_back(name, text);
      continue;
    }
    int64_t value = 0;
    if (text != "default") {
      value = ParseIntegerSetting(name, text);
      CheckBarrierSetting(name, value);
    }
    (name == "barrier_interval_ms" ? settings->barrier_interval_ms : settings->checkpoint_frequency) = int(value);
  }
  return rest;
}

void ApplyBarrierSettings(const HandlerArgs& args, const DatabaseCatalog& d) {
  args.instance()->barriers()->SetDatabaseSettings(d.id, d.barrier_interval_ms, d.checkpoint_frequency);
}

}  // namespace

// CREATE DATABASE name [WITH] [OWNER = role] [barrier_interval_ms = n]
// [checkpoint_frequency = n] [PostgreSQL's other options, accepted]
StatementOutcome HandleCreateDatabase(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("CREATE DATABASE");
  Catalog* catalog = args.instance()->catalog();
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
  if (const auto* ext = std::get_if<CreateDatabaseIfNotExistsStatement>(&args.stmt.extension)) {
    if (ext->if_not_exists && catalog->FindDatabase(ext->name)) {
      args.sink->Notice(fmt::format("database \"{}\" already exists, skipping", ext->name));
      return {"CREATE DATABASE"};
    }
    name = ext->name;
    options = ext->options;
  } else {
    const PgQuery__CreatedbStmt* c = args.stmt.node->createdb_stmt;
    name = c->dbname;
    options = DatabaseOptions(c->options, c->n_options);
  }
  DatabaseCatalog settings;
  ObjectId owner = catalog->FindUser(args.session->user())->id;
  // PostgreSQL's options: the owner is taken, the others have no meaning
  // here (one encoding, one locale, no templates or tablespaces).
  static const std::set<std::string> kPostgresOptions = {
      "template", "encoding", "strategy", "locale", "lc_collate", "lc_ctype", "icu_locale", "icu_rules",
      "locale_provider", "collation_version", "tablespace", "allow_connections", "connection_limit",
      "is_template", "oid", "builtin_locale"};
  for (const auto& [option, value] : TakeBarrierSettings(options, &settings)) {
    if (option == "ttl") {
      settings.ttl = CheckTimeSeriesOptions({{"ttl", value}}).at("ttl");  // its time-series tables' default
    } else if (option == "owner") {
      if (value == "default") continue;
      auto user = catalog->FindUser(value);
      if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", value);
      owner = user->id;
    } else if (!kPostgresOptions.count(option)) {
      FRESHET_THROW(sqlstate::kSyntaxError, "option \"{}\" not recognized", option);
    }
  }
  DatabaseCatalog d = catalog->CreateDatabase(name, owner, settings);
  ApplyBarrierSettings(args, d);
  args.instance()->barriers()->ForDatabase(d.id);  // its epoch loop runs from now on
  return {"CREATE DATABASE"};
}

// ALTER DATABASE name SET barrier_interval_ms = n | RESET ... | WITH option
// = value ...: a database's own barrier settings (its owner or a superuser).
StatementOutcome HandleAlterDatabase(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("ALTER DATABASE");
  Catalog* catalog = args.instance()->catalog();
  const PgQuery__Node* node = args.stmt.node;
  std::string name = node->node_case == PG_QUERY__NODE__NODE_ALTER_DATABASE_SET_STMT
                         ? node->alter_database_set_stmt->dbname
                         : node->alter_database_stmt->dbname;
  auto db = catalog->FindDatabase(name);
  if (!db) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", name);
  auto me = catalog->FindUser(args.session->user());
  if (!me || (!me->superuser && me->id != db->owner))
    FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of database {}", name);
  std::vector<std::pair<std::string, std::string>> options;
  if (node->node_case == PG_QUERY__NODE__NODE_ALTER_DATABASE_SET_STMT) {
    const PgQuery__VariableSetStmt* set = node->alter_database_set_stmt->setstmt;
    std::string setting = set->name ? set->name : "";
    if (setting != "barrier_interval_ms" && setting != "checkpoint_frequency")
      FRESHET_THROW(sqlstate::kFeatureNotSupported,
                    "ALTER DATABASE ... SET is supported for barrier_interval_ms and checkpoint_frequency, not \"{}\"",
                    setting.empty() ? "ALL" : setting);
    if (set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE && set->n_args == 1)
      options.emplace_back(setting, std::to_string(IntegerSettingValue(setting, set->args[0])));
    else if (set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT || set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET)
      options.emplace_back(setting, "default");
    else
      FRESHET_THROW(sqlstate::kFeatureNotSupported, "ALTER DATABASE supports SET {0} = value, SET {0} TO DEFAULT and RESET {0}",
                    setting);
  } else {
    const PgQuery__AlterDatabaseStmt* a = node->alter_database_stmt;
    options = DatabaseOptions(a->options, a->n_options);
  }
  DatabaseCatalog settings = *db;
  for (const auto& [option, value] : TakeBarrierSettings(options, &settings))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "ALTER DATABASE ... WITH {} is not supported", option);
  catalog->SetDatabaseBarrierSettings(db->id, settings.barrier_interval_ms, settings.checkpoint_frequency);
  ApplyBarrierSettings(args, settings);
  return {"ALTER DATABASE"};
}

// RECOVER (every database; superuser only) and RECOVER DATABASE name (its
// owner or a superuser): the database's stream graph is rebuilt from its
// committed state, as after a failure; returns once that is under way.
StatementOutcome HandleRecover(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("RECOVER");
  Catalog* catalog = args.instance()->catalog();
  const auto& r = std::get<RecoverStatement>(args.stmt.extension);
  auto me = catalog->FindUser(args.session->user());
  std::vector<DatabaseCatalog> databases;
  if (r.database.empty()) {
    if (!me || !me->superuser) throw SqlError(sqlstate::kInsufficientPrivilege, "must be superuser to run RECOVER");
    databases = catalog->ListDatabases();
  } else {
    auto db = catalog->FindDatabase(r.database);
    if (!db) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", r.database);
    if (!me || (!me->superuser && me->id != db->owner))
      FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of database {} to recover it", r.database);
    databases.push_back(*db);
  }
  for (const auto& db : databases)
    args.instance()->barriers()->ForDatabase(db.id)->RequestRecovery(
        fmt::format("RECOVER by user {}", args.session->user()));
  return {"RECOVER"};
}

StatementOutcome HandleDropDatabase(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("DROP DATABASE");
  Catalog* catalog = args.instance()->catalog();
  const PgQuery__DropdbStmt* d = args.stmt.node->dropdb_stmt;
  auto db = catalog->FindDatabase(d->dbname);
  if (!db) {
    if (d->missing_ok) {
      args.sink->Notice(fmt::format("database \"{}\" does not exist, skipping", d->dbname));
      return {"DROP DATABASE"};
    }
    FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", d->dbname);
  }
  if (db->id == args.session->database().id)
    throw SqlError(sqlstate::kObjectInUse, "cannot drop the currently open database");
  std::vector<ObjectId> schemas, tables;
  for (const auto& s : catalog->ListSchemas(db->id)) schemas.push_back(s.id);
  for (const auto& t : catalog->ListTables(db->id)) {
    tables.push_back(t->id);
    // Relations of other databases that read it keep it (a drop never
    // reaches into another database).
    for (const auto& dep : catalog->Dependents(t->id))
      if (dep->database_id != db->id)
        throw SqlError(sqlstate::kDependentObjectsStillExist,
                       fmt::format("cannot drop database {} because other objects depend on it", db->name))
            .WithDetail(fmt::format("{} {} depends on {} {}", RelationKindName(dep->kind),
                                    DependentName(*catalog, *dep, *t), RelationKindName(t->kind), t->name))
            .WithHint("A drop never reaches into another database: drop the dependent objects there first.");
  }
  // The change logs its views read in other databases lose them as
  // consumers (and go with their last).
  const std::vector<TableRef> consumers = catalog->ListTables(db->id);
  args.instance()->DropDatabase(db->id);
  catalog->DropObjects({db->id}, schemas, tables);
  for (const auto& t : consumers)
    if (t->database_id == db->id) args.instance()->jobs()->ReleaseChangeLogs(*t);
  return {"DROP DATABASE"};
}

StatementOutcome HandleCreateSchema(const HandlerArgs& args) {
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__CreateSchemaStmt* s = args.stmt.node->create_schema_stmt;
  if (s->n_schema_elts) throw SqlError(sqlstate::kFeatureNotSupported, "CREATE SCHEMA with elements is not supported");
  std::string name = s->schemaname && *s->schemaname ? s->schemaname : args.session->user();
  if (catalog->FindSchema(args.session->database().id, name)) {
    if (s->if_not_exists) {
      args.sink->Notice(fmt::format("schema \"{}\" already exists, skipping", name));
      return {"CREATE SCHEMA"};
    }
    FRESHET_THROW(sqlstate::kDuplicateSchema, "schema \"{}\" already exists", name);
  }
  catalog->CreateSchema(args.session->database().id, name, catalog->FindUser(args.session->user())->id);
  return {"CREATE SCHEMA"};
}

// ALTER SCHEMA ... OWNER TO (pg_dump writes it for every schema it makes).
StatementOutcome HandleAlterOwner(const HandlerArgs& args) {
  const PgQuery__AlterOwnerStmt* s = args.stmt.node->alter_owner_stmt;
  if (s->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_TYPE || s->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN)
    return AlterTypeOwner(args);
  if (s->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION) return HandleAlterFunction(args);
  if (s->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_SUBSCRIPTION) {
    const PgQuery__RoleSpec* role = s->newowner;
    return AlterSubscriptionOwner(args, StringOf(s->object),
                                  role->rolename && *role->rolename ? role->rolename : args.session->user());
  }
  Catalog* catalog = args.session->DdlCatalog();
  if (s->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_DATABASE) {
    // pg_dumpall writes it for every database.
    std::string name = StringOf(s->object);
    auto db = catalog->FindDatabase(name);
    if (!db) FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", name);
    auto me = catalog->FindUser(args.session->user());
    if (!me || (!me->superuser && me->id != db->owner))
      FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of database {}", name);
    const PgQuery__RoleSpec* role = s->newowner;
    std::string owner = role->rolename && *role->rolename ? role->rolename : args.session->user();
    auto user = catalog->FindUser(owner);
    if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", owner);
    catalog->SetDatabaseOwner(db->id, user->id);
    return {"ALTER DATABASE"};
  }
  if (s->object_type != PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA)
    throw SqlError(sqlstate::kFeatureNotSupported, "ALTER ... OWNER TO is supported for schemas, databases and relations only");
  std::string name = StringOf(s->object);
  SchemaCatalog schema = OwnedSchema(args, name);
  if (IsSystemSchema(name) || IsTempSchemaName(name))
    FRESHET_THROW(sqlstate::kInsufficientPrivilege, "schema \"{}\" cannot be altered", name);
  const PgQuery__RoleSpec* role = s->newowner;
  std::string owner = role->rolename && *role->rolename ? role->rolename : args.session->user();
  auto user = catalog->FindUser(owner);
  if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", owner);
  catalog->SetSchemaOwner(schema.id, user->id);
  return {"ALTER SCHEMA"};
}

}  // namespace freshet
