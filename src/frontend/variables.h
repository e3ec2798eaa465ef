// Session variables: PostgreSQL's settings that clients and drivers read
// and set (DateStyle, TimeZone, search_path, ...) and RisingWave's session
// settings of the stream engine (streaming_parallelism, background_ddl,
// ...). SET checks and normalizes a value before it is kept; SHOW reports
// it; RESET returns to the value the startup packet gave, else the default.
// Some are reported to the client (ParameterStatus) at startup and
// whenever they change.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace freshet {

struct VariableDef {
  const char* name;           // canonical spelling (SHOW ALL, ParameterStatus)
  const char* default_value;
  bool reported;              // sent as ParameterStatus
  bool read_only;             // SET refuses it (55P02)
  const char* unit = "";      // "ms" for durations (pg_settings.unit)
  // How SET checks and spells a value of the settings below without a
  // rule of their own: "bool" (on/off), "int", "real", "memory" (kB
  // without a unit; shown in the largest unit that divides it, as
  // PostgreSQL), "enum:a,b,c"; "" any text.
  const char* kind = "";
  // RisingWave's settings that mean nothing here: SET takes and shows
  // them, with a NOTICE that they have no effect (a RisingWave script never
  // fails on a setting). "boolean" is their kind of bool, shown true/false.
  bool no_effect = false;
};

// Every variable, in SHOW ALL's order.
const std::vector<VariableDef>& VariableDefs();
// The variable of that name, in any case; null when there is none.
const VariableDef* FindVariable(const std::string& name);

class SessionVariables {
 public:
  explicit SessionVariables(const std::string& user);

  // The value of a variable ("" for unknown names). The reference stays
  // valid for the session's life (its value changes with SET).
  const std::string& Get(std::string_view name) const;
  // Changes with every SET, RESET and startup parameter: what is derived
  // from the values can be kept until it moves (a point SELECT reads a
  // dozen settings).
  uint64_t generation() const { return generation_; }
  // SET: 42704 for unknown names, 55P02 for read-only ones, 22023 (or
  // 0A000) for values the variable does not take.
  void Set(const std::string& name, const std::string& value);
  // A startup packet parameter: set, and made the value RESET returns to.
  // Unknown and read-only names are ignored; bad values throw.
  void ApplyStartup(const std::string& name, const std::string& value);
  // What RESET would return to: the startup packet's value, else the default.
  std::string ResetValue(const std::string& name) const;
  // RESET name, SET name TO DEFAULT (42704 for unknown names); RESET ALL.
  void Reset(const std::string& name);
  void ResetAll();
  // Reported variables whose value changed since they were last taken
  // (all of them after ForgetReported: the startup's ParameterStatus).
  std::vector<std::pair<std::string, std::string>> TakeChangedReported();
  void ForgetReported() {
    reported_.clear();
    changed_ = true;
    ++generation_;
  }
  // A time setting's value in milliseconds (statement_timeout...).
  int64_t DurationMs(const std::string& name) const;

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // By lower-case name (any string type finds).
  std::unordered_map<std::string, std::string, NameHash, std::equal_to<>> values_;
  std::map<std::string, std::string> reset_values_;  // startup parameters
  std::map<std::string, std::string> reported_;      // last ParameterStatus values
  bool changed_ = true;  // a value was set since TakeChangedReported
  uint64_t generation_ = 0;
};

// A boolean setting's value as SET accepts it (true/on/1/yes/t, false/...);
// false when it is not one.
bool ParseBoolSetting(const std::string& v, bool* out);
// client_min_messages' levels, lowest first; messages below the session's
// level are not sent (INFO ones always are). nullopt for no such level.
enum class MessageLevel : uint8_t { kDebug5, kDebug4, kDebug3, kDebug2, kDebug1, kLog, kNotice, kWarning, kError };
std::optional<MessageLevel> ParseMessageLevel(std::string_view name);
// A time as PostgreSQL's millisecond settings take it: a number (a
// fraction is rounded) with an optional unit, us, ms (the default), s,
// min, h or d; nullopt when it is not one.
std::optional<int64_t> ParseDurationMs(const std::string& text);
// A number of milliseconds as PostgreSQL shows it: in the largest unit that
// divides it (5000 is 5s), 0 as 0.
std::string FormatDurationMs(int64_t ms);
// A memory size as PostgreSQL writes them (a number of kB, or with kB, MB,
// GB or TB); nullopt when it is not one.
std::optional<int64_t> ParseMemorySetting(const std::string& text);
// What statement_memory_limit and streaming_memory_limit mean by 0: half of
// the machine's memory (past that, one statement or job would starve
// everything else).
int64_t DefaultMemoryLimit();
// A backfill rate limit as SET/ALTER accept it: a count >= 0 or DEFAULT
// (no limit), normalized to "<n>" or "default"; 22023 otherwise.
std::string NormalizeRateLimit(const std::string& value, const std::string& what);

}  // namespace freshet
