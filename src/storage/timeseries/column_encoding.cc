#include "storage/timeseries/column_encoding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace freshet {

namespace {

uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Reads a varint at *pos; false when the bytes end or it runs past 64 bits.
bool GetVarint(std::string_view in, size_t* pos, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in[(*pos)++]);
    if (shift == 63 && byte > 1) return false;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

// Differences mod 2^64 (no signed overflow).
int64_t Sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t Add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }

class BitWriter {
 public:
  explicit BitWriter(std::string* out) : out_(out) {}
  void Put(uint64_t bits, int n) {  // the low n bits of `bits`, high first; n <= 64
    for (int i = n - 1; i >= 0; i--) {
      if (used_ == 0) out_->push_back(0);
      if ((bits >> i) & 1) out_->back() = static_cast<char>(out_->back() | (0x80 >> used_));
      used_ = (used_ + 1) % 8;
    }
  }

 private:
  std::string* out_;
  int used_ = 0;  // bits used of the last byte
};

class BitReader {
 public:
  explicit BitReader(std::string_view in) : in_(in) {}
  // The next n (0..64) bits, the first read the most significant.
  bool Get(int n, uint64_t* bits) {
    if (n == 0) {
      *bits = 0;
      return true;
    }
    if (pos_ + static_cast<size_t>(n) > in_.size() * 8) return false;
    const size_t byte = pos_ / 8;
    const int offset = static_cast<int>(pos_ % 8);
    if (n <= 56 && byte + 8 <= in_.size()) {
      // One 8-byte load holds the offset and n bits.
      uint64_t word = 0;
      for (int i = 0; i < 8; i++) word = (word << 8) | static_cast<uint8_t>(in_[byte + i]);
      *bits = (word << offset) >> (64 - n);
      pos_ += static_cast<size_t>(n);
      return true;
    }
    uint64_t v = 0;
    for (int left = n; left > 0;) {
      const int available = 8 - static_cast<int>(pos_ % 8);
      const int take = std::min(available, left);
      const uint8_t b = static_cast<uint8_t>(in_[pos_ / 8]);
      v = (v << take) | ((b >> (available - take)) & ((1u << take) - 1));
      pos_ += static_cast<size_t>(take);
      left -= take;
    }
    *bits = v;
    return true;
  }
  // Every byte was read (only padding bits left).
  bool AtEnd() const { return (pos_ + 7) / 8 == in_.size(); }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

void EncodeTimestampColumn(const std::vector<int64_t>& values, std::string* out) {
  int64_t previous = 0, previous_delta = 0;
  for (size_t i = 0; i < values.size(); i++) {
    if (i == 0) {
      PutVarint(ZigZag(values[0]), out);
    } else {
      const int64_t delta = Sub(values[i], previous);
      PutVarint(ZigZag(i == 1 ? delta : Sub(delta, previous_delta)), out);
      previous_delta = delta;
    }
    previous = values[i];
  }
}

bool DecodeTimestampColumn(std::string_view in, size_t count, std::vector<int64_t>* out) {
  out->clear();
  size_t pos = 0;
  int64_t previous = 0, delta = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t raw = 0;
    if (!GetVarint(in, &pos, &raw)) return false;
    if (i == 0) previous = UnZigZag(raw);
    else {
      delta = i == 1 ? UnZigZag(raw) : Add(delta, UnZigZag(raw));
      previous = Add(previous, delta);
    }
    out->push_back(previous);
  }
  return pos == in.size();
}

void EncodeIntegerColumn(const std::vector<int64_t>& values, std::string* out) {
  int64_t previous = 0;
  for (int64_t v : values) {
    PutVarint(ZigZag(Sub(v, previous)), out);
    previous = v;
  }
}

bool DecodeIntegerColumn(std::string_view in, size_t count, std::vector<int64_t>* out) {
  out->clear();
  size_t pos = 0;
  int64_t previous = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t raw = 0;
    if (!GetVarint(in, &pos, &raw)) return false;
    previous = Add(previous, UnZigZag(raw));
    out->push_back(previous);
  }
  return pos == in.size();
}

void EncodeFloatColumn(const std::vector<double>& values, std::string* out) {
  BitWriter bits(out);
  uint64_t previous = 0;
  int leading = -1, trailing = 0;  // the window of the last value written with one
  for (size_t i = 0; i < values.size(); i++) {
    const uint64_t v = std::bit_cast<uint64_t>(values[i]);
    if (i == 0) {
      bits.Put(v, 64);
      previous = v;
      continue;
    }
    const uint64_t x = v ^ previous;
    previous = v;
    if (x == 0) {
      bits.Put(0, 1);
      continue;
    }
    const int lead = std::countl_zero(x), trail = std::countr_zero(x);
    if (leading >= 0 && lead >= leading && trail >= trailing) {
      bits.Put(0b10, 2);
      bits.Put(x >> trailing, 64 - leading - trailing);
      continue;
    }
    leading = lead;
    trailing = trail;
    const int meaningful = 64 - lead - trail;
    bits.Put(0b11, 2);
    bits.Put(static_cast<uint64_t>(lead), 6);
    bits.Put(static_cast<uint64_t>(meaningful - 1), 6);
    bits.Put(x >> trail, meaningful);
  }
}

bool DecodeFloatColumn(std::string_view in, size_t count, std::vector<double>* out) {
  out->clear();
  out->reserve(std::min<size_t>(count, in.size() * 8));  // a value takes a bit at least
  BitReader bits(in);
  uint64_t previous = 0, b = 0;
  int leading = -1, trailing = 0;
  for (size_t i = 0; i < count; i++) {
    if (i == 0) {
      if (!bits.Get(64, &previous)) return false;
      out->push_back(std::bit_cast<double>(previous));
      continue;
    }
    if (!bits.Get(1, &b)) return false;
    if (b == 0) {
      out->push_back(std::bit_cast<double>(previous));
      continue;
    }
    if (!bits.Get(1, &b)) return false;
    if (b == 1) {
      uint64_t lead = 0, length = 0;
      if (!bits.Get(6, &lead) || !bits.Get(6, &length)) return false;
      if (lead + length + 1 > 64) return false;
      leading = static_cast<int>(lead);
      trailing = 64 - leading - static_cast<int>(length + 1);
    } else if (leading < 0) {
      return false;  // a reused window before any was set
    }
    uint64_t meaningful = 0;
    if (!bits.Get(64 - leading - trailing, &meaningful)) return false;
    previous ^= meaningful << trailing;
    out->push_back(std::bit_cast<double>(previous));
  }
  return bits.AtEnd();
}

bool EncodeIntegralFloatColumn(const std::vector<double>& values, std::string* out) {
  constexpr double kLimit = 9007199254740992.0;  // 2^53
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < values.size(); i++) {
    const double v = values[i];
    if (!(v >= -kLimit && v <= kLimit) || v != std::trunc(v) || (v == 0 && std::signbit(v))) return false;
    const int64_t x = static_cast<int64_t>(v);
    lo = i == 0 ? x : std::min(lo, x);
    hi = i == 0 ? x : std::max(hi, x);
  }
  const uint64_t range = static_cast<uint64_t>(hi - lo);
  const int width = range == 0 ? 0 : 64 - std::countl_zero(range);
  PutVarint(ZigZag(lo), out);
  out->push_back(static_cast<char>(width));
  const size_t begin = out->size();
  out->resize(begin + (values.size() * width + 7) / 8 + 7, '\0');
  unsigned char* bytes = reinterpret_cast<unsigned char*>(out->data() + begin);
  size_t bit = 0;
  for (double v : values) {
    uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(v) - lo);
    for (size_t b = bit; d != 0; b += 8 - b % 8) {
      bytes[b / 8] |= static_cast<unsigned char>(d << (b % 8));
      d >>= 8 - b % 8;
    }
    bit += width;
  }
  return true;
}

namespace {

// Decodes the values of whole groups of eight of a bit-packed column of
// width W <= 8 (eight values fill W bytes: one load each); returns how
// many it decoded.
template <int W>
size_t UnpackEights(const unsigned char* bytes, size_t count, int64_t lo, double* dst) {
  constexpr uint64_t kMask = (uint64_t(1) << W) - 1;
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + (i / 8) * W, 8);  // the 7 bytes of padding keep it inside
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
    for (int k = 0; k < 8; k++) dst[i + k] = static_cast<double>(lo + static_cast<int64_t>((word >> (k * W)) & kMask));
  }
  return i;
}

}  // namespace

bool DecodeIntegralFloatColumn(std::string_view in, size_t count, std::vector<double>* out) {
  out->clear();
  size_t pos = 0;
  uint64_t zigzag = 0;
  if (!GetVarint(in, &pos, &zigzag) || pos >= in.size()) return false;
  const int64_t lo = UnZigZag(zigzag);
  const int width = static_cast<unsigned char>(in[pos++]);
  // Whole numbers up to 2^53 are packed: lo + a value of 55 bits fits.
  if (width > 55 || lo > (int64_t{1} << 53) || lo < -(int64_t{1} << 53)) return false;
  // The count bounded by the bytes before multiplying it by the width.
  if (width > 0 && count > (in.size() - pos) * 8 / width) return false;
  if (in.size() - pos != (count * width + 7) / 8 + 7) return false;
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(in.data() + pos);
  const uint64_t mask = width == 0 ? 0 : (uint64_t(1) << width) - 1;
  out->resize(count);
  double* dst = out->data();
  size_t done = 0;
  switch (width) {
    case 0: std::fill(dst, dst + count, static_cast<double>(lo)); return true;
    case 1: done = UnpackEights<1>(bytes, count, lo, dst); break;
    case 2: done = UnpackEights<2>(bytes, count, lo, dst); break;
    case 3: done = UnpackEights<3>(bytes, count, lo, dst); break;
    case 4: done = UnpackEights<4>(bytes, count, lo, dst); break;
    case 5: done = UnpackEights<5>(bytes, count, lo, dst); break;
    case 6: done = UnpackEights<6>(bytes, count, lo, dst); break;
    case 7: done = UnpackEights<7>(bytes, count, lo, dst); break;
    case 8: done = UnpackEights<8>(bytes, count, lo, dst); break;
    default: break;
  }
  for (size_t i = done, bit = done * width; i < count; i++, bit += width) {
    uint64_t word;
    std::memcpy(&word, bytes + bit / 8, 8);  // the 7 bytes of padding keep it inside
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
    dst[i] = static_cast<double>(lo + static_cast<int64_t>((word >> (bit % 8)) & mask));
  }
  return true;
}

void EncodeStringColumn(const std::vector<std::string>& values, std::string* out) {
  std::unordered_map<std::string_view, uint64_t> index;
  std::vector<std::string_view> dictionary;
  std::vector<uint64_t> rows;
  rows.reserve(values.size());
  for (const auto& v : values) {
    auto [it, inserted] = index.try_emplace(v, dictionary.size());
    if (inserted) dictionary.push_back(v);
    rows.push_back(it->second);
  }
  PutVarint(dictionary.size(), out);
  for (std::string_view d : dictionary) {
    PutVarint(d.size(), out);
    out->append(d);
  }
  for (uint64_t r : rows) PutVarint(r, out);
}

bool DecodeStringColumn(std::string_view in, size_t count, std::vector<std::string>* out) {
  out->clear();
  size_t pos = 0;
  uint64_t entries = 0;
  if (!GetVarint(in, &pos, &entries) || entries > in.size()) return false;
  std::vector<std::string_view> dictionary;
  dictionary.reserve(entries);
  for (uint64_t e = 0; e < entries; e++) {
    uint64_t length = 0;
    if (!GetVarint(in, &pos, &length) || length > in.size() - pos) return false;
    dictionary.push_back(in.substr(pos, length));
    pos += length;
  }
  for (size_t i = 0; i < count; i++) {
    uint64_t r = 0;
    if (!GetVarint(in, &pos, &r) || r >= dictionary.size()) return false;
    out->emplace_back(dictionary[r]);
  }
  return pos == in.size();
}

}  // namespace freshet
