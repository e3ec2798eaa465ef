// Freshet's own statements parse into their typed structs, and the parts
// PostgreSQL's grammar parses (a sink's query, SHOW JOBS' condition) into
// trees whose positions count from the statement.
#include "sql/parser.h"

#include <gtest/gtest.h>
#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"

namespace freshet {
namespace {

ParsedStatement ParseOne(const std::string& sql) {
  std::vector<ParsedStatement> stmts = ParseSql(sql);
  EXPECT_EQ(stmts.size(), 1u) << sql;
  return stmts.at(0);
}

int SyntaxErrorPosition(const std::string& sql) {
  try {
    ParseSql(sql);
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), std::string(sqlstate::kSyntaxError)) << sql;
    return e.position();
  }
  ADD_FAILURE() << "no error for " << sql;
  return -1;
}

TEST(ParserExtensionTest, EachStatementHasItsStruct) {
  EXPECT_TRUE(std::holds_alternative<FlushStatement>(ParseOne("FLUSH").extension));
  EXPECT_TRUE(std::holds_alternative<ShowParametersStatement>(ParseOne("SHOW PARAMETERS").extension));
  EXPECT_FALSE(ParseOne("SELECT 1").is_extension());

  auto wait = std::get<WaitStatement>(ParseOne("WAIT MATERIALIZED VIEW s.m").extension);
  EXPECT_EQ(wait.object_kind, "materialized view");
  EXPECT_EQ(wait.name, (std::vector<std::string>{"s", "m"}));
  EXPECT_TRUE(std::get<WaitStatement>(ParseOne("WAIT").extension).name.empty());

  auto show = std::get<ShowObjectsStatement>(ParseOne("SHOW MATERIALIZED VIEWS FROM x").extension);
  EXPECT_EQ(show.object_kind, "materialized views");
  EXPECT_EQ(show.schema, "x");

  auto create = std::get<ShowCreateStatement>(ParseOne("SHOW CREATE INDEX i").extension);
  EXPECT_EQ(create.object_kind, "index");
  EXPECT_EQ(create.name, std::vector<std::string>{"i"});

  auto db = std::get<CreateDatabaseIfNotExistsStatement>(ParseOne("CREATE DATABASE IF NOT EXISTS d").extension);
  EXPECT_EQ(db.name, "d");

  auto drop = std::get<DropObjectStatement>(ParseOne("DROP SOURCE IF EXISTS a.b CASCADE").extension);
  EXPECT_EQ(drop.object_kind, "source");
  EXPECT_EQ(drop.name, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(drop.if_exists);
  EXPECT_TRUE(drop.cascade);

  auto cancel = std::get<CancelJobsStatement>(ParseOne("CANCEL JOBS 3, 5").extension);
  EXPECT_EQ(cancel.ids, (std::vector<int64_t>{3, 5}));

  auto alter = std::get<AlterBackfillRateLimitStatement>(
      ParseOne("ALTER SINK k SET BACKFILL_RATE_LIMIT = DEFAULT").extension);
  EXPECT_EQ(alter.object_kind, "sink");
  EXPECT_EQ(alter.value, "default");
}

TEST(ParserExtensionTest, SinkQueryIsParsedInPlace) {
  const std::string sql = "CREATE SINK IF NOT EXISTS k AS SELECT a FROM t WITH (connector = 'blackhole')";
  ParsedStatement p = ParseOne(sql);
  auto sink = std::get<CreateSinkStatement>(p.extension);
  EXPECT_TRUE(sink.if_not_exists);
  EXPECT_EQ(sink.name, std::vector<std::string>{"k"});
  EXPECT_TRUE(sink.from.empty());
  ASSERT_NE(sink.query, nullptr);
  ASSERT_EQ(sink.query->node_case, PG_QUERY__NODE__NODE_SELECT_STMT);
  const PgQuery__SelectStmt* select = sink.query->select_stmt;
  ASSERT_EQ(select->n_from_clause, 1u);
  // The relation's position is its byte offset in the statement.
  EXPECT_EQ(select->from_clause[0]->range_var->location, int(sql.find("t WITH")));
  EXPECT_EQ(p.with_options.at("connector"), "blackhole");

  auto from = std::get<CreateSinkStatement>(ParseOne("CREATE SINK k FROM s.t WITH (connector = 'blackhole')").extension);
  EXPECT_EQ(from.from, (std::vector<std::string>{"s", "t"}));
  EXPECT_EQ(from.query, nullptr);

  // A WITH that starts a CTE belongs to the query.
  // (The statement owns the tree the struct points into: kept alive.)
  ParsedStatement with_cte =
      ParseOne("CREATE SINK k AS WITH w AS (SELECT 1 AS x) SELECT x FROM w WITH (connector = 'blackhole')");
  const auto& cte = std::get<CreateSinkStatement>(with_cte.extension);
  ASSERT_NE(cte.query, nullptr);
  EXPECT_NE(cte.query->select_stmt->with_clause, nullptr);
}

TEST(ParserExtensionTest, ShowJobsConditionIsParsedInPlace) {
  const std::string sql = "SHOW JOBS WHERE \"Id\" > 10";
  ParsedStatement p = ParseOne(sql);
  const PgQuery__Node* where = std::get<ShowJobsStatement>(p.extension).where;
  ASSERT_NE(where, nullptr);
  ASSERT_EQ(where->node_case, PG_QUERY__NODE__NODE_A_EXPR);
  EXPECT_EQ(where->a_expr->lexpr->column_ref->location, int(sql.find("\"Id\"")));
  EXPECT_EQ(std::get<ShowJobsStatement>(ParseOne("SHOW JOBS").extension).where, nullptr);
}

TEST(ParserExtensionTest, BadConditionsAreSyntaxErrors) {
  // Positions are 1-based characters of the whole query string.
  EXPECT_EQ(SyntaxErrorPosition("SHOW JOBS WHERE"), 11);
  EXPECT_EQ(SyntaxErrorPosition("SHOW JOBS WHERE 1) x"), 18);
  EXPECT_EQ(SyntaxErrorPosition("SELECT 1; SHOW JOBS WHERE x ORDER BY y"), 21);
  EXPECT_GT(SyntaxErrorPosition("SHOW JOBS WHERE x UNION SELECT 1"), 0);
  EXPECT_EQ(SyntaxErrorPosition("CREATE SINK k AS INSERT INTO t VALUES (1) WITH (connector = 'blackhole')"), 18);
  EXPECT_EQ(SyntaxErrorPosition("CREATE SINK k AS SELECT FROM WHERE WITH (connector = 'blackhole')"), 30);
}

TEST(EditNamesTest, ReplacesThePartAskedForAndKeepsOutputNames) {
  const std::string sql = "SELECT b, t.b, \"T\".b AS x, upper(b) FROM s.t WHERE t.b > 'b' ORDER BY b";
  auto at = [&](const std::string& text, size_t from = 0) { return static_cast<int>(sql.find(text, from)); };
  std::vector<NameEdit> edits = {
      {at("b,"), 0, "New B", "b"},                 // a select-list entry alone: keeps its name
      {at("t.b"), 0, "nb", "b"},                   // qualified: its last part
      {at("\"T\".b"), 1, "u", ""},                // the part before the last
      {at("b)"), 0, "nb", "b"},                    // inside an expression: no AS
      {at("s.t"), 0, "t2", ""},                    // a relation's last part
      {at("t.b >"), 0, "nb", "b"},
      {at("t.b >"), 0, "nb", "b"},                 // the same name bound twice
      {at("b", at("ORDER BY")), 0, "select", ""},  // a keyword: quoted
  };
  EXPECT_EQ(EditNames(sql, edits),
            "SELECT \"New B\" AS b, t.nb AS b, u.b AS x, upper(nb) FROM s.t2 WHERE t.nb > 'b' ORDER BY \"select\"");
  EXPECT_EQ(EditNames(sql, {}), sql);
  // A location that starts no name is an internal error, not a guess.
  EXPECT_THROW(EditNames(sql, {{at(">"), 0, "x", ""}}), SqlError);
  EXPECT_THROW(EditNames(sql, {{at("b,") + 1, 0, "x", ""}}), SqlError);
  EXPECT_THROW(EditNames(sql, {{at("t.b"), 2, "x", ""}}), SqlError);
}

}  // namespace
}  // namespace freshet
