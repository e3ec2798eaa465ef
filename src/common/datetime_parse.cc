// Date, time and timestamp text: PostgreSQL's token tables, ParseDateTime
// and DecodeDateTime / DecodeTimeOnly, and the output formats.

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

namespace freshet::datetime_detail {


const TokenTable& DateTokens() {
  static const TokenTable table = {
      {"-infinity", {RESERV, kEarly}},
      {"ad", {ADBC, kAd}},
      {"allballs", {RESERV, kZulu}},
      {"am", {AMPM, kAm}},
      {"apr", {MONTH, 4}},
      {"april", {MONTH, 4}},
      {"at", {IGNORE_DTF, 0}},
      {"aug", {MONTH, 8}},
      {"august", {MONTH, 8}},
      {"bc", {ADBC, kBc}},
      {"d", {UNITS, kDay}},
      {"dec", {MONTH, 12}},
      {"december", {MONTH, 12}},
      {"dow", {UNITS, kDow}},
      {"doy", {UNITS, kDoy}},
      {"dst", {DTZMOD, 3600}},
      {"epoch", {RESERV, kEpoch}},
      {"feb", {MONTH, 2}},
      {"february", {MONTH, 2}},
      {"fri", {DOW, 5}},
      {"friday", {DOW, 5}},
      {"h", {UNITS, kHour}},
      {"infinity", {RESERV, kLate}},
      {"isodow", {UNITS, kIsodow}},
      {"isoyear", {UNITS, kIsoyear}},
      {"j", {UNITS, kJulian}},
      {"jan", {MONTH, 1}},
      {"january", {MONTH, 1}},
      {"jd", {UNITS, kJulian}},
      {"jul", {MONTH, 7}},
      {"julian", {UNITS, kJulian}},
      {"july", {MONTH, 7}},
      {"jun", {MONTH, 6}},
      {"june", {MONTH, 6}},
      {"m", {UNITS, kMonth}},
      {"mar", {MONTH, 3}},
      {"march", {MONTH, 3}},
      {"may", {MONTH, 5}},
      {"mm", {UNITS, kMinute}},
      {"mon", {DOW, 1}},
      {"monday", {DOW, 1}},
      {"nov", {MONTH, 11}},
      {"november", {MONTH, 11}},
      {"now", {RESERV, kNow}},
      {"oct", {MONTH, 10}},
      {"october", {MONTH, 10}},
      {"on", {IGNORE_DTF, 0}},
      {"pm", {AMPM, kPm}},
      {"s", {UNITS, kSecond}},
      {"sat", {DOW, 6}},
      {"saturday", {DOW, 6}},
      {"sep", {MONTH, 9}},
      {"sept", {MONTH, 9}},
      {"september", {MONTH, 9}},
      {"sun", {DOW, 0}},
      {"sunday", {DOW, 0}},
      {"t", {ISOTIME, 0}},
      {"thu", {DOW, 4}},
      {"thur", {DOW, 4}},
      {"thurs", {DOW, 4}},
      {"thursday", {DOW, 4}},
      {"today", {RESERV, kToday}},
      {"tomorrow", {RESERV, kTomorrow}},
      {"tue", {DOW, 2}},
      {"tues", {DOW, 2}},
      {"tuesday", {DOW, 2}},
      {"wed", {DOW, 3}},
      {"wednesday", {DOW, 3}},
      {"weds", {DOW, 3}},
      {"y", {UNITS, kYear}},
      {"yesterday", {RESERV, kYesterday}},
  };
  return table;
}

const TokenTable& DeltaTokens() {
  static const TokenTable table = {
      {"@", {IGNORE_DTF, 0}},
      {"ago", {AGO, 0}},
      {"c", {UNITS, kCentury}},
      {"cent", {UNITS, kCentury}},
      {"centuries", {UNITS, kCentury}},
      {"century", {UNITS, kCentury}},
      {"d", {UNITS, kDay}},
      {"day", {UNITS, kDay}},
      {"days", {UNITS, kDay}},
      {"dec", {UNITS, kDecade}},
      {"decade", {UNITS, kDecade}},
      {"decades", {UNITS, kDecade}},
      {"decs", {UNITS, kDecade}},
      {"h", {UNITS, kHour}},
      {"hour", {UNITS, kHour}},
      {"hours", {UNITS, kHour}},
      {"hr", {UNITS, kHour}},
      {"hrs", {UNITS, kHour}},
      {"invalid", {RESERV, kInvalid}},
      {"m", {UNITS, kMinute}},
      {"microsecon", {UNITS, kMicrosec}},
      {"mil", {UNITS, kMillennium}},
      {"millennia", {UNITS, kMillennium}},
      {"millennium", {UNITS, kMillennium}},
      {"millisecon", {UNITS, kMillisec}},
      {"mils", {UNITS, kMillennium}},
      {"min", {UNITS, kMinute}},
      {"mins", {UNITS, kMinute}},
      {"minute", {UNITS, kMinute}},
      {"minutes", {UNITS, kMinute}},
      {"mon", {UNITS, kMonth}},
      {"mons", {UNITS, kMonth}},
      {"month", {UNITS, kMonth}},
      {"months", {UNITS, kMonth}},
      {"ms", {UNITS, kMillisec}},
      {"msec", {UNITS, kMillisec}},
      {"msecond", {UNITS, kMillisec}},
      {"mseconds", {UNITS, kMillisec}},
      {"msecs", {UNITS, kMillisec}},
      {"qtr", {UNITS, kQuarter}},
      {"quarter", {UNITS, kQuarter}},
      {"s", {UNITS, kSecond}},
      {"sec", {UNITS, kSecond}},
      {"second", {UNITS, kSecond}},
      {"seconds", {UNITS, kSecond}},
      {"secs", {UNITS, kSecond}},
      {"timezone", {UNITS, kTz}},
      {"timezone_h", {UNITS, kTzHour}},
      {"timezone_m", {UNITS, kTzMinute}},
      {"us", {UNITS, kMicrosec}},
      {"usec", {UNITS, kMicrosec}},
      {"usecond", {UNITS, kMicrosec}},
      {"useconds", {UNITS, kMicrosec}},
      {"usecs", {UNITS, kMicrosec}},
      {"w", {UNITS, kWeek}},
      {"week", {UNITS, kWeek}},
      {"weeks", {UNITS, kWeek}},
      {"y", {UNITS, kYear}},
      {"year", {UNITS, kYear}},
      {"years", {UNITS, kYear}},
      {"yr", {UNITS, kYear}},
      {"yrs", {UNITS, kYear}},
  };
  return table;
}

// Time zone abbreviations accepted in input (a subset of PostgreSQL's
// "Default" set), as seconds east of UTC.
const std::unordered_map<std::string_view, int64_t>& ZoneAbbrevs() {
  static const std::unordered_map<std::string_view, int64_t> table = {
      {"utc", 0},          {"ut", 0},           {"gmt", 0},          {"z", 0},
      {"zulu", 0},         {"est", -5 * 3600},  {"edt", -4 * 3600},  {"cst", -6 * 3600},
      {"cdt", -5 * 3600},  {"mst", -7 * 3600},  {"mdt", -6 * 3600},  {"pst", -8 * 3600},
      {"pdt", -7 * 3600},  {"akst", -9 * 3600}, {"akdt", -8 * 3600}, {"hst", -10 * 3600},
      {"ast", -4 * 3600},  {"adt", -3 * 3600},  {"nst", -12600},     {"ndt", -9000},
      {"wet", 0},          {"west", 3600},      {"bst", 3600},       {"cet", 3600},
      {"cest", 2 * 3600},  {"met", 3600},       {"mest", 2 * 3600},  {"eet", 2 * 3600},
      {"eest", 3 * 3600},  {"msk", 3 * 3600},   {"ist", 2 * 3600},   {"jst", 9 * 3600},
      {"kst", 9 * 3600},   {"hkt", 8 * 3600},   {"sgt", 8 * 3600},   {"awst", 8 * 3600},
      {"acst", 34200},     {"acdt", 37800},     {"aest", 10 * 3600}, {"aedt", 11 * 3600},
      {"nzst", 12 * 3600}, {"nzdt", 13 * 3600},
  };
  return table;
}

// PostgreSQL compares at most TOKMAXLEN (10) characters of a token.
std::string_view TokenKey(std::string_view s) { return s.substr(0, 10); }

Token LookupToken(const TokenTable& table, std::string_view lower) {
  auto it = table.find(TokenKey(lower));
  return it == table.end() ? Token{UNKNOWN_FIELD, 0} : it->second;
}

Token DecodeSpecial(std::string_view lower) { return LookupToken(DateTokens(), lower); }
Token DecodeUnits(std::string_view lower) { return LookupToken(DeltaTokens(), lower); }


int ParseDateTime(std::string_view s, std::vector<Field>* fields) {
  size_t i = 0;
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  while (i < s.size()) {
    char c = s[i];
    if (IsSpace(c)) {
      i++;
      continue;
    }
    if (int(fields->size()) >= kMaxDateFields) return kDtBadFormat;
    Field f{"", DTK_NUMBER};
    if (IsDigit(c)) {
      while (IsDigit(at(i))) f.text += s[i++];
      if (at(i) == ':') {  // time field
        f.type = DTK_TIME;
        while (IsDigit(at(i)) || at(i) == ':' || at(i) == '.') f.text += s[i++];
      } else if (at(i) == '-' || at(i) == '/' || at(i) == '.') {  // date, maybe with text month
        char delim = s[i];
        f.text += s[i++];
        if (IsDigit(at(i))) {
          f.type = delim == '.' ? DTK_NUMBER : DTK_DATE;
          while (IsDigit(at(i))) f.text += s[i++];
          if (at(i) == delim) {  // three fields need matching delimiters
            f.type = DTK_DATE;
            while (IsDigit(at(i)) || at(i) == delim) f.text += s[i++];
          }
        } else {
          f.type = DTK_DATE;
          while (IsAlnum(at(i)) || at(i) == delim) f.text += ToLowerChar(s[i++]);
        }
      }
    } else if (c == '.') {  // leading decimal point: fractional seconds
      f.text += s[i++];
      while (IsDigit(at(i))) f.text += s[i++];
    } else if (IsAlpha(c)) {
      f.type = DTK_STRING;
      while (IsAlpha(at(i))) f.text += ToLowerChar(s[i++]);
      // A date with a text month, or a zone name like America/New_York or
      // Etc/GMT+5, unless the word so far is a known keyword.
      bool is_date = at(i) == '-' || at(i) == '/' || at(i) == '.';
      if (!is_date && (at(i) == '+' || IsDigit(at(i)))) {
        is_date = DecodeSpecial(f.text).type == UNKNOWN_FIELD;
      }
      if (is_date) {
        f.type = DTK_DATE;
        do {
          f.text += ToLowerChar(s[i++]);
        } while (at(i) == '+' || at(i) == '-' || at(i) == '/' || at(i) == '_' || at(i) == '.' ||
                 at(i) == ':' || IsAlnum(at(i)));
      }
    } else if (c == '+' || c == '-') {  // signed number or zone, or a special like -infinity
      f.text += s[i++];
      while (IsSpace(at(i))) i++;
      if (IsDigit(at(i))) {
        f.type = DTK_TZ;
        f.text += s[i++];
        while (IsDigit(at(i)) || at(i) == ':' || at(i) == '.' || at(i) == '-') f.text += s[i++];
      } else if (IsAlpha(at(i))) {
        f.type = DTK_SPECIAL;
        while (IsAlpha(at(i))) f.text += ToLowerChar(s[i++]);
      } else {
        return kDtBadFormat;
      }
    } else if (std::ispunct(static_cast<unsigned char>(c))) {
      i++;  // other punctuation only separates fields
      continue;
    } else {
      return kDtBadFormat;
    }
    fields->push_back(std::move(f));
  }
  return kDtOk;
}

// strtol-like: parses an optionally signed integer prefix; false on overflow.
bool ParseInt(const char* p, const char** end, int64_t max_abs, int64_t* out) {
  const char* q = p;
  bool neg = false;
  if (*q == '+' || *q == '-') neg = *q++ == '-';
  int64_t v = 0;
  const char* digits = q;
  while (IsDigit(*q)) {
    if (v > (max_abs - (*q - '0')) / 10) return false;
    v = v * 10 + (*q++ - '0');
  }
  *end = q == digits ? p : q;
  *out = neg ? -v : v;
  return true;
}

// ".123" -> microseconds, rounded like PostgreSQL (rint of the double).
int ParseFractionalSecond(const char* cp, int64_t* fsec) {
  if (cp[1] == '\0') {  // a bare "." is zero
    *fsec = 0;
    return kDtOk;
  }
  char* end;
  double frac = std::strtod(cp, &end);
  if (*end != '\0') return kDtBadFormat;
  *fsec = int64_t(std::rint(frac * 1000000));
  return kDtOk;
}

// PostgreSQL's DecodeTimeCommon: "hh:mm", "hh:mm:ss[.f]", "mm:ss.f".
int DecodeTimeCommon(const std::string& str, Range range, TimeFields* t) {
  const char* cp;
  int64_t v;
  if (!ParseInt(str.c_str(), &cp, INT64_MAX, &t->hour)) return kDtFieldOverflow;
  if (*cp != ':') return kDtBadFormat;
  if (!ParseInt(cp + 1, &cp, INT_MAX, &v)) return kDtFieldOverflow;
  t->min = int(v);
  t->sec = 0;
  t->fsec = 0;
  auto minutes_seconds = [&] {  // reinterpret hh:mm as mm:ss
    if (t->hour > INT_MAX || t->hour < INT_MIN) return false;
    t->sec = t->min;
    t->min = int(t->hour);
    t->hour = 0;
    return true;
  };
  if (*cp == '\0') {
    if (range == Range::kMinuteToSecond && !minutes_seconds()) return kDtFieldOverflow;
  } else if (*cp == '.') {
    if (int err = ParseFractionalSecond(cp, &t->fsec)) return err;
    if (!minutes_seconds()) return kDtFieldOverflow;
  } else if (*cp == ':') {
    if (!ParseInt(cp + 1, &cp, INT_MAX, &v)) return kDtFieldOverflow;
    t->sec = int(v);
    if (*cp == '.') {
      if (int err = ParseFractionalSecond(cp, &t->fsec)) return err;
    } else if (*cp != '\0') {
      return kDtBadFormat;
    }
  } else {
    return kDtBadFormat;
  }
  if (t->hour < 0 || t->min < 0 || t->min > 59 || t->sec < 0 || t->sec > 60 || t->fsec < 0 ||
      t->fsec > kMicrosPerSecond) {
    return kDtFieldOverflow;
  }
  return kDtOk;
}

bool TimeOverflows(const Tm& tm) {
  if (tm.hour < 0 || tm.hour > 24 || tm.min < 0 || tm.min > 59 || tm.sec < 0 || tm.sec > 60 || tm.fsec < 0 ||
      tm.fsec > kMicrosPerSecond) {
    return true;
  }
  return TimeOfDay(tm) > kMicrosPerDay;
}

// Whether a zone has always had one offset (UTC, Etc/GMT+5), sampled at the
// ends of the supported range and in two seasons of a far-future year.
bool HasConstantOffset(const TimeZone& tz) {
  constexpr int64_t kJan2200 = CivilToDays(2200, 1, 1) * kMicrosPerDay;
  constexpr int64_t kJul2200 = CivilToDays(2200, 7, 1) * kMicrosPerDay;
  int64_t first = tz.OffsetAtUtc(kMinTimestamp);
  return tz.OffsetAtUtc(0) == first && tz.OffsetAtUtc(kJan2200) == first && tz.OffsetAtUtc(kJul2200) == first;
}


class DateTimeDecoder {
 public:
  DateTimeDecoder(std::vector<Field> fields, bool time_only, std::string_view type, const DatetimeClock* clock)
      : f_(std::move(fields)), time_only_(time_only), type_(type), clock_(clock) {}

  int Decode(DecodedDateTime* out) {
    out_ = out;
    Tm& tm = out->tm;
    for (i_ = 0; i_ < int(f_.size()); i_++) {
      int tmask = 0;
      int err = kDtOk;
      switch (f_[i_].type) {
        case DTK_DATE: err = DateField(&tmask); break;
        case DTK_TIME: err = TimeField(&tmask); break;
        case DTK_TZ: err = TzField(&tmask); break;
        case DTK_NUMBER: err = time_only_ ? TimeOnlyNumberField(&tmask) : NumberField(&tmask); break;
        case DTK_STRING:
        case DTK_SPECIAL: err = StringField(&tmask); break;
      }
      if (err == kIgnore) continue;
      if (err != kDtOk) return err;
      if (tmask & fmask_) return kDtBadFormat;
      fmask_ |= tmask;
    }
    if (int err = ValidateDate()) return err;
    if (mer_ != kNoUnit && tm.hour > 12) return kDtFieldOverflow;
    if (mer_ == kAm && tm.hour == 12) tm.hour = 0;
    if (mer_ == kPm && tm.hour != 12) tm.hour += 12;
    if (TimeOverflows(tm)) return kDtFieldOverflow;
    if (time_only_) {
      // A zone with DST or history needs a date to find its offset.
      bool dated = (fmask_ & kDateMask) == kDateMask;
      if (out->zone && !dated && !HasConstantOffset(*out->zone)) return kDtBadFormat;
      return (fmask_ & kTimeMask) == kTimeMask ? kDtOk : kDtBadFormat;
    }
    if (out->special == kNoUnit && (fmask_ & kDateMask) != kDateMask) {
      if ((fmask_ & kTimeMask) == kTimeMask) out->time_only = true;
      return kDtBadFormat;
    }
    return kDtOk;
  }

 private:
  static constexpr int kIgnore = -1;

  const std::string& Text() const { return f_[i_].text; }

  int DateField(int* tmask) {
    const std::string& s = Text();
    if (time_only_) {
      int n = int(f_.size());
      if (i_ == 0 && n >= 2 && (f_[n - 1].type == DTK_DATE || f_[1].type == DTK_TIME)) {
        return DecodeDate(s, tmask);
      }
      if (IsDigit(s[0])) return kDtBadFormat;  // run-together "hhmmss-zz" is not supported
      return ZoneName(s, tmask);
    }
    // With a month and day already known this is a zone name (America/New_York).
    if (ptype_ != 0 || (fmask_ & (M(MONTH) | M(DAY))) == (M(MONTH) | M(DAY))) {
      if (ptype_ != 0 || IsDigit(s[0])) return kDtBadFormat;
      return ZoneName(s, tmask);
    }
    return DecodeDate(s, tmask);
  }

  int ZoneName(const std::string& s, int* tmask) {
    std::optional<TimeZone> zone = TimeZone::Lookup(s);
    if (!zone) ThrowZoneNotRecognized(s);
    out_->zone = zone;
    *tmask = M(TZ);
    return kDtOk;
  }

  int TimeField(int* tmask) {
    if (ptype_ != 0) {
      if (ptype_ != ISOTIME) return kDtBadFormat;
      ptype_ = 0;
    }
    TimeFields t;
    if (int err = DecodeTimeCommon(Text(), Range::kFull, &t)) return err;
    if (t.hour > INT_MAX) return kDtFieldOverflow;
    Tm& tm = out_->tm;
    tm.hour = t.hour;
    tm.min = t.min;
    tm.sec = t.sec;
    tm.fsec = t.fsec;
    *tmask = kTimeMask;
    if (TimeOverflows(tm)) return kDtFieldOverflow;
    return kDtOk;
  }

  int TzField(int* tmask) {
    int64_t east;
    if (int err = DecodeTimezone(Text(), &east)) return err;
    out_->offset = east;
    *tmask = M(TZ);
    return kDtOk;
  }

  // A number after "T" must be hhmmss; labelled forms (y2001m02, J2451187) are not supported.
  int IsoTimeNumber(int* tmask) {
    if (ptype_ != ISOTIME) return kDtBadFormat;
    ptype_ = 0;
    if (int err = DecodeNumberField(Text(), fmask_ | kDateMask, tmask)) return err;
    return *tmask == kTimeMask ? kDtOk : kDtBadFormat;
  }

  int NumberField(int* tmask) {
    const std::string& s = Text();
    if (ptype_ != 0) return IsoTimeNumber(tmask);
    size_t dot = s.find('.');
    int flen = int(s.size());
    if (dot != std::string::npos && !(fmask_ & kDateMask)) return DecodeDate(s, tmask);
    if (dot != std::string::npos && dot > 2) return DecodeNumberField(s, fmask_, tmask);
    if (flen >= 6 && (!(fmask_ & kDateMask) || !(fmask_ & kTimeMask))) {
      return DecodeNumberField(s, fmask_, tmask);
    }
    return DecodeNumber(s, have_text_month_, fmask_, tmask);
  }

  int TimeOnlyNumberField(int* tmask) {
    const std::string& s = Text();
    if (ptype_ != 0) return IsoTimeNumber(tmask);
    size_t dot = s.find('.');
    if (dot != std::string::npos) {
      int n = int(f_.size());
      if (i_ == 0 && n >= 2 && f_[n - 1].type == DTK_DATE) return DecodeDate(s, tmask);
      if (dot > 2) return DecodeNumberField(s, fmask_ | kDateMask, tmask);
      return kDtBadFormat;
    }
    if (s.size() > 4) return DecodeNumberField(s, fmask_ | kDateMask, tmask);
    return DecodeNumber(s, false, fmask_ | kDateMask, tmask);
  }

  int StringField(int* tmask) {
    const std::string& s = Text();
    auto abbrev = ZoneAbbrevs().find(s);
    if (abbrev != ZoneAbbrevs().end()) {  // zone abbreviations take precedence
      out_->offset = abbrev->second;
      *tmask = M(TZ);
      return kDtOk;
    }
    Token tok = DecodeSpecial(s);
    if (tok.type == IGNORE_DTF) return kIgnore;
    *tmask = M(tok.type);
    Tm& tm = out_->tm;
    switch (tok.type) {
      case RESERV: return Reserved(tok.value, tmask);
      case MONTH:
        // "8 January": a number read as the month was really the day.
        if ((fmask_ & M(MONTH)) && !have_text_month_ && !(fmask_ & M(DAY)) && tm.mon >= 1 && tm.mon <= 31) {
          tm.mday = tm.mon;
          *tmask = M(DAY);
        }
        have_text_month_ = true;
        tm.mon = tok.value;
        return kDtOk;
      case AMPM: mer_ = tok.value; return kDtOk;
      case ADBC: bc_ = tok.value == kBc; return kDtOk;
      case DOW: return kDtOk;
      case UNITS:
        *tmask = 0;
        ptype_ = UNITS;
        return kDtOk;
      case ISOTIME: {
        *tmask = 0;
        if ((fmask_ & kDateMask) != kDateMask && !time_only_) return kDtBadFormat;
        bool next_ok =
            i_ + 1 < int(f_.size()) &&
            (f_[i_ + 1].type == DTK_NUMBER || f_[i_ + 1].type == DTK_TIME || f_[i_ + 1].type == DTK_DATE);
        if (!next_ok) return kDtBadFormat;
        ptype_ = ISOTIME;
        return kDtOk;
      }
      case UNKNOWN_FIELD: {  // maybe an all-alpha zone name (Japan)
        std::optional<TimeZone> zone = f_[i_].type == DTK_STRING ? TimeZone::Lookup(s) : std::nullopt;
        if (!zone) return kDtBadFormat;
        out_->zone = zone;
        *tmask = M(TZ);
        return kDtOk;
      }
      default: return kDtBadFormat;  // DTZMOD ("MET DST") is not supported
    }
  }

  int Reserved(int value, int* tmask) {
    Tm& tm = out_->tm;
    switch (value) {
      case kZulu:  // "allballs": midnight UTC
        *tmask = kTimeMask | M(TZ);
        tm.hour = tm.min = tm.sec = 0;
        tm.fsec = 0;
        out_->offset = 0;
        return kDtOk;
      case kEpoch:
      case kLate:
      case kEarly:
        if (time_only_) return kDtBadFormat;
        out_->special = value;
        return kDtOk;
      case kInvalid: return kDtBadFormat;
      case kNow:
      case kToday:
      case kTomorrow:
      case kYesterday: {
        if (!clock_ || !clock_->zone) ThrowSpecialNotSupported(Text(), type_);
        if (time_only_ && value != kNow) return kDtBadFormat;
        // As PostgreSQL's DecodeDateTime: 'now' is the date, time and zone
        // offset of the moment; the others a date, local to the session.
        int64_t offset = clock_->zone->OffsetAtUtc(clock_->now_utc_micros);
        Tm local = MicrosToTm(clock_->now_utc_micros + offset * kMicrosPerSecond);
        if (value == kNow) {
          tm = local;
          out_->offset = offset;
          *tmask = (time_only_ ? 0 : kDateMask) | kTimeMask | M(TZ);
          return kDtOk;
        }
        Civil day = DaysToCivil(CivilToDays(local.year, local.mon, local.mday) + (value == kTomorrow ? 1 : value == kYesterday ? -1 : 0));
        tm.year = day.year;
        tm.mon = day.mon;
        tm.mday = day.mday;
        *tmask = kDateMask;
        return kDtOk;
      }
      default: ThrowSpecialNotSupported(Text(), type_);
    }
  }

  // PostgreSQL's DecodeDate: "2024-01-31", "01/31/2024", "jan-31-2024".
  int DecodeDate(const std::string& str, int* tmask) {
    std::vector<std::string> parts;
    size_t p = 0;
    while (p < str.size()) {
      while (p < str.size() && !IsAlnum(str[p])) p++;
      if (p >= str.size()) return kDtBadFormat;  // separator at the end
      size_t b = p;
      if (IsDigit(str[p])) {
        while (p < str.size() && IsDigit(str[p])) p++;
      } else if (IsAlpha(str[p])) {
        while (p < str.size() && IsAlpha(str[p])) p++;
      }
      parts.push_back(str.substr(b, p - b));
      if (p < str.size()) p++;
    }
    int fmask = fmask_;
    *tmask = 0;
    bool text_month = false;
    for (std::string& part : parts) {  // text months first: they are unambiguous
      if (part.empty() || !IsAlpha(part[0])) continue;
      Token tok = DecodeSpecial(Lower(part));
      if (tok.type == IGNORE_DTF) {
        part.clear();
        continue;
      }
      if (tok.type != MONTH || (fmask & M(MONTH))) return kDtBadFormat;
      out_->tm.mon = tok.value;
      text_month = true;
      fmask |= M(MONTH);
      *tmask |= M(MONTH);
      part.clear();
    }
    for (const std::string& part : parts) {
      if (part.empty()) continue;
      int dmask;
      if (int err = DecodeNumber(part, text_month, fmask, &dmask)) return err;
      if (fmask & dmask) return kDtBadFormat;
      fmask |= dmask;
      *tmask |= dmask;
    }
    if ((fmask & ~(M(DOY) | M(TZ))) != kDateMask) return kDtBadFormat;  // nothing but a date
    return kDtOk;
  }

  // PostgreSQL's DecodeNumber: one numeric field, placed by what is known so far.
  int DecodeNumber(const std::string& str, bool text_month, int fmask, int* tmask) {
    Tm& tm = out_->tm;
    *tmask = 0;
    const char* cp;
    int64_t val;
    if (!ParseInt(str.c_str(), &cp, INT_MAX, &val)) return kDtFieldOverflow;
    if (cp == str.c_str()) return kDtBadFormat;
    int flen = int(str.size());
    if (*cp == '.') {
      if (cp - str.c_str() > 2) return DecodeNumberField(str, fmask | kDateMask, tmask);
      if (int err = ParseFractionalSecond(cp, &tm.fsec)) return err;
    } else if (*cp != '\0') {
      return kDtBadFormat;
    }
    switch (fmask & kDateMask) {
      case 0:  // DateOrder MDY: a two-digit first field is the month
        if (flen >= 3) {
          *tmask = M(YEAR);
          tm.year = val;
        } else {
          *tmask = M(MONTH);
          tm.mon = int(val);
        }
        break;
      case M(YEAR):
        *tmask = M(MONTH);
        tm.mon = int(val);
        break;
      case M(MONTH):
        if (text_month && flen >= 3) {
          *tmask = M(YEAR);
          tm.year = val;
        } else {
          *tmask = M(DAY);
          tm.mday = int(val);
        }
        break;
      case M(YEAR) | M(MONTH):
        if (text_month && flen >= 3 && is2digits_) {  // DD-MON-YYYY
          *tmask = M(DAY);
          tm.mday = int(tm.year);
          tm.year = val;
          is2digits_ = false;
        } else {
          *tmask = M(DAY);
          tm.mday = int(val);
        }
        break;
      case M(DAY):
        *tmask = M(MONTH);
        tm.mon = int(val);
        break;
      case M(MONTH) | M(DAY):
        *tmask = M(YEAR);
        tm.year = val;
        break;
      case kDateMask:  // a complete date: this must be a time
        return DecodeNumberField(str, fmask, tmask);
      default: return kDtBadFormat;
    }
    if (*tmask == M(YEAR)) is2digits_ = flen <= 2;
    return kDtOk;
  }

  // PostgreSQL's DecodeNumberField: run-together "yyyymmdd", "hhmmss", "hhmm".
  int DecodeNumberField(std::string str, int fmask, int* tmask) {
    Tm& tm = out_->tm;
    size_t dot = str.find('.');
    if (dot != std::string::npos) {
      tm.fsec =
          dot + 1 == str.size() ? 0 : int64_t(std::rint(std::strtod(str.c_str() + dot, nullptr) * 1000000));
      str.resize(dot);
    } else if ((fmask & kDateMask) != kDateMask && str.size() >= 6) {
      size_t n = str.size();
      *tmask = kDateMask;
      tm.mday = std::atoi(str.substr(n - 2).c_str());
      tm.mon = std::atoi(str.substr(n - 4, 2).c_str());
      tm.year = std::strtoll(str.substr(0, std::min<size_t>(n - 4, 18)).c_str(), nullptr, 10);
      if (n - 4 == 2) is2digits_ = true;
      return kDtOk;
    }
    if ((fmask & kTimeMask) != kTimeMask) {
      if (str.size() == 6) {
        *tmask = kTimeMask;
        tm.sec = std::atoi(str.substr(4, 2).c_str());
        tm.min = std::atoi(str.substr(2, 2).c_str());
        tm.hour = std::atoi(str.substr(0, 2).c_str());
        return kDtOk;
      }
      if (str.size() == 4) {
        *tmask = kTimeMask;
        tm.sec = 0;
        tm.min = std::atoi(str.substr(2, 2).c_str());
        tm.hour = std::atoi(str.substr(0, 2).c_str());
        return kDtOk;
      }
    }
    return kDtBadFormat;
  }

  // PostgreSQL's ValidateDate: BC years, two-digit years, field ranges.
  int ValidateDate() {
    Tm& tm = out_->tm;
    if (fmask_ & M(YEAR)) {
      if (bc_) {
        if (tm.year <= 0) return kDtFieldOverflow;
        tm.year = -(tm.year - 1);  // 1 BC is year 0
      } else if (is2digits_) {
        if (tm.year < 0) return kDtFieldOverflow;
        if (tm.year < 70) {
          tm.year += 2000;
        } else if (tm.year < 100) {
          tm.year += 1900;
        }
      } else if (tm.year <= 0) {
        return kDtFieldOverflow;  // there is no year zero
      }
    }
    if ((fmask_ & M(MONTH)) && (tm.mon < 1 || tm.mon > 12)) return kDtMdFieldOverflow;
    if ((fmask_ & M(DAY)) && (tm.mday < 1 || tm.mday > 31)) return kDtMdFieldOverflow;
    if ((fmask_ & kDateMask) == kDateMask && tm.mday > DaysInMonth(tm.year, tm.mon)) {
      return kDtFieldOverflow;
    }
    return kDtOk;
  }

  std::vector<Field> f_;
  bool time_only_;
  std::string_view type_;
  const DatetimeClock* clock_;
  DecodedDateTime* out_ = nullptr;
  int i_ = 0;
  int fmask_ = 0;
  int ptype_ = 0;
  int mer_ = kNoUnit;
  bool bc_ = false;
  bool is2digits_ = false;
  bool have_text_month_ = false;
};

DecodedDateTime DecodeOrThrow(std::string_view text, bool time_only, std::string_view type,
                              const DatetimeClock* clock) {
  std::vector<Field> fields;
  int err = ParseDateTime(text, &fields);
  DecodedDateTime d;
  if (err == kDtOk) err = DateTimeDecoder(std::move(fields), time_only, type, clock).Decode(&d);
  if (err != kDtOk) ThrowParseError(err, text, type);
  return d;
}

// Local wall-clock microseconds of a decoded timestamp; throws when out of range.
int64_t DecodedLocalMicros(const DecodedDateTime& d, std::string_view text) {
  if (d.special == kEpoch) return 0;
  if (d.special == kLate) return kDatetimeInfinity;
  if (d.special == kEarly) return kDatetimeMinusInfinity;
  int64_t r;
  if (!TmToMicros(d.tm, &r) || !IsValidTimestamp(r)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("timestamp out of range: \"{}\"", text));
  }
  return r;
}


}  // namespace freshet::datetime_detail

namespace freshet {

using namespace datetime_detail;

// ---- date / time / timestamp text ----

namespace {

// The canonical ISO forms "YYYY-MM-DD" and "YYYY-MM-DD HH:MM:SS[.f{1,6}]"
// ('T' between date and time too), the text COPY loads are made of:
// parsed without the general decoder. Anything else, or a field out of its
// range, returns false and goes the general way (which gives the errors).
bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  int v = 0;
  for (size_t i = at; i < at + n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

bool ParseIsoDateFast(std::string_view s, int64_t* days) {
  int y, m, d;
  if (s.size() < 10 || s[4] != '-' || s[7] != '-' || !Digits(s, 0, 4, &y) || !Digits(s, 5, 2, &m) ||
      !Digits(s, 8, 2, &d) || y == 0 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m))
    return false;
  *days = CivilToDays(y, m, d);
  return true;
}

bool ParseIsoTimestampFast(std::string_view s, int64_t* micros) {
  int64_t days;
  int h, mi, sec;
  if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' ||
      !ParseIsoDateFast(s.substr(0, 10), &days) || !Digits(s, 11, 2, &h) || !Digits(s, 14, 2, &mi) ||
      !Digits(s, 17, 2, &sec) || h > 23 || mi > 59 || sec > 59)
    return false;
  int64_t fraction = 0;
  if (s.size() > 19) {
    size_t digits = s.size() - 20;
    if (s[19] != '.' || digits < 1 || digits > 6) return false;
    int f;
    if (!Digits(s, 20, digits, &f)) return false;
    fraction = f;
    for (size_t i = digits; i < 6; i++) fraction *= 10;
  }
  *micros = days * kMicrosPerDay + h * kMicrosPerHour + mi * kMicrosPerMinute + sec * kMicrosPerSecond + fraction;
  return true;
}

}  // namespace

int64_t ParseDate(std::string_view text, const DatetimeClock* clock) {
  if (int64_t fast; text.size() == 10 && ParseIsoDateFast(text, &fast)) return fast;
  DecodedDateTime d = DecodeOrThrow(text, false, "date", clock);
  if (d.special == kEpoch) return 0;
  if (d.special == kLate) return kDatetimeInfinity;
  if (d.special == kEarly) return kDatetimeMinusInfinity;
  auto out_of_range = [&] {
    return SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("date out of range: \"{}\"", text));
  };
  if (!IsValidJulian(d.tm.year, d.tm.mon)) throw out_of_range();
  int64_t days = CivilToDays(d.tm.year, d.tm.mon, d.tm.mday);
  if (days < kMinDay || days >= kEndDay) throw out_of_range();
  return days;
}

std::string FormatDate(int64_t days) {
  if (!IsFiniteDatetime(days)) return days > 0 ? "infinity" : "-infinity";
  Civil c = DaysToCivil(days);
  Tm tm;
  tm.year = c.year;
  tm.mon = c.mon;
  tm.mday = c.mday;
  std::string out;
  AppendDate(&out, tm);
  if (tm.year <= 0) out += " BC";
  return out;
}

int64_t ParseTime(std::string_view text, const DatetimeClock* clock) {
  DecodedDateTime d = DecodeOrThrow(text, true, "time", clock);
  return TimeOfDay(d.tm);
}

std::string FormatTime(int64_t micros) {
  Tm tm;
  tm.hour = micros / kMicrosPerHour;
  tm.min = int(micros / kMicrosPerMinute % 60);
  tm.sec = int(micros / kMicrosPerSecond % 60);
  tm.fsec = micros % kMicrosPerSecond;
  std::string out;
  AppendTime(&out, tm);
  return out;
}

int64_t ParseTimestamp(std::string_view text, const DatetimeClock* clock) {
  int64_t micros;
  if (ParseIsoTimestampFast(text, &micros)) return micros;
  DecodedDateTime d = DecodeOrThrow(text, false, "timestamp", clock);
  return DecodedLocalMicros(d, text);
}

namespace {

[[noreturn]] void ThrowNanosOutOfRange(std::string_view text) {
  throw SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("timestamp out of range: \"{}\"", text));
}

// Where the fraction of the seconds starts in a timestamp's text: the
// '.' after "MM:SS" (the decoder's time field); npos when there is none.
size_t SecondsFractionAt(std::string_view s) {
  auto digit = [&](size_t i) { return s[i] >= '0' && s[i] <= '9'; };
  for (size_t i = 3; i + 1 < s.size(); i++)
    if (s[i] == '.' && s[i - 3] == ':' && digit(i - 2) && digit(i - 1) && digit(i + 1)) return i;
  return std::string_view::npos;
}

}  // namespace

int64_t ParseTimestampNanos(std::string_view text, const DatetimeClock* clock) {
  // The fraction's digits past the sixth are set aside; the rest is a
  // timestamp in microseconds, exact to its six digits.
  int64_t extra = 0;  // nanoseconds past the microsecond, up to 1000 (a carry)
  std::string head;
  std::string_view micros_text = text;
  if (size_t dot = SecondsFractionAt(text); dot != std::string_view::npos) {
    size_t end = dot + 1;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') end++;
    if (end - dot - 1 > 6) {
      std::string_view rest = text.substr(dot + 7, end - dot - 7);
      for (size_t i = 0; i < 3; i++) extra = extra * 10 + (i < rest.size() ? rest[i] - '0' : 0);
      if (rest.size() > 3 && rest[3] >= '5') extra++;
      head.assign(text.substr(0, dot + 7));
      head.append(text.substr(end));
      micros_text = head;
    }
  }
  int64_t micros;
  try {
    micros = ParseTimestamp(micros_text, clock);
  } catch (const SqlError& e) {
    if (head.empty()) throw;
    // The error names the text as given, not the digits kept.
    std::string message = e.message();
    if (size_t at = message.find(head); at != std::string::npos) message.replace(at, head.size(), text);
    throw SqlError(e.code(), message);
  }
  // In 128 bits: the earliest value's microseconds alone are out of range.
  const __int128 nanos = __int128(micros) * kNanosPerMicro + extra;
  if (!IsFiniteDatetime(micros) || nanos > INT64_MAX || nanos < INT64_MIN) ThrowNanosOutOfRange(text);
  return static_cast<int64_t>(nanos);
}

std::string FormatTimestampNanos(int64_t nanos) {
  const int64_t seconds = FloorDiv(nanos, kNanosPerSecond);
  const int64_t fraction = FloorMod(nanos, kNanosPerSecond);  // seconds * 10^9 may be past the int64s
  Tm tm = MicrosToTm(seconds * kMicrosPerSecond);
  std::string out;
  AppendDate(&out, tm);
  fmt::format_to(std::back_inserter(out), " {:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec);
  if (fraction != 0) {
    std::string digits = fmt::format("{:09}", fraction);
    while (digits.back() == '0') digits.pop_back();
    out.push_back('.');
    out.append(digits);
  }
  return out;
}

int64_t TimestampMicrosToNanos(int64_t micros) {
  int64_t nanos;
  if (!IsFiniteDatetime(micros) || __builtin_mul_overflow(micros, kNanosPerMicro, &nanos))
    throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  return nanos;
}

namespace {

// PostgreSQL rounds a timestamp half away from zero in its own
// representation, counted from 2000-01-01: so do we, to round alike.
constexpr int64_t kPostgresEpochSeconds = 946'684'800;

// `v` rounded to a multiple of `unit`, in 128 bits (the range's ends may
// round past it).
__int128 RoundFromPostgresEpoch(int64_t v, int64_t unit, int64_t per_second) {
  const __int128 epoch = __int128(kPostgresEpochSeconds) * per_second, half = unit / 2;
  const __int128 x = __int128(v) - epoch;
  return epoch + (x >= 0 ? (x + half) / unit * unit : -((-x + half) / unit * unit));
}

}  // namespace

int64_t TimestampNanosToMicros(int64_t nanos) {
  return static_cast<int64_t>(RoundFromPostgresEpoch(nanos, kNanosPerMicro, kNanosPerSecond) / kNanosPerMicro);
}

int64_t RoundTimestamp(int64_t v, int64_t unit, bool nanos) {
  if (unit <= 1 || (!nanos && !IsFiniteDatetime(v))) return v;
  const __int128 r = RoundFromPostgresEpoch(v, unit, nanos ? kNanosPerSecond : kMicrosPerSecond);
  if (r > INT64_MAX || r < INT64_MIN) throw SqlError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  return static_cast<int64_t>(r);
}

std::string FormatTimestamp(int64_t micros) {
  if (!IsFiniteDatetime(micros)) return micros > 0 ? "infinity" : "-infinity";
  Tm tm = MicrosToTm(micros);
  std::string out;
  AppendDate(&out, tm);
  out.push_back(' ');
  AppendTime(&out, tm);
  if (tm.year <= 0) out += " BC";
  return out;
}

int64_t ParseTimestamptz(std::string_view text, const TimeZone& tz, const DatetimeClock* clock) {
  DecodedDateTime d = DecodeOrThrow(text, false, "timestamp with time zone", clock);
  int64_t local = DecodedLocalMicros(d, text);
  if (d.special == kEpoch) return 0;  // 'epoch' is 1970-01-01 00:00 UTC
  if (!IsFiniteDatetime(local)) return local;
  int64_t utc;
  if (d.offset) {
    utc = local - *d.offset * kMicrosPerSecond;
  } else if (d.zone) {
    utc = d.zone->LocalToUtc(local);
  } else {
    utc = tz.LocalToUtc(local);
  }
  if (!IsValidTimestamp(utc)) {
    throw SqlError(sqlstate::kDatetimeFieldOverflow, fmt::format("timestamp out of range: \"{}\"", text));
  }
  return utc;
}

std::string FormatTimestamptz(int64_t utc_micros, const TimeZone& tz) {
  if (!IsFiniteDatetime(utc_micros)) return FormatTimestamp(utc_micros);
  int64_t offset = tz.OffsetAtUtc(utc_micros);
  Tm tm = MicrosToTm(utc_micros + offset * kMicrosPerSecond);
  std::string out;
  AppendDate(&out, tm);
  out.push_back(' ');
  AppendTime(&out, tm);
  AppendOffset(&out, offset);
  if (tm.year <= 0) out += " BC";
  return out;
}

std::string FormatLocalForToTimezone(int64_t utc_micros, const TimeZone& tz) {
  if (!IsFiniteDatetime(utc_micros)) return FormatTimestamp(utc_micros);
  Tm tm = MicrosToTm(tz.UtcToLocal(utc_micros));
  std::string out =
      fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec);
  if (tm.fsec != 0 && tm.fsec % 1000 == 0) {
    fmt::format_to(std::back_inserter(out), ".{:03}", tm.fsec / 1000);
  } else if (tm.fsec != 0) {
    fmt::format_to(std::back_inserter(out), ".{:06}", tm.fsec);
  }
  return out;
}


}  // namespace freshet
