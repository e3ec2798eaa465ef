#include "common/identifier.h"

#include <unordered_set>

namespace freshet {

namespace {

const std::unordered_set<std::string_view>& QuotedKeywords() {
  // PostgreSQL's reserved, type/function-name and column-name keywords:
  // every keyword quote_ident quotes (unreserved ones are left alone).
  static const std::unordered_set<std::string_view> kWords = {
      "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast",
      "check", "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role",
      "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do",
      "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in",
      "initially", "intersect", "into", "lateral", "leading", "limit", "localtime", "localtimestamp", "not",
      "null", "offset", "on", "only", "or", "order", "placing", "primary", "references", "returning", "select",
      "session_user", "some", "symmetric", "table", "then", "to", "trailing", "true", "union", "unique", "user",
      "using", "variadic", "when", "where", "window", "with",
      // type_func_name_keyword
      "authorization", "binary", "collation", "concurrently", "cross", "current_schema", "freeze", "full",
      "ilike", "inner", "is", "isnull", "join", "left", "like", "natural", "notnull", "outer", "overlaps",
      "right", "similar", "tablesample", "verbose",
      // col_name_keyword
      "between", "bigint", "bit", "boolean", "char", "character", "coalesce", "dec", "decimal", "exists",
      "extract", "float", "greatest", "grouping", "inout", "int", "integer", "interval", "least", "national",
      "nchar", "none", "normalize", "nullif", "numeric", "out", "overlay", "position", "precision", "real", "row",
      "setof", "smallint", "substring", "time", "timestamp", "treat", "trim", "values", "varchar",
      "xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse",
      "xmlpi", "xmlroot", "xmlserialize", "xmltable"};
  return kWords;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

std::string QuoteIdent(std::string_view name) {
  bool safe = !name.empty() && ((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_');
  for (char c : name) safe &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  if (safe && !QuotedKeywords().count(name)) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string QuoteLiteral(std::string_view text) {
  std::string out = text.find('\\') == std::string_view::npos ? "'" : "E'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  return out + "'";
}

std::string_view TruncatedIdentifier(std::string_view name) {
  if (name.size() <= kMaxIdentifierBytes) return name;
  size_t cut = kMaxIdentifierBytes;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) cut--;
  return name.substr(0, cut);
}

std::vector<std::string> SplitQualifiedName(std::string_view text) {
  std::vector<std::string> parts;
  size_t i = 0, n = text.size();
  while (true) {
    while (i < n && IsSpace(text[i])) i++;
    std::string part;
    if (i < n && text[i] == '"') {
      i++;
      bool closed = false;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            part += '"';
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        part += text[i++];
      }
      if (!closed || part.empty()) return {};
    } else {
      while (i < n && text[i] != '.' && !IsSpace(text[i])) {
        char c = text[i++];
        if (c == '"') return {};
        part += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      }
      if (part.empty()) return {};
    }
    parts.emplace_back(TruncatedIdentifier(part));
    while (i < n && IsSpace(text[i])) i++;
    if (i == n) return parts;
    if (text[i] != '.') return {};
    i++;
  }
}

std::string LowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

}  // namespace freshet
