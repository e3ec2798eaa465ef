// The process-wide registry of enum types (common/enum_type.h).

#include "common/enum_type.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "common/error.h"

namespace freshet {

namespace {

struct EnumRegistry {
  std::shared_mutex mu;
  std::map<uint32_t, EnumTypeRef> by_id;
  std::map<uint32_t, std::pair<uint32_t, bool>> by_oid;  // type or array oid -> (id, is the array's)
};

EnumRegistry& Registry() {
  static EnumRegistry* registry = new EnumRegistry();  // never destroyed: types outlive static teardown
  return *registry;
}

}  // namespace

const EnumLabel* EnumTypeInfo::ByPosition(int64_t position) const {
  auto it = std::lower_bound(labels.begin(), labels.end(), position,
                             [](const EnumLabel& l, int64_t p) { return l.position < p; });
  return it != labels.end() && it->position == position ? &*it : nullptr;
}

const EnumLabel* EnumTypeInfo::ByLabel(std::string_view label) const {
  for (const auto& l : labels)
    if (l.label == label) return &l;
  return nullptr;
}

void PublishEnumType(EnumTypeInfo info) {
  std::sort(info.labels.begin(), info.labels.end(), [](const EnumLabel& a, const EnumLabel& b) { return a.position < b.position; });
  auto ref = std::make_shared<const EnumTypeInfo>(std::move(info));
  std::unique_lock lock(Registry().mu);
  Registry().by_oid[ref->oid] = {ref->id, false};
  Registry().by_oid[ref->array_oid] = {ref->id, true};
  Registry().by_id[ref->id] = std::move(ref);
}

void PublishPendingEnumLabels(uint32_t id, const std::vector<EnumLabel>& labels) {
  EnumTypeRef current = FindEnumType(id);
  if (!current) return;
  EnumTypeInfo info = *current;
  for (EnumLabel l : labels)
    if (!info.ByPosition(l.position)) {
      l.pending = true;
      info.labels.push_back(std::move(l));
    }
  PublishEnumType(std::move(info));
}

EnumTypeRef FindEnumType(uint32_t id) {
  std::shared_lock lock(Registry().mu);
  auto it = Registry().by_id.find(id);
  return it == Registry().by_id.end() ? nullptr : it->second;
}

EnumTypeRef FindEnumTypeByOid(uint32_t oid, bool* array) {
  std::shared_lock lock(Registry().mu);
  auto it = Registry().by_oid.find(oid);
  if (it == Registry().by_oid.end()) return nullptr;
  if (array) *array = it->second.second;
  return Registry().by_id.at(it->second.first);
}

std::string EnumLabelText(uint32_t type_id, int64_t position) {
  EnumTypeRef t = FindEnumType(type_id);
  const EnumLabel* l = t ? t->ByPosition(position) : nullptr;
  if (!l) FRESHET_THROW(sqlstate::kInternalError, "invalid internal value for enum: {}", position);
  return l->label;
}

int64_t EnumPositionOf(uint32_t type_id, std::string_view label) {
  EnumTypeRef t = FindEnumType(type_id);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedObject, "type with id {} does not exist", type_id);
  const EnumLabel* l = t->ByLabel(label);
  if (!l)
    FRESHET_THROW(sqlstate::kInvalidTextRepresentation, "invalid input value for enum {}: \"{}\"", t->name, label);
  if (l->pending)
    throw SqlError(sqlstate::kUnsafeNewEnumValueUsage,
                   fmt::format("unsafe use of new value \"{}\" of enum type {}", label, t->name))
        .WithHint("New enum values must be committed before they can be used.");
  return l->position;
}

}  // namespace freshet
