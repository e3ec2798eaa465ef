// oid and the reg* types (regclass, regtype, regnamespace, regrole,
// regproc): their text input and output, and the catalog functions psql
// and drivers call (pg_get_userbyid, format_type, pg_table_is_visible,
// pg_get_indexdef, ...; registered by RegisterCatalogFunctions).
//
// An oid prints as an unsigned number. The reg* types print as the name
// of the object (regclass: schema-qualified when the search path would not
// find it), or as the number when there is no such object, and "-" for 0,
// like PostgreSQL. Their input accepts a number or a name; names need
// EvalContext::catalog (regtype does not: types are built in).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/types.h"
#include "expr/eval_context.h"

namespace freshet {

std::string FormatOidText(int64_t oid, OidKind kind, const EvalContext& ctx);
// 22P02 on bad numbers, 42P01/42704 for unknown names.
int64_t ParseOidText(std::string_view text, OidKind kind, EvalContext& ctx);

// PostgreSQL's format_type(type_oid, typmod), e.g. "character varying(20)",
// "numeric(10,2)", "integer[]"; nullopt when the oid is not a known type.
std::optional<std::string> FormatTypeName(uint32_t type_oid, int32_t typmod, bool typmod_given = false);

}  // namespace freshet
