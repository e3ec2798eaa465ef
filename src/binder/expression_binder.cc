#include "binder/expression_binder.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/array.h"
#include "common/error.h"
#include "expr/cast.h"
#include "expr/struct.h"
#include "planner/subquery.h"

namespace freshet {

namespace {

// Operator name of an A_Expr (last element of its name list).
std::string OperatorName(const PgQuery__AExpr* e) { return e->n_name ? StringOf(e->name[e->n_name - 1]) : ""; }

// The JSON aggregates, bound as array_agg and a final function.
bool IsJsonAggregate(const std::string& name) {
  return name == "json_agg" || name == "jsonb_agg" || name == "json_object_agg" || name == "jsonb_object_agg";
}

// The ordered-set aggregates (agg(direct args) WITHIN GROUP (ORDER BY x)),
// bound as array_agg(x ORDER BY x) and a final function
// (expr/ordered_set_functions.cc), and how many direct arguments each has.
int OrderedSetDirectArgs(const std::string& name) {
  if (name == "percentile_cont" || name == "percentile_disc") return 1;
  if (name == "mode") return 0;
  return -1;
}

// RisingWave's first_value(x ORDER BY y) and last_value(x ORDER BY y)
// aggregates (outside OVER): the first or last value in that order, NULL
// included; bound as array_agg(x ORDER BY y) and a final function.
bool IsValueAggregate(const std::string& name) { return name == "first_value" || name == "last_value"; }

std::string TypeList(const std::vector<ExprPtr>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : ", ") + a->type().ToString();
  return s;
}

// Casts needed to call `f` with `args`; -1 if impossible. Unknown literals
// and parameters match anything at no cost when the signature has the
// type of a known argument (PostgreSQL's "unknown takes the other side's type").
int CastCost(const ScalarFunction& f, const std::vector<ExprPtr>& args) {
  if (!f.variadic && f.arg_types.size() != args.size()) return -1;
  if (f.variadic && args.empty()) return -1;
  int cost = 0;
  DataType known;
  for (const auto& a : args)
    if (a->type().id != TypeId::kUnknown) known = a->type();
  DataType any_enum;  // what anyenum stands for in this call: one enum type
  for (size_t i = 0; i < args.size(); i++) {
    const DataType& want = f.variadic ? f.arg_types[0] : f.arg_types[i];
    const DataType& have = args[i]->type();
    if (want.IsAnyEnum() && have.IsEnum()) {
      if (any_enum.IsEnum() && !(any_enum == have)) return -1;
      any_enum = have;
    }
    if (have.id == want.id) {
      // json, jsonb, uuid and text share a physical type: prefer the
      // signature of the argument's own; jsonb's (which compare by value)
      // only for jsonb.
      if (want.IsJsonb() && !have.IsJsonb()) cost += 2;
      else if (have.IsJson() != want.IsJson() || have.IsJsonb() != want.IsJsonb() || have.IsUuid() != want.IsUuid())
        cost += 1;
      continue;
    }
    if (have.id == TypeId::kUnknown) {
      // Prefer the signature whose type equals the other operand's; else text.
      if (known.id != TypeId::kUnknown && known.id != want.id) cost += 2;
      else if (known.id == TypeId::kUnknown && want.id != TypeId::kVarchar) cost += 1;
      continue;
    }
    if (!CanImplicitCast(have, want)) return -1;
    cost += 3;
  }
  return cost;
}

// PostgreSQL's tie-break between equally good candidates: prefer the one
// that converts arguments to their category's preferred type (float8 for
// numbers, text for strings, timestamptz for date/times).
int PreferredScore(const ScalarFunction& f, const std::vector<ExprPtr>& args) {
  int score = 0;
  for (size_t i = 0; i < args.size(); i++) {
    const DataType& want = f.variadic ? f.arg_types[0] : f.arg_types[i];
    if (want.id == args[i]->type().id) continue;
    if (args[i]->type().id == TypeId::kTimestampNs) {  // timestamp(9) is a timestamp without a zone
      score += want.id == TypeId::kTimestamp;
      continue;
    }
    if (want.id == TypeId::kFloat64 || want.id == TypeId::kVarchar || want.id == TypeId::kTimestamptz ||
        want.id == TypeId::kInterval || want.id == TypeId::kBoolean)
      score++;
  }
  return score;
}

}  // namespace

Vector WindowPlaceholder::Eval(const DataChunk&, EvalContext&) const {
  throw SqlError(sqlstate::kWindowingError, "window functions are not allowed here");
}

Vector GroupingPlaceholder::Eval(const DataChunk&, EvalContext&) const {
  throw SqlError(sqlstate::kGroupingError, "grouping operations are not allowed here");
}

Vector AggregatePlaceholder::Eval(const DataChunk&, EvalContext&) const {
  throw SqlError(sqlstate::kGroupingError, "aggregate function calls are not allowed here");
}

std::string StructuralKey(const Expression& e) {
  std::string key;
  switch (e.kind()) {
    case Expression::Kind::kColumnRef:
      if (auto* c = dynamic_cast<const ColumnRefExpr*>(&e)) return "#" + std::to_string(c->index());
      return e.ToString();
    case Expression::Kind::kConstant: return e.ToString();
    default: key = std::to_string(int(e.kind())) + ":" + e.type().ToString() + ":" + e.ToString();
  }
  key += "(";
  for (const auto& c : e.children()) key += StructuralKey(*c) + ",";
  return key + ")";
}

ExprPtr Binder::ExprBinder::Bind(const PgQuery__Node* node) {
  if (!node) throw SqlError(sqlstate::kInternalError, "missing expression");
  if (++binder_->depth_ > 2000) {
    binder_->depth_ = 0;
    throw SqlError(sqlstate::kStatementTooComplex, "expression is too deeply nested");
  }
  struct DepthGuard {
    int* d;
    ~DepthGuard() { if (*d > 0) (*d)--; }
  } guard{&binder_->depth_};

  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_COLUMN_REF: return BindColumnRef(node->column_ref);
    case PG_QUERY__NODE__NODE_A_CONST: return BindConst(node->a_const);
    case PG_QUERY__NODE__NODE_A_EXPR: return BindAExpr(node->a_expr);
    case PG_QUERY__NODE__NODE_FUNC_CALL: return BindFuncCall(node->func_call);
    case PG_QUERY__NODE__NODE_GROUPING_FUNC: return BindGrouping(node->grouping_func);
    case PG_QUERY__NODE__NODE_TYPE_CAST: return BindTypeCast(node->type_cast);
    case PG_QUERY__NODE__NODE_BOOL_EXPR: return BindBoolExpr(node->bool_expr);
    case PG_QUERY__NODE__NODE_CASE_EXPR: return BindCase(node->case_expr);
    case PG_QUERY__NODE__NODE_SUB_LINK: return BindSubLink(node->sub_link);
    case PG_QUERY__NODE__NODE_PARAM_REF: return BindParam(node->param_ref);
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION: return BindSqlValueFunction(node->sqlvalue_function);
    case PG_QUERY__NODE__NODE_COLLATE_CLAUSE: return Bind(node->collate_clause->arg);
    case PG_QUERY__NODE__NODE_NULL_TEST: {
      std::vector<ExprPtr> args;
      args.push_back(Bind(node->null_test->arg));
      if (args[0]->type().id == TypeId::kUnknown) args[0] = Coerce(std::move(args[0]), DataType::Varchar());
      auto kind = node->null_test->nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NULL ? Expression::Kind::kIsNull
                                                                                     : Expression::Kind::kIsNotNull;
      return std::make_unique<OperatorExpr>(kind, DataType::Boolean(), std::move(args));
    }
    case PG_QUERY__NODE__NODE_BOOLEAN_TEST: {
      const auto* t = node->boolean_test;
      std::vector<ExprPtr> args;
      args.push_back(Coerce(Bind(t->arg), DataType::Boolean()));
      Expression::Kind kind = Expression::Kind::kIsTrue;
      bool negate = false;
      switch (t->booltesttype) {
        case PG_QUERY__BOOL_TEST_TYPE__IS_TRUE: kind = Expression::Kind::kIsTrue; break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_TRUE: kind = Expression::Kind::kIsTrue; negate = true; break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_FALSE: kind = Expression::Kind::kIsFalse; break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_FALSE: kind = Expression::Kind::kIsFalse; negate = true; break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_UNKNOWN: kind = Expression::Kind::kIsNull; break;
        default: kind = Expression::Kind::kIsNotNull; break;
      }
      ExprPtr e = std::make_unique<OperatorExpr>(kind, DataType::Boolean(), std::move(args));
      if (!negate) return e;
      std::vector<ExprPtr> n;
      n.push_back(std::move(e));
      return std::make_unique<OperatorExpr>(Expression::Kind::kNot, DataType::Boolean(), std::move(n));
    }
    case PG_QUERY__NODE__NODE_COALESCE_EXPR: {
      const auto* c = node->coalesce_expr;
      std::vector<ExprPtr> args;
      for (size_t i = 0; i < c->n_args; i++) args.push_back(Bind(c->args[i]));
      std::vector<const Expression*> raw;
      for (auto& a : args) raw.push_back(a.get());
      DataType t = UnifyTypes(raw, "COALESCE", c->location);
      for (auto& a : args) a = Coerce(std::move(a), t);
      return std::make_unique<OperatorExpr>(Expression::Kind::kCoalesce, t, std::move(args));
    }
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR: {
      const auto* m = node->min_max_expr;
      bool greatest = m->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST;
      std::vector<ExprPtr> args;
      for (size_t i = 0; i < m->n_args; i++) args.push_back(Bind(m->args[i]));
      std::vector<const Expression*> raw;
      for (auto& a : args) raw.push_back(a.get());
      DataType t = UnifyTypes(raw, greatest ? "GREATEST" : "LEAST", m->location);
      for (auto& a : args) a = Coerce(std::move(a), t);
      auto e = std::make_unique<OperatorExpr>(greatest ? Expression::Kind::kGreatest : Expression::Kind::kLeast, t,
                                              std::move(args));
      // The comparison function of the common type.
      std::vector<ExprPtr> probe;
      probe.push_back(std::make_unique<ConstantExpr>(Value::Null(t)));
      probe.push_back(std::make_unique<ConstantExpr>(Value::Null(t)));
      ExprPtr cmp = MakeCall(greatest ? ">" : "<", std::move(probe), m->location);
      e->set_compare(static_cast<FunctionExpr*>(cmp.get())->function());
      return e;
    }
    case PG_QUERY__NODE__NODE_A_STAR: binder_->ThrowAt(sqlstate::kSyntaxError, -1, "\"*\" is not allowed here");
    case PG_QUERY__NODE__NODE_SET_TO_DEFAULT:
      throw SqlError(sqlstate::kFeatureNotSupported, "DEFAULT is not allowed in this context");
    case PG_QUERY__NODE__NODE_ROW_EXPR: return BindRowConstructor(node->row_expr);
    case PG_QUERY__NODE__NODE_A_INDIRECTION: return BindIndirection(node->a_indirection);
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR: return BindArrayExpr(node->a_array_expr);
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported,
                 fmt::format("unsupported expression (node type {})", int(node->node_case)));
}

ExprPtr Binder::ExprBinder::BindCondition(const PgQuery__Node* node, const char* clause) {
  ExprPtr e = Bind(node);
  if (e->type().id == TypeId::kUnknown) return Coerce(std::move(e), DataType::Boolean());
  if (e->type().id != TypeId::kBoolean)
    throw SqlError(sqlstate::kDatatypeMismatch,
                   fmt::format("argument of {} must be type boolean, not type {}", clause, e->type().ToString()));
  return e;
}

// ---- Column references ----

// A FROM item's whole row, named by the item (`SELECT t FROM t`,
// row_to_json(t), t.*): a record of its visible columns, named after them,
// read `levels` queries out; null when `s` has no item of that name.
ExprPtr Binder::ExprBinder::WholeRow(Scope* s, int levels, const std::string& item, int location) {
  std::vector<StructField> fields;
  std::vector<ExprPtr> values;
  bool any = false;
  auto column = [&](size_t i) -> ExprPtr {
    const auto& c = s->columns[i];
    if (levels == 0) return std::make_unique<ColumnRefExpr>(int(i), c.type, c.name);
    return std::make_unique<OuterRefExpr>(levels, int(i), c.type, c.name);
  };
  std::optional<size_t> marker;  // a column never NULL in the item's own rows
  for (size_t i = 0; i < s->columns.size(); i++) {
    const auto& c = s->columns[i];
    if (c.table != item) continue;
    if (!any && c.relation_id != 0)
      binder_->NoteNameUse({.location = location, .relation = c.relation_id, .qualified_by_name = c.unaliased});
    any = true;
    if (c.never_null && !marker) marker = i;
    if (c.hidden) continue;
    fields.emplace_back(c.name, c.type);
    values.push_back(column(i));
  }
  if (!any) return nullptr;
  for (Scope* t = scope_->outer; levels > 0 && t && t != s->outer; t = t->outer) t->referenced_by_subquery = true;
  const DataType type = DataType::Struct(fields);
  ExprPtr row = std::make_unique<StructConstructorExpr>(type, std::move(values));
  if (!marker) return row;
  // The row an outer join padded the item with is NULL, not a record of
  // NULLs (PostgreSQL's whole-row variable is NULL there).
  std::vector<ExprPtr> test;
  test.push_back(column(*marker));
  std::vector<ExprPtr> branches;
  branches.push_back(std::make_unique<OperatorExpr>(Expression::Kind::kIsNull, DataType::Boolean(), std::move(test)));
  branches.push_back(std::make_unique<ConstantExpr>(Value::Null(type)));
  branches.push_back(std::move(row));
  return std::make_unique<CaseExpr>(type, std::move(branches), /*has_else=*/true);
}

ExprPtr Binder::ExprBinder::BindColumnRef(const PgQuery__ColumnRef* ref) {
  // t.* in an expression (row_to_json(t.*)): t's whole row.
  if (ref->n_fields == 2 && ref->fields[1]->node_case == PG_QUERY__NODE__NODE_A_STAR &&
      ref->fields[0]->node_case == PG_QUERY__NODE__NODE_STRING) {
    const std::string item = StringOf(ref->fields[0]);
    int levels = 0;
    for (Scope* s = scope_; s; s = s->outer, levels++)
      if (ExprPtr row = WholeRow(s, levels, item, ref->location)) return row;
    binder_->ThrowAt(sqlstate::kUndefinedTable, ref->location, fmt::format("missing FROM-clause entry for table \"{}\"", item));
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < ref->n_fields; i++) {
    if (ref->fields[i]->node_case == PG_QUERY__NODE__NODE_A_STAR)
      binder_->ThrowAt(sqlstate::kSyntaxError, ref->location, "\"*\" is not allowed here");
    parts.push_back(StringOf(ref->fields[i]));
  }
  std::string column = parts.back();
  std::string table = parts.size() >= 2 ? parts[parts.size() - 2] : "";
  std::string schema = parts.size() >= 3 ? parts[parts.size() - 3] : "";
  std::string display = table.empty() ? column : table + "." + column;

  int levels = 0;
  for (Scope* s = scope_; s; s = s->outer, levels++) {
    int found = -1;
    bool table_seen = false;
    for (size_t i = 0; i < s->columns.size(); i++) {
      const auto& c = s->columns[i];
      if (!table.empty()) {
        if (c.table != table || (!schema.empty() && !c.schema.empty() && c.schema != schema)) continue;
        table_seen = true;
      } else if (c.qualified_only) {
        continue;
      }
      if (c.name != column) continue;
      if (found >= 0) {
        binder_->ThrowAt(sqlstate::kAmbiguousColumn, ref->location,
                         fmt::format("column reference \"{}\" is ambiguous", display));
      }
      found = static_cast<int>(i);
    }
    if (found >= 0) {
      const auto& c = s->columns[found];
      if (c.relation_id != 0)
        binder_->NoteNameUse({.location = ref->location,
                              .relation = c.relation_id,
                              .column = c.relation_column,
                              .qualified_by_name = !table.empty() && c.unaliased});
      if (levels == 0) return std::make_unique<ColumnRefExpr>(found, c.type, display);
      for (Scope* t = scope_->outer; t && t != s->outer; t = t->outer) t->referenced_by_subquery = true;
      return std::make_unique<OuterRefExpr>(levels, found, c.type, display);
    }
    if (ExprPtr system = BindSystemColumn(*s, schema, table, column, ref->location)) return system;
    if (s->function) {
      // A SQL function's body: its parameters (name, or function.name),
      // and nothing beyond.
      const FunctionCatalog& fn = *s->function->function;
      if (schema.empty() && (table.empty() || table == fn.name))
        for (size_t i = 0; i < fn.args.size(); i++)
          if (!fn.args[i].name.empty() && fn.args[i].name == column) return FunctionParameter(s, levels, static_cast<int>(i));
      break;
    }
    if (!table.empty() && table_seen && levels == 0) {
      binder_->ThrowAt(sqlstate::kUndefinedColumn, ref->location,
                       fmt::format("column {}.{} does not exist", table, column));
    }
  }
  // A name no column of any level has: a FROM item's whole row, the
  // innermost first (PostgreSQL's order), not past a function body's frame.
  if (table.empty()) {
    int up = 0;
    for (Scope* s = scope_; s; s = s->outer, up++) {
      if (ExprPtr row = WholeRow(s, up, column, ref->location)) return row;
      if (s->function) break;
    }
  }
  if (!table.empty()) {
    bool any_table = false;
    for (Scope* s = scope_; s && !any_table; s = s->outer)
      for (const auto& c : s->columns) any_table |= c.table == table;
    if (!any_table)
      binder_->ThrowAt(sqlstate::kUndefinedTable, ref->location,
                       fmt::format("missing FROM-clause entry for table \"{}\"", table));
    binder_->ThrowAt(sqlstate::kUndefinedColumn, ref->location, fmt::format("column {}.{} does not exist", table, column));
  }
  binder_->ThrowAt(sqlstate::kUndefinedColumn, ref->location, fmt::format("column \"{}\" does not exist", column));
}

// PostgreSQL's system column tableoid of the stored relation or catalog
// named `table` (the only one in scope when unqualified), as a constant; null
// when there is none. Other system columns (ctid, xmin...) have no meaning here.
ExprPtr Binder::ExprBinder::BindSystemColumn(const Scope& s, const std::string& schema, const std::string& table,
                                             const std::string& column, int location) {
  if (column != "tableoid") return nullptr;
  std::optional<std::pair<std::string, uint32_t>> relation;
  for (const auto& c : s.columns) {
    if (c.relation_oid == 0 || (!table.empty() && c.table != table) ||
        (!schema.empty() && !c.schema.empty() && c.schema != schema))
      continue;
    if (relation && relation->first != c.table)
      binder_->ThrowAt(sqlstate::kAmbiguousColumn, location, "column reference \"tableoid\" is ambiguous");
    relation.emplace(c.table, c.relation_oid);
  }
  if (!relation) return nullptr;
  return std::make_unique<ConstantExpr>(Value::FromInt(DataType::Oid(), relation->second));
}

// ---- Constants ----

ExprPtr Binder::ExprBinder::BindConst(const PgQuery__AConst* c) {
  if (c->isnull) return std::make_unique<ConstantExpr>(Value::Null(DataType::Unknown()));
  switch (c->val_case) {
    case PG_QUERY__A__CONST__VAL_IVAL: return std::make_unique<ConstantExpr>(Value::Int32(c->ival->ival));
    case PG_QUERY__A__CONST__VAL_FVAL: {
      // Integers beyond int4 arrive as "float" strings: int8 when they fit,
      // else numeric, like PostgreSQL's make_const.
      std::string s = c->fval->fval;
      bool integral = s.find_first_of(".eE") == std::string::npos;
      if (integral) {
        try {
          size_t pos;
          long long v = std::stoll(s, &pos);
          if (pos == s.size()) return std::make_unique<ConstantExpr>(Value::Int64(v));
        } catch (...) {
        }
      }
      return std::make_unique<ConstantExpr>(Value::Numeric(DecimalFromString(s)));
    }
    case PG_QUERY__A__CONST__VAL_BOOLVAL: return std::make_unique<ConstantExpr>(Value::Boolean(c->boolval->boolval));
    case PG_QUERY__A__CONST__VAL_SVAL:
      return std::make_unique<ConstantExpr>(Value::FromString(DataType::Unknown(), c->sval->sval));
    case PG_QUERY__A__CONST__VAL_BSVAL:
      throw SqlError(sqlstate::kFeatureNotSupported, "bit string literals are not supported");
    default: break;
  }
  return std::make_unique<ConstantExpr>(Value::Null(DataType::Unknown()));
}

ExprPtr Binder::ExprBinder::BindParam(const PgQuery__ParamRef* p) {
  int idx = p->number - 1;
  // In a SQL function's body: its parameters.
  int levels = 0;
  for (Scope* s = scope_; s; s = s->outer, levels++) {
    if (!s->function) continue;
    if (idx < 0 || static_cast<size_t>(idx) >= s->function->args.size())
      throw SqlError(sqlstate::kUndefinedParameter, "there is no parameter $" + std::to_string(p->number));
    return FunctionParameter(s, levels, idx);
  }
  if (idx < 0 || idx >= 65535) binder_->ThrowAt(sqlstate::kUndefinedParameter, p->location, "there is no parameter $" + std::to_string(p->number));
  DataType t = DataType::Unknown();
  auto* types = binder_->ctx_.param_types;
  if (types) {
    if (static_cast<size_t>(idx) >= types->size()) types->resize(idx + 1, DataType::Unknown());
    t = (*types)[idx];
  }
  return std::make_unique<ParameterExpr>(idx, t);
}

// The session's user, database or schema, as current_user & co. return
// them: a name.
static ExprPtr NameConstant(const std::string& value) {
  return std::make_unique<ConstantExpr>(Value::FromString(DataType::Name(), value));
}

// ---- Coercion ----

ExprPtr Binder::ExprBinder::Coerce(ExprPtr e, const DataType& to, bool explicit_cast) {
  const DataType& from = e->type();
  if (from.id == TypeId::kOid && to.id == TypeId::kOid && from.precision != to.precision) {
    // oid <-> regclass & co.: the same number, printed another way.
    if (e->kind() == Expression::Kind::kConstant) {
      Value v = static_cast<ConstantExpr*>(e.get())->value();
      v.set_type(to);
      return std::make_unique<ConstantExpr>(v);
    }
    return std::make_unique<CastExpr>(std::move(e), to);
  }
  if (from.IsArray() && to.IsArray()) return CoerceArray(std::move(e), to, explicit_cast);
  if (from.IsStruct() && to.IsStruct()) {
    if (to.IsAnyStruct() || from == to) return e;
    if (dynamic_cast<StructConstructorExpr*>(e.get())) return CoerceRowConstructor(std::move(e), to, explicit_cast);
    if (!(explicit_cast ? CanExplicitCast(from, to) : CanImplicitCast(from, to)))
      throw SqlError(sqlstate::kCannotCoerce, fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
    return std::make_unique<CastExpr>(std::move(e), to);
  }
  // Between text types whose values differ: into json, jsonb or uuid the
  // text is checked (jsonb and uuid normalized), into character its length
  // and trailing blanks, into varchar(n) its length; the other way (json ->
  // text, character -> varchar) it is the same text under another name.
  const bool checked_change = (from.IsCheckedText() || to.IsCheckedText()) && from.precision != to.precision &&
                              !(to.IsJson() && !to.IsJsonb() && from.IsJsonb());
  const bool blank_change = from.IsBpchar() != to.IsBpchar() && !from.IsCheckedText() && !to.IsCheckedText();
  if (from.id == TypeId::kVarchar && to.id == TypeId::kVarchar && (checked_change || blank_change)) {
    if (to.IsCheckedText() || to.IsBpchar() || to.precision >= 0) {
      if (e->kind() == Expression::Kind::kConstant)
        return std::make_unique<ConstantExpr>(
            CastValue(static_cast<ConstantExpr*>(e.get())->value(), to, *binder_->ctx_.eval, !explicit_cast));
      return std::make_unique<CastExpr>(std::move(e), to);
    }
    e->set_type(to);
    return e;
  }
  if (from.IsJsonb() && to.IsJson() && !to.IsJsonb()) {
    e->set_type(to);  // jsonb's text is json text
    return e;
  }
  if (from.IsEnum() && to.IsEnum()) {
    if (to.IsAnyEnum() || from == to) return e;
    throw SqlError(explicit_cast ? sqlstate::kCannotCoerce : sqlstate::kDatatypeMismatch,
                   fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
  }
  if (from.id == to.id && to.IsText() && !from.IsText()) {
    // varchar -> text: same values, only the name changes.
    e->set_type(to);
    return e;
  }
  if (from.id == to.id && ((to.IsName() && !from.IsName()) || (to.IsChar() && !from.IsChar()))) {
    // -> name or "char": cut to 63 bytes or one (ApplyCharacterLength).
    if (e->kind() == Expression::Kind::kConstant)
      return std::make_unique<ConstantExpr>(CastValue(static_cast<ConstantExpr*>(e.get())->value(), to, *binder_->ctx_.eval));
    return std::make_unique<CastExpr>(std::move(e), to);
  }
  if (from.id == to.id) {
    bool modifiers_matter = (to.id == TypeId::kNumeric || to.id == TypeId::kVarchar || to.IsTemporal()) &&
                            to.precision >= 0 && !from.SameWithModifiers(to);
    if (!modifiers_matter) return e;
  }
  if (from.id == TypeId::kUnknown) {
    if (e->kind() == Expression::Kind::kConstant) {
      const Value& v = static_cast<ConstantExpr*>(e.get())->value();
      if (v.is_null()) return std::make_unique<ConstantExpr>(Value::Null(to));
      if ((explicit_cast && to.id == TypeId::kVarchar && to.precision >= 0) || to.IsName() || to.IsChar()) {
        // 'abcdef'::varchar(3) truncates, like any explicit cast to
        // varchar(n); a name or "char" is cut however it is given.
        Value text = Value::Varchar(v.string_value());
        return std::make_unique<ConstantExpr>(CastValue(text, to, *binder_->ctx_.eval));
      }
      Value parsed = ParseText(v.string_value(), to, *binder_->ctx_.eval);
      if (to.id == TypeId::kVarchar) parsed.set_type(to);  // keep text vs varchar(n)
      return std::make_unique<ConstantExpr>(parsed);
    }
    if (e->kind() == Expression::Kind::kParameter) {
      auto* p = static_cast<ParameterExpr*>(e.get());
      if (binder_->ctx_.param_types) (*binder_->ctx_.param_types)[p->index()] = to;
      p->set_type(to);
      return e;
    }
  }
  if (explicit_cast ? CanExplicitCast(from, to) : CanImplicitCast(from, to)) {
    // Constant folding keeps literals such as '1 day'::interval cheap and
    // lets the binder look at their values (IN lists, LIMIT).
    if (e->kind() == Expression::Kind::kConstant)
      return std::make_unique<ConstantExpr>(CastValue(static_cast<ConstantExpr*>(e.get())->value(), to, *binder_->ctx_.eval));
    return std::make_unique<CastExpr>(std::move(e), to);
  }
  throw SqlError(explicit_cast ? sqlstate::kCannotCoerce : sqlstate::kDatatypeMismatch,
                 fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
}

ExprPtr Binder::ExprBinder::CoerceForAssignment(ExprPtr e, const DataType& to, const std::string& column) {
  const DataType& from = e->type();
  bool other_enum = from.IsEnum() && !(from == to);
  if (from.id == TypeId::kUnknown || (from.id == to.id && !other_enum)) {
    ExprPtr c = Coerce(std::move(e), to);
    if (c->kind() == Expression::Kind::kCast) return std::make_unique<CastExpr>(std::move(c->children()[0]), to, true);
    if (to.id == TypeId::kVarchar && to.precision >= 0 && c->kind() != Expression::Kind::kConstant)
      return std::make_unique<CastExpr>(std::move(c), to, true);
    if (c->kind() == Expression::Kind::kConstant && to.id == TypeId::kVarchar && to.precision >= 0) {
      Value v = CastValue(static_cast<ConstantExpr*>(c.get())->value(), to, *binder_->ctx_.eval, true);
      return std::make_unique<ConstantExpr>(v);
    }
    return c;
  }
  if (!CanAssignmentCast(from, to))
    throw SqlError(sqlstate::kDatatypeMismatch,
                   fmt::format("column \"{}\" is of type {} but expression is of type {}", column, to.ToString(),
                               from.ToString()))
        .WithHint("You will need to rewrite or cast the expression.");
  if (e->kind() == Expression::Kind::kConstant)
    return std::make_unique<ConstantExpr>(CastValue(static_cast<ConstantExpr*>(e.get())->value(), to, *binder_->ctx_.eval, true));
  return std::make_unique<CastExpr>(std::move(e), to, true);
}

DataType Binder::ExprBinder::UnifyTypes(const std::vector<const Expression*>& exprs, const char* context, int location) {
  DataType result = DataType::Unknown();
  for (const auto* e : exprs) {
    const DataType& t = e->type();
    if (t.id == TypeId::kUnknown) continue;
    if (result.id == TypeId::kUnknown) {
      result = t;
      continue;
    }
    DataType common = CommonSuperType(result, t);
    if (common.id == TypeId::kUnknown)
      binder_->ThrowAt(sqlstate::kDatatypeMismatch, location,
                       fmt::format("{} types {} and {} cannot be matched", context, result.ToString(), t.ToString()));
    result = common;
  }
  if (result.id == TypeId::kUnknown) result = DataType::Text();
  return result;
}

// ---- Function calls ----

// character(n) values are kept without their trailing blanks
// (DataType::Bpchar); the functions that see them in PostgreSQL get them
// back: LIKE's subject (bpcharlike matches the padded value), octet_length,
// and concat's arguments (formatted by the output function).
void Binder::ExprBinder::PadCharacterArguments(const std::string& name, std::vector<ExprPtr>* args) {
  static const std::set<std::string> kSubjectOnly = {"~~", "~~*", "!~~", "!~~*", "octet_length"};
  bool all = name == "concat" || name == "concat_ws";
  if (!all && !kSubjectOnly.count(name)) return;
  for (size_t i = 0; i < args->size(); i++) {
    if (!all && i > 0) break;
    if (name == "concat_ws" && i == 0) continue;  // the separator is text
    ExprPtr& a = (*args)[i];
    if (!a->type().IsBpchar() || a->type().precision < 0) continue;
    std::vector<ExprPtr> pad_args;
    int32_t length = a->type().precision;
    pad_args.push_back(std::move(a));
    pad_args.push_back(std::make_unique<ConstantExpr>(Value::Int32(length)));
    a = MakeCall(kBpcharPadFunction, std::move(pad_args), -1);
  }
}

ExprPtr Binder::ExprBinder::MakeCall(const std::string& name, std::vector<ExprPtr> args, int location) {
  PrepareArrayArguments(name, args, location);
  const auto* candidates = FunctionRegistry::Instance().Lookup(name);
  const ScalarFunction* best = nullptr;
  int best_cost = -1;
  bool ambiguous = false;
  if (candidates) {
    for (const auto& f : *candidates) {
      int cost = CastCost(f, args);
      if (cost < 0) continue;
      if (!best || cost < best_cost) {
        best = &f;
        best_cost = cost;
        ambiguous = false;
      } else if (cost == best_cost) {
        int a = PreferredScore(f, args), b = PreferredScore(*best, args);
        if (a > b) {
          best = &f;
          ambiguous = false;
        } else if (a == b) {
          ambiguous = true;
        }
      }
    }
  }
  bool is_operator = !name.empty() && !std::isalpha(static_cast<unsigned char>(name[0]));
  if (!best) {
    if (is_operator && args.size() == 2)
      binder_->ThrowAt(sqlstate::kUndefinedFunction, location,
                       fmt::format("operator does not exist: {} {} {}", args[0]->type().ToString(), name,
                                   args[1]->type().ToString()));
    binder_->ThrowAt(sqlstate::kUndefinedFunction, location,
                     fmt::format("function {}({}) does not exist", name, TypeList(args)));
  }
  if (ambiguous && best_cost > 0) {
    // Prefer the text signature for all-unknown arguments, like PostgreSQL.
    bool all_unknown = std::all_of(args.begin(), args.end(), [](const ExprPtr& a) { return a->type().id == TypeId::kUnknown; });
    if (!all_unknown) {
      binder_->ThrowAt(sqlstate::kAmbiguousFunction, location,
                       fmt::format("{} {}({}) is not unique", is_operator ? "operator" : "function", name, TypeList(args)));
    }
  }
  // An unknown literal where any struct is wanted takes the type of the
  // struct beside it: s = '(1,a)'.
  DataType concrete_struct, concrete_enum;
  for (const auto& a : args) {
    if (a->type().IsStruct()) concrete_struct = a->type();
    if (a->type().IsEnum() && !a->type().IsAnyEnum()) concrete_enum = a->type();
  }
  // And compared with a uuid, json or jsonb the literal is one (read by
  // its input function): id = 'A0EE...'; compared with a character(n), it
  // is a bpchar (its trailing blanks do not count: c = 'ab  ').
  static const std::set<std::string> kComparisons = {"=", "<>", "!=", "<", "<=", ">", ">="};
  DataType checked_text;
  if (args.size() == 2 && kComparisons.count(name))
    for (const auto& a : args) {
      if (a->type().IsCheckedText()) checked_text = a->type();
      if (a->type().IsBpchar()) checked_text = DataType::Bpchar();
    }
  PadCharacterArguments(name, &args);
  for (size_t i = 0; i < args.size(); i++) {
    DataType want = best->variadic ? best->arg_types[0] : best->arg_types[i];
    if (want.IsAnyStruct() && args[i]->type().id == TypeId::kUnknown && concrete_struct.IsStruct()) want = concrete_struct;
    if (want.IsAnyEnum() && args[i]->type().id == TypeId::kUnknown && concrete_enum.IsEnum()) want = concrete_enum;
    if (checked_text.id == TypeId::kVarchar && args[i]->type().id == TypeId::kUnknown && want.id == checked_text.id)
      want = checked_text;
    args[i] = Coerce(std::move(args[i]), want);
  }
  if (best->check) {
    std::vector<DataType> types;
    for (const auto& a : args) types.push_back(a->type());
    best->check(types);
  }
  auto call = std::make_unique<FunctionExpr>(best, std::move(args));
  // anyenum results (and arrays of them) are of the call's enum type.
  if (best->return_type.IsAnyEnum() && concrete_enum.IsEnum()) call->set_type(concrete_enum);
  if (best->return_type.IsArray() && best->return_type.ElementType().IsAnyEnum() && concrete_enum.IsEnum())
    call->set_type(DataType::Array(concrete_enum));
  if (best->return_type.IsAnyArray()) {
    // anyarray results have the type of the (first) array argument.
    for (const auto& c : call->children())
      if (c->type().IsArray() && !c->type().IsAnyArray()) {
        call->set_type(c->type());
        break;
      }
  }
  return call;
}

namespace {

// PostgreSQL's FRAMEOPTION_* bits of a WindowDef's frame_options.
constexpr int kFrameNonDefault = 0x1, kFrameRange = 0x2, kFrameRows = 0x4, kFrameGroups = 0x8;
constexpr int kFrameStartUnboundedPreceding = 0x20, kFrameEndUnboundedPreceding = 0x40;
constexpr int kFrameStartUnboundedFollowing = 0x80, kFrameEndUnboundedFollowing = 0x100;
constexpr int kFrameStartCurrentRow = 0x200, kFrameEndCurrentRow = 0x400;
constexpr int kFrameStartOffsetPreceding = 0x800, kFrameEndOffsetPreceding = 0x1000;
constexpr int kFrameStartOffsetFollowing = 0x2000, kFrameEndOffsetFollowing = 0x4000;
constexpr int kFrameExcludeCurrentRow = 0x8000, kFrameExcludeGroup = 0x10000, kFrameExcludeTies = 0x20000;

struct WindowFunctionInfo {
  WindowFunctionKind kind;
  size_t min_args, max_args;
};

const WindowFunctionInfo* FindWindowFunction(const std::string& name) {
  static const std::map<std::string, WindowFunctionInfo> kFunctions = {
      {"row_number", {WindowFunctionKind::kRowNumber, 0, 0}},   {"rank", {WindowFunctionKind::kRank, 0, 0}},
      {"dense_rank", {WindowFunctionKind::kDenseRank, 0, 0}},   {"percent_rank", {WindowFunctionKind::kPercentRank, 0, 0}},
      {"cume_dist", {WindowFunctionKind::kCumeDist, 0, 0}},     {"ntile", {WindowFunctionKind::kNtile, 1, 1}},
      {"lag", {WindowFunctionKind::kLag, 1, 3}},                {"lead", {WindowFunctionKind::kLead, 1, 3}},
      {"first_value", {WindowFunctionKind::kFirstValue, 1, 1}}, {"last_value", {WindowFunctionKind::kLastValue, 1, 1}},
      {"nth_value", {WindowFunctionKind::kNthValue, 2, 2}}};
  auto it = kFunctions.find(name);
  return it == kFunctions.end() ? nullptr : &it->second;
}

}  // namespace

// A window function or an aggregate OVER a window: PostgreSQL's window
// functions, the aggregates, PARTITION BY, ORDER BY, frames (ROWS, RANGE,
// GROUPS, offsets, EXCLUDE) and named windows (WINDOW w AS (...), OVER w,
// OVER (w ORDER BY ...)).
ExprPtr Binder::ExprBinder::BindWindowCall(const PgQuery__FuncCall* f, const std::string& name) {
  if (scope_->in_window_call) binder_->ThrowAt(sqlstate::kWindowingError, f->location, "window function calls cannot be nested");
  if (!scope_->window)
    binder_->ThrowAt(sqlstate::kWindowingError, f->location,
                     fmt::format("window functions are not allowed in {}", scope_->clause));
  WindowCall call;
  call.name = name;
  const WindowFunctionInfo* info = FindWindowFunction(name);
  const bool aggregate = !info && IsAggregateName(name);
  if (!info && !aggregate) {
    if (IsJsonAggregate(name))
      binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location, fmt::format("{} as a window function is not supported yet", name));
    binder_->ThrowAt(sqlstate::kWrongObjectType, f->location,
                     fmt::format("OVER specified, but {} is not a window function nor an aggregate function", name));
  }
  if (f->agg_distinct) binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location, "DISTINCT is not implemented for window functions");
  if (f->n_agg_order) binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location, "aggregate ORDER BY is not implemented for window functions");
  if (f->agg_within_group) binder_->ThrowAt(sqlstate::kWrongObjectType, f->location, "WITHIN GROUP is not allowed for window functions");
  if (f->agg_filter && !aggregate)
    binder_->ThrowAt(sqlstate::kWrongObjectType, f->location, "FILTER is not implemented for non-aggregate window functions");
  if (f->agg_star && !aggregate)
    binder_->ThrowAt(sqlstate::kWrongObjectType, f->location, fmt::format("{}(*) specified, but {} is not an aggregate function", name, name));
  // The window: this call's own, or a named one (OVER w), or one that
  // copies a named one and adds to it (OVER (w ORDER BY ...)), which may
  // itself copy another (WINDOW w2 AS (w1 ...)).
  WindowContext* saved = scope_->window;
  const PgQuery__WindowDef* partition_from = f->over;
  const PgQuery__WindowDef* order_from = f->over;
  const PgQuery__WindowDef* frame_from = f->over;
  for (const PgQuery__WindowDef* w = f->over;;) {
    std::string ref = w->refname && *w->refname ? w->refname : "";
    const bool bare_name = ref.empty() && w == f->over && w->name && *w->name;  // OVER w
    if (bare_name) ref = w->name;
    if (ref.empty()) break;
    auto it = saved->named.find(ref);
    if (it == saved->named.end())
      binder_->ThrowAt(sqlstate::kUndefinedObject, w->location, fmt::format("window \"{}\" does not exist", ref));
    const PgQuery__WindowDef* base = it->second;
    if (bare_name) {
      partition_from = order_from = frame_from = base;
    } else {
      if (w->n_partition_clause)
        binder_->ThrowAt(sqlstate::kWindowingError, w->location, fmt::format("cannot override PARTITION BY clause of window \"{}\"", ref));
      if (order_from->n_order_clause && base->n_order_clause)
        binder_->ThrowAt(sqlstate::kWindowingError, w->location, fmt::format("cannot override ORDER BY clause of window \"{}\"", ref));
      if (base->frame_options & kFrameNonDefault)
        binder_->ThrowAt(sqlstate::kWindowingError, w->location, fmt::format("cannot copy window \"{}\" because it has a frame clause", ref));
      partition_from = base;
      if (!order_from->n_order_clause) order_from = base;
    }
    if (base == w) break;
    w = base;
  }
  // Arguments: aggregates are allowed in them (over an aggregated query),
  // window functions are not.
  scope_->window = nullptr;
  scope_->in_window_call = true;
  std::vector<DataType> types;
  for (size_t i = 0; i < f->n_args; i++) {
    ExprPtr a = Bind(f->args[i]);
    // An untyped literal is text where it is the value, not a count.
    const bool count = (info && info->kind == WindowFunctionKind::kNtile) || i == 1;
    if (a->type().id == TypeId::kUnknown && !(info && count)) a = Coerce(std::move(a), DataType::Varchar());
    types.push_back(a->type());
    call.args.push_back(std::move(a));
  }
  if (info) {
    if (call.args.size() < info->min_args || call.args.size() > info->max_args)
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location, fmt::format("function {}({}) does not exist", name, TypeList(call.args)));
    call.kind = info->kind;
    switch (call.kind) {
      case WindowFunctionKind::kPercentRank:
      case WindowFunctionKind::kCumeDist: call.type = DataType::Float64(); break;
      case WindowFunctionKind::kNtile:
        call.args[0] = Coerce(std::move(call.args[0]), DataType::Int32());
        call.type = DataType::Int32();
        break;
      case WindowFunctionKind::kLag:
      case WindowFunctionKind::kLead:
        if (call.args.size() >= 2) call.args[1] = Coerce(std::move(call.args[1]), DataType::Int32());
        if (call.args.size() == 3) {
          // lag(anycompatible, integer, anycompatible): one common type.
          DataType t = UnifyTypes({call.args[0].get(), call.args[2].get()}, name.c_str(), f->location);
          call.args[0] = Coerce(std::move(call.args[0]), t);
          call.args[2] = Coerce(std::move(call.args[2]), t);
        }
        call.type = call.args[0]->type();
        break;
      case WindowFunctionKind::kNthValue:
        call.args[1] = Coerce(std::move(call.args[1]), DataType::Int32());
        call.type = call.args[0]->type();
        break;
      case WindowFunctionKind::kFirstValue:
      case WindowFunctionKind::kLastValue: call.type = call.args[0]->type(); break;
      default: call.type = DataType::Int64(); break;
    }
  } else {
    call.kind = WindowFunctionKind::kAggregate;
    call.agg = ResolveAggregate(name, types, f->agg_star);
    call.type = call.agg.return_type;
    if (AggregateTakesFloat8(call.agg.kind))
      for (auto& a : call.args) a = Coerce(std::move(a), DataType::Float64());
    if (f->agg_filter) {
      AggregateContext* saved_agg = scope_->agg;
      scope_->agg = nullptr;
      call.filter = BindCondition(f->agg_filter, "FILTER");
      scope_->agg = saved_agg;
    }
  }
  for (size_t i = 0; i < partition_from->n_partition_clause; i++) call.partition_by.push_back(Bind(partition_from->partition_clause[i]));
  for (size_t i = 0; i < order_from->n_order_clause; i++) {
    call.order_by.push_back(BindSortKey(order_from->order_clause[i]->sort_by));
  }
  BindWindowFrame(frame_from, &call);
  scope_->window = saved;
  scope_->in_window_call = false;
  std::string text = call.ToString();
  DataType type = call.type;
  saved->calls.push_back(std::move(call));
  return std::make_unique<WindowPlaceholder>(int(saved->calls.size()) - 1, type, text);
}

// The frame clause of w (PostgreSQL's checks and messages).
void Binder::ExprBinder::BindWindowFrame(const PgQuery__WindowDef* w, WindowCall* call) {
  const int o = w->frame_options;
  WindowFrame& frame = call->frame;
  if (!(o & kFrameNonDefault)) return;
  frame.mode = (o & kFrameRows) ? WindowFrame::Mode::kRows : (o & kFrameGroups) ? WindowFrame::Mode::kGroups : WindowFrame::Mode::kRange;
  if (o & (kFrameStartUnboundedFollowing))
    binder_->ThrowAt(sqlstate::kWindowingError, w->location, "frame start cannot be UNBOUNDED FOLLOWING");
  if (o & (kFrameEndUnboundedPreceding))
    binder_->ThrowAt(sqlstate::kWindowingError, w->location, "frame end cannot be UNBOUNDED PRECEDING");
  if ((o & kFrameStartCurrentRow) && (o & kFrameEndOffsetPreceding))
    binder_->ThrowAt(sqlstate::kWindowingError, w->location, "frame starting from current row cannot have preceding rows");
  if ((o & kFrameStartOffsetFollowing) && (o & (kFrameEndOffsetPreceding | kFrameEndCurrentRow)))
    binder_->ThrowAt(sqlstate::kWindowingError, w->location, "frame starting from following row cannot have preceding rows");
  if (frame.mode == WindowFrame::Mode::kGroups && call->order_by.empty())
    binder_->ThrowAt(sqlstate::kWindowingError, w->location, "GROUPS mode requires an ORDER BY clause");
  const bool offsets = o & (kFrameStartOffsetPreceding | kFrameStartOffsetFollowing | kFrameEndOffsetPreceding | kFrameEndOffsetFollowing);
  if (frame.mode == WindowFrame::Mode::kRange && offsets && call->order_by.size() != 1)
    binder_->ThrowAt(sqlstate::kWindowingError, w->location, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
  auto bind_bound = [&](bool start, WindowFrameBound* b) {
    const int unbounded = start ? kFrameStartUnboundedPreceding : kFrameEndUnboundedFollowing;
    const int current = start ? kFrameStartCurrentRow : kFrameEndCurrentRow;
    const int preceding = start ? kFrameStartOffsetPreceding : kFrameEndOffsetPreceding;
    const int following = start ? kFrameStartOffsetFollowing : kFrameEndOffsetFollowing;
    if (o & unbounded) b->kind = start ? WindowFrameBound::Kind::kUnboundedPreceding : WindowFrameBound::Kind::kUnboundedFollowing;
    else if (o & current) b->kind = WindowFrameBound::Kind::kCurrentRow;
    else if (o & (preceding | following)) b->kind = (o & preceding) ? WindowFrameBound::Kind::kPreceding : WindowFrameBound::Kind::kFollowing;
    else return;
    if (b->kind != WindowFrameBound::Kind::kPreceding && b->kind != WindowFrameBound::Kind::kFollowing) return;
    const PgQuery__Node* node = start ? w->start_offset : w->end_offset;
    const char* what = frame.mode == WindowFrame::Mode::kRows ? "ROWS" : frame.mode == WindowFrame::Mode::kGroups ? "GROUPS" : "RANGE";
    Scope none;
    none.outer = nullptr;
    none.clause = what;
    ExprBinder constant(binder_, &none);
    ExprPtr offset = constant.Bind(node);
    if (frame.mode != WindowFrame::Mode::kRange) {
      b->offset = constant.Coerce(std::move(offset), DataType::Int64());
      return;
    }
    // RANGE: the bound's ORDER BY value, sort key -/+ offset (+/- when
    // descending), of the sort key's type.
    const SortKey& key = call->order_by[0];
    const DataType& kt = key.expr->type();
    if (offset->type().id == TypeId::kUnknown || (offset->type().IsNumeric() && kt.IsNumeric())) offset = constant.Coerce(std::move(offset), kt);
    const bool minus = (b->kind == WindowFrameBound::Kind::kPreceding) != key.descending;
    std::vector<ExprPtr> args;
    args.push_back(key.expr->Clone());
    args.push_back(offset->Clone());
    ExprPtr value;
    try {
      value = MakeCall(minus ? "-" : "+", std::move(args), -1);
    } catch (const SqlError&) {
      value = nullptr;
    }
    if (!value || !(value->type() == kt))
      throw SqlError(sqlstate::kUndefinedFunction,
                     fmt::format("RANGE with offset PRECEDING/FOLLOWING is not supported for column type {} and offset type {}",
                                 kt.ToString(), offset->type().ToString()));
    b->offset = std::move(offset);
    b->range_value = std::move(value);
  };
  bind_bound(true, &frame.start);
  bind_bound(false, &frame.end);
  if (o & kFrameExcludeCurrentRow) frame.exclude = WindowFrame::Exclude::kCurrentRow;
  if (o & kFrameExcludeGroup) frame.exclude = WindowFrame::Exclude::kGroup;
  if (o & kFrameExcludeTies) frame.exclude = WindowFrame::Exclude::kTies;
}

// GROUPING(a, ...): the grouping set's bits, resolved by the binder's
// ApplyAggregation once the sets are known.
ExprPtr Binder::ExprBinder::BindGrouping(const PgQuery__GroupingFunc* g) {
  if (!scope_->agg)
    binder_->ThrowAt(sqlstate::kGroupingError, g->location, fmt::format("grouping operations are not allowed in {}", scope_->clause));
  if (g->n_args > 31) binder_->ThrowAt("54023", g->location, "GROUPING must have fewer than 32 arguments");
  AggregateContext* saved = scope_->agg;
  scope_->agg = nullptr;
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < g->n_args; i++) args.push_back(Bind(g->args[i]));
  scope_->agg = saved;
  return std::make_unique<GroupingPlaceholder>(std::move(args));
}

ExprPtr Binder::ExprBinder::BindFuncCall(const PgQuery__FuncCall* f) {
  std::string name = StringOf(f->funcname[f->n_funcname - 1]);
  // SQL functions: by a name qualified with their schema, or by one that
  // names no built-in function (pg_catalog's come first on the path);
  // else when the built-in ones take none of the arguments (so a call of a
  // built-in function, the common case, does not look for them).
  if (f->n_funcname == 1 && Binder::IsBuiltinFunctionName(name)) {
    try {
      return BindBuiltinFuncCall(f, name);
    } catch (const SqlError& e) {
      if (std::string(e.code()) != sqlstate::kUndefinedFunction) throw;
      std::vector<FunctionCatalog> sql_functions = binder_->UserFunctionCandidates(f);
      if (sql_functions.empty()) throw;
      return InlineSqlFunction(ResolveSqlFunction(f, sql_functions), f->location);
    }
  }
  std::vector<FunctionCatalog> sql_functions = binder_->UserFunctionCandidates(f);
  if (!sql_functions.empty()) return InlineSqlFunction(ResolveSqlFunction(f, sql_functions), f->location);
  if (f->n_funcname == 2) {
    // A schema's function that is not there: PostgreSQL's messages.
    std::string schema = StringOf(f->funcname[0]);
    if (schema != kPgCatalogSchema && schema != kInformationSchema) {
      if (binder_->ctx_.catalog && !binder_->ctx_.catalog->FindSchema(binder_->ctx_.database_id, schema))
        binder_->ThrowAt(sqlstate::kInvalidSchemaName, f->location, fmt::format("schema \"{}\" does not exist", schema));
      std::vector<ExprPtr> args;
      for (size_t i = 0; i < f->n_args; i++) args.push_back(Bind(f->args[i]));
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       fmt::format("function {}.{}({}) does not exist", schema, name, TypeList(args)));
    }
  }
  return BindBuiltinFuncCall(f, name);
}

ExprPtr Binder::ExprBinder::BindVariadicArrayCall(const PgQuery__FuncCall* f, const std::string& name) {
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < f->n_args; i++) args.push_back(Bind(f->args[i]));
  // concat and concat_ws join the array's elements as array_to_string does
  // (NULLs skipped; a NULL array gives NULL, as PostgreSQL's).
  const bool array = !args.empty() && (args.back()->type().IsArray() || args.back()->type().id == TypeId::kUnknown);
  if (array && ((name == "concat" && args.size() == 1) || (name == "concat_ws" && args.size() == 2))) {
    const DataType type = args.back()->type().IsArray() ? args.back()->type() : DataType::Array(DataType::Text());
    std::vector<ExprPtr> call;
    call.push_back(Coerce(std::move(args.back()), type));
    call.push_back(name == "concat" ? std::make_unique<ConstantExpr>(Value::Varchar(""))
                                    : Coerce(std::move(args[0]), DataType::Text()));
    return MakeCall("array_to_string", std::move(call), f->location);
  }
  const std::vector<ScalarFunction>* overloads = FunctionRegistry::Instance().Lookup(name);
  if (overloads && std::any_of(overloads->begin(), overloads->end(), [](const ScalarFunction& o) { return o.variadic; }))
    binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location,
                     fmt::format("VARIADIC arrays for built-in function {} are not supported yet: pass the elements as "
                                 "separate arguments",
                                 name));
  // A function taking a fixed number of arguments takes no VARIADIC array.
  binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                   fmt::format("function {}({}) does not exist", name, TypeList(args)));
}

ExprPtr Binder::ExprBinder::BindBuiltinFuncCall(const PgQuery__FuncCall* f, const std::string& name) {
  // Functions are in pg_catalog, but for information_schema's helper that
  // drivers call by its qualified name.
  if (f->n_funcname == 2 && StringOf(f->funcname[0]) != "pg_catalog" &&
      !(StringOf(f->funcname[0]) == "information_schema" && name == "_pg_expandarray"))
    binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                     fmt::format("function {}.{} does not exist", StringOf(f->funcname[0]), name));
  if (f->func_variadic) return BindVariadicArrayCall(f, name);
  if (name == "row_to_json" && !f->over && !f->agg_star && !f->agg_distinct && !f->n_agg_order &&
      (f->n_args == 1 || f->n_args == 2)) {
    // row_to_json(record [, pretty]): to_json of a record; pretty (a
    // newline between fields) is not supported yet.
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < f->n_args; i++) args.push_back(Bind(f->args[i]));
    if (!args[0]->type().IsStruct())
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       fmt::format("function row_to_json({}) does not exist", TypeList(args)));
    if (args.size() == 2) {
      ExprPtr pretty = Coerce(std::move(args[1]), DataType::Boolean());
      if (!pretty->IsConstant() || static_cast<const ConstantExpr&>(*pretty).value().is_null() ||
          static_cast<const ConstantExpr&>(*pretty).value().bool_value())
        binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location,
                         "row_to_json with pretty output is not supported yet");
      args.pop_back();
    }
    return MakeCall("to_json", std::move(args), f->location);
  }
  if (name == "approx_count_distinct" && f->over)
    binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location,
                     "approx_count_distinct as a window function is not supported yet");
  if (name == "approx_count_distinct") {
    // RisingWave's: how many distinct non-NULL values. Counted exactly
    // here (count(DISTINCT x), exact under retractions in streams): an
    // approximation with no error, at count(DISTINCT)'s memory.
    if (f->n_args != 1 || f->agg_star || f->agg_distinct)
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       "approx_count_distinct takes one argument, without DISTINCT or *");
    PgQuery__FuncCall distinct = *f;
    distinct.agg_distinct = true;
    return BindAggregate(&distinct, "count");
  }
  if (name == "approx_percentile") {
    // RisingWave's approx_percentile(fraction [, relative_error]) WITHIN
    // GROUP (ORDER BY x), a double: computed exactly here, as
    // percentile_disc over x as a double (an approximation with no error,
    // at percentile_disc's memory). Its arguments are checked as
    // RisingWave checks them: constants, the fraction in [0, 1], the
    // relative error in (0, 1).
    if (f->over)
      binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location,
                       "approx_percentile as a window function is not supported yet");
    if (!f->agg_within_group || f->n_agg_order != 1 || f->n_args < 1 || f->n_args > 2 || f->agg_star || f->agg_distinct)
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       "approx_percentile takes a fraction and an optional relative error, and WITHIN GROUP "
                       "(ORDER BY one value)");
    for (size_t i = 0; i < f->n_args; i++) {
      ExprPtr a = Coerce(Bind(f->args[i]), DataType::Float64());
      // A constant expression (0.5 * 1) too, computed here.
      Value value = a->IsConstant() ? a->EvalConstant(*binder_->ctx_.eval) : Value::Null(DataType::Float64());
      if (value.is_null())
        binder_->ThrowAt(sqlstate::kInvalidParameterValue, f->location,
                         "the arguments of approx_percentile must be non-NULL constants");
      double v = value.float_value();
      if (i == 0 && !(v >= 0 && v <= 1))
        binder_->ThrowAt(sqlstate::kInvalidParameterValue, f->location,
                         fmt::format("percentile value {} is not between 0 and 1", v));
      if (i == 1 && !(v > 0 && v < 1))
        binder_->ThrowAt(sqlstate::kInvalidParameterValue, f->location,
                         fmt::format("relative error {} is not between 0 and 1 (exclusive)", v));
    }
    PgQuery__FuncCall disc = *f;
    disc.n_args = 1;
    ExprPtr value = BindAggregate(&disc, "percentile_disc");
    if (!value->type().IsNumeric())
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       fmt::format("function approx_percentile({}) does not exist", value->type().ToString()));
    return Coerce(std::move(value), DataType::Float64(), /*explicit_cast=*/true);
  }
  if (f->over) return BindWindowCall(f, name);
  if (IsAggregateName(name) || IsJsonAggregate(name) || OrderedSetDirectArgs(name) >= 0 || IsValueAggregate(name))
    return BindAggregate(f, name);
  if (Binder::IsSetFunctionName(name)) {
    if (!scope_->set_functions_allowed)
      binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location,
                       fmt::format("set-returning functions are not allowed in {}", scope_->clause));
    scope_->set_functions_allowed = false;  // not nested inside their own arguments
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < f->n_args; i++) args.push_back(Bind(f->args[i]));
    DataType t = binder_->BindSetFunctionArgs(name, &args, this, f->location);
    return std::make_unique<SetFunctionExpr>(name, t, std::move(args));
  }
  if (f->agg_star) binder_->ThrowAt(sqlstate::kWrongObjectType, f->location, fmt::format("{}(*) specified, but {} is not an aggregate function", name, name));
  if (f->agg_distinct) binder_->ThrowAt(sqlstate::kWrongObjectType, f->location, fmt::format("DISTINCT specified, but {} is not an aggregate function", name));

  std::vector<ExprPtr> args;
  for (size_t i = 0; i < f->n_args; i++) args.push_back(Bind(f->args[i]));

  // Functions whose arguments are converted to text first (PostgreSQL
  // declares them over "any").
  if (name == "concat" || name == "concat_ws" || name == "format") {
    // PostgreSQL formats "any" arguments with their output functions
    // (booleans as t/f), which is not what CAST(b AS text) gives.
    for (auto& a : args) {
      if (a->type().id == TypeId::kVarchar) continue;
      if (a->type().id == TypeId::kBoolean) {
        // CASE WHEN a THEN 't' WHEN NOT a THEN 'f' END (NULL stays NULL).
        std::vector<ExprPtr> not_a;
        not_a.push_back(a->Clone());
        std::vector<ExprPtr> c;
        c.push_back(std::move(a));
        c.push_back(std::make_unique<ConstantExpr>(Value::Varchar("t")));
        c.push_back(std::make_unique<OperatorExpr>(Expression::Kind::kNot, DataType::Boolean(), std::move(not_a)));
        c.push_back(std::make_unique<ConstantExpr>(Value::Varchar("f")));
        a = std::make_unique<CaseExpr>(DataType::Varchar(), std::move(c), false);
        continue;
      }
      a = Coerce(std::move(a), DataType::Varchar(), true);
    }
  }
  if ((name == "quote_literal" || name == "quote_nullable") && args.size() == 1 &&
      args[0]->type().id != TypeId::kVarchar)
    args[0] = Coerce(std::move(args[0]), DataType::Varchar(), true);
  if (name == "json_build_object" || name == "jsonb_build_object" || name == "json_build_array" ||
      name == "jsonb_build_array") {
    // Over "any": each argument as JSON (to_json), then built.
    for (auto& a : args) {
      if (a->type().IsJson()) continue;
      if (a->type().id == TypeId::kUnknown) a = Coerce(std::move(a), DataType::Text());
      std::vector<ExprPtr> one;
      one.push_back(std::move(a));
      a = MakeCall("to_json", std::move(one), f->location);
    }
  }
  if (name == "current_database" && args.empty())
    return NameConstant(binder_->ctx_.database_name);
  if (name == "current_schema" && args.empty()) return NameConstant(binder_->CurrentSchema());
  if (name == "current_schemas" && args.size() == 1) {
    // The search path's schemas that exist; with implicit ones (true),
    // pg_catalog first unless the path places it.
    std::vector<std::string> path = binder_->ExistingSearchPath();
    Vector explicit_only(DataType::Name()), with_implicit(DataType::Name());
    if (std::find(path.begin(), path.end(), kPgCatalogSchema) == path.end())
      with_implicit.AppendString(kPgCatalogSchema);
    for (const auto& s : path) {
      explicit_only.AppendString(s);
      with_implicit.AppendString(s);
    }
    const DataType array = DataType::Array(DataType::Name());
    std::vector<ExprPtr> c;
    c.push_back(Coerce(std::move(args[0]), DataType::Boolean()));
    c.push_back(std::make_unique<ConstantExpr>(Value::FromString(array, EncodeArray(with_implicit))));
    c.push_back(std::make_unique<ConstantExpr>(Value::FromString(array, EncodeArray(explicit_only))));
    return std::make_unique<CaseExpr>(array, std::move(c), true);
  }
  if ((name == "current_user" || name == "session_user" || name == "user") && args.empty())
    return NameConstant(binder_->ctx_.user_name);
  if (name == "pg_typeof" && args.size() == 1)  // over "any": the argument's type, known at bind time
    return std::make_unique<ConstantExpr>(Value::FromInt(DataType::Oid(OidKind::kRegtype), args[0]->type().PgOid()));
  if (name == "version" && args.empty())
    return std::make_unique<ConstantExpr>(Value::Varchar("PostgreSQL 13.14.0-Freshet-0.1.0"));
  if (name == "clamp" && args.size() == 3) {
    for (size_t i = 1; i < 3; i++) {
      if (!args[i]->IsConstant())
        binder_->ThrowAt(sqlstate::kInvalidParameterValue, f->location, "clamp: min and max must be constants");
    }
  }
  return MakeCall(name, std::move(args), f->location);
}

ExprPtr Binder::ExprBinder::BindAggregate(const PgQuery__FuncCall* f, const std::string& name) {
  if (!scope_->agg)
    binder_->ThrowAt(sqlstate::kGroupingError, f->location,
                     fmt::format("aggregate functions are not allowed in {}", scope_->clause));
  if (OrderedSetDirectArgs(name) >= 0) return BindOrderedSetAggregate(f, name);
  AggregateCall call;
  // Arguments are bound in the same scope, where aggregates are not allowed
  // (no nesting).
  AggregateContext* saved = scope_->agg;
  const char* saved_clause = scope_->clause;
  scope_->agg = nullptr;
  scope_->clause = "aggregate function calls";
  std::vector<DataType> types;
  for (size_t i = 0; i < f->n_args; i++) {
    ExprPtr a = Bind(f->args[i]);
    if (a->type().id == TypeId::kUnknown) a = Coerce(std::move(a), DataType::Varchar());
    types.push_back(a->type());
    call.args.push_back(std::move(a));
  }
  // json_agg(x) is array_agg(to_json(x)) finished by json_agg_finalfn;
  // json_object_agg(k, v) is array_agg(json_build_array(k, v)), the pairs
  // finished into an object (jsonb_*: the same, normalized).
  std::string agg_name = name;
  std::string final_name = name + "_finalfn";
  if (name == "json_agg" && call.args.size() == 1 && (call.args[0]->type().IsArray() || call.args[0]->type().IsStruct()))
    final_name = "json_agg_nested_finalfn";
  if (IsJsonAggregate(name)) {
    bool object = name.find("object") != std::string::npos;
    if (call.args.size() != (object ? 2u : 1u) || f->agg_star)
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       fmt::format("function {}({}) does not exist", name, TypeList(call.args)));
    std::vector<ExprPtr> parts;
    for (auto& a : call.args) {
      std::vector<ExprPtr> one;
      one.push_back(std::move(a));
      parts.push_back(MakeCall("to_json", std::move(one), f->location));
    }
    ExprPtr element = object ? MakeCall("json_build_array", std::move(parts), f->location) : std::move(parts[0]);
    call.args.clear();
    types = {element->type()};
    call.args.push_back(std::move(element));
    agg_name = "array_agg";
  }
  if (IsValueAggregate(name)) {
    if (call.args.size() != 1 || f->agg_star)
      binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location,
                       fmt::format("function {}({}) does not exist", name, TypeList(call.args)));
    agg_name = "array_agg";
  }
  if (f->agg_filter) call.filter = BindCondition(f->agg_filter, "FILTER");
  for (size_t i = 0; i < f->n_agg_order; i++) {
    call.order_by.push_back(BindSortKey(f->agg_order[i]->sort_by));
  }
  if (f->agg_within_group) {  // PostgreSQL names the arguments' and the sorted values' types together
    std::string types = TypeList(call.args);
    for (const auto& k : call.order_by) types += (types.empty() ? "" : ", ") + k.expr->type().ToString();
    binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location, fmt::format("function {}({}) does not exist", name, types));
  }
  scope_->agg = saved;
  scope_->clause = saved_clause;
  call.distinct = f->agg_distinct;
  call.sig = ResolveAggregate(agg_name, types, f->agg_star);
  const DataType argument_type = call.sig.arg_type;
  if (AggregateTakesFloat8(call.sig.kind))
    for (auto& a : call.args) a = Coerce(std::move(a), DataType::Float64());
  std::string text = name + "(" + (f->agg_star ? "*" : "") + ")";
  int index = static_cast<int>(saved->calls.size());
  DataType type = call.sig.return_type;
  saved->calls.push_back(std::move(call));
  ExprPtr result = std::make_unique<AggregatePlaceholder>(index, type, text);
  if (agg_name == name) return result;
  std::vector<ExprPtr> finish;
  finish.push_back(std::move(result));
  ExprPtr finished = MakeCall(final_name, std::move(finish), f->location);
  if (IsValueAggregate(name)) finished->set_type(argument_type);
  return finished;
}

// An ORDER BY item of a window or an aggregate: an unknown literal is text;
// NULLS FIRST by default when descending, as PostgreSQL's.
SortKey Binder::ExprBinder::BindSortKey(const PgQuery__SortBy* sb) {
  SortKey k;
  k.expr = Bind(sb->node);
  if (k.expr->type().id == TypeId::kUnknown) k.expr = Coerce(std::move(k.expr), DataType::Varchar());
  k.descending = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
  k.nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT
                      ? k.descending
                      : sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST;
  return k;
}

ExprPtr Binder::ExprBinder::BindOrderedSetAggregate(const PgQuery__FuncCall* f, const std::string& name) {
  if (f->agg_distinct)
    binder_->ThrowAt(sqlstate::kSyntaxError, f->location, "cannot use DISTINCT with WITHIN GROUP");
  // The sorted argument, in the aggregate's scope.
  AggregateContext* saved = scope_->agg;
  const char* saved_clause = scope_->clause;
  scope_->agg = nullptr;
  scope_->clause = "aggregate function calls";
  AggregateCall call;
  std::vector<ExprPtr> sorted;
  for (size_t i = 0; i < f->n_agg_order; i++) {
    SortKey k = BindSortKey(f->agg_order[i]->sort_by);
    sorted.push_back(k.expr->Clone());
    call.order_by.push_back(std::move(k));
  }
  if (f->agg_filter) call.filter = BindCondition(f->agg_filter, "FILTER");
  scope_->agg = saved;
  scope_->clause = saved_clause;
  // The direct arguments, in the query's scope (grouped columns only).
  std::vector<ExprPtr> direct;
  for (size_t i = 0; i < f->n_args; i++) {
    ExprPtr a = Bind(f->args[i]);
    if (a->type().id == TypeId::kUnknown) a = Coerce(std::move(a), DataType::Float64());
    direct.push_back(std::move(a));
  }
  // PostgreSQL names the direct and the sorted arguments' types together.
  const bool sortable = sorted.size() == 1 && (name != "percentile_cont" || sorted[0]->type().IsNumeric() ||
                                               sorted[0]->type().id == TypeId::kInterval);
  if (!f->agg_within_group || !sortable || static_cast<int>(direct.size()) != OrderedSetDirectArgs(name)) {
    std::string types = TypeList(direct);
    if (!sorted.empty()) types += (types.empty() ? "" : ", ") + TypeList(sorted);
    binder_->ThrowAt(sqlstate::kUndefinedFunction, f->location, fmt::format("function {}({}) does not exist", name, types));
  }
  if (name == "percentile_cont" && sorted[0]->type().id != TypeId::kInterval) sorted[0] = Coerce(std::move(sorted[0]), DataType::Float64());
  if (!direct.empty() && direct[0]->type().IsArray())
    binder_->ThrowAt(sqlstate::kFeatureNotSupported, f->location,
                     fmt::format("{} with an array of fractions is not supported yet", name));
  const DataType element = sorted[0]->type();
  call.args.push_back(std::move(sorted[0]));
  call.sig = ResolveAggregate("array_agg", {element}, false);
  const int index = static_cast<int>(saved->calls.size());
  saved->calls.push_back(std::move(call));
  std::vector<ExprPtr> finish;
  finish.push_back(std::make_unique<AggregatePlaceholder>(index, DataType::Array(element), name + "()"));
  for (auto& a : direct) finish.push_back(Coerce(std::move(a), DataType::Float64()));
  if (name == "percentile_cont") return CallExactly(name + "_finalfn", std::move(finish));
  ExprPtr result = MakeCall(name + "_finalfn", std::move(finish), f->location);
  result->set_type(element);
  return result;
}

ExprPtr Binder::ExprBinder::BindTypeCast(const PgQuery__TypeCast* c) {
  BoundType bound = binder_->BindColumnType(c->type_name);
  // A cast to a domain: to its base type, then checked.
  if (bound.domain) {
    PgQuery__TypeCast to_base = *c;
    ExprPtr value = BindTypeCastTo(&to_base, bound.type);
    return binder_->WithDomainChecks(std::move(value), bound.domain);
  }
  return BindTypeCastTo(c, bound.type);
}

ExprPtr Binder::ExprBinder::BindTypeCastTo(const PgQuery__TypeCast* c, const DataType& to) {
  if (to.IsArray() && c->arg->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR) {
    // ARRAY[...]::t[] builds the elements as t (so ARRAY[]::int[] has a type).
    DataType elem = to.ElementType();
    return BindArrayExpr(c->arg->a_array_expr, &elem);
  }
  ExprPtr e = Bind(c->arg);
  // INTERVAL '10' SECOND: the qualifier gives the unit of a bare number.
  if (to.id == TypeId::kInterval && e->kind() == Expression::Kind::kConstant && e->type().id == TypeId::kUnknown &&
      c->type_name->n_typmods > 0) {
    const PgQuery__Node* m = c->type_name->typmods[0];
    int mask = m->node_case == PG_QUERY__NODE__NODE_A_CONST && m->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL
                   ? m->a_const->ival->ival : 0;
    const char* unit = "";
    if (mask == (1 << 12)) unit = "second";
    else if (mask == (1 << 11)) unit = "minute";
    else if (mask == (1 << 10)) unit = "hour";
    else if (mask == (1 << 3)) unit = "day";
    else if (mask == (1 << 1)) unit = "month";
    else if (mask == (1 << 2)) unit = "year";
    const Value& v = static_cast<ConstantExpr*>(e.get())->value();
    if (!v.is_null()) return std::make_unique<ConstantExpr>(Value::IntervalValue(ParseInterval(v.string_value(), unit)));
  }
  try {
    return Coerce(std::move(e), to, true);
  } catch (SqlError& err) {
    // Bad literals are reported at the literal, other failures at the cast.
    int location = c->arg->node_case == PG_QUERY__NODE__NODE_A_CONST ? c->arg->a_const->location : c->location;
    if (err.position() == 0 && location >= 0 && binder_->ctx_.query_text)
      err.WithPosition(CharPosition(*binder_->ctx_.query_text, binder_->ctx_.statement_offset + location));
    throw;
  }
}

// ---- Operators ----

ExprPtr Binder::ExprBinder::BindAExpr(const PgQuery__AExpr* e) {
  std::string op = OperatorName(e);
  switch (e->kind) {
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP: {
      if (!e->lexpr) {
        ExprPtr r = Bind(e->rexpr);
        if (op == "+") return r;
        if (op == "-") {
          // Fold negative literals so that -2147483648 is an int4, as in PostgreSQL.
          if (r->kind() == Expression::Kind::kConstant) {
            const Value& v = static_cast<ConstantExpr*>(r.get())->value();
            if (!v.is_null() && v.type().id == TypeId::kInt64 && v.int_value() == 2147483648LL)
              return std::make_unique<ConstantExpr>(Value::Int32(-2147483648LL));
          }
          std::vector<ExprPtr> args;
          args.push_back(std::move(r));
          return MakeCall("neg", std::move(args), e->location);
        }
        std::vector<ExprPtr> args;
        args.push_back(std::move(r));
        return MakeCall(op, std::move(args), e->location);
      }
      std::vector<ExprPtr> args;
      args.push_back(Bind(e->lexpr));
      args.push_back(Bind(e->rexpr));
      if (op == "||" && (args[0]->type().IsArray() || args[1]->type().IsArray()))
        return MakeArrayConcat(std::move(args), e->location);
      if (op == "||") {
        // PostgreSQL's text || anynonarray and anynonarray || text.
        auto is_text = [](const ExprPtr& a) {
          return a->type().id == TypeId::kVarchar || a->type().id == TypeId::kUnknown;
        };
        if (is_text(args[0]) != is_text(args[1]) && args[0]->type().id != TypeId::kBytea &&
            args[1]->type().id != TypeId::kBytea) {
          for (auto& a : args) a = Coerce(std::move(a), DataType::Varchar(), true);
        }
      }
      return MakeCall(op, std::move(args), e->location);
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_LIKE:
    case PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE: {
      std::vector<ExprPtr> args;
      args.push_back(Bind(e->lexpr));
      args.push_back(Bind(e->rexpr));
      return MakeCall(op, std::move(args), e->location);
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_IN: return BindIn(e);
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM: {
      bool negated = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN ||
                     e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
      const PgQuery__List* bounds = e->rexpr->list;
      ExprPtr x = Bind(e->lexpr);
      ExprPtr lo = Bind(bounds->items[0]);
      ExprPtr hi = Bind(bounds->items[1]);
      auto cmp = [&](const char* o, ExprPtr a, ExprPtr b) {
        std::vector<ExprPtr> args;
        args.push_back(std::move(a));
        args.push_back(std::move(b));
        return MakeCall(o, std::move(args), e->location);
      };
      bool symmetric = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM ||
                       e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
      auto between = [&](ExprPtr x, ExprPtr lo, ExprPtr hi) -> ExprPtr {
        std::vector<ExprPtr> parts;
        parts.push_back(cmp(">=", x->Clone(), std::move(lo)));
        parts.push_back(cmp("<=", std::move(x), std::move(hi)));
        return std::make_unique<OperatorExpr>(Expression::Kind::kAnd, DataType::Boolean(), std::move(parts));
      };
      ExprPtr result;
      if (symmetric) {
        // x BETWEEN SYMMETRIC a AND b: either order of the bounds.
        std::vector<ExprPtr> either;
        either.push_back(between(x->Clone(), lo->Clone(), hi->Clone()));
        either.push_back(between(std::move(x), std::move(hi), std::move(lo)));
        result = std::make_unique<OperatorExpr>(Expression::Kind::kOr, DataType::Boolean(), std::move(either));
      } else {
        result = between(std::move(x), std::move(lo), std::move(hi));
      }
      if (!negated) return result;
      std::vector<ExprPtr> n;
      n.push_back(std::move(result));
      return std::make_unique<OperatorExpr>(Expression::Kind::kNot, DataType::Boolean(), std::move(n));
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_DISTINCT:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT: {
      // a IS NOT DISTINCT FROM b  ==  CASE WHEN a IS NULL THEN b IS NULL
      //                                 WHEN b IS NULL THEN false ELSE a = b END
      bool distinct = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_DISTINCT;
      ExprPtr a = Bind(e->lexpr), b = Bind(e->rexpr);
      std::vector<ExprPtr> eq_args;
      eq_args.push_back(a->Clone());
      eq_args.push_back(b->Clone());
      ExprPtr eq = MakeCall("=", std::move(eq_args), e->location);
      // Re-read the coerced operands from the comparison so types agree.
      ExprPtr ca = eq->children()[0]->Clone(), cb = eq->children()[1]->Clone();
      auto is_null = [](ExprPtr x) {
        std::vector<ExprPtr> v;
        v.push_back(std::move(x));
        return std::make_unique<OperatorExpr>(Expression::Kind::kIsNull, DataType::Boolean(), std::move(v));
      };
      std::vector<ExprPtr> c;
      c.push_back(is_null(ca->Clone()));
      c.push_back(is_null(cb->Clone()));
      c.push_back(is_null(std::move(cb)));
      c.push_back(std::make_unique<ConstantExpr>(Value::Boolean(false)));
      c.push_back(std::move(eq));
      ExprPtr result = std::make_unique<CaseExpr>(DataType::Boolean(), std::move(c), true);
      if (!distinct) return result;
      std::vector<ExprPtr> n;
      n.push_back(std::move(result));
      return std::make_unique<OperatorExpr>(Expression::Kind::kNot, DataType::Boolean(), std::move(n));
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF: {
      std::vector<ExprPtr> args;
      args.push_back(Bind(e->lexpr));
      args.push_back(Bind(e->rexpr));
      std::vector<const Expression*> raw = {args[0].get(), args[1].get()};
      DataType t = UnifyTypes(raw, "NULLIF", e->location);
      for (auto& a : args) a = Coerce(std::move(a), t);
      std::vector<ExprPtr> probe;
      probe.push_back(std::make_unique<ConstantExpr>(Value::Null(t)));
      probe.push_back(std::make_unique<ConstantExpr>(Value::Null(t)));
      ExprPtr cmp = MakeCall("=", std::move(probe), e->location);
      auto n = std::make_unique<OperatorExpr>(Expression::Kind::kNullIf, t, std::move(args));
      n->set_compare(static_cast<FunctionExpr*>(cmp.get())->function());
      return n;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ANY:
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL: return BindArrayAnyAll(e);
    case PG_QUERY__A__EXPR__KIND__AEXPR_SIMILAR:
      throw SqlError(sqlstate::kFeatureNotSupported, "SIMILAR TO is not supported yet");
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported operator expression");
}

ExprPtr Binder::ExprBinder::BindIn(const PgQuery__AExpr* e) {
  bool negated = OperatorName(e) == "<>";
  ExprPtr x = Bind(e->lexpr);
  const PgQuery__List* list = e->rexpr->list;
  std::vector<ExprPtr> items;
  for (size_t i = 0; i < list->n_items; i++) items.push_back(Bind(list->items[i]));
  std::vector<const Expression*> raw = {x.get()};
  for (auto& it : items) raw.push_back(it.get());
  DataType t = UnifyTypes(raw, "IN", e->location);
  x = Coerce(std::move(x), t);
  for (auto& it : items) it = Coerce(std::move(it), t);
  bool all_constant = std::all_of(items.begin(), items.end(),
                                  [](const ExprPtr& i) { return i->kind() == Expression::Kind::kConstant; });
  if (all_constant) {
    std::vector<Value> values;
    for (auto& it : items) values.push_back(static_cast<ConstantExpr*>(it.get())->value());
    return std::make_unique<InListExpr>(std::move(x), std::move(values), negated);
  }
  return MakeComparisonChain(std::move(x), std::move(items), negated ? "<>" : "=", !negated, e->location);
}

// x = a OR x = b ... (any) / x <> a AND x <> b ... (all).
ExprPtr Binder::ExprBinder::MakeComparisonChain(ExprPtr left, std::vector<ExprPtr> rights, const std::string& op,
                                                bool any, int location) {
  std::vector<ExprPtr> parts;
  for (auto& r : rights) {
    std::vector<ExprPtr> args;
    args.push_back(left->Clone());
    args.push_back(std::move(r));
    parts.push_back(MakeCall(op, std::move(args), location));
  }
  if (parts.size() == 1) return std::move(parts[0]);
  return std::make_unique<OperatorExpr>(any ? Expression::Kind::kOr : Expression::Kind::kAnd, DataType::Boolean(),
                                        std::move(parts));
}

ExprPtr Binder::ExprBinder::BindBoolExpr(const PgQuery__BoolExpr* b) {
  const char* name = b->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR  ? "AND"
                     : b->boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR ? "OR"
                                                                      : "NOT";
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < b->n_args; i++) args.push_back(BindCondition(b->args[i], name));
  Expression::Kind kind = b->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR  ? Expression::Kind::kAnd
                          : b->boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR ? Expression::Kind::kOr
                                                                           : Expression::Kind::kNot;
  return std::make_unique<OperatorExpr>(kind, DataType::Boolean(), std::move(args));
}

ExprPtr Binder::ExprBinder::BindCase(const PgQuery__CaseExpr* c) {
  ExprPtr arg = c->arg ? Bind(c->arg) : nullptr;
  std::vector<ExprPtr> conds, results;
  for (size_t i = 0; i < c->n_args; i++) {
    const PgQuery__CaseWhen* w = c->args[i]->case_when;
    if (arg) {
      std::vector<ExprPtr> args;
      args.push_back(arg->Clone());
      args.push_back(Bind(w->expr));
      conds.push_back(MakeCall("=", std::move(args), w->location));
    } else {
      conds.push_back(BindCondition(w->expr, "CASE/WHEN"));
    }
    results.push_back(Bind(w->result));
  }
  ExprPtr def = c->defresult ? Bind(c->defresult) : nullptr;
  std::vector<const Expression*> raw;
  for (auto& r : results) raw.push_back(r.get());
  if (def) raw.push_back(def.get());
  DataType t = UnifyTypes(raw, "CASE", c->location);
  std::vector<ExprPtr> children;
  for (size_t i = 0; i < conds.size(); i++) {
    children.push_back(std::move(conds[i]));
    children.push_back(Coerce(std::move(results[i]), t));
  }
  bool has_else = def != nullptr;
  if (def) children.push_back(Coerce(std::move(def), t));
  return std::make_unique<CaseExpr>(t, std::move(children), has_else);
}

ExprPtr Binder::ExprBinder::BindSqlValueFunction(const PgQuery__SQLValueFunction* f) {
  auto now = [&] { return MakeCall("now", {}, f->location); };
  switch (f->op) {
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N: return now();
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N: return Coerce(now(), DataType::Timestamp(), true);
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE: return Coerce(now(), DataType::Date(), true);
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME_N: return Coerce(now(), DataType::Time(), true);
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER:
      return NameConstant(binder_->ctx_.user_name);
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: return NameConstant(binder_->ctx_.database_name);
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: return NameConstant(binder_->CurrentSchema());
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported SQL value function");
}

// ---- Subqueries ----

ExprPtr Binder::ExprBinder::BindSubLink(const PgQuery__SubLink* s) {
  // The flag tells whether this subquery read our columns (correlation); it
  // is per subquery, so save and restore it.
  bool saved = scope_->referenced_by_subquery;
  scope_->referenced_by_subquery = false;
  PlanPtr plan = binder_->BindSelect(s->subselect->select_stmt, scope_);
  bool correlated = scope_->referenced_by_subquery;
  scope_->referenced_by_subquery = saved || correlated;
  size_t ncols = plan->schema().size();
  switch (s->sub_link_type) {
    case PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK:
      return std::make_unique<SubqueryExpr>(SubqueryKind::kExists, std::move(plan), DataType::Boolean(), correlated);
    case PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK: {
      if (ncols != 1) binder_->ThrowAt(sqlstate::kSyntaxError, s->location, "subquery must return only one column");
      DataType t = plan->schema()[0].type;
      return std::make_unique<SubqueryExpr>(SubqueryKind::kScalar, std::move(plan), t, correlated);
    }
    case PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK: {
      if (ncols != 1) binder_->ThrowAt(sqlstate::kSyntaxError, s->location, "subquery must return only one column");
      DataType t = plan->schema()[0].type;
      if (t.IsArray()) throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
      if (t.id == TypeId::kUnknown) t = DataType::Text();
      return std::make_unique<SubqueryExpr>(SubqueryKind::kArray, std::move(plan), DataType::Array(t), correlated);
    }
    case PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK:
    case PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK: {
      std::string op = s->n_oper_name ? StringOf(s->oper_name[s->n_oper_name - 1]) : "=";
      // The left side: one expression, or a row (a, b) compared column by column.
      std::vector<const PgQuery__Node*> lefts;
      if (s->testexpr->node_case == PG_QUERY__NODE__NODE_ROW_EXPR) {
        for (size_t i = 0; i < s->testexpr->row_expr->n_args; i++) lefts.push_back(s->testexpr->row_expr->args[i]);
        if (op != "=" && op != "<>")
          throw SqlError(sqlstate::kFeatureNotSupported, "row comparisons with " + op + " against a subquery are not supported yet");
      } else {
        lefts.push_back(s->testexpr);
      }
      if (ncols != lefts.size())
        binder_->ThrowAt(sqlstate::kSyntaxError, s->location,
                         ncols > lefts.size() ? "subquery has too many columns" : "subquery has too few columns");
      std::vector<ExprPtr> left_exprs, casts;
      std::vector<const ScalarFunction*> compares;
      std::vector<PlanColumn> columns = plan->schema();
      bool needs_cast = false;
      for (size_t i = 0; i < lefts.size(); i++) {
        std::vector<ExprPtr> probe_args;
        probe_args.push_back(Bind(lefts[i]));
        probe_args.push_back(std::make_unique<ConstantExpr>(Value::Null(columns[i].type)));
        ExprPtr cmp = MakeCall(op, std::move(probe_args), s->location);
        const auto* fn = static_cast<FunctionExpr*>(cmp.get())->function();
        DataType want = fn->variadic ? fn->arg_types[0] : fn->arg_types[1];
        ExprPtr col = std::make_unique<ColumnRefExpr>(static_cast<int>(i), columns[i].type, columns[i].name);
        if (!(want == columns[i].type)) {
          // Cast the subquery's column to the comparison's argument type.
          col = Coerce(std::move(col), want);
          columns[i].type = want;
          needs_cast = true;
        }
        casts.push_back(std::move(col));
        left_exprs.push_back(std::move(cmp->children()[0]));
        compares.push_back(fn);
      }
      if (needs_cast) plan = std::make_unique<ProjectNode>(std::move(plan), std::move(casts), columns);
      auto kind = s->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK ? SubqueryKind::kAny : SubqueryKind::kAll;
      auto e = std::make_unique<SubqueryExpr>(kind, std::move(plan), DataType::Boolean(), correlated);
      for (auto& l : left_exprs) e->children().push_back(std::move(l));
      e->compares = std::move(compares);
      e->row_any_column = op == "<>";
      return e;
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported kind of subquery");
}

}  // namespace freshet
