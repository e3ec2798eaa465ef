// The rows of set-returning functions: generate_series(start, stop[, step])
// over integers, numeric and timestamps; unnest(array, ...);
// generate_subscripts and information_schema._pg_expandarray,
// pg_partition_ancestors; the JSON families json(b)_each[_text],
// json(b)_array_elements[_text], json(b)_object_keys; regexp_matches,
// regexp_split_to_table; pg_options_to_table, pg_listening_channels.
// Functions in FROM (the batch TableFunction executor), in select lists
// (the batch ProjectSet executor and the stream ProjectSet operator).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/data_chunk.h"
#include "expr/eval_context.h"

namespace freshet {

// One call: the function's name, its argument values and its output
// columns' types (one column, or several: json_each's key and value in
// FROM; a struct of them in a select list).
struct TableFunctionCall {
  std::string name;
  std::vector<Value> args;
  std::vector<DataType> types;
};

class TableFunctionRows {
 public:
  virtual ~TableFunctionRows() = default;
  // The next rows (at most kChunkSize), replacing *out; false when done.
  virtual bool Next(DataChunk* out) = 0;
};

// Throws SqlError as PostgreSQL does for bad arguments (a zero step, ...).
std::unique_ptr<TableFunctionRows> MakeTableFunctionRows(const TableFunctionCall& call, EvalContext& ctx);

}  // namespace freshet
