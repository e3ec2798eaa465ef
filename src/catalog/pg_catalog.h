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
// psql lists the same schemas as on PostgreSQL. Also only here: the role
// pg_database_owner and the database template0 (below).
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

// What exists only in the catalogs, with PostgreSQL 15's oids: the role
// pg_database_owner (owner of the public schemas) and the database
// template0 (listed, never connected to: 55000).
inline constexpr uint32_t kPgDatabaseOwnerOid = 6171;
inline constexpr const char* kPgDatabaseOwner = "pg_database_owner";
inline constexpr uint32_t kTemplate0Oid = 4;
inline constexpr const char* kTemplate0 = "template0";

const std::vector<SystemTableDef>& PgCatalogDefinitions();
std::vector<Row> GeneratePgCatalogRows(const SystemTableDef& def, const SystemTableContext& ctx);

// True for tables whose declared primary key shows as a "<table>_pkey" index.
bool HasPrimaryKeyIndex(const TableCatalog& t);

// A generated column's expression as pg_get_expr and information_schema
// print it: an operator in its parentheses.
std::string GenerationExpressionText(const ColumnCatalog& col);

// Lookups in `database_id` of `catalog`, resolving unqualified names along
// `search_path` (the session's, "$user" resolved).
std::shared_ptr<const CatalogLookup> MakeCatalogLookup(const Catalog* catalog, ObjectId database_id,
                                                       std::vector<std::string> search_path);

}  // namespace freshet
