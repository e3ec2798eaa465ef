// Structs in expressions (expr/struct.h).

#include <fmt/format.h>

#include "common/limits.h"
#include "common/struct.h"
#include "expr/cast.h"
#include "expr/function_helpers.h"
#include "expr/struct.h"

namespace freshet {

namespace {

bool IsRecordSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

[[noreturn]] void MalformedRecord(std::string_view text, const char* detail) {
  SqlError e(sqlstate::kInvalidTextRepresentation, fmt::format("malformed record literal: \"{}\"", text));
  e.WithDetail(detail);
  throw e;
}

}  // namespace

// record_out. Quoting doubles the quotes of a nested record's text at each
// level, so the text of ROW(ROW(...)) grows as 2^depth: each field is
// checked against the limit on a value (common/limits.h) before it is
// appended, which ends a deep nesting at about 30 levels instead of
// building gigabytes.
std::string FormatStructText(std::string_view bytes, const DataType& struct_type, const EvalContext& ctx) {
  std::string out = "(";
  bool first = true;
  for (const Value& v : DecodeStruct(bytes, struct_type)) {
    if (!first) out += ',';
    first = false;
    if (v.is_null()) continue;
    std::string s = FormatValueText(v, ctx);
    bool quote = s.empty();
    size_t doubled = 0;
    for (char c : s) {
      quote |= c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || IsRecordSpace(c);
      doubled += c == '"' || c == '\\';
    }
    CheckValueSize(SaturatingAdd(out.size() + 3, s.size() + doubled));
    if (!quote) {
      out += s;
      continue;
    }
    out.reserve(out.size() + s.size() + doubled + 3);
    out += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') out += c;  // record_out doubles them
      out += c;
    }
    out += '"';
  }
  return out + ")";
}

std::string ParseStructText(std::string_view text, const DataType& struct_type, EvalContext& ctx) {
  if (struct_type.IsAnyStruct())
    throw SqlError(sqlstate::kFeatureNotSupported, "input of anonymous composite types is not implemented");
  const auto& fields = struct_type.StructFields();
  size_t i = 0, n = text.size();
  while (i < n && IsRecordSpace(text[i])) i++;
  if (i >= n || text[i] != '(') MalformedRecord(text, "Missing left parenthesis.");
  i++;
  StructWriter writer(fields.size());
  for (size_t f = 0; f < fields.size(); f++) {
    if (f > 0) {
      if (i >= n || text[i] != ',') MalformedRecord(text, "Too few columns.");
      i++;
    }
    if (i < n && (text[i] == ',' || text[i] == ')')) {  // nothing at all: NULL
      writer.Add(Value::Null(fields[f].second));
      continue;
    }
    std::string field;
    bool in_quotes = false;
    while (i < n) {
      char c = text[i];
      if (!in_quotes && (c == ',' || c == ')')) break;
      i++;
      if (c == '\\') {
        if (i >= n) MalformedRecord(text, "Unexpected end of input.");
        field += text[i++];
      } else if (c == '"') {
        if (!in_quotes) in_quotes = true;
        else if (i < n && text[i] == '"') field += text[i++];  // "" inside quotes
        else in_quotes = false;
      } else {
        field += c;
      }
    }
    if (in_quotes || i >= n) MalformedRecord(text, "Unexpected end of input.");
    writer.Add(ParseText(field, fields[f].second, ctx));
  }
  if (i >= n || text[i] != ')') MalformedRecord(text, fields.empty() ? "Missing right parenthesis." : "Too many columns.");
  i++;
  while (i < n && IsRecordSpace(text[i])) i++;
  if (i != n) MalformedRecord(text, "Junk after right parenthesis.");
  return writer.Finish();
}

Vector CastStructVector(const Vector& in, const DataType& to, EvalContext& ctx, bool assignment) {
  Vector out(to);
  out.Reserve(in.size());
  const StructFieldList& to_fields = to.StructFields();
  const StructFieldList& from_fields = in.type().StructFields();
  if (from_fields.size() != to_fields.size())
    throw SqlError(sqlstate::kCannotCoerce, fmt::format("cannot cast type {} to {}", in.type().ToString(), to.ToString()));
  for (size_t r = 0; r < in.size(); r++) {
    if (in.IsNull(r)) {
      out.AppendNull();
      continue;
    }
    std::vector<Value> values = DecodeStruct(in.GetString(r), from_fields);
    StructWriter writer(values.size());
    for (size_t f = 0; f < values.size(); f++) writer.Add(CastValue(values[f], to_fields[f].second, ctx, assignment));
    out.AppendString(writer.Finish());
  }
  return out;
}

// ---- ROW(...) ----

StructConstructorExpr::StructConstructorExpr(DataType struct_type, std::vector<ExprPtr> fields)
    : Expression(Kind::kStruct, struct_type) {
  children_ = std::move(fields);
}

Vector StructConstructorExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  size_t n = input.num_rows();
  std::vector<Vector> values;
  for (const auto& c : children_) values.push_back(c->Eval(input, ctx));
  Vector out(type_);
  out.Reserve(n);
  for (size_t r = 0; r < n; r++) {
    StructWriter writer(values.size());
    for (const auto& v : values) writer.Add(v, r);
    out.AppendString(writer.Finish());
  }
  return out;
}

std::string StructConstructorExpr::ToString() const {
  std::string s;
  for (const auto& c : children_) s += (s.empty() ? "" : ", ") + c->ToString();
  return "ROW(" + s + ")";
}

// ---- (s).f ----

FieldSelectExpr::FieldSelectExpr(ExprPtr input, size_t index)
    : Expression(Kind::kStruct, input->type().StructFields().at(index).second), index_(index) {
  children_.push_back(std::move(input));
}

Vector FieldSelectExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  Vector structs = children_[0]->Eval(input, ctx);
  const StructFieldList& fields = children_[0]->type().StructFields();
  Vector out(type_);
  out.Reserve(structs.size());
  for (size_t r = 0; r < structs.size(); r++) {
    if (structs.IsNull(r)) out.AppendNull();
    else AppendStructField(structs.GetString(r), fields, index_, &out);
  }
  return out;
}

std::string FieldSelectExpr::ToString() const {
  return fmt::format("({}).{}", children_[0]->ToString(), children_[0]->type().StructFields().at(index_).first);
}

// ---- Functions ----

void RegisterStructFunctions(FunctionRegistry* r) {
  const DataType s = DataType::AnyStruct(), b = DataType::Boolean();
  auto reg = [&](const char* name, bool (*test)(int)) {
    ScalarFunction f;
    f.name = name;
    f.arg_types = {s, s};
    f.return_type = b;
    f.fn = [test](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
      const StructFieldList& fields = args[0]->type().StructFields();
      ExecuteStrict<std::string_view, std::string_view>(
          args, n, out, [&](std::string_view x, std::string_view y) { return test(CompareStructs(x, y, fields)); });
    };
    // Structs compare field by field, so both sides must be of one type.
    f.check = [name](const std::vector<DataType>& types) {
      if (!(types[0] == types[1]) || types[0].IsAnyStruct())
        throw SqlError(sqlstate::kDatatypeMismatch,
                       fmt::format("cannot compare dissimilar types {} and {} with {}", types[0].ToString(),
                                   types[1].ToString(), name));
    };
    r->Register(std::move(f));
  };
  ForEachComparisonOperator(reg);
}

}  // namespace freshet
