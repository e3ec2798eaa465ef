#include "catalog/timeseries_table.h"

#include <fmt/format.h>

#include "common/datetime.h"
#include "common/error.h"

namespace freshet {

namespace {

std::string Lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<int64_t> TimeToLiveSeconds(const std::string& ttl) {
  const std::string v = Lowered(ttl);
  if (v.empty() || v == "forever") return std::nullopt;
  if (v == "instant") return 0;
  Interval iv;
  try {
    iv = ParseInterval(ttl);
  } catch (const SqlError&) {
    FRESHET_THROW(sqlstate::kInvalidParameterValue,
                  "invalid ttl \"{}\": an interval such as '7d' or '1 hour', 'forever' or 'instant'", ttl);
  }
  const __int128 micros = IntervalCompareKey(iv);
  if (micros <= 0) FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid ttl \"{}\": it must be positive", ttl);
  if (micros / 1000000 > INT64_MAX / 1000000000)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid ttl \"{}\": too long", ttl);
  // Whole seconds, rounded up: a row is kept at least as long as asked.
  return static_cast<int64_t>((micros + 999999) / 1000000);
}

std::map<std::string, std::string> CheckTimeSeriesOptions(const std::map<std::string, std::string>& options) {
  std::map<std::string, std::string> out;
  for (const auto& [raw_key, value] : options) {
    const std::string key = Lowered(raw_key);
    if (key == "ttl") {
      TimeToLiveSeconds(value);
      const std::string v = Lowered(value);
      out[key] = v == "forever" || v == "instant" ? v : value;
    } else if (key == "compaction.type") {
      if (Lowered(value) != "twcs")
        FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid compaction.type \"{}\": only 'twcs' is supported",
                      value);
      out[key] = "twcs";
    } else if (key == "compaction.twcs.time_window") {
      TimeWindowSeconds(value);
      out[key] = value;
    } else if (key == "append_mode") {
      const std::string v = Lowered(value);
      if (v != "true" && v != "false")
        FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid append_mode \"{}\": 'true' or 'false'", value);
      out[key] = v;
    } else {
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "Invalid table option key: {}", raw_key);
    }
  }
  return out;
}

TimeSeriesTableOptions EngineOptionsOf(const TableCatalog& t, const Catalog& catalog) {
  TimeSeriesTableOptions o;
  o.database_id = t.database_id;
  o.desc = t.StorageDesc();
  o.time_index = t.timeseries.time_index;
  // timestamp and timestamptz hold microseconds, timestamp(7..9) nanoseconds.
  o.unit = t.columns[t.timeseries.time_index].type.id == TypeId::kTimestampNs ? TimeUnit::kNanosecond
                                                                               : TimeUnit::kMicrosecond;
  if (std::string window = t.timeseries.Option("compaction.twcs.time_window"); !window.empty())
    o.window_seconds = TimeWindowSeconds(window);
  o.append_mode = t.timeseries.append_mode();
  o.ttl_seconds = TimeToLiveSeconds(catalog.EffectiveTimeToLive(t));
  return o;
}

}  // namespace freshet
