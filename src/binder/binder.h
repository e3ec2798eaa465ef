// Binder: resolves names and types of a parsed statement and produces a
// plan (planner/plan.h).
//
// Name resolution follows PostgreSQL: unqualified relations are looked up in
// the search path (pg_catalog and rw_catalog first, then public); columns
// in the innermost query first, then enclosing queries (correlation);
// ambiguous names are 42702, unknown ones 42703/42P01. Types follow
// PostgreSQL's coercion rules (expr/cast.h): quoted literals are of unknown
// type until their context decides, `$n` parameters take the type their
// context needs.
//
// A Binder is used for one statement by one thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "planner/plan.h"
#include "sql/parser.h"

struct PgQuery__Node;
struct PgQuery__SelectStmt;
struct PgQuery__InsertStmt;
struct PgQuery__TypeName;
struct PgQuery__RangeVar;
struct PgQuery__WithClause;
struct PgQuery__RangeFunction;
struct PgQuery__FuncCall;

namespace freshet {

struct CorrespondingClause;

// PostgreSQL's MaxTupleAttributeNumber: a SELECT list, VALUES row or
// RETURNING list (after * is expanded) has at most this many entries
// (54011 "target lists can have at most 1664 entries"), which also keeps a
// RowDescription's 16-bit column count in range.
inline constexpr size_t kMaxTargetListEntries = 1664;
void CheckTargetListLength(size_t entries);

// A stored relation or one of its columns named in the statement's own
// text (not in the views it names): where, so that a rename can follow it
// (frontend/handler/dependent_definitions.h).
struct NameUse {
  int location = -1;       // byte offset of the dotted name (a RangeVar's, a ColumnRef's)
  ObjectId relation = 0;   // the relation it names or reads
  int column = -1;         // the relation's column it reads; -1: the relation itself, or t.*
  bool range_var = false;  // FROM's [schema.]relation (its last part names it)
  // A column reference written relation.column (or relation.*) with the
  // relation's own name, not an alias: its part before the last names it.
  bool qualified_by_name = false;
  // A column read without its name in the text: through * or t.* (at
  // `location`), or as a USING or NATURAL join's column (no location).
  bool implicit = false;
};

struct BinderContext {
  const Catalog* catalog = nullptr;
  ObjectId database_id = 0;
  std::string database_name;
  std::string user_name = "root";
  ObjectId user_id = kRootUserId;
  EvalContext* eval = nullptr;  // session time zone, statement time (constant folding)
  // Types of $1..$n. The binder fills unknown entries (kUnknown) from context.
  std::vector<DataType>* param_types = nullptr;
  // Schemas searched for unqualified names, in order (session search_path,
  // "$user" already replaced); pg_catalog and rw_catalog come first implicitly.
  std::vector<std::string> search_path = {"public"};
  // The session's schema of temporary relations (pg_temp_<pid>): searched
  // before search_path for relations, and what "pg_temp" names. Other
  // sessions' temporary schemas cannot be read (0A000).
  std::string temp_schema;
  // Byte offset of the statement in the query string, for error positions.
  const std::string* query_text = nullptr;
  int statement_offset = 0;
  // When set, every stored relation the statement names (tables, views,
  // materialized views; not those named inside the views it names) is
  // appended: what a view created from the statement depends on.
  std::vector<ObjectId>* referenced_relations = nullptr;
  // Whether scans may read a table's indexes instead (enable_indexscan;
  // off for stream jobs, which read tables' change streams).
  bool use_indexes = true;
  // When set, every NameUse of the statement's own text is appended.
  std::vector<NameUse>* name_uses = nullptr;
  // When set, every SQL function the statement calls (inlined) is
  // appended: what a view created from it depends on.
  std::vector<ObjectId>* referenced_functions = nullptr;
  // False for CREATE VIEW, which (as PostgreSQL's) does not look into the
  // bodies of the SQL functions it calls: a call stands for a value of its
  // declared type (no rows, for a set-returning one); the view's queries
  // inline them when they run.
  bool bind_function_bodies = true;
};

// Throws unless DML may write `t`: 42809 for anything but a table, 0A000
// for a table that a connector fills.
void CheckWritable(const TableCatalog& t);

class Binder {
 public:
  explicit Binder(BinderContext ctx);
  ~Binder();

  // SELECT / VALUES / set operations.
  PlanPtr BindQuery(const PgQuery__Node* select_stmt);
  PlanPtr BindInsert(const PgQuery__Node* insert_stmt);
  PlanPtr BindUpdate(const PgQuery__Node* update_stmt);
  PlanPtr BindDelete(const PgQuery__Node* delete_stmt);

  // TRUNCATE of one table: a DELETE of every row (the table's change
  // stream sees the deletes; in a transaction block it rolls back).
  PlanPtr BindTruncate(const PgQuery__RangeVar* relation);
  // ALTER TABLE's rewrite: INSERT INTO target SELECT ... FROM old, where
  // each visible column of `target` (in order) takes an old column, coerced
  // to its type as an assignment (42804 when there is no such cast), an
  // expression over the old row (USING), or its DEFAULT.
  struct RewriteSource {
    int old_column = -1;                        // -1: the column's DEFAULT
    const PgQuery__Node* using_expr = nullptr;  // ALTER COLUMN ... TYPE ... USING
  };
  PlanPtr BindTableRewrite(const TableRef& old_table, const TableRef& target, const std::vector<RewriteSource>& sources);

  // CREATE FUNCTION's check of a SQL function's body (PostgreSQL's
  // check_function_bodies): bound as when called with NULLs of its
  // parameters' types; 42P13 when its result does not fit the declared one.
  void CheckSqlFunctionBody(const FunctionCatalog& fn);

  // Helpers shared with DDL.
  DataType BindTypeName(const PgQuery__TypeName* type_name);
  // A column's or a cast's type: a domain (CREATE DOMAIN) is its base type
  // and its id, whose constraints the caller applies (WithDomainChecks).
  struct BoundType {
    DataType type;
    ObjectId domain = 0;
  };
  BoundType BindColumnType(const PgQuery__TypeName* type_name);
  const BinderContext& context() const { return ctx_; }
  // `value` (of domain `domain`'s base type) checked against the domain's
  // constraints and those of the domains it is over (expr/domain_check.h).
  ExprPtr WithDomainChecks(ExprPtr value, ObjectId domain);
  // A domain's CHECK (its text over VALUE) bound over one column, the
  // value of the domain's base type `base`.
  ExprPtr BindDomainCheck(const std::string& text, const DataType& base);
  DataType BindStructTypeName(const PgQuery__TypeName* tn);
  DataType BindTypeNameIn(const PgQuery__TypeName* tn, ObjectId* domain);
  // Binds a standalone expression without input columns (DEFAULT values).
  ExprPtr BindConstantExpression(const PgQuery__Node* node);
  // SQL EXECUTE's argument `number` (from 1) for a parameter of `type`: an
  // expression without columns, coerced as an assignment (42804 naming the
  // parameter when it cannot be, as PostgreSQL's EvaluateParams).
  ExprPtr BindExecuteArgument(const PgQuery__Node* node, const DataType& type, int number);
  // A CHECK constraint's expression over `table`'s columns (all of them, in
  // order), as PostgreSQL allows it: boolean (42804), no subqueries
  // (0A000), aggregates (42803), window or set-returning functions.
  // *columns (if given) gets the names of the columns it reads, in the
  // order they appear (pg_constraint.conkey).
  // (index_predicate: a partial index's WHERE, worded so in errors.)
  ExprPtr BindCheckExpression(const TableCatalog& table, const PgQuery__Node* expr,
                              std::vector<std::string>* columns = nullptr, bool index_predicate = false);
  // A condition the catalog keeps as SQL text (a CHECK's, a partial
  // index's predicate), bound as BindCheckExpression does.
  ExprPtr BindStoredCondition(const TableCatalog& table, const std::string& text, bool index_predicate = false);
  // An element of a unique index that is an expression over `table`'s
  // columns (CREATE UNIQUE INDEX ... ((lower(email)))): no subqueries
  // (0A000), aggregates, window or set-returning functions; and the same
  // from its stored text.
  ExprPtr BindIndexExpression(const TableCatalog& table, const PgQuery__Node* expr);
  // A generated column's expression (GENERATED ALWAYS AS (...) STORED)
  // over `table`'s columns, coerced to column `column`'s type as an
  // assignment: no other generated column (42P17), no subqueries (0A000),
  // aggregates, window or set-returning functions. Immutability is the
  // caller's check. And the same from its stored text.
  ExprPtr BindGenerationExpression(const TableCatalog& table, int column, const PgQuery__Node* expr);
  ExprPtr BindStoredGenerationExpression(const TableCatalog& table, int column);
  ExprPtr BindStoredIndexExpression(const TableCatalog& table, const std::string& text);
  // A WATERMARK FOR's expression (table.watermark_expr) over `table`'s
  // columns: of the watermark column's type (42804), reading that column
  // alone, no subqueries (0A000), aggregates, window or set-returning
  // functions, nothing volatile.
  ExprPtr BindWatermarkExpression(const TableCatalog& table);
  // The table's CHECK constraints, bound: what its writes must pass; with
  // its domain columns' constraints first and its expression indexes'
  // elements (plan.h CheckConstraint) unless `with_domains` is false (a
  // rewrite: the values are those already written).
  std::vector<CheckConstraint> BindChecks(const TableCatalog& table, bool with_domains = true);
  // The table's generated columns, bound: what its writes compute.
  std::vector<GeneratedColumn> BindGenerated(const TableCatalog& table);
  // The value a column gets when a write does not give one: its DEFAULT,
  // coerced to the column's type, or a NULL constant.
  ExprPtr BindColumnDefault(const ColumnCatalog& column);
  // The plan of SELECT * FROM relation (or of SELECT a, b FROM relation,
  // for a column list), built without SQL text: COPY relation TO, CREATE
  // SINK ... FROM relation. A listed column that is not a visible column of
  // the relation is 42703.
  PlanPtr BindRelationColumns(const PgQuery__RangeVar* rv, const std::vector<std::string>& columns);
  // `input` filtered by a condition over its columns, which are named by
  // `relation` (SHOW JOBS WHERE ...): the plan of
  // SELECT * FROM (input) AS relation WHERE condition.
  PlanPtr BindFilter(PlanPtr input, const std::string& relation, const PgQuery__Node* condition);
  // Resolves [schema.]name of a stored relation; throws 42P01 when absent
  // (unless missing_ok, then null).
  TableRef ResolveRelation(const PgQuery__RangeVar* rv, bool missing_ok = false);
  TableRef ResolveInOtherDatabase(const PgQuery__RangeVar* rv, bool missing_ok);
  // The named schema, or for null/empty the first existing schema of the
  // search path (where unqualified CREATE puts things). Throws 3F000.
  ObjectId ResolveSchemaId(const char* schema_name);
  // An enum type along the search path (pg_temp first); nullopt: none.
  std::optional<TypeCatalog> FindTypeInSearchPath(const std::string& name) const;
  // Finds an unqualified relation along the search path (null when absent).
  TableRef FindInSearchPath(const std::string& name) const;
  // A scan of `table`, with the indexes it may read instead (ScanNode::indexes).
  std::unique_ptr<ScanNode> MakeScan(const TableRef& table, std::vector<PlanColumn> schema);
  // The current schema: the first existing schema of the search path.
  // The search path's schemas that exist, in order.
  std::vector<std::string> ExistingSearchPath() const;
  std::string CurrentSchema() const;

  // Internals, defined in binder/scope.h and binder/expression_binder.h.
  struct Scope;
  struct FunctionFrame;
  struct Cte;
  struct AggregateContext;
  struct WindowContext;
  class ExprBinder;

 private:

  PlanPtr BindSelect(const PgQuery__SelectStmt* stmt, Scope* outer);
  // A SELECT without set operations, clause by clause (select_binder.cc).
  struct SelectParts;
  PlanPtr BindSelectCore(const PgQuery__SelectStmt* stmt, Scope* outer);
  void BindFromWhere(const PgQuery__SelectStmt* stmt, Scope* outer, SelectParts* q);
  void BindSelectList(const PgQuery__SelectStmt* stmt, SelectParts* q);
  void BindGroupByHaving(const PgQuery__SelectStmt* stmt, SelectParts* q);
  void BindGroupingSets(const PgQuery__SelectStmt* stmt, SelectParts* q);
  void AddFunctionallyDependentKeys(SelectParts* q);
  void BindOrderBy(const PgQuery__SelectStmt* stmt, SelectParts* q);
  // One ORDER BY (or, with `distinct_on`, DISTINCT ON) item, appended to
  // the select's list of them.
  void BindOrderItem(const PgQuery__Node* n, int location, const char* clause, SelectParts* q, bool distinct_on);
  void ApplyAggregation(SelectParts* q);
  void ApplyWindows(SelectParts* q);
  PlanPtr FinishSelect(const PgQuery__SelectStmt* stmt, Scope* outer, bool keep_unknown_outputs, SelectParts* q);
  PlanPtr BindSetOperation(const PgQuery__SelectStmt* stmt, Scope* outer);
  void MatchColumnsByName(const CorrespondingClause& clause, const char* operation, PlanPtr* left, PlanPtr* right);
  void SetAsOfComparison(JoinNode* join);
  PlanPtr BindValues(const PgQuery__SelectStmt* stmt, Scope* outer);
  PlanPtr BindFrom(const PgQuery__Node* node, Scope* outer, Scope* scope);
  // A LATERAL subquery in FROM (not nested in a join's left side).
  static bool IsLateral(const PgQuery__Node* node);
  // The items left of the LATERAL item BindFrom binds next, as the scope
  // its subquery reads them from (a LateralJoinNode's left row); set by
  // the FROM list or join that holds it.
  Scope* lateral_left_ = nullptr;
  // The relation a JOIN being bound names FOR SYSTEM_TIME AS OF PROCTIME()
  // as its right side (the only place the clause may be).
  const PgQuery__RangeVar* process_time_right_ = nullptr;
  // A function of one row in FROM: its value as one column (named by
  // `column`, its one OUT parameter, when not empty), or with `record` a
  // record of OUT parameters as its columns.
  PlanPtr BindScalarFunctionInFrom(const PgQuery__RangeFunction* rf, const PgQuery__Node* call, const std::string& name,
                                   Scope* outer, Scope* scope, bool record = false,
                                   const std::string& column = "");
  // SQL functions (binder/sql_function_binder.cc). The functions a call
  // may name: in its schema, or along the search path (pg_catalog's
  // built-in functions are not among them).
  std::vector<FunctionCatalog> UserFunctionCandidates(const PgQuery__FuncCall* f) const;
  // Whether an unqualified call names a built-in function first.
  static bool IsBuiltinFunctionName(const std::string& name);
  // A call of a set-returning SQL function in FROM: its body as a
  // subquery (LATERAL when its arguments read the items before it).
  PlanPtr BindSqlTableFunction(const PgQuery__RangeFunction* rf, const PgQuery__FuncCall* fc,
                               const std::vector<FunctionCatalog>& candidates, Scope* outer, Scope* scope);
  // Its body with the arguments (bound in a scope whose outer is
  // `arg_outer`): the function's result columns, named and typed as declared.
  PlanPtr BindSqlTableFunctionBody(const FunctionCatalog& fn, std::vector<ExprPtr> args, Scope* arg_outer);
  // The body of `frame`'s function bound as a query in `frame_scope`
  // (whose `function` is the frame), in the function's own context (no
  // CTEs, LATERAL items or text positions of the calling statement).
  PlanPtr BindFunctionBody(const FunctionCatalog& fn, Scope* frame_scope);
  // The function's body parsed: its one SELECT.
  const PgQuery__SelectStmt* ParseFunctionBody(const FunctionCatalog& fn);
  // Runs `bind` without what a function body must not see of the calling
  // statement (its CTEs, LATERAL items, set operation, text positions and
  // name uses), restored afterwards.
  void InFunctionBodyContext(const std::function<void()>& bind);
  std::vector<std::shared_ptr<PgQuery__ParseResult>> function_bodies_;  // kept while plans are bound
  // A set-returning SQL function called in the select list being bound
  // (`select_set_scope_`: its scope): read there as column `column` of a
  // LATERAL join of the FROM items with its body (JoinSelectSetFunctions).
  struct SelectSetFunction {
    FunctionCatalog function;
    std::vector<ExprPtr> args;  // over the FROM items
    int location = -1;
  };
  std::vector<SelectSetFunction>* select_set_functions_ = nullptr;
  const Scope* select_set_scope_ = nullptr;
  // The select list's set-returning SQL functions joined to `q`'s plan.
  void JoinSelectSetFunctions(SelectParts* q, std::vector<SelectSetFunction> calls);
  // `e`, read `by` query levels below where it was bound: its columns
  // become outer references (0A000 for a subquery, aggregate or window
  // call, which cannot be read there; `function` names the call).
  static ExprPtr LiftArgument(ExprPtr e, int by, const std::string& function);
  std::vector<ObjectId> inlining_;  // functions being inlined, outermost first
  // The search path function bodies are bound with: the session's (as
  // PostgreSQL plans a function's body with the path in force when it is
  // called), not a view's being expanded.
  std::vector<std::string> function_search_path_;
  // While a function is inlined: refuses recursion (0A000) and nesting past
  // a depth (54001), and records it (BinderContext::referenced_functions).
  class InliningGuard {
   public:
    InliningGuard(Binder* binder, const FunctionCatalog& fn);
    ~InliningGuard();

   private:
    Binder* binder_;
  };
  PlanPtr BindTimeWindow(const PgQuery__RangeFunction* rf, const PgQuery__FuncCall* fc,
                         const std::string& name, Scope* outer, Scope* scope);
  // Types and coerces the arguments of generate_series/unnest; returns the
  // type of the values it produces.
  // The set-returning functions: generate_series, unnest, generate_subscripts
  // and information_schema._pg_expandarray (drivers' metadata queries).
  static bool IsSetFunctionName(const std::string& name);
  DataType BindSetFunctionArgs(const std::string& name, std::vector<ExprPtr>* args, ExprBinder* eb, int location);
  // A view named in FROM: its stored query, bound as it was created (its
  // search path, no outer columns or CTEs of the naming query), its columns
  // named as the view's.
  PlanPtr BindView(const TableCatalog& view, const std::string& alias);
  PlanPtr BindRangeVar(const PgQuery__RangeVar* rv, Scope* outer, Scope* scope);
  PlanPtr BindRecursiveCte(Cte& cte, const std::string& name, Scope* outer);
  PlanPtr ApplyOrderLimit(PlanPtr plan, const PgQuery__SelectStmt* stmt, Scope* outer, size_t visible_columns);
  // `assignment`: casts as an assignment does (else implicit coercions).
  PlanPtr CoerceColumns(PlanPtr plan, const std::vector<DataType>& types, bool assignment = false);
  PlanPtr BindDmlTarget(const TableRef& table, const PgQuery__RangeVar* relation, const PgQuery__Node* where, Scope* scope);
  // UPDATE ... FROM / DELETE ... USING: the target's rows (its columns
  // first, where the DML executors read them) joined with `items`, WHERE
  // over all of them.
  PlanPtr BindDmlTargetJoined(const TableRef& table, const PgQuery__RangeVar* relation, PgQuery__Node** items,
                              size_t n_items, const PgQuery__Node* where, Scope* scope);
  PlanPtr BindDmlReturning(PlanNode* dml, const TableCatalog& table, const PgQuery__RangeVar* relation,
                           PgQuery__Node** list, size_t n);
  // INSERT's ON CONFLICT clause, onto the insert's plan node.
  void BindOnConflict(const PgQuery__InsertStmt* stmt, InsertNode* insert);
  void PushCtes(const PgQuery__WithClause* with);

  [[noreturn]] void ThrowAt(const char* code, int location, const std::string& message) const;
  ExprPtr BindStoredText(const std::string& text, const std::function<ExprPtr(const PgQuery__Node*)>& bind);
  ExprPtr BindOverTable(const TableCatalog& table, const PgQuery__Node* expr, const char* clause,
                        const char* no_subquery);
  // Appends to ctx_.name_uses (when set) a use in the statement's own text.
  void NoteNameUse(const NameUse& use);

  BinderContext ctx_;
  std::vector<std::map<std::string, std::shared_ptr<Cte>>> cte_stack_;
  int view_depth_ = 0;  // views being expanded, one inside another
  // The view being expanded: the columns of its inputs it knows
  // (TableCatalog::input_columns); null outside a view.
  const std::map<ObjectId, int>* view_inputs_ = nullptr;
  int depth_ = 0;  // recursion guard
  int next_work_table_ = 0;  // WITH RECURSIVE's work tables, numbered per statement
  // Set while binding a branch of UNION/INTERSECT/EXCEPT: its unknown-typed
  // outputs (NULL, 'literals') stay unknown so the set operation decides.
  bool set_operation_branch_ = false;
};

}  // namespace freshet
