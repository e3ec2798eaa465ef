// ParseCache (parse_cache.h), against libpg_query itself: every statement
// of the sqllogictest files is parsed through a cache, then again with each
// constant changed (same class and length), and the cached tree must equal
// a fresh parse of the changed text byte for byte (protobuf). Also: a tree
// held by an earlier statement is never rewritten; shapes whose constants
// are not A_Consts of their own are not cached.
#include "sql/parse_cache.h"

#include <gtest/gtest.h>
#include <pg_query/pg_query.pb-c.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "sql/slt_records.h"

namespace freshet {
namespace {

std::string Packed(const ParsedStatement& ps) {
  if (!ps.tree) return "<no tree>";
  std::string out(protobuf_c_message_get_packed_size(&ps.tree->base), '\0');
  protobuf_c_message_pack(&ps.tree->base, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

// The parse of `sql` as bytes, or the error.
std::string Outcome(const std::string& sql, ParseCache* cache) {
  try {
    std::string out;
    for (const auto& ps : ParseSql(sql, cache)) out += Packed(ps) + "|" + ps.text + ";";
    return out;
  } catch (const SqlError& e) {
    return std::string("error ") + e.code() + " " + e.what();
  }
}

// `sql` with every digit of a number and every letter of a '...' string
// changed, lengths kept.
std::string Varied(const std::string& sql) {
  std::vector<Token> tokens;
  try {
    tokens = Tokenize(sql);
  } catch (const SqlError&) {
    return sql;
  }
  std::string out = sql;
  for (const Token& t : tokens) {
    if (t.kind == Token::Kind::kNumber) {
      for (int i = t.start; i < t.end; i++)
        if (out[i] >= '1' && out[i] <= '9') out[i] = char('1' + (out[i] - '1' + 3) % 9);
    } else if (t.kind == Token::Kind::kString && out[t.start] == '\'') {
      for (int i = t.start + 1; i < t.end - 1; i++)
        if (std::isalpha(static_cast<unsigned char>(out[i]))) out[i] = out[i] == 'z' ? 'a' : out[i] == 'Z' ? 'A' : char(out[i] + 1);
    }
  }
  return out;
}

TEST(ParseCacheTest, CachedTreesEqualFreshParsesOfEverySltStatement) {
  size_t statements = 0, hits = 0, varied = 0;
  for (const auto& file : std::filesystem::directory_iterator(std::string(FRESHET_SOURCE_DIR) + "/tests/slt")) {
    if (file.path().extension() != ".slt") continue;
    for (const std::string& sql : SltRecords(file.path())) {
      statements++;
      ParseCache cache;
      EXPECT_EQ(Outcome(sql, &cache), Outcome(sql, nullptr)) << sql;
      const std::string other = Varied(sql);
      varied += other != sql;
      const size_t before = cache.hits();
      EXPECT_EQ(Outcome(other, &cache), Outcome(other, nullptr)) << sql << "\nvaried: " << other;
      if (other != sql) hits += cache.hits() - before;
      // And back: the cached tree rewritten again.
      EXPECT_EQ(Outcome(sql, &cache), Outcome(sql, nullptr)) << sql;
    }
  }
  std::printf("%zu statements, %zu varied, %zu cache hits\n", statements, varied, hits);
  EXPECT_GT(statements, 2000u);
  EXPECT_GT(varied, 500u);
  EXPECT_GT(hits, 500u) << "the cache should serve most varied statements";
}

TEST(ParseCacheTest, ATreeInUseIsNotRewritten) {
  ParseCache cache;
  auto first = ParseSql("insert into t values (1, 'a')", &cache);
  ASSERT_EQ(cache.size(), 1u);
  auto held = ParseSql("insert into t values (2, 'b')", &cache);  // the cached tree is in use: fresh
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(Packed(first[0]), Packed(ParseSql("insert into t values (1, 'a')")[0]));
  first.clear();
  auto third = ParseSql("insert into t values (3, 'c')", &cache);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(Packed(third[0]), Packed(ParseSql("insert into t values (3, 'c')")[0]));
  EXPECT_EQ(Packed(held[0]), Packed(ParseSql("insert into t values (2, 'b')")[0]));
}

TEST(ParseCacheTest, ShapesItCannotRewriteAreNotCached) {
  for (const char* sql : {"select -1", "select E'a\\nb'", "select $$a$$", "select 'a'\n'b'", "select U&'a'",
                          "select 1::float(24)", "create source s (a int) with (connector = 'datagen')"}) {
    ParseCache cache;
    ParseSql(sql, &cache);
    EXPECT_EQ(cache.size(), 0u) << sql;
  }
  ParseCache cache;
  ParseSql("select 1, 1.5, 'x', 2147483648, null, true", &cache);
  EXPECT_EQ(cache.size(), 1u);
  // 2147483647 is an int4 constant, 2147483648 a numeric one: another shape.
  ParseSql("select 1, 1.5, 'x', 2147483647, null, true", &cache);
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ParseCacheTest, KeepsTheMostRecentlyUsedShapes) {
  ParseCache cache;
  for (size_t i = 0; i < ParseCache::kMaxEntries + 10; i++)
    ParseSql("select " + std::string(i + 1, '1'), &cache);  // lengths differ: one shape each (or numeric)
  EXPECT_EQ(cache.size(), ParseCache::kMaxEntries);
  // Long statements: bounded by their text.
  ParseCache long_ones;
  for (int i = 0; i < 40; i++)
    ParseSql("select " + std::to_string(i) + std::string(4000 + i, ' ') + ", 'x'", &long_ones);  // one shape each
  EXPECT_LE(long_ones.size(), ParseCache::kMaxTotalTextBytes / 4000);
  EXPECT_GE(long_ones.size(), 10u);
}

}  // namespace
}  // namespace freshet
