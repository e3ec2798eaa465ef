// System tables: read-only relations generated from the catalog when read.
//
// pg_catalog (enough for psql's \l, \dn, \dt, \d, \d+ and drivers'
// metadata queries; catalog/pg_catalog.h), information_schema (tables,
// columns, schemata) and rw_catalog (RisingWave's names). They are resolved by the binder like stored
// relations and scanned by the batch engine's SystemScan, which calls
// GenerateSystemRows with the catalog as it is at that moment.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/value.h"

namespace freshet {

struct SystemColumn {
  std::string name;
  DataType type;
};

struct SystemTableDef {
  std::string schema;
  std::string name;
  std::vector<SystemColumn> columns;
};

// Null when schema.name is not a system table.
const SystemTableDef* FindSystemTable(const std::string& schema, const std::string& name);
bool IsSystemSchema(const std::string& schema);

struct SystemTableContext {
  const Catalog* catalog;
  ObjectId database_id;
  std::string user_name;
};

std::vector<Row> GenerateSystemRows(const SystemTableDef& def, const SystemTableContext& ctx);

// PostgreSQL OIDs we expose for catalog objects: our object ids shifted
// above PostgreSQL's reserved range, so drivers never confuse them. Users
// keep their ids as oids.
inline constexpr uint32_t kObjectOidBase = 100000;
inline uint32_t ObjectOid(ObjectId id) { return kObjectOidBase + id; }

// Objects that exist only as pg_catalog rows get oids derived from their
// table's id, so they are as stable as the table's: the index behind a
// declared primary key (pg_class/pg_index "<table>_pkey") and its
// constraint (pg_constraint).
inline constexpr uint32_t kPrimaryKeyIndexOidBase = 1000000000;
inline constexpr uint32_t kPrimaryKeyConstraintOidBase = 1200000000;
inline uint32_t PrimaryKeyIndexOid(ObjectId table) { return kPrimaryKeyIndexOidBase + table; }
inline uint32_t PrimaryKeyConstraintOid(ObjectId table) { return kPrimaryKeyConstraintOidBase + table; }
// A column default's pg_attrdef row.
inline int64_t AttrDefOid(ObjectId table, int attnum) { return 1400000000LL + int64_t(table) * 1600 + attnum; }

// Fixed oids, as in PostgreSQL.
inline constexpr uint32_t kHeapAmOid = 2;
inline constexpr uint32_t kBtreeAmOid = 403;
inline constexpr uint32_t kDefaultCollationOid = 100;

}  // namespace freshet
