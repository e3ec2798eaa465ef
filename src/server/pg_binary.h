// PostgreSQL's binary wire format of values (pgwire "format 1"), for the
// types of types.h: network-order integers and floats, numeric as base-10000
// digits, dates as days since 2000-01-01, timestamps as microseconds since
// 2000-01-01, intervals as (micros, days, months), oids as unsigned 32-bit
// integers, arrays as PostgreSQL's array_send (one dimension).
#pragma once

#include <string>

#include "common/vector.h"

namespace freshet {

// Encodes row i (not NULL) of v.
std::string EncodeBinary(const Vector& v, size_t i);
// Decodes a parameter; throws 22P03 on malformed input.
Value DecodeBinaryParam(const std::string& bytes, const DataType& type);

}  // namespace freshet
