#include "sql/query_clauses.h"

#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <unordered_map>
#include <functional>

#include "common/error.h"
#include "sql/parse_tree.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// The clauses that are a mark on their node alone.
enum class Mark { kProcessTime, kChangelog, kAsOf };

// The annotations of every live tree, by node. Most trees have none: the
// count lets lookups skip the lock then.
struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, CorrespondingClause> corresponding;
  std::unordered_map<const void*, Mark> marks;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}
std::atomic<size_t> annotated_nodes{0};

bool ContainsWordCaseless(const std::string& text, std::string_view word) {
  auto same = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
  return std::search(text.begin(), text.end(), word.begin(), word.end(), same) != text.end();
}

// The token's text from the text tokenized (which rewrites before this one
// may have made longer than the query string); its position, as every
// position here, counted in the query string from `loc`.
[[noreturn]] void ThrowSyntaxAt(const std::vector<Token>& tok, size_t i, const std::string& text, const std::string& sql,
                                int loc) {
  SqlError e(sqlstate::kSyntaxError, i < tok.size() ? "syntax error at or near \"" + text.substr(tok[i].start, tok[i].end - tok[i].start) + "\""
                                                    : std::string("syntax error at end of input"));
  e.WithPosition(CharPosition(sql, loc + (i < tok.size() ? tok[i].start : static_cast<int>(text.size()))));
  throw e;
}

bool IsWord(const Token& t) { return t.kind == Token::Kind::kIdent || t.kind == Token::Kind::kKeyword; }

// For each clause at `positions`, the node of `type` whose anchor (a
// position; -1: none) is the nearest before it (`before`) or after it.
// Throws `error`, at the clause, for one without.
std::vector<const void*> NodesAt(PgQuery__ParseResult* tree, const ProtobufCMessageDescriptor& type,
                                 const std::vector<int>& positions, bool before,
                                 const std::function<int(ProtobufCMessage*)>& anchor, SqlError error,
                                 const std::string& sql, int loc) {
  std::vector<const void*> nodes(positions.size(), nullptr);
  if (positions.empty()) return nodes;
  std::vector<int> at(positions.size(), -1);
  ForEachMessage(&tree->base, [&](ProtobufCMessage* m) {
    if (m->descriptor != &type) return;
    const int a = anchor(m);
    if (a < 0) return;
    for (size_t k = 0; k < positions.size(); k++) {
      const bool nearer = before ? a < positions[k] && a > at[k] : a > positions[k] && (at[k] < 0 || a < at[k]);
      if (nearer) at[k] = a, nodes[k] = m;
    }
  });
  for (size_t k = 0; k < nodes.size(); k++)
    if (!nodes[k]) throw error.WithPosition(CharPosition(sql, loc + positions[k]));
  return nodes;
}

bool HasMark(const void* node, Mark mark) {
  if (annotated_nodes == 0) return false;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.marks.find(node);
  return it != r.marks.end() && it->second == mark;
}

}  // namespace

void QueryClauses::Shift(int at, int length) {
  auto move = [&](int& pos) {
    if (pos >= at) pos += length;
  };
  for (int& k : set_operation_keywords) move(k);
  for (Corresponding& c : corresponding) move(c.keyword), move(c.clause.location);
  for (int& p : process_time) move(p);
  for (int& p : changelog) move(p);
  for (int& p : asof) move(p);
}

QueryClauses CutQueryClauses(std::string* text, const std::string& sql, int loc) {
  QueryClauses out;
  if (!ContainsWordCaseless(*text, "corresponding") && !ContainsWordCaseless(*text, "system_time") &&
      !ContainsWordCaseless(*text, "changelog") && !ContainsWordCaseless(*text, "asof"))
    return out;
  const std::vector<Token> tok = Tokenize(*text);
  const size_t n = tok.size();
  auto keyword = [&](size_t i, const char* w) { return i < n && tok[i].kind == Token::Kind::kKeyword && tok[i].text == w; };
  auto punct = [&](size_t i, const char* p) { return i < n && tok[i].kind == Token::Kind::kOther && tok[i].text == p; };
  auto ident = [&](size_t i, const char* w) {
    return i < n && tok[i].kind == Token::Kind::kIdent && tok[i].text == w && (*text)[tok[i].start] != '"';
  };
  std::vector<int> closes;  // where a `)` goes (after a CHANGELOG's relation)
  for (size_t i = 0; i < n; i++) {
    // name AS CHANGELOG FROM relation: CHANGELOG is never valid there.
    if (keyword(i, "as") && ident(i + 1, "changelog") && keyword(i + 2, "from")) {
      size_t last = i + 3;
      if (last >= n || !IsWord(tok[last])) ThrowSyntaxAt(tok, last, *text, sql, loc);
      while (punct(last + 1, ".") && last + 2 < n && IsWord(tok[last + 2])) last += 2;
      static constexpr std::string_view kSelect = "(SELECT *";
      static_assert(kSelect.size() == std::string_view("changelog").size());
      text->replace(tok[i + 1].start, kSelect.size(), kSelect);
      out.changelog.push_back(tok[i + 1].start);
      closes.push_back(tok[last].end);
      i = last;
      continue;
    }
    // ASOF [LEFT [OUTER]] JOIN
    if (ident(i, "asof")) {
      size_t j = i + 1;
      if (keyword(j, "left")) j++;
      if (keyword(j, "outer")) j++;
      if (keyword(j, "join")) {
        out.asof.push_back(tok[i].start);
        std::fill(text->begin() + tok[i].start, text->begin() + tok[i].end, ' ');
        i = j;
        continue;
      }
    }
    // name FOR SYSTEM_TIME AS OF PROCTIME(): FOR is followed so only here.
    if (keyword(i, "for") && ident(i + 1, "system_time")) {
      if (!keyword(i + 2, "as") || !keyword(i + 3, "of")) ThrowSyntaxAt(tok, i + 2, *text, sql, loc);
      if (!ident(i + 4, "proctime") || !punct(i + 5, "(") || !punct(i + 6, ")")) {
        SqlError e(sqlstate::kFeatureNotSupported,
                   "FOR SYSTEM_TIME AS OF is supported only as PROCTIME() (a process-time temporal join), not as a "
                   "point in time (time travel) or a column (an event-time temporal join)");
        e.WithPosition(CharPosition(sql, loc + tok[i].start));
        throw e;
      }
      if (i == 0 || !IsWord(tok[i - 1])) ThrowSyntaxAt(tok, i, *text, sql, loc);
      out.process_time.push_back(tok[i].start);
      std::fill(text->begin() + tok[i].start, text->begin() + tok[i + 6].end, ' ');
      i += 6;
      continue;
    }
    if (!keyword(i, "union") && !keyword(i, "intersect") && !keyword(i, "except")) continue;
    out.set_operation_keywords.push_back(tok[i].start);
    size_t j = i + 1;
    if (keyword(j, "all") || keyword(j, "distinct")) j++;
    // Never valid in PostgreSQL's grammar after a set operation's keyword,
    // so never a column named so.
    if (!(j < n && tok[j].kind == Token::Kind::kIdent && tok[j].text == "corresponding" && (*text)[tok[j].start] != '"'))
      continue;
    QueryClauses::Corresponding c{tok[i].start, {}};
    c.clause.location = tok[j].start;
    size_t last = j;
    if (keyword(j + 1, "by")) {
      size_t k = j + 2;
      if (!punct(k, "(")) ThrowSyntaxAt(tok, k, *text, sql, loc);
      for (k++;; k++) {
        if (k >= n || !IsWord(tok[k])) ThrowSyntaxAt(tok, k, *text, sql, loc);
        c.clause.by.push_back(tok[k].text);
        k++;
        if (punct(k, ")")) break;
        if (!punct(k, ",")) ThrowSyntaxAt(tok, k, *text, sql, loc);
      }
      last = k;
    }
    std::fill(text->begin() + tok[j].start, text->begin() + tok[last].end, ' ');
    out.corresponding.push_back(std::move(c));
    i = last;
  }
  for (auto at = closes.rbegin(); at != closes.rend(); ++at) {
    text->insert(static_cast<size_t>(*at), ")");
    out.Shift(*at, 1);
  }
  return out;
}

std::vector<const void*> AnnotateTree(PgQuery__ParseResult* tree, const QueryClauses& clauses, const std::string& sql,
                                      int loc) {
  if (clauses.empty()) return {};
  const std::vector<int>& keywords = clauses.set_operation_keywords;
  std::vector<std::pair<const void*, const QueryClauses::Corresponding*>> found;
  ForEachMessage(&tree->base, [&](ProtobufCMessage* m) {
    if (m->descriptor != &pg_query__select_stmt__descriptor) return;
    auto* s = reinterpret_cast<PgQuery__SelectStmt*>(m);
    if (s->op == PG_QUERY__SET_OPERATION__SETOP_NONE || !s->rarg) return;
    // The operation's keyword is the last one before its right side's text.
    int right = FirstLocation(&s->rarg->base);
    auto after = std::lower_bound(keywords.begin(), keywords.end(), right);
    if (right < 0 || after == keywords.begin()) return;
    for (const QueryClauses::Corresponding& c : clauses.corresponding)
      if (c.keyword == *(after - 1)) found.emplace_back(s, &c);
  });
  for (const QueryClauses::Corresponding& c : clauses.corresponding) {
    bool placed = std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.second == &c; });
    if (!placed) {
      SqlError e(sqlstate::kSyntaxError, "syntax error at or near \"CORRESPONDING\"");
      e.WithPosition(CharPosition(sql, loc + c.clause.location));
      throw e;
    }
  }
  // A process-time clause follows its relation's name, a CHANGELOG its
  // CTE's; an ASOF precedes its join's right side.
  std::vector<const void*> relations = NodesAt(
      tree, pg_query__range_var__descriptor, clauses.process_time, true,
      [](ProtobufCMessage* m) { return reinterpret_cast<PgQuery__RangeVar*>(m)->location; },
      SqlError(sqlstate::kFeatureNotSupported,
               "FOR SYSTEM_TIME AS OF PROCTIME() must follow the name of a table or materialized view"),
      sql, loc);
  std::vector<const void*> ctes = NodesAt(
      tree, pg_query__common_table_expr__descriptor, clauses.changelog, true,
      [](ProtobufCMessage* m) { return reinterpret_cast<PgQuery__CommonTableExpr*>(m)->location; },
      SqlError(sqlstate::kSyntaxError, "syntax error at or near \"CHANGELOG\": AS CHANGELOG FROM names a WITH query"),
      sql, loc);
  std::vector<const void*> joins = NodesAt(
      tree, pg_query__join_expr__descriptor, clauses.asof, false,
      [](ProtobufCMessage* m) {
        auto* j = reinterpret_cast<PgQuery__JoinExpr*>(m);
        return j->rarg ? FirstLocation(&j->rarg->base) : -1;
      },
      SqlError(sqlstate::kSyntaxError, "syntax error at or near \"ASOF\""), sql, loc);
  std::vector<const void*> nodes;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (const auto& [node, c] : found) {
    r.corresponding[node] = c->clause;
    nodes.push_back(node);
  }
  auto mark = [&](const std::vector<const void*>& marked, Mark m) {
    for (const void* node : marked) {
      r.marks[node] = m;
      nodes.push_back(node);
    }
  };
  mark(relations, Mark::kProcessTime);
  mark(ctes, Mark::kChangelog);
  mark(joins, Mark::kAsOf);
  annotated_nodes += nodes.size();
  return nodes;
}

void ForgetAnnotations(const std::vector<const void*>& nodes) {
  if (nodes.empty()) return;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (const void* node : nodes) r.corresponding.erase(node), r.marks.erase(node);
  annotated_nodes -= nodes.size();
}

const CorrespondingClause* CorrespondingOf(const PgQuery__SelectStmt* set_operation) {
  if (annotated_nodes == 0) return nullptr;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.corresponding.find(set_operation);
  // Entries stay put until their tree goes, with the caller's tree.
  return it == r.corresponding.end() ? nullptr : &it->second;
}

bool IsProcessTimeRelation(const PgQuery__RangeVar* relation) {
  return HasMark(relation, Mark::kProcessTime);
}

bool IsAsOfJoin(const PgQuery__JoinExpr* join) {
  return HasMark(join, Mark::kAsOf);
}

bool IsChangelogCte(const PgQuery__CommonTableExpr* cte) {
  return HasMark(cte, Mark::kChangelog);
}

bool HasAnnotations(ProtobufCMessage* root) {
  if (annotated_nodes == 0) return false;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  bool any = false;
  ForEachMessage(root, [&](ProtobufCMessage* m) { 
    any = any || r.corresponding.count(m) > 0 || r.marks.count(m) > 0;
  });
  return any;
}

}  // namespace freshet
