// System tables: read-only relations generated from the catalog when read.
//
// pg_catalog (enough for psql's \l, \dn, \dt, \d and drivers' metadata
// queries), information_schema (tables, columns, schemata) and rw_catalog
// (RisingWave's names). They are resolved by the binder like stored
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
// above PostgreSQL's reserved range, so drivers never confuse them.
inline uint32_t ObjectOid(ObjectId id) { return 100000 + id; }

}  // namespace freshet
