#include "expr/function_registry.h"

namespace freshet {

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
  RegisterCatalogFunctions(this);
  RegisterSequenceFunctions(this);
  RegisterJsonFunctions(this);
}

const std::vector<ScalarFunction>* FunctionRegistry::Lookup(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

void FunctionRegistry::Register(ScalarFunction f) {
  std::string name = f.name;
  functions_[name].push_back(std::move(f));
}

}  // namespace freshet
