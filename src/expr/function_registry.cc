#include "expr/function_registry.h"

#include "common/error.h"
#include "expr/expression.h"

#include <set>

namespace freshet {

bool IsVolatileFunction(std::string_view name) {
  static const std::set<std::string_view> kVolatile = {
      "random",         "setseed",           "clock_timestamp",       "timeofday",
      "gen_random_uuid", "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4", "nextval",          "currval",               "lastval",
      "setval",         "set_config",        "pg_sleep",              "pg_sleep_for",
      "pg_sleep_until", "pg_advisory_lock",  "pg_try_advisory_lock",  "pg_advisory_unlock",
      "pg_advisory_xact_lock", "pg_try_advisory_xact_lock", "pg_advisory_unlock_all",
      "pg_advisory_lock_shared", "pg_try_advisory_lock_shared", "pg_advisory_unlock_shared",
      "pg_advisory_xact_lock_shared", "pg_try_advisory_xact_lock_shared",
      "pg_cancel_backend", "pg_terminate_backend", "pg_notify", "pg_export_snapshot",
      // GreptimeDB's admin functions (admin_functions.cc)
      "flush_table", "flush_region", "compact_table", "compact_region", "migrate_region", "procedure_state"};
  return kVolatile.count(name) > 0;
}

const FunctionRegistry& FunctionRegistry::Instance() {
  static const FunctionRegistry* registry = new FunctionRegistry();  // never destroyed
  return *registry;
}

FunctionRegistry::FunctionRegistry() {
  RegisterArithmeticFunctions(this);
  RegisterComparisonFunctions(this);
  RegisterStringFunctions(this);
  RegisterMathFunctions(this);
  RegisterDatetimeFunctions(this);
  RegisterWindowFunctions(this);
  RegisterArrayFunctions(this);
  RegisterStructFunctions(this);
  registering_session_bound_ = true;
  RegisterCatalogFunctions(this);
  RegisterSequenceFunctions(this);
  registering_session_bound_ = false;
  RegisterJsonFunctions(this);
  RegisterEnumFunctions(this);
  registering_session_bound_ = true;
  RegisterAdminFunctions(this);
  registering_session_bound_ = false;
  RegisterUuidFunctions(this);
  RegisterOrderedSetFunctions(this);
}

const std::vector<ScalarFunction>* FunctionRegistry::Lookup(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::unique_ptr<Expression> CallExactly(const std::string& name, std::vector<std::unique_ptr<Expression>> args) {
  std::vector<DataType> types;
  for (const auto& a : args) types.push_back(a->type());
  if (const auto* all = FunctionRegistry::Instance().Lookup(name))
    for (const ScalarFunction& f : *all)
      if (!f.variadic && f.arg_types == types) return std::make_unique<FunctionExpr>(&f, std::move(args));
  FRESHET_THROW(sqlstate::kInternalError, "no function {} over these argument types", name);
}

void FunctionRegistry::Register(ScalarFunction f) {
  if (registering_session_bound_) f.session_bound = true;
  std::string name = f.name;
  functions_[name].push_back(std::move(f));
}

}  // namespace freshet
