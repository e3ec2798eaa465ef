// For unit tests: the SQL of the records of a sqllogictest file
// (tests/slt/*.slt; format: tests/runner/README.md).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace freshet {

struct SltRecordFilter {
  bool queries = true;  // query records too, not only statements
  // Records an engine runs: those guarded by `onlyif <another engine>` or
  // `skipif <engine>` are left out. Empty: every record.
  std::string engine;
};

// The SQL of the file's statement (and query) records, in order.
inline std::vector<std::string> SltRecords(const std::filesystem::path& path, const SltRecordFilter& filter = {}) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line, sql;
  bool in_sql = false, skip = false;
  auto flush = [&] {
    if (in_sql && !skip && !sql.empty()) out.push_back(sql);
    sql.clear();
    in_sql = skip = false;
  };
  while (std::getline(in, line)) {
    if (!in_sql) {
      if (!filter.engine.empty()) {
        if (line.rfind("onlyif ", 0) == 0 && line != "onlyif " + filter.engine) skip = true;
        if (line == "skipif " + filter.engine) skip = true;
      }
      if (line.rfind("statement ", 0) == 0) in_sql = true;
      if (line.rfind("query ", 0) == 0) {
        in_sql = true;
        skip |= !filter.queries;
      }
      continue;
    }
    if (line.empty() || line == "----") {
      flush();
      continue;
    }
    sql += (sql.empty() ? "" : "\n") + line;
  }
  flush();
  return out;
}

}  // namespace freshet
