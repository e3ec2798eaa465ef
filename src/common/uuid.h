// uuid values: PostgreSQL's uuid type, kept as its canonical text (32
// lowercase hex digits grouped 8-4-4-4-12), whose order is the order of
// the 16 bytes PostgreSQL compares.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace freshet {

// The canonical text of a uuid written as PostgreSQL's uuid_in reads it:
// 32 hex digits in either case, optionally in braces, with a hyphen after
// any group of four digits; nullopt for anything else.
std::optional<std::string> ParseUuid(std::string_view text);
// The canonical text as a value of the uuid type: 22P02 when it is not one.
std::string UuidInput(std::string_view text);
// uuid_send / uuid_recv: the 16 bytes.
std::string UuidToBytes(std::string_view canonical);
std::string UuidFromBytes(std::string_view bytes);
// gen_random_uuid(), uuid_generate_v4(): a version 4 (random) uuid.
std::string RandomUuid();
// The canonical text of 16 bytes with the version nibble set to `version`
// and RFC 4122's variant bits (uuid-ossp's v1, v3 and v5 builders).
std::string VersionedUuid(unsigned char bytes[16], int version);

}  // namespace freshet
