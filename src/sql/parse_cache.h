// ParseCache: one session's recently parsed statements, so that a statement
// sent again with other constants (the common OLTP shape: INSERT ... VALUES
// (1, 'a'), then (7, 'b')) is not parsed again. libpg_query's parse and the
// protobuf round trip of its tree were an eighth of the server's CPU time
// in the single-row INSERT benchmark.
//
// The key is the statement's text with each constant's bytes replaced by
// its class (integer, other number, string), so the cached tree's
// positions hold for the new text too. A hit writes the new constants into
// the tree's A_Const nodes, found by location when the entry was made, and
// hands the tree out. Only statements whose every constant is an A_Const
// of its own class at the constant's position are cached: not -1 (folded
// into one A_Const at the minus), not E'...', $$...$$ or U&'...' strings,
// not a constant the grammar keeps as a plain field (float(53)). The
// caller caches only trees parsed from the statement's own text (no
// rewrite). A tree still held by an earlier statement (a portal, a
// prepared statement) is never rewritten: Take returns nothing and the
// statement is parsed afresh.
//
// Not thread-safe: one per session.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sql/parser.h"

struct PgQuery__AConst;

namespace freshet {

class ParseCache {
 public:
  // Bounds on a session's cache: entries, the text of one statement, and
  // the text of all (a tree takes some ten times its text).
  static constexpr size_t kMaxEntries = 64;
  static constexpr size_t kMaxTextBytes = 8192;
  static constexpr size_t kMaxTotalTextBytes = 64 << 10;

  // The tree of a statement of `text`'s shape, its constants set to
  // `text`'s; nullptr if there is none (or it is in use).
  std::shared_ptr<PgQuery__ParseResult> Take(const std::string& text, const std::vector<Token>& tokens);
  // Keeps a fresh parse of `text` if its constants map onto the tree.
  void Put(const std::string& text, const std::vector<Token>& tokens, std::shared_ptr<PgQuery__ParseResult> tree);

  size_t size() const { return entries_.size(); }
  size_t hits() const { return hits_; }

 private:
  struct Entry {
    std::shared_ptr<PgQuery__ParseResult> tree;
    std::vector<PgQuery__AConst*> constants;  // in the order of the constant tokens
    std::list<std::string>::iterator used;    // in used_
  };
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> used_;  // keys, most recently used first
  size_t text_bytes_ = 0;  // of the keys in entries_
  size_t hits_ = 0;
};

}  // namespace freshet
