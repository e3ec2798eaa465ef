// Hexadecimal digits, as PostgreSQL's input functions read them.
#pragma once

namespace freshet {

// The value of hex digit `c` (either case); -1 when it is not one.
inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace freshet
