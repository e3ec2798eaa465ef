// Temporary relations (CREATE TEMP TABLE, temporary views) live in a schema
// of their session's own, pg_temp_<pid> as PostgreSQL names them: made on
// the session's first temporary relation, searched before search_path for
// relations (BinderContext::temp_schema), dropped with its contents when
// the session ends, and any left by a crash dropped at the next start
// (Catalog::Open). Other sessions cannot read them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace freshet {

inline constexpr std::string_view kTempSchemaPrefix = "pg_temp_";

inline bool IsTempSchemaName(std::string_view schema) { return schema.starts_with(kTempSchemaPrefix); }

inline std::string TempSchemaName(int32_t session_pid) {
  return std::string(kTempSchemaPrefix) + std::to_string(session_pid);
}

}  // namespace freshet
