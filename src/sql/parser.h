// SQL parsing.
//
// PostgreSQL's grammar comes from libpg_query; we use its protobuf-c tree
// (pg_query/pg_query.pb-c.h) directly, without code generation. Statements
// that PostgreSQL does not know (RisingWave's FLUSH, WAIT, SHOW TABLES,
// SHOW CREATE ..., and later CREATE SINK/SOURCE...) are recognized on the
// libpg_query token stream (pg_query_scan), cut out, and parsed by hand
// into one typed struct per statement (ExtensionStatement).
//
// Positions in errors are 1-based character offsets into the whole query
// string, as PostgreSQL reports them.
#pragma once

#include <memory>
#include <map>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

struct PgQuery__ParseResult;
struct PgQuery__Node;
struct PgQuery__DefElem;
struct PgQuery__SelectStmt;
struct PgQuery__IntoClause;

namespace freshet {

// A token of the PostgreSQL lexer, simplified.
struct Token {
  enum class Kind { kIdent, kKeyword, kString, kNumber, kOperator, kParam, kOther };
  Kind kind;
  std::string text;  // lower-cased for unquoted identifiers and keywords; string value for kString
  int start;         // byte offsets into the statement
  int end;
};

// Freshet's own statements (RisingWave's), one struct each. Names are as
// written, maybe schema-qualified; kinds are lower case ("materialized
// view", "sink", "index", ...).

// FLUSH
struct FlushStatement {};
// WAIT [{MATERIALIZED VIEW | SINK | INDEX} name]: no name waits for every job.
struct WaitStatement {
  std::string object_kind;
  std::vector<std::string> name;
};
// SHOW {TABLES | DATABASES | SCHEMAS | VIEWS | MATERIALIZED VIEWS | SOURCES
// | SINKS | SUBSCRIPTIONS} [{FROM | IN} schema]
struct ShowObjectsStatement {
  std::string object_kind;  // "tables", "materialized views", ...
  std::string schema;       // "" = the current schema
};
// SHOW CREATE {TABLE | MATERIALIZED VIEW | VIEW | INDEX | SOURCE | SINK} name
struct ShowCreateStatement {
  std::string object_kind;
  std::vector<std::string> name;
};
// SHOW PARAMETERS, SHOW ALL
struct ShowParametersStatement {};
// SHOW JOBS [WHERE condition]
struct ShowJobsStatement {
  const PgQuery__Node* where = nullptr;  // in ParsedStatement::tree; positions count from the statement
};
// CREATE DATABASE IF NOT EXISTS name (RisingWave accepts it; PostgreSQL's
// grammar does not), and CREATE DATABASE name WITH (option = value, ...)
// (GreptimeDB's parenthesized options: ttl).
struct CreateDatabaseIfNotExistsStatement {
  bool if_not_exists = true;
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;  // [WITH] name [=] value, as written
};
// CREATE SINK [IF NOT EXISTS] name {FROM relation | AS query} WITH (...)
struct CreateSinkStatement {
  std::vector<std::string> name;
  bool if_not_exists = false;
  std::vector<std::string> from;         // FROM relation; empty with AS
  const PgQuery__Node* query = nullptr;  // AS query (a SelectStmt) in ParsedStatement::tree
  bool emit_on_window_close = false;     // AS query EMIT ON WINDOW CLOSE
};
// DROP {SINK | SOURCE | SUBSCRIPTION} [IF EXISTS] name [CASCADE | RESTRICT]
struct DropObjectStatement {
  std::string object_kind;  // "sink", "source", "subscription" or "flow"
  std::vector<std::string> name;
  bool if_exists = false;
  bool cascade = false;
};
// CANCEL {JOB | JOBS} id [, ...]
struct CancelJobsStatement {
  std::vector<int64_t> ids;
};
// ALTER {MATERIALIZED VIEW | SINK | INDEX} name SET BACKFILL_RATE_LIMIT {= | TO} {n | DEFAULT}
struct AlterBackfillRateLimitStatement {
  std::string object_kind;
  std::vector<std::string> name;
  std::string value;  // the number or "default"
};

// USE name (RisingWave's SET DATABASE TO name)
struct UseDatabaseStatement {
  std::string name;
};
// RECOVER [DATABASE name] (RisingWave's: every database without a name)
struct RecoverStatement {
  std::string database;  // "" = every database
};

// CREATE SUBSCRIPTION [IF NOT EXISTS] name FROM relation WITH (retention = '...')
struct CreateSubscriptionStatement {
  std::vector<std::string> name;
  std::vector<std::string> from;
  bool if_not_exists = false;
};
// DECLARE name SUBSCRIPTION CURSOR FOR subscription [SINCE {now() |
// proctime() | begin() | unix_ms} | FULL]
struct DeclareSubscriptionCursorStatement {
  std::string name;
  std::vector<std::string> subscription;
  enum class Start { kNow, kBegin, kSince, kFull } start = Start::kNow;
  int64_t since_ms = 0;  // kSince
};

// GreptimeDB's ALTER TABLE name SET 'key' = value [, ...] | UNSET 'key' [,
// ...] (a time-series table's options; keys quoted or not) and ALTER
// DATABASE name SET 'ttl' = value | UNSET 'ttl'.
struct AlterOptionsStatement {
  bool database = false;
  std::vector<std::string> name;
  std::vector<std::pair<std::string, std::string>> set;  // keys lower-cased
  std::vector<std::string> unset;
};

// One of Freshet's own statements, or monostate for PostgreSQL's.
using ExtensionStatement =
    std::variant<std::monostate, FlushStatement, WaitStatement, ShowObjectsStatement, ShowCreateStatement,
                 ShowParametersStatement, ShowJobsStatement, CreateDatabaseIfNotExistsStatement, CreateSinkStatement,
                 DropObjectStatement, CancelJobsStatement, AlterBackfillRateLimitStatement, UseDatabaseStatement,
                 RecoverStatement, CreateSubscriptionStatement, DeclareSubscriptionCursorStatement,
                 AlterOptionsStatement>;

struct ParsedStatement {
  std::string text;   // the statement's own text
  int offset = 0;     // byte offset of text in the query string
  // For PostgreSQL statements: the tree (shared by the statements of one
  // parse) and this statement's node.
  std::shared_ptr<PgQuery__ParseResult> tree;
  PgQuery__Node* node = nullptr;
  // Our own statements (node is null then; their parts that PostgreSQL's
  // grammar parses, a sink's query or SHOW JOBS' condition, are in tree).
  ExtensionStatement extension;
  bool is_extension() const { return extension.index() != 0; }
  // RisingWave clauses cut out of CREATE TABLE / SOURCE / SINK before
  // libpg_query sees the rest: WITH (connector = ..., a.b.c = ...), APPEND
  // ONLY, FORMAT x ENCODE y, WATERMARK FOR. CREATE SOURCE is parsed as CREATE TABLE with
  // is_source set.
  std::map<std::string, std::string> with_options;
  bool has_with_options = false;
  bool append_only = false;
  bool is_source = false;
  // CREATE TABLE ... ON CONFLICT {OVERWRITE | IGNORE | DO NOTHING | DO
  // UPDATE FULL | DO UPDATE IF NOT NULL} [WITH VERSION COLUMN (col)]
  // (RisingWave's): "overwrite", "ignore" or "do update if not null", and
  // the version column as written ("" for none).
  std::string on_conflict, version_column;
  // WATERMARK FOR column AS expr, cut out of the column list (the name as
  // written, lower-cased unless quoted; the expression's text); at most one.
  std::string watermark_column, watermark_expr;
  int watermark_location = -1;
  // CREATE MATERIALIZED VIEW ... EMIT ON WINDOW CLOSE: the trailing clause
  // cut off.
  bool emit_on_window_close = false;
  std::string format, encode;
  // FETCH ... WITH (timeout = '...') (RisingWave's, for subscription
  // cursors): the trailing clause cut off; its text ("" for none).
  std::string fetch_timeout;
  // GreptimeDB's CREATE TABLE clauses (time-series tables, issue 21), cut
  // out: `TIME INDEX (col)` or `col type ... TIME INDEX` (the column as
  // written, lower-cased unless quoted); `PARTITION ON COLUMNS (c, ...)
  // (rule, ...)` (each rule's text); `ENGINE = name`; and, for a table
  // with a time index, its WITH options (keys lower-cased, quoted or not).
  std::string time_index;
  int time_index_location = -1;
  bool has_partition = false;
  std::vector<std::string> partition_columns, partition_rules;
  std::string engine;
  std::map<std::string, std::string> timeseries_options;
  // GreptimeDB's CREATE [OR REPLACE] FLOW [IF NOT EXISTS] f SINK TO out
  // [COMMENT '...'] AS query, parsed as CREATE MATERIALIZED VIEW out AS
  // query: the flow's name ("" for anything else) and its parts.
  std::string flow_name, flow_comment;
  bool flow_or_replace = false, flow_if_not_exists = false;
};

class ParseCache;

// Splits and parses a query string (one or more statements). Throws SqlError
// 42601 with the position on a syntax error, 54001 when too deeply nested.
// With a cache (parse_cache.h), statements of a shape parsed before take
// their tree from it.
std::vector<ParsedStatement> ParseSql(const std::string& sql, ParseCache* cache = nullptr);

// Tokenizes with the PostgreSQL lexer.
std::vector<Token> Tokenize(const std::string& sql);

// The NOTICEs PostgreSQL's scanner gives a query string's identifiers
// longer than 63 bytes, which it (and libpg_query) cuts to 63:
// `identifier "..." will be truncated to "..."`, in the order they occur.
std::vector<std::string> TruncatedIdentifierNotices(const std::string& sql);

// The text of a String node of a parse tree ("" for other nodes).
std::string StringOf(const PgQuery__Node* n);
// The value of an option (DefElem) as text: "true" when it has none.
std::string DefElemText(const PgQuery__DefElem* d);
// The name of a parse tree node's type ("CreateStmt"), for messages.
std::string NodeTag(const PgQuery__Node* n);

// The SQL text of a statement or query node, as libpg_query's deparser
// writes it (PostgreSQL's spelling, normalized spacing and quoting; used
// for pg_get_viewdef). Throws XX000 when the node cannot be deparsed.
std::string Deparse(const PgQuery__Node* node);
// A CREATE VIEW statement's query as pg_get_viewdef shows it: deparsed, or
// as written when it holds a clause the deparser has no place for
// (sql/query_clauses.h).
std::string ViewQueryText(const ParsedStatement& create_view);
// The same for an expression (a DEFAULT set by ALTER TABLE).
std::string DeparseExpression(const PgQuery__Node* expr);

// `expr` (an expression's SQL text, as DeparseExpression gives it) with its
// references to column `from` (alone or qualified by a table) naming `to`.
std::string RenameColumnInExpression(const std::string& expr, const std::string& from, const std::string& to);

// The names of the columns `expr` (an expression's SQL text) reads.
std::vector<std::string> ColumnsInExpression(const std::string& expr);

// One comparison of a PARTITION ON COLUMNS rule (GreptimeDB's): a column
// with a literal or another column, the column on the left (a literal
// written first is moved right, the operator turned round).
struct PartitionRuleTerm {
  std::string column;  // as the parser gives names (lower-cased unless quoted)
  std::string op;      // =, <>, <, <=, >, >=
  std::string other_column;  // "" when compared with a literal
  enum class Literal { kString, kInteger, kFloat, kBoolean } kind = Literal::kString;
  std::string literal;  // the literal's text (a number's digits, a string's value)
};
// Parses one rule: comparisons joined with AND. Throws 42601 naming the
// rule for anything else.
std::vector<PartitionRuleTerm> ParsePartitionRule(const std::string& rule);

// `query` (one SELECT's text, or the query of a CREATE MATERIALIZED VIEW
// statement) deparsed, each relation it names without a schema (CTEs
// aside) written schema.name when `schema_for(name)` gives a schema, and
// so each function it calls by its name alone when `function_schema_for`
// gives one: pg_get_viewdef's output, qualified where the reader's search
// path would not find the same relation or SQL function. Throws when
// `query` does not parse.
std::string DeparseQualified(const std::string& query,
                             const std::function<std::optional<std::string>(const std::string&)>& schema_for,
                             const std::function<std::optional<std::string>(const std::string&)>& function_schema_for = nullptr);

// A name in a statement's text to write anew (a rename the statement must
// follow): the dotted name starting at byte offset `location` (a
// ColumnRef's or RangeVar's, or any name's first token), its part
// `part_from_end` (0: the last) replaced by `new_name`, quoted as needed.
// With `keep_output_name`, a select-list entry that is this name alone
// gets `AS keep_output_name`: what the query's column was called. With
// `new_schema`, the parts before the last (none, or schema, or database and
// schema) become `new_schema` (a relation moved by SET SCHEMA).
struct NameEdit {
  int location = -1;
  int part_from_end = 0;
  std::string new_name;
  std::string keep_output_name;
  std::string new_schema;
};
// `statement` with the edits made (the rest of its text as written).
// Throws XX000 when an edit's location starts no name.
std::string EditNames(const std::string& statement, const std::vector<NameEdit>& edits);

// 54001 when `sql` nests expressions deeper than the parser may be given
// (ParseSql checks it; callers of libpg_query's other entry points too).
void CheckNestingDepth(const std::string& sql);

// `expr` (an expression's SQL text) with each relation name it gives as a
// regclass literal ('s'::regclass, or the first argument of nextval,
// currval, setval) replaced by rename(name), and each type name a cast
// gives ('x'::s.mood) by rename_type(its names) when that gives names,
// deparsed; `expr` unchanged when it has none. Throws when `expr` does not
// parse.
using TypeNameRewrite = std::function<std::optional<std::vector<std::string>>(const std::vector<std::string>&)>;
std::string RewriteRegclassLiterals(const std::string& expr, const std::function<std::string(const std::string&)>& rename,
                                    const TypeNameRewrite& rename_type = {});

// Whether a parse tree names a relation `name` without a schema anywhere
// (WITH RECURSIVE: whether a query refers to itself).
bool NamesRelation(const PgQuery__Node* node, const std::string& name);
bool NamesRelation(const PgQuery__SelectStmt* select, const std::string& name);

// Converts a byte offset in `text` to PostgreSQL's 1-based character position.
int CharPosition(const std::string& text, int byte_offset);

}  // namespace freshet
