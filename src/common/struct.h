// Structs: the physical value of a SQL struct (see types.h) and its byte
// encoding.
//
// A struct value is a std::string holding a varint field count and then
// each field encoded as an array element is (common/array.h: a tag byte,
// then the field's physical representation). Field names and types are
// not stored: they are the struct's DataType. A NULL struct is a NULL
// value; a struct whose fields are all NULL is not NULL.
//
// Equal structs of the same type encode to the same bytes (except numeric
// fields that differ only in scale), so hashing and grouping use the bytes.
// EncodeStructKey gives the memcomparable key that orders structs field by
// field (NULL fields after all others), as PostgreSQL orders records.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/value.h"
#include "common/vector.h"

namespace freshet {

// Builds one struct value field by field, in the type's field order.
class StructWriter {
 public:
  explicit StructWriter(size_t fields);
  // Appends row i of `column` (a vector of the field's type) as the next field.
  void Add(const Vector& column, size_t i);
  void Add(const Value& v);
  // The encoded struct; the writer is empty afterwards.
  std::string Finish();

 private:
  std::string out_;
};

// The functions below take the struct's fields (DataType::StructFields,
// which looks the type up under a lock: loops over many values fetch them
// once) or its type. Malformed bytes throw an internal error (XX000).
using StructFieldList = std::vector<StructField>;

// The fields of an encoded struct, as Values of the field types.
std::vector<Value> DecodeStruct(std::string_view bytes, const StructFieldList& fields);
inline std::vector<Value> DecodeStruct(std::string_view bytes, const DataType& type) {
  return DecodeStruct(bytes, type.StructFields());
}
// Appends field k of an encoded struct to *out (a vector of the field's
// type), decoding only that field.
void AppendStructField(std::string_view bytes, const StructFieldList& fields, size_t k, Vector* out);
// Appends the memcomparable key of a struct (ascending).
void EncodeStructKey(std::string_view bytes, const DataType& type, std::string* out);
// PostgreSQL's btrecordcmp over structs of one type: <0, 0, >0.
int CompareStructs(std::string_view a, std::string_view b, const StructFieldList& fields);
inline int CompareStructs(std::string_view a, std::string_view b, const DataType& type) {
  return CompareStructs(a, b, type.StructFields());
}

}  // namespace freshet
