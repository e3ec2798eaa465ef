// PostgresViewText: a view's query as PostgreSQL 15's pg_get_viewdef prints
// it, for the queries whose printing this knows exactly.
//
// pg_get_viewdef prints the analyzed query (ruleutils.c): each target on a
// line of its own, FROM, WHERE, GROUP BY, ORDER BY and LIMIT on lines of
// their own at PostgreSQL's indentation, every column qualified by its
// relation's name or alias, `AS name` wherever the column's name is not the
// expression's own, operators in parentheses (all of them, or with
// `pretty` only where precedence needs them), constants decorated with the
// casts PostgreSQL adds, a key repeated in GROUP BY or ORDER BY once. Reproducing that for any query needs PostgreSQL's
// analyzer; this prints the shapes whose output is known exactly and says
// nullopt for the rest, which callers show in libpg_query's one-line
// deparse instead:
//   SELECT [targets] FROM one relation [alias]
//     [WHERE cond] [GROUP BY columns] [ORDER BY columns [DESC] [NULLS ...]]
//     [LIMIT n] [OFFSET n]
// where a target is a column, *, or count(*) / count|sum|min|max|avg of a
// column, and a condition is a boolean column, a comparison of integer
// columns and integer constants, IS [NOT] NULL, NOT, AND and OR of them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/types.h"

namespace freshet {

struct ViewTextContext {
  struct Column {
    std::string name;
    DataType type;
  };
  struct Relation {
    std::vector<Column> columns;  // the visible ones
    // Printed before the name when the reader would not find the relation
    // by its name alone (as PostgreSQL: pg_dump's empty path gets it always).
    std::optional<std::string> schema;
  };
  // A relation the query names, in `schema` or (empty) along the view's
  // search path; nullopt when unknown.
  std::function<std::optional<Relation>(const std::string& schema, const std::string& name)> relation;
  // The view's column names, in order (they may differ from the query's).
  std::vector<std::string> output_names;
  bool pretty = false;  // pg_get_viewdef(v, true): parentheses only where needed
};

// The text, starting with " SELECT" and ending with ";", or nullopt.
std::optional<std::string> PostgresViewText(const std::string& query, const ViewTextContext& context);

// A condition over one relation's columns (a partial index's predicate),
// its columns unqualified, as PostgreSQL prints it: with `pretty`
// parentheses only where needed, else around every operator, NOT, AND and
// OR; nullopt for the shapes the view printer does not know.
std::optional<std::string> PostgresConditionText(const std::string& condition,
                                                 const std::vector<ViewTextContext::Column>& columns, bool pretty);

}  // namespace freshet
