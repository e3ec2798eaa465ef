// ALTER SYSTEM: RisingWave's system parameters of the stream engine,
// applied at once and kept across restarts.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "common/error.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

int64_t ParseIntegerSetting(const std::string& name, const std::string& text) {
  try {
    size_t used = 0;
    int64_t value = std::stoll(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return value;
  } catch (...) {
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid value for parameter \"{}\": \"{}\"", name, text);
  }
}

int64_t IntegerSettingValue(const std::string& name, const PgQuery__Node* arg) {
  std::string text;
  if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
    text = std::to_string(arg->a_const->ival->ival);
  else if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_FVAL)
    text = arg->a_const->fval->fval;  // integers past 32 bits come as "floats"
  else if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL)
    text = arg->a_const->sval->sval;
  return ParseIntegerSetting(name, text);
}

void CheckBarrierSetting(const std::string& name, int64_t value) {
  if (name == "barrier_interval_ms" && (value < 10 || value > 3600000))
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "barrier_interval_ms must be between 10 and 3600000");
  if (name == "checkpoint_frequency" && (value < 1 || value > 10000))
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "checkpoint_frequency must be between 1 and 10000");
}

StatementOutcome HandleAlterSystem(const HandlerArgs& args) {
  args.session->PreventInTransactionBlock("ALTER SYSTEM");
  Instance* instance = args.instance();
  const PgQuery__VariableSetStmt* set = args.stmt.node->alter_system_stmt->setstmt;
  std::string name = set->name ? set->name : "";
  static const std::set<std::string> kParameters = {"barrier_interval_ms", "checkpoint_frequency",
                                                    "max_concurrent_creating_streaming_jobs",
                                                    "streaming_state_cache_bytes"};
  if (set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT ||
      set->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET) {
    if (!kParameters.count(name))
      FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized system parameter \"{}\"", name);
    instance->ResetSystemParameter(name);
    return {"ALTER_SYSTEM"};
  }
  if (set->kind != PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE || set->n_args != 1)
    throw SqlError(sqlstate::kFeatureNotSupported, "ALTER SYSTEM supports SET name = value, SET name TO DEFAULT and RESET name");
  if (!kParameters.count(name)) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized system parameter \"{}\"", name);
  int64_t value = IntegerSettingValue(name, set->args[0]);
  if (name == "barrier_interval_ms" || name == "checkpoint_frequency") {
    CheckBarrierSetting(name, value);
    instance->SetSystemParameter(name, value);
  } else if (name == "max_concurrent_creating_streaming_jobs") {
    if (value < 0 || value > 100000)
      FRESHET_THROW(sqlstate::kInvalidParameterValue,
                    "max_concurrent_creating_streaming_jobs must be between 0 (unlimited) and 100000");
    instance->SetSystemParameter(name, value);
  } else if (name == "streaming_state_cache_bytes") {
    if (value < 0)
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "streaming_state_cache_bytes must not be negative");
    instance->SetSystemParameter(name, value);
  } else {
    FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized system parameter \"{}\"", name);
  }
  return {"ALTER_SYSTEM"};
}

}  // namespace freshet
