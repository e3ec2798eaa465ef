// COPY t [(cols)] FROM STDIN and COPY {t [(cols)] | (query)} TO STDOUT, in
// PostgreSQL's text, CSV and binary formats: a load outside a transaction
// block into a table keyed by row ids is a bulk load (loader/).
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "batch/dml.h"
#include "batch/executor_builder.h"
#include "batch/subquery_runner.h"
#include "common/encoding.h"
#include "common/error.h"
#include "expr/cast.h"
#include "planner/optimizer.h"
#include "pgproto/copy_format.h"
#include "loader/copy_loader.h"
#include "pgproto/pg_binary.h"
#include "pgproto/utf8_check.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"
#include "storage/bulk_rows.h"
#include "storage/table_engines.h"
#include "storage/state_table.h"

namespace freshet {


namespace {

// COPY names no generated column (42P10, as PostgreSQL).
void CheckNotGenerated(const ColumnCatalog& column) {
  if (!column.generated.empty())
    throw SqlError(sqlstate::kInvalidColumnReference, fmt::format("column \"{}\" is a generated column", column.name))
        .WithDetail("Generated columns cannot be used in COPY.");
}

}  // namespace

StatementOutcome HandleCopy(const HandlerArgs& args) {
  Session* session = args.session;
  Instance* instance = args.instance();
  ResultSink* sink = args.sink;
  const EvalContext& eval = session->eval();
  std::atomic<bool>* cancel = session->cancel_flag();
  const PgQuery__CopyStmt* c = args.stmt.node->copy_stmt;
  if (c->is_program || (c->filename && *c->filename))
    throw SqlError(sqlstate::kFeatureNotSupported, "COPY to or from a file or program is not supported; use STDIN/STDOUT");
  CopyFormat fmt = ParseCopyOptions(c);
  Binder binder(session->BinderContextFor(args.stmt, nullptr));

  if (c->is_from) {
    if (!c->relation) throw SqlError(sqlstate::kSyntaxError, "COPY FROM needs a table");
    TableRef table = binder.ResolveRelation(c->relation);
    if (table->kind != RelationKind::kTable)
      FRESHET_THROW(sqlstate::kWrongObjectType, "cannot copy to {} \"{}\"", RelationKindName(table->kind), table->name);
    CheckWritable(*table);
    if (fmt.freeze && !session->CreatedOrTruncatedInTransaction(table->id))
      throw SqlError(sqlstate::kObjectNotInPrerequisiteState,
                     "cannot perform COPY FREEZE because the table was not created or truncated in the current "
                     "subtransaction");
    // Generated columns are computed, never copied (as PostgreSQL).
    std::vector<int> targets;
    if (c->n_attlist == 0) {
      for (size_t i = 0; i < table->columns.size(); i++)
        if (!table->columns[i].hidden && table->columns[i].generated.empty()) targets.push_back(static_cast<int>(i));
    } else {
      for (size_t i = 0; i < c->n_attlist; i++) {
        std::string name = c->attlist[i]->string->sval;
        int idx = table->ColumnIndex(name);
        if (idx < 0 || table->columns[idx].hidden)
          FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", name, table->name);
        if (std::find(targets.begin(), targets.end(), idx) != targets.end())
          FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" specified more than once", name);
        CheckNotGenerated(table->columns[idx]);
        targets.push_back(idx);
      }
    }
    std::vector<std::string> target_names;
    for (int t : targets) target_names.push_back(table->columns[t].name);
    ResolveColumnOptions(&fmt, target_names);
    // Columns left out get their DEFAULT, as with INSERT.
    std::vector<ExprPtr> defaults(table->columns.size());
    for (size_t i = 0; i < table->columns.size(); i++) {
      const ColumnCatalog& col = table->columns[i];
      if (!col.hidden && !col.default_expr.empty() &&
          std::find(targets.begin(), targets.end(), static_cast<int>(i)) == targets.end())
        defaults[i] = binder.BindColumnDefault(col);
    }
    sink->BeginCopyIn(targets.size(), fmt.binary);
    std::string data;
    auto drain_after_marker = [&] {
      while (sink->ReadCopyData(&data)) {
      }
    };
    // Outside a transaction block, rows of a table keyed by generated row
    // ids are a bulk load (bulk_rows.h); anything else is ordinary writes.
    // A table with a watermark drops late rows as they are applied, which
    // needs them as ordinary writes.
    const bool bulk_load = !session->InTransactionBlock() && table->KeyedByRowId() && table->watermark_column < 0;
    // CHECK constraints are checked on this thread (the parallel loader
    // does not evaluate expressions).
    std::vector<CheckConstraint> checks = binder.BindChecks(*table);
    std::vector<GeneratedColumn> generated = binder.BindGenerated(*table);
    EvalContext check_eval = eval;
    if (bulk_load && !fmt.binary && checks.empty() && generated.empty()) {
      // A bulk load: parsed by worker threads, encoded straight into key
      // order and committed as SST files (copy_loader.h, bulk_rows.h).
      ParallelCopyLoader loader(table, targets, std::move(defaults), fmt, eval, instance->store(), cancel,
                                static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
      while (!loader.ended() && sink->ReadCopyData(&data)) loader.Append(data);
      if (loader.ended()) drain_after_marker();
      int64_t rows = 0;
      WriteSet writes;
      if (auto load = loader.Finish(&rows)) writes.AddBulk(std::move(load));
      session->Write(std::move(writes));
      return {"COPY " + std::to_string(rows)};
    }
    // Otherwise the rows become ordinary writes (checked keys, transactions).
    WriteSet writes;
    TableWriteSet& tw = writes.For(table->id);
    CopyRowBuilder rows(table, targets, eval, &defaults);
    // Binary bulk loads are parsed by this thread alone (their tuples are
    // not cut into blocks for workers).
    std::shared_ptr<BulkRows> bulk;
    if (bulk_load)
      bulk = instance->store()->engines().For(table->id).NewBulkRows(table->id, table->row_id_index,
                                                                    table->StorageDesc().dist_key_indices);
    auto flush = [&] {
      if (!bulk) {
        InsertVisibleRows(*table, rows.Take(), checks, generated, check_eval, &tw);
        return;
      }
      DataChunk full = PrepareInsertRows(*table, rows.Take());
      ComputeGenerated(*table, generated, &full, check_eval);
      CheckConstraints(*table, checks, full, check_eval);
      bulk->Add(full);
    };
    int64_t count = 0, line_no = 0;
    auto add_record = [&](const std::vector<CopyField>& fields) {
      line_no++;
      if (IsHeaderRecord(fmt, line_no, fields, table->name)) return;
      if (fmt.binary) rows.AddBinary(fields, line_no);
      else rows.Add(fields, line_no);
      count++;
      if (rows.rows() >= kChunkSize) {
        flush();
        if (cancel->load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
      }
    };
    // Binary data goes through the same steps with its own reader.
    auto read_all = [&](auto& reader) {
      std::vector<CopyField> fields;
      // Bad UTF-8 is found by the reader, before the record is counted.
      auto next = [&](bool final) {
        try {
          return reader.Next(final, &fields);
        } catch (SqlError& e) {
          if (e.code() == kCharacterNotInRepertoire)
            e.WithDetail(fmt::format("COPY {}, line {}", table->name, line_no + 1));
          throw;
        }
      };
      while (!reader.ended() && sink->ReadCopyData(&data)) {
        reader.Append(data);
        while (next(false)) add_record(fields);
      }
      if (reader.ended()) drain_after_marker();
      while (next(true)) add_record(fields);
    };
    if (fmt.binary) {
      BinaryCopyReader reader;
      read_all(reader);
    } else {
      CopyRecordReader reader(fmt);
      read_all(reader);
    }
    if (line_no == 0 && !fmt.binary) CheckCopyHeaderOfNoData(fmt, table->name);
    if (rows.rows() > 0) flush();
    if (bulk) {
      bulk->Finish();
      writes.AddBulk(std::move(bulk));
    }
    session->Write(std::move(writes));
    return {"COPY " + std::to_string(count)};
  }

  // COPY ... TO STDOUT: the query, or the table's (listed) columns.
  PlanPtr plan;
  if (c->query) {
    ParsedStatement inner = args.stmt;
    inner.node = c->query;
    std::vector<DataType> types;
    plan = PlanStatement(session, inner, &types);
  } else {
    std::vector<std::string> columns;
    for (size_t i = 0; i < c->n_attlist; i++) columns.push_back(c->attlist[i]->string->sval);
    // Generated columns are not copied out either (as PostgreSQL).
    TableRef table = binder.ResolveRelation(c->relation, /*missing_ok=*/true);
    if (table && table->kind == RelationKind::kTable) {
      for (const auto& name : columns)
        if (int i = table->ColumnIndex(name); i >= 0) CheckNotGenerated(table->columns[i]);
      bool any_generated = false;
      for (const auto& col : table->columns) any_generated |= !col.generated.empty();
      if (columns.empty() && any_generated)
        for (const auto& col : table->columns)
          if (!col.hidden && col.generated.empty()) columns.push_back(col.name);
    }
    plan = OptimizePlan(binder.BindRelationColumns(c->relation, columns));
  }
  if (!plan) throw SqlError(sqlstate::kFeatureNotSupported, "COPY supports only queries and tables");
  // As a query's: the block's pending writes are seen, the statement memory
  // limit holds, system tables can be copied.
  ExecContext ctx;
  WriteSet no_writes;
  PrepareExecContext(args, &no_writes, &ctx);
  BatchSubqueryRunner runner(&ctx);
  ctx.eval.subquery_runner = &runner;
  ExecutorPtr exec = BuildExecutor(*plan, ctx);
  std::vector<std::string> output_names;
  for (const auto& col : plan->schema()) output_names.push_back(col.name);
  ResolveColumnOptions(&fmt, output_names);
  sink->BeginCopyOut(plan->schema().size(), fmt.binary);
  // One CopyData message per row, as PostgreSQL sends them (clients such
  // as psycopg 3 read rows message by message): the binary header goes
  // with the first row, the trailer in a message of its own (with the
  // header when there are no rows), a text header line alone.
  int64_t rows = 0;
  if (fmt.binary) {
    DataChunk chunk;
    std::string out = BinaryCopyHeader();
    while (exec->Next(&chunk)) {
      for (size_t r = 0; r < chunk.num_rows(); r++) {
        PutFixed16BE(&out, static_cast<uint16_t>(chunk.num_columns()));
        for (size_t col = 0; col < chunk.num_columns(); col++) {
          const Vector& v = chunk.column(col);
          if (v.IsNull(r)) {
            PutFixed32BE(&out, 0xffffffffu);  // -1: NULL
            continue;
          }
          std::string bytes = EncodeBinary(v, r);
          PutFixed32BE(&out, static_cast<uint32_t>(bytes.size()));
          out += bytes;
        }
        sink->CopyData(out);
        out.clear();
      }
      rows += static_cast<int64_t>(chunk.num_rows());
    }
    out += BinaryCopyTrailer();
    sink->CopyData(out);
    sink->EndCopyOut();
    return {"COPY " + std::to_string(rows)};
  }
  if (fmt.header) {
    std::string line;
    for (size_t i = 0; i < plan->schema().size(); i++)
      line += (i ? std::string(1, fmt.delimiter) : "") + (fmt.csv ? QuoteCopyCsv(plan->schema()[i].name, fmt) : plan->schema()[i].name);
    sink->CopyData(line + "\n");
  }
  DataChunk chunk;
  std::string out;
  while (exec->Next(&chunk)) {
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      out.clear();
      for (size_t col = 0; col < chunk.num_columns(); col++) {
        if (col) out.push_back(fmt.delimiter);
        const Vector& v = chunk.column(col);
        if (v.IsNull(r)) {
          out += fmt.null_string;
          continue;
        }
        std::string text = FormatText(v, r, eval);
        bool force = col < fmt.force_quote_at.size() && fmt.force_quote_at[col];
        out += fmt.csv ? QuoteCopyCsv(text, fmt, force) : EscapeCopyText(text, fmt.delimiter);
      }
      out.push_back('\n');
      sink->CopyData(out);
    }
    rows += static_cast<int64_t>(chunk.num_rows());
  }
  sink->EndCopyOut();
  return {"COPY " + std::to_string(rows)};
}

}  // namespace freshet
