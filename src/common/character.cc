#include "common/character.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

void ApplyCharacterLength(std::string* s, const DataType& t, bool assignment) {
  if (t.id != TypeId::kVarchar) return;
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
