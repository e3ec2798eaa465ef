// Key layout of the data column family (DESIGN.md §3):
//   [table_id: 4 bytes BE][vnode: 2 bytes BE][memcomparable pk]
// and of the meta column family:
//   "catalog/<kind>/<id>" -> JSON, "epoch/<database_id>" -> committed epoch.
#pragma once

#include <cstdint>
#include <string>

#include "common/encoding.h"

namespace freshet {

using TableId = uint32_t;
using Epoch = uint64_t;

inline constexpr int kVnodeCount = 256;

inline std::string TablePrefix(TableId table_id) {
  std::string k;
  PutFixed32BE(&k, table_id);
  return k;
}

inline std::string VnodePrefix(TableId table_id, uint16_t vnode) {
  std::string k = TablePrefix(table_id);
  PutFixed16BE(&k, vnode);
  return k;
}

inline std::string EpochMetaKey(uint32_t database_id) { return "epoch/" + std::to_string(database_id); }

}  // namespace freshet
