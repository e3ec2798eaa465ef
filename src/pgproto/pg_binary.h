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
// Decodes a value as PostgreSQL's receive function of the type does, with
// its checks and messages: a value cut short is 08P01 "insufficient data
// left in message"; one with bytes left over is 22P03 "incorrect binary
// data format in bind parameter N" (N = param_no; without it, as in COPY,
// "incorrect binary data format"); out-of-range dates, times and timestamps
// 22008; a bad numeric sign, scale or digit and malformed arrays 22P03;
// text that is not UTF-8 22021.
Value DecodeBinaryParam(const std::string& bytes, const DataType& type, int param_no = 0);

}  // namespace freshet
