// jsonb's operators and functions (PostgreSQL 15's jsonfuncs.c and
// jsonb_op.c, on our jsonb text): containment, existence, concatenation,
// deletion, jsonb_set/jsonb_insert, and the rows of the json(b)_each,
// json(b)_array_elements and json(b)_object_keys families.

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "common/decimal.h"
#include "common/encoding.h"
#include "common/error.h"
#include "common/json.h"
#include "common/json_internal.h"

namespace freshet {

using namespace json_detail;

namespace {

bool IsContainer(const Node& n) { return n.kind == Node::kObject || n.kind == Node::kArray; }

bool ScalarEqual(const Node& a, const Node& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Node::kString: return a.string_value == b.string_value;
    case Node::kNumber: return DecimalCompare(DecimalFromString(a.raw), DecimalFromString(b.raw)) == 0;
    default: return true;  // true, false, null
  }
}

// The value of an object's key (the last of duplicates, as jsonb keeps).
const Node* Member(const Node& object, std::string_view key) {
  for (size_t i = object.keys.size(); i-- > 0;)
    if (object.keys[i] == key) return &object.elements[i];
  return nullptr;
}

// PostgreSQL's JsonbDeepContains: does a contain b (same kinds)?
bool Contains(const Node& a, const Node& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Node::kObject) {
    for (size_t i = 0; i < b.keys.size(); i++) {
      const Node* av = Member(a, b.keys[i]);
      const Node& bv = b.elements[i];
      if (!av) return false;
      if (IsContainer(bv) ? !Contains(*av, bv) : !ScalarEqual(*av, bv)) return false;
    }
    return true;
  }
  if (a.kind == Node::kArray) {
    for (const Node& bv : b.elements) {
      bool found = std::any_of(a.elements.begin(), a.elements.end(), [&](const Node& av) {
        return IsContainer(bv) ? Contains(av, bv) : ScalarEqual(av, bv);
      });
      if (!found) return false;
    }
    return true;
  }
  return ScalarEqual(a, b);
}

// A scalar root is a one-element array for the operators that treat it so.
Node AsArray(const Node& n) {
  if (n.kind == Node::kArray) return n;
  Node array;
  array.kind = Node::kArray;
  array.elements.push_back(n);
  return array;
}

std::string Write(const Node& n) {
  std::string out;
  WriteJsonb(n, &out);
  return out;
}

[[noreturn]] void ThrowParameter(const std::string& message) {
  throw SqlError(sqlstate::kInvalidParameterValue, message);
}

// A path step on an array: PostgreSQL's integer input, else 22P02.
int64_t PathIndex(const std::string& step, size_t position) {
  const char* s = step.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  while (end && (*end == ' ' || *end == '\t' || *end == '\n')) end++;
  if (step.empty() || end == s || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) {
    throw SqlError(sqlstate::kInvalidTextRepresentation,
                   fmt::format("path element at position {} is not an integer: \"{}\"", position + 1, step));
  }
  return v;
}

std::vector<std::string> CheckPath(const std::vector<std::optional<std::string>>& path) {
  std::vector<std::string> out;
  for (size_t i = 0; i < path.size(); i++) {
    if (!path[i])
      throw SqlError("22004", fmt::format("path element at position {} is null", i + 1));
    out.push_back(*path[i]);
  }
  return out;
}

// jsonb_set / jsonb_insert / #-: what to do at the path's end.
enum class PathOp { kSet, kInsertBefore, kInsertAfter, kDelete };

// PostgreSQL's setPath over n at path[level..]; `value` is the new node for
// kSet and the inserts. A missing step leaves n unchanged.
void ApplyPath(Node* n, const std::vector<std::string>& path, size_t level, PathOp op, const Node* value,
               bool create) {
  bool last = level + 1 == path.size();
  if (n->kind == Node::kObject) {
    // Duplicates are gone from jsonb text: at most one member has the key.
    auto it = std::find(n->keys.begin(), n->keys.end(), path[level]);
    if (it == n->keys.end()) {
      if (last && (op == PathOp::kSet ? create : op != PathOp::kDelete)) {
        n->keys.push_back(path[level]);
        n->elements.push_back(*value);
      }
      return;
    }
    size_t i = it - n->keys.begin();
    if (!last) return ApplyPath(&n->elements[i], path, level + 1, op, value, create);
    switch (op) {
      case PathOp::kSet: n->elements[i] = *value; return;
      case PathOp::kDelete:
        n->keys.erase(n->keys.begin() + i);
        n->elements.erase(n->elements.begin() + i);
        return;
      default:
        throw SqlError(sqlstate::kInvalidParameterValue, "cannot replace existing key")
            .WithHint("Try using the function jsonb_set to replace key value.");
    }
  }
  if (n->kind != Node::kArray) return;  // a scalar on the way: unchanged
  int64_t size = static_cast<int64_t>(n->elements.size());
  int64_t idx = PathIndex(path[level], level);
  bool before_start = false;
  if (idx < 0) {
    if (-idx > size) before_start = true;
    else idx += size;
  }
  if (idx > size) idx = size;
  if (!last) {
    if (!before_start && idx < size) ApplyPath(&n->elements[idx], path, level + 1, op, value, create);
    return;
  }
  switch (op) {
    case PathOp::kDelete:
      if (!before_start && idx < size) n->elements.erase(n->elements.begin() + idx);
      return;
    case PathOp::kSet:
      if (!before_start && idx < size) {
        n->elements[idx] = *value;
      } else if (create) {
        n->elements.insert(before_start || size == 0 ? n->elements.begin() : n->elements.end(), *value);
      }
      return;
    case PathOp::kInsertBefore:
    case PathOp::kInsertAfter: {
      if (before_start || size == 0) {
        n->elements.insert(n->elements.begin(), *value);
      } else if (idx >= size) {
        n->elements.push_back(*value);
      } else {
        n->elements.insert(n->elements.begin() + idx + (op == PathOp::kInsertAfter ? 1 : 0), *value);
      }
      return;
    }
  }
}

}  // namespace

namespace {

void PutBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

// A JSON number by value, any size: a class byte (negative, zero,
// positive), then for the magnitude 0.d1d2... x 10^e the exponent and the
// significant digits ended by 0x00 (inverted for negatives).
void PutNumberKey(std::string_view raw, std::string* out) {
  bool negative = !raw.empty() && raw[0] == '-';
  if (negative) raw.remove_prefix(1);
  std::string digits;
  int64_t point = 0;  // digits before the decimal point
  bool after_point = false;
  size_t i = 0;
  for (; i < raw.size(); i++) {
    char c = raw[i];
    if (c == '.') {
      after_point = true;
    } else if (c >= '0' && c <= '9') {
      digits.push_back(c);
      if (!after_point) point++;
    } else {
      break;  // an exponent
    }
  }
  if (i < raw.size() && (raw[i] == 'e' || raw[i] == 'E')) {
    std::string_view e = raw.substr(i + 1);
    bool minus = !e.empty() && e[0] == '-';
    if (!e.empty() && (e[0] == '-' || e[0] == '+')) e.remove_prefix(1);
    int64_t exponent = 0;
    for (char c : e) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), int64_t(1) << 40);
    point += minus ? -exponent : exponent;
  }
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    out->push_back(2);  // zero
    return;
  }
  point -= static_cast<int64_t>(first);
  digits.erase(0, first);
  digits.erase(digits.find_last_not_of('0') + 1);
  std::string magnitude;
  PutBigEndian32(static_cast<uint32_t>(std::clamp<int64_t>(point, INT32_MIN, INT32_MAX) + (int64_t(1) << 31)),
                 &magnitude);
  magnitude += digits;
  magnitude.push_back(0);
  out->push_back(negative ? 1 : 3);
  for (char c : magnitude) out->push_back(negative ? static_cast<char>(~static_cast<uint8_t>(c)) : c);
}

// A value inside a container: a tag in PostgreSQL's type order (null,
// string, number, boolean, array, object), then its contents.
void PutNestedKey(const Node& n, std::string* out);

void PutPairsKey(const Node& n, std::string* out) {
  // Key order, the last of duplicate keys kept (as jsonb stores them).
  std::map<std::string, const Node*, decltype(&JsonbKeyLess)> members(&JsonbKeyLess);
  for (size_t i = 0; i < n.keys.size(); i++) members[n.keys[i]] = &n.elements[i];
  PutBigEndian32(static_cast<uint32_t>(members.size()), out);
  for (const auto& [key, value] : members) {
    EncodeStringKey(key, out);
    PutNestedKey(*value, out);
  }
}

void PutNestedKey(const Node& n, std::string* out) {
  switch (n.kind) {
    case Node::kNull: out->push_back(1); break;
    case Node::kString:
      out->push_back(2);
      EncodeStringKey(n.string_value, out);
      break;
    case Node::kNumber:
      out->push_back(3);
      PutNumberKey(n.raw, out);
      break;
    case Node::kFalse:
    case Node::kTrue:
      out->push_back(4);
      out->push_back(n.kind == Node::kTrue ? 1 : 0);
      break;
    case Node::kArray:
      out->push_back(5);
      PutBigEndian32(static_cast<uint32_t>(n.elements.size()), out);
      for (const Node& e : n.elements) PutNestedKey(e, out);
      break;
    case Node::kObject:
      out->push_back(6);
      PutPairsKey(n, out);
      break;
  }
}

}  // namespace

std::string JsonbSortKey(std::string_view jsonb) {
  Node n;
  try {
    n = Parse(jsonb, /*jsonb=*/true);
  } catch (const SqlError&) {
    return std::string(jsonb);
  }
  std::string out;
  // At the top PostgreSQL keeps a scalar as a one-element array that sorts
  // after the empty array and before every other one: arrays count twice
  // their elements, a scalar one.
  if (n.kind == Node::kObject) {
    out.push_back(0x20);
    PutPairsKey(n, &out);
  } else if (n.kind == Node::kArray) {
    out.push_back(0x10);
    PutBigEndian32(static_cast<uint32_t>(2 * n.elements.size()), &out);
    for (const Node& e : n.elements) PutNestedKey(e, &out);
  } else {
    out.push_back(0x10);
    PutBigEndian32(1, &out);
    PutNestedKey(n, &out);
  }
  return out;
}

bool JsonbContains(std::string_view a, std::string_view b) {
  Node na = Parse(a), nb = Parse(b);
  // A top-level array contains the scalars among its elements.
  if (na.kind == Node::kArray && !IsContainer(nb)) return Contains(na, AsArray(nb));
  return Contains(na, nb);
}

bool JsonbExists(std::string_view json, const std::vector<std::string>& keys, bool all) {
  Node n = Parse(json);
  if (n.kind != Node::kObject) n = AsArray(n);
  auto has = [&](const std::string& key) {
    if (n.kind == Node::kObject) return Member(n, key) != nullptr;
    return std::any_of(n.elements.begin(), n.elements.end(),
                       [&](const Node& e) { return e.kind == Node::kString && e.string_value == key; });
  };
  if (all) return std::all_of(keys.begin(), keys.end(), has);
  return std::any_of(keys.begin(), keys.end(), has);
}

std::string JsonbConcat(std::string_view a, std::string_view b) {
  Node na = Parse(a), nb = Parse(b);
  if (na.kind == Node::kObject && nb.kind == Node::kObject) {
    for (size_t i = 0; i < nb.keys.size(); i++) {
      na.keys.push_back(nb.keys[i]);  // the later duplicate wins when written
      na.elements.push_back(nb.elements[i]);
    }
    return Write(na);
  }
  Node out = AsArray(na);
  Node right = AsArray(nb);
  out.elements.insert(out.elements.end(), right.elements.begin(), right.elements.end());
  return Write(out);
}

std::string JsonbDeleteKeys(std::string_view json, const std::vector<std::string>& keys) {
  Node n = Parse(json);
  if (!IsContainer(n)) ThrowParameter("cannot delete from scalar");
  auto doomed = [&](const std::string& s) { return std::find(keys.begin(), keys.end(), s) != keys.end(); };
  Node out;
  out.kind = n.kind;
  for (size_t i = 0; i < n.elements.size(); i++) {
    if (n.kind == Node::kObject) {
      if (doomed(n.keys[i])) continue;
      out.keys.push_back(n.keys[i]);
    } else if (n.elements[i].kind == Node::kString && doomed(n.elements[i].string_value)) {
      continue;
    }
    out.elements.push_back(n.elements[i]);
  }
  return Write(out);
}

std::string JsonbDeleteIndex(std::string_view json, int64_t index) {
  Node n = Parse(json);
  if (n.kind == Node::kObject) ThrowParameter("cannot delete from object using integer index");
  if (n.kind != Node::kArray) ThrowParameter("cannot delete from scalar");
  int64_t size = static_cast<int64_t>(n.elements.size());
  if (index < 0) index += size;
  if (index >= 0 && index < size) n.elements.erase(n.elements.begin() + index);
  return Write(n);
}

std::string JsonbDeletePath(std::string_view json, const std::vector<std::optional<std::string>>& path) {
  Node n = Parse(json);
  if (!IsContainer(n)) ThrowParameter("cannot delete path in scalar");
  std::vector<std::string> steps = CheckPath(path);
  if (!steps.empty()) ApplyPath(&n, steps, 0, PathOp::kDelete, nullptr, false);
  return Write(n);
}

namespace {

// jsonb_set and jsonb_insert: `value` put at the path.
std::string PutAtPath(std::string_view json, const std::vector<std::optional<std::string>>& path,
                      std::string_view value, PathOp op, bool create) {
  Node n = Parse(json);
  if (!IsContainer(n)) ThrowParameter("cannot set path in scalar");
  std::vector<std::string> steps = CheckPath(path);
  Node v = Parse(value);
  if (!steps.empty()) ApplyPath(&n, steps, 0, op, &v, create);
  return Write(n);
}

}  // namespace

std::string JsonbSetPath(std::string_view json, const std::vector<std::optional<std::string>>& path,
                         std::string_view value, bool create_missing) {
  return PutAtPath(json, path, value, PathOp::kSet, create_missing);
}

std::string JsonbInsertPath(std::string_view json, const std::vector<std::optional<std::string>>& path,
                            std::string_view value, bool after) {
  return PutAtPath(json, path, value, after ? PathOp::kInsertAfter : PathOp::kInsertBefore, true);
}

std::vector<std::pair<std::string, std::string>> JsonMembers(std::string_view json, std::string_view function) {
  Node n = Parse(json);
  if (n.kind != Node::kObject) {
    if (function.starts_with("jsonb")) ThrowParameter(fmt::format("cannot call {} on a non-object", function));
    ThrowParameter(n.kind == Node::kArray ? "cannot deconstruct an array as an object" : "cannot deconstruct a scalar");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < n.keys.size(); i++) out.emplace_back(n.keys[i], std::string(n.elements[i].raw));
  return out;
}

std::vector<std::string> JsonElements(std::string_view json, std::string_view function) {
  Node n = Parse(json);
  bool jsonb = function.starts_with("jsonb");
  if (n.kind == Node::kObject)
    ThrowParameter(jsonb ? "cannot extract elements from an object" : fmt::format("cannot call {} on a non-array", function));
  if (n.kind != Node::kArray)
    ThrowParameter(jsonb ? "cannot extract elements from a scalar" : fmt::format("cannot call {} on a scalar", function));
  std::vector<std::string> out;
  for (const Node& e : n.elements) out.emplace_back(e.raw);
  return out;
}

std::vector<std::string> JsonObjectKeys(std::string_view json, std::string_view function) {
  Node n = Parse(json);
  if (n.kind == Node::kArray) ThrowParameter(fmt::format("cannot call {} on an array", function));
  if (n.kind != Node::kObject) ThrowParameter(fmt::format("cannot call {} on a scalar", function));
  return n.keys;
}

}  // namespace freshet
