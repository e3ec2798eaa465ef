// Byte encodings of values.
//
// Memcomparable (keys): the bytes of encoded values compare with memcmp in
// the same order as the values (NULLs last, like PostgreSQL's default ASC
// NULLS LAST). Used for primary keys in storage ([table_id][vnode][pk]:
// docs/architecture.md, Invariants), group keys and sort keys. An encoded
// key can be decoded back for every type except interval (which is encoded by its comparison
// key) — stored rows therefore keep the full value in the row encoding.
//
// Row encoding (values): compact, not ordered; encodes a whole row with its
// types known to the reader.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/data_chunk.h"
#include "common/value.h"

namespace freshet {

// Appends the memcomparable encoding of v (ascending) to out. When
// `descending` is set, all bytes are inverted so the order reverses.
void EncodeKeyValue(const Value& v, std::string* out, bool descending = false);
// Same for row i of a vector, avoiding a Value.
void EncodeKeyFromVector(const Vector& col, size_t i, std::string* out, bool descending = false);
// EncodeKeyFromVector's bytes for a non-NULL BIGINT, ascending (9 bytes;
// the second form writes them at out and returns the end).
void EncodeBigintKey(int64_t v, std::string* out);
inline constexpr size_t kBigintKeySize = 9;
char* EncodeBigintKeyTo(int64_t v, char* out);

// A string's memcomparable bytes (EncodeKeyValue's, without the NULL
// tag): 0x00 escaped as 0x00 0xFF, ended by 0x00 0x01, so prefixes sort
// first and embedded zeros survive; no encoding is a prefix of another.
void EncodeStringKey(std::string_view s, std::string* out);

// Sort-key encoding for ORDER BY: a leading byte puts NULLs first or last
// whatever the direction, then the value (inverted when descending).
void EncodeOrderKeyFromVector(const Vector& col, size_t i, bool descending, bool nulls_first, std::string* out);

// Fixed-width big-endian helpers for key prefixes.
void PutFixed32BE(std::string* out, uint32_t v);
void PutFixed16BE(std::string* out, uint16_t v);
void PutFixed64BE(std::string* out, uint64_t v);
uint32_t GetFixed32BE(const char* p);
uint16_t GetFixed16BE(const char* p);
uint64_t GetFixed64BE(const char* p);

// One cell of the row encoding: a tag byte (0 NULL, 1 value), then the
// physical value (int64 and double as 8 raw bytes, numeric as its 16-byte
// unscaled value and 4-byte scale, interval as months, days, micros,
// strings as a varint length and the bytes). Array elements and struct
// fields are cells too (common/array.h, common/struct.h). DecodeCell
// appends to *c; it and SkipCell advance *in and return false on
// malformed bytes.
void EncodeCell(const Vector& c, size_t i, std::string* out);
bool DecodeCell(std::string_view* in, Vector* c);
bool SkipCell(std::string_view* in, PhysicalType physical);

// Row encoding of row i of the chunk's columns (all of them).
void EncodeRow(const DataChunk& chunk, size_t row, std::string* out);
// The same for all rows of a chunk at once, written column by column in
// place (bulk loads): sizes[r] is set to the length of row r's encoding;
// then, with out[r] pointing at sizes[r] bytes for each row, EncodeRowsTo
// writes the rows there (advancing out[r] past them).
void EncodedRowSizes(const DataChunk& chunk, std::vector<size_t>* sizes);
void EncodeRowsTo(const DataChunk& chunk, char** out);
// EncodeCell's bytes for one non-NULL value, written at out (which must
// have room); each returns the end. A NULL cell is the single byte 0.
// Inline: a bulk load writes one per cell.
inline char* EncodeInt64CellTo(int64_t v, char* out) {
  *out = 1;
  std::memcpy(out + 1, &v, sizeof(v));  // PutRaw's bytes
  return out + 1 + sizeof(v);
}
inline char* EncodeDoubleCellTo(double v, char* out) {
  *out = 1;
  std::memcpy(out + 1, &v, sizeof(v));
  return out + 1 + sizeof(v);
}
inline char* EncodeStringCellTo(std::string_view v, char* out) {
  *out++ = 1;
  uint64_t len = v.size();  // PutVarint's bytes
  while (len >= 0x80) {
    *out++ = char(len | 0x80);
    len >>= 7;
  }
  *out++ = char(len);
  std::memcpy(out, v.data(), v.size());
  return out + v.size();
}
void EncodeRowValues(const Row& row, std::string* out);
// Decodes an encoded row with the given column types, appending one row to
// the chunk. Returns false if the bytes are malformed.
bool DecodeRowInto(std::string_view bytes, DataChunk* chunk);
// Same, but columns whose `wanted` entry is false are skipped (a NULL is
// appended instead of decoding them).
bool DecodeRowInto(std::string_view bytes, DataChunk* chunk, const std::vector<bool>& wanted);
bool DecodeRow(std::string_view bytes, const std::vector<DataType>& types, Row* row);
// A row a table stores, as DecodeRowInto (all columns, or those `wanted`
// when it is not null). Its cells may be fewer or more than the chunk's
// columns: ALTER TABLE ... ADD COLUMN adds columns at the end without
// touching the stored rows, so a row written before it ends early and each
// column beyond its cells reads `missing[c]` (an EncodeCell of the value
// the column was added with; none, or empty: NULL), as PostgreSQL's
// attmissingval; and a reader that was planned before the column was added
// (a stream job's backfill) reads the columns it knows and leaves the
// cells after them.
bool DecodeStoredRowInto(std::string_view bytes, DataChunk* chunk, const std::vector<std::string>& missing,
                         const std::vector<bool>* wanted = nullptr);
bool DecodeStoredRow(std::string_view bytes, const std::vector<DataType>& types,
                     const std::vector<std::string>& missing, Row* row);
// Decodes `count` cells from the front of *bytes into columns
// [first_column, first_column + count) of the chunk (one value each; the
// chunk's cardinality is the caller's). Encoded rows are cells one after
// another, so a row's cells can be decoded into any run of columns.
bool DecodeCellsInto(std::string_view* bytes, DataChunk* chunk, size_t first_column, size_t count);
// Moves *bytes past one cell of each of `types`.
bool SkipCells(std::string_view* bytes, const std::vector<DataType>& types);

// Lower-case hex of arbitrary bytes (for keys shown in text columns), and back.
std::string HexEncode(std::string_view bytes);
std::string HexDecode(std::string_view hex);

}  // namespace freshet
