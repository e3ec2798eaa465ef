#include "common/struct.h"

#include "common/array.h"
#include "common/encoding.h"
#include "common/error.h"
#include "common/limits.h"

namespace freshet {

StructWriter::StructWriter(size_t fields) { AppendElementCount(fields, &out_); }

// A struct is one value: PostgreSQL's limit on a value's size holds for it
// too (checked before a string field is copied in).
void StructWriter::Add(const Vector& column, size_t i) {
  if (column.physical() == PhysicalType::kString && !column.IsNull(i))
    CheckValueSize(SaturatingAdd(out_.size() + 11, column.GetString(i).size()));
  AppendEncodedElement(column, i, &out_);
}

void StructWriter::Add(const Value& v) {
  Vector one(v.type());
  one.Append(v);
  Add(one, 0);
}

std::string StructWriter::Finish() { return std::move(out_); }

namespace {

void ReadFieldCount(std::string_view* bytes, const StructFieldList& fields) {
  if (ReadElementCount(bytes) != fields.size())
    throw SqlError(sqlstate::kInternalError, "malformed struct value: wrong number of fields");
}

}  // namespace

std::vector<Value> DecodeStruct(std::string_view bytes, const StructFieldList& fields) {
  ReadFieldCount(&bytes, fields);
  std::vector<Value> out;
  out.reserve(fields.size());
  for (const auto& [name, field_type] : fields) {
    Vector one(field_type);
    DecodeElementInto(&bytes, &one);
    out.push_back(one.GetValue(0));
  }
  if (!bytes.empty()) throw SqlError(sqlstate::kInternalError, "malformed struct value: trailing bytes");
  return out;
}

void AppendStructField(std::string_view bytes, const StructFieldList& fields, size_t k, Vector* out) {
  ReadFieldCount(&bytes, fields);
  if (k >= fields.size()) throw SqlError(sqlstate::kInternalError, "struct field out of range");
  for (size_t i = 0; i < k; i++) SkipElement(&bytes, fields[i].second.physical());
  DecodeElementInto(&bytes, out);
}

void EncodeStructKey(std::string_view bytes, const DataType& type, std::string* out) {
  // Every struct of a type has the same number of fields, so the field keys
  // need no terminator.
  for (const Value& v : DecodeStruct(bytes, type)) EncodeKeyValue(v, out);
}

int CompareStructs(std::string_view a, std::string_view b, const StructFieldList& fields) {
  std::vector<Value> x = DecodeStruct(a, fields), y = DecodeStruct(b, fields);
  for (size_t i = 0; i < x.size(); i++) {
    int c = Value::Compare(x[i], y[i]);
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace freshet
