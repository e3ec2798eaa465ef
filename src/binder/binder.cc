#include "binder/binder.h"

#include <functional>

#include "expr/window.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <set>

#include "binder/expression_binder.h"
#include "catalog/index_definition.h"
#include "sql/query_clauses.h"
#include "catalog/system_tables.h"
#include "catalog/temp_schema.h"
#include "common/error.h"
#include "expr/struct.h"
#include "expr/cast.h"
#include "planner/optimizer.h"
#include "planner/subquery.h"

namespace freshet {

namespace {

// LIMIT's or OFFSET's argument: its value when it is constant; otherwise,
// when it is made of parameters, the expression, kept for execution.
int64_t LimitOrOffset(ExprPtr e, EvalContext& ctx, bool is_limit, ExprPtr* at_execution) {
  if (!e->IsConstant() && e->IsKnownAtExecution()) {
    *at_execution = std::move(e);
    return is_limit ? -1 : 0;
  }
  if (!e->IsConstant())
    throw SqlError(sqlstate::kSyntaxError, fmt::format("argument of {} must not contain variables", is_limit ? "LIMIT" : "OFFSET"));
  return LimitArgument(e->EvalConstant(ctx), is_limit);
}

}  // namespace

Binder::Binder(BinderContext ctx) : ctx_(std::move(ctx)) { function_search_path_ = ctx_.search_path; }
Binder::~Binder() = default;

void Binder::ThrowAt(const char* code, int location, const std::string& message) const {
  SqlError e(code, message);
  if (location >= 0 && ctx_.query_text) e.WithPosition(CharPosition(*ctx_.query_text, ctx_.statement_offset + location));
  throw e;
}

void Binder::NoteNameUse(const NameUse& use) {
  if (ctx_.name_uses && view_depth_ == 0 && (use.location >= 0 || use.implicit)) ctx_.name_uses->push_back(use);
}

// ---- Types ----

DataType Binder::BindTypeName(const PgQuery__TypeName* tn) { return BindTypeNameIn(tn, nullptr); }

Binder::BoundType Binder::BindColumnType(const PgQuery__TypeName* tn) {
  BoundType out;
  out.type = BindTypeNameIn(tn, &out.domain);
  return out;
}

DataType Binder::BindTypeNameIn(const PgQuery__TypeName* tn, ObjectId* domain) {
  if (tn->n_array_bounds > 0) {
    // int[], int[3], int[][]: PostgreSQL ignores the declared sizes and
    // dimensions; arrays here are one-dimensional.
    PgQuery__TypeName element = *tn;
    element.n_array_bounds = 0;
    ObjectId element_domain = 0;
    DataType elem = BindTypeNameIn(&element, &element_domain);
    if (element_domain)
      ThrowAt(sqlstate::kFeatureNotSupported, tn->location, "arrays of domains are not supported yet");
    if (elem.IsArray()) return elem;
    return DataType::Array(elem);
  }
  std::string name = StringOf(tn->names[tn->n_names - 1]);
  if (name == "__struct" && tn->n_names == 1) return BindStructTypeName(tn);
  std::vector<int> mods;
  for (size_t i = 0; i < tn->n_typmods; i++) {
    const PgQuery__Node* m = tn->typmods[i];
    if (m->node_case == PG_QUERY__NODE__NODE_A_CONST && m->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
      mods.push_back(m->a_const->ival->ival);
  }
  // Built-in types first (pg_catalog is searched before the path), then
  // enum types along the path or in the schema named.
  bool builtin_schema = tn->n_names == 1 || (tn->n_names == 2 && StringOf(tn->names[0]) == "pg_catalog");
  DataType named = builtin_schema ? DataTypeFromName(name) : DataType::Unknown();
  if (named.id == TypeId::kUnknown && ctx_.catalog) {
    std::optional<TypeCatalog> user;
    if (tn->n_names == 1) user = FindTypeInSearchPath(name);
    else if (auto s = ctx_.catalog->FindSchema(ctx_.database_id, StringOf(tn->names[tn->n_names - 2])))
      user = ctx_.catalog->FindType(s->id, name);
    if (user) {
      if (tn->n_typmods)
        ThrowAt(sqlstate::kSyntaxError, tn->location, fmt::format("type modifier is not allowed for type \"{}\"", user->name));
      if (!user->IsDomain()) return DataType::Enum(user->id);
      // A domain: values of its base type, with its constraints where the
      // caller asks (columns, casts).
      if (domain) *domain = user->id;
      return user->base_type;
    }
    if (!builtin_schema) named = DataTypeFromName(name);
  }
  TypeId id = named.id;
  if (id == TypeId::kUnknown) {
    std::string full;
    for (size_t i = 0; i < tn->n_names; i++) full += (i ? "." : "") + StringOf(tn->names[i]);
    if (tn->n_names == 2 && StringOf(tn->names[0]) == "pg_catalog") full = name;
    ThrowAt(sqlstate::kUndefinedObject, tn->location, fmt::format("type \"{}\" does not exist", full));
  }
  DataType t = named;
  if (id == TypeId::kNumeric && !mods.empty()) {
    int p = mods[0], s = mods.size() > 1 ? mods[1] : 0;
    if (p < 1 || p > kMaxDecimalDigits)
      ThrowAt(sqlstate::kInvalidParameterValue, tn->location,
              fmt::format("NUMERIC precision {} must be between 1 and {}", p, kMaxDecimalDigits));
    if (s < 0 || s > p)
      ThrowAt(sqlstate::kInvalidParameterValue, tn->location,
              fmt::format("NUMERIC scale {} must be between 0 and precision {}", s, p));
    t.precision = p;
    t.scale = s;
  }
  if (id == TypeId::kVarchar && !mods.empty() && name != "text") {
    const char* type_name = t.IsBpchar() ? "char" : "varchar";
    if (mods[0] < 1)
      ThrowAt(sqlstate::kInvalidParameterValue, tn->location, fmt::format("length for type {} must be at least 1", type_name));
    // PostgreSQL's MaxAttrSize: character(n) values are padded to n on output.
    if (mods[0] > 10485760)
      ThrowAt(sqlstate::kInvalidParameterValue, tn->location,
              fmt::format("length for type {} cannot exceed 10485760", type_name));
    t.precision = mods[0];
  }
  if ((id == TypeId::kTimestamp || id == TypeId::kTimestamptz) && !mods.empty()) {
    // PostgreSQL's precisions 0..6 round values to that many digits;
    // timestamp(7..9) holds nanoseconds (GreptimeDB's TIMESTAMP(9)). A
    // larger precision is reduced to the largest, as PostgreSQL does (with
    // a warning there).
    const char* what = id == TypeId::kTimestamp ? "TIMESTAMP" : "TIMESTAMP WITH TIME ZONE";
    if (mods[0] < 0)
      ThrowAt(sqlstate::kInvalidParameterValue, tn->location,
              fmt::format("{}({}) precision must not be negative", what, mods[0]));
    if (id == TypeId::kTimestamptz || mods[0] <= 6) t.precision = std::min(mods[0], 6);
    else t = DataType::TimestampNs(std::min(mods[0], 9));
  }
  return t;
}

// STRUCT<name type, ...>, which the parser rewrote into
// "__struct"('name'::type, ...) (sql/parser.cc).
DataType Binder::BindStructTypeName(const PgQuery__TypeName* tn) {
  std::vector<StructField> fields;
  for (size_t i = 0; i < tn->n_typmods; i++) {
    const PgQuery__Node* m = tn->typmods[i];
    if (m->node_case != PG_QUERY__NODE__NODE_TYPE_CAST || !m->type_cast->arg ||
        m->type_cast->arg->node_case != PG_QUERY__NODE__NODE_A_CONST ||
        m->type_cast->arg->a_const->val_case != PG_QUERY__A__CONST__VAL_SVAL)
      ThrowAt(sqlstate::kSyntaxError, tn->location, "malformed STRUCT type");
    std::string field = m->type_cast->arg->a_const->sval->sval;
    for (const auto& f : fields)
      if (f.first == field)
        ThrowAt(sqlstate::kDuplicateColumn, tn->location, fmt::format("duplicate field name \"{}\" in STRUCT type", field));
    fields.emplace_back(field, BindTypeName(m->type_cast->type_name));
  }
  if (fields.empty()) ThrowAt(sqlstate::kSyntaxError, tn->location, "a STRUCT type needs at least one field");
  return DataType::Struct(fields);
}

ObjectId Binder::ResolveSchemaId(const char* schema_name) {
  if (schema_name && *schema_name) {
    auto s = ctx_.catalog->FindSchema(ctx_.database_id, schema_name);
    if (!s) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", schema_name);
    return s->id;
  }
  for (const auto& name : ctx_.search_path)
    if (auto s = ctx_.catalog->FindSchema(ctx_.database_id, name)) return s->id;
  throw SqlError(sqlstate::kInvalidSchemaName, "no schema has been selected to create in");
}

std::string Binder::CurrentSchema() const {
  for (const auto& name : ctx_.search_path)
    if (ctx_.catalog->FindSchema(ctx_.database_id, name)) return name;
  return "";
}

std::vector<std::string> Binder::ExistingSearchPath() const {
  std::vector<std::string> out;
  for (const auto& name : ctx_.search_path)
    if (ctx_.catalog->FindSchema(ctx_.database_id, name)) out.push_back(name);
  return out;
}

std::optional<TypeCatalog> Binder::FindTypeInSearchPath(const std::string& name) const {
  std::vector<std::string> schemas = ctx_.search_path;
  if (!ctx_.temp_schema.empty()) schemas.insert(schemas.begin(), ctx_.temp_schema);
  for (const auto& schema : schemas)
    if (auto s = ctx_.catalog->FindSchema(ctx_.database_id, schema))
      if (auto t = ctx_.catalog->FindType(s->id, name)) return t;
  return std::nullopt;
}

TableRef Binder::FindInSearchPath(const std::string& name) const {
  if (!ctx_.temp_schema.empty())
    if (auto s = ctx_.catalog->FindSchema(ctx_.database_id, ctx_.temp_schema))
      if (TableRef t = ctx_.catalog->FindTable(s->id, name)) return t;
  for (const auto& schema : ctx_.search_path) {
    auto s = ctx_.catalog->FindSchema(ctx_.database_id, schema);
    if (!s) continue;
    if (TableRef t = ctx_.catalog->FindTable(s->id, name)) return t;
  }
  return nullptr;
}

TableRef Binder::ResolveRelation(const PgQuery__RangeVar* rv, bool missing_ok) {
  if (rv->catalogname && *rv->catalogname && ctx_.database_name != rv->catalogname)
    return ResolveInOtherDatabase(rv, missing_ok);
  if (!(rv->schemaname && *rv->schemaname)) {
    TableRef t = FindInSearchPath(rv->relname);
    if (!t && !missing_ok) ThrowAt(sqlstate::kUndefinedTable, rv->location, fmt::format("relation \"{}\" does not exist", rv->relname));
    return t;
  }
  std::string schema = rv->schemaname;
  if (schema == "pg_temp" && !ctx_.temp_schema.empty()) schema = ctx_.temp_schema;
  if (IsTempSchemaName(schema) && schema != ctx_.temp_schema)
    ThrowAt(sqlstate::kFeatureNotSupported, rv->location, "cannot access temporary tables of other sessions");
  auto s = ctx_.catalog->FindSchema(ctx_.database_id, schema);
  if (!s) {
    if (missing_ok) return nullptr;
    ThrowAt(sqlstate::kUndefinedTable, rv->location, fmt::format("relation \"{}.{}\" does not exist", schema, rv->relname));
  }
  TableRef t = ctx_.catalog->FindTable(s->id, rv->relname);
  if (!t && !missing_ok) ThrowAt(sqlstate::kUndefinedTable, rv->location, fmt::format("relation \"{}\" does not exist", rv->relname));
  return t;
}

// db.schema.relation of another database: read at that database's latest
// committed epoch like any relation (a statement's snapshot sees each
// database at its own last commit).
TableRef Binder::ResolveInOtherDatabase(const PgQuery__RangeVar* rv, bool missing_ok) {
  const std::string name = fmt::format("{}.{}.{}", rv->catalogname, rv->schemaname, rv->relname);
  auto db = ctx_.catalog->FindDatabase(rv->catalogname);
  if (!db) ThrowAt(sqlstate::kInvalidCatalogName, rv->location, fmt::format("database \"{}\" does not exist", rv->catalogname));
  if (IsTempSchemaName(rv->schemaname) || std::string_view(rv->schemaname) == "pg_temp")
    ThrowAt(sqlstate::kFeatureNotSupported, rv->location, "cannot access temporary tables of other sessions");
  auto s = ctx_.catalog->FindSchema(db->id, rv->schemaname);
  TableRef t = s ? ctx_.catalog->FindTable(s->id, rv->relname) : nullptr;
  if (!t) {
    if (missing_ok) return nullptr;
    ThrowAt(sqlstate::kUndefinedTable, rv->location, fmt::format("relation \"{}\" does not exist", name));
  }
  return t;
}

ExprPtr Binder::BindConstantExpression(const PgQuery__Node* node) {
  Scope scope;
  scope.clause = "DEFAULT expressions";
  ExprBinder eb(this, &scope);
  return eb.Bind(node);
}

namespace {

// The `location` of a parse node (every node kind that has one names it
// so), or -1.
int NodeLocation(const PgQuery__Node* node) {
  if (!node || node->node_case == PG_QUERY__NODE__NODE__NOT_SET) return -1;
  // Every member of the node's oneof is a pointer to a message.
  const auto* msg = reinterpret_cast<const ProtobufCMessage*>(node->a_const);
  const ProtobufCFieldDescriptor* f = protobuf_c_message_descriptor_get_field_by_name(msg->descriptor, "location");
  if (!f || f->type != PROTOBUF_C_TYPE_INT32) return -1;
  return *reinterpret_cast<const int32_t*>(reinterpret_cast<const char*>(msg) + f->offset);
}

}  // namespace

ExprPtr Binder::BindExecuteArgument(const PgQuery__Node* node, const DataType& type, int number) {
  Scope scope;
  scope.clause = "EXECUTE parameter";
  ExprBinder eb(this, &scope);
  try {
    if (node->node_case == PG_QUERY__NODE__NODE_SUB_LINK)
      throw SqlError(sqlstate::kFeatureNotSupported, "cannot use subquery in EXECUTE parameter");
    ExprPtr e = eb.Bind(node);
    const DataType from = e->type();
    try {
      return eb.CoerceForAssignment(std::move(e), type, "");
    } catch (const SqlError& err) {
      if (err.code() != sqlstate::kDatatypeMismatch) throw;
      throw SqlError(sqlstate::kDatatypeMismatch,
                     fmt::format("parameter ${} of type {} cannot be coerced to the expected type {}", number,
                                 from.ToString(), type.ToString()))
          .WithHint("You will need to rewrite or cast the expression.");
    }
  } catch (SqlError& err) {
    // As PostgreSQL: an error of the argument (its input syntax) points at it.
    int location = NodeLocation(node);
    if (err.position() == 0 && location >= 0 && ctx_.query_text)
      err.WithPosition(CharPosition(*ctx_.query_text, ctx_.statement_offset + location));
    throw;
  }
}

PlanPtr Binder::BindRelationColumns(const PgQuery__RangeVar* rv, const std::vector<std::string>& columns) {
  Scope scope;
  PlanPtr plan = BindRangeVar(rv, nullptr, &scope);
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema;
  auto add = [&](size_t i) {
    const PlanColumn& c = plan->schema()[i];
    exprs.push_back(std::make_unique<ColumnRefExpr>(int(i), c.type, c.name));
    schema.push_back(PlanColumn{c.name, c.type, c.table});
  };
  if (columns.empty()) {
    for (size_t i = 0; i < plan->schema().size(); i++)
      if (!plan->schema()[i].hidden) add(i);
  } else {
    for (const auto& name : columns) {
      size_t i = 0;
      while (i < plan->schema().size() && (plan->schema()[i].hidden || plan->schema()[i].name != name)) i++;
      if (i == plan->schema().size())
        ThrowAt(sqlstate::kUndefinedColumn, -1, fmt::format("column \"{}\" of relation \"{}\" does not exist", name, rv->relname));
      add(i);
    }
  }
  return std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), std::move(schema));
}

PlanPtr Binder::BindFilter(PlanPtr input, const std::string& relation, const PgQuery__Node* condition) {
  Scope scope;
  std::vector<PlanColumn> columns = input->schema();
  for (auto& c : columns) c.table = relation;
  scope.Append(columns);
  scope.clause = "WHERE";
  ExprBinder eb(this, &scope);
  ExprPtr pred = eb.BindCondition(condition, "WHERE");
  return std::make_unique<FilterNode>(std::move(input), std::move(pred));
}

void Binder::PushCtes(const PgQuery__WithClause* with) {
  std::map<std::string, std::shared_ptr<Cte>> level;
  if (with) {
    for (size_t i = 0; i < with->n_ctes; i++) {
      const PgQuery__CommonTableExpr* cte = with->ctes[i]->common_table_expr;
      // INSERT/UPDATE/DELETE ... RETURNING in WITH would need the statement
      // run once, before the query, on the query's snapshot: refused as a
      // whole rather than bound as a SELECT it is not.
      if (!cte->ctequery || cte->ctequery->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        ThrowAt(sqlstate::kFeatureNotSupported, cte->location,
                "WITH clause containing a data-modifying statement is not supported yet");
      auto c = std::make_shared<Cte>();
      c->query = cte->ctequery;
      c->recursive = with->recursive;
      c->changelog = IsChangelogCte(cte);
      c->location = cte->location;
      for (size_t k = 0; k < cte->n_aliascolnames; k++) c->column_aliases.push_back(StringOf(cte->aliascolnames[k]));
      if (level.count(cte->ctename))
        ThrowAt(sqlstate::kDuplicateAlias, cte->location, fmt::format("WITH query name \"{}\" specified more than once", cte->ctename));
      level[cte->ctename] = c;
    }
  }
  cte_stack_.push_back(std::move(level));
}

// ---- Queries ----

PlanPtr Binder::BindQuery(const PgQuery__Node* node) {
  if (node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) throw SqlError(sqlstate::kInternalError, "not a query");
  return BindSelect(node->select_stmt, nullptr);
}

PlanPtr Binder::BindSelect(const PgQuery__SelectStmt* stmt, Scope* outer) {
  if (++depth_ > 200) throw SqlError(sqlstate::kStatementTooComplex, "query is too deeply nested");
  PushCtes(stmt->with_clause);
  bool branch = set_operation_branch_;
  set_operation_branch_ = false;
  PlanPtr plan;
  if (stmt->op != PG_QUERY__SET_OPERATION__SETOP_NONE) {
    plan = BindSetOperation(stmt, outer);
    // The width first: the order in which arguments are evaluated is
    // unspecified, and clang moves `plan` out before reading it.
    size_t width = plan->schema().size();
    plan = ApplyOrderLimit(std::move(plan), stmt, outer, width);
  } else if (stmt->n_values_lists > 0) {
    plan = BindValues(stmt, outer);
    size_t width = plan->schema().size();
    plan = ApplyOrderLimit(std::move(plan), stmt, outer, width);
  } else {
    set_operation_branch_ = branch;
    plan = BindSelectCore(stmt, outer);
  }
  cte_stack_.pop_back();
  depth_--;
  return plan;
}

void CheckTargetListLength(size_t entries) {
  if (entries > kMaxTargetListEntries)
    throw SqlError("54011", fmt::format("target lists can have at most {} entries", kMaxTargetListEntries));
}

PlanPtr Binder::BindValues(const PgQuery__SelectStmt* stmt, Scope* outer) {
  Scope scope;
  scope.outer = outer;
  scope.clause = "VALUES";
  ExprBinder eb(this, &scope);
  std::vector<std::vector<ExprPtr>> rows;
  size_t width = 0;
  for (size_t r = 0; r < stmt->n_values_lists; r++) {
    const PgQuery__List* list = stmt->values_lists[r]->list;
    if (r == 0) width = list->n_items;
    else if (list->n_items != width) ThrowAt(sqlstate::kSyntaxError, -1, "VALUES lists must all be the same length");
    if (r == 0) CheckTargetListLength(width);
    std::vector<ExprPtr> row;
    for (size_t c = 0; c < list->n_items; c++) row.push_back(eb.Bind(list->items[c]));
    rows.push_back(std::move(row));
  }
  std::vector<PlanColumn> schema;
  for (size_t c = 0; c < width; c++) {
    std::vector<const Expression*> col;
    for (auto& row : rows) col.push_back(row[c].get());
    DataType t = eb.UnifyTypes(col, "VALUES", -1);
    for (auto& row : rows) row[c] = eb.Coerce(std::move(row[c]), t);
    schema.push_back({fmt::format("column{}", c + 1), t, ""});
  }
  return std::make_unique<ValuesNode>(std::move(schema), std::move(rows));
}

PlanPtr Binder::CoerceColumns(PlanPtr plan, const std::vector<DataType>& types, bool assignment) {
  bool needed = false;
  for (size_t i = 0; i < types.size(); i++) needed |= !(plan->schema()[i].type == types[i]);
  if (!needed) return plan;
  Scope scope;
  ExprBinder eb(this, &scope);
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema = plan->schema();
  for (size_t i = 0; i < types.size(); i++) {
    auto column = std::make_unique<ColumnRefExpr>(static_cast<int>(i), schema[i].type, schema[i].name);
    exprs.push_back(assignment ? eb.CoerceForAssignment(std::move(column), types[i], schema[i].name)
                               : eb.Coerce(std::move(column), types[i]));
    schema[i].type = types[i];
  }
  return std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), std::move(schema));
}

PlanPtr Binder::BindSetOperation(const PgQuery__SelectStmt* stmt, Scope* outer) {
  set_operation_branch_ = true;
  PlanPtr left = BindSelect(stmt->larg, outer);
  set_operation_branch_ = true;
  PlanPtr right = BindSelect(stmt->rarg, outer);
  set_operation_branch_ = false;
  const char* name = stmt->op == PG_QUERY__SET_OPERATION__SETOP_UNION       ? "UNION"
                     : stmt->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? "INTERSECT"
                                                                            : "EXCEPT";
  if (const CorrespondingClause* corresponding = CorrespondingOf(stmt))
    MatchColumnsByName(*corresponding, name, &left, &right);
  if (left->schema().size() != right->schema().size())
    ThrowAt(sqlstate::kSyntaxError, -1, fmt::format("each {} query must have the same number of columns", name));
  std::vector<DataType> types;
  for (size_t i = 0; i < left->schema().size(); i++) {
    DataType a = left->schema()[i].type, b = right->schema()[i].type;
    DataType t = a.id == TypeId::kUnknown ? b : (b.id == TypeId::kUnknown ? a : CommonSuperType(a, b));
    if (t.id == TypeId::kUnknown) {
      if (a.id == TypeId::kUnknown && b.id == TypeId::kUnknown) t = DataType::Text();
      else ThrowAt(sqlstate::kDatatypeMismatch, -1, fmt::format("{} types {} and {} cannot be matched", name, a.ToString(), b.ToString()));
    }
    types.push_back(t);
  }
  left = CoerceColumns(std::move(left), types);
  right = CoerceColumns(std::move(right), types);
  SetOpKind op = stmt->op == PG_QUERY__SET_OPERATION__SETOP_UNION       ? SetOpKind::kUnion
                 : stmt->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? SetOpKind::kIntersect
                                                                        : SetOpKind::kExcept;
  auto node = std::make_unique<SetOpNode>(op, stmt->all, std::move(left), std::move(right));
  for (auto& c : node->mutable_schema()) c.table = "", c.origin_table = 0, c.origin_column = 0;
  return node;
}

// ASOF [LEFT] JOIN ... ON: the condition's one comparison of a left value
// with a right value by <, <=, > or >= says which right row is nearest;
// its equalities are the join's keys (none: one group).
void Binder::SetAsOfComparison(JoinNode* join) {
  const int left_width = static_cast<int>(join->child(0)->schema().size());
  std::vector<ExprPtr> conjuncts;
  if (join->condition) SplitConjuncts(join->condition->Clone(), &conjuncts);
  int found = 0;
  for (auto& c : conjuncts) {
    if (c->kind() != Expression::Kind::kFunction || c->children().size() != 2) continue;
    std::string op = static_cast<const FunctionExpr&>(*c).function()->name;
    if (op != "<" && op != "<=" && op != ">" && op != ">=") continue;
    const JoinSide a = SideOf(*c->children()[0], left_width), b = SideOf(*c->children()[1], left_width);
    const bool in_order = a == JoinSide::kLeft && b == JoinSide::kRight;
    if (!in_order && !(a == JoinSide::kRight && b == JoinSide::kLeft)) continue;
    found++;
    // As written left OP right.
    const bool mirrored = !in_order;
    ExprPtr l = c->children()[mirrored ? 1 : 0]->Clone(), r = c->children()[mirrored ? 0 : 1]->Clone();
    ShiftColumns(r.get(), -left_width);
    const bool greater = op[0] == '>';
    join->asof_left = std::move(l);
    join->asof_right = std::move(r);
    join->asof_greatest = greater != mirrored;
  }
  if (found != 1)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "an ASOF join's ON condition needs exactly one comparison (<, <=, > or >=) of a left value with a "
                   "right value, besides its equalities");
  join->asof = true;
}

// RisingWave's CORRESPONDING [BY (columns)]: each side reduced to the
// columns both have by name, in BY's order or else the left side's. A side
// naming two columns alike is refused, as are BY's names missing on a side
// and sides with no name in common. Unnamed columns (?column?) match none.
void Binder::MatchColumnsByName(const CorrespondingClause& clause, const char* operation, PlanPtr* left, PlanPtr* right) {
  auto positions = [&](const PlanPtr& side) {
    std::map<std::string, int> by_name;
    for (size_t i = 0; i < side->schema().size(); i++) {
      const std::string& column = side->schema()[i].name;
      if (!by_name.emplace(column, static_cast<int>(i)).second)
        ThrowAt(sqlstate::kDuplicateColumn, clause.location,
                fmt::format("column name \"{}\" appears more than once in a side of a {} CORRESPONDING", column, operation));
    }
    by_name.erase("?column?");
    return by_name;
  };
  std::map<std::string, int> in_left = positions(*left), in_right = positions(*right);
  std::vector<int> from_left, from_right;
  if (!clause.by.empty()) {
    std::set<std::string> seen;
    for (const std::string& column : clause.by) {
      if (!seen.insert(column).second)
        ThrowAt(sqlstate::kDuplicateColumn, clause.location,
                fmt::format("column name \"{}\" appears more than once in CORRESPONDING BY", column));
      auto l = in_left.find(column), r = in_right.find(column);
      if (l == in_left.end() || r == in_right.end())
        ThrowAt(sqlstate::kUndefinedColumn, clause.location,
                fmt::format("column \"{}\" of CORRESPONDING BY is not in {} side of the {}", column,
                            l == in_left.end() ? "the left" : "the right", operation));
      from_left.push_back(l->second);
      from_right.push_back(r->second);
    }
  } else {
    for (size_t i = 0; i < (*left)->schema().size(); i++) {
      auto r = in_right.find((*left)->schema()[i].name);
      if (r == in_right.end() || !in_left.count((*left)->schema()[i].name)) continue;
      from_left.push_back(static_cast<int>(i));
      from_right.push_back(r->second);
    }
    if (from_left.empty())
      ThrowAt(sqlstate::kSyntaxError, clause.location,
              fmt::format("the sides of a {} CORRESPONDING have no column name in common", operation));
  }
  auto keep = [](PlanPtr side, const std::vector<int>& columns) {
    std::vector<ExprPtr> exprs;
    std::vector<PlanColumn> schema;
    for (int c : columns) {
      const PlanColumn& column = side->schema()[c];
      exprs.push_back(std::make_unique<ColumnRefExpr>(c, column.type, column.name));
      schema.push_back(column);
    }
    return PlanPtr(std::make_unique<ProjectNode>(std::move(side), std::move(exprs), std::move(schema)));
  };
  *left = keep(std::move(*left), from_left);
  *right = keep(std::move(*right), from_right);
}

// ORDER BY / LIMIT / OFFSET over a plan whose first `visible` columns are
// the query's output (set operations and VALUES: names and positions only).
PlanPtr Binder::ApplyOrderLimit(PlanPtr plan, const PgQuery__SelectStmt* stmt, Scope* outer, size_t visible) {
  const bool with_ties = stmt->limit_option == PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_WITH_TIES;
  Scope scope;
  scope.outer = outer;
  scope.Append(plan->schema());
  scope.clause = "ORDER BY";
  ExprBinder eb(this, &scope);
  if (stmt->n_sort_clause > 0) {
    std::vector<SortKey> keys;
    for (size_t i = 0; i < stmt->n_sort_clause; i++) {
      const PgQuery__SortBy* sb = stmt->sort_clause[i]->sort_by;
      SortKey key;
      const PgQuery__Node* n = sb->node;
      if (n->node_case == PG_QUERY__NODE__NODE_A_CONST && n->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
        int pos = n->a_const->ival->ival;
        if (pos < 1 || pos > static_cast<int>(visible))
          ThrowAt(sqlstate::kInvalidColumnReference, sb->location, fmt::format("ORDER BY position {} is not in select list", pos));
        key.expr = std::make_unique<ColumnRefExpr>(pos - 1, plan->schema()[pos - 1].type, plan->schema()[pos - 1].name);
      } else {
        key.expr = eb.Bind(n);
      }
      key.descending = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
      key.nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT ? key.descending
                                                                                          : sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST;
      if (key.expr->type().id == TypeId::kUnknown) key.expr = eb.Coerce(std::move(key.expr), DataType::Varchar());
      keys.push_back(std::move(key));
    }
    plan = std::make_unique<SortNode>(std::move(plan), std::move(keys));
  }
  if (stmt->limit_count || stmt->limit_offset) {
    Scope empty;
    ExprBinder cb(this, &empty);
    int64_t limit = -1, offset = 0;
    ExprPtr limit_value, offset_value;
    if (stmt->limit_count) {
      ExprPtr e = cb.Bind(stmt->limit_count);
      if (!(e->kind() == Expression::Kind::kConstant && static_cast<ConstantExpr*>(e.get())->value().is_null()))
        limit = LimitOrOffset(cb.Coerce(std::move(e), DataType::Int64()), *ctx_.eval, true, &limit_value);
    }
    if (stmt->limit_offset)
      offset = LimitOrOffset(cb.Coerce(cb.Bind(stmt->limit_offset), DataType::Int64()), *ctx_.eval, false, &offset_value);
    // (A select's ORDER BY is sorted before it comes here.)
    if (with_ties && plan->kind() != PlanNode::Kind::kSort)
      throw SqlError(sqlstate::kSyntaxError, "WITH TIES cannot be specified without ORDER BY clause");
    if (with_ties && limit < 0 && !limit_value)
      throw SqlError("2201W", "row count cannot be null in FETCH FIRST ... WITH TIES clause");
    auto node = std::make_unique<LimitNode>(std::move(plan), limit, offset);
    node->limit_value = std::move(limit_value);
    node->offset_value = std::move(offset_value);
    node->with_ties = with_ties;
    plan = std::move(node);
  }
  if (plan->schema().size() > visible) {
    std::vector<ExprPtr> exprs;
    std::vector<PlanColumn> schema;
    for (size_t i = 0; i < visible; i++) {
      exprs.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), plan->schema()[i].type, plan->schema()[i].name));
      schema.push_back(plan->schema()[i]);
    }
    plan = std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), std::move(schema));
  }
  return plan;
}

// ---- Set-returning functions (FROM items and select-list entries) ----

namespace {

// The JSON set-returning functions: the type of their argument and of
// their value column (key columns are text).
struct JsonSetFunction {
  DataType arg, value;
  bool members;  // (key, value) rows
  bool keys;     // key rows
};

std::optional<JsonSetFunction> LookupJsonSetFunction(const std::string& name) {
  static const std::set<std::string> kNames = {
      "json_each",           "json_each_text",           "jsonb_each",          "jsonb_each_text",
      "json_array_elements", "json_array_elements_text", "jsonb_array_elements", "jsonb_array_elements_text",
      "json_object_keys",    "jsonb_object_keys"};
  if (!kNames.count(name)) return std::nullopt;
  DataType arg = name.starts_with("jsonb") ? DataType::Jsonb() : DataType::Json();
  DataType value = name.ends_with("_text") ? DataType::Text() : arg;
  return JsonSetFunction{arg, value, name.find("_each") != std::string::npos,
                         name.find("_object_keys") != std::string::npos};
}

}  // namespace

bool Binder::IsSetFunctionName(const std::string& name) {
  return name == "generate_series" || name == "unnest" || name == "generate_subscripts" || name == "_pg_expandarray" ||
         name == "pg_partition_ancestors" || name == "pg_options_to_table" || name == "regexp_split_to_table" ||
         name == "regexp_matches" || name == "pg_listening_channels" ||
         LookupJsonSetFunction(name).has_value();
}

DataType Binder::BindSetFunctionArgs(const std::string& name, std::vector<ExprPtr>* args_ptr, ExprBinder* eb,
                                     int location) {
  auto& args = *args_ptr;
  auto array_argument = [&](const char* fn) {
    if (args.empty() || args[0]->type().id == TypeId::kUnknown)
      ThrowAt(sqlstate::kUndefinedFunction, location, fmt::format("function {}(unknown) does not exist", fn));
    if (!args[0]->type().IsArray() || args[0]->type().IsAnyArray())
      ThrowAt(sqlstate::kUndefinedFunction, location, fmt::format("function {}({}) does not exist", fn, args[0]->type().ToString()));
  };
  if (name == "_pg_expandarray") {
    // A row (x, n) per element: the element and its 1-based position.
    if (args.size() != 1) ThrowAt(sqlstate::kUndefinedFunction, location, "function _pg_expandarray takes one array");
    array_argument("_pg_expandarray");
    return DataType::Struct({{"x", args[0]->type().ElementType()}, {"n", DataType::Int32()}});
  }
  if (auto json = LookupJsonSetFunction(name)) {
    // jsonb_each(j) yields (key, value) records, jsonb_array_elements(j)
    // values, jsonb_object_keys(j) keys.
    if (args.size() != 1)
      ThrowAt(sqlstate::kUndefinedFunction, location, fmt::format("function {} takes one argument", name));
    if (!args[0]->type().IsJson() && args[0]->type().id != TypeId::kUnknown)
      ThrowAt(sqlstate::kUndefinedFunction, location,
              fmt::format("function {}({}) does not exist", name, args[0]->type().ToString()));
    args[0] = eb->Coerce(std::move(args[0]), json->arg);
    if (json->members) return DataType::Struct({{"key", DataType::Text()}, {"value", json->value}});
    return json->keys ? DataType::Text() : json->value;
  }
  if (name == "pg_options_to_table") {
    // pg_options_to_table(reloptions): (option_name, option_value) per "name=value".
    if (args.size() != 1) ThrowAt(sqlstate::kUndefinedFunction, location, "function pg_options_to_table takes one text[]");
    args[0] = eb->Coerce(std::move(args[0]), DataType::Array(DataType::Text()));
    return DataType::Struct({{"option_name", DataType::Text()}, {"option_value", DataType::Text()}});
  }
  if (name == "regexp_split_to_table" || name == "regexp_matches") {
    // regexp_split_to_table(string, pattern [, flags]): a row per piece;
    // regexp_matches(string, pattern [, flags]): a text[] per match.
    if (args.size() != 2 && args.size() != 3)
      ThrowAt(sqlstate::kUndefinedFunction, location, fmt::format("function {} takes a string, a pattern and flags", name));
    for (auto& arg : args) arg = eb->Coerce(std::move(arg), DataType::Text());
    return name == "regexp_matches" ? DataType::Array(DataType::Text()) : DataType::Text();
  }
  if (name == "pg_listening_channels") {
    // The channels this session LISTENs to.
    if (!args.empty()) ThrowAt(sqlstate::kUndefinedFunction, location, "function pg_listening_channels takes no arguments");
    return DataType::Text();
  }
  if (name == "pg_partition_ancestors") {
    // pg_partition_ancestors(regclass): psql's \d asks it (tables are
    // never partitions here, so it has no rows, as for PostgreSQL's plain tables).
    if (args.size() != 1) ThrowAt(sqlstate::kUndefinedFunction, location, "function pg_partition_ancestors takes one relation");
    args[0] = eb->Coerce(std::move(args[0]), DataType::Oid(OidKind::kRegclass));
    return DataType::Oid(OidKind::kRegclass);
  }
  if (name == "generate_subscripts") {
    // generate_subscripts(array, dim [, reverse]): the subscripts of a dimension.
    if (args.size() != 2 && args.size() != 3)
      ThrowAt(sqlstate::kUndefinedFunction, location, "function generate_subscripts takes an array, a dimension and reverse");
    array_argument("generate_subscripts");
    args[1] = eb->Coerce(std::move(args[1]), DataType::Int32());
    if (args.size() == 3) args[2] = eb->Coerce(std::move(args[2]), DataType::Boolean());
    return DataType::Int32();
  }
  if (name == "unnest") {
    // unnest(array): one row per element, in order. unnest(a, b, ...)
    // (in FROM): the arrays side by side, a column each, the shorter ones
    // padded with NULLs (a record of their elements).
    if (args.empty()) ThrowAt(sqlstate::kUndefinedFunction, location, "function unnest() does not exist");
    std::vector<StructField> fields;
    for (const auto& arg : args) {
      if (arg->type().id == TypeId::kUnknown)
        ThrowAt(sqlstate::kAmbiguousFunction, location, "function unnest(unknown) is not unique");
      if (!arg->type().IsArray() || arg->type().IsAnyArray())
        ThrowAt(sqlstate::kUndefinedFunction, location, fmt::format("function unnest({}) does not exist", arg->type().ToString()));
      fields.push_back({"unnest", arg->type().ElementType()});
    }
    return args.size() == 1 ? fields[0].second : DataType::Struct(fields);
  }
  if (args.size() < 2 || args.size() > 3)
    ThrowAt(sqlstate::kUndefinedFunction, location, "function generate_series requires 2 or 3 arguments");
  std::vector<const Expression*> raw = {args[0].get(), args[1].get()};
  DataType t = eb->UnifyTypes(raw, "generate_series", location);
  if (t.id == TypeId::kVarchar || t.id == TypeId::kUnknown) t = DataType::Int32();
  if (t.id == TypeId::kInt16) t = DataType::Int32();
  if (t.id == TypeId::kDate || t.id == TypeId::kTimestampNs) t = DataType::Timestamp();
  bool temporal = t.id == TypeId::kTimestamp || t.id == TypeId::kTimestamptz;
  if (!t.IsInteger() && t.id != TypeId::kNumeric && !temporal)
    ThrowAt(sqlstate::kUndefinedFunction, location, fmt::format("function generate_series({}) does not exist", t.ToString()));
  args[0] = eb->Coerce(std::move(args[0]), t);
  args[1] = eb->Coerce(std::move(args[1]), t);
  if (args.size() == 3) args[2] = eb->Coerce(std::move(args[2]), temporal ? DataType::Interval() : t);
  else if (temporal) ThrowAt(sqlstate::kUndefinedFunction, location, "generate_series over timestamps requires a step interval");
  return t;
}

// ---- FROM items ----

// TUMBLE(relation, time_column, size) and HOP(relation, time_column, slide,
// size): the relation's rows with window_start and window_end columns.
static constexpr int64_t kMaxHopWindowsPerRow = 10000;
PlanPtr Binder::BindTimeWindow(const PgQuery__RangeFunction* rf, const PgQuery__FuncCall* fc, const std::string& name,
                               Scope* outer, Scope* scope) {
  const size_t want = name == "tumble" ? 3 : 4;
  if (fc->n_args != want)
    ThrowAt(sqlstate::kUndefinedFunction, fc->location,
            fmt::format("{} takes {} arguments: a relation, its time column and {}", name == "tumble" ? "TUMBLE" : "HOP",
                        want, name == "tumble" ? "the window size" : "the window slide and size"));
  const PgQuery__Node* rel = fc->args[0];
  if (rel->node_case != PG_QUERY__NODE__NODE_COLUMN_REF || rel->column_ref->n_fields > 2)
    ThrowAt(sqlstate::kSyntaxError, fc->location, "the first argument of a window function in FROM must be a table or view name");
  const auto* ref = rel->column_ref;
  std::string relname = StringOf(ref->fields[ref->n_fields - 1]);
  std::string schemaname = ref->n_fields == 2 ? StringOf(ref->fields[0]) : "";
  PgQuery__RangeVar rv = PG_QUERY__RANGE_VAR__INIT;
  rv.relname = relname.data();
  rv.schemaname = schemaname.data();
  rv.inh = true;
  rv.location = ref->location;
  PgQuery__Node rv_node = PG_QUERY__NODE__INIT;
  rv_node.node_case = PG_QUERY__NODE__NODE_RANGE_VAR;
  rv_node.range_var = &rv;
  Scope inner;
  inner.outer = outer;
  PlanPtr input = BindFrom(&rv_node, outer, &inner);
  ExprBinder eb(this, &inner);
  ExprPtr ts = eb.Bind(fc->args[1]);
  if (ts->kind() != Expression::Kind::kColumnRef ||
      (ts->type().id != TypeId::kTimestamp && ts->type().id != TypeId::kTimestamptz))
    ThrowAt(sqlstate::kDatatypeMismatch, fc->location, "the time column of a window function must be a timestamp or timestamptz column");
  std::vector<int64_t> sizes;
  for (size_t i = 2; i < want; i++) {
    ExprPtr e = eb.Coerce(eb.Bind(fc->args[i]), DataType::Interval());
    if (!e->IsConstant()) ThrowAt(sqlstate::kFeatureNotSupported, fc->location, "window sizes must be constant intervals");
    Value v = e->EvalConstant(*ctx_.eval);
    if (v.is_null()) ThrowAt(sqlstate::kInvalidParameterValue, fc->location, "window sizes must not be NULL");
    sizes.push_back(WindowSizeMicros(v.interval_value(), i + 1 == want ? "the window size" : "the window slide"));
  }
  std::string alias = rf->alias ? rf->alias->aliasname : relname;
  std::vector<PlanColumn> schema = input->schema();
  schema.push_back({"window_start", ts->type(), alias});
  schema.push_back({"window_end", ts->type(), alias});
  for (auto& c : schema) c.table = alias;
  if (rf->alias)
    for (size_t i = 0; i < rf->alias->n_colnames && i < schema.size(); i++) schema[i].name = StringOf(rf->alias->colnames[i]);
  scope->Append(schema);
  if (name == "hop") {
    // Every row is copied into ceil(size / slide) windows; past a bound the
    // copies of one row alone would exhaust memory (1 microsecond slides
    // over 1 day: 86 billion rows per input row).
    const int64_t windows = sizes[1] / sizes[0] + (sizes[1] % sizes[0] != 0);
    if (windows > kMaxHopWindowsPerRow)
      ThrowAt(sqlstate::kInvalidParameterValue, fc->location,
              fmt::format("HOP would put each row in {} windows; the window size may be at most {} times the slide",
                          windows, kMaxHopWindowsPerRow));
    int col = static_cast<const ColumnRefExpr&>(*ts).index();
    return std::make_unique<HopNode>(std::move(input), col, sizes[0], sizes[1], std::move(schema));
  }
  std::vector<ExprPtr> exprs;
  for (size_t c = 0; c < input->schema().size(); c++)
    exprs.push_back(std::make_unique<ColumnRefExpr>(int(c), input->schema()[c].type, input->schema()[c].name));
  Interval size{0, 0, sizes[0]};
  auto start = [&] {
    std::vector<ExprPtr> args;
    args.push_back(ts->Clone());
    args.push_back(std::make_unique<ConstantExpr>(Value::IntervalValue(size)));
    return eb.MakeCall("tumble_start", std::move(args), fc->location);
  };
  exprs.push_back(start());
  std::vector<ExprPtr> end_args;
  end_args.push_back(start());
  end_args.push_back(std::make_unique<ConstantExpr>(Value::IntervalValue(size)));
  exprs.push_back(eb.MakeCall("window_end", std::move(end_args), fc->location));
  return std::make_unique<ProjectNode>(std::move(input), std::move(exprs), std::move(schema));
}

bool HasOuterReference(const Expression& e) {
  if (dynamic_cast<const OuterRefExpr*>(&e)) return true;
  for (const auto& c : e.children())
    if (HasOuterReference(*c)) return true;
  return false;
}

// A function that returns one value, in FROM (SELECT * FROM current_schema(),
// upper('a') AS u): one row, its column named for the function or the
// alias, as PostgreSQL treats a function that returns no set; one that
// reads the items before it (FROM t, abs(t.x)) is evaluated per row of
// theirs, as set functions are.
PlanPtr Binder::BindScalarFunctionInFrom(const PgQuery__RangeFunction* rf, const PgQuery__Node* call,
                                         const std::string& name, Scope* outer, Scope* scope, bool record,
                                         const std::string& column) {
  Scope* lateral = lateral_left_;
  lateral_left_ = nullptr;
  Scope empty;
  empty.outer = lateral ? lateral : outer;
  empty.clause = "functions in FROM";
  ExprPtr value = ExprBinder(this, &empty).Bind(call);
  if (lateral && !HasOuterReference(*value)) {  // reads none of the items before it: joined as usual
    lateral_left_ = lateral;
    empty.outer = outer;
    value = ExprBinder(this, &empty).Bind(call);
  }
  const std::string alias = rf->alias ? rf->alias->aliasname : name;
  auto alias_column = [&](size_t i, const std::string& otherwise) {
    return rf->alias && rf->alias->n_colnames > i ? StringOf(rf->alias->colnames[i]) : otherwise;
  };
  // The row is computed over one empty row, as SELECT without FROM is: a
  // projection reading the items on its left unnests like LATERAL (SELECT
  // f(t.a)), into the projection of their rows.
  auto check_aliases = [&](size_t columns) {
    if (rf->alias && rf->alias->n_colnames > columns)
      FRESHET_THROW(sqlstate::kInvalidColumnReference, "table \"{}\" has {} columns available but {} columns specified",
                    alias, columns, rf->alias->n_colnames);
  };
  auto over_one_row = [](std::vector<ExprPtr> exprs, std::vector<PlanColumn> schema) -> PlanPtr {
    PlanPtr one = std::make_unique<ValuesNode>(std::vector<PlanColumn>{}, std::vector<std::vector<ExprPtr>>(1));
    return std::make_unique<ProjectNode>(std::move(one), std::move(exprs), std::move(schema));
  };
  if (record && value->type().id == TypeId::kStruct) {
    // One row of the record's fields (NULLs when it is NULL).
    if (rf->ordinality)
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("WITH ORDINALITY over SQL function {} is not supported yet", name));
    const DataType record_type = value->type();
    check_aliases(record_type.StructFields().size());
    std::vector<ExprPtr> row;
    row.push_back(std::move(value));
    PlanPtr one = over_one_row(std::move(row), {{name, record_type, alias}});
    std::vector<ExprPtr> fields;
    std::vector<PlanColumn> schema;
    for (size_t i = 0; i < record_type.StructFields().size(); i++) {
      fields.push_back(std::make_unique<FieldSelectExpr>(std::make_unique<ColumnRefExpr>(0, record_type, name), i));
      schema.push_back({alias_column(i, record_type.StructFields()[i].first), fields.back()->type(), alias});
    }
    scope->Append(schema);
    return std::make_unique<ProjectNode>(std::move(one), std::move(fields), std::move(schema));
  }
  std::vector<PlanColumn> schema{{alias_column(0, column.empty() ? alias : column), value->type(), alias}};
  std::vector<ExprPtr> row;
  row.push_back(std::move(value));
  if (rf->ordinality) {
    schema.push_back({alias_column(1, "ordinality"), DataType::Int64(), alias});
    row.push_back(std::make_unique<ConstantExpr>(Value::Int64(1)));
  }
  check_aliases(schema.size());
  scope->Append(schema);
  return over_one_row(std::move(row), std::move(schema));
}

// LATERAL subqueries, and functions in FROM, which PostgreSQL always lets
// read the items before them (FROM t, jsonb_each(t.j)). A function that
// reads none of them leaves lateral_left_ set, and is joined as usual.
bool Binder::IsLateral(const PgQuery__Node* node) {
  // A join of such an item (FROM t, f(t.a) x JOIN u ON ...): its leftmost
  // item may read the FROM items before the join.
  if (node->node_case == PG_QUERY__NODE__NODE_JOIN_EXPR) return IsLateral(node->join_expr->larg);
  return (node->node_case == PG_QUERY__NODE__NODE_RANGE_SUBSELECT && node->range_subselect->lateral) ||
         node->node_case == PG_QUERY__NODE__NODE_RANGE_FUNCTION;
}

PlanPtr Binder::BindFrom(const PgQuery__Node* node, Scope* outer, Scope* scope) {
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_RANGE_VAR: return BindRangeVar(node->range_var, outer, scope);
    case PG_QUERY__NODE__NODE_RANGE_SUBSELECT: {
      const auto* rs = node->range_subselect;
      // A LATERAL subquery reads the items on its left: bound by the FROM
      // list or the join that has them (BindLateral).
      if (rs->lateral) {
        if (!lateral_left_)
          throw SqlError(sqlstate::kFeatureNotSupported, "LATERAL is not supported here");
        outer = lateral_left_;
        lateral_left_ = nullptr;
      }
      // Without an alias (PostgreSQL 16 and RisingWave accept it) the
      // subquery's columns can only be named unqualified.
      PlanPtr p = BindSelect(rs->subquery->select_stmt, outer);
      std::string alias = rs->alias ? rs->alias->aliasname : "";
      auto& schema = p->mutable_schema();
      for (size_t i = 0; rs->alias && i < rs->alias->n_colnames && i < schema.size(); i++)
        schema[i].name = StringOf(rs->alias->colnames[i]);
      for (auto& c : schema) c.table = alias;
      scope->Append(schema);
      return p;
    }
    case PG_QUERY__NODE__NODE_RANGE_FUNCTION: {
      const auto* rf = node->range_function;
      if (rf->n_functions != 1) throw SqlError(sqlstate::kFeatureNotSupported, "ROWS FROM is not supported");
      const PgQuery__Node* call = rf->functions[0]->list->items[0];
      if (call->node_case != PG_QUERY__NODE__NODE_FUNC_CALL) throw SqlError(sqlstate::kFeatureNotSupported, "unsupported function in FROM");
      const auto* fc = call->func_call;
      std::string name = StringOf(fc->funcname[fc->n_funcname - 1]);
      if (name == "tumble" || name == "hop") return BindTimeWindow(rf, fc, name, outer, scope);
      // A set-returning SQL function (a scalar one is a one-row function
      // like any other, below).
      std::vector<FunctionCatalog> sql_functions = UserFunctionCandidates(fc);
      if (std::any_of(sql_functions.begin(), sql_functions.end(), [](const FunctionCatalog& f) { return f.returns_set; }) &&
          (fc->n_funcname >= 2 || !IsBuiltinFunctionName(name)))
        return BindSqlTableFunction(rf, fc, sql_functions, outer, scope);
      if (!IsSetFunctionName(name) || !sql_functions.empty()) {
        // A record of OUT parameters is its columns in FROM.
        const bool record = std::any_of(sql_functions.begin(), sql_functions.end(),
                                        [](const FunctionCatalog& f) { return f.ReturnsOneRecord(); });
        // One OUT parameter names the column (when every overload's does alike).
        std::string column = sql_functions.empty() ? "" : sql_functions[0].OutputColumnName();
        for (const auto& f : sql_functions)
          if (f.OutputColumnName() != column) column.clear();
        return BindScalarFunctionInFrom(rf, call, name, outer, scope, record, column);
      }
      // With items on its left, bound first as reading them; bound again
      // without them when it reads none (lateral_left_ stays set: the caller
      // then joins it as usual).
      Scope* lateral = lateral_left_;
      lateral_left_ = nullptr;
      std::vector<ExprPtr> args;
      DataType t;
      auto bind_args = [&](Scope* arg_outer) {
        Scope empty;
        empty.outer = arg_outer;
        empty.clause = "functions in FROM";
        ExprBinder eb(this, &empty);
        args.clear();
        for (size_t i = 0; i < fc->n_args; i++) args.push_back(eb.Bind(fc->args[i]));
        t = BindSetFunctionArgs(name, &args, &eb, fc->location);
      };
      bind_args(lateral ? lateral : outer);
      if (lateral && std::none_of(args.begin(), args.end(), [](const ExprPtr& a) { return HasOuterReference(*a); })) {
        lateral_left_ = lateral;
        bind_args(outer);
      }
      std::string alias = rf->alias ? rf->alias->aliasname : name;
      auto alias_column = [&](size_t i, const std::string& otherwise) {
        return rf->alias && rf->alias->n_colnames > i ? StringOf(rf->alias->colnames[i]) : otherwise;
      };
      std::vector<PlanColumn> schema;
      auto json = LookupJsonSetFunction(name);
      if (t.IsStruct()) {
        // Records are a column per field in FROM ((key, value), (x, n)...).
        for (const auto& [field, type] : t.StructFields()) schema.push_back({alias_column(schema.size(), field), type, alias});
      } else {
        // A function's named output column keeps its name under an alias.
        std::string named = json && !json->keys ? "value" : (rf->alias ? alias : name);
        schema.push_back({alias_column(0, named), t, alias});
      }
      if (rf->ordinality) schema.push_back({alias_column(schema.size(), "ordinality"), DataType::Int64(), alias});
      auto fn = std::make_unique<TableFunctionNode>(name, std::move(args), schema);
      fn->with_ordinality = rf->ordinality;
      fn->value_type = t;
      if (schema[0].name == alias || rf->alias == nullptr || t.IsStruct()) {
        scope->Append(schema);
        return fn;
      }
      // The alias alone also reads a one-column result whose column has a
      // name of its own (jsonb_array_elements(j) e: e and e.value): a
      // hidden copy of the column under the alias.
      std::vector<ExprPtr> exprs;
      for (size_t i = 0; i < schema.size(); i++)
        exprs.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), schema[i].type, schema[i].name));
      exprs.push_back(std::make_unique<ColumnRefExpr>(0, schema[0].type, schema[0].name));
      PlanColumn copy{alias, schema[0].type, alias};
      copy.hidden = true;
      schema.push_back(copy);
      scope->Append(schema);
      return std::make_unique<ProjectNode>(std::move(fn), std::move(exprs), std::move(schema));
    }
    case PG_QUERY__NODE__NODE_JOIN_EXPR: {
      const auto* j = node->join_expr;
      Scope left_scope, right_scope;
      left_scope.outer = right_scope.outer = outer;
      // The FROM items before this join (lateral_left_, set by the FROM list
      // or an enclosing join) are for its leftmost item to read.
      Scope* before = lateral_left_;
      PlanPtr left = BindFrom(j->larg, outer, &left_scope);
      const bool left_read_before = before && !lateral_left_;
      lateral_left_ = nullptr;
      JoinType type = JoinType::kInner;
      switch (j->jointype) {
        case PG_QUERY__JOIN_TYPE__JOIN_LEFT: type = JoinType::kLeft; break;
        case PG_QUERY__JOIN_TYPE__JOIN_RIGHT: type = JoinType::kRight; break;
        case PG_QUERY__JOIN_TYPE__JOIN_FULL: type = JoinType::kFull; break;
        default: break;
      }
      // JOIN t FOR SYSTEM_TIME AS OF PROCTIME(): each left row joins the
      // right's rows as they are when it arrives (JoinNode::process_time).
      const bool process_time = j->rarg->node_case == PG_QUERY__NODE__NODE_RANGE_VAR && IsProcessTimeRelation(j->rarg->range_var);
      if (process_time && type != JoinType::kInner && type != JoinType::kLeft)
        ThrowAt(sqlstate::kFeatureNotSupported, j->rarg->range_var->location,
                "a process-time temporal join (FOR SYSTEM_TIME AS OF PROCTIME()) must be a JOIN or LEFT JOIN");
      if (process_time) process_time_right_ = j->rarg->range_var;
      const bool asof = IsAsOfJoin(j);
      if (asof && (j->is_natural || j->n_using_clause > 0))
        throw SqlError(sqlstate::kFeatureNotSupported, "an ASOF join needs an ON condition (not USING or NATURAL)");
      Scope lateral;
      bool is_lateral = IsLateral(j->rarg);
      if (is_lateral) {
        lateral.columns = left_scope.columns;
        lateral.outer = outer;
        lateral_left_ = &lateral;
      }
      PlanPtr right = BindFrom(j->rarg, outer, &right_scope);
      if (lateral_left_) is_lateral = false;  // a function that reads none of the items before it
      lateral_left_ = nullptr;
      if (is_lateral && type != JoinType::kInner && type != JoinType::kLeft)
        throw SqlError(sqlstate::kInvalidColumnReference, "invalid reference to FROM-clause entry in a LATERAL subquery")
            .WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.");
      Scope joined;
      joined.outer = outer;
      joined.columns = left_scope.columns;
      joined.columns.insert(joined.columns.end(), right_scope.columns.begin(), right_scope.columns.end());
      ExprBinder eb(this, &joined);
      ExprPtr cond;
      std::vector<std::string> using_cols;
      if (j->is_natural) {
        for (const auto& lc : left_scope.columns)
          for (const auto& rc : right_scope.columns)
            if (!lc.hidden && !rc.hidden && lc.name == rc.name) using_cols.push_back(lc.name);
      }
      for (size_t i = 0; i < j->n_using_clause; i++) using_cols.push_back(StringOf(j->using_clause[i]));
      // USING/NATURAL columns: recorded now, merged after the join.
      struct UsingColumn {
        std::string name;
        int left, right;  // indices in the joined scope
      };
      std::vector<UsingColumn> merged;
      if (!using_cols.empty()) {
        std::vector<ExprPtr> parts;
        for (const auto& name : using_cols) {
          auto find = [&](const Scope& s, const char* side) {
            int found = -1;
            for (size_t i = 0; i < s.columns.size(); i++) {
              if (s.columns[i].name != name || s.columns[i].qualified_only || s.columns[i].hidden) continue;
              if (found >= 0) ThrowAt(sqlstate::kAmbiguousColumn, -1, fmt::format("common column name \"{}\" appears more than once in {} table", name, side));
              found = static_cast<int>(i);
            }
            if (found < 0) ThrowAt(sqlstate::kUndefinedColumn, -1, fmt::format("column \"{}\" specified in USING clause does not exist in {} table", name, side));
            return found;
          };
          int li = find(left_scope, "left"), ri = find(right_scope, "right");
          int roff = static_cast<int>(left_scope.columns.size());
          std::vector<ExprPtr> args;
          args.push_back(std::make_unique<ColumnRefExpr>(li, left_scope.columns[li].type, name));
          args.push_back(std::make_unique<ColumnRefExpr>(roff + ri, right_scope.columns[ri].type, name));
          parts.push_back(eb.MakeCall("=", std::move(args), -1));
          merged.push_back({name, li, roff + ri});
        }
        cond = parts.size() == 1 ? std::move(parts[0])
                                 : std::make_unique<OperatorExpr>(Expression::Kind::kAnd, DataType::Boolean(), std::move(parts));
      } else if (j->quals) {
        joined.clause = "JOIN conditions";
        cond = eb.BindCondition(j->quals, "JOIN/ON");
      } else if (j->jointype != PG_QUERY__JOIN_TYPE__JOIN_INNER) {
        throw SqlError(sqlstate::kSyntaxError, "outer joins need an ON or USING condition");
      }
      PlanPtr plan;
      if (is_lateral) {
        plan = std::make_unique<LateralJoinNode>(type, std::move(left), std::move(right), std::move(cond));
      } else {
        auto join = std::make_unique<JoinNode>(type, std::move(left), std::move(right), std::move(cond));
        join->process_time = process_time;
        if (asof) SetAsOfComparison(join.get());
        plan = std::move(join);
      }
      if (!merged.empty()) {
        // Output: the merged USING columns first (the left value, the right
        // one for RIGHT joins, COALESCE of both for FULL joins), then every
        // input column; the inputs of a merged column stay reachable only
        // through their table's name (l.k), as in PostgreSQL.
        std::vector<ExprPtr> exprs;
        std::vector<Scope::Column> columns;
        for (const auto& m : merged) {
          const auto& lc = joined.columns[m.left];
          const auto& rc = joined.columns[m.right];
          std::vector<const Expression*> probe;
          ExprPtr l = std::make_unique<ColumnRefExpr>(m.left, lc.type, m.name);
          ExprPtr r = std::make_unique<ColumnRefExpr>(m.right, rc.type, m.name);
          probe = {l.get(), r.get()};
          DataType t = eb.UnifyTypes(probe, "JOIN/USING", -1);
          ExprPtr value;
          if (type == JoinType::kFull) {
            std::vector<ExprPtr> args;
            args.push_back(eb.Coerce(std::move(l), t));
            args.push_back(eb.Coerce(std::move(r), t));
            value = std::make_unique<OperatorExpr>(Expression::Kind::kCoalesce, t, std::move(args));
          } else {
            value = eb.Coerce(type == JoinType::kRight ? std::move(r) : std::move(l), t);
          }
          exprs.push_back(std::move(value));
          for (const auto* input : {&lc, &rc})
            if (input->relation_id != 0 && input->relation_column >= 0)
              NoteNameUse({.relation = input->relation_id, .column = input->relation_column, .implicit = true});
          columns.push_back({j->alias ? j->alias->aliasname : "", m.name, t});
          joined.columns[m.left].qualified_only = true;
          joined.columns[m.right].qualified_only = true;
        }
        for (size_t i = 0; i < joined.columns.size(); i++) {
          exprs.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), joined.columns[i].type, joined.columns[i].name));
          columns.push_back(joined.columns[i]);
        }
        std::vector<PlanColumn> schema;
        for (const auto& c : columns) schema.push_back({c.name, c.type, c.table, c.hidden});
        plan = std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), std::move(schema));
        joined.columns = std::move(columns);
      }
      if (j->alias) {
        // A join alias hides the input tables' names.
        for (auto& c : joined.columns) {
          c.table = j->alias->aliasname;
          c.schema.clear();
          c.unaliased = false;
          if (c.qualified_only) {
            // The inputs of a merged USING column are no longer reachable.
            c.name.clear();
            c.hidden = true;
          }
        }
      }
      scope->columns.insert(scope->columns.end(), joined.columns.begin(), joined.columns.end());
      // Left set for the caller when the leftmost item did not read the
      // items before the join (it then joins them as usual).
      lateral_left_ = before && !left_read_before ? before : nullptr;
      return plan;
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported FROM item");
}

// A WITH RECURSIVE query that refers to itself: non-recursive term UNION
// [ALL] recursive term, the recursive term's references to `name` reading
// the rows of the run before (RecursiveUnionNode). The columns and their
// types are the non-recursive term's, as in PostgreSQL.
PlanPtr Binder::BindRecursiveCte(Cte& cte, const std::string& name, Scope* outer) {
  const PgQuery__SelectStmt* q = cte.query->select_stmt;
  if (q->op != PG_QUERY__SET_OPERATION__SETOP_UNION)
    ThrowAt(sqlstate::kInvalidRecursion, cte.location,
            fmt::format("recursive query \"{}\" does not have the form non-recursive-term UNION [ALL] recursive-term", name));
  if (NamesRelation(q->larg, name))
    throw SqlError(sqlstate::kInvalidRecursion,
                   fmt::format("recursive reference to query \"{}\" must not appear within its non-recursive term", name));
  if (q->n_sort_clause > 0 || q->limit_count || q->limit_offset)
    throw SqlError(sqlstate::kFeatureNotSupported, "ORDER BY/LIMIT/OFFSET in a recursive query is not implemented");
  PushCtes(q->with_clause);
  PlanPtr left = BindSelect(q->larg, outer);
  std::vector<PlanColumn> schema = left->schema();
  for (size_t i = 0; i < cte.column_aliases.size() && i < schema.size(); i++) schema[i].name = cte.column_aliases[i];
  for (auto& c : schema) c.hidden = false;
  const int id = next_work_table_++;
  cte.work_table = Cte::WorkTable{id, schema};
  PlanPtr right;
  try {
    right = BindSelect(q->rarg, outer);
  } catch (...) {
    cte.work_table.reset();
    cte_stack_.pop_back();
    throw;
  }
  cte.work_table.reset();
  cte_stack_.pop_back();
  if (right->schema().size() != schema.size())
    ThrowAt(sqlstate::kSyntaxError, -1, "each UNION query must have the same number of columns");
  Scope none;
  ExprBinder eb(this, &none);
  std::vector<ExprPtr> exprs;
  for (size_t i = 0; i < schema.size(); i++) {
    const DataType& want = schema[i].type;
    const DataType& got = right->schema()[i].type;
    if (!(got == want) && got.id != TypeId::kUnknown && !CanImplicitCast(got, want))
      throw SqlError(sqlstate::kDatatypeMismatch,
                     fmt::format("recursive query \"{}\" column {} has type {} in non-recursive term but type {} overall",
                                 name, i + 1, want.ToString(), got.ToString()))
          .WithHint("Cast the output of the non-recursive term to the correct type.");
    exprs.push_back(eb.Coerce(std::make_unique<ColumnRefExpr>(static_cast<int>(i), got, right->schema()[i].name), want));
  }
  right = std::make_unique<ProjectNode>(std::move(right), std::move(exprs), schema);
  left = std::make_unique<ProjectNode>(std::move(left), [&] {
    std::vector<ExprPtr> cols;
    for (size_t i = 0; i < schema.size(); i++) cols.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), schema[i].type, schema[i].name));
    return cols;
  }(), schema);
  return std::make_unique<RecursiveUnionNode>(std::move(left), std::move(right), q->all, id);
}

PlanPtr Binder::BindRangeVar(const PgQuery__RangeVar* rv, Scope* outer, Scope* scope) {
  if (rv != process_time_right_ && IsProcessTimeRelation(rv))
    ThrowAt(sqlstate::kFeatureNotSupported, rv->location,
            "FOR SYSTEM_TIME AS OF PROCTIME() is supported only on the right side of a JOIN or LEFT JOIN (a "
            "process-time temporal join)");
  std::string alias = rv->alias ? rv->alias->aliasname : rv->relname;
  auto rename = [&](std::vector<PlanColumn>& schema) {
    if (!rv->alias) return;
    size_t k = 0;
    for (auto& c : schema) {
      if (c.hidden) continue;
      if (k < rv->alias->n_colnames) c.name = StringOf(rv->alias->colnames[k]);
      k++;
    }
  };
  bool qualified = rv->schemaname && *rv->schemaname;
  // CTEs shadow tables.
  if (!qualified) {
    for (auto it = cte_stack_.rbegin(); it != cte_stack_.rend(); ++it) {
      auto found = it->find(rv->relname);
      if (found == it->end()) continue;
      std::shared_ptr<Cte> cte = found->second;
      PlanPtr p;
      if (cte->work_table) {
        p = std::make_unique<WorkTableScanNode>(cte->work_table->id, cte->work_table->schema);
      } else if (cte->recursive && NamesRelation(cte->query, rv->relname)) {
        p = BindRecursiveCte(*cte, rv->relname, outer);
      } else {
        p = BindSelect(cte->query->select_stmt, outer);
      }
      if (cte->changelog) p = std::make_unique<ChangelogNode>(std::move(p));
      auto& schema = p->mutable_schema();
      for (size_t i = 0; i < cte->column_aliases.size() && i < schema.size(); i++) schema[i].name = cte->column_aliases[i];
      for (auto& c : schema) c.table = alias;
      rename(schema);
      scope->Append(schema);
      return p;
    }
  }
  // System tables: explicitly qualified, or pg_catalog/rw_catalog first in
  // the search path as in PostgreSQL.
  std::vector<std::string> system_schemas;
  if (qualified) system_schemas.push_back(rv->schemaname);
  else system_schemas = {kPgCatalogSchema, kRwCatalogSchema};
  for (const auto& s : system_schemas) {
    if (const SystemTableDef* def = FindSystemTable(s, rv->relname)) {
      std::vector<PlanColumn> schema;
      for (const auto& c : def->columns) schema.push_back({c.name, c.type, alias});
      rename(schema);
      size_t first = scope->columns.size();
      scope->Append(schema);
      for (size_t i = first; i < scope->columns.size(); i++) {
        scope->columns[i].relation_oid = scope->columns[i].origin_table = SystemTableOid(*def);
        scope->columns[i].origin_column = static_cast<int16_t>(i - first + 1);
      }
      return std::make_unique<SystemScanNode>(def->schema + "." + def->name, std::move(schema));
    }
  }
  if (qualified && IsSystemSchema(rv->schemaname))
    ThrowAt(sqlstate::kUndefinedTable, rv->location, fmt::format("relation \"{}.{}\" does not exist", rv->schemaname, rv->relname));
  TableRef table = ResolveRelation(rv);
  if (table->kind == RelationKind::kSink)
    ThrowAt(sqlstate::kWrongObjectType, rv->location, fmt::format("\"{}\" is a sink and cannot be queried", table->name));
  // What the statement names itself (not what the views it names read).
  if (ctx_.referenced_relations && view_depth_ == 0) ctx_.referenced_relations->push_back(table->id);
  NoteNameUse({.location = rv->location, .relation = table->id, .range_var = true});
  if (table->kind == RelationKind::kView) {
    PlanPtr p = BindView(*table, alias);
    rename(p->mutable_schema());
    size_t first = scope->columns.size();
    scope->Append(p->schema());
    int16_t attnum = 0;
    for (size_t i = first; i < scope->columns.size(); i++) {
      scope->columns[i].relation_id = table->id;  // for its qualified references (a rename of the view)
      scope->columns[i].unaliased = !rv->alias;
      scope->columns[i].origin_table = ObjectOid(table->id);
      scope->columns[i].origin_column = scope->columns[i].hidden ? 0 : ++attnum;
    }
    return p;
  }
  std::vector<PlanColumn> schema;
  for (const auto& c : table->columns) schema.push_back({c.name, c.type, alias, c.hidden});
  // In a view: the columns the table gained after the view was made are
  // not the view's.
  if (view_inputs_)
    if (auto known = view_inputs_->find(table->id); known != view_inputs_->end())
      for (size_t i = static_cast<size_t>(std::max(known->second, 0)); i < schema.size(); i++) schema[i].hidden = true;
  rename(schema);
  if (table->kind == RelationKind::kSequence) {
    // One row: where the sequence is (last_value, log_cnt, is_called), read
    // when the statement runs.
    Scope none;
    ExprBinder eb(this, &none);
    auto position = [&](const char* fn) {
      std::vector<ExprPtr> args;
      args.push_back(std::make_unique<ConstantExpr>(Value::FromInt(DataType::Oid(OidKind::kRegclass), ObjectOid(table->id))));
      return eb.MakeCall(fn, std::move(args), rv->location);
    };
    std::vector<std::vector<ExprPtr>> rows(1);
    rows[0].push_back(position("__sequence_last_value"));
    rows[0].push_back(std::make_unique<ConstantExpr>(Value::Int64(0)));
    rows[0].push_back(position("__sequence_is_called"));
    scope->Append(schema);
    return std::make_unique<ValuesNode>(std::move(schema), std::move(rows));
  }
  size_t first = scope->columns.size();
  scope->Append(schema);
  std::optional<SchemaCatalog> s;
  if (!rv->alias) s = ctx_.catalog->GetSchema(table->schema_id);
  size_t visible = 0;
  int16_t attnum = 0;  // pg_attribute's: visible columns from 1
  for (size_t i = first; i < scope->columns.size(); i++) {
    Scope::Column& c = scope->columns[i];
    c.relation_oid = c.origin_table = ObjectOid(table->id);
    c.origin_column = c.hidden ? 0 : ++attnum;
    if (!rv->alias) c.schema = s ? s->name : "";
    // A column the alias renames is read by the alias's name.
    c.relation_id = table->id;
    c.unaliased = !rv->alias;
    if (c.hidden || !rv->alias || visible++ >= rv->alias->n_colnames) c.relation_column = static_cast<int>(i - first);
    const size_t column = i - first;
    c.never_null = table->columns[column].hidden || table->columns[column].not_null ||
                   std::find(table->pk.begin(), table->pk.end(), int(column)) != table->pk.end();
  }
  return MakeScan(table, std::move(schema));
}

std::unique_ptr<ScanNode> Binder::MakeScan(const TableRef& table, std::vector<PlanColumn> schema) {
  auto scan = std::make_unique<ScanNode>(table, std::move(schema));
  if (!ctx_.use_indexes) return scan;
  for (TableRef dependent : ctx_.catalog->Dependents(table->id)) {
    if (dependent->kind != RelationKind::kIndex || dependent->status != JobStatus::kCreated ||
        dependent->depends_on.empty() || dependent->depends_on[0] != table->id)
      continue;
    ScanNode::IndexChoice choice;
    choice.table_columns = IndexedTableColumns(*dependent);
    if (choice.table_columns > table->columns.size()) continue;
    // Its expressions and predicate, bound over the table's columns (the
    // scan's) as the optimizer compares them with the query's.
    try {
      std::shared_ptr<const ConstraintCatalog> elements = DescribeUserIndex(*dependent);
      size_t next = choice.table_columns;
      for (const std::string& text : elements->expressions) {
        if (text.empty()) continue;
        ExprPtr e = BindStoredText(text, [&](const PgQuery__Node* n) { return BindIndexExpression(*table, n); });
        // Computed with another type when the index was made (a column
        // retyped since): not comparable.
        if (next >= dependent->columns.size() || dependent->columns[next++].type.id != e->type().id)
          throw SqlError(sqlstate::kDatatypeMismatch, "index expression changed type");
        choice.expressions.push_back(std::move(e));
      }
      if (!elements->predicate.empty()) {
        ExprPtr predicate = BindStoredCondition(*table, elements->predicate, /*index_predicate=*/true);
        SplitConjuncts(std::move(predicate), &choice.predicate);
      }
    } catch (const SqlError&) {
      continue;  // it cannot serve this statement
    }
    choice.index = std::move(dependent);
    scan->indexes.push_back(std::move(choice));
  }
  return scan;
}

PlanPtr Binder::BindView(const TableCatalog& view, const std::string& alias) {
  // Views name views; one that reaches this depth names itself through
  // CREATE OR REPLACE.
  constexpr int kMaxViewDepth = 64;
  if (view_depth_ >= kMaxViewDepth)
    throw SqlError("42P17", fmt::format("infinite recursion detected in rules for relation \"{}\"", view.name));
  std::vector<ParsedStatement> stmts = ParseSql(view.definition);
  if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_VIEW_STMT)
    throw SqlError(sqlstate::kInternalError, fmt::format("the definition of view \"{}\" is not a CREATE VIEW", view.name));
  const PgQuery__ViewStmt* v = stmts[0].node->view_stmt;
  // Bound in the view's own context, restored whatever happens.
  struct Saved {
    Binder* b;
    std::vector<std::string> search_path;
    const std::string* query_text;
    std::vector<std::map<std::string, std::shared_ptr<Cte>>> ctes;
    const std::map<ObjectId, int>* view_inputs;
    ObjectId database_id;
    std::string database_name, temp_schema;
    ~Saved() {
      b->ctx_.database_id = database_id;
      b->ctx_.database_name = std::move(database_name);
      b->ctx_.temp_schema = std::move(temp_schema);
      b->ctx_.search_path = std::move(search_path);
      b->ctx_.query_text = query_text;
      b->cte_stack_ = std::move(ctes);
      b->view_inputs_ = view_inputs;
      b->view_depth_--;
    }
  } saved{this, ctx_.search_path, ctx_.query_text, std::move(cte_stack_), view_inputs_, ctx_.database_id,
          ctx_.database_name, ctx_.temp_schema};
  view_depth_++;
  if (view.database_id != ctx_.database_id) {  // a view of another database reads in its database
    auto db = ctx_.catalog->GetDatabase(view.database_id);
    ctx_.database_id = view.database_id;
    ctx_.database_name = db ? db->name : "";
    ctx_.temp_schema.clear();
  }
  view_inputs_ = &view.input_columns;
  cte_stack_.clear();
  ctx_.query_text = nullptr;  // positions would point into the view's text
  auto path = view.plan_settings.find("search_path");
  if (path != view.plan_settings.end()) {
    ctx_.search_path.clear();
    std::string_view rest = path->second;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      ctx_.search_path.emplace_back(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  PlanPtr p = BindQuery(v->query);
  auto& schema = p->mutable_schema();
  size_t k = 0;
  for (auto& c : schema) {
    c.table = alias;
    if (c.hidden) continue;
    while (k < view.columns.size() && view.columns[k].hidden) k++;
    if (k < view.columns.size()) c.name = view.columns[k++].name;
  }
  return p;
}

}  // namespace freshet
