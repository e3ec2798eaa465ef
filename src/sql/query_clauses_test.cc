// RisingWave's clauses inside queries reach the node they belong to, and
// go with their tree.
#include "sql/query_clauses.h"

#include <gtest/gtest.h>
#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"
#include "sql/parser.h"

namespace freshet {
namespace {

const PgQuery__SelectStmt* Select(const ParsedStatement& s) { return s.node->select_stmt; }

TEST(QueryClausesTest, CorrespondingBelongsToTheOperationItPrecedes) {
  // UNION binds looser than INTERSECT: a UNION (b INTERSECT c).
  std::vector<ParsedStatement> stmts =
      ParseSql("select 1 as a union corresponding select 2 as a intersect corresponding by (a) select 3 as a");
  const PgQuery__SelectStmt* top = Select(stmts.at(0));
  ASSERT_EQ(top->op, PG_QUERY__SET_OPERATION__SETOP_UNION);
  const CorrespondingClause* outer = CorrespondingOf(top);
  const CorrespondingClause* inner = CorrespondingOf(top->rarg);
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(outer->by.empty());
  EXPECT_EQ(inner->by, std::vector<std::string>{"a"});
  EXPECT_EQ(CorrespondingOf(top->larg), nullptr);

  // Left-associative: (a UNION b) EXCEPT c, the clause on the first only.
  stmts = ParseSql("(select 1 as a union all corresponding by (\"A\", b) select 2 as a) except select 3 as a");
  top = Select(stmts.at(0));
  EXPECT_EQ(CorrespondingOf(top), nullptr);
  ASSERT_NE(CorrespondingOf(top->larg), nullptr);
  EXPECT_EQ(CorrespondingOf(top->larg)->by, (std::vector<std::string>{"A", "b"}));
}

TEST(QueryClausesTest, PositionsFollowTextInsertedBeforeParsing) {
  // A FROM subquery without an alias gets " AS unnamed_subquery" (PostgreSQL
  // 16's name) inserted before libpg_query parses: the clause's positions
  // move with the tree's.
  std::string sql = "select * from (select 1 as x) union corresponding select * from (select 2 as x)";
  std::vector<ParsedStatement> stmts = ParseSql(sql);
  const CorrespondingClause* c = CorrespondingOf(Select(stmts.at(0)));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->location, static_cast<int>(sql.find("corresponding") + std::string(" AS unnamed_subquery").size()));
}

TEST(QueryClausesTest, AnnotationsGoWithTheirTree) {
  const PgQuery__SelectStmt* node;
  {
    std::vector<ParsedStatement> stmts = ParseSql("select 1 as a union corresponding select 2 as a");
    node = Select(stmts.at(0));
    EXPECT_TRUE(HasAnnotations(&stmts.at(0).node->base));
    ASSERT_NE(CorrespondingOf(node), nullptr);
  }
  EXPECT_EQ(CorrespondingOf(node), nullptr);
}

TEST(QueryClausesTest, ProcessTimeBelongsToTheRelationItFollows) {
  for (const char* sql : {"select * from a join s.b for system_time as of proctime() x on true",
                          "select * from a join s.b x for system_time as of proctime() on true"}) {
    std::vector<ParsedStatement> stmts = ParseSql(sql);
    const PgQuery__JoinExpr* j = Select(stmts.at(0))->from_clause[0]->join_expr;
    EXPECT_FALSE(IsProcessTimeRelation(j->larg->range_var)) << sql;
    EXPECT_TRUE(IsProcessTimeRelation(j->rarg->range_var)) << sql;
    EXPECT_EQ(std::string(j->rarg->range_var->relname), "b");
    EXPECT_EQ(std::string(j->rarg->range_var->alias->aliasname), "x");
  }
  // Only PROCTIME(); after no name, a syntax error.
  EXPECT_THROW(ParseSql("select * from a join b for system_time as of now() on true"), SqlError);
  EXPECT_THROW(ParseSql("select * from a join (select 1) for system_time as of proctime() on true"), SqlError);
}

TEST(QueryClausesTest, AsOfBelongsToItsJoin) {
  // (a ASOF JOIN b) JOIN c: the inner join only.
  std::vector<ParsedStatement> stmts = ParseSql("select * from a asof left join b on a.k = b.k join c on true");
  const PgQuery__JoinExpr* outer = Select(stmts.at(0))->from_clause[0]->join_expr;
  EXPECT_FALSE(IsAsOfJoin(outer));
  EXPECT_TRUE(IsAsOfJoin(outer->larg->join_expr));
  EXPECT_EQ(outer->larg->join_expr->jointype, PG_QUERY__JOIN_TYPE__JOIN_LEFT);
  // An alias named asof before no JOIN stays an alias.
  stmts = ParseSql("select * from a asof where asof.x = 1");
  EXPECT_EQ(std::string(Select(stmts.at(0))->from_clause[0]->range_var->alias->aliasname), "asof");
}

TEST(QueryClausesTest, MalformedClausesAreSyntaxErrors) {
  for (const char* sql : {"select 1 as a union corresponding by a select 1 as a",
                          "select 1 as a union corresponding by (a select 1 as a",
                          "select 1 as a union corresponding by (a,) select 1 as a",
                          "select 1 as a union corresponding"}) {
    try {
      ParseSql(sql);
      ADD_FAILURE() << "no error for " << sql;
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), std::string(sqlstate::kSyntaxError)) << sql;
    }
  }
  // Deparsing would drop the clause.
  std::vector<ParsedStatement> stmts = ParseSql("select 1 as a union corresponding select 2 as a");
  EXPECT_THROW(Deparse(stmts.at(0).node), SqlError);
}

}  // namespace
}  // namespace freshet
