// Expression evaluation for stream operators: an error in one row (division
// by zero, a bad cast) makes that row's value NULL and logs a warning, as
// RisingWave does, instead of failing the chunk or the job.
#pragma once

#include "expr/expression.h"

namespace freshet {

Vector EvalRowTolerant(const Expression& expr, const DataChunk& input, EvalContext& ctx);

}  // namespace freshet
