#include "sql/parse_cache.h"

#include <pg_query/pg_query.pb-c.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace freshet {

namespace {

// A constant's class, written over its bytes in the key. kNone: the token
// is not a constant; kUncacheable: a constant whose value the key cannot
// stand for.
enum Class : char { kNone = 0, kInteger = 1, kNumber = 2, kString = 3, kUncacheable = 4 };

std::string_view Raw(const std::string& text, const Token& t) {
  return std::string_view(text).substr(size_t(t.start), size_t(t.end - t.start));
}

// An integer literal's value if it fits PostgreSQL's int4 (the lexer makes
// it an ICONST then, a numeric FCONST otherwise).
bool Int4Value(std::string_view digits, int32_t* out) {
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  int64_t v = 0;
  if (digits.size() > 10) return false;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

Class ClassOf(const std::string& text, const Token& t) {
  std::string_view raw = Raw(text, t);
  if (t.kind == Token::Kind::kNumber) {
    if (raw.empty()) return kUncacheable;
    bool digits = raw.find_first_not_of("0123456789") == std::string_view::npos;
    int32_t v;
    return digits && Int4Value(raw, &v) ? kInteger : kNumber;
  }
  if (t.kind == Token::Kind::kString) {
    // '...' with doubled quotes only; a lone quote inside is two literals
    // continued across a newline, which the lexer joins.
    if (raw.size() < 2 || raw.front() != '\'' || raw.back() != '\'') return kUncacheable;
    for (size_t i = 1; i + 1 < raw.size(); i++) {
      if (raw[i] != '\'') continue;
      if (i + 2 >= raw.size() || raw[i + 1] != '\'') return kUncacheable;
      i++;
    }
    return kString;
  }
  return kNone;
}

// The key of `text`'s shape (empty if it is not cacheable) and its
// constants as (token index, class).
std::string ShapeOf(const std::string& text, const std::vector<Token>& tokens,
                    std::vector<std::pair<size_t, Class>>* constants) {
  if (text.size() > ParseCache::kMaxTextBytes) return "";
  std::string key = text;
  for (size_t i = 0; i < tokens.size(); i++) {
    Class c = ClassOf(text, tokens[i]);
    if (c == kNone) continue;
    if (c == kUncacheable) return "";
    std::memset(key.data() + tokens[i].start, c, size_t(tokens[i].end - tokens[i].start));
    constants->emplace_back(i, c);
  }
  return key;
}

void SetString(char** field, std::string_view value) {
  if (*field && *field != protobuf_c_empty_string) std::free(*field);
  char* s = static_cast<char*>(std::malloc(value.size() + 1));
  if (!s) throw std::bad_alloc();
  std::memcpy(s, value.data(), value.size());
  s[value.size()] = '\0';
  *field = s;
}

void SetConstant(PgQuery__AConst* ac, Class c, std::string_view raw) {
  switch (c) {
    case kInteger:
      Int4Value(raw, &ac->ival->ival);
      break;
    case kNumber:
      SetString(&ac->fval->fval, raw);
      break;
    case kString: {
      std::string value;
      for (size_t i = 1; i + 1 < raw.size(); i++) {
        value.push_back(raw[i]);
        if (raw[i] == '\'') i++;
      }
      SetString(&ac->sval->sval, value);
      break;
    }
    default:
      break;
  }
}

// Calls fn on every message of the tree (iteratively: trees can be deep).
template <typename F>
void ForEachMessage(ProtobufCMessage* root, F fn) {
  std::vector<ProtobufCMessage*> stack{root};
  while (!stack.empty()) {
    ProtobufCMessage* m = stack.back();
    stack.pop_back();
    fn(m);
    const ProtobufCMessageDescriptor* d = m->descriptor;
    char* base = reinterpret_cast<char*>(m);
    for (unsigned i = 0; i < d->n_fields; i++) {
      const ProtobufCFieldDescriptor& f = d->fields[i];
      if (f.type != PROTOBUF_C_TYPE_MESSAGE) continue;
      if (f.label == PROTOBUF_C_LABEL_REPEATED) {
        size_t n = *reinterpret_cast<size_t*>(base + f.quantifier_offset);
        ProtobufCMessage** items = *reinterpret_cast<ProtobufCMessage***>(base + f.offset);
        for (size_t j = 0; j < n; j++)
          if (items[j]) stack.push_back(items[j]);
        continue;
      }
      if ((f.flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *reinterpret_cast<uint32_t*>(base + f.quantifier_offset) != f.id)
        continue;  // another member of the oneof is set
      if (auto* sub = *reinterpret_cast<ProtobufCMessage**>(base + f.offset)) stack.push_back(sub);
    }
  }
}

PgQuery__AConst__ValCase CaseOf(Class c) {
  switch (c) {
    case kInteger: return PG_QUERY__A__CONST__VAL_IVAL;
    case kNumber: return PG_QUERY__A__CONST__VAL_FVAL;
    case kString: return PG_QUERY__A__CONST__VAL_SVAL;
    default: return PG_QUERY__A__CONST__VAL__NOT_SET;
  }
}

}  // namespace

std::shared_ptr<PgQuery__ParseResult> ParseCache::Take(const std::string& text, const std::vector<Token>& tokens) {
  if (entries_.empty()) return nullptr;
  std::vector<std::pair<size_t, Class>> constants;
  std::string key = ShapeOf(text, tokens, &constants);
  if (key.empty()) return nullptr;
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  Entry& e = it->second;
  if (e.tree.use_count() != 1) return nullptr;  // still part of an earlier statement
  for (size_t k = 0; k < constants.size(); k++)
    SetConstant(e.constants[k], constants[k].second, Raw(text, tokens[constants[k].first]));
  used_.splice(used_.begin(), used_, e.used);
  hits_++;
  return e.tree;
}

void ParseCache::Put(const std::string& text, const std::vector<Token>& tokens,
                     std::shared_ptr<PgQuery__ParseResult> tree) {
  std::vector<std::pair<size_t, Class>> constants;
  std::string key = ShapeOf(text, tokens, &constants);
  if (key.empty() || !tree || entries_.count(key)) return;
  std::unordered_map<int32_t, PgQuery__AConst*> by_location;  // nullptr: more than one there
  ForEachMessage(&tree->base, [&](ProtobufCMessage* m) {
    if (m->descriptor != &pg_query__a__const__descriptor) return;
    auto* ac = reinterpret_cast<PgQuery__AConst*>(m);
    auto [it, fresh] = by_location.emplace(ac->location, ac);
    if (!fresh) it->second = nullptr;
  });
  Entry e;
  for (const auto& [index, c] : constants) {
    auto it = by_location.find(tokens[index].start);
    if (it == by_location.end() || !it->second || it->second->isnull || it->second->val_case != CaseOf(c)) return;
    e.constants.push_back(it->second);
  }
  while (!used_.empty() && (entries_.size() >= kMaxEntries || text_bytes_ + key.size() > kMaxTotalTextBytes)) {
    text_bytes_ -= used_.back().size();
    entries_.erase(used_.back());
    used_.pop_back();
  }
  text_bytes_ += key.size();
  used_.push_front(key);
  e.tree = std::move(tree);
  e.used = used_.begin();
  entries_.emplace(std::move(key), std::move(e));
}

}  // namespace freshet
