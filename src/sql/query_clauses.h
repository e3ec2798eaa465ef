// RisingWave's clauses inside queries that PostgreSQL's grammar has no
// place for. Before libpg_query parses a statement, CutQueryClauses blanks
// them out of its text (so that every position holds) and remembers them;
// once the tree is made, AnnotateTree attaches each to the node it belongs
// to, and the binder asks a node for its clause. An annotation lives as
// long as its tree: the tree's deleter forgets it (ForgetAnnotations).
//
// The clauses:
// - `UNION | INTERSECT | EXCEPT [ALL | DISTINCT] CORRESPONDING [BY (c, ...)]`
//   belongs to the set operation's SelectStmt whose right side the keyword
//   precedes: the sides' columns are matched by name (CorrespondingOf).
// - `name FOR SYSTEM_TIME AS OF PROCTIME()` belongs to the RangeVar of the
//   name it follows: a process-time temporal join's right side
//   (IsProcessTimeRelation). Other FOR SYSTEM_TIME forms (time travel,
//   event-time joins) are refused (0A000).
// - `ASOF [LEFT [OUTER]] JOIN` belongs to the JoinExpr of that JOIN (the
//   one whose right side starts first after it): an as-of join (IsAsOfJoin).
//   As in RisingWave, ASOF there is a keyword, not an alias.
// - `WITH name AS CHANGELOG FROM relation` becomes `WITH name AS (SELECT *
//   FROM relation)` (CHANGELOG's nine bytes are `(SELECT *`, a `)` is
//   inserted after the name) and belongs to that CommonTableExpr
//   (IsChangelogCte): the relation's changes as rows.
//
// A node's clauses are lost when its tree is deparsed: Deparse refuses a
// tree that has any (HasAnnotations), and what is kept as text (a view's
// definition, a function's AS body) is the text as written.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct PgQuery__ParseResult;
struct PgQuery__SelectStmt;
struct PgQuery__RangeVar;
struct PgQuery__CommonTableExpr;
struct PgQuery__JoinExpr;
struct ProtobufCMessage;

namespace freshet {

// CORRESPONDING [BY (columns)] of a set operation.
struct CorrespondingClause {
  std::vector<std::string> by;  // BY's columns as written (lower-cased unless quoted); empty without BY
  int location = -1;            // byte offset of CORRESPONDING in the statement's text
};

// What CutQueryClauses found in a text, by position.
struct QueryClauses {
  // Every UNION, INTERSECT and EXCEPT keyword (byte offsets), in order.
  std::vector<int> set_operation_keywords;
  struct Corresponding {
    int keyword;  // of its UNION / INTERSECT / EXCEPT
    CorrespondingClause clause;
  };
  std::vector<Corresponding> corresponding;
  // Where each FOR SYSTEM_TIME AS OF PROCTIME() starts.
  std::vector<int> process_time;
  // Where each CHANGELOG (of AS CHANGELOG FROM) was.
  std::vector<int> changelog;
  // Where each ASOF was.
  std::vector<int> asof;

  bool empty() const { return corresponding.empty() && process_time.empty() && changelog.empty() && asof.empty(); }
  // `length` bytes were inserted into the text at byte `at`: the positions
  // after it move.
  void Shift(int at, int length);
};

// Blanks the clauses out of `text` (a statement's text as libpg_query will
// parse it; CHANGELOG rewritten, which inserts bytes). Throws SqlError 42601 on a malformed clause, its position
// counted from byte `loc` of the query string `sql`.
QueryClauses CutQueryClauses(std::string* text, const std::string& sql, int loc);

// Attaches the clauses to the nodes of `tree` (parsed from the text they
// were cut from) and returns those nodes, for ForgetAnnotations. Throws
// 42601 when a clause belongs to no node.
std::vector<const void*> AnnotateTree(PgQuery__ParseResult* tree, const QueryClauses& clauses, const std::string& sql,
                                      int loc);
void ForgetAnnotations(const std::vector<const void*>& nodes);

// The CORRESPONDING clause of a set operation, or null.
const CorrespondingClause* CorrespondingOf(const PgQuery__SelectStmt* set_operation);

// Whether the relation was named with FOR SYSTEM_TIME AS OF PROCTIME().
bool IsProcessTimeRelation(const PgQuery__RangeVar* relation);

// Whether the join was written ASOF [LEFT] JOIN.
bool IsAsOfJoin(const PgQuery__JoinExpr* join);

// Whether the CTE was written `name AS CHANGELOG FROM relation`.
bool IsChangelogCte(const PgQuery__CommonTableExpr* cte);

// Whether any node of the tree under `root` has a clause.
bool HasAnnotations(ProtobufCMessage* root);

}  // namespace freshet
