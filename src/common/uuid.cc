#include "common/uuid.h"

#include <fmt/format.h>

#include <random>

#include "common/error.h"
#include "common/hex.h"

namespace freshet {

namespace {

std::string Canonical(const unsigned char bytes[16]) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

}  // namespace

std::optional<std::string> ParseUuid(std::string_view text) {
  // As uuid_in (string_to_uuid): optional braces, then 32 hex digits with
  // a hyphen allowed after each group of four.
  size_t i = 0;
  bool braces = !text.empty() && text[0] == '{';
  if (braces) i = 1;
  unsigned char bytes[16];
  for (int b = 0; b < 16; b++) {
    if (i + 1 >= text.size()) return std::nullopt;
    int hi = HexDigit(text[i]), lo = HexDigit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes[b] = static_cast<unsigned char>(hi << 4 | lo);
    i += 2;
    if (b % 2 == 1 && b < 15 && i < text.size() && text[i] == '-') i++;
  }
  if (braces) {
    if (i >= text.size() || text[i] != '}') return std::nullopt;
    i++;
  }
  if (i != text.size()) return std::nullopt;
  return Canonical(bytes);
}

std::string UuidInput(std::string_view text) {
  std::optional<std::string> uuid = ParseUuid(text);
  if (!uuid) FRESHET_THROW(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type uuid: \"{}\"", text);
  return *uuid;
}

std::string UuidToBytes(std::string_view canonical) {
  std::string out;
  out.reserve(16);
  for (size_t i = 0; i + 1 < canonical.size(); i++) {
    if (canonical[i] == '-') continue;
    out.push_back(static_cast<char>(HexDigit(canonical[i]) << 4 | HexDigit(canonical[i + 1])));
    i++;
  }
  return out;
}

std::string UuidFromBytes(std::string_view bytes) {
  if (bytes.size() != 16) throw SqlError(sqlstate::kInvalidBinaryRepresentation, "invalid uuid length");
  return Canonical(reinterpret_cast<const unsigned char*>(bytes.data()));
}

std::string VersionedUuid(unsigned char bytes[16], int version) {
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | (version << 4));
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return Canonical(bytes);
}

std::string RandomUuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  unsigned char bytes[16];
  uint64_t a = rng(), b = rng();
  for (int i = 0; i < 8; i++) {
    bytes[i] = static_cast<unsigned char>(a >> (8 * i));
    bytes[8 + i] = static_cast<unsigned char>(b >> (8 * i));
  }
  return VersionedUuid(bytes, 4);
}

}  // namespace freshet
