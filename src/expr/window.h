// Time windows for TUMBLE and HOP (see window_functions.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "common/datetime.h"

namespace freshet {

// The interval as microseconds; throws 22023 for months or a size <= 0.
int64_t WindowSizeMicros(const Interval& iv, const char* what);
// Starts of the HOP windows (every `slide`, `size` long) that contain ts,
// in increasing order.
void HopWindowStarts(int64_t ts, int64_t slide, int64_t size, std::vector<int64_t>* starts);

}  // namespace freshet
