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
  Status s = check_keys("server", {"listen_address", "port", "http_port", "max_connections"});
  if (!s.ok()) return s;
  s = check_keys("storage", {"data_dir", "block_cache_mb", "scan_cache_mb"});
  if (!s.ok()) return s;
  s = check_keys("streaming", {"barrier_interval_ms"});
  if (!s.ok()) return s;
  if (auto v = root["server"]["listen_address"].value<std::string>()) options->listen_address = *v;
  if (auto v = root["server"]["port"].value<int64_t>()) options->port = static_cast<int>(*v);
  if (auto v = root["server"]["http_port"].value<int64_t>()) options->http_port = static_cast<int>(*v);
  if (auto v = root["server"]["max_connections"].value<int64_t>()) options->max_connections = static_cast<int>(*v);
  if (auto v = root["storage"]["data_dir"].value<std::string>()) options->data_dir = *v;
  if (auto v = root["storage"]["block_cache_mb"].value<int64_t>()) options->block_cache_mb = *v;
  if (auto v = root["storage"]["scan_cache_mb"].value<int64_t>()) options->scan_cache_mb = *v;
  if (auto v = root["streaming"]["barrier_interval_ms"].value<int64_t>()) options->barrier_interval_ms = static_cast<int>(*v);
  if (options->port < 0 || options->port > 65535) return Status::InvalidArgument(path + ": server.port out of range");
  if (options->block_cache_mb < 0 || options->block_cache_mb > (int64_t(1) << 30) || options->scan_cache_mb < 0 ||
      options->scan_cache_mb > (int64_t(1) << 30))
    return Status::InvalidArgument(path + ": storage.block_cache_mb and storage.scan_cache_mb must be between 0 and 2^30");
  if (options->barrier_interval_ms < 1) return Status::InvalidArgument(path + ": streaming.barrier_interval_ms must be positive");
  return Status::OK();
}

}  // namespace freshet
