// slt_runner: a sqllogictest runner for Freshet.
//
// Runs .slt files against any server that speaks the PostgreSQL wire protocol
// (Freshet, or PostgreSQL itself with `--engine postgres`) through libpq. The
// dialect follows sqllogictest-rs as used by RisingWave; tests/runner/README.md
// documents the supported records and flags.
//
// Layout of this file:
//   1. helpers (strings, durations)
//   2. Record model and parser
//   3. database access (libpq) and shell commands
//   4. comparison and diff rendering
//   5. FileRunner: runs the records of one file
//   6. command line and main()

#include <libpq-fe.h>

#include <fmt/core.h>
#include <fmt/format.h>

#include <glob.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

bool g_verbose = false;  // also read by the libpq notice processor

// ============================================================================
// 1. Helpers
// ============================================================================

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view ltrim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) { return ltrim(rtrim(s)); }

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) nl = s.size();
    out.emplace_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// The text after the first `n` whitespace-separated words of `s`, trimmed.
std::string rest_after_words(std::string_view s, int n) {
  s = ltrim(s);
  for (int w = 0; w < n; ++w) {
    while (!s.empty() && !std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    s = ltrim(s);
  }
  return std::string(rtrim(s));
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

std::string indent(std::string_view text, std::string_view prefix) {
  std::string out;
  for (const auto& line : split_lines(rtrim(text))) out += fmt::format("{}{}\n", prefix, line);
  return out;
}

// "500ms", "2s", "1.5s", "1m" (a bare number means seconds).
std::optional<std::chrono::milliseconds> parse_duration(std::string_view s) {
  size_t unit_pos = 0;
  while (unit_pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[unit_pos])) || s[unit_pos] == '.'))
    ++unit_pos;
  if (unit_pos == 0) return std::nullopt;
  double value = 0;
  try {
    value = std::stod(std::string(s.substr(0, unit_pos)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string_view unit = s.substr(unit_pos);
  double ms_per_unit = 0;
  if (unit == "ms") ms_per_unit = 1;
  else if (unit == "s" || unit.empty()) ms_per_unit = 1000;
  else if (unit == "m" || unit == "min") ms_per_unit = 60000;
  else return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(value * ms_per_unit));
}

std::optional<uint64_t> parse_uint(std::string_view s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return std::stoull(std::string(s));
}

// ============================================================================
// 2. Record model and parser
// ============================================================================

enum class SortMode { Default, NoSort, RowSort, ValueSort };

std::optional<SortMode> parse_sort_mode(std::string_view s) {
  if (s == "nosort") return SortMode::NoSort;
  if (s == "rowsort") return SortMode::RowSort;
  if (s == "valuesort") return SortMode::ValueSort;
  return std::nullopt;
}

struct Location {
  std::string file;
  int line = 0;
  std::string included_from;  // "file:line" of the include record, if any

  // "file:line", or just "file" for problems with the file as a whole.
  std::string str() const { return line > 0 ? fmt::format("{}:{}", file, line) : file; }
};

struct Condition {
  bool only_if = false;  // onlyif (true) or skipif (false)
  std::string engine;
};

enum class Kind { Statement, Query, System, SetSortMode, Halt, Sleep };

struct ExpectedError {
  bool expected = false;  // the record must fail
  std::string pattern;    // inline: regex searched in the error text, or a SQLSTATE
  std::string message;    // `----` block: must be a substring of the error text
};

struct Record {
  Kind kind = Kind::Statement;
  Location loc;
  std::vector<Condition> conditions;
  std::string connection;  // empty: the default connection
  std::string text;        // SQL, or the shell command of a `system` record

  ExpectedError error;                 // statement error / query error
  std::optional<uint64_t> count;       // statement count N
  std::string types;                   // query typestring, e.g. "ITR"
  SortMode sort_mode = SortMode::Default;  // query sort mode, or the `control sortmode` value
  bool has_output = false;             // a `----` block with expected output was given
  std::vector<std::string> expected;   // query rows / system stdout lines
  std::chrono::milliseconds duration{0};  // sleep duration / retry backoff
  int retries = 0;                     // `retry N backoff D`
};

struct ParseError : std::runtime_error {
  ParseError(Location l, const std::string& msg) : std::runtime_error(msg), loc(std::move(l)) {}
  Location loc;
};

class Parser {
 public:
  static std::vector<Record> parse_file(const std::string& path, const std::string& included_from = "",
                                        int depth = 0) {
    std::ifstream in(path);
    if (!in) throw ParseError({path, 0, included_from}, "cannot open file");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(std::move(line));
    }
    return Parser(path, std::move(lines), included_from, depth).parse();
  }

 private:
  Parser(std::string path, std::vector<std::string> lines, std::string included_from, int depth)
      : path_(std::move(path)), lines_(std::move(lines)), included_from_(std::move(included_from)), depth_(depth) {}

  [[noreturn]] void fail(const Location& loc, const std::string& msg) const { throw ParseError(loc, msg); }

  // Collects lines up to a blank line or EOF. With `stop_at_delimiter`, also
  // stops at a `----` line and returns true.
  bool read_block(std::vector<std::string>& out, bool stop_at_delimiter) {
    while (pos_ < lines_.size()) {
      std::string_view line = rtrim(lines_[pos_++]);
      if (line.empty()) return false;
      if (stop_at_delimiter && line == "----") return true;
      out.emplace_back(line);
    }
    return false;
  }

  static std::string join(const std::vector<std::string>& lines, std::string_view sep) {
    return fmt::format("{}", fmt::join(lines, sep));
  }

  // Removes a trailing `retry N backoff D` from the header tokens.
  void take_retry(Record& r, std::vector<std::string>& tok) {
    auto it = std::find(tok.begin(), tok.end(), "retry");
    if (it == tok.end()) return;
    size_t i = it - tok.begin();
    std::optional<uint64_t> n;
    std::optional<std::chrono::milliseconds> backoff;
    if (i + 4 == tok.size() && tok[i + 2] == "backoff") {
      n = parse_uint(tok[i + 1]);
      backoff = parse_duration(tok[i + 3]);
    }
    if (!n || !backoff) fail(r.loc, "expected `retry <N> backoff <duration>` at the end of the line");
    r.retries = static_cast<int>(*n);
    r.duration = *backoff;
    tok.resize(i);
  }

  void check_regex(const Record& r) const {
    try {
      std::regex re(r.error.pattern);
    } catch (const std::regex_error& e) {
      fail(r.loc, fmt::format("invalid error regex '{}': {}", r.error.pattern, e.what()));
    }
  }

  // Reads the SQL of a statement/query; an expected-error `----` block follows
  // for the error forms.
  void read_sql(Record& r, bool results_allowed) {
    std::vector<std::string> sql;
    bool delimiter = read_block(sql, true);
    if (sql.empty()) fail(r.loc, "missing SQL");
    r.text = join(sql, "\n");
    if (!delimiter) return;
    if (r.error.expected) {
      if (!r.error.pattern.empty()) fail(r.loc, "expected error given both inline and as a `----` block");
      std::vector<std::string> block;
      read_block(block, false);
      r.error.message = std::string(trim(join(block, "\n")));
    } else if (results_allowed) {
      r.has_output = true;
      read_block(r.expected, false);
    } else {
      fail(r.loc, "`statement ok/count` takes no `----` block (use `query`)");
    }
  }

  void parse_statement(Record& r, std::string_view header, std::vector<std::string> tok) {
    r.kind = Kind::Statement;
    if (tok.size() >= 2 && tok[1] == "error") {
      r.error.expected = true;
      r.error.pattern = rest_after_words(header, 2);
      check_regex(r);
    } else {
      take_retry(r, tok);
      if (tok.size() == 2 && tok[1] == "ok") {
      } else if (tok.size() == 3 && tok[1] == "count" && parse_uint(tok[2])) {
        r.count = parse_uint(tok[2]);
      } else {
        fail(r.loc, "expected `statement ok`, `statement count <N>` or `statement error [pattern]`");
      }
    }
    read_sql(r, false);
  }

  void parse_query(Record& r, std::string_view header, std::vector<std::string> tok) {
    r.kind = Kind::Query;
    if (tok.size() >= 2 && tok[1] == "error") {
      r.error.expected = true;
      r.error.pattern = rest_after_words(header, 2);
      check_regex(r);
    } else {
      take_retry(r, tok);
      if (tok.size() > 4) fail(r.loc, "expected `query <types> [sortmode] [label]`");
      if (tok.size() >= 2) {
        r.types = tok[1];
        for (char c : r.types)
          if (!std::isupper(static_cast<unsigned char>(c)) && c != '?')
            fail(r.loc, fmt::format("invalid type character '{}' in '{}'", c, r.types));
      }
      if (tok.size() >= 3) {
        auto mode = parse_sort_mode(tok[2]);
        if (!mode) fail(r.loc, fmt::format("invalid sort mode '{}'", tok[2]));
        r.sort_mode = *mode;
      }
      // tok[3], if present, is a label; labels are accepted and ignored.
    }
    read_sql(r, true);
  }

  void parse_system(Record& r, const std::vector<std::string>& tok) {
    r.kind = Kind::System;
    if (tok.size() != 2 || tok[1] != "ok") fail(r.loc, "expected `system ok`");
    std::vector<std::string> command;
    r.has_output = read_block(command, true);
    if (command.empty()) fail(r.loc, "missing command");
    r.text = join(command, "\n");
    if (r.has_output) read_block(r.expected, false);
  }

  std::vector<std::string> expand_include(const Location& loc, const std::string& name) const {
    std::string pattern = fs::path(name).is_absolute() ? name : (fs::path(path_).parent_path() / name).string();
    glob_t g{};
    std::vector<std::string> files;
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    if (files.empty()) fail(loc, fmt::format("include: no file matches '{}'", pattern));
    return files;
  }

  std::vector<Record> parse() {
    std::vector<Record> out;
    std::vector<Condition> conditions;  // pending, for the next record
    std::string connection;             // pending, for the next record
    while (pos_ < lines_.size()) {
      Location loc{path_, static_cast<int>(pos_) + 1, included_from_};
      std::string_view line = trim(lines_[pos_++]);
      if (line.empty() || line.front() == '#') continue;
      std::vector<std::string> tok = split_ws(line);
      const std::string& word = tok[0];

      // Modifiers and directives without a record of their own.
      if (word == "skipif" || word == "onlyif") {
        if (tok.size() != 2) fail(loc, fmt::format("expected `{} <engine>`", word));
        conditions.push_back({word == "onlyif", tok[1]});
        continue;
      }
      if (word == "connection") {
        if (tok.size() != 2) fail(loc, "expected `connection <name>`");
        connection = tok[1] == "default" ? "" : tok[1];
        continue;
      }
      if (word == "hash-threshold" || word == "subtest" || word == "require") continue;
      if (word == "include") {
        if (tok.size() != 2) fail(loc, "expected `include <file>`");
        if (depth_ >= 16) fail(loc, "include nested too deeply");
        for (const auto& file : expand_include(loc, tok[1])) {
          auto included = parse_file(file, loc.str(), depth_ + 1);
          std::move(included.begin(), included.end(), std::back_inserter(out));
        }
        continue;
      }

      Record r;
      r.loc = loc;
      if (word == "statement") {
        parse_statement(r, line, tok);
      } else if (word == "query") {
        parse_query(r, line, tok);
      } else if (word == "system") {
        parse_system(r, tok);
      } else if (word == "control") {
        if (tok.size() == 3 && tok[1] == "substitution") continue;  // $__DATABASE__ is always substituted
        auto mode = tok.size() == 3 && tok[1] == "sortmode" ? parse_sort_mode(tok[2]) : std::nullopt;
        if (!mode) fail(loc, "expected `control sortmode nosort|rowsort|valuesort`");
        r.kind = Kind::SetSortMode;
        r.sort_mode = *mode;
      } else if (word == "halt") {
        r.kind = Kind::Halt;
      } else if (word == "sleep") {
        auto d = tok.size() == 2 ? parse_duration(tok[1]) : std::nullopt;
        if (!d) fail(loc, "expected `sleep <duration>`, e.g. `sleep 500ms`");
        r.kind = Kind::Sleep;
        r.duration = *d;
      } else {
        fail(loc, fmt::format("unknown record type '{}'", word));
      }
      r.conditions = std::exchange(conditions, {});
      r.connection = std::exchange(connection, {});
      out.push_back(std::move(r));
    }
    return out;
  }

  std::string path_;
  std::vector<std::string> lines_;
  std::string included_from_;
  int depth_ = 0;
  size_t pos_ = 0;
};

// ============================================================================
// 3. Database access and shell commands
// ============================================================================

struct Options {
  std::string host = "127.0.0.1";
  std::string port = "4566";
  std::string user = "root";
  std::string database = "dev";
  std::string engine = "freshet";
  bool isolate = true;
  bool verbose = false;
  bool fail_fast = false;
  bool list_failures = false;
  bool check_types = false;
  std::vector<std::string> files;
};

struct PgConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgConn = std::unique_ptr<PGconn, PgConnDeleter>;

void notice_processor(void*, const char* message) {
  if (g_verbose) fmt::print("    notice: {}", message);
}

// Connects to `database`; on failure returns nullptr and sets `error`.
PgConn connect_to(const Options& opt, const std::string& database, std::string& error) {
  const char* keys[] = {"host", "port", "user", "dbname", "application_name", "connect_timeout", nullptr};
  const char* values[] = {opt.host.c_str(), opt.port.c_str(), opt.user.c_str(), database.c_str(),
                          "slt_runner", "10", nullptr};
  PgConn conn(PQconnectdbParams(keys, values, 0));
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    error = conn ? std::string(rtrim(PQerrorMessage(conn.get()))) : "out of memory";
    return nullptr;
  }
  PQsetNoticeProcessor(conn.get(), notice_processor, nullptr);
  return conn;
}

struct SqlResult {
  bool ok = true;
  bool connection_lost = false;
  std::string error;     // full error text (severity, message, DETAIL, HINT...)
  std::string sqlstate;  // empty for client-side errors
  bool has_rows = false;  // the last result was a row set
  std::vector<Oid> column_types;
  std::vector<std::vector<std::string>> rows;  // rendered: NULL, (empty), or the text value
  uint64_t affected = 0;                       // from PQcmdTuples of the last result
};

std::string render_value(const PGresult* res, int row, int col) {
  if (PQgetisnull(res, row, col)) return "NULL";
  std::string v(PQgetvalue(res, row, col), PQgetlength(res, row, col));
  return v.empty() ? "(empty)" : v;
}

// Runs `sql` (possibly several statements) and keeps the first error, or else
// the outcome of the last statement.
SqlResult run_sql(PGconn* conn, const std::string& sql) {
  SqlResult out;
  if (!PQsendQuery(conn, sql.c_str())) {
    out.ok = false;
    out.error = std::string(rtrim(PQerrorMessage(conn)));
    out.connection_lost = PQstatus(conn) == CONNECTION_BAD;
    return out;
  }
  while (PGresult* res = PQgetResult(conn)) {
    switch (PQresultStatus(res)) {
      case PGRES_TUPLES_OK:
      case PGRES_SINGLE_TUPLE:
        if (out.ok) {
          out.has_rows = true;
          out.column_types.clear();
          out.rows.clear();
          for (int c = 0; c < PQnfields(res); ++c) out.column_types.push_back(PQftype(res, c));
          for (int r = 0; r < PQntuples(res); ++r) {
            auto& row = out.rows.emplace_back();
            for (int c = 0; c < PQnfields(res); ++c) row.push_back(render_value(res, r, c));
          }
          out.affected = PQntuples(res);
        }
        break;
      case PGRES_COMMAND_OK:
        if (out.ok) {
          out.has_rows = false;
          out.column_types.clear();
          out.rows.clear();
          out.affected = parse_uint(PQcmdTuples(res)).value_or(0);
        }
        break;
      case PGRES_EMPTY_QUERY:
        break;
      case PGRES_COPY_IN:
        PQputCopyEnd(conn, "COPY FROM STDIN is not supported by slt_runner");
        break;
      case PGRES_COPY_OUT: {
        char* buf = nullptr;
        while (PQgetCopyData(conn, &buf, 0) > 0) PQfreemem(buf);
        break;
      }
      default:  // PGRES_FATAL_ERROR, PGRES_BAD_RESPONSE, ...
        if (out.ok) {
          out.ok = false;
          out.error = std::string(rtrim(PQresultErrorMessage(res)));
          const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
          out.sqlstate = state ? state : "";
        }
        break;
    }
    PQclear(res);
  }
  if (PQstatus(conn) == CONNECTION_BAD) {
    out.connection_lost = true;
    if (out.ok) {
      out.ok = false;
      out.error = std::string(rtrim(PQerrorMessage(conn)));
    }
  }
  if (!out.ok && out.error.empty()) out.error = std::string(rtrim(PQerrorMessage(conn)));
  return out;
}

struct CommandResult {
  int status = 0;  // exit code, or 128+signal
  std::string out;
  std::string err;
};

// Runs `command` with /bin/sh, capturing stdout and stderr.
CommandResult run_command(const std::string& command) {
  CommandResult result;
  char err_path[] = "/tmp/slt_runner_stderr_XXXXXX";
  int err_fd = mkstemp(err_path);
  if (err_fd < 0) {
    result.status = 127;
    result.err = "cannot create temporary file for stderr";
    return result;
  }
  close(err_fd);
  std::fflush(stdout);
  std::string script = fmt::format("exec 2>'{}' </dev/null\n{}", err_path, command);
  FILE* pipe = popen(script.c_str(), "r");
  if (!pipe) {
    result.status = 127;
    result.err = "popen failed";
  } else {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) result.out.append(buf, n);
    int status = pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
  }
  std::ifstream err_in(err_path);
  result.err.assign(std::istreambuf_iterator<char>(err_in), std::istreambuf_iterator<char>());
  std::remove(err_path);
  return result;
}

// ============================================================================
// 4. Comparison and diff rendering
// ============================================================================

// One line per row: the values joined by a single space, trailing whitespace
// trimmed; a value with line breaks (pg_get_viewdef's text) continues on the
// next lines, as the expected lines of a record can only hold it.
std::vector<std::string> row_lines(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::string> lines;
  for (const auto& row : rows)
    for (const auto& line : split_lines(fmt::format("{}", fmt::join(row, " ")))) lines.emplace_back(rtrim(line));
  return lines;
}

std::vector<std::string> rtrimmed(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.emplace_back(rtrim(l));
  return out;
}

// rowsort sorts both sides' lines; valuesort compares the sorted multisets of
// whitespace-separated values, one value per line.
void apply_sort_mode(SortMode mode, std::vector<std::string>& expected, std::vector<std::string>& actual) {
  auto to_values = [](const std::vector<std::string>& lines) {
    std::vector<std::string> values;
    for (const auto& l : lines)
      for (auto& v : split_ws(l)) values.push_back(std::move(v));
    return values;
  };
  if (mode == SortMode::ValueSort) {
    expected = to_values(expected);
    actual = to_values(actual);
  }
  if (mode == SortMode::RowSort || mode == SortMode::ValueSort) {
    std::sort(expected.begin(), expected.end());
    std::sort(actual.begin(), actual.end());
  }
}

// A line diff (LCS based): ' ' common, '-' only expected, '+' only actual.
// Long runs of common lines are elided. Starts with a heading line.
std::string render_diff(const std::vector<std::string>& expected, const std::vector<std::string>& actual) {
  const size_t n = expected.size(), m = actual.size();
  std::vector<std::pair<char, std::string>> ops;
  if (n * m > 4'000'000) {  // too large for the LCS table: list both sides
    for (const auto& l : expected) ops.emplace_back('-', l);
    for (const auto& l : actual) ops.emplace_back('+', l);
  } else {
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && expected[i] == actual[j]) {
        ops.emplace_back(' ', expected[i++]);
        ++j;
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.emplace_back('-', expected[i++]);
      } else {
        ops.emplace_back('+', actual[j++]);
      }
    }
  }
  constexpr size_t kContext = 3;
  std::string out = "expected (-) vs actual (+):\n";
  for (size_t k = 0; k < ops.size();) {
    if (ops[k].first != ' ') {
      out += fmt::format("  {}{}\n", ops[k].first, ops[k].second);
      ++k;
      continue;
    }
    size_t end = k;
    while (end < ops.size() && ops[end].first == ' ') ++end;
    size_t keep_head = k == 0 ? 0 : kContext, keep_tail = end == ops.size() ? 0 : kContext;
    if (end - k > keep_head + keep_tail + 1) {
      for (size_t x = k; x < k + keep_head; ++x) out += fmt::format("   {}\n", ops[x].second);
      out += fmt::format("  @@ {} matching lines @@\n", end - k - keep_head - keep_tail);
      for (size_t x = end - keep_tail; x < end; ++x) out += fmt::format("   {}\n", ops[x].second);
    } else {
      for (size_t x = k; x < end; ++x) out += fmt::format("   {}\n", ops[x].second);
    }
    k = end;
  }
  if (ops.empty()) out += "  (no rows on either side)\n";
  return out;
}

bool is_sqlstate(std::string_view s) {
  return s.size() == 5 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c));
         });
}

bool error_matches(const ExpectedError& want, const SqlResult& got) {
  if (!want.message.empty()) return got.error.find(want.message) != std::string::npos;
  if (want.pattern.empty()) return true;
  if (is_sqlstate(want.pattern) && want.pattern == got.sqlstate) return true;
  return std::regex_search(got.error, std::regex(want.pattern));
}

std::string describe_expected_error(const ExpectedError& want) {
  if (!want.message.empty()) return fmt::format("an error containing:\n{}", indent(want.message, "    "));
  if (want.pattern.empty()) return "an error\n";
  return fmt::format("an error matching /{}/{}\n", want.pattern,
                     is_sqlstate(want.pattern) ? " (or SQLSTATE " + want.pattern + ")" : "");
}

std::string describe_actual_error(const SqlResult& got) {
  return fmt::format("{}{}", indent(got.error, "    "),
                     got.sqlstate.empty() ? "" : fmt::format("    [SQLSTATE {}]\n", got.sqlstate));
}

// Checks a typestring against the result's column count and type OIDs
// (I: int2/int4/int8/oid, R: float4/float8/numeric, B: bool; T and ? accept anything).
std::optional<std::string> check_column_types(const std::string& types, const std::vector<Oid>& oids) {
  if (types.size() != oids.size())
    return fmt::format("typestring '{}' has {} columns, the result has {}", types, types.size(), oids.size());
  for (size_t i = 0; i < oids.size(); ++i) {
    Oid o = oids[i];
    bool ok = true;
    switch (types[i]) {
      case 'I': ok = o == 20 || o == 21 || o == 23 || o == 26; break;
      case 'R': ok = o == 700 || o == 701 || o == 1700; break;
      case 'B': ok = o == 16; break;
      default: break;
    }
    if (!ok) return fmt::format("column {} has type oid {}, typestring says '{}'", i + 1, o, types[i]);
  }
  return std::nullopt;
}

// ============================================================================
// 5. FileRunner
// ============================================================================

struct Stats {
  int passed = 0;
  int failed = 0;
  int skipped = 0;
  std::vector<std::string> failures;  // "file:line" of each failed record
};

struct Outcome {
  enum Status { Pass, Fail, ConnectionLost } status = Pass;
  std::string headline;  // one line
  std::string details;   // preformatted, indented lines

  static Outcome pass() { return {}; }
  static Outcome fail(std::string headline, std::string details = "") {
    return {Fail, std::move(headline), std::move(details)};
  }
};

// Database name for an isolated file: "slt_" + the sanitised file stem.
std::string isolated_db_name(const std::string& path) {
  std::string name = "slt_";
  for (char c : fs::path(path).stem().string())
    name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '_';
  return name.substr(0, 63);
}

class FileRunner {
 public:
  FileRunner(const Options& opt, std::string path, Stats& stats)
      : opt_(opt), path_(std::move(path)), stats_(stats) {}

  void run() {
    auto start = std::chrono::steady_clock::now();
    int failed_before = stats_.failed, passed_before = stats_.passed;

    auto print_status = [&] {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      int failed = stats_.failed - failed_before, passed = stats_.passed - passed_before;
      fmt::print("{} {}: {} passed, {} failed ({:.2f}s)\n", failed ? "FAILED" : "ok    ", path_, passed, failed,
                 secs);
      std::fflush(stdout);
    };

    std::vector<Record> records;
    try {
      records = Parser::parse_file(path_);
    } catch (const ParseError& e) {
      record_failure(e.loc, fmt::format("parse error: {}", e.what()), "");
      return print_status();
    }
    if (!setup_database()) return print_status();
    set_system_env();

    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      if (should_skip(r)) {
        if (r.kind == Kind::Statement || r.kind == Kind::Query || r.kind == Kind::System) ++stats_.skipped;
        continue;
      }
      if (r.kind == Kind::Halt) break;
      Outcome outcome = execute_with_retries(r);
      if (r.kind != Kind::Statement && r.kind != Kind::Query && r.kind != Kind::System) continue;
      if (outcome.status == Outcome::Pass) {
        ++stats_.passed;
        continue;
      }
      report(r, outcome);
      if (outcome.status == Outcome::ConnectionLost) {
        fmt::print("  connection to the server was lost (did it crash?); skipping the remaining {} record(s) of {}\n",
                   records.size() - i - 1, path_);
        break;
      }
      if (opt_.fail_fast) break;
    }

    connections_.clear();
    teardown_database();
    print_status();
  }

 private:
  // ---- isolation ----

  bool setup_database() {
    if (!opt_.isolate) {
      database_ = opt_.database;
      return true;
    }
    database_ = isolated_db_name(path_);
    std::string error;
    PgConn admin = connect_to(opt_, opt_.database, error);
    if (!admin) {
      record_failure({path_, 0, ""}, fmt::format("cannot connect to database '{}'", opt_.database),
                     indent(error, "    "));
      return false;
    }
    for (const auto& sql : {fmt::format("DROP DATABASE IF EXISTS {}", database_),
                            fmt::format("CREATE DATABASE {}", database_)}) {
      SqlResult res = run_sql(admin.get(), sql);
      if (!res.ok) {
        record_failure({path_, 0, ""}, fmt::format("cannot set up isolated database: {}", sql),
                       describe_actual_error(res));
        return false;
      }
    }
    if (opt_.verbose) fmt::print("  created database {}\n", database_);
    return true;
  }

  void teardown_database() {
    if (!opt_.isolate) return;
    std::string error, last_error;
    PgConn admin = connect_to(opt_, opt_.database, error);
    if (!admin) {
      fmt::print("  warning: cannot drop database {}: {}\n", database_, split_lines(error).front());
      return;
    }
    // The server may still be closing this file's sessions; retry for a while.
    for (int attempt = 0; attempt < 50; ++attempt) {
      SqlResult res = run_sql(admin.get(), fmt::format("DROP DATABASE IF EXISTS {}", database_));
      if (res.ok) return;
      last_error = res.error;
      if (res.connection_lost) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    fmt::print("  warning: cannot drop database {}: {}\n", database_, split_lines(last_error).front());
  }

  // Environment of `system` commands: FRESHET_* and the libpq PG* variables,
  // so a bare `psql` connects to the database under test.
  void set_system_env() const {
    auto set = [](const char* name, const std::string& value) { setenv(name, value.c_str(), 1); };
    set("FRESHET_HOST", opt_.host);
    set("FRESHET_PORT", opt_.port);
    set("FRESHET_USER", opt_.user);
    set("FRESHET_DB", database_);
    set("PGHOST", opt_.host);
    set("PGPORT", opt_.port);
    set("PGUSER", opt_.user);
    set("PGDATABASE", database_);
  }

  // ---- execution ----

  bool should_skip(const Record& r) const {
    return std::any_of(r.conditions.begin(), r.conditions.end(),
                       [&](const Condition& c) { return c.only_if != (c.engine == opt_.engine); });
  }

  std::string substitute(std::string text) const {
    replace_all(text, "$__DATABASE__", database_);
    return text;
  }

  PGconn* connection_for(const Record& r, std::string& error) {
    auto& slot = connections_[r.connection];
    if (!slot) slot = connect_to(opt_, database_, error);
    return slot.get();
  }

  Outcome execute_with_retries(const Record& r) {
    Outcome outcome = execute(r);
    for (int attempt = 0; attempt < r.retries && outcome.status == Outcome::Fail; ++attempt) {
      if (opt_.verbose) fmt::print("  {}: retrying after {}ms\n", r.loc.str(), r.duration.count());
      std::this_thread::sleep_for(r.duration);
      outcome = execute(r);
    }
    return outcome;
  }

  Outcome execute(const Record& r) {
    if (opt_.verbose && (r.kind == Kind::Statement || r.kind == Kind::Query || r.kind == Kind::System))
      fmt::print("  {}: {}\n", r.loc.str(), split_lines(r.text).front());
    switch (r.kind) {
      case Kind::Statement:
      case Kind::Query: {
        std::string error;
        PGconn* conn = connection_for(r, error);
        if (!conn) {
          connections_.erase(r.connection);
          return {Outcome::ConnectionLost,
                  fmt::format("cannot open connection '{}'", r.connection.empty() ? "default" : r.connection),
                  indent(error, "    ")};
        }
        SqlResult res = run_sql(conn, substitute(r.text));
        if (res.connection_lost)
          return {Outcome::ConnectionLost, "connection lost while running this record",
                  "  error:\n" + describe_actual_error(res)};
        return r.kind == Kind::Statement ? check_statement(r, res) : check_query(r, res);
      }
      case Kind::System:
        return run_system(r);
      case Kind::SetSortMode:
        default_sort_mode_ = r.sort_mode;
        return Outcome::pass();
      case Kind::Sleep:
        std::this_thread::sleep_for(r.duration);
        return Outcome::pass();
      case Kind::Halt:
        return Outcome::pass();
    }
    return Outcome::pass();
  }

  static std::optional<Outcome> check_expected_error(const Record& r, const SqlResult& res) {
    if (!r.error.expected) return std::nullopt;
    if (res.ok) return Outcome::fail("succeeded, but an error was expected", "  expected " + describe_expected_error(r.error));
    if (!error_matches(r.error, res))
      return Outcome::fail("error does not match",
                           fmt::format("  expected {}  actual error:\n{}", describe_expected_error(r.error),
                                       describe_actual_error(res)));
    return Outcome::pass();
  }

  Outcome check_statement(const Record& r, const SqlResult& res) const {
    if (auto o = check_expected_error(r, res)) return *o;
    if (!res.ok) return Outcome::fail("statement failed", "  error:\n" + describe_actual_error(res));
    if (r.count && *r.count != res.affected)
      return Outcome::fail(fmt::format("expected {} affected rows, got {}", *r.count, res.affected));
    return Outcome::pass();
  }

  Outcome check_query(const Record& r, const SqlResult& res) const {
    if (auto o = check_expected_error(r, res)) return *o;
    if (!res.ok) return Outcome::fail("query failed", "  error:\n" + describe_actual_error(res));
    if (opt_.check_types && res.has_rows)
      if (auto problem = check_column_types(r.types, res.column_types)) return Outcome::fail(*problem);

    SortMode mode = r.sort_mode != SortMode::Default ? r.sort_mode : default_sort_mode_;
    std::vector<std::string> expected = rtrimmed(r.expected);
    std::vector<std::string> actual = row_lines(res.rows);
    apply_sort_mode(mode, expected, actual);
    if (expected == actual) return Outcome::pass();
    const char* note = mode == SortMode::RowSort ? " (both sides sorted: rowsort)"
                       : mode == SortMode::ValueSort ? " (sorted values: valuesort)" : "";
    return Outcome::fail(fmt::format("query result mismatch{}", note), indent(render_diff(expected, actual), "  "));
  }

  Outcome run_system(const Record& r) const {
    CommandResult res = run_command(substitute(r.text));
    auto captured = [&] {
      std::string s;
      if (!rtrim(res.out).empty()) s += "  stdout:\n" + indent(res.out, "    ");
      if (!rtrim(res.err).empty()) s += "  stderr:\n" + indent(res.err, "    ");
      return s;
    };
    if (res.status != 0) return Outcome::fail(fmt::format("command exited with status {}", res.status), captured());
    if (!r.has_output) return Outcome::pass();

    std::vector<std::string> expected = rtrimmed(r.expected);
    std::vector<std::string> actual = rtrimmed(split_lines(res.out));
    while (!actual.empty() && actual.back().empty()) actual.pop_back();
    if (expected == actual) return Outcome::pass();
    std::string details = indent(render_diff(expected, actual), "  ");
    if (!rtrim(res.err).empty()) details += "  stderr:\n" + indent(res.err, "    ");
    return Outcome::fail("command output mismatch", details);
  }

  // ---- reporting ----

  void record_failure(const Location& loc, const std::string& headline, const std::string& details) {
    ++stats_.failed;
    stats_.failures.push_back(loc.str());
    fmt::print("\nFAIL {}: {}\n", loc.str(), headline);
    if (!loc.included_from.empty()) fmt::print("  (included from {})\n", loc.included_from);
    fmt::print("{}", details);
    if (!details.empty() && details.back() != '\n') fmt::print("\n");
  }

  void report(const Record& r, const Outcome& o) {
    std::string details;
    if (!r.connection.empty()) details += fmt::format("  connection: {}\n", r.connection);
    details += fmt::format("  {}:\n{}", r.kind == Kind::System ? "command" : "SQL", indent(substitute(r.text), "    "));
    details += o.details;
    record_failure(r.loc, o.headline, details);
  }

  const Options& opt_;
  std::string path_;
  Stats& stats_;
  std::string database_;
  SortMode default_sort_mode_ = SortMode::NoSort;
  std::map<std::string, PgConn> connections_;  // "" is the default connection
};

// ============================================================================
// 6. Command line and main()
// ============================================================================

void print_usage() {
  fmt::print(
      "usage: slt_runner [options] file.slt...\n"
      "  --host H          server host (default 127.0.0.1)\n"
      "  --port P          server port (default 4566)\n"
      "  --user U          user name (default root)\n"
      "  --database D      database to connect to (default dev)\n"
      "  --engine NAME     engine name for skipif/onlyif (default freshet)\n"
      "  --no-isolate      run files directly in --database instead of a fresh slt_<file> database\n"
      "  --check-types     check query typestrings against the result columns\n"
      "  --fail-fast       stop at the first failing record\n"
      "  --list-failures   list the failing file:line locations at the end\n"
      "  --verbose         print every record as it runs, and server notices\n");
}

std::optional<Options> parse_args(int argc, char** argv) {
  Options opt;
  std::map<std::string, std::string*> valued = {{"--host", &opt.host},         {"--port", &opt.port},
                                                {"--user", &opt.user},         {"--database", &opt.database},
                                                {"--engine", &opt.engine}};
  std::map<std::string, bool*> flags = {{"--verbose", &opt.verbose},     {"--fail-fast", &opt.fail_fast},
                                        {"--list-failures", &opt.list_failures},
                                        {"--check-types", &opt.check_types}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    if (arg == "-h" || arg == "--help") {
      print_usage();
      std::exit(0);
    } else if (arg == "--no-isolate") {
      opt.isolate = false;
    } else if (auto f = flags.find(arg); f != flags.end()) {
      *f->second = true;
    } else if (auto v = valued.find(arg); v != valued.end()) {
      if (!inline_value && i + 1 >= argc) {
        fmt::print(stderr, "slt_runner: {} needs a value\n", arg);
        return std::nullopt;
      }
      *v->second = inline_value ? *inline_value : argv[++i];
    } else if (arg.starts_with("-")) {
      fmt::print(stderr, "slt_runner: unknown option {}\n", arg);
      return std::nullopt;
    } else {
      opt.files.push_back(arg);
    }
  }
  if (opt.files.empty()) {
    fmt::print(stderr, "slt_runner: no .slt files given\n");
    return std::nullopt;
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  std::optional<Options> opt = parse_args(argc, argv);
  if (!opt) {
    print_usage();
    return 2;
  }
  g_verbose = opt->verbose;

  Stats stats;
  for (const auto& file : opt->files) {
    FileRunner(*opt, file, stats).run();
    if (opt->fail_fast && stats.failed > 0) break;
  }

  fmt::print("\n");
  if (opt->list_failures && !stats.failures.empty()) {
    fmt::print("Failures:\n");
    for (const auto& f : stats.failures) fmt::print("  {}\n", f);
  }
  if (stats.skipped > 0) fmt::print("({} records skipped by skipif/onlyif)\n", stats.skipped);
  fmt::print("{} passed, {} failed\n", stats.passed, stats.failed);
  return stats.failed > 0 ? 1 : 0;
}
