#include "expr/table_function.h"

#include "common/array.h"
#include "common/datetime.h"
#include "common/error.h"
#include "common/json.h"
#include "common/struct.h"
#include "expr/regexp_split.h"

namespace freshet {

namespace {

class GenerateSeriesRows : public TableFunctionRows {
 public:
  GenerateSeriesRows(const TableFunctionCall& node, EvalContext& ctx) : ctx_(ctx) {
    type_ = node.types[0];
    start_ = node.args[0];
    stop_ = node.args[1];
    if (node.args.size() == 3) step_ = node.args[2];
    finished_ = start_.is_null() || stop_.is_null() || (node.args.size() == 3 && step_.is_null());
    if (finished_) return;
    if (type_.IsInteger()) {
      cur_i_ = start_.int_value();
      step_i_ = node.args.size() == 3 ? step_.int_value() : 1;
      if (step_i_ == 0) throw SqlError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
    } else if (type_.id == TypeId::kNumeric) {
      cur_d_ = start_.decimal_value();
      step_d_ = node.args.size() == 3 ? step_.decimal_value() : DecimalFromInt(1);
      // generate_series_step_numeric's checks.
      const char* names[] = {"start value", "stop value", "step size"};
      const Decimal* values[] = {&cur_d_, &stop_.decimal_value(), &step_d_};
      for (int k = 0; k < 3; k++)
        if (DecimalIsSpecial(*values[k]))
          FRESHET_THROW(sqlstate::kInvalidParameterValue, "{} cannot be {}", names[k],
                        DecimalIsNaN(*values[k]) ? "NaN" : "infinity");
      if (step_d_.value == 0) throw SqlError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
    } else {
      cur_i_ = start_.int_value();
      iv_ = step_.interval_value();
      if (IntervalCompareKey(iv_) == 0) throw SqlError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
    }
  }

  bool Next(DataChunk* out) override {
    if (finished_) return false;
    Vector v(type_);
    v.Reserve(kChunkSize);
    while (v.size() < kChunkSize && !finished_) {
      if (type_.IsInteger()) {
        int64_t stop = stop_.int_value();
        if (step_i_ > 0 ? cur_i_ > stop : cur_i_ < stop) { finished_ = true; break; }
        v.AppendInt(cur_i_);
        if (__builtin_add_overflow(cur_i_, step_i_, &cur_i_)) finished_ = true;
      } else if (type_.id == TypeId::kNumeric) {
        int c = DecimalCompare(cur_d_, stop_.decimal_value());
        if (step_d_.value > 0 ? c > 0 : c < 0) { finished_ = true; break; }
        v.AppendDecimal(cur_d_);
        cur_d_ = DecimalAdd(cur_d_, step_d_);
      } else {
        int64_t stop = stop_.int_value();
        bool forward = IntervalCompareKey(iv_) > 0;
        if (forward ? cur_i_ > stop : cur_i_ < stop) { finished_ = true; break; }
        v.AppendInt(cur_i_);
        // An infinite start does not move: one row, where PostgreSQL loops forever.
        if (!IsFiniteDatetime(cur_i_)) finished_ = true;
        cur_i_ = type_.id == TypeId::kTimestamptz ? TimestamptzAddInterval(cur_i_, iv_, ctx_.time_zone)
                                                  : TimestampAddInterval(cur_i_, iv_);
      }
    }
    if (v.size() == 0) return false;
    *out = DataChunk();
    out->AddColumn(std::move(v));
    return true;
  }

 private:
  EvalContext& ctx_;
  DataType type_;
  Value start_, stop_, step_;
  bool finished_ = false;
  int64_t cur_i_ = 0, step_i_ = 1;
  Decimal cur_d_, step_d_;
  Interval iv_;
};

// unnest(array [, array ...]): a column per array, as many rows as the
// longest has, the others padded with NULLs.
class UnnestRows : public TableFunctionRows {
 public:
  UnnestRows(const TableFunctionCall& node, EvalContext& ctx) {
    for (const Value& array : node.args) {
      const DataType type = array.type().ElementType();
      elements_.push_back(array.is_null() ? Vector(type) : DecodeArray(array.string_value(), type));
      rows_ = std::max(rows_, elements_.back().size());
    }
  }

  bool Next(DataChunk* out) override {
    if (pos_ >= rows_) return false;
    size_t end = std::min(rows_, pos_ + kChunkSize);
    *out = DataChunk();
    for (const Vector& elements : elements_) {
      Vector v(elements.type());
      size_t have = std::min(end, std::max(pos_, elements.size()));
      if (have > pos_) v.AppendRange(elements, pos_, have);
      v.AppendNulls(end - std::max(have, pos_));
      out->AddColumn(std::move(v));
    }
    pos_ = end;
    return true;
  }

 private:
  std::vector<Vector> elements_;
  size_t rows_ = 0;
  size_t pos_ = 0;
};

// information_schema._pg_expandarray(array): a row (x, n) per element, n
// its 1-based position (two columns in FROM, a struct in a select list); generate_subscripts(array, dim [, reverse]): the
// subscripts of dimension 1 (1..n; 0..n-1 for int2vector and oidvector;
// arrays have one dimension: any other
// dimension, like a NULL array, gives no rows), descending when reverse.
class ArrayPositionsRows : public TableFunctionRows {
 public:
  ArrayPositionsRows(const TableFunctionCall& node, EvalContext& ctx)
      : type_(node.types[0]), expand_(node.name == "_pg_expandarray") {
    Value array = node.args[0];
    if (array.is_null()) return;
    if (expand_) {
      as_columns_ = !type_.IsStruct();
      elements_ = DecodeArray(array.string_value(), array.type().ElementType());
      count_ = elements_.size();
      return;
    }
    Value dim = node.args[1];
    if (dim.is_null() || dim.int_value() != 1) return;
    count_ = DecodeArray(array.string_value(), array.type().ElementType()).size();
    first_ = node.args[0].type().IsVector() ? 0 : 1;  // int2vector and oidvector start at 0
    if (node.args.size() == 3) {
      Value reverse = node.args[2];
      reverse_ = !reverse.is_null() && reverse.bool_value();
    }
  }

  bool Next(DataChunk* out) override {
    if (pos_ >= count_) return false;
    size_t end = std::min(count_, pos_ + kChunkSize);
    *out = DataChunk();
    if (as_columns_) {  // (x, n) as two columns
      Vector x(type_), n(DataType::Int32());
      for (size_t i = pos_; i < end; i++) {
        x.AppendFrom(elements_, i);
        n.AppendInt(int64_t(i + 1));
      }
      pos_ = end;
      out->AddColumn(std::move(x));
      out->AddColumn(std::move(n));
      return true;
    }
    Vector v(type_);
    v.Reserve(end - pos_);
    for (size_t i = pos_; i < end; i++) {
      if (!expand_) {
        v.AppendInt(first_ + (reverse_ ? int64_t(count_ - 1 - i) : int64_t(i)));
        continue;
      }
      StructWriter writer(2);
      writer.Add(elements_, i);
      writer.Add(Value::Int32(int64_t(i + 1)));
      v.AppendString(writer.Finish());
    }
    pos_ = end;
    out->AddColumn(std::move(v));
    return true;
  }

 private:
  DataType type_;
  bool expand_, as_columns_ = false;
  bool reverse_ = false;
  int64_t first_ = 1;
  Vector elements_{DataType::Int32()};
  size_t count_ = 0, pos_ = 0;
};

// Rows of (key, value) text pairs: json(b)_each[_text] (key, value),
// json(b)_array_elements[_text] (value) and json(b)_object_keys (key) of one
// JSON value; pg_options_to_table(options) (option_name, option_value) of a
// reloptions-style text[] ("name=value", NULL value without '='). The rows
// come out as the node's columns: (key, value) in FROM, or one struct
// column when the function stands in a select list.
class KeyValueRows : public TableFunctionRows {
 public:
  KeyValueRows(const TableFunctionCall& node, EvalContext& ctx) : types_(node.types) {
    Value arg = node.args[0];
    if (arg.is_null()) return;
    const std::string& name = node.name;
    if (name == "pg_options_to_table") {
      Vector options = DecodeArray(arg.string_value(), DataType::Text());
      for (size_t i = 0; i < options.size(); i++) {
        if (options.IsNull(i)) continue;
        std::string_view option = options.GetString(i);
        size_t eq = option.find('=');
        if (eq == std::string_view::npos) members_.emplace_back(std::string(option), std::nullopt);
        else members_.emplace_back(std::string(option.substr(0, eq)), std::string(option.substr(eq + 1)));
      }
      return;
    }
    const bool as_text = name.ends_with("_text");
    auto value = [&](std::string raw) { return as_text ? JsonAsText(raw) : std::optional<std::string>(std::move(raw)); };
    if (name.find("_each") != std::string::npos) {
      for (auto& [key, raw] : JsonMembers(arg.string_value(), name)) members_.emplace_back(std::move(key), value(std::move(raw)));
    } else if (name.find("_array_elements") != std::string::npos) {
      for (auto& e : JsonElements(arg.string_value(), name)) members_.emplace_back("", value(std::move(e)));
      keyless_ = true;
    } else {
      for (auto& k : JsonObjectKeys(arg.string_value(), name)) members_.emplace_back(std::move(k), "");
      keys_only_ = true;
    }
  }

  bool Next(DataChunk* out) override {
    if (pos_ >= members_.size()) return false;
    size_t end = std::min(members_.size(), pos_ + kChunkSize);
    *out = DataChunk(types_);
    bool as_struct = types_.size() == 1 && types_[0].IsStruct();
    for (size_t i = pos_; i < end; i++) {
      const auto& key = members_[i].first;  // (named locals: clang 14's lambdas cannot capture bindings)
      const auto& value = members_[i].second;
      auto append_value = [&](Vector* v) { value ? v->AppendString(*value) : v->AppendNull(); };
      if (keys_only_) {
        out->column(0).AppendString(key);
      } else if (keyless_) {
        append_value(&out->column(0));
      } else if (as_struct) {
        const DataType& value_type = types_[0].StructFields()[1].second;
        StructWriter writer(2);
        writer.Add(Value::FromString(DataType::Text(), key));
        writer.Add(value ? Value::FromString(value_type, *value) : Value::Null(value_type));
        out->column(0).AppendString(writer.Finish());
      } else {
        out->column(0).AppendString(key);
        append_value(&out->column(1));
      }
    }
    out->set_cardinality(end - pos_);
    pos_ = end;
    return true;
  }

 private:
  std::vector<DataType> types_;
  std::vector<std::pair<std::string, std::optional<std::string>>> members_;  // (key, value)
  bool keyless_ = false, keys_only_ = false;
  size_t pos_ = 0;
};

// One column of strings computed up front: regexp_split_to_table's pieces,
// regexp_matches' arrays, pg_listening_channels' channels.
class StringRows : public TableFunctionRows {
 public:
  StringRows(const TableFunctionCall& node, EvalContext& ctx) : type_(node.types[0]) {
    if (node.name == "pg_listening_channels") {
      if (ctx.session) rows_ = ctx.session->ListeningChannels();
      return;
    }
    const std::vector<Value>& args = node.args;
    for (const Value& v : args)
      if (v.is_null()) return;  // strict: no rows
    const std::string_view flags = args.size() > 2 ? std::string_view(args[2].string_value()) : std::string_view();
    rows_ = node.name == "regexp_matches"
                ? RegexpMatches(args[0].string_value(), args[1].string_value(), flags)
                : RegexpSplit(args[0].string_value(), args[1].string_value(), flags, "regexp_split_to_table");
  }
  bool Next(DataChunk* out) override {
    if (pos_ >= rows_.size()) return false;
    *out = DataChunk({type_});
    size_t end = std::min(rows_.size(), pos_ + kChunkSize);
    for (size_t i = pos_; i < end; i++) out->column(0).AppendString(rows_[i]);
    out->set_cardinality(end - pos_);
    pos_ = end;
    return true;
  }

 private:
  DataType type_;
  std::vector<std::string> rows_;
  size_t pos_ = 0;
};

// pg_partition_ancestors(relation): no table is a partition.
class NoRows : public TableFunctionRows {
 public:
  bool Next(DataChunk*) override { return false; }
};

}  // namespace

std::unique_ptr<TableFunctionRows> MakeTableFunctionRows(const TableFunctionCall& node, EvalContext& ctx) {
  if (node.name == "pg_partition_ancestors") return std::make_unique<NoRows>();
  if (node.name == "unnest") return std::make_unique<UnnestRows>(node, ctx);
  if (node.name == "regexp_split_to_table" || node.name == "regexp_matches" || node.name == "pg_listening_channels")
    return std::make_unique<StringRows>(node, ctx);
  if (node.name.starts_with("json") || node.name == "pg_options_to_table") return std::make_unique<KeyValueRows>(node, ctx);
  if (node.name == "_pg_expandarray" || node.name == "generate_subscripts") return std::make_unique<ArrayPositionsRows>(node, ctx);
  return std::make_unique<GenerateSeriesRows>(node, ctx);
}

}  // namespace freshet
