#include "storage/bulk_rows.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <system_error>
#include <thread>
#include <cstring>
#include <new>

#include <rocksdb/env.h>
#include <rocksdb/sst_file_reader.h>

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
// A vnode's file is written back after this much more was added to it.
// The caller does the kernel's write-back work (allocating extents,
// submitting I/O): every 256 KiB cost a tenth of a 10M-row load's CPU more
// than every MiB, which leaves the syncs at the end no longer (the disk
// writes a GB/s). Much larger and a vnode's file (3 MB in that load) waits
// whole for Finish().
constexpr size_t kWriteBackBytes = 1 << 20;

}  // namespace

BulkRows::BulkRows(TableId table_id, int key_column, std::vector<int> dist_key_indices, std::optional<BulkSpill> spill)
    : table_id_(table_id),
      key_column_(key_column),
      dist_key_indices_(std::move(dist_key_indices)),
      spill_(std::move(spill)) {}

BulkRows::~BulkRows() {
  for (Vnode& v : vnodes_) {
    v.writer.reset();
    // Ingested files were linked into the store: this removes only the
    // load's own name for them.
    if (!v.file.empty()) unlink(v.file.c_str());
  }
}

namespace {
void ThrowIfFailed(const Status& s, const std::string& file) {
  if (!s.ok()) throw SqlError(sqlstate::kIoError, "bulk load: writing " + file + ": " + s.ToString());
}
void ThrowIfFailed(const rocksdb::Status& s, const std::string& file) {
  if (!s.ok()) throw SqlError(sqlstate::kIoError, "bulk load: reading " + file + ": " + s.ToString());
}
}  // namespace

void BulkRows::WriteEntries(int vnode, const char* data, size_t size) {
  Vnode& v = vnodes_[vnode];
  if (!v.writer) {
    // Written by our own writer, not SstFileWriter: the same files for
    // sorted puts at a fraction of the CPU (load_file_writer.h).
    v.file = spill_->file_prefix + "-" + std::to_string(vnode) + ".sst";
    v.writer = std::make_unique<LoadFileWriter>();
    ThrowIfFailed(v.writer->Open(v.file), v.file);
  }
  for (const char* p = data, *end = data + size; p < end;) {
    std::string_view key, value;
    p = DecodeEntry(p, &key, &value);
    ThrowIfFailed(v.writer->Put(key, value), v.file);
  }
  // The file goes to disk while the load goes on (asynchronously), so that
  // Finish() syncs little more than each file's tail: syncing all of it
  // there left the cores idle for the half second the disk took. (RocksDB's
  // bytes_per_sync never writes back a file's last megabyte, most of a
  // vnode's file.)
  v.unsynced_bytes += size;
  if (v.unsynced_bytes >= kWriteBackBytes) {
    v.unsynced_bytes = 0;
    int fd = open(v.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // advice only: Finish() syncs
      close(fd);
    }
  }
}

void BulkRows::Spill() {
  spilled_ = true;
  for (int vnode = 0; vnode < kVnodeCount; vnode++)
    for (const Segment& seg : vnodes_[vnode].segments) WriteEntries(vnode, seg.data, seg.used);
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
  if (!spilled_) return;
  Spill();
  slabs_.clear();
  // Each file is synced on its own; a sync waits for a journal commit, and
  // syncs made at once share one: the files are finished by many threads.
  constexpr int kFinishThreads = 16;
  std::atomic<int> next_vnode{0};
  std::vector<Status> statuses(kVnodeCount);
  auto finish_files = [&] {
    for (int vnode; (vnode = next_vnode++) < kVnodeCount;) {
      Vnode& v = vnodes_[vnode];
      if (!v.writer) continue;
      Status& s = statuses[vnode];
      try {  // nothing may escape a thread
        s = v.writer->Finish();  // syncs the file
        v.writer.reset();
        v.finished = s.ok();
      } catch (const std::exception& e) {
        s = Status::IoError(e.what());
      }
    }
  };
  std::vector<std::thread> threads;
  try {
    for (int t = 1; t < kFinishThreads; t++) threads.emplace_back(finish_files);
  } catch (const std::system_error&) {
    // Fewer threads than asked for: those running share the files.
  }
  finish_files();
  for (auto& t : threads) t.join();
  for (int vnode = 0; vnode < kVnodeCount; vnode++) ThrowIfFailed(statuses[vnode], vnodes_[vnode].file);
}

std::vector<std::string> BulkRows::files() const {
  std::vector<std::string> out;
  for (const Vnode& v : vnodes_)
    if (v.finished) out.push_back(v.file);
  return out;
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
  // Rows go to their vnodes at random, so the next entry of this vnode
  // comes a few hundred rows later, into memory no prefetcher follows (a
  // stream per vnode): fetch its lines for writing now.
  __builtin_prefetch(p + n, 1);
  __builtin_prefetch(p + n + 64, 1);
  return p;
}

char* BulkRows::NewEntry(uint16_t vnode, uint32_t key_tail_size, uint32_t value_size) {
  // [u32 key size][u32 value size][table][vnode, big-endian][key tail][value]
  const uint32_t key_size = sizeof(TableId) + 2 + key_tail_size;
  char* p = Reserve(vnodes_[vnode], kEntryHeader + key_size + value_size);
  std::memcpy(p, &key_size, sizeof(key_size));
  std::memcpy(p + sizeof(key_size), &value_size, sizeof(value_size));
  char* k = p + kEntryHeader;
  for (int i = sizeof(TableId) - 1; i >= 0; i--) *k++ = static_cast<char>(table_id_ >> (8 * i));
  *k++ = static_cast<char>(vnode >> 8);
  *k++ = static_cast<char>(vnode & 0xff);
  bytes_ += key_size + value_size;
  return k;
}

void BulkRows::Add(const DataChunk& rows) {
  const size_t n = rows.num_rows();
  if (n == 0) return;
  const Vector& keys = rows.column(key_column_);
  bool any = rows_ > 0;
  int64_t last = last_key_;
  for (size_t r = 0; r < n; r++) {
    if (keys.IsNull(r) || (any && keys.GetInt(r) <= last))
      throw SqlError(sqlstate::kInternalError, "bulk load: keys do not increase");
    last = keys.GetInt(r);
    any = true;
  }
  // Each row's entry is reserved in its vnode's segment, then the values
  // are encoded there column by column (no per-row copy, no per-cell
  // dispatch on the type).
  EncodedRowSizes(rows, &value_sizes_);
  entry_values_.resize(n);
  for (size_t r = 0; r < n; r++) {
    scratch_key_.clear();
    EncodeKeyFromVector(keys, r, &scratch_key_);
    char* k = NewEntry(ComputeVnode(rows, r, dist_key_indices_), static_cast<uint32_t>(scratch_key_.size()),
                       static_cast<uint32_t>(value_sizes_[r]));
    std::memcpy(k, scratch_key_.data(), scratch_key_.size());
    entry_values_[r] = k + scratch_key_.size();
  }
  EncodeRowsTo(rows, entry_values_.data());
  if (rows_ == 0) first_key_ = keys.GetInt(0);
  last_key_ = last;
  rows_ += n;
  if (spill_ && memory_bytes_ > spill_->after_bytes) Spill();
}

void BulkRows::AddEncoded(int64_t key, std::string_view value) {
  if (dist_key_indices_.size() != 1 || dist_key_indices_[0] != key_column_)
    throw SqlError(sqlstate::kInternalError, "bulk load: encoded rows need the key column as distribution key");
  if (rows_ > 0 && key <= last_key_) throw SqlError(sqlstate::kInternalError, "bulk load: keys do not increase");
  char* k = NewEntry(ComputeVnodeOfBigint(key), kBigintKeySize, static_cast<uint32_t>(value.size()));
  std::memcpy(EncodeBigintKeyTo(key, k), value.data(), value.size());
  if (rows_ == 0) first_key_ = key;
  last_key_ = key;
  rows_++;
  if (spill_ && memory_bytes_ > spill_->after_bytes) Spill();
}

void BulkRows::Append(const BulkRows& staged) {
  if (spilled_) {
    AppendVnodes(staged, 0, kVnodeCount);
    return;
  }
  CountAppended(staged);
  if (staged.rows_ == 0) return;
  // Entries are self-delimiting: a segment's bytes go in whole.
  for (int vnode = 0; vnode < kVnodeCount; vnode++)
    for (const Segment& seg : staged.vnodes_[vnode].segments)
      if (seg.used) std::memcpy(Reserve(vnodes_[vnode], seg.used), seg.data, seg.used);
  // Past the spill size the load switches to its files, but the rows held
  // so far are written by the appends that follow, each for its vnodes
  // (AppendVnodes), so that lanes share that work too; Finish() writes
  // what is left.
  if (spill_ && memory_bytes_ > spill_->after_bytes) spilled_ = true;
}

void BulkRows::AppendVnodes(const BulkRows& staged, int begin, int end) {
  if (!spilled_) throw SqlError(sqlstate::kInternalError, "bulk load: appending vnodes to rows in memory");
  if (begin == 0) CountAppended(staged);
  for (int vnode = begin; vnode < end; vnode++) {
    Vnode& v = vnodes_[vnode];
    if (!v.segments.empty()) {  // held since before the switch
      for (const Segment& seg : v.segments) WriteEntries(vnode, seg.data, seg.used);
      v.segments.clear();
    }
    for (const Segment& seg : staged.vnodes_[vnode].segments)
      if (seg.used) WriteEntries(vnode, seg.data, seg.used);
  }
}

void BulkRows::CountAppended(const BulkRows& staged) {
  if (staged.rows_ == 0) return;
  if (staged.spilled() || finished_ || staged.table_id_ != table_id_ ||
      (rows_ > 0 && staged.first_key_ <= last_key_))
    throw SqlError(sqlstate::kInternalError, "bulk load: appended rows do not follow");
  if (rows_ == 0) first_key_ = staged.first_key_;
  last_key_ = staged.last_key_;
  rows_ += staged.rows_;
  bytes_ += staged.bytes_;
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
BulkRows::Cursor& BulkRows::Cursor::operator=(Cursor&& other) noexcept {
  file_it_.reset();  // before the reader it reads
  rows_ = other.rows_;
  vnode_ = other.vnode_;
  segment_ = other.segment_;
  offset_ = other.offset_;
  file_reader_ = std::move(other.file_reader_);
  file_it_ = std::move(other.file_it_);
  key_ = other.key_;
  value_ = other.value_;
  return *this;
}

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
  if (rows_->spilled_) {
    SeekFiles(first, target);
    return;
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

void BulkRows::Cursor::SeekFiles(int from, std::string_view target) {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;  // read once, by the commit or the change stream
  for (vnode_ = from; vnode_ < kVnodeCount; vnode_++) {
    const Vnode& v = rows_->vnodes_[vnode_];
    if (!v.finished) continue;
    // A reader of its own, open while the cursor is in the vnode: a load's
    // 256 files do not hold 256 descriptors until it is committed.
    file_it_.reset();
    file_reader_ = std::make_unique<rocksdb::SstFileReader>(*rows_->spill_->options);
    ThrowIfFailed(file_reader_->Open(v.file), v.file);
    file_it_.reset(file_reader_->NewIterator(ro));
    if (target.empty()) file_it_->SeekToFirst();
    else file_it_->Seek(rocksdb::Slice(target.data(), target.size()));
    if (file_it_->Valid()) {
      TakeFileEntry();
      return;
    }
    ThrowIfFailed(file_it_->status(), v.file);
    target = {};
  }
  file_it_.reset();
  file_reader_.reset();
}

void BulkRows::Cursor::TakeFileEntry() {
  rocksdb::Slice k = file_it_->key(), v = file_it_->value();
  key_ = std::string_view(k.data(), k.size());
  value_ = std::string_view(v.data(), v.size());
}

void BulkRows::Cursor::Next() {
  if (file_it_) {
    file_it_->Next();
    if (file_it_->Valid()) TakeFileEntry();
    else {
      ThrowIfFailed(file_it_->status(), rows_->vnodes_[vnode_].file);
      SeekFiles(vnode_ + 1, {});
    }
    return;
  }
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
