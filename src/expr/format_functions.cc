// PostgreSQL's template formatting: to_char(timestamp|timestamptz, text),
// to_timestamp(text, text) and to_date(text, text).
//
// A template is cut into keywords (YYYY, MM, DD, HH24, HH12, MI, SS, MS, US,
// AM/PM, Mon/Month/Day/Dy in their three spellings, DDD, D, ID, Q, CC, J,
// TZ, OF), an optional FM prefix (no padding) and TH/th suffix (ordinals);
// double-quoted text and any other character are literals. Parsing follows
// PostgreSQL's lenient mode: numbers are read greedily, a literal in the
// template skips one input character, spaces skip spaces.

#include <fmt/format.h>

#include <array>
#include <cctype>

#include "common/error.h"
#include "common/limits.h"
#include "expr/function_helpers.h"

namespace freshet {

namespace {

constexpr uint64_t kMaxToCharBytesPerChar = 12;  // DCH_MAX_ITEM_SIZ

enum class Field {
  kLiteral, kYYYY, kYYY, kYY, kY, kMM, kDD, kDDD, kD, kID, kHH24, kHH12, kMI, kSS, kMS, kUS,
  kAmUpper, kAmLower, kAmDotUpper, kAmDotLower, kMonthUpper, kMonthCap, kMonthLower, kMonUpper, kMonCap,
  kMonLower, kDayUpper, kDayCap, kDayLower, kDyUpper, kDyCap, kDyLower, kQ, kCC, kJ, kTZUpper, kTZLower, kOF
};

struct Item {
  Field field = Field::kLiteral;
  std::string literal;
  bool fill_mode = false;  // FM: no padding
  bool ordinal_upper = false, ordinal_lower = false;  // TH / th
};

struct Keyword {
  const char* text;
  Field field;
};

// Longest spellings first, so that "HH24" wins over "HH" and "MONTH" over "MON".
constexpr std::array<Keyword, 46> kKeywords = {{
    {"A.M.", Field::kAmDotUpper}, {"P.M.", Field::kAmDotUpper}, {"a.m.", Field::kAmDotLower},
    {"p.m.", Field::kAmDotLower}, {"MONTH", Field::kMonthUpper}, {"Month", Field::kMonthCap},
    {"month", Field::kMonthLower}, {"HH24", Field::kHH24}, {"hh24", Field::kHH24}, {"HH12", Field::kHH12},
    {"hh12", Field::kHH12}, {"YYYY", Field::kYYYY}, {"yyyy", Field::kYYYY}, {"YYY", Field::kYYY},
    {"yyy", Field::kYYY}, {"MON", Field::kMonUpper}, {"Mon", Field::kMonCap}, {"mon", Field::kMonLower},
    {"DAY", Field::kDayUpper}, {"Day", Field::kDayCap}, {"day", Field::kDayLower}, {"DDD", Field::kDDD},
    {"ddd", Field::kDDD}, {"HH", Field::kHH12}, {"hh", Field::kHH12}, {"MI", Field::kMI}, {"mi", Field::kMI},
    {"SS", Field::kSS}, {"ss", Field::kSS}, {"MS", Field::kMS}, {"ms", Field::kMS}, {"US", Field::kUS},
    {"us", Field::kUS}, {"AM", Field::kAmUpper}, {"PM", Field::kAmUpper}, {"am", Field::kAmLower},
    {"pm", Field::kAmLower}, {"YY", Field::kYY}, {"yy", Field::kYY}, {"MM", Field::kMM}, {"mm", Field::kMM},
    {"DD", Field::kDD}, {"dd", Field::kDD}, {"DY", Field::kDyUpper}, {"Dy", Field::kDyCap}, {"dy", Field::kDyLower},
}};

// Cuts a template into items, calling each(const Item&) for each in order
// (one at a time: a template may be long, and its items are not kept).
template <typename Each>
void ForEachTemplateItem(std::string_view f, Each&& each) {
  size_t i = 0;
  while (i < f.size()) {
    Item item;
    if (f.substr(i, 2) == "FM" || f.substr(i, 2) == "fm") {
      item.fill_mode = true;
      i += 2;
      if (i == f.size()) break;  // a trailing FM modifies nothing
    }
    if (f[i] == '"') {
      size_t end = i + 1;
      std::string text;
      while (end < f.size() && f[end] != '"') {
        if (f[end] == '\\' && end + 1 < f.size()) end++;
        text.push_back(f[end++]);
      }
      each(Item{Field::kLiteral, text});
      i = end + 1;
      continue;
    }
    bool matched = false;
    auto try_kw = [&](const char* text, Field field) {
      size_t n = std::char_traits<char>::length(text);
      if (f.substr(i, n) != text) return false;
      item.field = field;
      i += n;
      return true;
    };
    for (const auto& kw : kKeywords)
      if ((matched = try_kw(kw.text, kw.field))) break;
    if (!matched) {
      matched = try_kw("Y", Field::kY) || try_kw("y", Field::kY) || try_kw("D", Field::kD) || try_kw("d", Field::kD) ||
                try_kw("ID", Field::kID) || try_kw("Q", Field::kQ) || try_kw("CC", Field::kCC) ||
                try_kw("J", Field::kJ) || try_kw("TZ", Field::kTZUpper) || try_kw("tz", Field::kTZLower) ||
                try_kw("OF", Field::kOF);
    }
    if (!matched) {
      item.field = Field::kLiteral;
      item.literal = std::string(1, f[i]);
      if (f[i] == '\\' && i + 1 < f.size()) item.literal = std::string(1, f[++i]);
      i++;
      each(item);
      continue;
    }
    if (f.substr(i, 2) == "TH") { item.ordinal_upper = true; i += 2; }
    else if (f.substr(i, 2) == "th") { item.ordinal_lower = true; i += 2; }
    each(item);
  }
}

const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};
const char* const kDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

std::string Cased(std::string s, int mode) {  // 0 upper, 1 capitalized, 2 lower
  for (size_t i = 0; i < s.size(); i++) {
    if (mode == 0 || (mode == 2) || i > 0)
      s[i] = static_cast<char>(mode == 0 ? std::toupper(static_cast<unsigned char>(s[i])) : std::tolower(static_cast<unsigned char>(s[i])));
  }
  return s;
}

std::string Ordinal(int64_t n, bool upper) {
  int64_t last = n % 10, tens = n % 100;
  const char* s = (tens >= 11 && tens <= 13) ? "th" : last == 1 ? "st" : last == 2 ? "nd" : last == 3 ? "rd" : "th";
  return upper ? Cased(s, 0) : s;
}

// Formats `local` (microseconds, wall clock) with the template; `offset`
// is the zone offset in seconds and `zone` its name (timestamptz only).
std::string FormatWithTemplate(int64_t local, std::string_view templ, std::optional<int64_t> offset,
                               const std::string& zone) {
  int64_t days = local >= 0 ? local / kMicrosPerDay : -((-local + kMicrosPerDay - 1) / kMicrosPerDay);
  int64_t tod = local - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t hour = tod / kMicrosPerHour, minute = tod / kMicrosPerMinute % 60, second = tod / kMicrosPerSecond % 60;
  int64_t micros = tod % kMicrosPerSecond;
  int64_t dow = ((days % 7) + 11) % 7;  // 1970-01-01 was a Thursday (4)
  int64_t doy = days - DaysFromCivil(y, 1, 1) + 1;
  // PostgreSQL reserves DCH_MAX_ITEM_SIZ (12) bytes of output a template
  // character, and so refuses a template of more than a twelfth of the
  // limit on a value; no keyword gives more than that here.
  CheckValueSize(SaturatingMul(templ.size(), kMaxToCharBytesPerChar));
  std::string out;
  ForEachTemplateItem(templ, [&](const Item& it) {
    auto num = [&](int64_t v, int width) {
      std::string s = it.fill_mode ? std::to_string(v) : fmt::format("{:0{}}", v, width);
      if (it.ordinal_upper || it.ordinal_lower) s += Ordinal(v, it.ordinal_upper);
      out += s;
    };
    auto word = [&](const std::string& w, int mode, size_t pad) {
      std::string s = Cased(w, mode);
      if (!it.fill_mode && s.size() < pad) s.append(pad - s.size(), ' ');
      out += s;
    };
    switch (it.field) {
      case Field::kLiteral: out += it.literal; break;
      case Field::kYYYY: num(y, 4); break;
      case Field::kYYY: num(y % 1000, 3); break;
      case Field::kYY: num(y % 100, 2); break;
      case Field::kY: num(y % 10, 1); break;
      case Field::kMM: num(m, 2); break;
      case Field::kDD: num(d, 2); break;
      case Field::kDDD: num(doy, 3); break;
      case Field::kD: num(dow + 1, 1); break;
      case Field::kID: num(dow == 0 ? 7 : dow, 1); break;
      case Field::kHH24: num(hour, 2); break;
      case Field::kHH12: num(hour % 12 == 0 ? 12 : hour % 12, 2); break;
      case Field::kMI: num(minute, 2); break;
      case Field::kSS: num(second, 2); break;
      case Field::kMS: num(micros / 1000, 3); break;
      case Field::kUS: num(micros, 6); break;
      case Field::kAmUpper: out += hour < 12 ? "AM" : "PM"; break;
      case Field::kAmLower: out += hour < 12 ? "am" : "pm"; break;
      case Field::kAmDotUpper: out += hour < 12 ? "A.M." : "P.M."; break;
      case Field::kAmDotLower: out += hour < 12 ? "a.m." : "p.m."; break;
      case Field::kMonthUpper: word(kMonths[m - 1], 0, 9); break;
      case Field::kMonthCap: word(kMonths[m - 1], 1, 9); break;
      case Field::kMonthLower: word(kMonths[m - 1], 2, 9); break;
      case Field::kMonUpper: out += Cased(std::string(kMonths[m - 1]).substr(0, 3), 0); break;
      case Field::kMonCap: out += std::string(kMonths[m - 1]).substr(0, 3); break;
      case Field::kMonLower: out += Cased(std::string(kMonths[m - 1]).substr(0, 3), 2); break;
      case Field::kDayUpper: word(kDays[dow], 0, 9); break;
      case Field::kDayCap: word(kDays[dow], 1, 9); break;
      case Field::kDayLower: word(kDays[dow], 2, 9); break;
      case Field::kDyUpper: out += Cased(std::string(kDays[dow]).substr(0, 3), 0); break;
      case Field::kDyCap: out += std::string(kDays[dow]).substr(0, 3); break;
      case Field::kDyLower: out += Cased(std::string(kDays[dow]).substr(0, 3), 2); break;
      case Field::kQ: num((m - 1) / 3 + 1, 1); break;
      case Field::kCC: num(y > 0 ? (y + 99) / 100 : -((99 - y) / 100), 2); break;
      case Field::kJ: num(days + 2440588, 1); break;
      case Field::kTZUpper: out += offset ? Cased(zone, 0) : ""; break;
      case Field::kTZLower: out += offset ? Cased(zone, 2) : ""; break;
      case Field::kOF:
        if (offset) {
          int64_t o = *offset;
          out += fmt::format("{}{:02}", o < 0 ? '-' : '+', std::abs(o) / 3600);
          if (std::abs(o) % 3600) out += fmt::format(":{:02}", std::abs(o) % 3600 / 60);
        }
        break;
    }
  });
  return out;
}

[[noreturn]] void BadInput(std::string_view text, std::string_view what) {
  FRESHET_THROW(sqlstate::kInvalidDatetimeFormat, "invalid value \"{}\" for \"{}\"", text, what);
}

// Parses text with a template into a wall-clock timestamp (microseconds).
int64_t ParseWithTemplate(std::string_view text, std::string_view templ) {
  int64_t year = 1, month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0, doy = -1;
  int pm = -1;  // -1 unknown, 0 AM, 1 PM
  bool hour12 = false;
  size_t p = 0;
  auto skip_spaces = [&] { while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) p++; };
  auto read_number = [&](int max_digits, const char* name) -> int64_t {
    skip_spaces();
    size_t start = p;
    bool neg = p < text.size() && text[p] == '-';
    if (neg) p++;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) &&
           static_cast<int>(p - start - neg) < max_digits)
      p++;
    if (p == start + neg) BadInput(text.substr(start, std::min<size_t>(text.size() - start, 8)), name);
    int64_t v = std::stoll(std::string(text.substr(start, p - start)));
    return v;
  };
  auto read_name = [&](const char* const* names, size_t count, bool abbrev, const char* what) -> int64_t {
    skip_spaces();
    for (size_t k = 0; k < count; k++) {
      std::string full = names[k];
      std::string cand = abbrev ? full.substr(0, 3) : full;
      if (text.size() - p >= cand.size()) {
        bool eq = true;
        for (size_t c = 0; c < cand.size() && eq; c++)
          eq = std::tolower(static_cast<unsigned char>(text[p + c])) == std::tolower(static_cast<unsigned char>(cand[c]));
        if (eq) {
          p += cand.size();
          return static_cast<int64_t>(k);
        }
      }
    }
    BadInput(text.substr(p), what);
  };
  ForEachTemplateItem(templ, [&](const Item& it) {
    switch (it.field) {
      case Field::kLiteral:
        if (it.literal == " ") skip_spaces();
        else if (p < text.size()) p++;
        break;
      case Field::kYYYY: year = read_number(9, "YYYY"); break;
      case Field::kYYY: year = 2000 + read_number(3, "YYY"); break;
      case Field::kYY: { int64_t v = read_number(2, "YY"); year = v < 70 ? 2000 + v : 1900 + v; break; }
      case Field::kY: year = 2000 + read_number(1, "Y"); break;
      case Field::kMM: month = read_number(2, "MM"); break;
      case Field::kDD: day = read_number(2, "DD"); break;
      case Field::kDDD: doy = read_number(3, "DDD"); break;
      case Field::kHH24: hour = read_number(2, "HH24"); break;
      case Field::kHH12: hour = read_number(2, "HH12"); hour12 = true; break;
      case Field::kMI: minute = read_number(2, "MI"); break;
      case Field::kSS: second = read_number(2, "SS"); break;
      case Field::kMS: micros = read_number(3, "MS") * 1000; break;
      case Field::kUS: micros = read_number(6, "US"); break;
      case Field::kAmUpper:
      case Field::kAmLower:
      case Field::kAmDotUpper:
      case Field::kAmDotLower: {
        skip_spaces();
        std::string rest(text.substr(p, 4));
        for (auto& c : rest) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (rest.rfind("A.M.", 0) == 0 || rest.rfind("P.M.", 0) == 0) { pm = rest[0] == 'P'; p += 4; }
        else if (rest.rfind("AM", 0) == 0 || rest.rfind("PM", 0) == 0) { pm = rest[0] == 'P'; p += 2; }
        else BadInput(text.substr(p), "AM/PM");
        break;
      }
      case Field::kMonthUpper:
      case Field::kMonthCap:
      case Field::kMonthLower: month = read_name(kMonths, 12, false, "Month") + 1; break;
      case Field::kMonUpper:
      case Field::kMonCap:
      case Field::kMonLower: month = read_name(kMonths, 12, true, "Mon") + 1; break;
      case Field::kDayUpper:
      case Field::kDayCap:
      case Field::kDayLower: read_name(kDays, 7, false, "Day"); break;
      case Field::kDyUpper:
      case Field::kDyCap:
      case Field::kDyLower: read_name(kDays, 7, true, "Dy"); break;
      default: read_number(9, "field"); break;  // parsed and ignored (D, ID, Q, CC, J, TZ, OF)
    }
  });
  if (hour12) {
    if (hour < 1 || hour > 12)
      FRESHET_THROW(sqlstate::kDatetimeFieldOverflow, "hour \"{}\" is invalid for the 12-hour clock", hour);
    if (pm == 1 && hour < 12) hour += 12;
    if (pm == 0 && hour == 12) hour = 0;
  } else if (pm == 1 && hour < 12) {
    hour += 12;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60)
    FRESHET_THROW(sqlstate::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", text);
  int64_t days = doy > 0 ? DaysFromCivil(year, 1, 1) + doy - 1 : DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  unsigned check_m, check_d;
  int64_t check_y;
  CivilFromDays(days, &check_y, &check_m, &check_d);
  if (doy <= 0 && (check_m != month || check_d != day))
    FRESHET_THROW(sqlstate::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", text);
  return days * kMicrosPerDay + hour * kMicrosPerHour + minute * kMicrosPerMinute + second * kMicrosPerSecond + micros;
}

}  // namespace

void RegisterFormatFunctions(FunctionRegistry* r) {
  DataType v = DataType::Varchar(), ts = DataType::Timestamp(), tstz = DataType::Timestamptz(), date = DataType::Date();
  // to_char of an infinite timestamp is NULL, as PostgreSQL's.
  RegisterFn(r, "to_char", {ts, v}, v, StrictFn<int64_t, std::string_view>([](int64_t t, std::string_view f) -> std::optional<std::string> {
               if (!IsFiniteDatetime(t)) return std::nullopt;
               return FormatWithTemplate(t, f, std::nullopt, "");
             }));
  RegisterFn(r, "to_char", {tstz, v}, v,
             StrictCtxFn<int64_t, std::string_view>([](EvalContext& ctx, int64_t t, std::string_view f) -> std::optional<std::string> {
               if (!IsFiniteDatetime(t)) return std::nullopt;
               int64_t offset = ctx.time_zone.OffsetAtUtc(t);
               return FormatWithTemplate(t + offset * kMicrosPerSecond, f, offset, ctx.time_zone.name());
             }));
  RegisterFn(r, "to_timestamp", {v, v}, tstz,
             StrictCtxFn<std::string_view, std::string_view>([](EvalContext& ctx, std::string_view s, std::string_view f) {
               return ctx.time_zone.LocalToUtc(ParseWithTemplate(s, f));
             }));
  RegisterFn(r, "to_date", {v, v}, date, StrictFn<std::string_view, std::string_view>([](std::string_view s, std::string_view f) {
               int64_t t = ParseWithTemplate(s, f);
               return t >= 0 ? t / kMicrosPerDay : -((-t + kMicrosPerDay - 1) / kMicrosPerDay);
             }));
}

}  // namespace freshet
