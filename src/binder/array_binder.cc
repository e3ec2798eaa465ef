// Binding of array expressions: ARRAY[...], op ANY/ALL (array), ||, subscripts,
// and the coercions and operator resolution rules arrays add (expr/array.h).

#include <fmt/format.h>

#include "binder/expression_binder.h"
#include "common/error.h"
#include "expr/array.h"
#include "expr/struct.h"
#include "expr/cast.h"

namespace freshet {

namespace {

bool IsComparison(const std::string& op) {
  return op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

}  // namespace

ExprPtr Binder::ExprBinder::BindArrayExpr(const PgQuery__AArrayExpr* a, const DataType* element_hint) {
  std::vector<ExprPtr> elems;
  for (size_t i = 0; i < a->n_elements; i++) {
    if (a->elements[i]->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR)
      throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
    elems.push_back(Bind(a->elements[i]));
  }
  DataType elem;
  if (element_hint) {
    elem = *element_hint;
    for (auto& e : elems) e = Coerce(std::move(e), elem, true);
  } else {
    if (elems.empty())
      binder_->ThrowAt("42P18", a->location, "cannot determine type of empty array");
    std::vector<const Expression*> raw;
    for (auto& e : elems) raw.push_back(e.get());
    elem = UnifyTypes(raw, "ARRAY", a->location);
    if (elem.IsArray()) throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
    for (auto& e : elems) e = Coerce(std::move(e), elem);
  }
  return std::make_unique<ArrayConstructorExpr>(DataType::Array(elem), std::move(elems));
}

ExprPtr Binder::ExprBinder::BindArrayAnyAll(const PgQuery__AExpr* e) {
  bool any = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP_ANY;
  std::string op = e->n_name ? e->name[e->n_name - 1]->string->sval : "=";
  ExprPtr left = Bind(e->lexpr);
  ExprPtr right = Bind(e->rexpr);
  if (right->type().id == TypeId::kUnknown) {
    DataType elem = left->type().id == TypeId::kUnknown ? DataType::Text() : left->type();
    right = Coerce(std::move(right), DataType::Array(elem));
  }
  if (!right->type().IsArray())
    binder_->ThrowAt(sqlstate::kWrongObjectType, e->location,
                     fmt::format("op {}/{} (array) requires array on right side", "ANY", "ALL"));
  DataType elem = right->type().ElementType();
  std::vector<ExprPtr> probe;
  probe.push_back(std::move(left));
  probe.push_back(std::make_unique<ConstantExpr>(Value::Null(elem)));
  ExprPtr cmp = MakeCall(op, std::move(probe), e->location);
  if (cmp->type().id != TypeId::kBoolean)
    binder_->ThrowAt(sqlstate::kWrongObjectType, e->location, "op ANY/ALL (array) requires operator to yield boolean");
  const ScalarFunction* fn = static_cast<FunctionExpr*>(cmp.get())->function();
  DataType want = fn->variadic ? fn->arg_types[0] : fn->arg_types[1];
  if (!(want == elem) && !want.IsAnyArray()) right = Coerce(std::move(right), DataType::Array(want));
  return std::make_unique<ArrayAnyAllExpr>(std::move(cmp->children()[0]), std::move(right), fn, any);
}

ExprPtr Binder::ExprBinder::BindIndirection(const PgQuery__AIndirection* ind) {
  ExprPtr base = Bind(ind->arg);
  for (size_t i = 0; i < ind->n_indirection; i++) {
    const PgQuery__Node* n = ind->indirection[i];
    if (n->node_case == PG_QUERY__NODE__NODE_STRING) {
      base = SelectField(std::move(base), n->string->sval);
      continue;
    }
    if (n->node_case == PG_QUERY__NODE__NODE_A_STAR)
      throw SqlError(sqlstate::kFeatureNotSupported, "(struct).* is only supported as a whole item of a SELECT list");
    if (n->node_case != PG_QUERY__NODE__NODE_A_INDICES)
      throw SqlError(sqlstate::kFeatureNotSupported, "this kind of indirection is not supported");
    if (base->type().id == TypeId::kVarchar && !base->type().IsBpchar() && i + 1 == ind->n_indirection &&
        !n->a_indices->is_slice) {
      // PostgreSQL's name is an array of 64 chars: typname[0] is its first
      // byte ('' past the end). name is varchar here, so any varchar reads so.
      ExprPtr index = Coerce(Bind(n->a_indices->uidx), DataType::Int32());
      std::vector<ExprPtr> position;
      position.push_back(std::move(index));
      position.push_back(std::make_unique<ConstantExpr>(Value::Int32(1)));
      std::vector<ExprPtr> args;
      args.push_back(std::move(base));
      args.push_back(MakeCall("+", std::move(position), -1));
      args.push_back(std::make_unique<ConstantExpr>(Value::Int32(1)));
      return MakeCall("substr", std::move(args), -1);
    }
    if (!base->type().IsArray()) {
      throw SqlError(sqlstate::kDatatypeMismatch,
                     fmt::format("cannot subscript type {} because it does not support subscripting",
                                 base->type().ToString()));
    }
    if (i > 0) throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
    if (n->a_indices->is_slice) throw SqlError(sqlstate::kFeatureNotSupported, "array slices are not supported yet");
    ExprPtr index = Bind(n->a_indices->uidx);
    if (!index->type().IsInteger() && index->type().id != TypeId::kUnknown)
      throw SqlError(sqlstate::kDatatypeMismatch, "array subscript must have type integer");
    index = Coerce(std::move(index), DataType::Int32());
    base = std::make_unique<ArraySubscriptExpr>(std::move(base), std::move(index));
  }
  return base;
}

std::vector<std::pair<std::string, ExprPtr>> Binder::ExprBinder::ExpandStructStar(const PgQuery__AIndirection* ind) {
  PgQuery__AIndirection prefix = *ind;  // the indirection without its final *
  prefix.n_indirection--;
  ExprPtr base = prefix.n_indirection ? BindIndirection(&prefix) : Bind(ind->arg);
  const DataType& t = base->type();
  if (!t.IsStruct() || t.IsAnyStruct())
    throw SqlError(sqlstate::kWrongObjectType, fmt::format("type {} is not composite", t.ToString()));
  std::vector<std::pair<std::string, ExprPtr>> out;
  const auto& fields = t.StructFields();
  for (size_t k = 0; k < fields.size(); k++)
    out.emplace_back(fields[k].first, std::make_unique<FieldSelectExpr>(base->Clone(), k));
  return out;
}

ExprPtr Binder::ExprBinder::SelectField(ExprPtr base, const std::string& field) {
  const DataType& t = base->type();
  if (!t.IsStruct() || t.IsAnyStruct())
    throw SqlError(sqlstate::kWrongObjectType,
                   fmt::format("column notation .{} applied to type {}, which is not a composite type", field, t.ToString()));
  const auto& fields = t.StructFields();
  for (size_t k = 0; k < fields.size(); k++)
    if (fields[k].first == field) return std::make_unique<FieldSelectExpr>(std::move(base), k);
  throw SqlError(sqlstate::kUndefinedColumn, fmt::format("column \"{}\" not found in data type {}", field, t.ToString()));
}

ExprPtr Binder::ExprBinder::BindRowConstructor(const PgQuery__RowExpr* row) {
  // ROW(a, b) and (a, b): a struct with fields f1, f2, ... as in
  // PostgreSQL. Unknown literals stay unknown children (their field is
  // text, which they already are physically) until a cast to a struct type
  // coerces each child to its field (CoerceRowConstructor), so that
  // ROW(1, '2020-01-01') fits STRUCT<a int, d date>.
  std::vector<ExprPtr> args;
  std::vector<StructField> fields;
  for (size_t i = 0; i < row->n_args; i++) {
    ExprPtr a = Bind(row->args[i]);
    DataType t = a->type().id == TypeId::kUnknown ? DataType::Text() : a->type();
    fields.emplace_back("f" + std::to_string(i + 1), t);
    args.push_back(std::move(a));
  }
  if (args.empty()) throw SqlError(sqlstate::kFeatureNotSupported, "ROW() without fields is not supported");
  return std::make_unique<StructConstructorExpr>(DataType::Struct(fields), std::move(args));
}

ExprPtr Binder::ExprBinder::CoerceRowConstructor(ExprPtr e, const DataType& to, bool explicit_cast) {
  auto* row = static_cast<StructConstructorExpr*>(e.get());
  const auto& fields = to.StructFields();
  if (row->children().size() != fields.size())
    throw SqlError(sqlstate::kCannotCoerce, fmt::format("cannot cast type {} to {}: {} fields instead of {}",
                                                        e->type().ToString(), to.ToString(), row->children().size(),
                                                        fields.size()));
  std::vector<ExprPtr> children;
  for (size_t i = 0; i < fields.size(); i++)
    children.push_back(Coerce(std::move(row->children()[i]), fields[i].second, explicit_cast));
  return std::make_unique<StructConstructorExpr>(to, std::move(children));
}

ExprPtr Binder::ExprBinder::MakeArrayConcat(std::vector<ExprPtr> args, int location) {
  bool la = args[0]->type().IsArray(), ra = args[1]->type().IsArray();
  // An unknown literal beside an array is an array (PostgreSQL's anyarray).
  if (la && args[1]->type().id == TypeId::kUnknown) {
    args[1] = Coerce(std::move(args[1]), args[0]->type());
    ra = true;
  } else if (ra && args[0]->type().id == TypeId::kUnknown) {
    args[0] = Coerce(std::move(args[0]), args[1]->type());
    la = true;
  }
  if (la != ra) {
    // array || element, element || array: the element becomes ARRAY[element].
    size_t arr = la ? 0 : 1, elem = la ? 1 : 0;
    DataType et = args[arr]->type().ElementType();
    DataType common = args[elem]->type().id == TypeId::kUnknown ? et : CommonSuperType(et, args[elem]->type());
    if (common.id == TypeId::kUnknown || common.IsArray())
      binder_->ThrowAt(sqlstate::kUndefinedFunction, location,
                       fmt::format("operator does not exist: {} || {}", args[0]->type().ToString(),
                                   args[1]->type().ToString()));
    args[arr] = Coerce(std::move(args[arr]), DataType::Array(common));
    std::vector<ExprPtr> one;
    one.push_back(Coerce(std::move(args[elem]), common));
    args[elem] = std::make_unique<ArrayConstructorExpr>(DataType::Array(common), std::move(one));
  }
  return MakeCall("array_cat", std::move(args), location);
}

void Binder::ExprBinder::PrepareArrayArguments(const std::string& name, std::vector<ExprPtr>& args, int location) {
  const bool replace = name == "array_replace" && args.size() == 3;
  if ((name == "array_position" || name == "array_positions" || name == "array_remove" || replace) &&
      args.size() >= 2 && args[0]->type().IsArray()) {
    // (anycompatiblearray, anycompatible[, anycompatible]): each element
    // argument is passed as a one-element array of the array's element type.
    DataType et = args[0]->type().ElementType();
    DataType common = args[1]->type().id == TypeId::kUnknown ? et : CommonSuperType(et, args[1]->type());
    if (replace && common.id != TypeId::kUnknown && args[2]->type().id != TypeId::kUnknown)
      common = CommonSuperType(common, args[2]->type());
    if (common.id == TypeId::kUnknown || common.IsArray())
      binder_->ThrowAt(sqlstate::kUndefinedFunction, location,
                       fmt::format("function {}({}, {}) does not exist", name, args[0]->type().ToString(),
                                   args[1]->type().ToString()));
    args[0] = Coerce(std::move(args[0]), DataType::Array(common));
    for (size_t i = 1; i < (replace ? 3 : 2); i++) {
      std::vector<ExprPtr> one;
      one.push_back(Coerce(std::move(args[i]), common));
      args[i] = std::make_unique<ArrayConstructorExpr>(DataType::Array(common), std::move(one));
    }
    return;
  }
  // Containment and overlap take two arrays of one type, as comparisons.
  const bool same_type = IsComparison(name) || name == "@>" || name == "<@" || name == "&&";
  if (args.size() != 2 || !(same_type || name == "array_cat")) return;
  bool la = args[0]->type().IsArray(), ra = args[1]->type().IsArray();
  if (!la && !ra) return;
  if (la && args[1]->type().id == TypeId::kUnknown) args[1] = Coerce(std::move(args[1]), args[0]->type());
  else if (ra && args[0]->type().id == TypeId::kUnknown) args[0] = Coerce(std::move(args[0]), args[1]->type());
  const DataType &a = args[0]->type(), &b = args[1]->type();
  if (!a.IsArray() || !b.IsArray() || a == b) return;
  // Comparisons take two arrays of one type (anyarray); array_cat a common
  // one (anycompatiblearray), as in PostgreSQL.
  DataType common = same_type ? DataType::Unknown() : CommonSuperType(a, b);
  if (common.id == TypeId::kUnknown) {
    binder_->ThrowAt(sqlstate::kUndefinedFunction, location,
                     fmt::format("{} does not exist: {} {} {}", same_type ? "operator" : "function",
                                 a.ToString(), name, b.ToString()));
  }
  for (auto& arg : args) arg = Coerce(std::move(arg), common);
}

ExprPtr Binder::ExprBinder::CoerceArray(ExprPtr e, const DataType& to, bool explicit_cast) {
  const DataType& from = e->type();
  if (to.IsAnyArray()) return e;
  DataType fe = from.ElementType(), te = to.ElementType();
  bool modifiers_matter = (te.id == TypeId::kNumeric || te.id == TypeId::kVarchar) && te.precision >= 0 &&
                          !fe.SameWithModifiers(te);
  if (fe.id == te.id && !modifiers_matter && fe.id != TypeId::kOid) {
    // Same values (text[] and varchar[]): only the name changes.
    if (e->kind() == Expression::Kind::kConstant) {
      Value v = static_cast<ConstantExpr*>(e.get())->value();
      v.set_type(to);
      return std::make_unique<ConstantExpr>(v);
    }
    e->set_type(to);
    return e;
  }
  if (!(explicit_cast ? CanExplicitCast(from, to) : CanImplicitCast(from, to)))
    throw SqlError(explicit_cast ? sqlstate::kCannotCoerce : sqlstate::kDatatypeMismatch,
                   fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
  if (e->kind() == Expression::Kind::kConstant)
    return std::make_unique<ConstantExpr>(CastValue(static_cast<ConstantExpr*>(e.get())->value(), to, *binder_->ctx_.eval));
  return std::make_unique<CastExpr>(std::move(e), to);
}

}  // namespace freshet
