// JSON text, as PostgreSQL's json and jsonb types read and write it.
//
// json values are kept as the text the client sent, checked to be JSON;
// jsonb values are kept normalized, as PostgreSQL's jsonb_out prints them:
// object keys ordered by length then bytes, the last of duplicate keys
// kept, ": " and ", " between items, strings with their escapes decoded and
// re-escaped, numbers as numeric prints them (1e2 is 100, 1.0 stays 1.0).
// Equal text is an equal value; values compare with JsonbSortKey (1.0 = 1).
//
// Errors are PostgreSQL's: 22P02 "invalid input syntax for type json" with
// a DETAIL, 22P05 for \u0000 in jsonb, 54001 past kMaxJsonDepth levels of
// nesting (a bound that keeps hostile input from exhausting the stack).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace freshet {

inline constexpr int kMaxJsonDepth = 1000;

// Throws unless `text` is one JSON value (with surrounding whitespace).
void CheckJsonText(std::string_view text);
// The jsonb text of a JSON value.
std::string NormalizeJsonb(std::string_view text);

// A JSON string literal of `s` (quotes and PostgreSQL's escapes).
void AppendJsonString(std::string* out, std::string_view s);

// Parts of a valid JSON text (json or jsonb), as the raw text of the part:
// an object's member (the last of that name, as jsonb keeps; nullopt when
// none or not an object), an array's element (negative indexes count from
// the end; nullopt when out of range or not an array).
std::optional<std::string> JsonObjectField(std::string_view json, std::string_view key);
std::optional<std::string> JsonArrayElement(std::string_view json, int64_t index);
// "object", "array", "string", "number", "boolean" or "null".
std::string JsonTypeOf(std::string_view json);
// The number of elements of an array; nullopt when not an array.
std::optional<int64_t> JsonArrayLength(std::string_view json);
// The text ->> gives for a JSON part: a string's value unescaped, null as
// nullopt, anything else as its text.
std::optional<std::string> JsonAsText(std::string_view json);

// jsonb's order as PostgreSQL's btree has it (compareJsonbContainers), as
// bytes that compare with memcmp: a top-level empty array first, then
// scalars (null < strings < numbers < booleans), then arrays by their
// number of elements, then objects by their number of pairs; within a
// container the elements, or the pairs in key order, one by one (strings
// bytewise, numbers by value: 1.0 equals 1). Equal values have equal keys,
// so it serves equality, hashing, grouping and ORDER BY; it does not
// decode back (1.0 and 1 share it). Not jsonb text: the text itself.
std::string JsonbSortKey(std::string_view jsonb);

// jsonb's operators and functions (common/jsonb.cc), with PostgreSQL 15's
// semantics and errors. Arguments are jsonb text; results are jsonb text.
// A scalar at the top is a one-element array where PostgreSQL treats it so.
bool JsonbContains(std::string_view a, std::string_view b);  // a @> b
// j ? key (all false: ?| keys; all true: ?& keys): object keys, or string
// elements of an array.
bool JsonbExists(std::string_view j, const std::vector<std::string>& keys, bool all);
std::string JsonbConcat(std::string_view a, std::string_view b);  // a || b
// j - key / j - keys: object members, or an array's equal string elements;
// a scalar: 22023.
std::string JsonbDeleteKeys(std::string_view j, const std::vector<std::string>& keys);
std::string JsonbDeleteIndex(std::string_view j, int64_t index);  // j - n
// Paths are text[] whose elements may be NULL (22004); array steps must be
// integers (22P02).
std::string JsonbDeletePath(std::string_view j, const std::vector<std::optional<std::string>>& path);  // #-
std::string JsonbSetPath(std::string_view j, const std::vector<std::optional<std::string>>& path,
                         std::string_view value, bool create_missing);  // jsonb_set
std::string JsonbInsertPath(std::string_view j, const std::vector<std::optional<std::string>>& path,
                            std::string_view value, bool after);  // jsonb_insert

// Rows of the set-returning functions, each part as its raw JSON text (json:
// as written, duplicates kept; jsonb: normalized). `function` names the
// caller in PostgreSQL's errors ("cannot call jsonb_each on a non-object").
std::vector<std::pair<std::string, std::string>> JsonMembers(std::string_view json, std::string_view function);
std::vector<std::string> JsonElements(std::string_view json, std::string_view function);
std::vector<std::string> JsonObjectKeys(std::string_view json, std::string_view function);

}  // namespace freshet
