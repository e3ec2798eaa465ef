// Scalar functions and operators.
//
// Every scalar function and operator (`+`, `=`, `||`, `lower`, `clamp`...) is
// registered here under its SQL name with one entry per signature. The
// binder resolves a call by name and argument types (expr/cast.h gives the
// implicit-cast rules) and keeps a pointer to the chosen ScalarFunction,
// which is immutable and lives for the whole process.
//
// Calling convention: `fn(args, n, out, ctx)` evaluates n rows. Each args[i]
// has exactly the declared arg type (the binder inserts casts) and n rows.
// `out` is an empty Vector of return_type; fn appends exactly n values.
// For `strict` functions (the default, like PostgreSQL's STRICT), fn still
// sees every row but must produce NULL where any argument is NULL; the
// helpers in function_helpers.h do that. Errors are thrown as SqlError.
//
// Operators are registered under their symbol ("+", "=", "||", "~~" for
// LIKE, "~~*" for ILIKE); unary minus is "neg", NOT is "not".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/vector.h"
#include "expr/eval_context.h"

namespace freshet {

// pad(character_value, n): a character(n) value with its trailing blanks
// (DataType::Bpchar keeps it without them); added by the binder around
// character(n) arguments of the functions that see the blanks (LIKE,
// octet_length, concat).
inline constexpr const char* kBpcharPadFunction = "bpchar_padded";

using ScalarFn = std::function<void(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx)>;

struct ScalarFunction {
  std::string name;
  std::vector<DataType> arg_types;  // for variadic: the type of every argument
  DataType return_type;
  ScalarFn fn;
  bool variadic = false;  // any number (>= 1) of arguments of arg_types[0]
  // Binder hook for functions whose return type depends on the argument
  // modifiers or that need constant arguments checked at bind time (e.g.
  // clamp's bounds). May be empty.
  std::function<void(const std::vector<DataType>& arg_types)> check;
  // Reads or changes the session or the catalog through EvalContext (the
  // catalog, sequence and admin functions): evaluated only on the
  // statement's own thread. Set by the registry.
  bool session_bound = false;
};

// Whether a function may return another value at each call within one
// statement (PostgreSQL's provolatile 'v': random(), nextval(),
// clock_timestamp()...): such a call cannot be evaluated once for many rows.
bool IsVolatileFunction(std::string_view name);

class FunctionRegistry {
 public:
  static const FunctionRegistry& Instance();

  // All signatures registered under `name` (lower case); null when none.
  const std::vector<ScalarFunction>* Lookup(const std::string& name) const;

  void Register(ScalarFunction f);

  // Every signature, by name (for tools that enumerate the functions, such
  // as tests/corpus/dump_functions.cc).
  const std::unordered_map<std::string, std::vector<ScalarFunction>>& functions() const { return functions_; }

 private:
  FunctionRegistry();
  std::unordered_map<std::string, std::vector<ScalarFunction>> functions_;
  bool registering_session_bound_ = false;  // Register marks functions session_bound
};

// A call of `name`'s registered signature over exactly its arguments'
// types (no casts: for plans built in code, not bound from SQL); XX000
// when there is none.
class Expression;
std::unique_ptr<Expression> CallExactly(const std::string& name, std::vector<std::unique_ptr<Expression>> args);

// Registration entry points, one per file of functions.
void RegisterArithmeticFunctions(FunctionRegistry* r);
void RegisterComparisonFunctions(FunctionRegistry* r);
void RegisterStringFunctions(FunctionRegistry* r);
void RegisterMathFunctions(FunctionRegistry* r);
void RegisterDatetimeFunctions(FunctionRegistry* r);
void RegisterWindowFunctions(FunctionRegistry* r);
void RegisterArrayFunctions(FunctionRegistry* r);    // expr/array_functions.cc
void RegisterStructFunctions(FunctionRegistry* r);   // expr/struct_functions.cc
void RegisterCatalogFunctions(FunctionRegistry* r);  // expr/catalog_functions.cc
void RegisterJsonFunctions(FunctionRegistry* r);     // expr/json_functions.cc
void RegisterEnumFunctions(FunctionRegistry* r);     // expr/enum_functions.cc
void RegisterSequenceFunctions(FunctionRegistry* r); // expr/sequence_functions.cc
void RegisterUuidFunctions(FunctionRegistry* r);     // expr/uuid_functions.cc
void RegisterOrderedSetFunctions(FunctionRegistry* r);  // expr/ordered_set_functions.cc
void RegisterAdminFunctions(FunctionRegistry* r);    // expr/admin_functions.cc

}  // namespace freshet
