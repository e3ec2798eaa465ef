// regexp_split_to_array / regexp_split_to_table and regexp_matches.
//
// RegexpSplit: the pieces of a string
// between the matches of a pattern, as PostgreSQL splits (zero-length
// matches at the start or end of the string, or right after a previous
// match, are ignored; without a match the string is the one piece).
// flags: 'i' case-insensitive, 'c' case-sensitive; 'g' is refused (22023)
// as PostgreSQL does; an invalid pattern is 2201B.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace freshet {

std::vector<std::string> RegexpSplit(std::string_view text, std::string_view pattern, std::string_view flags,
                                     const char* function);

// regexp_matches(string, pattern [, flags]): for each match (every one
// with 'g', else the first), its capture groups as a text[] (the whole
// match without groups; NULL elements for groups that took no part), as
// the text of the array. 'i' is case-insensitive; 2201B for a bad pattern.
std::vector<std::string> RegexpMatches(std::string_view text, std::string_view pattern, std::string_view flags);

}  // namespace freshet
