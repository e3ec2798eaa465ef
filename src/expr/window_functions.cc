// Time windows of the window table functions TUMBLE and HOP (RisingWave's):
//   tumble_start(ts, size): the start of the size-long window holding ts,
//     windows aligned on 1970-01-01 00:00 UTC;
//   window_end(start, size): start + size.
// Sizes are intervals without months (a day counts 24 hours) and must be
// positive. 'infinity' and '-infinity' are windows of their own: they start
// and end at themselves. HOP's windows are produced by HopWindowStarts (expr/window.h).
#include "expr/window.h"

#include "common/error.h"
#include "expr/function_helpers.h"

namespace freshet {

int64_t WindowSizeMicros(const Interval& iv, const char* what) {
  if (iv.months != 0)
    throw SqlError(sqlstate::kInvalidParameterValue, std::string(what) + " must not contain months or years");
  int64_t micros;
  if (__builtin_mul_overflow(int64_t{iv.days}, kMicrosPerDay, &micros) ||
      __builtin_add_overflow(micros, iv.micros, &micros)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
  }
  if (micros <= 0) throw SqlError(sqlstate::kInvalidParameterValue, std::string(what) + " must be positive");
  return micros;
}

void HopWindowStarts(int64_t ts, int64_t slide, int64_t size, std::vector<int64_t>* starts) {
  starts->clear();
  if (!IsFiniteDatetime(ts)) {
    starts->push_back(ts);
    return;
  }
  // Windows [s, s + size) with s a multiple of slide and s <= ts < s + size;
  // in 128 bits, as the first start may lie below int64's range.
  __int128 last = __int128{FloorDiv(ts, slide)} * slide;
  __int128 first = last - __int128{(size - 1) / slide} * slide;
  for (__int128 s = first; s <= last; s += slide) {
    if (ts >= s + size || s <= INT64_MIN) continue;
    starts->push_back(static_cast<int64_t>(s));
  }
}

int64_t WindowEnd(int64_t start, int64_t size) {
  int64_t end;
  if (!IsFiniteDatetime(start)) return start;
  if (__builtin_add_overflow(start, size, &end)) return kDatetimeInfinity;
  return end;
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
                   int64_t ts = args[0]->GetInt(i);
                   out->AppendInt(IsFiniteDatetime(ts) ? FloorDiv(ts, size) * size : ts);
                 }
               });
    RegisterFn(r, "window_end", {t, DataType::Interval()}, t,
               [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
                 for (size_t i = 0; i < n; i++) {
                   if (args[0]->IsNull(i) || args[1]->IsNull(i)) {
                     out->AppendNull();
                     continue;
                   }
                   out->AppendInt(
                       WindowEnd(args[0]->GetInt(i), WindowSizeMicros(args[1]->GetInterval(i), "the window size")));
                 }
               });
  }
}

}  // namespace freshet
