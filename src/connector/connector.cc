#include "connector/connector.h"

#include "common/error.h"
#include "connector/datagen.h"

namespace freshet {

int64_t IntOption(const std::map<std::string, std::string>& options, const std::string& key, int64_t default_value) {
  auto it = options.find(key);
  if (it == options.end()) return default_value;
  try {
    size_t used = 0;
    int64_t v = std::stoll(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (...) {
  }
  throw SqlError(sqlstate::kInvalidParameterValue, "invalid value for option " + key + ": '" + it->second + "'");
}

std::string StringOption(const std::map<std::string, std::string>& options, const std::string& key,
                         const std::string& default_value) {
  auto it = options.find(key);
  return it == options.end() ? default_value : it->second;
}

std::unique_ptr<SourceConnector> MakeNexmarkConnector(const std::map<std::string, std::string>& options,
                                                      const std::vector<SourceColumn>& columns);

std::unique_ptr<SourceConnector> SourceConnector::Create(const std::map<std::string, std::string>& options,
                                                         const std::vector<SourceColumn>& columns) {
  std::string connector = StringOption(options, "connector", "");
  if (connector.empty()) throw SqlError(sqlstate::kInvalidParameterValue, "missing WITH option connector");
  if (connector == "datagen") return MakeDatagenConnector(options, columns);
  if (connector == "nexmark") return MakeNexmarkConnector(options, columns);
  throw SqlError(sqlstate::kFeatureNotSupported, "source connector '" + connector + "' is not supported yet");
}

}  // namespace freshet
