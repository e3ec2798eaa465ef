// Internals shared by json.cc and jsonb.cc: the parsed form of a JSON text
// and jsonb's writer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace freshet::json_detail {

// A parsed JSON value: its kind, its raw text, and for containers the
// parts (object members in input order).
struct Node {
  enum Kind { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull } kind = kNull;
  std::string_view raw;
  std::string string_value;                          // kString: unescaped
  // kObject: member i is keys[i]: elements[i] (vector<Node> may hold the
  // incomplete Node; a pair of it may not). kArray: the elements.
  std::vector<std::string> keys;
  std::vector<Node> elements;
};

// Parses one JSON value (jsonb: \u0000 refused); throws PostgreSQL's errors.
// The nodes' raw views point into `text`.
Node Parse(std::string_view text, bool jsonb = false);
// Writes n as jsonb_out prints it (keys ordered, duplicates dropped).
void WriteJsonb(const Node& n, std::string* out);
// jsonb's order of object keys: shorter first, then bytewise.
bool JsonbKeyLess(const std::string& a, const std::string& b);

}  // namespace freshet::json_detail
