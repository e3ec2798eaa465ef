#include "common/json.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/decimal.h"
#include "common/error.h"
#include "common/json_internal.h"

namespace freshet::json_detail {

namespace {

[[noreturn]] void ThrowInvalid(const std::string& detail) {
  throw SqlError(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type json").WithDetail(detail);
}

class Parser {
 public:
  Parser(std::string_view text, bool jsonb) : s_(text), jsonb_(jsonb) {}

  Node ParseDocument() {
    SkipSpace();
    Node n = ParseValue(0);
    SkipSpace();
    if (pos_ != s_.size()) Unexpected();
    return n;
  }

 private:
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) pos_++;
  }

  [[noreturn]] void Unexpected() {
    if (pos_ >= s_.size()) ThrowInvalid("The input string ended unexpectedly.");
    size_t end = pos_ + 1;
    while (end < s_.size() && std::isalnum(static_cast<unsigned char>(s_[end]))) end++;
    ThrowInvalid(fmt::format("Token \"{}\" is invalid.", s_.substr(pos_, end - pos_)));
  }

  Node ParseValue(int depth) {
    if (depth >= kMaxJsonDepth)
      throw SqlError(sqlstate::kStatementTooComplex, "stack depth limit exceeded")
          .WithHint(fmt::format("JSON values may nest at most {} levels.", kMaxJsonDepth));
    if (pos_ >= s_.size()) Unexpected();
    size_t start = pos_;
    Node n;
    char c = s_[pos_];
    if (c == '{') {
      n.kind = Node::kObject;
      pos_++;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        pos_++;
      } else {
        while (true) {
          SkipSpace();
          if (pos_ >= s_.size() || s_[pos_] != '"') Unexpected();
          std::string key = ParseString();
          SkipSpace();
          if (pos_ >= s_.size() || s_[pos_] != ':') Unexpected();
          pos_++;
          SkipSpace();
          n.keys.push_back(std::move(key));
          n.elements.push_back(ParseValue(depth + 1));
          SkipSpace();
          if (pos_ < s_.size() && s_[pos_] == ',') {
            pos_++;
            continue;
          }
          if (pos_ < s_.size() && s_[pos_] == '}') {
            pos_++;
            break;
          }
          Unexpected();
        }
      }
    } else if (c == '[') {
      n.kind = Node::kArray;
      pos_++;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        pos_++;
      } else {
        while (true) {
          SkipSpace();
          n.elements.push_back(ParseValue(depth + 1));
          SkipSpace();
          if (pos_ < s_.size() && s_[pos_] == ',') {
            pos_++;
            continue;
          }
          if (pos_ < s_.size() && s_[pos_] == ']') {
            pos_++;
            break;
          }
          Unexpected();
        }
      }
    } else if (c == '"') {
      n.kind = Node::kString;
      n.string_value = ParseString();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      n.kind = Node::kNumber;
      ParseNumber();
    } else if (s_.substr(pos_, 4) == "true") {
      n.kind = Node::kTrue;
      pos_ += 4;
    } else if (s_.substr(pos_, 5) == "false") {
      n.kind = Node::kFalse;
      pos_ += 5;
    } else if (s_.substr(pos_, 4) == "null") {
      n.kind = Node::kNull;
      pos_ += 4;
    } else {
      Unexpected();
    }
    n.raw = s_.substr(start, pos_ - start);
    return n;
  }

  void ParseNumber() {
    auto digits = [&] {
      size_t d = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') pos_++;
      return pos_ - d;
    };
    if (s_[pos_] == '-') pos_++;
    if (pos_ < s_.size() && s_[pos_] == '0') {
      pos_++;
    } else if (digits() == 0) {
      Unexpected();
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      pos_++;
      if (digits() == 0) Unexpected();
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      pos_++;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) pos_++;
      if (digits() == 0) Unexpected();
    }
    if (pos_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_]))) Unexpected();
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  uint32_t Hex4() {
    if (pos_ + 4 > s_.size()) ThrowInvalid("\"\\u\" must be followed by four hexadecimal digits.");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
      char h = s_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= h - '0';
      else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
      else ThrowInvalid("\"\\u\" must be followed by four hexadecimal digits.");
    }
    return v;
  }

  // A string literal at pos_ (its opening quote), unescaped.
  std::string ParseString() {
    pos_++;
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) ThrowInvalid("The input string ended unexpectedly.");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        pos_--;
        ThrowInvalid(fmt::format("Character with value 0x{:02x} must be escaped.", static_cast<unsigned char>(c)));
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) ThrowInvalid("The input string ended unexpectedly.");
      char e = s_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          uint32_t cp = Hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (pos_ + 2 > s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
              ThrowInvalid("Unicode high surrogate must not follow a high surrogate.");
            pos_ += 2;
            uint32_t low = Hex4();
            if (low < 0xDC00 || low > 0xDFFF) ThrowInvalid("Unicode low surrogate must follow a high surrogate.");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            ThrowInvalid("Unicode low surrogate must follow a high surrogate.");
          }
          if (cp == 0 && jsonb_)
            throw SqlError("22P05", "unsupported Unicode escape sequence")
                .WithDetail("\\u0000 cannot be converted to text.");
          AppendUtf8(&out, cp);
          break;
        }
        default:
          ThrowInvalid(fmt::format("Escape sequence \"\\{}\" is invalid.", e));
      }
    }
  }

  std::string_view s_;
  bool jsonb_;
  size_t pos_ = 0;
};

}  // namespace

// jsonb's order of object keys: shorter first, then bytewise.
bool JsonbKeyLess(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

void WriteJsonb(const Node& n, std::string* out) {
  switch (n.kind) {
    case Node::kObject: {
      // The last of duplicate keys wins.
      std::map<std::string, const Node*, decltype(&JsonbKeyLess)> members(&JsonbKeyLess);
      for (size_t i = 0; i < n.keys.size(); i++) members[n.keys[i]] = &n.elements[i];
      out->push_back('{');
      bool first = true;
      for (const auto& [k, v] : members) {
        if (!first) out->append(", ");
        first = false;
        AppendJsonString(out, k);
        out->append(": ");
        WriteJsonb(*v, out);
      }
      out->push_back('}');
      break;
    }
    case Node::kArray: {
      out->push_back('[');
      for (size_t i = 0; i < n.elements.size(); i++) {
        if (i) out->append(", ");
        WriteJsonb(n.elements[i], out);
      }
      out->push_back(']');
      break;
    }
    case Node::kString: AppendJsonString(out, n.string_value); break;
    case Node::kNumber: out->append(DecimalToString(DecimalFromString(n.raw))); break;
    case Node::kTrue: out->append("true"); break;
    case Node::kFalse: out->append("false"); break;
    case Node::kNull: out->append("null"); break;
  }
}

Node Parse(std::string_view text, bool jsonb) { return Parser(text, jsonb).ParseDocument(); }

}  // namespace freshet::json_detail

namespace freshet {

using namespace json_detail;

void CheckJsonText(std::string_view text) { Parse(text); }

std::string NormalizeJsonb(std::string_view text) {
  Node n = Parse(text, true);
  std::string out;
  WriteJsonb(n, &out);
  return out;
}

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out->append(fmt::format("\\u{:04x}", static_cast<unsigned char>(c)));
        else out->push_back(c);
    }
  }
  out->push_back('"');
}

std::optional<std::string> JsonObjectField(std::string_view json, std::string_view key) {
  Node n = Parse(json);
  if (n.kind != Node::kObject) return std::nullopt;
  for (size_t i = n.keys.size(); i-- > 0;)
    if (n.keys[i] == key) return std::string(n.elements[i].raw);
  return std::nullopt;
}

std::optional<std::string> JsonArrayElement(std::string_view json, int64_t index) {
  Node n = Parse(json);
  if (n.kind != Node::kArray) return std::nullopt;
  int64_t size = static_cast<int64_t>(n.elements.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return std::nullopt;
  return std::string(n.elements[index].raw);
}

std::string JsonTypeOf(std::string_view json) {
  switch (Parse(json).kind) {
    case Node::kObject: return "object";
    case Node::kArray: return "array";
    case Node::kString: return "string";
    case Node::kNumber: return "number";
    case Node::kTrue:
    case Node::kFalse: return "boolean";
    case Node::kNull: return "null";
  }
  return "null";
}

std::optional<int64_t> JsonArrayLength(std::string_view json) {
  Node n = Parse(json);
  if (n.kind != Node::kArray) return std::nullopt;
  return static_cast<int64_t>(n.elements.size());
}

std::optional<std::string> JsonAsText(std::string_view json) {
  Node n = Parse(json);
  if (n.kind == Node::kNull) return std::nullopt;
  if (n.kind == Node::kString) return n.string_value;
  return std::string(n.raw);
}

}  // namespace freshet
