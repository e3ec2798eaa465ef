#include "storage/bulk_rows.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/state_table.h"

namespace freshet {

namespace {

// A vnode's first segment is small (most COPYs are small), later ones
// double up to kMaxSegment: few allocations for big loads, no copying.
constexpr size_t kFirstSegment = 256;
constexpr size_t kMaxSegment = 64 << 10;
constexpr size_t kEntryHeader = 2 * sizeof(uint32_t);
// Slabs: the first one small, the later ones huge-page sized and aligned.
constexpr size_t kFirstSlab = 64 << 10;
constexpr size_t kHugePage = 2 << 20;
constexpr size_t kSlab = 8 * kHugePage;

}  // namespace

BulkRows::BulkRows(TableId table_id, int key_column, std::vector<int> dist_key_indices, std::optional<BulkSpill> spill)
    : table_id_(table_id),
      key_column_(key_column),
      dist_key_indices_(std::move(dist_key_indices)),
      spill_(std::move(spill)) {}

BulkRows::~BulkRows() {
  if (map_) munmap(map_, file_size_);
  if (fd_ >= 0) close(fd_);
}

namespace {
[[noreturn]] void ThrowIoError(const char* what, int err) {
  throw SqlError(sqlstate::kIoError, std::string("bulk load: ") + what + ": " + std::strerror(err));
}

// An unnamed file in dir: nothing to remove after a crash.
int OpenUnnamedFile(const std::string& dir) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // File systems without O_TMPFILE: a named file, unlinked at once.
  std::string path = dir + "/load-XXXXXX";
  fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) ThrowIoError("creating a spill file", errno);
  unlink(path.c_str());
  return fd;
}
}  // namespace

void BulkRows::Spill() {
  if (fd_ < 0) fd_ = OpenUnnamedFile(spill_->dir);
  // One writev per IOV_MAX runs; each vnode's segments become one extent.
  std::vector<iovec> iov;
  auto write_out = [&] {
    size_t i = 0;
    while (i < iov.size()) {
      ssize_t n = writev(fd_, iov.data() + i, static_cast<int>(std::min<size_t>(iov.size() - i, IOV_MAX)));
      if (n < 0) {
        if (errno == EINTR) continue;
        ThrowIoError("writing a spill file", errno);
      }
      for (size_t left = static_cast<size_t>(n); left > 0 && i < iov.size();) {
        if (left >= iov[i].iov_len) {
          left -= iov[i].iov_len;
          i++;
        } else {
          iov[i].iov_base = static_cast<char*>(iov[i].iov_base) + left;
          iov[i].iov_len -= left;
          left = 0;
        }
      }
    }
    iov.clear();
  };
  for (Vnode& v : vnodes_) {
    uint64_t run = 0;
    for (const Segment& seg : v.segments)
      if (seg.used) {
        iov.push_back({const_cast<char*>(seg.data), seg.used});
        run += seg.used;
      }
    if (run == 0) continue;
    if (!v.extents.empty() && v.extents.back().offset + v.extents.back().size == file_size_)
      v.extents.back().size += run;
    else
      v.extents.push_back({file_size_, run});
    file_size_ += run;
    if (iov.size() >= IOV_MAX) write_out();
  }
  write_out();
  ReleaseSegments();
}

void BulkRows::ReleaseSegments() {
  for (auto& v : vnodes_) v.segments.clear();
  slab_index_ = 0;
  slab_used_ = 0;
  memory_bytes_ = 0;
}

void BulkRows::Finish() {
  if (finished_) return;
  finished_ = true;
  if (fd_ < 0) return;
  Spill();
  slabs_.clear();
  if (file_size_ == 0) return;
  map_ = mmap(nullptr, file_size_, PROT_READ, MAP_SHARED, fd_, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    ThrowIoError("mapping a spill file", errno);
  }
  // The commit reads each vnode's runs in turn, all of the file once.
  madvise(map_, file_size_, MADV_WILLNEED);
  const char* base = static_cast<const char*>(map_);
  for (Vnode& v : vnodes_) {
    for (const Extent& e : v.extents) v.segments.push_back(Segment{base + e.offset, e.size, e.size});
    v.extents.clear();
  }
}

void BulkRows::SlabFree::operator()(Slab* s) const {
  if (s->size >= kHugePage) munmap(s->base, s->size);
  else std::free(s->base);
  delete s;
}

char* BulkRows::Allocate(size_t n) {
  while (!slabs_.empty() && slabs_[slab_index_]->size - slab_used_ < n && slab_index_ + 1 < slabs_.size()) {
    slab_index_++;  // a slab kept by Clear()
    slab_used_ = 0;
  }
  if (slabs_.empty() || slabs_[slab_index_]->size - slab_used_ < n) {
    auto slab = std::unique_ptr<Slab, SlabFree>(new Slab);
    if (slabs_.empty() && n <= kFirstSlab) {
      slab->size = kFirstSlab;
      slab->base = std::malloc(kFirstSlab);
      if (!slab->base) throw std::bad_alloc();
    } else {
      slab->size = std::max(kSlab, (n + kHugePage - 1) / kHugePage * kHugePage);
      // Over-map by a huge page to align the slab to one.
      size_t mapped = slab->size + kHugePage;
      void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      uintptr_t start = reinterpret_cast<uintptr_t>(p);
      uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
      if (aligned > start) munmap(p, aligned - start);
      uintptr_t end = start + mapped, slab_end = aligned + slab->size;
      if (end > slab_end) munmap(reinterpret_cast<void*>(slab_end), end - slab_end);
      slab->base = reinterpret_cast<void*>(aligned);
      madvise(slab->base, slab->size, MADV_HUGEPAGE);  // advice only: may be refused
    }
    // No kept slab fits (the loop above reached the last one): a new last.
    slabs_.push_back(std::move(slab));
    slab_index_ = slabs_.size() - 1;
    slab_used_ = 0;
  }
  char* p = static_cast<char*>(slabs_[slab_index_]->base) + slab_used_;
  slab_used_ += n;
  return p;
}

char* BulkRows::Reserve(Vnode& v, size_t n) {
  if (v.segments.empty() || v.segments.back().capacity - v.segments.back().used < n) {
    size_t capacity = v.segments.empty() ? kFirstSegment : std::min(kMaxSegment, 2 * v.segments.back().capacity);
    capacity = std::max(capacity, n);
    Segment s;
    s.data = Allocate(capacity);
    s.capacity = capacity;
    v.segments.push_back(s);
  }
  Segment& s = v.segments.back();
  char* p = const_cast<char*>(s.data) + s.used;
  s.used += n;
  memory_bytes_ += n;
  return p;
}

void BulkRows::Add(const DataChunk& rows) {
  const Vector& keys = rows.column(key_column_);
  for (size_t r = 0; r < rows.num_rows(); r++) {
    if (keys.IsNull(r) || (rows_ > 0 && keys.GetInt(r) <= last_key_))
      throw SqlError(sqlstate::kInternalError, "bulk load: keys do not increase");
    if (rows_ == 0) first_key_ = keys.GetInt(r);
    last_key_ = keys.GetInt(r);
    uint16_t vnode = ComputeVnode(rows, r, dist_key_indices_);
    scratch_key_.clear();
    scratch_value_.clear();
    PutFixed32BE(&scratch_key_, table_id_);
    PutFixed16BE(&scratch_key_, vnode);
    EncodeKeyFromVector(keys, r, &scratch_key_);
    EncodeRow(rows, r, &scratch_value_);
    rows_++;
    bytes_ += scratch_key_.size() + scratch_value_.size();
    uint32_t key_size = static_cast<uint32_t>(scratch_key_.size());
    uint32_t value_size = static_cast<uint32_t>(scratch_value_.size());
    char* p = Reserve(vnodes_[vnode], kEntryHeader + key_size + value_size);
    std::memcpy(p, &key_size, sizeof(key_size));
    std::memcpy(p + sizeof(key_size), &value_size, sizeof(value_size));
    std::memcpy(p + kEntryHeader, scratch_key_.data(), key_size);
    std::memcpy(p + kEntryHeader + key_size, scratch_value_.data(), value_size);
    if (spill_ && memory_bytes_ > spill_->after_bytes) Spill();
  }
}

void BulkRows::Append(const BulkRows& staged) {
  if (staged.rows_ == 0) return;
  if (staged.spilled() || finished_ || staged.table_id_ != table_id_ ||
      (rows_ > 0 && staged.first_key_ <= last_key_))
    throw SqlError(sqlstate::kInternalError, "bulk load: appended rows do not follow");
  for (int vnode = 0; vnode < kVnodeCount; vnode++)
    for (const Segment& seg : staged.vnodes_[vnode].segments)
      if (seg.used)  // entries are self-delimiting: a segment's bytes go in whole
        std::memcpy(Reserve(vnodes_[vnode], seg.used), seg.data, seg.used);
  if (rows_ == 0) first_key_ = staged.first_key_;
  last_key_ = staged.last_key_;
  rows_ += staged.rows_;
  bytes_ += staged.bytes_;
  if (spill_ && memory_bytes_ > spill_->after_bytes) Spill();
}

void BulkRows::Clear() {
  if (spilled() || finished_) throw SqlError(sqlstate::kInternalError, "bulk load: clearing spilled or finished rows");
  ReleaseSegments();
  rows_ = 0;
  bytes_ = 0;
  first_key_ = last_key_ = 0;
}

const char* BulkRows::DecodeEntry(const char* p, std::string_view* key, std::string_view* value) {
  uint32_t key_size, value_size;
  std::memcpy(&key_size, p, sizeof(key_size));
  std::memcpy(&value_size, p + sizeof(key_size), sizeof(value_size));
  *key = std::string_view(p + kEntryHeader, key_size);
  *value = std::string_view(p + kEntryHeader + key_size, value_size);
  return p + kEntryHeader + key_size + value_size;
}

std::optional<std::string> BulkRows::Find(std::string_view key) const {
  Cursor c(this);
  c.Seek(key);
  if (c.Valid() && c.key() == key) return std::string(c.value());
  return std::nullopt;
}

BulkRows::Cursor::Cursor(const BulkRows* rows) : rows_(rows) {
  if (rows->spilled() && !rows->finished_)
    throw SqlError(sqlstate::kInternalError, "bulk load: reading spilled rows before Finish");
}
BulkRows::Cursor::~Cursor() = default;
BulkRows::Cursor::Cursor(Cursor&&) noexcept = default;
BulkRows::Cursor& BulkRows::Cursor::operator=(Cursor&&) noexcept = default;

void BulkRows::Cursor::Seek(std::string_view target) {
  std::string prefix = TablePrefix(rows_->table_id_);
  std::string_view p(prefix);
  vnode_ = kVnodeCount;
  if (target.substr(0, 4) > p) return;  // past every key of the table
  int first = 0;
  if (target.substr(0, 4) == p && target.size() > 4) {
    // The vnode bytes of the target (a one-byte tail compares as vnode
    // tail*256, which the keys of that vnode and above follow).
    uint8_t hi = static_cast<uint8_t>(target[4]);
    uint8_t lo = target.size() > 5 ? static_cast<uint8_t>(target[5]) : 0;
    first = hi << 8 | lo;
    if (first >= kVnodeCount) return;
  }
  vnode_ = first;
  segment_ = 0;
  offset_ = 0;
  Settle();
  if (!Valid() || vnode_ != first) return;
  // Within the vnode: skip whole segments whose successor starts at or
  // below the target, then entries.
  const Vnode& v = rows_->vnodes_[vnode_];
  while (Valid() && vnode_ == first && key_ < target) {
    if (offset_ == 0 && segment_ + 1 < v.segments.size()) {
      std::string_view next_key, next_value;
      DecodeEntry(v.segments[segment_ + 1].data, &next_key, &next_value);
      if (next_key <= target) {
        segment_++;
        Settle();
        continue;
      }
    }
    Next();
  }
}

void BulkRows::Cursor::Next() {
  std::string_view k, val;
  const Segment& s = rows_->vnodes_[vnode_].segments[segment_];
  const char* end = DecodeEntry(s.data + offset_, &k, &val);
  offset_ = static_cast<size_t>(end - s.data);
  Settle();
}

void BulkRows::Cursor::Settle() {
  while (vnode_ < kVnodeCount) {
    const Vnode& v = rows_->vnodes_[vnode_];
    if (segment_ < v.segments.size() && offset_ >= v.segments[segment_].used) {
      segment_++;
      offset_ = 0;
      continue;
    }
    if (segment_ >= v.segments.size()) {
      vnode_++;
      segment_ = 0;
      offset_ = 0;
      continue;
    }
    DecodeEntry(v.segments[segment_].data + offset_, &key_, &value_);
    return;
  }
}

}  // namespace freshet
