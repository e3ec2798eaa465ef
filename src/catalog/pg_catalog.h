// pg_catalog: PostgreSQL's system catalogs, generated from Freshet's
// catalog when read (see system_tables.h), with the columns and types that
// psql's \l, \dn, \dt, \d, \d+ and drivers' metadata queries read.
//
// What exists only here: each table with a declared primary key has an
// index relation "<table>_pkey" (pg_class relkind 'i', pg_index,
// pg_attribute) and a primary-key constraint (pg_constraint), with oids
// derived from the table's (system_tables.h). Tables use access method
// heap, indexes btree (pg_am). Features Freshet lacks have empty catalogs
// with the right columns (pg_policy, pg_inherits, pg_statistic_ext,
// pg_publication, ...). rw_catalog is left out of pg_namespace, so that
// psql lists the same schemas as on PostgreSQL.
//
// MakeCatalogLookup implements expr's CatalogLookup over the catalog, for
// regclass & co. and the catalog information functions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "catalog/system_tables.h"
#include "expr/eval_context.h"

namespace freshet {

const std::vector<SystemTableDef>& PgCatalogDefinitions();
std::vector<Row> GeneratePgCatalogRows(const SystemTableDef& def, const SystemTableContext& ctx);

// True for tables whose declared primary key shows as a "<table>_pkey" index.
bool HasPrimaryKeyIndex(const TableCatalog& t);

// Lookups in `database_id` of `catalog`, resolving unqualified names along
// `search_path` (the session's, "$user" resolved).
std::shared_ptr<const CatalogLookup> MakeCatalogLookup(const Catalog* catalog, ObjectId database_id,
                                                       std::vector<std::string> search_path);

}  // namespace freshet
