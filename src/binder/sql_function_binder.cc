// SQL functions (CREATE FUNCTION ... LANGUAGE sql) in queries: a call is
// inlined, so that every engine runs it as ordinary plan parts (the stream
// engine cannot call a query per row).
//
//   * A scalar function whose body is one expression (SELECT expr, no FROM
//     or clauses) becomes that expression over the call's arguments.
//   * Any other scalar body becomes a scalar subquery (its first row:
//     LIMIT 1 unless it cannot return two rows), correlated when the
//     arguments read the calling row; the subquery unnesting turns it into
//     a join like any subquery the user writes.
//   * A set-returning function in FROM becomes its body as a subquery in
//     FROM, LATERAL when the arguments read the items before it.
//
// The body is bound in a scope of its own (Scope::function): its names are
// its own relations' columns first, then the parameters (by name, as
// function.param, or $n); nothing of the calling query is visible. A
// parameter is its argument's bound expression, lifted into the
// subqueries it is read from (columns of the calling row become outer
// references).
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <optional>

#include "binder/expression_binder.h"
#include "common/error.h"
#include "expr/array.h"
#include "expr/cast.h"
#include "expr/function_registry.h"
#include "expr/struct.h"
#include "planner/subquery.h"
#include "planner/subquery_unnesting.h"

namespace freshet {

namespace {

constexpr const char* kInvalidFunctionDefinition = "42P13";

// 42P13 unless a body's result column of type `have` goes into the
// function's result of type `want` by an assignment cast, as PostgreSQL's
// check_sql_fn_retval allows.
void CheckFunctionResultType(const FunctionCatalog& fn, const DataType& have, const DataType& want) {
  if (have == want || have.id == TypeId::kUnknown || (have.id == want.id && !have.IsEnum()) ||
      CanAssignmentCast(have, want))
    return;
  const bool record = !fn.table_columns.empty();
  throw SqlError(kInvalidFunctionDefinition, fmt::format("return type mismatch in function declared to return {}",
                                                         record ? "record" : fn.return_type.ToString()))
      .WithDetail(fmt::format("Actual return type is {}.", have.ToString()));
}

// `e`, read `by` query levels below where it was bound: its columns become
// outer references (those it already reads from outside go further up).
ExprPtr Lift(ExprPtr e, int by, const std::string& function) {
  if (auto* o = dynamic_cast<OuterRefExpr*>(e.get())) {
    o->levels_up += by;
    return e;
  }
  if (auto* c = dynamic_cast<ColumnRefExpr*>(e.get()))
    return std::make_unique<OuterRefExpr>(by, c->index(), c->type(), c->name());
  switch (e->kind()) {
    case Expression::Kind::kSubquery:
    case Expression::Kind::kAggregate:
    case Expression::Kind::kWindow:
    case Expression::Kind::kGrouping:
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("an argument of SQL function {} that holds a subquery, an aggregate or a window "
                                 "function cannot be read inside the function's subqueries",
                                 function))
          .WithHint("Compute the argument in a subquery of its own and pass its column.");
    default: break;
  }
  for (auto& c : e->children()) c = Lift(std::move(c), by, function);
  return e;
}

// The row value a function of OUT parameters returns (ReturnsOneRecord).
DataType RecordType(const FunctionCatalog& fn) {
  std::vector<StructField> fields;
  for (const auto& [name, type] : fn.table_columns) fields.emplace_back(name, type);
  return DataType::Struct(fields);
}

// A body that is expressions only: SELECT exprs with no FROM and no clause
// (one expression, unless the function returns a record of `columns`).
bool IsExpressionBody(const PgQuery__SelectStmt* s, size_t columns = 1) {
  return s->op == PG_QUERY__SET_OPERATION__SETOP_NONE && s->n_target_list == columns && s->n_from_clause == 0 &&
         !s->where_clause && s->n_group_clause == 0 && !s->having_clause && s->n_window_clause == 0 &&
         s->n_distinct_clause == 0 && s->n_sort_clause == 0 && !s->limit_count && !s->limit_offset &&
         !s->with_clause && s->n_values_lists == 0 &&
         std::all_of(s->target_list, s->target_list + s->n_target_list,
                     [](const PgQuery__Node* t) { return t->res_target->val != nullptr; });
}

// How well an argument of type `have` fits a parameter of type `want`: 0
// exactly (or an unknown literal for text), 1 by an implicit cast, -1 not.
int ArgumentCost(const DataType& have, const DataType& want) {
  if (have == want) return 0;
  if (have.id == TypeId::kUnknown) return want.id == TypeId::kVarchar ? 0 : 1;
  if (have.id == want.id && !have.IsArray() && !want.IsArray()) return 0;  // varchar(n) for text, numeric(p,s)...
  return CanImplicitCast(have, want) ? 1 : -1;
}

// Whether an argument of type `have` can go to a polymorphic parameter.
bool FitsPolymorphic(const DataType& have, const std::string& polymorphic) {
  if (have.id == TypeId::kUnknown) return true;
  if (polymorphic == "anyarray" || polymorphic == "anycompatiblearray") return have.IsArray();
  if (polymorphic == "anynonarray") return !have.IsArray();
  return true;
}

// `fn` with its polymorphic parameters and result given the types the
// arguments resolve them to (PostgreSQL's rules: anyelement, anyarray and
// anynonarray of one call share one element type, exactly; anycompatible
// and anycompatiblearray their arguments' common type); false when the
// arguments do not agree. `types[p]` is parameter p's argument's type
// (unknown for a DEFAULT or an untyped literal). `*unresolved`: false
// because only untyped literals went to the anyelement family.
bool ResolvePolymorphic(FunctionCatalog* fn, const std::vector<DataType>& types, bool* unresolved) {
  std::optional<DataType> element, compatible;
  bool compatible_seen = false;
  for (size_t p = 0; p < fn->args.size(); p++) {
    const std::string& poly = fn->args[p].polymorphic;
    if (poly.empty() || types[p].id == TypeId::kUnknown) {
      compatible_seen |= !poly.empty() && poly.rfind("anycompatible", 0) == 0;
      continue;
    }
    const bool array = poly == "anyarray" || poly == "anycompatiblearray";
    const DataType t = array ? types[p].ElementType() : types[p];
    if (poly.rfind("anycompatible", 0) == 0) {
      compatible_seen = true;
      if (!compatible) compatible = t;
      else if (!(*compatible == t)) {
        DataType common = CommonSuperType(*compatible, t);
        if (common.id == TypeId::kUnknown) return false;
        compatible = common;
      }
    } else if (!element) {
      element = t;
    } else if (!(*element == t)) {
      return false;
    }
  }
  // Only untyped literals: text for the compatible family (as PostgreSQL),
  // nothing to go on for the other.
  if (compatible_seen && !compatible) compatible = DataType::Varchar();
  auto resolve = [&](const std::string& poly, DataType* type) {
    if (poly.empty()) return true;
    const std::optional<DataType>& base = poly.rfind("anycompatible", 0) == 0 ? compatible : element;
    if (!base) return !(*unresolved = true);
    *type = poly == "anyarray" || poly == "anycompatiblearray" ? DataType::Array(*base) : *base;
    return true;
  };
  for (auto& a : fn->args)
    if (!resolve(a.polymorphic, &a.type)) return false;
  return resolve(fn->polymorphic_result, &fn->return_type);
}

}  // namespace

ExprPtr Binder::LiftArgument(ExprPtr e, int by, const std::string& function) { return Lift(std::move(e), by, function); }

Binder::InliningGuard::InliningGuard(Binder* binder, const FunctionCatalog& fn) : binder_(binder) {
  // PostgreSQL calls a recursive SQL function until its stack runs out;
  // inlined, it would never end.
  if (std::count(binder->inlining_.begin(), binder->inlining_.end(), fn.id))
    throw SqlError(sqlstate::kFeatureNotSupported,
                   fmt::format("SQL function {} calls itself: recursive SQL functions are not supported", fn.name));
  constexpr size_t kMaxInliningDepth = 64;
  if (binder->inlining_.size() >= kMaxInliningDepth)
    throw SqlError(sqlstate::kStatementTooComplex,
                   fmt::format("SQL functions nested more than {} deep (function {})", kMaxInliningDepth, fn.name));
  if (binder->ctx_.referenced_functions && fn.id) binder->ctx_.referenced_functions->push_back(fn.id);
  binder->inlining_.push_back(fn.id);
}

Binder::InliningGuard::~InliningGuard() { binder_->inlining_.pop_back(); }

bool Binder::IsBuiltinFunctionName(const std::string& name) {
  return FunctionRegistry::Instance().Lookup(name) != nullptr || IsSetFunctionName(name);
}

std::vector<FunctionCatalog> Binder::UserFunctionCandidates(const PgQuery__FuncCall* f) const {
  const Catalog* catalog = ctx_.catalog;
  if (!catalog) return {};  // binding stored expressions without a catalog
  std::string name = StringOf(f->funcname[f->n_funcname - 1]);
  if (f->n_funcname >= 2) {
    std::string schema = StringOf(f->funcname[f->n_funcname - 2]);
    if (schema == kPgCatalogSchema) return {};
    auto s = catalog->FindSchema(ctx_.database_id, schema);
    if (!s) return {};
    return catalog->FindFunctions(s->id, name);
  }
  // Along the search path; a signature found in an earlier schema hides
  // the same one further on.
  std::vector<FunctionCatalog> out;
  for (const auto& schema : ExistingSearchPath()) {
    auto s = catalog->FindSchema(ctx_.database_id, schema);
    if (!s) continue;
    for (auto& fn : catalog->FindFunctions(s->id, name)) {
      bool hidden = std::any_of(out.begin(), out.end(), [&](const FunctionCatalog& o) {
        return o.IdentityArguments() == fn.IdentityArguments();
      });
      if (!hidden) out.push_back(std::move(fn));
    }
  }
  return out;
}

const PgQuery__SelectStmt* Binder::ParseFunctionBody(const FunctionCatalog& fn) {
  std::vector<ParsedStatement> stmts = ParseSql(fn.body);
  if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
    throw SqlError(sqlstate::kInternalError, fmt::format("the body of function {} is not one query", fn.name));
  function_bodies_.push_back(stmts[0].tree);
  return stmts[0].node->select_stmt;
}

void Binder::InFunctionBodyContext(const std::function<void()>& bind) {
  struct Saved {
    Binder* b;
    std::vector<std::map<std::string, std::shared_ptr<Cte>>> ctes;
    Scope* lateral;
    bool set_branch;
    const std::string* text;
    std::vector<NameUse>* uses;
    ~Saved() {
      b->cte_stack_ = std::move(ctes);
      b->lateral_left_ = lateral;
      b->set_operation_branch_ = set_branch;
      b->ctx_.query_text = text;
      b->ctx_.name_uses = uses;
      b->ctx_.search_path = std::move(path);
    }
    std::vector<std::string> path;
  } saved{this, std::move(cte_stack_), lateral_left_, set_operation_branch_, ctx_.query_text, ctx_.name_uses,
          ctx_.search_path};
  ctx_.search_path = function_search_path_;
  cte_stack_.clear();
  lateral_left_ = nullptr;
  set_operation_branch_ = false;
  ctx_.query_text = nullptr;  // positions would point into the body
  ctx_.name_uses = nullptr;   // renames follow the statement's text, not the body's
  bind();
}

PlanPtr Binder::BindFunctionBody(const FunctionCatalog& fn, Scope* frame_scope) {
  const PgQuery__SelectStmt* body = ParseFunctionBody(fn);
  PlanPtr plan;
  InFunctionBodyContext([&] { plan = BindSelect(body, frame_scope); });
  return plan;
}

// Whether `e` calls a volatile function (random(), nextval()...).
static bool CallsVolatile(const Expression& e) {
  if (auto* f = dynamic_cast<const FunctionExpr*>(&e); f && IsVolatileFunction(f->function()->name)) return true;
  for (const auto& c : e.children())
    if (CallsVolatile(*c)) return true;
  return false;
}

void Binder::FunctionFrame::CheckVolatileArguments() const {
  for (size_t i = 0; i < args.size() && i < uses.size(); i++)
    if (uses[i] > 1 && CallsVolatile(*args[i]))
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("argument {} of SQL function {} calls a volatile function and its body reads it {} "
                                 "times: it would be computed each time",
                                 i + 1, function->name, uses[i]))
          .WithHint("Compute the argument in a subquery of its own and pass its column.");
}

ExprPtr Binder::ExprBinder::FunctionParameter(Scope* frame_scope, int levels, int index) {
  FunctionFrame* frame = frame_scope->function;
  if (frame->uses.size() < frame->args.size()) frame->uses.resize(frame->args.size());
  frame->uses[size_t(index)]++;
  int lift = levels + frame->lift_delta;
  const Expression& arg = *frame->args[static_cast<size_t>(index)];
  if (lift <= 0) return arg.Clone();
  // The subqueries between here and the call read the calling row.
  Scope* t = scope_->outer;
  for (int i = 0; i < lift && t; i++, t = t->outer) t->referenced_by_subquery = true;
  return Lift(arg.Clone(), lift, frame->function->name);
}

Binder::ExprBinder::SqlFunctionCall Binder::ExprBinder::ResolveSqlFunction(
    const PgQuery__FuncCall* f, const std::vector<FunctionCatalog>& candidates) {
  const std::string name = StringOf(f->funcname[f->n_funcname - 1]);
  if (f->agg_star || f->agg_distinct || f->n_agg_order || f->agg_filter || f->agg_within_group)
    binder_->ThrowAt(sqlstate::kWrongObjectType, f->location,
                     fmt::format("{} is not an aggregate function", name));
  if (f->over)
    binder_->ThrowAt(sqlstate::kWrongObjectType, f->location,
                     fmt::format("OVER specified, but {} is not a window function nor an aggregate function", name));
  // Positional arguments, then named ones (name => value).
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> named;
  for (size_t i = 0; i < f->n_args; i++) {
    const PgQuery__Node* a = f->args[i];
    if (a->node_case == PG_QUERY__NODE__NODE_NAMED_ARG_EXPR) {
      named.emplace_back(a->named_arg_expr->name, Bind(a->named_arg_expr->arg));
      continue;
    }
    if (!named.empty())
      binder_->ThrowAt(sqlstate::kSyntaxError, f->location, "positional argument cannot follow named argument");
    positional.push_back(Bind(a));
  }
  for (size_t i = 0; i < named.size(); i++)
    for (size_t k = 0; k < i; k++)
      if (named[i].first == named[k].first)
        binder_->ThrowAt(sqlstate::kSyntaxError, f->location,
                         fmt::format("argument name \"{}\" used more than once", named[i].first));
  // Each candidate: which argument fills each parameter, and the cost.
  std::optional<FunctionCatalog> best;  // with its polymorphic types resolved
  bool unresolved = false;  // a polymorphic candidate given only untyped literals
  // Per parameter: positional index, named index + n, -1 (its DEFAULT) or
  // kSpread (a VARIADIC parameter taking the positional arguments from its
  // place on).
  constexpr int kSpread = -2;
  std::vector<int> best_slots;
  std::optional<DataType> array_of_arrays;  // a polymorphic VARIADIC given arrays: their type
  int best_cost = -1;
  bool ambiguous = false;
  for (const auto& candidate : candidates) {
    FunctionCatalog fn = candidate;
    const bool variadic = !fn.args.empty() && fn.args.back().mode == 'v';
    // f(..., VARIADIC array) passes the array itself, and only to a
    // VARIADIC parameter; without the keyword, such a parameter takes one
    // or more trailing arguments as its elements (or its DEFAULT).
    if (f->func_variadic && !variadic) continue;
    const size_t last = fn.args.size() - 1;
    const bool spread = variadic && !f->func_variadic && named.empty() && positional.size() >= fn.args.size();
    if (!spread && positional.size() + named.size() > fn.args.size()) continue;
    std::vector<int> slots(fn.args.size(), -1);
    for (size_t i = 0; i < positional.size() && i < fn.args.size(); i++) slots[i] = static_cast<int>(i);
    if (spread) slots[last] = kSpread;
    bool fits = true;
    for (size_t k = 0; k < named.size() && fits; k++) {
      auto it = std::find_if(fn.args.begin(), fn.args.end(), [&](const FunctionArgument& a) { return a.name == named[k].first; });
      size_t p = static_cast<size_t>(it - fn.args.begin());
      if (it == fn.args.end() || slots[p] >= 0) fits = false;
      else slots[p] = static_cast<int>(positional.size() + k);
    }
    // With VARIADIC, the array is the last argument and goes to that
    // parameter.
    if (f->func_variadic && slots[last] != static_cast<int>(positional.size() + named.size() - 1)) fits = false;
    // Without it, a VARIADIC parameter is never given an array whole.
    if (variadic && !f->func_variadic && slots[last] >= 0) fits = false;
    int cost = 0;
    std::vector<DataType> types(fn.args.size(), DataType::Unknown());
    for (size_t p = 0; p < fn.args.size() && fits; p++) {
      if (slots[p] == kSpread) {
        // The elements: each fits the element type (the polymorphic ones
        // share one type: exactly for anyarray, a common one for
        // anycompatiblearray), and resolve the array type.
        const std::string& poly = fn.args[p].polymorphic;
        std::optional<DataType> element;
        for (size_t i = p; i < positional.size() && fits; i++) {
          const DataType& have = positional[i]->type();
          if (poly.empty()) {
            const int c = ArgumentCost(have, fn.args[p].type.ElementType());
            fits = c >= 0;
            cost += c;
          } else if (have.id == TypeId::kUnknown) {
            continue;
          } else if (have.IsArray()) {
            fits = false;  // arrays of arrays
            array_of_arrays = have;
          } else if (!element || *element == have) {
            element = have;
          } else if (poly == "anycompatiblearray" && CommonSuperType(*element, have).id != TypeId::kUnknown) {
            element = CommonSuperType(*element, have);
          } else {
            fits = false;
          }
        }
        if (!poly.empty()) cost += 1;
        types[p] = poly.empty() ? fn.args[p].type : element ? DataType::Array(*element) : DataType::Unknown();
        continue;
      }
      if (slots[p] < 0) {
        fits = !fn.args[p].default_expr.empty();
        continue;
      }
      size_t s = static_cast<size_t>(slots[p]);
      const Expression& e = s < positional.size() ? *positional[s] : *named[s - positional.size()].second;
      types[p] = e.type();
      // A polymorphic parameter fits at the cost of a cast: a concrete
      // overload taking the type exactly is preferred.
      int c = fn.args[p].polymorphic.empty() ? ArgumentCost(e.type(), fn.args[p].type)
                                             : FitsPolymorphic(e.type(), fn.args[p].polymorphic) ? 1 : -1;
      if (c < 0) fits = false;
      cost += c;
    }
    if (!fits || !ResolvePolymorphic(&fn, types, &unresolved)) continue;
    // Between a VARIADIC candidate spread and one that takes the arguments
    // as they are at the same cost, the latter (PostgreSQL's choice).
    cost = cost * 2 + (spread ? 1 : 0);
    if (!best || cost < best_cost) {
      best = std::move(fn);
      best_slots = slots;
      best_cost = cost;
      ambiguous = false;
    } else if (cost == best_cost) {
      ambiguous = true;
    }
  }
  auto signature = [&] {
    std::string types;
    for (const auto& a : positional) types += (types.empty() ? "" : ", ") + a->type().ToString();
    for (const auto& [n, a] : named) types += (types.empty() ? "" : ", ") + n + " => " + a->type().ToString();
    std::string qualified;
    for (size_t i = 0; i < f->n_funcname; i++) qualified += (i ? "." : "") + StringOf(f->funcname[i]);
    return fmt::format("{}({})", qualified, types);
  };
  if (!best && array_of_arrays)
    FRESHET_THROW(sqlstate::kUndefinedObject, "could not find array type for data type {}", array_of_arrays->ToString());
  if (!best && unresolved)
    throw SqlError(sqlstate::kDatatypeMismatch, "could not determine polymorphic type because input has type unknown");
  if (!best)
    throw SqlError(sqlstate::kUndefinedFunction, fmt::format("function {} does not exist", signature()))
        .WithHint("No function matches the given name and argument types. You might need to add explicit type casts.");
  if (ambiguous)
    throw SqlError(sqlstate::kAmbiguousFunction, fmt::format("function {} is not unique", signature()))
        .WithHint("Could not choose a best candidate function. You might need to add explicit type casts.");
  SqlFunctionCall call{*best, {}};
  for (size_t p = 0; p < best->args.size(); p++) {
    const FunctionArgument& param = best->args[p];
    ExprPtr value;
    if (best_slots[p] == kSpread) {
      // The trailing arguments as the VARIADIC array's elements.
      const DataType element = param.type.ElementType();
      std::vector<ExprPtr> elements;
      for (size_t i = p; i < positional.size(); i++) elements.push_back(Coerce(std::move(positional[i]), element));
      value = std::make_unique<ArrayConstructorExpr>(param.type, std::move(elements));
    } else if (best_slots[p] < 0) {
      std::vector<ParsedStatement> parsed = ParseSql("SELECT " + param.default_expr);
      value = binder_->BindConstantExpression(parsed[0].node->select_stmt->target_list[0]->res_target->val);
    } else {
      size_t s = static_cast<size_t>(best_slots[p]);
      value = s < positional.size() ? std::move(positional[s]) : std::move(named[s - positional.size()].second);
    }
    call.args.push_back(Coerce(std::move(value), param.type));
  }
  return call;
}

ExprPtr Binder::ExprBinder::InlineSqlFunction(SqlFunctionCall call, int location) {
  const FunctionCatalog& fn = call.function;
  if (fn.returns_set && scope_ == binder_->select_set_scope_ && scope_->set_functions_allowed &&
      binder_->select_set_functions_) {
    // In a select list: its rows come from a LATERAL join with the FROM
    // items (JoinSelectSetFunctions); the call reads its column there, after
    // the FROM items'.
    if (!fn.table_columns.empty())
      binder_->ThrowAt(sqlstate::kFeatureNotSupported, location,
                       fmt::format("set-returning SQL function {} of several columns in a select list is not "
                                   "supported yet: call it in FROM",
                                   fn.name));
    if (!binder_->select_set_functions_->empty())
      binder_->ThrowAt(sqlstate::kFeatureNotSupported, location,
                       "more than one set-returning SQL function in a select list is not supported yet: call them in "
                       "FROM");
    const int column = int(scope_->columns.size());
    DataType type = fn.return_type;
    binder_->select_set_functions_->push_back({fn, std::move(call.args), location});
    return std::make_unique<ColumnRefExpr>(column, type, fn.name);
  }
  if (fn.returns_set)
    binder_->ThrowAt(sqlstate::kFeatureNotSupported, location,
                     fmt::format("set-returning SQL function {} is not supported here: in FROM or a select list",
                                 fn.name));
  InliningGuard inlining(binder_, fn);
  const bool record = fn.ReturnsOneRecord();
  const DataType result_type = record ? RecordType(fn) : fn.return_type;
  if (!binder_->ctx_.bind_function_bodies) return std::make_unique<ConstantExpr>(Value::Null(result_type));

  // STRICT: NULL when any argument is (the argument values, before the
  // body reads them).
  std::vector<ExprPtr> null_checks;
  if (fn.strict)
    for (const auto& a : call.args) {
      if (a->IsConstant() && !static_cast<const ConstantExpr&>(*a).value().is_null()) continue;
      std::vector<ExprPtr> one;
      one.push_back(a->Clone());
      null_checks.push_back(std::make_unique<OperatorExpr>(Expression::Kind::kIsNull, DataType::Boolean(), std::move(one)));
    }

  FunctionFrame frame{&fn, std::move(call.args), /*lift_delta=*/0, {}};
  frame.uses.assign(frame.args.size(), fn.strict ? 1 : 0);  // STRICT's NULL test reads each once
  // The frame's scope stands for the call's level (its expression is
  // evaluated on the calling row; a subquery body is nested below it).
  Scope frame_scope;
  frame_scope.outer = scope_->outer;
  frame_scope.function = &frame;
  frame_scope.clause = "SQL function bodies";
  const PgQuery__SelectStmt* body = binder_->ParseFunctionBody(fn);
  ExprPtr value;
  if (record) {
    value = InlineRecordBody(fn, body, &frame, &frame_scope);
  } else if (IsExpressionBody(body)) {
    try {
      binder_->InFunctionBodyContext(
          [&] { value = ExprBinder(binder_, &frame_scope).Bind(body->target_list[0]->res_target->val); });
    } catch (const SqlError& e) {
      // An aggregate or set-returning function in the expression: the body
      // is a query of one row after all (SELECT count(*)).
      if (std::string(e.code()) != sqlstate::kGroupingError && std::string(e.code()) != sqlstate::kFeatureNotSupported)
        throw;
      value = nullptr;
    }
  }
  if (!value) {
    frame_scope.referenced_by_subquery = false;
    frame.uses.assign(frame.args.size(), fn.strict ? 1 : 0);  // the expression attempt's reads do not count
    PlanPtr plan = binder_->BindFunctionBody(fn, &frame_scope);
    if (plan->schema().size() != 1)
      throw SqlError(kInvalidFunctionDefinition,
                     fmt::format("return type mismatch in function declared to return {}", fn.return_type.ToString()))
          .WithDetail("Final statement must return exactly one column.");
    bool correlated = frame_scope.referenced_by_subquery;
    if (correlated && scope_) scope_->referenced_by_subquery = true;
    // The first row (PostgreSQL's SQL functions take it, whatever follows).
    if (!AtMostOneRow(*plan)) plan = std::make_unique<LimitNode>(std::move(plan), 1, 0);
    DataType t = plan->schema()[0].type;
    value = std::make_unique<SubqueryExpr>(SubqueryKind::kScalar, std::move(plan), t, correlated);
  }
  frame.CheckVolatileArguments();
  if (!record && !(value->type() == fn.return_type)) {
    CheckFunctionResultType(fn, value->type(), fn.return_type);
    value = CoerceForAssignment(std::move(value), fn.return_type, fn.name);
  }
  if (null_checks.empty()) return value;
  ExprPtr any_null = std::move(null_checks[0]);
  for (size_t i = 1; i < null_checks.size(); i++) {
    std::vector<ExprPtr> both;
    both.push_back(std::move(any_null));
    both.push_back(std::move(null_checks[i]));
    any_null = std::make_unique<OperatorExpr>(Expression::Kind::kOr, DataType::Boolean(), std::move(both));
  }
  std::vector<ExprPtr> c;
  c.push_back(std::move(any_null));
  c.push_back(std::make_unique<ConstantExpr>(Value::Null(result_type)));
  c.push_back(std::move(value));
  return std::make_unique<CaseExpr>(result_type, std::move(c), /*has_else=*/true);
}

ExprPtr Binder::ExprBinder::InlineRecordBody(const FunctionCatalog& fn, const PgQuery__SelectStmt* body,
                                             FunctionFrame* frame, Scope* frame_scope) {
  const size_t n = fn.table_columns.size();
  auto column_count_error = [&](size_t have) {
    return SqlError(kInvalidFunctionDefinition, "return type mismatch in function declared to return record")
        .WithDetail(have > n ? "Final statement has too many columns." : "Final statement has too few columns.");
  };
  // Each result column, coerced to its OUT parameter's type.
  auto coerced = [&](ExprPtr e, size_t i) {
    const DataType& want = fn.table_columns[i].second;
    if (e->type() == want) return e;
    CheckFunctionResultType(fn, e->type(), want);
    return CoerceForAssignment(std::move(e), want, fn.name);
  };
  if (IsExpressionBody(body, n)) {
    // SELECT a + 1, 'x': the row of those expressions.
    std::vector<ExprPtr> fields;
    binder_->InFunctionBodyContext([&] {
      for (size_t i = 0; i < n; i++)
        fields.push_back(coerced(ExprBinder(binder_, frame_scope).Bind(body->target_list[i]->res_target->val), i));
    });
    return std::make_unique<StructConstructorExpr>(RecordType(fn), std::move(fields));
  }
  // A query: the row of its first row's columns (NULL without one), a
  // scalar subquery.
  frame_scope->referenced_by_subquery = false;
  frame->uses.assign(frame->args.size(), fn.strict ? 1 : 0);
  PlanPtr plan = binder_->BindFunctionBody(fn, frame_scope);
  if (plan->schema().size() != n) throw column_count_error(plan->schema().size());
  std::vector<ExprPtr> fields;
  for (size_t i = 0; i < n; i++)
    fields.push_back(coerced(std::make_unique<ColumnRefExpr>(int(i), plan->schema()[i].type, plan->schema()[i].name), i));
  std::vector<ExprPtr> row;
  row.push_back(std::make_unique<StructConstructorExpr>(RecordType(fn), std::move(fields)));
  plan = std::make_unique<ProjectNode>(std::move(plan), std::move(row),
                                       std::vector<PlanColumn>{{fn.name, RecordType(fn), ""}});
  if (!AtMostOneRow(*plan)) plan = std::make_unique<LimitNode>(std::move(plan), 1, 0);
  const bool correlated = frame_scope->referenced_by_subquery;
  if (correlated && scope_) scope_->referenced_by_subquery = true;
  return std::make_unique<SubqueryExpr>(SubqueryKind::kScalar, std::move(plan), RecordType(fn), correlated);
}

PlanPtr Binder::BindSqlTableFunction(const PgQuery__RangeFunction* rf, const PgQuery__FuncCall* fc,
                                     const std::vector<FunctionCatalog>& candidates, Scope* outer, Scope* scope) {
  const std::string name = StringOf(fc->funcname[fc->n_funcname - 1]);
  if (rf->ordinality)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   fmt::format("WITH ORDINALITY over SQL function {} is not supported yet", name));
  // Bound first as reading the items on its left; again without them when
  // its arguments read none (lateral_left_ stays set: joined as usual).
  Scope* lateral = lateral_left_;
  lateral_left_ = nullptr;
  Scope* arg_outer = lateral ? lateral : outer;
  auto resolve = [&](Scope* over) {
    Scope args_scope;
    args_scope.outer = over;
    args_scope.clause = "functions in FROM";
    return ExprBinder(this, &args_scope).ResolveSqlFunction(fc, candidates);
  };
  ExprBinder::SqlFunctionCall call = resolve(arg_outer);
  if (lateral && std::none_of(call.args.begin(), call.args.end(), [](const ExprPtr& a) { return HasOuterReference(*a); })) {
    lateral_left_ = lateral;
    arg_outer = outer;
    call = resolve(arg_outer);
  }
  PlanPtr plan = BindSqlTableFunctionBody(call.function, std::move(call.args), arg_outer);
  const std::string alias = rf->alias ? rf->alias->aliasname : name;
  auto& schema = plan->mutable_schema();
  for (size_t i = 0; i < schema.size(); i++) {
    // A scalar result's column, or a one-column table's, takes the alias.
    if (rf->alias && i < rf->alias->n_colnames) schema[i].name = StringOf(rf->alias->colnames[i]);
    else if (rf->alias && schema.size() == 1) schema[i].name = alias;
    schema[i].table = alias;
  }
  scope->Append(schema);
  return plan;
}

PlanPtr Binder::BindSqlTableFunctionBody(const FunctionCatalog& fn, std::vector<ExprPtr> args, Scope* arg_outer) {
  InliningGuard inlining(this, fn);
  std::vector<std::pair<std::string, DataType>> columns = fn.table_columns;
  if (columns.empty()) columns.emplace_back(fn.name, fn.return_type);
  if (!ctx_.bind_function_bodies) {
    std::vector<PlanColumn> schema;
    for (const auto& [name, type] : columns) schema.push_back(PlanColumn{name, type, ""});
    return std::make_unique<ValuesNode>(std::move(schema), std::vector<std::vector<ExprPtr>>{});
  }
  FunctionFrame frame{&fn, std::move(args), /*lift_delta=*/-1, {}};
  // The frame's scope stands for the level the arguments read as outer
  // (the items on the left, or the enclosing query): the body is a
  // subquery in FROM one level below it, as the arguments are.
  Scope frame_scope;
  frame_scope.outer = arg_outer ? arg_outer->outer : nullptr;
  frame_scope.function = &frame;
  PlanPtr plan = BindFunctionBody(fn, &frame_scope);
  frame.CheckVolatileArguments();
  if (plan->schema().size() != columns.size())
    throw SqlError(kInvalidFunctionDefinition,
                   fmt::format("return type mismatch in function declared to return {}",
                               fn.table_columns.empty() ? fn.return_type.ToString() : "record"))
        .WithDetail(plan->schema().size() > columns.size() ? "Final statement has too many columns."
                                                            : "Final statement has too few columns.");
  std::vector<DataType> types;
  for (size_t i = 0; i < columns.size(); i++) {
    CheckFunctionResultType(fn, plan->schema()[i].type, columns[i].second);
    types.push_back(columns[i].second);
  }
  plan = CoerceColumns(std::move(plan), types, /*assignment=*/true);
  auto& schema = plan->mutable_schema();
  for (size_t i = 0; i < schema.size(); i++) schema[i].name = columns[i].first;
  return plan;
}

void Binder::CheckSqlFunctionBody(const FunctionCatalog& fn) {
  std::vector<ExprPtr> args;
  for (const auto& a : fn.args) args.push_back(std::make_unique<ConstantExpr>(Value::Null(a.type)));
  if (fn.returns_set) {
    BindSqlTableFunctionBody(fn, std::move(args), nullptr);
    return;
  }
  Scope top;
  top.clause = "SQL function bodies";
  ExprBinder(this, &top).InlineSqlFunction({fn, std::move(args)}, -1);
}

}  // namespace freshet
