// SELECT ... INTO's query: the SELECT without its INTO clause, as a parse
// node of its own (CREATE TABLE AS binds and runs it; Parse binds it for
// its parameters' types). It points into the statement's tree, which
// must outlive it.
#pragma once

#include <pg_query/pg_query.pb-c.h>

namespace freshet {

struct SelectWithoutInto {
  explicit SelectWithoutInto(const PgQuery__SelectStmt& stmt) : select(stmt) {
    select.into_clause = nullptr;
    node.node_case = PG_QUERY__NODE__NODE_SELECT_STMT;
    node.select_stmt = &select;
  }
  SelectWithoutInto(const SelectWithoutInto&) = delete;
  SelectWithoutInto& operator=(const SelectWithoutInto&) = delete;

  PgQuery__SelectStmt select;
  PgQuery__Node node = PG_QUERY__NODE__INIT;
};

}  // namespace freshet
