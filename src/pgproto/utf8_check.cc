#include "pgproto/utf8_check.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "common/error.h"

namespace freshet {

namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ULL;
constexpr uint64_t kLowBits = 0x0101010101010101ULL;

// Eight ASCII bytes, none of them NUL.
inline bool AsciiWord(uint64_t w) {
  // (w - 0x01..) & ~w & 0x80.. is non-zero iff some byte is zero.
  return ((w & kHighBits) | ((w - kLowBits) & ~w & kHighBits)) == 0;
}

// The number of bytes a character starting with c announces, as PostgreSQL's
// pg_utf_mblen (1 for bytes that start no sequence).
inline size_t AnnouncedLength(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) return 2;
  if ((c & 0xf0) == 0xe0) return 3;
  if ((c & 0xf8) == 0xf0) return 4;
  return 1;
}

// The valid range of the second byte after lead byte c (PostgreSQL's
// pg_utf8_islegal); false when c starts no valid sequence.
inline bool SecondByteRange(unsigned char c, unsigned char* lo, unsigned char* hi) {
  *lo = 0x80;
  *hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) return true;
  if (c == 0xe0) *lo = 0xa0;
  else if (c == 0xed) *hi = 0x9f;
  else if (c == 0xf0) *lo = 0x90;
  else if (c == 0xf4) *hi = 0x8f;
  else if (!((c >= 0xe1 && c <= 0xef) || (c >= 0xf1 && c <= 0xf3))) return false;
  return true;
}

}  // namespace

size_t Utf8ValidPrefix(const char* data, size_t n, bool* truncated) {
  if (truncated) *truncated = false;
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  size_t i = 0;
  while (i < n) {
    // The common case: runs of ASCII, eight bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (!AsciiWord(w)) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = p[i];
    if (c < 0x80) {
      if (c == 0) return i;
      i++;
      continue;
    }
    unsigned char lo, hi;
    if (!SecondByteRange(c, &lo, &hi)) return i;
    size_t len = AnnouncedLength(c);
    size_t avail = n - i;
    size_t check = len < avail ? len : avail;
    // The bytes that are there must be right, whether or not all are.
    if (check >= 2 && (p[i + 1] < lo || p[i + 1] > hi)) return i;
    for (size_t k = 2; k < check; k++)
      if ((p[i + k] & 0xc0) != 0x80) return i;
    if (avail < len) {
      if (truncated) *truncated = true;
      return i;
    }
    i += len;
  }
  return n;
}

std::string InvalidUtf8Message(const char* bad, size_t remaining) {
  size_t len = AnnouncedLength(static_cast<unsigned char>(*bad));
  if (len > remaining) len = remaining;
  std::string bytes;
  for (size_t k = 0; k < len; k++) {
    if (k) bytes += ' ';
    bytes += fmt::format("0x{:02x}", static_cast<unsigned char>(bad[k]));
  }
  return "invalid byte sequence for encoding \"UTF8\": " + bytes;
}

void CheckUtf8(std::string_view s) {
  size_t valid = Utf8ValidPrefix(s.data(), s.size());
  if (valid == s.size()) return;
  throw SqlError(kCharacterNotInRepertoire, InvalidUtf8Message(s.data() + valid, s.size() - valid));
}

}  // namespace freshet
