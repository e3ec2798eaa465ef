#include "pgproto/utf8_check.h"

#include <gtest/gtest.h>

#include <random>

#include "common/error.h"

namespace freshet {
namespace {

// A byte-at-a-time reference: PostgreSQL's pg_utf8_islegal per character.
size_t ReferencePrefix(const std::string& s, bool* truncated) {
  *truncated = false;
  size_t i = 0;
  auto u = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    unsigned char c = u(i);
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (c == 0 || len == 0) return i;
    if (len == 1) {
      i++;
      continue;
    }
    std::vector<int> b;
    for (size_t k = 0; k < len && i + k < s.size(); k++) b.push_back(u(i + k));
    bool ok = true;
    if (len == 2) ok = c >= 0xc2;
    if (b.size() >= 2) {
      int b1 = b[1];
      if (len == 2) ok = ok && b1 >= 0x80 && b1 <= 0xbf;
      if (len == 3) {
        if (c == 0xe0) ok = b1 >= 0xa0 && b1 <= 0xbf;
        else if (c == 0xed) ok = b1 >= 0x80 && b1 <= 0x9f;
        else ok = b1 >= 0x80 && b1 <= 0xbf;
      }
      if (len == 4) {
        if (c == 0xf0) ok = b1 >= 0x90 && b1 <= 0xbf;
        else if (c == 0xf4) ok = b1 >= 0x80 && b1 <= 0x8f;
        else if (c < 0xf4) ok = b1 >= 0x80 && b1 <= 0xbf;
        else ok = false;
      }
      for (size_t k = 2; k < b.size(); k++) ok = ok && (b[k] & 0xc0) == 0x80;
    } else if (len == 4 && c > 0xf4) {
      ok = false;
    }
    if (!ok) return i;
    if (b.size() < len) {
      *truncated = true;
      return i;
    }
    i += len;
  }
  return s.size();
}

TEST(Utf8CheckTest, KnownSequences) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii text, longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf"));
  EXPECT_FALSE(IsValidUtf8(std::string("a\0b", 3)));
  EXPECT_FALSE(IsValidUtf8(std::string("abcdefgh\0", 9)));  // NUL inside a word
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));              // overlong
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));          // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));      // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xf5\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("\x80"));                  // stray continuation
  EXPECT_FALSE(IsValidUtf8("\xff"));
  bool truncated = false;
  EXPECT_EQ(Utf8ValidPrefix("ab\xe2\x82", 4, &truncated), 2u);
  EXPECT_TRUE(truncated);
  EXPECT_EQ(Utf8ValidPrefix("ab\xe2\x28", 4, &truncated), 2u);
  EXPECT_FALSE(truncated);
}

TEST(Utf8CheckTest, MessagesNameTheCharactersBytes) {
  auto message = [](const std::string& s) {
    try {
      CheckUtf8(s);
    } catch (const SqlError& e) {
      return e.code() + " " + e.message();
    }
    return std::string("valid");
  };
  EXPECT_EQ(message("a\xff"), "22021 invalid byte sequence for encoding \"UTF8\": 0xff");
  EXPECT_EQ(message("a\xc3\x28"), "22021 invalid byte sequence for encoding \"UTF8\": 0xc3 0x28");
  EXPECT_EQ(message("x\xe2\x82"), "22021 invalid byte sequence for encoding \"UTF8\": 0xe2 0x82");
  EXPECT_EQ(message("\xf4\x90\x80\x80z"), "22021 invalid byte sequence for encoding \"UTF8\": 0xf4 0x90 0x80 0x80");
  EXPECT_EQ(message(std::string("ab\0", 3)), "22021 invalid byte sequence for encoding \"UTF8\": 0x00");
  EXPECT_EQ(message("ok \xc3\xa9"), "valid");
}

TEST(Utf8CheckTest, AgreesWithAByteAtATimeReference) {
  std::mt19937 rng(16);
  const std::string pieces[] = {"a", "bcdefghij", "\xc3\xa9", "\xe2\x9c\x93", "\xf0\x9f\x98\x80", "\xed\x9f\xbf",
                                "\xee\x80\x80", "\xf4\x8f\xbf\xbf"};
  for (int round = 0; round < 20000; round++) {
    std::string s;
    int parts = static_cast<int>(rng() % 12);
    for (int k = 0; k < parts; k++) s += pieces[rng() % 8];
    // Sometimes one random byte somewhere, sometimes a cut at the end.
    if (!s.empty() && rng() % 2) s[rng() % s.size()] = static_cast<char>(rng() % 256);
    if (!s.empty() && rng() % 4 == 0) s.pop_back();
    bool t1, t2;
    size_t want = ReferencePrefix(s, &t1);
    size_t got = Utf8ValidPrefix(s.data(), s.size(), &t2);
    ASSERT_EQ(got, want) << "round " << round;
    ASSERT_EQ(t2, t1) << "round " << round;
  }
}

}  // namespace
}  // namespace freshet
