#include "storage/load_file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include <xxhash.h>

namespace freshet {
namespace {

constexpr size_t kBlockSize = 32 << 10;   // the store's block_size
constexpr int kRestartInterval = 16;      // RocksDB's default
constexpr size_t kBlockTrailer = 5;       // compression type, checksum
constexpr size_t kOutputBuffer = 64 << 10;
constexpr char kNoCompression = 0;
constexpr char kXXH3Checksum = 4;         // rocksdb::kXXH3
constexpr uint32_t kFormatVersion = 5;
constexpr uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
constexpr uint64_t kUnknownColumnFamily = 0x7fffffff;  // TablePropertiesCollectorFactory::Context
// (sequence 0 << 8) | kTypeValue, little-endian: the suffix of every key.
constexpr char kValueSuffix[8] = {1, 0, 0, 0, 0, 0, 0, 0};

void PutFixed32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; i++) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 4);
}
void PutFixed64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}
void PutVarint64(std::string* out, uint64_t v) {
  char b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  b[n++] = static_cast<char>(v);
  out->append(b, static_cast<size_t>(n));
}
// A block entry: [shared][non-shared][value size] then the key's unshared
// bytes and the value.
void AddEntry(std::string* block, std::string_view key, size_t shared, std::string_view value) {
  PutVarint64(block, shared);
  PutVarint64(block, key.size() - shared);
  PutVarint64(block, value.size());
  block->append(key.data() + shared, key.size() - shared);
  block->append(value.data(), value.size());
}
// A block whose every entry is a restart point (index, properties,
// metaindex), from entries in key order.
std::string FullKeyBlock(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string block;
  std::vector<uint32_t> restarts;
  for (const auto& [key, value] : entries) {
    restarts.push_back(static_cast<uint32_t>(block.size()));
    AddEntry(&block, key, 0, value);
  }
  if (restarts.empty()) restarts.push_back(0);
  for (uint32_t r : restarts) PutFixed32(&block, r);
  PutFixed32(&block, static_cast<uint32_t>(restarts.size()));
  return block;
}
std::string Varint64(uint64_t v) {
  std::string s;
  PutVarint64(&s, v);
  return s;
}
// A block handle: offset and size, varint64 each.
std::string EncodedHandle(uint64_t offset, uint64_t size) {
  std::string s;
  PutVarint64(&s, offset);
  PutVarint64(&s, size);
  return s;
}
std::string Fixed32(uint32_t v) {
  std::string s;
  PutFixed32(&s, v);
  return s;
}
std::string Fixed64(uint64_t v) {
  std::string s;
  PutFixed64(&s, v);
  return s;
}
Status Errno(const std::string& what, const std::string& path) {
  return Status::IoError(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

LoadFileWriter::~LoadFileWriter() {
  if (fd_ >= 0) close(fd_);
}

Status LoadFileWriter::Open(const std::string& path) {
  path_ = path;
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return Errno("creating", path);
  block_.reserve(kBlockSize + 1024);
  return Status::OK();
}

Status LoadFileWriter::Put(std::string_view key, std::string_view value) {
  // A block is cut before an entry would take it, with its restart
  // offsets and trailer, past 32 KiB (as RocksDB's builder does, within
  // a few bytes): a cached block of just over 32 KiB takes the next
  // allocation size up, a quarter more memory for the whole table.
  if (!block_.empty()) {
    const size_t entry = 15 + key.size() + sizeof(kValueSuffix) + value.size();
    const size_t restarts = restarts_.size() + (since_restart_ == kRestartInterval);
    if (block_.size() + entry + 4 * restarts + 4 + kBlockTrailer > kBlockSize) FinishDataBlock();
  }
  size_t shared = 0;
  if (since_restart_ == kRestartInterval || block_.empty()) {
    restarts_.push_back(static_cast<uint32_t>(block_.size()));
    since_restart_ = 0;
  } else {
    // Bytes shared with the last key, counted within the user keys (a
    // shorter shared run than possible is still a valid encoding).
    const size_t limit = std::min(key.size(), last_key_.size() - sizeof(kValueSuffix));
    while (shared < limit && key[shared] == last_key_[shared]) shared++;
  }
  since_restart_++;
  // The internal key: the user key and the suffix, written without a copy.
  const size_t internal_size = key.size() + sizeof(kValueSuffix);
  PutVarint64(&block_, shared);
  PutVarint64(&block_, internal_size - shared);
  PutVarint64(&block_, value.size());
  block_.append(key.data() + shared, key.size() - shared);
  block_.append(kValueSuffix, sizeof(kValueSuffix));
  block_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  last_key_.append(kValueSuffix, sizeof(kValueSuffix));
  entries_++;
  raw_key_bytes_ += internal_size;
  raw_value_bytes_ += value.size();
  if (out_.size() >= kOutputBuffer) return Flush();
  return Status::OK();
}

LoadFileWriter::Handle LoadFileWriter::WriteBlock(std::string* block) {
  Handle h{offset_ + out_.size(), block->size()};
  // RocksDB's kXXH3 block checksum: the low 32 bits of XXH3 of the block,
  // then the trailer's type byte mixed in (ModifyChecksumForLastByte).
  uint32_t checksum = static_cast<uint32_t>(XXH3_64bits(block->data(), block->size()));
  checksum ^= static_cast<uint32_t>(static_cast<uint8_t>(kNoCompression)) * 0x6b9083d9u;
  out_.append(*block);
  out_.push_back(kNoCompression);
  PutFixed32(&out_, checksum);
  return h;
}

void LoadFileWriter::FinishDataBlock() {
  for (uint32_t r : restarts_) PutFixed32(&block_, r);
  PutFixed32(&block_, static_cast<uint32_t>(restarts_.size()));
  Handle h = WriteBlock(&block_);
  data_blocks_++;
  // The index separates blocks by their last keys.
  index_entries_.emplace_back(last_key_, EncodedHandle(h.offset, h.size));
  block_.clear();
  restarts_.clear();
  since_restart_ = 0;
}

Status LoadFileWriter::Flush() {
  const char* p = out_.data();
  size_t left = out_.size();
  while (left > 0) {
    ssize_t n = write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("writing", path_);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  offset_ += out_.size();
  written_ += out_.size();
  out_.clear();
  return Status::OK();
}

Status LoadFileWriter::Finish() {
  if (entries_ == 0) return Status::InvalidArgument("an empty load file: " + path_);
  if (!block_.empty()) FinishDataBlock();
  const uint64_t data_size = offset_ + out_.size();
  // The index block: an entry per data block, each a restart point.
  std::string index = FullKeyBlock(index_entries_);
  Handle index_handle = WriteBlock(&index);

  std::map<std::string, std::string> props = {
      {"rocksdb.block.based.table.index.type", Fixed32(0)},  // kBinarySearch
      {"rocksdb.column.family.id", Varint64(kUnknownColumnFamily)},
      {"rocksdb.comparator", "leveldb.BytewiseComparator"},
      {"rocksdb.compression", "NoCompression"},
      {"rocksdb.data.size", Varint64(data_size)},
      {"rocksdb.external_sst_file.global_seqno", Fixed64(0)},
      {"rocksdb.external_sst_file.version", Fixed32(2)},
      {"rocksdb.filter.size", Varint64(0)},
      {"rocksdb.fixed.key.length", Varint64(0)},
      {"rocksdb.format.version", Varint64(kFormatVersion)},
      {"rocksdb.index.size", Varint64(index_handle.size + kBlockTrailer)},
      {"rocksdb.merge.operator", "nullptr"},
      {"rocksdb.num.data.blocks", Varint64(data_blocks_)},
      {"rocksdb.num.entries", Varint64(entries_)},
      {"rocksdb.num.range-deletions", Varint64(0)},
      {"rocksdb.prefix.extractor.name", "nullptr"},
      {"rocksdb.property.collectors", "[]"},
      {"rocksdb.raw.key.size", Varint64(raw_key_bytes_)},
      {"rocksdb.raw.value.size", Varint64(raw_value_bytes_)},
  };
  std::string properties = FullKeyBlock({props.begin(), props.end()});
  Handle props_handle = WriteBlock(&properties);
  std::string metaindex =
      FullKeyBlock({{"rocksdb.properties", EncodedHandle(props_handle.offset, props_handle.size)}});
  Handle metaindex_handle = WriteBlock(&metaindex);

  // The footer: checksum type, the two handles padded to 41 bytes, the
  // format version and the magic number.
  const size_t footer_start = out_.size();
  out_.push_back(kXXH3Checksum);
  out_ += EncodedHandle(metaindex_handle.offset, metaindex_handle.size);
  out_ += EncodedHandle(index_handle.offset, index_handle.size);
  out_.resize(footer_start + 41, '\0');
  PutFixed32(&out_, kFormatVersion);
  PutFixed64(&out_, kBlockBasedTableMagic);

  Status s = Flush();
  if (!s.ok()) return s;
  if (fdatasync(fd_) != 0) return Errno("syncing", path_);
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) return Errno("closing", path_);
  return Status::OK();
}

}  // namespace freshet
