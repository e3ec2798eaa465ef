// CREATE TABLE and CREATE SOURCE: a table of rows written by DML, a table a
// connector fills (WITH (connector = ...): a job reads the source into it),
// or a source read by the jobs that use it.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "catalog/storage_parameters.h"
#include "common/error.h"
#include "connector/connector.h"
#include "expr/cast.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/sequence.h"
#include "frontend/handler/objects.h"
#include "frontend/handler/table_definition.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"

namespace freshet {

namespace {

// WATERMARK FOR column AS expr: on an append-only table or a source (rows
// below the watermark are dropped as they arrive, so a table that could
// update or delete rows would keep rows its views never saw).
void BindWatermark(Session* session, const ParsedStatement& stmt, TableCatalog* t) {
  const int idx = t->ColumnIndex(stmt.watermark_column);
  if (idx < 0 || t->columns[idx].hidden)
    throw SqlError(sqlstate::kUndefinedColumn,
                   fmt::format("column \"{}\" named in WATERMARK FOR does not exist", stmt.watermark_column));
  const TypeId type = t->columns[idx].type.id;
  if (type != TypeId::kTimestamp && type != TypeId::kTimestamptz && type != TypeId::kDate && type != TypeId::kInt16 &&
      type != TypeId::kInt32 && type != TypeId::kInt64)
    throw SqlError(sqlstate::kDatatypeMismatch,
                   fmt::format("the watermark column \"{}\" must be a timestamp, timestamptz, date or integer column, not {}",
                               stmt.watermark_column, t->columns[idx].type.ToString()));
  if (!stmt.append_only && !stmt.is_source && !stmt.has_with_options)
    throw SqlError(sqlstate::kFeatureNotSupported, "a table with a watermark must be append-only")
        .WithHint("Add APPEND ONLY after the column list.");
  t->watermark_column = idx;
  t->watermark_expr = stmt.watermark_expr;
  Binder binder(session->BinderContextFor(stmt, nullptr));
  binder.BindWatermarkExpression(*t);
}

}  // namespace

StatementOutcome HandleCreateTable(const HandlerArgs& args) {
  Session* session = args.session;
  const ParsedStatement& stmt = args.stmt;
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__Node* node = stmt.node;
  const PgQuery__CreateStmt* cs = node->create_stmt;
  if (stmt.has_with_options && !stmt.is_source) session->PreventInTransactionBlock("CREATE TABLE with a connector");
  if (cs->n_inh_relations || cs->partspec || cs->of_typename)
    throw SqlError(sqlstate::kFeatureNotSupported, "inheritance, partitioning and typed tables are not supported");
  const bool temporary = cs->relation->relpersistence && std::string(cs->relation->relpersistence) == "t";
  if (temporary && stmt.has_with_options && !stmt.is_source)
    throw SqlError(sqlstate::kFeatureNotSupported, "temporary tables cannot have connectors");
  const bool on_commit = cs->oncommit != PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_NOOP &&
                         cs->oncommit != PG_QUERY__ON_COMMIT_ACTION__ON_COMMIT_ACTION_UNDEFINED;
  if (on_commit && !temporary)
    throw SqlError(sqlstate::kInvalidTableDefinition, "ON COMMIT can only be used on temporary tables");
  Binder binder(session->BinderContextFor(stmt, nullptr));
  ObjectId schema_id = CreationSchema(args, cs->relation, temporary);
  if (catalog->FindTable(schema_id, cs->relation->relname)) {
    if (cs->if_not_exists) {
      args.sink->Notice(fmt::format("relation \"{}\" already exists, skipping", cs->relation->relname));
      return {"CREATE TABLE"};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", cs->relation->relname);
  }
  TableCatalog t;
  t.database_id = session->database().id;
  t.schema_id = schema_id;
  t.name = cs->relation->relname;
  t.definition = stmt.text;
  t.owner = catalog->FindUser(session->user())->id;
  std::vector<std::string> pk_names;
  auto add_pk = [&](const std::string& name) { pk_names.push_back(name); };
  bool pk_declared = false;
  auto declare_pk = [&] {
    if (pk_declared)
      FRESHET_THROW(sqlstate::kInvalidTableDefinition, "multiple primary keys for table \"{}\" are not allowed", t.name);
    pk_declared = true;
  };
  // PostgreSQL's MaxHeapAttributeNumber (and a SELECT * of the table
  // stays within the 1,664 entries of a target list).
  size_t column_defs = 0;
  for (size_t i = 0; i < cs->n_table_elts; i++)
    column_defs += cs->table_elts[i]->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF;
  if (column_defs > 1600) throw SqlError("54011", "tables can have at most 1600 columns");
  std::vector<TableCatalog> owned_sequences;  // of serial and identity columns
  // FOREIGN KEYs with their columns, bound once the columns and key are known.
  struct ForeignKeyItem {
    std::vector<std::string> columns;
    const PgQuery__Constraint* clause;
    bool deferrable, deferred;
  };
  std::vector<ForeignKeyItem> foreign_keys;
  std::vector<const PgQuery__Constraint*> checks;  // bound once the columns are known
  std::vector<std::pair<std::vector<std::string>, const PgQuery__Constraint*>> uniques;  // the same
  // LIKE ... INCLUDING INDEXES / CONSTRAINTS: the source's, given names of
  // this table's (unique) or kept (checks).
  std::vector<ConstraintCatalog> copied_uniques, copied_checks;
  std::vector<std::pair<int, BoundColumn>> generated;  // bound once the columns are known
  const std::string schema_name = catalog->GetSchema(schema_id) ? catalog->GetSchema(schema_id)->name : "public";
  for (size_t i = 0; i < cs->n_table_elts; i++) {
    const PgQuery__Node* e = cs->table_elts[i];
    if (e->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
      BoundColumn bound = BindColumnDef(session, stmt, e->column_def);
      ColumnCatalog col = std::move(bound.column);
      for (const auto& fk : bound.foreign_keys) foreign_keys.push_back({{col.name}, fk.clause, fk.deferrable, fk.deferred});
      checks.insert(checks.end(), bound.checks.begin(), bound.checks.end());
      for (const PgQuery__Constraint* c : bound.uniques) uniques.push_back({{col.name}, c});
      if (t.ColumnIndex(col.name) >= 0)
        FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" specified more than once", col.name);
      if (bound.primary_key) {
        declare_pk();
        add_pk(col.name);
      }
      if (bound.owns_sequence) {
        std::vector<std::string> taken;
        for (const auto& q : owned_sequences) taken.push_back(q.name);
        bound.column = col;
        owned_sequences.push_back(
            OwnedSequence(args, *catalog, t, schema_name, static_cast<int>(t.columns.size()), taken, &bound));
        col.default_expr = bound.column.default_expr;
      }
      if (bound.generated) generated.push_back({static_cast<int>(t.columns.size()), bound});
      t.columns.push_back(col);
    } else if (e->node_case == PG_QUERY__NODE__NODE_CONSTRAINT) {
      const PgQuery__Constraint* c = e->constraint;
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN) {
        std::vector<std::string> columns;
        for (size_t k = 0; k < c->n_fk_attrs; k++) columns.push_back(StringOf(c->fk_attrs[k]));
        foreign_keys.push_back({columns, c, static_cast<bool>(c->deferrable), static_cast<bool>(c->initdeferred)});
        continue;
      }
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_CHECK) {
        checks.push_back(c);
        continue;
      }
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE) {
        uniques.push_back({ConstraintKeys(c), c});
        continue;
      }
      if (c->contype != PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY)
        throw SqlError(sqlstate::kFeatureNotSupported,
                       "only PRIMARY KEY, UNIQUE, FOREIGN KEY and CHECK table constraints are supported");
      declare_pk();
      for (size_t k = 0; k < c->n_keys; k++) add_pk(StringOf(c->keys[k]));
    } else if (e->node_case == PG_QUERY__NODE__NODE_TABLE_LIKE_CLAUSE) {
      // LIKE source [INCLUDING ...]: its columns with their NOT NULL, and
      // as asked its defaults, identity, comments, CHECK constraints,
      // primary key and unique constraints and indexes (PostgreSQL's
      // CreateStmtLikeOption bits). Foreign keys are not copied, as in
      // PostgreSQL; nor are stream indexes (CREATE INDEX).
      const PgQuery__TableLikeClause* like = e->table_like_clause;
      constexpr uint32_t kComments = 1 << 0, kConstraints = 1 << 2, kDefaults = 1 << 3, kGenerated = 1 << 4, kIdentity = 1 << 5,
                         kIndexes = 1 << 6;
      TableRef source = binder.ResolveRelation(like->relation);
      if (source->kind == RelationKind::kSequence || source->kind == RelationKind::kSink)
        FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a table, view, materialized view or source",
                      source->name);
      for (const ColumnCatalog& from : source->columns) {
        if (from.hidden) continue;
        if (t.ColumnIndex(from.name) >= 0)
          FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" specified more than once", from.name);
        ColumnCatalog col{from.name, from.type, from.not_null, false, ""};
        if ((like->options & kDefaults) && !from.identity) col.default_expr = from.default_expr;
        // A generated column's expression reads columns by name, all of
        // which LIKE copies: the same text holds.
        if (like->options & kGenerated) col.generated = from.generated;
        if (like->options & kComments) col.comment = from.comment;
        if ((like->options & kIdentity) && from.identity) {
          // A sequence of its own, as the column's in the source started.
          col.identity = from.identity;
          SequenceOptions options;
          for (const auto& q : catalog->ListTables(source->database_id))
            if (q->kind == RelationKind::kSequence && q->sequence.owned_by_table == source->id &&
                q->sequence.owned_by_column == source->ColumnIndex(from.name))
              options = q->sequence;
          options.owned_by_column = static_cast<int>(t.columns.size());
          std::string name = ChooseSequenceName(*catalog, schema_id, t.name, col.name);
          owned_sequences.push_back(MakeSequence(name, t.database_id, schema_id, t.owner, options));
          col.default_expr = NextvalDefault(schema_name, name);
        }
        t.columns.push_back(col);
      }
      if ((like->options & kIndexes) && source->kind == RelationKind::kTable) {
        if (source->row_id_index < 0) {
          declare_pk();
          for (int k : source->pk) add_pk(source->columns[k].name);
        }
        for (const ConstraintCatalog& k : source->constraints)
          if (k.type == 'u') copied_uniques.push_back(k);
      }
      if (like->options & kConstraints)
        for (const ConstraintCatalog& k : source->constraints)
          if (k.type == 'c') copied_checks.push_back(k);
    } else {
      throw SqlError(sqlstate::kFeatureNotSupported, "unsupported table element " + NodeTag(e));
    }
  }
  std::set<std::string> seen;
  for (const auto& name : pk_names) {
    int idx = t.ColumnIndex(name);
    if (idx < 0) FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in key does not exist", name);
    if (!seen.insert(name).second)
      FRESHET_THROW(sqlstate::kDuplicateColumn, "column \"{}\" appears twice in primary key constraint", name);
    t.pk.push_back(idx);
    t.columns[idx].not_null = true;
  }
  const bool timeseries = !stmt.time_index.empty();
  if (!timeseries && (!stmt.engine.empty() || stmt.has_partition || !stmt.timeseries_options.empty()))
    throw SqlError(sqlstate::kFeatureNotSupported, "ENGINE and PARTITION ON COLUMNS need a TIME INDEX")
        .WithHint("A table with a TIME INDEX is a time-series table; others are stored as rows.");
  if (timeseries) {
    session->PreventInTransactionBlock("CREATE TABLE with a TIME INDEX");
    if (temporary) throw SqlError(sqlstate::kFeatureNotSupported, "a temporary table cannot have a TIME INDEX");
    if (stmt.has_with_options || stmt.is_source)
      throw SqlError(sqlstate::kFeatureNotSupported, "a table with a TIME INDEX cannot have a connector");
    if (!uniques.empty() || !copied_uniques.empty() || !foreign_keys.empty())
      throw SqlError(sqlstate::kFeatureNotSupported,
                     "UNIQUE and FOREIGN KEY constraints are not supported on a table with a TIME INDEX");
    if (!stmt.on_conflict.empty() || stmt.append_only)
      throw SqlError(sqlstate::kFeatureNotSupported, "a table with a TIME INDEX takes append_mode = 'true' instead of "
                                                     "APPEND ONLY or ON CONFLICT");
    BindTimeSeriesTable(stmt, &t);
  }
  if (t.pk.empty()) {
    ColumnCatalog row_id{"_row_id", DataType::Int64(), true, true, ""};
    t.columns.push_back(row_id);
    t.row_id_index = static_cast<int>(t.columns.size()) - 1;
    t.pk = {t.row_id_index};
  }
  // Generated columns, once every column is known: each marked first, so
  // that none may read another.
  for (auto& [i, bound] : generated) t.columns[i].generated = DeparseExpression(bound.generated->raw_expr);
  for (auto& [i, bound] : generated) BindGeneratedColumn(session, stmt, &t, i, bound);
  t.dist_key = timeseries ? t.timeseries.tags : TableDistributionKey(t.pk);
  t.append_only = stmt.append_only;
  for (const auto& [columns, c] : uniques) t.constraints.push_back(BindUniqueConstraint(args, t, columns, c));
  for (const ConstraintCatalog& from : copied_uniques) {
    PgQuery__Constraint c = PG_QUERY__CONSTRAINT__INIT;
    c.contype = PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE;
    c.nulls_not_distinct = from.nulls_not_distinct;
    std::string index_name;  // a unique index is named as CREATE INDEX names one
    std::vector<std::string> plain_columns;
    for (const auto& col : from.columns)
      if (!col.empty()) plain_columns.push_back(col);
    if (from.index_only) {
      index_name = t.name;
      for (size_t k = 0; k < from.columns.size(); k++) index_name += "_" + from.ElementName(k);
      index_name += "_idx";
      c.conname = index_name.data();
    }
    ConstraintCatalog unique = BindUniqueConstraint(args, t, plain_columns, &c);
    unique.index_only = from.index_only;
    // A unique index's predicate and expressions, over the same columns.
    unique.predicate = from.predicate;
    if (from.HasExpressions()) {
      unique.columns = from.columns;
      unique.expressions = from.expressions;
      unique.expression_types = from.expression_types;
    }
    t.constraints.push_back(std::move(unique));
  }
  for (ConstraintCatalog check : copied_checks) {
    PgQuery__Constraint c = PG_QUERY__CONSTRAINT__INIT;
    std::string name = check.name;
    c.conname = name.data();
    NameConstraint(t, &c, name, &check);  // a fresh ordinal; 42710 if a name is taken
    check.validated = true;
    t.constraints.push_back(std::move(check));
  }
  for (const PgQuery__Constraint* c : checks) {
    ConstraintCatalog check = BindCheckConstraint(args, t, c);
    check.validated = true;  // CREATE TABLE ignores NOT VALID, as PostgreSQL
    t.constraints.push_back(std::move(check));
  }
  for (const auto& item : foreign_keys) {
    ConstraintCatalog fk = BindForeignKey(args, t, item.columns, item.clause);
    fk.deferrable = item.deferrable;
    fk.deferred = item.deferred;
    args.sink->Notice(ForeignKeyNotice(fk));
    t.constraints.push_back(std::move(fk));
  }
  if (!stmt.watermark_column.empty()) BindWatermark(session, stmt, &t);
  if (!stmt.on_conflict.empty()) {
    // RisingWave's conflict behaviour (meta/table_conflict.h): over a
    // declared primary key, of a table that takes updates.
    if (t.row_id_index >= 0)
      throw SqlError(sqlstate::kInvalidTableDefinition, "ON CONFLICT needs a table with a primary key");
    if (t.append_only) throw SqlError(sqlstate::kFeatureNotSupported, "ON CONFLICT on an APPEND ONLY table is not supported");
    t.on_conflict = stmt.on_conflict;
    if (!stmt.version_column.empty()) {
      if (t.on_conflict == "ignore")
        throw SqlError(sqlstate::kSyntaxError, "WITH VERSION COLUMN needs ON CONFLICT OVERWRITE or DO UPDATE IF NOT NULL");
      t.version_column = t.ColumnIndex(stmt.version_column);
      if (t.version_column < 0 || t.columns[size_t(t.version_column)].hidden)
        FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in WITH VERSION COLUMN does not exist",
                      stmt.version_column);
      const DataType& vt = t.columns[size_t(t.version_column)].type;
      if (vt.IsJson() || vt.IsArray() || vt.IsStruct())
        FRESHET_THROW(sqlstate::kDatatypeMismatch, "version column \"{}\" of type {} cannot be compared",
                      stmt.version_column, vt.ToString());
    }
  }
  t.storage_options = StorageParametersOf(cs->options, cs->n_options);
  t.definition = NormalizedCreateTable(t);
  // A source, or a table a connector fills: append-only, its options
  // checked by the connector now.
  const bool connector = stmt.is_source || stmt.has_with_options;
  if (connector) {
    if (!checks.empty() || !uniques.empty())
      throw SqlError(sqlstate::kFeatureNotSupported,
                     "check and unique constraints are not supported in sources and tables with connectors");
    if (!owned_sequences.empty())
      throw SqlError(sqlstate::kFeatureNotSupported, "serial and identity columns are not supported in sources and tables with connectors");
    if (!generated.empty())
      throw SqlError(sqlstate::kFeatureNotSupported, "generated columns are not supported in sources and tables with connectors");
    if (pk_declared)
      throw SqlError(sqlstate::kFeatureNotSupported, stmt.is_source ? "a source cannot have a primary key"
                                                                    : "a table with a connector cannot have a primary key yet");
    t.append_only = true;
    t.connector_options = stmt.with_options;
    t.connector_options["_created_at_micros"] = std::to_string(session->eval().statement_time);
    std::vector<SourceColumn> columns;
    for (const auto& c : t.columns)
      if (!c.hidden) columns.push_back({c.name, c.type});
    SourceConnector::Create(t.connector_options, columns);
    t.definition = stmt.text;
  }
  if (stmt.is_source) {
    t.kind = RelationKind::kSource;
    catalog->CreateTable(std::move(t));
    return {"CREATE_SOURCE"};
  }
  if (connector) {
    // A job reads the source into the table.
    StreamPlan plan = PlanTableSource(std::make_shared<const TableCatalog>(t));
    args.instance()->jobs()->Create(std::move(t), std::move(plan), EvalContext(), 1, /*wait=*/true,
                                    session->cancel_flag());
    return {"CREATE TABLE"};
  }
  ObjectId id = timeseries ? args.instance()->CreateTimeSeriesTable(catalog, std::move(t), std::move(owned_sequences))->id
                           : catalog->CreateTable(std::move(t), std::move(owned_sequences))->id;
  session->NoteCreatedOrTruncated(id);
  if (cs->oncommit == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DROP) session->NoteOnCommit(id, /*drop=*/true);
  if (cs->oncommit == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DELETE_ROWS) session->NoteOnCommit(id, /*drop=*/false);
  return {"CREATE TABLE"};
}

}  // namespace freshet
