#include "catalog/index_definition.h"

#include <pg_query/pg_query.pb-c.h>

#include <mutex>
#include <unordered_map>

#include "common/error.h"
#include "sql/parser.h"

namespace freshet {

ConstraintCatalog IndexElements(const PgQuery__IndexStmt* stmt) {
  ConstraintCatalog out;
  bool any_expression = false;
  for (size_t i = 0; i < stmt->n_index_params; i++) {
    const PgQuery__IndexElem* e = stmt->index_params[i]->index_elem;
    if (e->name && *e->name) {
      out.columns.push_back(e->name);
      out.expressions.emplace_back();
      continue;
    }
    out.columns.emplace_back();
    out.expressions.push_back(DeparseExpression(e->expr));
    any_expression = true;
  }
  if (!any_expression) out.expressions.clear();
  for (size_t i = 0; i < stmt->n_index_including_params; i++) {
    const PgQuery__IndexElem* e = stmt->index_including_params[i]->index_elem;
    if (e->name && *e->name) out.include.push_back(e->name);
  }
  if (stmt->where_clause) out.predicate = DeparseExpression(stmt->where_clause);
  return out;
}

std::string DefaultIndexName(const std::string& table, const ConstraintCatalog& elements) {
  std::string name = table;
  for (size_t k = 0; k < elements.columns.size(); k++) name += "_" + elements.ElementName(k);
  return name + "_idx";
}

std::shared_ptr<const ConstraintCatalog> DescribeUserIndex(const TableCatalog& index) {
  // Parsed once per definition text (the text is all it depends on but for
  // the types, which are the index's columns' and checked on each use).
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const ConstraintCatalog>> parsed;
  std::shared_ptr<const ConstraintCatalog> elements;
  {
    std::lock_guard lock(mu);
    if (auto it = parsed.find(index.definition); it != parsed.end()) elements = it->second;
  }
  if (!elements) {
    std::vector<ParsedStatement> stmts = ParseSql(index.definition);
    if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_INDEX_STMT)
      FRESHET_THROW(sqlstate::kInternalError, "the definition of index \"{}\" is not a CREATE INDEX", index.name);
    auto made = std::make_shared<ConstraintCatalog>(IndexElements(stmts[0].node->index_stmt));
    made->type = 'i';
    elements = made;
    std::lock_guard lock(mu);
    if (parsed.size() > 4096) parsed.clear();  // definitions of dropped or renamed indexes
    parsed.emplace(index.definition, elements);
  }
  if (!elements->HasExpressions()) return elements;
  auto typed = std::make_shared<ConstraintCatalog>(*elements);
  size_t next = IndexedTableColumns(index);
  typed->expression_types.resize(typed->columns.size(), DataType::Unknown());
  for (size_t k = 0; k < typed->columns.size(); k++) {
    if (typed->expressions[k].empty()) continue;
    // A string function's result is text, as PostgreSQL's (pg_attribute).
    if (next < index.columns.size())
      typed->expression_types[k] = index.columns[next].type == DataType::Varchar() ? DataType::Text() : index.columns[next].type;
    next++;
  }
  return typed;
}

size_t IndexedTableColumns(const TableCatalog& index) {
  if (index.depends_on.empty()) return index.columns.size();
  auto it = index.input_columns.find(index.depends_on[0]);
  return it == index.input_columns.end() ? index.columns.size() : static_cast<size_t>(it->second);
}

std::vector<int> IndexElementColumns(const TableCatalog& index) {
  std::vector<int> out;
  const int held = static_cast<int>(IndexedTableColumns(index));
  for (int k : index.dist_key) out.push_back(k < held ? k : -1);
  return out;
}

}  // namespace freshet
