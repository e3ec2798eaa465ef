// Arrays: the physical value of a SQL array (see types.h) and its byte
// encoding.
//
// An array value is a std::string holding: a varint element count, then
// each element as a cell of the row encoding (common/encoding.h: a tag
// byte, 0 = NULL, 1 = value, then the physical representation). The element type
// is not stored; it is part of the array's DataType. Arrays are
// one-dimensional with lower bound 1.
//
// Equal arrays of the same type encode to the same bytes (except numeric
// elements that differ only in scale), and EncodeArrayKey gives the
// memcomparable key that orders arrays as PostgreSQL does: element by
// element (NULL elements after all others), then the shorter first.
#pragma once

#include <string>
#include <string_view>

#include "common/vector.h"

namespace freshet {

// The element codec, shared with structs (common/struct.h): an element is
// a cell of the row encoding (EncodeCell in common/encoding.h). Appends row
// i of v as one element / decodes one element from the front of *in,
// appending it to *out (of the element's type); malformed bytes throw.
void AppendEncodedElement(const Vector& v, size_t i, std::string* out);
void DecodeElementInto(std::string_view* in, Vector* out);
// Moves *in past one element of the given physical type.
void SkipElement(std::string_view* in, PhysicalType physical);
// The same for one element known as a string (varchar, bytea) or a NULL,
// without a Vector; and the bytes a string element takes.
void AppendEncodedStringElement(std::string_view s, std::string* out);
inline void AppendEncodedNullElement(std::string* out) { out->push_back(0); }
size_t EncodedStringElementSize(std::string_view s);
// The varint count in front of an array's (or struct's) elements.
void AppendElementCount(uint64_t n, std::string* out);
uint64_t ReadElementCount(std::string_view* in);

// Encodes every row of `elements` (a vector of the element type) as one array.
std::string EncodeArray(const Vector& elements);
// Decodes an array whose elements have type `element`. Throws an internal
// error (XX000) on malformed bytes.
Vector DecodeArray(std::string_view bytes, const DataType& element);
// Number of elements (reads only the header).
size_t ArrayLength(std::string_view bytes);
// Appends the memcomparable key of an array (ascending).
void EncodeArrayKey(std::string_view bytes, const DataType& element, std::string* out);
// PostgreSQL's btarraycmp: <0, 0, >0.
int CompareArrays(std::string_view a, std::string_view b, const DataType& element);

}  // namespace freshet
