// EvalContext: per-statement settings that expression evaluation needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/datetime.h"

namespace freshet {

struct EvalContext {
  TimeZone time_zone;           // session TimeZone: timestamptz formatting and arithmetic
  int64_t statement_time = 0;   // now(): micros since epoch, fixed for the statement
  std::vector<std::string>* notices = nullptr;  // warnings to report to the client (may be null)
};

}  // namespace freshet
