// Enum types (CREATE TYPE ... AS ENUM), as the rest of the system sees them.
//
// A DataType of id kEnum keeps its enum type's catalog id in `precision`
// (-1: any enum, the polymorphic argument type of the functions and
// operators every enum has). A value is the label's sort position, an
// int64: comparisons, keys, hashing and sorting are int64's, and the order
// is the declaration order PostgreSQL gives enums. Positions are spaced
// kEnumPositionGap apart when a type is created or a value added at the
// end, so that ADD VALUE ... BEFORE/AFTER takes the midpoint of two
// neighbours and no stored value is ever renumbered (RENAME VALUE changes
// only the label a position prints as).
//
// The labels live in a process-wide registry that the catalog keeps current
// (catalog/catalog.h publishes every enum type it loads, creates or
// alters), so that text and binary I/O, casts and JSON reach them wherever
// values are formatted (sinks and stream jobs have no catalog at hand).
// Positions are never reused, so a value always prints as the label its
// position has now. Type ids come from the catalog's object counter and
// are never given twice within one store; a process runs one store.
//
// Thread safety: all functions are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace freshet {

inline constexpr int64_t kEnumPositionGap = int64_t{1} << 40;

struct EnumLabel {
  int64_t position = 0;  // the stored value
  std::string label;
  uint32_t oid = 0;      // pg_enum.oid
  // Added by a transaction not yet committed: not usable (55P04), as
  // PostgreSQL's values added by ALTER TYPE ... ADD VALUE in a block.
  bool pending = false;
};

struct EnumTypeInfo {
  uint32_t id = 0;          // catalog id (DataType::precision)
  uint32_t oid = 0;         // pg_type.oid
  uint32_t array_oid = 0;   // the oid of its array type
  std::string name;         // pg_type.typname (unquoted)
  std::vector<EnumLabel> labels;  // by position

  // The label at `position`; null when there is none.
  const EnumLabel* ByPosition(int64_t position) const;
  const EnumLabel* ByLabel(std::string_view label) const;
  // PostgreSQL's pg_enum.enumsortorder (a float4): the position in gaps.
  static float SortOrder(int64_t position) { return static_cast<float>(static_cast<double>(position) / kEnumPositionGap); }
};

using EnumTypeRef = std::shared_ptr<const EnumTypeInfo>;

// Makes `info` the current definition of enum type info.id.
void PublishEnumType(EnumTypeInfo info);
// Adds `labels` (positions the type does not have yet) as pending ones.
void PublishPendingEnumLabels(uint32_t id, const std::vector<EnumLabel>& labels);
// The current definition; null when no such type was published.
EnumTypeRef FindEnumType(uint32_t id);
// The type whose pg_type oid (or whose array type's oid, `*array` set) is
// `oid`; null when none.
EnumTypeRef FindEnumTypeByOid(uint32_t oid, bool* array = nullptr);

// Text I/O: a value's label (XX000 for a position that has none) and a
// label's value (22P02 "invalid input value for enum ..." when the type
// has no such label; 55P04 for a pending label).
std::string EnumLabelText(uint32_t type_id, int64_t position);
int64_t EnumPositionOf(uint32_t type_id, std::string_view label);

}  // namespace freshet
