// Time windows of the window table functions TUMBLE and HOP (RisingWave's):
//   tumble_start(ts, size): the start of the size-long window holding ts,
//     windows aligned on 1970-01-01 00:00 UTC;
//   window_end(start, size): start + size.
// Sizes are intervals without months (a day counts 24 hours) and must be
// positive. HOP's windows are produced by HopWindowStarts (expr/window.h).
#include "expr/window.h"

#include "common/error.h"
#include "expr/function_helpers.h"

namespace freshet {

int64_t WindowSizeMicros(const Interval& iv, const char* what) {
  if (iv.months != 0)
    throw SqlError(sqlstate::kInvalidParameterValue, std::string(what) + " must not contain months or years");
  int64_t micros = iv.micros + int64_t(iv.days) * kMicrosPerDay;
  if (micros <= 0) throw SqlError(sqlstate::kInvalidParameterValue, std::string(what) + " must be positive");
  return micros;
}

void HopWindowStarts(int64_t ts, int64_t slide, int64_t size, std::vector<int64_t>* starts) {
  starts->clear();
  // Windows [s, s + size) with s a multiple of slide and s <= ts < s + size.
  int64_t last = FloorDiv(ts, slide) * slide;
  int64_t first = last - ((size - 1) / slide) * slide;
  for (int64_t s = first; s <= last; s += slide)
    if (ts < s + size) starts->push_back(s);
}

void RegisterWindowFunctions(FunctionRegistry* r) {
  for (DataType t : {DataType::Timestamp(), DataType::Timestamptz()}) {
    RegisterFn(r, "tumble_start", {t, DataType::Interval()}, t,
               [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
                 for (size_t i = 0; i < n; i++) {
                   if (args[0]->IsNull(i) || args[1]->IsNull(i)) {
                     out->AppendNull();
                     continue;
                   }
                   int64_t size = WindowSizeMicros(args[1]->GetInterval(i), "the window size");
                   out->AppendInt(FloorDiv(args[0]->GetInt(i), size) * size);
                 }
               });
    RegisterFn(r, "window_end", {t, DataType::Interval()}, t,
               [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
                 for (size_t i = 0; i < n; i++) {
                   if (args[0]->IsNull(i) || args[1]->IsNull(i)) {
                     out->AppendNull();
                     continue;
                   }
                   out->AppendInt(args[0]->GetInt(i) + WindowSizeMicros(args[1]->GetInterval(i), "the window size"));
                 }
               });
  }
}

}  // namespace freshet
