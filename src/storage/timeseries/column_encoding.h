// Column encodings of the time-series engine's files (issue 21, item 4):
// how one column of a block of rows, sorted by series and time, is turned
// into bytes before the block's compression. Each encoding is chosen for
// what such a column looks like:
//
//   timestamps  delta of delta: regular intervals give zeros. The first
//               value as a zigzag varint, then the first delta, then each
//               change of the delta, all zigzag varints (arithmetic mod
//               2^64, so any int64 sequence round-trips).
//   integers    delta: the first value, then each difference, zigzag
//               varints (mod 2^64).
//   floats      Gorilla (Pelkonen et al., VLDB 2015): the first value's 64
//               bits, then per value the XOR with the previous one: a 0
//               bit when equal; else 1, then either 0 and the meaningful
//               bits within the previous value's window of leading and
//               trailing zeros, or 1, 6 bits of leading zeros, 6 bits of
//               (meaningful length - 1) and the meaningful bits. Bit
//               exact (NaN payloads, -0.0, infinities).
//   integral    floats that are all whole numbers (no -0.0, magnitude at
//   floats      most 2^53: metrics such as percentages and counts): frame
//               of reference, bit-packed. The smallest value as a zigzag
//               varint, a byte of bit width w (0-55), then each value minus
//               the smallest in w bits, least significant bit first, packed
//               from the first byte's lowest bit, then 7 zero bytes (so a
//               reader may load 8 bytes at any value). Decoding is a load,
//               a shift and a mask per value.
//   strings     dictionary: the count of distinct values (varint), each as
//               a varint length and its bytes in order of first appearance,
//               then each row's index into it (varint). Tags repeat.
//
// A column's NULLs are not encoded here: the block keeps a validity bitmap
// and the encoders see the non-NULL values only. Decoders take the number of
// values the block says it holds and return false on bytes that do not
// decode to exactly that many (a corrupt block is an error, never a crash
// or a wrong row).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace freshet {

void EncodeTimestampColumn(const std::vector<int64_t>& values, std::string* out);
bool DecodeTimestampColumn(std::string_view in, size_t count, std::vector<int64_t>* out);

void EncodeIntegerColumn(const std::vector<int64_t>& values, std::string* out);
bool DecodeIntegerColumn(std::string_view in, size_t count, std::vector<int64_t>* out);

void EncodeFloatColumn(const std::vector<double>& values, std::string* out);
bool DecodeFloatColumn(std::string_view in, size_t count, std::vector<double>* out);
// The integral encoding: false (nothing written) when a value is not a
// whole number it can hold.
bool EncodeIntegralFloatColumn(const std::vector<double>& values, std::string* out);
bool DecodeIntegralFloatColumn(std::string_view in, size_t count, std::vector<double>* out);

void EncodeStringColumn(const std::vector<std::string>& values, std::string* out);
bool DecodeStringColumn(std::string_view in, size_t count, std::vector<std::string>* out);

}  // namespace freshet
