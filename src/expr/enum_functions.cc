// enum_first, enum_last and enum_range: an enum type's labels, in order
// (PostgreSQL's; the argument's value matters only to enum_range's
// bounds, its type names the enum: enum_first(NULL::mood)).

#include "common/array.h"
#include "common/enum_type.h"
#include "expr/function_helpers.h"

namespace freshet {

namespace {

// The type's committed labels (not those a transaction is adding).
EnumTypeRef TypeOf(const Vector& arg) {
  EnumTypeRef e = FindEnumType(static_cast<uint32_t>(arg.type().precision));
  if (!e) throw SqlError(sqlstate::kInternalError, "enum type of an argument is not known");
  auto committed = std::make_shared<EnumTypeInfo>(*e);
  std::erase_if(committed->labels, [](const EnumLabel& l) { return l.pending; });
  return committed;
}

// The labels between `low` and `high` (NULL: open) as an array.
std::string RangeOf(const EnumTypeInfo& e, const DataType& type, std::optional<int64_t> low, std::optional<int64_t> high) {
  Vector elems(type);
  for (const auto& l : e.labels)
    if ((!low || l.position >= *low) && (!high || l.position <= *high)) elems.AppendInt(l.position);
  return EncodeArray(elems);
}

}  // namespace

void RegisterEnumFunctions(FunctionRegistry* r) {
  const DataType any = DataType::AnyEnum(), array = DataType::Array(DataType::AnyEnum());
  for (bool first : {true, false}) {
    RegisterFn(r, first ? "enum_first" : "enum_last", {any}, any,
               [first](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
                 EnumTypeRef e = TypeOf(*args[0]);
                 for (size_t i = 0; i < n; i++) {
                   if (e->labels.empty())
                     throw SqlError(sqlstate::kObjectNotInPrerequisiteState, fmt::format("enum {} contains no values", e->name));
                   out->AppendInt(first ? e->labels.front().position : e->labels.back().position);
                 }
               });
  }
  RegisterFn(r, "enum_range", {any}, array, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    EnumTypeRef e = TypeOf(*args[0]);
    for (size_t i = 0; i < n; i++) out->AppendString(RangeOf(*e, args[0]->type(), std::nullopt, std::nullopt));
  });
  RegisterFn(r, "enum_range", {any, any}, array,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
               EnumTypeRef e = TypeOf(*args[0]);
               for (size_t i = 0; i < n; i++) {
                 std::optional<int64_t> low, high;
                 if (!args[0]->IsNull(i)) low = args[0]->GetInt(i);
                 if (!args[1]->IsNull(i)) high = args[1]->GetInt(i);
                 out->AppendString(RangeOf(*e, args[0]->type(), low, high));
               }
             });
}

}  // namespace freshet
