// SQL identifiers: quoting for output and splitting qualified names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace freshet {

// PostgreSQL's quote_ident: the name as is when it is a lower-case
// identifier ([a-z_][a-z0-9_]*) and not a reserved keyword, else in double
// quotes with embedded quotes doubled.
std::string QuoteIdent(std::string_view name);

// PostgreSQL's quote_literal: the text in single quotes with quotes
// doubled; with E'' and backslashes doubled when it has any.
std::string QuoteLiteral(std::string_view text);

// Identifiers are at most 63 bytes (NAMEDATALEN - 1), as PostgreSQL
// stores them: longer ones are cut there, not inside a character.
constexpr size_t kMaxIdentifierBytes = 63;
std::string_view TruncatedIdentifier(std::string_view name);

// Splits `a.b.c` into its parts: unquoted parts are lower-cased, quoted
// ones ("My ""T""") kept verbatim, surrounding whitespace ignored, each
// cut to kMaxIdentifierBytes. Returns an empty vector when the text is
// not a valid qualified name.
std::vector<std::string> SplitQualifiedName(std::string_view text);

// ASCII letters lower-cased, as PostgreSQL folds unquoted names and
// setting names.
std::string LowerAscii(std::string_view text);

}  // namespace freshet
