// TestDir: a fresh directory under /tmp for one test, removed with all it
// holds when the TestDir goes (tests only).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace freshet {

class TestDir {
 public:
  explicit TestDir(const std::string& name) {
    std::string tmpl = "/tmp/" + name + ".XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl);
    path_ = tmpl;
  }
  ~TestDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace freshet
