// Window function values over one partition, for the batch Window
// executor and the stream OverWindow operator alike.
//
// `rows` holds one partition's rows (the window's input columns) sorted by
// the call's ORDER BY (ties in any order: peers get equal values where
// SQL says so). The result has one value per row, in that order:
//   * row_number, rank, dense_rank, percent_rank, cume_dist, ntile: by
//     position and peer group (rows with equal ORDER BY values);
//   * lag/lead(value [, offset [, default]]): the value offset rows before
//     or after (the offset and default evaluated at the current row);
//   * first_value, last_value, nth_value and aggregates: over the row's
//     frame (ROWS: positions, GROUPS: peer groups, RANGE: ORDER BY values
//     within the offset; minus the EXCLUDE'd rows). Aggregates slide: the
//     rows entering the frame are added, those leaving it retracted
//     (frame bounds never move backwards), excluded rows retracted for
//     the one row and added back.
// Errors as PostgreSQL's: a NULL or negative frame offset (22004, 22013),
// ntile's or nth_value's argument not positive (22014, 22016).
#pragma once

#include "common/data_chunk.h"
#include "planner/plan.h"

namespace freshet {

Vector EvaluateWindowPartition(const WindowCall& call, const DataChunk& rows, EvalContext& ctx);

// The memcomparable key of row r under the call's ORDER BY (equal keys:
// peers), appended to *out.
void EncodeWindowOrderKey(const WindowCall& call, const std::vector<Vector>& order_values, size_t r, std::string* out);

}  // namespace freshet
