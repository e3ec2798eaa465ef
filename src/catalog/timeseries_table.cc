#include "catalog/timeseries_table.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>

#include "common/datetime.h"
#include "common/encoding.h"
#include "common/error.h"
#include "sql/parser.h"

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

namespace {

// A rule's literal as a value of partition column `type`.
Value RuleLiteral(const PartitionRuleTerm& term, const DataType& type, const std::string& rule) {
  using Literal = PartitionRuleTerm::Literal;
  auto mismatch = [&] {
    return SqlError(sqlstate::kDatatypeMismatch,
                    fmt::format("partition rule \"{}\" compares column \"{}\" of type {} with {} literal {}", rule,
                                term.column, type.ToString(),
                                term.kind == Literal::kString ? "a string" : term.kind == Literal::kBoolean ? "a boolean" : "a numeric",
                                term.literal));
  };
  try {
    switch (type.id) {
      case TypeId::kBoolean:
        if (term.kind != Literal::kBoolean) throw mismatch();
        return Value::Boolean(term.literal == "true");
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64: {
        if (term.kind != Literal::kInteger && term.kind != Literal::kFloat) throw mismatch();
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(term.literal.c_str(), &end, 10);
        if (*end != '\0') throw mismatch();  // a fraction (integers past int4 come as numeric literals)
        const int64_t limit = type.id == TypeId::kInt16 ? INT16_MAX : type.id == TypeId::kInt32 ? INT32_MAX : INT64_MAX;
        if (errno == ERANGE || v > limit || v < -limit - 1)
          FRESHET_THROW(sqlstate::kNumericValueOutOfRange, "partition rule \"{}\": {} is out of range for type {}", rule,
                        term.literal, type.ToString());
        return Value::FromInt(type, v);
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        if (term.kind != Literal::kInteger && term.kind != Literal::kFloat) throw mismatch();
        const double d = std::strtod(term.literal.c_str(), nullptr);
        return type.id == TypeId::kFloat32 ? Value::Float32(static_cast<float>(d)) : Value::Float64(d);
      }
      case TypeId::kVarchar: {
        if (term.kind != Literal::kString) throw mismatch();
        std::string s = term.literal;
        if (type.IsBpchar())
          while (!s.empty() && s.back() == ' ') s.pop_back();  // character(n) keeps no trailing blanks
        return Value::FromString(type, std::move(s));
      }
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNs:
      case TypeId::kTimestamptz: {  // a timestamptz without a zone is UTC: rules have no session
        if (term.kind != Literal::kString) throw mismatch();
        const std::string& s = term.literal;
        return Value::FromInt(type, type.id == TypeId::kDate          ? ParseDate(s)
                                    : type.id == TypeId::kTime        ? ParseTime(s)
                                    : type.id == TypeId::kTimestamp   ? ParseTimestamp(s)
                                    : type.id == TypeId::kTimestampNs ? ParseTimestampNanos(s)
                                                                      : ParseTimestamptz(s, TimeZone()));
      }
      default: throw mismatch();
    }
  } catch (const SqlError& e) {
    if (e.code() == sqlstate::kDatatypeMismatch || e.code() == sqlstate::kNumericValueOutOfRange) throw;
    throw SqlError(e.code(), fmt::format("partition rule \"{}\": {}", rule, e.message()));
  }
}

}  // namespace

RegionRules RegionRulesOf(const TableCatalog& t) {
  const TimeSeriesCatalog& ts = t.timeseries;
  std::vector<DataType> tag_types;
  for (int k : ts.tags) tag_types.push_back(t.columns[k].type);
  auto tag_of = [&](const std::string& name) -> std::optional<size_t> {
    const int c = t.ColumnIndex(name);
    for (size_t k = 0; k < ts.tags.size(); k++)
      if (ts.tags[k] == c) return k;
    return std::nullopt;
  };
  for (const std::string& column : ts.partition_columns) {
    const int c = t.ColumnIndex(column);
    if (c < 0 || t.columns[c].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" named in PARTITION ON COLUMNS does not exist", column);
    if (!tag_of(column))
      FRESHET_THROW(sqlstate::kInvalidTableDefinition,
                    "partition column \"{}\" must be a PRIMARY KEY column (a row's region is its series')", column);
    if (!IsPartitionableType(t.columns[c].type))
      FRESHET_THROW(sqlstate::kInvalidTableDefinition, "partition column \"{}\" of type {} is not supported", column,
                    t.columns[c].type.ToString());
  }
  auto partition_tag = [&](const std::string& name, const std::string& rule) {
    if (std::find(ts.partition_columns.begin(), ts.partition_columns.end(), name) == ts.partition_columns.end())
      FRESHET_THROW(sqlstate::kUndefinedColumn, "partition rule \"{}\" reads column \"{}\", which PARTITION ON COLUMNS does not name",
                    rule, name);
    return *tag_of(name);
  };
  std::vector<RegionRule> rules;
  for (const std::string& rule : ts.partition_rules) {
    RegionRule conditions;
    for (const PartitionRuleTerm& term : ParsePartitionRule(rule)) {
      RegionCondition c;
      c.tag = partition_tag(term.column, rule);
      c.op = term.op == "="    ? RegionCondition::Op::kEq
             : term.op == "<>" ? RegionCondition::Op::kNe
             : term.op == "<"  ? RegionCondition::Op::kLt
             : term.op == "<=" ? RegionCondition::Op::kLe
             : term.op == ">"  ? RegionCondition::Op::kGt
                               : RegionCondition::Op::kGe;
      if (!term.other_column.empty()) {
        const size_t other = partition_tag(term.other_column, rule);
        if (!(tag_types[other] == tag_types[c.tag]))
          FRESHET_THROW(sqlstate::kDatatypeMismatch, "partition rule \"{}\" compares columns of types {} and {}", rule,
                        tag_types[c.tag].ToString(), tag_types[other].ToString());
        c.other_tag = static_cast<int>(other);
      } else {
        EncodeKeyValue(RuleLiteral(term, tag_types[c.tag], rule), &c.literal);
      }
      conditions.push_back(std::move(c));
    }
    rules.push_back(std::move(conditions));
  }
  RegionRules out(std::move(rules), tag_types, ts.tags);
  // A series' region is read from its key: the tags up to the last one
  // the rules read must split out of it.
  for (size_t k = 0; k < out.TagsSplit(); k++)
    if (!IsPartitionableType(tag_types[k]))
      FRESHET_THROW(sqlstate::kInvalidTableDefinition,
                    "PRIMARY KEY column \"{}\" of type {} comes before a partition column: partition columns must come "
                    "before primary key columns of types other than integer, float, boolean, date, time, timestamp "
                    "and text",
                    t.columns[ts.tags[k]].name, tag_types[k].ToString());
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
  try {
    o.regions = RegionRulesOf(t);
  } catch (const SqlError& e) {
    // Rules of a table created before they were checked: its rows stay in
    // one region rather than the table failing to open.
    spdlog::warn("time-series table \"{}\": its partition rules are not used: {}", t.name, e.message());
  }
  return o;
}

}  // namespace freshet
