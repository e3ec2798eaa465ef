#include "storage/timeseries/regions.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "common/encoding.h"

namespace freshet {

namespace {

constexpr char kNotNullMarker = 0x01;  // common/encoding.cc's markers
constexpr size_t kMaxCombinations = 4096;

int CompareBytes(std::string_view a, std::string_view b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  return c != 0 ? c : a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

bool Satisfies(int c, RegionCondition::Op op) {
  switch (op) {
    case RegionCondition::Op::kEq: return c == 0;
    case RegionCondition::Op::kNe: return c != 0;
    case RegionCondition::Op::kLt: return c < 0;
    case RegionCondition::Op::kLe: return c <= 0;
    case RegionCondition::Op::kGt: return c > 0;
    case RegionCondition::Op::kGe: return c >= 0;
  }
  return false;
}

// The values of one tag some conditions leave: an interval of key bytes,
// or a set of points within it.
struct KeyRange {
  std::optional<std::string> lo, hi;
  bool lo_inclusive = true, hi_inclusive = true;
  std::optional<std::vector<std::string>> points;

  void Lower(const std::string& v, bool inclusive) {
    const int c = lo ? CompareBytes(v, *lo) : 1;
    if (c > 0 || (c == 0 && !inclusive)) lo = v, lo_inclusive = inclusive;
  }
  void Upper(const std::string& v, bool inclusive) {
    const int c = hi ? CompareBytes(v, *hi) : -1;
    if (c < 0 || (c == 0 && !inclusive)) hi = v, hi_inclusive = inclusive;
  }
  void Only(std::vector<std::string> values) {
    if (points) std::erase_if(values, [&](const std::string& v) { return std::find(points->begin(), points->end(), v) == points->end(); });
    points = std::move(values);
  }
  void Apply(RegionCondition::Op op, const std::string& v) {
    switch (op) {
      case RegionCondition::Op::kEq: Only({v}); break;
      case RegionCondition::Op::kNe:
        if (points) std::erase(*points, v);
        break;
      case RegionCondition::Op::kLt: Upper(v, false); break;
      case RegionCondition::Op::kLe: Upper(v, true); break;
      case RegionCondition::Op::kGt: Lower(v, false); break;
      case RegionCondition::Op::kGe: Lower(v, true); break;
    }
  }
  bool Within(const std::string& v) const {
    if (lo) {
      const int c = CompareBytes(v, *lo);
      if (c < 0 || (c == 0 && !lo_inclusive)) return false;
    }
    if (hi) {
      const int c = CompareBytes(v, *hi);
      if (c > 0 || (c == 0 && !hi_inclusive)) return false;
    }
    return true;
  }
  // The points left, when the range is a set of them.
  std::optional<std::vector<std::string>> Points() const {
    if (!points) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& p : *points)
      if (Within(p)) out.push_back(p);
    return out;
  }
  bool Empty() const {
    if (points) return Points()->empty();
    if (!lo || !hi) return false;
    const int c = CompareBytes(*lo, *hi);
    return c > 0 || (c == 0 && !(lo_inclusive && hi_inclusive));
  }
};

}  // namespace

bool IsPartitionableType(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kFloat32: case TypeId::kFloat64: case TypeId::kDate: case TypeId::kTime:
    case TypeId::kTimestamp: case TypeId::kTimestamptz: case TypeId::kTimestampNs:
      return true;
    case TypeId::kVarchar: return !t.IsJsonb();  // jsonb's key bytes are its sort key, not its text
    default: return false;
  }
}

RegionRules::RegionRules(std::vector<RegionRule> rules, std::vector<DataType> tag_types, std::vector<int> tag_columns)
    : rules_(std::move(rules)), tag_types_(std::move(tag_types)), tag_columns_(std::move(tag_columns)) {
  for (const RegionRule& rule : rules_)
    for (const RegionCondition& c : rule)
      split_tags_ = std::max({split_tags_, c.tag + 1, static_cast<size_t>(c.other_tag + 1)});
}

size_t RegionRules::TagsSplit() const { return split_tags_; }

bool RegionRules::SplitTags(std::string_view series, std::vector<std::string_view>* fields) const {
  fields->clear();
  if (series.size() < 2) return false;
  size_t at = 2;  // the vnode
  for (size_t k = 0; k < split_tags_; k++) {
    const DataType& type = tag_types_[k];
    if (at >= series.size()) return false;
    const size_t start = at;
    if (series[at++] != kNotNullMarker) {  // NULL: the marker alone
      fields->push_back(series.substr(start, 1));
      continue;
    }
    if (type.physical() == PhysicalType::kString) {
      // Bytes up to the terminator 0x00 0x01 (0x00 0xFF is an escaped 0).
      while (true) {
        if (at + 1 >= series.size()) return false;
        if (series[at] == 0 && series[at + 1] == 1) break;
        at += series[at] == 0 ? 2 : 1;
      }
      at += 2;
    } else {
      at += 8;
      if (at > series.size()) return false;
    }
    fields->push_back(series.substr(start, at - start));
  }
  return true;  // the tags after those the rules read are not looked at
}

bool RegionRules::Holds(const RegionRule& rule, const std::vector<std::string_view>& fields) const {
  for (const RegionCondition& c : rule) {
    std::string_view left = fields[c.tag];
    std::string_view right = c.other_tag >= 0 ? fields[c.other_tag] : std::string_view(c.literal);
    if (left.empty() || right.empty() || left[0] != kNotNullMarker || right[0] != kNotNullMarker) return false;
    if (!Satisfies(CompareBytes(left, right), c.op)) return false;
  }
  return true;
}

uint32_t RegionRules::RegionOf(std::string_view series) const {
  if (rules_.empty()) return 0;
  std::vector<std::string_view> fields;
  if (!SplitTags(series, &fields)) return static_cast<uint32_t>(rules_.size());
  for (size_t r = 0; r < rules_.size(); r++)
    if (Holds(rules_[r], fields)) return static_cast<uint32_t>(r);
  return static_cast<uint32_t>(rules_.size());
}

std::optional<std::string> RegionRules::KeyOf(size_t k, const Value& v) const {
  if (v.is_null() || v.type().id != tag_types_[k].id) return std::nullopt;
  std::string key;
  EncodeKeyValue(v, &key);
  return key;
}

std::vector<bool> RegionRules::Reachable(const ColumnPredicates& predicates) const {
  std::vector<bool> reachable(count(), true);
  if (rules_.empty()) return reachable;
  // What the predicates leave of each tag.
  std::vector<KeyRange> allowed(tag_types_.size());
  for (size_t k = 0; k < tag_types_.size(); k++) {
    for (const ColumnPredicate& p : predicates) {
      if (p.column != tag_columns_[k]) continue;
      if (p.op == ColumnPredicate::Op::kIn) {
        std::vector<std::string> keys;
        bool typed = true;
        for (const Value& v : p.values) {
          std::optional<std::string> key = KeyOf(k, v);
          if (!key) typed = false;
          else keys.push_back(std::move(*key));
        }
        if (typed) allowed[k].Only(std::move(keys));
        continue;
      }
      std::optional<std::string> key = KeyOf(k, p.value);
      if (!key) continue;
      const RegionCondition::Op op = p.op == ColumnPredicate::Op::kEq   ? RegionCondition::Op::kEq
                                     : p.op == ColumnPredicate::Op::kLt ? RegionCondition::Op::kLt
                                     : p.op == ColumnPredicate::Op::kLe ? RegionCondition::Op::kLe
                                     : p.op == ColumnPredicate::Op::kGt ? RegionCondition::Op::kGt
                                                                        : RegionCondition::Op::kGe;
      allowed[k].Apply(op, *key);
    }
  }
  // A rule region: each tag's comparisons with literals narrow the range.
  for (size_t r = 0; r < rules_.size(); r++) {
    std::vector<KeyRange> ranges = allowed;
    for (const RegionCondition& c : rules_[r])
      if (c.other_tag < 0) ranges[c.tag].Apply(c.op, c.literal);
    reachable[r] = std::none_of(ranges.begin(), ranges.end(), [](const KeyRange& k) { return k.Empty(); });
  }
  // The default region: ruled out when the tags the rules read are pinned
  // and every combination of their values falls in a rule region.
  std::vector<size_t> read;
  for (const RegionRule& rule : rules_)
    for (const RegionCondition& c : rule) {
      read.push_back(c.tag);
      if (c.other_tag >= 0) read.push_back(static_cast<size_t>(c.other_tag));
    }
  std::sort(read.begin(), read.end());
  read.erase(std::unique(read.begin(), read.end()), read.end());
  std::map<size_t, std::vector<std::string>> choices;
  size_t combinations = 1;
  for (size_t k : read) {
    std::optional<std::vector<std::string>> points = allowed[k].Points();
    if (!points) return reachable;
    combinations *= std::max<size_t>(points->size(), 1);
    if (combinations > kMaxCombinations) return reachable;
    choices[k] = std::move(*points);
  }
  for (const auto& [k, values] : choices)
    if (values.empty()) return reachable;  // no row at all: nothing to rule out by
  std::vector<std::string_view> fields(split_tags_);
  std::vector<size_t> at(read.size(), 0);
  for (size_t n = 0; n < combinations; n++) {
    for (size_t i = 0; i < read.size(); i++) fields[read[i]] = choices[read[i]][at[i]];
    bool in_rule = false;
    for (const RegionRule& rule : rules_) in_rule = in_rule || Holds(rule, fields);
    if (!in_rule) return reachable;
    for (size_t i = 0; i < read.size() && ++at[i] == choices[read[i]].size(); i++) at[i] = 0;
  }
  reachable[rules_.size()] = false;
  return reachable;
}

}  // namespace freshet
