#include "server/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace freshet {
namespace {

std::string WriteTemp(const std::string& text) {
  char name[] = "/tmp/freshet-config-test-XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

Status Load(const std::string& text, ServerOptions* o) {
  std::string path = WriteTemp(text);
  Status s = LoadConfigFile(path, o);
  std::remove(path.c_str());
  return s;
}

TEST(ConfigTest, TheExampleFileHoldsTheDefaults) {
  ServerOptions defaults, loaded;
  // The source tree (CMake defines it for the unit tests; __FILE__ may be
  // relative, as under ccache's base_dir).
  Status s = LoadConfigFile(std::string(FRESHET_SOURCE_DIR) + "/config/freshet.example.toml", &loaded);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(loaded.max_connections, defaults.max_connections);
  EXPECT_EQ(loaded.superuser_reserved_connections, defaults.superuser_reserved_connections);
  EXPECT_EQ(loaded.authentication_timeout_ms, defaults.authentication_timeout_ms);
  EXPECT_EQ(loaded.port, defaults.port);
  EXPECT_EQ(loaded.timeseries.write_buffer_bytes, defaults.timeseries.write_buffer_bytes);
  EXPECT_EQ(loaded.timeseries.table_write_buffer_bytes, defaults.timeseries.table_write_buffer_bytes);
  EXPECT_EQ(loaded.timeseries.default_window_seconds, defaults.timeseries.default_window_seconds);
}

TEST(ConfigTest, TimeSeriesSection) {
  ServerOptions o;
  Status s = Load("[storage.timeseries]\nwrite_buffer_mb = 100\ntable_write_buffer_mb = 10\ndefault_time_window = \"2h\"\n", &o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(o.timeseries.write_buffer_bytes, size_t(100) << 20);
  EXPECT_EQ(o.timeseries.table_write_buffer_bytes, size_t(10) << 20);
  EXPECT_EQ(o.timeseries.default_window_seconds, 7200);
  for (const char* bad : {"[storage.timeseries]\nwrite_buffer_mb = 0\n", "[storage.timeseries]\nflush = 1\n",
                          "[storage.timeseries]\ndefault_time_window = \"500ms\"\n",
                          "[storage.timeseries]\ndefault_time_window = 5\n", "[storage]\ntimeseries = 1\n"}) {
    ServerOptions t;
    Status e = Load(bad, &t);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.message().find("timeseries"), std::string::npos) << e.message();
  }
}

TEST(ConfigTest, ConnectionLimits) {
  ServerOptions o;
  ASSERT_TRUE(Load("[server]\nmax_connections = 10\nsuperuser_reserved_connections = 2\nauthentication_timeout = 1\n", &o).ok());
  EXPECT_EQ(o.max_connections, 10);
  EXPECT_EQ(o.superuser_reserved_connections, 2);
  EXPECT_EQ(o.authentication_timeout_ms, 1000);
  for (auto [text, ms] : {std::pair<const char*, int>{"\"30s\"", 30000}, {"\"2min\"", 120000}, {"\"1500ms\"", 1500}}) {
    ServerOptions t;
    ASSERT_TRUE(Load(std::string("[server]\nauthentication_timeout = ") + text + "\n", &t).ok()) << text;
    EXPECT_EQ(t.authentication_timeout_ms, ms) << text;
  }
  for (const char* bad : {"0", "601", "\"500ms\"", "\"soon\"", "\"10h\""}) {
    ServerOptions t;
    EXPECT_FALSE(Load(std::string("[server]\nauthentication_timeout = ") + bad + "\n", &t).ok()) << bad;
  }
  ServerOptions t;
  Status s = Load("[server]\nmax_connections = 3\nsuperuser_reserved_connections = 3\n", &t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("superuser_reserved_connections (3) must be less than max_connections (3)"), std::string::npos)
      << s.message();
  EXPECT_FALSE(Load("[server]\nmax_connections = 0\n", &t).ok());
}

}  // namespace
}  // namespace freshet
