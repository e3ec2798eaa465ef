// DecodeStartupOptions: the startup packet's options as PostgreSQL's
// pg_split_opts and command line read them.
#include "server/pgwire_decode.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace freshet::wire {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

TEST(StartupOptionsTest, SettingsInEveryForm) {
  EXPECT_EQ(DecodeStartupOptions(""), Settings{});
  EXPECT_EQ(DecodeStartupOptions("  "), Settings{});
  EXPECT_EQ(DecodeStartupOptions("-c statement_timeout=5s"), (Settings{{"statement_timeout", "5s"}}));
  EXPECT_EQ(DecodeStartupOptions("-cstatement_timeout=5s  --search-path=a,b"),
            (Settings{{"statement_timeout", "5s"}, {"search_path", "a,b"}}));
  // A backslash keeps the next character, spaces included.
  EXPECT_EQ(DecodeStartupOptions("--application_name=my\\ app -c x=a\\\\b"),
            (Settings{{"application_name", "my app"}, {"x", "a\\b"}}));
  // An empty value is a value.
  EXPECT_EQ(DecodeStartupOptions("-c search_path="), (Settings{{"search_path", ""}}));
}

TEST(StartupOptionsTest, AnythingElseIs22023) {
  for (const char* bad : {"bogus", "-c", "-c noequals", "--=x", "-x a=b", "trailing\\"}) {
    try {
      DecodeStartupOptions(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), "22023") << bad;
    }
  }
}

}  // namespace
}  // namespace freshet::wire
