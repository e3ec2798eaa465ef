// Comparison operators (= <> < <= > >=) for every type, NOT, LIKE/ILIKE
// (~~, !~~, ~~*, !~~*) and regular expressions (~, !~, ~*, !~*,
// regexp_replace) via RE2.

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "common/array.h"
#include "common/json.h"
#include "common/limits.h"
#include "expr/function_helpers.h"
#include "expr/regexp_split.h"

namespace freshet {

namespace {

template <typename T>
void RegisterCompare(FunctionRegistry* r, DataType t) {
  const DataType b = DataType::Boolean();
  using A = const T&;
  RegisterFn(r, "=", {t, t}, b, StrictFn<T, T>([](A x, A y) { return Compare3(x, y) == 0; }));
  RegisterFn(r, "<>", {t, t}, b, StrictFn<T, T>([](A x, A y) { return Compare3(x, y) != 0; }));
  RegisterFn(r, "<", {t, t}, b, StrictFn<T, T>([](A x, A y) { return Compare3(x, y) < 0; }));
  RegisterFn(r, "<=", {t, t}, b, StrictFn<T, T>([](A x, A y) { return Compare3(x, y) <= 0; }));
  RegisterFn(r, ">", {t, t}, b, StrictFn<T, T>([](A x, A y) { return Compare3(x, y) > 0; }));
  RegisterFn(r, ">=", {t, t}, b, StrictFn<T, T>([](A x, A y) { return Compare3(x, y) >= 0; }));
}

// timestamp(9) with timestamp, either way round: exact, the microseconds
// widened (rounding the nanoseconds, as the implicit cast would, would put
// 23:59:59.9999996 at midnight); the infinities lie beyond every
// nanosecond timestamp.
void RegisterNanosMicrosCompare(FunctionRegistry* r) {
  const DataType b = DataType::Boolean();
  const DataType nanos = DataType::TimestampNs(), micros = DataType::Timestamp();
  auto compare = [](int64_t ns, int64_t us) {
    if (us == kDatetimeInfinity) return -1;
    if (us == kDatetimeMinusInfinity) return 1;
    const __int128 widened = __int128(us) * kNanosPerMicro;
    return ns < widened ? -1 : ns > widened ? 1 : 0;
  };
  auto both = [&](const char* op, auto holds) {
    RegisterFn(r, op, {nanos, micros}, b,
               StrictFn<int64_t, int64_t>([=](int64_t x, int64_t y) { return holds(compare(x, y)); }));
    RegisterFn(r, op, {micros, nanos}, b,
               StrictFn<int64_t, int64_t>([=](int64_t x, int64_t y) { return holds(-compare(y, x)); }));
  };
  ForEachComparisonOperator(both);
}

// jsonb compares by value in PostgreSQL's order (common/json.h,
// JsonbSortKey): '1.0' = '1', [2] < [10].
void RegisterJsonbCompare(FunctionRegistry* r) {
  const DataType b = DataType::Boolean();
  const DataType j = DataType::Jsonb();
  using A = std::string_view;
  auto compare = [](A x, A y) { return x == y ? 0 : Compare3(JsonbSortKey(x), JsonbSortKey(y)); };
  RegisterFn(r, "=", {j, j}, b, StrictFn<A, A>([compare](A x, A y) { return compare(x, y) == 0; }));
  RegisterFn(r, "<>", {j, j}, b, StrictFn<A, A>([compare](A x, A y) { return compare(x, y) != 0; }));
  RegisterFn(r, "<", {j, j}, b, StrictFn<A, A>([compare](A x, A y) { return compare(x, y) < 0; }));
  RegisterFn(r, "<=", {j, j}, b, StrictFn<A, A>([compare](A x, A y) { return compare(x, y) <= 0; }));
  RegisterFn(r, ">", {j, j}, b, StrictFn<A, A>([compare](A x, A y) { return compare(x, y) > 0; }));
  RegisterFn(r, ">=", {j, j}, b, StrictFn<A, A>([compare](A x, A y) { return compare(x, y) >= 0; }));
}

// --- LIKE -----------------------------------------------------------------------

// A compiled LIKE pattern (escape character '\'). The pattern is split at
// '%' into segments of literal bytes and '_' (one UTF-8 character). The first
// and last segments are anchored unless the pattern starts/ends with '%';
// middle segments match leftmost-first, which is optimal for this grammar,
// so matching never backtracks across segments.
class LikeMatcher {
 public:
  explicit LikeMatcher(std::string_view pattern) {
    segments_.emplace_back();
    anchored_start_ = pattern.empty() || pattern[0] != '%';
    for (size_t i = 0; i < pattern.size(); i++) {
      char c = pattern[i];
      if (c == '%') {
        if (!segments_.back().elems.empty()) segments_.emplace_back();
        anchored_end_ = false;
        continue;
      }
      anchored_end_ = true;
      Segment& seg = segments_.back();
      if (c == '_') {
        seg.elems.push_back({0, true});
        seg.chars++;
        continue;
      }
      if (c == '\\') {
        if (++i == pattern.size()) {
          throw SqlError(sqlstate::kInvalidEscapeSequence, "LIKE pattern must not end with escape character");
        }
        c = pattern[i];
      }
      seg.elems.push_back({c, false});
      seg.chars += !IsUtf8Continuation(static_cast<unsigned char>(c));
    }
    if (segments_.back().elems.empty()) segments_.pop_back();
    for (Segment& seg : segments_) {
      while (seg.literal_prefix < seg.elems.size() && !seg.elems[seg.literal_prefix].any) {
        seg.prefix += seg.elems[seg.literal_prefix++].c;
      }
    }
  }

  bool Match(std::string_view text) const {
    size_t first = 0, last = segments_.size();
    if (last == 0) return !anchored_end_ || text.empty();  // "" or only '%'
    size_t pos = 0;
    if (anchored_start_) {
      pos = MatchAt(segments_[0], text, 0);
      if (pos == kNoMatch) return false;
      if (last == 1 && anchored_end_) return pos == text.size();
      first = 1;
    }
    if (anchored_end_) {
      // The last segment has a fixed character count, so its start is fixed.
      const Segment& seg = segments_[last - 1];
      size_t start = text.size();
      for (size_t k = 0; k < seg.chars; k++) {
        if (start == 0) return false;
        start--;
        while (start > 0 && IsUtf8Continuation(static_cast<unsigned char>(text[start]))) start--;
      }
      if (start < pos || MatchAt(seg, text, start) != text.size()) return false;
      text = text.substr(0, start);
      last--;
    }
    for (size_t s = first; s < last; s++) {
      pos = Find(segments_[s], text, pos);
      if (pos == kNoMatch) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kNoMatch = std::string_view::npos;
  struct Elem {
    char c;
    bool any;  // '_'
  };
  struct Segment {
    std::vector<Elem> elems;
    size_t chars = 0;           // characters matched
    std::string prefix;         // leading literal bytes, to search with find()
    size_t literal_prefix = 0;  // elems covered by prefix
  };

  // End of the match of seg at text[pos], or kNoMatch.
  static size_t MatchAt(const Segment& seg, std::string_view text, size_t pos) {
    if (!text.substr(pos).starts_with(seg.prefix)) return kNoMatch;
    pos += seg.prefix.size();
    for (size_t k = seg.literal_prefix; k < seg.elems.size(); k++) {
      if (pos >= text.size()) return kNoMatch;
      if (seg.elems[k].any) {
        pos += Utf8CharBytes(text, pos);
      } else if (text[pos++] != seg.elems[k].c) {
        return kNoMatch;
      }
    }
    return pos;
  }

  // End of the leftmost match of seg at or after pos, or kNoMatch.
  static size_t Find(const Segment& seg, std::string_view text, size_t pos) {
    while (pos <= text.size()) {
      if (!seg.prefix.empty()) {
        pos = text.find(seg.prefix, pos);
        if (pos == kNoMatch) return kNoMatch;
      }
      size_t end = MatchAt(seg, text, pos);
      if (end != kNoMatch) return end;
      if (pos == text.size()) break;
      pos += Utf8CharBytes(text, pos);
    }
    return kNoMatch;
  }

  std::vector<Segment> segments_;
  bool anchored_start_ = true;
  bool anchored_end_ = true;
};

// Per-call cache of compiled patterns: the last one is checked first (a
// constant pattern costs one string compare per row), then a small map.
template <typename M>
class PatternCache {
 public:
  template <typename Make>
  const M& Get(std::string_view pattern, Make&& make) {
    if (last_ != nullptr && pattern == last_key_) return *last_;
    auto it = cache_.find(std::string(pattern));
    if (it == cache_.end()) {
      if (cache_.size() >= 256) cache_.clear();
      it = cache_.emplace(std::string(pattern), make(pattern)).first;
    }
    last_key_ = it->first;
    last_ = it->second.get();
    return *last_;
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<M>> cache_;
  std::string last_key_;
  const M* last_ = nullptr;
};

template <bool kCaseInsensitive, bool kNegate>
void LikeFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  PatternCache<LikeMatcher> cache;
  std::string lowered;  // reused across rows
  ExecuteStrict<std::string_view, std::string_view>(args, n, out, [&](std::string_view text, std::string_view pat) {
    const LikeMatcher& m = cache.Get(pat, [](std::string_view p) {
      if (!kCaseInsensitive) return std::make_unique<LikeMatcher>(p);
      std::string lp;
      Utf8Lower(p, &lp);
      return std::make_unique<LikeMatcher>(lp);
    });
    if constexpr (kCaseInsensitive) {
      lowered.clear();
      Utf8Lower(text, &lowered);
      return m.Match(lowered) != kNegate;
    }
    return m.Match(text) != kNegate;
  });
}

// --- Regular expressions (RE2; PostgreSQL's ARE syntax mostly agrees) --------------

constexpr int kMaxRegexProgramSize = 20000;

std::unique_ptr<RE2> CompileRegex(std::string_view pattern, bool case_insensitive) {
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_case_sensitive(!case_insensitive);
  auto re = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), opts);
  if (!re->ok()) {
    throw SqlError("2201B", fmt::format("invalid regular expression: {}", re->error()));
  }
  // Matching takes time quadratic in the program's size in the worst case
  // (repeat('x', 100000) ~ repeat('x', 100000) ran 45 s in one call, which
  // no cancel request can interrupt). PostgreSQL refuses patterns past
  // about 50,000 NFA states as too complex; so do we, past 20,000 RE2
  // instructions (about 2 s at worst).
  if (re->ProgramSize() > kMaxRegexProgramSize) {
    throw SqlError("2201B", "invalid regular expression: regular expression is too complex");
  }
  return re;
}

template <bool kCaseInsensitive, bool kNegate>
void RegexMatchFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  PatternCache<RE2> cache;
  ExecuteStrict<std::string_view, std::string_view>(args, n, out, [&](std::string_view text, std::string_view pat) {
    const RE2& re = cache.Get(pat, [](std::string_view p) { return CompileRegex(p, kCaseInsensitive); });
    return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re) != kNegate;
  });
}

// Appends the replacement for one match, in PostgreSQL's syntax: \1..\9
// a group (nothing for a group that did not take part or does not exist),
// \& the whole match, \\ a backslash; any other backslash is kept.
template <typename Out>
void AppendReplacement(Out& out, std::string_view repl, const re2::StringPiece* groups, int ngroups) {
  for (size_t i = 0; i < repl.size(); i++) {
    if (repl[i] != '\\' || i + 1 == repl.size()) {
      out.append(repl.substr(i, 1));
      continue;
    }
    char c = repl[++i];
    int g = c >= '1' && c <= '9' ? c - '0' : c == '&' ? 0 : -1;
    if (g >= 0) {
      if (g < ngroups && groups[g].data() != nullptr) out.append(std::string_view(groups[g].data(), groups[g].size()));
    } else if (c == '\\') {
      out.append("\\");
    } else {
      out.append(repl.substr(i - 1, 2));
    }
  }
}

// PostgreSQL's replace_text_regexp: each match (the first, or all with
// 'g') is replaced; after an empty match the search goes on one character
// further. `out` is a std::string or a LimitedStringSizer.
template <typename Out>
void ReplaceMatches(Out& out, std::string_view src, const RE2& re, std::string_view repl, bool global,
                    std::vector<re2::StringPiece>& groups) {
  re2::StringPiece text(src.data(), src.size());
  size_t data_pos = 0, search = 0;
  while (search <= src.size() &&
         re.Match(text, search, src.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()))) {
    size_t so = groups[0].data() - src.data(), eo = so + groups[0].size();
    out.append(src.substr(data_pos, so - data_pos));
    AppendReplacement(out, repl, groups.data(), static_cast<int>(groups.size()));
    data_pos = eo;
    if (!global) break;
    search = eo;
    if (so == eo) search += search < src.size() ? Utf8CharBytes(src, search) : 1;
  }
  out.append(src.substr(data_pos));
}

// regexp_replace(source, pattern, replacement [, flags]): flags 'g' (all
// matches) and 'i' (case-insensitive). When the result could outgrow the
// limit on a value (common/limits.h), a first pass only sizes it.
void RegexpReplaceFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  PatternCache<RE2> caches[2];  // case-sensitive, case-insensitive
  std::vector<re2::StringPiece> groups;
  auto replace = [&](std::string_view src, std::string_view pat, std::string_view repl, std::string_view flags) {
    bool global = flags.find('g') != std::string_view::npos;
    bool icase = flags.find('i') != std::string_view::npos;
    const RE2& re = caches[icase].Get(pat, [&](std::string_view p) { return CompileRegex(p, icase); });
    groups.assign(std::min(re.NumberOfCapturingGroups(), 9) + 1, re2::StringPiece());
    // Each replacement is at most the replacement text with every \n
    // replaced by the whole source; there are at most src + 1 matches.
    uint64_t per_match = SaturatingAdd(repl.size(), SaturatingMul(std::count(repl.begin(), repl.end(), '\\'), src.size()));
    uint64_t bound = SaturatingAdd(src.size(), SaturatingMul(global ? src.size() + 1 : 1, per_match));
    if (bound > kMaxValueBytes) {
      LimitedStringSizer sizer;
      ReplaceMatches(sizer, src, re, repl, global, groups);
    }
    std::string result;
    ReplaceMatches(result, src, re, repl, global, groups);
    return result;
  };
  if (args.size() == 3) {
    ExecuteStrict<std::string_view, std::string_view, std::string_view>(
        args, n, out, [&](auto s, auto p, auto r) { return replace(s, p, r, ""); });
  } else {
    ExecuteStrict<std::string_view, std::string_view, std::string_view, std::string_view>(args, n, out, replace);
  }
}

// A match's capture groups as text[] (the whole match when the pattern has
// none; NULL for a group that took no part): regexp_match's and
// regexp_matches' value. `match` holds the whole match and each group.
std::string MatchGroupsArray(const std::vector<re2::StringPiece>& match) {
  Vector elements(DataType::Text());
  if (match.size() == 1) {
    elements.AppendString(std::string(match[0]));
  } else {
    for (size_t g = 1; g < match.size(); g++) {
      if (match[g].data() == nullptr) elements.AppendNull();
      else elements.AppendString(std::string(match[g]));
    }
  }
  return EncodeArray(elements);
}

// regexp_match(string, pattern [, flags]): the capture groups of the first
// match as text[] (the whole match when the pattern has no groups; NULL
// elements for groups that did not take part), or NULL without a match.
void RegexpMatchFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  PatternCache<RE2> caches[2];
  for (size_t i = 0; i < n; i++) {
    if (AnyNull(args, i)) {
      out->AppendNull();
      continue;
    }
    std::string_view flags = args.size() > 2 ? std::string_view(args[2]->GetString(i)) : std::string_view();
    if (flags.find('g') != std::string_view::npos)
      throw SqlError(sqlstate::kInvalidParameterValue, "regexp_match() does not support the \"global\" option");
    bool icase = flags.find('i') != std::string_view::npos;
    const RE2& re = caches[icase].Get(args[1]->GetString(i), [&](std::string_view p) { return CompileRegex(p, icase); });
    const int groups = re.NumberOfCapturingGroups();
    std::vector<re2::StringPiece> match(size_t(groups) + 1);
    const std::string& text = args[0]->GetString(i);
    if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, match.data(), int(match.size()))) {
      out->AppendNull();
      continue;
    }
    out->AppendString(MatchGroupsArray(match));
  }
}

// The flags of regexp_split_to_* and regexp_matches: 'i' case-insensitive,
// 'c' case-sensitive, 'g' every match; any other is 22023.
// `refuses_global` (the function's name, when given) refuses 'g', as
// PostgreSQL's split functions do.
struct RegexFlags {
  bool icase = false, global = false;
};
RegexFlags ParseRegexFlags(std::string_view flags, const char* refuses_global = nullptr) {
  RegexFlags out;
  for (char f : flags) {
    if (f == 'i') out.icase = true;
    else if (f == 'c') out.icase = false;
    else if (f == 'g' && !refuses_global) out.global = true;
    else if (f == 'g')
      throw SqlError(sqlstate::kInvalidParameterValue,
                     fmt::format("{}() does not support the \"global\" option", refuses_global));
    else throw SqlError(sqlstate::kInvalidParameterValue, fmt::format("invalid regular expression option: \"{}\"", f));
  }
  return out;
}

std::vector<std::string> SplitByRegex(std::string_view text, const RE2& re) {
  std::vector<std::string> pieces;
  size_t piece_start = 0, search = 0;
  re2::StringPiece match;
  const re2::StringPiece whole(text.data(), text.size());
  while (search <= text.size() && re.Match(whole, search, text.size(), RE2::UNANCHORED, &match, 1)) {
    const size_t start = static_cast<size_t>(match.data() - text.data());
    const size_t end = start + match.size();
    if (match.empty() && (start == 0 || start == text.size() || start == piece_start)) {
      // Ignored: a zero-length match at either end or right after the last one.
      if (start >= text.size()) break;
      search = start + Utf8CharBytes(text, start);
      continue;
    }
    pieces.emplace_back(text.substr(piece_start, start - piece_start));
    piece_start = end;
    search = match.empty() ? end + Utf8CharBytes(text, end) : end;
  }
  pieces.emplace_back(text.substr(piece_start));
  return pieces;
}

// regexp_split_to_array(string, pattern [, flags]); patterns compiled once
// per distinct pattern, as the other regexp functions do.
void RegexpSplitToArrayFn(const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
  PatternCache<RE2> caches[2];
  for (size_t i = 0; i < n; i++) {
    if (AnyNull(args, i)) {
      out->AppendNull();
      continue;
    }
    std::string_view flags = args.size() > 2 ? std::string_view(args[2]->GetString(i)) : std::string_view();
    const bool icase = ParseRegexFlags(flags, "regexp_split_to_array").icase;
    const RE2& re = caches[icase].Get(args[1]->GetString(i), [&](std::string_view p) { return CompileRegex(p, icase); });
    Vector pieces(DataType::Text());
    for (const std::string& piece : SplitByRegex(args[0]->GetString(i), re)) pieces.AppendString(piece);
    out->AppendString(EncodeArray(pieces));
  }
}

}  // namespace

std::vector<std::string> RegexpSplit(std::string_view text, std::string_view pattern, std::string_view flags,
                                     const char* function) {
  return SplitByRegex(text, *CompileRegex(pattern, ParseRegexFlags(flags, function).icase));
}

std::vector<std::string> RegexpMatches(std::string_view text, std::string_view pattern, std::string_view flags) {
  const RegexFlags f = ParseRegexFlags(flags);
  std::unique_ptr<RE2> re = CompileRegex(pattern, f.icase);
  const int groups = re->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> match(size_t(groups) + 1);
  const re2::StringPiece whole(text.data(), text.size());
  std::vector<std::string> out;
  size_t search = 0;
  while (search <= text.size() && re->Match(whole, search, text.size(), RE2::UNANCHORED, match.data(), int(match.size()))) {
    out.push_back(MatchGroupsArray(match));
    if (!f.global) break;
    const size_t end = static_cast<size_t>(match[0].data() - text.data()) + match[0].size();
    // After an empty match the next search starts one character on.
    search = match[0].empty() ? (end >= text.size() ? text.size() + 1 : end + Utf8CharBytes(text, end)) : end;
  }
  return out;
}

void RegisterComparisonFunctions(FunctionRegistry* r) {
  RegisterCompare<int64_t>(r, DataType::Boolean());
  RegisterCompare<int64_t>(r, DataType::Int16());
  RegisterCompare<int64_t>(r, DataType::Int32());
  RegisterCompare<int64_t>(r, DataType::Int64());
  RegisterCompare<double>(r, DataType::Float32());
  RegisterCompare<double>(r, DataType::Float64());
  RegisterCompare<Decimal>(r, DataType::Numeric());
  RegisterCompare<std::string_view>(r, DataType::Varchar());
  RegisterCompare<std::string_view>(r, DataType::Bytea());
  RegisterJsonbCompare(r);
  RegisterCompare<int64_t>(r, DataType::Date());
  RegisterCompare<int64_t>(r, DataType::Time());
  RegisterCompare<int64_t>(r, DataType::Timestamp());
  RegisterCompare<int64_t>(r, DataType::Timestamptz());
  RegisterCompare<int64_t>(r, DataType::TimestampNs());
  RegisterNanosMicrosCompare(r);
  RegisterCompare<Interval>(r, DataType::Interval());
  RegisterCompare<int64_t>(r, DataType::Oid());  // also regclass & co. (same TypeId)
  RegisterCompare<int64_t>(r, DataType::AnyEnum());  // by position: declaration order (both of one enum type)

  const DataType b = DataType::Boolean(), v = DataType::Varchar();
  RegisterFn(r, "not", {b}, b, StrictFn<bool>([](bool x) { return !x; }));

  RegisterFn(r, "~~", {v, v}, b, LikeFn<false, false>);
  RegisterFn(r, "!~~", {v, v}, b, LikeFn<false, true>);
  RegisterFn(r, "~~*", {v, v}, b, LikeFn<true, false>);
  RegisterFn(r, "!~~*", {v, v}, b, LikeFn<true, true>);

  RegisterFn(r, "~", {v, v}, b, RegexMatchFn<false, false>);
  RegisterFn(r, "!~", {v, v}, b, RegexMatchFn<false, true>);
  RegisterFn(r, "~*", {v, v}, b, RegexMatchFn<true, false>);
  RegisterFn(r, "!~*", {v, v}, b, RegexMatchFn<true, true>);
  RegisterFn(r, "regexp_replace", {v, v, v}, v, RegexpReplaceFn);
  RegisterFn(r, "regexp_match", {v, v}, DataType::Array(DataType::Text()), RegexpMatchFn);
  RegisterFn(r, "regexp_match", {v, v, v}, DataType::Array(DataType::Text()), RegexpMatchFn);
  RegisterFn(r, "regexp_replace", {v, v, v, v}, v, RegexpReplaceFn);
  RegisterFn(r, "regexp_split_to_array", {v, v}, DataType::Array(DataType::Text()), RegexpSplitToArrayFn);
  RegisterFn(r, "regexp_split_to_array", {v, v, v}, DataType::Array(DataType::Text()), RegexpSplitToArrayFn);
}

}  // namespace freshet
