// INSERT, UPDATE and DELETE.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <set>

#include "binder/binder.h"
#include "expr/function_registry.h"

#include "catalog/index_definition.h"

#include "expr/domain_check.h"
#include "binder/expression_binder.h"
#include "common/error.h"
#include "sql/parser.h"

namespace freshet {

void CheckWritable(const TableCatalog& t) {
  if (t.kind != RelationKind::kTable)
    FRESHET_THROW(sqlstate::kWrongObjectType, "cannot change {} \"{}\"", RelationKindName(t.kind), t.name);
  if (!t.connector_options.empty())
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "writing to table \"{}\", which a connector fills, is not supported yet",
                  t.name);
}

namespace {

std::vector<PlanColumn> CountSchema() { return {{"count", DataType::Int64(), ""}}; }

std::vector<PlanColumn> TableSchema(const TableCatalog& t) {
  std::vector<PlanColumn> s;
  for (const auto& c : t.columns) s.push_back({c.name, c.type, t.name, c.hidden});
  return s;
}

}  // namespace

// The default value of column c as an expression (NULL when none): its
// own DEFAULT, else its domain's (or the domain's base domain's).
static ExprPtr DefaultValue(Binder* binder, const ColumnCatalog& c, Binder::ExprBinder* eb) {
  std::string text = c.default_expr;
  for (ObjectId d = c.domain; text.empty() && d;) {
    std::optional<TypeCatalog> domain = binder->context().catalog->GetType(d);
    if (!domain || !domain->IsDomain()) break;
    text = domain->default_expr;
    d = domain->base_domain;
  }
  if (text.empty()) return std::make_unique<ConstantExpr>(Value::Null(c.type));
  auto stmts = ParseSql("SELECT " + text);
  const PgQuery__SelectStmt* sel = stmts[0].node->select_stmt;
  ExprPtr e = binder->BindConstantExpression(sel->target_list[0]->res_target->val);
  return eb->CoerceForAssignment(std::move(e), c.type, c.name);
}

ExprPtr Binder::BindColumnDefault(const ColumnCatalog& column) {
  Scope empty;
  empty.clause = "DEFAULT";
  ExprBinder eb(this, &empty);
  return DefaultValue(this, column, &eb);
}

namespace {

bool ReadsSubquery(const Expression& e) {
  if (e.kind() == Expression::Kind::kSubquery) return true;
  for (const auto& c : e.children())
    if (c && ReadsSubquery(*c)) return true;
  return false;
}

// The columns an expression reads, each once, in the order they appear.
void CollectColumns(const Expression& e, std::vector<int>* out) {
  if (e.kind() == Expression::Kind::kColumnRef) {
    int i = static_cast<const ColumnRefExpr&>(e).index();
    if (std::find(out->begin(), out->end(), i) == out->end()) out->push_back(i);
  }
  for (const auto& c : e.children())
    if (c) CollectColumns(*c, out);
}

}  // namespace

namespace {

// A scope of `table`'s columns, each known as which column of the table it
// is (NameUse: an index's definition follows renames of what it reads).
Binder::Scope TableColumnsScope(const TableCatalog& table, const char* clause) {
  Binder::Scope scope;
  for (size_t i = 0; i < table.columns.size(); i++) {
    const ColumnCatalog& c = table.columns[i];
    Binder::Scope::Column column{table.name, c.name, c.type, c.hidden};
    column.relation_id = table.id;
    column.relation_column = static_cast<int>(i);
    column.unaliased = true;
    scope.columns.push_back(std::move(column));
  }
  scope.clause = clause;
  return scope;
}

}  // namespace

ExprPtr Binder::BindCheckExpression(const TableCatalog& table, const PgQuery__Node* expr,
                                    std::vector<std::string>* columns, bool index_predicate) {
  Scope scope = TableColumnsScope(table, index_predicate ? "index predicates" : "check constraints");
  ExprBinder eb(this, &scope);
  ExprPtr e = eb.BindCondition(expr, index_predicate ? "WHERE" : "CHECK");
  if (ReadsSubquery(*e))
    throw SqlError(sqlstate::kFeatureNotSupported,
                   index_predicate ? "cannot use subquery in index predicate" : "cannot use subquery in check constraint");
  if (columns) {
    std::vector<int> read;
    CollectColumns(*e, &read);
    columns->clear();
    for (int i : read) columns->push_back(table.columns[i].name);
  }
  return e;
}

// An expression the catalog keeps as SQL text, bound by `bind` without
// error positions (they would point into the stored text, not the
// statement's).
ExprPtr Binder::BindStoredText(const std::string& text, const std::function<ExprPtr(const PgQuery__Node*)>& bind) {
  auto stmts = ParseSql("SELECT " + text);
  // Nor are its names the statement's (NameUse).
  struct Restore {
    BinderContext& ctx;
    const std::string* statement;
    std::vector<NameUse>* uses;
    ~Restore() {
      ctx.query_text = statement;
      ctx.name_uses = uses;
    }
  } restore{ctx_, std::exchange(ctx_.query_text, nullptr), std::exchange(ctx_.name_uses, nullptr)};
  return bind(stmts.at(0).node->select_stmt->target_list[0]->res_target->val);
}

ExprPtr Binder::BindStoredCondition(const TableCatalog& table, const std::string& text, bool index_predicate) {
  return BindStoredText(text, [&](const PgQuery__Node* e) { return BindCheckExpression(table, e, nullptr, index_predicate); });
}

// An expression over `table`'s columns, where `clause` names the place
// (aggregates & co. are refused naming it) and subqueries are refused
// with `no_subquery`.
ExprPtr Binder::BindOverTable(const TableCatalog& table, const PgQuery__Node* expr, const char* clause,
                              const char* no_subquery) {
  Scope scope = TableColumnsScope(table, clause);
  ExprBinder eb(this, &scope);
  ExprPtr e = eb.Bind(expr);
  if (ReadsSubquery(*e)) throw SqlError(sqlstate::kFeatureNotSupported, no_subquery);
  return e;
}

ExprPtr Binder::BindIndexExpression(const TableCatalog& table, const PgQuery__Node* expr) {
  ExprPtr e = BindOverTable(table, expr, "index expressions", "cannot use subquery in index expression");
  Scope none;
  ExprBinder eb(this, &none);
  if (e->type().id == TypeId::kUnknown) e = eb.Coerce(std::move(e), DataType::Varchar());
  return e;
}

ExprPtr Binder::BindGenerationExpression(const TableCatalog& table, int column, const PgQuery__Node* expr) {
  ExprPtr e = BindOverTable(table, expr, "column generation expressions",
                            "cannot use subquery in column generation expression");
  std::vector<int> read;
  CollectColumns(*e, &read);
  for (int i : read)
    if (!table.columns[i].generated.empty() || i == column)
      throw SqlError("42P17", fmt::format("cannot use generated column \"{}\" in column generation expression",
                                          table.columns[i].name))
          .WithDetail("A generated column cannot reference another generated column.");
  const ColumnCatalog& target = table.columns[column];
  Scope none;
  ExprBinder eb(this, &none);
  return eb.CoerceForAssignment(std::move(e), target.type, target.name);
}

ExprPtr Binder::BindStoredGenerationExpression(const TableCatalog& table, int column) {
  return BindStoredText(table.columns[column].generated,
                        [&](const PgQuery__Node* e) { return BindGenerationExpression(table, column, e); });
}

ExprPtr Binder::BindStoredIndexExpression(const TableCatalog& table, const std::string& text) {
  return BindStoredText(text, [&](const PgQuery__Node* e) { return BindIndexExpression(table, e); });
}

static bool HasVolatileCall(const Expression& e) {
  if (e.kind() == Expression::Kind::kFunction &&
      IsVolatileFunction(static_cast<const FunctionExpr&>(e).function()->name))
    return true;
  for (const auto& c : e.children())
    if (HasVolatileCall(*c)) return true;
  return false;
}

ExprPtr Binder::BindWatermarkExpression(const TableCatalog& table) {
  const ColumnCatalog& column = table.columns.at(table.watermark_column);
  ExprPtr e = BindStoredText(table.watermark_expr, [&](const PgQuery__Node* n) {
    return BindOverTable(table, n, "watermark expressions", "cannot use subquery in watermark expression");
  });
  if (e->type() != column.type)
    throw SqlError(sqlstate::kDatatypeMismatch,
                   fmt::format("the watermark expression must be of the type of column \"{}\" ({}), not {}",
                               column.name, column.type.ToString(), e->type().ToString()));
  std::vector<int> read;
  CollectColumns(*e, &read);
  for (int i : read)
    if (i != table.watermark_column)
      throw SqlError(sqlstate::kFeatureNotSupported,
                     fmt::format("a watermark expression may read only its column \"{}\", not \"{}\"", column.name,
                                 table.columns[i].name));
  if (HasVolatileCall(*e))
    throw SqlError(sqlstate::kFeatureNotSupported, "a watermark expression cannot call volatile functions");
  return e;
}

std::vector<GeneratedColumn> Binder::BindGenerated(const TableCatalog& table) {
  std::vector<GeneratedColumn> out;
  for (size_t i = 0; i < table.columns.size(); i++)
    if (!table.columns[i].generated.empty())
      out.push_back({static_cast<int>(i), BindStoredGenerationExpression(table, static_cast<int>(i))});
  return out;
}

std::vector<CheckConstraint> Binder::BindChecks(const TableCatalog& table, bool with_domains) {
  std::vector<CheckConstraint> out;
  // A domain column's constraints first (PostgreSQL checks them as the
  // value is coerced to the column, before the table's).
  for (size_t i = 0; with_domains && i < table.columns.size(); i++) {
    const ColumnCatalog& c = table.columns[i];
    if (!c.domain) continue;
    ExprPtr value = std::make_unique<ColumnRefExpr>(static_cast<int>(i), c.type, c.name);
    ExprPtr checked = WithDomainChecks(std::move(value), c.domain);
    if (checked->kind() == Expression::Kind::kDomainCheck) out.push_back({"", std::move(checked), true});
  }
  // Expression indexes' elements, where their predicate holds.
  for (const TableRef& index : with_domains ? ctx_.catalog->Dependents(table.id) : std::vector<TableRef>{}) {
    if (index->kind != RelationKind::kIndex || index->depends_on.empty() || index->depends_on[0] != table.id) continue;
    std::shared_ptr<const ConstraintCatalog> elements = DescribeUserIndex(*index);
    if (!elements->HasExpressions()) continue;
    ExprPtr predicate;
    if (!elements->predicate.empty()) predicate = BindStoredCondition(table, elements->predicate, /*index_predicate=*/true);
    for (const std::string& text : elements->expressions) {
      if (text.empty()) continue;
      ExprPtr value = BindStoredText(text, [&](const PgQuery__Node* n) { return BindIndexExpression(table, n); });
      if (predicate) {
        std::vector<ExprPtr> when;
        when.push_back(predicate->Clone());
        DataType type = value->type();
        when.push_back(std::move(value));
        value = std::make_unique<CaseExpr>(type, std::move(when), /*has_else=*/false);
      }
      out.push_back({"", std::move(value), true});
    }
  }
  for (const ConstraintCatalog& c : table.constraints)
    if (c.type == 'c') out.push_back({c.name, BindStoredCondition(table, c.check)});
  return out;
}

ExprPtr Binder::BindDomainCheck(const std::string& text, const DataType& base) {
  return BindStoredText(text, [&](const PgQuery__Node* e) {
    Scope scope;
    scope.columns.push_back({"", "value", base, false});
    scope.clause = "check constraints";
    ExprBinder eb(this, &scope);
    ExprPtr bound = eb.BindCondition(e, "CHECK");
    if (ReadsSubquery(*bound)) throw SqlError(sqlstate::kFeatureNotSupported, "cannot use subquery in check constraint");
    return bound;
  });
}

ExprPtr Binder::WithDomainChecks(ExprPtr value, ObjectId domain) {
  // The domains from the innermost base outwards, as PostgreSQL checks them.
  std::vector<TypeCatalog> chain;
  for (ObjectId id = domain; id && chain.size() < 64;) {
    std::optional<TypeCatalog> d = ctx_.catalog->GetType(id);
    if (!d || !d->IsDomain()) break;
    chain.insert(chain.begin(), *d);
    id = d->base_domain;
  }
  if (chain.empty()) return value;
  // Errors name the domain the value is of, whichever domain's
  // constraint it breaks (as PostgreSQL's domain_check).
  std::vector<DomainCheckExpr::Constraint> constraints;
  const TypeCatalog& outer = chain.back();
  auto schema = ctx_.catalog->GetSchema(outer.schema_id);
  const std::string schema_name = schema ? schema->name : "";
  for (const TypeCatalog& d : chain) {
    if (d.not_null) constraints.push_back({outer.name, schema_name, "", nullptr});
    for (const ConstraintCatalog& c : d.checks)
      constraints.push_back({outer.name, schema_name, c.name, BindDomainCheck(c.check, d.base_type)});
  }
  if (constraints.empty()) return value;
  return std::make_unique<DomainCheckExpr>(std::move(value), chain.back().name, std::move(constraints));
}

PlanPtr Binder::BindDmlReturning(PlanNode* dml, const TableCatalog& table, const PgQuery__RangeVar* relation,
                                 PgQuery__Node** list, size_t n) {
  Scope scope;
  // Named as in the statement: its alias when it has one.
  const std::string name = relation && relation->alias ? relation->alias->aliasname : table.name;
  for (const auto& c : table.columns) scope.columns.push_back({name, c.name, c.type, c.hidden});
  scope.clause = "RETURNING";
  ExprBinder eb(this, &scope);
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> schema;
  for (size_t i = 0; i < n; i++) {
    const PgQuery__ResTarget* rt = list[i]->res_target;
    const PgQuery__Node* v = rt->val;
    if (v->node_case == PG_QUERY__NODE__NODE_COLUMN_REF &&
        v->column_ref->fields[v->column_ref->n_fields - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR) {
      for (size_t c = 0; c < table.columns.size(); c++) {
        if (table.columns[c].hidden) continue;
        exprs.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(c), table.columns[c].type, table.columns[c].name));
        schema.push_back({table.columns[c].name, table.columns[c].type, ""});
      }
      continue;
    }
    ExprPtr e = eb.Bind(v);
    if (e->type().id == TypeId::kUnknown) e = eb.Coerce(std::move(e), DataType::Varchar());
    std::string name = rt->name && *rt->name ? rt->name
                       : v->node_case == PG_QUERY__NODE__NODE_COLUMN_REF
                           ? v->column_ref->fields[v->column_ref->n_fields - 1]->string->sval
                           : "?column?";
    schema.push_back({name, e->type(), ""});
    exprs.push_back(std::move(e));
  }
  CheckTargetListLength(exprs.size());
  dml->mutable_schema() = schema;
  switch (dml->kind()) {
    case PlanNode::Kind::kInsert: static_cast<InsertNode*>(dml)->returning = std::move(exprs); break;
    case PlanNode::Kind::kUpdate: static_cast<UpdateNode*>(dml)->returning = std::move(exprs); break;
    case PlanNode::Kind::kDelete: static_cast<DeleteNode*>(dml)->returning = std::move(exprs); break;
    default: break;
  }
  return nullptr;
}

PlanPtr Binder::BindInsert(const PgQuery__Node* node) {
  const PgQuery__InsertStmt* stmt = node->insert_stmt;
  PushCtes(stmt->with_clause);
  TableRef table = ResolveRelation(stmt->relation);
  CheckWritable(*table);

  // Target columns, in the order the source provides them.
  std::vector<int> targets;
  if (stmt->n_cols == 0) {
    for (size_t c = 0; c < table->columns.size(); c++)
      if (!table->columns[c].hidden) targets.push_back(static_cast<int>(c));
  } else {
    for (size_t i = 0; i < stmt->n_cols; i++) {
      const PgQuery__ResTarget* rt = stmt->cols[i]->res_target;
      int idx = table->ColumnIndex(rt->name);
      if (idx < 0 || table->columns[idx].hidden)
        ThrowAt(sqlstate::kUndefinedColumn, rt->location,
                fmt::format("column \"{}\" of relation \"{}\" does not exist", rt->name, table->name));
      for (int t : targets)
        if (t == idx) ThrowAt(sqlstate::kDuplicateColumn, rt->location, fmt::format("column \"{}\" specified more than once", rt->name));
      targets.push_back(idx);
    }
  }

  Scope empty;
  empty.clause = "VALUES";
  ExprBinder eb(this, &empty);
  // Maps a source row (one value per target) to a full row of the table's
  // visible columns in order, filling defaults.
  auto full_row = [&](std::vector<ExprPtr> values) {
    std::vector<ExprPtr> row;
    for (size_t c = 0; c < table->columns.size(); c++) {
      const auto& col = table->columns[c];
      if (col.hidden) continue;
      int pos = -1;
      for (size_t k = 0; k < targets.size(); k++)
        if (targets[k] == static_cast<int>(c)) pos = static_cast<int>(k);
      // Identity columns: a value given for a GENERATED ALWAYS one is
      // refused unless OVERRIDING SYSTEM VALUE; OVERRIDING USER VALUE
      // ignores those given for BY DEFAULT ones.
      if (pos >= 0 && values[pos] && col.identity == 'a' &&
          stmt->override != PG_QUERY__OVERRIDING_KIND__OVERRIDING_SYSTEM_VALUE)
        throw SqlError("428C9", fmt::format("cannot insert a non-DEFAULT value into column \"{}\"", col.name))
            .WithDetail(fmt::format("Column \"{}\" is an identity column defined as GENERATED ALWAYS.", col.name))
            .WithHint("Use OVERRIDING SYSTEM VALUE to override.");
      if (pos >= 0 && values[pos] && !col.generated.empty())
        throw SqlError("428C9", fmt::format("cannot insert a non-DEFAULT value into column \"{}\"", col.name))
            .WithDetail(fmt::format("Column \"{}\" is a generated column.", col.name));
      bool user_value_ignored = col.identity == 'd' && stmt->override == PG_QUERY__OVERRIDING_KIND__OVERRIDING_USER_VALUE;
      if (pos >= 0 && values[pos] && !user_value_ignored)
        row.push_back(eb.CoerceForAssignment(std::move(values[pos]), col.type, col.name));
      else row.push_back(DefaultValue(this, col, &eb));
    }
    return row;
  };

  std::vector<PlanColumn> row_schema;
  for (const auto& c : table->columns)
    if (!c.hidden) row_schema.push_back({c.name, c.type, ""});

  PlanPtr source;
  const PgQuery__SelectStmt* sel = stmt->select_stmt ? stmt->select_stmt->select_stmt : nullptr;
  if (!sel) {
    // INSERT ... DEFAULT VALUES
    std::vector<std::vector<ExprPtr>> rows;
    rows.push_back(full_row(std::vector<ExprPtr>(targets.size())));
    source = std::make_unique<ValuesNode>(row_schema, std::move(rows));
  } else if (sel->n_values_lists > 0 && sel->op == PG_QUERY__SET_OPERATION__SETOP_NONE && sel->n_sort_clause == 0 &&
             !sel->limit_count) {
    // VALUES directly: each literal is coerced to its column's type, so
    // '2024-01-01' goes straight into a date column.
    std::vector<std::vector<ExprPtr>> rows;
    if (stmt->n_cols == 0 && sel->values_lists[0]->list->n_items < targets.size()) {
      // Without a column list, fewer values fill the leading columns and the
      // rest take their defaults, as in PostgreSQL.
      targets.resize(sel->values_lists[0]->list->n_items);
    }
    for (size_t r = 0; r < sel->n_values_lists; r++) {
      const PgQuery__List* list = sel->values_lists[r]->list;
      if (list->n_items > targets.size()) ThrowAt(sqlstate::kSyntaxError, -1, "INSERT has more expressions than target columns");
      if (list->n_items < targets.size()) ThrowAt(sqlstate::kSyntaxError, -1, "INSERT has more target columns than expressions");
      std::vector<ExprPtr> values;
      for (size_t c = 0; c < list->n_items; c++) {
        const PgQuery__Node* item = list->items[c];
        values.push_back(item->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT ? nullptr : eb.Bind(item));
      }
      rows.push_back(full_row(std::move(values)));
    }
    source = std::make_unique<ValuesNode>(row_schema, std::move(rows));
  } else {
    PlanPtr query = BindSelect(sel, nullptr);
    if (stmt->n_cols == 0 && query->schema().size() < targets.size()) targets.resize(query->schema().size());
    if (query->schema().size() > targets.size()) ThrowAt(sqlstate::kSyntaxError, -1, "INSERT has more expressions than target columns");
    if (query->schema().size() < targets.size()) ThrowAt(sqlstate::kSyntaxError, -1, "INSERT has more target columns than expressions");
    std::vector<ExprPtr> values;
    for (size_t i = 0; i < query->schema().size(); i++)
      values.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(i), query->schema()[i].type, query->schema()[i].name));
    source = std::make_unique<ProjectNode>(std::move(query), full_row(std::move(values)), row_schema);
  }
  auto insert = std::make_unique<InsertNode>(table, std::move(source), CountSchema());
  insert->checks = BindChecks(*table);
  insert->generated = BindGenerated(*table);
  if (stmt->on_conflict_clause) BindOnConflict(stmt, insert.get());
  if (stmt->n_returning_list) BindDmlReturning(insert.get(), *table, stmt->relation, stmt->returning_list, stmt->n_returning_list);
  cte_stack_.pop_back();
  return insert;
}

// UPDATE and DELETE read the rows they change: a scan of every column of
// the (writable) table under its alias, filtered by WHERE.
PlanPtr Binder::BindDmlTarget(const TableRef& table, const PgQuery__RangeVar* relation, const PgQuery__Node* where,
                              Scope* scope) {
  CheckWritable(*table);
  // Views over an APPEND ONLY table rely on its rows never changing.
  if (table->append_only)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   fmt::format("table \"{}\" is APPEND ONLY: rows can be inserted, not updated or deleted", table->name));
  std::string alias = relation->alias ? relation->alias->aliasname : table->name;
  std::vector<PlanColumn> schema = TableSchema(*table);
  for (auto& c : schema) c.table = alias;
  scope->Append(schema);
  PlanPtr plan = MakeScan(table, schema);
  if (where) {
    ExprBinder eb(this, scope);
    scope->clause = "WHERE";
    plan = std::make_unique<FilterNode>(std::move(plan), eb.BindCondition(where, "WHERE"));
  }
  return plan;
}

PlanPtr Binder::BindDmlTargetJoined(const TableRef& table, const PgQuery__RangeVar* relation, PgQuery__Node** items,
                                    size_t n_items, const PgQuery__Node* where, Scope* scope) {
  PlanPtr plan = BindDmlTarget(table, relation, nullptr, scope);
  for (size_t i = 0; i < n_items; i++) {
    Scope item;
    PlanPtr p = BindFrom(items[i], nullptr, &item);
    plan = std::make_unique<JoinNode>(JoinType::kInner, std::move(plan), std::move(p), nullptr);
    scope->columns.insert(scope->columns.end(), item.columns.begin(), item.columns.end());
  }
  if (where) {
    ExprBinder eb(this, scope);
    scope->clause = "WHERE";
    plan = std::make_unique<FilterNode>(std::move(plan), eb.BindCondition(where, "WHERE"));
  }
  return plan;
}

// A GENERATED ALWAYS identity column can only be set to DEFAULT (428C9).
static void CheckAssignable(const ColumnCatalog& col, const PgQuery__ResTarget* rt) {
  if ((col.identity != 'a' && col.generated.empty()) || rt->val->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT) return;
  throw SqlError("428C9", fmt::format("column \"{}\" can only be updated to DEFAULT", col.name))
      .WithDetail(col.generated.empty()
                      ? fmt::format("Column \"{}\" is an identity column defined as GENERATED ALWAYS.", col.name)
                      : fmt::format("Column \"{}\" is a generated column.", col.name));
}

void Binder::BindOnConflict(const PgQuery__InsertStmt* stmt, InsertNode* insert) {
  const PgQuery__OnConflictClause* oc = stmt->on_conflict_clause;
  const TableCatalog& table = *insert->table;
  const bool declared_key = table.row_id_index < 0;
  // The arbiters: the primary key or a unique constraint, named by its
  // columns or its constraint; without a target (DO NOTHING), all of them.
  const PgQuery__InferClause* infer = oc->infer;
  bool has_target = infer && (infer->n_index_elems > 0 || (infer->conname && *infer->conname));
  if (oc->action == PG_QUERY__ON_CONFLICT_ACTION__ONCONFLICT_UPDATE && !has_target)
    ThrowAt(sqlstate::kSyntaxError, oc->location, "ON CONFLICT DO UPDATE requires inference specification or constraint name");
  // A partial unique index arbitrates when its predicate is the one the
  // inference's WHERE gives (PostgreSQL proves implication; the same
  // predicate is the case ORMs write), or without a target.
  const std::string infer_where = has_target && infer->where_clause ? DeparseExpression(infer->where_clause) : "";
  if (has_target) {
    if (infer->conname && *infer->conname) {
      const std::string name = infer->conname;
      if (declared_key && name == table.name + "_pkey") insert->conflict_on_key = true;
      for (const auto& c : table.constraints)
        if (c.type == 'u' && !c.index_only && c.name == name) insert->conflict_uniques.push_back(name);
      if (!insert->conflict_on_key && insert->conflict_uniques.empty())
        FRESHET_THROW(sqlstate::kUndefinedObject, "constraint \"{}\" for table \"{}\" does not exist", infer->conname, table.name);
    } else {
      // The elements named: columns, and expressions (by their text, as
      // the index keeps it; they are bound to check them).
      std::set<int> named;
      std::set<std::string> named_expressions;
      for (size_t i = 0; i < infer->n_index_elems; i++) {
        const PgQuery__IndexElem* e = infer->index_elems[i]->index_elem;
        if (!e->name || !*e->name) {
          BindIndexExpression(table, e->expr);
          named_expressions.insert(DeparseExpression(e->expr));
          continue;
        }
        int idx = table.ColumnIndex(e->name);
        if (idx < 0 || table.columns[idx].hidden)
          ThrowAt(sqlstate::kUndefinedColumn, infer->location, fmt::format("column \"{}\" does not exist", e->name));
        named.insert(idx);
      }
      // As PostgreSQL: every unique index over exactly these elements.
      if (named_expressions.empty() && declared_key && named == std::set<int>(table.pk.begin(), table.pk.end()))
        insert->conflict_on_key = true;
      for (const auto& c : table.constraints) {
        if (c.type != 'u' || (!c.predicate.empty() && c.predicate != infer_where)) continue;
        std::set<int> columns;
        std::set<std::string> expressions;
        for (size_t k = 0; k < c.columns.size(); k++) {
          if (c.HasExpressions() && !c.expressions[k].empty()) expressions.insert(c.expressions[k]);
          else columns.insert(table.ColumnIndex(c.columns[k]));
        }
        if (columns == named && expressions == named_expressions) insert->conflict_uniques.push_back(c.name);
      }
    }
    if (!insert->conflict_on_key && insert->conflict_uniques.empty())
      throw SqlError(sqlstate::kInvalidColumnReference,
                     "there is no unique or exclusion constraint matching the ON CONFLICT specification");
  } else {
    insert->conflict_on_key = declared_key;
    for (const auto& c : table.constraints)
      if (c.type == 'u') insert->conflict_uniques.push_back(c.name);
  }
  for (const auto& name : insert->conflict_uniques)
    for (const auto& c : table.constraints) {
      if (c.type != 'u' || c.name != name) continue;
      if (!c.predicate.empty())
        insert->conflict_predicates[name] = BindStoredCondition(table, c.predicate, /*index_predicate=*/true);
      if (c.HasExpressions())
        for (const auto& text : c.expressions)
          insert->conflict_elements[name].push_back(text.empty() ? nullptr : BindStoredIndexExpression(table, text));
    }
  // A table keyed by generated row ids, without unique constraints, has
  // nothing to conflict on.
  if (!insert->conflict_on_key && insert->conflict_uniques.empty()) return;
  if (oc->action != PG_QUERY__ON_CONFLICT_ACTION__ONCONFLICT_UPDATE) {
    insert->on_conflict = InsertNode::OnConflict::kNothing;
    return;
  }
  insert->on_conflict = InsertNode::OnConflict::kUpdate;
  // The existing row under the table's name (or alias), the proposed one as EXCLUDED.
  Scope scope;
  std::string alias = stmt->relation->alias ? stmt->relation->alias->aliasname : table.name;
  for (const auto& c : table.columns) scope.columns.push_back({alias, c.name, c.type, c.hidden});
  // EXCLUDED's columns only qualified: a bare name is the table's.
  for (const auto& c : table.columns) scope.columns.push_back({"excluded", c.name, c.type, c.hidden, true});
  ExprBinder eb(this, &scope);
  for (size_t c = 0; c < table.columns.size(); c++)
    insert->conflict_set.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(c), table.columns[c].type, table.columns[c].name));
  std::vector<bool> assigned(table.columns.size(), false);
  scope.clause = "UPDATE";
  for (size_t i = 0; i < oc->n_target_list; i++) {
    const PgQuery__ResTarget* rt = oc->target_list[i]->res_target;
    if (rt->n_indirection) throw SqlError(sqlstate::kFeatureNotSupported, "assignments to parts of a column are not supported");
    int idx = table.ColumnIndex(rt->name);
    if (idx < 0 || table.columns[idx].hidden)
      ThrowAt(sqlstate::kUndefinedColumn, rt->location,
              fmt::format("column \"{}\" of relation \"{}\" does not exist", rt->name, table.name));
    if (assigned[idx]) ThrowAt(sqlstate::kSyntaxError, rt->location, fmt::format("multiple assignments to same column \"{}\"", rt->name));
    assigned[idx] = true;
    const auto& col = table.columns[idx];
    CheckAssignable(col, rt);
    if (rt->val->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT) insert->conflict_set[idx] = DefaultValue(this, col, &eb);
    else insert->conflict_set[idx] = eb.CoerceForAssignment(eb.Bind(rt->val), col.type, col.name);
  }
  if (oc->where_clause) {
    scope.clause = "WHERE";
    insert->conflict_where = eb.BindCondition(oc->where_clause, "WHERE");
  }
}

PlanPtr Binder::BindUpdate(const PgQuery__Node* node) {
  const PgQuery__UpdateStmt* stmt = node->update_stmt;
  PushCtes(stmt->with_clause);
  TableRef table = ResolveRelation(stmt->relation);
  Scope scope;
  PlanPtr plan = stmt->n_from_clause ? BindDmlTargetJoined(table, stmt->relation, stmt->from_clause,
                                                           stmt->n_from_clause, stmt->where_clause, &scope)
                                     : BindDmlTarget(table, stmt->relation, stmt->where_clause, &scope);
  ExprBinder eb(this, &scope);
  std::vector<ExprPtr> new_values;
  for (size_t c = 0; c < table->columns.size(); c++)
    new_values.push_back(std::make_unique<ColumnRefExpr>(static_cast<int>(c), table->columns[c].type, table->columns[c].name));
  std::vector<bool> assigned(table->columns.size(), false);
  scope.clause = "UPDATE";
  for (size_t i = 0; i < stmt->n_target_list; i++) {
    const PgQuery__ResTarget* rt = stmt->target_list[i]->res_target;
    int idx = table->ColumnIndex(rt->name);
    if (idx < 0 || table->columns[idx].hidden)
      ThrowAt(sqlstate::kUndefinedColumn, rt->location,
              fmt::format("column \"{}\" of relation \"{}\" does not exist", rt->name, table->name));
    if (assigned[idx]) ThrowAt(sqlstate::kSyntaxError, rt->location, fmt::format("multiple assignments to same column \"{}\"", rt->name));
    assigned[idx] = true;
    const auto& col = table->columns[idx];
    CheckAssignable(col, rt);
    if (rt->val->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT) new_values[idx] = DefaultValue(this, col, &eb);
    else new_values[idx] = eb.CoerceForAssignment(eb.Bind(rt->val), col.type, col.name);
  }
  auto update = std::make_unique<UpdateNode>(table, std::move(plan), std::move(new_values), CountSchema());
  update->checks = BindChecks(*table);
  update->generated = BindGenerated(*table);
  update->joined = stmt->n_from_clause > 0;
  if (stmt->n_returning_list) BindDmlReturning(update.get(), *table, stmt->relation, stmt->returning_list, stmt->n_returning_list);
  cte_stack_.pop_back();
  return update;
}

PlanPtr Binder::BindDelete(const PgQuery__Node* node) {
  const PgQuery__DeleteStmt* stmt = node->delete_stmt;
  PushCtes(stmt->with_clause);
  TableRef table = ResolveRelation(stmt->relation);
  Scope scope;
  PlanPtr plan = stmt->n_using_clause ? BindDmlTargetJoined(table, stmt->relation, stmt->using_clause,
                                                            stmt->n_using_clause, stmt->where_clause, &scope)
                                      : BindDmlTarget(table, stmt->relation, stmt->where_clause, &scope);
  auto del = std::make_unique<DeleteNode>(table, std::move(plan), CountSchema());
  del->joined = stmt->n_using_clause > 0;
  if (stmt->n_returning_list) BindDmlReturning(del.get(), *table, stmt->relation, stmt->returning_list, stmt->n_returning_list);
  cte_stack_.pop_back();
  return del;
}

PlanPtr Binder::BindTruncate(const PgQuery__RangeVar* relation) {
  TableRef table = ResolveRelation(relation);
  Scope scope;
  PlanPtr plan = BindDmlTarget(table, relation, nullptr, &scope);
  return std::make_unique<DeleteNode>(table, std::move(plan), CountSchema());
}

PlanPtr Binder::BindTableRewrite(const TableRef& old_table, const TableRef& target,
                                 const std::vector<RewriteSource>& sources) {
  Scope scope;
  std::vector<PlanColumn> schema = TableSchema(*old_table);
  scope.Append(schema);
  scope.clause = "USING";
  PlanPtr plan = std::make_unique<ScanNode>(old_table, schema);
  ExprBinder eb(this, &scope);
  std::vector<ExprPtr> exprs;
  std::vector<PlanColumn> out;
  size_t k = 0;
  for (const auto& c : target->columns) {
    if (c.hidden) continue;
    if (k >= sources.size()) throw SqlError(sqlstate::kInternalError, "rewrite sources do not match the table");
    const RewriteSource& src = sources[k++];
    ExprPtr e;
    auto same_type = [&](const DataType& t) {
      return t == c.type && t.precision == c.type.precision && t.scale == c.type.scale;
    };
    try {
      if (src.using_expr) {
        e = eb.Bind(src.using_expr);
        if (!same_type(e->type())) e = eb.CoerceForAssignment(std::move(e), c.type, c.name);
      } else if (src.old_column >= 0) {
        const ColumnCatalog& old = old_table->columns[src.old_column];
        e = std::make_unique<ColumnRefExpr>(src.old_column, old.type, old.name);
        if (!same_type(old.type)) e = eb.CoerceForAssignment(std::move(e), c.type, c.name);
      } else {
        e = DefaultValue(this, c, &eb);
      }
    } catch (const SqlError& err) {
      if (err.code() != std::string(sqlstate::kDatatypeMismatch) || !(src.using_expr || src.old_column >= 0)) throw;
      std::string type = c.type.ToString();
      if (src.using_expr)
        throw SqlError(sqlstate::kDatatypeMismatch,
                       fmt::format("result of USING clause for column \"{}\" cannot be cast automatically to type {}",
                                   c.name, type))
            .WithHint("You might need to add an explicit cast.");
      throw SqlError(sqlstate::kDatatypeMismatch,
                     fmt::format("column \"{}\" cannot be cast automatically to type {}", c.name, type))
          .WithHint(fmt::format("You might need to specify \"USING {}::{}\".", c.name, type));
    }
    // A value coerced into a domain is checked (one kept as it was is not:
    // a constraint added NOT VALID is not checked against it).
    const bool kept = src.old_column >= 0 && !src.using_expr &&
                      old_table->columns[src.old_column].domain == c.domain && same_type(old_table->columns[src.old_column].type);
    if (c.domain && !kept) e = WithDomainChecks(std::move(e), c.domain);
    out.push_back({c.name, c.type, ""});
    exprs.push_back(std::move(e));
  }
  plan = std::make_unique<ProjectNode>(std::move(plan), std::move(exprs), std::move(out));
  auto insert = std::make_unique<InsertNode>(target, std::move(plan), CountSchema());
  insert->checks = BindChecks(*target, /*with_domains=*/false);
  insert->generated = BindGenerated(*target);
  return insert;
}

}  // namespace freshet
