#include "expr/expression.h"

#include "common/struct.h"

#include <fmt/format.h>

#include "common/encoding.h"
#include "common/error.h"
#include "expr/cast.h"

namespace freshet {

std::vector<ExprPtr> Expression::CloneChildren() const {
  std::vector<ExprPtr> out;
  for (const auto& c : children_) out.push_back(c->Clone());
  return out;
}

bool Expression::IsKnownAtExecution() const {
  switch (kind_) {
    case Kind::kColumnRef:
    case Kind::kSubquery:
    case Kind::kAggregate:
    case Kind::kWindow:
    case Kind::kSetFunction:
      return false;
    default:
      break;
  }
  for (const auto& c : children_)
    if (!c->IsKnownAtExecution()) return false;
  return true;
}

bool Expression::IsConstant() const {
  if (kind_ == Kind::kColumnRef || kind_ == Kind::kParameter || kind_ == Kind::kSubquery) return false;
  for (const auto& c : children_)
    if (!c->IsConstant()) return false;
  return true;
}

Value Expression::EvalConstant(EvalContext& ctx) const {
  // A parameter is its value (a point query's key): no vector of one row.
  if (kind() == Kind::kParameter) return static_cast<const ParameterExpr*>(this)->ValueIn(ctx);
  DataChunk one;
  one.set_cardinality(1);
  return Eval(one, ctx).GetValue(0);
}

std::vector<uint8_t> ToMask(const Vector& v) {
  std::vector<uint8_t> mask(v.size());
  const auto& valid = v.validity();
  const auto& ints = v.ints();
  for (size_t i = 0; i < mask.size(); i++) mask[i] = valid[i] && ints[i] != 0;
  return mask;
}

// ---- ColumnRef / Constant / Parameter ----

Vector ColumnRefExpr::Eval(const DataChunk& input, EvalContext& ctx) const { return input.column(index_); }

std::string ColumnRefExpr::ToString() const { return name_.empty() ? fmt::format("#{}", index_) : name_; }

Vector ConstantExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  const size_t n = input.num_rows();
  // Kept for full chunks of small values only: plans live long (stream
  // jobs' actors each hold one), and a filter's output chunks vary in size.
  const bool keep = n == kChunkSize && (value_.is_null() || value_.type().physical() != PhysicalType::kString ||
                                        value_.string_value().size() <= 15);  // in the string itself
  if (!keep) return Vector::Constant(value_, n);
  std::shared_ptr<const Vector> repeated = repeated_.load(std::memory_order_acquire);
  if (!repeated) {
    repeated = std::make_shared<const Vector>(Vector::Constant(value_, n));
    repeated_.store(repeated, std::memory_order_release);
  }
  return *repeated;
}

std::string ConstantExpr::ToString() const {
  if (value_.is_null()) return "NULL";
  std::string s = value_.ToString();
  if (value_.type().IsNumeric() || value_.type().id == TypeId::kBoolean) return s;
  return "'" + s + "':" + value_.type().ToString();
}

Value ParameterExpr::ValueIn(EvalContext& ctx) const {
  if (!ctx.params || index_ >= static_cast<int>(ctx.params->size()))
    FRESHET_THROW(sqlstate::kUndefinedParameter, "there is no parameter ${}", index_ + 1);
  const Value& v = (*ctx.params)[index_];
  return v.type() == type_ ? v : CastValue(v, type_, ctx);
}

Vector ParameterExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  return Vector::Constant(ValueIn(ctx), input.num_rows());
}

// ---- Set-returning functions ----

Vector SetFunctionExpr::Eval(const DataChunk&, EvalContext&) const {
  throw SqlError(sqlstate::kFeatureNotSupported, "set-returning functions are not allowed here");
}

std::string SetFunctionExpr::ToString() const {
  std::string args;
  for (const auto& c : children_) args += (args.empty() ? "" : ", ") + c->ToString();
  return name_ + "(" + args + ")";
}

// ---- Function / Cast ----

FunctionExpr::FunctionExpr(const ScalarFunction* fn, std::vector<ExprPtr> args)
    : Expression(Kind::kFunction, fn->return_type), fn_(fn) {
  children_ = std::move(args);
}

namespace {
// Whether e has the same value for every row of a chunk: a constant, or a
// function that is not volatile of such (a date plus an interval, 0.06 -
// 0.01 in a filter).
bool SameForEveryRow(const Expression& e) {
  if (e.kind() == Expression::Kind::kConstant) return true;
  if (e.kind() != Expression::Kind::kFunction) return false;
  if (IsVolatileFunction(static_cast<const FunctionExpr&>(e).function()->name)) return false;
  for (const auto& c : e.children())
    if (!SameForEveryRow(*c)) return false;
  return true;
}
}  // namespace

Vector FunctionExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  // Computed once for the chunk, not once per row.
  if (input.num_rows() > 1 && SameForEveryRow(*this)) {
    DataChunk one_row;
    one_row.set_cardinality(1);
    Vector one = Eval(one_row, ctx);
    return Vector::Constant(one.GetValue(0), input.num_rows());
  }
  std::vector<Vector> values;
  values.reserve(children_.size());
  for (const auto& c : children_) values.push_back(c->Eval(input, ctx));
  std::vector<const Vector*> args;
  for (const auto& v : values) args.push_back(&v);
  Vector out(type_);
  out.Reserve(input.num_rows());
  fn_->fn(args, input.num_rows(), &out, ctx);
  return out;
}

ExprPtr FunctionExpr::Clone() const {
  auto e = std::make_unique<FunctionExpr>(fn_, CloneChildren());
  e->set_type(type_);
  return e;
}

std::string FunctionExpr::ToString() const {
  bool is_operator = !fn_->name.empty() && !std::isalpha(static_cast<unsigned char>(fn_->name[0]));
  if (is_operator && children_.size() == 2)
    return fmt::format("({} {} {})", children_[0]->ToString(), fn_->name, children_[1]->ToString());
  std::string args;
  for (const auto& c : children_) args += (args.empty() ? "" : ", ") + c->ToString();
  return fmt::format("{}({})", fn_->name, args);
}

CastExpr::CastExpr(ExprPtr child, DataType to, bool assignment)
    : Expression(Kind::kCast, to), assignment_(assignment) {
  children_.push_back(std::move(child));
}

Vector CastExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  return CastVector(children_[0]->Eval(input, ctx), type_, ctx, assignment_);
}

std::string CastExpr::ToString() const { return fmt::format("{}::{}", children_[0]->ToString(), type_.ToString()); }

// ---- Operators ----

OperatorExpr::OperatorExpr(Kind kind, DataType type, std::vector<ExprPtr> children) : Expression(kind, type) {
  children_ = std::move(children);
}

ExprPtr OperatorExpr::Clone() const {
  auto e = std::make_unique<OperatorExpr>(kind_, type_, CloneChildren());
  e->compare_ = compare_;
  return e;
}

namespace {

// Compares row i of a and b with a boolean-returning comparison function.
bool CompareRow(const ScalarFunction* cmp, const Vector& a, size_t i, const Vector& b, size_t j, EvalContext& ctx) {
  Vector x(a.type()), y(b.type()), r(DataType::Boolean());
  x.AppendFrom(a, i);
  y.AppendFrom(b, j);
  std::vector<const Vector*> args = {&x, &y};
  cmp->fn(args, 1, &r, ctx);
  return !r.IsNull(0) && r.GetBool(0);
}

}  // namespace

Vector OperatorExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t n = input.num_rows();
  switch (kind_) {
    case Kind::kAnd:
    case Kind::kOr: {
      // Three-valued logic: AND is false if any input is false, NULL if any
      // is NULL, else true; OR symmetrically.
      bool is_and = kind_ == Kind::kAnd;
      std::vector<uint8_t> decided(n, 0), has_null(n, 0);
      for (const auto& c : children_) {
        Vector v = c->Eval(input, ctx);
        for (size_t i = 0; i < n; i++) {
          if (decided[i]) continue;
          if (v.IsNull(i)) has_null[i] = 1;
          else if (v.GetBool(i) != is_and) decided[i] = 1;
        }
      }
      Vector out(DataType::Boolean());
      out.Reserve(n);
      for (size_t i = 0; i < n; i++) {
        if (decided[i]) out.AppendBool(!is_and);
        else if (has_null[i]) out.AppendNull();
        else out.AppendBool(is_and);
      }
      return out;
    }
    case Kind::kNot: {
      Vector v = children_[0]->Eval(input, ctx);
      for (auto& x : v.ints()) x = !x;
      return v;
    }
    case Kind::kIsNull:
    case Kind::kIsNotNull: {
      Vector v = children_[0]->Eval(input, ctx);
      Vector out(DataType::Boolean());
      out.Reserve(n);
      if (v.type().IsStruct()) {
        // A row IS NULL when it is NULL or all its fields are, IS NOT NULL
        // when none of them is (PostgreSQL's row null tests).
        const StructFieldList fields = v.type().StructFields();
        for (size_t i = 0; i < n; i++) {
          size_t nulls = fields.size();
          if (!v.IsNull(i)) {
            nulls = 0;
            for (const Value& f : DecodeStruct(v.GetString(i), fields)) nulls += f.is_null();
          }
          out.AppendBool(kind_ == Kind::kIsNull ? nulls == fields.size() : !v.IsNull(i) && nulls == 0);
        }
        return out;
      }
      for (size_t i = 0; i < n; i++) out.AppendBool(v.IsNull(i) == (kind_ == Kind::kIsNull));
      return out;
    }
    case Kind::kIsTrue:
    case Kind::kIsFalse: {
      Vector v = children_[0]->Eval(input, ctx);
      Vector out(DataType::Boolean());
      out.Reserve(n);
      for (size_t i = 0; i < n; i++) out.AppendBool(!v.IsNull(i) && v.GetBool(i) == (kind_ == Kind::kIsTrue));
      return out;
    }
    case Kind::kCoalesce: {
      // Lazy like PostgreSQL: an argument is only evaluated for the rows
      // still NULL, so COALESCE(x, 1/0) does not fail where x is set.
      Vector out = children_[0]->Eval(input, ctx);
      std::vector<uint32_t> pending;
      for (size_t i = 0; i < n; i++)
        if (out.IsNull(i)) pending.push_back(static_cast<uint32_t>(i));
      for (size_t k = 1; k < children_.size() && !pending.empty(); k++) {
        DataChunk sub = input.Take(pending);
        if (input.num_columns() == 0) sub.set_cardinality(pending.size());
        Vector v = children_[k]->Eval(sub, ctx);
        std::vector<uint32_t> still;
        Vector merged(type_);
        merged.Reserve(n);
        size_t next = 0;
        for (size_t i = 0; i < n; i++) {
          if (next < pending.size() && pending[next] == i) {
            merged.AppendFrom(v, next);
            if (v.IsNull(next)) still.push_back(static_cast<uint32_t>(i));
            next++;
          } else {
            merged.AppendFrom(out, i);
          }
        }
        out = std::move(merged);
        pending.swap(still);
      }
      return out;
    }
    case Kind::kNullIf: {
      Vector a = children_[0]->Eval(input, ctx), b = children_[1]->Eval(input, ctx);
      Vector out(type_);
      out.Reserve(n);
      for (size_t i = 0; i < n; i++) {
        if (!a.IsNull(i) && !b.IsNull(i) && CompareRow(compare_, a, i, b, i, ctx)) out.AppendNull();
        else out.AppendFrom(a, i);
      }
      return out;
    }
    case Kind::kGreatest:
    case Kind::kLeast: {
      // compare_ is ">" for GREATEST and "<" for LEAST; NULLs are ignored.
      std::vector<Vector> vals;
      for (const auto& c : children_) vals.push_back(c->Eval(input, ctx));
      Vector out(type_);
      out.Reserve(n);
      for (size_t i = 0; i < n; i++) {
        int best = -1;
        for (size_t k = 0; k < vals.size(); k++) {
          if (vals[k].IsNull(i)) continue;
          if (best < 0 || CompareRow(compare_, vals[k], i, vals[best], i, ctx)) best = static_cast<int>(k);
        }
        if (best < 0) out.AppendNull();
        else out.AppendFrom(vals[best], i);
      }
      return out;
    }
    default: break;
  }
  throw SqlError(sqlstate::kInternalError, "unexpected operator expression");
}

std::string OperatorExpr::ToString() const {
  auto join = [&](const char* sep) {
    std::string s;
    for (const auto& c : children_) s += (s.empty() ? "" : sep) + c->ToString();
    return s;
  };
  switch (kind_) {
    case Kind::kAnd: return "(" + join(" AND ") + ")";
    case Kind::kOr: return "(" + join(" OR ") + ")";
    case Kind::kNot: return "NOT " + children_[0]->ToString();
    case Kind::kIsNull: return children_[0]->ToString() + " IS NULL";
    case Kind::kIsNotNull: return children_[0]->ToString() + " IS NOT NULL";
    case Kind::kIsTrue: return children_[0]->ToString() + " IS TRUE";
    case Kind::kIsFalse: return children_[0]->ToString() + " IS FALSE";
    case Kind::kCoalesce: return "coalesce(" + join(", ") + ")";
    case Kind::kNullIf: return "nullif(" + join(", ") + ")";
    case Kind::kGreatest: return "greatest(" + join(", ") + ")";
    case Kind::kLeast: return "least(" + join(", ") + ")";
    default: return "?";
  }
}

// ---- CASE ----

CaseExpr::CaseExpr(DataType type, std::vector<ExprPtr> children, bool has_else)
    : Expression(Kind::kCase, type), has_else_(has_else) {
  children_ = std::move(children);
}

Vector CaseExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t n = input.num_rows();
  // Evaluate branch by branch on the rows still undecided, so that a branch
  // is only computed for rows that reach it (CASE WHEN x = 0 THEN 0 ELSE 1/x).
  std::vector<int> chosen(n, -1);
  std::vector<uint32_t> pending(n);
  for (size_t i = 0; i < n; i++) pending[i] = static_cast<uint32_t>(i);
  size_t whens = children_.size() / 2;
  for (size_t w = 0; w < whens && !pending.empty(); w++) {
    DataChunk sub = input.Take(pending);
    if (input.num_columns() == 0) sub.set_cardinality(pending.size());
    std::vector<uint8_t> mask = ToMask(children_[2 * w]->Eval(sub, ctx));
    std::vector<uint32_t> rest;
    for (size_t k = 0; k < pending.size(); k++) {
      if (mask[k]) chosen[pending[k]] = static_cast<int>(w);
      else rest.push_back(pending[k]);
    }
    pending.swap(rest);
  }
  // Evaluate each result expression on the rows that chose it.
  std::vector<Vector> results(whens + 1);
  std::vector<std::vector<uint32_t>> rows_of(whens + 1);
  std::vector<size_t> pos(n);
  for (size_t i = 0; i < n; i++) {
    size_t b = chosen[i] < 0 ? whens : static_cast<size_t>(chosen[i]);
    pos[i] = rows_of[b].size();
    rows_of[b].push_back(static_cast<uint32_t>(i));
  }
  for (size_t b = 0; b <= whens; b++) {
    if (rows_of[b].empty()) continue;
    if (b == whens && !has_else_) continue;
    const Expression* e = b == whens ? children_.back().get() : children_[2 * b + 1].get();
    DataChunk sub = input.Take(rows_of[b]);
    if (input.num_columns() == 0) sub.set_cardinality(rows_of[b].size());
    results[b] = e->Eval(sub, ctx);
  }
  Vector out(type_);
  out.Reserve(n);
  for (size_t i = 0; i < n; i++) {
    size_t b = chosen[i] < 0 ? whens : static_cast<size_t>(chosen[i]);
    if (b == whens && !has_else_) out.AppendNull();
    else out.AppendFrom(results[b], pos[i]);
  }
  return out;
}

std::string CaseExpr::ToString() const {
  std::string s = "CASE";
  size_t whens = children_.size() / 2;
  for (size_t w = 0; w < whens; w++)
    s += " WHEN " + children_[2 * w]->ToString() + " THEN " + children_[2 * w + 1]->ToString();
  if (has_else_) s += " ELSE " + children_.back()->ToString();
  return s + " END";
}

// ---- IN list ----

InListExpr::InListExpr(ExprPtr child, std::vector<Value> list, bool negated)
    : Expression(Kind::kInList, DataType::Boolean()), list_(std::move(list)), negated_(negated) {
  children_.push_back(std::move(child));
  for (const auto& v : list_) {
    if (v.is_null()) {
      has_null_ = true;
      continue;
    }
    std::string k;
    EncodeKeyValue(v, &k);
    keys_.insert(std::move(k));
  }
}

ExprPtr InListExpr::Clone() const { return std::make_unique<InListExpr>(children_[0]->Clone(), list_, negated_); }

Vector InListExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  Vector v = children_[0]->Eval(input, ctx);
  Vector out(DataType::Boolean());
  out.Reserve(v.size());
  std::string key;
  for (size_t i = 0; i < v.size(); i++) {
    if (v.IsNull(i)) {
      out.AppendNull();
      continue;
    }
    key.clear();
    EncodeKeyFromVector(v, i, &key);
    if (keys_.count(key)) out.AppendBool(!negated_);
    else if (has_null_) out.AppendNull();
    else out.AppendBool(negated_);
  }
  return out;
}

std::string InListExpr::ToString() const {
  std::string s;
  for (const auto& v : list_) s += (s.empty() ? "" : ", ") + v.ToString();
  return children_[0]->ToString() + (negated_ ? " NOT IN (" : " IN (") + s + ")";
}

}  // namespace freshet
