// GreptimeDB's admin functions on time-series tables (issue 21, item 5;
// ../shared/reference/greptimedb.md, "Admin functions"), called as
// SELECT f(...) or ADMIN f(...) (sql/parser.cc reads ADMIN as SELECT):
//
//   flush_table(name)    name: 't', 'schema.t' or 'database.schema.t'
//   flush_region(id)     a region id, (table id << 32) | region number
//   compact_table(name), compact_region(id)
//
// flush_* return the rows flushed (GreptimeDB returns 0; the count is more
// useful). compact_* apply the table's TTL at once and return the rows it
// removed; merging a window's files is not built yet (docs/status.md). The argument errors are GreptimeDB's: a wrong number of
// arguments, "The length of the args is not correct, expect 1, have: N";
// a NULL or a number where a name goes (or the reverse), "Unsupported
// input datatypes ... for function f" (22023 both). Volatile: evaluated
// once per row, never folded.
#include <fmt/format.h>

#include "expr/function_helpers.h"
#include "expr/function_registry.h"

namespace freshet {

namespace {

SessionAccess& Session(const EvalContext& ctx, const char* function) {
  if (!ctx.session) FRESHET_THROW(sqlstate::kFeatureNotSupported, "{} needs a session", function);
  return *ctx.session;
}

[[noreturn]] void WrongCount(size_t have) {
  FRESHET_THROW(sqlstate::kInvalidParameterValue, "The length of the args is not correct, expect 1, have: {}", have);
}

[[noreturn]] void Unsupported(const char* function, const std::string& type) {
  FRESHET_THROW(sqlstate::kInvalidParameterValue, "Unsupported input datatypes [{}] for function {}", type, function);
}

// Registers `name` taking one argument of `type`, the same name over the
// other argument kind, and over 0, 2 and 3 arguments, which throw as
// GreptimeDB does.
void RegisterAdmin(FunctionRegistry* r, const char* name, bool takes_name,
                   const std::function<int64_t(SessionAccess&, const Vector&, size_t)>& call) {
  const DataType text = DataType(TypeId::kVarchar), i8 = DataType::Int64();
  RegisterFn(r, name, {takes_name ? text : i8}, i8,
             [name, call](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i)) Unsupported(name, "Null");
                 out->AppendInt(call(Session(ctx, name), *args[0], i));
               }
             });
  RegisterFn(r, name, {takes_name ? i8 : text}, i8,
             [name, takes_name](const std::vector<const Vector*>&, size_t, Vector*, EvalContext&) {
               Unsupported(name, takes_name ? "Int64" : "Utf8");
             });
  for (size_t count : {size_t{0}, size_t{2}, size_t{3}})
    RegisterFn(r, name, std::vector<DataType>(count, takes_name ? text : i8), i8,
               [count](const std::vector<const Vector*>&, size_t, Vector*, EvalContext&) { WrongCount(count); });
}

}  // namespace

void RegisterAdminFunctions(FunctionRegistry* r) {
  using Action = SessionAccess::TimeSeriesAction;
  for (const auto& names : {std::tuple{"flush_table", "flush_region", Action::kFlush},
                            std::tuple{"compact_table", "compact_region", Action::kCompact}}) {
    const char* table_fn = std::get<0>(names);
    const char* region_fn = std::get<1>(names);
    const Action action = std::get<2>(names);
    RegisterAdmin(r, table_fn, true, [action](SessionAccess& s, const Vector& arg, size_t i) {
      return s.TimeSeriesTableAction(action, std::string(arg.GetString(i)));
    });
    RegisterAdmin(r, region_fn, false, [action](SessionAccess& s, const Vector& arg, size_t i) {
      return s.TimeSeriesRegionAction(action, arg.GetInt(i));
    });
  }
}

}  // namespace freshet
