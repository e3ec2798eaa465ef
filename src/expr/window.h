// Time windows for TUMBLE and HOP (see window_functions.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "common/datetime.h"

namespace freshet {

// The interval as microseconds; throws 22023 for months or a size <= 0,
// 22008 when it does not fit.
int64_t WindowSizeMicros(const Interval& iv, const char* what);
// Starts of the HOP windows (every `slide`, `size` long) that contain ts,
// in increasing order; an infinite ts is in one window that starts at ts.
// Windows so long that they would start before int64's range (some 290,000
// years before 1970) are left out.
void HopWindowStarts(int64_t ts, int64_t slide, int64_t size, std::vector<int64_t>* starts);
// start + size; an infinite start is its own end, and a window that would
// end past the last timestamp (294247 AD) ends at 'infinity'.
int64_t WindowEnd(int64_t start, int64_t size);

}  // namespace freshet
