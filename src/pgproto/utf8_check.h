// UTF-8 validation of what clients send, as PostgreSQL's pg_verify_mbstr
// does for a UTF8 database: every string of a protocol message (query text,
// statement and portal names), text parameters and text-like binary
// parameters, and COPY data. Invalid sequences (overlong forms, surrogates,
// code points past U+10FFFF, stray continuation bytes, a sequence cut short)
// and NUL bytes are refused with 22021 and PostgreSQL's message, naming the
// bytes of the offending character:
//
//   invalid byte sequence for encoding "UTF8": 0xc3 0x28
//
// The validator reads eight bytes at a time while they are ASCII (no high
// bit, no zero byte), so text that is mostly ASCII costs about a memory scan.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace freshet {

// PostgreSQL's ERRCODE_CHARACTER_NOT_IN_REPERTOIRE.
inline constexpr const char* kCharacterNotInRepertoire = "22021";

// The length of the longest prefix of data[0, n) made of whole valid
// characters (no NUL). Equal to n when all of it is valid. When the rest is
// only the beginning of a valid character cut off by the end of the data,
// *truncated is set (a caller reading a stream can wait for more bytes).
size_t Utf8ValidPrefix(const char* data, size_t n, bool* truncated = nullptr);

inline bool IsValidUtf8(std::string_view s) { return Utf8ValidPrefix(s.data(), s.size()) == s.size(); }

// PostgreSQL's message for the invalid character at `bad` (the rest of
// the data being `remaining` bytes): its bytes, as many as its first byte
// announces, within what is there.
std::string InvalidUtf8Message(const char* bad, size_t remaining);

// Throws SqlError 22021 unless s is valid UTF-8 without NUL bytes.
void CheckUtf8(std::string_view s);

}  // namespace freshet
