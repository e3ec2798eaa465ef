// String functions. Text is UTF-8; lengths and positions count characters.

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "common/character.h"
#include "common/identifier.h"
#include "common/limits.h"
#include "expr/cast.h"
#include "expr/function_helpers.h"

namespace freshet {

// --- UTF-8 and case mapping (declared in function_helpers.h) ---------------------

uint32_t Utf8Decode(std::string_view s, size_t* i) {
  unsigned char c = s[*i];
  size_t len = Utf8CharBytes(s, *i);
  uint32_t cp;
  if (c < 0x80 || len == 1) {
    cp = c;
  } else {
    int lead_bits = len == 2 ? 5 : (len == 3 ? 4 : 3);
    cp = c & ((1u << lead_bits) - 1);
    for (size_t k = 1; k < len; k++) cp = cp << 6 | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  }
  *i += len;
  return cp;
}

void Utf8Append(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | cp >> 6);
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | cp >> 12);
    *out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | cp >> 18);
    *out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    *out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {
bool InRange(uint32_t cp, uint32_t lo, uint32_t hi) { return cp >= lo && cp <= hi; }
}  // namespace

uint32_t CodePointLower(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
  if (InRange(cp, 0xC0, 0xDE) && cp != 0xD7) return cp + 32;
  if (cp == 0x130) return 'i';
  if (cp == 0x178) return 0xFF;
  // Latin Extended-A alternates upper/lower, with the parity flipping twice.
  if ((InRange(cp, 0x100, 0x12F) || InRange(cp, 0x132, 0x137) || InRange(cp, 0x14A, 0x177)) && cp % 2 == 0) {
    return cp + 1;
  }
  if ((InRange(cp, 0x139, 0x148) || InRange(cp, 0x179, 0x17E)) && cp % 2 == 1) return cp + 1;
  if (InRange(cp, 0x391, 0x3A9) && cp != 0x3A2) return cp + 32;
  if (cp == 0x386) return 0x3AC;
  if (InRange(cp, 0x388, 0x38A)) return cp + 37;
  if (cp == 0x38C) return 0x3CC;
  if (InRange(cp, 0x38E, 0x38F)) return cp + 63;
  if (InRange(cp, 0x410, 0x42F)) return cp + 32;
  if (InRange(cp, 0x400, 0x40F)) return cp + 80;
  if ((InRange(cp, 0x460, 0x481) || InRange(cp, 0x48A, 0x4BF)) && cp % 2 == 0) return cp + 1;
  return cp;
}

uint32_t CodePointUpper(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') ? cp - 32 : cp;
  if (InRange(cp, 0xE0, 0xFE) && cp != 0xF7) return cp - 32;
  if (cp == 0xFF) return 0x178;
  if (cp == 0x131) return 'I';
  if ((InRange(cp, 0x101, 0x12F) || InRange(cp, 0x133, 0x137) || InRange(cp, 0x14B, 0x177)) && cp % 2 == 1) {
    return cp - 1;
  }
  if ((InRange(cp, 0x13A, 0x148) || InRange(cp, 0x17A, 0x17E)) && cp % 2 == 0) return cp - 1;
  if (cp == 0x3C2) return 0x3A3;  // final sigma
  if (InRange(cp, 0x3B1, 0x3C9)) return cp - 32;
  if (cp == 0x3AC) return 0x386;
  if (InRange(cp, 0x3AD, 0x3AF)) return cp - 37;
  if (cp == 0x3CC) return 0x38C;
  if (InRange(cp, 0x3CD, 0x3CE)) return cp - 63;
  if (InRange(cp, 0x430, 0x44F)) return cp - 32;
  if (InRange(cp, 0x450, 0x45F)) return cp - 80;
  if ((InRange(cp, 0x461, 0x481) || InRange(cp, 0x48B, 0x4BF)) && cp % 2 == 1) return cp - 1;
  return cp;
}

namespace {

template <bool kUpper>
void MapCase(std::string_view s, std::string* out) {
  out->reserve(out->size() + s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    if (c < 0x80) {  // ASCII fast path
      if (kUpper) {
        *out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : static_cast<char>(c);
      } else {
        *out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : static_cast<char>(c);
      }
      i++;
      continue;
    }
    size_t start = i;
    uint32_t cp = Utf8Decode(s, &i);
    uint32_t mapped = kUpper ? CodePointUpper(cp) : CodePointLower(cp);
    if (mapped == cp) {
      out->append(s.substr(start, i - start));  // also keeps invalid bytes intact
    } else {
      Utf8Append(mapped, out);
    }
  }
}

}  // namespace

void Utf8Lower(std::string_view s, std::string* out) { MapCase<false>(s, out); }
void Utf8Upper(std::string_view s, std::string* out) { MapCase<true>(s, out); }

namespace {

using SV = std::string_view;

// substr(s, start[, len]) with PostgreSQL's rules: characters before
// position 1 count against len; negative len is an error.
std::string_view Substr(SV s, int64_t start, int64_t len) {
  if (len < 0) throw SqlError("22011", "negative substring length not allowed");
  int64_t end = start + len;  // exclusive, 1-based
  int64_t first = std::max<int64_t>(start, 1);
  if (end <= first) return {};
  size_t b = Utf8Offset(s, first - 1);
  size_t e = b + Utf8Offset(s.substr(b), end - first);
  return s.substr(b, e - b);
}

std::string_view SubstrFrom(SV s, int64_t start) {
  return s.substr(Utf8Offset(s, std::max<int64_t>(start, 1) - 1));
}

// The characters of a trim set, each a UTF-8 sequence.
class CharSet {
 public:
  explicit CharSet(SV chars) {
    for (size_t i = 0; i < chars.size();) {
      size_t len = Utf8CharBytes(chars, i);
      chars_.push_back(chars.substr(i, len));
      i += len;
    }
  }
  // Length of the character at s[i] if it is in the set, else 0.
  size_t MatchAt(SV s, size_t i) const {
    for (SV c : chars_) {
      if (s.substr(i).starts_with(c)) return c.size();
    }
    return 0;
  }
  // Length of the member character ending at s[end), else 0.
  size_t MatchBefore(SV s, size_t end) const {
    for (SV c : chars_) {
      if (s.substr(0, end).ends_with(c)) return c.size();
    }
    return 0;
  }

 private:
  std::vector<SV> chars_;
};

SV Trim(SV s, const CharSet& set, bool left, bool right) {
  if (left) {
    while (!s.empty()) {
      size_t k = set.MatchAt(s, 0);
      if (k == 0) break;
      s.remove_prefix(k);
    }
  }
  if (right) {
    while (!s.empty()) {
      size_t k = set.MatchBefore(s, s.size());
      if (k == 0) break;
      s.remove_suffix(k);
    }
  }
  return s;
}

template <bool kLeft, bool kRight>
void RegisterTrim(FunctionRegistry* r, const char* name) {
  const DataType v = DataType::Varchar();
  RegisterFn(r, name, {v}, v, StrictFn<SV>([](SV s) {
               static const CharSet kSpace(" ");
               return Trim(s, kSpace, kLeft, kRight);
             }));
  // The character set is nearly always constant: build it once per distinct value.
  RegisterFn(r, name, {v, v}, v, [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    std::optional<CharSet> set;
    std::string last;
    ExecuteStrict<SV, SV>(args, n, out, [&](SV s, SV chars) {
      if (!set || chars != last) {
        last.assign(chars);
        set.emplace(chars);
      }
      return Trim(s, *set, kLeft, kRight);
    });
  });
}

// split_part; negative fields count from the end (PostgreSQL 14+).
SV SplitPart(SV s, SV delim, int64_t field) {
  if (field == 0) throw SqlError(sqlstate::kInvalidParameterValue, "field position must not be zero");
  if (s.empty()) return {};
  if (delim.empty()) return (field == 1 || field == -1) ? s : SV();
  if (field < 0) {
    int64_t count = 1;
    for (size_t p = s.find(delim); p != SV::npos; p = s.find(delim, p + delim.size())) count++;
    field += count + 1;
    if (field <= 0) return {};
  }
  size_t start = 0;
  for (int64_t k = 1; k < field; k++) {
    size_t p = s.find(delim, start);
    if (p == SV::npos) return {};
    start = p + delim.size();
  }
  size_t end = s.find(delim, start);
  return s.substr(start, end == SV::npos ? SV::npos : end - start);
}

int64_t StrPos(SV s, SV sub) {
  size_t p = s.find(sub);
  return p == SV::npos ? 0 : static_cast<int64_t>(Utf8Length(s.substr(0, p))) + 1;
}

SV Left(SV s, int64_t n) {
  if (n < 0) n = std::max<int64_t>(static_cast<int64_t>(Utf8Length(s)) + n, 0);
  return s.substr(0, Utf8Offset(s, n));
}

SV Right(SV s, int64_t n) {
  int64_t len = Utf8Length(s);
  int64_t skip = n < 0 ? std::min(-n, len) : std::max<int64_t>(len - n, 0);
  return s.substr(Utf8Offset(s, skip));
}

// PostgreSQL checks count * length + VARHDRSZ against MaxAllocSize.
std::string Repeat(SV s, int64_t n) {
  if (n <= 0 || s.empty()) return {};
  CheckRequestedLength(SaturatingMul(static_cast<uint64_t>(n), s.size()));
  std::string out;
  out.reserve(s.size() * n);
  for (int64_t i = 0; i < n; i++) out += s;
  return out;
}

// translate(s, from, to): each character of s found in from becomes the
// character at the same place in to, or is dropped when to is shorter
// (the first occurrence in from counts), as PostgreSQL's.
std::string Translate(SV s, SV from, SV to) {
  std::vector<uint32_t> from_cps, to_cps;
  for (size_t i = 0; i < from.size();) from_cps.push_back(Utf8Decode(from, &i));
  for (size_t i = 0; i < to.size();) to_cps.push_back(Utf8Decode(to, &i));
  std::string out;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = Utf8Decode(s, &i);
    auto it = std::find(from_cps.begin(), from_cps.end(), cp);
    if (it == from_cps.end()) {
      Utf8Append(cp, &out);
      continue;
    }
    size_t k = static_cast<size_t>(it - from_cps.begin());
    if (k < to_cps.size()) Utf8Append(to_cps[k], &out);
  }
  return out;
}

std::string Reverse(SV s) {
  std::string out(s.size(), '\0');
  size_t w = s.size();
  for (size_t i = 0; i < s.size();) {
    size_t len = Utf8CharBytes(s, i);
    w -= len;
    out.replace(w, len, s.substr(i, len));
    i += len;
  }
  return out;
}

// lpad/rpad: truncates to len characters, else pads with fill repeated.
// As PostgreSQL, refuses a length whose worst case (4 bytes a character,
// plus the header) is more than a value can be, before anything is built.
template <bool kLeft>
std::string Pad(SV s, int64_t len, SV fill) {
  if (len < 0) len = 0;
  int64_t have = Utf8Length(s);
  if (fill.empty()) len = std::min(have, len);  // nothing to pad with
  CheckRequestedLength(SaturatingMul(static_cast<uint64_t>(len), kMaxCharBytes));
  if (have >= len) return std::string(s.substr(0, Utf8Offset(s, len)));
  int64_t need = len - have, fill_chars = Utf8Length(fill);
  std::string out;
  out.reserve(s.size() + static_cast<size_t>(need / fill_chars) * fill.size() + Utf8Offset(fill, need % fill_chars));
  if (!kLeft) out.append(s);
  for (size_t i = 0; need > 0; need--) {
    size_t k = Utf8CharBytes(fill, i);
    out.append(fill.substr(i, k));
    i += k;
    if (i >= fill.size()) i = 0;
  }
  if (kLeft) out.append(s);
  return out;
}

bool IsAlnum(uint32_t cp) {
  if (cp < 0x80) return std::isalnum(static_cast<int>(cp));
  return CodePointLower(cp) != cp || CodePointUpper(cp) != cp;  // cased letters
}

// Upper-cases the first letter of each alphanumeric run, lower-cases the rest.
std::string Initcap(SV s) {
  std::string out;
  out.reserve(s.size());
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = Utf8Decode(s, &i);
    Utf8Append(in_word ? CodePointLower(cp) : CodePointUpper(cp), &out);
    in_word = IsAlnum(cp);
  }
  return out;
}

std::string Chr(int64_t cp) {
  if (cp == 0) throw SqlError(sqlstate::kProgramLimitExceeded, "null character not permitted");
  if (cp < 0) throw SqlError(sqlstate::kInvalidParameterValue, "character number must be positive");
  if (cp > 0x10FFFF) {
    throw SqlError(sqlstate::kProgramLimitExceeded, fmt::format("requested character too large for encoding: {}", cp));
  }
  if (cp >= 0xD800 && cp <= 0xDFFF) {
    throw SqlError(sqlstate::kProgramLimitExceeded, fmt::format("requested character not valid for encoding: {}", cp));
  }
  std::string out;
  Utf8Append(static_cast<uint32_t>(cp), &out);
  return out;
}

std::string ToHex(uint64_t v) { return fmt::format("{:x}", v); }

// concat(...): NULL arguments are skipped; never NULL itself. Sized
// first (PostgreSQL's string-buffer error for a result beyond the limit).
void ConcatFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  out->Reserve(out->size() + n);
  for (size_t i = 0; i < n; i++) {
    out->AppendString(BuildLimitedString([&](auto& s) {
      for (const Vector* a : args) {
        if (!a->IsNull(i)) s.append(a->GetString(i));
      }
    }));
  }
}

// concat_ws(sep, ...): NULL when sep is NULL; other NULLs are skipped.
void ConcatWsFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  out->Reserve(out->size() + n);
  for (size_t i = 0; i < n; i++) {
    if (args[0]->IsNull(i)) {
      out->AppendNull();
      continue;
    }
    const std::string& sep = args[0]->GetString(i);
    out->AppendString(BuildLimitedString([&](auto& s) {
      bool first = true;
      for (size_t k = 1; k < args.size(); k++) {
        if (args[k]->IsNull(i)) continue;
        if (!first) s.append(sep);
        s.append(args[k]->GetString(i));
        first = false;
      }
    }));
  }
}

// format(fmt, ...): PostgreSQL's text_format. Each %[n$][-][width]type
// takes the next argument (or the n-th); width is digits or * (the next
// argument, or *n$), negative or with - left-aligning; %s the text (NULL
// empty), %I an identifier (quoted as needed; NULL 22004), %L a literal
// (NULL unquoted); %% a percent sign. The binder hands every argument as
// text (its output function).
std::string FormatText(SV format, const std::vector<const Vector*>& args, size_t row, EvalContext& ctx) {
  auto invalid = [](const std::string& message) { return SqlError(sqlstate::kInvalidParameterValue, message); };
  const size_t nargs = args.size() - 1;
  size_t next = 0;  // the argument after the last one used (0-based over args[1..])
  auto number = [&](size_t* pos, std::optional<int64_t>* out) {
    int64_t v = 0;
    size_t start = *pos;
    while (*pos < format.size() && format[*pos] >= '0' && format[*pos] <= '9') {
      v = v * 10 + (format[*pos] - '0');
      if (v > INT32_MAX) throw invalid("number is out of range");
      ++*pos;
    }
    if (*pos > start) *out = v;
  };
  auto argument = [&](std::optional<int64_t> position) -> size_t {
    if (position) {
      if (*position == 0) throw invalid("format specifies argument 0, but arguments are numbered from 1");
      next = static_cast<size_t>(*position);
    } else {
      next++;
    }
    if (next > nargs) throw invalid("too few arguments for format()");
    return next;  // index into args
  };
  return BuildLimitedString([&](auto& out) {
    next = 0;  // written twice (BuildLimitedString): from the start each time
    for (size_t i = 0; i < format.size(); i++) {
      if (format[i] != '%') {
        out.push_back(format[i]);
        continue;
      }
      auto unterminated = [&] { return invalid("unterminated format() type specifier"); };
      if (++i >= format.size()) throw unterminated();
      if (format[i] == '%') {
        out.push_back('%');
        continue;
      }
      // [n$]: an argument position (digits then $), else the digits are a width.
      std::optional<int64_t> position, width;
      bool left = false;
      std::optional<int64_t> digits;
      number(&i, &digits);
      if (i >= format.size()) throw unterminated();
      if (digits && format[i] == '$') {
        position = digits;
        digits.reset();
        if (++i >= format.size()) throw unterminated();
      }
      if (!digits) {
        while (i < format.size() && format[i] == '-') {
          left = true;
          i++;
        }
        if (i >= format.size()) throw unterminated();
        if (format[i] == '*') {
          std::optional<int64_t> width_position;
          i++;
          number(&i, &width_position);
          if (width_position) {
            if (i >= format.size() || format[i] != '$') throw unterminated();
            i++;
          }
          size_t k = argument(width_position);
          // The width argument's text as an integer; NULL is no width.
          if (!args[k]->IsNull(row)) {
            const std::string& text = args[k]->GetString(row);
            // As PostgreSQL reads it: the argument cast to integer.
            width = ParseText(text, DataType::Int32(), ctx).int_value();
          }
        } else {
          number(&i, &width);
        }
      } else {
        width = digits;
      }
      if (i >= format.size()) throw unterminated();
      const char type = format[i];
      if (type != 's' && type != 'I' && type != 'L') {
        SqlError e = invalid(fmt::format("unrecognized format() type specifier \"{}\"", type));
        e.WithHint("For a single \"%\" use \"%%\".");
        throw e;
      }
      size_t k = argument(position);
      std::string value;
      if (args[k]->IsNull(row)) {
        if (type == 'I') throw SqlError("22004", "null values cannot be formatted as an SQL identifier");
        if (type == 'L') value = "NULL";
      } else {
        const std::string& text = args[k]->GetString(row);
        value = type == 'I' ? QuoteIdent(text) : type == 'L' ? QuoteLiteral(text) : text;
      }
      if (width && *width < 0) {
        left = true;
        width = -*width;
      }
      size_t length = Utf8Length(value);
      size_t pad = width && static_cast<size_t>(*width) > length ? static_cast<size_t>(*width) - length : 0;
      if (!left) out.append(pad, ' ');
      out.append(value);
      if (left) out.append(pad, ' ');
    }
  });
}

void FormatFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
  out->Reserve(out->size() + n);
  for (size_t i = 0; i < n; i++) {
    if (args[0]->IsNull(i)) out->AppendNull();
    else out->AppendString(FormatText(args[0]->GetString(i), args, i, ctx));
  }
}

// a || b for text and bytea: PostgreSQL asks for one allocation of both
// lengths and the header.
std::string Concat2(SV a, SV c) {
  CheckValueSize(SaturatingAdd(a.size(), c.size()));
  std::string s;
  s.reserve(a.size() + c.size());
  s.append(a).append(c);
  return s;
}

// replace(s, from, to): sized first when it can grow (the string-buffer
// error at the append where PostgreSQL's would fail), then built.
std::string Replace(SV s, SV from, SV to) {
  if (from.empty()) return std::string(s);
  auto write = [&](auto& out) {
    size_t start = 0;
    for (size_t p = s.find(from); p != SV::npos; p = s.find(from, start)) {
      out.append(s.substr(start, p - start));
      out.append(to);
      start = p + from.size();
    }
    out.append(s.substr(start));
  };
  if (to.size() > from.size()) return BuildLimitedString(write);
  std::string out;
  write(out);
  return out;
}

// encode(bytes, format) and decode(text, format) for PostgreSQL's formats
// hex, base64 (lines of 76 characters; whitespace skipped when decoding)
// and escape (\\ for a backslash, \ooo for NUL and bytes from 0x80),
// with its messages (22023, 22P02 for bad escapes).
SqlError UnrecognizedEncoding(SV format) {
  return SqlError(sqlstate::kInvalidParameterValue, fmt::format("unrecognized encoding: \"{}\"", format));
}

std::string Encode(SV bytes, SV format) {
  static const char kHex[] = "0123456789abcdef";
  static const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  if (format == "hex") {
    for (unsigned char c : bytes) out += kHex[c >> 4], out += kHex[c & 15];
  } else if (format == "base64") {
    size_t line = 0;
    for (size_t i = 0; i < bytes.size(); i += 3) {
      uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
      if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
      if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
      if (line >= 76) out += '\n', line = 0;
      out += kBase64[chunk >> 18 & 63];
      out += kBase64[chunk >> 12 & 63];
      out += i + 1 < bytes.size() ? kBase64[chunk >> 6 & 63] : '=';
      out += i + 2 < bytes.size() ? kBase64[chunk & 63] : '=';
      line += 4;
    }
  } else if (format == "escape") {
    for (unsigned char c : bytes) {
      if (c == '\\') {
        out += "\\\\";
      } else if (c == 0 || c >= 0x80) {
        out += '\\';
        out += static_cast<char>('0' + (c >> 6));
        out += static_cast<char>('0' + (c >> 3 & 7));
        out += static_cast<char>('0' + (c & 7));
      } else {
        out += static_cast<char>(c);
      }
    }
  } else {
    throw UnrecognizedEncoding(format);
  }
  return out;
}

std::string Decode(SV text, SV format) {
  std::string out;
  auto invalid = [](const std::string& message) { return SqlError(sqlstate::kInvalidParameterValue, message); };
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  if (format == "hex") {
    auto digit = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      throw invalid(fmt::format("invalid hexadecimal digit: \"{}\"", std::string(1, c)));
    };
    for (size_t i = 0; i < text.size();) {
      if (space(text[i])) {
        i++;
        continue;
      }
      int hi = digit(text[i]);
      if (i + 1 >= text.size()) throw invalid("invalid hexadecimal data: odd number of digits");
      out += static_cast<char>(hi << 4 | digit(text[i + 1]));
      i += 2;
    }
  } else if (format == "base64") {
    // PostgreSQL's b64_decode: '=' ends the data (after 2 or 3 symbols of
    // a group); the group's later symbols still count but add no bytes.
    uint32_t bits = 0;
    int pos = 0, end = 0;
    for (char c : text) {
      if (space(c)) continue;
      int v;
      if (c == '=') {
        if (!end) {
          if (pos == 2) end = 1;
          else if (pos == 3) end = 2;
          else throw invalid("unexpected \"=\" while decoding base64 sequence");
        }
        v = 0;
      } else if (c >= 'A' && c <= 'Z') {
        v = c - 'A';
      } else if (c >= 'a' && c <= 'z') {
        v = c - 'a' + 26;
      } else if (c >= '0' && c <= '9') {
        v = c - '0' + 52;
      } else if (c == '+') {
        v = 62;
      } else if (c == '/') {
        v = 63;
      } else {
        throw invalid(fmt::format("invalid symbol \"{}\" found while decoding base64 sequence", std::string(1, c)));
      }
      bits = bits << 6 | static_cast<uint32_t>(v);
      if (++pos == 4) {
        out += static_cast<char>(bits >> 16 & 255);
        if (end == 0 || end > 1) out += static_cast<char>(bits >> 8 & 255);
        if (end == 0 || end > 2) out += static_cast<char>(bits & 255);
        bits = 0;
        pos = 0;
      }
    }
    if (pos != 0) throw invalid("invalid base64 end sequence");
  } else if (format == "escape") {
    for (size_t i = 0; i < text.size(); i++) {
      if (text[i] != '\\') {
        out += text[i];
      } else if (i + 1 < text.size() && text[i + 1] == '\\') {
        out += '\\';
        i++;
      } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' && text[i + 2] >= '0' &&
                 text[i + 2] <= '7' && text[i + 3] >= '0' && text[i + 3] <= '7') {
        out += static_cast<char>((text[i + 1] - '0') << 6 | (text[i + 2] - '0') << 3 | (text[i + 3] - '0'));
        i += 3;
      } else {
        throw SqlError(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type bytea");
      }
    }
  } else {
    throw UnrecognizedEncoding(format);
  }
  return out;
}

// A message digest of each value (OpenSSL's EVP), as raw bytes (sha224
// ... sha512 of bytea) or, with `hex`, as lower-case hex text (md5).
ScalarFn DigestFn(const EVP_MD* (*type)(), bool hex) {
  return [type, hex](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    ExecuteStrict<SV>(args, n, out, [&](SV s) {
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned int len = 0;
      EVP_DigestInit_ex(md.get(), type(), nullptr);
      EVP_DigestUpdate(md.get(), s.data(), s.size());
      EVP_DigestFinal_ex(md.get(), digest, &len);
      if (!hex) return std::string(reinterpret_cast<const char*>(digest), len);
      static const char kHex[] = "0123456789abcdef";
      std::string text(2 * len, '\0');
      for (unsigned int k = 0; k < len; k++) {
        text[2 * k] = kHex[digest[k] >> 4];
        text[2 * k + 1] = kHex[digest[k] & 15];
      }
      return text;
    });
  };
}

}  // namespace

void RegisterStringFunctions(FunctionRegistry* r) {
  const DataType v = DataType::Varchar(), i4 = DataType::Int32(), i8 = DataType::Int64(),
                 b = DataType::Boolean(), by = DataType::Bytea();

  for (const char* name : {"length", "char_length", "character_length"}) {
    RegisterFn(r, name, {v}, i4, StrictFn<SV>([](SV s) { return static_cast<int64_t>(Utf8Length(s)); }));
  }
  RegisterFn(r, "length", {by}, i4, StrictFn<SV>([](SV s) { return static_cast<int64_t>(s.size()); }));
  RegisterFn(r, "octet_length", {v}, i4, StrictFn<SV>([](SV s) { return static_cast<int64_t>(s.size()); }));
  // A character(n) value with its blanks, for the functions that see them
  // (the binder adds the call: ExprBinder::PadCharacterArguments).
  RegisterFn(r, kBpcharPadFunction, {v, i4}, v, StrictFn<SV, int64_t>([](SV s, int64_t n) {
               // character(n)'s bounds (a client may call it by name too).
               if (n < 1 || n > 10485760)
                 throw SqlError(sqlstate::kInvalidParameterValue, "length for type character must be between 1 and 10485760");
               return BpcharPadded(s, DataType::Bpchar(static_cast<int32_t>(n)));
             }));
  RegisterFn(r, "octet_length", {by}, i4, StrictFn<SV>([](SV s) { return static_cast<int64_t>(s.size()); }));

  RegisterFn(r, "lower", {v}, v, StrictFn<SV>([](SV s) {
               std::string out;
               Utf8Lower(s, &out);
               return out;
             }));
  RegisterFn(r, "upper", {v}, v, StrictFn<SV>([](SV s) {
               std::string out;
               Utf8Upper(s, &out);
               return out;
             }));
  RegisterFn(r, "initcap", {v}, v, StrictFn<SV>(kFn<Initcap>));

  for (const char* name : {"substr", "substring"}) {
    RegisterFn(r, name, {v, i4}, v, StrictFn<SV, int64_t>(kFn<SubstrFrom>));
    RegisterFn(r, name, {v, i4, i4}, v, StrictFn<SV, int64_t, int64_t>(kFn<Substr>));
  }

  ScalarFunction concat;
  concat.name = "concat";
  concat.arg_types = {v};
  concat.return_type = v;
  concat.fn = ConcatFn;
  concat.variadic = true;
  r->Register(concat);
  concat.name = "concat_ws";
  concat.fn = ConcatWsFn;
  r->Register(concat);
  concat.name = "format";
  concat.fn = FormatFn;
  r->Register(concat);

  RegisterFn(r, "||", {v, v}, v, StrictFn<SV, SV>(kFn<Concat2>));
  RegisterFn(r, "||", {by, by}, by, StrictFn<SV, SV>(kFn<Concat2>));

  RegisterFn(r, "replace", {v, v, v}, v, StrictFn<SV, SV, SV>(kFn<Replace>));

  RegisterTrim<true, true>(r, "btrim");
  RegisterTrim<true, true>(r, "trim");
  RegisterTrim<true, false>(r, "ltrim");
  RegisterTrim<false, true>(r, "rtrim");

  RegisterFn(r, "split_part", {v, v, i4}, v, StrictFn<SV, SV, int64_t>(kFn<SplitPart>));
  RegisterFn(r, "strpos", {v, v}, i4, StrictFn<SV, SV>(kFn<StrPos>));
  RegisterFn(r, "position", {v, v}, i4, StrictFn<SV, SV>(kFn<StrPos>));
  RegisterFn(r, "starts_with", {v, v}, b, StrictFn<SV, SV>([](SV s, SV p) { return s.starts_with(p); }));
  RegisterFn(r, "left", {v, i4}, v, StrictFn<SV, int64_t>(kFn<Left>));
  RegisterFn(r, "right", {v, i4}, v, StrictFn<SV, int64_t>(kFn<Right>));
  RegisterFn(r, "repeat", {v, i4}, v, StrictFn<SV, int64_t>(kFn<Repeat>));
  RegisterFn(r, "reverse", {v}, v, StrictFn<SV>(kFn<Reverse>));
  RegisterFn(r, "translate", {v, v, v}, v, StrictFn<SV, SV, SV>(kFn<Translate>));
  RegisterFn(r, "lpad", {v, i4}, v, StrictFn<SV, int64_t>([](SV s, int64_t n) { return Pad<true>(s, n, " "); }));
  RegisterFn(r, "lpad", {v, i4, v}, v, StrictFn<SV, int64_t, SV>(kFn<Pad<true>>));
  RegisterFn(r, "rpad", {v, i4}, v, StrictFn<SV, int64_t>([](SV s, int64_t n) { return Pad<false>(s, n, " "); }));
  RegisterFn(r, "rpad", {v, i4, v}, v, StrictFn<SV, int64_t, SV>(kFn<Pad<false>>));

  RegisterFn(r, "md5", {v}, v, DigestFn(EVP_md5, /*hex=*/true));
  RegisterFn(r, "md5", {by}, v, DigestFn(EVP_md5, /*hex=*/true));
  RegisterFn(r, "encode", {by, v}, v, StrictFn<SV, SV>(kFn<Encode>));
  RegisterFn(r, "decode", {v, v}, by, StrictFn<SV, SV>(kFn<Decode>));
  RegisterFn(r, "sha224", {by}, by, DigestFn(EVP_sha224, /*hex=*/false));
  RegisterFn(r, "sha256", {by}, by, DigestFn(EVP_sha256, /*hex=*/false));
  RegisterFn(r, "sha384", {by}, by, DigestFn(EVP_sha384, /*hex=*/false));
  RegisterFn(r, "sha512", {by}, by, DigestFn(EVP_sha512, /*hex=*/false));
  RegisterFn(r, "ascii", {v}, i4, StrictFn<SV>([](SV s) -> int64_t {
               size_t i = 0;
               return s.empty() ? 0 : Utf8Decode(s, &i);
             }));
  RegisterFn(r, "chr", {i4}, v, StrictFn<int64_t>(kFn<Chr>));
  RegisterFn(r, "to_hex", {i4}, v, StrictFn<int64_t>([](int64_t x) { return ToHex(static_cast<uint32_t>(x)); }));
  RegisterFn(r, "to_hex", {i8}, v, StrictFn<int64_t>([](int64_t x) { return ToHex(static_cast<uint64_t>(x)); }));
}

}  // namespace freshet
