#include "storage/timeseries/wal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "storage/file_io.h"
#include "storage/timeseries/little_endian.h"

namespace freshet {

namespace {

constexpr size_t kHeaderBytes = 12;  // length u32, checksum u64

Status SyncDirectoryStatus(const std::string& dir) {
  return SyncDirectory(dir) ? Status::OK() : Status::IoError(ErrnoMessage("cannot sync " + dir));
}

// The segments in the directory, by number.
std::map<uint64_t, std::string> Segments(const std::string& dir) {
  std::map<uint64_t, std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() < 5 || name.substr(name.size() - 4) != ".wal") continue;
    std::string digits = name.substr(0, name.size() - 4);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 20) continue;
    try {
      out[std::stoull(digits)] = entry.path().string();
    } catch (const std::out_of_range&) {
    }
  }
  return out;
}

// Replays the records of `bytes` up to `limit`; returns where reading
// stopped (== limit unless damaged).
size_t ReplayRecords(std::string_view bytes, size_t limit, const std::function<void(std::string_view)>& replay) {
  size_t pos = 0;
  while (pos < limit) {
    if (limit - pos < kHeaderBytes) return pos;
    uint64_t len = GetLittleEndian(bytes, pos, 4);
    uint64_t sum = GetLittleEndian(bytes, pos + 4, 8);
    if (len > limit - pos - kHeaderBytes) return pos;
    std::string_view payload = bytes.substr(pos + kHeaderBytes, len);
    if (XXH3_64bits(payload.data(), payload.size()) != sum) return pos;
    replay(payload);
    pos += kHeaderBytes + len;
  }
  return pos;
}

Result<std::string> ReadFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(ErrnoMessage("cannot open " + path));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      close(fd);
      return Status::IoError(ErrnoMessage("cannot read " + path));
    }
    if (r == 0) break;
    out.append(buf, size_t(r));
  }
  close(fd);
  return out;
}

}  // namespace

std::string WalPosition::Encode() const { return fmt::format("{} {}", segment, offset); }

std::optional<WalPosition> WalPosition::Decode(std::string_view text) {
  WalPosition p;
  std::string s(text);
  size_t space = s.find(' ');
  if (space == std::string::npos) return std::nullopt;
  try {
    p.segment = std::stoull(s.substr(0, space));
    p.offset = std::stoull(s.substr(space + 1));
  } catch (...) {
    return std::nullopt;
  }
  return p;
}

std::string TimeSeriesWal::PathOf(uint64_t segment) const { return fmt::format("{}/{:020}.wal", dir_, segment); }

Status TimeSeriesWal::OpenSegment(uint64_t segment, bool create) {
  if (fd_ >= 0) close(fd_);
  fd_ = open(PathOf(segment).c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
  if (fd_ < 0) return Status::IoError(ErrnoMessage("cannot open " + PathOf(segment)));
  if (create) return SyncDirectoryStatus(dir_);
  return Status::OK();
}

Result<std::unique_ptr<TimeSeriesWal>> TimeSeriesWal::Open(
    std::string dir, std::optional<WalPosition> committed, uint64_t trimmed, bool sync,
    const std::function<void(uint64_t, std::string_view)>& replay, std::string* damaged) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError("cannot create " + dir + ": " + ec.message());
  std::unique_ptr<TimeSeriesWal> wal(new TimeSeriesWal(dir, sync));
  std::map<uint64_t, std::string> segments = Segments(dir);
  uint64_t last = segments.empty() ? 0 : segments.rbegin()->first;
  for (const auto& [number, path] : segments) {
    if (!committed || number > committed->segment) {
      std::filesystem::remove(path, ec);  // written after the last commit
      continue;
    }
    Result<std::string> bytes = ReadFile(path);
    if (!bytes.ok()) return bytes.status();
    const bool current = number == committed->segment;
    size_t limit = current ? std::min<uint64_t>(committed->offset, bytes->size()) : bytes->size();
    const uint64_t segment = number;  // (a lambda may not capture a structured binding before C++20's clang)
    size_t read = ReplayRecords(*bytes, limit, [&](std::string_view payload) { replay(segment, payload); });
    if (current && (read < committed->offset) && damaged)
      *damaged = fmt::format("{}: the records from byte {} on do not read back (committed through byte {})", path,
                             read, committed->offset);
    else if (!current && read < limit && damaged)
      *damaged = fmt::format("{}: the records from byte {} on do not read back", path, read);
  }
  if (committed && segments.count(committed->segment)) {
    wal->position_ = *committed;
    if (Status s = wal->OpenSegment(committed->segment, false); !s.ok()) return s;
    if (ftruncate(wal->fd_, static_cast<off_t>(committed->offset)) != 0)
      return Status::IoError(ErrnoMessage("cannot truncate " + wal->PathOf(committed->segment)));
  } else {
    // Nothing committed yet (or the committed segment is gone: damage
    // reported above): a new segment after every number used.
    uint64_t next = std::max(last, committed ? committed->segment : 0) + 1;
    if (committed && committed->segment > trimmed && damaged && committed->offset > 0 && damaged->empty())
      *damaged = fmt::format("{}: missing (committed through byte {})", wal->PathOf(committed->segment),
                             committed->offset);
    wal->position_ = WalPosition{next, 0};
    if (Status s = wal->OpenSegment(next, true); !s.ok()) return s;
  }
  return wal;
}

TimeSeriesWal::~TimeSeriesWal() {
  if (fd_ >= 0) close(fd_);
}

Result<WalPosition> TimeSeriesWal::Append(std::string_view payload) {
  if (payload.size() > UINT32_MAX) return Status::InvalidArgument("a time-series log record over 4 GiB");
  std::string header;
  PutLittleEndian(payload.size(), 4, &header);
  PutLittleEndian(XXH3_64bits(payload.data(), payload.size()), 8, &header);
  if (!PwriteAll(fd_, header.data(), header.size(), position_.offset) ||
      !PwriteAll(fd_, payload.data(), payload.size(), position_.offset + header.size()))
    return Status::IoError(ErrnoMessage("cannot write " + PathOf(position_.segment)));
  if (sync_ && fdatasync(fd_) != 0) return Status::IoError(ErrnoMessage("cannot sync " + PathOf(position_.segment)));
  return WalPosition{position_.segment, position_.offset + header.size() + payload.size()};
}

Result<uint64_t> TimeSeriesWal::Rotate() {
  // What a failed append left after the committed end must not read as a
  // record of this segment once it is no longer the last.
  if (ftruncate(fd_, static_cast<off_t>(position_.offset)) != 0)
    return Status::IoError(ErrnoMessage("cannot truncate " + PathOf(position_.segment)));
  if (sync_ && fdatasync(fd_) != 0) return Status::IoError(ErrnoMessage("cannot sync " + PathOf(position_.segment)));
  uint64_t next = position_.segment + 1;
  if (Status s = OpenSegment(next, true); !s.ok()) return s;
  position_ = WalPosition{next, 0};
  return next;
}

void TimeSeriesWal::RemoveBefore(uint64_t segment) {
  std::error_code ec;
  for (const auto& [number, path] : Segments(dir_))
    if (number < segment) std::filesystem::remove(path, ec);
}

uint64_t TimeSeriesWal::bytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& [number, path] : Segments(dir_)) total += std::filesystem::file_size(path, ec);
  return total;
}

}  // namespace freshet
