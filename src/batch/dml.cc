#include "batch/dml.h"

#include "common/encoding.h"
#include "common/error.h"
#include "expr/cast.h"
#include "storage/row_id.h"
#include "storage/state_table.h"
#include "storage/timeseries/time_partitions.h"

namespace freshet {

namespace {

// 23502 when column c of `values` holds a NULL and the column may not.
void CheckColumnNotNull(const TableCatalog& table, size_t c, const Vector& values) {
  const auto& col = table.columns[c];
  bool required = col.not_null || std::find(table.pk.begin(), table.pk.end(), static_cast<int>(c)) != table.pk.end();
  if (!required || !values.HasNulls()) return;
  throw SqlError(sqlstate::kNotNullViolation,
                 fmt::format("null value in column \"{}\" of relation \"{}\" violates not-null constraint", col.name,
                             table.name))
      .WithField('t', table.name)
      .WithField('c', col.name);
}

}  // namespace

void CheckNotNull(const TableCatalog& table, const DataChunk& rows) {
  for (size_t c = 0; c < table.columns.size(); c++)
    if (table.columns[c].generated.empty()) CheckColumnNotNull(table, c, rows.column(c));  // generated: ComputeGenerated
  if (table.IsTimeSeries()) CheckTimeIndex(table, rows.column(table.timeseries.time_index));
}

void CheckTimeIndex(const TableCatalog& table, const Vector& times) {
  // A time the engine can partition under any window (the longest a table
  // may have: TimeWindowSeconds): every timestamp but the infinities and
  // the last centuries of the range. The commit must never meet one it
  // cannot store.
  // A nanosecond time index spans only 584 years: its values are checked
  // against the table's own window (the default one, a day, without one).
  static const int64_t kLongestWindow = TimeWindowSeconds("292 years");
  const bool nanos = times.type().id == TypeId::kTimestampNs;
  int64_t window = kLongestWindow;
  if (nanos) {
    const std::string own = table.timeseries.Option("compaction.twcs.time_window");
    window = own.empty() ? 86400 : TimeWindowSeconds(own);
  }
  for (size_t r = 0; r < times.size(); r++) {
    if (times.IsNull(r)) continue;
    const int64_t ts = times.GetInt(r);
    bool ok = nanos || (ts != INT64_MAX && ts != INT64_MIN);
    if (ok) {
      try {
        PartitionRangeOf(ts, nanos ? TimeUnit::kNanosecond : TimeUnit::kMicrosecond, window);
      } catch (const SqlError&) {
        ok = false;
      }
    }
    if (!ok)
      throw SqlError(sqlstate::kDatetimeFieldOverflow,
                     fmt::format("timestamp {} is out of range for the time index \"{}\" of \"{}\"",
                                 times.GetValue(r).ToString(), table.columns[table.timeseries.time_index].name,
                                 table.name));
  }
}

void ComputeGenerated(const TableCatalog& table, const std::vector<GeneratedColumn>& generated, DataChunk* rows,
                      EvalContext& ctx) {
  for (const GeneratedColumn& g : generated) {
    Vector values = g.expr->Eval(*rows, ctx);
    CheckColumnNotNull(table, g.column, values);
    rows->column(g.column) = std::move(values);
  }
}

void CheckConstraints(const TableCatalog& table, const std::vector<CheckConstraint>& checks, const DataChunk& rows,
                      EvalContext& ctx) {
  for (const CheckConstraint& check : checks) {
    Vector result = check.expr->Eval(rows, ctx);
    if (check.evaluate_only) continue;
    for (size_t r = 0; r < rows.num_rows(); r++) {
      if (result.IsNull(r) || result.GetValue(r).bool_value()) continue;
      // As PostgreSQL: the row's columns as text, null for NULL.
      std::string values;
      for (size_t c = 0; c < table.columns.size(); c++) {
        if (table.columns[c].hidden) continue;
        Value v = rows.column(c).GetValue(r);
        values += (values.empty() ? "" : ", ") + (v.is_null() ? std::string("null") : FormatValueText(v, ctx));
      }
      throw SqlError(sqlstate::kCheckViolation,
                     fmt::format("new row for relation \"{}\" violates check constraint \"{}\"", table.name, check.name))
          .WithDetail("Failing row contains (" + values + ").")
          .WithField('t', table.name)
          .WithField('n', check.name);
    }
  }
}

std::string RowKeyOf(const TableCatalog& table, const DataChunk& rows, size_t r) {
  return RowKey(table.id, table.dist_key, table.pk, rows, r);
}

void EncodeStoredRows(const TableCatalog& table, const DataChunk& rows, std::string* buffer,
                      std::vector<std::string_view>* out) {
  const size_t stored_columns = table.columns.size();
  std::vector<Vector> columns(rows.columns().begin(), rows.columns().begin() + stored_columns);
  DataChunk stored(std::move(columns));
  stored.set_cardinality(rows.num_rows());
  std::vector<size_t> sizes;
  EncodedRowSizes(stored, &sizes);
  size_t total = 0;
  for (size_t n : sizes) total += n;
  buffer->resize(total);
  std::vector<char*> at(sizes.size());
  out->resize(sizes.size());
  char* p = buffer->data();
  for (size_t r = 0; r < sizes.size(); r++) {
    at[r] = p;
    (*out)[r] = std::string_view(p, sizes[r]);
    p += sizes[r];
  }
  EncodeRowsTo(stored, at.data());
}

DataChunk FirstOfEachKey(const TableCatalog& table, const DataChunk& rows, std::unordered_set<std::string>* seen) {
  std::vector<uint32_t> keep;
  for (size_t r = 0; r < rows.num_rows(); r++)
    if (seen->insert(RowKeyOf(table, rows, r)).second) keep.push_back(static_cast<uint32_t>(r));
  if (keep.size() == rows.num_rows()) return rows;
  return rows.Take(keep);
}

namespace {

RowIdGenerator& ProcessRowIds() {
  static RowIdGenerator generator;
  return generator;
}

// Rows of the table's visible columns as stored: with the hidden _row_id
// column (generated unless given), and NULL in columns dropped without a
// rewrite (hidden, kept in the stored layout: alter_table.cc).
DataChunk WithRowIds(const TableCatalog& table, DataChunk in, const RowIdRun* given = nullptr, size_t offset = 0) {
  if (in.num_columns() == table.columns.size()) return in;  // nothing hidden
  DataChunk rows;
  size_t src = 0;
  const size_t n = in.num_rows();  // before columns are moved out of `in`
  for (size_t c = 0; c < table.columns.size(); c++) {
    if (table.columns[c].hidden && static_cast<int>(c) != table.row_id_index) {
      Vector dropped(table.columns[c].type);
      dropped.AppendNulls(n);
      rows.AddColumn(std::move(dropped));
    } else if (static_cast<int>(c) == table.row_id_index) {
      Vector ids(DataType::Int64());
      ids.ints().resize(n);
      if (given) given->Fill(offset, n, ids.ints().data());
      else ProcessRowIds().NextN(n, ids.ints().data());
      ids.validity().assign(n, 1);
      rows.AddColumn(std::move(ids));
    } else {
      rows.AddColumn(std::move(in.column(src++)));
    }
  }
  rows.set_cardinality(n);
  return rows;
}

}  // namespace

DataChunk PrepareInsertRows(const TableCatalog& table, DataChunk visible_rows) {
  DataChunk rows = WithRowIds(table, std::move(visible_rows));
  CheckNotNull(table, rows);
  return rows;
}

DataChunk PrepareInsertRows(const TableCatalog& table, DataChunk visible_rows, const RowIdRun& ids, size_t offset) {
  if (offset + visible_rows.num_rows() > ids.count) throw SqlError(sqlstate::kInternalError, "row ids run out");
  DataChunk rows = WithRowIds(table, std::move(visible_rows), &ids, offset);
  CheckNotNull(table, rows);
  return rows;
}

RowIdRun ReserveRowIds(size_t n) { return ProcessRowIds().Reserve(n); }

DataChunk InsertVisibleRows(const TableCatalog& table, DataChunk visible_rows, const std::vector<CheckConstraint>& checks,
                            const std::vector<GeneratedColumn>& generated, EvalContext& ctx, TableWriteSet* out) {
  DataChunk rows = PrepareInsertRows(table, std::move(visible_rows));
  ComputeGenerated(table, generated, &rows, ctx);
  CheckConstraints(table, checks, rows, ctx);
  AppendInserts(table, rows, out);
  return rows;
}

void AppendInserts(const TableCatalog& table, const DataChunk& rows, TableWriteSet* out) {
  bool check = table.row_id_index < 0;  // generated row ids cannot collide
  std::string value;
  for (size_t r = 0; r < rows.num_rows(); r++) {
    value.clear();
    EncodeRow(rows, r, &value);
    out->ops.Put(RowKeyOf(table, rows, r), value, 1, check);
  }
}

void DmlResult::Add(const DataChunk& written) {
  count_ += static_cast<int64_t>(written.num_rows());
  if (returning_ && !returning_->empty()) rows_.push_back(EvalExpressions(*returning_, written, ctx_.eval));
}

bool DmlResult::Next(DataChunk* out) {
  if (returning_ && !returning_->empty()) {
    if (rows_.empty()) return false;
    *out = std::move(rows_.front());
    rows_.erase(rows_.begin());
    return true;
  }
  if (emitted_count_) return false;
  emitted_count_ = true;
  *out = DataChunk(std::vector<DataType>{DataType::Int64()});
  out->column(0).AppendInt(count_);
  out->set_cardinality(1);
  return true;
}

}  // namespace freshet
