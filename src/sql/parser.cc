#include "sql/parser.h"

#include "sql/parse_cache.h"
#include "sql/parse_tree.h"
#include "sql/query_clauses.h"

#include "common/identifier.h"

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <deque>
#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "common/error.h"

namespace freshet {

namespace {

// Bison's own stack stops at 10,000 levels; libpg_query's tree output recurses
// once per level. We refuse anything deeper before it reaches either.
constexpr int kMaxNesting = 10000;

// Frees a tree, and forgets the clauses attached to its nodes first (a
// new tree may be given the same addresses).
struct ParseResultDeleter {
  std::vector<const void*> annotated;
  void operator()(PgQuery__ParseResult* r) const {
    ForgetAnnotations(annotated);
    pg_query__parse_result__free_unpacked(r, nullptr);
  }
};

bool IsOperatorText(const std::string& t) {
  return !t.empty() && std::string("+-*/<>=~!@#%^&|`?").find(t[0]) != std::string::npos;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Estimates the depth of the tree the parser would build: parentheses nest,
// and a chain of binary operators nests left-deep (a+b+c+...), but commas
// separate siblings, so operators count only since the last comma or
// parenthesis of their level. A VALUES list of many rows stays shallow.
class NestingEstimate {
 public:
  void Open() { counts_.push_back(0); Update(); }
  void Close() {
    if (counts_.empty()) return;
    sum_ -= counts_.back();
    counts_.pop_back();
  }
  void Comma() {
    if (counts_.empty()) { sum_ -= top_level_; top_level_ = 0; return; }
    sum_ -= counts_.back();
    counts_.back() = 0;
  }
  void Operator() {
    (counts_.empty() ? top_level_ : counts_.back())++;
    sum_++;
    Update();
  }
  int max() const { return max_; }

 private:
  void Update() { max_ = std::max(max_, static_cast<int>(counts_.size()) + sum_); }
  std::vector<int> counts_;
  int top_level_ = 0, sum_ = 0, max_ = 0;
};

int EstimateNesting(const std::vector<Token>& tokens) {
  NestingEstimate est;
  for (const auto& t : tokens) {
    if (t.text == "(") est.Open();
    else if (t.text == ")") est.Close();
    else if (t.text == "," && t.kind == Token::Kind::kOther) est.Comma();
    else if (t.kind == Token::Kind::kOperator || t.text == "and" || t.text == "or") est.Operator();
  }
  return est.max();
}

std::string UnquoteIdent(const std::string& raw) {
  if (raw.size() >= 2 && raw.front() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < raw.size(); i++) {
      out.push_back(raw[i]);
      if (raw[i] == '"' && raw[i + 1] == '"') i++;
    }
    return out;
  }
  return Lower(raw);
}

std::string UnquoteString(const std::string& raw) {
  size_t q = raw.find('\'');
  if (q == std::string::npos) return raw;
  std::string out;
  for (size_t i = q + 1; i + 1 < raw.size(); i++) {
    out.push_back(raw[i]);
    if (raw[i] == '\'' && raw[i + 1] == '\'') i++;
  }
  return out;
}

[[noreturn]] void ThrowSyntax(const std::string& sql, int offset, int byte_pos, const std::string& msg) {
  SqlError e(sqlstate::kSyntaxError, msg);
  e.WithPosition(CharPosition(sql, offset + byte_pos) );
  throw e;
}

// Recognizes our own statements from their first tokens. A part that
// PostgreSQL's grammar parses (a sink's AS query, SHOW JOBS' condition) is
// left to the caller: *embedded is set to its byte offset in the statement.
bool ParseExtension(const std::vector<Token>& tok, const std::string& sql, int offset, ExtensionStatement* out,
                    int* embedded) {
  *embedded = -1;
  if (tok.empty()) return false;
  auto word = [&](size_t i) { return i < tok.size() ? tok[i].text : std::string(); };
  auto is_name = [&](size_t i) {
    return i < tok.size() && (tok[i].kind == Token::Kind::kIdent || tok[i].kind == Token::Kind::kKeyword);
  };
  auto qualified = [&](size_t* i) {
    std::vector<std::string> name;
    if (!is_name(*i)) ThrowSyntax(sql, offset, *i < tok.size() ? tok[*i].start : tok.back().end, "syntax error: expected a name");
    name.push_back(tok[(*i)++].text);
    while (word(*i) == "." && is_name(*i + 1)) {
      name.push_back(tok[*i + 1].text);
      *i += 2;
    }
    return name;
  };
  auto expect_end = [&](size_t i) {
    if (i < tok.size()) ThrowSyntax(sql, offset, tok[i].start, "syntax error at or near \"" + tok[i].text + "\"");
  };
  // MATERIALIZED VIEW, SINK or INDEX at i; "" otherwise.
  auto job_kind = [&](size_t* i) -> std::string {
    if (word(*i) == "materialized" && word(*i + 1) == "view") {
      *i += 2;
      return "materialized view";
    }
    if (word(*i) == "sink" || word(*i) == "index") return word((*i)++);
    return "";
  };
  std::string w0 = word(0);
  if (w0 == "create" && word(1) == "sink") {
    size_t i = 2;
    CreateSinkStatement s;
    if (word(i) == "if" && word(i + 1) == "not" && word(i + 2) == "exists") {
      s.if_not_exists = true;
      i += 3;
    }
    s.name = qualified(&i);
    if (word(i) == "from") {
      i++;
      s.from = qualified(&i);
      if (word(i) == "emit" && word(i + 1) == "on" && word(i + 2) == "window" && word(i + 3) == "close") {
        s.emit_on_window_close = true;  // the planner says what it needs (0A000 without an aggregation)
        i += 4;
      }
      if (word(i) != "with" && word(i) != "format") expect_end(i);
    } else if (word(i) == "as" && i + 1 < tok.size()) {
      *embedded = tok[i + 1].start;
    } else {
      ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end, "syntax error: CREATE SINK expects FROM or AS");
    }
    *out = std::move(s);
    return true;
  }
  if (w0 == "create" && word(1) == "subscription") {
    size_t i = 2;
    CreateSubscriptionStatement s;
    if (word(i) == "if" && word(i + 1) == "not" && word(i + 2) == "exists") {
      s.if_not_exists = true;
      i += 3;
    }
    s.name = qualified(&i);
    if (word(i) != "from")
      ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end, "syntax error: CREATE SUBSCRIPTION expects FROM");
    i++;
    s.from = qualified(&i);
    if (word(i) != "with") expect_end(i);
    *out = std::move(s);
    return true;
  }
  if (w0 == "declare" && word(2) == "subscription" && word(3) == "cursor") {
    DeclareSubscriptionCursorStatement d;
    d.name = word(1);
    size_t i = 4;
    if (word(i) != "for")
      ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end, "syntax error: expected FOR");
    i++;
    d.subscription = qualified(&i);
    if (word(i) == "full") {
      d.start = DeclareSubscriptionCursorStatement::Start::kFull;
      i++;
    } else if (word(i) == "since") {
      i++;
      if ((word(i) == "now" || word(i) == "proctime" || word(i) == "begin") && word(i + 1) == "(" && word(i + 2) == ")") {
        d.start = word(i) == "begin" ? DeclareSubscriptionCursorStatement::Start::kBegin
                                     : DeclareSubscriptionCursorStatement::Start::kNow;
        i += 3;
      } else if (i < tok.size() && tok[i].kind == Token::Kind::kNumber) {
        d.start = DeclareSubscriptionCursorStatement::Start::kSince;
        try {
          d.since_ms = std::stoll(tok[i].text);
        } catch (const std::exception&) {
          ThrowSyntax(sql, offset, tok[i].start, "syntax error: SINCE expects a Unix time in milliseconds");
        }
        i++;
      } else {
        ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end,
                    "syntax error: SINCE expects now(), proctime(), begin() or a Unix time in milliseconds");
      }
    }
    expect_end(i);
    *out = std::move(d);
    return true;
  }
  if (w0 == "drop" && (word(1) == "sink" || word(1) == "source" || word(1) == "subscription" || word(1) == "flow")) {
    size_t i = 2;
    DropObjectStatement d;
    d.object_kind = word(1);
    if (word(i) == "if" && word(i + 1) == "exists") {
      d.if_exists = true;
      i += 2;
    }
    d.name = qualified(&i);
    if (word(i) == "cascade") {
      d.cascade = true;
      i++;
    } else if (word(i) == "restrict") {
      i++;
    }
    expect_end(i);
    *out = std::move(d);
    return true;
  }
  if (w0 == "flush") {
    expect_end(1);
    *out = FlushStatement{};
    return true;
  }
  if (w0 == "wait") {
    WaitStatement w;
    if (tok.size() > 1) {
      size_t i = 1;
      w.object_kind = job_kind(&i);
      if (w.object_kind.empty())
        ThrowSyntax(sql, offset, tok[1].start, "syntax error: WAIT expects nothing, MATERIALIZED VIEW, SINK or INDEX");
      w.name = qualified(&i);
      expect_end(i);
    }
    *out = std::move(w);
    return true;
  }
  if (w0 == "alter") {
    size_t i = 1;
    std::string kind = job_kind(&i);
    if (!kind.empty()) {
      size_t j = i;
      std::vector<std::string> name = is_name(j) ? qualified(&j) : std::vector<std::string>{};
      if (!name.empty() && word(j) == "set" && word(j + 1) == "backfill_rate_limit") {
        AlterBackfillRateLimitStatement a;
        a.object_kind = kind;
        a.name = name;
        j += 2;
        if (word(j) == "=" || word(j) == "to") j++;
        if (j >= tok.size() || (tok[j].kind != Token::Kind::kNumber && word(j) != "default"))
          ThrowSyntax(sql, offset, j < tok.size() ? tok[j].start : tok.back().end,
                      "syntax error: BACKFILL_RATE_LIMIT expects a number or DEFAULT");
        a.value = word(j);
        expect_end(j + 1);
        *out = std::move(a);
        return true;
      }
    }
  }
  if (w0 == "cancel" && (word(1) == "job" || word(1) == "jobs")) {
    CancelJobsStatement c;
    size_t i = 2;
    while (true) {
      if (i >= tok.size() || tok[i].kind != Token::Kind::kNumber)
        ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end, "syntax error: CANCEL JOBS expects job ids");
      try {
        c.ids.push_back(std::stoll(tok[i].text));
      } catch (const std::exception&) {
        ThrowSyntax(sql, offset, tok[i].start, "syntax error: job id out of range: " + tok[i].text);
      }
      i++;
      if (word(i) != ",") break;
      i++;
    }
    expect_end(i);
    *out = std::move(c);
    return true;
  }
  const bool if_not_exists = word(2) == "if" && word(3) == "not" && word(4) == "exists";
  if (w0 == "create" && word(1) == "database" &&
      (if_not_exists || (tok.size() > 4 && word(3) == "with" && word(4) == "("))) {
    size_t i = if_not_exists ? 5 : 2;
    CreateDatabaseIfNotExistsStatement c;
    c.if_not_exists = if_not_exists;
    c.name = qualified(&i).back();
    // [WITH] option [=] value ... as PostgreSQL's createdb_opt_list, or in
    // parentheses with commas (GreptimeDB's WITH (ttl = '7d')).
    if (word(i) == "with") i++;
    const bool parenthesized = word(i) == "(";
    if (parenthesized) i++;
    while (i < tok.size()) {
      if (parenthesized && word(i) == ")") {
        expect_end(i + 1);
        break;
      }
      if (parenthesized && word(i) == "," && i > 0) {
        i++;
        continue;
      }
      if (!is_name(i) && !(i < tok.size() && tok[i].kind == Token::Kind::kString))
        ThrowSyntax(sql, offset, tok[i].start, "syntax error at or near \"" + tok[i].text + "\"");
      std::string option = Lower(tok[i++].text);
      if (option == "connection" && word(i) == "limit") option += "_" + word(i++);
      if (word(i) == "=") i++;
      std::string sign = word(i) == "-" ? "-" : "";
      if (!sign.empty()) i++;
      if (i >= tok.size() || tok[i].kind == Token::Kind::kOperator || tok[i].kind == Token::Kind::kOther)
        ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end,
                    "syntax error: CREATE DATABASE expects a value for " + option);
      c.options.emplace_back(option, sign + word(i++));
    }
    *out = std::move(c);
    return true;
  }
  if (w0 == "alter" && (word(1) == "table" || word(1) == "database") && tok.size() > 4) {
    // GreptimeDB's ALTER TABLE / DATABASE name SET 'key' = value | UNSET
    // 'key'. PostgreSQL's ALTER TABLE ... SET never has `key =`, and its
    // ALTER DATABASE ... SET takes settings: only ttl and quoted keys here.
    size_t i = 2;
    const bool database = word(1) == "database";
    if (!database && word(i) == "if" && word(i + 1) == "exists") i += 2;
    std::vector<std::string> name = is_name(i) ? qualified(&i) : std::vector<std::string>{};
    auto quoted = [&](size_t k) { return k < tok.size() && tok[k].kind == Token::Kind::kString; };
    const bool set = word(i) == "set" && (quoted(i + 1) || (is_name(i + 1) && word(i + 2) == "=" &&
                                                            (!database || word(i + 1) == "ttl")));
    const bool unset = word(i) == "unset";
    if (!name.empty() && (set || unset)) {
      AlterOptionsStatement a;
      a.database = database;
      a.name = std::move(name);
      i++;
      while (i < tok.size()) {
        if (!quoted(i) && !is_name(i))
          ThrowSyntax(sql, offset, tok[i].start, "syntax error: expected an option name at \"" + tok[i].text + "\"");
        std::string key = Lower(tok[i++].text);
        if (set) {
          if (word(i) != "=" || i + 1 >= tok.size())
            ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end, "syntax error: expected = value");
          a.set.emplace_back(key, tok[i + 1].text);
          i += 2;
        } else {
          a.unset.push_back(key);
        }
        if (word(i) != ",") break;
        i++;
      }
      expect_end(i);
      *out = std::move(a);
      return true;
    }
  }
  if (w0 == "use" && tok.size() >= 2) {
    size_t i = 1;
    UseDatabaseStatement u;
    u.name = qualified(&i).back();
    expect_end(i);
    *out = std::move(u);
    return true;
  }
  if (w0 == "recover") {
    RecoverStatement r;
    size_t i = 1;
    if (word(i) == "database") {
      i++;
      r.database = qualified(&i).back();
    }
    expect_end(i);
    *out = std::move(r);
    return true;
  }
  if (w0 != "show") return false;
  std::string w1 = word(1);
  if (w1 == "tables" || w1 == "databases" || w1 == "schemas" || w1 == "views" || w1 == "sources" ||
      w1 == "sinks" || w1 == "subscriptions" || w1 == "flows" || (w1 == "materialized" && word(2) == "views")) {
    ShowObjectsStatement s;
    size_t i = 2;
    if (w1 == "materialized") {
      s.object_kind = "materialized views";
      i = 3;
    } else {
      s.object_kind = w1;
    }
    if (word(i) == "from" || word(i) == "in") {
      i++;
      s.schema = qualified(&i).back();
    }
    expect_end(i);
    *out = std::move(s);
    return true;
  }
  if (w1 == "create") {
    ShowCreateStatement s;
    size_t i = 2;
    if (word(i) == "materialized" && word(i + 1) == "view") {
      s.object_kind = "materialized view";
      i += 2;
    } else if (word(i) == "table" || word(i) == "view" || word(i) == "index" || word(i) == "source" || word(i) == "sink" ||
               word(i) == "flow") {
      s.object_kind = word(i);
      i++;
    } else {
      ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end, "syntax error: SHOW CREATE expects TABLE, MATERIALIZED VIEW, VIEW, INDEX, SOURCE, SINK or FLOW");
    }
    s.name = qualified(&i);
    expect_end(i);
    *out = std::move(s);
    return true;
  }
  if (w1 == "jobs") {
    if (tok.size() > 2) {
      if (word(2) != "where" || tok.size() == 3) ThrowSyntax(sql, offset, tok[2].start, "syntax error: SHOW JOBS expects WHERE");
      *embedded = tok[2].start;
    }
    *out = ShowJobsStatement{};
    return true;
  }
  if (w1 == "parameters" || (w1 == "all" && tok.size() == 2)) {
    *out = ShowParametersStatement{};
    return true;
  }
  return false;
}

// The same estimate over raw bytes, skipping quoted strings, quoted
// identifiers, dollar quotes and comments: a cheap first check so that a
// huge statement is refused before the lexer builds millions of tokens.
int EstimateNestingRaw(const std::string& sql) {
  NestingEstimate est;
  size_t n = sql.size();
  for (size_t i = 0; i < n; i++) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      char q = c;
      for (i++; i < n; i++) {
        if (sql[i] == q) {
          if (i + 1 < n && sql[i + 1] == q) { i++; continue; }
          break;
        }
        if (q == '\'' && sql[i] == '\\') i++;  // E'..' escapes; harmless elsewhere
      }
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      while (i < n && sql[i] != '\n') i++;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      size_t end = sql.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 1;
    } else if (c == '$') {
      size_t close = sql.find('$', i + 1);
      if (close == std::string::npos) continue;
      std::string tag = sql.substr(i, close - i + 1);
      bool is_tag = std::all_of(tag.begin() + 1, tag.end() - 1, [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
      if (!is_tag || (tag.size() > 2 && std::isdigit(static_cast<unsigned char>(tag[1])))) continue;
      size_t end = sql.find(tag, close + 1);
      i = end == std::string::npos ? n : end + tag.size() - 1;
    } else if (c == '(') {
      est.Open();
    } else if (c == ')') {
      est.Close();
    } else if (c == ',') {
      est.Comma();
    } else if (std::string("+-*/<>=~!@#%^&|`?").find(c) != std::string::npos) {
      est.Operator();
      while (i + 1 < n && std::string("+-*/<>=~!@#%^&|`?").find(sql[i + 1]) != std::string::npos) i++;
    }
  }
  return est.max();
}

}  // namespace

int CharPosition(const std::string& text, int byte_offset) {
  int chars = 0;
  for (int i = 0; i < byte_offset && i < static_cast<int>(text.size()); i++)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) chars++;
  return chars + 1;
}

std::vector<Token> Tokenize(const std::string& sql) {
  PgQueryScanResult r = pg_query_scan(sql.c_str());
  std::vector<Token> out;
  if (r.error) {
    SqlError e(sqlstate::kSyntaxError, r.error->message);
    e.WithPosition(r.error->cursorpos);
    pg_query_free_scan_result(r);
    throw e;
  }
  PgQuery__ScanResult* scan = pg_query__scan_result__unpack(nullptr, r.pbuf.len, reinterpret_cast<const uint8_t*>(r.pbuf.data));
  for (size_t i = 0; scan && i < scan->n_tokens; i++) {
    const PgQuery__ScanToken* t = scan->tokens[i];
    if (t->token == PG_QUERY__TOKEN__SQL_COMMENT || t->token == PG_QUERY__TOKEN__C_COMMENT) continue;
    std::string raw = sql.substr(t->start, t->end - t->start);
    Token tk{Token::Kind::kOther, raw, t->start, t->end};
    if (t->keyword_kind != PG_QUERY__KEYWORD_KIND__NO_KEYWORD) {
      tk.kind = Token::Kind::kKeyword;
      tk.text = Lower(raw);
    } else if (t->token == PG_QUERY__TOKEN__IDENT) {
      tk.kind = Token::Kind::kIdent;
      tk.text = UnquoteIdent(raw);
    } else if (t->token == PG_QUERY__TOKEN__SCONST || t->token == PG_QUERY__TOKEN__USCONST) {
      tk.kind = Token::Kind::kString;
      tk.text = UnquoteString(raw);
    } else if (t->token == PG_QUERY__TOKEN__ICONST || t->token == PG_QUERY__TOKEN__FCONST) {
      tk.kind = Token::Kind::kNumber;
    } else if (t->token == PG_QUERY__TOKEN__PARAM) {
      tk.kind = Token::Kind::kParam;
    } else if (IsOperatorText(raw)) {
      tk.kind = Token::Kind::kOperator;
    }
    out.push_back(std::move(tk));
  }
  if (scan) pg_query__scan_result__free_unpacked(scan, nullptr);
  pg_query_free_scan_result(r);
  return out;
}

std::vector<std::string> TruncatedIdentifierNotices(const std::string& sql) {
  // Most query strings have no run of 64 bytes that could be one name (a
  // quoted one may hold spaces): they are not scanned again.
  size_t run = 0, longest = 0;
  for (size_t i = 0; i < sql.size(); i++) {
    char c = sql[i];
    if (c == '"') {
      size_t close = sql.find('"', i + 1);
      if (close == std::string::npos) close = sql.size();
      longest = std::max(longest, close - i - 1);
      i = close;
      run = 0;
      continue;
    }
    run = std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '(' || c == ')' || c == '.' || c == ';' ? 0 : run + 1;
    longest = std::max(longest, run);
  }
  std::vector<std::string> out;
  if (longest <= kMaxIdentifierBytes) return out;
  std::vector<Token> tokens;
  try {
    tokens = Tokenize(sql);
  } catch (const SqlError&) {
    return out;  // parsing reports it
  }
  for (const Token& t : tokens) {
    if (t.kind != Token::Kind::kIdent || t.text.size() <= kMaxIdentifierBytes) continue;
    out.push_back(fmt::format("identifier \"{}\" will be truncated to \"{}\"", t.text, TruncatedIdentifier(t.text)));
  }
  return out;
}

namespace {

// GreptimeDB's CREATE [OR REPLACE] FLOW [IF NOT EXISTS] f SINK TO out
// [COMMENT 'text'] AS query, read as CREATE MATERIALIZED VIEW [IF NOT
// EXISTS] out AS query with the flow's parts in *ps. The rewritten head is
// padded to the original's length where it is shorter, so positions in the
// query stay those of the statement.
std::string RewriteCreateFlow(const std::string& text, const std::vector<Token>& tok, const std::string& sql,
                              int offset, ParsedStatement* ps) {
  auto word = [&](size_t i) { return i < tok.size() && tok[i].kind != Token::Kind::kString ? tok[i].text : std::string(); };
  auto fail = [&](size_t i, const char* expected) {
    ThrowSyntax(sql, offset, i < tok.size() ? tok[i].start : tok.back().end,
                std::string("syntax error in CREATE FLOW: expected ") + expected);
  };
  auto is_name = [&](size_t i) {
    return i < tok.size() && (tok[i].kind == Token::Kind::kIdent || tok[i].kind == Token::Kind::kKeyword);
  };
  size_t i = 1;
  if (word(1) == "or") {
    ps->flow_or_replace = true;
    i = 3;
  }
  i++;  // FLOW
  if (word(i) == "if" && word(i + 1) == "not" && word(i + 2) == "exists") {
    ps->flow_if_not_exists = true;
    i += 3;
  }
  if (!is_name(i)) fail(i, "the flow's name");
  ps->flow_name = tok[i++].text;
  if (word(i) != "sink" || word(i + 1) != "to") fail(i, "SINK TO and the table its rows go to");
  i += 2;
  const size_t sink_begin = i;
  if (!is_name(i)) fail(i, "the name of the table its rows go to");
  while (word(i + 1) == "." && is_name(i + 2)) i += 2;
  const std::string sink = text.substr(tok[sink_begin].start, tok[i].end - tok[sink_begin].start);
  i++;
  if (word(i) == "expire" && word(i + 1) == "after")
    throw SqlError(sqlstate::kFeatureNotSupported, "CREATE FLOW ... EXPIRE AFTER is not supported yet");
  if (word(i) == "comment") {
    if (i + 1 >= tok.size() || tok[i + 1].kind != Token::Kind::kString) fail(i + 1, "a string after COMMENT");
    ps->flow_comment = tok[i + 1].text;
    i += 2;
  }
  if (word(i) != "as") fail(i, "AS and the flow's query");
  std::string head = std::string("create materialized view ") + (ps->flow_if_not_exists ? "if not exists " : "") + sink;
  const size_t before_as = static_cast<size_t>(tok[i].start);
  head.append(head.size() < before_as ? before_as - head.size() : 1, ' ');
  return head + text.substr(before_as);
}

// Cuts RisingWave's clauses out of CREATE TABLE / SOURCE / SINK (see
// ParsedStatement): returns the text libpg_query should parse (or the
// statement unchanged). Only tokens at parenthesis depth 0 are considered.
std::string CutRisingWaveClauses(const std::string& text, const std::vector<Token>& tok, const std::string& sql,
                                 int offset, ParsedStatement* ps) {
  auto word = [&](size_t i) { return i < tok.size() ? tok[i].text : std::string(); };
  const size_t n = tok.size();
  const size_t verb = word(0) == "explain" ? 1 : 0;  // EXPLAIN CREATE MATERIALIZED VIEW too
  if (word(verb) == "create" && word(verb + 1) == "materialized" && n > 6 + verb && word(n - 4) == "emit" && word(n - 3) == "on" && word(n - 2) == "window" &&
      word(n - 1) == "close") {
    // CREATE MATERIALIZED VIEW ... EMIT ON WINDOW CLOSE (RisingWave's).
    ps->emit_on_window_close = true;
    std::string out = text;
    for (int b = tok[n - 4].start; b < tok[n - 1].end; b++) out[b] = ' ';
    return out;
  }
  if (word(0) == "fetch" && n > 6 && word(n - 1) == ")" && word(n - 6) == "with" && word(n - 5) == "(" &&
      word(n - 4) == "timeout" && word(n - 3) == "=" && tok[n - 2].kind == Token::Kind::kString) {
    // FETCH ... WITH (timeout = '5s') (RisingWave's).
    ps->fetch_timeout = tok[n - 2].text;
    std::string out = text;
    for (int b = tok[n - 6].start; b < tok[n - 1].end; b++) out[b] = ' ';
    return out;
  }
  if (word(0) == "admin" && tok.size() > 2 && tok[2].text == "(") {
    // GreptimeDB's ADMIN f(...): SELECT f(...) (an error's position in
    // the rest is one byte further than written).
    std::string out = text;
    out.replace(tok[0].start, tok[0].end - tok[0].start, "select");
    return out;
  }
  if (word(0) == "create" && (word(1) == "flow" || (word(1) == "or" && word(2) == "replace" && word(3) == "flow")))
    return RewriteCreateFlow(text, tok, sql, offset, ps);
  if (word(0) != "create") return text;
  bool source = word(1) == "source";
  bool table = word(1) == "table";
  bool sink = word(1) == "sink" || word(1) == "subscription";
  if (!source && !table && !sink) return text;
  std::vector<std::pair<int, int>> cuts;  // byte ranges of the text to drop
  int depth = 0;
  size_t element_start = 0;  // the first token of the column list's current element
  auto is_punct = [&](size_t i, const char* p) { return i < tok.size() && tok[i].kind == Token::Kind::kOther && tok[i].text == p; };
  for (size_t i = 0; i < tok.size(); i++) {
    const std::string& w = tok[i].text;
    if (tok[i].kind == Token::Kind::kOther && w == "(") depth++;
    if (tok[i].kind == Token::Kind::kOther && w == ")") depth--;
    if (depth == 1 && (is_punct(i, ",") || (is_punct(i, "(") && element_start == 0))) element_start = i + 1;
    if (table && depth >= 1 && w == "current_timestamp" && is_punct(i + 1, "(") && is_punct(i + 2, ")")) {
      // GreptimeDB's CURRENT_TIMESTAMP(): PostgreSQL's has no parentheses.
      cuts.emplace_back(tok[i + 1].start, tok[i + 2].end);
      i += 2;
      continue;
    }
    if (table && depth == 1 && w == "time" && word(i + 1) == "index" && tok[i].kind != Token::Kind::kString) {
      // GreptimeDB's time index: an element TIME INDEX (col), or a
      // column's TIME INDEX.
      if (!ps->time_index.empty()) ThrowSyntax(sql, offset, tok[i].start, "a table may have only one TIME INDEX");
      ps->time_index_location = offset + tok[i].start;
      if (i == element_start) {
        if (!is_punct(i + 2, "(") || i + 4 >= tok.size() || !is_punct(i + 4, ")"))
          ThrowSyntax(sql, offset, i + 2 < tok.size() ? tok[i + 2].start : tok.back().end,
                      "syntax error in TIME INDEX: expected (column)");
        ps->time_index = tok[i + 3].text;
        if (i > 0 && is_punct(i - 1, ",")) cuts.emplace_back(tok[i - 1].start, tok[i + 4].end);
        else cuts.emplace_back(tok[i].start, is_punct(i + 5, ",") ? tok[i + 5].end : tok[i + 4].end);
        i += 4;
        continue;
      }
      ps->time_index = tok[element_start].text;
      cuts.emplace_back(tok[i].start, tok[i + 1].end);
      i++;
      continue;
    }
    if (table && depth == 0 && w == "partition" && word(i + 1) == "on" && word(i + 2) == "columns" && is_punct(i + 3, "(")) {
      // PARTITION ON COLUMNS (c, ...) (rule, ...): GreptimeDB's regions.
      size_t j = i + 4;
      for (; j < tok.size() && !is_punct(j, ")"); j++)
        if (!is_punct(j, ",")) ps->partition_columns.push_back(tok[j].text);
      if (!is_punct(j + 1, "("))
        ThrowSyntax(sql, offset, j + 1 < tok.size() ? tok[j + 1].start : tok.back().end,
                    "syntax error in PARTITION ON COLUMNS: expected the partition rules in parentheses");
      j += 2;
      int inner = 0;
      size_t rule_start = j;
      for (; j < tok.size(); j++) {
        if (is_punct(j, "(")) inner++;
        if (is_punct(j, ")") && inner-- == 0) break;
        if (inner == 0 && is_punct(j, ",")) {
          if (j > rule_start) ps->partition_rules.push_back(text.substr(tok[rule_start].start, tok[j - 1].end - tok[rule_start].start));
          rule_start = j + 1;
        }
      }
      if (j >= tok.size()) ThrowSyntax(sql, offset, tok.back().end, "syntax error in PARTITION ON COLUMNS: missing \")\"");
      if (j > rule_start) ps->partition_rules.push_back(text.substr(tok[rule_start].start, tok[j - 1].end - tok[rule_start].start));
      ps->has_partition = true;
      cuts.emplace_back(tok[i].start, tok[j].end);
      i = j;
      continue;
    }
    if (table && depth == 0 && w == "engine" && word(i + 1) == "=" && i + 2 < tok.size()) {
      ps->engine = Lower(tok[i + 2].text);  // GreptimeDB's ENGINE = mito
      cuts.emplace_back(tok[i].start, tok[i + 2].end);
      i += 2;
      continue;
    }
    if (depth == 1 && (source || table) && w == "watermark" && tok[i].kind == Token::Kind::kIdent &&
        word(i + 1) == "for" && i > 0 && (word(i - 1) == "," || word(i - 1) == "(")) {
      // , WATERMARK FOR col AS expr: up to the next comma or the list's end.
      if (!ps->watermark_column.empty())
        ThrowSyntax(sql, offset, tok[i].start, "a table or source may have only one watermark");
      if (i + 3 >= tok.size() || word(i + 3) != "as")
        ThrowSyntax(sql, offset, i + 2 < tok.size() ? tok[i + 2].start : tok.back().end,
                    "syntax error in WATERMARK FOR: expected column AS expression");
      size_t j = i + 4, end = j;
      int inner = 0;
      for (; j < tok.size(); j++) {
        if (tok[j].text == "(" && tok[j].kind == Token::Kind::kOther) inner++;
        if (tok[j].text == ")" && tok[j].kind == Token::Kind::kOther && inner-- == 0) break;
        if (inner == 0 && tok[j].text == "," && tok[j].kind == Token::Kind::kOther) break;
        end = j;
      }
      if (j >= tok.size() || end < i + 4)
        ThrowSyntax(sql, offset, tok.back().end, "syntax error in WATERMARK FOR: missing expression");
      ps->watermark_column = tok[i + 2].text;
      ps->watermark_expr = text.substr(tok[i + 4].start, tok[end].end - tok[i + 4].start);
      ps->watermark_location = offset + tok[i].start;
      // With the comma before it (or after it, when it comes first).
      if (word(i - 1) == ",") cuts.emplace_back(tok[i - 1].start, tok[end].end);
      else cuts.emplace_back(tok[i].start, tok[j].text == "," ? tok[j].end : tok[end].end);
      i = end;
      continue;
    }
    if (depth != 0) continue;
    if (w == "with" && word(i + 1) == "(") {
      // WITH ( key = value [, ...] ): keys may be dotted (nexmark.table.type).
      std::map<std::string, std::string> options;
      size_t j = i + 2;
      while (j < tok.size() && tok[j].text != ")") {
        std::string key;
        while (j < tok.size() && tok[j].text != "=" && tok[j].text != ")" && tok[j].text != ",") key += tok[j++].text;
        if (word(j) != "=" || key.empty())
          ThrowSyntax(sql, offset, j < tok.size() ? tok[j].start : tok.back().end, "syntax error in WITH options: expected key = value");
        j++;
        if (j >= tok.size()) ThrowSyntax(sql, offset, tok.back().end, "syntax error in WITH options: missing value");
        std::string value;
        if (tok[j].text == "-" && j + 1 < tok.size()) value = "-" + tok[++j].text;
        else value = tok[j].text;
        j++;
        options[Lower(key)] = value;
        if (word(j) == ",") j++;
      }
      if (j >= tok.size()) ThrowSyntax(sql, offset, tok.back().end, "syntax error in WITH options: missing \")\"");
      // A table's WITH without a connector holds PostgreSQL's storage
      // parameters (fillfactor = 100): left for PostgreSQL's grammar.
      if (table && !options.count("connector") && ps->time_index.empty()) {
        i = j;
        continue;
      }
      if (table && !options.count("connector")) {
        // A time-series table's options (ttl, compaction.*, append_mode).
        ps->timeseries_options = std::move(options);
        cuts.emplace_back(tok[i].start, tok[j].end);
        i = j;
        continue;
      }
      ps->with_options.insert(options.begin(), options.end());
      ps->has_with_options = true;
      cuts.emplace_back(tok[i].start, tok[j].end);
      i = j;
      continue;
    }
    if (table && w == "on" && word(i + 1) == "conflict" && i > 0 && (word(i - 1) == ")" || word(i - 1) == "only")) {
      // RisingWave's table conflict behaviour (PostgreSQL's grammar has no
      // ON CONFLICT in CREATE TABLE).
      size_t j = i + 2;
      if (word(j) == "overwrite" || word(j) == "ignore") {
        ps->on_conflict = word(j);
        j++;
      } else if (word(j) == "do" && word(j + 1) == "nothing") {
        ps->on_conflict = "ignore";
        j += 2;
      } else if (word(j) == "do" && word(j + 1) == "update" && word(j + 2) == "full") {
        ps->on_conflict = "overwrite";
        j += 3;
      } else if (word(j) == "do" && word(j + 1) == "update" && word(j + 2) == "if" && word(j + 3) == "not" &&
                 word(j + 4) == "null") {
        ps->on_conflict = "do update if not null";
        j += 5;
      } else {
        ThrowSyntax(sql, offset, j < tok.size() ? tok[j].start : tok.back().end,
                    "syntax error in ON CONFLICT: expected OVERWRITE, IGNORE, DO NOTHING, DO UPDATE FULL or DO UPDATE IF NOT NULL");
      }
      if (word(j) == "with" && word(j + 1) == "version") {
        if (word(j + 2) != "column" || word(j + 3) != "(" || j + 5 >= tok.size() || word(j + 5) != ")")
          ThrowSyntax(sql, offset, j + 2 < tok.size() ? tok[j + 2].start : tok.back().end,
                      "syntax error in WITH VERSION COLUMN: expected (column)");
        ps->version_column = tok[j + 4].text;
        j += 6;
      }
      cuts.emplace_back(tok[i].start, tok[j - 1].end);
      i = j - 1;
      continue;
    }
    if (w == "append" && word(i + 1) == "only") {
      ps->append_only = true;
      cuts.emplace_back(tok[i].start, tok[i + 1].end);
      i++;
      continue;
    }
    if (w == "format" && word(i + 2) == "encode" && i + 3 < tok.size()) {
      ps->format = Lower(tok[i + 1].text);
      ps->encode = Lower(tok[i + 3].text);
      size_t j = i + 3;
      if (word(j + 1) == "(") {
        while (j < tok.size() && tok[j].text != ")") j++;
      }
      cuts.emplace_back(tok[i].start, tok[std::min(j, tok.size() - 1)].end);
      i = j;
      continue;
    }
  }
  if (sink) return text;  // the sink statement itself is parsed by hand
  std::sort(cuts.begin(), cuts.end());
  std::string out;
  int pos = 0;
  for (auto [b, e] : cuts) {
    out += text.substr(pos, b - pos);
    out.append(e - b, ' ');  // keep byte offsets for error positions
    pos = e;
  }
  out += text.substr(pos);
  if (source) {
    ps->is_source = true;
    size_t at = tok[1].start;
    out.replace(at, 6, "table ");  // "source" -> "table "
  }
  return out;
}

}  // namespace

// RisingWave's STRUCT<name type, ...> is not PostgreSQL grammar. Each one
// is rewritten into a type name PostgreSQL parses and the binder knows:
// "__struct"('name'::type, ...), the fields as casts of their names in
// the type's modifiers (nested structs rewritten the same way). Operator
// tokens of angle brackets (">>" closing two levels) are split first.
// Text where STRUCT < is not followed by a field list is left alone.
namespace {

struct StructRewriter {
  const std::string& text;
  std::vector<Token> pieces;

  explicit StructRewriter(const std::string& t) : text(t) {
    for (Token& tk : Tokenize(t)) {
      bool angles = tk.kind == Token::Kind::kOperator &&
                    tk.text.find_first_not_of("<>") == std::string::npos;
      if (!angles || tk.text.size() == 1) {
        pieces.push_back(std::move(tk));
        continue;
      }
      for (int i = tk.start; i < tk.end; i++)
        pieces.push_back(Token{Token::Kind::kOperator, std::string(1, t[size_t(i)]), i, i + 1});
    }
  }
  bool Is(size_t i, const char* s) const { return i < pieces.size() && pieces[i].text == s && pieces[i].kind != Token::Kind::kString; }
  bool IsWord(size_t i) const {
    return i < pieces.size() && (pieces[i].kind == Token::Kind::kIdent || pieces[i].kind == Token::Kind::kKeyword);
  }
  bool StartsStruct(size_t i) const { return IsWord(i) && pieces[i].text == "struct" && Is(i + 1, "<"); }

  // STRUCT < fields > starting at piece i: the replacement, and *next set
  // past the closing '>'; nullopt when it is not a field list.
  std::optional<std::string> Parse(size_t i, size_t* next) const {
    size_t j = i + 2;
    std::string out = "\"__struct\"(";
    for (bool first = true;; first = false) {
      if (!IsWord(j)) return std::nullopt;
      std::string name = pieces[j++].text;
      std::string type;
      int depth = 0, prev_end = -1;
      while (j < pieces.size()) {
        if (depth == 0 && (Is(j, ",") || Is(j, ">"))) break;
        if (Is(j, "(")) depth++;
        if (Is(j, ")") && --depth < 0) return std::nullopt;
        if (prev_end >= 0) type += text.substr(size_t(prev_end), size_t(pieces[j].start - prev_end));
        if (StartsStruct(j)) {
          size_t after;
          auto nested = Parse(j, &after);
          if (!nested) return std::nullopt;
          type += *nested;
          prev_end = pieces[after - 1].end;
          j = after;
          continue;
        }
        type += text.substr(size_t(pieces[j].start), size_t(pieces[j].end - pieces[j].start));
        prev_end = pieces[j].end;
        j++;
      }
      if (type.empty() || j >= pieces.size()) return std::nullopt;
      std::string quoted;
      for (char c : name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
      out += (first ? "'" : ", '") + quoted + "'::" + type;
      if (Is(j, ">")) {
        *next = j + 1;
        return out + ")";
      }
      j++;  // ','
    }
  }

  std::string Rewrite() const {
    std::string out;
    int pos = 0;
    for (size_t i = 0; i < pieces.size(); i++) {
      if (!StartsStruct(i)) continue;
      size_t next;
      auto replacement = Parse(i, &next);
      if (!replacement) continue;
      out += text.substr(size_t(pos), size_t(pieces[i].start - pos)) + *replacement;
      pos = pieces[next - 1].end;
      i = next - 1;
    }
    return out + text.substr(size_t(pos));
  }
};

std::string RewriteStructTypes(const std::string& text) {
  static const std::string kWord = "struct";
  auto same = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
  if (std::search(text.begin(), text.end(), kWord.begin(), kWord.end(), same) == text.end()) return text;
  return StructRewriter(text).Rewrite();
}

}  // namespace

// f(...)[i]: PostgreSQL's grammar wants (f(...))[i]; RisingWave accepts
// the subscript on a call directly (Nexmark q21). Wraps such calls in
// parentheses, on tokens (never inside strings).
static std::string ParenthesizeSubscriptedCalls(const std::string& text) {
  std::vector<Token> tok = Tokenize(text);
  std::vector<std::pair<int, int>> wraps;  // (insert "(" at, insert ")" at)
  std::vector<size_t> opens;
  for (size_t i = 0; i < tok.size(); i++) {
    if (tok[i].kind != Token::Kind::kOther) continue;
    if (tok[i].text == "(") {
      opens.push_back(i);
    } else if (tok[i].text == ")" && !opens.empty()) {
      size_t open = opens.back();
      opens.pop_back();
      bool subscript = i + 2 < tok.size() && tok[i + 1].text == "[" && tok[i + 2].text != "]";
      bool call = open > 0 && (tok[open - 1].kind == Token::Kind::kIdent || tok[open - 1].kind == Token::Kind::kKeyword) &&
                  tok[open - 1].end == tok[open].start;
      if (!subscript || !call) continue;
      size_t name = open - 1;
      while (name >= 2 && tok[name - 1].text == "." && tok[name - 1].kind == Token::Kind::kOther) name -= 2;
      wraps.emplace_back(tok[name].start, tok[i].end);
    }
  }
  if (wraps.empty()) return text;
  std::vector<std::pair<int, char>> inserts;
  for (auto [b, e] : wraps) {
    inserts.emplace_back(b, '(');
    inserts.emplace_back(e, ')');
  }
  // Later positions first, so earlier offsets stay valid; at one position
  // ")" goes before "(" (a call ending where another starts).
  std::sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second == '(';
  });
  std::string out = text;
  for (auto [pos, c] : inserts) out.insert(size_t(pos), 1, c);
  return out;
}

// What libpg_query is given for a statement's text: struct types and
// subscripted calls rewritten into forms PostgreSQL's grammar takes.
std::string RewriteForPostgres(std::string text) {
  text = RewriteStructTypes(text);
  if (text.find('[') != std::string::npos) text = ParenthesizeSubscriptedCalls(text);
  return text;
}

// Parses text in PostgreSQL's grammar; errors point into `sql` from `loc`.
std::shared_ptr<PgQuery__ParseResult> ParsePostgres(std::string pg_text, const std::string& sql, int loc) {
  QueryClauses clauses = CutQueryClauses(&pg_text, sql, loc);
  PgQueryProtobufParseResult r = pg_query_parse_protobuf(pg_text.c_str());
  // PostgreSQL 15's grammar wants an alias on every subquery in FROM;
  // PostgreSQL 16 and RisingWave do not (Nexmark's queries rely on it).
  // Give such subqueries the name PostgreSQL 16 gives them, and parse again.
  for (int tries = 0; r.error && tries < 64 && std::string(r.error->message) == "subquery in FROM must have an alias"; tries++) {
    int open = r.error->cursorpos - 1;
    pg_query_free_protobuf_parse_result(r);
    // The matching parenthesis, on tokens (not inside strings).
    int depth = 0, close = -1;
    for (const Token& t : Tokenize(pg_text)) {
      if (t.start < open || t.kind != Token::Kind::kOther) continue;
      if (t.text == "(") depth++;
      else if (t.text == ")" && --depth == 0) {
        close = t.start;
        break;
      }
    }
    if (open < 0 || close < 0) {
      r = pg_query_parse_protobuf(pg_text.c_str());
      break;
    }
    static constexpr std::string_view kAlias = " AS unnamed_subquery";
    pg_text.insert(close + 1, kAlias);
    clauses.Shift(close + 1, static_cast<int>(kAlias.size()));
    r = pg_query_parse_protobuf(pg_text.c_str());
  }
  if (r.error) {
    std::string msg = r.error->message;
    int pos = r.error->cursorpos;
    pg_query_free_protobuf_parse_result(r);
    const char* code = msg.find("memory exhausted") != std::string::npos ? sqlstate::kStatementTooComplex
                                                                          : sqlstate::kSyntaxError;
    SqlError e(code, msg);
    if (pos > 0) e.WithPosition(CharPosition(sql, loc + (pos - 1)) );
    throw e;
  }
  PgQuery__ParseResult* tree = pg_query__parse_result__unpack(
      nullptr, r.parse_tree.len, reinterpret_cast<const uint8_t*>(r.parse_tree.data));
  pg_query_free_protobuf_parse_result(r);
  if (!tree) throw SqlError(sqlstate::kInternalError, "cannot decode parse tree");
  std::shared_ptr<PgQuery__ParseResult> owned(tree, ParseResultDeleter());
  if (!clauses.empty()) std::get_deleter<ParseResultDeleter>(owned)->annotated = AnnotateTree(tree, clauses, sql, loc);
  return owned;
}

// The part of one of our statements that PostgreSQL's grammar parses,
// starting at byte `at` of the statement: a sink's AS query (up to its WITH
// options) or SHOW JOBS' WHERE condition (parsed as a SELECT's). It is
// parsed in place, the rest of the statement blanked, so that positions in
// its tree count from the statement, as in any statement's tree.
void ParseEmbedded(const std::vector<Token>& tokens, int at, const std::string& sql, int loc, ParsedStatement* ps) {
  std::string pg(ps->text.size(), ' ');
  if (auto* sink = std::get_if<CreateSinkStatement>(&ps->extension)) {
    int end = int(ps->text.size());
    int depth = 0;
    for (size_t i = 0; i < tokens.size(); i++) {
      const Token& t = tokens[i];
      if (t.text == "(") depth++;
      if (t.text == ")") depth--;
      // WITH ( is the options clause; WITH name AS is a CTE of the query.
      if (depth == 0 && t.start > at &&
          (t.text == "format" || (t.text == "with" && i + 1 < tokens.size() && tokens[i + 1].text == "("))) {
        end = t.start;
        break;
      }
      // The query's EMIT ON WINDOW CLOSE (RisingWave's), before its options.
      if (depth == 0 && t.start > at && t.text == "emit" && i + 3 < tokens.size() && tokens[i + 1].text == "on" &&
          tokens[i + 2].text == "window" && tokens[i + 3].text == "close") {
        sink->emit_on_window_close = true;
        end = t.start;
        const size_t after = i + 4;
        if (after < tokens.size() && tokens[after].text != "format" && tokens[after].text != "with")
          ThrowSyntax(sql, loc, tokens[after].start, "syntax error: CREATE SINK expects WITH or FORMAT after EMIT ON WINDOW CLOSE");
        break;
      }
    }
    pg.replace(size_t(at), size_t(end - at), ps->text, size_t(at), size_t(end - at));
    ps->tree = ParsePostgres(RewriteForPostgres(std::move(pg)), sql, loc);
    if (ps->tree->n_stmts != 1 || ps->tree->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
      ThrowSyntax(sql, loc, at, "syntax error: CREATE SINK ... AS expects a query");
    sink->query = ps->tree->stmts[0]->stmt;
    return;
  }
  // SHOW JOBS WHERE ...: "SHOW JOBS" becomes "select".
  pg.replace(0, 6, "select");
  pg.replace(size_t(at), std::string::npos, ps->text, size_t(at), std::string::npos);
  ps->tree = ParsePostgres(RewriteForPostgres(std::move(pg)), sql, loc);
  const PgQuery__Node* select = ps->tree->n_stmts == 1 ? ps->tree->stmts[0]->stmt : nullptr;
  const PgQuery__SelectStmt* where = select && select->node_case == PG_QUERY__NODE__NODE_SELECT_STMT ? select->select_stmt : nullptr;
  // Only the condition: not "SHOW JOBS WHERE x ORDER BY y" or "... UNION ...".
  if (!where || !where->where_clause || where->n_target_list || where->n_from_clause || where->n_group_clause ||
      where->n_sort_clause || where->limit_count || where->limit_offset || where->having_clause ||
      where->n_window_clause || where->with_clause || where->n_distinct_clause || where->n_locking_clause ||
      where->op != PG_QUERY__SET_OPERATION__SETOP_NONE)
    ThrowSyntax(sql, loc, at, "syntax error: SHOW JOBS expects WHERE and a condition");
  std::get<ShowJobsStatement>(ps->extension).where = where->where_clause;
}

void CheckNestingDepth(const std::string& sql) {
  if (EstimateNestingRaw(sql) > kMaxNesting)
    throw SqlError(sqlstate::kStatementTooComplex,
                   "statement is too complex: expressions nested deeper than " + std::to_string(kMaxNesting));
}

std::vector<ParsedStatement> ParseSql(const std::string& sql, ParseCache* cache) {
  if (sql.find('\0') != std::string::npos)
    throw SqlError(sqlstate::kSyntaxError, "invalid byte sequence: query contains a zero byte");
  CheckNestingDepth(sql);
  // Statements end at top-level semicolons; the lexer keeps semicolons
  // inside strings and dollar quotes within their tokens.
  std::vector<Token> all = Tokenize(sql);
  struct Piece {
    int loc, len;
    size_t first_token, end_token;
  };
  std::vector<Piece> pieces;
  int begin = -1, last_end = 0;
  size_t first = 0;
  // CREATE FUNCTION ... BEGIN ATOMIC ...; ...; END holds its semicolons (as
  // psql's lexer counts: BEGIN and CASE open, END closes).
  int atomic_depth = 0;
  auto word = [&](size_t i, const char* w) {
    return i < all.size() && all[i].kind != Token::Kind::kString && all[i].text == w;
  };
  for (size_t i = 0; i < all.size(); i++) {
    const Token& t = all[i];
    if (begin >= 0 && word(first, "create") &&
        (word(first + 1, "function") || word(first + 1, "procedure") ||
         (word(first + 1, "or") && word(first + 2, "replace") &&
          (word(first + 3, "function") || word(first + 3, "procedure"))))) {
      if ((word(i, "begin") && word(i + 1, "atomic")) || (atomic_depth > 0 && word(i, "case"))) atomic_depth++;
      else if (atomic_depth > 0 && word(i, "end")) atomic_depth--;
    }
    if (t.text == ";" && t.kind == Token::Kind::kOther && atomic_depth > 0) {
      last_end = t.end;
      continue;
    }
    if (t.text == ";" && t.kind == Token::Kind::kOther) {
      if (begin >= 0) pieces.push_back({begin, last_end - begin, first, i});
      begin = -1;
      continue;
    }
    if (begin < 0) begin = t.start, first = i;
    last_end = t.end;
  }
  if (begin >= 0) pieces.push_back({begin, static_cast<int>(sql.size()) - begin, first, all.size()});

  std::vector<ParsedStatement> out;
  for (const Piece& piece : pieces) {
    const int loc = piece.loc;
    ParsedStatement ps;
    ps.offset = loc;
    ps.text = sql.substr(loc, piece.len);
    // The statement's tokens are those of the whole text (a statement starts
    // at a token boundary), with offsets into the statement.
    std::vector<Token> tokens(std::make_move_iterator(all.begin() + piece.first_token),
                              std::make_move_iterator(all.begin() + piece.end_token));
    for (Token& t : tokens) t.start -= loc, t.end -= loc;
    if (EstimateNesting(tokens) > kMaxNesting)
      throw SqlError(sqlstate::kStatementTooComplex,
                     "statement is too complex: expressions nested deeper than " + std::to_string(kMaxNesting));
    std::string pg_text = CutRisingWaveClauses(ps.text, tokens, sql, loc, &ps);
    int embedded = -1;
    if (ParseExtension(tokens, sql, loc, &ps.extension, &embedded)) {
      if (embedded >= 0) ParseEmbedded(tokens, embedded, sql, loc, &ps);
      out.push_back(std::move(ps));
      continue;
    }
    pg_text = RewriteForPostgres(std::move(pg_text));
    // The cache keeps trees of the statement's own text only: positions in
    // a rewritten text's tree are not the statement's.
    cache = cache && pg_text == ps.text ? cache : nullptr;
    if (cache) {
      if (auto tree = cache->Take(ps.text, tokens)) {
        ps.tree = std::move(tree);
        ps.node = ps.tree->stmts[0]->stmt;
        out.push_back(std::move(ps));
        continue;
      }
    }
    const bool cacheable = cache && pg_text == ps.text;
    ps.tree = ParsePostgres(std::move(pg_text), sql, loc);
    if (ps.tree->n_stmts == 0) continue;
    ps.node = ps.tree->stmts[0]->stmt;
    if (cacheable && ps.tree->n_stmts == 1) cache->Put(ps.text, tokens, ps.tree);
    out.push_back(std::move(ps));
  }
  return out;
}

std::string StringOf(const PgQuery__Node* n) {
  return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : "";
}

std::string DefElemText(const PgQuery__DefElem* d) {
  if (!d->arg) return "true";
  const PgQuery__Node* a = d->arg;
  switch (a->node_case) {
    case PG_QUERY__NODE__NODE_STRING: return a->string->sval;
    case PG_QUERY__NODE__NODE_INTEGER: return std::to_string(a->integer->ival);
    case PG_QUERY__NODE__NODE_FLOAT: return a->float_->fval;
    case PG_QUERY__NODE__NODE_BOOLEAN: return a->boolean->boolval ? "true" : "false";
    case PG_QUERY__NODE__NODE_TYPE_NAME:
      return a->type_name->n_names ? StringOf(a->type_name->names[a->type_name->n_names - 1]) : "";
    case PG_QUERY__NODE__NODE_A_CONST:
      if (a->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL) return a->a_const->sval->sval;
      return "";
    default: return "";
  }
}

std::string NodeTag(const PgQuery__Node* n) {
  const ProtobufCFieldDescriptor* f = protobuf_c_message_descriptor_get_field(&pg_query__node__descriptor, n->node_case);
  return f ? f->name : "unknown";
}

std::string Deparse(const PgQuery__Node* node) {
  if (HasAnnotations(const_cast<ProtobufCMessage*>(&node->base)))
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "a query with CORRESPONDING cannot be kept here: PostgreSQL's deparser has no place for it");
  PgQuery__RawStmt raw;
  pg_query__raw_stmt__init(&raw);
  raw.stmt = const_cast<PgQuery__Node*>(node);
  PgQuery__RawStmt* stmts[1] = {&raw};
  PgQuery__ParseResult result;
  pg_query__parse_result__init(&result);
  result.n_stmts = 1;
  result.stmts = stmts;
  std::string packed(pg_query__parse_result__get_packed_size(&result), '\0');
  pg_query__parse_result__pack(&result, reinterpret_cast<uint8_t*>(packed.data()));
  PgQueryDeparseResult out = pg_query_deparse_protobuf(PgQueryProtobuf{packed.size(), packed.data()});
  std::string text;
  std::string error;
  if (out.error) error = out.error->message ? out.error->message : "deparse failed";
  else if (out.query) text = out.query;
  pg_query_free_deparse_result(out);
  if (!error.empty()) throw SqlError(sqlstate::kInternalError, "could not deparse the statement: " + error);
  return text;
}

std::string ViewQueryText(const ParsedStatement& create_view) {
  const PgQuery__Node* query = create_view.node->view_stmt->query;
  if (!HasAnnotations(const_cast<ProtobufCMessage*>(&query->base))) return Deparse(query);
  // As written: what follows the first AS outside parentheses.
  int depth = 0;
  std::vector<Token> tokens = Tokenize(create_view.text);
  for (size_t i = 0; i + 1 < tokens.size(); i++) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kOther && t.text == "(") depth++;
    if (t.kind == Token::Kind::kOther && t.text == ")") depth--;
    if (depth == 0 && t.kind == Token::Kind::kKeyword && t.text == "as")
      return create_view.text.substr(tokens[i + 1].start, tokens.back().end - tokens[i + 1].start);
  }
  throw SqlError(sqlstate::kInternalError, "CREATE VIEW without AS");
}

std::string DeparseExpression(const PgQuery__Node* expr) {
  // SELECT expr, deparsed, without its SELECT.
  PgQuery__ResTarget target;
  pg_query__res_target__init(&target);
  target.val = const_cast<PgQuery__Node*>(expr);
  PgQuery__Node target_node;
  pg_query__node__init(&target_node);
  target_node.node_case = PG_QUERY__NODE__NODE_RES_TARGET;
  target_node.res_target = &target;
  PgQuery__Node* targets[1] = {&target_node};
  PgQuery__SelectStmt select;
  pg_query__select_stmt__init(&select);
  select.n_target_list = 1;
  select.target_list = targets;
  PgQuery__Node select_node;
  pg_query__node__init(&select_node);
  select_node.node_case = PG_QUERY__NODE__NODE_SELECT_STMT;
  select_node.select_stmt = &select;
  std::string text = Deparse(&select_node);
  constexpr std::string_view kSelect = "SELECT ";
  if (text.starts_with(kSelect)) text.erase(0, kSelect.size());
  return text;
}

namespace {

// Strings of a parse tree pointed at new text while it is deparsed; the
// tree gets its own pointers back (it frees them) when this goes away.
class StringSwaps {
 public:
  StringSwaps() = default;
  StringSwaps(const StringSwaps&) = delete;
  StringSwaps& operator=(const StringSwaps&) = delete;
  ~StringSwaps() {
    for (auto& [field, original] : swapped_) *field = original;
  }
  void Set(char** field, std::string text) {
    texts_.push_back(std::move(text));
    swapped_.emplace_back(field, *field);
    *field = texts_.back().data();
  }
  bool empty() const { return swapped_.empty(); }

 private:
  std::deque<std::string> texts_;  // stable addresses
  std::vector<std::pair<char**, char*>> swapped_;
};

}  // namespace

std::string RenameColumnInExpression(const std::string& expr, const std::string& from, const std::string& to) {
  std::vector<ParsedStatement> stmts = ParseSql("SELECT " + expr);
  PgQuery__Node* root = stmts.at(0).node->select_stmt->target_list[0]->res_target->val;
  StringSwaps renamed;
  ForEachMessage(&root->base, [&](ProtobufCMessage* m) {
    if (m->descriptor != &pg_query__column_ref__descriptor) return;
    auto* ref = reinterpret_cast<PgQuery__ColumnRef*>(m);
    // col, or table.col
    if (ref->n_fields == 0 || ref->n_fields > 2) return;
    PgQuery__Node* last = ref->fields[ref->n_fields - 1];
    if (last->node_case != PG_QUERY__NODE__NODE_STRING || from != last->string->sval) return;
    renamed.Set(&last->string->sval, to);
  });
  return DeparseExpression(root);
}

std::vector<PartitionRuleTerm> ParsePartitionRule(const std::string& rule) {
  auto fail = [&]() -> SqlError {
    return SqlError(sqlstate::kSyntaxError,
                    fmt::format("invalid partition rule \"{}\": a rule compares a partition column with a literal or "
                                "another partition column (=, <>, <, <=, >, >=), joined with AND",
                                rule));
  };
  std::vector<ParsedStatement> stmts;
  try {
    stmts = ParseSql("SELECT 1 WHERE " + rule);
  } catch (const SqlError&) {
    throw fail();
  }
  if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) throw fail();
  const PgQuery__SelectStmt* select = stmts[0].node->select_stmt;
  if (!select->where_clause || select->n_from_clause || select->n_group_clause || select->having_clause ||
      select->n_sort_clause || select->limit_count || select->limit_offset || select->n_window_clause ||
      select->n_target_list != 1 || select->n_values_lists || select->op != PG_QUERY__SET_OPERATION__SETOP_NONE)
    throw fail();
  std::vector<const PgQuery__Node*> comparisons;
  std::function<void(const PgQuery__Node*)> conjuncts = [&](const PgQuery__Node* n) {
    if (n->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR && n->bool_expr->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR) {
      for (size_t i = 0; i < n->bool_expr->n_args; i++) conjuncts(n->bool_expr->args[i]);
    } else {
      comparisons.push_back(n);
    }
  };
  conjuncts(select->where_clause);
  auto column_of = [](const PgQuery__Node* n) -> std::optional<std::string> {
    if (n->node_case != PG_QUERY__NODE__NODE_COLUMN_REF || n->column_ref->n_fields != 1 ||
        n->column_ref->fields[0]->node_case != PG_QUERY__NODE__NODE_STRING)
      return std::nullopt;
    return std::string(n->column_ref->fields[0]->string->sval);
  };
  auto literal_of = [](const PgQuery__Node* n, PartitionRuleTerm* t) {
    if (n->node_case != PG_QUERY__NODE__NODE_A_CONST || n->a_const->isnull) return false;
    const PgQuery__AConst* c = n->a_const;
    switch (c->val_case) {
      case PG_QUERY__A__CONST__VAL_IVAL: t->kind = PartitionRuleTerm::Literal::kInteger, t->literal = std::to_string(c->ival->ival); return true;
      case PG_QUERY__A__CONST__VAL_FVAL: t->kind = PartitionRuleTerm::Literal::kFloat, t->literal = c->fval->fval; return true;
      case PG_QUERY__A__CONST__VAL_BOOLVAL: t->kind = PartitionRuleTerm::Literal::kBoolean, t->literal = c->boolval->boolval ? "true" : "false"; return true;
      case PG_QUERY__A__CONST__VAL_SVAL: t->kind = PartitionRuleTerm::Literal::kString, t->literal = c->sval->sval; return true;
      default: return false;
    }
  };
  std::vector<PartitionRuleTerm> terms;
  for (const PgQuery__Node* n : comparisons) {
    if (n->node_case != PG_QUERY__NODE__NODE_A_EXPR || n->a_expr->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP ||
        n->a_expr->n_name != 1 || !n->a_expr->lexpr || !n->a_expr->rexpr)
      throw fail();
    PartitionRuleTerm t;
    t.op = StringOf(n->a_expr->name[0]);
    if (t.op == "!=") t.op = "<>";
    if (t.op != "=" && t.op != "<>" && t.op != "<" && t.op != "<=" && t.op != ">" && t.op != ">=") throw fail();
    std::optional<std::string> left = column_of(n->a_expr->lexpr), right = column_of(n->a_expr->rexpr);
    if (left && right) {
      t.column = *left;
      t.other_column = *right;
    } else if (left && literal_of(n->a_expr->rexpr, &t)) {
      t.column = *left;
    } else if (right && literal_of(n->a_expr->lexpr, &t)) {
      t.column = *right;
      t.op = t.op == "<" ? ">" : t.op == "<=" ? ">=" : t.op == ">" ? "<" : t.op == ">=" ? "<=" : t.op;
    } else {
      throw fail();
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

std::vector<std::string> ColumnsInExpression(const std::string& expr) {
  std::vector<ParsedStatement> stmts = ParseSql("SELECT " + expr);
  std::vector<std::string> names;
  ForEachMessage(&stmts.at(0).node->base, [&](ProtobufCMessage* m) {
    if (m->descriptor != &pg_query__column_ref__descriptor) return;
    auto* ref = reinterpret_cast<PgQuery__ColumnRef*>(m);
    if (ref->n_fields == 0) return;
    const PgQuery__Node* last = ref->fields[ref->n_fields - 1];
    if (last->node_case == PG_QUERY__NODE__NODE_STRING) names.push_back(last->string->sval);
  });
  return names;
}

std::string EditNames(const std::string& statement, const std::vector<NameEdit>& edits) {
  if (edits.empty()) return statement;
  std::vector<Token> tokens = Tokenize(statement);
  // Select-list entries that are a column reference alone, without a name
  // of their own: where they start.
  std::set<int> unnamed_targets;
  for (const auto& parsed : ParseSql(statement)) {
    if (!parsed.tree) continue;
    ForEachMessage(&parsed.tree->base, [&](ProtobufCMessage* m) {
      if (m->descriptor != &pg_query__res_target__descriptor) return;
      auto* target = reinterpret_cast<PgQuery__ResTarget*>(m);
      if ((!target->name || !*target->name) && target->val && target->val->node_case == PG_QUERY__NODE__NODE_COLUMN_REF)
        unnamed_targets.insert(target->val->column_ref->location);
    });
  }
  struct Replacement {
    int start, end;
    std::string text;
  };
  std::vector<Replacement> replacements;
  for (const auto& edit : edits) {
    size_t first = 0;
    while (first < tokens.size() && tokens[first].start < edit.location) first++;
    if (first == tokens.size() || tokens[first].start != edit.location)
      throw SqlError(sqlstate::kInternalError, "a name to rename is not where the statement has it");
    // The dotted name: name (. name)* [. *]
    std::vector<size_t> parts{first};
    while (parts.back() + 2 < tokens.size() && tokens[parts.back() + 1].text == "." &&
           tokens[parts.back() + 1].start == tokens[parts.back()].end)
      parts.push_back(parts.back() + 2);
    if (static_cast<size_t>(edit.part_from_end) >= parts.size())
      throw SqlError(sqlstate::kInternalError, "a name to rename has fewer parts than expected");
    const Token& part = tokens[parts[parts.size() - 1 - edit.part_from_end]];
    if (part.kind != Token::Kind::kIdent && part.kind != Token::Kind::kKeyword)
      throw SqlError(sqlstate::kInternalError, "a name to rename is not a name");
    replacements.push_back({part.start, part.end, QuoteIdent(edit.new_name)});
    if (!edit.new_schema.empty()) {
      if (edit.part_from_end != 0) throw SqlError(sqlstate::kInternalError, "a schema to write before a qualifier");
      const int from = tokens[parts.front()].start, to = part.start;
      replacements.push_back({from, to, QuoteIdent(edit.new_schema) + "."});
    }
    if (!edit.keep_output_name.empty() && unnamed_targets.count(edit.location)) {
      int end = tokens[parts.back()].end;
      replacements.push_back({end, end, " AS " + QuoteIdent(edit.keep_output_name)});
    }
  }
  std::sort(replacements.begin(), replacements.end(),
            [](const Replacement& a, const Replacement& b) {
              return std::tie(b.start, b.end, b.text) < std::tie(a.start, a.end, a.text);
            });
  replacements.erase(std::unique(replacements.begin(), replacements.end(),
                                 [](const Replacement& a, const Replacement& b) {
                                   return a.start == b.start && a.end == b.end && a.text == b.text;
                                 }),
                     replacements.end());
  std::string out = statement;
  int last_start = static_cast<int>(out.size()) + 1;
  for (const auto& r : replacements) {
    if (r.end > last_start) continue;  // overlapping edits: the first one stands
    out.replace(r.start, r.end - r.start, r.text);
    last_start = r.start;
  }
  return out;
}

namespace {

// Name lists of a parse tree (a TypeName's, a FuncCall's) pointed at new
// names while it is deparsed; the tree gets its own lists back when this
// goes away.
class NameListSwaps {
 public:
  NameListSwaps() = default;
  NameListSwaps(const NameListSwaps&) = delete;
  NameListSwaps& operator=(const NameListSwaps&) = delete;
  ~NameListSwaps() {
    for (auto& s : swapped_) {
      *s.list = s.names;
      *s.size = s.n_names;
    }
  }
  void Set(PgQuery__TypeName* type, const std::vector<std::string>& names) { Set(&type->names, &type->n_names, names); }
  void Set(PgQuery__FuncCall* call, const std::vector<std::string>& names) { Set(&call->funcname, &call->n_funcname, names); }

 private:
  void Set(PgQuery__Node*** list_field, size_t* size_field, const std::vector<std::string>& names) {
    swapped_.push_back({list_field, size_field, *list_field, *size_field});
    auto& list = lists_.emplace_back();
    for (const auto& name : names) {
      texts_.push_back(name);
      PgQuery__String& str = strings_.emplace_back();
      str = PG_QUERY__STRING__INIT;
      str.sval = texts_.back().data();
      PgQuery__Node& node = nodes_.emplace_back();
      node = PG_QUERY__NODE__INIT;
      node.node_case = PG_QUERY__NODE__NODE_STRING;
      node.string = &str;
      list.push_back(&node);
    }
    *list_field = list.data();
    *size_field = list.size();
  }

  struct Swapped {
    PgQuery__Node*** list;
    size_t* size;
    PgQuery__Node** names;
    size_t n_names;
  };
  std::deque<std::string> texts_;  // stable addresses
  std::deque<PgQuery__String> strings_;
  std::deque<PgQuery__Node> nodes_;
  std::deque<std::vector<PgQuery__Node*>> lists_;
  std::vector<Swapped> swapped_;
};

}  // namespace

std::string DeparseQualified(const std::string& query,
                             const std::function<std::optional<std::string>(const std::string&)>& schema_for,
                             const std::function<std::optional<std::string>(const std::string&)>& function_schema_for) {
  std::vector<ParsedStatement> stmts = ParseSql(query);
  if (stmts.size() != 1 || !stmts[0].node) throw SqlError(sqlstate::kSyntaxError, "not one query");
  PgQuery__Node* root = stmts[0].node;
  if (root->node_case == PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT) root = root->create_table_as_stmt->query;
  if (!root || root->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) throw SqlError(sqlstate::kSyntaxError, "not a query");
  std::set<std::string> ctes;
  ForEachMessage(&root->base, [&](ProtobufCMessage* m) {
    if (m->descriptor == &pg_query__common_table_expr__descriptor)
      ctes.insert(reinterpret_cast<PgQuery__CommonTableExpr*>(m)->ctename);
  });
  StringSwaps qualified;
  ForEachMessage(&root->base, [&](ProtobufCMessage* m) {
    if (m->descriptor != &pg_query__range_var__descriptor) return;
    auto* rv = reinterpret_cast<PgQuery__RangeVar*>(m);
    if ((rv->schemaname && *rv->schemaname) || (rv->catalogname && *rv->catalogname) || ctes.count(rv->relname)) return;
    if (std::optional<std::string> schema = schema_for(rv->relname)) qualified.Set(&rv->schemaname, *schema);
  });
  NameListSwaps functions;
  if (function_schema_for)
    ForEachMessage(&root->base, [&](ProtobufCMessage* m) {
      if (m->descriptor != &pg_query__func_call__descriptor) return;
      auto* f = reinterpret_cast<PgQuery__FuncCall*>(m);
      if (f->n_funcname != 1) return;
      std::string name = StringOf(f->funcname[0]);
      if (std::optional<std::string> schema = function_schema_for(name)) functions.Set(f, {*schema, name});
    });
  return Deparse(root);
}


std::string RewriteRegclassLiterals(const std::string& expr, const std::function<std::string(const std::string&)>& rename,
                                    const TypeNameRewrite& rename_type) {
  std::vector<ParsedStatement> stmts = ParseSql("SELECT " + expr);
  if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT ||
      stmts[0].node->select_stmt->n_target_list != 1)
    throw SqlError(sqlstate::kSyntaxError, "not one expression");
  PgQuery__Node* root = stmts[0].node->select_stmt->target_list[0]->res_target->val;
  auto string_constant = [](PgQuery__Node* n) -> PgQuery__String* {
    if (!n || n->node_case != PG_QUERY__NODE__NODE_A_CONST || n->a_const->val_case != PG_QUERY__A__CONST__VAL_SVAL)
      return nullptr;
    return n->a_const->sval;
  };
  std::vector<PgQuery__String*> literals;
  std::vector<std::pair<PgQuery__TypeName*, std::vector<std::string>>> types;
  ForEachMessage(&root->base, [&](ProtobufCMessage* m) {
    if (m->descriptor == &pg_query__type_cast__descriptor) {
      auto* cast = reinterpret_cast<PgQuery__TypeCast*>(m);
      if (rename_type && cast->type_name && cast->type_name->n_names > 0) {
        std::vector<std::string> names;
        for (size_t i = 0; i < cast->type_name->n_names; i++) names.push_back(StringOf(cast->type_name->names[i]));
        if (auto renamed = rename_type(names)) types.emplace_back(cast->type_name, std::move(*renamed));
      }
      if (cast->type_name && cast->type_name->n_names > 0 &&
          StringOf(cast->type_name->names[cast->type_name->n_names - 1]) == "regclass" && cast->type_name->n_array_bounds == 0)
        if (PgQuery__String* str = string_constant(cast->arg)) literals.push_back(str);
    } else if (m->descriptor == &pg_query__func_call__descriptor) {
      auto* call = reinterpret_cast<PgQuery__FuncCall*>(m);
      if (call->n_funcname == 0 || call->n_args == 0) return;
      std::string name = StringOf(call->funcname[call->n_funcname - 1]);
      if (name == "nextval" || name == "currval" || name == "setval")
        if (PgQuery__String* str = string_constant(call->args[0])) literals.push_back(str);
    }
  });
  if (literals.empty() && types.empty()) return expr;
  StringSwaps renamed;
  for (PgQuery__String* str : literals) renamed.Set(&str->sval, rename(str->sval));
  NameListSwaps renamed_types;
  for (const auto& [type, names] : types) renamed_types.Set(type, names);
  return DeparseExpression(root);
}

namespace {
bool NamesRelationIn(const ProtobufCMessage* root, const std::string& name) {
  bool found = false;
  ForEachMessage(const_cast<ProtobufCMessage*>(root), [&](ProtobufCMessage* m) {
    if (m->descriptor != &pg_query__range_var__descriptor) return;
    auto* rv = reinterpret_cast<PgQuery__RangeVar*>(m);
    found |= !(rv->schemaname && *rv->schemaname) && name == rv->relname;
  });
  return found;
}
}  // namespace

bool NamesRelation(const PgQuery__Node* node, const std::string& name) { return NamesRelationIn(&node->base, name); }
bool NamesRelation(const PgQuery__SelectStmt* select, const std::string& name) {
  return NamesRelationIn(&select->base, name);
}

}  // namespace freshet
