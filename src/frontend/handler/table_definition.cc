#include "frontend/handler/table_definition.h"

#include "catalog/timeseries_table.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "binder/binder.h"
#include "catalog/storage_parameters.h"
#include "common/decimal.h"
#include "common/error.h"
#include "common/identifier.h"
#include "expr/cast.h"
#include "expr/function_registry.h"
#include "frontend/handler/sequence.h"
#include "frontend/session.h"

namespace freshet {

namespace {

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
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs: return t.precision >= 0 ? fmt::format("TIMESTAMP({})", t.precision) : "TIMESTAMP";
    case TypeId::kTimestamptz:
      return t.precision >= 0 ? fmt::format("TIMESTAMP({}) WITH TIME ZONE", t.precision) : "TIMESTAMP WITH TIME ZONE";
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

}  // namespace

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

namespace {

// The type without its modifier (varchar(5) -> varchar, numeric(5,2) ->
// numeric): what a quoted literal is read as before the modifier applies.
DataType WithoutModifier(const DataType& t) {
  if (t.IsBpchar()) return DataType::Bpchar();
  if (t.id == TypeId::kVarchar && t.precision >= 0) return DataType::Varchar();
  if (t.id == TypeId::kNumeric) return DataType::Numeric();
  return t;
}

// A type as PostgreSQL labels a constant of it: with its modifier
// (character varying(5)) when the constant has one, else without.
std::string ConstantTypeLabel(const DataType& t, bool with_modifier) {
  return with_modifier ? t.ToString() : WithoutModifier(t).ToString();
}

// A constant of type t whose output text is `text`, as ruleutils'
// get_const_expr prints it: integer and numeric constants bare unless a
// leading sign would read back as an operator, booleans bare, anything
// else quoted with its type.
// An enum type's constants are labelled with its name as the catalog
// reader's path needs it (StoredDefault then qualifies it).
std::optional<std::string> ConstantText(const std::string& text, const DataType& t, bool with_modifier,
                                        const EvalContext* eval = nullptr) {
  if (text.empty() || text.find('\\') != std::string::npos) return std::nullopt;  // E'' strings: as written
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  quoted += "'";
  switch (t.id) {
    case TypeId::kInt32:
      return text[0] != '-' ? text : quoted + "::integer";
    case TypeId::kNumeric:
      if (std::isdigit(static_cast<unsigned char>(text[0])) && text.find_first_of(".eE") != std::string::npos &&
          !(with_modifier && t.precision >= 0))
        return text;
      return quoted + "::" + ConstantTypeLabel(t, with_modifier);
    case TypeId::kBoolean:
      return text == "t" || text == "true" ? "true" : "false";
    case TypeId::kEnum:
      if (eval && eval->catalog)
        if (auto name = eval->catalog->UserTypeName(t.PgOid())) return quoted + "::" + *name;
      return quoted + "::" + t.ToString();
    default:
      return quoted + "::" + ConstantTypeLabel(t, with_modifier);
  }
}

// A numeric literal as PostgreSQL's parser types it: int4, else int8,
// else numeric.
std::optional<std::string> NumberLiteralText(const PgQuery__AConst* c) {
  if (c->val_case == PG_QUERY__A__CONST__VAL_IVAL)
    return ConstantText(std::to_string(c->ival ? c->ival->ival : 0), DataType::Int32(), false);
  if (c->val_case != PG_QUERY__A__CONST__VAL_FVAL || !c->fval || !c->fval->fval) return std::nullopt;
  std::string text = c->fval->fval;
  if (text.find_first_of(".eE") == std::string::npos) {
    try {
      size_t used = 0;
      (void)std::stoll(text, &used);
      if (used == text.size()) return ConstantText(text, DataType::Int64(), false);
    } catch (...) {
    }
  }
  try {  // as numeric's output prints it (1e3 is 1000)
    text = DecimalToString(DecimalFromString(text));
  } catch (const SqlError&) {
    return std::nullopt;
  }
  return ConstantText(text, DataType::Numeric(), false);
}

// Arithmetic of number literals, as ruleutils prints operators: each in
// parentheses, spaced.
std::optional<std::string> ArithmeticText(const PgQuery__Node* x) {
  if (!x) return std::nullopt;
  if (x->node_case == PG_QUERY__NODE__NODE_A_CONST)
    return x->a_const->isnull ? std::nullopt : NumberLiteralText(x->a_const);
  if (x->node_case != PG_QUERY__NODE__NODE_A_EXPR) return std::nullopt;
  const PgQuery__AExpr* e = x->a_expr;
  if (e->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || e->n_name != 1 || !e->lexpr || !e->rexpr) return std::nullopt;
  std::string op = StringOf(e->name[0]);
  if (op != "+" && op != "-" && op != "*" && op != "/" && op != "%") return std::nullopt;
  std::optional<std::string> l = ArithmeticText(e->lexpr), r = ArithmeticText(e->rexpr);
  if (!l || !r) return std::nullopt;
  return "(" + *l + " " + op + " " + *r + ")";
}

// The text PostgreSQL 15 keeps for a column's DEFAULT (pg_get_expr of
// pg_attrdef.adbin: what psql's \d, information_schema and pg_dump show),
// for the expressions whose printing is known exactly: constants (a
// quoted literal as a constant of the column's type), casts of constants,
// functions without arguments, CURRENT_TIMESTAMP & co., and arithmetic of
// numbers. nullopt for anything else (kept as written).
std::optional<std::string> PostgresDefaultText(const PgQuery__Node* n, const DataType& column_type, const Expression& bound,
                                               EvalContext& eval, bool top) {
  if (!n) return std::nullopt;
  switch (n->node_case) {
    case PG_QUERY__NODE__NODE_A_CONST: {
      const PgQuery__AConst* c = n->a_const;
      if (c->isnull) return std::nullopt;
      if (c->val_case == PG_QUERY__A__CONST__VAL_BOOLVAL) return c->boolval && c->boolval->boolval ? "true" : "false";
      if (c->val_case == PG_QUERY__A__CONST__VAL_SVAL) {
        // A quoted literal becomes a constant of the column's type (its
        // modifier applied apart, unshown).
        if (!top || !c->sval || !c->sval->sval) return std::nullopt;
        DataType base = WithoutModifier(column_type);
        try {
          Value v = ParseText(c->sval->sval, base, eval);
          return ConstantText(FormatValueText(v, eval), base, false, &eval);
        } catch (const SqlError&) {
          return std::nullopt;
        }
      }
      return NumberLiteralText(c);
    }
    case PG_QUERY__NODE__NODE_TYPE_CAST: {
      // A cast of a quoted literal is a constant of the cast's type,
      // labelled with its modifier (which is applied apart: '3'::numeric(5,2)).
      const PgQuery__TypeCast* tc = n->type_cast;
      if (!tc->arg || tc->arg->node_case != PG_QUERY__NODE__NODE_A_CONST || tc->arg->a_const->isnull ||
          tc->arg->a_const->val_case != PG_QUERY__A__CONST__VAL_SVAL || !tc->arg->a_const->sval)
        return std::nullopt;
      if (bound.kind() != Expression::Kind::kConstant) return std::nullopt;
      try {
        Value v = ParseText(tc->arg->a_const->sval->sval, WithoutModifier(bound.type()), eval);
        return ConstantText(FormatValueText(v, eval), bound.type(), true, &eval);
      } catch (const SqlError&) {
        return std::nullopt;
      }
    }
    case PG_QUERY__NODE__NODE_FUNC_CALL: {
      const PgQuery__FuncCall* f = n->func_call;
      if (f->n_funcname != 1 || f->n_args || f->agg_star || f->agg_distinct || f->agg_filter || f->over ||
          f->func_variadic || f->n_agg_order)
        return std::nullopt;
      return StringOf(f->funcname[0]) + "()";
    }
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION: {
      const PgQuery__SQLValueFunction* f = n->sqlvalue_function;
      auto with_precision = [&](const char* name) { return fmt::format("{}({})", name, f->typmod); };
      switch (f->op) {
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE: return "CURRENT_DATE";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME: return "CURRENT_TIME";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N: return with_precision("CURRENT_TIME");
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP: return "CURRENT_TIMESTAMP";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N: return with_precision("CURRENT_TIMESTAMP");
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME: return "LOCALTIME";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME_N: return with_precision("LOCALTIME");
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP: return "LOCALTIMESTAMP";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N: return with_precision("LOCALTIMESTAMP");
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE: return "CURRENT_ROLE";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER: return "CURRENT_USER";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER: return "USER";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER: return "SESSION_USER";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: return "CURRENT_CATALOG";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: return "CURRENT_SCHEMA";
        default: return std::nullopt;
      }
    }
    case PG_QUERY__NODE__NODE_A_EXPR:
      return ArithmeticText(n);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string ColumnDefaultText(Session* session, const ParsedStatement& stmt, const ColumnCatalog& col,
                              const PgQuery__Node* expr, const std::string& written) {
  Binder check(session->BinderContextFor(stmt, nullptr));
  ExprPtr ex = check.BindConstantExpression(expr);
  if (ex->type().id != TypeId::kUnknown && !CanAssignmentCast(ex->type(), col.type))
    throw SqlError(sqlstate::kDatatypeMismatch, fmt::format("column \"{}\" is of type {} but default expression is of type {}",
                                                          col.name, col.type.ToString(), ex->type().ToString()))
        .WithHint("You will need to rewrite or cast the expression.");
  std::optional<std::string> text = PostgresDefaultText(expr, col.type, *ex, session->eval(), /*top=*/true);
  return session->eval().catalog->StoredDefault(text ? *text : written);
}

BoundColumn BindColumnDef(Session* session, const ParsedStatement& stmt, const PgQuery__ColumnDef* cd) {
  BoundColumn out;
  ColumnCatalog& col = out.column;
  col.name = cd->colname;
  if (col.name == "_row_id")
    FRESHET_THROW(sqlstate::kDuplicateColumn, "column name \"_row_id\" is reserved for the hidden row id");
  // serial & co.: an integer column drawing from a sequence of its own.
  const PgQuery__TypeName* tn = cd->type_name;
  std::string type_name = tn->n_names ? StringOf(tn->names[tn->n_names - 1]) : "";
  if (tn->n_array_bounds == 0 && (type_name == "serial" || type_name == "serial4" || type_name == "bigserial" ||
                                  type_name == "serial8" || type_name == "smallserial" || type_name == "serial2")) {
    col.type = type_name == "bigserial" || type_name == "serial8"       ? DataType::Int64()
               : type_name == "smallserial" || type_name == "serial2" ? DataType::Int16()
                                                                      : DataType::Int32();
    col.not_null = true;
    out.owns_sequence = true;
  } else {
    Binder::BoundType bound = Binder(session->BinderContextFor(stmt, nullptr)).BindColumnType(tn);
    col.type = bound.type;
    col.domain = bound.domain;
  }
  for (size_t k = 0; k < cd->n_constraints; k++) {
    const PgQuery__Constraint* c = cd->constraints[k]->constraint;
    switch (c->contype) {
      case PG_QUERY__CONSTR_TYPE__CONSTR_IDENTITY:
        if (out.owns_sequence)
          FRESHET_THROW(sqlstate::kSyntaxError, "multiple identity specifications for column \"{}\" of table", col.name);
        if (col.type.id != TypeId::kInt16 && col.type.id != TypeId::kInt32 && col.type.id != TypeId::kInt64)
          FRESHET_THROW(sqlstate::kInvalidParameterValue, "identity column type must be smallint, integer, or bigint");
        col.identity = c->generated_when && *c->generated_when == 'a' ? 'a' : 'd';
        col.not_null = true;
        out.owns_sequence = true;
        out.identity = c;
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL: col.not_null = true; break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_NULL: break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY: out.primary_key = true; break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN:
        out.foreign_keys.push_back({c, static_cast<bool>(c->deferrable), static_cast<bool>(c->initdeferred)});
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_CHECK: out.checks.push_back(c); break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE: out.uniques.push_back(c); break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE:
      case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE:
      case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED:
      case PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE: {
        if (out.foreign_keys.empty())
          throw SqlError(sqlstate::kSyntaxError, "misplaced DEFERRABLE clause");
        auto& fk = out.foreign_keys.back();
        if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE) fk.deferrable = true;
        if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE) fk.deferrable = false;
        if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED) fk.deferred = fk.deferrable = true;
        if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE) fk.deferred = false;
        break;
      }
      case PG_QUERY__CONSTR_TYPE__CONSTR_GENERATED:
        if (out.owns_sequence)
          FRESHET_THROW(sqlstate::kSyntaxError, "both identity and generation expression specified for column \"{}\"",
                        col.name);
        if (out.generated)
          FRESHET_THROW(sqlstate::kSyntaxError, "multiple generation clauses specified for column \"{}\"", col.name);
        out.generated = c;
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
        if (out.owns_sequence)
          FRESHET_THROW(sqlstate::kSyntaxError, "multiple default values specified for column \"{}\"", col.name);
        col.default_expr = ColumnDefaultText(session, stmt, col, c->raw_expr, DefaultText(stmt.text, c->location));
        break;
      default:
        throw SqlError(sqlstate::kFeatureNotSupported,
                       "only NOT NULL, NULL, DEFAULT, PRIMARY KEY, UNIQUE, REFERENCES and CHECK column constraints are supported");
    }
  }
  return out;
}

bool IsImmutableExpression(const Expression& e) {
  static const std::set<std::string> kNotImmutable = {"now", "statement_timestamp", "transaction_timestamp",
                                                      "current_setting", "timezone", "to_char"};
  if (const auto* f = dynamic_cast<const FunctionExpr*>(&e))
    if (IsVolatileFunction(f->function()->name) || kNotImmutable.count(f->function()->name)) return false;
  for (const auto& child : e.children())
    if (!IsImmutableExpression(*child)) return false;
  return true;
}

void CheckImmutableInIndex(const Expression& e, const char* what) {
  if (!IsImmutableExpression(e))
    FRESHET_THROW(sqlstate::kInvalidObjectDefinition, "functions in index {} must be marked IMMUTABLE", what);
}

void BindGeneratedColumn(Session* session, const ParsedStatement& stmt, TableCatalog* table, int column,
                         const BoundColumn& bound) {
  ColumnCatalog& col = table->columns[column];
  if (!col.default_expr.empty())
    FRESHET_THROW(sqlstate::kSyntaxError, "both default and generation expression specified for column \"{}\" of table \"{}\"",
                  col.name, table->name);
  Binder binder(session->BinderContextFor(stmt, nullptr));
  ExprPtr e = binder.BindGenerationExpression(*table, column, bound.generated->raw_expr);
  if (!IsImmutableExpression(*e)) throw SqlError("42P17", "generation expression is not immutable");
  col.generated = DeparseExpression(bound.generated->raw_expr);
}

// An identity column's SEQUENCE NAME option (pg_dump writes it), in the
// table's schema; "" when it has none.
static std::string IdentitySequenceName(const BoundColumn& bound, const std::string& schema_name) {
  if (!bound.identity) return "";
  for (size_t i = 0; i < bound.identity->n_options; i++) {
    const PgQuery__Node* o = bound.identity->options[i];
    if (o->node_case != PG_QUERY__NODE__NODE_DEF_ELEM || std::string_view(o->def_elem->defname) != "sequence_name") continue;
    const PgQuery__Node* arg = o->def_elem->arg;
    if (!arg || arg->node_case != PG_QUERY__NODE__NODE_LIST || arg->list->n_items == 0) continue;
    const PgQuery__List* names = arg->list;
    if (names->n_items > 1 && StringOf(names->items[names->n_items - 2]) != schema_name)
      throw SqlError(sqlstate::kFeatureNotSupported, "an identity column's sequence must be in its table's schema");
    return StringOf(names->items[names->n_items - 1]);
  }
  return "";
}

TableCatalog OwnedSequence(const HandlerArgs& args, const Catalog& catalog, const TableCatalog& table,
                           const std::string& schema_name, int column_index, const std::vector<std::string>& taken,
                           BoundColumn* bound) {
  SequenceOptions base;
  base.type = bound->column.type;
  SequenceChanges changes = ApplySequenceOptions(args, bound->identity ? bound->identity->options : nullptr,
                                                 bound->identity ? bound->identity->n_options : 0, base, true);
  std::string name = IdentitySequenceName(*bound, schema_name);
  if (name.empty()) name = ChooseSequenceName(catalog, table.schema_id, table.name, bound->column.name);
  if (std::find(taken.begin(), taken.end(), name) != taken.end())  // two columns of one table
    name = ChooseSequenceName(catalog, table.schema_id, table.name,
                              bound->column.name + "_" + std::to_string(column_index));
  changes.options.owned_by_table = table.id;
  changes.options.owned_by_column = column_index;
  bound->column.default_expr = NextvalDefault(schema_name, name);
  return MakeSequence(name, table.database_id, table.schema_id, table.owner, changes.options);
}

ConstraintCatalog BindForeignKey(const HandlerArgs& args, const TableCatalog& table,
                                 const std::vector<std::string>& columns, const PgQuery__Constraint* c) {
  ConstraintCatalog fk;
  fk.type = 'f';
  fk.columns = columns;
  for (const auto& name : columns) {
    int i = table.ColumnIndex(name);
    if (i < 0 || table.columns[i].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" referenced in foreign key constraint does not exist", name);
  }
  // The referenced table: this one (by name, while it is created) or another.
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  const PgQuery__RangeVar* rv = c->pktable;
  bool self = false;
  TableRef other;
  if (table.id == 0 && rv->relname == table.name) {
    // The table being created, when the name is not qualified otherwise.
    auto schema = rv->schemaname && *rv->schemaname
                      ? args.session->catalog()->FindSchema(table.database_id, rv->schemaname)
                      : std::nullopt;
    self = !(rv->schemaname && *rv->schemaname) || (schema && schema->id == table.schema_id);
  }
  if (!self) {
    other = binder.ResolveRelation(rv);
    self = other->id == table.id;
  }
  const TableCatalog& ref = self ? table : *other;
  if (ref.kind != RelationKind::kTable)
    FRESHET_THROW(sqlstate::kWrongObjectType, "referenced relation \"{}\" is not a table", ref.name);
  fk.ref_table = self ? 0 : ref.id;
  std::vector<std::string> key;
  if (ref.row_id_index < 0)
    for (int k : ref.pk) key.push_back(ref.columns[k].name);
  std::vector<std::string> referenced;
  for (size_t k = 0; k < c->n_pk_attrs; k++) referenced.push_back(StringOf(c->pk_attrs[k]));
  if (referenced.empty()) {
    if (key.empty()) FRESHET_THROW("42830", "there is no primary key for referenced table \"{}\"", ref.name);
    referenced = key;
  }
  for (const auto& name : referenced) {
    int i = ref.ColumnIndex(name);
    if (i < 0 || ref.columns[i].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" referenced in foreign key constraint does not exist", name);
  }
  if (referenced.size() != columns.size())
    throw SqlError("42830", "number of referencing and referenced columns for foreign key disagree");
  // The referenced columns are the primary key (kept paired with the key
  // in its order: they are not stored) or a unique constraint's or index's.
  const bool is_key = referenced.size() == key.size() &&
                      std::set<std::string>(referenced.begin(), referenced.end()) ==
                          std::set<std::string>(key.begin(), key.end());
  if (is_key) {
    for (size_t j = 0; j < key.size(); j++)
      fk.columns[j] = columns[std::find(referenced.begin(), referenced.end(), key[j]) - referenced.begin()];
  } else if (ref.FindUniqueKey(referenced)) {
    fk.ref_columns = referenced;
  } else {
    FRESHET_THROW("42830", "there is no unique constraint matching given keys for referenced table \"{}\"", ref.name);
  }
  auto action = [](const char* a) { return a && *a ? *a : 'a'; };
  fk.on_update = action(c->fk_upd_action);
  fk.on_delete = action(c->fk_del_action);
  fk.match = c->fk_matchtype && *c->fk_matchtype ? *c->fk_matchtype : 's';
  fk.deferrable = c->deferrable;
  fk.deferred = c->initdeferred;
  std::string base = table.name;
  for (const auto& name : columns) base += "_" + name;
  NameConstraint(table, c, base + "_fkey", &fk);
  return fk;
}

void NameConstraint(const TableCatalog& table, const PgQuery__Constraint* c, const std::string& chosen,
                    ConstraintCatalog* out) {
  // Given, or chosen and made unique among the table's with a number.
  std::set<std::string> taken = {table.name + "_pkey"};
  std::set<int> ordinals;
  for (const auto& other : table.constraints) {
    taken.insert(other.name);
    ordinals.insert(other.ordinal);
  }
  if (c->conname && *c->conname) {
    if (taken.count(c->conname))
      FRESHET_THROW(sqlstate::kDuplicateObject, "constraint \"{}\" for relation \"{}\" already exists", c->conname,
                    table.name);
    out->name = c->conname;
  } else {
    out->name = chosen;
    for (int n = 1; taken.count(out->name); n++) out->name = chosen + std::to_string(n);
  }
  out->ordinal = 0;
  while (ordinals.count(out->ordinal)) out->ordinal++;
  if (out->ordinal >= 32)
    throw SqlError(sqlstate::kFeatureNotSupported, "a table can have at most 32 foreign key and check constraints");
}

ConstraintCatalog BindUniqueConstraint(const HandlerArgs& args, const TableCatalog& table,
                                       const std::vector<std::string>& columns, const PgQuery__Constraint* c) {
  ConstraintCatalog unique;
  unique.type = 'u';
  for (const auto& name : columns) {
    int i = table.ColumnIndex(name);
    if (i < 0 || table.columns[i].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in key does not exist", name);
    if (std::find(unique.columns.begin(), unique.columns.end(), name) != unique.columns.end())
      FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" appears twice in unique constraint", name);
    unique.columns.push_back(name);
  }
  unique.nulls_not_distinct = c->nulls_not_distinct;
  unique.deferrable = c->deferrable;
  unique.deferred = c->initdeferred;
  if (unique.deferrable)
    throw SqlError(sqlstate::kFeatureNotSupported, "deferrable unique constraints are not supported yet");
  // As PostgreSQL: <table>_<columns>_key, and its index is a relation of
  // the schema: the name must not be any relation's there (42P07).
  std::set<std::string> relations;
  for (const auto& other : args.session->catalog()->ListTables(table.database_id)) {
    if (other->schema_id != table.schema_id) continue;
    relations.insert(other->name);
    if (other->kind == RelationKind::kTable && other->row_id_index < 0) relations.insert(other->name + "_pkey");
    for (const auto& k : other->constraints)
      if (k.type == 'u') relations.insert(k.name);
  }
  if (c->conname && *c->conname && relations.count(c->conname))
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", c->conname);
  std::string base = table.name;
  for (const auto& name : columns) base += "_" + name;
  std::string chosen = base + "_key";
  for (int n = 1; relations.count(chosen); n++) chosen = base + "_key" + std::to_string(n);
  NameConstraint(table, c, chosen, &unique);
  return unique;
}

std::vector<std::string> ConstraintKeys(const PgQuery__Constraint* c) {
  std::vector<std::string> columns;
  for (size_t k = 0; k < c->n_keys; k++) columns.push_back(StringOf(c->keys[k]));
  return columns;
}

bool IsOperatorNode(const PgQuery__Node* expr) {
  switch (expr->node_case) {
    case PG_QUERY__NODE__NODE_A_EXPR:
    case PG_QUERY__NODE__NODE_BOOL_EXPR:
    case PG_QUERY__NODE__NODE_NULL_TEST:
    case PG_QUERY__NODE__NODE_BOOLEAN_TEST: return true;
    default: return false;
  }
}

ConstraintCatalog BindCheckConstraint(const HandlerArgs& args, const TableCatalog& table, const PgQuery__Constraint* c) {
  ConstraintCatalog check;
  check.type = 'c';
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  binder.BindCheckExpression(table, c->raw_expr, &check.columns);
  check.check = DeparseExpression(c->raw_expr);
  check.check_is_operator = IsOperatorNode(c->raw_expr);
  check.validated = !c->skip_validation;
  // As PostgreSQL: named after the one column it reads, if it reads one.
  std::string base = table.name + (check.columns.size() == 1 ? "_" + check.columns[0] : "");
  NameConstraint(table, c, base + "_check", &check);
  return check;
}

std::string ForeignKeyNotice(const ConstraintCatalog& fk) {
  return fmt::format("foreign key constraint \"{}\" is recorded but not enforced", fk.name);
}

std::string NormalizedCreateTable(const TableCatalog& t) {
  std::string cols;
  // A time-series table's declared key is its tags (its storage key adds
  // the time index and, in append mode, the row id).
  const std::vector<int>& pk = t.IsTimeSeries() ? t.timeseries.tags : t.pk;
  bool single_pk = pk.size() == 1 && (t.row_id_index < 0 || t.IsTimeSeries());
  for (size_t i = 0; i < t.columns.size(); i++) {
    const auto& c = t.columns[i];
    if (c.hidden) continue;
    bool in_pk = std::find(pk.begin(), pk.end(), static_cast<int>(i)) != pk.end();
    std::string def = QuoteIdentIfNeeded(c.name) + " " + RwTypeName(c.type);
    if (single_pk && in_pk) def += " PRIMARY KEY";
    else if (c.not_null && !in_pk) def += " NOT NULL";
    if (c.identity) def += c.identity == 'a' ? " GENERATED ALWAYS AS IDENTITY" : " GENERATED BY DEFAULT AS IDENTITY";
    else if (!c.generated.empty()) def += " GENERATED ALWAYS AS (" + c.generated + ") STORED";
    else if (!c.default_expr.empty()) def += " DEFAULT " + c.default_expr;
    cols += (cols.empty() ? "" : ", ") + def;
  }
  if (t.IsTimeSeries()) cols += ", TIME INDEX (" + QuoteIdentIfNeeded(t.columns[t.timeseries.time_index].name) + ")";
  if (pk.size() > 1) {
    std::string keys;
    for (int k : pk) keys += (keys.empty() ? "" : ", ") + QuoteIdentIfNeeded(t.columns[k].name);
    cols += ", PRIMARY KEY (" + keys + ")";
  }
  for (const auto& c : t.constraints) {
    if (c.type == 'c') cols += ", CONSTRAINT " + QuoteIdentIfNeeded(c.name) + " CHECK (" + c.check + ")";
    if (c.type != 'u' || c.index_only) continue;
    std::string keys;
    for (const auto& name : c.columns) keys += (keys.empty() ? "" : ", ") + QuoteIdentIfNeeded(name);
    cols += ", CONSTRAINT " + QuoteIdentIfNeeded(c.name) + " UNIQUE " + (c.nulls_not_distinct ? "NULLS NOT DISTINCT " : "") +
            "(" + keys + ")";
  }
  if (t.watermark_column >= 0)
    cols += ", WATERMARK FOR " + QuoteIdentIfNeeded(t.columns[t.watermark_column].name) + " AS " + t.watermark_expr;
  std::string with;
  for (const auto& option : t.storage_options) with += (with.empty() ? "" : ", ") + option;
  if (t.IsTimeSeries()) {
    // GreptimeDB's clauses, in its order.
    const TimeSeriesCatalog& ts = t.timeseries;
    std::string out = "CREATE TABLE " + QuoteIdentIfNeeded(t.name) + " (" + cols + ")";
    if (!ts.partition_columns.empty() || !ts.partition_rules.empty()) {
      std::string columns, rules;
      for (const auto& c : ts.partition_columns) columns += (columns.empty() ? "" : ", ") + QuoteIdentIfNeeded(c);
      for (const auto& r : ts.partition_rules) rules += (rules.empty() ? "" : ", ") + r;
      out += " PARTITION ON COLUMNS (" + columns + ") (" + rules + ")";
    }
    out += " ENGINE = mito";
    std::string options;
    for (const auto& [key, value] : ts.options)
      options += (options.empty() ? "" : ", ") + QuoteLiteral(key) + " = " + QuoteLiteral(value);
    if (!options.empty()) out += " WITH (" + options + ")";
    return out;
  }
  std::string conflict;
  if (!t.on_conflict.empty()) {
    conflict = " ON CONFLICT " + std::string(t.on_conflict == "overwrite" ? "OVERWRITE"
                                             : t.on_conflict == "ignore" ? "IGNORE"
                                                                         : "DO UPDATE IF NOT NULL");
    if (t.version_column >= 0)
      conflict += " WITH VERSION COLUMN (" + QuoteIdentIfNeeded(t.columns[t.version_column].name) + ")";
  }
  return "CREATE TABLE " + QuoteIdentIfNeeded(t.name) + " (" + cols + ")" + (t.append_only ? " APPEND ONLY" : "") +
         conflict + (with.empty() ? "" : " WITH (" + with + ")");
}

std::vector<std::string> StorageParametersOf(PgQuery__Node* const* options, size_t n_options) {
  std::vector<std::pair<std::string, std::string>> parameters;
  for (size_t i = 0; i < n_options; i++) {
    const PgQuery__DefElem* d = options[i]->def_elem;
    std::string name = d->defnamespace && *d->defnamespace ? std::string(d->defnamespace) + "." + d->defname : d->defname;
    parameters.emplace_back(name, DefElemText(d));
  }
  return CheckStorageParameters(parameters);
}

void BindTimeSeriesTable(const ParsedStatement& stmt, TableCatalog* t) {
  if (!stmt.engine.empty() && stmt.engine != "mito")
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "table engine \"{}\" is not supported (mito is)", stmt.engine);
  const int ti = t->ColumnIndex(stmt.time_index);
  if (ti < 0 || t->columns[ti].hidden)
    FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in TIME INDEX does not exist", stmt.time_index);
  const TypeId type = t->columns[ti].type.id;
  if (type != TypeId::kTimestamp && type != TypeId::kTimestamptz && type != TypeId::kTimestampNs)
    FRESHET_THROW(sqlstate::kDatatypeMismatch, "the time index column \"{}\" must be a timestamp, not {}",
                  stmt.time_index, t->columns[ti].type.ToString());
  t->columns[ti].not_null = true;
  TimeSeriesCatalog& ts = t->timeseries;
  ts.time_index = ti;
  for (int k : t->pk)
    if (k != ti) ts.tags.push_back(k);
  for (const std::string& column : stmt.partition_columns) {
    const int c = t->ColumnIndex(column);
    if (c < 0 || t->columns[c].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in PARTITION ON COLUMNS does not exist", column);
    ts.partition_columns.push_back(column);
  }
  ts.partition_rules = stmt.partition_rules;
  ts.options = CheckTimeSeriesOptions(stmt.timeseries_options);
  t->pk = ts.tags;
  t->pk.push_back(ti);
  if (ts.append_mode()) {
    t->columns.push_back(ColumnCatalog{"_row_id", DataType::Int64(), true, true, ""});
    t->row_id_index = static_cast<int>(t->columns.size()) - 1;
    t->pk.push_back(t->row_id_index);
  } else {
    t->on_conflict = "overwrite";  // a later write of a (series, time) replaces the earlier one
  }
  t->dist_key = ts.tags;
  RegionRulesOf(*t);  // the partition rules checked (the engine is given them)
}

}  // namespace freshet
