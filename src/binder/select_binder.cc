// The core of a SELECT (one without set operations), bound clause by
// clause: FROM and WHERE, the select list, GROUP BY and HAVING, ORDER BY,
// then the plan is built: aggregation, window functions, the projection
// with DISTINCT, the sort and LIMIT. The clauses share a SelectParts.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "binder/expression_binder.h"
#include "common/error.h"
#include "expr/window.h"
#include "planner/subquery.h"

namespace freshet {

namespace {

std::string DefaultColumnName(const PgQuery__Node* n);

// Whether the name an expression gives its column beats a cast's type name
// (PostgreSQL's FigureColname strength above 1): x::text is named x,
// 1::int::text and CASE ... END::text are named text.
bool NameBeatsCast(const PgQuery__Node* n) {
  if (!n) return false;
  switch (n->node_case) {
    case PG_QUERY__NODE__NODE_TYPE_CAST: return NameBeatsCast(n->type_cast->arg);
    case PG_QUERY__NODE__NODE_CASE_EXPR:
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR:
    case PG_QUERY__NODE__NODE_ROW_EXPR: return false;
    default: return DefaultColumnName(n) != "?column?";
  }
}

// The name PostgreSQL gives an output column without an alias.
std::string DefaultColumnName(const PgQuery__Node* n) {
  if (!n) return "?column?";
  switch (n->node_case) {
    case PG_QUERY__NODE__NODE_COLUMN_REF: return StringOf(n->column_ref->fields[n->column_ref->n_fields - 1]);
    case PG_QUERY__NODE__NODE_FUNC_CALL: return StringOf(n->func_call->funcname[n->func_call->n_funcname - 1]);
    case PG_QUERY__NODE__NODE_TYPE_CAST: {
      if (NameBeatsCast(n->type_cast->arg)) return DefaultColumnName(n->type_cast->arg);
      const auto* tn = n->type_cast->type_name;
      std::string t = StringOf(tn->names[tn->n_names - 1]);
      static const std::map<std::string, std::string> kPgNames = {
          {"int4", "int4"}, {"int8", "int8"}, {"int2", "int2"}, {"float8", "float8"}, {"float4", "float4"},
          {"bool", "bool"}, {"varchar", "varchar"}, {"text", "text"}, {"numeric", "numeric"},
          {"timestamp", "timestamp"}, {"timestamptz", "timestamptz"}, {"date", "date"}, {"interval", "interval"}};
      if (t == "__struct") return "row";  // STRUCT<...> (sql/parser.cc)
      return kPgNames.count(t) ? kPgNames.at(t) : t;
    }
    case PG_QUERY__NODE__NODE_CASE_EXPR: return "case";
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR: return "array";
    case PG_QUERY__NODE__NODE_A_INDIRECTION: {
      // (s).f is named f, as in PostgreSQL; a[i] keeps a's name.
      const auto* ind = n->a_indirection;
      const PgQuery__Node* last = ind->n_indirection ? ind->indirection[ind->n_indirection - 1] : nullptr;
      if (last && last->node_case == PG_QUERY__NODE__NODE_STRING) return last->string->sval;
      return DefaultColumnName(ind->arg);
    }
    case PG_QUERY__NODE__NODE_COALESCE_EXPR: return "coalesce";
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR:
      return n->min_max_expr->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "greatest" : "least";
    case PG_QUERY__NODE__NODE_SUB_LINK:
      if (n->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK) return "exists";
      if (n->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK) return "array";
      if (n->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK) {
        const auto* sel = n->sub_link->subselect->select_stmt;
        if (sel->n_target_list == 1) {
          const auto* rt = sel->target_list[0]->res_target;
          return rt->name && *rt->name ? rt->name : DefaultColumnName(rt->val);
        }
      }
      return "?column?";
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
      switch (n->sqlvalue_function->op) {
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP: return "current_timestamp";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE: return "current_date";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER: return "current_user";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER: return "session_user";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: return "current_schema";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: return "current_catalog";
        default: return "?column?";
      }
    default: return "?column?";
  }
}

bool IsStar(const PgQuery__Node* val) {
  return val && val->node_case == PG_QUERY__NODE__NODE_COLUMN_REF &&
         val->column_ref->fields[val->column_ref->n_fields - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR;
}

// (expr).* : an indirection whose last step is *.
bool IsStructStar(const PgQuery__Node* val) {
  return val && val->node_case == PG_QUERY__NODE__NODE_A_INDIRECTION && val->a_indirection->n_indirection > 0 &&
         val->a_indirection->indirection[val->a_indirection->n_indirection - 1]->node_case ==
             PG_QUERY__NODE__NODE_A_STAR;
}

// Rewrites an expression bound over the FROM scope into one over the
// AggregateNode's output (group keys, then aggregates).
ExprPtr RewriteForAggregate(ExprPtr e, const std::vector<std::string>& group_keys) {
  if (e->kind() == Expression::Kind::kAggregate) {
    auto* p = static_cast<AggregatePlaceholder*>(e.get());
    return std::make_unique<ColumnRefExpr>(static_cast<int>(group_keys.size()) + p->index, p->type(), p->text);
  }
  if (e->kind() != Expression::Kind::kConstant) {
    std::string key = StructuralKey(*e);
    for (size_t k = 0; k < group_keys.size(); k++)
      if (group_keys[k] == key) return std::make_unique<ColumnRefExpr>(static_cast<int>(k), e->type(), e->ToString());
  }
  if (auto* c = dynamic_cast<ColumnRefExpr*>(e.get())) {
    throw SqlError(sqlstate::kGroupingError,
                   fmt::format("column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function",
                               c->name()));
  }
  if (e->kind() == Expression::Kind::kSubquery && static_cast<SubqueryExpr*>(e.get())->correlated)
    throw SqlError(sqlstate::kFeatureNotSupported, "correlated subqueries over grouped results are not supported yet");
  for (auto& c : e->children()) c = RewriteForAggregate(std::move(c), group_keys);
  return e;
}

bool ContainsSetFunction(const Expression& e) {
  if (e.kind() == Expression::Kind::kSetFunction) return true;
  for (const auto& c : e.children())
    if (ContainsSetFunction(*c)) return true;
  return false;
}

// Replaces each set-returning function in `e` by a reference to the next
// column from `first_column` on, moving the function to `functions`.
ExprPtr ExtractSetFunctions(ExprPtr e, size_t first_column, std::vector<ExprPtr>* functions) {
  if (e->kind() == Expression::Kind::kSetFunction) {
    DataType type = e->type();
    std::string name = e->ToString();
    functions->push_back(std::move(e));
    return std::make_unique<ColumnRefExpr>(static_cast<int>(first_column + functions->size() - 1), type, name);
  }
  for (auto& c : e->children()) c = ExtractSetFunctions(std::move(c), first_column, functions);
  return e;
}

// Set-returning functions inside expressions ((f(x)).n, f(x) + 1), as
// PostgreSQL plans them: a ProjectSet passes the input's columns through
// and adds one column per function (all of them advancing together); the
// select list, its functions replaced by those columns, is computed above.
PlanPtr ProjectSetBelow(PlanPtr input, std::vector<ExprPtr>* select) {
  std::vector<PlanColumn> schema = input->schema();
  std::vector<ExprPtr> exprs;
  for (size_t i = 0; i < schema.size(); i++)
    exprs.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), schema[i].type, schema[i].name));
  std::vector<ExprPtr> functions;
  for (auto& e : *select) e = ExtractSetFunctions(std::move(e), schema.size(), &functions);
  for (auto& f : functions) {
    schema.push_back({f->ToString(), f->type(), ""});
    exprs.push_back(std::move(f));
  }
  return std::make_unique<ProjectSetNode>(std::move(input), std::move(exprs), std::move(schema));
}

bool ContainsAggregate(const Expression& e) {
  if (e.kind() == Expression::Kind::kAggregate) return true;
  for (const auto& c : e.children())
    if (ContainsAggregate(*c)) return true;
  return false;
}

}  // namespace

// What the clauses of a SELECT have bound so far.
struct Binder::SelectParts {
  explicit SelectParts(Binder* binder) : eb(binder, &scope) {}
  Scope scope;        // the FROM items' columns
  ExprBinder eb;      // over scope
  PlanPtr plan;       // FROM, WHERE, then aggregation and windows
  AggregateContext agg;
  WindowContext window;
  std::vector<ExprPtr> select;  // the select list, over scope (later over the aggregation)
  std::vector<PlanColumn> out_schema;
  std::vector<ExprPtr> group_keys;
  size_t dependent_keys_from = SIZE_MAX;  // AggregateNode's
  ExprPtr having;
  // ORDER BY keys: an output column, or an expression over the FROM scope.
  struct PendingSort {
    ExprPtr expr;  // null when it is an output column
    int output_index = -1;
    bool descending = false, nulls_first = false;
  };
  std::vector<PendingSort> sorts;
  std::vector<PendingSort> distinct_on;  // DISTINCT ON items, bound as ORDER BY items are
  bool aggregated = false;
  std::vector<std::string> key_strings;  // the group keys' structural keys
  // GROUPING SETS, ROLLUP, CUBE: each set's group keys (indices into
  // group_keys); empty when GROUP BY has none of them.
  std::vector<std::vector<int>> grouping_sets;

  // Starts binding a clause: where aggregates and window calls are
  // collected (the select list, ORDER BY) or not.
  Scope& Enter(const char* clause, bool collect_calls) {
    scope.agg = collect_calls ? &agg : nullptr;
    scope.window = collect_calls ? &window : nullptr;
    scope.clause = clause;
    return scope;
  }
};

namespace {

const char* LockingClauseName(PgQuery__LockClauseStrength strength) {
  switch (strength) {
    case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE: return "FOR KEY SHARE";
    case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORSHARE: return "FOR SHARE";
    case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE: return "FOR NO KEY UPDATE";
    default: return "FOR UPDATE";
  }
}

}  // namespace

PlanPtr Binder::BindSelectCore(const PgQuery__SelectStmt* stmt, Scope* outer) {
  bool keep_unknown_outputs = set_operation_branch_;
  set_operation_branch_ = false;  // not for subqueries inside this branch
  if (stmt->into_clause) throw SqlError(sqlstate::kFeatureNotSupported, "SELECT INTO is not supported");
  // FOR UPDATE / SHARE: the session holds the database's writer lock for
  // the rest of the transaction (DmlManager::AcquireWriter), which keeps
  // what it read from changing under it. PostgreSQL's restrictions apply.
  if (stmt->n_locking_clause) {
    const char* clause = LockingClauseName(stmt->locking_clause[0]->locking_clause->strength);
    if (stmt->n_group_clause) FRESHET_THROW(sqlstate::kFeatureNotSupported, "{} is not allowed with GROUP BY clause", clause);
    if (stmt->n_distinct_clause) FRESHET_THROW(sqlstate::kFeatureNotSupported, "{} is not allowed with DISTINCT clause", clause);
    if (stmt->having_clause) FRESHET_THROW(sqlstate::kFeatureNotSupported, "{} is not allowed with HAVING clause", clause);
  }
  SelectParts q(this);
  for (size_t i = 0; i < stmt->n_window_clause; i++) {
    const PgQuery__WindowDef* w = stmt->window_clause[i]->window_def;
    if (!q.window.named.emplace(w->name, w).second)
      ThrowAt(sqlstate::kWindowingError, w->location, fmt::format("window \"{}\" is already defined", w->name));
  }
  BindFromWhere(stmt, outer, &q);
  std::vector<SelectSetFunction> set_calls;
  {
    // The select list's set-returning SQL functions are collected here.
    struct Restore {
      Binder* b;
      std::vector<SelectSetFunction>* calls;
      const Scope* scope;
      ~Restore() { b->select_set_functions_ = calls, b->select_set_scope_ = scope; }
    } restore{this, select_set_functions_, select_set_scope_};
    select_set_functions_ = &set_calls;
    select_set_scope_ = &q.scope;
    BindSelectList(stmt, &q);
  }
  if (!set_calls.empty() && (!q.agg.calls.empty() || !q.window.calls.empty() || stmt->n_group_clause ||
                             stmt->having_clause))
    ThrowAt(sqlstate::kFeatureNotSupported, set_calls.front().location,
            fmt::format("set-returning SQL function {} in the select list of a query with aggregates or window "
                        "functions is not supported yet: call it in FROM",
                        set_calls.front().function.name));
  BindGroupByHaving(stmt, &q);
  BindOrderBy(stmt, &q);
  q.scope.agg = nullptr;
  q.scope.window = nullptr;
  ApplyAggregation(&q);
  ApplyWindows(&q);
  if (!set_calls.empty()) JoinSelectSetFunctions(&q, std::move(set_calls));
  return FinishSelect(stmt, outer, keep_unknown_outputs, &q);
}

// A set-returning SQL function in a select list (`SELECT k, f(k) FROM t`):
// as PostgreSQL runs one, each row of the FROM items gives one row per row
// of the function (none when it has none), here a LATERAL join of those
// items with its body, whose column the select list reads (the call was
// bound as a reference to it, after the items' columns). Not with
// aggregates or window functions (the function would run after them) nor
// with other set-returning functions (they advance together).
void Binder::JoinSelectSetFunctions(SelectParts* q, std::vector<SelectSetFunction> calls) {
  SelectSetFunction& call = calls.front();
  if (q->aggregated || q->plan->schema().size() != q->scope.columns.size())  // refused after the select list
    ThrowAt(sqlstate::kInternalError, call.location, "a set-returning SQL function over an aggregation");
  for (const auto& e : q->select)
    if (ContainsSetFunction(*e))
      ThrowAt(sqlstate::kFeatureNotSupported, call.location,
              fmt::format("set-returning SQL function {} beside other set-returning functions in a select list is "
                          "not supported yet: call it in FROM",
                          call.function.name));
  std::vector<ExprPtr> args;
  for (auto& a : call.args) args.push_back(LiftArgument(std::move(a), 1, call.function.name));
  PlanPtr body = BindSqlTableFunctionBody(call.function, std::move(args), &q->scope);
  q->plan = std::make_unique<LateralJoinNode>(JoinType::kInner, std::move(q->plan), std::move(body), nullptr);
}

void Binder::BindFromWhere(const PgQuery__SelectStmt* stmt, Scope* outer, SelectParts* q) {
  // FROM
  q->scope.outer = outer;
  for (size_t i = 0; i < stmt->n_from_clause; i++) {
    Scope item;
    item.outer = outer;
    // A LATERAL item reads the items before it (a lateral join of them).
    Scope lateral;
    bool is_lateral = q->plan && IsLateral(stmt->from_clause[i]);
    if (is_lateral) {
      lateral.columns = q->scope.columns;
      lateral.outer = outer;
      lateral_left_ = &lateral;
    }
    PlanPtr p = BindFrom(stmt->from_clause[i], outer, &item);
    if (lateral_left_) is_lateral = false;  // a function that reads none of the items before it
    lateral_left_ = nullptr;
    if (!q->plan) {
      q->plan = std::move(p);
    } else if (is_lateral) {
      q->plan = std::make_unique<LateralJoinNode>(JoinType::kInner, std::move(q->plan), std::move(p), nullptr);
    } else {
      q->plan = std::make_unique<JoinNode>(JoinType::kInner, std::move(q->plan), std::move(p), nullptr);
    }
    q->scope.columns.insert(q->scope.columns.end(), item.columns.begin(), item.columns.end());
  }
  if (!q->plan) {
    // SELECT without FROM reads one empty row.
    std::vector<std::vector<ExprPtr>> rows(1);
    q->plan = std::make_unique<ValuesNode>(std::vector<PlanColumn>{}, std::move(rows));
  }

  // WHERE
  if (stmt->where_clause) {
    q->scope.clause = "WHERE";
    ExprPtr pred = q->eb.BindCondition(stmt->where_clause, "WHERE");
    q->plan = std::make_unique<FilterNode>(std::move(q->plan), std::move(pred));
  }
}

// The select list, bound over the FROM scope with aggregates and window
// functions collected.
void Binder::BindSelectList(const PgQuery__SelectStmt* stmt, SelectParts* q) {
  Scope& scope = q->Enter("SELECT", true);
  for (size_t i = 0; i < stmt->n_target_list; i++) {
    const PgQuery__ResTarget* rt = stmt->target_list[i]->res_target;
    if (IsStar(rt->val)) {
      const PgQuery__ColumnRef* ref = rt->val->column_ref;
      std::string table = ref->n_fields >= 2 ? StringOf(ref->fields[ref->n_fields - 2]) : "";
      bool any = false;
      for (size_t c = 0; c < scope.columns.size(); c++) {
        const auto& col = scope.columns[c];
        if (!table.empty() && col.table != table) continue;
        if (table.empty() && stmt->n_from_clause == 0) continue;
        if (!table.empty() && !any && col.relation_id != 0)
          NoteNameUse({.location = ref->location, .relation = col.relation_id, .qualified_by_name = col.unaliased});
        any = true;
        if (col.hidden || (table.empty() && col.qualified_only)) continue;
        if (col.relation_id != 0 && col.relation_column >= 0)
          NoteNameUse({.location = ref->location, .relation = col.relation_id, .column = col.relation_column, .implicit = true});
        q->select.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(c), col.type, col.name));
        q->out_schema.push_back({col.name, col.type, col.table, false, col.origin_table, col.origin_column});
      }
      if (!table.empty() && !any)
        ThrowAt(sqlstate::kUndefinedTable, ref->location, fmt::format("missing FROM-clause entry for table \"{}\"", table));
      if (table.empty() && stmt->n_from_clause == 0)
        ThrowAt(sqlstate::kSyntaxError, ref->location, "SELECT * with no tables specified is not valid");
      continue;
    }
    if (IsStructStar(rt->val)) {
      // (s).*: a column per field, named after it (an alias is ignored,
      // as PostgreSQL does).
      for (auto& [field, e] : q->eb.ExpandStructStar(rt->val->a_indirection)) {
        q->out_schema.push_back({field, e->type(), ""});
        q->select.push_back(std::move(e));
      }
      continue;
    }
    scope.set_functions_allowed = true;
    ExprPtr e = q->eb.Bind(rt->val);
    scope.set_functions_allowed = false;
    std::string name = rt->name && *rt->name ? rt->name : DefaultColumnName(rt->val);
    q->out_schema.push_back({name, e->type(), ""});
    // A column passed on unchanged is still its relation's (RowDescription).
    // (A LATERAL subquery's reference to the items before it indexes
    // their scope, not this one: the name must match.)
    // (An outer query's column is a kColumnRef too, but an OuterRefExpr.)
    const auto* own = dynamic_cast<const ColumnRefExpr*>(e.get());
    if (own && rt->val->node_case == PG_QUERY__NODE__NODE_COLUMN_REF) {
      const auto& ref = *own;
      const PgQuery__ColumnRef* written = rt->val->column_ref;
      if (ref.index() >= 0 && static_cast<size_t>(ref.index()) < scope.columns.size() &&
          scope.columns[ref.index()].name == StringOf(written->fields[written->n_fields - 1])) {
        q->out_schema.back().origin_table = scope.columns[ref.index()].origin_table;
        q->out_schema.back().origin_column = scope.columns[ref.index()].origin_column;
      }
    }
    q->select.push_back(std::move(e));
  }
  CheckTargetListLength(q->select.size());
}

// GROUP BY: expressions, output positions or output names; then HAVING.
void Binder::BindGroupByHaving(const PgQuery__SelectStmt* stmt, SelectParts* q) {
  Scope& scope = q->Enter("GROUP BY", false);
  const PgQuery__Node* having_clause = stmt->having_clause;
  bool sets = false;
  for (size_t i = 0; i < stmt->n_group_clause; i++)
    sets |= stmt->group_clause[i]->node_case == PG_QUERY__NODE__NODE_GROUPING_SET ||
            stmt->group_clause[i]->node_case == PG_QUERY__NODE__NODE_ROW_EXPR;
  if (sets) BindGroupingSets(stmt, q);
  for (size_t i = 0; !sets && i < stmt->n_group_clause; i++) {
    const PgQuery__Node* g = stmt->group_clause[i];
    if (g->node_case == PG_QUERY__NODE__NODE_A_CONST && g->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
      int pos = g->a_const->ival->ival;
      if (pos < 1 || pos > static_cast<int>(q->select.size()))
        ThrowAt(sqlstate::kInvalidColumnReference, g->a_const->location, fmt::format("GROUP BY position {} is not in select list", pos));
      if (ContainsAggregate(*q->select[pos - 1]))
        ThrowAt(sqlstate::kGroupingError, g->a_const->location, "aggregate functions are not allowed in GROUP BY");
      q->group_keys.push_back(q->select[pos - 1]->Clone());
      continue;
    }
    if (g->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && g->column_ref->n_fields == 1) {
      // A bare name is an input column first, else an output alias (PostgreSQL).
      std::string name = StringOf(g->column_ref->fields[0]);
      bool is_input = std::any_of(scope.columns.begin(), scope.columns.end(), [&](const auto& c) { return c.name == name; });
      if (!is_input) {
        for (size_t k = 0; k < q->out_schema.size(); k++) {
          if (q->out_schema[k].name == name) {
            q->group_keys.push_back(q->select[k]->Clone());
            is_input = true;
            break;
          }
        }
        if (is_input) continue;
      }
    }
    ExprPtr k = q->eb.Bind(g);
    if (k->type().id == TypeId::kUnknown) k = q->eb.Coerce(std::move(k), DataType::Varchar());
    q->group_keys.push_back(std::move(k));
  }

  if (having_clause) {
    q->scope.agg = &q->agg;
    q->scope.clause = "HAVING";
    q->having = q->eb.BindCondition(having_clause, "HAVING");
  }
  if (q->grouping_sets.empty()) AddFunctionallyDependentKeys(q);
}

// GROUP BY with GROUPING SETS, ROLLUP or CUBE (PostgreSQL's rules): each
// item of the list gives sets of keys (a plain expression one set of one
// key; ROLLUP (a, b) the sets (a, b), (a), (); CUBE every subset; GROUPING
// SETS the union of its elements' sets; a parenthesized list one unit),
// and the list's sets are the cross product of its items'. Keys are bound
// once each (the same expression in two sets is one key).
void Binder::BindGroupingSets(const PgQuery__SelectStmt* stmt, SelectParts* q) {
  auto key_of = [&](const PgQuery__Node* n) -> int {
    ExprPtr k = q->eb.Bind(n);
    if (k->type().id == TypeId::kUnknown) k = q->eb.Coerce(std::move(k), DataType::Varchar());
    if (ContainsAggregate(*k)) ThrowAt(sqlstate::kGroupingError, -1, "aggregate functions are not allowed in GROUP BY");
    std::string key = StructuralKey(*k);
    for (size_t i = 0; i < q->group_keys.size(); i++)
      if (StructuralKey(*q->group_keys[i]) == key) return int(i);
    q->group_keys.push_back(std::move(k));
    return int(q->group_keys.size()) - 1;
  };
  // The keys of one unit: an expression, or a parenthesized list (a, b).
  auto unit = [&](const PgQuery__Node* n) {
    std::vector<int> keys;
    if (n->node_case == PG_QUERY__NODE__NODE_ROW_EXPR) {
      for (size_t i = 0; i < n->row_expr->n_args; i++) keys.push_back(key_of(n->row_expr->args[i]));
    } else {
      keys.push_back(key_of(n));
    }
    return keys;
  };
  std::function<std::vector<std::vector<int>>(const PgQuery__Node*)> sets_of = [&](const PgQuery__Node* n) {
    std::vector<std::vector<int>> out;
    if (n->node_case != PG_QUERY__NODE__NODE_GROUPING_SET) {
      out.push_back(unit(n));
      return out;
    }
    const PgQuery__GroupingSet* g = n->grouping_set;
    std::vector<std::vector<int>> units;
    switch (g->kind) {
      case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_EMPTY: out.emplace_back(); break;
      case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SIMPLE: {
        std::vector<int> keys;
        for (size_t i = 0; i < g->n_content; i++)
          for (int k : unit(g->content[i])) keys.push_back(k);
        out.push_back(keys);
        break;
      }
      case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_ROLLUP:
        for (size_t i = 0; i < g->n_content; i++) units.push_back(unit(g->content[i]));
        for (size_t len = units.size() + 1; len-- > 0;) {
          std::vector<int> keys;
          for (size_t i = 0; i < len; i++) keys.insert(keys.end(), units[i].begin(), units[i].end());
          out.push_back(keys);
        }
        break;
      case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_CUBE:
        for (size_t i = 0; i < g->n_content; i++) units.push_back(unit(g->content[i]));
        if (units.size() > 12) ThrowAt("54023", g->location, "CUBE is limited to 12 elements");
        // Every subset, the largest first (PostgreSQL's order).
        for (uint32_t mask = (1u << units.size()); mask-- > 0;) {
          std::vector<int> keys;
          for (size_t i = 0; i < units.size(); i++)
            if (mask & (1u << (units.size() - 1 - i))) keys.insert(keys.end(), units[i].begin(), units[i].end());
          out.push_back(keys);
        }
        break;
      default:  // GROUPING SETS (...)
        for (size_t i = 0; i < g->n_content; i++)
          for (auto& s : sets_of(g->content[i])) out.push_back(std::move(s));
        break;
    }
    return out;
  };
  std::vector<std::vector<int>> sets{{}};
  for (size_t i = 0; i < stmt->n_group_clause; i++) {
    std::vector<std::vector<int>> next;
    for (const auto& item : sets_of(stmt->group_clause[i]))
      for (const auto& s : sets) {
        std::vector<int> keys = s;
        keys.insert(keys.end(), item.begin(), item.end());
        next.push_back(keys);
      }
    sets = std::move(next);
    if (sets.size() > 4096) throw SqlError("54001", "too many grouping sets present (maximum 4096)");
  }
  for (auto& s : sets) {  // each key once per set
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  q->grouping_sets = std::move(sets);
}

// PostgreSQL's functional dependency: grouped by a table's whole primary
// key, the query may read that table's other columns too (GROUP BY
// t.id, SELECT t.name: what ORMs' annotations send); they join the group
// keys, which groups the same rows.
void Binder::AddFunctionallyDependentKeys(SelectParts* q) {
  if (q->group_keys.empty()) return;
  q->dependent_keys_from = q->group_keys.size();
  std::set<int> keyed;
  for (const auto& k : q->group_keys)
    if (k->kind() == Expression::Kind::kColumnRef) keyed.insert(static_cast<const ColumnRefExpr&>(*k).index());
  // The FROM scope's columns by table instance (a table named twice is two).
  std::map<std::pair<ObjectId, std::string>, std::vector<int>> instances;
  for (size_t i = 0; i < q->scope.columns.size(); i++) {
    const Scope::Column& c = q->scope.columns[i];
    if (c.relation_id != 0 && c.relation_column >= 0) instances[{c.relation_id, c.table}].push_back(static_cast<int>(i));
  }
  for (const auto& instance : instances) {
    const std::vector<int>& columns = instance.second;  // (a named local: lambdas may not capture bindings)
    TableRef table = ctx_.catalog->GetTable(instance.first.first);
    if (!table || table->kind != RelationKind::kTable || table->row_id_index >= 0) continue;  // no declared key
    bool whole_key = std::all_of(table->pk.begin(), table->pk.end(), [&](int pk) {
      return std::any_of(columns.begin(), columns.end(),
                         [&](int i) { return q->scope.columns[i].relation_column == pk && keyed.count(i); });
    });
    if (!whole_key) continue;
    for (int i : columns) {
      const Scope::Column& c = q->scope.columns[i];
      if (keyed.count(i) || c.hidden) continue;
      q->group_keys.push_back(std::make_unique<ColumnRefExpr>(i, c.type, c.name));
      keyed.insert(i);
    }
  }
}

// ORDER BY keys: output names and positions first, then input expressions.
// DISTINCT ON's items are bound the same way (PostgreSQL's
// findTargetlistEntrySQL92 for both).
void Binder::BindOrderBy(const PgQuery__SelectStmt* stmt, SelectParts* q) {
  Scope& scope = q->Enter("ORDER BY", true);
  for (size_t i = 0; i < stmt->n_sort_clause; i++) {
    const PgQuery__SortBy* sb = stmt->sort_clause[i]->sort_by;
    SelectParts::PendingSort ps;
    ps.descending = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
    ps.nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT
                         ? ps.descending
                         : sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST;
    BindOrderItem(sb->node, sb->location, "ORDER BY", q, /*distinct_on=*/false);
    q->sorts.back().descending = ps.descending;
    q->sorts.back().nulls_first = ps.nulls_first;
  }
  // DISTINCT ON (a plain DISTINCT is a list holding one empty node).
  if (stmt->n_distinct_clause > 0 && stmt->distinct_clause[0] &&
      stmt->distinct_clause[0]->node_case != PG_QUERY__NODE__NODE__NOT_SET) {
    for (size_t i = 0; i < stmt->n_distinct_clause; i++)
      BindOrderItem(stmt->distinct_clause[i], -1, "DISTINCT ON", q,
                    /*distinct_on=*/true);
  }
  scope.agg = nullptr;
  scope.window = nullptr;
}

void Binder::BindOrderItem(const PgQuery__Node* n, int location, const char* clause, SelectParts* q, bool distinct_on) {
  Scope& scope = q->scope;
  auto& list = distinct_on ? q->distinct_on : q->sorts;
  list.emplace_back();
  SelectParts::PendingSort& ps = list.back();
  {
    if (n->node_case == PG_QUERY__NODE__NODE_A_CONST && n->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
      int pos = n->a_const->ival->ival;
      if (pos < 1 || pos > static_cast<int>(q->select.size()))
        ThrowAt(sqlstate::kInvalidColumnReference, location, fmt::format("{} position {} is not in select list", clause, pos));
      ps.output_index = pos - 1;
    } else if (n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && n->column_ref->n_fields == 1 &&
               n->column_ref->fields[0]->node_case == PG_QUERY__NODE__NODE_STRING) {
      std::string name = StringOf(n->column_ref->fields[0]);
      int found = -1;
      for (size_t k = 0; k < q->out_schema.size(); k++) {
        if (q->out_schema[k].name != name) continue;
        if (found >= 0 && StructuralKey(*q->select[k]) != StructuralKey(*q->select[found]))
          ThrowAt(sqlstate::kAmbiguousColumn, location, fmt::format("{} \"{}\" is ambiguous", clause, name));
        found = static_cast<int>(k);
      }
      if (found >= 0) {
        ps.output_index = found;
        // The output is a column under its own name (`b`, `*`): the name
        // is the column's too (a rename follows it).
        if (q->select[found]->kind() == Expression::Kind::kColumnRef) {
          int index = static_cast<const ColumnRefExpr&>(*q->select[found]).index();
          const Scope::Column& c = scope.columns.at(index);
          if (c.relation_id != 0 && c.relation_column >= 0 && c.name == name)
            NoteNameUse({.location = n->column_ref->location, .relation = c.relation_id, .column = c.relation_column});
        }
      } else {
        ps.expr = q->eb.Bind(n);
      }
    } else {
      ps.expr = q->eb.Bind(n);
    }
    if (ps.expr && ps.expr->type().id == TypeId::kUnknown) ps.expr = q->eb.Coerce(std::move(ps.expr), DataType::Varchar());
  }
}

// The aggregation: group keys and aggregate calls become the columns the
// select list, HAVING and ORDER BY read.
void Binder::ApplyAggregation(SelectParts* q) {
  // Aggregation.
  q->aggregated = !q->agg.calls.empty() || !q->group_keys.empty() || q->having || !q->grouping_sets.empty();
  if (!q->aggregated) return;
  const bool sets = !q->grouping_sets.empty();
  const int nkeys = int(q->group_keys.size());
  std::vector<PlanColumn> agg_schema;
  for (auto& k : q->group_keys) {
    q->key_strings.push_back(StructuralKey(*k));
    std::string name = k->ToString();
    agg_schema.push_back({name, k->type(), ""});
  }
  if (sets) {
    // The grouping set's number: a last group key of each set's branch.
    q->key_strings.push_back("\x01grouping set");
    agg_schema.push_back({"_grouping_set", DataType::Int32(), "", true});
  }
  for (auto& c : q->agg.calls) agg_schema.push_back({c.ToString(), c.sig.return_type, ""});
  // grouping(a, ...): a bit per argument, 1 when the row's grouping set
  // lacks it (the first argument the highest bit).
  std::function<ExprPtr(ExprPtr)> grouping = [&](ExprPtr e) -> ExprPtr {
    for (auto& c : e->children()) c = grouping(std::move(c));
    if (e->kind() != Expression::Kind::kGrouping) return e;
    std::vector<int> args;
    for (const auto& a : e->children()) {
      const auto* col = dynamic_cast<const ColumnRefExpr*>(a.get());
      if (!col || col->index() >= nkeys)
        throw SqlError(sqlstate::kGroupingError, "arguments to GROUPING must be grouping expressions of the associated query level");
      args.push_back(col->index());
    }
    auto bits = [&](const std::vector<int>& set) {
      int64_t v = 0;
      for (int k : args) v = (v << 1) | (std::find(set.begin(), set.end(), k) == set.end() ? 1 : 0);
      return std::make_unique<ConstantExpr>(Value::Int32(v));
    };
    if (!sets) return bits(std::vector<int>(size_t(nkeys)));  // every key in the one set: 0
    std::vector<ExprPtr> arms;  // CASE WHEN set = 0 THEN bits0 ... END
    for (size_t s = 0; s < q->grouping_sets.size(); s++) {
      std::vector<ExprPtr> eq;
      eq.push_back(std::make_unique<ColumnRefExpr>(nkeys, DataType::Int32(), "_grouping_set"));
      eq.push_back(std::make_unique<ConstantExpr>(Value::Int32(int64_t(s))));
      arms.push_back(q->eb.MakeCall("=", std::move(eq), -1));
      arms.push_back(bits(q->grouping_sets[s]));
    }
    return std::make_unique<CaseExpr>(DataType::Int32(), std::move(arms), false);
  };
  // GROUPING's arguments must be group keys (checked first, for PostgreSQL's message).
  std::function<void(const Expression&)> check = [&](const Expression& e) {
    if (e.kind() == Expression::Kind::kGrouping)
      for (const auto& a : e.children())
        if (std::find(q->key_strings.begin(), q->key_strings.end(), StructuralKey(*a)) == q->key_strings.end())
          throw SqlError(sqlstate::kGroupingError, "arguments to GROUPING must be grouping expressions of the associated query level");
    for (const auto& c : e.children()) check(*c);
  };
  for (const auto& e : q->select) check(*e);
  if (q->having) check(*q->having);
  for (auto& e : q->select) e = grouping(RewriteForAggregate(std::move(e), q->key_strings));
  if (q->having) q->having = grouping(RewriteForAggregate(std::move(q->having), q->key_strings));
  for (auto* list : {&q->sorts, &q->distinct_on})
    for (auto& s : *list)
      if (s.expr) s.expr = grouping(RewriteForAggregate(std::move(s.expr), q->key_strings));
  if (!sets) {
    q->plan = std::make_unique<AggregateNode>(std::move(q->plan), std::move(q->group_keys), std::move(q->agg.calls), std::move(agg_schema));
    static_cast<AggregateNode&>(*q->plan).dependent_keys_from = q->dependent_keys_from;
  } else {
    // One aggregation per grouping set over its own copy of the input,
    // keys outside the set NULL, UNION ALL of them all. The empty set is
    // an aggregation without GROUP BY (one row even over no rows).
    auto calls = [&] {
      std::vector<AggregateCall> out;
      for (const auto& c : q->agg.calls) {
        AggregateCall a{c.sig, {}, c.distinct, c.filter ? c.filter->Clone() : nullptr, {}};
        for (const auto& x : c.args) a.args.push_back(x->Clone());
        for (const auto& k : c.order_by) a.order_by.push_back({k.expr->Clone(), k.descending, k.nulls_first});
        out.push_back(std::move(a));
      }
      return out;
    };
    PlanPtr united;
    for (size_t s = 0; s < q->grouping_sets.size(); s++) {
      const std::vector<int>& set = q->grouping_sets[s];
      PlanPtr input = ClonePlan(*q->plan);
      PlanPtr branch;
      if (set.empty()) {
        std::vector<PlanColumn> bare(agg_schema.begin() + nkeys + 1, agg_schema.end());
        branch = std::make_unique<AggregateNode>(std::move(input), std::vector<ExprPtr>{}, calls(), bare);
        std::vector<ExprPtr> exprs;
        for (int k = 0; k < nkeys; k++) exprs.push_back(std::make_unique<ConstantExpr>(Value::Null(agg_schema[size_t(k)].type)));
        exprs.push_back(std::make_unique<ConstantExpr>(Value::Int32(int64_t(s))));
        for (size_t a = 0; a < bare.size(); a++) exprs.push_back(std::make_unique<ColumnRefExpr>(int(a), bare[a].type, bare[a].name));
        branch = std::make_unique<ProjectNode>(std::move(branch), std::move(exprs), agg_schema);
      } else {
        std::vector<ExprPtr> keys;
        for (int k = 0; k < nkeys; k++) {
          if (std::find(set.begin(), set.end(), k) != set.end()) keys.push_back(q->group_keys[size_t(k)]->Clone());
          else keys.push_back(std::make_unique<ConstantExpr>(Value::Null(agg_schema[size_t(k)].type)));
        }
        keys.push_back(std::make_unique<ConstantExpr>(Value::Int32(int64_t(s))));
        branch = std::make_unique<AggregateNode>(std::move(input), std::move(keys), calls(), agg_schema);
      }
      united = united ? std::make_unique<SetOpNode>(SetOpKind::kUnion, true, std::move(united), std::move(branch)) : std::move(branch);
    }
    q->plan = std::move(united);
  }
  if (q->having) q->plan = std::make_unique<FilterNode>(std::move(q->plan), std::move(q->having));
}

// Window functions, over the (aggregated) rows: their results become
// columns after the input's.
void Binder::ApplyWindows(SelectParts* q) {
  if (q->window.calls.empty()) return;
  {
    if (q->aggregated) {
      for (auto& call : q->window.calls) {
        for (auto& a : call.args) a = RewriteForAggregate(std::move(a), q->key_strings);
        if (call.filter) call.filter = RewriteForAggregate(std::move(call.filter), q->key_strings);
        for (auto& p : call.partition_by) p = RewriteForAggregate(std::move(p), q->key_strings);
        for (auto& k : call.order_by) k.expr = RewriteForAggregate(std::move(k.expr), q->key_strings);
        for (WindowFrameBound* b : {&call.frame.start, &call.frame.end})
          if (b->range_value) b->range_value = RewriteForAggregate(std::move(b->range_value), q->key_strings);
      }
    }
    const int width = int(q->plan->schema().size());
    q->plan = std::make_unique<WindowNode>(std::move(q->plan), std::move(q->window.calls));
    std::function<ExprPtr(ExprPtr)> replace = [&](ExprPtr e) -> ExprPtr {
      if (e->kind() == Expression::Kind::kWindow) {
        auto* w = static_cast<WindowPlaceholder*>(e.get());
        return std::make_unique<ColumnRefExpr>(width + w->index, w->type(), w->text);
      }
      for (auto& c : e->children()) c = replace(std::move(c));
      return e;
    };
    for (auto& e : q->select) e = replace(std::move(e));
    for (auto* list : {&q->sorts, &q->distinct_on})
      for (auto& st : *list)
        if (st.expr) st.expr = replace(std::move(st.expr));
  }
}

// Output types, the projection (the select list plus ORDER BY keys that are
// not outputs), DISTINCT, the sort, LIMIT/OFFSET.
PlanPtr Binder::FinishSelect(const PgQuery__SelectStmt* stmt, Scope* outer, bool keep_unknown_outputs, SelectParts* q) {
  // Output types: unknown literals in the select list become text.
  for (size_t i = 0; i < q->select.size() && !keep_unknown_outputs; i++) {
    if (q->select[i]->type().id == TypeId::kUnknown) {
      q->select[i] = q->eb.Coerce(std::move(q->select[i]), DataType::Text());
      q->out_schema[i].type = DataType::Text();
    }
  }

  // Projection: the select list plus ORDER BY keys that are not outputs.
  size_t visible = q->select.size();
  const bool distinct_on = !q->distinct_on.empty();
  const bool distinct = stmt->n_distinct_clause > 0 && !distinct_on;
  // An ORDER BY or DISTINCT ON item's column in the projection (added
  // after the outputs when it is none of them).
  auto column_of = [&](SelectParts::PendingSort& s) {
    int idx = s.output_index;
    if (idx < 0) {
      std::string key = StructuralKey(*s.expr);
      for (size_t k = 0; k < q->select.size(); k++)
        if ((k < visible || distinct_on) && StructuralKey(*q->select[k]) == key) idx = static_cast<int>(k);
    }
    if (idx < 0) {
      if (distinct)
        throw SqlError(sqlstate::kInvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
      idx = static_cast<int>(q->select.size());
      q->out_schema.push_back({"?sort?", s.expr->type(), ""});
      q->select.push_back(std::move(s.expr));
    }
    return idx;
  };
  std::vector<SortKey> sort_keys;
  std::vector<int> sort_columns;
  for (auto& s : q->sorts) {
    int idx = column_of(s);
    sort_columns.push_back(idx);
    sort_keys.push_back({std::make_unique<ColumnRefExpr>(idx, q->out_schema[idx].type, q->out_schema[idx].name), s.descending, s.nulls_first});
  }
  std::vector<int> distinct_columns;
  for (auto& s : q->distinct_on) distinct_columns.push_back(column_of(s));
  if (distinct_on) {
    // As PostgreSQL's transformDistinctOnClause: ORDER BY starts with the
    // DISTINCT ON items (in any order); one after another key, or missing
    // when ORDER BY has other keys, is an error.
    auto is_distinct = [&](int c) { return std::find(distinct_columns.begin(), distinct_columns.end(), c) != distinct_columns.end(); };
    bool skipped = false;
    for (int c : sort_columns) {
      if (!is_distinct(c)) skipped = true;
      else if (skipped) throw SqlError(sqlstate::kInvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
    }
    for (int c : distinct_columns)
      if (skipped && std::find(sort_columns.begin(), sort_columns.end(), c) == sort_columns.end())
        throw SqlError(sqlstate::kInvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
  }
  bool has_set_functions = false, nested_set_functions = false;
  for (const auto& e : q->select) {
    if (e->kind() == Expression::Kind::kSetFunction) has_set_functions = true;
    for (const auto& c : e->children()) nested_set_functions |= ContainsSetFunction(*c);
  }
  if (nested_set_functions) q->plan = ProjectSetBelow(std::move(q->plan), &q->select);
  if (has_set_functions && !nested_set_functions)
    q->plan = std::make_unique<ProjectSetNode>(std::move(q->plan), std::move(q->select), q->out_schema);
  else q->plan = std::make_unique<ProjectNode>(std::move(q->plan), std::move(q->select), q->out_schema);
  if (distinct) q->plan = std::make_unique<DistinctNode>(std::move(q->plan));
  if (distinct_on) {
    // The first row of each DISTINCT ON group in ORDER BY's order:
    // row_number() OVER (PARTITION BY the items ORDER BY the sort keys) = 1
    // (a group top-1 in streaming jobs), its number then dropped.
    const std::vector<PlanColumn> projected = q->plan->schema();
    WindowCall call;
    call.kind = WindowFunctionKind::kRowNumber;
    call.name = "row_number";
    for (int c : distinct_columns) call.partition_by.push_back(std::make_unique<ColumnRefExpr>(c, projected[c].type, projected[c].name));
    for (const auto& k : sort_keys) call.order_by.push_back({k.expr->Clone(), k.descending, k.nulls_first});
    std::vector<WindowCall> calls;
    calls.push_back(std::move(call));
    auto window = std::make_unique<WindowNode>(std::move(q->plan), std::move(calls));
    window->first_per_partition = true;
    q->plan = std::move(window);
    std::vector<ExprPtr> eq_args;
    eq_args.push_back(std::make_unique<ColumnRefExpr>(int(projected.size()), DataType::Int64(), "row_number"));
    eq_args.push_back(std::make_unique<ConstantExpr>(Value::Int64(1)));
    q->plan = std::make_unique<FilterNode>(std::move(q->plan), q->eb.MakeCall("=", std::move(eq_args), -1));
    std::vector<ExprPtr> keep;
    for (size_t i = 0; i < projected.size(); i++) keep.push_back(std::make_unique<ColumnRefExpr>(int(i), projected[i].type, projected[i].name));
    q->plan = std::make_unique<ProjectNode>(std::move(q->plan), std::move(keep), projected);
  }
  if (!sort_keys.empty()) q->plan = std::make_unique<SortNode>(std::move(q->plan), std::move(sort_keys));
  // LIMIT/OFFSET and dropping the extra sort columns.
  PgQuery__SelectStmt limit_only = *stmt;
  limit_only.n_sort_clause = 0;
  return ApplyOrderLimit(std::move(q->plan), &limit_only, outer, visible);
}

}  // namespace freshet
