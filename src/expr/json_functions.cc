// json and jsonb (common/json.h): to_json/to_jsonb of every type,
// json_build_object/array (the binder wraps their arguments in to_json),
// the -> ->> #> #>> operators, json_typeof and json_array_length; jsonb's
// @> <@ ? ?| ?& || - #- operators, jsonb_set and jsonb_insert; the final
// step of the JSON aggregates.
#include <fmt/format.h>

#include "common/array.h"
#include "common/json.h"
#include "common/struct.h"
#include "expr/cast.h"
#include "expr/function_helpers.h"
#include "expr/function_registry.h"

namespace freshet {

namespace {

using SV = std::string_view;

// Row i of v as JSON, as PostgreSQL's to_json: numbers and booleans bare
// (NaN and infinities as strings), text quoted, json and jsonb as they are,
// dates and timestamps in ISO 8601 with a T, arrays and records as JSON
// arrays and objects, anything else as its text output, quoted.
void AppendJsonOf(const Vector& v, size_t i, const EvalContext& ctx, std::string* out) {
  if (v.IsNull(i)) {
    out->append("null");
    return;
  }
  const DataType& t = v.type();
  switch (t.id) {
    case TypeId::kBoolean: out->append(v.GetBool(i) ? "true" : "false"); return;
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kNumeric:
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      std::string s = FormatText(v, i, ctx);
      if (s == "NaN" || s == "Infinity" || s == "-Infinity") AppendJsonString(out, s);
      else out->append(s);
      return;
    }
    case TypeId::kVarchar:
      if (t.IsJson()) out->append(v.GetString(i));
      else if (t.IsBpchar()) AppendJsonString(out, BpcharPadded(v.GetString(i), t));
      else AppendJsonString(out, v.GetString(i));
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
    case TypeId::kTimestamptz: {
      std::string s = FormatText(v, i, ctx);
      // "2021-03-04 05:06:07+00" -> "2021-03-04T05:06:07+00:00"
      if (s.size() > 10 && s[10] == ' ') s[10] = 'T';
      if (t.id == TypeId::kTimestamptz && s.size() >= 3 && (s[s.size() - 3] == '+' || s[s.size() - 3] == '-'))
        s += ":00";
      AppendJsonString(out, s);
      return;
    }
    case TypeId::kArray: {
      Vector elems = DecodeArray(v.GetString(i), t.ElementType());
      out->push_back('[');
      for (size_t k = 0; k < elems.size(); k++) {
        if (k) out->push_back(',');
        AppendJsonOf(elems, k, ctx, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kStruct: {
      if (t.IsAnyStruct()) break;
      const auto& fields = t.StructFields();
      std::vector<Value> values = DecodeStruct(v.GetString(i), t);
      out->push_back('{');
      for (size_t k = 0; k < fields.size(); k++) {
        if (k) out->push_back(',');
        AppendJsonString(out, fields[k].first);
        out->push_back(':');
        Vector one(fields[k].second);
        one.Append(values[k]);
        AppendJsonOf(one, 0, ctx, out);
      }
      out->push_back('}');
      return;
    }
    default: break;
  }
  AppendJsonString(out, FormatText(v, i, ctx));
}

// The types to_json is registered for (anything else reaches it cast to text).
std::vector<DataType> ToJsonTypes() {
  return {DataType::Boolean(), DataType::Int16(),    DataType::Int32(),     DataType::Int64(),
          DataType::Float32(), DataType::Float64(),  DataType::Numeric(),   DataType::Text(),
          DataType::Json(),    DataType::Jsonb(),    DataType::Date(),      DataType::Time(),
          DataType::Timestamp(), DataType::Timestamptz(), DataType::Interval(), DataType::Bytea(),
          DataType::Oid(),     DataType::AnyArray(), DataType::AnyStruct(), DataType::AnyEnum()};
}

// The result of building: json as built, jsonb normalized.
void AppendBuilt(Vector* out, std::string&& json) {
  if (out->type().IsJsonb()) out->AppendString(NormalizeJsonb(json));
  else out->AppendString(std::move(json));
}

// json_build_object / json_build_array over arguments already made JSON.
ScalarFn BuildFn(bool object) {
  return [object](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    if (object && args.size() % 2 != 0)
      throw SqlError(sqlstate::kInvalidParameterValue, "argument list must have even number of elements")
          .WithHint("The arguments of json_build_object() must consist of alternating keys and values.");
    for (size_t r = 0; r < n; r++) {
      std::string json(1, object ? '{' : '[');
      for (size_t a = 0; a < args.size(); a++) {
        if (a > 0) json += object && a % 2 == 1 ? " : " : ", ";
        if (object && a % 2 == 0) {
          if (args[a]->IsNull(r))
            throw SqlError(sqlstate::kInvalidParameterValue, fmt::format("argument {} cannot be null", a + 1))
                .WithHint("Object keys should be text.");
          // Keys are text: a JSON string's value, any other value's text.
          std::string key = JsonAsText(args[a]->GetString(r)).value_or("");
          AppendJsonString(&json, key);
          continue;
        }
        json += args[a]->IsNull(r) ? "null" : std::string(args[a]->GetString(r));
      }
      json += object ? '}' : ']';
      AppendBuilt(out, std::move(json));
    }
  };
}

void RegisterVariadic(FunctionRegistry* r, const std::string& name, DataType ret, bool object) {
  ScalarFunction f;
  f.name = name;
  f.arg_types = {DataType::Json()};
  f.return_type = ret;
  f.fn = BuildFn(object);
  f.variadic = true;
  r->Register(std::move(f));
  RegisterFn(r, name, {}, ret, BuildFn(object));
}

// Registers op(json, key) -> result for json and jsonb: the part's JSON
// text (->, #>) or its text (->>, #>>); NULL when absent.
template <typename Key, typename Get>
void RegisterAccess(FunctionRegistry* r, const std::string& op, const DataType& key_type, bool as_text, Get get) {
  for (const DataType& j : {DataType::Json(), DataType::Jsonb()}) {
    RegisterFn(r, op, {j, key_type}, as_text ? DataType::Text() : j,
               [get, as_text](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
                 ExecuteStrictEmit<SV, Key>(args, n, out, [&](Vector* o, SV json, Key key) {
                   std::optional<std::string> part = get(json, key);
                   if (part && as_text) part = JsonAsText(*part);
                   if (part) o->AppendString(std::move(*part));
                   else o->AppendNull();
                 });
               });
  }
}

// #> and #>>: the part at a path of keys (array elements by their index).
std::optional<std::string> JsonPath(SV json, SV path_array) {
  Vector path = DecodeArray(path_array, DataType::Text());
  std::optional<std::string> cur = std::string(json);
  for (size_t k = 0; k < path.size() && cur; k++) {
    if (path.IsNull(k)) return std::nullopt;
    std::string step(path.GetString(k));
    std::string type = JsonTypeOf(*cur);
    if (type == "object") {
      cur = JsonObjectField(*cur, step);
    } else if (type == "array") {
      char* end = nullptr;
      long long idx = std::strtoll(step.c_str(), &end, 10);
      if (step.empty() || *end != '\0') return std::nullopt;
      cur = JsonArrayElement(*cur, idx);
    } else {
      return std::nullopt;
    }
  }
  return cur;
}

// A text[] argument's elements (NULL elements as nullopt).
std::vector<std::optional<std::string>> TextArrayElements(SV array) {
  Vector v = DecodeArray(array, DataType::Text());
  std::vector<std::optional<std::string>> out;
  for (size_t i = 0; i < v.size(); i++) {
    if (v.IsNull(i)) out.emplace_back();
    else out.emplace_back(std::string(v.GetString(i)));
  }
  return out;
}

// The non-NULL elements (?|, ?& and - ignore NULL keys, as PostgreSQL's).
std::vector<std::string> TextArrayKeys(SV array) {
  std::vector<std::string> out;
  for (auto& e : TextArrayElements(array))
    if (e) out.push_back(std::move(*e));
  return out;
}

// The final step of json_agg / jsonb_agg / json_object_agg /
// jsonb_object_agg, which the binder makes array_agg of each row's JSON
// (the pair [key, value] for the object aggregates) followed by this.
// `nested`: json_agg of arrays or records, whose elements after the first
// PostgreSQL puts on lines of their own (", \n ").
ScalarFn JsonAggFinal(bool object, bool nested = false) {
  return [object, nested](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    ExecuteStrictEmit<SV>(args, n, out, [&](Vector* o, SV array) {
      Vector elems = DecodeArray(array, DataType::Json());
      std::string json = object ? "{ " : "[";
      for (size_t i = 0; i < elems.size(); i++) {
        if (i) json += nested && !elems.IsNull(i) ? ", \n " : ", ";
        if (!object) {
          json += elems.IsNull(i) ? "null" : std::string(elems.GetString(i));
          continue;
        }
        std::vector<std::string> pair = JsonElements(elems.GetString(i), "json_object_agg");  // [key, value]
        std::optional<std::string> key_text = JsonAsText(pair[0]);
        if (!key_text) throw SqlError(sqlstate::kInvalidParameterValue, "field name must not be null");
        AppendJsonString(&json, *key_text);
        json += " : ";
        json += pair[1];
      }
      json += object ? " }" : "]";
      AppendBuilt(o, std::move(json));
    });
  };
}

}  // namespace

void RegisterJsonFunctions(FunctionRegistry* r) {
  for (const char* name : {"to_json", "to_jsonb"}) {
    DataType ret = std::string(name) == "to_jsonb" ? DataType::Jsonb() : DataType::Json();
    for (const DataType& t : ToJsonTypes()) {
      RegisterFn(r, name, {t}, ret, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
        for (size_t i = 0; i < n; i++) {
          if (args[0]->IsNull(i)) {
            out->AppendNull();
            continue;
          }
          std::string json;
          AppendJsonOf(*args[0], i, ctx, &json);
          AppendBuilt(out, std::move(json));
        }
      });
    }
  }
  RegisterVariadic(r, "json_build_object", DataType::Json(), true);
  RegisterVariadic(r, "jsonb_build_object", DataType::Jsonb(), true);
  RegisterVariadic(r, "json_build_array", DataType::Json(), false);
  RegisterVariadic(r, "jsonb_build_array", DataType::Jsonb(), false);

  const DataType text = DataType::Text(), i4 = DataType::Int32(), text_array = DataType::Array(DataType::Text());
  for (bool as_text : {false, true}) {
    const std::string arrow = as_text ? "->>" : "->";
    RegisterAccess<SV>(r, arrow, text, as_text, [](SV json, SV key) { return JsonObjectField(json, key); });
    RegisterAccess<int64_t>(r, arrow, i4, as_text, [](SV json, int64_t index) { return JsonArrayElement(json, index); });
    RegisterAccess<SV>(r, as_text ? "#>>" : "#>", text_array, as_text, JsonPath);
  }
  // jsonb's operators and functions (common/jsonb.cc).
  const DataType jb = DataType::Jsonb(), b = DataType::Boolean();
  RegisterFn(r, "@>", {jb, jb}, b, StrictFn<SV, SV>([](SV a, SV c) { return JsonbContains(a, c); }));
  RegisterFn(r, "<@", {jb, jb}, b, StrictFn<SV, SV>([](SV a, SV c) { return JsonbContains(c, a); }));
  RegisterFn(r, "?", {jb, text}, b, StrictFn<SV, SV>([](SV j, SV key) {
               return JsonbExists(j, {std::string(key)}, false);
             }));
  RegisterFn(r, "?|", {jb, text_array}, b, StrictFn<SV, SV>([](SV j, SV keys) {
               return JsonbExists(j, TextArrayKeys(keys), false);
             }));
  RegisterFn(r, "?&", {jb, text_array}, b, StrictFn<SV, SV>([](SV j, SV keys) {
               return JsonbExists(j, TextArrayKeys(keys), true);
             }));
  RegisterFn(r, "||", {jb, jb}, jb, StrictFn<SV, SV>([](SV a, SV c) { return JsonbConcat(a, c); }));
  RegisterFn(r, "-", {jb, text}, jb, StrictFn<SV, SV>([](SV j, SV key) { return JsonbDeleteKeys(j, {std::string(key)}); }));
  RegisterFn(r, "-", {jb, text_array}, jb, StrictFn<SV, SV>([](SV j, SV keys) {
               return JsonbDeleteKeys(j, TextArrayKeys(keys));
             }));
  RegisterFn(r, "-", {jb, i4}, jb, StrictFn<SV, int64_t>([](SV j, int64_t i) { return JsonbDeleteIndex(j, i); }));
  RegisterFn(r, "#-", {jb, text_array}, jb, StrictFn<SV, SV>([](SV j, SV path) {
               return JsonbDeletePath(j, TextArrayElements(path));
             }));
  // jsonb_set(target, path, value [, create_if_missing = true]);
  // jsonb_insert(target, path, value [, insert_after = false]).
  using PathPut = std::string (*)(SV, const std::vector<std::optional<std::string>>&, SV, bool);
  auto path_put = [](PathPut put, bool flag_default) -> ScalarFn {
    return [put, flag_default](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
      for (size_t i = 0; i < n; i++) {
        if (AnyNull(args, i)) {
          out->AppendNull();
          continue;
        }
        bool flag = args.size() < 4 ? flag_default : args[3]->GetBool(i);
        out->AppendString(put(args[0]->GetString(i), TextArrayElements(args[1]->GetString(i)), args[2]->GetString(i), flag));
      }
    };
  };
  for (bool with_flag : {false, true}) {
    std::vector<DataType> set_args = {jb, text_array, jb};
    if (with_flag) set_args.push_back(b);
    RegisterFn(r, "jsonb_set", set_args, jb, path_put(&JsonbSetPath, true));
    RegisterFn(r, "jsonb_insert", set_args, jb, path_put(&JsonbInsertPath, false));
  }
  const DataType json_array = DataType::Array(DataType::Json());
  RegisterFn(r, "json_agg_finalfn", {json_array}, DataType::Json(), JsonAggFinal(false));
  RegisterFn(r, "json_agg_nested_finalfn", {json_array}, DataType::Json(), JsonAggFinal(false, /*nested=*/true));
  RegisterFn(r, "jsonb_agg_finalfn", {json_array}, jb, JsonAggFinal(false));
  RegisterFn(r, "json_object_agg_finalfn", {json_array}, DataType::Json(), JsonAggFinal(true));
  RegisterFn(r, "jsonb_object_agg_finalfn", {json_array}, jb, JsonAggFinal(true));

  for (const char* prefix : {"json", "jsonb"}) {
    DataType j = std::string(prefix) == "json" ? DataType::Json() : DataType::Jsonb();
    RegisterFn(r, std::string(prefix) + "_typeof", {j}, text, StrictFn<SV>([](SV json) { return JsonTypeOf(json); }));
    RegisterFn(r, std::string(prefix) + "_array_length", {j}, i4, StrictFn<SV>([](SV json) -> int64_t {
                 auto len = JsonArrayLength(json);
                 if (!len) {
                   std::string type = JsonTypeOf(json);
                   throw SqlError(sqlstate::kInvalidParameterValue,
                                  type == "object" || type == "array" ? "cannot get array length of a non-array"
                                                                      : "cannot get array length of a scalar");
                 }
                 return *len;
               }));
  }
}

}  // namespace freshet
