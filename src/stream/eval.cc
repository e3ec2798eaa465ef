#include "stream/eval.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "common/error.h"

namespace freshet {

namespace {
// At most this many warnings per process, so a bad job cannot flood the log.
std::atomic<int> warnings_left{1000};
}  // namespace

Vector EvalRowTolerant(const Expression& expr, const DataChunk& input, EvalContext& ctx) {
  try {
    return expr.Eval(input, ctx);
  } catch (const SqlError&) {
  }
  Vector out(expr.type());
  for (size_t r = 0; r < input.num_rows(); r++) {
    DataChunk one = input.Take({uint32_t(r)});
    try {
      Vector v = expr.Eval(one, ctx);
      out.AppendFrom(v, 0);
    } catch (const SqlError& e) {
      if (warnings_left.fetch_sub(1) > 0)
        spdlog::warn("stream expression {} failed on a row (value set to NULL): {}", expr.ToString(), e.what());
      out.AppendNull();
    }
  }
  return out;
}

}  // namespace freshet
