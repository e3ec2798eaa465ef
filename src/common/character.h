// The character types' length rules: varchar(n) and character(n) input,
// and character(n)'s blank padding (see DataType::Bpchar), with the UTF-8
// counting they need. Text is valid UTF-8 (input functions reject anything
// else), so these do not validate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/types.h"

namespace freshet {

inline bool IsUtf8Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
inline size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += !IsUtf8Continuation(c);
  return n;
}
// Byte offset of character `chars` (clamped to s.size()).
inline size_t Utf8Offset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (chars > 0 && i < s.size()) {
    i++;
    while (i < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[i]))) i++;
    chars--;
  }
  return i;
}

// varchar(n) / character(n) input rules on *s (t is either; others are left
// alone): text longer than n characters is an error (22001, "value too long
// for type character varying(n)") on assignment unless only blanks are cut,
// and is cut on an explicit cast; a character value then loses its trailing
// blanks.
void ApplyCharacterLength(std::string* s, const DataType& t, bool assignment);

// A character(n) value as PostgreSQL holds it: the stored text padded with
// blanks to n characters. Other types' values, and bpchar without a length,
// are returned as they are.
std::string BpcharPadded(std::string_view stored, const DataType& t);

}  // namespace freshet
