// Dates, times, timestamps, intervals and time zones with PostgreSQL 15's
// semantics. The text parsers are ports of PostgreSQL's ParseDateTime,
// DecodeDateTime, DecodeTimeOnly, DecodeInterval and DecodeISO8601Interval
// (src/backend/utils/adt/datetime.c), restricted to DateStyle 'ISO, MDY' and
// IntervalStyle 'postgres'; names and structure follow the originals so the
// two can be compared side by side.
//
// This file: the public API's calendar helpers; the rest is in
// time_zone.cc, datetime_parse.cc, interval.cc and datetime_fields.cc
// (shared internals: datetime_internal.h).

#include "common/datetime.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/datetime_internal.h"

namespace freshet {

using namespace datetime_detail;

// ===========================================================================
// Public API
// ===========================================================================

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) { return CivilToDays(y, m, d); }

void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d) {
  Civil c = DaysToCivil(days);
  *y = c.year;
  *m = unsigned(c.mon);
  *d = unsigned(c.mday);
}

__int128 IntervalCompareKey(const Interval& iv) {
  return (__int128(iv.months) * kDaysPerMonth + iv.days) * kMicrosPerDay + iv.micros;
}

int IntervalCompare(const Interval& a, const Interval& b) {
  __int128 ka = IntervalCompareKey(a), kb = IntervalCompareKey(b);
  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}


}  // namespace freshet
