// Shared by the DML executors (insert.cc, update.cc, delete.cc): turning
// rows into WriteOps and checking constraints.
#pragma once

#include <string>
#include <unordered_set>

#include "batch/executor.h"
#include "planner/plan.h"
#include "storage/row_id.h"

namespace freshet {

// Checks NOT NULL constraints of `rows` (all table columns); throws 23502.
// (Generated columns are left to ComputeGenerated.) A time-series table's
// time index is checked by CheckTimeIndex too.
void CheckNotNull(const TableCatalog& table, const DataChunk& rows);
// 22008 when a time-series table's time index value cannot be stored
// (an infinity, or within the longest time window of the range's ends).
void CheckTimeIndex(const TableCatalog& table, const Vector& times);
// Computes the table's generated columns of `rows` (all table columns)
// from the other columns; 23502 for a NULL in one that must not be.
void ComputeGenerated(const TableCatalog& table, const std::vector<GeneratedColumn>& generated, DataChunk* rows,
                      EvalContext& ctx);
// Checks `rows` (all table columns) against the table's CHECK constraints;
// throws 23514 naming the first one a row fails, with the row.
void CheckConstraints(const TableCatalog& table, const std::vector<CheckConstraint>& checks, const DataChunk& rows,
                      EvalContext& ctx);
// Turns rows holding the table's visible columns into rows of all its
// columns: generates hidden row ids, checks NOT NULL.
DataChunk PrepareInsertRows(const TableCatalog& table, DataChunk visible_rows);
// The same with row ids taken beforehand: ids [offset, offset + rows) of
// `ids` (from ReserveRowIds).
DataChunk PrepareInsertRows(const TableCatalog& table, DataChunk visible_rows, const RowIdRun& ids, size_t offset);
// Takes n increasing row ids of the process's generator.
RowIdRun ReserveRowIds(size_t n);
// PrepareInsertRows and CheckConstraints, then appends the insert ops.
// Returns the full rows.
DataChunk InsertVisibleRows(const TableCatalog& table, DataChunk visible_rows, const std::vector<CheckConstraint>& checks,
                            const std::vector<GeneratedColumn>& generated, EvalContext& ctx, TableWriteSet* out);
// Appends an insert op per row (rows hold all table columns).
void AppendInserts(const TableCatalog& table, const DataChunk& rows, TableWriteSet* out);
// Storage key of row r of a chunk holding all table columns.
std::string RowKeyOf(const TableCatalog& table, const DataChunk& rows, size_t r);
// Stored encodings (as the table holds them) of the rows of `rows` (the
// table's columns first, then anything else): bytes in *buffer, one view
// per row in *out. A DML statement hands the rows it removes to the table's
// change stream this way (WriteOp::value of a delete).
void EncodeStoredRows(const TableCatalog& table, const DataChunk& rows, std::string* buffer,
                      std::vector<std::string_view>* out);
// The rows of `rows` (the table's columns first) whose key is not in
// *seen, the first of each key only; their keys are added to *seen.
// UPDATE ... FROM and DELETE ... USING write a target row once.
DataChunk FirstOfEachKey(const TableCatalog& table, const DataChunk& rows, std::unordered_set<std::string>* seen);

// Produces the DML result: one row with the count, or the RETURNING rows.
class DmlResult {
 public:
  DmlResult(const std::vector<ExprPtr>* returning, ExecContext& ctx) : returning_(returning), ctx_(ctx) {}
  void Add(const DataChunk& written_rows);
  bool Next(DataChunk* out);

 private:
  const std::vector<ExprPtr>* returning_;
  ExecContext& ctx_;
  int64_t count_ = 0;
  std::vector<DataChunk> rows_;
  bool emitted_count_ = false;
};

// Base of Insert, Update and Delete: Run() reads the child to its end and
// fills the WriteSet; the result (count or RETURNING rows) is served after.
class DmlExecutor : public Executor {
 public:
  DmlExecutor(const std::vector<ExprPtr>* returning, ExecutorPtr child, ExecContext& ctx)
      : child_(std::move(child)), ctx_(ctx), result_(returning, ctx) {}
  bool Next(DataChunk* out) final {
    if (!done_) {
      done_ = true;
      Run();
    }
    return result_.Next(out);
  }

 protected:
  virtual void Run() = 0;
  ExecutorPtr child_;
  ExecContext& ctx_;
  DmlResult result_;

 private:
  bool done_ = false;
};

}  // namespace freshet
