// Internal to the binder: name scopes and aggregate collection.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binder/binder.h"

namespace freshet {

struct Binder::Scope {
  struct Column {
    std::string table;
    std::string name;
    DataType type;
    bool hidden = false;          // never in * (the hidden row id)
    bool qualified_only = false;  // only as t.col or t.*: the inputs of a USING column
    std::string schema;           // for schema.table.column references
    uint32_t relation_oid = 0;    // a stored relation's or catalog's: its system column tableoid
    // A stored relation's column: which (NameUse), and whether the
    // relation is named by its own name rather than an alias.
    ObjectId relation_id = 0;
    int relation_column = -1;
    bool unaliased = false;
    // Never NULL in a row of its FROM item (a table's NOT NULL or key
    // column, its row id): NULL there only where an outer join padded the
    // item, which makes the item's whole row NULL.
    bool never_null = false;
    // PlanColumn::origin_table/origin_column of the value it holds.
    uint32_t origin_table = 0;
    int16_t origin_column = 0;
  };
  std::vector<Column> columns;
  Scope* outer = nullptr;
  // Set on the scope that stands for a SQL function's call while its body
  // is bound (binder/sql_function_binder.cc): names of the body stop here,
  // where the function's parameters are found; nothing beyond is visible.
  FunctionFrame* function = nullptr;
  // Set when a subquery nested in this scope read a column of this scope or
  // of a scope above it: the subquery's result then depends on this
  // scope's current row (it is correlated).
  bool referenced_by_subquery = false;
  AggregateContext* agg = nullptr;  // non-null where aggregates are allowed
  WindowContext* window = nullptr;  // non-null where window functions are allowed
  bool in_window_call = false;      // binding a window function's arguments or window
  const char* clause = "this context";
  bool set_functions_allowed = false;  // binding a select-list entry  // for "aggregate functions are not allowed in WHERE"

  void Append(const std::vector<PlanColumn>& cols) {
    for (const auto& c : cols) {
      columns.push_back({c.table, c.name, c.type, c.hidden});
      columns.back().origin_table = c.origin_table;
      columns.back().origin_column = c.origin_column;
    }
  }
};

// A SQL function call being inlined: its parameters' values, bound where
// the call is. A parameter read `levels` scopes below the frame's scope
// is its argument lifted by levels + lift_delta query levels (as an outer
// reference): 0 for a call in an expression (the frame's scope stands
// for the call's own level), -1 for a call in FROM (the frame's scope
// stands for the level the arguments read as outer).
struct Binder::FunctionFrame {
  const FunctionCatalog* function = nullptr;
  std::vector<ExprPtr> args;
  int lift_delta = 0;
  // How many times the body read each parameter (a volatile argument read
  // twice would be computed twice: refused).
  std::vector<int> uses;
  // 0A000 when a volatile argument was read more than once.
  void CheckVolatileArguments() const;
};

struct Binder::Cte {
  const PgQuery__Node* query = nullptr;
  std::vector<std::string> column_aliases;
  bool recursive = false;  // of WITH RECURSIVE
  bool changelog = false;  // name AS CHANGELOG FROM relation (plan.h ChangelogNode)
  int location = -1;       // of its name in the statement
  // While its recursive term is bound: a reference to it reads this work
  // table (WorkTableScanNode), whose columns are the non-recursive term's.
  struct WorkTable {
    int id;
    std::vector<PlanColumn> schema;
  };
  std::optional<WorkTable> work_table;
};

// Aggregate calls found while binding a SELECT's expressions; each becomes a
// placeholder that is later rewritten into a column of the AggregateNode.
struct Binder::AggregateContext {
  std::vector<AggregateCall> calls;
};

// Window function calls found in a SELECT list or ORDER BY; each becomes a
// placeholder that is later rewritten into a column of the WindowNode.
struct Binder::WindowContext {
  std::vector<WindowCall> calls;
  // The query's WINDOW clause: its windows by name.
  std::map<std::string, const PgQuery__WindowDef*> named;
};

class WindowPlaceholder : public Expression {
 public:
  WindowPlaceholder(int index, DataType type, std::string text) : Expression(Kind::kWindow, type), index(index), text(std::move(text)) {}
  Vector Eval(const DataChunk&, EvalContext&) const override;
  ExprPtr Clone() const override { return std::make_unique<WindowPlaceholder>(index, type_, text); }
  std::string ToString() const override { return text; }
  int index;
  std::string text;
};

// grouping(a, b): its arguments (group keys), replaced once the grouping
// sets are known.
class GroupingPlaceholder : public Expression {
 public:
  explicit GroupingPlaceholder(std::vector<ExprPtr> args) : Expression(Kind::kGrouping, DataType::Int32()) { children_ = std::move(args); }
  Vector Eval(const DataChunk&, EvalContext&) const override;
  ExprPtr Clone() const override { return std::make_unique<GroupingPlaceholder>(CloneChildren()); }
  std::string ToString() const override { return "grouping(...)"; }
};

class AggregatePlaceholder : public Expression {
 public:
  AggregatePlaceholder(int index, DataType type, std::string text)
      : Expression(Kind::kAggregate, type), index(index), text(std::move(text)) {}
  Vector Eval(const DataChunk&, EvalContext&) const override;
  ExprPtr Clone() const override { return std::make_unique<AggregatePlaceholder>(index, type_, text); }
  std::string ToString() const override { return text; }
  int index;
  std::string text;
};

// Structural identity of an expression (for matching GROUP BY keys).
std::string StructuralKey(const Expression& e);

// Whether e reads a column of an enclosing query or LATERAL item.
bool HasOuterReference(const Expression& e);

}  // namespace freshet
