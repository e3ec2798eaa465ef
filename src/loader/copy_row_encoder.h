// CopyRowEncoder: the fast path of a bulk COPY. It turns a record's fields
// straight into the table's encoded row (EncodeRow's bytes: common/
// encoding.h), without the DataChunk that CopyRowBuilder fills and
// BulkRows::Add reads back, for the common case: the COPY lists every
// visible column in table order, and each is smallint, integer, bigint,
// double precision, text or varchar without a length, date or timestamp.
// Other tables and column lists go the general way only.
//
// It refuses what it does not check itself: Encode() returns false for a
// wrong number of fields or a NULL in a NOT NULL column, and the type
// parsers throw on bad values. The caller then parses the block again the
// general way, whose errors carry the COPY's line and column, so a load
// fails exactly as it would without this path.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "pgproto/copy_format.h"

namespace freshet {

class CopyRowEncoder {
 public:
  // An encoder for COPY into `table` of the columns `targets`, or null if
  // the fast path does not cover them.
  static std::unique_ptr<CopyRowEncoder> For(const TableCatalog& table, const std::vector<int>& targets);

  // Encodes a record as a row whose hidden row id is `row_id`; the bytes
  // stay valid until the next call. Returns false (nothing to use) for a
  // wrong number of fields or a NULL in a NOT NULL column; throws what
  // ParseText would for a bad value.
  bool Encode(const std::vector<CopyField>& fields, int64_t row_id, std::string_view* row);

 private:
  enum class Kind : uint8_t { kInteger, kFloat8, kText, kDate, kTimestamp, kRowId };
  struct Column {
    Kind kind;
    TypeId type;           // kInteger: which one
    bool not_null = false;
    int field = -1;        // the record's field (-1: the row id)
  };
  std::vector<Column> columns_;  // in table order
  size_t fields_ = 0;
  std::vector<char> buffer_;
};

}  // namespace freshet
