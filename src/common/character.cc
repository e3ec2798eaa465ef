#include "common/character.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/identifier.h"

namespace freshet {

void ApplyCharacterLength(std::string* s, const DataType& t, bool assignment) {
  if (t.id != TypeId::kVarchar) return;
  if (t.IsName()) {
    s->resize(TruncatedIdentifier(*s).size());
    return;
  }
  if (t.IsChar()) {
    // One byte; a byte with the high bit set is shown (and kept) as
    // PostgreSQL's charout prints it, \ooo.
    if (s->empty()) return;
    unsigned char c = static_cast<unsigned char>((*s)[0]);
    auto octal = [&](size_t i) { return (*s)[i] >= '0' && (*s)[i] <= '7'; };
    if (s->size() == 4 && c == '\\' && octal(1) && octal(2) && octal(3))  // \ooo: that byte
      c = static_cast<unsigned char>(((*s)[1] - '0') * 64 + ((*s)[2] - '0') * 8 + ((*s)[3] - '0'));
    *s = c < 0x80 ? std::string(1, static_cast<char>(c)) : fmt::format("\\{:03o}", c);
    return;
  }
  int32_t n = t.precision;
  if (n >= 0 && s->size() > static_cast<size_t>(n)) {
    size_t off = Utf8Offset(*s, n);
    if (assignment) {
      for (size_t i = off; i < s->size(); i++) {
        if ((*s)[i] != ' ') {
          throw SqlError(sqlstate::kStringDataRightTruncation, fmt::format("value too long for type {}", t.ToString()));
        }
      }
    }
    s->resize(off);
  }
  if (t.IsBpchar()) {
    size_t end = s->find_last_not_of(' ');
    s->resize(end == std::string::npos ? 0 : end + 1);
  }
}

std::string BpcharPadded(std::string_view stored, const DataType& t) {
  std::string out(stored);
  if (!t.IsBpchar() || t.precision < 0) return out;
  size_t chars = Utf8Length(stored);
  if (chars < static_cast<size_t>(t.precision)) out.append(t.precision - chars, ' ');
  return out;
}

}  // namespace freshet
