#include "catalog/system_tables.h"

#include <map>

namespace freshet {

namespace {

using T = DataType;

const std::vector<SystemTableDef>& Definitions() {
  static const std::vector<SystemTableDef> kDefs = {
      {"information_schema", "tables",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"table_type", T::Varchar()}, {"is_insertable_into", T::Varchar()}}},
      {"information_schema", "columns",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"column_name", T::Varchar()}, {"ordinal_position", T::Int32()}, {"column_default", T::Varchar()},
        {"is_nullable", T::Varchar()}, {"data_type", T::Varchar()}, {"character_maximum_length", T::Int32()},
        {"numeric_precision", T::Int32()}, {"numeric_scale", T::Int32()}, {"udt_name", T::Varchar()}}},
      {"information_schema", "schemata",
       {{"catalog_name", T::Varchar()}, {"schema_name", T::Varchar()}, {"schema_owner", T::Varchar()},
        {"default_character_set_catalog", T::Varchar()}, {"default_character_set_schema", T::Varchar()},
        {"default_character_set_name", T::Varchar()}, {"default_collation_name", T::Varchar()}, {"sql_path", T::Varchar()}}},
      {"pg_catalog", "pg_namespace",
       {{"oid", T::Int32()}, {"nspname", T::Varchar()}, {"nspowner", T::Int32()}, {"nspacl", T::Varchar()}}},
      {"pg_catalog", "pg_database",
       {{"oid", T::Int32()}, {"datname", T::Varchar()}, {"datdba", T::Int32()}, {"encoding", T::Int32()},
        {"datcollate", T::Varchar()}, {"datctype", T::Varchar()}, {"datallowconn", T::Boolean()},
        {"datconnlimit", T::Int32()}, {"dattablespace", T::Int32()}, {"datacl", T::Varchar()}}},
      {"pg_catalog", "pg_class",
       {{"oid", T::Int32()}, {"relname", T::Varchar()}, {"relnamespace", T::Int32()}, {"relowner", T::Int32()},
        {"relkind", T::Varchar()}, {"relpersistence", T::Varchar()}, {"reltuples", T::Float32()},
        {"relhasindex", T::Boolean()}, {"relispartition", T::Boolean()}, {"relam", T::Int32()},
        {"reltablespace", T::Int32()}, {"relnatts", T::Int16()}, {"relacl", T::Varchar()}}},
      {"pg_catalog", "pg_attribute",
       {{"attrelid", T::Int32()}, {"attname", T::Varchar()}, {"atttypid", T::Int32()}, {"attnum", T::Int16()},
        {"atttypmod", T::Int32()}, {"attnotnull", T::Boolean()}, {"atthasdef", T::Boolean()},
        {"attisdropped", T::Boolean()}, {"attidentity", T::Varchar()}, {"attgenerated", T::Varchar()},
        {"attcollation", T::Int32()}}},
      {"pg_catalog", "pg_type",
       {{"oid", T::Int32()}, {"typname", T::Varchar()}, {"typnamespace", T::Int32()}, {"typlen", T::Int16()},
        {"typtype", T::Varchar()}, {"typcategory", T::Varchar()}, {"typelem", T::Int32()},
        {"typrelid", T::Int32()}, {"typbasetype", T::Int32()}, {"typnotnull", T::Boolean()}}},
      {"pg_catalog", "pg_roles",
       {{"oid", T::Int32()}, {"rolname", T::Varchar()}, {"rolsuper", T::Boolean()}, {"rolcanlogin", T::Boolean()},
        {"rolcreatedb", T::Boolean()}, {"rolcreaterole", T::Boolean()}}},
      {"pg_catalog", "pg_user",
       {{"usesysid", T::Int32()}, {"usename", T::Varchar()}, {"usesuper", T::Boolean()}, {"usecreatedb", T::Boolean()}}},
      {"rw_catalog", "rw_databases", {{"id", T::Int32()}, {"name", T::Varchar()}, {"owner", T::Int32()}}},
      {"rw_catalog", "rw_schemas", {{"id", T::Int32()}, {"name", T::Varchar()}, {"owner", T::Int32()}}},
      {"rw_catalog", "rw_tables",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"definition", T::Varchar()}, {"append_only", T::Boolean()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_relations",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"relation_type", T::Varchar()}, {"schema_id", T::Int32()},
        {"owner", T::Int32()}, {"definition", T::Varchar()}}},
  };
  return kDefs;
}

Value Str(const std::string& s) { return Value::Varchar(s); }
Value NullStr() { return Value::Null(DataType::Varchar()); }
Value Int(int64_t v) { return Value::Int32(v); }

// PostgreSQL's name of a type as information_schema.columns.data_type shows it.
std::string InformationSchemaType(const DataType& t) {
  if (t.id == TypeId::kNumeric) return "numeric";
  if (t.IsText()) return "text";
  if (t.id == TypeId::kVarchar) return "character varying";
  return t.ToString();
}

std::string UdtName(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "bool";
    case TypeId::kInt16: return "int2";
    case TypeId::kInt32: return "int4";
    case TypeId::kInt64: return "int8";
    case TypeId::kFloat32: return "float4";
    case TypeId::kFloat64: return "float8";
    case TypeId::kNumeric: return "numeric";
    case TypeId::kVarchar: return t.IsText() ? "text" : "varchar";
    case TypeId::kBytea: return "bytea";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kTimestamptz: return "timestamptz";
    case TypeId::kInterval: return "interval";
    default: return "unknown";
  }
}

std::string UserName(const Catalog& c, ObjectId id) {
  auto u = c.GetUser(id);
  return u ? u->name : "";
}

const char* RelKind(RelationKind k) {
  switch (k) {
    case RelationKind::kTable: return "r";
    case RelationKind::kMaterializedView: return "m";
    case RelationKind::kIndex: return "i";
    case RelationKind::kSource: return "s";
    case RelationKind::kSink: return "k";
    case RelationKind::kInternal: return "r";
    case RelationKind::kSystem: return "v";
  }
  return "r";
}

const char* InformationSchemaTableType(RelationKind k) {
  switch (k) {
    case RelationKind::kTable: return "BASE TABLE";
    case RelationKind::kMaterializedView: return "MATERIALIZED VIEW";
    case RelationKind::kSource: return "SOURCE";
    case RelationKind::kSink: return "SINK";
    default: return "SYSTEM TABLE";
  }
}

void AddTypeRows(std::vector<Row>* rows, ObjectId pg_catalog_oid) {
  for (TypeId id : {TypeId::kBoolean, TypeId::kInt16, TypeId::kInt32, TypeId::kInt64, TypeId::kFloat32,
                    TypeId::kFloat64, TypeId::kNumeric, TypeId::kVarchar, TypeId::kBytea, TypeId::kDate,
                    TypeId::kTime, TypeId::kTimestamp, TypeId::kTimestamptz, TypeId::kInterval}) {
    DataType t(id);
    rows->push_back({Int(t.PgOid()), Str(UdtName(t)), Int(pg_catalog_oid), Value::Int16(t.PgTypeLen()), Str("b"),
                     Str(t.IsNumeric() ? "N" : t.IsString() ? "S" : t.IsTemporal() ? "D" : "U"), Int(0), Int(0),
                     Int(0), Value::Boolean(false)});
  }
  // text is varchar's preferred name in PostgreSQL catalogs.
  rows->push_back({Int(25), Str("text"), Int(pg_catalog_oid), Value::Int16(-1), Str("b"), Str("S"), Int(0), Int(0),
                   Int(0), Value::Boolean(false)});
}

}  // namespace

bool IsSystemSchema(const std::string& schema) {
  return schema == kPgCatalogSchema || schema == kInformationSchema || schema == kRwCatalogSchema;
}

const SystemTableDef* FindSystemTable(const std::string& schema, const std::string& name) {
  for (const auto& d : Definitions())
    if (d.schema == schema && d.name == name) return &d;
  return nullptr;
}

std::vector<Row> GenerateSystemRows(const SystemTableDef& def, const SystemTableContext& ctx) {
  const Catalog& c = *ctx.catalog;
  auto db = c.GetDatabase(ctx.database_id);
  std::string db_name = db ? db->name : "";
  std::map<ObjectId, SchemaCatalog> schemas;
  for (const auto& s : c.ListSchemas(ctx.database_id)) schemas[s.id] = s;
  auto schema_name = [&](ObjectId id) { return schemas.count(id) ? schemas[id].name : std::string(); };
  std::vector<TableRef> tables;
  for (const auto& t : c.ListTables(ctx.database_id))
    if (t->IsUserVisible()) tables.push_back(t);
  ObjectId pg_catalog_oid = 0;
  for (const auto& [id, s] : schemas)
    if (s.name == kPgCatalogSchema) pg_catalog_oid = ObjectOid(id);

  std::vector<Row> rows;
  const std::string key = def.schema + "." + def.name;
  if (key == "information_schema.tables") {
    for (const auto& t : tables)
      rows.push_back({Str(db_name), Str(schema_name(t->schema_id)), Str(t->name), Str(InformationSchemaTableType(t->kind)),
                      Str(t->kind == RelationKind::kTable ? "YES" : "NO")});
    for (const auto& d : Definitions())
      rows.push_back({Str(db_name), Str(d.schema), Str(d.name), Str("SYSTEM TABLE"), Str("NO")});
  } else if (key == "information_schema.columns") {
    for (const auto& t : tables) {
      int pos = 0;
      for (const auto& col : t->columns) {
        if (col.hidden) continue;
        bool not_null = col.not_null || std::find(t->pk.begin(), t->pk.end(), pos) != t->pk.end();
        pos++;
        const DataType& ty = col.type;
        rows.push_back({Str(db_name), Str(schema_name(t->schema_id)), Str(t->name), Str(col.name), Int(pos),
                        col.default_expr.empty() ? NullStr() : Str(col.default_expr), Str(not_null ? "NO" : "YES"),
                        Str(InformationSchemaType(ty)),
                        ty.id == TypeId::kVarchar && ty.precision >= 0 ? Int(ty.precision) : Value::Null(T::Int32()),
                        ty.id == TypeId::kNumeric && ty.precision >= 0 ? Int(ty.precision) : Value::Null(T::Int32()),
                        ty.id == TypeId::kNumeric && ty.precision >= 0 ? Int(ty.scale) : Value::Null(T::Int32()),
                        Str(UdtName(ty))});
      }
    }
  } else if (key == "information_schema.schemata") {
    for (const auto& [id, s] : schemas)
      rows.push_back({Str(db_name), Str(s.name), Str(UserName(c, s.owner)), NullStr(), NullStr(), Str("UTF8"),
                      NullStr(), NullStr()});
  } else if (key == "pg_catalog.pg_namespace") {
    for (const auto& [id, s] : schemas) rows.push_back({Int(ObjectOid(id)), Str(s.name), Int(s.owner), NullStr()});
  } else if (key == "pg_catalog.pg_database") {
    for (const auto& d : c.ListDatabases())
      rows.push_back({Int(ObjectOid(d.id)), Str(d.name), Int(d.owner), Int(6), Str("C"), Str("C"), Value::Boolean(true),
                      Int(-1), Int(1663), NullStr()});
  } else if (key == "pg_catalog.pg_class") {
    for (const auto& t : tables) {
      int16_t natts = 0;
      for (const auto& col : t->columns) natts += !col.hidden;
      rows.push_back({Int(ObjectOid(t->id)), Str(t->name), Int(ObjectOid(t->schema_id)), Int(t->owner), Str(RelKind(t->kind)),
                      Str("p"), Value::Float32(-1), Value::Boolean(false), Value::Boolean(false), Int(0), Int(0),
                      Value::Int16(natts), NullStr()});
    }
  } else if (key == "pg_catalog.pg_attribute") {
    for (const auto& t : tables) {
      int16_t num = 0;
      for (size_t i = 0; i < t->columns.size(); i++) {
        const auto& col = t->columns[i];
        if (col.hidden) continue;
        num++;
        bool not_null = col.not_null || std::find(t->pk.begin(), t->pk.end(), int(i)) != t->pk.end();
        rows.push_back({Int(ObjectOid(t->id)), Str(col.name), Int(col.type.PgOid()), Value::Int16(num),
                        Int(col.type.PgTypeMod()), Value::Boolean(not_null), Value::Boolean(!col.default_expr.empty()),
                        Value::Boolean(false), Str(""), Str(""), Int(0)});
      }
    }
  } else if (key == "pg_catalog.pg_type") {
    AddTypeRows(&rows, pg_catalog_oid);
  } else if (key == "pg_catalog.pg_roles") {
    for (const auto& u : c.ListUsers())
      rows.push_back({Int(u.id), Str(u.name), Value::Boolean(u.superuser), Value::Boolean(u.can_login),
                      Value::Boolean(u.superuser), Value::Boolean(u.superuser)});
  } else if (key == "pg_catalog.pg_user") {
    for (const auto& u : c.ListUsers())
      rows.push_back({Int(u.id), Str(u.name), Value::Boolean(u.superuser), Value::Boolean(u.superuser)});
  } else if (key == "rw_catalog.rw_databases") {
    for (const auto& d : c.ListDatabases()) rows.push_back({Int(d.id), Str(d.name), Int(d.owner)});
  } else if (key == "rw_catalog.rw_schemas") {
    for (const auto& [id, s] : schemas) rows.push_back({Int(id), Str(s.name), Int(s.owner)});
  } else if (key == "rw_catalog.rw_tables") {
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kTable) continue;
      rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner), Str(t->definition),
                      Value::Boolean(t->append_only), Value::Timestamptz(t->created_at_micros)});
    }
  } else if (key == "rw_catalog.rw_relations") {
    for (const auto& t : tables)
      rows.push_back({Int(t->id), Str(t->name), Str(RelationKindName(t->kind)), Int(t->schema_id), Int(t->owner),
                      Str(t->definition)});
  }
  return rows;
}

}  // namespace freshet
