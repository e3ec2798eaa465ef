// CREATE EXTENSION: Freshet has no extensions. What frameworks enable by
// habit is skipped with a notice when asked IF NOT EXISTS: plpgsql (Rails'
// schema.rb starts with it; PL/pgSQL functions themselves are refused),
// pgcrypto (enabled for gen_random_uuid()) and uuid-ossp (TypeORM's, for
// uuid_generate_v4()), whose uuid functions are built in
// (expr/uuid_functions.cc). Anything else, or any without IF NOT EXISTS,
// is 0A000.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <string>

#include "common/error.h"
#include "frontend/handler/handler.h"

namespace freshet {

StatementOutcome HandleCreateExtension(const HandlerArgs& args) {
  const PgQuery__CreateExtensionStmt* s = args.stmt.node->create_extension_stmt;
  const std::string name = s->extname ? s->extname : "";
  const bool uuids = name == "pgcrypto" || name == "uuid-ossp";
  const char* why = name == "pgcrypto"    ? " (gen_random_uuid() is built in)"
                    : name == "uuid-ossp" ? " (its uuid_generate_v1/v3/v4/v5 functions are built in)"
                                          : " (functions in PL/pgSQL are not supported)";
  if ((uuids || name == "plpgsql") && s->if_not_exists) {
    args.sink->Notice(fmt::format("extension \"{}\" is not available, skipping{}", name, why));
    return {"CREATE EXTENSION"};
  }
  SqlError e(sqlstate::kFeatureNotSupported, fmt::format("extension \"{}\" is not supported", name));
  if (uuids) e.WithHint(name == "pgcrypto" ? "gen_random_uuid() is built in." : "Its uuid functions are built in.");
  throw e;
}

}  // namespace freshet
