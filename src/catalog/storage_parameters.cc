#include "catalog/storage_parameters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>

#include "common/error.h"

namespace freshet {

namespace {

enum class Kind { kInt, kReal, kBool, kEnum };

struct ParameterDef {
  const char* name;
  Kind kind;
  double min = 0, max = 0;
  bool toast = false;  // also settable as toast.<name>
};

// PostgreSQL 15's heap options (access/common/reloptions.c).
const std::vector<ParameterDef>& Definitions() {
  static const std::vector<ParameterDef> defs = {
      {"fillfactor", Kind::kInt, 10, 100},
      {"autovacuum_enabled", Kind::kBool, 0, 0, true},
      {"autovacuum_vacuum_threshold", Kind::kInt, 0, INT_MAX, true},
      {"autovacuum_vacuum_insert_threshold", Kind::kInt, -1, INT_MAX, true},
      {"autovacuum_analyze_threshold", Kind::kInt, 0, INT_MAX},
      {"autovacuum_vacuum_cost_limit", Kind::kInt, 1, 10000, true},
      {"autovacuum_freeze_min_age", Kind::kInt, 0, 1000000000, true},
      {"autovacuum_freeze_max_age", Kind::kInt, 100000, 2000000000, true},
      {"autovacuum_freeze_table_age", Kind::kInt, 0, 2000000000, true},
      {"autovacuum_multixact_freeze_min_age", Kind::kInt, 0, 1000000000, true},
      {"autovacuum_multixact_freeze_max_age", Kind::kInt, 10000, 2000000000, true},
      {"autovacuum_multixact_freeze_table_age", Kind::kInt, 0, 2000000000, true},
      {"log_autovacuum_min_duration", Kind::kInt, -1, INT_MAX, true},
      {"toast_tuple_target", Kind::kInt, 128, 8160},
      {"parallel_workers", Kind::kInt, 0, 1024},
      {"autovacuum_vacuum_cost_delay", Kind::kReal, 0, 100, true},
      {"autovacuum_vacuum_scale_factor", Kind::kReal, 0, 100, true},
      {"autovacuum_vacuum_insert_scale_factor", Kind::kReal, 0, 100, true},
      {"autovacuum_analyze_scale_factor", Kind::kReal, 0, 100},
      {"user_catalog_table", Kind::kBool},
      {"vacuum_index_cleanup", Kind::kEnum, 0, 0, true},
      {"vacuum_truncate", Kind::kBool, 0, 0, true},
  };
  return defs;
}

const ParameterDef* Find(const std::string& name) {
  bool toast = name.starts_with("toast.");
  std::string base = toast ? name.substr(6) : name;
  for (const auto& d : Definitions())
    if (base == d.name && (!toast || d.toast)) return &d;
  return nullptr;
}

// PostgreSQL's parse_bool: true/false, yes/no, on/off, 1/0 and unambiguous
// prefixes, any case.
std::optional<bool> ParseBool(std::string v) {
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  auto prefix_of = [&](const char* word, size_t min) { return v.size() >= min && std::string(word).starts_with(v); };
  if (prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || v == "1") return true;
  if (prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || v == "0") return false;
  return std::nullopt;
}

void Check(const ParameterDef& d, const std::string& name, const std::string& value) {
  auto invalid = [&](const char* what) {
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for {} option \"{}\": {}", what, name, value);
  };
  switch (d.kind) {
    case Kind::kBool:
      if (!ParseBool(value)) invalid("boolean");
      return;
    case Kind::kEnum:
      if (value != "on" && value != "off" && value != "auto")
        throw SqlError(sqlstate::kInvalidParameterValue,
                       fmt::format("invalid value for enum option \"{}\": {}", name, value))
            .WithDetail("Valid values are \"on\", \"off\", and \"auto\".");
      return;
    case Kind::kInt: {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 0);
      if (value.empty() || *end || errno || v < INT_MIN || v > INT_MAX) invalid("integer");
      if (v < d.min || v > d.max)
        throw SqlError(sqlstate::kInvalidParameterValue,
                       fmt::format("value {} out of bounds for option \"{}\"", value, name))
            .WithDetail(fmt::format("Valid values are between \"{}\" and \"{}\".", static_cast<long long>(d.min),
                                    static_cast<long long>(d.max)));
      return;
    }
    case Kind::kReal: {
      errno = 0;
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || errno) invalid("floating point");
      if (v < d.min || v > d.max)
        throw SqlError(sqlstate::kInvalidParameterValue,
                       fmt::format("value {} out of bounds for option \"{}\"", value, name))
            .WithDetail(fmt::format("Valid values are between \"{:f}\" and \"{:f}\".", d.min, d.max));
      return;
    }
  }
}

}  // namespace

std::vector<std::string> CheckStorageParameters(const std::vector<std::pair<std::string, std::string>>& options) {
  std::vector<std::string> out;
  std::vector<std::string> seen;
  for (const auto& [name, value] : options) {
    const ParameterDef* d = Find(name);
    if (!d) FRESHET_THROW(sqlstate::kInvalidParameterValue, "unrecognized parameter \"{}\"", name);
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "parameter \"{}\" specified more than once", name);
    seen.push_back(name);
    Check(*d, name, value);
    out.push_back(name + "=" + value);
  }
  return out;
}

std::vector<std::string> MergeStorageParameters(const std::vector<std::string>& current,
                                                const std::vector<std::pair<std::string, std::string>>& changes,
                                                const std::vector<std::string>& reset) {
  std::vector<std::string> checked = CheckStorageParameters(changes);
  for (const auto& name : reset)
    if (!Find(name)) FRESHET_THROW(sqlstate::kInvalidParameterValue, "unrecognized parameter \"{}\"", name);
  auto name_of = [](const std::string& option) { return option.substr(0, option.find('=')); };
  std::vector<std::string> out;
  for (const auto& option : current) {
    std::string name = name_of(option);
    bool replaced = std::any_of(changes.begin(), changes.end(), [&](const auto& c) { return c.first == name; });
    bool removed = std::find(reset.begin(), reset.end(), name) != reset.end();
    if (!replaced && !removed) out.push_back(option);
  }
  out.insert(out.end(), checked.begin(), checked.end());
  return out;
}

}  // namespace freshet
