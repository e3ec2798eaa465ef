// CREATE EXTENSION: Freshet has no extensions. What frameworks enable by
// habit is skipped with a notice when asked IF NOT EXISTS: plpgsql (Rails'
// schema.rb starts with it; PL/pgSQL functions themselves are refused) and
// pgcrypto (enabled for gen_random_uuid(), which is built in). Anything
// else, or either without IF NOT EXISTS, is 0A000.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <string>

#include "common/error.h"
#include "frontend/handler/handler.h"

namespace freshet {

StatementOutcome HandleCreateExtension(const HandlerArgs& args) {
  const PgQuery__CreateExtensionStmt* s = args.stmt.node->create_extension_stmt;
  const std::string name = s->extname ? s->extname : "";
  const bool skippable = name == "plpgsql" || name == "pgcrypto";
  if (skippable && s->if_not_exists) {
    args.sink->Notice(fmt::format("extension \"{}\" is not available, skipping{}", name,
                                  name == "pgcrypto" ? " (gen_random_uuid() is built in)"
                                                     : " (functions in PL/pgSQL are not supported)"));
    return {"CREATE EXTENSION"};
  }
  SqlError e(sqlstate::kFeatureNotSupported, fmt::format("extension \"{}\" is not supported", name));
  if (name == "pgcrypto" || name == "uuid-ossp") e.WithHint("gen_random_uuid() is built in.");
  throw e;
}

}  // namespace freshet
