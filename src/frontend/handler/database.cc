// CREATE DATABASE [IF NOT EXISTS], DROP DATABASE, CREATE SCHEMA, ALTER
// SCHEMA ... OWNER TO (DROP SCHEMA is in drop.cc).
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "catalog/system_tables.h"
#include "catalog/temp_schema.h"
#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandleCreateDatabase(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("CREATE DATABASE");
  Catalog* catalog = args.instance()->catalog();
  if (const auto* ext = std::get_if<CreateDatabaseIfNotExistsStatement>(&args.stmt.extension)) {
    if (catalog->FindDatabase(ext->name)) {
      args.sink->Notice(fmt::format("database \"{}\" already exists, skipping", ext->name));
    } else {
      catalog->CreateDatabase(ext->name, catalog->FindUser(args.session->user())->id);
    }
    return {"CREATE DATABASE"};
  }
  std::string name = args.stmt.node->createdb_stmt->dbname;
  catalog->CreateDatabase(name, catalog->FindUser(args.session->user())->id);
  return {"CREATE DATABASE"};
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
  for (const auto& t : catalog->ListTables(db->id)) tables.push_back(t->id);
  args.instance()->DropDatabase(db->id);
  catalog->DropObjects({db->id}, schemas, tables);
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
