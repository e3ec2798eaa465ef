// Regions of a time-series table (issue 21; GreptimeDB's PARTITION ON
// COLUMNS): rule i is region i, a row matching no rule is in the default
// region, numbered after the rules; a table without rules is one region,
// 0. A region's id is (table id << 32) | its number.
//
// A rule is a conjunction of comparisons (=, <>, <, <=, >, >=) of a tag (a
// primary-key column before the time index) with a literal or another tag,
// so a row's region is its series' (engine.h "Layout"). Rules are
// evaluated on the series key's memcomparable bytes: the encoding keeps
// values' order and equality (common/encoding.h), so a tag compares with a
// literal as the bytes of both compare. A NULL tag satisfies no comparison
// (the default region takes it, as SQL's NULL fails the rule). The rules
// are checked when the table is created (catalog/timeseries_table.h):
// tags of types whose key bytes have a fixed or self-delimiting form only
// (integers, floats, booleans, dates, times, timestamps, text).
//
// Thread safety: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/column_predicate.h"
#include "common/types.h"

namespace freshet {

struct RegionCondition {
  enum class Op : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
  size_t tag = 0;           // the tag's position among the tags
  Op op = Op::kEq;
  std::string literal;      // the literal's key bytes (EncodeKeyValue), or
  int other_tag = -1;       // another tag's position (then literal is unused)
};
using RegionRule = std::vector<RegionCondition>;  // every condition holds

class RegionRules {
 public:
  RegionRules() = default;  // one region
  // `tag_types`: the tags' types, in key order; `tag_columns`: their
  // column indices in the table (what scan predicates name).
  RegionRules(std::vector<RegionRule> rules, std::vector<DataType> tag_types, std::vector<int> tag_columns);

  uint32_t count() const { return rules_.empty() ? 1 : static_cast<uint32_t>(rules_.size()) + 1; }
  bool single() const { return rules_.empty(); }

  // The region of a series ([vnode][tags], series_key.h). A key that does
  // not split into the tags' fields (never written by this table) goes to
  // the default region.
  uint32_t RegionOf(std::string_view series) const;

  // The regions that may hold rows satisfying `predicates` (on the table's
  // columns): a region is ruled out when a tag's predicates and the
  // region's comparisons of it with literals leave no value, and the
  // default region when the predicates pin every tag a rule reads (= or
  // IN) to values that all fall in rule regions. Conservative: others stay.
  std::vector<bool> Reachable(const ColumnPredicates& predicates) const;

  // How many tags, from the first, a series key is split into: up to the
  // last one a rule reads (those must be of partitionable types; the
  // others are never looked at).
  size_t TagsSplit() const;

 private:
  // Splits the first TagsSplit() tags' fields out of a series key; false
  // when malformed.
  bool SplitTags(std::string_view series, std::vector<std::string_view>* fields) const;
  bool Holds(const RegionRule& rule, const std::vector<std::string_view>& fields) const;
  // The key bytes a predicate value of tag k stands for; nullopt when it
  // is not of the tag's type.
  std::optional<std::string> KeyOf(size_t k, const Value& v) const;

  std::vector<RegionRule> rules_;
  std::vector<DataType> tag_types_;
  std::vector<int> tag_columns_;
  size_t split_tags_ = 0;
};

// Whether a tag of this type may be a partition column (its key bytes
// split and compare as RegionRules needs).
bool IsPartitionableType(const DataType& t);

}  // namespace freshet
