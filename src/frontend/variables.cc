#include "frontend/variables.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <map>

#include <unistd.h>

#include "common/datetime.h"
#include "common/error.h"
#include "common/identifier.h"

namespace freshet {

const std::vector<VariableDef>& VariableDefs() {
  static const std::vector<VariableDef> kDefs = {
      {"application_name", "", true, false},
      {"client_encoding", "UTF8", true, false},
      {"DateStyle", "ISO, MDY", true, false},
      {"IntervalStyle", "postgres", true, false},
      {"TimeZone", "UTC", true, false},
      {"integer_datetimes", "on", true, true},
      {"server_version", "13.14.0", true, true},
      {"server_version_num", "130014", false, true},
      {"server_encoding", "UTF8", true, true},
      {"standard_conforming_strings", "on", true, false},
      {"is_superuser", "on", true, true},
      {"session_authorization", "root", true, true},
      {"extra_float_digits", "1", false, false},
      {"search_path", "\"$user\", public", false, false},
      {"transaction_isolation", "read committed", false, false},
      {"default_transaction_isolation", "read committed", false, false},
      // transaction_read_only shows the transaction's mode (Session).
      {"transaction_read_only", "off", false, false},
      {"default_transaction_read_only", "off", false, false},
      {"transaction_deferrable", "off", false, false},
      {"default_transaction_deferrable", "off", false, false},
      {"statement_timeout", "0", false, false, "ms"},
      {"lock_timeout", "0", false, false, "ms"},
      {"idle_in_transaction_session_timeout", "0", false, false, "ms"},
      {"client_min_messages", "notice", false, false},
      {"bytea_output", "hex", false, false},
      {"max_identifier_length", "63", false, true},
      {"max_index_keys", "32", false, true},
      {"max_function_args", "100", false, true},
      {"block_size", "8192", false, true},
      {"lc_collate", "C", false, true},
      {"lc_ctype", "C", false, true},
      // What pg_dump's scripts set: accepted with PostgreSQL's values, and
      // nothing to change here (no row security, no function bodies to
      // check, no XML, one tablespace and one table access method).
      {"row_security", "on", false, false},
      {"synchronize_seqscans", "on", false, false},
      {"check_function_bodies", "on", false, false},
      {"xmloption", "content", false, false},
      {"default_tablespace", "", false, false},
      {"default_table_access_method", "heap", false, false},
      // Whether batch scans may read an index (CREATE INDEX) instead of
      // the table, as PostgreSQL's planner setting.
      {"enable_indexscan", "on", false, false},
      {"rw_implicit_flush", "false", false, false},
      {"read_after_write", "all", false, false},
      {"synchronous_commit", "on", false, false},
      {"statement_memory_limit", "0", false, false},
      {"streaming_parallelism", "0", false, false},
      {"streaming_memory_limit", "0", false, false},
      {"background_ddl", "false", false, false},
      {"backfill_rate_limit", "default", false, false},
      {"query_mode", "auto", false, false},
      {"visibility_mode", "default", false, false},
      // RisingWave's session settings (its SessionConfig) that have no
      // meaning here, with its defaults; enable_index_selection has one
      // (batch scans may read indexes, as enable_indexscan), and
      // batch_parallelism (1: batch queries use one thread, as
      // max_parallel_workers_per_gather = 0).
      {"enable_index_selection", "true", false, false, "", "boolean"},
      {"batch_parallelism", "0", false, false, "", "int"},
      {"create_compaction_group_for_mv", "false", false, false, "", "boolean", true},
      {"batch_enable_lookup_join", "true", false, false, "", "boolean", true},
      {"batch_enable_sort_agg", "true", false, false, "", "boolean", true},
      {"batch_enable_distributed_dml", "false", false, false, "", "boolean", true},
      {"batch_expr_strict_mode", "true", false, false, "", "boolean", true},
      {"batch_hnsw_ef_search", "40", false, false, "", "int", true},
      {"max_split_range_gap", "8", false, false, "", "int", true},
      {"query_epoch", "0", false, false, "", "int", true},
      {"streaming_parallelism_for_backfill", "default", false, false, "", "", true},
      {"streaming_parallelism_strategy", "default", false, false, "", "", true},
      {"streaming_parallelism_for_table", "default", false, false, "", "", true},
      {"streaming_parallelism_strategy_for_table", "default", false, false, "", "", true},
      {"streaming_parallelism_for_sink", "default", false, false, "", "", true},
      {"streaming_parallelism_strategy_for_sink", "default", false, false, "", "", true},
      {"streaming_parallelism_for_index", "default", false, false, "", "", true},
      {"streaming_parallelism_strategy_for_index", "default", false, false, "", "", true},
      {"streaming_parallelism_for_source", "default", false, false, "", "", true},
      {"streaming_parallelism_strategy_for_source", "default", false, false, "", "", true},
      {"streaming_parallelism_for_materialized_view", "default", false, false, "", "", true},
      {"streaming_parallelism_strategy_for_materialized_view", "default", false, false, "", "", true},
      {"streaming_max_parallelism", "256", false, false, "", "int", true},
      {"streaming_enable_delta_join", "false", false, false, "", "boolean", true},
      {"streaming_enable_bushy_join", "true", false, false, "", "boolean", true},
      {"streaming_force_filter_inside_join", "false", false, false, "", "boolean", true},
      {"streaming_use_arrangement_backfill", "true", false, false, "", "boolean", true},
      {"streaming_use_snapshot_backfill", "true", false, false, "", "boolean", true},
      {"streaming_allow_jsonb_in_stream_key", "false", false, false, "", "boolean", true},
      {"streaming_unsafe_allow_unmaterialized_impure_expr", "false", false, false, "", "boolean", true},
      {"streaming_separate_consecutive_join", "false", false, false, "", "boolean", true},
      {"streaming_separate_sink", "false", false, false, "", "boolean", true},
      {"streaming_join_encoding", "", false, false, "", "", true},
      {"streaming_over_window_cache_policy", "", false, false, "", "", true},
      {"streaming_use_shared_source", "true", false, false, "", "boolean", true},
      {"streaming_enable_unaligned_join", "false", false, false, "", "boolean", true},
      {"streaming_sync_log_store_pause_duration_ms", "", false, false, "", "", true},
      {"streaming_sync_log_store_buffer_size", "", false, false, "", "", true},
      {"enable_join_ordering", "true", false, false, "", "boolean", true},
      {"enable_two_phase_agg", "true", false, false, "", "boolean", true},
      {"force_two_phase_agg", "false", false, false, "", "boolean", true},
      {"enable_share_plan", "true", false, false, "", "boolean", true},
      {"force_split_distinct_agg", "false", false, false, "", "boolean", true},
      {"enable_locality_backfill", "false", false, false, "", "boolean", true},
      {"enable_datafusion_engine", "false", false, false, "", "boolean", true},
      {"sink_decouple", "default", false, false, "", "", true},
      {"cdc_source_wait_streaming_start_timeout", "60", false, false, "", "int", true},
      {"source_rate_limit", "-1", false, false, "", "int", true},
      {"dml_rate_limit", "-1", false, false, "", "int", true},
      {"sink_rate_limit", "-1", false, false, "", "int", true},
      {"bypass_cluster_limits", "false", false, false, "", "boolean", true},
      {"iceberg_engine_connection", "", false, false, "", "", true},
      {"disable_purify_definition", "false", false, false, "", "boolean", true},
      {"slow_ddl_notification_secs", "30", false, false, "", "int", true},
      {"unsafe_enable_storage_retention_for_non_append_only_tables", "false", false, false, "", "boolean", true},
      {"upsert_dml", "false", false, false, "", "boolean", true},
      // PostgreSQL's planner and resource settings, which applications
      // and tools set (work_mem, jit = off, enable_seqscan, vacuumdb's
      // default_statistics_target, pg_dump's session_replication_role):
      // taken and shown with PostgreSQL's defaults and checks; Freshet's
      // planner has no costs to weigh them with, and nothing here changes
      // what a statement returns.
      {"work_mem", "4MB", false, false, "kB", "memory"},
      {"maintenance_work_mem", "64MB", false, false, "kB", "memory"},
      {"temp_buffers", "8MB", false, false, "8kB", "memory"},
      {"effective_cache_size", "4GB", false, false, "8kB", "memory"},
      {"default_statistics_target", "100", false, false, "", "int"},
      {"vacuum_cost_delay", "0", false, false, "ms", "real"},
      {"vacuum_freeze_min_age", "50000000", false, false, "", "int"},
      {"seq_page_cost", "1", false, false, "", "real"},
      {"random_page_cost", "4", false, false, "", "real"},
      {"cpu_tuple_cost", "0.01", false, false, "", "real"},
      {"cpu_index_tuple_cost", "0.005", false, false, "", "real"},
      {"cpu_operator_cost", "0.0025", false, false, "", "real"},
      {"parallel_setup_cost", "1000", false, false, "", "real"},
      {"parallel_tuple_cost", "0.1", false, false, "", "real"},
      {"cursor_tuple_fraction", "0.1", false, false, "", "real"},
      {"effective_io_concurrency", "1", false, false, "", "int"},
      {"maintenance_io_concurrency", "10", false, false, "", "int"},
      {"jit", "on", false, false, "", "bool"},
      {"enable_seqscan", "on", false, false, "", "bool"},
      {"enable_indexonlyscan", "on", false, false, "", "bool"},
      {"enable_bitmapscan", "on", false, false, "", "bool"},
      {"enable_tidscan", "on", false, false, "", "bool"},
      {"enable_sort", "on", false, false, "", "bool"},
      {"enable_incremental_sort", "on", false, false, "", "bool"},
      {"enable_hashagg", "on", false, false, "", "bool"},
      {"enable_material", "on", false, false, "", "bool"},
      {"enable_memoize", "on", false, false, "", "bool"},
      {"enable_nestloop", "on", false, false, "", "bool"},
      {"enable_mergejoin", "on", false, false, "", "bool"},
      {"enable_hashjoin", "on", false, false, "", "bool"},
      {"enable_gathermerge", "on", false, false, "", "bool"},
      {"enable_parallel_append", "on", false, false, "", "bool"},
      {"enable_parallel_hash", "on", false, false, "", "bool"},
      {"enable_partition_pruning", "on", false, false, "", "bool"},
      {"enable_partitionwise_join", "off", false, false, "", "bool"},
      {"enable_partitionwise_aggregate", "off", false, false, "", "bool"},
      {"enable_async_append", "on", false, false, "", "bool"},
      {"geqo", "on", false, false, "", "bool"},
      {"from_collapse_limit", "8", false, false, "", "int"},
      {"join_collapse_limit", "8", false, false, "", "int"},
      {"max_parallel_workers_per_gather", "2", false, false, "", "int"},
      {"force_parallel_mode", "off", false, false, "", "enum:off,on,regress"},
      {"plan_cache_mode", "auto", false, false, "", "enum:auto,force_generic_plan,force_custom_plan"},
      {"constraint_exclusion", "partition", false, false, "", "enum:partition,on,off"},
      {"session_replication_role", "origin", false, false, "", "enum:origin,replica,local"},
      {"log_statement", "none", false, false, "", "enum:none,ddl,mod,all"},
      {"log_min_duration_statement", "-1", false, false, "ms", "int"},
      {"track_io_timing", "off", false, false, "", "bool"},
      {"array_nulls", "on", false, false, "", "bool"},
      {"escape_string_warning", "on", false, false, "", "bool"},
      {"quote_all_identifiers", "off", false, false, "", "bool"},
      {"lo_compat_privileges", "off", false, false, "", "bool"},
      {"trace_notify", "off", false, false, "", "bool"},
      {"commit_delay", "0", false, false, "", "int"},
      {"gin_fuzzy_search_limit", "0", false, false, "", "int"},
      {"tcp_keepalives_idle", "0", false, false, "s", "int"},
      {"tcp_keepalives_interval", "0", false, false, "s", "int"},
      {"tcp_keepalives_count", "0", false, false, "", "int"},
      {"lc_messages", "C", false, false},
      {"lc_monetary", "C", false, false},
      {"lc_numeric", "C", false, false},
      {"lc_time", "C", false, false},
      {"timezone_abbreviations", "Default", false, false},
      // Enforced: an idle session (outside a transaction block) longer
      // than this is ended (FATAL 57P05), as PostgreSQL 14's.
      {"idle_session_timeout", "0", false, false, "ms"},
  };
  return kDefs;
}

namespace {

// A value of a setting with a `kind` (VariableDef), as SHOW gives it back;
// 22023 as PostgreSQL's when it is not one.
std::string CheckedSettingValue(const VariableDef& def, const std::string& value) {
  const std::string kind = def.kind;
  auto invalid = [&]() {
    return SqlError(sqlstate::kInvalidParameterValue,
                    fmt::format("invalid value for parameter \"{}\": \"{}\"", def.name, value));
  };
  if (kind == "bool" || kind == "boolean") {
    bool b;
    if (!ParseBoolSetting(value, &b))
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "parameter \"{}\" requires a Boolean value", def.name);
    if (kind == "boolean") return b ? "true" : "false";
    return b ? "on" : "off";
  }
  if (kind == "int" || kind == "real") {
    double number = 0;
    try {
      size_t pos;
      number = std::stod(value, &pos);
      if (pos != value.size() || !std::isfinite(number)) throw std::invalid_argument("trailing");
    } catch (...) {
      if (kind == "int") throw invalid().WithHint("Expected an integer.");
      throw invalid();
    }
    // An integer setting rounds a fraction, as PostgreSQL's parse_int.
    if (kind == "int" && std::floor(number) != number) return std::to_string(static_cast<int64_t>(std::llround(number)));
    return value;
  }
  if (kind == "memory") {
    // A number alone is in the setting's unit (kB, or 8kB pages).
    const int64_t unit_bytes = std::string(def.unit) == "8kB" ? 8192 : 1024;
    std::string text = value;
    bool bare = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    std::optional<int64_t> bytes;
    if (bare) {
      try {
        bytes = std::stoll(text) * unit_bytes;
      } catch (...) {
      }
    } else {
      bytes = ParseMemorySetting(text);
    }
    if (!bytes) throw invalid().WithHint("Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".");
    int64_t kb = *bytes / 1024;
    if (kb < 64 && std::string(def.name) == "work_mem")
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "{} kB is outside the valid range for parameter \"{}\" (64 .. 2147483647)",
                    kb, def.name);
    static const std::pair<int64_t, const char*> kUnits[] = {{1LL << 30, "TB"}, {1LL << 20, "GB"}, {1LL << 10, "MB"}};
    for (const auto& [size, name] : kUnits)
      if (kb > 0 && kb % size == 0) return std::to_string(kb / size) + name;
    return std::to_string(kb) + "kB";
  }
  if (kind.rfind("enum:", 0) == 0) {
    std::string l = LowerAscii(value);
    std::string options = kind.substr(5);
    for (size_t start = 0; start <= options.size();) {
      size_t comma = options.find(',', start);
      if (comma == std::string::npos) comma = options.size();
      if (options.compare(start, comma - start, l) == 0) return l;
      start = comma + 1;
    }
    std::string hint;
    for (char c : options) hint += c == ',' ? std::string(", ") : std::string(1, c);
    throw invalid().WithHint("Available values: " + hint + ".");
  }
  return value;
}

}  // namespace

const VariableDef* FindVariable(const std::string& name) {
  std::string l = LowerAscii(name);
  // RisingWave's other spellings of its settings.
  static const std::map<std::string, std::string> kAliases = {
      {"implicit_flush", "rw_implicit_flush"},
      {"rw_batch_enable_lookup_join", "batch_enable_lookup_join"},
      {"rw_batch_enable_sort_agg", "batch_enable_sort_agg"},
      {"rw_streaming_enable_delta_join", "streaming_enable_delta_join"},
      {"rw_streaming_enable_bushy_join", "streaming_enable_bushy_join"},
      {"rw_streaming_force_filter_inside_join", "streaming_force_filter_inside_join"},
      {"rw_streaming_allow_jsonb_in_stream_key", "streaming_allow_jsonb_in_stream_key"},
      {"rw_enable_join_ordering", "enable_join_ordering"},
      {"rw_enable_two_phase_agg", "enable_two_phase_agg"},
      {"rw_force_two_phase_agg", "force_two_phase_agg"},
      {"rw_enable_share_plan", "enable_share_plan"},
      {"rw_force_split_distinct_agg", "force_split_distinct_agg"},
      {"rw_streaming_over_window_cache_policy", "streaming_over_window_cache_policy"},
  };
  if (auto alias = kAliases.find(l); alias != kAliases.end()) l = alias->second;
  for (const auto& d : VariableDefs())
    if (LowerAscii(d.name) == l) return &d;
  return nullptr;
}

std::optional<int64_t> ParseMemorySetting(const std::string& text) {
  size_t pos = 0;
  long long n;
  try {
    n = std::stoll(text, &pos);
  } catch (...) {
    return std::nullopt;
  }
  if (n < 0) return std::nullopt;
  std::string unit = text.substr(pos);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  int shift = unit.empty() || unit == "kB" ? 10 : unit == "MB" ? 20 : unit == "GB" ? 30 : unit == "TB" ? 40 : -1;
  if (shift < 0 || n > (INT64_MAX >> shift)) return std::nullopt;
  return int64_t(n) << shift;
}

int64_t DefaultMemoryLimit() {
  static const int64_t limit = int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGESIZE)) / 2;
  return limit;
}

std::string NormalizeRateLimit(const std::string& value, const std::string& what) {
  std::string l = LowerAscii(value);
  if (l == "default" || l.empty()) return "default";
  try {
    size_t pos;
    long long n = std::stoll(l, &pos);
    if (pos == l.size() && n >= 0) return std::to_string(n);
  } catch (...) {
  }
  FRESHET_THROW(sqlstate::kInvalidParameterValue,
                "invalid value for {}: \"{}\" (rows per second per parallelism, 0 pauses, DEFAULT for no limit)", what,
                value);
}

std::optional<MessageLevel> ParseMessageLevel(std::string_view name) {
  static const std::pair<const char*, MessageLevel> kLevels[] = {
      {"debug5", MessageLevel::kDebug5}, {"debug4", MessageLevel::kDebug4}, {"debug3", MessageLevel::kDebug3},
      {"debug2", MessageLevel::kDebug2}, {"debug", MessageLevel::kDebug2},  {"debug1", MessageLevel::kDebug1},
      {"log", MessageLevel::kLog},       {"notice", MessageLevel::kNotice}, {"warning", MessageLevel::kWarning},
      {"error", MessageLevel::kError},
  };
  const std::string lower = LowerAscii(std::string(name));
  for (const auto& [level_name, level] : kLevels)
    if (lower == level_name) return level;
  return std::nullopt;
}

bool ParseBoolSetting(const std::string& v, bool* out) {
  std::string l = LowerAscii(v);
  if (l == "true" || l == "on" || l == "1" || l == "yes" || l == "t") { *out = true; return true; }
  if (l == "false" || l == "off" || l == "0" || l == "no" || l == "f") { *out = false; return true; }
  return false;
}

SessionVariables::SessionVariables(const std::string& user) {
  for (const auto& d : VariableDefs()) values_[LowerAscii(d.name)] = d.default_value;
  values_["session_authorization"] = user;
}

std::optional<int64_t> ParseDurationMs(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
  size_t start = i;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) i++;
  bool digits = false;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    digits = digits || text[i] != '.';
    i++;
  }
  if (!digits) return std::nullopt;
  double number;
  try {
    number = std::stod(text.substr(start, i - start));
  } catch (...) {
    return std::nullopt;
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
  size_t unit_end = text.size();
  while (unit_end > i && std::isspace(static_cast<unsigned char>(text[unit_end - 1]))) unit_end--;
  std::string unit = text.substr(i, unit_end - i);
  static const std::pair<const char*, double> kUnits[] = {{"", 1},       {"us", 0.001},   {"ms", 1},      {"s", 1000},
                                                         {"min", 60000}, {"h", 3600000}, {"d", 86400000}};
  for (const auto& [name, factor] : kUnits)
    if (unit == name) {
      double ms = std::rint(number * factor);
      if (!(std::fabs(ms) < 9e18)) return std::nullopt;
      return static_cast<int64_t>(ms);
    }
  return std::nullopt;
}

std::string FormatDurationMs(int64_t ms) {
  if (ms == 0) return "0";
  static const std::pair<const char*, int64_t> kUnits[] = {{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}};
  for (const auto& [name, factor] : kUnits)
    if (ms % factor == 0) return std::to_string(ms / factor) + name;
  return std::to_string(ms) + "ms";
}

std::string SessionVariables::ResetValue(const std::string& name) const {
  const VariableDef* def = FindVariable(name);
  if (!def) return "";
  auto startup = reset_values_.find(LowerAscii(def->name));
  return startup != reset_values_.end() ? startup->second : def->default_value;
}

int64_t SessionVariables::DurationMs(const std::string& name) const {
  return ParseDurationMs(Get(name)).value_or(0);
}

const std::string& SessionVariables::Get(std::string_view name) const {
  static const std::string kNone;
  auto it = values_.find(name);  // callers mostly spell it in lower case
  if (it == values_.end()) it = values_.find(LowerAscii(name));
  return it == values_.end() ? kNone : it->second;
}

void SessionVariables::Set(const std::string& name, const std::string& value) {
  const VariableDef* def = FindVariable(name);
  if (!def) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
  if (def->read_only) FRESHET_THROW(sqlstate::kCantChangeRuntimeParam, "parameter \"{}\" cannot be changed", def->name);
  std::string v = value;
  std::string key = LowerAscii(def->name);
  if (key == "timezone") {
    auto tz = TimeZone::Lookup(v);
    if (!tz) FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for parameter \"TimeZone\": \"{}\"", value);
  } else if (key == "rw_implicit_flush" || key == "background_ddl") {
    bool b;
    if (!ParseBoolSetting(v, &b))
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "parameter \"{}\" requires a Boolean value", def->name);
    v = b ? "true" : "false";
  } else if (key == "row_security" || key == "synchronize_seqscans" || key == "check_function_bodies" ||
             key == "enable_indexscan") {
    bool b;
    if (!ParseBoolSetting(v, &b))
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "parameter \"{}\" requires a Boolean value", def->name);
    v = b ? "on" : "off";
  } else if (key == "xmloption" || key == "default_tablespace" || key == "default_table_access_method") {
    // The values that exist: the tablespace pg_default ('' too) and the
    // access method heap.
    std::string l = LowerAscii(v);
    bool known = key == "xmloption" ? (l == "content" || l == "document")
                 : key == "default_tablespace" ? (l.empty() || l == "pg_default")
                                               : l == "heap";
    if (!known) {
      SqlError e(sqlstate::kInvalidParameterValue,
                 fmt::format("invalid value for parameter \"{}\": \"{}\"", def->name, value));
      if (key == "default_tablespace") e.WithDetail(fmt::format("Tablespace \"{}\" does not exist.", value));
      if (key == "default_table_access_method") e.WithDetail(fmt::format("Table access method \"{}\" does not exist.", value));
      throw e;
    }
    v = l;
  } else if (key == "statement_memory_limit" || key == "streaming_memory_limit") {
    if (!ParseMemorySetting(v))
      FRESHET_THROW(sqlstate::kInvalidParameterValue,
                    "invalid value for parameter \"{}\": \"{}\" (a size such as 64MB, or 0 for the server's default)",
                    def->name, value);
  } else if (key == "synchronous_commit") {
    // PostgreSQL's values; without replicas, local and remote_* mean on.
    std::string l = LowerAscii(v);
    bool b;
    if (l == "local" || l == "remote_write" || l == "remote_apply" || l == "on" || l == "off") v = l;
    else if (ParseBoolSetting(l, &b)) v = b ? "on" : "off";
    else
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("invalid value for parameter \"synchronous_commit\": \"{}\"", value))
          .WithHint("Available values: local, remote_write, remote_apply, on, off.");
  } else if (key == "read_after_write") {
    // all: a read sees every write acknowledged before it (PostgreSQL);
    // own: only the session's own (reads never wait for others' commits).
    std::string l = LowerAscii(v);
    if (l != "all" && l != "own")
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("invalid value for parameter \"read_after_write\": \"{}\"", value))
          .WithHint("Available values: all, own.");
    v = l;
  } else if (key == "client_min_messages") {
    if (!ParseMessageLevel(v))
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("invalid value for parameter \"{}\": \"{}\"", def->name, value))
          .WithHint("Available values: debug5, debug4, debug3, debug2, debug1, log, notice, warning, error.");
    v = LowerAscii(v);
  } else if (key == "intervalstyle") {
    std::optional<IntervalStyle> style = ParseIntervalStyle(v);
    if (!style)
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("invalid value for parameter \"{}\": \"{}\"", def->name, value))
          .WithHint("Available values: postgres, postgres_verbose, sql_standard, iso_8601.");
    v = LowerAscii(v);
  } else if (key == "backfill_rate_limit") {
    v = NormalizeRateLimit(v, def->name);
  } else if (key == "client_encoding") {
    // PostgreSQL's clean_encoding_name: letters and digits only, so that
    // 'UTF-8', utf_8 and asyncpg's quoted 'utf-8' all name UTF8.
    std::string l;
    for (char c : LowerAscii(v))
      if (std::isalnum(static_cast<unsigned char>(c))) l += c;
    if (l != "utf8" && l != "unicode")
      FRESHET_THROW(sqlstate::kFeatureNotSupported, "only client_encoding UTF8 is supported, not \"{}\"", value);
    v = "UTF8";
  } else if (*def->kind) {
    v = CheckedSettingValue(*def, v);
  } else if (key == "statement_timeout" || key == "lock_timeout" || key == "idle_in_transaction_session_timeout" ||
             key == "idle_session_timeout") {
    std::optional<int64_t> ms = ParseDurationMs(v);
    if (!ms)
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("invalid value for parameter \"{}\": \"{}\"", def->name, value))
          .WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".");
    if (*ms < 0 || *ms > INT32_MAX)
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "{} ms is outside the valid range for parameter \"{}\" (0 .. 2147483647)",
                    *ms, def->name);
    v = FormatDurationMs(*ms);
  } else if (key == "extra_float_digits" || key == "streaming_parallelism") {
    try {
      size_t pos;
      (void)std::stoll(v, &pos);
      if (pos != v.size()) throw std::invalid_argument("x");
    } catch (...) {
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for parameter \"{}\": \"{}\"", def->name, value);
    }
  }
  values_[key] = v;
  changed_ = true;
  ++generation_;
}

void SessionVariables::ApplyStartup(const std::string& name, const std::string& value) {
  const VariableDef* def = FindVariable(name);
  if (!def || def->read_only) return;
  Set(def->name, value);
  reset_values_[LowerAscii(def->name)] = values_[LowerAscii(def->name)];
}

void SessionVariables::Reset(const std::string& name) {
  const VariableDef* def = FindVariable(name);
  if (!def) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
  auto startup = reset_values_.find(LowerAscii(def->name));
  values_[LowerAscii(def->name)] = startup != reset_values_.end() ? startup->second : def->default_value;
  changed_ = true;
  ++generation_;
}

void SessionVariables::ResetAll() {
  for (const auto& d : VariableDefs()) {
    if (d.read_only) continue;
    auto startup = reset_values_.find(LowerAscii(d.name));
    values_[LowerAscii(d.name)] = startup != reset_values_.end() ? startup->second : d.default_value;
  }
  changed_ = true;
  ++generation_;
}

std::vector<std::pair<std::string, std::string>> SessionVariables::TakeChangedReported() {
  std::vector<std::pair<std::string, std::string>> out;
  if (!changed_) return out;  // after every statement: most set nothing
  changed_ = false;
  for (const auto& d : VariableDefs()) {
    if (!d.reported) continue;
    std::string v = Get(d.name);
    auto it = reported_.find(d.name);
    if (it == reported_.end() || it->second != v) {
      out.emplace_back(d.name, v);
      reported_[d.name] = v;
    }
  }
  return out;
}

}  // namespace freshet
