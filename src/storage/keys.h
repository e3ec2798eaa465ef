// Key layout of the data column family (docs/architecture.md, Invariants):
//   [table_id: 4 bytes BE][vnode: 2 bytes BE][memcomparable pk]
// and of the meta column family:
//   "catalog/<kind>/<id>" -> JSON, "epoch/<database_id>" -> committed epoch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// The vnode of a data-family key (0 for a key too short).
inline uint16_t VnodeOfKey(std::string_view key) { return key.size() < 6 ? 0 : GetFixed16BE(key.data() + 4); }
// The memcomparable primary key of a row's storage key (after table and vnode).
inline std::string_view PkOfKey(std::string_view key) { return key.size() < 6 ? std::string_view() : key.substr(6); }
// The table id a data-family key starts with (0 for a key too short).
inline TableId TableIdOfKey(std::string_view key) {
  if (key.size() < 4) return 0;
  return static_cast<TableId>(static_cast<uint8_t>(key[0])) << 24 | static_cast<TableId>(static_cast<uint8_t>(key[1])) << 16 |
         static_cast<TableId>(static_cast<uint8_t>(key[2])) << 8 | static_cast<uint8_t>(key[3]);
}
inline std::string EpochMetaKey(uint32_t database_id) { return "epoch/" + std::to_string(database_id); }
// A relation's row count (decimal), committed with each epoch that changes
// it; written as 0 when the relation is created. Statistics: exact for
// streams and for DML that does not race (two sessions deleting the same
// row both count it).
inline std::string RowCountMetaKey(uint32_t table_id) { return "stats/rows/" + std::to_string(table_id); }
// ALTER SYSTEM's parameters: the prefix and the key of one.
inline constexpr const char* kSystemParameterPrefix = "system/";
inline std::string SystemParameterKey(const std::string& name) { return kSystemParameterPrefix + name; }
// The highest DML log sequence number (dml_log.h) a database's committed
// epochs cover; stored by the commit that covers it.
inline std::string DmlLogCoveredKey(uint32_t database_id) { return "dmllog/covered/" + std::to_string(database_id); }

}  // namespace freshet
