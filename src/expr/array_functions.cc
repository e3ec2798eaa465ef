// Arrays in expressions (expr/array.h).

#include <fmt/format.h>

#include <algorithm>

#include "common/array.h"
#include "common/limits.h"
#include "expr/array.h"
#include "expr/cast.h"
#include "expr/function_helpers.h"

namespace freshet {

namespace {

bool IsArraySpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool EqualsNullIgnoringCase(std::string_view s) {
  if (s.size() != 4) return false;
  for (size_t i = 0; i < 4; i++)
    if (std::tolower(static_cast<unsigned char>(s[i])) != "null"[i]) return false;
  return true;
}

[[noreturn]] void ThrowMalformed(std::string_view text, const std::string& detail) {
  throw SqlError(sqlstate::kInvalidTextRepresentation, fmt::format("malformed array literal: \"{}\"", text))
      .WithDetail(detail);
}

// One element of an array literal: its text and whether it is NULL.
struct RawElement {
  std::string text;
  bool null = false;
};

// Splits a one-dimensional array literal into its elements (PostgreSQL's
// ReadArrayStr for one dimension), calling each(const RawElement&) for each.
template <typename Each>
void ForEachArrayElement(std::string_view text, Each&& each) {
  size_t i = 0, n = text.size();
  auto skip_space = [&] {
    while (i < n && IsArraySpace(text[i])) i++;
  };
  skip_space();
  if (i < n && text[i] == '[') {
    // [lower:upper]= dimension decoration; only [1:n] has a meaning here.
    size_t close = text.find(']', i);
    size_t eq = close == std::string_view::npos ? close : text.find('=', close);
    if (eq == std::string_view::npos) ThrowMalformed(text, "Missing \"]\" after array dimensions.");
    std::string dims(text.substr(i + 1, close - i - 1));
    size_t colon = dims.find(':');
    std::string lower = colon == std::string::npos ? "1" : dims.substr(0, colon);
    if (lower != "1")
      throw SqlError(sqlstate::kFeatureNotSupported, "arrays with a lower bound other than 1 are not supported");
    if (text.find('[', close) != std::string_view::npos && text.find('[', close) < eq)
      throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
    i = eq + 1;
    skip_space();
  }
  if (i >= n || text[i] != '{') ThrowMalformed(text, "Array value must start with \"{\" or dimension information.");
  i++;
  RawElement e;
  skip_space();
  if (i < n && text[i] == '}') {
    i++;
  } else {
    while (true) {
      skip_space();
      if (i >= n) ThrowMalformed(text, "Unexpected end of input.");
      char c = text[i];
      if (c == '{') throw SqlError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
      if (c == ',' || c == '}') ThrowMalformed(text, fmt::format("Unexpected \"{}\" character.", c));
      e.text.clear();
      e.null = false;
      if (c == '"') {
        i++;
        bool closed = false;
        while (i < n) {
          char d = text[i++];
          if (d == '\\') {
            if (i >= n) ThrowMalformed(text, "Unexpected end of input.");
            e.text += text[i++];
          } else if (d == '"') {
            closed = true;
            break;
          } else {
            e.text += d;
          }
        }
        if (!closed) ThrowMalformed(text, "Unexpected end of input.");
        skip_space();
      } else {
        bool escaped = false;
        size_t keep = 0;  // length without unescaped trailing whitespace
        while (i < n && text[i] != ',' && text[i] != '}') {
          char d = text[i++];
          if (d == '"') ThrowMalformed(text, "Unexpected array element.");
          if (d == '{') ThrowMalformed(text, "Unexpected \"{\" character.");
          if (d == '\\') {
            if (i >= n) ThrowMalformed(text, "Unexpected end of input.");
            e.text += text[i++];
            escaped = true;
            keep = e.text.size();
          } else {
            e.text += d;
            if (!IsArraySpace(d)) keep = e.text.size();
          }
        }
        e.text.resize(keep);
        e.null = !escaped && EqualsNullIgnoringCase(e.text);
      }
      each(e);
      if (i >= n) ThrowMalformed(text, "Unexpected end of input.");
      if (text[i] == ',') {
        i++;
        continue;
      }
      if (text[i] == '}') {
        i++;
        break;
      }
      ThrowMalformed(text, fmt::format("Unexpected \"{}\" character.", text[i]));
    }
  }
  skip_space();
  if (i != n) ThrowMalformed(text, "Junk after closing right brace.");
}

// Element i of the array in row r, or nullopt when the array is NULL.
std::optional<Vector> ArrayAt(const Vector& v, size_t r) {
  if (v.IsNull(r)) return std::nullopt;
  return DecodeArray(v.GetString(r), v.type().ElementType());
}

void RegisterArrayCompare(FunctionRegistry* r) {
  const DataType a = DataType::AnyArray(), b = DataType::Boolean();
  auto reg = [&](const char* name, bool (*test)(int)) {
    RegisterFn(r, name, {a, a}, b, [test](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
      DataType elem = args[0]->type().ElementType();
      ExecuteStrict<std::string_view, std::string_view>(
          args, n, out, [&](std::string_view x, std::string_view y) { return test(CompareArrays(x, y, elem)); });
    });
  };
  ForEachComparisonOperator(reg);

  // Containment and overlap, as PostgreSQL's arraycontains/arrayoverlap:
  // elements compared by equality, duplicates and order ignored, a NULL
  // element equal to nothing.
  auto contains = [](const Vector& outer, const Vector& inner) {
    for (size_t i = 0; i < inner.size(); i++) {
      if (inner.IsNull(i)) return false;
      const Value v = inner.GetValue(i);
      bool found = false;
      for (size_t j = 0; j < outer.size() && !found; j++)
        found = !outer.IsNull(j) && Value::Compare(outer.GetValue(j), v) == 0;
      if (!found) return false;
    }
    return true;
  };
  auto reg_set = [&](const char* name, auto test) {
    RegisterFn(r, name, {a, a}, b, [test](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
      const DataType elem = args[0]->type().ElementType();
      ExecuteStrict<std::string_view, std::string_view>(args, n, out, [&](std::string_view x, std::string_view y) {
        return test(DecodeArray(x, elem), DecodeArray(y, elem));
      });
    });
  };
  reg_set("@>", [contains](const Vector& x, const Vector& y) { return contains(x, y); });
  reg_set("<@", [contains](const Vector& x, const Vector& y) { return contains(y, x); });
  reg_set("&&", [](const Vector& x, const Vector& y) {
    for (size_t i = 0; i < x.size(); i++) {
      if (x.IsNull(i)) continue;
      const Value v = x.GetValue(i);
      for (size_t j = 0; j < y.size(); j++)
        if (!y.IsNull(j) && Value::Compare(y.GetValue(j), v) == 0) return true;
    }
    return false;
  });
}

// array_to_string(array, delimiter[, null_string]): NULL elements are
// skipped unless null_string is given (and not NULL).
void ArrayToString(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
  for (size_t r = 0; r < n; r++) {
    if (args[0]->IsNull(r) || args[1]->IsNull(r)) {
      out->AppendNull();
      continue;
    }
    Vector elems = DecodeArray(args[0]->GetString(r), args[0]->type().ElementType());
    const std::string& sep = args[1]->GetString(r);
    bool null_text = args.size() > 2 && !args[2]->IsNull(r);
    // As PostgreSQL's string buffer: refused at the append that would
    // make it larger than a value can be.
    std::string s;
    bool first = true;
    for (size_t i = 0; i < elems.size(); i++) {
      if (elems.IsNull(i) && !null_text) continue;
      if (!first) AppendLimited(&s, sep);
      first = false;
      AppendLimited(&s, elems.IsNull(i) ? args[2]->GetString(r) : FormatText(elems, i, ctx));
    }
    out->AppendString(std::move(s));
  }
}

// string_to_array(text, delimiter[, null_string]). The elements are pieces
// of the text: the array's bytes are written directly (no vector of them),
// after a first pass that counts them and their bytes against the limits.
void StringToArray(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  for (size_t r = 0; r < n; r++) {
    if (args[0]->IsNull(r)) {
      out->AppendNull();
      continue;
    }
    std::string_view s = args[0]->GetString(r);
    const bool has_null_text = args.size() > 2 && !args[2]->IsNull(r);
    const std::string_view null_text = has_null_text ? std::string_view(args[2]->GetString(r)) : std::string_view();
    // Calls each(piece) for each element in order.
    auto for_each = [&](auto&& each) {
      if (s.empty()) return;
      if (args[1]->IsNull(r)) {  // one element per character
        for (size_t i = 0; i < s.size();) {
          size_t len = Utf8CharBytes(s, i);
          each(s.substr(i, len));
          i += len;
        }
      } else if (args[1]->GetString(r).empty()) {
        each(s);
      } else {
        std::string_view sep = args[1]->GetString(r);
        size_t pos = 0;
        while (true) {
          size_t next = s.find(sep, pos);
          if (next == std::string_view::npos) {
            each(s.substr(pos));
            break;
          }
          each(s.substr(pos, next - pos));
          pos = next + sep.size();
        }
      }
    };
    auto is_null = [&](std::string_view e) { return has_null_text && e == null_text; };
    uint64_t count = 0, bytes = 0;
    for_each([&](std::string_view e) {
      count++;
      bytes += is_null(e) ? 1 : EncodedStringElementSize(e);
    });
    CheckArrayElements(count);
    std::string array;
    AppendElementCount(count, &array);
    CheckArrayBytes(array.size() + bytes);
    array.reserve(array.size() + bytes);
    for_each([&](std::string_view e) {
      if (is_null(e)) AppendEncodedNullElement(&array);
      else AppendEncodedStringElement(e, &array);
    });
    out->AppendString(std::move(array));
  }
}

}  // namespace

std::string FormatArrayText(std::string_view bytes, const DataType& array_type, const EvalContext& ctx) {
  Vector elems = DecodeArray(bytes, array_type.ElementType());
  if (array_type.IsVector()) {
    // int2vector / oidvector: numbers separated by spaces.
    std::string out;
    for (size_t i = 0; i < elems.size(); i++) {
      if (i) out += ' ';
      out += elems.IsNull(i) ? std::string("0") : FormatText(elems, i, ctx);
    }
    return out;
  }
  std::string out = "{";
  // The text can be several times the array's bytes: each element is
  // checked against the limit on a value before it is appended.
  for (size_t i = 0; i < elems.size(); i++) {
    if (elems.IsNull(i)) {
      AppendLimited(&out, i ? ",NULL" : "NULL");
      continue;
    }
    std::string s = FormatText(elems, i, ctx);
    bool quote = s.empty() || EqualsNullIgnoringCase(s);
    size_t escapes = 0;
    for (char c : s) {
      quote |= c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || IsArraySpace(c);
      escapes += c == '"' || c == '\\';
    }
    CheckValueSize(SaturatingAdd(out.size() + 4, s.size() + escapes));
    if (i) out += ',';
    if (!quote) {
      out += s;
      continue;
    }
    out += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  CheckValueSize(out.size() + 1);
  return out + "}";
}

std::string ParseArrayText(std::string_view text, const DataType& array_type, EvalContext& ctx) {
  if (array_type.IsAnyArray())
    throw SqlError(sqlstate::kDatatypeMismatch, "could not determine polymorphic type because input has type unknown");
  DataType elem = array_type.ElementType();
  if (array_type.IsVector()) {
    // int2vectorin / oidvectorin: numbers separated by spaces.
    Vector v(elem);
    size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && IsArraySpace(text[i])) i++;
      size_t start = i;
      while (i < text.size() && !IsArraySpace(text[i])) i++;
      if (i == start) break;
      CheckArrayElements(v.size() + 1);
      v.Append(ParseText(std::string(text.substr(start, i - start)), elem, ctx));
    }
    return EncodeArray(v);
  }
  // As PostgreSQL's array_in, the literal is read once for its structure
  // and number of elements (malformed text and too many elements are
  // refused before any element is parsed or kept), then for the elements.
  uint64_t count = 0;
  ForEachArrayElement(text, [&](const RawElement&) { CheckArrayElements(++count); });
  Vector v(elem);
  v.Reserve(count);
  ForEachArrayElement(text, [&](const RawElement& e) {
    if (e.null) v.AppendNull();
    else v.Append(ParseText(e.text, elem, ctx));
  });
  return EncodeArray(v);
}

Vector CastArrayVector(const Vector& in, const DataType& to, EvalContext& ctx, bool assignment) {
  Vector out(to);
  out.Reserve(in.size());
  DataType from_elem = in.type().ElementType(), to_elem = to.ElementType();
  for (size_t r = 0; r < in.size(); r++) {
    if (in.IsNull(r)) {
      out.AppendNull();
      continue;
    }
    Vector elems = DecodeArray(in.GetString(r), from_elem);
    out.AppendString(EncodeArray(CastVector(elems, to_elem, ctx, assignment)));
  }
  return out;
}

// ---- ARRAY[...] ----

ArrayConstructorExpr::ArrayConstructorExpr(DataType array_type, std::vector<ExprPtr> elements)
    : Expression(Kind::kArray, array_type) {
  children_ = std::move(elements);
}

Vector ArrayConstructorExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t n = input.num_rows();
  std::vector<Vector> values;
  for (const auto& c : children_) values.push_back(c->Eval(input, ctx));
  DataType elem = type_.ElementType();
  Vector out(type_);
  out.Reserve(n);
  for (size_t r = 0; r < n; r++) {
    Vector row(elem);
    for (const auto& v : values) row.AppendFrom(v, r);
    out.AppendString(EncodeArray(row));
  }
  return out;
}

std::string ArrayConstructorExpr::ToString() const {
  std::string s;
  for (const auto& c : children_) s += (s.empty() ? "" : ", ") + c->ToString();
  return "ARRAY[" + s + "]";
}

// ---- op ANY/ALL (array) ----

ArrayAnyAllExpr::ArrayAnyAllExpr(ExprPtr left, ExprPtr array, const ScalarFunction* compare, bool any)
    : Expression(Kind::kArray, DataType::Boolean()), compare_(compare), any_(any) {
  children_.push_back(std::move(left));
  children_.push_back(std::move(array));
}

ExprPtr ArrayAnyAllExpr::Clone() const {
  return std::make_unique<ArrayAnyAllExpr>(children_[0]->Clone(), children_[1]->Clone(), compare_, any_);
}

std::string ArrayAnyAllExpr::ToString() const {
  return fmt::format("({} {} {}({}))", children_[0]->ToString(), compare_->name, any_ ? "ANY" : "ALL",
                     children_[1]->ToString());
}

Vector ArrayAnyAllExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t n = input.num_rows();
  Vector left = children_[0]->Eval(input, ctx);
  Vector arrays = children_[1]->Eval(input, ctx);
  Vector out(DataType::Boolean());
  out.Reserve(n);
  for (size_t r = 0; r < n; r++) {
    auto elems = ArrayAt(arrays, r);
    if (!elems) {
      out.AppendNull();
      continue;
    }
    // As in PostgreSQL: an empty array decides before a NULL left operand.
    if (elems->size() == 0) {
      out.AppendBool(!any_);
      continue;
    }
    if (left.IsNull(r)) {
      out.AppendNull();
      continue;
    }
    Vector l = Vector::Constant(left.GetValue(r), elems->size());
    Vector result(DataType::Boolean());
    compare_->fn({&l, &*elems}, elems->size(), &result, ctx);
    bool decided = false, saw_null = false;
    for (size_t i = 0; i < result.size(); i++) {
      if (result.IsNull(i)) saw_null = true;
      else if (result.GetBool(i) == any_) decided = true;
    }
    if (decided) out.AppendBool(any_);
    else if (saw_null) out.AppendNull();
    else out.AppendBool(!any_);
  }
  return out;
}

// ---- Subscripts ----

ArraySubscriptExpr::ArraySubscriptExpr(ExprPtr array, ExprPtr index)
    : Expression(Kind::kArray, array->type().ElementType()) {
  children_.push_back(std::move(array));
  children_.push_back(std::move(index));
}

ExprPtr ArraySubscriptExpr::Clone() const {
  return std::make_unique<ArraySubscriptExpr>(children_[0]->Clone(), children_[1]->Clone());
}

std::string ArraySubscriptExpr::ToString() const {
  return fmt::format("{}[{}]", children_[0]->ToString(), children_[1]->ToString());
}

Vector ArraySubscriptExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t n = input.num_rows();
  Vector arrays = children_[0]->Eval(input, ctx);
  Vector index = children_[1]->Eval(input, ctx);
  Vector out(type_);
  out.Reserve(n);
  for (size_t r = 0; r < n; r++) {
    auto elems = ArrayAt(arrays, r);
    // int2vector and oidvector subscripts start at 0, other arrays' at 1.
    const int64_t lower = children_[0]->type().IsVector() ? 0 : 1;
    if (!elems || index.IsNull(r) || index.GetInt(r) < lower ||
        static_cast<uint64_t>(index.GetInt(r) - lower) >= elems->size()) {
      out.AppendNull();
      continue;
    }
    out.AppendFrom(*elems, static_cast<size_t>(index.GetInt(r) - lower));
  }
  return out;
}

// ---- Functions ----

void RegisterArrayFunctions(FunctionRegistry* r) {
  const DataType any = DataType::AnyArray(), text = DataType::Text(), i4 = DataType::Int32();
  RegisterArrayCompare(r);
  RegisterFn(r, "array_to_string", {any, text}, text, ArrayToString);
  RegisterFn(r, "array_to_string", {any, text, text}, text, ArrayToString);
  RegisterFn(r, "string_to_array", {text, text}, DataType::Array(text), StringToArray);
  RegisterFn(r, "string_to_array", {text, text, text}, DataType::Array(text), StringToArray);
  using SV = std::string_view;
  // One dimension: array_length(a, 1) is the element count (NULL when empty).
  auto length_fn = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrictEmit<SV, int64_t>(args, n, out, [](Vector* o, SV a, int64_t dim) {
      size_t len = ArrayLength(a);
      if (dim != 1 || len == 0) return o->AppendNull();
      o->AppendInt(static_cast<int64_t>(len));
    });
  };
  RegisterFn(r, "array_length", {any, i4}, i4, length_fn);
  // Bounds: arrays start at 1, int2vector and oidvector at 0.
  auto bound_fn = [](bool upper) {
    return [upper](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
      const int64_t lower = args[0]->type().IsVector() ? 0 : 1;
      ExecuteStrictEmit<SV, int64_t>(args, n, out, [&](Vector* o, SV a, int64_t dim) {
        size_t len = ArrayLength(a);
        if (dim != 1 || len == 0) return o->AppendNull();
        o->AppendInt(upper ? lower + static_cast<int64_t>(len) - 1 : lower);
      });
    };
  };
  RegisterFn(r, "array_upper", {any, i4}, i4, bound_fn(true));
  RegisterFn(r, "array_lower", {any, i4}, i4, bound_fn(false));
  RegisterFn(r, "array_ndims", {any}, i4, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrictEmit<SV>(args, n, out, [](Vector* o, SV a) {
      if (ArrayLength(a) == 0) return o->AppendNull();
      o->AppendInt(1);
    });
  });
  RegisterFn(r, "array_dims", {any}, text, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrictEmit<SV>(args, n, out, [](Vector* o, SV a) {
      size_t len = ArrayLength(a);
      if (len == 0) return o->AppendNull();
      o->AppendString(fmt::format("[1:{}]", len));
    });
  });
  // array_position(a, x [, start]) / array_positions(a, x): where x is in
  // a, compared as IS NOT DISTINCT FROM (a NULL x finds NULLs). The binder
  // passes x as a one-element array of a's type.
  auto positions = [](bool all) {
    return [all](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
      for (size_t r = 0; r < n; r++) {
        auto elems = ArrayAt(*args[0], r);
        auto wanted = ArrayAt(*args[1], r);
        if (!elems || !wanted || (args.size() > 2 && args[2]->IsNull(r))) {
          out->AppendNull();
          continue;
        }
        const Value x = wanted->GetValue(0);
        int64_t start = args.size() > 2 ? args[2]->GetInt(r) : 1;
        Vector found(DataType::Int32());
        std::optional<int64_t> first;
        for (size_t i = start > 1 ? static_cast<size_t>(start - 1) : 0; i < elems->size(); i++) {
          Value v = elems->GetValue(i);
          bool same = v.is_null() || x.is_null() ? v.is_null() == x.is_null() : Value::Compare(v, x) == 0;
          if (!same) continue;
          if (!all) {
            first = static_cast<int64_t>(i + 1);
            break;
          }
          found.AppendInt(static_cast<int64_t>(i + 1));
        }
        if (all) out->AppendString(EncodeArray(found));
        else if (first) out->AppendInt(*first);
        else out->AppendNull();
      }
    };
  };
  RegisterFn(r, "array_position", {any, any}, i4, positions(false));
  RegisterFn(r, "array_position", {any, any, i4}, i4, positions(false));
  RegisterFn(r, "array_positions", {any, any}, DataType::Array(i4), positions(true));
  // array_remove(a, x) / array_replace(a, x, y): a without (with y for)
  // the elements equal to x, compared as array_position does. Element
  // arguments come as one-element arrays, as for array_position.
  auto remove_or_replace = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    for (size_t r = 0; r < n; r++) {
      auto elems = ArrayAt(*args[0], r);
      auto wanted = ArrayAt(*args[1], r);
      if (!elems || !wanted) {
        out->AppendNull();
        continue;
      }
      const Value x = wanted->GetValue(0);
      std::optional<Vector> with;
      if (args.size() > 2) with = ArrayAt(*args[2], r);
      Vector result(elems->type());
      for (size_t i = 0; i < elems->size(); i++) {
        Value v = elems->GetValue(i);
        bool same = v.is_null() || x.is_null() ? v.is_null() == x.is_null() : Value::Compare(v, x) == 0;
        if (!same) result.AppendFrom(*elems, i);
        else if (with) result.AppendFrom(*with, 0);
      }
      out->AppendString(EncodeArray(result));
    }
  };
  RegisterFn(r, "array_remove", {any, any}, any, remove_or_replace);
  RegisterFn(r, "array_replace", {any, any, any}, any, remove_or_replace);
  RegisterFn(r, "cardinality", {any}, i4,
             StrictFn<SV>([](SV a) { return static_cast<int64_t>(ArrayLength(a)); }));
  // array_cat (and ||, array_append, array_prepend, which the binder turns
  // into it): a NULL argument counts as an empty array, as in PostgreSQL.
  RegisterFn(r, "array_cat", {any, any}, any, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    for (size_t i = 0; i < n; i++) {
      bool a_null = args[0]->IsNull(i), b_null = args[1]->IsNull(i);
      if (a_null && b_null) {
        out->AppendNull();
      } else if (a_null || b_null) {
        out->AppendString(args[a_null ? 1 : 0]->GetString(i));
      } else {
        // Both have the same element type: the elements' bytes are joined
        // as they are, under one count (checked against the limits first).
        std::string_view a = args[0]->GetString(i), b = args[1]->GetString(i);
        uint64_t count = ReadElementCount(&a);
        count += ReadElementCount(&b);
        CheckArrayElements(count);
        std::string all;
        AppendElementCount(count, &all);
        CheckArrayBytes(SaturatingAdd(all.size() + a.size(), b.size()));
        all.reserve(all.size() + a.size() + b.size());
        all.append(a).append(b);
        out->AppendString(std::move(all));
      }
    }
  });
}

}  // namespace freshet
