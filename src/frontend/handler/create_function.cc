// CREATE [OR REPLACE] FUNCTION ... LANGUAGE sql and DROP FUNCTION.
//
// A SQL function is kept as its signature and its body, one query
// (catalog FunctionCatalog); calls are inlined by the binder
// (binder/sql_function_binder.cc). The body is checked at CREATE as
// PostgreSQL's check_function_bodies does: bound with its parameters, its
// result fitting the declared one (42P13); with check_function_bodies off
// (pg_dump's restores) only a RETURN or BEGIN ATOMIC body is. The body forms: AS 'query' (or
// $$query$$), RETURN expr, BEGIN ATOMIC query; END. What is not supported
// is refused with 0A000 naming it: other languages, procedures,
// polymorphic types other than anyelement, anyarray, anynonarray,
// anycompatible and anycompatiblearray, bodies that are not one query. OUT
// and INOUT parameters make the result: one is its value, more a record's
// columns. A VARIADIC parameter (the last input, an array) takes a call's
// trailing arguments as its elements.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <set>

#include "binder/binder.h"
#include "catalog/pg_catalog.h"
#include "common/error.h"
#include "expr/cast.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "sql/query_clauses.h"

namespace freshet {

namespace {

constexpr const char* kInvalidFunctionDefinition = "42P13";

bool IsPolymorphic(const PgQuery__TypeName* t) {
  if (!t || t->n_names == 0) return false;
  std::string name = StringOf(t->names[t->n_names - 1]);
  return name.rfind("any", 0) == 0 || name == "record" || name == "void" || name == "internal" ||
         name == "trigger" || name == "cstring";
}

// The polymorphic pseudo-type a SQL function may take and return (the
// binder resolves it at each call), or "".
std::string SupportedPolymorphic(const PgQuery__TypeName* t) {
  if (!t || t->n_names == 0 || t->n_array_bounds) return "";
  std::string name = StringOf(t->names[t->n_names - 1]);
  return PolymorphicTypeOid(name) ? name : "";
}

bool IsCompatibleFamily(const std::string& polymorphic) { return polymorphic.rfind("anycompatible", 0) == 0; }

// The body's one query, deparsed: what the binder parses again at each call.
// A string body holding a clause the deparser has no place for
// (sql/query_clauses.h) is kept as written.
std::string BodyQuery(const PgQuery__Node* query, const std::string* as_written = nullptr) {
  if (query->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "SQL functions whose body is not a query (INSERT, UPDATE, DELETE, DDL...) are not supported: "
                   "the body must be one SELECT");
  if (as_written && HasAnnotations(const_cast<ProtobufCMessage*>(&query->base))) return *as_written;
  return Deparse(query);
}

struct Body {
  std::string query;   // one SELECT
  std::string source;  // pg_proc.prosrc: the AS string ("" for RETURN / BEGIN ATOMIC)
};

Body FunctionBody(const PgQuery__CreateFunctionStmt* s, const std::string& as) {
  if (s->sql_body) {
    const PgQuery__Node* b = s->sql_body;
    if (b->node_case == PG_QUERY__NODE__NODE_RETURN_STMT)
      return {"SELECT " + DeparseExpression(b->return_stmt->returnval), ""};
    // BEGIN ATOMIC ... END: a list holding the list of statements.
    const PgQuery__List* outer = b->node_case == PG_QUERY__NODE__NODE_LIST ? b->list : nullptr;
    const PgQuery__List* stmts = outer && outer->n_items == 1 && outer->items[0]->node_case == PG_QUERY__NODE__NODE_LIST
                                     ? outer->items[0]->list
                                     : outer;
    if (!stmts || stmts->n_items != 1)
      throw SqlError(sqlstate::kFeatureNotSupported,
                     "SQL functions with other than one statement in BEGIN ATOMIC are not supported");
    return {BodyQuery(stmts->items[0]), ""};
  }
  std::vector<ParsedStatement> stmts = ParseSql(as);
  if (stmts.size() != 1 || !stmts[0].node)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "SQL functions whose body is not exactly one statement are not supported");
  return {BodyQuery(stmts[0].node, &stmts[0].text), as};
}

// The function the statement's name and argument types denote; 42883 (or
// none, with missing_ok) when there is none, 42725 when the name alone
// names several.
std::optional<FunctionCatalog> FindFunction(const HandlerArgs& args, Binder& binder, const PgQuery__ObjectWithArgs* o) {
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<std::string> names = NameParts(o->objname, o->n_objname);
  std::vector<ObjectId> schemas;
  if (names.size() > 1) {
    auto s = catalog->FindSchema(args.session->database().id, names[names.size() - 2]);
    if (!s) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", names[names.size() - 2]);
    schemas.push_back(s->id);
  } else {
    for (const auto& schema : binder.ExistingSearchPath())
      if (auto s = catalog->FindSchema(args.session->database().id, schema)) schemas.push_back(s->id);
  }
  // The argument types as declared: a type's name ("integer"), or a
  // polymorphic pseudo-type's.
  std::vector<std::string> wanted;
  for (size_t i = 0; i < o->n_objargs; i++) {
    const std::string polymorphic = SupportedPolymorphic(o->objargs[i]->type_name);
    wanted.push_back(polymorphic.empty() ? binder.BindTypeName(o->objargs[i]->type_name).ToString() : polymorphic);
  }
  std::vector<FunctionCatalog> found;
  for (ObjectId schema : schemas) {
    for (auto& f : catalog->FindFunctions(schema, names.back())) {
      if (!o->args_unspecified) {
        std::vector<std::string> have;
        for (const auto& a : f.args) have.push_back(a.TypeName());
        if (have != wanted) continue;
      }
      found.push_back(std::move(f));
    }
    if (!found.empty()) break;
  }
  if (found.size() > 1)
    throw SqlError(sqlstate::kAmbiguousFunction, fmt::format("function name \"{}\" is not unique", JoinNameParts(names)))
        .WithHint("Specify the argument list to select the function unambiguously.");
  if (found.empty()) return std::nullopt;
  return found[0];
}

std::string MissingFunctionMessage(const PgQuery__ObjectWithArgs* o, Binder& binder) {
  std::string name = JoinNameParts(NameParts(o->objname, o->n_objname));
  if (o->args_unspecified) return fmt::format("could not find a function named \"{}\"", name);
  std::string types;
  for (size_t i = 0; i < o->n_objargs; i++) {
    const std::string polymorphic = SupportedPolymorphic(o->objargs[i]->type_name);
    types += (i ? ", " : "") +
             (polymorphic.empty() ? binder.BindTypeName(o->objargs[i]->type_name).ToString() : polymorphic);
  }
  return fmt::format("function {}({}) does not exist", name, types);
}

// 42501 unless the session's user owns the function or is a superuser.
void CheckOwnerOfFunction(const HandlerArgs& args, const FunctionCatalog& fn) {
  auto user = args.session->catalog()->FindUser(args.session->user());
  if (user && (user->superuser || user->id == fn.owner)) return;
  FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of function {}", fn.name);
}

}  // namespace

StatementOutcome HandleCreateFunction(const HandlerArgs& args) {
  const PgQuery__CreateFunctionStmt* s = args.stmt.node->create_function_stmt;
  Session* session = args.session;
  Catalog* catalog = session->DdlCatalog();
  if (s->is_procedure) throw SqlError(sqlstate::kFeatureNotSupported, "CREATE PROCEDURE is not supported yet");
  // A RETURN or BEGIN ATOMIC body depends on the functions it calls (and
  // so do DEFAULTs), as PostgreSQL records it.
  std::vector<ObjectId> called;
  BinderContext bctx = session->BinderContextFor(args.stmt, nullptr);
  if (s->sql_body) bctx.referenced_functions = &called;
  Binder binder(bctx);
  std::vector<std::string> names = NameParts(s->funcname, s->n_funcname);
  FunctionCatalog fn;
  fn.database_id = session->database().id;
  fn.schema_id = binder.ResolveSchemaId(names.size() > 1 ? names[names.size() - 2].c_str() : nullptr);
  fn.name = names.back();
  fn.owner = catalog->FindUser(session->user())->id;

  // Options.
  std::string language, as;
  bool volatility_set = false, strict_set = false;
  for (size_t i = 0; i < s->n_options; i++) {
    const PgQuery__DefElem* d = s->options[i]->def_elem;
    std::string opt = d->defname;
    if (opt == "language") {
      language = DefElemText(d);
    } else if (opt == "as") {
      if (d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_LIST) {
        const PgQuery__List* l = d->arg->list;
        if (l->n_items != 1)
          throw SqlError(kInvalidFunctionDefinition, "only one AS item needed for language \"sql\"");
        as = StringOf(l->items[0]);
      } else {
        as = DefElemText(d);
      }
    } else if (opt == "volatility") {
      if (volatility_set) throw SqlError(sqlstate::kSyntaxError, "conflicting or redundant options");
      volatility_set = true;
      std::string v = DefElemText(d);
      fn.volatility = v == "immutable" ? 'i' : v == "stable" ? 's' : 'v';
    } else if (opt == "strict") {
      if (strict_set) throw SqlError(sqlstate::kSyntaxError, "conflicting or redundant options");
      strict_set = true;
      fn.strict = DefElemText(d) == "true";
    } else if (opt == "window") {
      throw SqlError(sqlstate::kFeatureNotSupported, "window functions written in SQL are not supported");
    } else if (opt == "set") {
      throw SqlError(sqlstate::kFeatureNotSupported, "SET clauses of SQL functions are not supported yet");
    } else if (opt == "security" || opt == "leakproof" || opt == "parallel" || opt == "cost" || opt == "rows" ||
               opt == "support") {
      // Planner hints and privileges' context: nothing here depends on them.
    } else {
      throw SqlError(sqlstate::kFeatureNotSupported, fmt::format("option {} of CREATE FUNCTION is not supported", opt));
    }
  }
  if (language.empty() && s->sql_body) language = "sql";
  if (language.empty()) throw SqlError(kInvalidFunctionDefinition, "no language specified");
  if (language != "sql") {
    if (language == "plpgsql" || language == "c" || language == "internal" || language == "python" ||
        language == "javascript" || language == "plpython3u")
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("functions in language \"{}\" are not supported: only LANGUAGE sql", language));
    FRESHET_THROW(sqlstate::kUndefinedObject, "language \"{}\" does not exist", language);
  }
  if (!s->sql_body && as.empty() && !std::any_of(s->options, s->options + s->n_options, [](const PgQuery__Node* o) {
        return std::string(o->def_elem->defname) == "as";
      }))
    throw SqlError(kInvalidFunctionDefinition, "no function body specified");

  // Parameters, and the columns of RETURNS TABLE.
  std::vector<std::pair<std::string, DataType>> outputs;  // OUT and INOUT parameters
  bool seen_default = false;
  std::set<std::string> names_seen;
  for (size_t i = 0; i < s->n_parameters; i++) {
    const PgQuery__FunctionParameter* p = s->parameters[i]->function_parameter;
    const std::string polymorphic = SupportedPolymorphic(p->arg_type);
    if (IsPolymorphic(p->arg_type) && polymorphic.empty())
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("SQL functions with parameters of type {} are not supported yet",
                                 StringOf(p->arg_type->names[p->arg_type->n_names - 1])));
    const bool variadic = p->mode == PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_VARIADIC;
    if (!polymorphic.empty() && p->mode != PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_IN &&
        p->mode != PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_DEFAULT && !variadic)
      throw SqlError(sqlstate::kFeatureNotSupported, "polymorphic OUT, INOUT and TABLE parameters of SQL functions are not supported yet");
    DataType type;
    try {
      type = polymorphic.empty() ? binder.BindTypeName(p->arg_type) : DataType::Unknown();
    } catch (const SqlError& e) {
      // PostgreSQL's wording for a parameter's type.
      if (std::string(e.code()) != sqlstate::kUndefinedObject) throw;
      std::string written;
      for (size_t k = 0; k < p->arg_type->n_names; k++) written += (k ? "." : "") + StringOf(p->arg_type->names[k]);
      FRESHET_THROW(sqlstate::kUndefinedObject, "type {} does not exist", written);
    }
    if (p->arg_type->setof) throw SqlError(kInvalidFunctionDefinition, "functions cannot accept set arguments");
    std::string pname = p->name ? p->name : "";
    if (!pname.empty() && !names_seen.insert(pname).second)
      FRESHET_THROW(kInvalidFunctionDefinition, "parameter name \"{}\" used more than once", pname);
    switch (p->mode) {
      case PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_TABLE:
        fn.table_columns.emplace_back(pname, type);
        fn.returns_table = true;
        continue;
      case PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_OUT:
        if (p->defexpr) throw SqlError(kInvalidFunctionDefinition, "only input parameters can have default values");
        fn.params.push_back(FunctionArgument{pname, type, "", 'o'});
        // An unnamed output is columnN, N its place among the outputs (PostgreSQL's names).
        outputs.emplace_back(pname.empty() ? fmt::format("column{}", outputs.size() + 1) : pname, type);
        continue;
      case PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_INOUT:
        outputs.emplace_back(pname.empty() ? fmt::format("column{}", outputs.size() + 1) : pname, type);
        break;
      case PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_VARIADIC:
        // The last input parameter, an array: a call's trailing arguments
        // become its elements (ResolveSqlFunction).
        if (polymorphic.empty() ? !type.IsArray() : polymorphic != "anyarray" && polymorphic != "anycompatiblearray")
          throw SqlError(kInvalidFunctionDefinition, "VARIADIC parameter must be an array");
        break;
      default: break;
    }
    if (!fn.args.empty() && fn.args.back().mode == 'v')
      throw SqlError(kInvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter");
    FunctionArgument arg{pname, type, "",
                         p->mode == PG_QUERY__FUNCTION_PARAMETER_MODE__FUNC_PARAM_INOUT ? 'b' : variadic ? 'v' : 'i',
                         polymorphic};
    if (p->defexpr && !polymorphic.empty())
      throw SqlError(sqlstate::kFeatureNotSupported, "DEFAULT of a polymorphic parameter is not supported yet");
    if (p->defexpr) {
      seen_default = true;
      ExprPtr value = binder.BindConstantExpression(p->defexpr);
      if (!(value->type() == type) && value->type().id != TypeId::kUnknown && !CanAssignmentCast(value->type(), type))
        throw SqlError(sqlstate::kDatatypeMismatch,
                       fmt::format("argument of DEFAULT must be type {}, not type {}", type.ToString(), value->type().ToString()));
      arg.default_expr = DeparseExpression(p->defexpr);
    } else if (seen_default) {
      throw SqlError(kInvalidFunctionDefinition, "input parameters after one with a default value must also have defaults");
    }
    fn.params.push_back(arg);
    fn.args.push_back(std::move(arg));
  }
  if (fn.args.size() > 100) throw SqlError("54023", "functions cannot have more than 100 arguments");
  if (outputs.empty()) fn.params.clear();  // only kept to show OUT and INOUT parameters (args hold VARIADIC's mode)
  if (!outputs.empty() && fn.returns_table)
    throw SqlError(kInvalidFunctionDefinition, "OUT and INOUT arguments aren't allowed in TABLE functions");

  // The result.
  if (!outputs.empty()) {
    // OUT parameters: one is the result, more are a record's columns
    // (RETURNS, when given, must say so: PostgreSQL's 42P13).
    const PgQuery__TypeName* rt = s->return_type;
    const std::string declared = rt && rt->n_names ? StringOf(rt->names[rt->n_names - 1]) : "";
    fn.returns_set = rt && rt->setof;
    if (outputs.size() == 1) {
      fn.return_type = outputs[0].second;
      if (rt && !(binder.BindTypeName(rt) == fn.return_type))
        FRESHET_THROW(kInvalidFunctionDefinition, "function result type must be {} because of OUT parameters",
                      fn.return_type.ToString());
    } else {
      if (rt && declared != "record") throw SqlError(kInvalidFunctionDefinition, "function result type must be record because of OUT parameters");
      fn.table_columns = outputs;
      fn.return_type = DataType::Varchar();  // record: the columns are table_columns
    }
  } else if (fn.returns_table) {
    fn.returns_set = true;
    fn.return_type = DataType::Varchar();  // record: the columns are table_columns
  } else if (!s->return_type) {
    throw SqlError(sqlstate::kFeatureNotSupported, "SQL functions without RETURNS are not supported yet");
  } else {
    const PgQuery__TypeName* rt = s->return_type;
    fn.returns_set = rt->setof;
    std::string type_name = rt->n_names ? StringOf(rt->names[rt->n_names - 1]) : "";
    TableRef relation;
    if (rt->n_names && rt->n_array_bounds == 0 && !binder.FindTypeInSearchPath(type_name)) {
      PgQuery__RangeVar rv = PG_QUERY__RANGE_VAR__INIT;
      rv.relname = const_cast<char*>(type_name.c_str());
      std::string schema_name = rt->n_names >= 2 ? StringOf(rt->names[rt->n_names - 2]) : "";
      if (!schema_name.empty() && schema_name != "pg_catalog") rv.schemaname = const_cast<char*>(schema_name.c_str());
      if (schema_name != "pg_catalog") relation = binder.ResolveRelation(&rv, /*missing_ok=*/true);
    }
    if (relation) {
      // A relation's row type: its columns.
      if (!fn.returns_set)
        throw SqlError(sqlstate::kFeatureNotSupported, "SQL functions returning one row of a table are not supported yet")
            .WithHint("Declare it RETURNS SETOF " + type_name + ".");
      for (const auto& c : relation->columns)
        if (!c.hidden) fn.table_columns.emplace_back(c.name, c.type);
      fn.relation_deps.push_back(relation->id);
      fn.return_type = DataType::Varchar();
    } else if (std::string polymorphic = SupportedPolymorphic(rt); !polymorphic.empty()) {
      // Resolved at each call from the arguments of its family.
      const bool found = std::any_of(fn.args.begin(), fn.args.end(), [&](const FunctionArgument& a) {
        return !a.polymorphic.empty() && IsCompatibleFamily(a.polymorphic) == IsCompatibleFamily(polymorphic);
      });
      if (!found)
        throw SqlError(kInvalidFunctionDefinition, "cannot determine result data type")
            .WithDetail(fmt::format("A result of type {} requires at least one input of type {}.", polymorphic,
                                    IsCompatibleFamily(polymorphic)
                                        ? "anycompatible, anycompatiblearray, anycompatiblenonarray, or anycompatiblerange"
                                        : "anyelement, anyarray, anynonarray, anyenum, or anyrange"));
      fn.polymorphic_result = polymorphic;
      fn.return_type = DataType::Unknown();
    } else {
      if (IsPolymorphic(rt))
        throw SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("SQL functions returning {} are not supported yet", type_name));
      fn.return_type = binder.BindTypeName(rt);
    }
  }
  Body body = FunctionBody(s, as);
  fn.body = body.query;
  fn.source = body.source;
  // check_function_bodies = off (pg_dump's restores: a body may read a
  // table created after it) leaves a body given AS a string unchecked until
  // it is called; a RETURN or BEGIN ATOMIC body is always checked.
  // A polymorphic function's body is bound at each call, with the types
  // the call resolves.
  const bool polymorphic = std::any_of(fn.args.begin(), fn.args.end(),
                                       [](const FunctionArgument& a) { return !a.polymorphic.empty(); });
  if (!polymorphic && (s->sql_body || args.session->variables().Get("check_function_bodies") != "off"))
    binder.CheckSqlFunctionBody(fn);
  std::sort(called.begin(), called.end());
  called.erase(std::unique(called.begin(), called.end()), called.end());
  fn.function_deps = called;

  // An existing one of the same signature: replaced with OR REPLACE.
  for (const auto& old : catalog->FindFunctions(fn.schema_id, fn.name)) {
    if (old.IdentityArguments() != fn.IdentityArguments()) continue;
    if (!s->replace)
      FRESHET_THROW("42723", "function \"{}\" already exists with same argument types", fn.name);
    bool same_result = old.returns_set == fn.returns_set && old.return_type == fn.return_type &&
                       old.polymorphic_result == fn.polymorphic_result &&
                       old.table_columns == fn.table_columns && old.returns_table == fn.returns_table;
    if (!same_result)
      throw SqlError(kInvalidFunctionDefinition, "cannot change return type of existing function")
          .WithHint(fmt::format("Use DROP FUNCTION {}({}) first.", fn.name, fn.IdentityArguments()));
    for (size_t i = 0; i < old.args.size(); i++)
      if (!old.args[i].name.empty() && old.args[i].name != fn.args[i].name)
        throw SqlError(kInvalidFunctionDefinition, fmt::format("cannot change name of input parameter \"{}\"", old.args[i].name))
            .WithHint(fmt::format("Use DROP FUNCTION {}({}) first.", fn.name, fn.IdentityArguments()));
    // A stream job inlined the old body: it would go on computing it.
    for (const auto& dep : catalog->FunctionDependents(old.id))
      if (IsStreamJob(*dep))
        throw SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("cannot replace function {}: {} {} computes it", fn.name, RelationKindName(dep->kind),
                                   dep->name))
            .WithHint("A materialized view keeps the body it was created with; drop it, replace the function, and create it again.");
    CheckOwnerOfFunction(args, old);
    fn.id = old.id;
    fn.owner = old.owner;
    fn.comment = old.comment;
    catalog->ReplaceFunction(fn);
    return {"CREATE FUNCTION"};
  }
  catalog->CreateFunction(std::move(fn));
  return {"CREATE FUNCTION"};
}

StatementOutcome HandleDropFunction(const HandlerArgs& args) {
  const PgQuery__DropStmt* d = args.stmt.node->drop_stmt;
  if (d->remove_type != PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION)
    throw SqlError(sqlstate::kFeatureNotSupported, "DROP PROCEDURE and DROP ROUTINE are not supported yet");
  const bool cascade = d->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  // Every name first: a missing one fails the statement before anything goes.
  std::vector<FunctionCatalog> dropped;
  for (size_t i = 0; i < d->n_objects; i++) {
    const PgQuery__ObjectWithArgs* o = d->objects[i]->object_with_args;
    std::optional<FunctionCatalog> fn = FindFunction(args, binder, o);
    if (!fn) {
      if (!d->missing_ok) throw SqlError(sqlstate::kUndefinedFunction, MissingFunctionMessage(o, binder));
      args.sink->Notice(MissingFunctionMessage(o, binder) + ", skipping");
      continue;
    }
    CheckOwnerOfFunction(args, *fn);
    dropped.push_back(std::move(*fn));
  }
  DropFunctions(args, std::move(dropped), cascade, {});
  return {"DROP FUNCTION"};
}

StatementOutcome HandleAlterFunction(const HandlerArgs& args) {
  const PgQuery__Node* node = args.stmt.node;
  Catalog* catalog = args.session->DdlCatalog();
  Binder binder(args.session->BinderContextFor(args.stmt, nullptr));
  auto need = [&](const PgQuery__Node* object) {
    const PgQuery__ObjectWithArgs* o = object->object_with_args;
    std::optional<FunctionCatalog> fn = FindFunction(args, binder, o);
    if (!fn) throw SqlError(sqlstate::kUndefinedFunction, MissingFunctionMessage(o, binder));
    CheckOwnerOfFunction(args, *fn);
    return *fn;
  };
  // Views keep the name they call a function by: renaming or moving one
  // that a view or a job calls would leave them naming another.
  auto check_unused = [&](const FunctionCatalog& fn, const char* what) {
    for (const auto& dep : catalog->FunctionDependents(fn.id))
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("cannot {} function {}: {} {} calls it", what, fn.name, RelationKindName(dep->kind),
                                 dep->name))
          .WithHint("Drop what calls it first (DROP FUNCTION ... CASCADE), or create a new function.");
    for (const auto& dep : catalog->FunctionsDependingOn(fn.id))
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("cannot {} function {}: function {} calls it", what, fn.name, dep.name));
  };
  // The function's signature must be free where it goes (42723).
  auto check_free = [&](const FunctionCatalog& moved) {
    for (const auto& other : catalog->FindFunctions(moved.schema_id, moved.name))
      if (other.id != moved.id && other.IdentityArguments() == moved.IdentityArguments()) {
        auto schema = catalog->GetSchema(moved.schema_id);
        FRESHET_THROW("42723", "function {}({}) already exists in schema \"{}\"", moved.name,
                      moved.IdentityArguments(), schema ? schema->name : "?");
      }
  };
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT: {
      FunctionCatalog fn = need(node->alter_owner_stmt->object);
      const PgQuery__RoleSpec* role = node->alter_owner_stmt->newowner;
      std::string owner = role->rolename && *role->rolename ? role->rolename : args.session->user();
      auto user = catalog->FindUser(owner);
      if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", owner);
      fn.owner = user->id;
      catalog->ReplaceFunction(fn);
      return {"ALTER FUNCTION"};
    }
    case PG_QUERY__NODE__NODE_RENAME_STMT: {
      FunctionCatalog fn = need(node->rename_stmt->object);
      check_unused(fn, "rename");
      fn.name = node->rename_stmt->newname;
      check_free(fn);
      catalog->ReplaceFunction(fn);
      return {"ALTER FUNCTION"};
    }
    case PG_QUERY__NODE__NODE_ALTER_OBJECT_SCHEMA_STMT: {
      FunctionCatalog fn = need(node->alter_object_schema_stmt->object);
      check_unused(fn, "move");
      fn.schema_id = binder.ResolveSchemaId(node->alter_object_schema_stmt->newschema);
      check_free(fn);
      catalog->ReplaceFunction(fn);
      return {"ALTER FUNCTION"};
    }
    case PG_QUERY__NODE__NODE_COMMENT_STMT: {
      FunctionCatalog fn = need(node->comment_stmt->object);
      fn.comment = node->comment_stmt->comment ? node->comment_stmt->comment : "";
      catalog->ReplaceFunction(fn);
      return {"COMMENT"};
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "this ALTER FUNCTION is not supported");
}

void DropFunctions(const HandlerArgs& args, std::vector<FunctionCatalog> functions, bool cascade,
                   const std::set<ObjectId>& relations_dropped) {
  Catalog* catalog = args.session->DdlCatalog();
  std::set<ObjectId> seen;
  for (const auto& fn : functions) seen.insert(fn.id);
  std::vector<TableRef> relations;
  std::set<ObjectId> relation_ids = relations_dropped;
  for (size_t i = 0; i < functions.size(); i++) {
    const FunctionCatalog fn = functions[i];
    const std::string signature = fmt::format("function {}({})", fn.name, fn.IdentityArguments());
    std::vector<std::string> dependents;
    for (const auto& dep : catalog->FunctionDependents(fn.id)) {
      if (!relation_ids.insert(dep->id).second) continue;
      dependents.push_back(fmt::format("{} {}", RelationKindName(dep->kind), dep->name));
      relations.push_back(dep);
    }
    for (auto& dep : catalog->FunctionsDependingOn(fn.id)) {
      if (!seen.insert(dep.id).second) continue;
      dependents.push_back(fmt::format("function {}({})", dep.name, dep.IdentityArguments()));
      functions.push_back(std::move(dep));
    }
    if (dependents.empty()) continue;
    if (!cascade) {
      std::string detail;
      for (const auto& d : dependents) detail += (detail.empty() ? "" : "\n") + d + " depends on " + signature;
      throw SqlError(sqlstate::kDependentObjectsStillExist,
                     fmt::format("cannot drop {} because other objects depend on it", signature))
          .WithDetail(detail)
          .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
    }
    for (const auto& d : dependents) args.sink->Notice("drop cascades to " + d);
  }
  if (!relations.empty()) DropRelations(args, DropClosure(args, relations, /*cascade=*/true, "function"));
  for (const auto& fn : functions) catalog->DropFunction(fn.id);
}

}  // namespace freshet
