// Query plans.
//
// The binder turns a statement into a tree of PlanNodes with every name
// resolved and every type known; the optimizer (optimizer.h) rewrites it
// (predicate push-down, equi-join keys); the batch engine builds one
// executor per node (batch/executor_builder.h), and the stream engine will
// build stream operators from the same nodes.
//
// Every node has an output schema. Expressions inside a node refer to the
// columns of its child's (children's concatenated) output by index.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/column_predicate.h"
#include "expr/aggregate.h"
#include "expr/expression.h"

namespace freshet {

struct PlanColumn {
  std::string name;
  DataType type;
  std::string table;      // qualifier for name resolution ("" when none)
  bool hidden = false;    // not part of SELECT * (e.g. _row_id)
  // The stored relation column it is (PostgreSQL's resorigtbl/resorigcol,
  // a RowDescription's table oid and attribute number): set for a column
  // of a table, view or catalog passed on unchanged; 0 for computed ones.
  uint32_t origin_table = 0;
  int16_t origin_column = 0;
};

class PlanNode;
using PlanPtr = std::unique_ptr<PlanNode>;

class PlanNode {
 public:
  enum class Kind {
    kScan, kSystemScan, kValues, kFilter, kProject, kAggregate, kJoin, kSort, kLimit, kSetOp,
    kTableFunction, kInsert, kUpdate, kDelete, kDistinct, kProjectSet, kHop, kWindow, kLateralJoin,
    kRecursiveUnion, kWorkTableScan, kChangelog
  };
  PlanNode(Kind kind, std::vector<PlanColumn> schema) : kind_(kind), schema_(std::move(schema)) {}
  virtual ~PlanNode() = default;

  Kind kind() const { return kind_; }
  const std::vector<PlanColumn>& schema() const { return schema_; }
  std::vector<PlanColumn>& mutable_schema() { return schema_; }
  std::vector<DataType> types() const;
  std::vector<PlanPtr>& children() { return children_; }
  const std::vector<PlanPtr>& children() const { return children_; }
  PlanNode* child(size_t i = 0) const { return children_[i].get(); }

  // One line describing this node for EXPLAIN (children are printed by Explain()).
  virtual std::string Describe() const = 0;

 protected:
  Kind kind_;
  std::vector<PlanColumn> schema_;
  std::vector<PlanPtr> children_;
};

// EXPLAIN output, one line per node, indented by depth.
std::vector<std::string> ExplainPlan(const PlanNode& root);

// A deep copy of a query plan (expressions cloned; a subquery's plan is
// shared, as Expression::Clone shares it). DML nodes are not copied
// (SqlError XX000): they never occur inside a query.
PlanPtr ClonePlan(const PlanNode& node);

// Reads a stored relation (table or materialized view) at the statement's snapshot.
class ScanNode : public PlanNode {
 public:
  ScanNode(TableRef table, std::vector<PlanColumn> schema) : PlanNode(Kind::kScan, std::move(schema)), table(std::move(table)) {}
  std::string Describe() const override;
  TableRef table;
  // Columns some ancestor reads (set by the optimizer; empty = all). The
  // others are still in the output, as NULLs, so indices never shift.
  std::vector<bool> used_columns;
  // Conditions "column op value" of the filter above, the value a constant
  // or a parameter, that the table's engine may use to skip rows (set by the
  // optimizer; the filter stays and still applies them). The values are
  // evaluated when the scan starts.
  struct Condition {
    int column = 0;
    ColumnPredicate::Op op = ColumnPredicate::Op::kEq;
    ExprPtr value;            // not for kIn
    std::vector<Value> list;  // kIn: column IN (constants)
    // kIn of values known only at execution: column IN ($1, $2) (or an OR
    // of such equalities) lists them, column = ANY($1) gives the array.
    std::vector<ExprPtr> items;
    ExprPtr array;
  };
  std::vector<Condition> predicates;
  // The table's indexes made by CREATE INDEX and created (set by the
  // binder): stream jobs holding a copy of the table's rows keyed by their
  // elements first (catalog/index_definition.h): of the columns the table
  // had when the index was made (those it gained since by ADD COLUMN are
  // not in the index), then its expressions' values; a partial index only
  // the rows its predicate is true for.
  struct IndexChoice {
    TableRef index;
    size_t table_columns = 0;  // the table's first columns it holds
    // Its expression elements bound over the scan's columns: column
    // table_columns + j of the index holds expressions[j]'s value.
    std::vector<ExprPtr> expressions;
    // A partial index's predicate, as conjuncts: a scan may read the index
    // only when its filter has each of them.
    std::vector<ExprPtr> predicate;
  };
  std::vector<IndexChoice> indexes;
  // The index the scan reads instead of the table (set by the optimizer):
  // one whose key the predicates narrow when they do not narrow the
  // table's, and `index_predicates` the conditions on the index's columns
  // it reads with (the table's columns it holds, its expressions). The
  // executor still reads the table when the index cannot serve the
  // statement (the transaction wrote the table, its snapshot predates the
  // index, the index was dropped).
  TableRef index;
  std::vector<Condition> index_predicates;
};

// Rows generated from the catalog (information_schema, pg_catalog, rw_catalog).
class SystemScanNode : public PlanNode {
 public:
  SystemScanNode(std::string name, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kSystemScan, std::move(schema)), name(std::move(name)) {}
  std::string Describe() const override { return "SystemScan " + name; }
  std::string name;  // schema.table
};

class ValuesNode : public PlanNode {
 public:
  ValuesNode(std::vector<PlanColumn> schema, std::vector<std::vector<ExprPtr>> rows)
      : PlanNode(Kind::kValues, std::move(schema)), rows(std::move(rows)) {}
  std::string Describe() const override;
  std::vector<std::vector<ExprPtr>> rows;
};

class FilterNode : public PlanNode {
 public:
  FilterNode(PlanPtr child, ExprPtr predicate);
  std::string Describe() const override { return "Filter " + predicate->ToString(); }
  ExprPtr predicate;
};

class ProjectNode : public PlanNode {
 public:
  ProjectNode(PlanPtr child, std::vector<ExprPtr> exprs, std::vector<PlanColumn> schema);
  std::string Describe() const override;
  std::vector<ExprPtr> exprs;
};

// A projection whose entries may be set-returning functions
// (SetFunctionExpr): each input row yields as many rows as its longest
// function, the shorter ones and the plain entries padded as PostgreSQL 10+
// does (plain entries repeat, exhausted functions give NULL).
class ProjectSetNode : public PlanNode {
 public:
  ProjectSetNode(PlanPtr child, std::vector<ExprPtr> exprs, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kProjectSet, std::move(schema)), exprs(std::move(exprs)) {
    children_.push_back(std::move(child));
  }
  std::string Describe() const override { return "ProjectSet"; }
  std::vector<ExprPtr> exprs;
  // Stream plans only (a function in FROM WITH ORDINALITY reading the items
  // before it): a last schema column, after the exprs' ones, numbering each
  // input row's generated rows from 1.
  bool ordinality = false;
  // Stream plans only (LEFT JOIN LATERAL of such a function): an input row
  // whose functions give no row (none that passes `outer_condition`, over
  // this node's columns, when there is one) gives one, their columns NULL.
  bool outer = false;
  ExprPtr outer_condition;
};

struct SortKey {
  ExprPtr expr;
  bool descending = false;
  bool nulls_first = false;
};

struct AggregateCall {
  AggregateSignature sig;
  std::vector<ExprPtr> args;
  bool distinct = false;
  ExprPtr filter;  // FILTER (WHERE ...), may be null
  // string_agg(x, ',' ORDER BY y): the order rows are fed in (may be empty).
  std::vector<SortKey> order_by;
  std::string ToString() const;
};

// Output: the group keys, then one column per aggregate call.
class AggregateNode : public PlanNode {
 public:
  AggregateNode(PlanPtr child, std::vector<ExprPtr> group_keys, std::vector<AggregateCall> aggs,
                std::vector<PlanColumn> schema);
  std::string Describe() const override;
  std::vector<ExprPtr> group_keys;
  std::vector<AggregateCall> aggs;
  // Group keys from this one on depend on those before (the binder adds a
  // table's other columns when the query groups by its whole primary key,
  // as PostgreSQL's functional dependency lets it read them): they split no
  // group, so one nothing reads may be dropped (column_pruning.h).
  size_t dependent_keys_from = SIZE_MAX;
};

enum class JoinType { kInner, kLeft, kRight, kFull, kSemi, kAnti };
const char* JoinTypeName(JoinType t);

// Output: left columns then right columns (semi/anti: left columns only).
// `condition` refers to that concatenation. The optimizer fills left_keys /
// right_keys (each over its own side) with the equality conjuncts it can
// hash on and leaves the rest in `condition`.
class JoinNode : public PlanNode {
 public:
  JoinNode(JoinType type, PlanPtr left, PlanPtr right, ExprPtr condition);
  std::string Describe() const override;
  JoinType type;
  ExprPtr condition;  // may be null (cross join)
  std::vector<ExprPtr> left_keys, right_keys;
  // NOT IN (kAnti only): once the right side has a row, a NULL key on
  // either side makes the comparison unknown, which counts as a match (the
  // left row is not emitted).
  bool null_aware = false;
  // A process-time temporal join (RisingWave's JOIN t FOR SYSTEM_TIME AS OF
  // PROCTIME(); kInner or kLeft): in a stream, each left row is joined with
  // the right's rows as they are when it arrives, and later changes of the
  // right side change no output row. A batch query runs it as a plain join
  // (every row "arrives" at its snapshot). Never reordered.
  bool process_time = false;
  // An as-of join (ASOF [LEFT] JOIN; kInner or kLeft): each left row is
  // joined with at most one right row, among those that pass `condition`
  // the one whose `asof_right` value is the greatest (asof_greatest: the
  // condition has left >= right or left > right) or else the least, ties
  // taken in any order. `asof_left` reads the left's columns, `asof_right`
  // the right's (numbered from 0); the comparison itself stays in
  // `condition`.
  bool asof = false;
  ExprPtr asof_left, asof_right;
  bool asof_greatest = true;
};

// A join whose right input is a LATERAL subquery reading the left's
// columns (OuterRefExpr one level up): the right plan runs again for each
// left row, with that row as EvalContext::outer_rows' innermost entry. Its
// output is the left's columns then the right's; an INNER join keeps the
// pairs that pass `condition`, a LEFT join also keeps each left row that
// had none, padded with NULLs. The left's columns are all kept (the right
// plan reads them by position).
class LateralJoinNode : public PlanNode {
 public:
  LateralJoinNode(JoinType type, PlanPtr left, PlanPtr right, ExprPtr condition);
  std::string Describe() const override;
  JoinType type;      // kInner or kLeft
  ExprPtr condition;  // over the joined row; may be null
};

class SortNode : public PlanNode {
 public:
  SortNode(PlanPtr child, std::vector<SortKey> keys);
  std::string Describe() const override;
  std::vector<SortKey> keys;
};

class LimitNode : public PlanNode {
 public:
  LimitNode(PlanPtr child, int64_t limit, int64_t offset);
  std::string Describe() const override;
  int64_t limit;   // -1: none
  int64_t offset;
  // Set when LIMIT / OFFSET is given by parameters ($n): evaluated when the
  // statement runs (LimitArgument), in place of limit / offset.
  ExprPtr limit_value, offset_value;
  // FETCH FIRST ... WITH TIES: the child is the Sort of ORDER BY, and rows
  // equal to the last one on its keys are kept too.
  bool with_ties = false;
};

// LIMIT's (or OFFSET's) value from its argument as PostgreSQL checks it:
// NULL is no limit (-1) / no offset (0); a negative value is 2201W
// (2201X for OFFSET).
int64_t LimitArgument(const Value& v, bool is_limit);

// Removes duplicate rows of its child (SELECT DISTINCT, UNION).
class DistinctNode : public PlanNode {
 public:
  explicit DistinctNode(PlanPtr child);
  std::string Describe() const override { return "Distinct"; }
};

enum class SetOpKind { kUnion, kIntersect, kExcept };

class SetOpNode : public PlanNode {
 public:
  SetOpNode(SetOpKind op, bool all, PlanPtr left, PlanPtr right);
  std::string Describe() const override;
  SetOpKind op;
  bool all;
};

// WITH RECURSIVE's query, non-recursive term UNION [ALL] recursive term:
// the first child's rows, then the second's run again and again, each time
// over the rows the run before produced (its WorkTableScans of
// `work_table` read them), until a run produces none. UNION (not ALL)
// drops rows seen before, which also ends a recursion that only repeats.
class RecursiveUnionNode : public PlanNode {
 public:
  RecursiveUnionNode(PlanPtr non_recursive, PlanPtr recursive, bool all, int work_table)
      : PlanNode(Kind::kRecursiveUnion, non_recursive->schema()), all(all), work_table(work_table) {
    children_.push_back(std::move(non_recursive));
    children_.push_back(std::move(recursive));
  }
  std::string Describe() const override { return fmt::format("RecursiveUnion{} (work table {})", all ? " All" : "", work_table); }
  bool all;
  int work_table;  // the statement's number for it
};

// The rows the previous run of a recursive term produced (RecursiveUnionNode).
class WorkTableScanNode : public PlanNode {
 public:
  WorkTableScanNode(int work_table, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kWorkTableScan, std::move(schema)), work_table(work_table) {}
  std::string Describe() const override { return fmt::format("WorkTableScan {}", work_table); }
  int work_table;
};

// RisingWave's `WITH c AS CHANGELOG FROM t`: each change of the input as a
// row of its own: the input's columns (an update: its old row, then its new
// one), then changelog_op (smallint: 1 insert, 2 delete, 3 update's new
// row, 4 update's old row) and a hidden bigint _changelog_row_id, unique
// and increasing per actor. Only in streaming jobs (its output is
// append-only); a batch query refuses it.
class ChangelogNode : public PlanNode {
 public:
  explicit ChangelogNode(PlanPtr child);
  std::string Describe() const override { return "Changelog"; }
};

// Functions in FROM: generate_series(start, stop[, step]) over integers or
// timestamps, unnest(array).
class TableFunctionNode : public PlanNode {
 public:
  TableFunctionNode(std::string name, std::vector<ExprPtr> args, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kTableFunction, std::move(schema)), name(std::move(name)), args(std::move(args)) {}
  std::string Describe() const override { return "TableFunction " + name; }
  std::string name;
  std::vector<ExprPtr> args;
  // WITH ORDINALITY: a last column (bigint) numbering the rows from 1.
  bool with_ordinality = false;
  // The function's value per row, as a set-returning function in a select
  // list has it (a struct for a record, whose fields are the columns).
  DataType value_type;
};

enum class WindowFunctionKind {
  kRowNumber, kRank, kDenseRank, kPercentRank, kCumeDist, kNtile, kLag, kLead, kFirstValue, kLastValue, kNthValue,
  kAggregate
};

// A window frame (PostgreSQL's): which rows of the partition, relative to
// the current one, an aggregate or first/last/nth_value reads.
struct WindowFrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  // kPreceding/kFollowing. ROWS and GROUPS: a bigint count (>= 0, evaluated
  // once). RANGE: the bound's ORDER BY value for the current row (the
  // sort key minus or plus the offset, over the window's input), and the
  // offset itself (checked >= 0).
  ExprPtr offset;
  ExprPtr range_value;
};

struct WindowFrame {
  enum class Mode { kRange, kRows, kGroups };
  enum class Exclude { kNone, kCurrentRow, kGroup, kTies };
  Mode mode = Mode::kRange;
  WindowFrameBound start{WindowFrameBound::Kind::kUnboundedPreceding, nullptr, nullptr};
  WindowFrameBound end{WindowFrameBound::Kind::kCurrentRow, nullptr, nullptr};
  Exclude exclude = Exclude::kNone;
  std::string ToString() const;  // empty for the default frame
};

struct WindowCall {
  WindowFunctionKind kind;
  // lag/lead(value [, offset [, default]]), ntile(n), first/last_value(v),
  // nth_value(v, n), the aggregate's arguments.
  std::vector<ExprPtr> args;
  AggregateSignature agg{};  // kAggregate
  ExprPtr filter;            // kAggregate: FILTER (WHERE ...), may be null
  DataType type = DataType::Int64();  // the result's
  std::vector<ExprPtr> partition_by;
  std::vector<SortKey> order_by;
  WindowFrame frame;
  std::string name;  // the function's, for ToString
  std::string ToString() const;
};

// A deep copy.
WindowCall CloneWindowCall(const WindowCall& call);

// Window functions over partitions of the child's rows. Output: the
// child's columns, then one column per call.
class WindowNode : public PlanNode {
 public:
  WindowNode(PlanPtr child, std::vector<WindowCall> calls);
  std::string Describe() const override;
  std::vector<WindowCall> calls;
  // Only the rows its one row_number() call numbers 1 are read above (a
  // filter keeps them: DISTINCT ON), so a batch executor may return just
  // those, keeping one row per partition instead of sorting every row.
  bool first_per_partition = false;
};

// HOP(t, ts, slide, size): each row of the child once per window of
// `size` starting every `slide` that contains its time column. Output: the
// child's columns, window_start, window_end.
class HopNode : public PlanNode {
 public:
  HopNode(PlanPtr child, int time_column, int64_t slide_micros, int64_t size_micros, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kHop, std::move(schema)), time_column(time_column), slide(slide_micros), size(size_micros) {
    children_.push_back(std::move(child));
  }
  std::string Describe() const override;
  int time_column;
  int64_t slide, size;
};

// DML. The child produces the rows to write; RETURNING expressions (over
// the written row: all table columns) are optional. Without RETURNING, the
// output is a single count.
// A table's CHECK constraint bound over all its columns (hidden ones
// included, in order): a written row passes unless it evaluates to false.
// Two more kinds are only evaluated, for the errors they throw
// (`evaluate_only`, no name): a domain column's constraints (a
// DomainCheckExpr over the column) and an expression index's elements
// (CREATE INDEX ... ((a / b)): a value the expression cannot be computed
// for fails the write, as PostgreSQL's index insertion does, instead of
// the index job).
struct CheckConstraint {
  std::string name;
  ExprPtr expr;
  bool evaluate_only = false;
};

// A generated column (GENERATED ALWAYS AS (...) STORED): its expression
// over the row's columns, computed for every row written.
struct GeneratedColumn {
  int column;
  ExprPtr expr;
};

class InsertNode : public PlanNode {
 public:
  InsertNode(TableRef table, PlanPtr source, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kInsert, std::move(schema)), table(std::move(table)) {
    children_.push_back(std::move(source));
  }
  std::string Describe() const override {
    return "Insert " + table->name + (on_conflict == OnConflict::kNothing  ? " on conflict do nothing"
                                      : on_conflict == OnConflict::kUpdate ? " on conflict do update"
                                                                           : "");
  }
  TableRef table;
  // The source produces all visible table columns in order (defaults filled
  // by the binder); the hidden row id is generated by the writer.
  std::vector<ExprPtr> returning;
  std::vector<CheckConstraint> checks;  // the table's, on every row written
  std::vector<GeneratedColumn> generated;  // the table's, computed for every row written (before checks)
  // ON CONFLICT: a proposed row that conflicts with an existing one (in the
  // table, the transaction's writes or this statement's) on an arbiter
  // (the primary key, conflict_on_key, or the unique constraints named in
  // conflict_uniques) is skipped, or the existing row is updated:
  // conflict_set computes every table column and conflict_where (may be
  // null) decides, both over the existing row's columns followed by the
  // proposed row's (EXCLUDED), all columns each.
  enum class OnConflict { kNone, kNothing, kUpdate };
  OnConflict on_conflict = OnConflict::kNone;
  bool conflict_on_key = false;
  std::vector<std::string> conflict_uniques;
  // Arbiters that are partial unique indexes: their predicates (over the
  // table's columns), by name; a row they are not true for is not theirs.
  std::map<std::string, ExprPtr> conflict_predicates;
  // Arbiters with elements that are expressions: each element's (null for
  // a column), over the table's columns, by name.
  std::map<std::string, std::vector<ExprPtr>> conflict_elements;
  std::vector<ExprPtr> conflict_set;
  ExprPtr conflict_where;
};

// Child produces the old row (all table columns, hidden ones included);
// `assignments` compute the new values of every column from it.
class UpdateNode : public PlanNode {
 public:
  UpdateNode(TableRef table, PlanPtr source, std::vector<ExprPtr> new_values, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kUpdate, std::move(schema)), table(std::move(table)), new_values(std::move(new_values)) {
    children_.push_back(std::move(source));
  }
  std::string Describe() const override { return "Update " + table->name; }
  TableRef table;
  std::vector<ExprPtr> new_values;
  std::vector<ExprPtr> returning;
  std::vector<CheckConstraint> checks;  // the table's, on every new row
  std::vector<GeneratedColumn> generated;  // the table's, computed for every new row
  // UPDATE ... FROM: the child joins the target's rows (its first columns)
  // with other rows, so a target row may come more than once: it is
  // updated once, with its first match (PostgreSQL leaves which unspecified).
  bool joined = false;
};

class DeleteNode : public PlanNode {
 public:
  DeleteNode(TableRef table, PlanPtr source, std::vector<PlanColumn> schema)
      : PlanNode(Kind::kDelete, std::move(schema)), table(std::move(table)) {
    children_.push_back(std::move(source));
  }
  std::string Describe() const override { return "Delete " + table->name; }
  TableRef table;
  std::vector<ExprPtr> returning;
  bool joined = false;  // DELETE ... USING: as UpdateNode::joined
};

}  // namespace freshet
