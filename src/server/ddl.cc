// DDL and utility statements of a Session: CREATE/DROP DATABASE, SCHEMA and
// TABLE, EXPLAIN, FLUSH, SHOW TABLES/DATABASES/SCHEMAS, SHOW CREATE TABLE.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "common/error.h"
#include "expr/cast.h"
#include "planner/optimizer.h"
#include "server/session.h"
#include "connector/connector.h"
#include "server/stream_ddl.h"

namespace freshet {

namespace {

std::string StringOf(const PgQuery__Node* n) {
  return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : "";
}

std::string NodeTag(const PgQuery__Node* n) {
  const ProtobufCFieldDescriptor* f = protobuf_c_message_descriptor_get_field(&pg_query__node__descriptor, n->node_case);
  return f ? f->name : "unknown";
}

// The SQL text of a column's DEFAULT expression: from after the DEFAULT
// keyword up to the next top-level comma, closing parenthesis or
// constraint keyword.
std::string DefaultText(const std::string& stmt, int default_location) {
  std::vector<Token> tokens = Tokenize(stmt.substr(default_location));
  static const std::set<std::string> kStop = {"not", "null", "primary", "unique", "check", "references",
                                              "constraint", "default", "generated", "collate"};
  int depth = 0;
  size_t begin = std::string::npos, end = 0;
  for (size_t i = 1; i < tokens.size(); i++) {
    const Token& t = tokens[i];
    if (depth == 0 && (t.text == "," || t.text == ")")) break;
    bool after_is = tokens[i - 1].text == "is" || tokens[i - 1].text == "not";
    if (depth == 0 && i > 1 && t.kind == Token::Kind::kKeyword && kStop.count(t.text) && !after_is) break;
    if (t.text == "(") depth++;
    if (t.text == ")") depth--;
    if (begin == std::string::npos) begin = static_cast<size_t>(t.start);
    end = static_cast<size_t>(t.end);
  }
  if (begin == std::string::npos) return "";
  return stmt.substr(default_location + begin, end - begin);
}

std::string QuoteIdentIfNeeded(const std::string& name);

// RisingWave's spelling of a type in a normalized CREATE statement.
std::string RwTypeName(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "BOOLEAN";
    case TypeId::kInt16: return "SMALLINT";
    case TypeId::kInt32: return "INT";
    case TypeId::kInt64: return "BIGINT";
    case TypeId::kFloat32: return "REAL";
    case TypeId::kFloat64: return "DOUBLE";
    case TypeId::kNumeric:
      return t.precision >= 0 ? fmt::format("NUMERIC({},{})", t.precision, std::max(t.scale, 0)) : "NUMERIC";
    case TypeId::kVarchar:
      return t.precision >= 0 ? fmt::format("CHARACTER VARYING({})", t.precision) : "CHARACTER VARYING";
    case TypeId::kBytea: return "BYTEA";
    case TypeId::kDate: return "DATE";
    case TypeId::kTime: return "TIME";
    case TypeId::kTimestamp: return "TIMESTAMP";
    case TypeId::kTimestamptz: return "TIMESTAMP WITH TIME ZONE";
    case TypeId::kInterval: return "INTERVAL";
    case TypeId::kArray: return RwTypeName(t.ElementType()) + "[]";
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      bool first = true;
      for (const auto& [name, type] : t.StructFields()) {
        out += (first ? "" : ", ") + QuoteIdentIfNeeded(name) + " " + RwTypeName(type);
        first = false;
      }
      return out + ">";
    }
    default: return t.ToString();
  }
}

std::string QuoteIdentIfNeeded(const std::string& name) {
  bool simple = !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) simple &= std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  if (simple) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// The CREATE TABLE statement as RisingWave's SHOW CREATE TABLE prints it:
// normalized type names, no IF NOT EXISTS, hidden columns left out.
std::string NormalizedCreateTable(const TableCatalog& t) {
  std::string cols;
  bool single_pk = t.pk.size() == 1 && t.row_id_index < 0;
  for (size_t i = 0; i < t.columns.size(); i++) {
    const auto& c = t.columns[i];
    if (c.hidden) continue;
    bool in_pk = std::find(t.pk.begin(), t.pk.end(), static_cast<int>(i)) != t.pk.end();
    std::string def = QuoteIdentIfNeeded(c.name) + " " + RwTypeName(c.type);
    if (single_pk && in_pk) def += " PRIMARY KEY";
    else if (c.not_null && !in_pk) def += " NOT NULL";
    if (!c.default_expr.empty()) def += " DEFAULT " + c.default_expr;
    cols += (cols.empty() ? "" : ", ") + def;
  }
  if (t.pk.size() > 1) {
    std::string keys;
    for (int k : t.pk) keys += (keys.empty() ? "" : ", ") + QuoteIdentIfNeeded(t.columns[k].name);
    cols += ", PRIMARY KEY (" + keys + ")";
  }
  return "CREATE TABLE " + QuoteIdentIfNeeded(t.name) + " (" + cols + ")";
}

RelationKind KindOfDrop(PgQuery__ObjectType t, const char** name) {
  switch (t) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: *name = "table"; return RelationKind::kTable;
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW: *name = "materialized view"; return RelationKind::kMaterializedView;
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: *name = "index"; return RelationKind::kIndex;
    default: *name = "object"; return RelationKind::kSystem;
  }
}

}  // namespace

StatementOutcome Session::RunDdl(const ParsedStatement& stmt, ResultSink* sink) {
  Catalog* catalog = instance_->catalog();
  const PgQuery__Node* node = stmt.node;
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_CREATE_STMT: {
      const PgQuery__CreateStmt* cs = node->create_stmt;
      if (cs->n_inh_relations || cs->partspec || cs->of_typename)
        throw SqlError(sqlstate::kFeatureNotSupported, "inheritance, partitioning and typed tables are not supported");
      if (cs->relation->relpersistence && std::string(cs->relation->relpersistence) == "t")
        throw SqlError(sqlstate::kFeatureNotSupported, "temporary tables are not supported");
      Binder binder(BinderContextFor(stmt, nullptr));
      ObjectId schema_id = binder.ResolveSchemaId(cs->relation->schemaname);
      if (catalog->FindTable(schema_id, cs->relation->relname)) {
        if (cs->if_not_exists) {
          sink->Notice(fmt::format("relation \"{}\" already exists, skipping", cs->relation->relname));
          return {"CREATE TABLE"};
        }
        FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", cs->relation->relname);
      }
      TableCatalog t;
      t.database_id = database_.id;
      t.schema_id = schema_id;
      t.name = cs->relation->relname;
      t.definition = stmt.text;
      t.owner = instance_->catalog()->FindUser(user_)->id;
      std::vector<std::string> pk_names;
      auto add_pk = [&](const std::string& name) { pk_names.push_back(name); };
      bool pk_declared = false;
      auto declare_pk = [&] {
        if (pk_declared)
          FRESHET_THROW(sqlstate::kInvalidTableDefinition, "multiple primary keys for table \"{}\" are not allowed", t.name);
        pk_declared = true;
      };
      // PostgreSQL's MaxHeapAttributeNumber (and a SELECT * of the table
      // stays within the 1,664 entries of a target list).
      size_t column_defs = 0;
      for (size_t i = 0; i < cs->n_table_elts; i++)
        column_defs += cs->table_elts[i]->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF;
      if (column_defs > 1600) throw SqlError("54011", "tables can have at most 1600 columns");
      for (size_t i = 0; i < cs->n_table_elts; i++) {
        const PgQuery__Node* e = cs->table_elts[i];
        if (e->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
          const PgQuery__ColumnDef* cd = e->column_def;
          ColumnCatalog col;
          col.name = cd->colname;
          if (t.ColumnIndex(col.name) >= 0)
            FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" specified more than once", col.name);
          if (col.name == "_row_id")
            FRESHET_THROW(sqlstate::kDuplicateColumn, "column name \"_row_id\" is reserved for the hidden row id");
          col.type = binder.BindTypeName(cd->type_name);
          for (size_t k = 0; k < cd->n_constraints; k++) {
            const PgQuery__Constraint* c = cd->constraints[k]->constraint;
            switch (c->contype) {
              case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL: col.not_null = true; break;
              case PG_QUERY__CONSTR_TYPE__CONSTR_NULL: break;
              case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY:
                declare_pk();
                add_pk(col.name);
                break;
              case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT: {
                col.default_expr = DefaultText(stmt.text, c->location);
                // Validate it now: it must bind without columns and coerce.
                Binder check(BinderContextFor(stmt, nullptr));
                ExprPtr ex = check.BindConstantExpression(c->raw_expr);
                if (!(ex->type() == col.type) && ex->type().id != TypeId::kUnknown && !CanImplicitCast(ex->type(), col.type) &&
                    !(ex->type().IsNumeric() && col.type.IsNumeric()) && col.type.id != TypeId::kVarchar)
                  FRESHET_THROW(sqlstate::kDatatypeMismatch,
                                "column \"{}\" is of type {} but default expression is of type {}", col.name,
                                col.type.ToString(), ex->type().ToString());
                break;
              }
              default:
                throw SqlError(sqlstate::kFeatureNotSupported,
                               "only NOT NULL, NULL, DEFAULT and PRIMARY KEY column constraints are supported");
            }
          }
          t.columns.push_back(col);
        } else if (e->node_case == PG_QUERY__NODE__NODE_CONSTRAINT) {
          const PgQuery__Constraint* c = e->constraint;
          if (c->contype != PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY)
            throw SqlError(sqlstate::kFeatureNotSupported, "only PRIMARY KEY table constraints are supported");
          declare_pk();
          for (size_t k = 0; k < c->n_keys; k++) add_pk(StringOf(c->keys[k]));
        } else {
          throw SqlError(sqlstate::kFeatureNotSupported, "unsupported table element " + NodeTag(e));
        }
      }
      std::set<std::string> seen;
      for (const auto& name : pk_names) {
        int idx = t.ColumnIndex(name);
        if (idx < 0) FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in key does not exist", name);
        if (!seen.insert(name).second)
          FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" appears twice in primary key constraint", name);
        t.pk.push_back(idx);
        t.columns[idx].not_null = true;
      }
      if (t.pk.empty()) {
        ColumnCatalog row_id{"_row_id", DataType::Int64(), true, true, ""};
        t.columns.push_back(row_id);
        t.row_id_index = static_cast<int>(t.columns.size()) - 1;
        t.pk = {t.row_id_index};
      }
      t.dist_key = t.pk;
      t.append_only = stmt.append_only;
      t.definition = NormalizedCreateTable(t);
      for (size_t i = 0; i < cs->n_options; i++) {
        const PgQuery__DefElem* d = cs->options[i]->def_elem;
        FRESHET_THROW(sqlstate::kFeatureNotSupported, "table option \"{}\" is not supported yet", d->defname);
      }
      if (stmt.is_source) {
        if (pk_declared)
          throw SqlError(sqlstate::kFeatureNotSupported, "a source cannot have a primary key");
        t.kind = RelationKind::kSource;
        t.append_only = true;
        t.connector_options = stmt.with_options;
        t.connector_options["_created_at_micros"] = std::to_string(eval_.statement_time);
        std::vector<SourceColumn> columns;
        for (const auto& c : t.columns)
          if (!c.hidden) columns.push_back({c.name, c.type});
        SourceConnector::Create(t.connector_options, columns);  // validates the options
        t.definition = stmt.text;
        catalog->CreateTable(std::move(t));
        return {"CREATE_SOURCE"};
      }
      if (stmt.has_with_options) {
        // A table a connector fills: a job reads the source into the table.
        if (pk_declared)
          throw SqlError(sqlstate::kFeatureNotSupported, "a table with a connector cannot have a primary key yet");
        t.append_only = true;
        t.connector_options = stmt.with_options;
        t.connector_options["_created_at_micros"] = std::to_string(eval_.statement_time);
        std::vector<SourceColumn> columns;
        for (const auto& c : t.columns)
          if (!c.hidden) columns.push_back({c.name, c.type});
        SourceConnector::Create(t.connector_options, columns);  // validates the options
        t.definition = stmt.text;
        auto plan_table = std::make_shared<const TableCatalog>(t);
        StreamPlan plan = PlanTableSource(plan_table);
        instance_->jobs()->Create(std::move(t), std::move(plan), EvalContext(), 1, /*wait=*/true, &cancel_);
        return {"CREATE TABLE"};
      }
      catalog->CreateTable(std::move(t));
      return {"CREATE TABLE"};
    }
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
    case PG_QUERY__NODE__NODE_INDEX_STMT: return RunCreateJob(stmt, sink);
    case PG_QUERY__NODE__NODE_ALTER_SYSTEM_STMT: {
      // RisingWave's system parameters of the stream engine.
      const PgQuery__VariableSetStmt* set = node->alter_system_stmt->setstmt;
      std::string name = set->name ? set->name : "";
      static const std::set<std::string> kParameters = {"barrier_interval_ms", "checkpoint_frequency",
                                                        "max_concurrent_creating_streaming_jobs",
                                                        "streaming_state_cache_bytes"};
      if (set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT ||
          set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET) {
        if (!kParameters.count(name))
          FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized system parameter \"{}\"", name);
        instance_->ResetSystemParameter(name);
        return {"ALTER_SYSTEM"};
      }
      if (set->kind != PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE || set->n_args != 1)
        throw SqlError(sqlstate::kFeatureNotSupported, "ALTER SYSTEM supports SET name = value, SET name TO DEFAULT and RESET name");
      const PgQuery__Node* arg = set->args[0];
      std::string text;
      if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
        text = std::to_string(arg->a_const->ival->ival);
      else if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_FVAL)
        text = arg->a_const->fval->fval;  // integers past 32 bits come as "floats"
      else if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL)
        text = arg->a_const->sval->sval;
      int64_t value = 0;
      try {
        size_t used = 0;
        value = std::stoll(text, &used);
        if (used != text.size()) throw std::invalid_argument(text);
      } catch (...) {
        FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for parameter \"{}\": \"{}\"", name, text);
      }
      if (name == "barrier_interval_ms") {
        if (value < 10 || value > 3600000)
          FRESHET_THROW(sqlstate::kInvalidParameterValue, "barrier_interval_ms must be between 10 and 3600000");
        instance_->SetSystemParameter(name, value);
      } else if (name == "checkpoint_frequency") {
        if (value < 1 || value > 10000)
          FRESHET_THROW(sqlstate::kInvalidParameterValue, "checkpoint_frequency must be between 1 and 10000");
        instance_->SetSystemParameter(name, value);
      } else if (name == "max_concurrent_creating_streaming_jobs") {
        if (value < 0 || value > 100000)
          FRESHET_THROW(sqlstate::kInvalidParameterValue,
                        "max_concurrent_creating_streaming_jobs must be between 0 (unlimited) and 100000");
        instance_->SetSystemParameter(name, value);
      } else if (name == "streaming_state_cache_bytes") {
        if (value < 0)
          FRESHET_THROW(sqlstate::kInvalidParameterValue, "streaming_state_cache_bytes must not be negative");
        instance_->SetSystemParameter(name, value);
      } else {
        FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized system parameter \"{}\"", name);
      }
      return {"ALTER_SYSTEM"};
    }
    case PG_QUERY__NODE__NODE_CREATEDB_STMT: {
      std::string name = node->createdb_stmt->dbname;
      catalog->CreateDatabase(name, catalog->FindUser(user_)->id);
      return {"CREATE DATABASE"};
    }
    case PG_QUERY__NODE__NODE_DROPDB_STMT: {
      const PgQuery__DropdbStmt* d = node->dropdb_stmt;
      auto db = catalog->FindDatabase(d->dbname);
      if (!db) {
        if (d->missing_ok) {
          sink->Notice(fmt::format("database \"{}\" does not exist, skipping", d->dbname));
          return {"DROP DATABASE"};
        }
        FRESHET_THROW(sqlstate::kInvalidCatalogName, "database \"{}\" does not exist", d->dbname);
      }
      if (db->id == database_.id)
        throw SqlError(sqlstate::kObjectInUse, "cannot drop the currently open database");
      std::vector<ObjectId> schemas, tables;
      for (const auto& s : catalog->ListSchemas(db->id)) schemas.push_back(s.id);
      for (const auto& t : catalog->ListTables(db->id)) tables.push_back(t->id);
      instance_->DropDatabase(db->id);
      catalog->DropObjects({db->id}, schemas, tables);
      return {"DROP DATABASE"};
    }
    case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT: {
      // Trust authentication: a role is a name to connect as, and an owner.
      const PgQuery__CreateRoleStmt* s = node->create_role_stmt;
      auto me = catalog->FindUser(user_);
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
    case PG_QUERY__NODE__NODE_DROP_ROLE_STMT: {
      const PgQuery__DropRoleStmt* s = node->drop_role_stmt;
      auto me = catalog->FindUser(user_);
      if (!me || !me->superuser) throw SqlError(sqlstate::kInsufficientPrivilege, "permission denied to drop role");
      for (size_t i = 0; i < s->n_roles; i++) {
        std::string name = s->roles[i]->role_spec->rolename;
        auto u = catalog->FindUser(name);
        if (!u) {
          if (s->missing_ok) {
            sink->Notice(fmt::format("role \"{}\" does not exist, skipping", name));
            continue;
          }
          FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", name);
        }
        if (name == user_) throw SqlError(sqlstate::kObjectInUse, "current user cannot be dropped");
        catalog->DropUser(u->id);
      }
      return {"DROP ROLE"};
    }
    case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT: {
      const PgQuery__CreateSchemaStmt* s = node->create_schema_stmt;
      if (s->n_schema_elts) throw SqlError(sqlstate::kFeatureNotSupported, "CREATE SCHEMA with elements is not supported");
      std::string name = s->schemaname && *s->schemaname ? s->schemaname : user_;
      if (catalog->FindSchema(database_.id, name)) {
        if (s->if_not_exists) {
          sink->Notice(fmt::format("schema \"{}\" already exists, skipping", name));
          return {"CREATE SCHEMA"};
        }
        FRESHET_THROW(sqlstate::kDuplicateSchema, "schema \"{}\" already exists", name);
      }
      catalog->CreateSchema(database_.id, name, catalog->FindUser(user_)->id);
      return {"CREATE SCHEMA"};
    }
    case PG_QUERY__NODE__NODE_DROP_STMT: {
      const PgQuery__DropStmt* d = node->drop_stmt;
      bool cascade = d->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
      if (d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA) {
        std::vector<ObjectId> schemas, tables;
        for (size_t i = 0; i < d->n_objects; i++) {
          std::string name = StringOf(d->objects[i]);
          auto s = catalog->FindSchema(database_.id, name);
          if (!s) {
            if (d->missing_ok) {
              sink->Notice(fmt::format("schema \"{}\" does not exist, skipping", name));
              continue;
            }
            FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", name);
          }
          if (name == kPgCatalogSchema || name == kInformationSchema || name == kRwCatalogSchema)
            FRESHET_THROW(sqlstate::kDependentObjectsStillExist, "cannot drop schema {} because it is required by the database system", name);
          std::vector<ObjectId> contained;
          for (const auto& t : catalog->ListTables(database_.id))
            if (t->schema_id == s->id) contained.push_back(t->id);
          if (!contained.empty() && !cascade)
            throw SqlError(sqlstate::kDependentObjectsStillExist,
                           fmt::format("cannot drop schema {} because other objects depend on it", name))
                .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
          schemas.push_back(s->id);
          tables.insert(tables.end(), contained.begin(), contained.end());
        }
        DropRelations(tables);
        if (!schemas.empty()) catalog->DropObjects({}, schemas, {});
        return {"DROP SCHEMA"};
      }
      const char* kind_name = nullptr;
      RelationKind kind = KindOfDrop(d->remove_type, &kind_name);
      if (kind == RelationKind::kSystem)
        throw SqlError(sqlstate::kFeatureNotSupported, "DROP of this kind of object is not supported");
      // Resolve every name first: dependents named in the same statement
      // do not block it.
      std::vector<TableRef> named;
      for (size_t i = 0; i < d->n_objects; i++) {
        const PgQuery__List* parts = d->objects[i]->list;
        std::string name = StringOf(parts->items[parts->n_items - 1]);
        TableRef t;
        if (parts->n_items > 1) {
          auto s = catalog->FindSchema(database_.id, StringOf(parts->items[parts->n_items - 2]));
          t = s ? catalog->FindTable(s->id, name) : nullptr;
        } else {
          t = Binder(BinderContextFor(stmt, nullptr)).FindInSearchPath(name);
        }
        if (!t) {
          if (d->missing_ok) {
            sink->Notice(fmt::format("{} \"{}\" does not exist, skipping", kind_name, name));
            continue;
          }
          FRESHET_THROW(kind == RelationKind::kIndex ? sqlstate::kUndefinedObject : sqlstate::kUndefinedTable,
                        "{} \"{}\" does not exist", kind_name, name);
        }
        if (t->kind != kind) {
          const char* what = t->kind == RelationKind::kMaterializedView ? "MATERIALIZED VIEW"
                             : t->kind == RelationKind::kIndex          ? "INDEX"
                             : t->kind == RelationKind::kSink           ? "SINK"
                             : t->kind == RelationKind::kSource         ? "SOURCE"
                                                                        : "TABLE";
          std::string kind_article = kind == RelationKind::kIndex ? "an index" : std::string("a ") + kind_name;
          std::string other = RelationKindName(t->kind);
          std::string other_article = (other[0] == 'i' ? "an " : "a ") + other;
          throw SqlError(sqlstate::kWrongObjectType, fmt::format("\"{}\" is not {}", name, kind_article))
              .WithHint(fmt::format("Use DROP {} to remove {}.", what, other_article));
        }
        named.push_back(t);
      }
      std::vector<ObjectId> tables = DropClosure(named, cascade, kind_name, sink);
      DropRelations(tables);
      const char* tag = kind == RelationKind::kTable ? "DROP TABLE"
                        : kind == RelationKind::kMaterializedView ? "DROP MATERIALIZED VIEW"
                                                                  : "DROP INDEX";
      return {tag};
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "statement " + NodeTag(node) + " is not supported yet");
}

TableRef Session::FindJobByName(const ParsedStatement& stmt, const std::vector<std::string>& name,
                                const std::string& kind_name) {
  RelationKind kind = kind_name == "sink"    ? RelationKind::kSink
                      : kind_name == "index" ? RelationKind::kIndex
                                             : RelationKind::kMaterializedView;
  Catalog* catalog = instance_->catalog();
  TableRef t;
  if (name.size() > 1) {
    auto s = catalog->FindSchema(database_.id, name[name.size() - 2]);
    t = s ? catalog->FindTable(s->id, name.back()) : nullptr;
  } else {
    t = Binder(BinderContextFor(stmt, nullptr)).FindInSearchPath(name.back());
  }
  if (!t || t->kind != kind)
    FRESHET_THROW(kind == RelationKind::kMaterializedView ? sqlstate::kUndefinedTable : sqlstate::kUndefinedObject,
                  "{} \"{}\" does not exist", kind_name, name.back());
  return t;
}

void Session::CheckOwner(const TableCatalog& t) {
  auto user = instance_->catalog()->FindUser(user_);
  if (user && (user->superuser || user->id == t.owner)) return;
  FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of {} {}", RelationKindName(t.kind), t.name);
}

std::vector<ObjectId> Session::DropClosure(const std::vector<TableRef>& named, bool cascade,
                                           const std::string& kind_name, ResultSink* sink) {
  Catalog* catalog = instance_->catalog();
  std::set<ObjectId> named_ids;
  for (const auto& t : named) named_ids.insert(t->id);
  std::vector<ObjectId> ids;
  std::vector<std::string> cancelled;
  for (const auto& t : named) {
    // Dependents (views over this relation), transitively with CASCADE;
    // indexes go with their relation, as in PostgreSQL; jobs still being
    // created on a job still being created are cancelled with it.
    std::vector<TableRef> queue = {t};
    for (size_t q = 0; q < queue.size(); q++) {
      std::vector<TableRef> blocking;
      bool creating = queue[q]->status == JobStatus::kCreating;
      for (const auto& dep : catalog->Dependents(queue[q]->id)) {
        bool goes_along = dep->kind == RelationKind::kIndex || named_ids.count(dep->id) ||
                          (creating && dep->status == JobStatus::kCreating);
        if (!cascade && !goes_along) blocking.push_back(dep);
        if (creating && dep->status == JobStatus::kCreating && !named_ids.count(dep->id))
          cancelled.push_back(fmt::format("{} \"{}\"", RelationKindName(dep->kind), dep->name));
        queue.push_back(dep);
      }
      if (blocking.empty()) continue;
      std::string detail;
      for (const auto& dep : blocking)
        detail += fmt::format("{}{} {} depends on {} {}", detail.empty() ? "" : "\n", RelationKindName(dep->kind),
                              dep->name, RelationKindName(queue[q]->kind), queue[q]->name);
      throw SqlError(sqlstate::kDependentObjectsStillExist,
                     fmt::format("cannot drop {} {} because other objects depend on it", kind_name, t->name))
          .WithDetail(detail)
          .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
    }
    for (const auto& x : queue) ids.push_back(x->id);
  }
  if (!cancelled.empty() && sink) {
    std::string list;
    for (const auto& c : cancelled) list += (list.empty() ? "" : ", ") + c;
    sink->Notice("cancelling the jobs still being created on it: " + list);
  }
  return ids;
}

void Session::DropRelations(const std::vector<ObjectId>& ids) {
  Catalog* catalog = instance_->catalog();
  std::vector<TableRef> jobs;
  std::vector<ObjectId> others;
  std::set<ObjectId> seen;
  for (ObjectId id : ids) {
    if (!seen.insert(id).second) continue;
    TableRef t = catalog->GetTable(id);
    if (!t || t->kind == RelationKind::kInternal) continue;  // dropped with its job
    instance_->DmlFor(database_.id)->DropTable(id);
    if (IsStreamJob(*t) || IsConnectorTable(*t))
      jobs.push_back(t);
    else others.push_back(id);
  }
  if (jobs.empty() && others.empty()) return;
  instance_->jobs()->Drop(database_.id, jobs, others);
}

StatementOutcome Session::RunUtility(const ParsedStatement& stmt, ResultSink* sink, bool* handled) {
  *handled = true;
  const PgQuery__Node* node = stmt.node;
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_EXPLAIN_STMT: {
      const PgQuery__ExplainStmt* e = node->explain_stmt;
      for (size_t i = 0; i < e->n_options; i++) {
        std::string opt = e->options[i]->def_elem->defname;
        if (opt == "analyze") throw SqlError(sqlstate::kFeatureNotSupported, "EXPLAIN ANALYZE is not supported yet");
      }
      ParsedStatement inner = stmt;
      inner.node = e->query;
      if (inner.node->node_case == PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT ||
          inner.node->node_case == PG_QUERY__NODE__NODE_INDEX_STMT) {
        std::vector<std::string> lines;
        RunCreateJob(inner, sink, /*explain_only=*/true, &lines);
        std::vector<std::vector<std::string>> rows;
        for (auto& line : lines) rows.push_back({line});
        SendTextRows({{"QUERY PLAN", DataType::Varchar()}}, rows, sink);
        return {"EXPLAIN"};
      }
      std::vector<DataType> types;
      PlanPtr plan = Plan(inner, &types);
      if (!plan) throw SqlError(sqlstate::kFeatureNotSupported, "EXPLAIN of this statement is not supported");
      std::vector<std::vector<std::string>> rows;
      for (auto& line : ExplainPlan(*plan)) rows.push_back({line});
      SendTextRows({{"QUERY PLAN", DataType::Varchar()}}, rows, sink);
      return {"EXPLAIN"};
    }
    case PG_QUERY__NODE__NODE_DEALLOCATE_STMT: {
      const char* name = node->deallocate_stmt->name;
      if (name && *name) ClosePrepared(name);
      else prepared_.clear();
      return {"DEALLOCATE"};
    }
    case PG_QUERY__NODE__NODE_DISCARD_STMT:
      DiscardAll();
      return {"DISCARD ALL"};
    default: break;
  }
  *handled = false;
  return {};
}

StatementOutcome Session::RunExtension(const ParsedStatement& stmt, ResultSink* sink) {
  const ExtensionStatement& ext = stmt.extension;
  Catalog* catalog = instance_->catalog();
  switch (ext.kind) {
    case ExtensionStatement::Kind::kCreateSink: return RunCreateJob(stmt, sink);
    case ExtensionStatement::Kind::kDropObject: {
      RelationKind kind = ext.object_kind == "sink" ? RelationKind::kSink : RelationKind::kSource;
      const std::string tag = ext.object_kind == "sink" ? "DROP_SINK" : "DROP_SOURCE";
      Binder binder(BinderContextFor(stmt, nullptr));
      TableRef t;
      if (ext.name.size() > 1) {
        auto s = catalog->FindSchema(database_.id, ext.name[0]);
        t = s ? catalog->FindTable(s->id, ext.name[1]) : nullptr;
      } else {
        t = binder.FindInSearchPath(ext.name[0]);
      }
      if (!t || t->kind != kind) {
        if (t) throw SqlError(sqlstate::kWrongObjectType, fmt::format("\"{}\" is not a {}", ext.name.back(), ext.object_kind));
        if (ext.if_not_exists) {
          sink->Notice(fmt::format("{} \"{}\" does not exist, skipping", ext.object_kind, ext.name.back()));
          return {tag};
        }
        FRESHET_THROW(sqlstate::kUndefinedObject, "{} \"{}\" does not exist", ext.object_kind, ext.name.back());
      }
      std::vector<ObjectId> ids = DropClosure({t}, ext.cascade, ext.object_kind, sink);
      DropRelations(ids);
      return {tag};
    }
    case ExtensionStatement::Kind::kFlush:
      // Writes of an implicit transaction before FLUSH must be flushed too.
      if (implicit_txn_) Sync();
      instance_->barriers()->ForDatabase(database_.id)->Flush();
      return {"FLUSH"};
    case ExtensionStatement::Kind::kWait: {
      ObjectId job_id = ext.name.empty() ? 0 : FindJobByName(stmt, ext.name, ext.object_kind)->id;
      // Ctrl+C ends the wait, not the jobs.
      instance_->jobs()->Wait(database_.id, job_id, &cancel_);
      return {"WAIT"};
    }
    case ExtensionStatement::Kind::kAlterBackfillRateLimit: {
      TableRef t = FindJobByName(stmt, ext.name, ext.object_kind);
      CheckOwner(*t);
      instance_->jobs()->SetBackfillRateLimit(t, NormalizeRateLimit(ext.value, "BACKFILL_RATE_LIMIT"));
      return {ext.object_kind == "sink" ? "ALTER_SINK" : ext.object_kind == "index" ? "ALTER_INDEX" : "ALTER_MATERIALIZED_VIEW"};
    }
    case ExtensionStatement::Kind::kCancelJobs: {
      // Each job with the still-creating jobs built on it; one row per job
      // cancelled, as RisingWave returns them.
      std::vector<TableRef> named;
      for (int64_t id : ext.ids) {
        TableRef t = id > 0 && id <= INT32_MAX ? catalog->GetTable(static_cast<ObjectId>(id)) : nullptr;
        if (!t || t->database_id != database_.id || t->status != JobStatus::kCreating || !IsStreamJob(*t))
          FRESHET_THROW(sqlstate::kUndefinedObject, "no job with id {} is being created", id);
        CheckOwner(*t);
        named.push_back(t);
      }
      std::vector<ObjectId> ids;
      std::set<ObjectId> seen;
      for (const auto& t : named)
        for (const auto& j : instance_->jobs()->CreatingClosure(t))
          if (seen.insert(j->id).second) ids.push_back(j->id);
      DropRelations(ids);
      std::vector<std::vector<std::string>> rows;
      for (ObjectId id : ids) rows.push_back({std::to_string(id)});
      SendTextRows({{"Id", DataType::Int64()}}, rows, sink);
      return {"CANCEL_JOBS"};
    }
    case ExtensionStatement::Kind::kShowJobs: {
      std::string sql =
          "SELECT * FROM (SELECT ddl_id AS \"Id\", ddl_statement AS \"Statement\", create_type AS \"Create Type\", "
          "progress AS \"Progress\", status AS \"Status\", rows_backfilled AS \"Rows Backfilled\", "
          "estimated_rows AS \"Estimated Rows\", round(rows_per_second) AS \"Rows/s\", "
          "date_trunc('second', elapsed) AS \"Elapsed\", date_trunc('second', eta) AS \"ETA\" "
          "FROM rw_catalog.rw_ddl_progress) AS jobs";
      if (!ext.query.empty()) sql += " WHERE " + ext.query;
      sql += " ORDER BY \"Id\"";
      std::vector<ParsedStatement> parsed = ParseSql(sql);
      if (parsed.size() != 1 || !parsed[0].node || parsed[0].node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        throw SqlError(sqlstate::kSyntaxError, "syntax error in SHOW JOBS WHERE condition");
      StatementOutcome out = RunStatement(parsed[0], nullptr, sink, nullptr, 0, nullptr);
      out.tag = "SHOW";
      return out;
    }
    case ExtensionStatement::Kind::kShowParameters: return RunShow("all", sink);
    case ExtensionStatement::Kind::kCreateDatabaseIfNotExists: {
      const std::string& name = ext.name.back();
      if (catalog->FindDatabase(name)) {
        sink->Notice(fmt::format("database \"{}\" already exists, skipping", name));
      } else {
        catalog->CreateDatabase(name, catalog->FindUser(user_)->id);
      }
      return {"CREATE DATABASE"};
    }
    case ExtensionStatement::Kind::kShowObjects: {
      std::vector<std::vector<std::string>> rows;
      if (ext.object_kind == "databases") {
        for (const auto& d : catalog->ListDatabases()) rows.push_back({d.name});
      } else if (ext.object_kind == "schemas") {
        for (const auto& s : catalog->ListSchemas(database_.id)) rows.push_back({s.name});
      } else {
        std::string schema = ext.name.empty() ? Binder(BinderContextFor(stmt, nullptr)).CurrentSchema() : ext.name.back();
        auto s = catalog->FindSchema(database_.id, schema);
        if (!s) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", schema);
        RelationKind want = ext.object_kind == "tables"               ? RelationKind::kTable
                            : ext.object_kind == "materialized views" ? RelationKind::kMaterializedView
                            : ext.object_kind == "sources"            ? RelationKind::kSource
                            : ext.object_kind == "sinks"              ? RelationKind::kSink
                                                                      : RelationKind::kSystem;
        for (const auto& t : catalog->ListTables(database_.id))
          if (t->schema_id == s->id && t->kind == want) rows.push_back({t->name});
      }
      std::sort(rows.begin(), rows.end());
      SendTextRows({{"Name", DataType::Varchar()}}, rows, sink);
      return {"SHOW"};
    }
    case ExtensionStatement::Kind::kShowCreate: {
      std::string name = ext.name.back();
      TableRef t;
      if (ext.name.size() > 1) {
        auto s = catalog->FindSchema(database_.id, ext.name[ext.name.size() - 2]);
        t = s ? catalog->FindTable(s->id, name) : nullptr;
      } else {
        t = Binder(BinderContextFor(stmt, nullptr)).FindInSearchPath(name);
      }
      if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", name);
      std::string schema = catalog->GetSchema(t->schema_id)->name;
      SendTextRows({{"Name", DataType::Varchar()}, {"Create Sql", DataType::Varchar()}},
                   {{schema + "." + t->name, t->definition}}, sink);
      return {"SHOW"};
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported statement");
}

}  // namespace freshet
