#include "storage/timeseries/column_block.h"

#include <lz4.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "common/error.h"
#include "storage/timeseries/column_encoding.h"
#include "storage/timeseries/little_endian.h"

namespace freshet {

namespace {

constexpr char kMagic[4] = {'F', 'T', 'B', '1'};
constexpr int kZstdLevel = 1;  // a flush is on the write path: speed first

[[noreturn]] void Corrupt(const std::string& what) {
  throw SqlError(sqlstate::kDataCorrupted, "corrupt time-series block: " + what);
}

// Reads the block front to back; every read checks the bytes are there.
class Cursor {
 public:
  explicit Cursor(std::string_view in) : in_(in) {}
  uint64_t LE(int bytes) {
    Need(bytes);
    const uint64_t v = GetLittleEndian(in_, pos_, bytes);
    pos_ += bytes;
    return v;
  }
  std::string_view Bytes(size_t n) {
    Need(n);
    std::string_view b = in_.substr(pos_, n);
    pos_ += n;
    return b;
  }
  size_t pos() const { return pos_; }

 private:
  void Need(size_t n) {
    if (n > in_.size() - pos_) Corrupt("it ends early");
  }
  std::string_view in_;
  size_t pos_ = 0;
};

// Float columns' second encoding (the high four bits of the compression
// byte): whole numbers bit-packed (column_encoding.h).
constexpr uint64_t kIntegralFloats = 1;

// Encodes the column; returns the encoding (0: the kind's own).
uint64_t Encode(const BlockColumn& c, std::string* out) {
  if (c.kind == BlockColumn::Kind::kFloat && EncodeIntegralFloatColumn(c.floats, out)) return kIntegralFloats;
  switch (c.kind) {
    case BlockColumn::Kind::kTimestamp: EncodeTimestampColumn(c.ints, out); break;
    case BlockColumn::Kind::kInteger: EncodeIntegerColumn(c.ints, out); break;
    case BlockColumn::Kind::kFloat: EncodeFloatColumn(c.floats, out); break;
    case BlockColumn::Kind::kString: EncodeStringColumn(c.strings, out); break;
  }
  return 0;
}

bool Decode(uint64_t encoding, std::string_view in, size_t count, BlockColumn* c) {
  if (encoding == kIntegralFloats)
    return c->kind == BlockColumn::Kind::kFloat && DecodeIntegralFloatColumn(in, count, &c->floats);
  if (encoding != 0) return false;
  switch (c->kind) {
    case BlockColumn::Kind::kTimestamp: return DecodeTimestampColumn(in, count, &c->ints);
    case BlockColumn::Kind::kInteger: return DecodeIntegerColumn(in, count, &c->ints);
    case BlockColumn::Kind::kFloat: return DecodeFloatColumn(in, count, &c->floats);
    case BlockColumn::Kind::kString: return DecodeStringColumn(in, count, &c->strings);
  }
  return false;
}

BlockColumnStats StatsOf(const BlockColumn& c) {
  BlockColumnStats s;
  switch (c.kind) {
    case BlockColumn::Kind::kTimestamp:
    case BlockColumn::Kind::kInteger:
      if (c.ints.empty()) return s;
      s.has = true;
      s.min_int = *std::min_element(c.ints.begin(), c.ints.end());
      s.max_int = *std::max_element(c.ints.begin(), c.ints.end());
      return s;
    case BlockColumn::Kind::kFloat: {
      if (c.floats.empty()) return s;
      s.has = true;
      bool any = false;
      for (double v : c.floats) {
        if (std::isnan(v)) continue;
        s.min_float = any ? std::min(s.min_float, v) : v;
        s.max_float = any ? std::max(s.max_float, v) : v;
        any = true;
      }
      if (!any) s.min_float = s.max_float = std::nan("");
      return s;
    }
    case BlockColumn::Kind::kString:
      if (c.strings.empty()) return s;
      s.has = true;
      s.min_string = *std::min_element(c.strings.begin(), c.strings.end());
      s.max_string = *std::max_element(c.strings.begin(), c.strings.end());
      return s;
  }
  return s;
}

void PutStats(BlockColumn::Kind kind, const BlockColumnStats& s, std::string* out) {
  out->push_back(s.has ? 1 : 0);
  if (!s.has) return;
  switch (kind) {
    case BlockColumn::Kind::kTimestamp:
    case BlockColumn::Kind::kInteger:
      PutLittleEndian(static_cast<uint64_t>(s.min_int), 8, out);
      PutLittleEndian(static_cast<uint64_t>(s.max_int), 8, out);
      break;
    case BlockColumn::Kind::kFloat:
      PutLittleEndian(std::bit_cast<uint64_t>(s.min_float), 8, out);
      PutLittleEndian(std::bit_cast<uint64_t>(s.max_float), 8, out);
      break;
    case BlockColumn::Kind::kString:
      for (const std::string* v : {&s.min_string, &s.max_string}) {
        PutLittleEndian(v->size(), 4, out);
        out->append(*v);
      }
      break;
  }
}

BlockColumnStats GetStats(BlockColumn::Kind kind, Cursor* in) {
  BlockColumnStats s;
  const uint64_t has = in->LE(1);
  if (has > 1) Corrupt("bad statistics flag");
  s.has = has == 1;
  if (!s.has) return s;
  switch (kind) {
    case BlockColumn::Kind::kTimestamp:
    case BlockColumn::Kind::kInteger:
      s.min_int = static_cast<int64_t>(in->LE(8));
      s.max_int = static_cast<int64_t>(in->LE(8));
      break;
    case BlockColumn::Kind::kFloat:
      s.min_float = std::bit_cast<double>(in->LE(8));
      s.max_float = std::bit_cast<double>(in->LE(8));
      break;
    case BlockColumn::Kind::kString:
      s.min_string = std::string(in->Bytes(in->LE(4)));
      s.max_string = std::string(in->Bytes(in->LE(4)));
      break;
  }
  return s;
}

// The payload compressed, or nullopt when that does not make it smaller.
std::optional<std::string> Compress(BlockCompression how, const std::string& raw) {
  std::string out;
  if (how == BlockCompression::kZstd) {
    out.resize(ZSTD_compressBound(raw.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), kZstdLevel);
    if (ZSTD_isError(n)) return std::nullopt;
    out.resize(n);
  } else if (how == BlockCompression::kLz4) {
    if (raw.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return std::nullopt;
    out.resize(LZ4_compressBound(static_cast<int>(raw.size())));
    int n = LZ4_compress_default(raw.data(), out.data(), static_cast<int>(raw.size()), static_cast<int>(out.size()));
    if (n <= 0) return std::nullopt;
    out.resize(n);
  } else {
    return std::nullopt;
  }
  if (out.size() >= raw.size()) return std::nullopt;
  return out;
}

std::string Decompress(uint64_t how, std::string_view stored, uint64_t raw_length) {
  if (how == static_cast<uint64_t>(BlockCompression::kNone)) {
    if (stored.size() != raw_length) Corrupt("an uncompressed payload of the wrong length");
    return std::string(stored);
  }
  if (raw_length > (uint64_t(1) << 31)) Corrupt("a payload too large");
  std::string raw(raw_length, '\0');
  if (how == static_cast<uint64_t>(BlockCompression::kZstd)) {
    size_t n = ZSTD_decompress(raw.data(), raw.size(), stored.data(), stored.size());
    if (ZSTD_isError(n) || n != raw_length) Corrupt("a zstd payload that does not decompress");
  } else if (how == static_cast<uint64_t>(BlockCompression::kLz4)) {
    int n = LZ4_decompress_safe(stored.data(), raw.data(), static_cast<int>(stored.size()), static_cast<int>(raw.size()));
    if (n < 0 || static_cast<uint64_t>(n) != raw_length) Corrupt("an lz4 payload that does not decompress");
  } else {
    Corrupt("an unknown compression");
  }
  return raw;
}

}  // namespace

size_t BlockColumn::num_values() const {
  switch (kind) {
    case Kind::kTimestamp:
    case Kind::kInteger: return ints.size();
    case Kind::kFloat: return floats.size();
    case Kind::kString: return strings.size();
  }
  return 0;
}

void WriteColumnBlock(size_t rows, const std::vector<BlockColumn>& columns, BlockCompression compression,
                      std::string* out) {
  const size_t begin = out->size();
  out->append(kMagic, 4);
  PutLittleEndian(rows, 4, out);
  PutLittleEndian(columns.size(), 2, out);
  for (const BlockColumn& c : columns) {
    const size_t nulls = c.valid.empty() ? 0 : static_cast<size_t>(std::count(c.valid.begin(), c.valid.end(), false));
    if ((!c.valid.empty() && c.valid.size() != rows) || rows - nulls != c.num_values())
      throw SqlError(sqlstate::kInternalError, "a block column's values do not match its rows");
    std::string raw;
    const uint64_t encoding = Encode(c, &raw);
    std::optional<std::string> packed =
        encoding == kIntegralFloats ? std::nullopt : Compress(compression, raw);
    out->push_back(static_cast<char>(c.kind));
    out->push_back(static_cast<char>(
        static_cast<uint64_t>(packed ? compression : BlockCompression::kNone) | encoding << 4));
    PutLittleEndian(nulls, 4, out);
    if (nulls > 0) {
      std::string bitmap((rows + 7) / 8, '\0');
      for (size_t r = 0; r < rows; r++)
        if (c.valid[r]) bitmap[r / 8] = static_cast<char>(bitmap[r / 8] | (1 << (r % 8)));
      out->append(bitmap);
    }
    PutStats(c.kind, StatsOf(c), out);
    PutLittleEndian(raw.size(), 4, out);
    const std::string& stored = packed ? *packed : raw;
    PutLittleEndian(stored.size(), 4, out);
    out->append(stored);
  }
  PutLittleEndian(XXH3_64bits(out->data() + begin, out->size() - begin), 8, out);
}

ColumnBlockView ReadColumnBlock(std::string_view block, const std::optional<std::vector<size_t>>& projection,
                                const BlockFilter& keep) {
  if (block.size() < 8 + 10) Corrupt("it is too short");
  const std::string_view body = block.substr(0, block.size() - 8);
  Cursor tail(block.substr(block.size() - 8));
  if (tail.LE(8) != XXH3_64bits(body.data(), body.size())) Corrupt("its checksum does not match");
  Cursor in(body);
  if (in.Bytes(4) != std::string_view(kMagic, 4)) Corrupt("not a block of this version");
  ColumnBlockView view;
  view.rows = in.LE(4);
  const size_t count = in.LE(2);
  view.columns.resize(count);
  std::vector<bool> wanted(count, !projection);
  if (projection)
    for (size_t c : *projection) {
      if (c >= count) throw SqlError(sqlstate::kInternalError, "a block column that does not exist was asked for");
      wanted[c] = true;
    }
  // The headers first (statistics for `keep`), then the payloads wanted.
  struct Stored {
    uint64_t compression, encoding, nulls, raw_length;
    std::string_view bitmap, payload;
  };
  std::vector<Stored> stored(count);
  for (size_t c = 0; c < count; c++) {
    const uint64_t kind = in.LE(1);
    if (kind > static_cast<uint64_t>(BlockColumn::Kind::kString)) Corrupt("an unknown column kind");
    view.kinds.push_back(static_cast<BlockColumn::Kind>(kind));
    Stored& s = stored[c];
    const uint64_t compression_byte = in.LE(1);
    s.compression = compression_byte & 0x0f;
    s.encoding = compression_byte >> 4;
    s.nulls = in.LE(4);
    if (s.nulls > view.rows) Corrupt("more NULLs than rows");
    if (s.nulls > 0) s.bitmap = in.Bytes((view.rows + 7) / 8);
    view.stats.push_back(GetStats(view.kinds.back(), &in));
    s.raw_length = in.LE(4);
    s.payload = in.Bytes(in.LE(4));
  }
  if (in.pos() != body.size()) Corrupt("bytes after its last column");
  if (keep && !keep(view)) {
    view.skipped = true;
    return view;
  }
  for (size_t c = 0; c < count; c++) {
    if (!wanted[c]) continue;
    const Stored& s = stored[c];
    BlockColumn column;
    column.kind = view.kinds[c];
    if (s.nulls > 0) {
      column.valid.resize(view.rows);
      size_t present = 0;
      for (size_t r = 0; r < view.rows; r++)
        present += column.valid[r] = (static_cast<uint8_t>(s.bitmap[r / 8]) >> (r % 8)) & 1;
      if (present != view.rows - s.nulls) Corrupt("a validity bitmap that does not match its NULL count");
    }
    if (!Decode(s.encoding, Decompress(s.compression, s.payload, s.raw_length), view.rows - s.nulls, &column) ||
        column.num_values() != view.rows - s.nulls)
      Corrupt("a column that does not decode");
    view.columns[c] = std::move(column);
  }
  return view;
}

}  // namespace freshet
