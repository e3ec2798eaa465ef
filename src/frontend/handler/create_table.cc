// CREATE TABLE and CREATE SOURCE: a table of rows written by DML, a table a
// connector fills (WITH (connector = ...): a job reads the source into it),
// or a source read by the jobs that use it.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "common/error.h"
#include "connector/connector.h"
#include "expr/cast.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"

namespace freshet {

namespace {

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

}  // namespace

StatementOutcome HandleCreateTable(const HandlerArgs& args) {
  Session* session = args.session;
  const ParsedStatement& stmt = args.stmt;
  Catalog* catalog = args.instance()->catalog();
  const PgQuery__Node* node = stmt.node;
  const PgQuery__CreateStmt* cs = node->create_stmt;
  if (cs->n_inh_relations || cs->partspec || cs->of_typename)
    throw SqlError(sqlstate::kFeatureNotSupported, "inheritance, partitioning and typed tables are not supported");
  if (cs->relation->relpersistence && std::string(cs->relation->relpersistence) == "t")
    throw SqlError(sqlstate::kFeatureNotSupported, "temporary tables are not supported");
  Binder binder(session->BinderContextFor(stmt, nullptr));
  ObjectId schema_id = binder.ResolveSchemaId(cs->relation->schemaname);
  if (catalog->FindTable(schema_id, cs->relation->relname)) {
    if (cs->if_not_exists) {
      args.sink->Notice(fmt::format("relation \"{}\" already exists, skipping", cs->relation->relname));
      return {"CREATE TABLE"};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", cs->relation->relname);
  }
  TableCatalog t;
  t.database_id = session->database().id;
  t.schema_id = schema_id;
  t.name = cs->relation->relname;
  t.definition = stmt.text;
  t.owner = catalog->FindUser(session->user())->id;
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
            Binder check(session->BinderContextFor(stmt, nullptr));
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
  // A source, or a table a connector fills: append-only, its options
  // checked by the connector now.
  const bool connector = stmt.is_source || stmt.has_with_options;
  if (connector) {
    if (pk_declared)
      throw SqlError(sqlstate::kFeatureNotSupported, stmt.is_source ? "a source cannot have a primary key"
                                                                    : "a table with a connector cannot have a primary key yet");
    t.append_only = true;
    t.connector_options = stmt.with_options;
    t.connector_options["_created_at_micros"] = std::to_string(session->eval().statement_time);
    std::vector<SourceColumn> columns;
    for (const auto& c : t.columns)
      if (!c.hidden) columns.push_back({c.name, c.type});
    SourceConnector::Create(t.connector_options, columns);
    t.definition = stmt.text;
  }
  if (stmt.is_source) {
    t.kind = RelationKind::kSource;
    catalog->CreateTable(std::move(t));
    return {"CREATE_SOURCE"};
  }
  if (connector) {
    // A job reads the source into the table.
    StreamPlan plan = PlanTableSource(std::make_shared<const TableCatalog>(t));
    args.instance()->jobs()->Create(std::move(t), std::move(plan), EvalContext(), 1, /*wait=*/true,
                                    session->cancel_flag());
    return {"CREATE TABLE"};
  }
  catalog->CreateTable(std::move(t));
  return {"CREATE TABLE"};
}

}  // namespace freshet
