#include "storage/dml_log.h"

#include "storage/file_io.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace freshet {

namespace {

constexpr uint64_t kMagic = 0x474553'4c4d44'5246ULL;  // "FRDMLSEG" read little-endian
constexpr uint64_t kHeaderBytes = 32;                // magic, number, first seq, checksum
constexpr uint64_t kRecordHeaderBytes = 20;          // checksum, seq, length

void Put64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }
void Put32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }
uint64_t Get64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t Get32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::string Errno(const std::string& what) { return ErrnoMessage(what); }
bool WriteAll(int fd, const char* data, size_t n, uint64_t offset) { return PwriteAll(fd, data, n, offset); }

// Over the segment's number, the record's sequence number and length
// (`seq_and_length`, 12 bytes) and its entry; two one-shot hashes, no
// streaming state (a stack-allocated one must be initialized before a
// seeded reset, or its secret may be garbage).
uint64_t RecordChecksum(uint64_t segment_number, const char* seq_and_length, std::string_view entry) {
  char head[20];
  Put64(head, segment_number);
  std::memcpy(head + 8, seq_and_length, 12);
  return XXH3_64bits_withSeed(entry.data(), entry.size(), XXH3_64bits(head, sizeof head));
}

}  // namespace

struct DmlLog::Segment {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  uint64_t number = 0;
  uint64_t first_seq = 0;
  uint64_t last_seq = 0;  // first_seq - 1 while empty
  uint64_t offset = 0;    // where the next record goes
  ~Segment() {
    if (fd >= 0) close(fd);
  }
};

DmlLog::DmlLog(std::string dir, uint64_t covered, CheckSpace check_space)
    : dir_(std::move(dir)), covered_(covered), check_space_(std::move(check_space)) {}

DmlLog::~DmlLog() = default;

Status DmlLog::Fail(std::string why) {
  broken_ = Status::IoError("the DML log " + dir_ + " failed (writes under synchronous_commit are refused until "
                            "the server restarts): " + why);
  spdlog::error("{}", broken_.message());
  return broken_;
}

void DmlLog::Free(std::shared_ptr<Segment> seg) {
  if (seg->size == kSegmentBytes && free_.size() < kMaxFreeSegments) {
    free_.push_back(std::move(seg));
    return;
  }
  // Deleting needs no directory sync: a file that comes back after a crash
  // holds retired or invalidated entries only.
  unlink(seg->path.c_str());
}

Status DmlLog::Load(const std::function<void(uint64_t, std::string_view)>* fn, size_t* replayed) {
  loaded_ = true;
  std::error_code ec;
  if (!std::filesystem::exists(dir_, ec)) return Status::OK();
  struct Found {
    std::shared_ptr<Segment> seg;
    std::string data;
  };
  std::vector<Found> found;
  for (const auto& file : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = file.path().filename().string();
    if (name.size() < 5 || name.substr(name.size() - 4) != ".seg" ||
        !std::all_of(name.begin(), name.end() - 4, [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    next_slot_ = std::max<uint64_t>(next_slot_, std::stoull(name.substr(0, name.size() - 4)) + 1);
    auto seg = std::make_shared<Segment>();
    seg->path = file.path().string();
    seg->fd = open(seg->path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat st;
    if (seg->fd < 0 || fstat(seg->fd, &st) != 0) return Status::IoError(Errno("cannot open " + seg->path));
    seg->size = static_cast<uint64_t>(st.st_size);
    std::string data(seg->size, '\0');
    for (uint64_t done = 0; done < seg->size;) {
      ssize_t r = pread(seg->fd, data.data() + done, seg->size - done, static_cast<off_t>(done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return Status::IoError(Errno("cannot read " + seg->path));
      done += static_cast<uint64_t>(r);
    }
    if (data.size() < kHeaderBytes || Get64(data.data()) != kMagic ||
        Get64(data.data() + 24) != XXH3_64bits(data.data(), 24)) {
      Free(std::move(seg));  // never written past its zeros, or invalidated
      continue;
    }
    seg->number = Get64(data.data() + 8);
    seg->first_seq = Get64(data.data() + 16);
    next_number_ = std::max(next_number_, seg->number + 1);
    found.push_back({std::move(seg), std::move(data)});
  }
  if (ec) return Status::IoError("cannot list " + dir_ + ": " + ec.message());
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.seg->number < b.seg->number; });

  uint64_t expected = covered_ + 1;
  for (auto& [seg, data] : found) {
    if (seg->first_seq > expected) {
      // After a gap: entries never acknowledged, whose numbers the entries
      // appended from now on take. Invalidated before any of those exists.
      static const char kZeros[kHeaderBytes] = {};
      if (!WriteAll(seg->fd, kZeros, kHeaderBytes, 0) || fdatasync(seg->fd) != 0)
        return Status::IoError(Errno("cannot invalidate " + seg->path));
      spdlog::warn("DML log {}: segment {} starts at entry {} after a gap at {} (never acknowledged): dropped",
                   dir_, seg->number, seg->first_seq, expected);
      Free(std::move(seg));
      continue;
    }
    uint64_t off = kHeaderBytes;
    seg->last_seq = seg->first_seq - 1;
    while (off + kRecordHeaderBytes <= seg->size) {
      const char* p = data.data() + off;
      const uint64_t seq = Get64(p + 8);
      const uint32_t length = Get32(p + 16);
      if (seq != seg->last_seq + 1 || length > seg->size - off - kRecordHeaderBytes) break;
      std::string_view entry(p + kRecordHeaderBytes, length);
      if (Get64(p) != RecordChecksum(seg->number, p + 8, entry)) break;  // torn, or from the segment's last use
      if (seq >= expected && fn) {
        (*fn)(seq, entry);
        ++*replayed;
      }
      seg->last_seq = seq;
      off += kRecordHeaderBytes + length;
    }
    seg->offset = off;
    if (seg->last_seq < expected) {
      Free(std::move(seg));  // covered by a committed epoch
      continue;
    }
    // What was read may still be only in the page cache (the server died,
    // the machine did not): on disk before anything after it.
    if (fdatasync(seg->fd) != 0) return Status::IoError(Errno("cannot sync " + seg->path));
    expected = seg->last_seq + 1;
    active_.push_back(std::move(seg));
  }
  next_seq_ = expected;
  return Status::OK();
}

Status DmlLog::StartSegment(uint64_t record_bytes) {
  // A Sync covers the segment appended to only: the one left must be on
  // disk before any entry after it is.
  if (appending_ && fdatasync(active_.back()->fd) != 0) return Fail(Errno("fdatasync " + active_.back()->path));
  const uint64_t bytes = std::max(kSegmentBytes, kHeaderBytes + record_bytes);
  std::shared_ptr<Segment> seg;
  if (bytes == kSegmentBytes && !free_.empty()) {
    seg = std::move(free_.back());
    free_.pop_back();
  } else {
    Status s = check_space_(bytes);
    if (!s.ok()) return s;
    std::error_code ec;
    if (!std::filesystem::exists(dir_, ec)) {
      std::filesystem::create_directories(dir_, ec);
      std::filesystem::path parent = std::filesystem::path(dir_).parent_path();
      if (ec || !SyncDirectory(parent.string()) || !SyncDirectory(parent.parent_path().string()))
        return Status::IoError("cannot create " + dir_ + (ec ? ": " + ec.message() : ""));
    }
    seg = std::make_shared<Segment>();
    seg->path = dir_ + "/" + std::to_string(next_slot_++) + ".seg";
    seg->size = bytes;
    seg->fd = open(seg->path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = seg->fd >= 0;
    static const std::string kZeros(1 << 20, '\0');
    for (uint64_t off = 0; ok && off < bytes; off += kZeros.size())
      ok = WriteAll(seg->fd, kZeros.data(), std::min<uint64_t>(kZeros.size(), bytes - off), off);
    ok = ok && fsync(seg->fd) == 0 && SyncDirectory(dir_);
    if (!ok) {
      const int err = errno;
      std::string why = Errno("cannot create " + seg->path);
      unlink(seg->path.c_str());
      return err == ENOSPC || err == EDQUOT ? Status::NoSpace(why) : Status::IoError(why);
    }
  }
  seg->number = next_number_++;
  seg->first_seq = next_seq_;
  seg->last_seq = next_seq_ - 1;
  seg->offset = kHeaderBytes;
  char header[kHeaderBytes];
  Put64(header, kMagic);
  Put64(header + 8, seg->number);
  Put64(header + 16, seg->first_seq);
  Put64(header + 24, XXH3_64bits(header, 24));
  if (!WriteAll(seg->fd, header, kHeaderBytes, 0)) return Fail(Errno("write " + seg->path));
  active_.push_back(std::move(seg));
  appending_ = true;
  return Status::OK();
}

Result<uint64_t> DmlLog::Append(std::string_view entry) {
  std::lock_guard lock(mu_);
  if (!loaded_) {
    Status s = Load(nullptr, nullptr);
    if (!s.ok()) return s;
  }
  if (!broken_.ok()) return broken_;
  if (entry.size() > UINT32_MAX) return Status::InvalidArgument("a write set of more than 4 GiB cannot be logged");
  const uint64_t record_bytes = kRecordHeaderBytes + entry.size();
  if (!appending_ || active_.back()->offset + record_bytes > active_.back()->size) {
    Status s = StartSegment(record_bytes);
    if (!s.ok()) return s;
  }
  Segment& seg = *active_.back();
  const uint64_t seq = next_seq_;
  char header[kRecordHeaderBytes];
  Put64(header + 8, seq);
  Put32(header + 16, static_cast<uint32_t>(entry.size()));
  Put64(header, RecordChecksum(seg.number, header + 8, entry));
  iovec parts[2] = {{header, kRecordHeaderBytes}, {const_cast<char*>(entry.data()), entry.size()}};
  ssize_t w;
  do w = pwritev(seg.fd, parts, 2, static_cast<off_t>(seg.offset));
  while (w < 0 && errno == EINTR);
  if (w != static_cast<ssize_t>(record_bytes)) {
    // A short write (not seen on a preallocated file): the record again, whole.
    std::string record(header, kRecordHeaderBytes);
    record.append(entry);
    if (w < 0 || !WriteAll(seg.fd, record.data(), record.size(), seg.offset)) return Fail(Errno("write " + seg.path));
  }
  seg.offset += record_bytes;
  seg.last_seq = seq;
  next_seq_ = seq + 1;
  return seq;
}

Status DmlLog::Sync(uint64_t seq) {
  std::unique_lock lock(sync_mu_);
  while (synced_ < seq) {
    if (syncing_) {
      sync_cv_.wait(lock);  // another caller's sync may cover this one
      continue;
    }
    syncing_ = true;
    lock.unlock();
    std::shared_ptr<Segment> seg;
    uint64_t covering;
    Status status;
    {
      std::lock_guard l(mu_);
      status = broken_;
      covering = next_seq_ - 1;
      if (appending_) seg = active_.back();
    }
    if (status.ok() && seg && fdatasync(seg->fd) != 0) {
      std::lock_guard l(mu_);
      status = Fail(Errno("fdatasync " + seg->path));
    }
    lock.lock();
    syncing_ = false;
    sync_cv_.notify_all();
    if (!status.ok()) return status;
    synced_ = std::max(synced_, covering);
  }
  return Status::OK();
}

void DmlLog::Retire(uint64_t seq) {
  std::lock_guard lock(mu_);
  // The segment appended to stays, unless it is an entry's own (larger
  // than a segment: full after that entry, the next append starts another).
  const bool own = appending_ && active_.back()->size > kSegmentBytes;
  const size_t keep = appending_ && !own ? 1 : 0;
  size_t n = 0;
  while (active_.size() - n > keep && active_[n]->last_seq <= seq) Free(std::move(active_[n++]));
  active_.erase(active_.begin(), active_.begin() + static_cast<std::ptrdiff_t>(n));
  if (active_.empty()) appending_ = false;
}

Result<size_t> DmlLog::Replay(const std::function<void(uint64_t, std::string_view)>& fn) {
  std::lock_guard lock(mu_);
  if (loaded_) return Status::InvalidArgument("the DML log was replayed or appended to already");
  size_t replayed = 0;
  Status s = Load(&fn, &replayed);
  if (!s.ok()) return s;
  return replayed;
}

size_t DmlLog::segments_in_use() const {
  std::lock_guard lock(mu_);
  return active_.size();
}

size_t DmlLog::free_segments() const {
  std::lock_guard lock(mu_);
  return free_.size();
}

}  // namespace freshet
