// Internal to the binder: binds PostgreSQL expression nodes in a scope.
#pragma once

#include <pg_query/pg_query.pb-c.h>

#include "binder/scope.h"

namespace freshet {

class Binder::ExprBinder {
 public:
  ExprBinder(Binder* binder, Scope* scope) : binder_(binder), scope_(scope) {}

  ExprPtr Bind(const PgQuery__Node* node);
  // Binds and coerces to boolean (WHERE, HAVING, ON, CASE WHEN).
  ExprPtr BindCondition(const PgQuery__Node* node, const char* clause);

  // Coercion of a bound expression to a type. Unknown literals are parsed
  // as the target type; unknown parameters take it. `context` names the
  // construct for the error message.
  ExprPtr Coerce(ExprPtr e, const DataType& to, bool explicit_cast = false);
  ExprPtr CoerceForAssignment(ExprPtr e, const DataType& to, const std::string& column_name);
  // Resolves a function or operator by name over bound arguments (inserting
  // casts); throws 42883 when nothing matches.
  ExprPtr MakeCall(const std::string& name, std::vector<ExprPtr> args, int location);
  void PadCharacterArguments(const std::string& name, std::vector<ExprPtr>* args);
  // Common type of expressions meeting in CASE/COALESCE/UNION...; unknown
  // literals become text when nothing else decides.
  DataType UnifyTypes(const std::vector<const Expression*>& exprs, const char* context, int location);
  // (s).* of a SELECT list (an indirection ending in *): one field
  // selection per field of the struct, with the field's name; 42809 when s
  // is not a struct.
  std::vector<std::pair<std::string, ExprPtr>> ExpandStructStar(const PgQuery__AIndirection* ind);

  // SQL functions (binder/sql_function_binder.cc). A call's arguments
  // (positional, then named) bound, the overload they select, and its
  // DEFAULTs for the rest, each coerced to its parameter's type; 42883
  // when no overload takes them, 42725 when several do equally.
  struct SqlFunctionCall {
    FunctionCatalog function;
    std::vector<ExprPtr> args;
  };
  // A FROM item's whole row as a record (BindColumnRef's `t`, `t.*`).
  ExprPtr WholeRow(Scope* s, int levels, const std::string& item, int location);
  // A built-in function called with f(..., VARIADIC array).
  ExprPtr BindVariadicArrayCall(const PgQuery__FuncCall* f, const std::string& name);
  SqlFunctionCall ResolveSqlFunction(const PgQuery__FuncCall* f, const std::vector<FunctionCatalog>& candidates);
  // A scalar SQL function's call inlined: its body's expression when the
  // body is one, else the body as a scalar subquery (its first row).
  // A function returning a record of its OUT parameters (ReturnsOneRecord)
  // returns the row value of its body's first row: the body's expressions
  // as a row, or its query as a scalar subquery of one.
  ExprPtr InlineSqlFunction(SqlFunctionCall call, int location);

 private:
  ExprPtr InlineRecordBody(const FunctionCatalog& fn, const PgQuery__SelectStmt* body, FunctionFrame* frame,
                           Scope* frame_scope);
  ExprPtr BindColumnRef(const PgQuery__ColumnRef* ref);
  ExprPtr BindSystemColumn(const Scope& s, const std::string& schema, const std::string& table,
                           const std::string& column, int location);
  ExprPtr BindConst(const PgQuery__AConst* c);
  ExprPtr BindAExpr(const PgQuery__AExpr* e);
  ExprPtr BindFuncCall(const PgQuery__FuncCall* f);
  ExprPtr BindBuiltinFuncCall(const PgQuery__FuncCall* f, const std::string& name);
  ExprPtr BindAggregate(const PgQuery__FuncCall* f, const std::string& name);
  ExprPtr BindOrderedSetAggregate(const PgQuery__FuncCall* f, const std::string& name);
  SortKey BindSortKey(const PgQuery__SortBy* sb);
  ExprPtr BindWindowCall(const PgQuery__FuncCall* f, const std::string& name);
  void BindWindowFrame(const PgQuery__WindowDef* w, WindowCall* call);
  ExprPtr BindGrouping(const PgQuery__GroupingFunc* g);
  ExprPtr BindTypeCast(const PgQuery__TypeCast* c);
  ExprPtr BindTypeCastTo(const PgQuery__TypeCast* c, const DataType& to);
  ExprPtr BindCase(const PgQuery__CaseExpr* c);
  ExprPtr BindSubLink(const PgQuery__SubLink* s);
  ExprPtr BindSqlValueFunction(const PgQuery__SQLValueFunction* f);
  ExprPtr BindBoolExpr(const PgQuery__BoolExpr* b);
  ExprPtr BindIn(const PgQuery__AExpr* e);
  ExprPtr BindParam(const PgQuery__ParamRef* p);
  // A parameter of the SQL function whose frame is `frame` (reached
  // `levels` scopes up from this binder's scope): its argument, lifted.
  ExprPtr FunctionParameter(Scope* frame_scope, int levels, int index);
  // Arrays (binder/array_binder.cc).
  ExprPtr BindArrayExpr(const PgQuery__AArrayExpr* a, const DataType* element_hint = nullptr);
  ExprPtr BindArrayAnyAll(const PgQuery__AExpr* e);
  ExprPtr BindIndirection(const PgQuery__AIndirection* ind);
  // (s).field: 42809 when s is not a struct, 42703 for an unknown field.
  ExprPtr SelectField(ExprPtr base, const std::string& field);
  ExprPtr BindRowConstructor(const PgQuery__RowExpr* row);
  // ROW(...) cast to a struct type: each field coerced on its own.
  ExprPtr CoerceRowConstructor(ExprPtr row, const DataType& to, bool explicit_cast);
  ExprPtr MakeArrayConcat(std::vector<ExprPtr> args, int location);
  // Before resolving an operator over arrays: unknown literals take the
  // other side's array type, arrays of different element types a common one.
  void PrepareArrayArguments(const std::string& name, std::vector<ExprPtr>& args, int location);
  ExprPtr CoerceArray(ExprPtr e, const DataType& to, bool explicit_cast);
  ExprPtr MakeComparisonChain(ExprPtr left, std::vector<ExprPtr> rights, const std::string& op, bool any, int location);

  Binder* binder_;
  Scope* scope_;
};

}  // namespace freshet
