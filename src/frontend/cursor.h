// Cursor: the result of a query declared by DECLARE ... CURSOR, read by
// FETCH and passed over by MOVE (PostgreSQL's SQL cursors).
//
// The result is computed when the cursor is declared, as the protocol's
// portals are, and kept as rows, so a cursor scrolls both ways and a WITH
// HOLD cursor outlives its transaction unchanged. Positions are
// PostgreSQL's: 0 is before the first row, 1..n on a row, n+1 after the
// last; FETCH and MOVE move as PostgreSQL's DoPortalRunFetch does
// (FORWARD/BACKWARD n with negative counts reversed and 0 re-reading the
// current row, ABSOLUTE n from either end, RELATIVE n).
//
// Not thread-safe: owned by one session.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/data_chunk.h"
#include "frontend/result_sink.h"

namespace freshet {

class Cursor {
 public:
  struct Options {
    bool hold = false;       // WITH HOLD: kept after COMMIT
    bool no_scroll = false;  // NO SCROLL: backward moves refused (55000)
    bool scroll = false;     // SCROLL (shown in pg_cursors)
    bool binary = false;     // BINARY (shown in pg_cursors)
  };
  Cursor(std::string statement, std::vector<ColumnDesc> columns, std::vector<DataChunk> chunks, Options options,
         int64_t creation_time);

  enum class Direction { kForward, kBackward, kAbsolute, kRelative };
  // Moves as FETCH/MOVE direction `count` says (count INT64_MAX: ALL) and
  // returns the rows passed over that FETCH returns, in the order fetched;
  // *moved is the count the command tag shows.
  DataChunk Fetch(Direction direction, int64_t count, int64_t* moved);

  const std::string& statement() const { return statement_; }
  const std::vector<ColumnDesc>& columns() const { return columns_; }
  const Options& options() const { return options_; }
  int64_t creation_time() const { return creation_time_; }

 private:
  // Appends row i (1-based) to *out.
  void AppendRow(int64_t i, DataChunk* out) const;
  int64_t size() const { return static_cast<int64_t>(rows_.size()); }

  std::string statement_;
  std::vector<ColumnDesc> columns_;
  std::vector<DataChunk> chunks_;
  std::vector<std::pair<uint32_t, uint32_t>> rows_;  // (chunk, row) of each row, in order
  Options options_;
  int64_t creation_time_;
  int64_t position_ = 0;
};

}  // namespace freshet
