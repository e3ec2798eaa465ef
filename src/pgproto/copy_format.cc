#include "pgproto/copy_format.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <string.h>  // memrchr

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "common/encoding.h"
#include "common/error.h"
#include "common/hex.h"
#include "common/limits.h"
#include "pgproto/utf8_check.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// ENCODING: the data's encoding. Ours is always UTF-8 (server and client
// encoding), so UTF8 under any of PostgreSQL's spellings, and SQL_ASCII (no
// conversion), are taken; PostgreSQL's other encodings would need a
// conversion and are refused; anything else is not an encoding name.
void CheckCopyEncoding(const std::string& name) {
  // PostgreSQL's clean_encoding_name: lower case, letters and digits only.
  std::string clean;
  for (char ch : name)
    if (std::isalnum(static_cast<unsigned char>(ch))) clean.push_back(static_cast<char>(std::tolower(ch)));
  if (clean == "utf8" || clean == "unicode" || clean == "sqlascii") return;
  static const std::set<std::string> kOthers = {
      "abc", "alt", "big5", "euccn", "eucjis2004", "eucjp", "euckr", "euctw", "gb18030", "gbk", "iso88591",
      "iso885910", "iso885913", "iso885914", "iso885915", "iso885916", "iso88592", "iso88593", "iso88594",
      "iso88595", "iso88596", "iso88597", "iso88598", "iso88599", "johab", "koi8", "koi8r", "koi8u", "latin1",
      "latin10", "latin2", "latin3", "latin4", "latin5", "latin6", "latin7", "latin8", "latin9", "mskanji",
      "muleinternal", "shiftjis", "shiftjis2004", "sjis", "tcvn", "tcvn5712", "uhc", "vscii", "win", "win1250",
      "win1251", "win1252", "win1253", "win1254", "win1255", "win1256", "win1257", "win1258", "win866", "win874",
      "windows1250", "windows1251", "windows1252", "windows1253", "windows1254", "windows1255", "windows1256",
      "windows1257", "windows1258", "windows866", "windows874", "iso885911", "isoir144", "isoir148", "isoir199",
      "isoir100", "isoir101", "isoir109", "isoir110", "isoir126", "isoir127", "isoir138", "isoir157"};
  if (kOthers.count(clean))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "COPY ENCODING \"{}\" is not supported: data must be UTF8", name);
  throw SqlError(sqlstate::kInvalidParameterValue, "argument to option \"encoding\" must be a valid encoding name");
}

}  // namespace

CopyFormat ParseCopyOptions(const PgQuery__CopyStmt* c) {
  // PostgreSQL's checks (ProcessCopyOptions), with its SQLSTATEs.
  CopyFormat f;
  std::set<std::string> seen;
  bool null_set = false, delim_set = false, quote_set = false, escape_set = false;
  auto one_byte = [](const std::string& v, const char* what) {
    if (v.size() != 1)
      FRESHET_THROW(sqlstate::kFeatureNotSupported, "COPY {} must be a single one-byte character", what);
    return v[0];
  };
  for (size_t i = 0; i < c->n_options; i++) {
    const PgQuery__DefElem* d = c->options[i]->def_elem;
    std::string name = d->defname, v = DefElemText(d);
    if (!seen.insert(name).second) throw SqlError(sqlstate::kSyntaxError, "conflicting or redundant options");
    if (name == "encoding") {
      CheckCopyEncoding(v);
    } else if (name == "format") {
      if (v == "csv") f.csv = true;
      else if (v == "binary") f.binary = true;
      else if (v != "text") FRESHET_THROW(sqlstate::kInvalidParameterValue, "COPY format \"{}\" not recognized", v);
    } else if (name == "delimiter") {
      f.delimiter = one_byte(v, "delimiter");
      delim_set = true;
    } else if (name == "null") {
      f.null_string = v;
      null_set = true;
    } else if (name == "header") {
      std::string b = v;
      for (char& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (b == "true" || b == "on" || b == "yes" || b == "1") f.header = true;
      else if (b == "false" || b == "off" || b == "no" || b == "0") f.header = false;
      else if (b == "match") {
        if (!c->is_from) throw SqlError(sqlstate::kFeatureNotSupported, "cannot use \"match\" with HEADER in COPY TO");
        f.header = f.header_match = true;
      }
      else throw SqlError(sqlstate::kInvalidParameterValue, "header requires a Boolean value or \"match\"");
    } else if (name == "freeze") {
      std::string b = v;
      for (char& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (b == "true" || b == "on" || b == "1") f.freeze = true;
      else if (b == "false" || b == "off" || b == "0") f.freeze = false;
      else throw SqlError(sqlstate::kSyntaxError, "freeze requires a Boolean value");
    } else if (name == "quote") {
      f.quote = one_byte(v, "quote");
      quote_set = true;
    } else if (name == "escape") {
      f.escape = one_byte(v, "escape");
      escape_set = true;
    } else if (name == "force_not_null" || name == "force_null" || name == "force_quote") {
      std::vector<std::string>& list = name == "force_not_null" ? f.force_not_null
                                       : name == "force_null"   ? f.force_null
                                                                : f.force_quote;
      const PgQuery__Node* a = d->arg;
      if (a && a->node_case == PG_QUERY__NODE__NODE_A_STAR && name == "force_quote") {
        f.force_quote_all = true;
      } else if (a && a->node_case == PG_QUERY__NODE__NODE_LIST) {
        for (size_t k = 0; k < a->list->n_items; k++)
          if (a->list->items[k]->node_case == PG_QUERY__NODE__NODE_STRING) list.push_back(a->list->items[k]->string->sval);
      } else {
        FRESHET_THROW(sqlstate::kSyntaxError, "argument to option \"{}\" must be a list of column names", name);
      }
    } else {
      FRESHET_THROW(sqlstate::kSyntaxError, "option \"{}\" not recognized", name);
    }
  }
  if (f.binary) {
    if (delim_set) throw SqlError(sqlstate::kSyntaxError, "cannot specify DELIMITER in BINARY mode");
    if (null_set) throw SqlError(sqlstate::kSyntaxError, "cannot specify NULL in BINARY mode");
    if (seen.count("header")) throw SqlError(sqlstate::kSyntaxError, "cannot specify HEADER in BINARY mode");
  }
  bool any_force_in = !f.force_not_null.empty() || !f.force_null.empty();
  bool any_force_out = !f.force_quote.empty() || f.force_quote_all;
  if (!f.csv && (any_force_in || any_force_out))
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "COPY {} available only in CSV mode",
                  any_force_out ? "force quote" : !f.force_not_null.empty() ? "force not null" : "force null");
  if (c->is_from && any_force_out) throw SqlError(sqlstate::kFeatureNotSupported, "COPY force quote only available using COPY TO");
  if (!c->is_from && any_force_in)
    FRESHET_THROW(sqlstate::kFeatureNotSupported, "COPY force {} only available using COPY FROM",
                  !f.force_not_null.empty() ? "not null" : "null");
  if (f.csv) {
    if (!delim_set) f.delimiter = ',';
    if (!null_set) f.null_string = "";
    if (!escape_set) f.escape = f.quote;
  } else {
    if (quote_set) throw SqlError(sqlstate::kFeatureNotSupported, "COPY quote available only in CSV mode");
    if (escape_set) throw SqlError(sqlstate::kFeatureNotSupported, "COPY escape available only in CSV mode");
  }
  if (f.delimiter == '\n' || f.delimiter == '\r')
    throw SqlError(sqlstate::kInvalidParameterValue, "COPY delimiter cannot be newline or carriage return");
  if (f.null_string.find_first_of("\r\n") != std::string::npos)
    throw SqlError(sqlstate::kInvalidParameterValue, "COPY null representation cannot use newline or carriage return");
  if (f.csv && f.delimiter == f.quote)
    throw SqlError(sqlstate::kInvalidParameterValue, "COPY delimiter and quote must be different");
  if (f.null_string.find(f.delimiter) != std::string::npos)
    throw SqlError(sqlstate::kInvalidParameterValue, "COPY delimiter must not appear in the NULL specification");
  return f;
}

void ResolveColumnOptions(CopyFormat* f, const std::vector<std::string>& columns) {
  f->columns = columns;
  // No flags at all when an option is not given: the reader then skips
  // the check per record.
  auto resolve = [&](const std::vector<std::string>& names, const char* option, std::vector<bool>* at) {
    at->clear();
    if (names.empty()) return;
    at->assign(columns.size(), false);
    for (const std::string& n : names) {
      auto it = std::find(columns.begin(), columns.end(), n);
      if (it == columns.end())
        FRESHET_THROW(sqlstate::kInvalidColumnReference, "{} column \"{}\" not referenced by COPY", option, n);
      (*at)[static_cast<size_t>(it - columns.begin())] = true;
    }
  };
  resolve(f->force_not_null, "FORCE_NOT_NULL", &f->force_not_null_at);
  resolve(f->force_null, "FORCE_NULL", &f->force_null_at);
  resolve(f->force_quote, "FORCE_QUOTE", &f->force_quote_at);
  if (f->force_quote_all) f->force_quote_at.assign(columns.size(), true);
}

bool IsHeaderRecord(const CopyFormat& f, int64_t line, const std::vector<CopyField>& fields, std::string_view table) {
  if (!f.header || line != 1) return false;
  if (!f.header_match) return true;
  // PostgreSQL's NextCopyFromRawFields, word for word.
  auto mismatch = [&](std::string message) {
    return SqlError(sqlstate::kBadCopyFileFormat, std::move(message)).WithDetail(fmt::format("COPY {}, line 1", table));
  };
  if (fields.size() != f.columns.size())
    throw mismatch(fmt::format("wrong number of fields in header line: got {}, expected {}", fields.size(),
                               f.columns.size()));
  for (size_t i = 0; i < fields.size(); i++) {
    if (fields[i].null)
      throw mismatch(fmt::format("column name mismatch in header line field {}: got null value (\"{}\"), expected \"{}\"",
                                 i + 1, f.null_string, f.columns[i]));
    if (fields[i].text != f.columns[i])
      throw mismatch(fmt::format("column name mismatch in header line field {}: got \"{}\", expected \"{}\"", i + 1,
                                 fields[i].text, f.columns[i]));
  }
  return true;
}

void CheckCopyHeaderOfNoData(const CopyFormat& f, std::string_view table) {
  IsHeaderRecord(f, 1, {CopyField{std::string_view(), f.null_string.empty()}}, table);
}

CopyRecordReader::CopyRecordReader(CopyFormat format, bool check_encoding)
    : format_(std::move(format)), check_encoding_(check_encoding) {
  for (char c : {format_.delimiter, format_.quote, '\n', '\r'}) csv_special_[static_cast<uint8_t>(c)] = true;
}

uint64_t CopyRecordReader::CsvSpecialMask(size_t base) const {
  const char* p = buf_.data() + base;
  uint64_t mask = 0;
  if (base + 64 > buf_.size()) {  // the last, partial window
    for (size_t k = 0; base + k < buf_.size(); k++)
      if (csv_special_[static_cast<uint8_t>(p[k])]) mask |= uint64_t(1) << k;
    return mask;
  }
#if defined(__SSE2__)
  const __m128i delim = _mm_set1_epi8(format_.delimiter), quote = _mm_set1_epi8(format_.quote);
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (int k = 0; k < 4; k++) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, delim), _mm_cmpeq_epi8(x, quote)),
                               _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr)));
    mask |= uint64_t(static_cast<uint16_t>(_mm_movemask_epi8(hit))) << (16 * k);
  }
#else
  for (size_t k = 0; k < 64; k++)
    if (csv_special_[static_cast<uint8_t>(p[k])]) mask |= uint64_t(1) << k;
#endif
  return mask;
}

size_t CopyRecordReader::NextCsvSpecial(size_t i) {
  const size_t n = buf_.size();
  while (i < n) {
    size_t base = i & ~size_t(63);
    if (base != csv_window_) {
      csv_window_mask_ = CsvSpecialMask(base);
      csv_window_ = base;
    }
    uint64_t rest = csv_window_mask_ >> (i - base);
    if (rest) return i + static_cast<size_t>(__builtin_ctzll(rest));
    i = base + 64;
  }
  return n;
}

void CopyRecordReader::Append(std::string_view data) {
  csv_window_ = SIZE_MAX;
  // Drop consumed bytes once they are most of the buffer (amortized O(1)).
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    scanned_ = scanned_ > pos_ ? scanned_ - pos_ : 0;
    validated_ = validated_ > pos_ ? validated_ - pos_ : 0;
    if (bad_ != SIZE_MAX) bad_ = bad_ >= pos_ ? bad_ - pos_ : 0;
    pos_ = 0;
  }
  buf_.append(data);
}

void CopyRecordReader::Append(std::string&& data) {
  csv_window_ = SIZE_MAX;
  if (pos_ < buf_.size()) return Append(std::string_view(data));
  buf_ = std::move(data);
  pos_ = 0;
  scanned_ = 0;
  validated_ = 0;
  bad_ = SIZE_MAX;
}

std::string CopyRecordReader::TakeBuffer() {
  csv_window_ = SIZE_MAX;
  std::string out = std::move(buf_);
  buf_.clear();
  pos_ = scanned_ = validated_ = 0;
  bad_ = SIZE_MAX;
  return out;
}

void CopyRecordReader::CheckRecordEncoding(size_t start, size_t end, bool final) {
  // All the data there is gets checked at once (a block handed to a worker
  // in one call); later calls only look at where the first check stopped.
  if (end > validated_ && bad_ == SIZE_MAX) {
    size_t from = std::max(validated_, start);
    bool truncated = false;
    size_t valid = Utf8ValidPrefix(buf_.data() + from, buf_.size() - from, &truncated);
    validated_ = from + valid;
    if (validated_ < buf_.size() && (!truncated || final)) bad_ = validated_;
  }
  size_t bad = bad_ != SIZE_MAX ? bad_ : validated_ < end ? validated_ : SIZE_MAX;
  if (bad < end) throw SqlError(kCharacterNotInRepertoire, InvalidUtf8Message(buf_.data() + bad, end - bad));
  // What escapes made, field by field (PostgreSQL checks those fields again).
  if (escaped_non_ascii_)
    for (const Span& s : spans_)
      if (s.in_scratch) {
        size_t valid = Utf8ValidPrefix(scratch_.data() + s.offset, s.size);
        if (valid < s.size)
          throw SqlError(kCharacterNotInRepertoire, InvalidUtf8Message(scratch_.data() + s.offset + valid, s.size - valid));
      }
}

// A record still incomplete holds every byte since its start, which a
// client could send without end: past the limit on a value (PostgreSQL's
// line buffer is a string buffer of at most 1 GB) it is refused.
void CopyRecordReader::CheckIncompleteRecord() const {
  uint64_t have = buf_.size() - pos_;
  if (have > kMaxValueBytes) ThrowCannotEnlarge(kMaxValueBytes, have - kMaxValueBytes);
}

bool CopyRecordReader::Next(bool final, std::vector<CopyField>* fields) {
  if (ended_ || pos_ >= buf_.size()) return false;
  if (!final && scanned_ > pos_ && !std::memchr(buf_.data() + scanned_, '\n', buf_.size() - scanned_)) {
    scanned_ = buf_.size();
    CheckIncompleteRecord();
    return false;
  }
  // Past the limit with no line end in reach, the record is too long
  // whatever it holds: refused before its fields are unescaped again.
  if (buf_.size() - pos_ > kMaxValueBytes && !std::memchr(buf_.data() + pos_, '\n', kMaxValueBytes + 1))
    CheckIncompleteRecord();
  spans_.clear();
  scratch_.clear();
  escaped_non_ascii_ = false;
  size_t end = 0;
  if (!(format_.csv ? ReadCsv(final, &end) : ReadText(final, &end))) {
    scanned_ = buf_.size();
    CheckIncompleteRecord();
    return false;
  }
  if (check_encoding_) CheckRecordEncoding(pos_, end, final);
  pos_ = end;
  scanned_ = 0;
  fields->clear();
  for (const Span& s : spans_)
    fields->push_back({std::string_view((s.in_scratch ? scratch_.data() : buf_.data()) + s.offset, s.size), s.null});
  // FORCE_NOT_NULL: an unquoted null string is that text; FORCE_NULL: a
  // quoted one is NULL too (PostgreSQL's NextCopyFrom).
  if (!format_.force_not_null_at.empty() || !format_.force_null_at.empty())
    for (size_t i = 0; i < fields->size(); i++) {
      CopyField& f = (*fields)[i];
      if (f.null && i < format_.force_not_null_at.size() && format_.force_not_null_at[i]) f.null = false;
      else if (!f.null && i < format_.force_null_at.size() && format_.force_null_at[i] && f.text == format_.null_string)
        f.null = true;
    }
  // The end marker; in CSV only unquoted.
  if (format_.csv && fields->size() == 1 && !spans_[0].in_scratch && fields->front().text == "\\.") ended_ = true;
  return !ended_;
}

void CopyRecordReader::AddSpan(const Span& span) {
  // Member by member: push_back(span) had the compiler store the two flags
  // as bytes on the stack and load them back as one word, a store that
  // cannot be forwarded to the load. That stall was half of parsing a record.
  Span& added = spans_.emplace_back();
  added.offset = span.offset;
  added.size = span.size;
  added.in_scratch = span.in_scratch;
  added.null = span.null;
}

bool CopyRecordReader::ReadCsv(bool final, size_t* end) {
  const char* b = buf_.data();
  const size_t n = buf_.size();
  const char delim = format_.delimiter, quote = format_.quote, escape = format_.escape;
  size_t i = pos_;
  while (true) {  // one field per iteration
    size_t start = i;
    // The common case: an unquoted field, taken as a view.
    i = NextCsvSpecial(i);
    Span span{start, i - start, false, false};
    if (i < n && b[i] == quote) {
      // Quoted sections (possibly several, with unquoted text between):
      // assembled in the scratch buffer.
      span = Span{scratch_.size(), 0, true, false};
      scratch_.append(b + start, i - start);
      while (i < n && b[i] != delim && b[i] != '\n' && b[i] != '\r') {
        if (b[i] != quote) {
          scratch_.push_back(b[i++]);
          continue;
        }
        i++;  // opening quote
        while (true) {
          if (i >= n) {
            if (!final) return false;
            throw SqlError(sqlstate::kBadCopyFileFormat, "unterminated CSV quoted field");
          }
          char c = b[i];
          if (c == escape && escape != quote && i + 1 < n && (b[i + 1] == quote || b[i + 1] == escape)) {
            scratch_.push_back(b[i + 1]);
            i += 2;
            continue;
          }
          if (c == quote) {
            if (escape == quote && i + 1 >= n && !final) return false;  // a doubled quote may follow
            if (escape == quote && i + 1 < n && b[i + 1] == quote) {
              scratch_.push_back(quote);
              i += 2;
              continue;
            }
            i++;  // closing quote
            break;
          }
          scratch_.push_back(c);
          i++;
        }
      }
      span.size = scratch_.size() - span.offset;
    } else if (span.size == format_.null_string.size() &&
               std::memcmp(b + start, format_.null_string.data(), span.size) == 0) {
      span.null = true;  // only an unquoted field can be NULL
    }
    if (i >= n) {
      if (!final) return false;
      if (i == pos_) return false;  // nothing left
      AddSpan(span);
      *end = i;
      return true;
    }
    AddSpan(span);
    char c = b[i++];
    if (c == delim) continue;
    if (c == '\r' && i < n && b[i] == '\n') i++;
    if (c == '\r' && i >= n && !final) return false;  // "\r\n" split between messages
    *end = i;
    return true;
  }
}

bool CopyRecordReader::ReadText(bool final, size_t* end) {
  const char* b = buf_.data();
  size_t n = buf_.size();
  const void* nl = std::memchr(b + pos_, '\n', n - pos_);
  size_t line_end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - b) : n;
  if (!nl && !final) return false;
  *end = nl ? line_end + 1 : n;
  if (line_end > pos_ && b[line_end - 1] == '\r') line_end--;
  if (std::string_view(b + pos_, line_end - pos_) == "\\.") {
    ended_ = true;
    return true;
  }
  const char delim = format_.delimiter;
  const std::string& null_string = format_.null_string;
  size_t i = pos_;
  while (true) {  // one field per iteration
    size_t start = i;
    bool escaped = false;
    while (i < line_end && b[i] != delim) {
      if (b[i] == '\\' && i + 1 < line_end) {
        escaped = true;
        i++;  // the escaped character is never a separator
      }
      i++;
    }
    std::string_view raw(b + start, i - start);
    if (raw == null_string) {
      AddSpan(Span{start, 0, false, true});
    } else if (!escaped) {
      AddSpan(Span{start, raw.size(), false, false});
    } else {
      size_t offset = scratch_.size();
      Unescape(raw);
      AddSpan(Span{offset, scratch_.size() - offset, true, false});
    }
    if (i >= line_end) return true;
    i++;  // the delimiter
  }
}

void CopyRecordReader::Unescape(std::string_view raw) {
  for (size_t i = 0; i < raw.size(); i++) {
    char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      scratch_.push_back(c);
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'b': scratch_.push_back('\b'); break;
      case 'f': scratch_.push_back('\f'); break;
      case 'n': scratch_.push_back('\n'); break;
      case 'r': scratch_.push_back('\r'); break;
      case 't': scratch_.push_back('\t'); break;
      case 'v': scratch_.push_back('\v'); break;
      case 'x': {
        int v = 0, digits = 0;
        while (digits < 2 && i + 1 < raw.size() && HexDigit(raw[i + 1]) >= 0) {
          v = v * 16 + HexDigit(raw[++i]);
          digits++;
        }
        if (digits == 0) scratch_.push_back('x');  // "\x" without digits is a plain x
        else scratch_.push_back(static_cast<char>(v));
        escaped_non_ascii_ |= digits > 0 && (v == 0 || v >= 0x80);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', digits = 1;
          while (digits < 3 && i + 1 < raw.size() && raw[i + 1] >= '0' && raw[i + 1] <= '7') {
            v = v * 8 + (raw[++i] - '0');
            digits++;
          }
          scratch_.push_back(static_cast<char>(v & 0xff));
          escaped_non_ascii_ |= (v & 0xff) == 0 || (v & 0xff) >= 0x80;
        } else {
          scratch_.push_back(e);
        }
    }
  }
}

bool CopyBlockSplitter::Next(bool final, size_t min_bytes, std::string* block, int64_t* first_record) {
  if (ended_ || pending_.empty() || (!final && pending_.size() < std::max(min_bytes, retry_at_))) return false;
  const char* b = pending_.data();
  const size_t n = pending_.size();
  size_t cut = 0;
  int64_t records = 0;
  // "\." could be the end marker (memchr is vectorized, memmem is not).
  auto has_backslash_dot = [&] {
    for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\\', b + n - p))) != nullptr; p++)
      if (p + 1 < b + n && p[1] == '.') return true;
    return false;
  };
  bool plain = !std::memchr(b, '\r', n) && !(format_.csv && std::memchr(b, format_.quote, n)) && !has_backslash_dot();
  if (plain) {
    const char* last = static_cast<const char*>(memrchr(b, '\n', n));
    cut = last ? static_cast<size_t>(last - b) + 1 : 0;
    for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\n', b + cut - p))) != nullptr; p++) records++;
    if (final && cut < n) {  // a last record without a line end
      cut = n;
      records++;
    }
  } else {
    // Only cutting: the records' encoding is checked when they are parsed.
    CopyRecordReader reader(format_, /*check_encoding=*/false);
    reader.Append(std::move(pending_));  // lent, not copied (it may be a gigabyte)
    std::vector<CopyField> fields;
    try {
      while (reader.Next(final, &fields)) {
        cut = reader.position();
        records++;
      }
    } catch (const SqlError&) {
      if (cut == 0) throw;  // else the records before the bad one go first
    }
    bool ended = reader.ended();
    pending_ = reader.TakeBuffer();
    if (ended) {
      ended_ = true;
      pending_.resize(cut);  // the marker and anything after it
    }
  }
  if (cut == 0) {
    // No whole record yet: the first one is all of it (see
    // CopyRecordReader::CheckIncompleteRecord).
    if (pending_.size() > kMaxValueBytes) ThrowCannotEnlarge(kMaxValueBytes, pending_.size() - kMaxValueBytes);
    retry_at_ = std::min<size_t>(2 * pending_.size(), kMaxValueBytes + 1);
    return false;
  }
  retry_at_ = 0;
  block->swap(pending_);
  pending_.assign(*block, cut, std::string::npos);
  block->resize(cut);
  *first_record = records_;
  records_ += records;
  return true;
}

std::string EscapeCopyText(const std::string& s, char delimiter) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c == delimiter) out.push_back('\\');
        out.push_back(c);
    }
  }
  return out;
}

std::string QuoteCopyCsv(const std::string& s, const CopyFormat& f, bool force) {
  bool needs = force || s.empty() || s.find_first_of(std::string(1, f.delimiter) + f.quote + "\r\n") != std::string::npos ||
               s == f.null_string;
  if (!needs) return s;
  std::string out(1, f.quote);
  for (char c : s) {
    if (c == f.quote || c == f.escape) out.push_back(f.escape);
    out.push_back(c);
  }
  out.push_back(f.quote);
  return out;
}

namespace {
constexpr char kBinarySignature[] = "PGCOPY\n\377\r\n";  // and a NUL: 11 bytes
constexpr size_t kSignatureSize = 11;

[[noreturn]] void ThrowBadBinary(const std::string& message) {
  throw SqlError(sqlstate::kBadCopyFileFormat, message);
}
}  // namespace

void BinaryCopyReader::Append(std::string_view data) {
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(data);
}

bool BinaryCopyReader::Next(bool final, std::vector<CopyField>* fields) {
  if (ended_) return false;
  const char* b = buf_.data();
  size_t avail = buf_.size() - pos_;
  auto short_data = [&]() -> bool {
    if (final) ThrowBadBinary("unexpected EOF in COPY data");
    return false;
  };
  if (!header_read_) {
    if (avail < kSignatureSize + 8) return short_data();
    if (std::memcmp(b + pos_, kBinarySignature, kSignatureSize) != 0) ThrowBadBinary("COPY file signature not recognized");
    uint32_t flags = GetFixed32BE(b + pos_ + kSignatureSize);
    if (flags & (1u << 16)) ThrowBadBinary("invalid COPY file header (WITH OIDS)");
    if (flags & 0xffff0000u & ~(1u << 16)) ThrowBadBinary("unrecognized critical flags in COPY file header");
    uint32_t extension = GetFixed32BE(b + pos_ + kSignatureSize + 4);
    // (It is buffered whole before it is skipped: no more than a value.)
    if (extension > kMaxValueBytes) ThrowBadBinary("invalid COPY file header (wrong length)");
    if (avail < kSignatureSize + 8 + size_t(extension)) return short_data();
    pos_ += kSignatureSize + 8 + extension;
    header_read_ = true;
    avail = buf_.size() - pos_;
  }
  if (final && avail == 0) {
    // The data ends between tuples without the -1 trailer: PostgreSQL's
    // CopyReadBinaryTuple takes that as the end (pgx sends no trailer).
    ended_ = true;
    return false;
  }
  if (avail < 2) return short_data();
  int16_t count = static_cast<int16_t>(GetFixed16BE(b + pos_));
  if (count == -1) {
    ended_ = true;
    pos_ += 2;
    return false;
  }
  if (count < 0) ThrowBadBinary("row field count is " + std::to_string(count) + ", expected at least 0");
  // All of the tuple must be here before any field is handed out.
  size_t p = pos_ + 2;
  fields->clear();
  for (int16_t i = 0; i < count; i++) {
    if (buf_.size() - p < 4) return short_data();
    int32_t len = static_cast<int32_t>(GetFixed32BE(b + p));
    p += 4;
    if (len == -1) {
      fields->push_back({std::string_view(), true});
      continue;
    }
    if (len < 0) ThrowBadBinary("invalid field size");
    // A tuple is buffered whole: no larger than a value can be (each field
    // is, in PostgreSQL, read into a string buffer of at most 1 GB).
    CheckEnlarge(p - pos_, static_cast<uint64_t>(len));
    if (buf_.size() - p < size_t(len)) return short_data();
    fields->push_back({std::string_view(b + p, size_t(len)), false});
    p += size_t(len);
  }
  pos_ = p;
  return true;
}

std::string BinaryCopyHeader() {
  std::string h(kBinarySignature, kSignatureSize);
  h.append(8, '\0');  // no flags, no header extension
  return h;
}

std::string BinaryCopyTrailer() { return std::string("\xff\xff", 2); }

}  // namespace freshet
