// A time-series table's storage key split into the parts the engine keeps
// apart (engine.h "Layout"): the series ([vnode][tags], memcomparable and
// self-delimiting), the time index and the tail (an append-only table's row
// id). Joining the parts gives the storage key back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/encoding.h"
#include "storage/keys.h"

namespace freshet {

struct SeriesKey {
  std::string series;  // [vnode][tags]
  int64_t ts = 0;
  std::string tail;
};

// The memcomparable bytes of the time index (a 0x01 marker and 8 bytes).
inline constexpr size_t kSeriesTimeKeyBytes = kBigintKeySize;

// Splits `key` ([table][series][time][tail of tail_bytes]); false when it
// is not such a key.
inline bool SplitSeriesKey(std::string_view key, size_t tail_bytes, SeriesKey* out) {
  if (key.size() < 4 + 2 + kSeriesTimeKeyBytes + tail_bytes) return false;
  const size_t ts_at = key.size() - tail_bytes - kSeriesTimeKeyBytes;
  out->series.assign(key.data() + 4, ts_at - 4);
  if (key[ts_at] != 0x01) return false;  // NULL: a time index is NOT NULL
  out->ts = static_cast<int64_t>(GetFixed64BE(key.data() + ts_at + 1) ^ (uint64_t(1) << 63));
  out->tail.assign(key.data() + ts_at + kSeriesTimeKeyBytes, tail_bytes);
  return true;
}

inline std::string JoinSeriesKey(TableId table, const std::string& series, int64_t ts, const std::string& tail) {
  std::string key = TablePrefix(table);
  key += series;
  EncodeBigintKey(ts, &key);
  key += tail;
  return key;
}

inline uint16_t VnodeOfSeries(std::string_view series) {
  return series.size() < 2 ? 0 : GetFixed16BE(series.data());
}

}  // namespace freshet
