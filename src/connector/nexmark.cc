// The 'nexmark' source connector: RisingWave's nexmark source over
// NexmarkGenerator. Options: nexmark.table.type ('Person' | 'Auction' |
// 'Bid'; without it, the combined source: every event as a row of
// event_type (0 person, 1 auction, 2 bid) and the struct columns person,
// auction and bid, of which the event's own is set and the others are
// NULL), nexmark.event.num, nexmark.split.num,
// nexmark.min.event.gap.in.ns (a throttle: 0 = as fast as possible) and the
// generator's other nexmark.* knobs. The declared columns must be the
// table's, in order, with the same types (RisingWave refuses others too).
#include <fmt/format.h>

#include <optional>

#include "common/error.h"
#include "common/struct.h"
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

// RisingWave's combined source. Split i of n reads every event whose
// global offset is i, i + n, i + 2n, ... (the crate's generator with offset
// i and step n, without a type filter); the offset is the number of events
// the split has read. The event of a global offset is the same as in the
// per-table sources, so the union of the three is the combined source.
class NexmarkCombinedReader : public SplitReader {
 public:
  NexmarkCombinedReader(const NexmarkConfig& config, int split)
      : config_(config),
        split_(split),
        generators_{NexmarkGenerator(config, NexmarkTable::kPerson, 0),
                    NexmarkGenerator(config, NexmarkTable::kAuction, 0),
                    NexmarkGenerator(config, NexmarkTable::kBid, 0)} {}
  int64_t offset() const override { return offset_; }
  void Seek(int64_t offset) override { offset_ = offset < 0 ? 0 : offset; }
  bool Next(DataChunk* out, size_t max_rows) override {
    if (out->num_columns() == 0)
      for (const auto& [name, type] : NexmarkCombinedColumns()) out->AddColumn(Vector(type));
    size_t appended = 0;
    for (; appended < max_rows; appended++, offset_++) {
      int64_t global = split_ + offset_ * config_.split_num;
      if (config_.event_num >= 0 && global >= config_.event_num) break;
      auto type = static_cast<size_t>(NexmarkEventType(config_, global));
      DataChunk& event = scratch_[type];
      event = DataChunk();
      generators_[type].AppendEvent(config_.first_event_number + global, &event);
      StructWriter fields(event.num_columns());
      for (size_t c = 0; c < event.num_columns(); c++) fields.Add(event.column(c), 0);
      out->column(0).AppendInt(int64_t(type));
      for (size_t k = 0; k < 3; k++) {
        if (k == type) out->column(1 + k).AppendString(fields.Finish());
        else out->column(1 + k).AppendNull();
      }
    }
    return appended > 0;
  }

 private:
  NexmarkConfig config_;
  int split_;
  int64_t offset_ = 0;
  NexmarkGenerator generators_[3];  // only their AppendEvent is used
  DataChunk scratch_[3];
};

class NexmarkConnector : public SourceConnector {
 public:
  // table: nullopt for the combined source.
  NexmarkConnector(NexmarkConfig config, std::optional<NexmarkTable> table) : config_(std::move(config)), table_(table) {}
  int num_splits() const override { return config_.split_num; }
  std::unique_ptr<SplitReader> OpenSplit(int split) const override {
    if (!table_) return std::make_unique<NexmarkCombinedReader>(config_, split);
    return std::make_unique<NexmarkReader>(config_, *table_, split);
  }
  double rows_per_second() const override {
    if (table_) return NexmarkRowsPerSecondPerSplit(config_, *table_);
    if (config_.min_event_gap_ns <= 0) return 0;
    return 1e9 / double(config_.min_event_gap_ns) / double(std::max(1, config_.split_num));
  }

 private:
  NexmarkConfig config_;
  std::optional<NexmarkTable> table_;
};

// Same names and type ids, fields of structs included (declared VARCHAR or
// TEXT both match the generator's varchar).
bool SameShape(const DataType& a, const DataType& b) {
  if (a.id != b.id) return false;
  if (!a.IsStruct()) return true;
  const auto &fa = a.StructFields(), &fb = b.StructFields();
  if (fa.size() != fb.size()) return false;
  for (size_t i = 0; i < fa.size(); i++)
    if (fa[i].first != fb[i].first || !SameShape(fa[i].second, fb[i].second)) return false;
  return true;
}

}  // namespace

std::unique_ptr<SourceConnector> MakeNexmarkConnector(const std::map<std::string, std::string>& options,
                                                      const std::vector<SourceColumn>& columns) {
  auto type = options.find("nexmark.table.type");
  std::optional<NexmarkTable> table;
  if (type != options.end()) {
    table = NexmarkTableFromName(type->second);
    if (!table)
      throw SqlError(sqlstate::kInvalidParameterValue,
                     "nexmark.table.type must be 'Person', 'Auction' or 'Bid', not '" + type->second + "'");
  }
  NexmarkConfig config;
  for (const auto& [key, value] : options) {
    if (key == "connector" || key == "nexmark.table.type" || key.rfind("_", 0) == 0) continue;
    std::string err = ApplyNexmarkOption(&config, key, value);
    if (err == "unknown") throw SqlError(sqlstate::kInvalidParameterValue, "unknown nexmark option " + key);
    if (!err.empty()) throw SqlError(sqlstate::kInvalidParameterValue, err);
  }
  std::string err = ValidateNexmarkConfig(config);
  if (!err.empty()) throw SqlError(sqlstate::kInvalidParameterValue, err);
  auto expected = table ? NexmarkColumns(*table) : NexmarkCombinedColumns();
  bool match = expected.size() == columns.size();
  for (size_t i = 0; match && i < columns.size(); i++)
    match = expected[i].first == columns[i].name && SameShape(expected[i].second, columns[i].type);
  if (!match) {
    std::string want;
    for (size_t i = 0; i < expected.size(); i++)
      want += (i ? ", " : "") + expected[i].first + " " + expected[i].second.ToString();
    throw SqlError(sqlstate::kInvalidParameterValue,
                   fmt::format("the columns of a nexmark {} source must be ({})",
                               table ? NexmarkTableName(*table) : "combined", want));
  }
  return std::make_unique<NexmarkConnector>(std::move(config), table);
}

}  // namespace freshet
