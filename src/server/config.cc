#include "server/config.h"

#include <toml++/toml.h>

#include <set>

namespace freshet {

Status LoadConfigFile(const std::string& path, ServerOptions* options) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return Status::InvalidArgument(fmt::format("{}: {} (line {})", path, e.description(), e.source().begin.line));
  }
  static const std::set<std::string> kSections = {"server", "storage", "streaming"};
  for (const auto& [key, value] : root) {
    if (!kSections.count(std::string(key.str())))
      return Status::InvalidArgument(fmt::format("{}: unknown section [{}]", path, key.str()));
  }
  auto check_keys = [&](const char* section, std::set<std::string> allowed) -> Status {
    const toml::table* t = root[section].as_table();
    if (!t) return Status::OK();
    for (const auto& [key, value] : *t)
      if (!allowed.count(std::string(key.str())))
        return Status::InvalidArgument(fmt::format("{}: unknown option {}.{}", path, section, key.str()));
    return Status::OK();
  };
  Status s = check_keys("server", {"listen_address", "port", "http_port", "max_connections",
                                         "superuser_reserved_connections", "authentication_timeout"});
  if (!s.ok()) return s;
  s = check_keys("storage", {"data_dir", "block_cache_mb", "scan_cache_mb", "disk_reserve_mb", "timeseries"});
  if (!s.ok()) return s;
  if (const toml::node* ts = root["storage"]["timeseries"].node(); ts && !ts->is_table())
    return Status::InvalidArgument(path + ": storage.timeseries must be a section ([storage.timeseries])");
  if (const toml::table* ts = root["storage"]["timeseries"].as_table()) {
    static const std::set<std::string> kKeys = {"write_buffer_mb", "table_write_buffer_mb", "default_time_window"};
    for (const auto& [key, value] : *ts)
      if (!kKeys.count(std::string(key.str())))
        return Status::InvalidArgument(fmt::format("{}: unknown option storage.timeseries.{}", path, key.str()));
    for (const char* key : {"write_buffer_mb", "table_write_buffer_mb"}) {
      const toml::node* n = (*ts)[key].node();
      if (!n) continue;
      auto v = n->value<int64_t>();
      if (!v || *v < 1 || *v > (int64_t(1) << 30))
        return Status::InvalidArgument(fmt::format("{}: storage.timeseries.{} must be between 1 and 2^30 (MiB)", path, key));
      (std::string(key) == "write_buffer_mb" ? options->timeseries.write_buffer_bytes
                                             : options->timeseries.table_write_buffer_bytes) = size_t(*v) << 20;
    }
    if (const toml::node* n = (*ts)["default_time_window"].node()) {
      auto v = n->value<std::string>();
      if (!v) return Status::InvalidArgument(path + ": storage.timeseries.default_time_window must be a string such as \"1d\"");
      options->timeseries.default_window_seconds.reset();
      if (!v->empty()) {
        try {
          options->timeseries.default_window_seconds = TimeWindowSeconds(*v);
        } catch (const SqlError& e) {
          return Status::InvalidArgument(fmt::format("{}: storage.timeseries.default_time_window: {}", path, e.message()));
        }
      }
    }
  }
  s = check_keys("streaming", {"barrier_interval_ms"});
  if (!s.ok()) return s;
  if (auto v = root["server"]["listen_address"].value<std::string>()) options->listen_address = *v;
  if (auto v = root["server"]["port"].value<int64_t>()) options->port = static_cast<int>(*v);
  if (auto v = root["server"]["http_port"].value<int64_t>()) options->http_port = static_cast<int>(*v);
  if (auto v = root["server"]["max_connections"].value<int64_t>()) {
    if (*v < 1 || *v > 262143) return Status::InvalidArgument(path + ": server.max_connections must be between 1 and 262143");
    options->max_connections = static_cast<int>(*v);
  }
  if (auto v = root["server"]["superuser_reserved_connections"].value<int64_t>()) {
    if (*v < 0 || *v > 262143)
      return Status::InvalidArgument(path + ": server.superuser_reserved_connections must be between 0 and 262143");
    options->superuser_reserved_connections = static_cast<int>(*v);
  }
  if (const toml::node* n = root["server"]["authentication_timeout"].node()) {
    // Seconds, or a string with a unit as PostgreSQL takes it ("30s",
    // "1min", "500ms"); between 1 s and 10 min, as PostgreSQL's.
    int64_t ms = -1;
    if (auto i = n->value<int64_t>()) {
      ms = *i * 1000;
    } else if (auto str = n->value<std::string>()) {
      size_t pos = 0;
      long long count = -1;
      try {
        count = std::stoll(*str, &pos);
      } catch (...) {
      }
      std::string unit = str->substr(pos);
      while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
      if (count >= 0 && (unit == "ms")) ms = count;
      else if (count >= 0 && (unit == "s" || unit.empty())) ms = count * 1000;
      else if (count >= 0 && unit == "min") ms = count * 60000;
    }
    if (ms < 1000 || ms > 600000)
      return Status::InvalidArgument(path + ": server.authentication_timeout must be between 1 s and 10 min (seconds, or a "
                                            "string such as \"30s\" or \"1min\")");
    options->authentication_timeout_ms = static_cast<int>(ms);
  }
  if (auto v = root["storage"]["data_dir"].value<std::string>()) options->data_dir = *v;
  if (auto v = root["storage"]["block_cache_mb"].value<int64_t>()) options->block_cache_mb = *v;
  if (auto v = root["storage"]["scan_cache_mb"].value<int64_t>()) options->scan_cache_mb = *v;
  if (auto v = root["storage"]["disk_reserve_mb"].value<int64_t>()) {
    if (*v < -1 || *v > (int64_t(1) << 30))
      return Status::InvalidArgument(path + ": storage.disk_reserve_mb must be -1 (automatic) or between 0 and 2^30");
    options->disk_reserve_mb = *v;
  }
  if (auto v = root["streaming"]["barrier_interval_ms"].value<int64_t>()) options->barrier_interval_ms = static_cast<int>(*v);
  if (options->port < 0 || options->port > 65535) return Status::InvalidArgument(path + ": server.port out of range");
  if (options->block_cache_mb < 0 || options->block_cache_mb > (int64_t(1) << 30) || options->scan_cache_mb < 0 ||
      options->scan_cache_mb > (int64_t(1) << 30))
    return Status::InvalidArgument(path + ": storage.block_cache_mb and storage.scan_cache_mb must be between 0 and 2^30");
  // PostgreSQL refuses to start with such a pair, with this message.
  if (options->superuser_reserved_connections >= options->max_connections)
    return Status::InvalidArgument(fmt::format("{}: superuser_reserved_connections ({}) must be less than max_connections ({})",
                                               path, options->superuser_reserved_connections, options->max_connections));
  if (options->barrier_interval_ms < 1) return Status::InvalidArgument(path + ": streaming.barrier_interval_ms must be positive");
  return Status::OK();
}

}  // namespace freshet
