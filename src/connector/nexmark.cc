// The 'nexmark' source connector: RisingWave's nexmark source over
// NexmarkGenerator. Options: nexmark.table.type ('Person' | 'Auction' |
// 'Bid'; required: the combined source with struct columns is not
// supported yet), nexmark.event.num, nexmark.split.num,
// nexmark.min.event.gap.in.ns (a throttle: 0 = as fast as possible) and the
// generator's other nexmark.* knobs. The declared columns must be the
// table's, in order, with the same types (RisingWave refuses others too).
#include <fmt/format.h>

#include "common/error.h"
#include "connector/connector.h"
#include "connector/nexmark_generator.h"

namespace freshet {

namespace {

class NexmarkReader : public SplitReader {
 public:
  NexmarkReader(const NexmarkConfig& config, NexmarkTable table, int split) : gen_(config, table, split) {}
  int64_t offset() const override { return gen_.offset(); }
  void Seek(int64_t offset) override { gen_.Seek(offset); }
  bool Next(DataChunk* out, size_t max_rows) override { return gen_.NextChunk(out, max_rows); }

 private:
  NexmarkGenerator gen_;
};

class NexmarkConnector : public SourceConnector {
 public:
  NexmarkConnector(NexmarkConfig config, NexmarkTable table) : config_(std::move(config)), table_(table) {}
  int num_splits() const override { return config_.split_num; }
  std::unique_ptr<SplitReader> OpenSplit(int split) const override {
    return std::make_unique<NexmarkReader>(config_, table_, split);
  }
  double rows_per_second() const override { return NexmarkRowsPerSecondPerSplit(config_, table_); }

 private:
  NexmarkConfig config_;
  NexmarkTable table_;
};

}  // namespace

std::unique_ptr<SourceConnector> MakeNexmarkConnector(const std::map<std::string, std::string>& options,
                                                      const std::vector<SourceColumn>& columns) {
  auto type = options.find("nexmark.table.type");
  if (type == options.end())
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "the combined nexmark source is not supported yet: set nexmark.table.type to 'Person', 'Auction' or 'Bid'");
  auto table = NexmarkTableFromName(type->second);
  if (!table)
    throw SqlError(sqlstate::kInvalidParameterValue,
                   "nexmark.table.type must be 'Person', 'Auction' or 'Bid', not '" + type->second + "'");
  NexmarkConfig config;
  for (const auto& [key, value] : options) {
    if (key == "connector" || key == "nexmark.table.type" || key.rfind("_", 0) == 0) continue;
    std::string err = ApplyNexmarkOption(&config, key, value);
    if (err == "unknown") throw SqlError(sqlstate::kInvalidParameterValue, "unknown nexmark option " + key);
    if (!err.empty()) throw SqlError(sqlstate::kInvalidParameterValue, err);
  }
  std::string err = ValidateNexmarkConfig(config);
  if (!err.empty()) throw SqlError(sqlstate::kInvalidParameterValue, err);
  auto expected = NexmarkColumns(*table);
  bool match = expected.size() == columns.size();
  for (size_t i = 0; match && i < columns.size(); i++)
    match = expected[i].first == columns[i].name && expected[i].second.id == columns[i].type.id;
  if (!match) {
    std::string want;
    for (size_t i = 0; i < expected.size(); i++)
      want += (i ? ", " : "") + expected[i].first + " " + expected[i].second.ToString();
    throw SqlError(sqlstate::kInvalidParameterValue,
                   fmt::format("the columns of a nexmark {} source must be ({})", NexmarkTableName(*table), want));
  }
  return std::make_unique<NexmarkConnector>(std::move(config), *table);
}

}  // namespace freshet
