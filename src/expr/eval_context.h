// EvalContext: per-statement settings that expression evaluation needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/datetime.h"
#include "common/value.h"

namespace freshet {

class SubqueryRunner;

struct EvalContext {
  TimeZone time_zone;           // session TimeZone: timestamptz formatting and arithmetic
  int64_t statement_time = 0;   // now(): micros since epoch, fixed for the statement
  std::vector<std::string>* notices = nullptr;  // warnings to report to the client (may be null)
  const std::vector<Value>* params = nullptr;  // $1.. of the extended protocol
  // Rows of the enclosing queries while a correlated subquery runs;
  // back() is the nearest enclosing query.
  std::vector<const std::vector<Value>*> outer_rows;
  // Runs subquery plans (set by the batch engine; see planner/subquery.h).
  class SubqueryRunner* subquery_runner = nullptr;
};

}  // namespace freshet
