// GreptimeDB's admin functions on time-series tables (issue 21, item 5;
// ../shared/reference/greptimedb.md, "Admin functions"), called as
// SELECT f(...) or ADMIN f(...) (sql/parser.cc reads ADMIN as SELECT):
//
//   flush_table(name)    name: 't', 'schema.t' or 'database.schema.t'
//   flush_region(id)     a region id, (table id << 32) | region number
//   compact_table(name), compact_region(id)
//   migrate_region(region, from_peer, to_peer[, replay_timeout_secs])
//   procedure_state(procedure_id)
//
// flush_* return the rows flushed (GreptimeDB returns 0; the count is more
// useful). compact_* apply the table's TTL at once and merge each time
// window's files into one; they return the rows TTL removed plus the rows
// of the files merged. migrate_region: NULL when an argument is NULL; for
// an existing region an error, as a single-node deployment has no other
// peer. procedure_state: GreptimeDB's JSON, {"status":"Done","error":null}
// (status Running, Done or Failed; error a string when it failed), for
// the procedures of common/procedures.h; an unknown id is 42704.
//
// The argument errors are GreptimeDB's: a wrong number of arguments, "The
// length of the args is not correct, expect 1, have: N" ("expect exactly
// 3 or 4" for migrate_region); a NULL or a number where a name goes (or
// the reverse), "Unsupported input datatypes ... for function f" (22023
// both). Volatile: evaluated once per row, never folded.
#include <fmt/format.h>

#include "expr/function_helpers.h"
#include "expr/function_registry.h"

namespace freshet {

namespace {

SessionAccess& Session(const EvalContext& ctx, const char* function) {
  if (!ctx.session) FRESHET_THROW(sqlstate::kFeatureNotSupported, "{} needs a session", function);
  return *ctx.session;
}

[[noreturn]] void WrongCount(size_t have, const char* expected = "1") {
  FRESHET_THROW(sqlstate::kInvalidParameterValue, "The length of the args is not correct, expect {}, have: {}",
                expected, have);
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
  const DataType text = DataType(TypeId::kVarchar), i8 = DataType::Int64();
  // migrate_region: 3 or 4 numbers.
  for (size_t count : {size_t{3}, size_t{4}}) {
    RegisterFn(r, "migrate_region", std::vector<DataType>(count, i8), text,
               [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
                 for (size_t i = 0; i < n; i++) {
                   bool any_null = false;
                   for (const Vector* a : args) any_null |= a->IsNull(i);
                   if (any_null) {
                     out->AppendNull();
                     continue;
                   }
                   Session(ctx, "migrate_region")
                       .TimeSeriesRegionAction(SessionAccess::TimeSeriesAction::kMigrate, args[0]->GetInt(i));
                   out->AppendNull();  // not reached: no region can move
                 }
               });
    RegisterFn(r, "migrate_region", std::vector<DataType>(count, text), text,
               [](const std::vector<const Vector*>&, size_t, Vector*, EvalContext&) {
                 Unsupported("migrate_region", "Utf8");
               });
  }
  for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{5}})
    RegisterFn(r, "migrate_region", std::vector<DataType>(count, i8), text,
               [count](const std::vector<const Vector*>&, size_t, Vector*, EvalContext&) {
                 WrongCount(count, "exactly 3 or 4");
               });
  // procedure_state: one string.
  RegisterFn(r, "procedure_state", {text}, text,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i)) Unsupported("procedure_state", "Null");
                 const std::string id(args[0]->GetString(i));
                 std::optional<std::string> json = Session(ctx, "procedure_state").ProcedureStateJson(id);
                 if (!json) FRESHET_THROW(sqlstate::kUndefinedObject, "Procedure not found, procedure_id: {}", id);
                 out->AppendString(*json);
               }
             });
  RegisterFn(r, "procedure_state", {i8}, text, [](const std::vector<const Vector*>&, size_t, Vector*, EvalContext&) {
    Unsupported("procedure_state", "Int64");
  });
  for (size_t count : {size_t{0}, size_t{2}})
    RegisterFn(r, "procedure_state", std::vector<DataType>(count, text), text,
               [count](const std::vector<const Vector*>&, size_t, Vector*, EvalContext&) { WrongCount(count); });
}

}  // namespace freshet
