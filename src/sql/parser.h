// SQL parsing.
//
// PostgreSQL's grammar comes from libpg_query; we use its protobuf-c tree
// (pg_query/pg_query.pb-c.h) directly, without code generation. Statements
// that PostgreSQL does not know (RisingWave's FLUSH, WAIT, SHOW TABLES,
// SHOW CREATE ..., and later CREATE SINK/SOURCE...) are recognized on the
// libpg_query token stream (pg_query_scan), cut out, and parsed by hand
// into an ExtensionStatement.
//
// Positions in errors are 1-based character offsets into the whole query
// string, as PostgreSQL reports them.
#pragma once

#include <memory>
#include <map>
#include <string>
#include <vector>

struct PgQuery__ParseResult;
struct PgQuery__Node;

namespace freshet {

// A token of the PostgreSQL lexer, simplified.
struct Token {
  enum class Kind { kIdent, kKeyword, kString, kNumber, kOperator, kParam, kOther };
  Kind kind;
  std::string text;  // lower-cased for unquoted identifiers and keywords; string value for kString
  int start;         // byte offsets into the statement
  int end;
};

struct ExtensionStatement {
  enum class Kind {
    kNone, kFlush, kWait, kShowObjects, kShowCreate, kShowParameters,
    kCreateDatabaseIfNotExists,  // RisingWave accepts it; PostgreSQL's grammar does not
    kCreateSink,   // CREATE SINK [IF NOT EXISTS] name {FROM relation | AS query} WITH (...)
    kDropObject,   // DROP {SINK | SOURCE} [IF EXISTS] name [CASCADE | RESTRICT] (one name)
    kCancelJobs,   // CANCEL {JOB | JOBS} id [, ...]
    kShowJobs,     // SHOW JOBS [WHERE condition]
    kAlterBackfillRateLimit,  // ALTER {MATERIALIZED VIEW | SINK | INDEX} name SET BACKFILL_RATE_LIMIT {=|TO} {n | DEFAULT}
  } kind = Kind::kNone;
  bool if_not_exists = false;  // kCreateSink; kDropObject: IF EXISTS
  bool cascade = false;        // kDropObject
  std::string query;           // kCreateSink: the AS query's text
  int query_offset = 0;        // its byte offset in the statement
  std::string object_kind;   // kShowObjects: tables, databases, schemas, materialized views, ...; kShowCreate: table, ...
  std::vector<std::string> name;  // kShowCreate: qualified name; kShowObjects: schema (FROM x); kWait: the job
  std::vector<int64_t> ids;       // kCancelJobs
  std::string value;              // kAlterBackfillRateLimit: the number or "default"
  // kWait: "" (every job), "materialized view", "sink" or "index";
  // kShowJobs: the WHERE condition's text ("" = none), in `query`.
};

struct ParsedStatement {
  std::string text;   // the statement's own text
  int offset = 0;     // byte offset of text in the query string
  // For PostgreSQL statements: the tree (shared by the statements of one
  // parse) and this statement's node.
  std::shared_ptr<PgQuery__ParseResult> tree;
  PgQuery__Node* node = nullptr;
  ExtensionStatement extension;  // kind != kNone for our own statements
  // RisingWave clauses cut out of CREATE TABLE / SOURCE / SINK before
  // libpg_query sees the rest: WITH (connector = ..., a.b.c = ...), APPEND
  // ONLY, FORMAT x ENCODE y. CREATE SOURCE is parsed as CREATE TABLE with
  // is_source set.
  std::map<std::string, std::string> with_options;
  bool has_with_options = false;
  bool append_only = false;
  bool is_source = false;
  std::string format, encode;
};

class ParseCache;

// Splits and parses a query string (one or more statements). Throws SqlError
// 42601 with the position on a syntax error, 54001 when too deeply nested.
// With a cache (parse_cache.h), statements of a shape parsed before take
// their tree from it.
std::vector<ParsedStatement> ParseSql(const std::string& sql, ParseCache* cache = nullptr);

// Tokenizes with the PostgreSQL lexer.
std::vector<Token> Tokenize(const std::string& sql);

// Converts a byte offset in `text` to PostgreSQL's 1-based character position.
int CharPosition(const std::string& text, int byte_offset);

}  // namespace freshet
