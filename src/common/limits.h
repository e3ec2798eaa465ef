// PostgreSQL's limit on the size of one value, and its errors.
//
// PostgreSQL allocates a value in one piece of at most MaxAllocSize
// (1 GB - 1) bytes, its 4-byte varlena header included, so no text, bytea
// or array is larger than kMaxValueBytes, and an array has at most
// MaxArraySize (kMaxArrayElements) elements. Freshet keeps the same limits,
// so that no statement a client sends can make the server build a value of
// several gigabytes (and run out of memory): every function whose result
// can outgrow its arguments checks the size here, with PostgreSQL's
// SQLSTATE (54000, program_limit_exceeded) and message, before it allocates
// the result when the size can be computed first (repeat, lpad, ||, concat,
// replace...), or as it appends otherwise (string_agg, array_to_string), so
// that it never holds more than the limit.
//
// Where PostgreSQL fails with its internal "invalid memory alloc request
// size" (XX000: palloc refusing more than MaxAllocSize), Freshet gives the
// same message with 54000: it is the user's request that is too large.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace freshet {

// MaxAllocSize: the largest allocation PostgreSQL makes for one value.
inline constexpr uint64_t kMaxAllocSize = 0x3fffffff;
// VARHDRSZ: the length header in front of a text, bytea or array.
inline constexpr uint64_t kVarHeaderSize = 4;
// The largest text or bytea value, in bytes: 1,073,741,819.
inline constexpr uint64_t kMaxValueBytes = kMaxAllocSize - kVarHeaderSize;
// MaxArraySize: the most elements of an array (MaxAllocSize / sizeof(Datum)).
inline constexpr uint64_t kMaxArrayElements = kMaxAllocSize / 8;
// PostgreSQL's largest character: a UTF-8 character takes up to 4 bytes
// (pg_database_encoding_max_length()); lpad and rpad reserve that much per
// character.
inline constexpr uint64_t kMaxCharBytes = 4;

// a * b, or UINT64_MAX when it overflows.
inline uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

// 54000 "requested length too large" (lpad, rpad, repeat, to_char...).
[[noreturn]] void ThrowRequestedLengthTooLarge();
// 54000 "requested length too large" when a result of `bytes` bytes would
// be larger than a value can be.
inline void CheckRequestedLength(uint64_t bytes) {
  if (bytes > kMaxValueBytes) ThrowRequestedLengthTooLarge();
}

// 54000 "invalid memory alloc request size N" when a value of `bytes` bytes
// would be larger than a value can be; N counts the header, as
// PostgreSQL's palloc request does (text || text, byteaout).
void CheckValueSize(uint64_t bytes);

// PostgreSQL's StringInfo: 54000 "out of memory", DETAIL "Cannot enlarge
// string buffer containing H bytes by M more bytes.", when a string of
// `have` bytes cannot take `more` (concat, string_agg, replace...).
[[noreturn]] void ThrowCannotEnlarge(uint64_t have, uint64_t more);
inline void CheckEnlarge(uint64_t have, uint64_t more) {
  if (more > kMaxValueBytes || have > kMaxValueBytes - more) ThrowCannotEnlarge(have, more);
}
// Appends `piece` to *out after CheckEnlarge.
inline void AppendLimited(std::string* out, std::string_view piece) {
  CheckEnlarge(out->size(), piece.size());
  out->append(piece);
}

// 54000 "array size exceeds the maximum allowed (134217727)" for more than
// kMaxArrayElements elements.
void CheckArrayElements(uint64_t count);
// 54000 "array size exceeds the maximum allowed (1073741823)" for an array
// whose bytes would be larger than a value can be.
void CheckArrayBytes(uint64_t bytes);

// Counts the bytes a string would get, with CheckEnlarge at each append:
// the first pass of BuildLimitedString. It has the members of std::string
// that the writers use.
class LimitedStringSizer {
 public:
  LimitedStringSizer& append(std::string_view s) {
    CheckEnlarge(size_, s.size());
    size_ += s.size();
    return *this;
  }
  LimitedStringSizer& append(size_t count, char) {
    CheckEnlarge(size_, count);
    size_ += count;
    return *this;
  }
  LimitedStringSizer& operator+=(std::string_view s) { return append(s); }
  LimitedStringSizer& operator+=(char) { return append(1, ' '); }
  void push_back(char) { append(1, ' '); }
  void reserve(size_t) {}
  size_t size() const { return size_; }

 private:
  uint64_t size_ = 0;
};

// Builds a string in two passes of `write(out)`, a generic lambda that
// appends to `out` with append/+=/push_back: the first counts the bytes
// (LimitedStringSizer, which throws the StringInfo error PostgreSQL gives
// at the same append) without allocating anything, the second writes into
// a std::string reserved to the exact size. `write` must append the same
// pieces both times.
template <typename F>
std::string BuildLimitedString(F&& write) {
  LimitedStringSizer sizer;
  write(sizer);
  std::string out;
  out.reserve(sizer.size());
  write(out);
  return out;
}

}  // namespace freshet
