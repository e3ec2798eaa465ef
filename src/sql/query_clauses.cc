#include "sql/query_clauses.h"

#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <unordered_map>

#include "common/error.h"
#include "sql/parse_tree.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// The annotations of every live tree, by node. Most trees have none: the
// count lets lookups skip the lock then.
struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, CorrespondingClause> corresponding;
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

[[noreturn]] void ThrowSyntaxAt(const std::vector<Token>& tok, size_t i, const std::string& sql, int loc) {
  SqlError e(sqlstate::kSyntaxError, i < tok.size() ? "syntax error at or near \"" + sql.substr(loc + tok[i].start, tok[i].end - tok[i].start) + "\""
                                                    : std::string("syntax error at end of input"));
  e.WithPosition(CharPosition(sql, loc + (i < tok.size() ? tok[i].start : static_cast<int>(sql.size()) - loc)));
  throw e;
}

bool IsWord(const Token& t) { return t.kind == Token::Kind::kIdent || t.kind == Token::Kind::kKeyword; }

}  // namespace

void QueryClauses::Shift(int at, int length) {
  auto move = [&](int& pos) {
    if (pos >= at) pos += length;
  };
  for (int& k : set_operation_keywords) move(k);
  for (Corresponding& c : corresponding) move(c.keyword), move(c.clause.location);
}

QueryClauses CutQueryClauses(std::string* text, const std::string& sql, int loc) {
  QueryClauses out;
  if (!ContainsWordCaseless(*text, "corresponding")) return out;
  const std::vector<Token> tok = Tokenize(*text);
  const size_t n = tok.size();
  auto keyword = [&](size_t i, const char* w) { return i < n && tok[i].kind == Token::Kind::kKeyword && tok[i].text == w; };
  auto punct = [&](size_t i, const char* p) { return i < n && tok[i].kind == Token::Kind::kOther && tok[i].text == p; };
  for (size_t i = 0; i < n; i++) {
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
      if (!punct(k, "(")) ThrowSyntaxAt(tok, k, sql, loc);
      for (k++;; k++) {
        if (k >= n || !IsWord(tok[k])) ThrowSyntaxAt(tok, k, sql, loc);
        c.clause.by.push_back(tok[k].text);
        k++;
        if (punct(k, ")")) break;
        if (!punct(k, ",")) ThrowSyntaxAt(tok, k, sql, loc);
      }
      last = k;
    }
    std::fill(text->begin() + tok[j].start, text->begin() + tok[last].end, ' ');
    out.corresponding.push_back(std::move(c));
    i = last;
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
  std::vector<const void*> nodes;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (const auto& [node, c] : found) {
    r.corresponding[node] = c->clause;
    nodes.push_back(node);
  }
  annotated_nodes += nodes.size();
  return nodes;
}

void ForgetAnnotations(const std::vector<const void*>& nodes) {
  if (nodes.empty()) return;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (const void* node : nodes) r.corresponding.erase(node);
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

bool HasAnnotations(ProtobufCMessage* root) {
  if (annotated_nodes == 0) return false;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  bool any = false;
  ForEachMessage(root, [&](ProtobufCMessage* m) { any = any || r.corresponding.count(m) > 0; });
  return any;
}

}  // namespace freshet
